// SPDX-License-Identifier: GPL-2.0
/*
 * The live view: a sink that draws every interval's snapshot on one screen
 * (screen.c) in the terminal's alternate screen, and answers keys and
 * window-size changes at once from the snapshot it has. What the keys set
 * (live_key) is kept apart from drawing (draw).
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "output/live.h"
#include "core/snap.h"
#include "output/heatset.h"
#include "output/screen.h"
#include "output/sink.h"
#include "output/tty.h"

struct live {
	struct lat_sink k;
	struct lat_tty tty;
	const struct lat_provenance *prov;
	struct lat_screen view;		/* what the keys asked for */
	int heat_pick;			/* the focused family's histogram */
	char heat_name[96];
	struct lat_heat_set *heat;	/* every histogram's, fed each interval */
	const struct lat_snap *snap;	/* the last interval's, valid until the next */
	char *held;			/* paused: the frame on the screen */
	size_t held_len;
	int epfd, winch;		/* the keys and SIGWINCH, as one fd */
};

static struct live *L(struct lat_sink *k)
{
	return (struct live *)k;
}

/* The frame from the last snapshot; paused, the frame it held */
static void draw(struct live *v)
{
	const struct lat_node *fam[LAT_SCREEN_MAX_FAMILIES], *h[16];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int nf, nh;

	if (!v->snap || !v->tty.active)
		return;
	if (v->view.paused && v->held) {
		lat_tty_frame(&v->tty, v->held, v->held_len);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	lat_tty_size(v->tty.out, &v->view.rows, &v->view.cols);
	v->view.heat = NULL;
	nf = lat_screen_families(v->snap, fam, LAT_SCREEN_MAX_FAMILIES);
	if (v->view.focus > nf)
		v->view.focus = 0;
	if (v->view.focus) {
		nh = lat_screen_hists(fam[v->view.focus - 1], h, 16);
		if (nh) {
			lat_screen_hist_name(v->heat_name, sizeof(v->heat_name),
					     h[v->heat_pick % nh]);
			v->view.heat = lat_heat_set_find(v->heat, v->heat_name);
			v->view.heat_name = v->heat_name;
		}
	}
	lat_screen_render(f, v->snap, v->prov, &v->view);
	fclose(f);
	lat_tty_frame(&v->tty, buf, len);
	free(v->held);
	v->held = NULL;
	if (v->view.paused) {
		v->held = buf;
		v->held_len = len;
	} else {
		free(buf);
	}
}

/* a key: false to end the run */
static bool live_key(struct live *v, int k)
{
	const struct lat_node *fam[LAT_SCREEN_MAX_FAMILIES];
	int nf = v->snap ? lat_screen_families(v->snap, fam, LAT_SCREEN_MAX_FAMILIES) : 0;
	bool was_help = v->view.help;

	/* paused, the screen holds: p resumes, q quits, the rest wait */
	if (v->view.paused && k != 'p' && k != 'q' && k != 'Q')
		return true;
	v->view.help = false;
	if (was_help && k != '?')
		return true;
	switch (k) {
	case 'q': case 'Q':
		return false;
	case '0': case 27:	/* Esc */
		v->view.focus = 0;
		break;
	case '\t':
		v->view.focus = nf ? (v->view.focus + 1) % (nf + 1) : 0;
		v->heat_pick = 0;
		break;
	case 'h':
		v->heat_pick++;
		break;
	case 'i':
		v->view.run = false;
		break;
	case 'r':
		v->view.run = true;
		break;
	case 'p':
		v->view.paused = !v->view.paused;
		break;
	case '?':
		v->view.help = !was_help;
		break;
	default:
		if (k >= '1' && k <= '9' && k - '0' <= nf) {
			v->view.focus = k - '0';
			v->heat_pick = 0;
		}
		break;
	}
	return true;
}

static int live_interval(struct lat_sink *k, const struct lat_snap *s)
{
	struct live *v = L(k);

	lat_heat_set_push(v->heat, s);
	v->snap = s;
	if (!v->view.paused)
		draw(v);
	return 0;
}

static int live_final(struct lat_sink *k, const struct lat_snap *s)
{
	L(k)->snap = NULL;	/* the summary is the text sink's */
	return 0;
}

static int live_input_fd(struct lat_sink *k)
{
	return L(k)->tty.active ? L(k)->epfd : -1;
}

/* the screen answers at once, from this interval's snapshot */
static bool live_input(struct lat_sink *k)
{
	struct live *v = L(k);
	struct epoll_event ev[2];
	int n = epoll_wait(v->epfd, ev, 2, 0);

	for (int i = 0; i < n; i++) {
		if (ev[i].data.fd == v->winch) {
			struct signalfd_siginfo si;

			if (read(v->winch, &si, sizeof(si)) == sizeof(si))
				draw(v);	/* a new window size */
			continue;
		}
		int key = lat_tty_key(&v->tty);

		if (key >= 0 && !live_key(v, key))
			return false;
		if (key >= 0)
			draw(v);
	}
	return true;
}

static void live_stop(struct lat_sink *k)
{
	lat_tty_end(&L(k)->tty);
}

static void live_free(struct lat_sink *k)
{
	struct live *v = L(k);

	lat_tty_end(&v->tty);
	if (v->winch >= 0)
		close(v->winch);
	if (v->epfd >= 0)
		close(v->epfd);
	lat_heat_set_free(v->heat);
	free(v->held);
	free(v);
}

static const struct lat_sink_ops live_ops = {
	.name = "live",
	.interval = live_interval,
	.final = live_final,
	.free = live_free,
	.input_fd = live_input_fd,
	.input = live_input,
	.stop = live_stop,
};

static int watch(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

struct lat_sink *lat_live_sink_new(const struct lat_provenance *p, int in, int out)
{
	struct live *v = calloc(1, sizeof(*v));
	sigset_t winch;
	const char *cs;

	if (!v)
		return NULL;
	v->k.ops = &live_ops;
	v->prov = p;
	v->view.live = v->view.provenance = true;
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	v->view.utf8 = cs && !strcmp(cs, "UTF-8");
	/* SIGWINCH is blocked in every thread (the run's signals are): this
	 * fd alone receives it */
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	v->winch = signalfd(-1, &winch, SFD_CLOEXEC | SFD_NONBLOCK);
	v->epfd = epoll_create1(EPOLL_CLOEXEC);
	v->heat = lat_heat_set_new();
	if (v->winch < 0 || v->epfd < 0 || !v->heat || watch(v->epfd, in) ||
	    watch(v->epfd, v->winch)) {
		v->tty.active = false;
		live_free(&v->k);
		return NULL;
	}
	lat_tty_begin(&v->tty, in, out);
	return &v->k;
}

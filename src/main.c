// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf: options, signals, the loop over modules, and the one place where
 * exit codes are chosen: 0 success, 1 runtime failure, 2 usage error,
 * 3 environment (not root / no CAP_BPF, no kernel BTF, nothing attachable).
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <langinfo.h>
#include <locale.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lat.h"
#include "bench/bench.h"
#include "report.h"
#include "schedcore.h"
#include "self.h"
#include "target.h"
#include "tty.h"
#include "screen.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_ENV = 3 };

struct mod {
	const struct lat_module_ops *ops;
	void *priv;
};

struct app {
	struct lat_opts o;
	struct lat_run run;
	struct lat_schedcore schedcore;
	struct lat_tgt tgt;
	struct lat_away away;	/* latbpf's threads off the target's CPUs */
	struct lat_provenance *prov;
	struct mod mods[LAT_MAX_FAMILIES];
	int nmods;
	struct lat_sink *sinks[8];	/* every output, fed the same snapshots */
	int nsinks;
	struct lat_snap snap;
	FILE *json_f;		/* the JSON sink's; stdout tells the others */
	struct lat_tty tty;
	struct lat_screen view;		/* what the live view shows now */
	struct lat_heat_set *heat;	/* its heat maps: the text sink's */
	int heat_pick;			/* the focused family's histogram */
	char heat_name[96];
	char *held;			/* paused: the frame on the screen */
	size_t held_len;
	bool utf8;
	struct lat_baseline *baseline;	/* --baseline: measured before attaching */
	struct lat_self self;
	__u64 t0, t_last;	/* start, last poll */
	double t0_epoch_s;	/* the start on the wall clock */
	long interval;
};

static bool verbose;

static double lat_epoch_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	lat_libbpf_note(level, fmt, ap);
	return verbose ? vfprintf(stderr, fmt, ap) : 0;
}

static void unavailable(struct app *a, const char *name, int err)
{
	char why[160];

	snprintf(why, sizeof(why), "unavailable: %s", strerror(-err));
	lat_provenance_set_probe(a->prov, name, why);
}

/* Opens every requested family, then attaches them (families sharing an
 * object must all be configured before it loads); one that fails is
 * reported in the provenance and the others go on. Returns the first
 * failure's code. The kernel's BTF is parsed once for the opens and freed
 * before any load, where libbpf parses its own: one copy at a time. */
static int attach_all(struct app *a)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int i, n = 0, err, first_err = 0;
	struct mod *m;

	a->run.btf = btf;
	for (i = 0; lat_modules[i] && i < LAT_MAX_FAMILIES; i++) {
		if (!(a->o.probes & (1U << i)))
			continue;
		m = &a->mods[n];
		m->ops = lat_modules[i];
		err = m->ops->open(&a->run, a->o.cfg[i], &m->priv);
		if (err) {
			unavailable(a, m->ops->name, err);
			first_err = first_err ? first_err : err;
			continue;
		}
		n++;
	}
	btf__free(btf);
	a->run.btf = NULL;
	for (i = 0; i < n; i++) {
		m = &a->mods[i];
		err = m->ops->attach(m->priv);
		if (err) {
			unavailable(a, m->ops->name, err);
			first_err = first_err ? first_err : err;
			m->ops->destroy(m->priv);
			continue;
		}
		lat_provenance_set_probe(a->prov, m->ops->name, m->ops->mode(m->priv));
		a->mods[a->nmods++] = *m;
	}
	return first_err;
}

/* Everything the run knows now, into the snapshot: provenance, then each
 * family, and what they lost. final: the whole run's, which also carries
 * the baseline. */
static void publish(struct app *a, bool final)
{
	struct lat_snap *s = &a->snap;
	__u64 now = lat_now_ns();

	lat_snap_reset(s);
	s->final = final;
	s->interval = final ? 0 : a->interval;
	/* the whole run ends at the last poll, whose interval record is out
	 * already: the final snapshot adds no stretch of its own */
	if (final)
		now = a->t_last;
	s->elapsed_ns = now - a->t0;
	s->iv_start_s = (a->t_last - a->t0) / 1e9;
	s->iv_len_s = (now - a->t_last) / 1e9;
	a->t_last = now;
	if (final)
		lat_pub_flags(lat_pub_bool(s, "final", true), LAT_F_PROV);
	else
		lat_pub_flags(lat_pub_num(s, "interval", a->interval), LAT_F_PROV);
	lat_provenance_publish(a->prov, s, s->elapsed_ns);
	lat_self_publish(&a->self, s);
	for (int i = 0; i < a->nmods; i++)
		a->mods[i].ops->publish(a->mods[i].priv, s);
	lat_snap_publish_drops(s);
	if (final)
		lat_baseline_publish(a->baseline, s);
	if (s->oom)
		fprintf(stderr, "latbpf: out of memory: this report is incomplete\n");
}

/* Every sink renders the snapshot; one that fails says so and the others go
 * on. Returns the first failure. */
static int render(struct app *a, bool final)
{
	int err, first = 0;

	publish(a, final);
	for (int i = 0; i < a->nsinks; i++) {
		struct lat_sink *k = a->sinks[i];

		err = final ? k->ops->final(k, &a->snap) : k->ops->interval(k, &a->snap);
		first = first ? first : err;
	}
	return first;
}

/* The live view's frame from the current snapshot; paused, the frame it
 * held (a key or a new window size shows it again) */
static void emit_live(struct app *a)
{
	const struct lat_node *fam[LAT_MAX_FAMILIES * 2], *h[16];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int nf, nh;

	if (a->view.paused && a->held) {
		lat_tty_frame(&a->tty, a->held, a->held_len);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	lat_tty_size(a->tty.out, &a->view.rows, &a->view.cols);
	a->view.live = true;
	a->view.provenance = true;
	a->view.utf8 = a->utf8;
	a->view.heat = NULL;
	nf = lat_screen_families(&a->snap, fam, LAT_MAX_FAMILIES * 2);
	if (a->view.focus > nf)
		a->view.focus = 0;
	if (a->view.focus) {
		nh = lat_screen_hists(fam[a->view.focus - 1], h, 16);
		if (nh) {
			lat_screen_hist_name(a->heat_name, sizeof(a->heat_name),
					     h[a->heat_pick % nh]);
			a->view.heat = lat_heat_set_find(a->heat, a->heat_name);
			a->view.heat_name = a->heat_name;
		}
	}
	lat_screen_render(f, &a->snap, a->prov, &a->view);
	fclose(f);
	lat_tty_frame(&a->tty, buf, len);
	free(a->held);
	a->held = NULL;
	if (a->view.paused) {
		a->held = buf;
		a->held_len = len;
	} else {
		free(buf);
	}
}

/* a key of the live view: false to end the run */
static bool live_key(struct app *a, int k)
{
	const struct lat_node *fam[LAT_MAX_FAMILIES * 2];
	int nf = lat_screen_families(&a->snap, fam, LAT_MAX_FAMILIES * 2);
	bool was_help = a->view.help;

	/* paused, the screen holds: p resumes, q quits, the rest wait */
	if (a->view.paused && k != 'p' && k != 'q' && k != 'Q')
		return true;
	a->view.help = false;
	if (was_help && k != '?')
		return true;
	switch (k) {
	case 'q': case 'Q':
		return false;
	case '0': case 27:	/* Esc */
		a->view.focus = 0;
		break;
	case '\t':
		a->view.focus = nf ? (a->view.focus + 1) % (nf + 1) : 0;
		a->heat_pick = 0;
		break;
	case 'h':
		a->heat_pick++;
		break;
	case 'i':
		a->view.run = false;
		break;
	case 'r':
		a->view.run = true;
		break;
	case 'p':
		a->view.paused = !a->view.paused;
		break;
	case '?':
		a->view.help = !was_help;
		break;
	default:
		if (k >= '1' && k <= '9' && k - '0' <= nf) {
			a->view.focus = k - '0';
			a->heat_pick = 0;
		}
		break;
	}
	return true;
}

static int add_sink(struct app *a, struct lat_sink *k)
{
	if (!k)
		return -ENOMEM;
	if (a->nsinks == (int)(sizeof(a->sinks) / sizeof(a->sinks[0]))) {
		k->ops->free(k);
		return -ENOSPC;
	}
	a->sinks[a->nsinks++] = k;
	return 0;
}

static int poll_all(struct app *a)
{
	int err;

	lat_self_poll(&a->self);
	lat_away_update(&a->away, &a->run);
	for (int i = 0; i < a->nmods; i++) {
		err = a->mods[i].ops->poll(a->mods[i].priv);
		if (err) {
			fprintf(stderr, "%s: reading maps failed: %s\n",
				a->mods[i].ops->name, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Runs until the duration ends, a signal or 'q' arrives, or the target is
 * gone. Returns 0 or a negative errno. */
static int loop(struct app *a, int sfd)
{
	struct itimerspec its = { 0 };
	struct pollfd pfd[4];
	int tfd, n, err = 0;
	__u64 end = a->o.duration_ns ? a->t0 + a->o.duration_ns : 0;

	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd < 0)
		return -errno;
	its.it_interval.tv_sec = (time_t)(a->o.interval_ns / 1000000000ULL);
	its.it_interval.tv_nsec = (long)(a->o.interval_ns % 1000000000ULL);
	its.it_value = its.it_interval;
	timerfd_settime(tfd, 0, &its, NULL);

	for (;;) {
		int timeout = -1;

		n = 0;
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		if (a->tty.active)
			pfd[n++] = (struct pollfd){ .fd = a->tty.in, .events = POLLIN };
		if (a->tgt.alive)
			pfd[n++] = (struct pollfd){ .fd = a->tgt.epfd, .events = POLLIN };
		if (end) {
			__u64 t = lat_now_ns(), ms;

			if (t >= end)
				break;
			/* --duration goes to 1e18 ns: its ms do not fit an int */
			ms = (end - t + 999999) / 1000000;
			timeout = ms > 3600000 ? 3600000 : (int)ms;
		} else if (a->tgt.nproc_tids) {
			timeout = 200;	/* threads without pidfds: look at /proc */
		}
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				/* a new window size: the frame again, at once */
				if (si.ssi_signo == SIGWINCH) {
					if (a->tty.active && a->interval)
						emit_live(a);
				} else if (si.ssi_signo != SIGCHLD) {
					break;	/* SIGINT, SIGTERM, SIGHUP */
				}
			}
		}
		if (pfd[1].revents) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0)
				continue;
			a->interval++;
			if ((err = poll_all(a)))
				break;
			render(a, false);
			if (a->tty.active && !a->view.paused)
				emit_live(a);
		}
		if (a->tty.active && pfd[2].revents) {
			int k = lat_tty_key(&a->tty);

			if (k >= 0 && !live_key(a, k))
				break;
			/* the screen answers at once, from this interval's snapshot */
			if (k >= 0 && a->interval)
				emit_live(a);
		}
		if (lat_tgt_gone(&a->tgt)) {
			fprintf(stderr, "latbpf: target exited\n");
			break;
		}
	}
	close(tfd);
	return err;
}

static void cleanup(struct app *a)
{
	lat_tty_end(&a->tty);
	for (int i = 0; i < a->nmods; i++)
		a->mods[i].ops->destroy(a->mods[i].priv);
	a->nmods = 0;
	lat_tgt_cleanup(&a->tgt);
	lat_run_pinned_free();
	lat_scope_cleanup(&a->tgt);
	for (int i = 0; i < a->nsinks; i++)
		a->sinks[i]->ops->free(a->sinks[i]);
	a->nsinks = 0;
	lat_snap_free(&a->snap);
	a->heat = NULL;
	free(a->held);
	a->held = NULL;
	lat_provenance_free(a->prov);
	lat_baseline_free(a->baseline);
	lat_self_free(&a->self);
}

/* latbpf [trace] [OPTIONS] [-- COMMAND]: attach, poll, render. argv is the
 * whole command line (the provenance keeps it); options start at argv[sub]. */
static int trace_main(int argc, char **argv, int sub)
{
	struct app a = { 0 };
	sigset_t mask;
	int err, sfd = -1, code = EXIT_OK;
	bool to_tty;

	/* Blocks of 64 KiB and more (per-CPU copies, thread sets) come from
	 * mmap and go back at free: glibc's default raises that bar after
	 * each free, so the heap keeps every poll's high water and
	 * fragments as the blocks change size (26 MiB with 10,000 threads) */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	mallopt(M_TRIM_THRESHOLD, 256 * 1024);
	a.tgt.go_fd = a.tgt.err_fd = a.self.stats_fd = -1;
	if (lat_opts_parse(argc - sub + 1, argv + sub - 1, &a.o))
		return EXIT_USAGE;
	if (a.o.help) {
		lat_usage(stdout);
		return EXIT_OK;
	}
	if (a.o.version) {
		printf("latbpf %s (%s)\n", LATBPF_VERSION, LATBPF_COMMIT);
		return EXIT_OK;
	}
	verbose = a.o.verbose;
	libbpf_set_print(libbpf_print);

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "latbpf: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"CONFIG_DEBUG_INFO_BTF=y is required\n");
		return EXIT_ENV;
	}
	if (a.o.json_path) {
		a.json_f = strcmp(a.o.json_path, "-") ? fopen(a.o.json_path, "w") : stdout;
		if (!a.json_f) {
			char q[LAT_ARG_MAX];
			int e = errno;

			fprintf(stderr, "latbpf: cannot write '%s': %s\n",
				lat_term_arg(q, sizeof(q), a.o.json_path), strerror(e));
			return EXIT_USAGE;
		}
		err = add_sink(&a, lat_json_sink_new(a.json_f, a.o.json_path));
		if (err) {
			code = EXIT_RUNTIME;
			goto out;
		}
	}
	a.t0_epoch_s = lat_epoch_s();
	if (a.o.hlog_path) {
		struct lat_sink *k = lat_hlog_sink_new(a.o.hlog_path, a.t0_epoch_s);

		if (!k) {
			code = EXIT_USAGE;
			goto out;
		}
		add_sink(&a, k);
	}

	/* Signals arrive through a signalfd: the loop ends cleanly on each. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGWINCH);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);

	a.prov = lat_provenance_new(argc, argv, &a.o);
	if (!a.prov || sfd < 0) {
		code = EXIT_RUNTIME;
		goto out;
	}
	err = lat_tgt_init(&a.tgt, &a.o);
	if (!err)
		err = lat_scope_init(&a.tgt, &a.o);
	if (err) {
		/* said already */
		bool usage = err == -ESRCH || err == -ENOENT || err == -EMEDIUMTYPE;

		if (!usage && err != -ENODEV)
			fprintf(stderr, "latbpf: target: %s\n", strerror(-err));
		code = usage ? EXIT_USAGE : err == -ENODEV ? EXIT_ENV : EXIT_RUNTIME;
		goto out;
	}
	lat_provenance_set_target(a.prov, &a.tgt);
	/* before anything else runs: off the target's CPUs (the COMMAND,
	 * forked already, keeps the CPUs latbpf was given) */
	a.run.pids = a.tgt.pids;
	a.run.npids = a.tgt.npids;
	a.run.tids = a.tgt.tids;
	a.run.ntids = a.tgt.ntids;
	lat_away_init(&a.away);
	lat_away_update(&a.away, &a.run);
	lat_provenance_set_away(a.prov, &a.away);
	if (a.o.prom_addr) {
		/* its thread inherits the main thread's CPUs */
		struct lat_sink *k;

		k = lat_prom_sink_new(a.o.prom_addr);
		if (!k) {
			code = errno == EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
			goto out;
		}
		add_sink(&a, k);
	}
	a.run.opts = &a.o;
	a.run.schedcore = &a.schedcore;
	a.schedcore.run = &a.run;
	a.run.target = a.tgt.t;
	a.run.ncpus = libbpf_num_possible_cpus();
	if (a.run.ncpus <= 0) {
		code = EXIT_RUNTIME;
		goto out;
	}

	/* before attaching: the probes must not weigh on what it measures */
	if (a.o.baseline) {
		a.baseline = lat_baseline_run(lat_provenance_tsc_flags(a.prov));
		if (!a.baseline)
			fprintf(stderr, "latbpf: --baseline: out of memory; going on without\n");
	}
	err = lat_scope_load(&a.tgt, &a.run);
	if (err == -ESRCH) {
		fprintf(stderr, "latbpf: the target exited before latbpf attached\n");
		code = EXIT_USAGE;
		goto out;
	}
	if (err) {
		if (err == -EPERM)
			fprintf(stderr, "latbpf: not permitted to load BPF: run as root, "
				"or with CAP_BPF and CAP_PERFMON\n");
		else
			fprintf(stderr, "latbpf: the target filter could not be loaded: %s "
				"(-v shows why)\n", strerror(-err));
		code = err == -EPERM ? EXIT_ENV : EXIT_RUNTIME;
		goto out;
	}
	err = attach_all(&a);
	if (a.nmods == 0) {
		if (err == -EPERM)
			fprintf(stderr, "latbpf: not permitted to load BPF: run as root, "
				"or with CAP_BPF and CAP_PERFMON\n");
		else
			fprintf(stderr, "latbpf: nothing could be attached (-v shows why)\n");
		code = EXIT_ENV;
		goto out;
	}
	/* libbpf has freed the kernel's BTF (5-6 MiB) it parsed to load; give
	 * the heap's free pages back rather than carry them for the run */
	malloc_trim(0);
	to_tty = !a.o.no_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) &&
		 a.json_f != stdout;
	/* the live view shows what latbpf's programs cost, as bpftop does:
	 * the kernel's run-time statistics on while it runs */
	lat_self_init(&a.self, a.o.bpf_stats || to_tty);
	a.t0 = a.t_last = lat_now_ns();
	if (to_tty) {
		const char *cs;

		setlocale(LC_CTYPE, "");
		cs = nl_langinfo(CODESET);
		a.utf8 = cs && !strcmp(cs, "UTF-8");
	}
	/* the summary first at the end; interval blocks unless the live view
	 * or the JSON has stdout */
	err = add_sink(&a, lat_text_sink_new(a.json_f == stdout ? stderr : stdout, a.prov,
					     !to_tty && a.json_f != stdout));
	if (err) {
		code = EXIT_RUNTIME;
		goto out;
	}
	{
		struct lat_sink *text = a.sinks[a.nsinks - 1];

		memmove(a.sinks + 1, a.sinks, (size_t)(a.nsinks - 1) * sizeof(a.sinks[0]));
		a.sinks[0] = text;
		/* one set of heat maps, fed every interval: the summary's and
		 * the live view's */
		a.heat = lat_text_sink_heat(text);
	}
	/* Tests and scripts wait for this line before starting their load. */
	fputs("latbpf: attached; ", stderr);
	lat_provenance_text(a.prov, stderr, 0);
	fflush(stdout);
	if (to_tty)
		lat_tty_begin(&a.tty, STDIN_FILENO, STDOUT_FILENO);
	err = lat_tgt_start(&a.tgt);
	if (err) {
		char q[LAT_ARG_MAX];

		lat_tty_end(&a.tty);
		fprintf(stderr, "latbpf: cannot run '%s': %s\n",
			lat_term_arg(q, sizeof(q), a.o.command[0]), strerror(-err));
		code = EXIT_USAGE;
		goto out;
	}

	err = loop(&a, sfd);
	lat_tty_end(&a.tty);
	/* The stretch since the last interval is one more interval record, so
	 * the intervals add up to the whole run exactly; under 1 ms (the
	 * duration ended on a tick) the run ends at the last poll instead. */
	if (!err && lat_now_ns() - a.t_last >= 1000000ULL) {
		err = poll_all(&a);
		if (!err) {
			a.interval++;
			render(&a, false);
		}
	}
	if (render(&a, true) && !err)
		err = -EIO;
	if (err)
		code = EXIT_RUNTIME;
out:
	cleanup(&a);
	lat_opts_free(&a.o);
	if (sfd >= 0)
		close(sfd);
	return code;
}

/* latbpf bench [NAME...] [OPTIONS] */
static int bench_main(int argc, char **argv, int sub)
{
	int err;

	/* a ctxsw partner that dies must end its benchmark with an error
	 * (EPIPE), not end latbpf */
	signal(SIGPIPE, SIG_IGN);
	err = lat_bench_main(argc, argv);

	return err == -EINVAL ? EXIT_USAGE : err ? EXIT_RUNTIME : EXIT_OK;
}

/* latbpf report FILE.json [--html OUT.html]: a bad file is a usage error */
static int report_main(int argc, char **argv, int sub)
{
	int err = lat_report_main(argc, argv, sub);

	return err == -EINVAL ? EXIT_USAGE : err ? EXIT_RUNTIME : EXIT_OK;
}

/* Each subcommand parses its own options, from argv[sub] on. */
static const struct {
	const char *name;
	int (*main)(int argc, char **argv, int sub);
} subcommands[] = {
	{ "trace", trace_main },
	{ "bench", bench_main },
	{ "report", report_main },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].main(argc, argv, 2);
	/* no subcommand: trace, the main job */
	return trace_main(argc, argv, 1);
}

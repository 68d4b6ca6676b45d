// SPDX-License-Identifier: GPL-2.0
/*
 * Every renderer against a recorded run (tests/golden/run.json.gz, a real
 * `latbpf --json` run of the demo, loopback TCP, page touches and a sleeper
 * with a hostile name, --per-thread --per-cpu --baseline): each interval
 * record and the final one are rebuilt into the snapshot the run published
 * and fed to the plain text blocks and summary, the JSON writer, the .hlog
 * writer, the Prometheus exposition, the one-screen view at 120x40 (UTF-8)
 * and 80x24 (ASCII), and the HTML page. The bytes must equal the golden
 * files beside the run (gzip'd): what refactoring the code may not change.
 * Every record's view is also rendered at every height from 5 to 64 rows
 * (80 and 120 columns) and must fit the frame the terminal gets.
 *
 * GOLDEN_UPDATE=1 writes the golden files anew (when an output changes on
 * purpose: say why in the commit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "core/saved.h"
#include "core/snap.h"
#include "output/hlog.h"
#include "output/html.h"
#include "output/json.h"
#include "output/prom.h"
#include "output/screen.h"
#include "output/sink.h"
#include "output/text.h"
#include "version.h"	/* generated: LATBPF_VERSION, LATBPF_COMMIT */

#include "golden.h"

/* the build's commit, which the .hlog header names, as "COMMIT" */
static void uncommit(struct out *o)
{
	size_t cl = strlen(LATBPF_COMMIT), w = 0;

	for (size_t i = 0; i < o->len;) {
		if (cl && i + cl <= o->len && !memcmp(o->buf + i, LATBPF_COMMIT, cl)) {
			memcpy(o->buf + w, "COMMIT", 6);	/* cl >= 6: git's short hash */
			w += 6;
			i += cl;
		} else {
			o->buf[w++] = o->buf[i++];
		}
	}
	o->len = w;
}

static void screen(FILE *f, const struct lat_snap *s, int cols, int rows, bool utf8)
{
	struct lat_screen v = { .cols = cols, .rows = rows, .utf8 = utf8, .live = true,
				.provenance = true };

	fprintf(f, "==== interval %ld%s, %dx%d\n", s->interval, s->final ? " (final)" : "",
		cols, rows);
	lat_screen_render(f, s, NULL, &v);
	v.run = true;
	v.focus = 1;
	fprintf(f, "==== the same, whole run, family 1 in full\n");
	lat_screen_render(f, s, NULL, &v);
}

/*
 * A frame on the terminal has rows - 1 lines (tty.c keeps the last row
 * free and cuts what is past it with "more below"), so the view must fit
 * what it renders into that at every height: worst[h] is how many lines
 * it wrote at h rows, over every record, when that is more. (Below 5 rows
 * the header's 4 lines alone do not fit: the view writes them, and tty.c
 * cuts them with its note.)
 */
enum { FIT_LO = 5, FIT_HI = 64 };

static void fits(const struct lat_snap *s, int cols, bool utf8, int *worst, int *wide)
{
	for (int rows = FIT_LO; rows <= FIT_HI; rows++) {
		struct lat_screen v = { .cols = cols, .rows = rows, .utf8 = utf8, .live = true,
					.provenance = true };
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int n = 0;

		if (!f)
			continue;
		for (int run = 0; run < 2; run++) {
			v.run = run;
			lat_screen_render(f, s, NULL, &v);
			fflush(f);
			n = 0;
			for (size_t i = 0, c = 0; i < len; i++) {
				/* a cell a character (no escapes: the view writes
				 * none; tty.c adds its own) */
				if (buf[i] == '\n') {
					n++;
					c = 0;
				} else if (((unsigned char)buf[i] & 0xc0) != 0x80 && ++c > (size_t)cols) {
					*wide = *wide > rows ? *wide : rows;
				}
			}
			if (n > rows - 1 && n > worst[rows])
				worst[rows] = n;
			rewind(f);
			len = 0;
		}
		fclose(f);
		free(buf);
	}
}

static void judge_fit(const int *worst, int wide, int cols)
{
	char bad[512] = "";
	size_t l = 0;

	for (int rows = FIT_LO; rows <= FIT_HI; rows++)
		if (worst[rows] && l < sizeof(bad) - 32)
			l += (size_t)snprintf(bad + l, sizeof(bad) - l, " %dx%d: %d lines;", cols,
					      rows, worst[rows]);
	ok(!l, "at %d columns and every height from %d to %d rows, every record's view fits in "
	   "rows - 1 lines%s", cols, FIT_LO, FIT_HI, bad);
	ok(!wide, "... and no line is wider than %d columns (%s%d rows)", cols,
	   wide ? "too wide at up to " : "", wide);
}

int main(void)
{
	int worst80[FIT_HI + 1] = { 0 }, worst120[FIT_HI + 1] = { 0 }, wide80 = 0, wide120 = 0;
	struct out o[] = {
		{ .name = "text.txt" }, { .name = "json.ndjson" }, { .name = "prom.txt" },
		{ .name = "screen.txt" },
		{ .name = "html.html" }, { .name = "hlog.hlog" },
	};
	enum { TEXT, JSON, PROM, SCREEN, HTML, HLOG, N };
	char hlog_path[] = "/tmp/latbpf-golden-XXXXXX";
	char run_path[] = "/tmp/latbpf-golden-run-XXXXXX";
	struct lat_saved_run r;
	struct lat_sink *k[3];
	size_t rlen;
	char *run;
	int fd, err;

	/* dates in the .hlog header and the page are UTC anyway; be sure */
	setenv("TZ", "UTC", 1);
	for (int i = 0; i < N; i++)
		o[i].f = open_memstream(&o[i].buf, &o[i].len);
	fd = mkstemp(hlog_path);
	ok(fd >= 0, "a scratch file for the .hlog");
	close(fd);
	/* the run as latbpf wrote it, out of its gzip for report's reader */
	fd = mkstemp(run_path);
	close(fd);
	run = slurp(DIR "run.json.gz", &rlen);
	ok(run && spill(run_path, run, rlen, "wbT"), "the recorded run: %zu bytes", rlen);
	free(run);
	err = lat_saved_run_load(&r, run_path);
	unlink(run_path);
	r.path = DIR "run.json";	/* the page names it */
	ok(!err && r.n_iv >= 3, "it reads back: %zu intervals", r.n_iv);
	if (err)
		return done_testing();
	k[0] = lat_text_sink_new(o[TEXT].f, NULL, true);
	k[1] = lat_json_sink_new(o[JSON].f, "golden.json");
	k[2] = lat_hlog_sink_new(hlog_path, 1795600000.25);
	ok(k[0] && k[1] && k[2], "the text, JSON and .hlog sinks start");
	for (size_t i = 0; i <= r.n_iv; i++) {
		bool final = i == r.n_iv;
		size_t plen;
		char *p;

		err = lat_saved_run_snap(&r, i);
		if (err) {
			ok(0, "record %zu rebuilds", i + 1);
			break;
		}
		for (int j = 0; j < 3; j++)
			err |= final ? k[j]->ops->final(k[j], &r.snap) :
				       k[j]->ops->interval(k[j], &r.snap);
		p = lat_prom_render(&r.snap, &plen);
		fprintf(o[PROM].f, "==== record %zu\n", i + 1);
		if (p)
			fwrite(p, 1, plen, o[PROM].f);
		free(p);
		screen(o[SCREEN].f, &r.snap, 120, 40, true);
		screen(o[SCREEN].f, &r.snap, 80, 24, false);
		fits(&r.snap, 80, false, worst80, &wide80);
		fits(&r.snap, 120, true, worst120, &wide120);
	}
	judge_fit(worst80, wide80, 80);
	judge_fit(worst120, wide120, 120);
	ok(!err, "every sink took every record");
	/* the JSON sink closes its file */
	for (int j = 0; j < 3; j++)
		k[j]->ops->free(k[j]);
	o[JSON].f = NULL;
	ok(!lat_report_html(o[HTML].f, &r), "the HTML page is written");
	for (int i = 0; i < N; i++)
		if (o[i].f)
			fclose(o[i].f);
	free(o[HLOG].buf);
	o[HLOG].buf = slurp(hlog_path, &o[HLOG].len);
	unlink(hlog_path);
	uncommit(&o[HLOG]);
	for (int i = 0; i < N; i++) {
		judge(&o[i]);
		free(o[i].buf);
	}
	lat_saved_run_free(&r);
	return done_testing();
}

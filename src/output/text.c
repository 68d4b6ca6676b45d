// SPDX-License-Identifier: GPL-2.0
/*
 * The text sink: without a terminal (or beside --json -), a block per
 * interval; at the end, always, the whole-run summary with heat maps over
 * time and the host baseline. Both are the one-screen view's tables
 * (screen.c) at full length.
 */
#include <stdlib.h>
#include <unistd.h>
#include "output/text.h"
#include "core/fmt.h"
#include "core/snap.h"
#include "core/yield.h"
#include "output/bench_table.h"
#include "output/heatset.h"
#include "output/screen.h"
#include "output/sink.h"
#include "output/tty.h"

struct text_sink {
	struct lat_sink k;
	FILE *f;
	const struct lat_provenance *p;
	bool log;
	struct lat_heat_set *heat;	/* for the summary's heat maps */
};

static int log_interval(struct lat_sink *k, const struct lat_snap *s)
{
	struct text_sink *t = (struct text_sink *)k;
	struct lat_screen o = { .cols = 120 };
	char el[32];

	lat_heat_set_push(t->heat, s);
	if (!t->log)
		return 0;
	lat_fmt_ns(el, sizeof(el), s->elapsed_ns);
	fprintf(t->f, "--- interval %ld (elapsed %s) ---\n", s->interval, el);
	lat_screen_render(t->f, s, NULL, &o);
	lat_yield_point();
	fflush(t->f);
	return 0;
}

static int summary(struct lat_sink *k, const struct lat_snap *s)
{
	struct text_sink *t = (struct text_sink *)k;
	const struct lat_node *bl = lat_snap_find(&s->root, "baseline");
	struct lat_screen o = { .cols = 120, .run = true, .provenance = true };
	int rows;

	/* after the live view, on the terminal it had: that terminal's width */
	if (isatty(fileno(t->f)))
		lat_tty_size(fileno(t->f), &rows, &o.cols);
	fputs("=== whole run ===\n", t->f);
	lat_screen_render(t->f, s, t->p, &o);
	lat_heat_set_summary(t->heat, t->f, s, o.cols);
	if (bl) {
		const struct lat_node *d = lat_snap_find(bl, "duration_s");

		fprintf(t->f, "\nhost baseline (latbpf bench, %.2f s before attaching; "
			"`latbpf bench` for the full set):\n", d ? d->v.real : 0);
		lat_bench_table(t->f, bl);
	}
	fflush(t->f);
	return 0;
}

static void text_sink_free(struct lat_sink *k)
{
	lat_heat_set_free(((struct text_sink *)k)->heat);
	free(k);
}

static const struct lat_sink_ops text_sink_ops = {
	.name = "text",
	.interval = log_interval,
	.final = summary,
	.free = text_sink_free,
};

/* log: a block per interval too; always the summary at the end */
struct lat_sink *lat_text_sink_new(FILE *f, const struct lat_provenance *p, bool log)
{
	struct text_sink *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->k.ops = &text_sink_ops;
	t->f = f;
	t->p = p;
	t->log = log;
	t->heat = lat_heat_set_new();
	return &t->k;
}

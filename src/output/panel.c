// SPDX-License-Identifier: GPL-2.0
/*
 * One family in full, as the live view shows it for keys 1-9: percentiles
 * for the last interval and the whole run, and bars for both side by side.
 * Items of lists (threads, CPUs, intruders, events) are one line each: their
 * scalars on the item's line, their histograms as percentile lines below.
 * Bars group the log-linear slots by power of two to stay short; the
 * percentiles are read from the full-resolution slots.
 */
#include <stdlib.h>
#include <string.h>
#include "output/panel.h"
#include "core/escape.h"
#include "core/fmt.h"
#include "core/hist.h"
#include "core/snap.h"
#include "output/emit.h"
#include "output/format.h"

#define MAX_DEPTH 8

struct text_emit {
	struct lat_emit e;
	FILE *f;
	int width;
	int depth;		/* objects open */
	int lists;		/* lists open */
	bool item[MAX_DEPTH];	/* object at this depth is a list item */
	bool in_list[MAX_DEPTH];
	char label[256];	/* the current item's line, not yet printed */
	bool barred;		/* LIVE: this panel's headline histogram has bars */
	int (*fmt)(char *buf, size_t len, __u64 v);	/* of the histogram being drawn */
	long long wall;		/* the snapshot's wall_minus_mono_ns */
};

static struct text_emit *T(struct lat_emit *e)
{
	return (struct text_emit *)e;
}

static bool in_item(struct text_emit *t)
{
	return t->depth > 0 && t->item[t->depth];
}

static int indent(struct text_emit *t)
{
	return 2 + 2 * t->lists;
}

static void flush_label(struct text_emit *t)
{
	if (t->label[0]) {
		fprintf(t->f, "%*s%s\n", indent(t), "", t->label);
		t->label[0] = '\0';
	}
}

static void add_label(struct text_emit *t, const char *fmt, const char *k,
		      const char *v)
{
	size_t l = strlen(t->label);

	/* wrap long items onto continuation lines */
	if (l && l + strlen(k) + strlen(v) + 2 > 100) {
		flush_label(t);
		snprintf(t->label, sizeof(t->label), "  ");
		l = 2;
	}

	snprintf(t->label + l, sizeof(t->label) - l, fmt, l > 2 ? " " : "", k, v);
}

static void obj_begin(struct lat_emit *e, const char *key, const char *title)
{
	struct text_emit *t = T(e);
	bool item = t->in_list[t->depth];

	flush_label(t);
	if (!item) {
		if (t->depth == 0) {
			fprintf(t->f, "%s\n", title ? title : key);
			t->barred = false;
		}
		else if (title)
			fprintf(t->f, "%*s%s\n", indent(t), "", title);
	}
	if (t->depth + 1 < MAX_DEPTH)
		t->depth++;
	t->item[t->depth] = item;
	t->in_list[t->depth] = false;
}

static void obj_end(struct lat_emit *e)
{
	struct text_emit *t = T(e);

	flush_label(t);
	if (t->depth > 0)
		t->depth--;
	if (t->depth == 0)
		fputc('\n', t->f);
}

static void list_begin(struct lat_emit *e, const char *key, const char *title)
{
	struct text_emit *t = T(e);

	flush_label(t);
	fprintf(t->f, "%*s%s\n", indent(t), "", title ? title : key);
	t->in_list[t->depth] = true;
	t->lists++;
}

static void list_end(struct lat_emit *e)
{
	struct text_emit *t = T(e);

	t->in_list[t->depth] = false;
	t->lists--;
}

static void pct_row(FILE *f, const char *name, const struct lat_hist *h,
		    int (*fmt)(char *, size_t, __u64))
{
	char b[32];
	int p;

	fprintf(f, "    %-10s %9llu", name, (unsigned long long)h->count);
	if (h->count == 0) {
		fputs("          -\n", f);
		return;
	}
	for (p = 0; p < LAT_NR_PCTS; p++) {
		fmt(b, sizeof(b), lat_hist_percentile(h, lat_pcts[p]));
		if (lat_hist_too_few(h, lat_pcts[p]))
			strcat(b, "*");
		fprintf(f, " %8s", b);
	}
	fmt(b, sizeof(b), h->max);
	fprintf(f, " %8s\n", b);
}

#define NROWS LAT_HIST_POW2_ROWS

static void bar(FILE *f, __u64 n, __u64 peak, int w)
{
	int len = peak ? (int)((n * (__u64)w + peak - 1) / peak) : 0;

	fprintf(f, "%9llu ", (unsigned long long)n);
	for (int i = 0; i < w; i++)
		fputc(i < len ? '#' : ' ', f);
}

static void bars(struct text_emit *t, const struct lat_hist *iv,
		 const struct lat_hist *run)
{
	__u64 ri[NROWS], rr[NROWS], pi = 0, pr = 0;
	int lo = -1, hi = -1, r, w;
	char a[16], b[16], lbl[40];

	lat_hist_pow2(run, rr);
	lat_hist_pow2(iv, ri);
	for (r = 0; r < NROWS; r++) {
		if (rr[r] || ri[r]) {
			if (lo < 0)
				lo = r;
			hi = r;
		}
		pi = ri[r] > pi ? ri[r] : pi;
		pr = rr[r] > pr ? rr[r] : pr;
	}
	if (lo < 0)
		return;
	/* on a screen, at most 10 rows: the lowest ones merged into the first */
	if (hi - lo > 9) {
		for (r = lo; r < hi - 9; r++) {
			ri[hi - 9] += ri[r];
			rr[hi - 9] += rr[r];
		}
		pi = pr = 0;
		for (r = hi - 9; r <= hi; r++) {
			pi = ri[r] > pi ? ri[r] : pi;
			pr = rr[r] > pr ? rr[r] : pr;
		}
		lo = -(hi - 9);	/* negative: first row starts at 0 */
	}
	/* label 22 columns, then one or two "count bar" columns */
	w = (t->width - 24) / (iv ? 2 : 1) - 11;
	if (w < 4)
		w = 4;
	if (w > 50)
		w = 50;
	if (iv)
		fprintf(t->f, "    %-18s  %-*s  %s\n", "range", w + 10, "last interval",
			"whole run");
	for (r = lo < 0 ? -lo : lo; r <= hi; r++) {
		if (r == NROWS - 1) {
			snprintf(lbl, sizeof(lbl), "overflow");
		} else {
			t->fmt(a, sizeof(a), r && !(lo < 0 && r == -lo) ? 1ULL << r : 0);
			t->fmt(b, sizeof(b), 1ULL << (r + 1));
			snprintf(lbl, sizeof(lbl), "[%s, %s)", a, b);
		}
		fprintf(t->f, "    %-18s ", lbl);
		if (iv) {
			bar(t->f, ri[r], pi, w);
			fputc(' ', t->f);
		}
		bar(t->f, rr[r], pr, w);
		fputc('\n', t->f);
	}
}

/* One line: "key n=.. p50=.. p90=.. p99=.. p99.9=.. max=.." */
static void hist_line(struct text_emit *t, const char *key, const struct lat_hist *h)
{
	char b[6][16];
	int p;

	for (p = 0; p < LAT_NR_PCTS; p++)
		t->fmt(b[p], sizeof(b[p]), lat_hist_percentile(h, lat_pcts[p]));
	t->fmt(b[5], sizeof(b[5]), h->max);
	fprintf(t->f, "%*s%-14s n=%-8llu p50=%-7s p90=%-7s p99=%-7s p99.9=%-7s max=%s\n",
		indent(t) + (in_item(t) ? 2 : 0), "", key, (unsigned long long)h->count,
		b[0], b[1], b[2], b[3], b[5]);
}

static void draw(struct lat_emit *e, const char *key, const char *title,
		 const struct lat_hist *iv, const struct lat_hist *run)
{
	struct text_emit *t = T(e);
	const struct lat_hist *h = run;
	int p;

	flush_label(t);
	if (in_item(t)) {
		if (h->count)
			hist_line(t, key, h);
		return;
	}
	fprintf(t->f, "  %s%s\n    %-10s %9s", title ? title : key,
		run->count && lat_hist_too_few(run, 99) ?
			"   (* fewer than 10 samples beyond it: read as the max)" : "",
		"", "count");
	for (p = 0; p < LAT_NR_PCTS; p++)
		fprintf(t->f, " %8s", lat_pct_names[p]);
	fprintf(t->f, " %8s\n", "max");
	pct_row(t->f, "interval", iv, t->fmt);
	pct_row(t->f, "whole run", run, t->fmt);
	/* a screen has room for the bars of one histogram per panel */
	if (!t->barred && run->count) {
		bars(t, iv, run);
		t->barred = true;
	}
}

static void hist(struct lat_emit *e, const char *key, const char *title,
		 const struct lat_hist *iv, const struct lat_hist *run)
{
	T(e)->fmt = lat_fmt_ns;
	draw(e, key, title, iv, run);
}

static void bytes(struct lat_emit *e, const char *key, const char *title,
		  const struct lat_hist *iv, const struct lat_hist *run)
{
	T(e)->fmt = lat_fmt_bytes;
	draw(e, key, title, iv, run);
}

static void scalar(struct text_emit *t, const char *key, const char *v, const char *run)
{
	char lb[64];

	key = lat_text_label(key, lb, sizeof(lb));
	if (in_item(t)) {
		add_label(t, "%s%s=%s", key, v);
	} else {
		flush_label(t);
		fprintf(t->f, "%*s%-24s %s%s\n", indent(t), "", key, v, run ? run : "");
	}
}

static void count(struct lat_emit *e, const char *key, __u64 iv, __u64 run)
{
	struct text_emit *t = T(e);
	char v[32], o[32], r[48] = "";

	lat_text_value(v, sizeof(v), key, run, t->wall);
	lat_text_value(o, sizeof(o), key, iv, t->wall);
	if (!in_item(t))
		snprintf(r, sizeof(r), " (interval %s)", o);
	scalar(t, key, v, r);
}

static void dur(struct lat_emit *e, const char *key, __u64 iv, __u64 run)
{
	struct text_emit *t = T(e);
	char v[32];

	lat_fmt_ns(v, sizeof(v), run);
	scalar(t, key, v, NULL);
}

static void num(struct lat_emit *e, const char *key, __s64 v)
{
	char b[32];

	if (v >= 0 && (lat_key_ends(key, "_ns") || lat_key_ends(key, "_bytes")))
		lat_text_value(b, sizeof(b), key, (__u64)v, T(e)->wall);
	else
		snprintf(b, sizeof(b), "%lld", (long long)v);
	scalar(T(e), key, b, NULL);
}

static void ids(struct lat_emit *e, const char *key, const __u32 *v, int n)
{
	char b[128] = "";
	size_t l = 0;

	if (n == 0)
		return;
	for (int i = 0; i < n && l + 12 < sizeof(b); i++)
		l += (size_t)snprintf(b + l, sizeof(b) - l, "%s%u", i ? "," : "", v[i]);
	scalar(T(e), key, b, NULL);
}

static void real(struct lat_emit *e, const char *key, double v, int decimals)
{
	char b[48];

	lat_text_real(b, sizeof(b), key, v, decimals);
	scalar(T(e), key, b, NULL);
}

static void boolean(struct lat_emit *e, const char *key, bool v)
{
	scalar(T(e), key, v ? "yes" : "no", NULL);
}

static void null(struct lat_emit *e, const char *key)
{
	scalar(T(e), key, "-", NULL);
}

static void str(struct lat_emit *e, const char *key, const char *s)
{
	struct text_emit *t = T(e);
	char safe[64];

	lat_term_str(safe, sizeof(safe), s ? s : "");
	if (in_item(t))
		add_label(t, "%s%.0s%s", key, safe);	/* values speak for themselves */
	else
		scalar(t, key, safe, NULL);
}

static const struct lat_emit_ops text_ops = {
	.obj_begin = obj_begin, .obj_end = obj_end,
	.list_begin = list_begin, .list_end = list_end,
	.hist = hist, .bytes = bytes, .count = count, .dur = dur, .num = num, .ids = ids,
	.real = real, .boolean = boolean, .null = null, .str = str,
};

void lat_text_panel(FILE *f, const struct lat_snap *s, const struct lat_node *fam, int cols)
{
	struct text_emit t = {
		.e = { .ops = &text_ops, .live = true, .max_items = 10 },
		.f = f, .width = cols < 60 ? 60 : cols,
		.wall = s->wall_minus_mono_ns,
	};

	lat_snap_walk(fam, &t.e);
}

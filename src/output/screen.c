// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot as an engineer watching a load test reads it: on one screen
 * (the live view), and as the plain interval blocks and the summary.
 *  - a header: the provenance, latbpf's own cost, what was dropped;
 *  - one line per histogram: count, rate, p50, p99, p99.9, max and a strip,
 *    the distribution over powers of two on an axis the table shares;
 *  - an object's counters on one line, labelled without their JSON units;
 *  - lists of items (per-CPU hiccups, events, threads) as tables whose
 *    columns drop from the right when the width is short, the ones a family
 *    marked LAT_F_BRIEF last.
 * A screen that is too short cuts tables first (events keep their newest),
 * then the histogram lines, never a line in two. Nothing here knows a
 * family: everything is read from the snapshot's nodes.
 */
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/screen.h"
#include "core/escape.h"
#include "core/fmt.h"
#include "core/hist.h"
#include "core/provenance.h"
#include "core/snap.h"
#include "core/yield.h"
#include "output/format.h"
#include "output/heatmap.h"
#include "output/panel.h"
#include "output/tty.h"

#define NROWS LAT_HIST_POW2_ROWS
#define NAME_MAX_W 40
#define CELL_MAX_W 64	/* a cell's cells in a file: an escaped comm whole */
#define CELL_SCREEN_W 24	/* on a screen */
#define MAX_COLS 32

/* one histogram line */
struct hrow {
	char name[96];
	const struct lat_node *n;
	int fam;		/* its family's index */
	bool bytes;
	__u64 count, p[3], max;
	bool few[3];
	__u64 rows[NROWS];	/* power-of-two rows: [2^r, 2^(r+1)) */
};

/* lines of text, cut to the width, kept for the height fitting */
struct sect {
	char **l;
	int n, cap;
	int head;		/* lines always kept (title, column heads) */
	bool noted;		/* a cut is said already */
	bool tail;		/* cut: keep the newest (last) rows */
};

struct scr {
	const struct lat_screen *o;
	const struct lat_snap *s;
	double secs;		/* what the figures cover */
	int fam;		/* the family being walked */
	struct hrow *h;
	int nh, caph, namew;
	struct sect hist, counters, shares;
	struct sect *tabs;
	int ntabs;
};

static const double pcts[3] = { 50, 99, 99.9 };
static const char *const pct_head[3] = { "p50", "p99", "p99.9" };

/* ---- lines ---- */

/* cells a line takes, and the line cut to w cells (tty.c's measure) */
static int cells(const char *s)
{
	int c;

	lat_tty_fit(s, strlen(s), INT_MAX, &c);
	return c;
}

static void cut(char *s, int w)
{
	s[lat_tty_fit(s, strlen(s), w < 0 ? 0 : w, NULL)] = '\0';
}

/* appends to b (cap bytes, *l of them used); a full line stays cut */
static void cat(char *b, size_t cap, size_t *l, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void cat(char *b, size_t cap, size_t *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*l + 1 >= cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b + *l, cap - *l, fmt, ap);
	va_end(ap);
	if (n > 0)
		*l = *l + (size_t)n < cap - 1 ? *l + (size_t)n : cap - 1;
}

static void add(struct sect *x, int width, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(struct sect *x, int width, const char *fmt, ...)
{
	va_list ap;
	char *l;

	if (x->n == x->cap) {
		int cap = x->cap ? 2 * x->cap : 16;
		char **nl = realloc(x->l, (size_t)cap * sizeof(*nl));

		if (!nl)
			return;
		x->l = nl;
		x->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&l, fmt, ap) < 0)
		l = NULL;
	va_end(ap);
	if (!l)
		return;
	/* trailing blanks are noise on a screen and in a file */
	for (size_t e = strlen(l); e && l[e - 1] == ' '; e--)
		l[e - 1] = '\0';
	cut(l, width);
	x->l[x->n++] = l;
}

static void sect_free(struct sect *x)
{
	for (int i = 0; i < x->n; i++)
		free(x->l[i]);
	free(x->l);
	memset(x, 0, sizeof(*x));
}

/* at most k lines of x, or all (k < 0); what a cut leaves out is said on
 * the section's first line. pick: the rows to keep when cut (NULL: the
 * first ones, or the last ones of a tail) */
static void put_sect(FILE *f, const struct sect *x, int k, int cols, const bool *pick)
{
	int rows = x->n - x->head, show, i, first;
	char note[96], *l0, *title;

	if (k < 0 || k >= x->n) {
		for (i = 0; i < x->n; i++) {
			lat_yield_point();
			fprintf(f, "%s\n", x->l[i]);
		}
		return;
	}
	if (k <= x->head || !x->n)
		return;
	show = k - x->head;
	if (x->noted) {
		for (i = 0; i < x->head; i++)
			fprintf(f, "%s\n", x->l[i]);
		goto rows;
	}
	snprintf(note, sizeof(note), "  (%d of %d shown%s)", show, rows,
		 x->tail ? ", the newest" : "; keys 1-9");
	/* a section without heads (the counters) has the note on the first
	 * line it shows, one of its k */
	first = x->head ? 0 : x->tail ? rows - show : 0;

	/* the note on the first line, over its end if need be */
	l0 = strdup(x->l[first]);
	if (!l0)
		return;
	cut(l0, cols - (int)strlen(note) > 0 ? cols - (int)strlen(note) : 0);
	if (asprintf(&title, "%s%s", l0, note) < 0) {
		free(l0);
		return;
	}
	free(l0);
	l0 = title;
	cut(l0, cols);
	fprintf(f, "%s\n", l0);
	free(l0);
	for (i = 1; i < x->head; i++)
		fprintf(f, "%s\n", x->l[i]);
	if (!x->head) {
		for (i = first + 1; i < first + show; i++)
			fprintf(f, "%s\n", x->l[i]);
		return;
	}
rows:
	if (x->tail)
		for (i = rows - show; i < rows; i++)
			fprintf(f, "%s\n", x->l[x->head + i]);
	else
		for (i = 0; i < rows; i++)
			if (pick ? pick[i] : i < show)
				fprintf(f, "%s\n", x->l[x->head + i]);
}

/* ---- values ---- */

/* "unseen_wakeups" -> "unseen wakeups"; "stolen_ns" -> "stolen" */
static void head_of(char *b, size_t n, const char *key)
{
	char lb[64];

	snprintf(b, n, "%s", lat_text_label(key, lb, sizeof(lb)));
	for (char *p = b; *p; p++)
		if (*p == '_')
			*p = ' ';
}

/* a scalar node's value in this view, for people; false: not a scalar */
static bool value_of(const struct scr *x, char *b, size_t n, const struct lat_node *c)
{
	long long wall = x->s->wall_minus_mono_ns;
	bool run = x->o->run;
	size_t l = 0;

	b[0] = '\0';
	switch (c->kind) {
	case LAT_COUNT:
		lat_text_value(b, n, c->key, run ? c->v.c.run : c->v.c.iv, wall);
		return true;
	case LAT_DUR:
		lat_fmt_ns(b, n, run ? c->v.c.run : c->v.c.iv);
		return true;
	case LAT_NUM:
		if (c->v.num >= 0 && (lat_key_ends(c->key, "_ns") || lat_key_ends(c->key, "_bytes")))
			lat_text_value(b, n, c->key, (__u64)c->v.num, wall);
		else
			snprintf(b, n, "%lld", c->v.num);
		return true;
	case LAT_REAL:
		lat_text_real(b, n, c->key, c->v.real, c->decimals);
		return true;
	case LAT_BOOL:
		snprintf(b, n, "%s", c->v.b ? "yes" : "no");
		return true;
	case LAT_NULL:
		snprintf(b, n, "-");
		return true;
	case LAT_STR:
		lat_term_str(b, n, c->v.str ? c->v.str : "");
		return true;
	case LAT_IDS:
		for (int i = 0; i < c->v.ids.n && l + 12 < n; i++)
			cat(b, n, &l, "%s%u", i ? "," : "", c->v.ids.v[i]);
		if (!c->v.ids.n)
			snprintf(b, n, "-");
		return true;
	default:
		return false;
	}
}

static bool hidden(const struct lat_node *c, bool run)
{
	if (c->kind != LAT_COUNT)
		return false;
	return (c->flags & LAT_F_NONZERO) && !(run ? c->v.c.run : c->v.c.iv);
}

/* ---- names ---- */

/* a title up to its explanation: "run-queue latency (runnable -> ...)" */
static void short_title(char *b, size_t n, const struct lat_node *x)
{
	const char *t = x->title ? x->title : x->key ? x->key : "";
	const char *colon = strchr(t, ':'), *e;

	if (colon && colon - t < 12)	/* "sched: where..." is a family's */
		t = x->key ? x->key : t;
	e = strstr(t, " (");
	snprintf(b, n, "%.*s", (int)(e ? e - t : (long)strlen(t)), t);
}

/* the path down from the family: item tags ("cpu1", "vda"), object keys */
void lat_screen_hist_name(char *buf, size_t len, const struct lat_node *n)
{
	const struct lat_node *up[16];
	int k = 0;
	size_t l = 0;
	char part[96];

	for (const struct lat_node *p = n; p && p->parent && k < 16; p = p->parent)
		up[k++] = p;
	buf[0] = '\0';
	while (k-- > 0 && l + 2 < len) {
		const struct lat_node *x = up[k];

		if (x->tag || x->lvalue)
			lat_term_str(part, sizeof(part), x->tag ? x->tag : x->lvalue);
		else if (x == n && (x->flags & LAT_F_INLINE))
			continue;	/* its item's own: the item names it */
		else if (x == n)
			short_title(part, sizeof(part), x);
		else if (x->key && x->kind != LAT_LIST)
			snprintf(part, sizeof(part), "%s", x->key);
		else
			continue;	/* a list: its items say where */
		/* "fault stalls" under "fault": said once */
		if (l && !strncmp(part, buf, l) && part[l] == ' ')
			memmove(part, part + l + 1, strlen(part + l + 1) + 1);
		cat(buf, len, &l, "%s%s", l ? " " : "", part);
	}
}

/* ---- histograms ---- */

static void take_hist(struct scr *x, const struct lat_node *n, struct lat_hist *buf)
{
	const struct lat_hist *h;
	struct hrow *r;

	lat_yield_point();
	if (x->nh == x->caph) {
		int cap = x->caph ? 2 * x->caph : 16;
		struct hrow *nh = realloc(x->h, (size_t)cap * sizeof(*nh));

		if (!nh)
			return;
		x->h = nh;
		x->caph = cap;
	}
	h = x->o->run ? lat_node_run(n, buf) : lat_node_iv(n, buf);
	r = &x->h[x->nh++];
	memset(r, 0, sizeof(*r));
	r->n = n;
	r->fam = x->fam;
	r->bytes = n->unit == LAT_UNIT_BYTES;
	lat_screen_hist_name(r->name, sizeof(r->name), n);
	r->count = h->count;
	r->max = h->max;
	for (int p = 0; p < 3; p++) {
		r->p[p] = lat_hist_percentile(h, pcts[p]);
		r->few[p] = lat_hist_too_few(h, pcts[p]);
	}
	lat_hist_pow2(h, r->rows);
}

/* a screen: the histograms of a list's first items (its ranked ones) */
static int items_of(const struct scr *x, const struct lat_node *list,
		    const struct lat_node ***items)
{
	int max = x->o->rows ? 4 : 50;

	return lat_snap_items(list, x->o->run, max, items);
}

static void walk_hists(struct scr *x, const struct lat_node *n, struct lat_hist *buf);

/* an item's histograms, those that ever had a sample: a CPU without
 * interrupts, a device that was never read, take no line */
static void walk_items(struct scr *x, const struct lat_node *n, struct lat_hist *buf)
{
	for (const struct lat_node *c = n->child; c; c = c->next) {
		if (c->kind == LAT_HIST) {
			if (lat_node_run(c, buf)->count)
				take_hist(x, c, buf);
		} else if (c->kind == LAT_OBJ) {
			walk_items(x, c, buf);
		}
	}
}

static void walk_hists(struct scr *x, const struct lat_node *n, struct lat_hist *buf)
{
	const struct lat_node **items;
	int k;

	for (const struct lat_node *c = n->child; c; c = c->next) {
		if (c->kind == LAT_HIST) {
			take_hist(x, c, buf);
		} else if (c->kind == LAT_OBJ) {
			walk_hists(x, c, buf);
		} else if (c->kind == LAT_LIST) {
			k = items_of(x, c, &items);
			for (int i = 0; i < k; i++)
				walk_items(x, items[i], buf);
			if (k >= 0)
				free(items);
		}
	}
}

/* one strip character: count c against the row peak, on a log scale so a
 * tail of a few samples still shows */
static const char *shade(__u64 c, __u64 peak, bool utf8)
{
	static const char *const u[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const a[] = { " ", ".", ":", "-", "=", "+", "*", "#", "@" };
	int lvl;

	if (!c)
		return " ";
	lvl = peak > 1 ? 1 + (int)(7.0 * log((double)c) / log((double)peak) + 0.5) : 8;
	lvl = lvl < 1 ? 1 : lvl > 8 ? 8 : lvl;
	return utf8 ? u[lvl] : a[lvl];
}

static void strip(char *b, size_t n, const struct hrow *r, int lo, int hi, int w, bool utf8)
{
	__u64 sum[NROWS] = { 0 }, peak = 0;
	size_t l = 0;
	int per, col;

	b[0] = '\0';
	/* sizes are not on the table's axis of times: their own range */
	if (r->bytes) {
		lo = NROWS;
		hi = 0;
		for (int r2 = 0; r2 < NROWS; r2++)
			if (r->rows[r2]) {
				lo = lo < r2 ? lo : r2;
				hi = hi > r2 ? hi : r2;
			}
		if (lo > hi)
			return;
	}
	per = (hi - lo + w) / w;	/* rows a character covers */
	for (int i = lo; i <= hi; i++) {
		col = (i - lo) / per;
		sum[col] += r->rows[i];
		peak = sum[col] > peak ? sum[col] : peak;
	}
	for (col = 0; col <= (hi - lo) / per && l + 4 < n; col++)
		cat(b, n, &l, "%s", shade(sum[col], peak, utf8));
}

static void fmt_v(char *b, size_t n, const struct hrow *r, __u64 v)
{
	(r->bytes ? lat_fmt_bytes : lat_fmt_ns)(b, n, v);
}

static void hist_table(struct scr *x)
{
	int W = x->o->cols, namew = 24, fixed = 4 * 9, lo = NROWS, hi = -1, sw = 0;
	bool rate = false, p999 = false;
	char line[512], b[32], st[256];

	for (int i = 0; i < x->nh; i++) {
		int l = (int)strlen(x->h[i].name);

		namew = l > namew ? (l > NAME_MAX_W ? NAME_MAX_W : l) : namew;
		for (int r = 0; !x->h[i].bytes && r < NROWS; r++)
			if (x->h[i].rows[r]) {
				lo = r < lo ? r : lo;
				hi = r > hi ? r : hi;
			}
	}
	/* the name first, then the columns in the order they are given up */
	if (namew + fixed > W)
		namew = W - fixed > 12 ? W - fixed : 12;
	if (namew + fixed + 9 <= W)
		p999 = true, fixed += 9;
	if (namew + fixed + 9 <= W)
		rate = true, fixed += 9;
	if (hi >= lo && W - namew - fixed - 2 >= 8) {
		sw = W - namew - fixed - 2;
		sw = sw > hi - lo + 1 ? hi - lo + 1 : sw;
	}
	if (hi < lo)
		lo = hi = 0;
	x->namew = namew;
	snprintf(line, sizeof(line), "%-*s %8s", namew, "histogram", "count");
	if (rate)
		strcat(line, "      /s");
	for (int p = 0; p < 3; p++) {
		if (p == 2 && !p999)
			continue;
		snprintf(b, sizeof(b), " %8s", pct_head[p]);
		strcat(line, b);
	}
	strcat(line, "      max");
	if (sw) {
		char a[16], z[16];

		lat_fmt_ns(a, sizeof(a), lo ? 1ULL << lo : 0);
		lat_fmt_ns(z, sizeof(z), 1ULL << (hi + 1));
		snprintf(st, sizeof(st), "  %s..%s", a, z);
		strcat(line, st);
	}
	add(&x->hist, W, "%s", line);
	x->hist.head = 1;
	for (int i = 0; i < x->nh; i++) {
		const struct hrow *r = &x->h[i];
		size_t l;

		lat_yield_point();
		l = (size_t)snprintf(line, sizeof(line), "%-*.*s %8llu", namew, namew, r->name,
				     (unsigned long long)r->count);
		if (rate)
			cat(line, sizeof(line), &l, " %8.0f",
					      x->secs > 0 ? (double)r->count / x->secs : 0);
		for (int p = 0; p < 4; p++) {
			if (p == 2 && !p999)
				continue;
			if (!r->count)
				snprintf(b, sizeof(b), "-");
			else
				fmt_v(b, sizeof(b), r, p < 3 ? r->p[p] : r->max);
			if (p < 3 && r->count && r->few[p])
				strcat(b, "*");
			cat(line, sizeof(line), &l, " %8s", b);
		}
		if (sw && r->count) {
			strip(st, sizeof(st), r, lo, hi, sw, x->o->utf8);
			snprintf(line + l, sizeof(line) - l, "  %s", st);
		}
		add(&x->hist, W, "%s", line);
	}
}

/* ---- counters ---- */

static void counters_of(struct scr *x, const struct lat_node *obj, const char *fam)
{
	char line[1024], v[64], k[64], t[96];
	size_t l;
	bool any = false;

	short_title(t, sizeof(t), obj);
	l = 0;
	cat(line, sizeof(line), &l, "%s", fam);
	if (obj->parent && obj->parent->parent)
		cat(line, sizeof(line), &l, " %s", t);
	cat(line, sizeof(line), &l, ":");
	for (const struct lat_node *c = obj->child; c; c = c->next) {
		if (hidden(c, x->o->run) || !value_of(x, v, sizeof(v), c))
			continue;
		head_of(k, sizeof(k), c->key);
		/* without a height, long lines go on under the first */
		if (!x->o->rows && l + strlen(k) + strlen(v) + 3 > (size_t)x->o->cols && any) {
			add(&x->counters, x->o->cols, "%s", line);
			l = 0;
			cat(line, sizeof(line), &l, "%*s",
			    strlen(fam) > 40 ? 2 : (int)strlen(fam) + 1, "");
		}
		cat(line, sizeof(line), &l, "  %s %s", k, v);
		any = true;
	}
	if (any)
		add(&x->counters, x->o->cols, "%s", line);
	for (const struct lat_node *c = obj->child; c; c = c->next)
		if (c->kind == LAT_OBJ && !c->label)
			counters_of(x, c, fam);
}

/* ---- tables ---- */

struct col {
	const char *key;
	char head[32];
	int w;
	bool brief, num, on;
};

/* a ranked list's first item as one cell: its names and its share */
static void top_cell(char *b, size_t n, const struct scr *x, const struct lat_node *list)
{
	const struct lat_node **items;
	int k = lat_snap_items(list, x->o->run, 0, &items);
	double sum = 0, first = 0;
	size_t l = 0;
	char v[64];

	b[0] = '\0';
	for (int i = 0; i < k; i++) {
		const struct lat_node *r = list->rank ? lat_snap_find(items[i], list->rank) : NULL;
		double val = !r ? 0 : r->kind == LAT_NUM ? (double)r->v.num :
			     (double)(x->o->run ? r->v.c.run : r->v.c.iv);

		sum += val;
		if (i == 0)
			first = val;
	}
	if (k > 0) {
		for (const struct lat_node *c = items[0]->child; c && l + 8 < n; c = c->next)
			if (c->kind == LAT_STR && value_of(x, v, sizeof(v), c))
				cat(b, n, &l, "%s%s", l ? " " : "", v);
		if (sum > 0 && l + 8 < n)
			snprintf(b + l, n - l, " %.0f%%", 100.0 * first / sum);
	}
	if (k >= 0)
		free(items);
	if (!b[0])
		snprintf(b, n, "-");
}

static bool cell(char *b, size_t n, const struct scr *x, const struct lat_node *item,
		 const char *key)
{
	const struct lat_node *c = lat_snap_find(item, key);

	if (!c) {
		snprintf(b, n, "-");
		return true;
	}
	if (c->kind == LAT_LIST) {
		top_cell(b, n, x, c);
		return true;
	}
	if (hidden(c, x->o->run)) {
		snprintf(b, n, "0");
		return true;
	}
	return value_of(x, b, n, c);
}

/* the columns: the first item's scalars and ranked sublists, each as wide
 * as its head and its widest cell (up to cellw) */
static int table_cols(const struct scr *x, const struct lat_node **items, int k,
		      struct col *cols, int cellw)
{
	char b[CELL_MAX_W * 4];
	int nc = 0;

	for (const struct lat_node *c = items[0]->child; c && nc < MAX_COLS; c = c->next) {
		if (c->kind == LAT_HIST || c->kind == LAT_OBJ)
			continue;
		if (c->kind == LAT_LIST && !c->rank)
			continue;
		cols[nc] = (struct col){ .key = c->key, .on = true,
					 .brief = c->flags & LAT_F_BRIEF,
					 .num = c->kind != LAT_STR && c->kind != LAT_LIST &&
						c->kind != LAT_IDS };
		if (c->kind == LAT_LIST)
			short_title(cols[nc].head, sizeof(cols[nc].head), c);
		else
			head_of(cols[nc].head, sizeof(cols[nc].head), c->key);
		cols[nc].w = (int)strlen(cols[nc].head);
		nc++;
	}
	for (int i = 0; i < k; i++)
		for (int j = 0; j < nc; j++) {
			int w;

			cell(b, sizeof(b), x, items[i], cols[j].key);
			w = cells(b);
			w = w > cellw ? cellw : w;
			cols[j].w = w > cols[j].w ? w : cols[j].w;
		}
	return nc;
}

/* too wide: the columns a family did not mark go first, from the right */
static void table_fit(struct col *cols, int nc, int width)
{
	int total;

	for (int pass = 0; pass < 2; pass++) {
		for (int j = nc - 1; j > 0; j--) {
			total = 2;
			for (int i = 0; i < nc; i++)
				total += cols[i].on ? cols[i].w + 2 : 0;
			if (total <= width)
				break;
			if (cols[j].on && (pass || !cols[j].brief))
				cols[j].on = false;
		}
	}
}

/* the head line, then one line an item: numbers right, text left */
static void table_rows(struct scr *x, struct sect *sx, const struct lat_node **items, int k,
		       const struct col *cols, int nc)
{
	char b[CELL_MAX_W * 4], line[2048];
	int W = x->o->cols;
	size_t l = (size_t)snprintf(line, sizeof(line), " ");

	for (int j = 0; j < nc; j++)
		if (cols[j].on)
			cat(line, sizeof(line), &l, " %*s%-*s",
			    cols[j].num ? cols[j].w : 0, cols[j].num ? cols[j].head : "",
			    cols[j].num ? 0 : cols[j].w + 1, cols[j].num ? "" : cols[j].head);
	add(sx, W, "%s", line);
	sx->head = 2;
	for (int i = 0; i < k; i++) {
		lat_yield_point();
		l = (size_t)snprintf(line, sizeof(line), " ");
		for (int j = 0; j < nc && l + 4 * CELL_MAX_W < sizeof(line); j++) {
			int pad;

			if (!cols[j].on)
				continue;
			cell(b, sizeof(b), x, items[i], cols[j].key);
			cut(b, cols[j].w);
			pad = cols[j].w - cells(b);
			cat(line, sizeof(line), &l, " %*s%s%*s", cols[j].num ? pad : 0, "", b,
			    cols[j].num ? 0 : pad + 1, "");
		}
		add(sx, W, "%s", line);
	}
}

static void table(struct scr *x, const struct lat_node *list, const char *fam)
{
	const struct lat_node **items;
	struct col cols[MAX_COLS];
	int nc, k;
	char t[96];
	struct sect *sx, *nt;

	/* a screen: what fits, cut later; a file: the list's own keep, or 50 */
	k = lat_snap_items(list, x->o->run, x->o->rows ? 200 : list->keep ? 0 : 50, &items);
	if (k <= 0) {
		if (k == 0)
			free(items);
		return;
	}
	nc = table_cols(x, items, k, cols, x->o->rows ? CELL_SCREEN_W : CELL_MAX_W);
	if (!nc)
		goto out;
	table_fit(cols, nc, x->o->cols);
	nt = realloc(x->tabs, (size_t)(x->ntabs + 1) * sizeof(*nt));
	if (!nt)
		goto out;
	x->tabs = nt;
	sx = &x->tabs[x->ntabs++];
	memset(sx, 0, sizeof(*sx));
	sx->tail = list->flags & LAT_F_TAIL;
	short_title(t, sizeof(t), list);
	add(sx, x->o->cols, "%s%s%s", fam, *fam ? " " : "", t);
	table_rows(x, sx, items, k, cols, nc);
	/* without a height, every item's ranked list too ("hiccup cpu1 top
	 * intruders"): a file has room for the whole answer */
	for (int i = 0; !x->o->rows && i < k; i++) {
		char sub[128], tag[64], v[CELL_MAX_W * 4];

		lat_term_str(tag, sizeof(tag), items[i]->tag ? items[i]->tag :
			     items[i]->lvalue ? items[i]->lvalue : "");
		/* an item with no label: named by its first value ("incident 3") */
		if (!tag[0] && items[i]->child && items[i]->child->key &&
		    value_of(x, v, sizeof(v), items[i]->child))
			snprintf(tag, sizeof(tag), "%s %.40s", items[i]->child->key, v);
		snprintf(sub, sizeof(sub), "%s%s%s", fam, *fam && *tag ? " " : "", tag);
		for (const struct lat_node *c = items[i]->child; c; c = c->next)
			if (c->kind == LAT_LIST && c->rank && c->child)
				table(x, c, sub);
	}
out:
	free(items);
}

/* lists with scalars in their items, and objects of labelled objects
 * (one per program, per device) are tables */
static bool is_table(const struct lat_node *n)
{
	const struct lat_node *c = n->child;

	if (!c)
		return false;
	if (n->kind == LAT_OBJ) {
		for (; c; c = c->next)
			if (c->kind != LAT_OBJ || !c->label)
				return false;
		c = n->child;
	}
	/* a table says more than its items' names */
	for (const struct lat_node *v = c->child; v; v = v->next)
		if (v->kind != LAT_HIST && v->kind != LAT_OBJ && v->kind != LAT_LIST &&
		    v->kind != LAT_STR && !(c->label && v->key && !strcmp(v->key, c->label)))
			return true;
	return false;
}

static void walk_tables(struct scr *x, const struct lat_node *n, const char *fam)
{
	for (const struct lat_node *c = n->child; c; c = c->next) {
		if (c->kind == LAT_LIST && (c->flags & LAT_F_SHARES))
			continue;	/* the shares table has it */
		if ((c->kind == LAT_LIST || c->kind == LAT_OBJ) && is_table(c))
			table(x, c, fam);
		else if (c->kind == LAT_OBJ)
			walk_tables(x, c, fam);
	}
}

/* ---- shares ---- */

/* an item's name: its label members (or its tag), spaced */
static void item_name(char *b, size_t n, const struct lat_node *item)
{
	size_t l = 0;
	char v[64];

	b[0] = '\0';
	for (const struct lat_node *c = item->child; c; c = c->next)
		if (c->kind == LAT_STR && (c->flags & LAT_F_LABEL)) {
			lat_term_str(v, sizeof(v), c->v.str ? c->v.str : "");
			cat(b, n, &l, "%s%s", l ? " " : "", v);
		}
	if (!l)
		lat_term_str(b, n, item->tag ? item->tag : item->lvalue ? item->lvalue : "");
}

static __u64 share_of(const struct scr *x, const struct lat_node *list,
		      const struct lat_node *item)
{
	const struct lat_node *r = list->rank ? lat_snap_find(item, list->rank) : NULL;

	if (!r || (r->kind != LAT_DUR && r->kind != LAT_COUNT))
		return 0;
	return x->o->run ? r->v.c.run : r->v.c.iv;
}

/* a bar of w cells for frac of the whole: eighths in Unicode */
static void share_bar(char *b, size_t n, double frac, int w, bool utf8)
{
	static const char *const part[8] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int eighths = (int)(frac * w * 8 + 0.5);
	size_t l = 0;

	b[0] = '\0';
	for (int i = 0; i < eighths / 8; i++)
		cat(b, n, &l, "%s", utf8 ? "█" : "#");
	if (utf8 && eighths % 8)
		cat(b, n, &l, "%s", part[eighths % 8]);
}

/*
 * A list whose items divide a whole (LAT_F_SHARES: the time family's
 * causes): one line per item holding at least 0.5 %, its share, value and
 * a bar, and its ranked sublist's first (the top waker); the rest as one
 * "other" line. Every screen's first table.
 */
#define SHARE_MIN 0.005
static void shares_table(struct scr *x, const struct lat_node *list, const char *fam)
{
	const struct lat_node **items;
	int k = lat_snap_items(list, x->o->run, 0, &items), namew = 12, W = x->o->cols, barw;
	__u64 whole = 0, other = 0;
	int nother = 0, topw = 0;
	char name[96], t[96], v[32], top[CELL_MAX_W * 4], bar[256];

	if (k <= 0) {
		if (k == 0)
			free(items);
		return;
	}
	for (int i = 0; i < k; i++) {
		whole += share_of(x, list, items[i]);
		item_name(name, sizeof(name), items[i]);
		namew = (int)strlen(name) > namew ? (int)strlen(name) : namew;
	}
	namew = namew > NAME_MAX_W ? NAME_MAX_W : namew;
	/* the top of a ranked sublist (who woke it) when the width allows */
	for (int i = 0; i < k; i++)
		for (const struct lat_node *c = items[i]->child; c; c = c->next)
			if (c->kind == LAT_LIST && c->rank)
				topw = 24;
	if (2 + namew + 20 + topw + 10 > W)
		topw = 0;
	barw = W - (2 + namew + 20 + (topw ? topw + 2 : 0)) - 2;
	barw = barw > 40 ? 40 : barw < 0 ? 0 : barw;
	short_title(t, sizeof(t), list);
	lat_fmt_ns(v, sizeof(v), whole);
	add(&x->shares, W, "%s %s (of %s)", fam, t, v);
	x->shares.head = 1;
	for (int i = 0; i < k; i++) {
		__u64 val = share_of(x, list, items[i]);
		double frac = whole ? (double)val / (double)whole : 0;

		if (frac < SHARE_MIN) {
			other += val;
			nother++;
			continue;
		}
		item_name(name, sizeof(name), items[i]);
		lat_fmt_ns(v, sizeof(v), val);
		share_bar(bar, sizeof(bar), frac, barw, x->o->utf8);
		top[0] = '\0';
		for (const struct lat_node *c = items[i]->child; topw && c; c = c->next)
			if (c->kind == LAT_LIST && c->rank && c->child) {
				top_cell(top, sizeof(top), x, c);
				cut(top, topw);
			}
		add(&x->shares, W, "  %-*.*s %6.1f%% %9s  %-*s%s%s", namew, namew, name,
		    100.0 * frac, v, barw, bar, top[0] ? "  " : "", top);
	}
	if (nother) {
		char o[32];

		snprintf(o, sizeof(o), "other (%d)", nother);
		lat_fmt_ns(v, sizeof(v), other);
		share_bar(bar, sizeof(bar), whole ? (double)other / (double)whole : 0, barw,
			  x->o->utf8);
		add(&x->shares, W, "  %-*.*s %6.1f%% %9s  %s", namew, namew, o,
		    whole ? 100.0 * (double)other / (double)whole : 0, v, bar);
	}
	free(items);
}

static void walk_shares(struct scr *x, const struct lat_node *n, const char *fam)
{
	for (const struct lat_node *c = n->child; c; c = c->next) {
		if (c->kind == LAT_LIST && (c->flags & LAT_F_SHARES))
			shares_table(x, c, fam);
		else if (c->kind == LAT_OBJ)
			walk_shares(x, c, fam);
	}
}

/* ---- the header ---- */

static __u64 cv(const struct lat_node *obj, const char *key, bool run)
{
	const struct lat_node *c = obj ? lat_snap_find(obj, key) : NULL;

	if (!c)
		return 0;
	if (c->kind == LAT_NUM)
		return (__u64)c->v.num;
	return run ? c->v.c.run : c->v.c.iv;
}

/* "self: cpu 0.21%  rss 5.0MiB  maps 8.2MiB  bpf 0.10% of a CPU (12345
 * events/s x 85ns)" */
static void self_line(const struct scr *x, FILE *f)
{
	const struct lat_node *self = lat_snap_find(&x->s->root, "self");
	const struct lat_node *c, *bpf;
	char rss[16], maps[16], ns[16], cpu[32];
	__u64 ev = 0, run_ns = 0;

	if (self) {
		c = lat_snap_find(self, "cpu_pct");
		lat_fmt_bytes(rss, sizeof(rss), cv(self, "rss_bytes", true));
		lat_fmt_bytes(maps, sizeof(maps), cv(self, "kernel_map_bytes", true));
		/* shares as the JSON holds them, so a saved run reads the same */
		lat_text_real(cpu, sizeof(cpu), "cpu_pct", c && c->kind == LAT_REAL ? c->v.real : 0,
			      c ? c->decimals : 3);
		fprintf(f, "latbpf itself: cpu %s  rss %s  maps %s  ", cpu, rss, maps);
		bpf = lat_snap_find(self, "bpf");
		for (c = bpf ? bpf->child : NULL; c; c = c->next) {
			ev += cv(c, "events", x->o->run);
			run_ns += cv(c, "run_ns", x->o->run);
		}
		c = lat_snap_find(self, "bpf_cpu_pct");
		lat_fmt_ns(ns, sizeof(ns), ev ? run_ns / ev : 0);
		lat_text_real(cpu, sizeof(cpu), "bpf_cpu_pct",
			      c && c->kind == LAT_REAL ? c->v.real : 0, c ? c->decimals : 3);
		if (bpf)
			fprintf(f, "bpf %s of a CPU (%.0f events/s x %s)", cpu,
				x->secs > 0 ? (double)ev / x->secs : 0, ns);
		else
			fputs("bpf: no run-time statistics (--bpf-stats)", f);
	}
	fputc('\n', f);
}

/* zero drops said; otherwise what was lost and how much: in the whole run
 * and, in an interval's snapshot (not the final one), in that interval (a
 * final record keeps only the run's totals, so the summary a report rebuilds
 * from it reads the same) */
static void drops_text(const struct scr *x, FILE *f)
{
	const struct lat_node *d = lat_snap_find(&x->s->root, "drops"), *c;
	bool any = false;

	if (!d)
		return;
	for (c = d->child; c; c = c->next) {
		if (c->kind != LAT_COUNT || !c->v.c.run)
			continue;
		fprintf(f, "%s %s %llu", any ? "," : "DROPS: lost", c->key,
			(unsigned long long)c->v.c.run);
		if (!x->s->final)
			fprintf(f, " (interval %llu)", (unsigned long long)c->v.c.iv);
		any = true;
	}
	if (!any)
		fputs("drops: none", f);
}

static void header(const struct scr *x, const struct lat_provenance *p, FILE *f,
		   const struct lat_node *focus)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m) {
		if (x->o->provenance && p)
			lat_provenance_text(p, m, x->s->elapsed_ns);
		else if (x->o->provenance)
			lat_provenance_text_snap(x->s, m);
		fclose(m);
	}
	/* provenance's "probes:" line only when a probe did not attach or
	 * there is room for it */
	if (buf) {
		char *probes = strstr(buf, "\nprobes:");

		if (probes && x->o->rows && x->o->rows < 30 &&
		    !strstr(probes, "=not ") && !strstr(probes, "=failed"))
			probes[1] = '\0';
		fputs(buf, f);
		free(buf);
	}
	self_line(x, f);
	if (x->o->live) {
		fprintf(f, "%s %ld, %s%s%s  ", x->o->paused ? "PAUSED at interval" : "interval",
			x->s->interval, x->o->run ? "whole run" : "this interval",
			focus ? ", " : "", focus && focus->key ? focus->key : "");
		drops_text(x, f);
		fputs("  keys: 1-9 family  Tab next  0 all  i/r interval/run  p pause  ? help  "
		      "q quit\n", f);
	} else {
		drops_text(x, f);
		fputc('\n', f);
	}
}

/* ---- assembly ---- */

static void help(FILE *f)
{
	fputs("keys\n"
	      "  1-9     one family in full: its panels, bars, and a heat map over time\n"
	      "  Tab     the next family; 0 or Esc: every family on one screen\n"
	      "  h       in a family: the heat map of its next histogram\n"
	      "  i / r   figures of this interval / of the whole run\n"
	      "  p       pause the screen (latbpf goes on measuring); p again resumes,\n"
	      "          other keys wait till then\n"
	      "  ?       this help; any key closes it\n"
	      "  q       quit: the whole-run summary is printed\n"
	      "\n"
	      "lines\n"
	      "  a histogram: count, rate, percentiles, max, and its distribution over\n"
	      "  powers of two (the axis above it); * fewer than 10 samples beyond it\n"
	      "  tables: columns drop from the right on a narrow window\n", f);
}

static bool skip(const struct lat_node *n)
{
	return (n->flags & LAT_F_PROV) || !n->key || !strcmp(n->key, "self") ||
	       !strcmp(n->key, "drops") || !strcmp(n->key, "baseline") ||
	       (n->kind != LAT_OBJ && n->kind != LAT_LIST);
}

int lat_screen_families(const struct lat_snap *s, const struct lat_node **fam, int max)
{
	int k = 0;

	for (const struct lat_node *n = s->root.child; n && k < max; n = n->next)
		if (!skip(n))
			fam[k++] = n;
	return k;
}

int lat_screen_hists(const struct lat_node *fam, const struct lat_node **n, int max)
{
	int k = 0;

	for (const struct lat_node *c = fam->child; c && k < max; c = c->next) {
		if (c->kind == LAT_HIST)
			n[k++] = c;
		else if (c->kind == LAT_OBJ)
			k += lat_screen_hists(c, n + k, max - k);
	}
	return k;
}

/* k histogram lines of the table: every family's first, then in order */
static bool *pick_hists(const struct scr *x, int k)
{
	bool *pick = calloc((size_t)x->nh + 1, sizeof(*pick));
	int left = k;

	if (!pick)
		return NULL;
	for (int i = 0; i < x->nh && left; i++)
		if (!i || x->h[i].fam != x->h[i - 1].fam) {
			pick[i] = true;
			left--;
		}
	for (int i = 0; i < x->nh && left; i++)
		if (!pick[i]) {
			pick[i] = true;
			left--;
		}
	return pick;
}

static void fit(FILE *f, struct scr *x, int avail)
{
	int mins = 0, give, cols = x->o->cols;
	bool *pick = NULL;

	if (avail <= 0)
		return;		/* the header fills the window (put_sect's k < 0 is "all") */

	/* the shares first (their title and two lines at least), within a
	 * quarter of the window: the families' lines below must fit too */
	if (x->shares.n) {
		int k = x->shares.n < avail / 4 ? x->shares.n : avail / 4;

		k = k < 3 ? 3 : k;
		put_sect(f, &x->shares, k, cols, NULL);
		avail -= k < x->shares.n ? k : x->shares.n;
	}
	/* the tables' least: title, column heads and one row each */
	for (int i = 0; i < x->ntabs; i++)
		mins += x->tabs[i].n < 3 ? x->tabs[i].n : 3;
	give = x->hist.n < avail - mins ? x->hist.n : avail - mins;
	give = give < 2 ? 2 : give;
	give = give > avail ? avail : give;	/* a header taller than the window */
	if (give < x->hist.n && x->hist.n && (int)strlen(x->hist.l[0]) > x->namew) {
		char *l0;

		/* the cut said in the name column, the others keep their heads */
		pick = pick_hists(x, give - x->hist.head);
		if (asprintf(&l0, "%-*.*s%s", x->namew, x->namew, "histogram (more: 1-9)",
			     x->hist.l[0] + x->namew) >= 0) {
			free(x->hist.l[0]);
			x->hist.l[0] = l0;
			x->hist.noted = true;
		}
	}
	put_sect(f, &x->hist, give, cols, pick);
	free(pick);
	avail -= give < x->hist.n ? give : x->hist.n;
	for (int i = 0; i < x->ntabs; i++) {
		int rest = 0, k;

		for (int j = i + 1; j < x->ntabs; j++)
			rest += x->tabs[j].n < 3 ? x->tabs[j].n : 3;
		/* every table but the last takes what it needs of what is
		 * left; the last (events, newest last) all the rest */
		k = avail - rest;
		if (i + 1 < x->ntabs && k > x->tabs[i].n)
			k = x->tabs[i].n;
		if (k < 3)
			break;
		put_sect(f, &x->tabs[i], k, cols, NULL);
		avail -= k < x->tabs[i].n ? k : x->tabs[i].n;
	}
	if (avail > 0 && x->counters.n)
		put_sect(f, &x->counters, avail < x->counters.n ? avail : -1, cols, NULL);
}

void lat_screen_render(FILE *f, const struct lat_snap *s, const struct lat_provenance *p,
		       const struct lat_screen *o)
{
	const struct lat_node *fam[LAT_SCREEN_MAX_FAMILIES], *focus = NULL;
	struct scr x = { .o = o, .s = s };
	struct lat_hist *buf;
	char *hb = NULL;
	size_t hl = 0;
	int nf = lat_screen_families(s, fam, LAT_SCREEN_MAX_FAMILIES), hrows;
	FILE *m;

	x.secs = o->run ? (double)s->elapsed_ns / 1e9 : s->iv_len_s;
	if (o->focus > 0 && o->focus <= nf)
		focus = fam[o->focus - 1];
	/* the header, counted, then what fits under it */
	m = open_memstream(&hb, &hl);
	if (!m)
		return;
	header(&x, p, m, focus);
	fclose(m);
	lat_yield_point();
	/* the lines printed, counted as they are: cut() ends a long one
	 * early, and counting the NULs after would take a row for each cut
	 * (at 80 columns 4 rows of 24 went blank, and the hiccup events, the
	 * last table, came down to one row or none) */
	hrows = 0;
	for (char *l = strtok(hb, "\n"); l; l = strtok(NULL, "\n")) {
		cut(l, o->cols);
		fprintf(f, "%s\n", l);
		hrows++;
	}
	free(hb);
	if (o->help) {
		help(f);
		return;
	}
	if (focus) {
		if (o->heat) {
			char t[160];

			snprintf(t, sizeof(t), "heat map: %s, one column an interval "
				 "(h: the next histogram)", o->heat_name ? o->heat_name : "");
			cut(t, o->cols);
			fprintf(f, "%s\n", t);
			lat_heat_render(f, o->heat, o->cols, o->rows ? 12 : 16,
					o->utf8 ? LAT_HEAT_UNICODE : LAT_HEAT_ASCII);
		}
		lat_text_panel(f, s, focus, o->cols);
		return;
	}
	buf = malloc(2 * sizeof(*buf));
	if (!buf)
		return;
	for (x.fam = 0; x.fam < nf; x.fam++)
		walk_hists(&x, fam[x.fam], buf);
	free(buf);
	hist_table(&x);
	for (int i = 0; i < nf; i++) {
		/* a list of its own (incidents) is one table */
		if (fam[i]->kind == LAT_LIST) {
			if (is_table(fam[i]))
				table(&x, fam[i], "");
			continue;
		}
		walk_shares(&x, fam[i], fam[i]->key);
		counters_of(&x, fam[i], fam[i]->key);
		walk_tables(&x, fam[i], fam[i]->key);
	}
	if (o->rows) {
		fit(f, &x, o->rows - 1 - hrows);
	} else {
		if (x.shares.n) {
			put_sect(f, &x.shares, -1, o->cols, NULL);
			fputc('\n', f);
		}
		put_sect(f, &x.hist, -1, o->cols, NULL);
		if (x.counters.n)
			fputc('\n', f);
		put_sect(f, &x.counters, -1, o->cols, NULL);
		for (int i = 0; i < x.ntabs; i++) {
			fputc('\n', f);
			put_sect(f, &x.tabs[i], -1, o->cols, NULL);
		}
	}
	sect_free(&x.hist);
	sect_free(&x.shares);
	sect_free(&x.counters);
	for (int i = 0; i < x.ntabs; i++)
		sect_free(&x.tabs[i]);
	free(x.tabs);
	free(x.h);
}

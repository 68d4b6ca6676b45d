// SPDX-License-Identifier: GPL-2.0
/* The heat map of heatmap.h: a ring of folded intervals, and its renderer. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "output/heatmap.h"
#include "core/fmt.h"
#include "core/hist.h"

/* One interval in 64 counters and its two percentiles: a lat_hist copy is
 * 5 KiB, and a wide terminal shows hundreds of intervals. */
struct heat_iv {
	__u64 rows[LAT_HEAT_ROWS];
	__u64 count;
	__u64 p50, p99;		/* ns; meaningless while count == 0 */
};

struct lat_heat {
	int cap, n;
	int next;		/* the ring slot the next push fills */
	struct heat_iv iv[];
};

struct lat_heat *lat_heat_new(int cap)
{
	struct lat_heat *h;

	if (cap < 1)
		return NULL;
	h = calloc(1, sizeof(*h) + (size_t)cap * sizeof(h->iv[0]));
	if (h)
		h->cap = cap;
	return h;
}

void lat_heat_free(struct lat_heat *h)
{
	free(h);
}

void lat_heat_clear(struct lat_heat *h)
{
	h->n = 0;
	h->next = 0;
}

/* the row of a value: lat_hist_pow2's */
static int row_of(__u64 v)
{
	return v ? (int)lat_log2(v) : 0;
}

_Static_assert(LAT_HEAT_ROWS >= LAT_HIST_POW2_ROWS, "a heat map holds every row");

void lat_heat_push(struct lat_heat *h, const struct lat_hist *iv)
{
	struct heat_iv *s = &h->iv[h->next];

	memset(s, 0, sizeof(*s));
	if (iv && iv->count) {
		lat_hist_pow2(iv, s->rows);	/* overflow: the top row, 2^44 up */
		s->count = iv->count;
		s->p50 = lat_hist_percentile(iv, 50);
		s->p99 = lat_hist_percentile(iv, 99);
	}
	h->next = (h->next + 1) % h->cap;
	if (h->n < h->cap)
		h->n++;
}

/* age 0 is the newest interval */
static const struct heat_iv *iv_at(const struct lat_heat *h, int age)
{
	return &h->iv[(h->next - 1 - age + h->cap) % h->cap];
}

/* ---- layout ---- */

/* What one render shows; bands are m rows each, band b rows [b*m, b*m+m). */
struct heat_view {
	const struct lat_heat *h;
	enum lat_heat_style st;
	int cols;		/* intervals shown, the newest rightmost */
	int lw;			/* label column width */
	int m;
	int blo, bhi;		/* bottom and top band drawn */
	__u64 max;		/* fullest cell shown: the shade scale */
};

static __u64 cell(const struct heat_view *v, const struct heat_iv *iv, int band)
{
	int r = band * v->m, end = r + v->m;
	__u64 n = 0;

	for (; r < end && r < LAT_HEAT_ROWS; r++)
		n += iv->rows[r];
	return n;
}

static int fmt_band(char *buf, size_t len, const struct heat_view *v, int band)
{
	return lat_fmt_ns(buf, len, 1ULL << (band * v->m));
}

/* Rows with samples (or a percentile) in the shown columns; false if none. */
static bool row_span(const struct heat_view *v, int *lo, int *hi)
{
	int age, r;

	*lo = LAT_HEAT_ROWS;
	*hi = -1;
	for (age = 0; age < v->cols; age++) {
		const struct heat_iv *iv = iv_at(v->h, age);

		if (!iv->count)
			continue;
		for (r = 0; r < LAT_HEAT_ROWS; r++) {
			if (!iv->rows[r])
				continue;
			if (r < *lo)
				*lo = r;
			if (r > *hi)
				*hi = r;
		}
		/* a caller's odd min/max can clamp a percentile out of its
		 * rows; keep its marker drawable */
		if (row_of(iv->p50) < *lo)
			*lo = row_of(iv->p50);
		if (row_of(iv->p99) > *hi)
			*hi = row_of(iv->p99);
	}
	return *hi >= 0;
}

/*
 * The fewest rows per band that fit the span into nb bands, bands aligned
 * to multiples of m so labels stay put while the data moves a little; then
 * empty bands around it, alternately above and below, up to nb (not above
 * the histogram's range unless the data is), so the height is used.
 */
static void fit_bands(struct heat_view *v, int lo, int hi, int nb)
{
	int top, m = 1;
	bool up = true;

	while (hi / m - lo / m + 1 > nb)
		m++;
	v->m = m;
	v->blo = lo / m;
	v->bhi = hi / m;
	top = (LAT_HIST_MAX_LOG2 - 1) / m;
	if (top < v->bhi)
		top = v->bhi;
	while (v->bhi - v->blo + 1 < nb) {
		if (up && v->bhi < top)
			v->bhi++;
		else if (v->blo > 0)
			v->blo--;
		else if (v->bhi < top)
			v->bhi++;
		else
			break;
		up = !up;
	}
}

static int label_width(const struct heat_view *v)
{
	char buf[32];
	int b, n, w = 0;

	for (b = v->blo; b <= v->bhi; b++) {
		n = fmt_band(buf, sizeof(buf), v, b);
		if (n > w)
			w = n;
	}
	return w;
}

static void find_max(struct heat_view *v)
{
	int age, b;
	__u64 n;

	v->max = 0;
	for (age = 0; age < v->cols; age++)
		for (b = v->blo; b <= v->bhi; b++) {
			n = cell(v, iv_at(v->h, age), b);
			if (n > v->max)
				v->max = n;
		}
}

/*
 * Columns, bands and label width depend on each other: the labels take
 * width from the columns, and the columns decide which rows need labels.
 * The label column only widens, at most to the longest label there is
 * ("9223372037s"), so this settles in a few rounds. False: nothing to draw.
 */
static bool layout(struct heat_view *v, int width, int nb)
{
	int lo, hi, lw = 6;

	for (;;) {
		v->cols = v->h->n < width - lw - 1 ? v->h->n : width - lw - 1;
		if (v->cols < 1 || !row_span(v, &lo, &hi))
			return false;
		fit_bands(v, lo, hi, nb);
		v->lw = label_width(v);
		if (v->lw <= lw)
			break;
		lw = v->lw;
	}
	v->lw = lw;
	find_max(v);
	return true;
}

/* ---- output ---- */

/* One output line, cut at the width in terminal cells. */
struct heat_line {
	FILE *f;
	int left;		/* cells still free */
	int bg;			/* background in effect (256 style), -1: none */
	bool colour;
};

static void line_begin(struct heat_line *l, FILE *f, int width, enum lat_heat_style st)
{
	l->f = f;
	l->left = width > 0 ? width : 0;
	l->bg = -1;
	l->colour = st == LAT_HEAT_256;
}

static void line_end(struct heat_line *l)
{
	if (l->colour)
		fputs("\033[0m", l->f);
	fputc('\n', l->f);
}

/* ASCII text, as much as fits */
static void put_text(struct heat_line *l, const char *s)
{
	int n = (int)strlen(s);

	if (n > l->left)
		n = l->left;
	fwrite(s, 1, (size_t)n, l->f);
	l->left -= n;
}

static void put_spaces(struct heat_line *l, int n)
{
	for (; n > 0 && l->left > 0; n--, l->left--)
		fputc(' ', l->f);
}

/* one cell: a glyph that may be several UTF-8 bytes */
static void put_glyph(struct heat_line *l, const char *g)
{
	if (l->left < 1)
		return;
	fputs(g, l->f);
	l->left--;
}

static void set_bg(struct heat_line *l, int bg)
{
	if (bg == l->bg)
		return;
	if (bg < 0)
		fputs("\033[49m", l->f);
	else
		fprintf(l->f, "\033[48;5;%dm", bg);
	l->bg = bg;
}

static const char ascii_shades[] = " .:-=+*#%@";
static const char *const uni_shades[] = { " ", "░", "▒", "▓", "█" };
/* dark blue through magenta to pale yellow: brighter is more */
static const int ramp[] = { 17, 18, 19, 20, 21, 57, 93, 129, 165, 201,
			    204, 209, 214, 220, 226, 230 };
#define NR_ASCII ((int)sizeof(ascii_shades) - 2)
#define NR_UNI ((int)(sizeof(uni_shades) / sizeof(uni_shades[0])) - 1)
#define NR_RAMP ((int)(sizeof(ramp) / sizeof(ramp[0])))

/* 0 for none, else 1..levels by log(n) against log(max): one sample among
 * a million still gets the faintest shade */
static int shade(__u64 n, __u64 max, int levels)
{
	if (!n)
		return 0;
	if (max <= 1 || n >= max)
		return levels;
	return 1 + (int)(log((double)n) / log((double)max) * (levels - 1));
}

static void put_cell(struct heat_line *l, const struct heat_view *v, __u64 n, char mark)
{
	char m[2] = { mark, 0 };
	int s;

	if (l->left < 1)
		return;
	switch (v->st) {
	case LAT_HEAT_ASCII:
		m[0] = mark ? mark : ascii_shades[shade(n, v->max, NR_ASCII)];
		put_glyph(l, m);
		break;
	case LAT_HEAT_UNICODE:
		put_glyph(l, mark ? m : uni_shades[shade(n, v->max, NR_UNI)]);
		break;
	case LAT_HEAT_256:
		s = shade(n, v->max, NR_RAMP);
		set_bg(l, s ? ramp[s - 1] : -1);
		if (!mark) {
			put_glyph(l, " ");
			break;
		}
		/* black on the pale end of the ramp, white elsewhere */
		fprintf(l->f, "\033[1;38;5;%dm", s > NR_RAMP - 4 ? 16 : 231);
		put_glyph(l, m);
		fputs("\033[22;39m", l->f);
		break;
	}
}

static char marker(const struct heat_view *v, const struct heat_iv *iv, int band)
{
	bool p50, p99;

	if (!iv->count)
		return 0;
	p50 = row_of(iv->p50) / v->m == band;
	p99 = row_of(iv->p99) / v->m == band;
	return p50 && p99 ? 'X' : p99 ? '9' : p50 ? '5' : 0;
}

static void put_band(FILE *f, const struct heat_view *v, int width, int band)
{
	struct heat_line l;
	char lab[32] = "";
	int age;

	line_begin(&l, f, width, v->st);
	if (band >= 0)
		fmt_band(lab, sizeof(lab), v, band);
	put_spaces(&l, v->lw - (int)strlen(lab));
	put_text(&l, lab);
	put_text(&l, "|");
	for (age = v->cols - 1; band >= 0 && age >= 0; age--) {
		const struct heat_iv *iv = iv_at(v->h, age);

		put_cell(&l, v, cell(v, iv, band), marker(v, iv, band));
	}
	line_end(&l);
}

/* "+-39 iv ---- now": the leftmost column's age, and the newest */
static void put_axis(FILE *f, const struct heat_view *v, int width)
{
	struct heat_line l;
	char left[24];
	int n, rest = v->cols, tail = v->cols >= 4 ? 4 : 0;

	line_begin(&l, f, width, v->st);
	put_spaces(&l, v->lw);
	put_text(&l, "+");
	n = snprintf(left, sizeof(left), "-%d iv ", v->cols - 1);
	if (v->cols > 1 && n + tail <= v->cols) {
		put_text(&l, left);
		rest -= n;
	}
	for (; rest > tail; rest--)
		put_text(&l, "-");
	if (tail)
		put_text(&l, " now");
	line_end(&l);
}

static void put_legend(FILE *f, const struct heat_view *v, int width)
{
	struct heat_line l;
	char buf[96];
	int i;

	line_begin(&l, f, width, v->st);
	put_text(&l, "5 p50  9 p99  X both  ");
	for (i = 1; v->st == LAT_HEAT_ASCII && i <= NR_ASCII; i++)
		put_glyph(&l, (char[]){ ascii_shades[i], 0 });
	for (i = 1; v->st == LAT_HEAT_UNICODE && i <= NR_UNI; i++)
		put_glyph(&l, uni_shades[i]);
	for (i = 0; v->st == LAT_HEAT_256 && i < NR_RAMP; i++) {
		set_bg(&l, ramp[i]);
		put_glyph(&l, " ");
	}
	if (l.colour)
		set_bg(&l, -1);
	snprintf(buf, sizeof(buf), " 1..%llu per cell, log",
		 (unsigned long long)v->max);
	put_text(&l, buf);
	line_end(&l);
}

static void put_nothing(FILE *f, const struct heat_view *v, int width)
{
	struct heat_line l;
	char buf[64];

	line_begin(&l, f, width, v->st);
	if (v->h->n == 0)
		snprintf(buf, sizeof(buf), "no samples yet");
	else if (v->cols < 1)
		snprintf(buf, sizeof(buf), "too narrow for a heat map");
	else
		snprintf(buf, sizeof(buf), "no samples in the last %d intervals", v->cols);
	put_text(&l, buf);
	line_end(&l);
}

void lat_heat_render(FILE *f, const struct lat_heat *h, int width, int height,
		     enum lat_heat_style st)
{
	struct heat_view v = { .h = h, .st = st };
	int nb = height > 2 ? height - 2 : 1, b;

	if (height < 1)
		return;
	if (!layout(&v, width, nb)) {
		put_nothing(f, &v, width);
		return;
	}
	/* fewer bands than lines only when the rows run out: blank on top */
	for (b = v.bhi - v.blo + 1; b < nb; b++)
		put_band(f, &v, width, -1);
	for (b = v.bhi; b >= v.blo; b--)
		put_band(f, &v, width, b);
	if (height >= 2)
		put_axis(f, &v, width);
	if (height >= 3)
		put_legend(f, &v, width);
}

// SPDX-License-Identifier: GPL-2.0
/* The heat map, judged from its output only: rendered ASCII is parsed back
 * into labelled bands and columns, so a test fails on what a user would
 * see, not on the module's internals. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "output/heatmap.h"
#include "tap.h"

static struct lat_hist iv;

/* an interval of n samples at each of the values, 0-terminated */
static const struct lat_hist *mk(__u64 n, const __u64 *vals)
{
	__u64 k;

	memset(&iv, 0, sizeof(iv));
	for (; *vals; vals++)
		for (k = 0; k < n; k++)
			lat_hist_record(&iv, *vals);
	return &iv;
}

static const struct lat_hist *mk1(__u64 n, __u64 v)
{
	__u64 vals[] = { v, 0 };

	return mk(n, vals);
}

static char *render(const struct lat_heat *h, int w, int ht, enum lat_heat_style st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lat_heat_render(f, h, w, ht, st);
	fclose(f);
	return buf;
}

/* the output as lines (in place: newlines become NULs) */
struct lines {
	char *buf;
	char *l[256];
	int n;
	bool last_nl;		/* the output ends in a newline */
};

static void split(struct lines *s, char *buf)
{
	char *p = buf, *nl;

	s->buf = buf;
	s->n = 0;
	s->last_nl = !*buf || buf[strlen(buf) - 1] == '\n';
	while (*p && s->n < 256) {
		s->l[s->n++] = p;
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = 0;
		p = nl + 1;
	}
}

/* removes ESC [ ... m in place; true if every escape was one of those */
static bool strip_sgr(char *s)
{
	char *o = s, *e;
	bool good = true;

	while (*s) {
		if (*s != '\033') {
			*o++ = *s++;
			continue;
		}
		if (s[1] != '[' || !(e = strchr(s, 'm'))) {
			good = false;
			s++;
			continue;
		}
		s = e + 1;
	}
	*o = 0;
	return good;
}

/* terminal cells of UTF-8 text of single-width characters */
static int cells(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static double label_ns(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!strcmp(end, "ns"))
		return v;
	if (!strcmp(end, "us"))
		return v * 1e3;
	if (!strcmp(end, "ms"))
		return v * 1e6;
	if (!strcmp(end, "s"))
		return v * 1e9;
	return -1;
}

/* An ASCII render parsed: band lines top down, each a label's lowest value
 * and a row of cells; the columns are the cells right of '|'. */
struct grid {
	struct lines s;
	int bands, cols, bar;
	double low[64];		/* band i's lowest value (i = 0 on top) */
	const char *cell[64];
	bool ok;		/* parsed and consistent */
};

static void parse(struct grid *g, char *buf, int height)
{
	int i;

	memset(g, 0, sizeof(*g));
	split(&g->s, buf);
	g->bands = g->s.n - 2;
	g->ok = g->s.n == height && g->bands > 0 && g->bands <= 64;
	if (!g->ok)
		return;
	g->bar = (int)(strchr(g->s.l[0], '|') ? strchr(g->s.l[0], '|') - g->s.l[0] : -1);
	g->cols = g->bar >= 0 ? (int)strlen(g->s.l[0]) - g->bar - 1 : -1;
	for (i = 0; g->ok && i < g->bands; i++) {
		char lab[32] = "", *l = g->s.l[i];

		if (g->bar < 0 || (int)strlen(l) != g->bar + 1 + g->cols || l[g->bar] != '|') {
			g->ok = false;
			break;
		}
		sscanf(l, "%31[^|]", lab);
		g->low[i] = label_ns(lab + strspn(lab, " "));
		g->cell[i] = l + g->bar + 1;
	}
	if (g->ok && g->s.l[g->bands][g->bar] != '+')
		g->ok = false;
}

/* The band whose range holds v: from its label up to the next label. */
static int band_of(const struct grid *g, double v)
{
	int i;

	for (i = 0; i < g->bands; i++)
		if (g->low[i] >= 0 && g->low[i] <= v && (i == 0 || v < g->low[i - 1]))
			return i;
	return -1;
}

/* Column c's one non-blank band, or -1 (blank) or -2 (more than one). */
static int filled(const struct grid *g, int c)
{
	int i, f = -1;

	for (i = 0; i < g->bands; i++)
		if (g->cell[i][c] != ' ')
			f = f == -1 ? i : -2;
	return f;
}

static void diag(const char *buf)
{
	const char *p = buf, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		printf("#   %.*s\n", (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* intervals 0-4 at 10 us, 5-9 at 1 ms: one column each, oldest left */
static void test_two_levels(void)
{
	struct lat_heat *h = lat_heat_new(64);
	struct grid g;
	char *out;
	int c, bad_cell = 0, bad_mark = 0, bad_blank = 0;

	for (c = 0; c < 10; c++)
		lat_heat_push(h, mk1(1000, c < 5 ? 10000 : 1000000));
	out = render(h, 60, 14, LAT_HEAT_ASCII);
	diag(out);
	parse(&g, out, 14);
	ok(g.ok, "two levels: 14 lines, %d bands with labels and '|', an axis with '+'",
	   g.bands);
	ok(g.cols == 10, "two levels: all 10 intervals are columns (%d)", g.cols);
	for (c = 0; g.ok && c < g.cols && c < 10; c++) {
		int want = band_of(&g, c < 5 ? 10000 : 1e6), f = filled(&g, c);

		bad_cell += want < 0 || f != want;
		bad_blank += f < 0;
		if (f >= 0)
			bad_mark += g.cell[f][c] != 'X';
	}
	ok(g.ok && !bad_cell && !bad_blank,
	   "columns 0-4 filled only in the band holding 10us, 5-9 only in 1ms's");
	ok(g.ok && !bad_mark, "p50 and p99 (one cell: 'X') mark those cells");
	ok(g.ok && band_of(&g, 10000) > band_of(&g, 1e6),
	   "latency goes up: 1ms's band above 10us's");
	ok(g.ok && strstr(g.s.l[g.bands], "-9 iv") &&
	   !strcmp(g.s.l[g.bands] + strlen(g.s.l[g.bands]) - 3, "now"),
	   "axis: '-9 iv' for the oldest column, 'now' under the newest");
	ok(g.ok && strstr(g.s.l[g.bands + 1], "5 p50") && strstr(g.s.l[g.bands + 1], "9 p99") &&
	   strstr(g.s.l[g.bands + 1], "X both"), "legend names the markers");
	free(out);

	out = render(h, 60, 14, LAT_HEAT_UNICODE);
	ok(strstr(out, "█") && !strchr(out, '\033'), "unicode: full cells are '█', no escapes");
	free(out);
	out = render(h, 60, 14, LAT_HEAT_256);
	ok(strstr(out, "\033[48;5;230m") != NULL, "256: full cells on the ramp's top colour");
	free(out);

	/* one more at 100 ns: the newest is the rightmost column */
	lat_heat_push(h, mk1(1000, 100));
	out = render(h, 60, 14, LAT_HEAT_ASCII);
	parse(&g, out, 14);
	ok(g.ok && g.cols == 11 && filled(&g, 10) == band_of(&g, 100) &&
	   filled(&g, 9) == band_of(&g, 1e6) && filled(&g, 0) == band_of(&g, 10000),
	   "a new interval appears at the right edge");
	free(out);

	/* the same again fits the width: only the newest that fit are shown */
	out = render(h, 6 + 1 + 4, 14, LAT_HEAT_ASCII);
	parse(&g, out, 14);
	ok(g.ok && g.cols == 4 && filled(&g, 3) == band_of(&g, 100) &&
	   filled(&g, 0) == band_of(&g, 1e6), "a narrow view shows the newest 4");
	free(out);
	lat_heat_free(h);
}

/* p50 and p99 in different cells; a sparse tail keeps the faintest shade */
static void test_markers(void)
{
	static const __u64 body_tail[] = { 10000, 1000000, 0 };
	struct lat_heat *h = lat_heat_new(8);
	struct lat_hist *t;
	struct grid g;
	char *out;
	int b10, b1m, b100;

	/* 980 at 10 us and 20 at 1 ms */
	t = (struct lat_hist *)mk(20, body_tail);
	for (int k = 0; k < 960; k++)
		lat_hist_record(t, 10000);
	lat_heat_push(h, t);
	/* a million at 10 us and a single one at 100 ns */
	t = (struct lat_hist *)mk1(1000000, 10000);
	lat_hist_record(t, 100);
	lat_heat_push(h, t);
	out = render(h, 40, 12, LAT_HEAT_ASCII);
	diag(out);
	parse(&g, out, 12);
	b10 = band_of(&g, 10000);
	b1m = band_of(&g, 1e6);
	b100 = band_of(&g, 100);
	g.ok &= g.cols == 2 && b10 >= 0 && b1m >= 0 && b100 >= 0;
	ok(g.ok, "markers: parsed, two columns");
	ok(g.ok && g.cell[b10][0] == '5' && g.cell[b1m][0] == '9',
	   "p50 reads '5' in 10us's band, p99 '9' in 1ms's");
	ok(g.ok && g.cell[b10][1] == 'X' && g.cell[b100][1] == '.',
	   "one sample beside a million still shows, in the faintest shade '.'");
	free(out);
	lat_heat_free(h);
}

/* every line within the width, exactly the height, in every style */
static void test_widths(void)
{
	static const char *const name[] = { "ascii", "unicode", "256" };
	static const int widths[] = { 20, 80, 120 };
	struct lat_heat *h = lat_heat_new(300);
	__u64 seed = 1, vals[4];
	int st, wi, ht, i, j;

	for (i = 0; i < 300; i++) {
		for (j = 0; j < 3; j++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			vals[j] = 1 + (seed >> 33) % (1ULL << (4 + (i * 7 + j * 11) % 30));
		}
		vals[3] = 0;
		lat_heat_push(h, i % 17 == 5 ? NULL : mk(1 + i % 50, vals));
	}
	for (st = LAT_HEAT_ASCII; st <= LAT_HEAT_256; st++) {
		for (wi = 0; wi < 3; wi++) {
			int w = widths[wi], bad = 0, first_w = 0, first_h = 0;

			for (ht = 5; ht <= 30; ht++) {
				char *out = render(h, w, ht, (enum lat_heat_style)st);
				struct lines s;
				bool reset = true, sgr = true;

				split(&s, out);
				for (i = 0; i < s.n; i++) {
					reset &= st != LAT_HEAT_256 ||
						 (strlen(s.l[i]) >= 4 &&
						  !strcmp(s.l[i] + strlen(s.l[i]) - 4, "\033[0m"));
					sgr &= strip_sgr(s.l[i]);
					if (cells(s.l[i]) > w)
						break;
				}
				if (i < s.n || s.n != ht || !s.last_nl || !reset || !sgr) {
					if (!bad++) {
						first_w = w;
						first_h = ht;
					}
				}
				free(out);
			}
			ok(!bad, "%s at width %d, heights 5..30: exactly the height, no line wider%s",
			   name[st], w, st == LAT_HEAT_256 ? ", ESC[0m ends each" : "");
			if (bad)
				printf("# %d failed, first %dx%d\n", bad, first_w, first_h);
		}
	}
	/* and the degenerate sizes: never wider, never longer */
	for (st = LAT_HEAT_ASCII; st <= LAT_HEAT_256; st++) {
		int bad = 0;

		for (int w = 0; w < 20; w++) {
			for (ht = 0; ht < 5; ht++) {
				char *out = render(h, w, ht, (enum lat_heat_style)st);
				struct lines s;

				split(&s, out);
				bad += s.n > (ht ? ht : 0);
				for (i = 0; i < s.n; i++) {
					strip_sgr(s.l[i]);
					bad += cells(s.l[i]) > w;
				}
				free(out);
			}
		}
		ok(!bad, "%s at widths 0..19, heights 0..4: within both", name[st]);
	}
	lat_heat_free(h);
}

/* more than cap intervals: the newest cap stay, oldest left */
static void test_cap(void)
{
	struct lat_heat *h = lat_heat_new(5);
	struct grid g;
	char *out;
	int j, bad = 0;

	for (j = 0; j < 8; j++)
		lat_heat_push(h, mk1(100, 1ULL << (3 + 2 * j)));
	out = render(h, 80, 16, LAT_HEAT_ASCII);
	parse(&g, out, 16);
	ok(g.ok && g.cols == 5, "cap 5 after 8 pushes: 5 columns (%d)", g.cols);
	for (j = 3; g.ok && j < 8; j++)
		bad += filled(&g, j - 3) != band_of(&g, 1.5 * (1ULL << (3 + 2 * j)));
	ok(g.ok && !bad, "they are intervals 3..7, oldest left");
	free(out);
	lat_heat_free(h);
}

static void test_empty(void)
{
	struct lat_heat *h = lat_heat_new(4);
	struct lines s;
	char *out;

	ok(lat_heat_new(0) == NULL, "cap 0 is refused");
	out = render(h, 80, 20, LAT_HEAT_ASCII);
	split(&s, out);
	ok(s.n == 1 && strstr(s.l[0], "no samples"), "empty: one line saying so (%s)",
	   s.n ? s.l[0] : "");
	free(out);

	lat_heat_push(h, NULL);
	lat_heat_push(h, mk1(0, 1));
	out = render(h, 80, 20, LAT_HEAT_256);
	split(&s, out);
	strip_sgr(s.l[0]);
	ok(s.n == 1 && strstr(s.l[0], "no samples in the last 2"),
	   "empty intervals: one line saying so (%s)", s.n ? s.l[0] : "");
	free(out);

	lat_heat_push(h, mk1(10, 1000));
	lat_heat_clear(h);
	out = render(h, 80, 20, LAT_HEAT_UNICODE);
	split(&s, out);
	ok(s.n == 1 && strstr(s.l[0], "no samples"), "cleared: one line again");
	free(out);
	lat_heat_free(h);
}

/* 1 ns .. 1 s, a decade per column: more rows than bands, merged */
static void test_merge(void)
{
	struct lat_heat *h = lat_heat_new(16);
	double v[10];
	struct grid g;
	int i, j, ht, bad = 0, merged = 0;
	char *out;

	for (j = 0, v[0] = 1; j < 10; j++) {
		if (j)
			v[j] = v[j - 1] * 10;
		lat_heat_push(h, mk1(50, (__u64)v[j]));
	}
	for (ht = 5; ht <= 14; ht++) {
		out = render(h, 80, ht, LAT_HEAT_ASCII);
		if (ht == 5)
			diag(out);
		parse(&g, out, ht);
		bad += !g.ok || g.cols != 10;
		for (j = 0; g.ok && j < 10; j++)
			bad += filled(&g, j) < 0 || filled(&g, j) != band_of(&g, v[j]);
		/* every band two rows or more: its label 4x the one below */
		for (i = 1; g.ok && i < g.bands; i++)
			if (g.low[i] > 0 && g.low[i - 1] / g.low[i] < 3.9)
				break;
		merged += g.ok && g.bands == ht - 2 && i == g.bands;
		free(out);
	}
	ok(merged == 10, "30 rows into 3..12 bands: every band 2+ rows, the height used");
	ok(!bad, "each sample's column filled in the merged band that holds it");
	lat_heat_free(h);
}

int main(void)
{
	test_two_levels();
	test_markers();
	test_widths();
	test_cap();
	test_empty();
	test_merge();
	return done_testing();
}

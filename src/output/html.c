// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf report --html: one self-contained page (inline CSS and SVG drawn
 * here, no script, nothing fetched) of a saved run: its provenance, for
 * every histogram path a percentile-over-time chart and a heat map, the
 * tables of its lists (per-CPU hiccups, intruders, events), and latbpf's
 * own cost. Nothing here knows a family: histograms are the objects with
 * "buckets", tables the lists of objects. Every string from the file is
 * hostile (comms) and escaped.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "output/html.h"
#include "core/fmt.h"
#include "core/provenance.h"
#include "core/saved.h"

#define W 900		/* chart width, px */
#define PL 70		/* left margin: the axis labels */
#define PR 20
#define MAX_ROWS 500	/* table rows (thousands of threads) */
#define MAX_ITEMS 64	/* a list's items that get charts and tables of their own */
#define MAX_SERIES 512	/* charts on one page */

/* Text into HTML: markup characters as entities, invalid UTF-8 and control
 * characters as U+FFFD (jansson checks UTF-8 already; this does not rely
 * on it) */
static void esc(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	while (*s) {
		unsigned c = *s;
		int n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 :
			c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		int i;

		for (i = 1; i < n; i++)
			if ((s[i] & 0xc0) != 0x80)
				n = 0;
		if (n == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
			fputs("&#xfffd;", f);
			s++;
			continue;
		}
		switch (c) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fwrite(s, 1, (size_t)n, f);
		}
		s += n;
	}
}

/* One histogram path's values over the run */
struct series {
	char *name;		/* block.devices[vda].read.latency */
	char *lpath;		/* its layout path, block.devices[].read.latency */
	json_t **h;		/* per interval record, NULL where absent */
};

struct page {
	FILE *f;
	const struct lat_saved_run *r;
	struct series *s;
	size_t n, cap;
	double *t;		/* each interval record's end, s from the start */
	double start_s;		/* the run's start, epoch s (0: unknown) */
};

static struct series *series_get(struct page *p, const char *name, const char *lpath)
{
	struct series *v;

	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->s[i].name, name))
			return &p->s[i];
	if (p->n == MAX_SERIES)
		return NULL;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;

		v = realloc(p->s, cap * sizeof(*v));
		if (!v)
			return NULL;
		p->s = v;
		p->cap = cap;
	}
	v = &p->s[p->n];
	v->name = strdup(name);
	v->lpath = strdup(lpath);
	v->h = calloc(p->r->n_iv + 1, sizeof(*v->h));
	if (!v->name || !v->lpath || !v->h) {
		free(v->name), free(v->lpath), free(v->h);
		return NULL;
	}
	p->n++;
	return v;
}

/* whether a layout entry has the flag (json.c writes them by name) */
static bool has_flag(json_t *lay, const char *flag)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(lay, "flags"), i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), flag))
			return true;
	return false;
}

/* An item named by its label members (the layout flags them: state and
 * cause of a time cause), their values joined with dots; false if none */
static bool label_name(char *b, size_t n, json_t *nodes, const char *ipath, json_t *item)
{
	char path[512];
	size_t l = 0;
	const char *k;
	json_t *v;

	b[0] = '\0';
	json_object_foreach(item, k, v) {
		snprintf(path, sizeof(path), "%s.%s", ipath, k);
		if (json_is_string(v) && has_flag(json_object_get(nodes, path), "label") &&
		    l < n)
			l += (size_t)snprintf(b + l, n - l, "%s%s", l ? "." : "",
					      json_string_value(v));
	}
	return l > 0;
}

/* A list item's name: its first member's value (device, cpu, tid), else
 * its index */
static void item_name(char *b, size_t n, json_t *item, size_t idx)
{
	const char *k;
	json_t *v;

	json_object_foreach(item, k, v) {
		if (json_is_string(v)) {
			snprintf(b, n, "%s", json_string_value(v));
			return;
		}
		if (json_is_integer(v)) {
			snprintf(b, n, "%lld", (long long)json_integer_value(v));
			return;
		}
		break;
	}
	snprintf(b, n, "%zu", idx);
}

/* The list's item i when the page shows it (an object, one of the first
 * MAX_ITEMS: thousands of threads show the first ones, in the run's order),
 * its name written as "[name]" at name + an; else NULL */
static json_t *shown_item(const struct page *p, json_t *list, size_t i, char *name,
			  size_t an, size_t len, const char *ipath)
{
	json_t *c = json_array_get(list, i);
	char item[96];

	if (i >= MAX_ITEMS || !json_is_object(c))
		return NULL;
	if (!label_name(item, sizeof(item), p->r->nodes, ipath, c))
		item_name(item, sizeof(item), c, i);
	snprintf(name + an, len - an, "[%s]", item);
	return c;
}

/* Every histogram of a record under its name, as point rec (n_iv: the
 * final record) of its series */
static void collect(struct page *p, json_t *v, char *name, char *lpath, size_t len,
		    size_t rec)
{
	size_t an = strlen(name), al = strlen(lpath), i;
	const char *k;
	json_t *c;

	if (json_is_object(v) && json_is_array(json_object_get(v, "buckets"))) {
		struct series *s = series_get(p, name, lpath);

		if (s)
			s->h[rec] = v;
		return;
	}
	if (json_is_object(v)) {
		json_object_foreach(v, k, c) {
			if (!an && !strcmp(k, "layout"))
				continue;
			snprintf(name + an, len - an, "%s%s", an ? "." : "", k);
			snprintf(lpath + al, len - al, "%s%s", al ? "." : "", k);
			collect(p, c, name, lpath, len, rec);
		}
	} else if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v); i++) {
			snprintf(lpath + al, len - al, "[]");
			if (!(c = shown_item(p, v, i, name, an, len, lpath)))
				continue;
			collect(p, c, name, lpath, len, rec);
		}
	}
	name[an] = lpath[al] = '\0';
}

static bool is_bytes(const struct page *p, const struct series *s)
{
	const char *k = json_string_value(json_object_get(json_object_get(p->r->nodes,
									  s->lpath), "kind"));

	return k && !strcmp(k, "bytes");
}

static void fmt(char *b, size_t n, double v, bool bytes)
{
	(bytes ? lat_fmt_bytes : lat_fmt_ns)(b, n, v < 0 ? 0 : (__u64)v);
}

static double val(json_t *h, const char *k)
{
	return json_number_value(json_object_get(h, k));
}

/* p50, p99, p99.9 and max per interval, log y, time in s across */
static void chart(struct page *p, const struct series *s, bool bytes)
{
	static const char *const keys[] = { "p50", "p99", "p99.9", "max" };
	static const char *const colour[] = { "#1b9e77", "#d95f02", "#7570b3", "#e7298a" };
	const int H = 240, top = 20, bot = 40;
	double lo = INFINITY, hi = 0, tmax = 0;
	size_t i;
	int k, d;
	char b[32];

	for (i = 0; i < p->r->n_iv; i++) {
		tmax = p->t[i] > tmax ? p->t[i] : tmax;
		for (k = 0; s->h[i] && k < 4; k++) {
			double v = val(s->h[i], keys[k]);

			if (v > 0) {
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
		}
	}
	if (hi <= 0) {
		fputs("<p class=\"none\">no samples in any interval</p>\n", p->f);
		return;
	}
	lo = floor(log10(lo));
	hi = ceil(log10(hi));
	if (hi <= lo)
		hi = lo + 1;
	tmax = tmax > 0 ? tmax : 1;
#define X(t) (PL + (t) / tmax * (W - PL - PR))
#define Y(v) (top + (hi - log10(v)) / (hi - lo) * (H - top - bot))
	fprintf(p->f, "<svg class=\"pct\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\"><rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		W, H, W, H);
	for (d = (int)lo; d <= (int)hi; d++) {
		fmt(b, sizeof(b), pow(10, d), bytes);
		fprintf(p->f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			PL, W - PR, Y(pow(10, d)), Y(pow(10, d)), PL - 4, Y(pow(10, d)) + 4, b);
	}
	for (k = 0; k <= 4; k++)
		fprintf(p->f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.1f s</text>\n",
			X(tmax * k / 4), H - bot + 16, tmax * k / 4);
	for (k = 0; k < 4; k++) {
		fprintf(p->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			colour[k]);
		for (i = 0; i < p->r->n_iv; i++)
			if (s->h[i] && val(s->h[i], keys[k]) > 0)
				fprintf(p->f, "%.1f,%.1f ", X(p->t[i]), Y(val(s->h[i], keys[k])));
		fprintf(p->f, "\"/><text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n",
			PL + 10 + 90 * k, H - 6, colour[k], keys[k]);
	}
	fputs("</svg>\n", p->f);
#undef X
#undef Y
}

/* a bucket's log2 row: [2^r, 2^(r+1)) */
static int row_of(json_t *bucket)
{
	json_int_t low = json_integer_value(json_array_get(bucket, 0));

	return (int)lat_log2((__u64)(low < 1 ? 1 : low));
}

/* Time across, log2 rows up, the shade of a cell its count (log scale) */
static void heatmap(struct page *p, const struct series *s, bool bytes)
{
	enum { NR = 64 };
	double cnt[NR], peak = 0;
	int lo = NR, hi = -1, r, rows;
	size_t i, j, n = p->r->n_iv;
	json_t *b;
	char lb[32];

	for (i = 0; i < n; i++)
		json_array_foreach(json_object_get(s->h[i], "buckets"), j, b) {
			r = row_of(b);
			lo = r < lo ? r : lo;
			hi = r > hi ? r : hi;
		}
	if (hi < 0 || !n)
		return;
	rows = hi - lo + 1;
	int ch = rows > 30 ? 8 : 14, H = rows * ch + 40;
	double cw = (double)(W - PL - PR) / (double)n;

	fprintf(p->f, "<svg class=\"heat\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\"><rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		W, H, W, H);
	for (i = 0; i < n; i++)
		json_array_foreach(json_object_get(s->h[i], "buckets"), j, b) {
			double c = json_number_value(json_array_get(b, 2));

			peak = c > peak ? c : peak;
		}
	for (i = 0; i < n; i++) {
		memset(cnt, 0, sizeof(cnt));
		json_array_foreach(json_object_get(s->h[i], "buckets"), j, b)
			cnt[row_of(b)] += json_number_value(json_array_get(b, 2));
		for (r = lo; r <= hi; r++) {
			double x = cnt[r] > 0 ? log1p(cnt[r]) / log1p(peak > 1 ? peak : 1) : 0;

			if (cnt[r] <= 0)
				continue;
			x = x > 1 ? 1 : x;
			fprintf(p->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"rgb(%d,%d,%d)\"><title>%.0f</title></rect>\n",
				PL + cw * (double)i, 10 + (hi - r) * ch, cw + 0.5, ch,
				(int)(255 - 127 * x), (int)(237 - 237 * x), (int)(160 - 122 * x),
				cnt[r]);
		}
	}
	for (r = lo; r <= hi; r += rows > 30 ? 4 : rows > 12 ? 2 : 1) {
		fmt(lb, sizeof(lb), (double)(1ULL << r), bytes);
		fprintf(p->f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
			PL - 4, 10 + (hi - r) * ch + ch - 2, lb);
	}
	fprintf(p->f, "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">%.1f s</text></svg>\n", PL, H - 12, W - PR, H - 12,
		p->t[n - 1]);
}

/* the value at a dotted path of objects ("time.causes") in a record */
static json_t *at_path(json_t *rec, const char *path)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && rec; tok = strtok_r(NULL, ".", &save))
		rec = json_object_get(rec, tok);
	return rec;
}

#define SHARE_BANDS 8	/* the largest items over the run; the rest as other */

/*
 * A list whose items divide a whole (flag "shares": the time family's
 * causes) as a stacked chart: each interval's items as shares of its
 * total, the run's largest SHARE_BANDS as bands, the rest as "other".
 */
static void shares_chart(struct page *p, const char *path, json_t *lay)
{
	static const char *const colour[SHARE_BANDS + 1] = {
		"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
		"#a6761d", "#1f78b4", "#999999" };
	const char *rank = json_string_value(json_object_get(lay, "rank"));
	const int H = 260, top = 20, bot = 40;
	char names[SHARE_BANDS][96], nm[96], ipath[300];
	double tmax = 0, *v, *tot;
	size_t nb = 0, i, b, n = p->r->n_iv;
	json_t *list, *it;

	if (!rank || !n)
		return;
	snprintf(ipath, sizeof(ipath), "%s[]", path);
	/* the bands: the final record's first items (ranked by the run) */
	list = at_path(p->r->final, path);
	json_array_foreach(list, i, it) {
		if (nb == SHARE_BANDS)
			break;
		if (label_name(names[nb], sizeof(names[nb]), p->r->nodes, ipath, it) ||
		    (item_name(names[nb], sizeof(names[nb]), it, i), 1))
			nb++;
	}
	v = calloc((nb + 1) * n, sizeof(*v));
	tot = calloc(n, sizeof(*tot));
	if (!v || !tot) {
		free(v);
		free(tot);
		return;
	}
	for (size_t r = 0; r < n; r++) {
		tmax = p->t[r] > tmax ? p->t[r] : tmax;
		json_array_foreach(at_path(p->r->iv[r], path), i, it) {
			double x = json_number_value(json_object_get(it, rank));

			if (!label_name(nm, sizeof(nm), p->r->nodes, ipath, it))
				item_name(nm, sizeof(nm), it, i);
			for (b = 0; b < nb && strcmp(nm, names[b]); b++)
				;
			v[b * n + r] += x;	/* b == nb: other */
			tot[r] += x;
		}
	}
	tmax = tmax > 0 ? tmax : 1;
	fputs("<section class=\"shares\"><h3 class=\"path\">", p->f);
	esc(p->f, path);
	fputs(": shares over time</h3>\n", p->f);
#define X(t) (PL + (t) / tmax * (W - PL - PR))
#define Y(f) (top + (1 - (f)) * (H - top - bot))
	fprintf(p->f, "<svg class=\"stack\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\"><rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		W, H, W, H);
	for (int k = 0; k <= 4; k++)
		fprintf(p->f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.1f s</text>\n",
			PL - 4, Y(k / 4.0) + 4, 25 * k, X(tmax * k / 4), H - bot + 16, tmax * k / 4);
	/* each band a polygon between the shares below it and with it */
	for (b = 0; b <= nb; b++) {
		fprintf(p->f, "<polygon fill=\"%s\" fill-opacity=\"0.85\" points=\"",
			colour[b < SHARE_BANDS ? b : SHARE_BANDS]);
		for (size_t r = 0; r < n; r++) {
			double below = 0;

			for (size_t c = 0; c <= b; c++)
				below += tot[r] > 0 ? v[c * n + r] / tot[r] : 0;
			fprintf(p->f, "%.1f,%.1f ", X(p->t[r]), Y(below));
		}
		for (size_t r = n; r-- > 0;) {
			double below = 0;

			for (size_t c = 0; c < b; c++)
				below += tot[r] > 0 ? v[c * n + r] / tot[r] : 0;
			fprintf(p->f, "%.1f,%.1f ", X(p->t[r]), Y(below));
		}
		fputs("\"/>\n", p->f);
	}
	fputs("</svg><p>", p->f);
	for (b = 0; b <= nb; b++) {
		fprintf(p->f, "<span style=\"color:%s\">&#9632;</span> ",
			colour[b < SHARE_BANDS ? b : SHARE_BANDS]);
		esc(p->f, b < nb ? names[b] : "other");
		fputs(b < nb ? " &nbsp; " : "", p->f);
	}
	fputs("</p></section>\n", p->f);
#undef X
#undef Y
	free(v);
	free(tot);
}

static void shares(struct page *p)
{
	const char *k;
	json_t *lay;

	json_object_foreach(p->r->nodes, k, lay)
		if (!strchr(k, '[') && has_flag(lay, "shares"))
			shares_chart(p, k, lay);
}

static void histograms(struct page *p)
{
	fputs("<h2>Histograms</h2>\n", p->f);
	for (size_t i = 0; i < p->n; i++) {
		const struct series *s = &p->s[i];
		const char *title = json_string_value(json_object_get(
			json_object_get(p->r->nodes, s->lpath), "title"));
		bool bytes = is_bytes(p, s);

		fputs("<section class=\"hist\"><h3 class=\"path\">", p->f);
		esc(p->f, s->name);
		fputs("</h3>", p->f);
		if (title) {
			fputs("<p>", p->f);
			esc(p->f, title);
			fputs("</p>", p->f);
		}
		chart(p, s, bytes);
		heatmap(p, s, bytes);
		fputs("</section>\n", p->f);
	}
}

/* A scalar as a cell: times and sizes by their key's unit; an event's
 * ts_ns as the time since the run's start */
static void cell(struct page *p, const char *k, json_t *v)
{
	size_t kl = strlen(k), i;
	char b[64];
	json_t *x;

	if (json_is_string(v)) {
		esc(p->f, json_string_value(v));
	} else if (json_is_integer(v) && !strcmp(k, "ts_ns") && p->start_s > 0) {
		double at = ((double)json_integer_value(v) + (double)json_integer_value(
			json_object_get(json_object_get(p->r->final, "layout"),
					"wall_minus_mono_ns"))) / 1e9;

		fprintf(p->f, "+%.3f s", at - p->start_s);
	} else if (json_is_integer(v) && kl > 3 && !strcmp(k + kl - 3, "_ns")) {
		fmt(b, sizeof(b), (double)json_integer_value(v), false);
		fputs(b, p->f);
	} else if (json_is_integer(v) && kl > 6 && !strcmp(k + kl - 6, "_bytes")) {
		fmt(b, sizeof(b), (double)json_integer_value(v), true);
		fputs(b, p->f);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (json_is_integer(x))
				fprintf(p->f, "%s%lld", i ? "," : "", (long long)json_integer_value(x));
	} else if (json_is_number(v)) {
		fprintf(p->f, "%g", json_number_value(v));
	} else {
		fputs(json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "-", p->f);
	}
}

static bool scalar(json_t *v)
{
	if (json_is_array(v)) {
		json_t *x = json_array_get(v, 0);

		return !x || json_is_integer(x);	/* ids */
	}
	return !json_is_object(v);
}

/* A list of objects as a table: one row per item, a column per scalar */
static void table(struct page *p, const char *name, json_t *list)
{
	const char *cols[32], *k;
	size_t nc = 0, i, c;
	json_t *item, *v;

	json_array_foreach(list, i, item)
		json_object_foreach(item, k, v) {
			for (c = 0; c < nc && strcmp(cols[c], k); c++)
				;
			if (c == nc && nc < 32 && scalar(v))
				cols[nc++] = k;
		}
	if (!nc)
		return;
	fputs("<h3 class=\"path\">", p->f);
	esc(p->f, name);
	fprintf(p->f, "</h3><table><tr>");
	for (c = 0; c < nc; c++) {
		fputs("<th>", p->f);
		esc(p->f, !strcmp(cols[c], "ts_ns") && p->start_s > 0 ? "since start" : cols[c]);
		fputs("</th>", p->f);
	}
	fputs("</tr>\n", p->f);
	json_array_foreach(list, i, item) {
		if (i == MAX_ROWS) {
			fprintf(p->f, "<tr><td colspan=\"%zu\">and %zu more (the JSON has them)"
				"</td></tr>\n", nc, json_array_size(list) - MAX_ROWS);
			break;
		}
		fputs("<tr>", p->f);
		for (c = 0; c < nc; c++) {
			fputs("<td>", p->f);
			if ((v = json_object_get(item, cols[c])))
				cell(p, cols[c], v);
			fputs("</td>", p->f);
		}
		fputs("</tr>\n", p->f);
	}
	fputs("</table>\n", p->f);
}

/* The final record's lists of objects, each a table, and its scalars
 * outside lists in one table per top-level object */
static void tables(struct page *p, json_t *v, char *name, size_t len)
{
	size_t an = strlen(name), i;
	const char *k;
	json_t *c;

	if (json_is_array(v)) {
		if (json_is_object(json_array_get(v, 0)))
			table(p, name, v);
		for (i = 0; i < json_array_size(v); i++)
			if ((c = shown_item(p, v, i, name, an, len, "")))
				tables(p, c, name, len);
	} else if (json_is_object(v) && !json_object_get(v, "buckets")) {
		json_object_foreach(v, k, c) {
			snprintf(name + an, len - an, "%s%s", an ? "." : "", k);
			if (!json_is_object(c) && !json_is_array(c))
				continue;
			tables(p, c, name, len);
		}
	}
	name[an] = '\0';
}

static void values(struct page *p, json_t *obj, const char *top)
{
	const char *k;
	json_t *v;

	fputs("<h3 class=\"path\">", p->f);
	esc(p->f, top);
	fputs("</h3><table>\n", p->f);
	json_object_foreach(obj, k, v) {
		if (!scalar(v))
			continue;
		fputs("<tr><th>", p->f);
		esc(p->f, k);
		fputs("</th><td>", p->f);
		cell(p, k, v);
		fputs("</td></tr>\n", p->f);
	}
	fputs("</table>\n", p->f);
}

static bool is_prov(const struct page *p, const char *k)
{
	json_t *fl = json_object_get(json_object_get(p->r->nodes, k), "flags");
	size_t i;
	json_t *v;

	json_array_foreach(fl, i, v)
		if (!strcmp(json_string_value(v) ? json_string_value(v) : "", "prov"))
			return true;
	return false;
}

static void provenance(struct page *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m) {
		lat_provenance_text_snap(&p->r->snap, m);
		fclose(m);
	}
	fputs("<h2>Provenance</h2><pre>", p->f);
	esc(p->f, text);
	fputs("</pre>\n", p->f);
	free(text);
}

/* run.start, "2026-11-24T07:25:29.653Z", as epoch seconds; 0 if not one */
static double start_of(json_t *final)
{
	const char *s = json_string_value(json_object_get(json_object_get(final, "run"),
							  "start"));
	struct tm tm = { 0 };
	const char *rest;
	int ms = 0;

	if (!s || !(rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return 0;
	if (sscanf(rest, ".%3dZ", &ms) != 1)
		ms = 0;
	return (double)timegm(&tm) + ms / 1000.0;
}

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:1em 2em;color:#222;background:#fafafa}"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
	"h3.path{font:bold 14px monospace;margin:1.2em 0 .3em}"
	"pre{background:#fff;border:1px solid #ddd;padding:.5em;white-space:pre-wrap}"
	"svg{display:block;border:1px solid #ddd;margin:.3em 0}"
	"svg text{font:11px sans-serif;fill:#444}"
	"table{border-collapse:collapse;background:#fff;margin:.3em 0}"
	"td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;font-size:12px}"
	"th{background:#f0f0f0}.none{color:#888}";

int lat_report_html(FILE *f, const struct lat_saved_run *r)
{
	struct page p = { .f = f, .r = r, .start_s = start_of(r->final) };
	char name[512] = "", lpath[512] = "";
	const char *k;
	size_t i;
	json_t *v;

	p.t = calloc(r->n_iv + 1, sizeof(*p.t));
	if (!p.t)
		return -ENOMEM;
	for (i = 0; i < r->n_iv; i++) {
		p.t[i] = json_number_value(json_object_get(json_object_get(r->iv[i], "run"),
							   "duration_s"));
		collect(&p, r->iv[i], name, lpath, sizeof(name), i);
	}
	collect(&p, r->final, name, lpath, sizeof(name), r->n_iv);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>latbpf report</title><style>%s</style></head><body>\n"
		"<h1>latbpf report: ", css);
	esc(f, r->path);
	fputs("</h1>\n", f);
	provenance(&p);
	shares(&p);
	histograms(&p);
	fputs("<h2>Tables</h2>\n", f);
	json_object_foreach(r->final, k, v) {
		if (!json_is_object(v) || is_prov(&p, k) || !strcmp(k, "layout"))
			continue;
		values(&p, v, k);
		snprintf(name, sizeof(name), "%s", k);
		tables(&p, v, name, sizeof(name));
	}
	fputs("</body></html>\n", f);
	for (i = 0; i < p.n; i++) {
		free(p.s[i].name);
		free(p.s[i].lpath);
		free(p.s[i].h);
	}
	free(p.s);
	free(p.t);
	return ferror(f) ? -EIO : 0;
}

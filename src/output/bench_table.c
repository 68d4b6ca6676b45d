// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf bench's results as text (bench_table.h): the clock, a row in ns
 * and one in cycles per result (and the spread across runs), and how each
 * was measured. Read from a snapshot: the bench's own, a trace's
 * "baseline", or a saved run's, which is untrusted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/bench_table.h"
#include "core/escape.h"
#include "core/fmt.h"
#include "core/hist.h"
#include "core/snap.h"

/* the counter's ticks at hz, in ns */
static __u64 ticks_to_ns(double ticks, double hz)
{
	return hz > 0 ? (__u64)(ticks * 1e9 / hz + 0.5) : 0;
}

const double lat_bench_cols[LAT_BENCH_COLS] = { 50, 90, 99, 99.9, 101 /* max */ };
const char *const lat_bench_col_names[LAT_BENCH_COLS] = { "p50", "p90", "p99", "p99.9",
							   "max" };

static double real_of(const struct lat_node *obj, const char *key)
{
	const struct lat_node *n = lat_snap_find(obj, key);

	if (!n)
		return 0;
	return n->kind == LAT_REAL ? n->v.real : n->kind == LAT_NUM ? (double)n->v.num : 0;
}

/* a string member for the table, escaped: a saved run (latbpf report) is
 * untrusted; four live at once */
static const char *str_of(const struct lat_node *obj, const char *key)
{
	static char buf[4][1024];
	static int k;
	const struct lat_node *n = lat_snap_find(obj, key);

	if (!n || n->kind != LAT_STR || !n->v.str)
		return NULL;
	k = (k + 1) % 4;
	lat_term_str(buf[k], sizeof(buf[k]), n->v.str);
	return buf[k];
}

static void clock_text(FILE *f, const struct lat_node *k)
{
	const struct lat_node *flags = lat_snap_find(k, "flags"), *n, *cpuid;
	const char *fallback = str_of(k, "fallback");
	double hz = real_of(k, "hz"), khz = real_of(k, "kernel_hz");
	char a[32], b[32], fl[256] = "";
	size_t l = 0;

	if (!k)
		return;
	if (fallback) {
		fprintf(f, "clock: clock_gettime(CLOCK_MONOTONIC), NOT the counter: %s\n",
			fallback);
		return;
	}
	for (n = flags ? flags->child : NULL; n && l + 32 < sizeof(fl); n = n->next)
		if (n->kind == LAT_STR && n->v.str) {
			char e[64];

			lat_term_str(e, sizeof(e), n->v.str);
			l += (size_t)snprintf(fl + l, sizeof(fl) - l, "%s%s", l ? " " : "", e);
		}
	fprintf(f, "clock: %s at %.6f MHz", str_of(k, "source"), hz / 1e6);
	if (khz > 0)
		fprintf(f, " (kernel: %.3f MHz, %+.0f ppm)", khz / 1e6, (hz - khz) / khz * 1e6);
	n = lat_snap_find(k, "invariant");
	cpuid = lat_snap_find(k, "cpuid_invariant");
	fprintf(f, ", %s (%s%s), %.0f windows of %.0f ms, spread %.1f ppm\n",
		n && n->v.b ? "invariant" : "NOT invariant", fl,
		cpuid && cpuid->v.b ? "; CPUID invariant bit" : "",
		real_of(k, "windows"), real_of(k, "window_ns") / 1e6, real_of(k, "spread_ppm"));
	lat_fmt_ns(a, sizeof(a), (__u64)real_of(k, "skew_err_ns"));
	if (lat_snap_find(k, "skew_cpu"))
		fprintf(f, "cores: largest counter offset %+.0f ns on cpu %.0f (within +-%s)\n",
			real_of(k, "skew_ns"), real_of(k, "skew_cpu"), a);
	lat_fmt_ns(b, sizeof(b), ticks_to_ns((__u64)real_of(k, "overhead_ticks"), hz));
	fprintf(f, "timing: an empty timed region costs %.0f ticks (%s); every timing "
		"subtracts it\n", real_of(k, "overhead_ticks"), b);
}

static void fmt_cell(char *b, size_t n, const struct lat_hist *h, double pct, bool ns)
{
	__u64 v = pct > 100 ? h->max : lat_hist_percentile(h, pct);

	if (ns)
		lat_fmt_ns(b, n, v);
	else
		snprintf(b, n, "%llu", (unsigned long long)v);
	if (pct <= 100 && lat_hist_too_few(h, pct))
		strncat(b, "*", n - strlen(b) - 1);
}

void lat_bench_fmt_value(char *b, size_t n, double v, bool ns)
{
	if (ns && v >= 0 && v < 1.8e19)
		lat_fmt_ns(b, n, (__u64)(v + 0.5));
	else
		snprintf(b, n, "%.0f", v);
}

/* The median across runs, starred as fmt_cell stars */
static void fmt_median(char *b, size_t n, const struct lat_node *p, bool ns)
{
	const struct lat_node *few = lat_snap_find(p, "few");

	lat_bench_fmt_value(b, n, real_of(p, "median"), ns);
	if (few && few->v.b)
		strncat(b, "*", n - strlen(b) - 1);
}

/* The runs' lowest and highest against their median: "-3..+5%" */
static void fmt_spread(char *b, size_t n, const struct lat_node *p)
{
	double m = real_of(p, "median"), lo = real_of(p, "min"), hi = real_of(p, "max");

	if (m <= 0) {
		snprintf(b, n, "%s", hi > 0 ? "0..inf" : "0");
		return;
	}
	lo = (lo / m - 1) * 100;
	hi = (hi / m - 1) * 100;
	snprintf(b, n, "%+.0f..%+.0f%%", lo, hi > 999 ? 999 : hi);
}

/* The clock, then a row in ns and a row in cycles per result, of an object
 * holding "tsc" and "results" (a bench's snapshot, or a baseline). */
void lat_bench_table(FILE *f, const struct lat_node *bench)
{
	const struct lat_node *res = lat_snap_find(bench, "results"), *r;
	bool starred = false;
	char b[32];

	clock_text(f, lat_snap_find(bench, "tsc"));
	fprintf(f, "%-24s %-6s %9s %9s %9s %9s %9s %9s\n", "result", "unit", "samples",
		"p50", "p90", "p99", "p99.9", "max");
	for (r = res ? res->child : NULL; r; r = r->next) {
		const struct lat_node *runs = lat_snap_find(r, "runs");

		for (int row = 0; row < 3; row++) {
			const struct lat_node *hn = lat_snap_find(r, row == 1 ? "cycles" : "hist");
			const struct lat_hist *h = hn && hn->kind == LAT_HIST &&
				!(hn->flags & LAT_F_PACKED) ? hn->v.h.run : NULL;
			/* with runs: the medians, then the spread in ns */
			const struct lat_node *rk = runs && row == 1 ?
				lat_snap_find(runs, "cycles") : runs;

			if (!h || (row == 2 && !runs))
				continue;
			const char *unit = str_of(r, "unit");
			bool ns = !unit || !strcmp(unit, "ns");

			if (row == 0)
				fprintf(f, "%-24s %-6s %9llu", str_of(r, "name"), ns ? "ns" : unit,
					(unsigned long long)h->count);
			else if (row == 1)
				fprintf(f, "%-24s %-6s %9s", "", "cycles", "");
			else
				fprintf(f, "%-24s %-6s %9s", "", "spread", "");
			for (int k = 0; k < LAT_BENCH_COLS; k++) {
				const struct lat_node *p = rk ?
					lat_snap_find(rk, lat_bench_col_names[k]) : NULL;

				if (!h->count) {
					fprintf(f, " %9s", "-");
					continue;
				}
				if (row == 2)
					fmt_spread(b, sizeof(b), p);
				else if (p)
					fmt_median(b, sizeof(b), p, row == 0 && ns);
				else
					fmt_cell(b, sizeof(b), h, lat_bench_cols[k], row == 0 && ns);
				starred |= strchr(b, '*') != NULL;
				fprintf(f, " %9s", b);
			}
			fputc('\n', f);
		}
	}
	if (starred)
		fputs("* fewer than 10 samples beyond this percentile: read it as the max\n", f);
	if (res && res->child && lat_snap_find(res->child, "runs"))
		fprintf(f, "each percentile is the median of %.0f runs; spread: the lowest and "
			"highest run against it\n",
			real_of(lat_snap_find(res->child, "runs"), "n"));
}

void lat_bench_methods(FILE *f, const struct lat_node *res)
{
	const struct lat_node *r, *ok;
	const char *note;
	char safe[LAT_BENCH_NOTE_MAX * 4];

	fputs("\nhow each was measured (cycles are TSC ticks):\n", f);
	for (r = res ? res->child : NULL; r; r = r->next) {
		fprintf(f, "  %-24s %s", str_of(r, "name"), str_of(r, "method"));
		if (real_of(r, "batch") > 1)
			fprintf(f, "; %.0f per timed region, per operation shown",
				real_of(r, "batch"));
		if (lat_snap_find(r, "total_mb_s"))
			fprintf(f, "; MB/s per timed block shown; in all: %.0f MB/s",
				real_of(r, "total_mb_s"));
		fputc('\n', f);
		ok = lat_snap_find(r, "ok");
		/* a note can quote --dir */
		if ((note = str_of(r, "note")))
			fprintf(f, "  %-24s %s%s\n", "", ok && !ok->v.b ? "WARNING: " : "",
				lat_term_arg(safe, sizeof(safe), note));
		if ((note = str_of(r, "quarantine")))
			fprintf(f, "  %-24s QUARANTINED: %s\n", "", note);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf bench compare [--force] A.json B.json: B against A, per result and
 * per percentile, judged against the spread across runs. A regression is
 * B's median beyond A's worst run by more than 10 % of A's median (and 1
 * ns), with even B's best run beyond A's worst: the two spreads apart. A
 * bandwidth regresses downwards.
 *
 * A regression is judged only between clean runs (the run protocol's
 * rule): when a result to compare is quarantined in A or B (its
 * environment check or hiccup meter distrusts it), compare says which file
 * and why and compares nothing, unless --force asks it to; then every line
 * of such a result says it is forced. A result measured differently in A
 * and B (its method line differs: membw's working set follows where the
 * host's caches end) is not compared either. The files come from
 * anywhere: read with jansson (core/jsonfile.h), every string printed
 * escaped.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "bench/bench.h"
#include "core/escape.h"
#include "core/hist.h"
#include "core/jsonfile.h"
#include "output/bench_table.h"

#define PROG "latbpf bench compare"

struct side {
	const char *label;	/* "A", "B" */
	const char *path;
	json_t *doc, *results;
	int quarantined;	/* of the results both files hold */
};

/* FILE as a bench's JSON: 0, or -EINVAL after saying why not */
static int load(struct side *s)
{
	struct lat_jsonfile j;
	int err = lat_jsonfile_open(&j, PROG, s->path, "report");

	if (!err && !(s->doc = lat_jsonfile_whole(&j)))
		err = -EINVAL;
	s->results = json_object_get(s->doc, "results");
	if (!err && (!json_is_array(s->results) || !json_is_object(json_object_get(s->doc, "tsc"))))
		err = lat_jsonfile_refuse(&j, 0, "not the JSON of latbpf bench --json (no "
					  "\"results\" list and \"tsc\" object)");
	lat_jsonfile_close(&j);
	return err;
}

static bool num(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return false;
	*out = json_number_value(v);
	return true;
}

static const char *rname(json_t *r)
{
	return json_string_value(json_object_get(r, "name"));
}

static json_t *find(json_t *results, const char *name)
{
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
		if (rname(r) && !strcmp(rname(r), name))
			return r;
	return NULL;
}

static const char *quarantine(json_t *r)
{
	return json_string_value(json_object_get(r, "quarantine"));
}

/* One result's column in one file: the median across runs and the lowest
 * and highest run (all three the single run's value without runs) */
struct col {
	double median, lo, hi;
	bool few;
};

static bool read_col(json_t *r, int k, struct col *c)
{
	const char *name = lat_bench_col_names[k];
	json_t *p = json_object_get(json_object_get(r, "runs"), name);
	double count = 0;

	if (p) {
		c->few = json_is_true(json_object_get(p, "few"));
		return num(p, "median", &c->median) && num(p, "min", &c->lo) &&
		       num(p, "max", &c->hi);
	}
	/* a single run: its histogram's own figure, and its own count for
	 * whether 10 samples lie beyond it */
	if (!num(json_object_get(r, "hist"), name, &c->median))
		return false;
	num(json_object_get(r, "hist"), "count", &count);
	c->few = k < LAT_BENCH_COLS - 1 && lat_too_few(count, lat_bench_cols[k]);
	c->lo = c->hi = c->median;
	return true;
}

/* Count the results both files hold that each has quarantined */
static void count_quarantined(struct side *a, struct side *b)
{
	size_t i;
	json_t *r, *s;

	json_array_foreach(a->results, i, r) {
		if (!rname(r) || !(s = find(b->results, rname(r))))
			continue;
		a->quarantined += quarantine(r) != NULL;
		b->quarantined += quarantine(s) != NULL;
	}
}

/* "B (b.json) is quarantined: N of the results to compare", then each
 * distinct reason once */
static void say_quarantined(const struct side *s, const struct side *other)
{
	char q[LAT_ARG_MAX], why[1024];
	size_t i, j;
	json_t *r, *p;

	if (!s->quarantined)
		return;
	printf("%s (%s) is quarantined: %d of the results to compare\n", s->label,
	       lat_term_arg(q, sizeof(q), s->path), s->quarantined);
	json_array_foreach(s->results, i, r) {
		const char *w = quarantine(r);
		bool seen = false;

		if (!w || !rname(r) || !find(other->results, rname(r)))
			continue;
		json_array_foreach(s->results, j, p) {
			if (j >= i)
				break;
			seen |= quarantine(p) && !strcmp(quarantine(p), w) && rname(p) &&
				find(other->results, rname(p));
		}
		if (seen)
			continue;
		lat_term_str(why, sizeof(why), w);
		printf("  %s\n", why);
	}
}

struct tally {
	int flagged, compared, forced, differ;
};

/* The same measurement in both: a working set sized by the host (membw's
 * by where its caches end) can differ between two runs, and two sizes are
 * two benchmarks. A file without methods is taken at its word. */
static bool same_method(json_t *r, json_t *s)
{
	const char *a = json_string_value(json_object_get(r, "method"));
	const char *b = json_string_value(json_object_get(s, "method"));

	return !a || !b || !strcmp(a, b);
}

/* The five lines of one result, B's against A's */
static void compare_result(json_t *r, json_t *s, const char *forced, struct tally *t)
{
	const char *unit = json_string_value(json_object_get(r, "unit"));
	bool ns = !unit || strcmp(unit, "MB/s") != 0;
	char n1[32], n2[32], n3[32], n4[32], q[LAT_ARG_MAX];

	lat_term_arg(q, sizeof(q), rname(r));
	for (int k = 0; k < LAT_BENCH_COLS; k++) {
		struct col ca, cb;
		const char *verdict = "ok";
		double margin, pct;

		if (!read_col(r, k, &ca) || !read_col(s, k, &cb))
			continue;
		margin = 0.10 * ca.median + (ns ? 1 : 0);
		pct = ca.median > 0 ? (cb.median / ca.median - 1) * 100 : 0;
		if (k == LAT_BENCH_COLS - 1)
			verdict = "(the max: one sample, not judged)";
		else if (ca.few || cb.few)
			verdict = "(too few samples, not judged)";
		else if (ns ? cb.median > ca.hi + margin && cb.lo > ca.hi :
			      cb.median < ca.lo - margin && cb.hi < ca.lo)
			verdict = "REGRESSED", t->flagged++, t->forced += *forced != 0;
		else if (ns ? cb.median < ca.lo - margin && cb.hi < ca.lo :
			      cb.median > ca.hi + margin && cb.lo > ca.hi)
			verdict = "better";
		if (k < LAT_BENCH_COLS - 1 && !ca.few && !cb.few)
			t->compared++;
		lat_bench_fmt_value(n1, sizeof(n1), ca.median, ns);
		lat_bench_fmt_value(n2, sizeof(n2), ca.lo, ns);
		lat_bench_fmt_value(n3, sizeof(n3), ca.hi, ns);
		lat_bench_fmt_value(n4, sizeof(n4), cb.median, ns);
		printf("%-24s %-6s %10s %10s..%-10s %10s %+7.1f%%  %s%s\n", k ? "" : q,
		       lat_bench_col_names[k], n1, n2, n3, n4, pct, verdict, forced);
	}
}

/* Every result of A against B's of the same name, and those in one only */
static void compare_all(const struct side *a, const struct side *b, struct tally *t)
{
	char q[LAT_ARG_MAX];
	size_t i;
	json_t *r, *s;

	printf("%-24s %-6s %10s %22s %10s %8s  %s\n", "result", "pct", "A median",
	       "A runs min..max", "B median", "B vs A", "verdict");
	json_array_foreach(a->results, i, r) {
		const char *forced;

		if (!rname(r))
			continue;
		if (!(s = find(b->results, rname(r)))) {
			printf("%-24s only in A\n", lat_term_arg(q, sizeof(q), rname(r)));
			continue;
		}
		if (!same_method(r, s)) {
			printf("%-24s not compared: measured differently (A's and B's \"method\" "
			       "differ)\n", lat_term_arg(q, sizeof(q), rname(r)));
			t->differ++;
			continue;
		}
		forced = quarantine(r) ? quarantine(s) ? "  FORCED (A and B quarantined)" :
			 "  FORCED (A quarantined)" : quarantine(s) ? "  FORCED (B quarantined)" : "";
		compare_result(r, s, forced, t);
	}
	json_array_foreach(b->results, i, s)
		if (rname(s) && !find(a->results, rname(s)))
			printf("%-24s only in B\n", lat_term_arg(q, sizeof(q), rname(s)));
}

static int usage(void)
{
	fprintf(stderr, "usage: latbpf bench compare [--force] A.json B.json\n"
		"  B against A: per result and percentile, B's median across runs "
		"against A's min..max\n");
	return -EINVAL;
}

int lat_bench_compare(int argc, char **argv)
{
	struct side a = { .label = "A" }, b = { .label = "B" };
	struct tally t = { 0 };
	bool force = false;
	int err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			force = true;
		else if (argv[i][0] == '-' || (a.path && b.path))
			return usage();
		else
			*(a.path ? &b.path : &a.path) = argv[i];
	}
	if (!b.path)
		return usage();
	err = load(&a);
	if (!err)
		err = load(&b);
	if (err)
		goto out;
	count_quarantined(&a, &b);
	say_quarantined(&a, &b);
	say_quarantined(&b, &a);
	if ((a.quarantined || b.quarantined) && !force) {
		printf("not compared: a regression is judged only between clean runs "
		       "(--force compares them anyway)\n");
		err = LAT_BENCH_QUARANTINED;
		goto out;
	}
	compare_all(&a, &b, &t);
	printf("%d of %d compared percentiles regressed beyond A's spread (+10%%, B's best "
	       "run beyond A's worst)\n", t.flagged, t.compared);
	if (t.differ)
		printf("%d result(s) measured differently in A and B, not compared\n", t.differ);
	if (a.quarantined || b.quarantined)
		printf("FORCED: results the environment check quarantined were compared (%d "
		       "regressed): the host, not the build, may be the cause\n", t.forced);
	err = t.flagged ? LAT_BENCH_REGRESSED : 0;
out:
	json_decref(a.doc);
	json_decref(b.doc);
	return err;
}

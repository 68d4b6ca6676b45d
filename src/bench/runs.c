// SPDX-License-Identifier: GPL-2.0
/* The run protocol's shared steps (runs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/runs.h"
#include "bench/benchmarks.h"
#include "bench/result.h"
#include "core/hist.h"

int lat_bench_run_one(struct lat_bctx *c, const struct lat_bench_def *d, __u64 budget)
{
	int err, first = c->nres;
	__u64 t = lat_now_ns();

	c->budget_ns = budget;
	c->deadline = t + budget;
	err = d->run(c);
	for (int i = first; i < c->nres; i++) {
		c->res[i]->t_start = t;
		c->res[i]->t_end = lat_now_ns();
		c->res[i]->bench = d->name;
		c->res[i]->group = d->group;
	}
	if (!err)
		return 0;
	lat_bench_note("%s: stopped on an error: %s", d->name, strerror(-err));
	fprintf(stderr, "latbpf bench: %s: stopped on an error: %s\n", d->name, strerror(-err));
	return -EIO;
}

double lat_bench_median(__u64 *v, int n)
{
	if (n <= 0)
		return 0;
	for (int i = 1; i < n; i++)	/* a handful of runs: insertion sort */
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			__u64 t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* A later run's result into the merged one: histograms added, checks
 * summed (a level, such as a knee, keeps the largest), the first note */
static void add_run(struct lat_bres *m, const struct lat_bres *r)
{
	lat_hist_merge(&m->ns, &r->ns);
	lat_hist_merge(&m->ticks, &r->ticks);
	m->total_mb_s += r->total_mb_s;
	if (!m->check_level) {
		m->expected += r->expected;
		m->observed += r->observed;
	} else if (r->observed > m->observed) {
		m->observed = r->observed;	/* the largest knee */
	}
	m->failed |= r->failed;
	if (!m->note[0])
		memcpy(m->note, r->note, sizeof(m->note));
	m->t_end = r->t_end;
	m->nruns++;
}

static __u64 col_value(const struct lat_hist *h, int k)
{
	return lat_bench_cols[k] > 100 ? h->max : lat_hist_percentile(h, lat_bench_cols[k]);
}

/* Per column of m, in ns [0] and ticks [1]: the median, lowest and highest
 * of the runs' figures (v: room for them) */
static void spread(struct lat_bres *m, const struct lat_bctx *c, int runs, __u64 *v)
{
	for (int u = 0; u < 2; u++)
		for (int k = 0; k < LAT_BENCH_COLS; k++) {
			struct lat_brun *p = &m->runs[u][k];
			int n = 0;

			p->few = false;
			for (int i = 0; i < c->nres && n < runs; i++) {
				const struct lat_bres *r = c->res[i];
				const struct lat_hist *h = u ? &r->ticks : &r->ns;

				if (strcmp(r->name, m->name) || !h->count)
					continue;
				v[n++] = col_value(h, k);
				p->few |= lat_bench_cols[k] <= 100 &&
					  lat_hist_too_few(h, lat_bench_cols[k]);
			}
			p->median = lat_bench_median(v, n);
			p->lo = n ? v[0] : 0;
			p->hi = n ? v[n - 1] : 0;
		}
}

/* A result a run did not produce (it stopped on an error) counts in fewer
 * runs; the bandwidth total is the runs' mean. */
int lat_bench_merge_runs(const struct lat_bctx *c, int runs, struct lat_bctx *out)
{
	__u64 *v = calloc((size_t)runs + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < c->nres; i++) {
		struct lat_bres *r = c->res[i], *m = NULL;

		for (int j = 0; j < out->nres && !m; j++)
			if (!strcmp(out->res[j]->name, r->name))
				m = out->res[j];
		if (m) {
			add_run(m, r);
			continue;
		}
		m = lat_bres_new(out, r->name, r->method, r->batch);
		if (!m) {
			free(v);
			return -ENOMEM;
		}
		*m = *r;
		m->nruns = 1;
	}
	for (int j = 0; j < out->nres; j++) {
		out->res[j]->total_mb_s /= out->res[j]->nruns;
		spread(out->res[j], c, runs, v);
	}
	free(v);
	return 0;
}

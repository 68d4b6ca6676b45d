// SPDX-License-Identifier: GPL-2.0
/* latbpf bench's results into a snapshot (publish.h). */
#include <stdio.h>
#include <string.h>
#include "bench/publish.h"
#include "bench/result.h"
#include "core/snap.h"

void lat_bench_publish_clock(struct lat_snap *s, const struct lat_bclock *k)
{
	char *tok, *save, flags[256];

	lat_pub_obj(s, "tsc", "clock");
	lat_pub_str(s, "source", k->source);
	lat_pub_bool(s, "invariant", k->invariant);
	lat_pub_bool(s, "cpuid_invariant", k->cpuid_invariant);
	lat_pub_list(s, "flags", NULL);
	snprintf(flags, sizeof(flags), "%s", k->flags);
	for (tok = strtok_r(flags, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		lat_pub_str(s, NULL, tok);
	lat_pub_end(s);
	lat_pub_real(s, "hz", k->hz, 0);
	lat_pub_real(s, "kernel_hz", k->kernel_hz, 0);
	lat_pub_real(s, "spread_ppm", k->spread_ppm, 3);
	lat_pub_num(s, "windows", k->windows);
	lat_pub_num(s, "window_ns", (long long)k->window_ns);
	if (k->skew_cpu >= 0) {
		lat_pub_num(s, "skew_ns", k->skew_ns);
		lat_pub_num(s, "skew_err_ns", (long long)k->skew_err_ns);
		lat_pub_num(s, "skew_cpu", k->skew_cpu);
	} else {
		lat_pub_null(s, "skew_ns");
	}
	lat_pub_num(s, "overhead_ticks", (long long)k->overhead);
	lat_pub_str(s, "fallback", k->fallback[0] ? k->fallback : NULL);
	lat_pub_end(s);
}

/* "runs": {"n": 5, "p50": {"median", "min", "max", "few"}, ..., "cycles":
 * {the same in ticks}} */
static void publish_runs(struct lat_snap *s, const struct lat_bres *r)
{
	lat_pub_obj(s, "runs", NULL);
	lat_pub_num(s, "n", r->nruns);
	for (int u = 0; u < 2; u++) {
		if (u)
			lat_pub_obj(s, "cycles", NULL);
		for (int k = 0; k < LAT_BENCH_COLS; k++) {
			const struct lat_brun *p = &r->runs[u][k];

			lat_pub_obj(s, lat_bench_col_names[k], NULL);
			lat_pub_real(s, "median", p->median, 1);
			lat_pub_num(s, "min", (long long)p->lo);
			lat_pub_num(s, "max", (long long)p->hi);
			lat_pub_bool(s, "few", p->few);
			lat_pub_end(s);
		}
		if (u)
			lat_pub_end(s);
	}
	lat_pub_end(s);
}

void lat_bench_publish_results(struct lat_snap *s, struct lat_bres **res, int n)
{
	lat_pub_list(s, "results", "results");
	for (int i = 0; i < n; i++) {
		const struct lat_bres *r = res[i];
		struct lat_node *c;

		lat_pub_item(s, true, true);
		lat_pub_str(s, "name", r->name);
		lat_pub_str(s, "method", r->method);
		lat_pub_num(s, "batch", r->batch);
		lat_pub_str(s, "unit", r->mb_s ? "MB/s" : "ns");
		if (r->mb_s)
			lat_pub_real(s, "total_mb_s", r->total_mb_s, 0);
		lat_pub_hist(s, "hist", NULL, &r->ns, NULL);
		c = lat_pub_hist(s, "cycles", NULL, &r->ticks, NULL);
		if (c)
			c->unit = LAT_UNIT_TICKS;
		if (r->note[0])
			lat_pub_str(s, "note", r->note);
		if (r->check) {
			lat_pub_obj(s, "check", NULL);
			lat_pub_str(s, "counter", r->check);
			lat_pub_num(s, "expected", r->expected);
			lat_pub_num(s, "observed", r->observed);
			lat_pub_end(s);
		}
		if (r->nruns > 1)
			publish_runs(s, r);
		if (r->quarantine[0])
			lat_pub_str(s, "quarantine", r->quarantine);
		lat_pub_bool(s, "ok", !r->failed);
		lat_pub_end(s);
	}
	lat_pub_end(s);
}

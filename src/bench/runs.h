/* SPDX-License-Identifier: GPL-2.0 */
/* The run protocol's steps that the driver and a trace's --baseline share:
 * one benchmark run for its time, and the runs of a result merged into one
 * with its spread. */
#ifndef LATBPF_BENCH_RUNS_H
#define LATBPF_BENCH_RUNS_H

#include <linux/types.h>

struct lat_bctx;
struct lat_bench_def;

/* d for budget ns, its results stamped with their time and benchmark: 0,
 * or -EIO when it stopped on an error (said on stderr and in the notes):
 * never -EINVAL, which would read as a usage error */
int lat_bench_run_one(struct lat_bctx *c, const struct lat_bench_def *d, __u64 budget);
/* The results of all runs, in c->res in run order, into one result per
 * name in out: 0 or -ENOMEM */
int lat_bench_merge_runs(const struct lat_bctx *c, int runs, struct lat_bctx *out);
/* the median of v[0..n) (sorts v): the middle one, or the mean of the two */
double lat_bench_median(__u64 *v, int n);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf bench's results go through the output layer like a trace's:
 * published into a snapshot, which the JSON sink writes and the bench
 * table (output/bench_table.h) reads. */
#ifndef LATBPF_BENCH_PUBLISH_H
#define LATBPF_BENCH_PUBLISH_H

struct lat_snap;
struct lat_bclock;
struct lat_bres;

/* "tsc": {"source", "invariant", ..., "fallback"} */
void lat_bench_publish_clock(struct lat_snap *s, const struct lat_bclock *k);
/* "results": [{"name", "method", "batch", "unit", "hist", "cycles", ...}] */
void lat_bench_publish_results(struct lat_snap *s, struct lat_bres **res, int n);

#endif

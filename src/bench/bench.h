/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latbpf bench as the rest of latbpf sees it (main.c, the tests): the
 * command, its parser, bench compare, and the short host baseline a trace
 * report can carry. The benchmarks, their library and the driver are in
 * this folder: docs/internals.md draws them.
 */
#ifndef LATBPF_BENCH_H
#define LATBPF_BENCH_H

struct lat_snap;

/* latbpf bench ... (argv[1] is "bench"): 0, -EINVAL for a usage error
 * (said), another negative errno when a benchmark stopped on an error or an
 * output could not be written; `bench compare`: its own codes below */
int lat_bench_main(int argc, char **argv);
/* its options only, as lat_bench_main reads them; runs nothing: 0, or
 * -EINVAL with the message said (tests/unit/test_fuzz_opts.c) */
int lat_bench_parse(int argc, char **argv);

/* compare.c: latbpf bench compare [--force] A.json B.json (argv[0] is
 * "compare"): 0, LAT_BENCH_REGRESSED, LAT_BENCH_QUARANTINED (a result to
 * compare is quarantined in A or B, and no --force: nothing compared), or
 * -EINVAL (usage, unreadable or not a bench's JSON). main.c makes them exit
 * 0, 1, 3 and 2. */
#define LAT_BENCH_REGRESSED 1
#define LAT_BENCH_QUARANTINED 2
int lat_bench_compare(int argc, char **argv);

/* A short host baseline (< 1 s) for a trace report: run before attaching,
 * reported at the end. */
struct lat_baseline;
struct lat_baseline *lat_baseline_run(const char *cpuinfo_flags);
void lat_baseline_publish(const struct lat_baseline *b, struct lat_snap *s);
void lat_baseline_free(struct lat_baseline *b);

#endif

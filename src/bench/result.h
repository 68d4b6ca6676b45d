/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latbpf bench's result library: what every benchmark file depends on, and
 * nothing else of bench (as perf's bench/ files depend on bench.h, never on
 * the driver). A benchmark is given a context (where to run, for how long)
 * and adds results to it: one distribution per operation, in ns and in
 * ticks of the clock (clock.h), or MB/s per timed block for a bandwidth.
 */
#ifndef LATBPF_BENCH_RESULT_H
#define LATBPF_BENCH_RESULT_H

#include <stdbool.h>
#include "bench/clock.h"
#include "latbpf/hist.h"
#include "output/bench_table.h"

/* One result: a distribution per operation, in ns and in ticks; or, for a
 * bandwidth (mb_s), per timed block in MB/s and in ticks, and the total. */
struct lat_bres {
	char name[40];		/* stable: scripts key on it */
	const char *method;
	__u32 batch;		/* operations per timed region */
	struct lat_hist ns, ticks;	/* ns: MB/s when mb_s */
	bool mb_s;
	double total_mb_s;	/* all bytes over the whole (wall) time */
	char note[LAT_BENCH_NOTE_MAX];	/* what the reader must know, or "" */
	bool failed;		/* the result is not what it claims (see note) */
	/* a count the kernel keeps, against what the benchmark expected */
	const char *check;	/* e.g. "ru_majflt", or NULL */
	__s64 expected, observed;
	bool check_level;	/* a size, not a count: runs are not added up */
	const char *bench, *group;	/* the benchmark that made it */
	char quarantine[480];	/* why the environment check distrusts it, or "" */
	/* when the run was (lat_now_ns), for the .hlog interval */
	__u64 t_start, t_end;
	/* across --runs: per column (p50 p90 p99 p99.9 max), in ns (or MB/s)
	 * [0] and ticks [1], the median, lowest and highest run */
	int nruns;
	struct lat_brun {
		double median;
		__u64 lo, hi;
		bool few;	/* some run had too few samples for it */
	} runs[2][LAT_BENCH_COLS];
};

/* What a benchmark is given (inputs), and the results it adds */
struct lat_bctx {
	__u64 budget_ns;	/* this benchmark's time, in this run */
	int runs;		/* of them: budget_ns x runs is its whole time */
	__u64 deadline;		/* lat_now_ns() value it must end by */
	int cpu;		/* where one-core benchmarks run */
	int cpus[256], ncpus;	/* the hiccup meter's cores */
	__u64 interval_ns;	/* the hiccup meter's sleep */
	const char *dir;	/* for the file benchmarks' files */
	struct lat_bres **res;
	int nres, cap;
};

/* A new result in c (NULL when out of memory: the add functions take it) */
struct lat_bres *lat_bres_new(struct lat_bctx *c, const char *name,
			      const char *method, __u32 batch);
void lat_bres_add(struct lat_bres *r, __u64 ticks);	/* one timed region */
void lat_bres_add_ticks(struct lat_bres *r, __u64 ticks);	/* one op, as is */
void lat_bres_add_ns(struct lat_bres *r, __u64 ns);	/* a value in ns */
/* a timed block of `bytes` that took `ticks` (the empty region not yet
 * taken off), into a bandwidth result: MB/s */
void lat_bres_add_block(struct lat_bres *r, __u64 ticks, __u64 bytes);
/* Per operation: a region's ticks less the empty region's, over the batch */
__u64 lat_bench_per_op(__u64 ticks, __u64 overhead, __u32 batch);
/* Enough: max samples taken, or the time is up (after at least one) */
bool lat_bench_over(const struct lat_bctx *c, __u64 samples, __u64 max);
void lat_bench_free_results(struct lat_bctx *c);

/* A note printed under the table and listed in the JSON, once however
 * often it is said; the driver reads and drops them */
void lat_bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int lat_bench_nnotes(void);
const char *lat_bench_note_at(int i);
void lat_bench_notes_free(void);

#endif

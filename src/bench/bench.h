/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latbpf bench: the host's own costs measured from user space with the
 * time-stamp counter (x86 TSC, arm64 generic timer), reported as the same
 * histograms the probes fill. One file per group of benchmarks; run.c holds
 * the list, the options and the output.
 */
#ifndef LATBPF_BENCH_H
#define LATBPF_BENCH_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "core/snap.h"

/* The clock every benchmark times with. When the counter cannot be trusted
 * (not invariant, unknown architecture, or LATBPF_BENCH_CLOCK=clock_gettime)
 * ticks are CLOCK_MONOTONIC nanoseconds and hz is 1e9. */
struct lat_bclock {
	const char *source;	/* "tsc", "cntvct", "clock_gettime" */
	bool counter;		/* reading the counter, not clock_gettime */
	bool invariant;		/* the counter's rate is constant */
	bool cpuid_invariant;	/* x86: CPUID 0x80000007 EDX[8] */
	char flags[256];	/* x86: constant_tsc nonstop_tsc ... from cpuinfo */
	double hz;		/* calibrated ticks per second */
	double kernel_hz;	/* the kernel's own figure, 0 if unknown */
	double spread_ppm;	/* (max - min) / median over the windows */
	int windows;
	__u64 window_ns;
	__s64 skew_ns;		/* largest cross-core offset (signed) */
	__u64 skew_err_ns;	/* its uncertainty: half the best round trip */
	int skew_cpu;		/* the CPU with that offset, -1: not measured */
	__u64 overhead;		/* ticks of an empty timed region, subtracted */
	char fallback[160];	/* why clock_gettime is used, or "" */
};
extern struct lat_bclock lat_bclock;

static inline __u64 lat_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
static inline __u64 lat_rdtsc(void)
{
	__u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((__u64)hi << 32) | lo;
}
static inline __u64 lat_rdtscp(void)
{
	__u32 lo, hi, aux;

	asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return ((__u64)hi << 32) | lo;
}
/* Paoloni's pattern, with lfence for cpuid: nothing before the first read
 * is still executing, nothing after the last has started. */
static inline __u64 lat_counter_begin(void)
{
	__u64 t;

	asm volatile("lfence" ::: "memory");
	t = lat_rdtsc();
	asm volatile("lfence" ::: "memory");
	return t;
}
static inline __u64 lat_counter_end(void)
{
	__u64 t = lat_rdtscp();

	asm volatile("lfence" ::: "memory");
	return t;
}
#define LAT_COUNTER_NAME "tsc"
#elif defined(__aarch64__)
static inline __u64 lat_cntvct(void)
{
	__u64 v;

	asm volatile("mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}
static inline __u64 lat_counter_begin(void)
{
	__u64 v;

	asm volatile("isb; mrs %0, cntvct_el0; isb" : "=r"(v)::"memory");
	return v;
}
static inline __u64 lat_counter_end(void)
{
	return lat_counter_begin();
}
#define LAT_COUNTER_NAME "cntvct"
#else
static inline __u64 lat_counter_begin(void)
{
	return lat_mono_ns();
}
static inline __u64 lat_counter_end(void)
{
	return lat_mono_ns();
}
#define LAT_COUNTER_NAME "clock_gettime"
#endif

/* Start and end of a timed region, in ticks of lat_bclock. */
static inline __u64 lat_tick_begin(void)
{
	return lat_bclock.counter ? lat_counter_begin() : lat_mono_ns();
}
static inline __u64 lat_tick_end(void)
{
	return lat_bclock.counter ? lat_counter_end() : lat_mono_ns();
}

/* the table's columns: p50 p90 p99 p99.9 and the max (101) */
#define LAT_BENCH_COLS 5
extern const double lat_bench_cols[LAT_BENCH_COLS];
extern const char *const lat_bench_col_names[LAT_BENCH_COLS];

/* One result: a distribution per operation, in ns and in ticks; or, for a
 * bandwidth (mb_s), per timed block in MB/s and in ticks, and the total. */
struct lat_bres {
	char name[40];		/* stable: scripts key on it */
	const char *method;
	__u32 batch;		/* operations per timed region */
	struct lat_hist ns, ticks;	/* ns: MB/s when mb_s */
	bool mb_s;
	double total_mb_s;	/* all bytes over the whole (wall) time */
	char note[240];		/* what the reader must know, or "" */
	bool failed;		/* the result is not what it claims (see note) */
	/* a count the kernel keeps, against what the benchmark expected */
	const char *check;	/* e.g. "ru_majflt", or NULL */
	__s64 expected, observed;
	bool check_level;	/* a size, not a count: runs are not added up */
	const char *bench, *group;	/* the benchmark that made it */
	char quarantine[480];	/* why the environment check distrusts it, or "" */
	/* when the run was (lat_mono_ns), for the .hlog interval */
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

struct lat_bctx {
	__u64 budget_ns;	/* this benchmark's time, in this run */
	int runs;		/* of them: budget_ns x runs is its whole time */
	__u64 deadline;		/* lat_mono_ns() value it must end by */
	int cpu;		/* where one-core benchmarks run */
	int cpus[256], ncpus;	/* the hiccup meter's cores */
	__u64 interval_ns;	/* the hiccup meter's sleep */
	const char *dir;	/* for the major-fault file */
	struct lat_bres **res;
	int nres, cap;
};

struct lat_bench_def {
	const char *name;	/* selects it */
	const char *group;	/* so does its group: cpu, mem, net, fs */
	const char *results;	/* the names it produces, for --list */
	const char *what;
	__u64 budget_ns;	/* default time */
	bool baseline;		/* part of --baseline */
	int (*run)(struct lat_bctx *c);
};

/* run.c */
struct lat_bres *lat_bres_new(struct lat_bctx *c, const char *name,
			      const char *method, __u32 batch);
void lat_bres_add(struct lat_bres *r, __u64 ticks);	/* one timed region */
void lat_bres_add_ticks(struct lat_bres *r, __u64 ticks);	/* one op, as is */
void lat_bres_add_ns(struct lat_bres *r, __u64 ns);	/* a value in ns */
/* a timed block of `bytes` that took `ticks` (the empty region not yet
 * taken off), into a bandwidth result: MB/s */
void lat_bres_add_block(struct lat_bres *r, __u64 ticks, __u64 bytes);
bool lat_bench_over(const struct lat_bctx *c, __u64 samples, __u64 max);
int lat_bench_pin(int cpu);
int lat_bench_main(int argc, char **argv);	/* argv: latbpf bench ... */
/* its options only, as lat_bench_main reads them; runs nothing: 0, or
 * -EINVAL with the message said (tests/unit/test_fuzz_opts.c) */
int lat_bench_parse(int argc, char **argv);
void lat_bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A short host baseline (< 1 s) for a trace report: run before attaching,
 * reported at the end. */
struct lat_baseline;
struct lat_baseline *lat_baseline_run(const char *cpuinfo_flags);
void lat_baseline_publish(const struct lat_baseline *b, struct lat_snap *s);
void lat_baseline_free(struct lat_baseline *b);

/* Pure arithmetic, unit-tested. */
__u64 lat_bench_per_op(__u64 ticks, __u64 overhead, __u32 batch);
/* the median of v[0..n) (sorts v): the middle one, or the mean of the two */
double lat_bench_median(__u64 *v, int n);
/* a figure as the table shows it: ns formatted, else whole (MB/s); one
 * out of range (a JSON from anywhere) printed as a number */
void lat_bench_fmt_value(char *b, size_t n, double v, bool ns);
/* compare.c: latbpf bench compare A.json B.json; 0, LAT_BENCH_REGRESSED,
 * -EINVAL (usage, unreadable or not a bench's JSON) */
#define LAT_BENCH_REGRESSED 1
int lat_bench_compare(int argc, char **argv);
static inline __u64 lat_ticks_to_ns(__u64 ticks, double hz)
{
	return (__u64)((double)ticks * 1e9 / hz + 0.5);
}
/* memlat.c: a random cyclic permutation (Sattolo): following next[] from
 * any slot visits every slot once before coming back. */
void lat_perm_cycle(__u32 *next, __u32 n, __u64 *seed);
/* Groups neighbouring working sets whose latency stays within `step` of the
 * group's first: levels[i] is the plateau index of point i. Returns the
 * number of plateaus. */
int lat_plateaus(const double *lat, int n, double step, int *levels);

/* env.c: the environment check. Set-up read before the runs, others'
 * activity as counter differences around them. */
#define LAT_BENV_MAX 16
struct lat_benv_snap {
	__u64 mono_ns;
	unsigned long long notbusy, steal, bench_steal, bench_ticks, swap, sectors, self_io;
	int ncpu;
	double self_cpu;
};
struct lat_benv {
	const struct lat_bctx *c;
	struct lat_benv_item {
		const char *name;	/* stable: "governor", "others_cpu" ... */
		char value[96];
		bool warn;
		const char *affects;	/* "all", a group, a benchmark; NULL: info */
		char why[160];
	} items[LAT_BENV_MAX];
	int n;
	double others_cpu;
	struct lat_benv_snap a;
	unsigned long long irqs, irq_n0;	/* device IRQs on the bench core */
	__u64 irq_ns, irq_t0;			/* ... in this much benchmark time */
};
void lat_benv_begin(struct lat_benv *e, const struct lat_bctx *c);
void lat_benv_end(struct lat_benv *e);
void lat_benv_bench(struct lat_benv *e, const char *group, bool end);	/* around each */
void lat_benv_quarantine(const struct lat_benv *e, const char *bench, const char *group,
			 char *out, size_t n);
void lat_benv_publish(const struct lat_benv *e, struct lat_snap *s);
void lat_benv_text(const struct lat_benv *e, FILE *f);

/* The groups */
/* clock.c: check and calibrate; flags: the TSC flags of /proc/cpuinfo */
int lat_bclock_init(bool quick, const char *cpuinfo_flags);
int lat_bench_timer(struct lat_bctx *c);
int lat_bench_syscall(struct lat_bctx *c);	/* ops.c */
int lat_bench_thread(struct lat_bctx *c);
int lat_bench_fork(struct lat_bctx *c);
int lat_bench_ctxsw(struct lat_bctx *c);	/* ctxsw.c */
int lat_bench_fault_minor(struct lat_bctx *c);	/* fault.c */
int lat_bench_fault_major(struct lat_bctx *c);
int lat_bench_memlat(struct lat_bctx *c);	/* memlat.c */
int lat_bench_tcp_rtt(struct lat_bctx *c);	/* tcp.c */
int lat_bench_tcp_connect(struct lat_bctx *c);
int lat_bench_tcp_bw(struct lat_bctx *c);
int lat_bench_hiccup(struct lat_bctx *c);	/* hiccup.c */
int lat_bench_call(struct lat_bctx *c);	/* call.c */
int lat_bench_membw(struct lat_bctx *c);	/* membw.c */
__u64 lat_bench_llc_bytes(void);	/* memlat.c: from sysfs, 0 if unknown */
/* fault.c: an unlinked file of len bytes (a multiple of 1 MiB) in dir, its
 * pages dropped; fd or -errno, said in r's note (tmpfs too) */
int lat_bench_make_file(const char *dir, size_t len, struct lat_bres *r);
bool lat_bench_is_tmpfs(int fd);	/* fault.c: its pages cannot be dropped */
int lat_bench_fs_read(struct lat_bctx *c);	/* fs.c */
int lat_bench_fs_cache(struct lat_bctx *c);
int lat_bench_fs_contention(struct lat_bctx *c);

#endif

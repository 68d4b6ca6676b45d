/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock every benchmark of latbpf bench times with: the time-stamp
 * counter (x86 TSC, arm64 generic timer), checked, calibrated against
 * CLOCK_MONOTONIC and read fenced; clock_gettime where the counter cannot
 * be trusted. The bottom of bench's result library (result.h).
 */
#ifndef LATBPF_BENCH_CLOCK_H
#define LATBPF_BENCH_CLOCK_H

#include <stdbool.h>
#include <time.h>
#include <linux/types.h>
#include "core/clock.h"

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
	return lat_now_ns();
}
static inline __u64 lat_counter_end(void)
{
	return lat_now_ns();
}
#define LAT_COUNTER_NAME "clock_gettime"
#endif

/* Start and end of a timed region, in ticks of lat_bclock. */
static inline __u64 lat_tick_begin(void)
{
	return lat_bclock.counter ? lat_counter_begin() : lat_now_ns();
}
static inline __u64 lat_tick_end(void)
{
	return lat_bclock.counter ? lat_counter_end() : lat_now_ns();
}


static inline __u64 lat_ticks_to_ns(__u64 ticks, double hz)
{
	return (__u64)((double)ticks * 1e9 / hz + 0.5);
}

/* Check and calibrate (quick: 2 short windows, for --quick and a trace's
 * --baseline); cpuinfo_flags: the TSC flags of /proc/cpuinfo */
int lat_bclock_init(bool quick, const char *cpuinfo_flags);
/* Runs the calling thread on cpu alone (cpu < 0: leaves it): 0 or -errno.
 * The cross-core measure pins, as every one-core benchmark does. */
int lat_bench_pin(int cpu);

#endif

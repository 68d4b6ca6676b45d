// SPDX-License-Identifier: GPL-2.0
/* What reading the time costs: clock_gettime, the counter unfenced, fenced
 * and serialised, and the empty timed region every other timing subtracts. */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "bench/benchmarks.h"
#include "bench/result.h"

/* n reads in one region, per read */
#define TIMER_BATCH 64
#define TIMER_SAMPLES 20000

#define TIMED(r, n, stmt) do {						\
	__u64 a_ = lat_tick_begin();					\
	for (int j_ = 0; j_ < (n); j_++)				\
		stmt;							\
	lat_bres_add((r), lat_tick_end() - a_);				\
} while (0)

static volatile __u64 sink;

#if defined(__x86_64__) || defined(__i386__)
static __u64 cpuid_rdtsc(void)
{
	unsigned a, b, c, d;

	__cpuid(0, a, b, c, d);
	return lat_rdtsc() + a + b + c + d;
}
#endif

int lat_bench_timer(struct lat_bctx *c)
{
	struct lat_bres *r[6] = { 0 };
	struct timespec ts;
	__u64 i;

	lat_bench_pin(c->cpu);
	r[0] = lat_bres_new(c, "timer_region", "an empty timed region, not subtracted: "
			    "every other timing subtracts its minimum", 1);
	r[1] = lat_bres_new(c, "timer_clock_gettime", "clock_gettime(CLOCK_MONOTONIC) "
			    "back to back", TIMER_BATCH);
#if defined(__x86_64__) || defined(__i386__)
	r[2] = lat_bres_new(c, "timer_rdtsc", "rdtsc back to back, unfenced", TIMER_BATCH);
	r[3] = lat_bres_new(c, "timer_rdtscp", "rdtscp back to back", TIMER_BATCH);
	r[4] = lat_bres_new(c, "timer_lfence_rdtsc", "lfence; rdtsc; lfence", TIMER_BATCH);
	r[5] = lat_bres_new(c, "timer_cpuid_rdtsc", "cpuid; rdtsc (Paoloni)", 8);
#elif defined(__aarch64__)
	r[2] = lat_bres_new(c, "timer_cntvct", "mrs cntvct_el0 back to back", TIMER_BATCH);
	r[3] = lat_bres_new(c, "timer_isb_cntvct", "isb; mrs cntvct_el0; isb", TIMER_BATCH);
#endif
	for (i = 0; !lat_bench_over(c, i, TIMER_SAMPLES); i++) {
		__u64 a = lat_tick_begin();

		lat_bres_add_ticks(r[0], lat_tick_end() - a);	/* as is: it is the cost */
		TIMED(r[1], TIMER_BATCH, clock_gettime(CLOCK_MONOTONIC, &ts));
#if defined(__x86_64__) || defined(__i386__)
		TIMED(r[2], TIMER_BATCH, sink = lat_rdtsc());
		TIMED(r[3], TIMER_BATCH, sink = lat_rdtscp());
		TIMED(r[4], TIMER_BATCH, sink = lat_counter_begin());
		TIMED(r[5], 8, sink = cpuid_rdtsc());
#elif defined(__aarch64__)
		TIMED(r[2], TIMER_BATCH, sink = lat_cntvct());
		TIMED(r[3], TIMER_BATCH, sink = lat_counter_begin());
#endif
	}
	return 0;
}

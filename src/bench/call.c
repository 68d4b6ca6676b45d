// SPDX-License-Identifier: GPL-2.0
/* Procedure calls with 0 to 7 integer arguments: what a call and its return
 * cost when the compiler can neither inline nor drop them. On x86-64 and
 * arm64 the first six (eight) arguments travel in registers, the seventh on
 * x86-64 on the stack. */
#include <stdio.h>
#include "bench/benchmarks.h"
#include "bench/result.h"

/* A call is a few cycles: 256 to a timed region, so the timer's own cost
 * (taken off) and its granularity are under a tick per call. */
#define CALL_BATCH 256
#define MAX_SAMPLES 200000

/* Each uses every argument, so none is dead; they are only ever called
 * through a pointer read from a volatile table, so the compiler knows no
 * callee and must pass every argument as the ABI says. */
static __attribute__((aligned(64))) long c0(void)
{
	return 1;
}
static __attribute__((aligned(64))) long c1(long a)
{
	return a;
}
static __attribute__((aligned(64))) long c2(long a, long b)
{
	return a + b;
}
static __attribute__((aligned(64))) long c3(long a, long b, long c)
{
	return a + b + c;
}
static __attribute__((aligned(64))) long c4(long a, long b, long c, long d)
{
	return a + b + c + d;
}
static __attribute__((aligned(64))) long c5(long a, long b, long c, long d, long e)
{
	return a + b + c + d + e;
}
static __attribute__((aligned(64))) long c6(long a, long b, long c, long d, long e, long f)
{
	return a + b + c + d + e + f;
}
static __attribute__((aligned(64))) long c7(long a, long b, long c, long d, long e, long f, long g)
{
	return a + b + c + d + e + f + g;
}

/* read once per region: volatile, so the compiler cannot know the callee */
static long (*volatile p0)(void) = c0;
static long (*volatile p1)(long) = c1;
static long (*volatile p2)(long, long) = c2;
static long (*volatile p3)(long, long, long) = c3;
static long (*volatile p4)(long, long, long, long) = c4;
static long (*volatile p5)(long, long, long, long, long) = c5;
static long (*volatile p6)(long, long, long, long, long, long) = c6;
static long (*volatile p7)(long, long, long, long, long, long, long) = c7;
static volatile long sink;

#define BATCH(p, ...)                                          \
	do {                                                   \
		__typeof__(p) f = (p);                         \
		a = lat_tick_begin();                          \
		for (long j = 0; j < CALL_BATCH; j++)          \
			s += f(__VA_ARGS__);                   \
		a = lat_tick_end() - a;                        \
	} while (0)

/* One timed region of CALL_BATCH calls with k arguments */
static __u64 region(int k, long x)
{
	long s = 0;
	__u64 a;

	switch (k) {
	case 0: BATCH(p0); break;
	case 1: BATCH(p1, x + j); break;
	case 2: BATCH(p2, x + j, x); break;
	case 3: BATCH(p3, x + j, x, x); break;
	case 4: BATCH(p4, x + j, x, x, x); break;
	case 5: BATCH(p5, x + j, x, x, x, x); break;
	case 6: BATCH(p6, x + j, x, x, x, x, x); break;
	default: BATCH(p7, x + j, x, x, x, x, x, x); break;
	}
	sink = s;
	return a;
}

int lat_bench_call(struct lat_bctx *c)
{
	static const char *const method[8] = {
		"call and return, no argument, through a pointer the compiler cannot see",
		"call and return, 1 integer argument", "call and return, 2 integer arguments",
		"call and return, 3 integer arguments", "call and return, 4 integer arguments",
		"call and return, 5 integer arguments", "call and return, 6 integer arguments",
		"call and return, 7 integer arguments (x86-64: the 7th on the stack)",
	};
	struct lat_bres *r[8];
	char name[16];
	__u64 i;
	int k;

	lat_bench_pin(c->cpu);
	for (k = 0; k < 8; k++) {
		snprintf(name, sizeof(name), "call_%d", k);
		r[k] = lat_bres_new(c, name, method[k], CALL_BATCH);
	}
	/* the argument counts interleaved, so a slow stretch of the host
	 * falls on all of them alike */
	for (i = 0; !lat_bench_over(c, i, MAX_SAMPLES); i++)
		for (k = 0; k < 8; k++)
			lat_bres_add(r[k], region(k, (long)i));
	return 0;
}

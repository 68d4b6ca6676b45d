// SPDX-License-Identifier: GPL-2.0
/*
 * The clock (clock.h): is the counter invariant, what is its rate
 * (calibrated against CLOCK_MONOTONIC over several windows, spread
 * reported), how far apart are the cores' counters, and what an empty timed
 * region costs. What the ways of reading a time cost is a benchmark:
 * timer.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>
#include "bench/clock.h"
#include "core/proc.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

struct lat_bclock lat_bclock = { .source = "clock_gettime", .hz = 1e9, .skew_cpu = -1 };

int lat_bench_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

#if defined(__x86_64__) || defined(__i386__)
/* The kernel's own TSC rate, from its boot log: the refined calibration if
 * there was one, else the detected one. 0 when the log is not readable. */
static double kernel_tsc_hz(void)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	double mhz = 0, v;
	char *buf, *s;

	if (n <= 0 || !(buf = malloc(n + 1)))
		return 0;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, n);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	if ((s = strstr(buf, "Refined TSC clocksource calibration: ")) &&
	    sscanf(s + 37, "%lf MHz", &v) == 1)
		mhz = v;
	else if ((s = strstr(buf, "tsc: Detected ")) && sscanf(s + 14, "%lf MHz", &v) == 1)
		mhz = v;
	free(buf);
	return mhz * 1e6;
}
#endif

static void check_invariant(struct lat_bclock *k)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000007 &&
	    __get_cpuid(0x80000007, &a, &b, &c, &d))
		k->cpuid_invariant = d & (1U << 8);
	/* Hypervisors often hide the CPUID bit while the kernel, told by the
	 * hypervisor, still sets both flags: either source is enough. */
	k->invariant = k->cpuid_invariant || (lat_has_word(k->flags, "constant_tsc") &&
					      lat_has_word(k->flags, "nonstop_tsc"));
	if (!k->invariant)
		snprintf(k->fallback, sizeof(k->fallback),
			 "the TSC is not invariant (no CPUID 80000007 EDX[8], no "
			 "constant_tsc+nonstop_tsc)");
	k->kernel_hz = kernel_tsc_hz();
#elif defined(__aarch64__)
	__u64 f;

	/* The generic timer ticks at a constant rate by architecture. */
	asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
	k->invariant = true;
	k->kernel_hz = (double)f;
	snprintf(k->flags, sizeof(k->flags), "cntfrq_el0=%llu", (unsigned long long)f);
#else
	snprintf(k->fallback, sizeof(k->fallback), "no counter is known on this architecture");
#endif
}

/* A (counter, monotonic) pair read at the same instant: the tightest
 * bracket of several tries, counter taken mid-bracket. */
static void pair(__u64 *tick, __u64 *ns)
{
	__u64 best = ~0ULL, a, b, m;

	for (int i = 0; i < 32; i++) {
		a = lat_counter_begin();
		m = lat_now_ns();
		b = lat_counter_end();
		if (b - a < best) {
			best = b - a;
			*tick = a + (b - a) / 2;
			*ns = m;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void calibrate(struct lat_bclock *k, int windows, __u64 window_ns)
{
	double hz[16];
	__u64 t0, n0, t1, n1;
	struct timespec ts = { window_ns / 1000000000ULL, window_ns % 1000000000ULL };

	for (int i = 0; i < windows; i++) {
		pair(&t0, &n0);
		nanosleep(&ts, NULL);
		pair(&t1, &n1);
		hz[i] = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
	}
	qsort(hz, windows, sizeof(hz[0]), cmp_double);
	k->hz = windows % 2 ? hz[windows / 2] : (hz[windows / 2 - 1] + hz[windows / 2]) / 2;
	k->spread_ppm = (hz[windows - 1] - hz[0]) / k->hz * 1e6;
	k->windows = windows;
	k->window_ns = window_ns;
}

/* Cross-core offset: the reference core reads t1, the other core answers
 * with its own reading t2, the reference reads t3. If the counters agree,
 * t2 lies inside [t1, t3]; the offset is t2 - (t1 + t3) / 2, within half
 * the round trip. The round with the shortest round trip is kept. */
struct skew {
	int cpu;
	__u64 rounds;
	volatile __u64 seq, remote;
	bool timeout;
};

static bool wait_seq(struct skew *s, __u64 want)
{
	__u64 spins = 0, t0 = 0;

	while (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != want) {
		if (__atomic_load_n(&s->timeout, __ATOMIC_RELAXED))
			return false;
		if (++spins % 65536 == 0) {
			if (!t0)
				t0 = lat_now_ns();
			else if (lat_now_ns() - t0 > 200000000ULL) {
				__atomic_store_n(&s->timeout, true, __ATOMIC_RELAXED);
				return false;
			}
		}
	}
	return true;
}

static void *skew_remote(void *arg)
{
	struct skew *s = arg;

	lat_bench_pin(s->cpu);
	for (__u64 i = 0; i < s->rounds; i++) {
		if (!wait_seq(s, 2 * i + 1))
			break;
		s->remote = lat_counter_begin();
		__atomic_store_n(&s->seq, 2 * i + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void measure_skew(struct lat_bclock *k, int ref, int cpu, __u64 rounds)
{
	struct skew s = { .cpu = cpu, .rounds = rounds };
	__u64 t1, t3, best = ~0ULL;
	__s64 off = 0;
	pthread_t th;

	if (pthread_create(&th, NULL, skew_remote, &s))
		return;
	lat_bench_pin(ref);
	for (__u64 i = 0; i < rounds; i++) {
		t1 = lat_counter_begin();
		__atomic_store_n(&s.seq, 2 * i + 1, __ATOMIC_RELEASE);
		if (!wait_seq(&s, 2 * i + 2))
			break;
		t3 = lat_counter_end();
		if (t3 - t1 < best) {
			best = t3 - t1;
			off = (__s64)(s.remote - (t1 + (t3 - t1) / 2));
		}
	}
	pthread_join(th, NULL);
	if (best == ~0ULL)
		return;
	if (k->skew_cpu < 0 || llabs(off) > llabs(k->skew_ns)) {
		k->skew_ns = off;	/* ticks for now, ns below */
		k->skew_err_ns = best / 2;
		k->skew_cpu = cpu;
	}
}

static void cross_core(struct lat_bclock *k, __u64 rounds)
{
	cpu_set_t set;
	int ref = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (ref < 0)
			ref = c;
		else
			measure_skew(k, ref, c, rounds);
	}
	sched_setaffinity(0, sizeof(set), &set);
	if (k->skew_cpu >= 0) {
		k->skew_ns = k->skew_ns < 0 ? -(__s64)lat_ticks_to_ns(-k->skew_ns, k->hz) :
					      (__s64)lat_ticks_to_ns(k->skew_ns, k->hz);
		k->skew_err_ns = lat_ticks_to_ns(k->skew_err_ns, k->hz);
	}
}

/* The cheapest empty timed region: what every timing subtracts. */
static __u64 empty_region(void)
{
	__u64 best = ~0ULL, a, b;

	for (int i = 0; i < 20000; i++) {
		a = lat_tick_begin();
		b = lat_tick_end();
		if (b - a < best)
			best = b - a;
	}
	return best;
}

int lat_bclock_init(bool quick, const char *cpuinfo_flags)
{
	struct lat_bclock *k = &lat_bclock;
	const char *force = getenv("LATBPF_BENCH_CLOCK");

	memset(k, 0, sizeof(*k));
	k->skew_cpu = -1;
	snprintf(k->flags, sizeof(k->flags), "%s", cpuinfo_flags ? cpuinfo_flags : "");
	check_invariant(k);
	if (force && !strcmp(force, "clock_gettime"))
		snprintf(k->fallback, sizeof(k->fallback),
			 "LATBPF_BENCH_CLOCK=clock_gettime asked for it");
	if (!k->fallback[0] && k->invariant) {
		k->counter = true;
		k->source = LAT_COUNTER_NAME;
		calibrate(k, quick ? 2 : 5, quick ? 20000000ULL : 60000000ULL);
		cross_core(k, quick ? 200 : 5000);
	} else {
		k->counter = false;
		k->source = "clock_gettime";
		k->hz = 1e9;
		fprintf(stderr, "latbpf bench: WARNING: %s; timing with "
			"clock_gettime(CLOCK_MONOTONIC) instead, which costs more per "
			"reading and has coarser steps\n", k->fallback);
	}
	k->overhead = empty_region();
	return 0;
}

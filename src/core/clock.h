/* SPDX-License-Identifier: GPL-2.0 */
/* The loader's clocks: every loader-side timestamp is CLOCK_MONOTONIC in ns,
 * as bpf_ktime_get_ns() is in BPF. */
#ifndef LATBPF_CORE_CLOCK_H
#define LATBPF_CORE_CLOCK_H

#include <time.h>
#include <linux/types.h>

/* CLOCK_MONOTONIC in ns: the clock of every loader-side timestamp */
static inline __u64 lat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns: a monotonic time (an event's
 * bpf_ktime_get_ns) plus this is its wall-clock time */
static inline long long lat_wall_minus_mono_ns(void)
{
	struct timespec mono, wall;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	return ((long long)wall.tv_sec - mono.tv_sec) * 1000000000LL +
	       (wall.tv_nsec - mono.tv_nsec);
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU's caches: as sysfs describes them, and as a latency curve over
 * growing working sets shows them. A host may describe itself wrongly (a
 * VM's sysfs can claim a 480 MiB L3): where the two disagree, bench trusts
 * its own measurement, and says so.
 */
#ifndef LATBPF_BENCH_CACHE_H
#define LATBPF_BENCH_CACHE_H

#include <stddef.h>
#include <linux/types.h>

/* "L1 32K, L2 512K, L3 32768K": cpu0's data and unified caches per sysfs
 * (LATBPF_BENCH_SYSFS_CPU=DIR reads DIR for /sys/devices/system/cpu: a
 * test's knob, to describe a host as a VM might) */
void lat_bench_cache_sizes(char *buf, size_t len);
/* The largest cache cpu0 reports (the last level), or 0 */
__u64 lat_bench_llc_bytes(void);

/* A pointer chase: every 64-byte line of a working set holds the address of
 * the next along one random cycle, so each load depends on the one before
 * and no prefetcher can guess it (lmbench's lat_mem_rd, in random order) */
#define LAT_CHASE_LINE 64
#define LAT_CHASE_MIN_LOG2 12	/* 4 KiB */
#define LAT_CHASE_MAX_LOG2 28	/* 256 MiB */
#define LAT_CHASE_SIZES (LAT_CHASE_MAX_LOG2 - LAT_CHASE_MIN_LOG2 + 1)
struct lat_chase {
	char *buf;		/* 256 MiB, 4 KiB pages */
	__u32 *next;
	__u64 seed;
};
int lat_chase_open(struct lat_chase *ch);	/* 0 or -ENOMEM */
/* the first `bytes` of the buffer one cycle, walked once: where to start */
void *lat_chase_set(struct lat_chase *ch, __u64 bytes);
void *lat_chase(void *p, int n);		/* n dependent loads (n: 8s) */
void lat_chase_close(struct lat_chase *ch);

/* Where a latency curve (lat[i] per load at 4 KiB << i) shows the caches
 * end: the last working set before the first one slower than a third of
 * the largest's (256 MiB: memory, past the TLB's reach). -1 when even the
 * first is that slow. */
int lat_cache_end(const double *lat, int n);
/* The same, measured here on cpu once per process (a short chase, ~0.3 s;
 * every run sizes its working sets alike): bytes, 0 when the curve shows
 * no end or the memory is short */
__u64 lat_bench_cache_end(int cpu);
/* Groups neighbouring working sets whose latency stays within `step` of the
 * group's first: levels[i] is the plateau index of point i. Returns the
 * number of plateaus. */
int lat_plateaus(const double *lat, int n, double step, int *levels);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The CPU's caches: as sysfs describes them, and as a latency curve over
 * growing working sets shows them (memlat's, and membw's sizing). */
#ifndef LATBPF_BENCH_CACHE_H
#define LATBPF_BENCH_CACHE_H

#include <stddef.h>
#include <linux/types.h>

/* "L1 32K, L2 512K, L3 32768K": cpu0's data and unified caches per sysfs */
void lat_bench_cache_sizes(char *buf, size_t len);
/* The largest cache cpu0 reports (the last level), or 0 */
__u64 lat_bench_llc_bytes(void);
/* Groups neighbouring working sets whose latency stays within `step` of the
 * group's first: levels[i] is the plateau index of point i. Returns the
 * number of plateaus. */
int lat_plateaus(const double *lat, int n, double step, int *levels);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Memory latency, lmbench's lat_mem_rd with a random order: every 64-byte
 * line of the working set holds the address of the next one along a single
 * random cycle, so each load depends on the one before and the prefetchers
 * cannot guess. Working sets double from 4 KiB to 256 MiB; the latency per
 * load steps up as the set outgrows each cache level (and, on 4 KiB pages,
 * the TLB reach: included here, as in lmbench).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/benchmarks.h"
#include "bench/cache.h"
#include "bench/result.h"
#include "core/hist.h"

#define MIN_LOG2 LAT_CHASE_MIN_LOG2
#define NSIZES LAT_CHASE_SIZES
#define LOADS 1024	/* dependent loads per timed region */

static void size_name(char *b, size_t n, __u64 bytes)
{
	if (bytes >= 1 << 20)
		snprintf(b, n, "%llum", (unsigned long long)(bytes >> 20));
	else
		snprintf(b, n, "%lluk", (unsigned long long)(bytes >> 10));
}

int lat_bench_memlat(struct lat_bctx *c)
{
	struct lat_chase ch;
	struct lat_bres *r[NSIZES];
	double lat[NSIZES];
	int levels[NSIZES], np, k;
	char name[40], caches[160], b0[16], b1[16];
	__u64 a;

	lat_bench_pin(c->cpu);
	if (lat_chase_open(&ch))
		return -ENOMEM;
	for (k = 0; k < NSIZES; k++) {
		__u64 bytes = 1ULL << (MIN_LOG2 + k);
		void *p;

		size_name(b0, sizeof(b0), bytes);
		snprintf(name, sizeof(name), "memlat_%s", b0);
		r[k] = lat_bres_new(c, name, "dependent loads along one random cycle over "
				    "64-byte lines, 4 KiB pages; per load", LOADS);
		if (!r[k])
			break;
		p = lat_chase_set(&ch, bytes);
		c->deadline = lat_now_ns() + c->budget_ns / NSIZES;	/* after the set-up */
		for (__u64 s = 0; !lat_bench_over(c, s, 100000); s++) {
			a = lat_tick_begin();
			p = lat_chase(p, LOADS);
			lat_bres_add(r[k], lat_tick_end() - a);
		}
		lat[k] = (double)lat_hist_percentile(&r[k]->ticks, 50) * 1e9 / lat_bclock.hz;
	}
	lat_chase_close(&ch);
	if (k < NSIZES)
		return -ENOMEM;

	/* the levels a reader compares with the caches sysfs lists */
	np = lat_plateaus(lat, NSIZES, 1.4, levels);
	lat_bench_cache_sizes(caches, sizeof(caches));
	lat_bench_note("memlat: %d levels (neighbours within 40%% of the level's first; "
		       "cpu0 caches: %s):", np, caches[0] ? caches : "unknown");
	for (int l = 0, i = 0; l < np; l++) {
		int j = i;

		while (j + 1 < NSIZES && levels[j + 1] == l)
			j++;
		size_name(b0, sizeof(b0), 1ULL << (MIN_LOG2 + i));
		size_name(b1, sizeof(b1), 1ULL << (MIN_LOG2 + j));
		lat_bench_note("  %6s .. %-6s %7.1f .. %.1f ns per load", b0, b1, lat[i], lat[j]);
		i = j + 1;
	}
	k = lat_cache_end(lat, NSIZES);
	if (k >= 0 && k < NSIZES - 1)
		size_name(b0, sizeof(b0), 1ULL << (MIN_LOG2 + k));
	lat_bench_note("memlat: by this curve the caches end at %s (the last working set "
		       "faster than a third of 256m's); sysfs's largest cache: %llu KiB", k >= 0 &&
		       k < NSIZES - 1 ? b0 : "no size (no step)",
		       (unsigned long long)(lat_bench_llc_bytes() >> 10));
	return 0;
}

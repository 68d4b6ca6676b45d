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
#include <sys/mman.h>
#include "bench/benchmarks.h"
#include "bench/cache.h"
#include "bench/rand.h"
#include "bench/result.h"
#include "core/hist.h"

#define LINE 64
#define MIN_LOG2 12	/* 4 KiB */
#define MAX_LOG2 28	/* 256 MiB */
#define NSIZES (MAX_LOG2 - MIN_LOG2 + 1)
#define LOADS 1024	/* dependent loads per timed region */

static void *volatile chase_sink;	/* the pointer itself volatile: keeps the loads */

static void *chase(void *p, int n)
{
	void **q = p;

	for (int i = 0; i < n; i += 8) {
		q = *q; q = *q; q = *q; q = *q;
		q = *q; q = *q; q = *q; q = *q;
	}
	return q;
}

static void size_name(char *b, size_t n, __u64 bytes)
{
	if (bytes >= 1 << 20)
		snprintf(b, n, "%llum", (unsigned long long)(bytes >> 20));
	else
		snprintf(b, n, "%lluk", (unsigned long long)(bytes >> 10));
}

int lat_bench_memlat(struct lat_bctx *c)
{
	size_t max = 1ULL << MAX_LOG2;
	__u32 *next = malloc((max / LINE) * sizeof(*next));
	__u64 seed = 0x9e3779b97f4a7c15ULL, a;
	struct lat_bres *r[NSIZES];
	double lat[NSIZES];
	int levels[NSIZES], np, k;
	char *buf, name[40], caches[160], b0[16], b1[16];

	lat_bench_pin(c->cpu);
	buf = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!next || buf == MAP_FAILED) {
		free(next);
		return -ENOMEM;
	}
	madvise(buf, max, MADV_NOHUGEPAGE);
	for (k = 0; k < NSIZES; k++) {
		__u64 bytes = 1ULL << (MIN_LOG2 + k);
		__u32 n = (__u32)(bytes / LINE), i;
		void *p = buf;

		size_name(b0, sizeof(b0), bytes);
		snprintf(name, sizeof(name), "memlat_%s", b0);
		r[k] = lat_bres_new(c, name, "dependent loads along one random cycle over "
				    "64-byte lines, 4 KiB pages; per load", LOADS);
		if (!r[k])
			break;
		lat_perm_cycle(next, n, &seed);
		for (i = 0; i < n; i++)
			*(void **)(buf + (size_t)i * LINE) = buf + (size_t)next[i] * LINE;
		p = chase(p, n < (1U << 20) ? ((n + 7) & ~7U) : 1U << 20);	/* warm up */
		c->deadline = lat_now_ns() + c->budget_ns / NSIZES;	/* after the set-up */
		for (__u64 s = 0; !lat_bench_over(c, s, 100000); s++) {
			a = lat_tick_begin();
			p = chase(p, LOADS);
			lat_bres_add(r[k], lat_tick_end() - a);
		}
		chase_sink = p;
		lat[k] = (double)lat_hist_percentile(&r[k]->ticks, 50) * 1e9 / lat_bclock.hz;
	}
	munmap(buf, max);
	free(next);
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
	return 0;
}

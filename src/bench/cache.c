// SPDX-License-Identifier: GPL-2.0
/* The CPU's caches as sysfs describes them, and as a latency curve shows
 * them (cache.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "bench/cache.h"
#include "bench/clock.h"
#include "bench/rand.h"

/* /sys/devices/system/cpu, or what LATBPF_BENCH_SYSFS_CPU names */
static const char *sysfs_cpu(void)
{
	const char *d = getenv("LATBPF_BENCH_SYSFS_CPU");

	return d && *d ? d : "/sys/devices/system/cpu";
}

void lat_bench_cache_sizes(char *buf, size_t len)
{
	char path[4200], lvl[16], type[32], size[32];
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < 8; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%.4096s/cpu0/cache/index%d/level", sysfs_cpu(), i);
		if (!(f = fopen(path, "r")))
			break;
		if (fscanf(f, "%15s", lvl) != 1)
			lvl[0] = '\0';
		fclose(f);
		snprintf(path, sizeof(path), "%.4096s/cpu0/cache/index%d/type", sysfs_cpu(), i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", type) != 1)
				type[0] = '\0';
			fclose(f);
		}
		if (!strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "%.4096s/cpu0/cache/index%d/size", sysfs_cpu(), i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", size) != 1)
				size[0] = '\0';
			fclose(f);
		}
		o += snprintf(buf + o, len - o, "%sL%s %s", o ? ", " : "", lvl, size);
		if (o >= len)
			break;
	}
}

__u64 lat_bench_llc_bytes(void)
{
	char path[4200], buf[32], *end;
	__u64 best = 0, v;
	FILE *f;

	for (int i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "%.4096s/cpu0/cache/index%d/size", sysfs_cpu(), i);
		if (!(f = fopen(path, "re")))
			break;
		if (fgets(buf, sizeof(buf), f)) {
			v = strtoull(buf, &end, 10);
			v <<= *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
			best = v > best ? v : best;
		}
		fclose(f);
	}
	return best;
}

int lat_plateaus(const double *lat, int n, double step, int *levels)
{
	int k = 0;
	double base;

	if (n <= 0)
		return 0;
	base = lat[0];
	levels[0] = 0;
	for (int i = 1; i < n; i++) {
		if (lat[i] > base * step) {
			k++;
			base = lat[i];
		}
		levels[i] = k;
	}
	return k + 1;
}

#define CHASE_MAX (1ULL << LAT_CHASE_MAX_LOG2)

int lat_chase_open(struct lat_chase *ch)
{
	ch->seed = 0x9e3779b97f4a7c15ULL;
	ch->next = malloc((CHASE_MAX / LAT_CHASE_LINE) * sizeof(*ch->next));
	ch->buf = mmap(NULL, CHASE_MAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (!ch->next || ch->buf == MAP_FAILED) {
		ch->buf = NULL;
		lat_chase_close(ch);
		return -ENOMEM;
	}
	/* 4 KiB pages: large sets include TLB misses, as in lmbench */
	madvise(ch->buf, CHASE_MAX, MADV_NOHUGEPAGE);
	return 0;
}

void lat_chase_close(struct lat_chase *ch)
{
	if (ch->buf)
		munmap(ch->buf, CHASE_MAX);
	free(ch->next);
	ch->buf = NULL;
	ch->next = NULL;
}

static void *volatile chase_sink;	/* the pointer itself volatile: keeps the loads */

void *lat_chase(void *p, int n)
{
	void **q = p;

	for (int i = 0; i < n; i += 8) {
		q = *q; q = *q; q = *q; q = *q;
		q = *q; q = *q; q = *q; q = *q;
	}
	chase_sink = q;
	return q;
}

void *lat_chase_set(struct lat_chase *ch, __u64 bytes)
{
	__u32 n = (__u32)(bytes / LAT_CHASE_LINE), i;

	lat_perm_cycle(ch->next, n, &ch->seed);
	for (i = 0; i < n; i++)
		*(void **)(ch->buf + (size_t)i * LAT_CHASE_LINE) =
			ch->buf + (size_t)ch->next[i] * LAT_CHASE_LINE;
	/* once round (at most 1M loads): a set that fits is in the cache */
	return lat_chase(ch->buf, n < (1U << 20) ? ((n + 7) & ~7U) : 1U << 20);
}

int lat_cache_end(const double *lat, int n)
{
	int i;

	if (n <= 0)
		return -1;
	for (i = 0; i < n && lat[i] <= lat[n - 1] / 3; i++)
		;
	return i - 1;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/* ns per load over a set: the median of 15 timed walks of 1024 loads */
static double per_load(void **p)
{
	__u64 t[15], a;

	for (int k = 0; k < 15; k++) {
		a = lat_tick_begin();
		*p = lat_chase(*p, 1024);
		t[k] = lat_tick_end() - a;
	}
	qsort(t, 15, sizeof(t[0]), cmp_u64);
	return (double)t[7] * 1e9 / lat_bclock.hz / 1024;
}

__u64 lat_bench_cache_end(int cpu)
{
	static __u64 end;
	static bool done;
	struct lat_chase ch;
	double lat[LAT_CHASE_SIZES];
	int k;

	if (done)
		return end;
	done = true;
	if (lat_chase_open(&ch))
		return 0;
	lat_bench_pin(cpu);
	for (k = 0; k < LAT_CHASE_SIZES; k++) {
		void *p = lat_chase_set(&ch, 1ULL << (LAT_CHASE_MIN_LOG2 + k));

		lat[k] = per_load(&p);
	}
	lat_chase_close(&ch);
	k = lat_cache_end(lat, LAT_CHASE_SIZES);
	end = k < 0 || k == LAT_CHASE_SIZES - 1 ? 0 : 1ULL << (LAT_CHASE_MIN_LOG2 + k);
	return end;
}

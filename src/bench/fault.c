// SPDX-License-Identifier: GPL-2.0
/*
 * Page faults timed one by one. Minor: the first write to a page of fresh
 * anonymous memory (huge pages off, so one fault per 4 KiB page: the cost
 * includes zeroing it). Major: the first read of a page of a file whose
 * pages were dropped from the page cache, in random order with readahead
 * off, so each fault waits for one read from the device. getrusage says how
 * many faults of each kind the kernel counted; the result says when that is
 * not what was asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "bench/benchmarks.h"
#include "bench/file.h"
#include "bench/rand.h"
#include "bench/result.h"

#define MINOR_PAGES 16384	/* 64 MiB per mapping */
#define MAJOR_PAGES 8192	/* a 32 MiB file */

static long page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? p : 4096;
}

static void rusage(long *minflt, long *majflt)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	*minflt = ru.ru_minflt;
	*majflt = ru.ru_majflt;
}

int lat_bench_fault_minor(struct lat_bctx *c)
{
	long ps = page_size(), min0, maj0, min1, maj1;
	__u64 touched = 0, a;
	struct lat_bres *r;
	char *m;

	lat_bench_pin(c->cpu);
	r = lat_bres_new(c, "fault_minor", "first write to each 4 KiB page of fresh "
			 "anonymous memory (MADV_NOHUGEPAGE), one fault per timing", 1);
	if (!r)
		return -ENOMEM;
	rusage(&min0, &maj0);
	while (!lat_bench_over(c, touched, 2000000)) {
		m = mmap(NULL, MINOR_PAGES * ps, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -errno;
		madvise(m, MINOR_PAGES * ps, MADV_NOHUGEPAGE);
		for (long i = 0; i < MINOR_PAGES && !lat_bench_over(c, touched, 2000000); i++) {
			a = lat_tick_begin();
			m[i * ps] = 1;
			lat_bres_add(r, lat_tick_end() - a);
			touched++;
		}
		munmap(m, MINOR_PAGES * ps);
	}
	rusage(&min1, &maj1);
	r->check = "ru_minflt";
	r->expected = (__s64)touched;
	r->observed = min1 - min0;
	if (r->observed < r->expected)
		snprintf(r->note, sizeof(r->note), "the kernel counted %lld minor faults for "
			 "%lld first touches", (long long)r->observed, (long long)r->expected);
	return 0;
}

int lat_bench_fault_major(struct lat_bctx *c)
{
	long ps = page_size(), min0, maj0, min1, maj1;
	size_t len = (size_t)MAJOR_PAGES * ps;
	__u32 *order, idx = 0;
	__u64 seed = lat_now_ns() | 1, touched = 0, a;
	volatile char sink;
	struct lat_bres *r;
	char *m;
	int fd;

	lat_bench_pin(c->cpu);
	r = lat_bres_new(c, "fault_major", "first read of each page of a 32 MiB file after "
			 "fsync + POSIX_FADV_DONTNEED, random order, MADV_RANDOM (no "
			 "readahead), one fault per timing", 1);
	if (!r)
		return -ENOMEM;
	fd = lat_bench_make_file(c->dir, len, r);
	if (fd < 0) {
		r->failed = true;
		return 0;
	}
	order = malloc(MAJOR_PAGES * sizeof(*order));
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (!order || m == MAP_FAILED) {
		free(order);
		close(fd);
		return -ENOMEM;
	}
	madvise(m, len, MADV_RANDOM);
	lat_perm_cycle(order, MAJOR_PAGES, &seed);	/* a random order of all pages */
	rusage(&min0, &maj0);
	while (!lat_bench_over(c, touched, MAJOR_PAGES)) {
		a = lat_tick_begin();
		sink = m[(size_t)idx * ps];
		lat_bres_add(r, lat_tick_end() - a);
		idx = order[idx];
		touched++;
	}
	rusage(&min1, &maj1);
	(void)sink;
	munmap(m, len);
	free(order);
	close(fd);
	r->check = "ru_majflt";
	r->expected = (__s64)touched;
	r->observed = maj1 - maj0;
	if (r->observed * 100 < r->expected * 95) {
		r->failed = true;
		snprintf(r->note + strlen(r->note), sizeof(r->note) - strlen(r->note),
			 "%sthe kernel served %lld major faults for %lld pages touched: the "
			 "rest came from the page cache, so this is not a major-fault time",
			 r->note[0] ? "; " : "", (long long)r->observed, (long long)r->expected);
	}
	return 0;
}

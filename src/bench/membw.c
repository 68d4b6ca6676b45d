// SPDX-License-Identifier: GPL-2.0
/*
 * Memory bandwidth: read, write and copy over a working set that fits in the
 * caches (where a short pointer chase shows they end, cache.h) and over one
 * far above them, by one thread and by a thread
 * on every chosen core at once (one thread rarely saturates the memory bus).
 * Each timed block is 1 MiB (or the whole working set, when smaller) and is
 * reported in MB/s; the total is every byte over the whole time, for all the
 * threads together. Copy counts the bytes copied once, as memcpy-based tools
 * (mbw, perf bench mem memcpy) do.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "bench/benchmarks.h"
#include "bench/cache.h"
#include "bench/result.h"
#include "core/hist.h"

#define BLOCK (1UL << 20)
#define MIB (1UL << 20)

enum { OP_READ, OP_WRITE, OP_COPY, NOPS };
static const char *const op_name[NOPS] = { "read", "write", "copy" };
static volatile __u64 sink;

/* The threads of one phase start timing together, once every one has made
 * its first pass: ready counts them, go says how many there are (set once
 * all were created, or fewer could be). */
struct bw_start {
	int ready, go;
};

struct bw_job {
	int cpu, op;
	char *src, *dst;	/* this thread's part of the working set */
	size_t size;
	__u64 budget;
	struct bw_start *start;
	struct lat_bres part;	/* this thread's blocks */
	__u64 bytes, t0, t1;
	int err;
};

static __u64 read_block(const __u64 *p, size_t n)
{
	__u64 a = 0, b = 0, c = 0, d = 0;

	for (size_t i = 0; i + 3 < n; i += 4) {
		a += p[i];
		b += p[i + 1];
		c += p[i + 2];
		d += p[i + 3];
	}
	return a + b + c + d;
}

static void block(struct bw_job *j, size_t off, size_t len, int fill)
{
	switch (j->op) {
	case OP_READ:
		sink += read_block((const __u64 *)(j->src + off), len / 8);
		break;
	case OP_WRITE:
		memset(j->dst + off, fill, len);
		break;
	default:
		memcpy(j->dst + off, j->src + off, len);
		break;
	}
	/* the stores are seen: nothing may drop them as dead */
	asm volatile("" : : "r"(j->dst) : "memory");
}

static void *bw_thread(void *arg)
{
	struct bw_job *j = arg;
	size_t off = 0, len;
	__u64 n, a;

	j->err = lat_bench_pin(j->cpu);
	/* a pass before timing: the pages are in (first touch on this core),
	 * and a working set that fits is in the cache */
	for (off = 0; off < j->size; off += BLOCK)
		block(j, off, j->size - off < BLOCK ? j->size - off : BLOCK, 1);
	__atomic_add_fetch(&j->start->ready, 1, __ATOMIC_ACQ_REL);
	for (;;) {
		int go = __atomic_load_n(&j->start->go, __ATOMIC_ACQUIRE);

		if (go && __atomic_load_n(&j->start->ready, __ATOMIC_ACQUIRE) >= go)
			break;
		sched_yield();
	}
	j->t0 = lat_now_ns();
	for (n = 0, off = 0; !n || lat_now_ns() < j->t0 + j->budget; n++) {
		len = j->size - off < BLOCK ? j->size - off : BLOCK;
		a = lat_tick_begin();
		block(j, off, len, (int)n);
		lat_bres_add_block(&j->part, lat_tick_end() - a, len);
		j->bytes += len;
		off = off + len >= j->size ? 0 : off + len;
	}
	j->t1 = lat_now_ns();
	return NULL;
}

/* One result: op over size bytes of src/dst, split among n cores */
static int phase(struct lat_bres *r, int op, char *src, char *dst, size_t size,
		 const int *cpus, int n, __u64 budget)
{
	struct bw_job *j = calloc((size_t)n, sizeof(*j));
	struct bw_start start = { 0, 0 };
	__u64 t0 = ~0ULL, t1 = 0, bytes = 0;
	size_t part = size / (size_t)n / 64 * 64;
	pthread_t th[256];
	int i, err = 0, started = 0;

	if (!j)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		j[i].cpu = cpus[i];
		j[i].op = op;
		j[i].src = src + (size_t)i * part;
		j[i].dst = dst + (size_t)i * part;
		j[i].size = part;
		j[i].budget = budget;
		j[i].start = &start;
	}
	if (n == 1) {
		start.go = 1;
		bw_thread(&j[0]);
		started = 1;
	} else {
		for (i = 0; i < n && i < 256; i++) {
			if ((err = -pthread_create(&th[i], NULL, bw_thread, &j[i])))
				break;
			started++;
		}
		__atomic_store_n(&start.go, started, __ATOMIC_RELEASE);
		for (i = 0; i < started; i++)
			pthread_join(th[i], NULL);
	}
	for (i = 0; i < started; i++) {
		lat_hist_merge(&r->ns, &j[i].part.ns);
		lat_hist_merge(&r->ticks, &j[i].part.ticks);
		err = err ? err : j[i].err;
		bytes += j[i].bytes;
		t0 = j[i].t0 < t0 ? j[i].t0 : t0;
		t1 = j[i].t1 > t1 ? j[i].t1 : t1;
	}
	r->mb_s = true;
	r->total_mb_s = t1 > t0 ? (double)bytes * 1000.0 / (double)(t1 - t0) : 0;
	free(j);
	return err;
}

/*
 * The working sets. In the cache: half of where the latency curve shows the
 * caches end (bench's own measurement, not sysfs's word: a VM's sysfs may
 * claim a 480 MiB L3, and a set sized by it reads memory); far above it: 8x
 * that, at least 256 MiB, at most 1 GiB (two buffers of it). Without an end
 * in the curve: a quarter of sysfs's last level, else 1 MiB. basis: how the
 * cache set was sized, for the method line.
 */
static void size_sets(const struct lat_bctx *c, size_t sizes[2], char *basis, size_t n)
{
	__u64 end = lat_bench_cache_end(c->cpu), llc = lat_bench_llc_bytes(), by;

	if (end) {
		sizes[0] = end / 2;
		snprintf(basis, n, "half the %llu KiB the latency curve shows cached",
			 (unsigned long long)(end >> 10));
	} else {
		sizes[0] = llc ? llc / 4 : MIB;
		snprintf(basis, n, "the latency curve shows no cache end: %s",
			 llc ? "a quarter of sysfs's last level" : "1 MiB");
	}
	sizes[0] = sizes[0] < 64 * 1024 ? 64 * 1024 : sizes[0];
	by = end ? end : llc;
	sizes[1] = by * 8 > 256 * MIB ? by * 8 : 256 * MIB;
	sizes[1] = sizes[1] > 1024 * MIB ? 1024 * MIB : sizes[1];
	if (end && llc && (llc > 2 * end || end > 2 * llc))
		lat_bench_note("membw: sysfs describes a %llu KiB last-level cache, the latency "
			       "curve on cpu %d shows the caches ending at %llu KiB: the working "
			       "sets are sized by the curve", (unsigned long long)(llc >> 10),
			       c->cpu, (unsigned long long)(end >> 10));
}

int lat_bench_membw(struct lat_bctx *c)
{
	static char method[2][2][NOPS][240];
	size_t sizes[2];
	int single[1] = { c->cpu }, nall = c->ncpus > 0 ? c->ncpus : 1, err = 0;
	char *src, *dst, name[40], basis[120];
	__u64 budget;

	size_sets(c, sizes, basis, sizeof(basis));
	src = mmap(NULL, sizes[1], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, sizes[1], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	/* written once: a read of memory never written would map the one
	 * zero page, and read the cache */
	memset(src, 1, sizes[1]);
	memset(dst, 2, sizes[1]);
	/* 2 sizes x 3 operations x (one core, all cores), each timed for its
	 * share after an untimed first pass */
	budget = c->budget_ns / (nall > 1 ? 12 : 6);
	for (int s = 0; s < 2 && !err; s++) {
		for (int all = 0; all < 2 && !err; all++) {
			if (all && nall < 2)
				continue;
			for (int op = 0; op < NOPS && !err; op++) {
				struct lat_bres *r;

				snprintf(name, sizeof(name), "mem_%s_%s%s", op_name[op],
					 s ? "dram" : "cache", all ? "_all" : "");
				snprintf(method[s][all][op], sizeof(method[s][all][op]),
					 "%s over %zu KiB (%s), 1 MiB blocks, %s",
					 op == OP_READ ? "64-bit loads" : op == OP_WRITE ? "memset" :
					 "memcpy", sizes[s] >> 10, s ? "far above the cache: 8x its "
					 "end, 256 MiB at least" : basis,
					 all ? "a thread on every chosen core, each on its share" :
					 "one thread");
				r = lat_bres_new(c, name, method[s][all][op], 1);
				if (!r) {
					err = -ENOMEM;
					break;
				}
				if (!s && !all && op == OP_READ) {
					/* what sysfs says against what the curve shows */
					r->check = "llc_bytes";
					r->check_level = true;
					r->expected = (__s64)lat_bench_llc_bytes();
					r->observed = (__s64)lat_bench_cache_end(c->cpu);
				}
				err = phase(r, op, src, dst, sizes[s], all ? c->cpus : single,
					    all ? nall : 1, budget);
			}
		}
	}
	lat_bench_pin(c->cpu);
out:
	if (src != MAP_FAILED)
		munmap(src, sizes[1]);
	if (dst != MAP_FAILED)
		munmap(dst, sizes[1]);
	return err;
}

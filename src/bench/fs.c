// SPDX-License-Identifier: GPL-2.0
/*
 * File system: a file read block by block, sequentially and at random,
 * from the page cache and from the device (O_DIRECT), at two file sizes;
 * the size of the file cache (read time per block against file size: where
 * it jumps from memory to device speed); and contention (per-block device
 * reads as 1, 2, 4 ... processes read their own files at once). Every file
 * is unlinked as soon as it is made: nothing is left in --dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench/benchmarks.h"
#include "bench/file.h"
#include "bench/rand.h"
#include "bench/result.h"
#include "core/hist.h"
#include "core/proc.h"

#define BLK 4096		/* fs_read, fs_contention: one pread */
#define CBLK (64 << 10)		/* fs_cache: one pread */
#define MIB (1ULL << 20)

/* The same file again, with O_DIRECT: -errno when the file system has none */
static int open_direct(int fd)
{
	char p[64];
	int d;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	d = open(p, O_RDONLY | O_DIRECT | O_CLOEXEC);
	return d < 0 ? -errno : d;
}

static void fail(struct lat_bres *r, const char *why)
{
	if (!r)
		return;
	r->failed = true;
	snprintf(r->note, sizeof(r->note), "%s", why);
}

/* Time one 4 KiB pread per sample, offsets in order or at random, until
 * the deadline (at least one pass for the sequential order's sake) */
static int time_reads(struct lat_bres *r, int fd, void *buf, __u64 size, bool random,
		      __u64 deadline)
{
	__u64 off = 0, seed = lat_now_ns() | 1, n = 0, a, blocks = size / BLK;
	ssize_t got;

	while (n == 0 || lat_now_ns() < deadline) {
		for (int k = 0; k < 64; k++, n++) {
			off = random ? lat_xorshift(&seed) % blocks * BLK : (off + BLK) % size;
			a = lat_tick_begin();
			got = pread(fd, buf, BLK, (off_t)off);
			lat_bres_add(r, lat_tick_end() - a);
			if (got != BLK)
				return got < 0 ? -errno : -EIO;
		}
	}
	return 0;
}

int lat_bench_fs_read(struct lat_bctx *c)
{
	static const __u64 sizes[] = { 4 * MIB, 64 * MIB };
	static const char *const how[4] = { "seq_cached", "rand_cached", "seq_direct",
					    "rand_direct" };
	static const char *const method[4] = {
		"pread of 4 KiB, in file order, every page in the page cache",
		"pread of 4 KiB at random offsets, every page in the page cache",
		"pread of 4 KiB with O_DIRECT, in file order: one device read each",
		"pread of 4 KiB with O_DIRECT at random offsets: one device read each",
	};
	__u64 share = c->budget_ns / 8;
	void *buf = NULL;
	int err = 0;

	lat_bench_pin(c->cpu);
	if (posix_memalign(&buf, BLK, BLK))
		return -ENOMEM;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && !err; s++) {
		struct lat_bres *r[4];
		char name[40];
		int fd, dfd;

		for (int k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "fs_read_%s_%llum", how[k],
				 (unsigned long long)(sizes[s] / MIB));
			r[k] = lat_bres_new(c, name, method[k], 1);
			if (!r[k]) {
				free(buf);
				return -ENOMEM;
			}
		}
		fd = lat_bench_make_file(c->dir, sizes[s], r[0]);
		if (fd < 0) {
			char why[sizeof(r[0]->note)];

			memcpy(why, r[0]->note, sizeof(why));
			for (int k = 0; k < 4; k++)
				fail(r[k], why);
			continue;
		}
		r[0]->note[0] = 0;	/* make_file's tmpfs note speaks of faults */
		/* cached: read it all once, then time */
		for (__u64 off = 0; off < sizes[s]; off += BLK)
			if (pread(fd, buf, BLK, (off_t)off) != BLK)
				break;
		for (int k = 0; k < 2 && !err; k++)
			err = time_reads(r[k], fd, buf, sizes[s], k == 1, lat_now_ns() + share);
		dfd = lat_bench_is_tmpfs(fd) ? -EINVAL : open_direct(fd);
		if (dfd < 0) {
			char why[240];

			snprintf(why, sizeof(why), "%.100s: %s, so these reads come from memory, "
				 "not the device; use --dir on a disk", c->dir,
				 lat_bench_is_tmpfs(fd) ? "tmpfs (no O_DIRECT, pages cannot be dropped)" :
				 "no O_DIRECT here");
			fail(r[2], why);
			fail(r[3], why);
		}
		for (int k = 2; k < 4 && dfd >= 0 && !err; k++)
			err = time_reads(r[k], dfd, buf, sizes[s], k == 3, lat_now_ns() + share);
		if (dfd >= 0)
			close(dfd);
		close(fd);
	}
	free(buf);
	return err;
}

/* What the page cache may hold: MemAvailable, or less when this process's
 * memory cgroup (v2, or v1's memory controller) is limited */
static __u64 cache_limit(char *src, size_t n)
{
	char line[512], path[700], buf[64];
	unsigned long long kib = 0;
	__u64 best, v;
	FILE *f;

	snprintf(src, n, "MemAvailable");
	lat_proc_u64("/proc/meminfo", "MemAvailable", &kib);
	best = kib << 10;
	f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof(line), f)) {
		const char *fmt[3] = { NULL };
		char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;

		if (!q)
			continue;
		q[strcspn(q, "\n")] = 0;
		if (!strncmp(line, "0::", 3)) {
			fmt[0] = "/sys/fs/cgroup%s/memory.max";
			fmt[1] = "/sys/fs/cgroup/unified%s/memory.max";
		} else if (strstr(p, "memory")) {
			fmt[0] = "/sys/fs/cgroup/memory%s/memory.limit_in_bytes";
		}
		for (int i = 0; fmt[i]; i++) {
			snprintf(path, sizeof(path), fmt[i], q + 1);
			if (!lat_read_line(path, buf, sizeof(buf)) || !strncmp(buf, "max", 3))
				continue;
			v = strtoull(buf, NULL, 10);
			if (v && v < best) {
				best = v;
				snprintf(src, n, "memory cgroup %.200s", q + 1);
			}
		}
	}
	if (f)
		fclose(f);
	return best;
}

static __u64 free_bytes(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) ? 0 : (__u64)sf.f_bavail * (__u64)sf.f_bsize;
}

/* Grows fd from `have` to `want` bytes, 1 MiB of non-zero bytes a write */
static int extend(int fd, char *mb, __u64 have, __u64 want)
{
	for (; have < want; have += MIB)
		if (pwrite(fd, mb, MIB, (off_t)have) != (ssize_t)MIB)
			return errno ? -errno : -ENOSPC;
	return 0;
}

/* fs_cache's state across its sizes */
struct fcache {
	int fd;
	char *mb, *blk;		/* 1 MiB to write, one block to read */
	__u32 *perm, nperm;
	__u64 have, seed;	/* the file's size now */
};

/* One size: the file grown to it, every block read twice in a random order,
 * the second pass timed into r. 0, or 1 when the sizes stop here (said in
 * r), or -ENOMEM. */
static int one_size(struct fcache *fc, struct lat_bres *r, __u64 size)
{
	__u32 nb = (__u32)(size / CBLK);
	__u64 a;

	if (extend(fc->fd, fc->mb, fc->have, size)) {
		fail(r, "the file could not grow to this size (disk full?)");
		return 1;
	}
	fc->have = size;
	if (nb > fc->nperm) {
		__u32 *t = realloc(fc->perm, nb * sizeof(*fc->perm));

		if (!t)
			return -ENOMEM;
		fc->perm = t;
		fc->nperm = nb;
	}
	/* every block once, in a random order: readahead cannot hide the
	 * device, and a block is in the cache or it is not */
	lat_perm_cycle(fc->perm, nb, &fc->seed);
	for (int pass = 0; pass < 2; pass++)
		for (__u32 i = 0, b = 0; i < nb; i++, b = fc->perm[b]) {
			a = lat_tick_begin();
			if (pread(fc->fd, fc->blk, CBLK, (off_t)b * CBLK) != CBLK) {
				fail(r, "a read failed: the sizes stop here");
				return 1;
			}
			if (pass)
				lat_bres_add(r, lat_tick_end() - a);
		}
	return 0;
}

/* Sizes doubling from 4 MiB until one past the knee (the first whose mean
 * read is 3x the fastest size's: at twice the cache, half the reads miss),
 * or the cap, 4x the limit, half the free space, or 4x the time (a slow
 * disk). A knee holds when the size after it is as slow: a host that stops
 * the vCPU for milliseconds in one size's pass (5 ms of reads at 32 MiB)
 * triples that size's mean alone (a CI run on a stolen host found its knee
 * at 32 MiB in a cgroup of 128). Returns the knee, 0 if none (a slow last
 * size counts, with none after it to say otherwise); -ENOMEM as ~0. */
static __u64 sizes(struct lat_bctx *c, struct fcache *fc, struct lat_bres *first,
		   __u64 limit, __u64 cap)
{
	__u64 size, knee = 0, cand = 0, m0 = 0, mean;
	struct lat_bres *r = first;
	char name[40];
	int err;

	for (size = 4 * MIB;; size *= 2, r = NULL) {
		if (!r) {
			snprintf(name, sizeof(name), size >= 1024 * MIB ? "fs_cache_%llug" :
				 "fs_cache_%llum", (unsigned long long)(size >= 1024 * MIB ?
				 size / (1024 * MIB) : size / MIB));
			r = lat_bres_new(c, name, first->method, 1);
			if (!r)
				return ~0ULL;
		}
		err = one_size(fc, r, size);
		if (err)	/* said in r; the sizes before stand */
			return err < 0 ? ~0ULL : cand;
		mean = r->ticks.count ? r->ticks.sum / r->ticks.count : 0;
		if (m0 && mean >= 3 * m0) {
			knee = cand;	/* the one before was slow too */
			cand = cand ? cand : size;
		} else {
			cand = 0;	/* a stretch of the host's, not the device */
		}
		if (!m0 || mean < m0)	/* the fastest size so far: the cache's speed */
			m0 = mean ? mean : 1;
		if (knee)
			return knee;
		if (size * 2 > cap || size * 2 > 4 * limit || size * 2 > free_bytes(fc->fd) / 2 ||
		    lat_now_ns() >= c->deadline + 3 * c->budget_ns)
			return cand;
	}
}

int lat_bench_fs_cache(struct lat_bctx *c)
{
	struct fcache fc = { .have = 4 * MIB, .seed = lat_now_ns() | 1 };
	__u64 limit, knee, cap;
	struct lat_bres *first;
	char src[240];
	int err = 0;

	lat_bench_pin(c->cpu);
	limit = cache_limit(src, sizeof(src));
	/* the same sizes in every run: 128 MiB per second of the benchmark's
	 * whole time (256 MiB by default), 4x the limit at most */
	cap = 128 * MIB * (c->budget_ns * (__u64)(c->runs > 0 ? c->runs : 1) / 1000000000ULL);
	cap = cap < 8 * MIB ? 8 * MIB : cap;
	fc.mb = malloc(MIB);
	fc.blk = malloc(CBLK);
	first = fc.mb && fc.blk ? lat_bres_new(c, "fs_cache_4m", "read every 64 KiB block of a "
		"file of this size in a random order, twice; the second pass timed: from the "
		"page cache, or from the device where the cache is too small", 1) : NULL;
	if (!first) {
		err = -ENOMEM;
		goto out;
	}
	memset(fc.mb, 0x5a, MIB);
	fc.fd = lat_bench_make_file(c->dir, 4 * MIB, first);
	if (fc.fd < 0) {
		first->failed = true;
		goto out;
	}
	first->note[0] = 0;
	if (lat_bench_is_tmpfs(fc.fd)) {
		fail(first, "--dir is tmpfs: its files live in memory, there is no file-cache "
		     "size to find; use --dir on a disk");
		close(fc.fd);
		goto out;
	}
	knee = sizes(c, &fc, first, limit, cap);
	close(fc.fd);
	if (knee == ~0ULL) {
		err = -ENOMEM;
		goto out;
	}
	first->check = "page_cache_bytes";
	first->check_level = true;
	first->expected = (__s64)limit;
	first->observed = (__s64)knee;
	if (knee)
		snprintf(first->note, sizeof(first->note), "the file cache holds less than %llu "
			 "MiB: the mean read per block 3x slower from that size on (%.100s: "
			 "%llu MiB)",
			 (unsigned long long)(knee / MIB), src,
			 (unsigned long long)(limit / MIB));
	else
		snprintf(first->note, sizeof(first->note), "no jump up to %llu MiB (more with a "
			 "longer --duration): the file cache holds more (%.100s: %llu MiB)",
			 (unsigned long long)(fc.have / MIB), src, (unsigned long long)(limit / MIB));
out:
	free(fc.perm);
	free(fc.mb);
	free(fc.blk);
	return err;
}

/* N processes, each reading its own file with O_DIRECT at random offsets
 * until the deadline; each into its own histogram in shared memory */
static int contend(struct lat_bctx *c, struct lat_bres *r, int n, __u64 deadline)
{
	struct lat_hist *h;
	int fds[16], err = 0, started = 0, first = 0;
	pid_t pids[16];

	/* the first reader on the one-core benchmarks' core, so that
	 * fs_contention_1 is fs_read's random direct read; the rest in turn
	 * (the core that takes the disk's interrupts reads faster) */
	while (first < c->ncpus && c->cpus[first] != c->cpu)
		first++;
	if (first == c->ncpus)
		first = 0;

	h = mmap(NULL, sizeof(*h) * 2 * (size_t)n, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	for (int i = 0; i < n && !err; i++) {
		int fd = lat_bench_make_file(c->dir, 16 * MIB, r);

		if (fd < 0) {
			err = fd;
			break;
		}
		/* tmpfs takes O_DIRECT since 6.6, and reads memory with it */
		fds[i] = lat_bench_is_tmpfs(fd) ? -EINVAL : open_direct(fd);
		close(fd);
		if (fds[i] < 0) {
			err = fds[i];
			fds[i] = -1;
		}
	}
	for (int i = 0; i < n && !err; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			err = -errno;
			break;
		}
		started++;
		if (pids[i] == 0) {
			struct lat_bres me = { 0 };
			void *buf;

			if (c->ncpus)
				lat_bench_pin(c->cpus[(first + i) % c->ncpus]);
			if (posix_memalign(&buf, BLK, BLK) ||
			    time_reads(&me, fds[i], buf, 16 * MIB, true, deadline))
				_exit(1);
			memcpy(&h[2 * i], &me.ns, sizeof(me.ns));
			memcpy(&h[2 * i + 1], &me.ticks, sizeof(me.ticks));
			_exit(0);
		}
	}
	for (int i = 0; i < started; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			err = err ? err : -EIO;
		else {
			lat_hist_merge(&r->ns, &h[2 * i]);
			lat_hist_merge(&r->ticks, &h[2 * i + 1]);
		}
	}
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	munmap(h, sizeof(*h) * 2 * (size_t)n);
	return err;
}

int lat_bench_fs_contention(struct lat_bctx *c)
{
	int max = c->ncpus * 2 > 16 ? 16 : c->ncpus * 2 < 4 ? 4 : c->ncpus * 2, steps = 0;
	char name[40];
	int err = 0;

	for (int n = 1; n <= max; n *= 2)
		steps++;
	for (int n = 1; n <= max && !err; n *= 2) {
		struct lat_bres *r;

		snprintf(name, sizeof(name), "fs_contention_%d", n);
		r = lat_bres_new(c, name, "N processes at once, each pread of 4 KiB with "
				 "O_DIRECT at random offsets of its own 16 MiB file; per read", 1);
		if (!r)
			return -ENOMEM;
		err = contend(c, r, n, lat_now_ns() + c->budget_ns / steps);
		if (err == -EINVAL) {
			fail(r, "no O_DIRECT in --dir (tmpfs?): no device to contend for; use "
			     "--dir on a disk");
			err = 0;
			break;
		}
	}
	return err;
}

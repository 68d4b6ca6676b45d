// SPDX-License-Identifier: GPL-2.0
/* Reading BPF maps from user space (maps.h): the one walk of a map, batched
 * deletes, the generation drain and the fold into "(others)", what the
 * kernel says it did not run, and the tables families keep per key. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/maps.h"
#include "core/yield.h"

/*
 * Calls fn(key, value, ctx) for every entry of the hash map fd, with the
 * value read into buf (one value, or one per possible CPU for per-CPU maps:
 * the caller sizes it). Entries deleted meanwhile are skipped. Returns 0, a
 * negative errno, or the first non-zero return of fn.
 */
/* what a hash's batch read allocates in the kernel at each call: a
 * bucket's values, 5 at least (htab's first guess), and the largest block
 * (order 3) the page allocator's per-CPU lists recycle */
#define LAT_BATCH_BUCKET 5
#define LAT_BATCH_KERNEL_MAX (32 * 1024)

/* The batch read (5.6): a few syscalls for the whole map where the loop
 * below takes two per entry (10,000 hiccup intruders: 54 % of the loader's
 * CPU). Returns -EOPNOTSUPP when the kernel or the map cannot. */
static int map_each_batch(int fd, void *buf, int (*fn)(const void *key, void *value, void *ctx),
			  void *ctx)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), n, i, batch_pos = 0;
	size_t vsize, chunk;
	char *keys = NULL, *vals = NULL;
	bool first = true, done = false;
	int err = 0, ncpus = 1;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type == BPF_MAP_TYPE_PERCPU_HASH || info.type == BPF_MAP_TYPE_LRU_PERCPU_HASH)
		ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		return -EOPNOTSUPP;
	vsize = ncpus > 1 || info.type == BPF_MAP_TYPE_PERCPU_HASH ||
			info.type == BPF_MAP_TYPE_LRU_PERCPU_HASH ?
		(size_t)((info.value_size + 7) & ~7U) * (size_t)ncpus : info.value_size;
	/* Large values one at a time: a hash's batch read allocates a kernel
	 * buffer of a whole bucket's values (5 at least) at each call, past
	 * 32 KiB a block the page allocator's per-CPU lists do not keep, so
	 * each call takes fresh pages (on a VM whose host takes free pages
	 * back, each first touch a trip to the host), in a system call a
	 * target that wakes cannot preempt: a batch of sched's 21 KiB thread
	 * entries held a CPU up to 148 us. One lookup copies through a block
	 * of its value's size, which those lists hand back at the next. */
	if (LAT_BATCH_BUCKET * vsize > LAT_BATCH_KERNEL_MAX)
		return -EOPNOTSUPP;
	/* at most 48 KiB of values at a time: one batch is one stretch in
	 * the kernel that a task waking on latbpf's CPU cannot preempt (256
	 * KiB took 110-160 us), and heap memory, not a fresh mmap each poll */
	chunk = 48 * 1024 / vsize;
	chunk = chunk < 1 ? 1 : chunk > 1024 ? 1024 : chunk;
	keys = malloc(chunk * info.key_size);
	vals = malloc(chunk * vsize);
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (!done) {
		lat_yield_point();
		n = (__u32)chunk;
		if (bpf_map_lookup_batch(fd, first ? NULL : &batch_pos, &batch_pos, keys, vals,
					 &n, &opts)) {
			if (errno == ENOSPC && chunk < 65536) {
				/* a bucket holds more than a chunk: the
				 * kernel stays put, a larger chunk retries */
				char *k2 = realloc(keys, 2 * chunk * info.key_size);
				char *v2 = k2 ? realloc(vals, 2 * chunk * vsize) : NULL;

				keys = k2 ? k2 : keys;
				vals = v2 ? v2 : vals;
				if (!k2 || !v2) {
					err = -ENOMEM;
					goto out;
				}
				chunk *= 2;
				continue;
			}
			if (errno != ENOENT) {
				/* no batch ops here: the loop reads it, unless
				 * entries were handed out already */
				err = first ? -EOPNOTSUPP : -errno;
				goto out;
			}
			done = true;
		}
		first = false;
		for (i = 0; i < n && !err; i++) {
			memcpy(buf, vals + i * vsize, vsize);
			err = fn(keys + (size_t)i * info.key_size, buf, ctx);
			/* an entry can be long: a thread's 21 KiB */
			lat_yield_point();
		}
		if (err)
			goto out;
	}
out:
	free(keys);
	free(vals);
	return err;
}

int lat_map_each(int fd, size_t key_size, void *buf,
		 int (*fn)(const void *key, void *value, void *ctx), void *ctx)
{
	char *key, *next;
	bool first = true;
	int err = map_each_batch(fd, buf, fn, ctx);

	if (err != -EOPNOTSUPP)
		return err;
	err = 0;
	key = malloc(key_size);
	next = malloc(key_size);
	if (!key || !next) {
		err = -ENOMEM;
		goto out;
	}
	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		memcpy(key, next, key_size);
		first = false;
		lat_yield_point();
		if (bpf_map_lookup_elem(fd, key, buf))
			continue;
		if ((err = fn(key, buf, ctx)))
			break;
	}
out:
	free(key);
	free(next);
	return err;
}

/* n keys (key_size bytes each) out of the hash fd: a syscall for up to 128
 * of them where the kernel can (5.6), one each where it cannot, with a
 * yield point between batches: one batch is one stretch in the kernel (a
 * poll's hiccup intruders in one batch took up to 97 us) */
#define DELETE_BATCH 128

void lat_map_delete_keys(int fd, const void *keys, size_t n, size_t key_size)
{
	for (size_t at = 0; at < n; at += DELETE_BATCH) {
		const char *k = (const char *)keys + at * key_size;
		size_t m = n - at < DELETE_BATCH ? n - at : DELETE_BATCH;
		__u32 cnt = (__u32)m;

		if (at)
			lat_yield_point();
		if (bpf_map_delete_batch(fd, k, &cnt, NULL))
			for (size_t i = 0; i < m; i++)
				bpf_map_delete_elem(fd, k + i * key_size);
	}
}

__u32 lat_env_entries(const char *var, __u32 dflt)
{
	const char *env = getenv(var);
	unsigned long n = env ? strtoul(env, NULL, 10) : 0;

	return n >= 1 && n <= dflt ? (__u32)n : dflt;
}

int lat_map_template(int fd, const void *value, const char *family)
{
	__u32 key = 0;
	int err;

	if (!bpf_map_update_elem(fd, &key, value, 0))
		return 0;
	err = -errno;
	fprintf(stderr, "%s: template: %s\n", family, strerror(-err));
	return err;
}

/* The item whose key is key; a new zeroed one (*fresh set) if none, kept in
 * key order. NULL when out of memory. */
void *lat_table_get(struct lat_table *t, const void *key, bool *fresh)
{
	size_t lo = 0, hi = t->n, mid;
	char *at;
	int c;

	*fresh = false;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = memcmp(lat_table_at(t, mid), key, t->key_size);
		if (c == 0)
			return lat_table_at(t, mid);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		void *n = realloc(t->items, cap * t->item_size);

		if (!n)
			return NULL;
		t->items = n;
		t->cap = cap;
	}
	at = lat_table_at(t, lo);
	memmove(at + t->item_size, at, (t->n - lo) * t->item_size);
	memset(at, 0, t->item_size);
	memcpy(at, key, t->key_size);
	t->n++;
	*fresh = true;
	return at;
}

/*
 * Events the kernel did not run obj's programs for: a program already
 * running on a CPU is not entered again there, so an interrupt that hits
 * the same tracepoint inside it is lost (bpf_prog_info.recursion_misses,
 * 5.12+; 0 before).
 */
__u64 lat_prog_misses(const struct bpf_object *obj)
{
	struct bpf_program *p;
	__u64 n = 0;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		lat_yield_point();
		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			n += info.recursion_misses;
	}
	return n;
}


int lat_gen_seen(struct lat_gen_drain *d, const void *key, __u32 key_gen)
{
	if (key_gen == d->gen)
		return 1;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		void *g = realloc(d->gone, cap * d->key_size);

		if (!g)
			return -ENOMEM;
		d->gone = g;
		d->cap = cap;
	}
	memcpy((char *)d->gone + d->n++ * d->key_size, key, d->key_size);
	return 0;
}

__u32 lat_gen_flip(struct lat_gen_drain *d, int fd)
{
	lat_map_delete_keys(fd, d->gone, d->n, d->key_size);
	d->n = 0;
	return d->gen ^= 1;
}

void lat_gen_free(struct lat_gen_drain *d)
{
	free(d->gone);
	d->gone = NULL;
	d->n = d->cap = 0;
}

struct pick {
	const void *item;
	__u64 w;
};

static int cmp_pick(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return (x->item > y->item) - (x->item < y->item);
}

long lat_fold_pick(const void *items, size_t n, size_t size, size_t keep,
		   bool (*eligible)(const void *item), __u64 (*weight)(const void *item),
		   const void ***out)
{
	size_t i, k = 0, want = n > keep ? n - keep : 0;
	struct pick *p;

	*out = NULL;
	if (!want)
		return 0;
	if (!(p = malloc(n * sizeof(*p))) || !(*out = malloc(want * sizeof(**out)))) {
		free(p);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const void *it = (const char *)items + i * size;

		if (!eligible || eligible(it))
			p[k++] = (struct pick){ it, weight(it) };
	}
	qsort(p, k, sizeof(*p), cmp_pick);
	want = want < k ? want : k;
	for (i = 0; i < want; i++)
		(*out)[i] = p[i].item;
	free(p);
	return (long)want;
}


// SPDX-License-Identifier: GPL-2.0
/* Reading BPF maps from user space: the one drain loop; what the kernel
 * says it did not run; and what libbpf said when a load failed. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lat.h"

/*
 * Calls fn(key, value, ctx) for every entry of the hash map fd, with the
 * value read into buf (one value, or one per possible CPU for per-CPU maps:
 * the caller sizes it). Entries deleted meanwhile are skipped. Returns 0, a
 * negative errno, or the first non-zero return of fn.
 */
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
	/* at most 256 KiB of values at a time: RSS, not syscalls, is the
	 * bound for 16 KB values */
	chunk = 256 * 1024 / vsize;
	chunk = chunk < 1 ? 1 : chunk > 1024 ? 1024 : chunk;
	keys = malloc(chunk * info.key_size);
	vals = malloc(chunk * vsize);
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (!done) {
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

/* n keys (key_size bytes each) out of the hash fd: one syscall for them all
 * where the kernel can (5.6), one each where it cannot */
void lat_map_delete_keys(int fd, const void *keys, size_t n, size_t key_size)
{
	__u32 cnt = (__u32)n;
	size_t i;

	if (n && bpf_map_delete_batch(fd, keys, &cnt, NULL))
		for (i = 0; i < n; i++)
			bpf_map_delete_elem(fd, (const char *)keys + i * key_size);
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

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

/* What libbpf last said went wrong, for the messages of a failed load: its
 * first warning since lat_libbpf_reset() and the verifier's last word. */
static char libbpf_first[160], libbpf_verifier[160], libbpf_last_log[160];
static bool libbpf_in_log;

void lat_libbpf_reset(void)
{
	libbpf_first[0] = libbpf_verifier[0] = libbpf_last_log[0] = '\0';
	libbpf_in_log = false;
}

const char *lat_libbpf_why(char *buf, size_t len)
{
	if (!libbpf_first[0])
		return "";
	if (libbpf_verifier[0])
		snprintf(buf, len, "%s (verifier: %s)", libbpf_first, libbpf_verifier);
	else
		snprintf(buf, len, "%s", libbpf_first);
	return buf;
}

/* one line of libbpf's output, untrusted as any kernel string */
static void libbpf_keep(char *dst, size_t len, const char *line)
{
	if (!strncmp(line, "libbpf: ", 8))
		line += 8;
	snprintf(dst, len, "%.*s", (int)strcspn(line, "\n"), line);
	for (char *c = dst; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
}

/* the verifier's last word in text..end: its last line that is not its
 * statistics ("processed N insns ...", "verification time ...") */
static void libbpf_last_line(char *dst, size_t dlen, char *text, char *end)
{
	char *start;

	for (;;) {
		while (end > text && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		*end = '\0';
		if (end == text)
			return;
		start = strrchr(text, '\n');
		start = start ? start + 1 : text;
		if (strncmp(start, "processed ", 10) && strncmp(start, "verification time", 17)) {
			libbpf_keep(dst, dlen, start);
			return;
		}
		end = start;
	}
}

void lat_libbpf_note(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char begin[] = "-- BEGIN PROG LOAD LOG --", end[] = "-- END PROG LOAD LOG --";
	char *line = NULL, *b, *e;
	va_list copy;

	va_copy(copy, ap);
	if (level == LIBBPF_WARN && vasprintf(&line, fmt, copy) < 0)
		line = NULL;
	va_end(copy);
	if (line) {
		/* the verifier's log comes between these markers, in one call
		 * or in several; its last line says why it refused */
		b = strstr(line, begin);
		e = strstr(b ? b : line, end);
		if (b || libbpf_in_log) {
			char *body = b ? b + sizeof(begin) - 1 : line;

			libbpf_last_line(libbpf_last_log, sizeof(libbpf_last_log), body,
					 e ? e : body + strlen(body));
			libbpf_in_log = !e;
			if (e && !libbpf_verifier[0])
				snprintf(libbpf_verifier, sizeof(libbpf_verifier), "%s",
					 libbpf_last_log);
		} else if (!libbpf_first[0]) {
			libbpf_keep(libbpf_first, sizeof(libbpf_first), line);
		}
		free(line);
	}
}

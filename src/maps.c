// SPDX-License-Identifier: GPL-2.0
/* Reading BPF hash maps from user space: the one drain loop. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "lat.h"

/*
 * Calls fn(key, value, ctx) for every entry of the hash map fd, with the
 * value read into buf (one value, or one per possible CPU for per-CPU maps:
 * the caller sizes it). Entries deleted meanwhile are skipped. Returns 0, a
 * negative errno, or the first non-zero return of fn.
 */
int lat_map_each(int fd, size_t key_size, void *buf,
		 int (*fn)(const void *key, void *value, void *ctx), void *ctx)
{
	char *key = malloc(key_size), *next = malloc(key_size);
	bool first = true;
	int err = 0;

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

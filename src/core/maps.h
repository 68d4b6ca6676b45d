/* SPDX-License-Identifier: GPL-2.0 */
/* Reading BPF maps: whole-map walks, batched deletes, sizes from test
 * knobs, and the sorted tables a family keeps per map key across polls. */
#ifndef LATBPF_CORE_MAPS_H
#define LATBPF_CORE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

int lat_map_each(int fd, size_t key_size, void *buf,
		 int (*fn)(const void *key, void *value, void *ctx), void *ctx);
void lat_map_delete_keys(int fd, const void *keys, size_t n, size_t key_size);
struct bpf_object;
__u64 lat_prog_misses(const struct bpf_object *obj);
/* a map's entries: dflt, or fewer from the environment variable var, a
 * test's knob to fill it (README, "Environment") */
__u32 lat_env_entries(const char *var, __u32 dflt);
/* writes value as key 0 of the one-entry array fd: the template a shared
 * map's new keys start from; prints "family: template: ..." on failure */
int lat_map_template(int fd, const void *value, const char *family);

/*
 * A hash whose BPF writers charge one of two key generations, flipped at
 * every poll: what the loader reads of the other generation is final (no
 * writer since the flip, an interval ago), so it is taken and deleted
 * after the read. The shape of every drain of a shared hash (hiccup's
 * intruders, tcp's remotes).
 */
struct lat_gen_drain {
	void *gone;		/* the old generation's keys read this poll */
	size_t n, cap, key_size;
	__u32 gen;		/* the generation BPF writes now */
};
/* a key read from the map, of generation key_gen: 1 when it is the live
 * generation's, 0 when it is the old one's (kept, to be deleted), or
 * -ENOMEM */
int lat_gen_seen(struct lat_gen_drain *d, const void *key, __u32 key_gen);
/* deletes the old keys from fd and flips: returns the generation BPF is to
 * write now (for its .bss) */
__u32 lat_gen_flip(struct lat_gen_drain *d, int fd);
void lat_gen_free(struct lat_gen_drain *d);

/*
 * Which items to sum into "(others)" so that at most keep remain by name:
 * the eligible ones (eligible NULL: all) of least weight, ties in the
 * items' order, n - keep of them or fewer when fewer are eligible. Returns
 * how many pointers went into *out (malloc'd, lightest first), or -ENOMEM.
 */
long lat_fold_pick(const void *items, size_t n, size_t size, size_t keep,
		   bool (*eligible)(const void *item), __u64 (*weight)(const void *item),
		   const void ***out);

/* A table of items kept in the byte order (memcmp) of a key at their start,
 * so items sharing a key prefix are adjacent: what a family keeps per map
 * key across polls (devices, remotes). */
struct lat_table {
	void *items;
	size_t n, cap, item_size, key_size;
};
void *lat_table_get(struct lat_table *t, const void *key, bool *fresh);
#define lat_table_at(t, i) ((void *)((char *)(t)->items + (i) * (t)->item_size))

#endif

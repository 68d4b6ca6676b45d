// SPDX-License-Identifier: GPL-2.0
/* The hiccup family's intruder totals: the hash's entries plus every CPU's
 * cached slots (latbpf/hiccup.h), merged by lat_hc_merge_caches(). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "families/hiccup.h"
#include "tap.h"

static void put(struct lat_hc_intruder_list *l, __u32 cpu, __u32 who, __u32 id,
		__u64 count, __u64 total, __u64 max, const char *name)
{
	struct lat_hc_intruder_entry *e;

	l->a = realloc(l->a, (l->n + 1) * sizeof(*l->a));
	e = &l->a[l->n++];
	memset(e, 0, sizeof(*e));
	e->k = (struct lat_hc_intruder_key){ .cpu = cpu, .who = who, .id = id };
	e->v.count = count;
	e->v.total_ns = total;
	e->v.max_ns = max;
	snprintf(e->v.name, sizeof(e->v.name), "%s", name);
	l->cap = l->n;
}

static void slot(struct lat_hc_cache *c, __u32 who, __u32 id, __u64 count, __u64 total,
		 __u64 max, const char *name)
{
	struct lat_hc_slot *s = &c->slot[lat_hc_slot_of(who, id)];

	s->who = who;
	s->id = id;
	s->count = count;
	s->total_ns = total;
	s->max_ns = max;
	snprintf(s->name, sizeof(s->name), "%s", name);
}

/* the loader's order of keys: cpu, who, id, then generation, as numbers */
static int key_before(const struct lat_hc_intruder_key *a, const struct lat_hc_intruder_key *b)
{
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu;
	if (a->who != b->who)
		return a->who < b->who;
	if (a->id != b->id)
		return a->id < b->id;
	return a->gen < b->gen;
}

static const struct lat_hc_intruder_entry *find(const struct lat_hc_intruder_list *l,
						 __u32 cpu, __u32 who, __u32 id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->a[i].k.cpu == cpu && l->a[i].k.who == who && l->a[i].k.id == id)
			return &l->a[i];
	return NULL;
}

int main(void)
{
	struct lat_hc_cache *c = calloc(2, sizeof(*c));
	struct lat_hc_intruder_list l = { 0 };
	const struct lat_hc_intruder_entry *e;
	bool sorted = true, spread = true;
	unsigned char used[LAT_HC_CACHE] = { 0 };
	__u32 i, distinct = 0;
	int err;

	/* the hash, in the kernel's (any) order */
	put(&l, 1, LAT_HC_TASK, 100, 1, 10, 10, "x");
	put(&l, 0, LAT_HC_WHO_IRQ, 5, 7, 700, 300, "eth0");
	put(&l, 0, LAT_HC_TASK, 100, 5, 500, 200, "old");
	/* cpu 0 caches pid 100 (moved before, now back) and pid 7 (new);
	 * cpu 1 caches pid 100, which has a hash entry of cpu 1 too */
	slot(&c[0], LAT_HC_TASK, 100, 3, 300, 250, "new");
	slot(&c[0], LAT_HC_TASK, 7, 2, 20, 15, "b");
	/* 300 after 7 in number order, before it in memcmp's byte order */
	slot(&c[0], LAT_HC_TASK, 300, 1, 30, 30, "c");
	slot(&c[1], LAT_HC_TASK, 100, 1, 5, 5, "x");
	slot(&c[1], LAT_HC_MIGRATION, 0, 4, 4000, 2000, "");
	err = lat_hc_merge_caches(&l, c, 2);
	ok(err == 0 && l.n == 6, "3 hash entries + 3 new keys from the caches = 6 (%zu)", l.n);
	e = find(&l, 0, LAT_HC_TASK, 100);
	ok(e && e->v.count == 8 && e->v.total_ns == 800 && e->v.max_ns == 250,
	   "a key in hash and cache: counts and totals add, max is the larger");
	ok(e && !strcmp(e->v.name, "new"), "... and the cache's (newer) name wins");
	e = find(&l, 0, LAT_HC_TASK, 7);
	ok(e && e->v.count == 2 && e->v.total_ns == 20 && !strcmp(e->v.name, "b"),
	   "a key only in a cache becomes an entry with its name");
	e = find(&l, 1, LAT_HC_TASK, 100);
	ok(e && e->v.count == 2 && e->v.total_ns == 15,
	   "the same pid on another CPU is another key");
	e = find(&l, 0, LAT_HC_WHO_IRQ, 5);
	ok(e && e->v.count == 7 && e->v.total_ns == 700, "hash-only entries are untouched");
	e = find(&l, 1, LAT_HC_MIGRATION, 0);
	ok(e && e->v.count == 4 && e->v.total_ns == 4000, "migration slots merge like tasks");
	for (i = 1; i < l.n; i++)
		sorted &= key_before(&l.a[i - 1].k, &l.a[i].k);
	ok(sorted, "the result is sorted by key, for the next poll's bsearch");
	free(l.a);

	/* consecutive pids, the common case, spread over the slots */
	for (i = 0; i < LAT_HC_CACHE; i++) {
		__u32 s = lat_hc_slot_of(LAT_HC_TASK, 4000 + i);

		spread &= s < LAT_HC_CACHE;
		distinct += s < LAT_HC_CACHE && !used[s]++;
	}
	ok(spread, "every slot index is in range");
	ok(distinct >= LAT_HC_CACHE * 3 / 4, "64 consecutive pids use %u of 64 slots", distinct);
	ok(lat_hc_slot_of(LAT_HC_TASK, 7) != lat_hc_slot_of(LAT_HC_MIGRATION, 7),
	   "a task and a migration with the same id use different slots");
	free(c);
	/* threaded interrupt handlers: the IRQ from the thread's comm */
	{
		static const struct {
			const char *comm, *name;
			long irq;
		} c[] = {
			{ "irq/24-ACPI:Ged", "ACPI:Ged", 24 },
			{ "irq/125-nvme0q1", "nvme0q1", 125 },
			{ "irq/9-s-acpi", "acpi", 9 },
			{ "irq/7", "", 7 },
			{ "irq/x-evil", NULL, -1 },
			{ "irq/12x", NULL, -1 },
			{ "kworker/0:1", NULL, -1 },
			{ "irq/", NULL, -1 },
		};
		char full[16];
		const char *name;

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			long irq = lat_hc_irq_thread(c[i].comm, &name);

			ok(irq == c[i].irq && (irq < 0 || !strcmp(name, c[i].name)),
			   "irq thread '%s' -> %ld '%s'", c[i].comm, irq, irq < 0 ? "" : name);
		}
		/* 16 bytes, no terminating NUL: stays inside them */
		memcpy(full, "irq/1234-abcdefg", 16);
		ok(lat_hc_irq_thread(full, &name) == 1234 && !strncmp(name, "abcdefg", 7) &&
		   name == full + 9, "a comm of 16 bytes without NUL");
	}
	return done_testing();
}

// SPDX-License-Identifier: GPL-2.0
/* block family: loader side of bpf/block.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/btf.h"
#include "core/cpumap.h"
#include "core/maps.h"
#include "core/run.h"
#include "core/snap.h"
#include "core/yield.h"
#include "families/family.h"
#include "families/skel.h"
#include "latbpf/block.h"
#include "block.skel.h"

struct dev_stats {
	struct lat_blk_key k;
	char name[32];
	struct lat_blk_stats now, before;
};

struct block {
	struct block_bpf *skel;
	const struct lat_run *run;
	struct lat_blk_stats value;	/* one lookup */
	struct lat_table devs;		/* of struct dev_stats, by key */
	__u64 missed, missed_before;	/* lat_prog_misses() */
	__u64 lost, lost_before;	/* stats_lost (.bss): blk_stats full */
	__u64 stale, stale_before;	/* stale (.bss): merged requests' leftovers */
	__u64 flost, flost_before;	/* follow_lost (.bss): blk_inflight full */
	struct lat_cpu_array slots;	/* blk_inflight, mapped at the end */
};

static const char *const op_name[LAT_BLK_NR_OPS] = { "read", "write", "other" };

/* block_rq_insert/issue/merge took (q, rq) before 5.11 and (rq) since. */
static bool tp_takes_queue(const struct btf *btf, const char *tp)
{
	return lat_btf_tracepoint_nargs(btf, tp) == 3;	/* ctx, q, rq */
}

static int block_open(const struct lat_family_ctx *fc, const void *cfg, void **priv)
{
	const struct lat_run *run = fc->run;
	struct block *b = calloc(1, sizeof(*b));
	bool old_insert = tp_takes_queue(fc->btf, "block_rq_insert");
	bool old_issue = tp_takes_queue(fc->btf, "block_rq_issue");
	bool old_merge = tp_takes_queue(fc->btf, "block_rq_merge");
	__u32 want, slots = 1;
	int err;

	if (!b)
		return -ENOMEM;
	b->run = run;
	b->devs.item_size = sizeof(struct dev_stats);
	b->devs.key_size = sizeof(struct lat_blk_key);
	b->skel = block_bpf__open();
	if (!b->skel) {
		err = -errno;
		goto fail;
	}
	b->skel->rodata->lat_targ = run->target;
	if ((err = lat_skel_share(run, b->skel->obj)))
		goto fail;
	bpf_map__set_max_entries(b->skel->maps.blk_stats,
				 lat_env_entries("LATBPF_BLK_KEYS", LAT_BLK_MAX_KEYS));
	/* a power of two: a request's slots are found by a mask */
	want = lat_env_entries("LATBPF_BLK_INFLIGHT", LAT_BLK_MAX_INFLIGHT);
	while (slots < want)
		slots <<= 1;
	b->skel->rodata->inflight_mask = slots - 1;
	bpf_map__set_max_entries(b->skel->maps.blk_inflight, slots);
	bpf_program__set_autoload(b->skel->progs.block_insert, !old_insert);
	bpf_program__set_autoload(b->skel->progs.block_insert_old, old_insert);
	bpf_program__set_autoload(b->skel->progs.block_issue, !old_issue);
	bpf_program__set_autoload(b->skel->progs.block_issue_old, old_issue);
	bpf_program__set_autoload(b->skel->progs.block_merge, !old_merge);
	bpf_program__set_autoload(b->skel->progs.block_merge_old, old_merge);
	*priv = b;
	return 0;
fail:
	block_bpf__destroy(b->skel);
	free(b);
	return err;
}

static int block_load(void *priv)
{
	struct block *b = priv;
	int err = lat_skel_load("block", b->skel->skeleton, "");

	if (err)
		return err;
	/* the template new keys start from: every min above any value */
	memset(&b->value, 0, sizeof(b->value));
	b->value.latency.min = b->value.queue.min = b->value.size.min = ~0ULL;
	return lat_map_template(bpf_map__fd(b->skel->maps.blk_zero), &b->value, "block");
}

static int block_attach(void *priv)
{
	return lat_skel_attach("block", ((struct block *)priv)->skel->skeleton);
}

static const char *block_mode(void *priv)
{
	return "attached (tp_btf)";
}

/* The disk's name as in /sys/block, from /sys/dev/block/MAJ:MIN/uevent. */
static void dev_name(__u32 dev, char *buf, size_t len)
{
	char path[64], line[128];
	FILE *f;

	snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", dev >> 20, dev & 0xfffff);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%.31s", line + 8);
			break;
		}
	fclose(f);
}

static int merge_dev(const void *key, void *value, void *ctx)
{
	struct block *b = ctx;
	bool fresh;
	struct dev_stats *d = lat_table_get(&b->devs, key, &fresh);

	if (!d)
		return -ENOMEM;
	if (fresh)
		dev_name(d->k.dev, d->name, sizeof(d->name));
	memcpy(&d->now, value, sizeof(d->now));
	lat_hist_count_slots(&d->now.latency);
	lat_hist_count_slots(&d->now.queue);
	lat_hist_count_slots(&d->now.size);
	return 0;
}

static int block_poll(void *priv)
{
	struct block *b = priv;

	for (size_t i = 0; i < b->devs.n; i++) {
		struct dev_stats *d = lat_table_at(&b->devs, i);

		d->before = d->now;
	}
	b->missed_before = b->missed;
	b->missed = lat_prog_misses(b->skel->obj);
	b->lost_before = b->lost;
	b->lost = __atomic_load_n(&b->skel->bss->stats_lost, __ATOMIC_RELAXED);
	b->stale_before = b->stale;
	b->stale = __atomic_load_n(&b->skel->bss->stale, __ATOMIC_RELAXED);
	b->flost_before = b->flost;
	b->flost = __atomic_load_n(&b->skel->bss->follow_lost, __ATOMIC_RELAXED);
	return lat_map_each(bpf_map__fd(b->skel->maps.blk_stats), sizeof(struct lat_blk_key),
			    &b->value, merge_dev, b);
}

static void publish_op(struct lat_snap *s, const struct dev_stats *d)
{
	const char *op = op_name[d->k.op < LAT_BLK_NR_OPS ? d->k.op : 2];

	lat_pub_obj(s, op, op);
	lat_pub_label(s, "op", op, op);
	lat_pub_count(s, "count", d->now.latency.count - d->before.latency.count,
		      d->now.latency.count);
	lat_pub_hist(s, "latency", "device latency (issue -> complete)", &d->now.latency,
		     &d->before.latency);
	lat_pub_hist(s, "queue", "queue latency (insert -> issue)", &d->now.queue,
		     &d->before.queue);
	lat_pub_bytes(s, "size", "request size", &d->now.size, &d->before.size);
	lat_pub_end(s);
}

/* The slots of blk_inflight still taken: requests followed and not ended.
 * Read through a mapping of the table (core/cpumap.h's, one entry a slot),
 * with no system call a woken target could wait behind, a yield point
 * every 1024 slots; -1 when the kernel refuses the mapping. */
static long long held_slots(struct block *b)
{
	int n = (int)bpf_map__max_entries(b->skel->maps.blk_inflight);
	long long held = 0;

	if (!b->slots.map)
		lat_cpu_array_init(&b->slots, b->skel->maps.blk_inflight, n);
	for (int i = 0; i < n; i++) {
		/* the slot's first word: its request, 0 when free */
		const volatile __u64 *rq = lat_cpu_array_at(&b->slots, i);

		if (!rq)
			return -1;
		if (!(i & 1023))
			lat_yield_point();
		held += *rq != 0;
	}
	return held;
}

static void block_publish(void *priv, struct lat_snap *s)
{
	struct block *b = priv;
	struct dev_stats *devs = b->devs.items;
	size_t i, j, n = b->devs.n;

	lat_pub_obj(s, "block", "block: the target's disk I/O, per device");
	lat_pub_list(s, "devices", "devices");
	/* devs is sorted by (dev, op): one item per device, its ops inside */
	for (i = 0; i < n; i = j) {
		bool active = false;

		for (j = i; j < n && devs[j].k.dev == devs[i].k.dev; j++)
			active |= devs[j].now.latency.count != devs[j].before.latency.count;
		lat_pub_item(s, active, true);
		lat_pub_label(s, "device", devs[i].name, devs[i].name);
		lat_pub_str(s, "name", devs[i].name);
		for (j = i; j < n && devs[j].k.dev == devs[i].k.dev; j++)
			publish_op(s, &devs[j]);
		lat_pub_end(s);
	}
	lat_pub_end(s);
	/* completions that arrived inside one of these programs */
	lat_pub_flags(lat_pub_count(s, "missed", b->missed - b->missed_before, b->missed),
		      LAT_F_NONZERO | LAT_F_DROP);
	/* completions whose (device, op) had no room in blk_stats */
	lat_pub_flags(lat_pub_count(s, "stats_lost", b->lost - b->lost_before, b->lost),
		      LAT_F_NONZERO | LAT_F_DROP);
	/* requests of the target that blk_inflight had no room to follow */
	lat_pub_flags(lat_pub_count(s, "requests_lost", b->flost - b->flost_before, b->flost),
		      LAT_F_NONZERO | LAT_F_DROP);
	/* requests followed whose issue, completion or merge the kernel did
	 * not run a program for, found when a later request met their slot:
	 * not credited (the target's: a drop) */
	lat_pub_flags(lat_pub_count(s, "stale_requests", b->stale - b->stale_before, b->stale),
		      LAT_F_NONZERO | LAT_F_DROP);
	/* the final record: requests still followed when latbpf stopped, in
	 * flight or ended unseen with no later request to meet their slot
	 * (after the target stopped, the second) */
	if (s->final) {
		long long held = held_slots(b);

		if (held > 0)
			lat_pub_flags(lat_pub_count(s, "in_flight", held, held), LAT_F_GAUGE);
	}
	lat_pub_end(s);
}

static void block_destroy(void *priv)
{
	struct block *b = priv;

	if (!b)
		return;
	lat_cpu_array_free(&b->slots);
	block_bpf__destroy(b->skel);
	free(b->devs.items);
	free(b);
}

const struct lat_module_ops lat_block_ops = {
	.name = "block",
	.open = block_open,
	.load = block_load,
	.attach = block_attach,
	.mode = block_mode,
	.poll = block_poll,
	.publish = block_publish,
	.destroy = block_destroy,
};

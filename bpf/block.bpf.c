// SPDX-License-Identifier: GPL-2.0
/*
 * block family: device latency (block_rq_issue -> block_rq_complete), queue
 * latency (block_rq_insert -> issue) and request sizes, per disk and
 * read / write / other, for the requests a target inserts or issues in its
 * own context.
 *
 * A request is followed from the first of insert or issue that happens in
 * a target's context (any context, system-wide), from its insert only if
 * it goes through an I/O scheduler: its state lives in a slot of an array
 * found from the request's address (below), freed when it completes or is
 * merged away, so the slots hold the target's requests in flight, not
 * every address a queue ever used. A request that finds no free slot is
 * not followed, counted (follow_lost); none is ever evicted. I/O the kernel submits
 * later from its own threads (writeback, the loop driver's workers,
 * read-ahead from kthreads) is attributed to those threads, not the target.
 *
 * A request merged into another in the I/O scheduler is freed without
 * completing, and blk-mq soon hands its address to a new request, maybe
 * another process's: block_rq_merge forgets it when that happens, and a
 * request's generation (its start time) tells an earlier request's entry
 * from its own if a request went away unseen.
 *
 * block_rq_insert, block_rq_issue and block_rq_merge (one event class) lost
 * their request_queue argument in 5.11 (commit a54895fa057c "block: remove
 * the request_queue to argument request based tracepoints"); the loader
 * reads the signature from BTF and loads the matching programs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "latbpf/block.h"
#include "target.bpf.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct inflight {
	__u64 rq;		/* the request's inflight_id(); 0: a free slot */
	__u64 insert_ts;	/* 0: not seen; both 0: not followed */
	__u64 issue_ts;
	/* the request's generation: its start_time_ns when first seen, set
	 * when the kernel hands the struct out (same_request) */
	__u64 gen;
	__u32 bytes;
	__u32 _pad;
};

/* Counted losses, read by the loader through the skeleton (.bss):
 * completions whose (device, op) found blk_stats full */
__u64 stats_lost = 0;
/* requests followed whose end the family did not see, found when a later
 * request met their slot: not credited (leftover, below) */
__u64 stale = 0;
/* requests of the target that found their slots in blk_inflight taken */
__u64 follow_lost = 0;

/*
 * The requests followed: slots in an array (a power of two, the loader's),
 * a request in one of the INFLIGHT_PROBES slots from a hash of its address
 * on, claimed with a compare-and-swap of `rq` and freed with an exchange.
 * Every request of the system completes and is issued through here, and
 * an array's lookup is a few inlined instructions where a hash's was ~29
 * ns, its update and delete each a bucket lock: per I/O (fio, bpf_stats)
 * 366-397 ns where the hash's build read 469-513 in the same rounds.
 * Mappable: the loader counts the slots still taken when it stops, with
 * no system call (a request may stay there, in_flight below).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LAT_BLK_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct inflight);
} blk_inflight SEC(".maps");

const volatile __u32 inflight_mask = LAT_BLK_MAX_INFLIGHT - 1;

#define INFLIGHT_PROBES 4

/* A request's identity as a number: its address less the array's. The
 * verifier allows no arithmetic on a kernel pointer but a difference of
 * two (to a program allowed to see addresses, as latbpf's are), and the
 * array's address is fixed while the program runs. */
static __always_inline __u64 inflight_id(struct request *rq)
{
	return (__u64)rq - (__u64)(void *)&blk_inflight;
}

static __always_inline __u32 inflight_home(__u64 rq)
{
	return (__u32)(((rq >> 6) * 0x9e3779b97f4a7c15ULL) >> 40);
}

/* rq's slot, or NULL when it has none; claim: a free slot, now rq's (a
 * compare-and-swap), or NULL when its probes are all taken */
static __always_inline struct inflight *inflight_slot(__u64 rq, bool claim)
{
	__u32 home = inflight_home(rq), k, idx;
	struct inflight *e;

	for (k = 0; k < INFLIGHT_PROBES; k++) {
		idx = (home + k) & inflight_mask;
		e = bpf_map_lookup_elem(&blk_inflight, &idx);
		if (!e)
			continue;
		if (claim ? !e->rq && __sync_val_compare_and_swap(&e->rq, 0, rq) == 0 :
			    e->rq == rq)
			return e;
	}
	return NULL;
}

/* Its request no longer followed: an exchange, so every read of the slot
 * above is done before another CPU may claim it */
static __always_inline void inflight_free(struct inflight *f)
{
	__sync_lock_test_and_set(&f->rq, 0);
}

/*
 * A slot that still follows an earlier request at this address, or a
 * request that completes without its issue: the kernel did not run one of
 * these programs for that request's issue, completion or merge. It does
 * not always: this family's programs and bpftrace's alike were not run for
 * a few of 1,400 completions (up to 83) that ftrace and the disk's own
 * counters saw, all in softirqs over one host agent's thread, with no
 * recursion miss counted (block.t's workload, 2026-12-02). The request is
 * not credited, and counted, once, when its slot is met (the loader's
 * stale_requests, a drop); a slot never met again is still taken when
 * latbpf stops (the final record's in_flight).
 */
static __always_inline void leftover(void)
{
	__sync_fetch_and_add(&stale, 1);
}

/* Shared by all CPUs (atomic adds): its memory does not grow with their
 * number, where a per-CPU hash of 16 KiB values took 4 MiB per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_BLK_MAX_KEYS);
	__type(key, struct lat_blk_key);
	__type(value, struct lat_blk_stats);
} blk_stats SEC(".maps");

/* Written once by the loader (min = ~0, the rest 0): what new keys start
 * from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_blk_stats);
} blk_zero SEC(".maps");

/* before 5.16 the request pointed at its disk directly. Every read below
 * is a plain load through the tracepoint's BTF pointer, not a helper call:
 * five probe reads cost more than the rest of the completion handler. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *disk;

	if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk))
		disk = ((struct request___old *)rq)->rq_disk;
	else
		disk = rq->q->disk;
	return ((__u32)disk->major << 20) | (__u32)disk->first_minor;
}

/* Starts following rq in f, its slot already (a leftover of an earlier
 * request at its address), or in a free one when f is NULL. */
static __always_inline void follow(struct request *rq, struct inflight *f,
				   __u64 insert_ts, __u64 issue_ts)
{
	if (!f && !(f = inflight_slot(inflight_id(rq), true))) {
		__sync_fetch_and_add(&follow_lost, 1);
		return;
	}
	f->insert_ts = insert_ts;
	f->issue_ts = issue_ts;
	f->gen = rq->start_time_ns;
	f->bytes = issue_ts ? rq->__data_len : 0;
}

/* Whether f follows rq and not an earlier request at its address. A later
 * request there starts later; a merge gives the request that survives the
 * older start_time_ns of the two (attempt_merge), so rq's own can go down
 * while it is followed, never up. */
static __always_inline bool same_request(struct request *rq, struct inflight *f)
{
	return rq->start_time_ns <= f->gen;
}

static __always_inline void on_insert(struct request *rq)
{
	struct inflight *f;

	if (!lat_current_is_target())
		return;
	/* a slot at rq's address is its own (inserted again) or a leftover:
	 * either way rq takes it over */
	f = inflight_slot(inflight_id(rq), false);
	if (f && !same_request(rq, f))
		leftover();
	follow(rq, f, bpf_ktime_get_ns(), 0);
}

static __always_inline void on_issue(struct request *rq)
{
	struct inflight *f = inflight_slot(inflight_id(rq), false);
	bool own = f && same_request(rq, f);

	if (own && f->insert_ts) {	/* inserted in a target's context */
		f->issue_ts = bpf_ktime_get_ns();
		f->bytes = rq->__data_len;
		return;
	}
	if (f && !own)
		leftover();	/* taken over or freed below */
	/* A scheduler dispatches from whichever context runs the queue next:
	 * kblockd, or another process's plug flush or completion. Only its
	 * insert tells whose the request is, and the target's was not seen. */
	if (lat_current_is_target() && !lat_rq_scheduled(rq))
		follow(rq, f, 0, bpf_ktime_get_ns());
	else if (f && !own)
		inflight_free(f);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(block_insert, struct request *rq)
{
	on_insert(rq);
	return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(block_insert_old, struct request_queue *q, struct request *rq)
{
	on_insert(rq);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_issue, struct request *rq)
{
	on_issue(rq);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_issue_old, struct request_queue *q, struct request *rq)
{
	on_issue(rq);
	return 0;
}

/* next is merged into another request and freed without completing: its
 * I/O completes as part of the other one. Forget it now, before blk-mq
 * hands its address to a new request, maybe another process's. */
static __always_inline void on_merge(struct request *next)
{
	struct inflight *f = inflight_slot(inflight_id(next), false);

	if (!f)
		return;
	if (!same_request(next, f))
		leftover();
	inflight_free(f);
}

SEC("tp_btf/block_rq_merge")
int BPF_PROG(block_merge, struct request *next)
{
	on_merge(next);
	return 0;
}

SEC("tp_btf/block_rq_merge")
int BPF_PROG(block_merge_old, struct request_queue *q, struct request *next)
{
	on_merge(next);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_complete, struct request *rq)
{
	struct lat_blk_key k = {};
	struct lat_blk_stats *s;
	struct inflight *f;
	__u32 zkey = 0, op;
	void *zero;
	__u64 now;

	f = inflight_slot(inflight_id(rq), false);
	if (!f)
		return 0;
	/* an earlier request's slot, or this one's without its issue */
	if (!same_request(rq, f) || !f->issue_ts) {
		leftover();
		goto out;
	}
	now = bpf_ktime_get_ns();
	op = rq->cmd_flags & 0xff;	/* REQ_OP_MASK */
	k.dev = rq_dev(rq);
	k.op = op == 0 ? LAT_BLK_READ : op == 1 ? LAT_BLK_WRITE : LAT_BLK_OTHER;
	s = bpf_map_lookup_elem(&blk_stats, &k);
	if (!s) {
		zero = bpf_map_lookup_elem(&blk_zero, &zkey);
		if (!zero)
			goto out;
		bpf_map_update_elem(&blk_stats, &k, zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&blk_stats, &k);
		if (!s) {
			__sync_fetch_and_add(&stats_lost, 1);
			goto out;
		}
	}
	lat_hist_record_shared(&s->latency, now - f->issue_ts);
	if (f->insert_ts && f->insert_ts <= f->issue_ts)
		lat_hist_record_shared(&s->queue, f->issue_ts - f->insert_ts);
	lat_hist_record_shared(&s->size, f->bytes);
out:
	inflight_free(f);	/* no longer followed */
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one histogram of latbpf, compiled by clang for BPF and by the C
 * compiler for the loader and the unit tests, so the tests run the very
 * index code the kernel runs.
 *
 * Layout is HdrHistogram's for lowest discernible value 1 (ns), one
 * significant digit: sub_bucket_count 32, half count 16, unit magnitude 0.
 * Values 0..31 get one slot each; every power of two above gets 16 linear
 * slots, so a slot is at most 1/16 (6.25 %) of its lowest value wide. Slot i
 * here is HdrHistogram's counts[i] for the same configuration, which makes
 * the .hlog export a copy.
 *
 * Highest trackable value is 2^LAT_HIST_MAX_LOG2 - 1 ns (about 4.9 hours);
 * larger values are counted in `overflow` (and in count/sum/max), never
 * clipped into the last slot.
 */
#ifndef LATBPF_HIST_H
#define LATBPF_HIST_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define LAT_HIST_SUB_BITS 4 /* log2 of the 16 sub-buckets per power of two */
#define LAT_HIST_SUB_HALF (1U << LAT_HIST_SUB_BITS)
#define LAT_HIST_MAX_LOG2 44
/* HdrHistogram bucket_count for highest 2^44-1: 44 - 5 + 1 = 40 */
#define LAT_HIST_BUCKETS (LAT_HIST_MAX_LOG2 - (LAT_HIST_SUB_BITS + 1) + 1)
#define LAT_HIST_SLOTS ((LAT_HIST_BUCKETS + 1) * LAT_HIST_SUB_HALF)
#define LAT_HIST_MAX_VALUE ((1ULL << LAT_HIST_MAX_LOG2) - 1)

struct lat_hist {
	__u64 count;	/* every recorded value, overflow included */
	__u64 sum;	/* ns */
	__u64 min;	/* exact; meaningless while count == 0 */
	__u64 max;	/* exact */
	__u64 overflow; /* values above LAT_HIST_MAX_VALUE */
	__u64 slots[LAT_HIST_SLOTS];
};
_Static_assert(sizeof(struct lat_hist) == 8 * (5 + LAT_HIST_SLOTS),
	       "lat_hist layout is shared with BPF");

/*
 * floor(log2(v)) for v > 0 (BPF has no count-leading-zeros): a binary
 * search of five steps and a last bit, without a branch: each step's test
 * (whether v has a bit at or above w) is ((v >> w) + 2^w - 1) >> w, 0 or
 * 1, which moves v and adds to the result by shifting (a shift by 0 moves
 * nothing). On the scheduler's hot path a branch costs the verifier a
 * path (it walked every combination, 74,000 instructions for 6,300) and a
 * function call per record, which the SRSO return thunk makes dear: this
 * form is inlined, one path, and took 13-32 ns off every switch (sched,
 * time, hiccup; docs/performance.md, 2026-11-29).
 */
static inline __u32 lat_log2(__u64 v)
{
	__u64 t, r;

	t = (((v >> 32) + 0xffffffffULL) >> 32) << 5;
	v >>= t;
	r = t;
	t = (((v >> 16) + 0xffffULL) >> 16) << 4;
	v >>= t;
	r |= t;
	t = (((v >> 8) + 0xffULL) >> 8) << 3;
	v >>= t;
	r |= t;
	t = (((v >> 4) + 0xfULL) >> 4) << 2;
	v >>= t;
	r |= t;
	t = (((v >> 2) + 0x3ULL) >> 2) << 1;
	v >>= t;
	r |= t;
	return (__u32)(r | (v >> 1));
}

/*
 * HdrHistogram's counts_index(); LAT_HIST_SLOTS means overflow. 64-bit all
 * the way: a 32-bit result makes clang zero-extend it twice, once for the
 * bounds check and once for the access, and the verifier then rejects it.
 * Below 32 the index is v itself, which the formula gives for v | 16 (its
 * log2 is 4, the bucket 0) without a branch; above the largest value the
 * shift would be out of range, so that stays a test (in BPF a second
 * path, which ends at the caller's bounds check). Inlined in BPF.
 */
static inline __u64 lat_hist_index(__u64 v)
{
	__u64 bucket;

	if (v > LAT_HIST_MAX_VALUE)
		return LAT_HIST_SLOTS;
	bucket = lat_log2(v | LAT_HIST_SUB_HALF) - LAT_HIST_SUB_BITS;
	return ((bucket + 1) << LAT_HIST_SUB_BITS) + (v >> bucket) -
	       LAT_HIST_SUB_HALF;
}

/* Lowest value that lands in slot i (HdrHistogram's value_from_index). */
static inline __u64 lat_hist_slot_low(__u32 i)
{
	__s32 bucket = (__s32)(i >> LAT_HIST_SUB_BITS) - 1;
	__u64 sub = (i & (LAT_HIST_SUB_HALF - 1)) + LAT_HIST_SUB_HALF;

	if (bucket < 0)
		return i;
	return sub << bucket;
}

/* Highest value that lands in slot i. */
static inline __u64 lat_hist_slot_high(__u32 i)
{
	__s32 bucket = (__s32)(i >> LAT_HIST_SUB_BITS) - 1;

	return lat_hist_slot_low(i) + (bucket <= 0 ? 0 : (1ULL << bucket) - 1);
}

/*
 * Records one value. BPF callers own a map value that only their CPU writes
 * (per-CPU maps, or state serialised by a run-queue lock), so no atomics.
 */
static inline void lat_hist_record(struct lat_hist *h, __u64 v)
{
	__u64 i = lat_hist_index(v);

	if (i < LAT_HIST_SLOTS)
		h->slots[i]++;
	else
		h->overflow++;
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
}

#ifdef __bpf__
/*
 * Records one value into a histogram every CPU writes: a value in a shared
 * (not per-CPU) map, whose memory does not grow with the CPU count. Counts
 * are atomic adds; min and max a bounded compare-and-swap (BPF_CMPXCHG:
 * 5.12). A new histogram must start with min = ~0 (the loader's template).
 * `count` is left to the reader (lat_hist_count_slots): it is the slots'
 * sum, and its atomic add was 5 ns of each value (the block family's
 * completion records three).
 */
static __always_inline void lat_hist_record_shared(struct lat_hist *h, __u64 v)
{
	__u64 i = lat_hist_index(v), old;
	int k;

	if (i < LAT_HIST_SLOTS)
		__sync_fetch_and_add(&h->slots[i], 1);
	else
		__sync_fetch_and_add(&h->overflow, 1);
	for (k = 0; k < 4; k++) {
		old = h->min;
		if (v >= old || __sync_val_compare_and_swap(&h->min, old, v) == old)
			break;
	}
	for (k = 0; k < 4; k++) {
		old = h->max;
		if (v <= old || __sync_val_compare_and_swap(&h->max, old, v) == old)
			break;
	}
	__sync_fetch_and_add(&h->sum, v);
}
#else
/* The count of a histogram lat_hist_record_shared() wrote: every value is
 * in a slot or in overflow. */
static inline void lat_hist_count_slots(struct lat_hist *h)
{
	__u64 n = h->overflow;
	__u32 i;

	for (i = 0; i < LAT_HIST_SLOTS; i++)
		n += h->slots[i];
	h->count = n;
}
#endif

#endif /* LATBPF_HIST_H */

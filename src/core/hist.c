// SPDX-License-Identifier: GPL-2.0
/* User-side histogram math: merge per-CPU copies, interval deltas,
 * percentiles. The bucket layout itself is include/latbpf/hist.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"

const double lat_pcts[LAT_NR_PCTS] = { 50, 90, 99, 99.9, 99.99 };
const char *const lat_pct_names[LAT_NR_PCTS] = { "p50", "p90", "p99", "p99.9",
						 "p99.99" };

void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src)
{
	__u32 i;

	if (src->count == 0)
		return;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->overflow += src->overflow;
	for (i = 0; i < LAT_HIST_SLOTS; i++)
		dst->slots[i] += src->slots[i];
}

/*
 * The kernel's histograms only grow, so an interval is the difference of two
 * snapshots: nothing is lost between a read and a reset. Count, sum and
 * slots are exact. Min and max are exact when this interval set a new run
 * minimum or maximum, and otherwise the bounds of the interval's lowest and
 * highest non-empty slot (within one slot width).
 */
/* its lowest and highest non-empty slot: lo = LAT_HIST_SLOTS for none */
static void slot_range(const struct lat_hist *iv, __u32 *lo, __u32 *hi)
{
	__u32 i;

	*lo = LAT_HIST_SLOTS;
	*hi = 0;
	for (i = 0; i < LAT_HIST_SLOTS; i++) {
		if (iv->slots[i]) {
			if (*lo == LAT_HIST_SLOTS)
				*lo = i;
			*hi = i;
		}
	}
}

/* iv's min and max from the range of its non-empty slots (lo..hi, of the
 * difference) and the two snapshots' exact bounds: now and before are
 * their headers */
static void delta_bounds(struct lat_hist *iv, const struct lat_hist_head *now,
			 const struct lat_hist_head *before, __u32 lo, __u32 hi)
{
	iv->min = iv->max = 0;
	if (iv->count == 0)
		return;
	if (before->count == 0 || now->min < before->min)
		iv->min = now->min;
	else
		iv->min = lo < LAT_HIST_SLOTS ? lat_hist_slot_low(lo) : now->max;
	if (before->count == 0 || now->max > before->max || iv->overflow)
		iv->max = now->max;
	else
		iv->max = lat_hist_slot_high(hi);
	if (iv->max > now->max)
		iv->max = now->max;
	if (iv->min < now->min)
		iv->min = now->min;
}

static struct lat_hist_head head_of(const struct lat_hist *h)
{
	return (struct lat_hist_head){ h->count, h->sum, h->min, h->max, h->overflow };
}

void lat_hist_delta(struct lat_hist *iv, const struct lat_hist *now,
		    const struct lat_hist *before)
{
	struct lat_hist_head n = head_of(now), b = head_of(before);
	__u32 i, lo, hi;

	iv->count = now->count - before->count;
	iv->sum = now->sum - before->sum;
	iv->overflow = now->overflow - before->overflow;
	for (i = 0; i < LAT_HIST_SLOTS; i++)
		iv->slots[i] = now->slots[i] - before->slots[i];
	slot_range(iv, &lo, &hi);
	delta_bounds(iv, &n, &b, lo, hi);
}

/*
 * Packed: the header and the non-empty slots only, for the histograms the
 * loader keeps by the thousand (one set per thread): a thread's few dozen
 * slots in a few hundred bytes instead of 5 KiB. Layout after the header:
 * __u16 slot[nz], padding to 8 bytes, __u64 n[nz].
 */
static __u16 *packed_slots(const struct lat_hist_packed *p)
{
	return (__u16 *)(p + 1);
}

static __u64 *packed_counts(const struct lat_hist_packed *p)
{
	return (__u64 *)((char *)(p + 1) + ((2 * (size_t)p->nz + 7) & ~(size_t)7));
}

/* The non-empty slots of h, ascending, into idx (LAT_HIST_SLOTS of room
 * when not NULL); their number. Four slots a test: most are empty. */
static __u32 nonzero(const struct lat_hist *h, __u16 *idx)
{
	const __u64 *s = h->slots;
	__u32 i, j, n = 0;

	for (i = 0; h->count && i < LAT_HIST_SLOTS; i += 4) {
		if (!(s[i] | s[i + 1] | s[i + 2] | s[i + 3]))
			continue;
		for (j = i; j < i + 4; j++) {
			if (!s[j])
				continue;
			if (idx)
				idx[n] = (__u16)j;
			n++;
		}
	}
	return n;
}
_Static_assert(LAT_HIST_SLOTS % 4 == 0, "nonzero() tests four slots at a time");
_Static_assert(LAT_HIST_SLOTS <= 65536, "slot numbers fit the packed __u16");

size_t lat_hist_packed_size(const struct lat_hist *h)
{
	size_t nz = nonzero(h, NULL);

	return sizeof(struct lat_hist_packed) + ((2 * nz + 7) & ~(size_t)7) + 8 * nz;
}

void lat_hist_pack(struct lat_hist_packed *p, const struct lat_hist *h)
{
	__u16 idx[LAT_HIST_SLOTS], *slot;
	__u32 k;
	__u64 *n;

	p->h = head_of(h);
	p->nz = nonzero(h, idx);
	slot = packed_slots(p);
	n = packed_counts(p);
	for (k = 0; k < p->nz; k++) {
		slot[k] = idx[k];
		n[k] = h->slots[idx[k]];
	}
}

size_t lat_hist_packed_bytes(const struct lat_hist_packed *p)
{
	return sizeof(*p) + ((2 * (size_t)p->nz + 7) & ~(size_t)7) + 8 * (size_t)p->nz;
}

int lat_hist_packed_add(struct lat_hist_packed **p, const struct lat_hist *h,
			struct lat_hist *scratch)
{
	struct lat_hist_packed *n;

	if (*p)
		lat_hist_unpack(scratch, *p);
	else
		memset(scratch, 0, sizeof(*scratch));
	lat_hist_merge(scratch, h);
	if (!(n = malloc(lat_hist_packed_size(scratch))))
		return -ENOMEM;
	lat_hist_pack(n, scratch);
	free(*p);
	*p = n;
	return 0;
}

void lat_hist_unpack(struct lat_hist *h, const struct lat_hist_packed *p)
{
	const __u16 *slot = packed_slots(p);
	const __u64 *n = packed_counts(p);
	__u32 k;

	memset(h, 0, sizeof(*h));
	h->count = p->h.count;
	h->sum = p->h.sum;
	h->min = p->h.min;
	h->max = p->h.max;
	h->overflow = p->h.overflow;
	for (k = 0; k < p->nz; k++)
		h->slots[slot[k]] = n[k];
}

void lat_hist_delta_packed(struct lat_hist *iv, const struct lat_hist_packed *now,
			   const struct lat_hist_packed *before)
{
	static const struct lat_hist_packed zero;
	const __u16 *slot;
	const __u64 *n;
	__u32 k, lo, hi;

	if (!before)
		before = &zero;
	lat_hist_unpack(iv, now);
	iv->count -= before->h.count;
	iv->sum -= before->h.sum;
	iv->overflow -= before->h.overflow;
	slot = packed_slots(before);
	n = packed_counts(before);
	for (k = 0; k < before->nz; k++)
		iv->slots[slot[k]] -= n[k];
	/* the difference's non-empty slots are among now's (counts only
	 * grow): its range from now's list, not a scan of every slot */
	slot = packed_slots(now);
	for (k = 0; k < now->nz && !iv->slots[slot[k]]; k++)
		;
	lo = k < now->nz ? slot[k] : LAT_HIST_SLOTS;
	for (k = now->nz; k > 0 && !iv->slots[slot[k - 1]]; k--)
		;
	hi = k > 0 ? slot[k - 1] : 0;
	delta_bounds(iv, &now->h, &before->h, lo, hi);
}

/*
 * HdrHistogram's value_at_percentile: the highest value of the slot holding
 * the ceil(pct% * count)-th value, so the answer is never below the true
 * one and above it by less than one slot. Clamped to the exact min and max.
 */
__u64 lat_hist_percentile(const struct lat_hist *h, double pct)
{
	__u64 rank, seen = 0, v;
	__u32 i;

	if (h->count == 0)
		return 0;
	rank = (__u64)ceil(pct / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;
	for (i = 0; i < LAT_HIST_SLOTS; i++) {
		seen += h->slots[i];
		if (seen >= rank) {
			v = lat_hist_slot_high(i);
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max; /* rank falls among the overflowed values */
}

/* A percentile needs 10 samples beyond it to mean more than "the max":
 * p99 wants 1,000, p99.99 100,000. */
bool lat_too_few(double count, double pct)
{
	return count * (100.0 - pct) / 100.0 < 10.0;
}

bool lat_hist_too_few(const struct lat_hist *h, double pct)
{
	return lat_too_few((double)h->count, pct);
}

void lat_hist_record_corrected(struct lat_hist *h, __u64 v, __u64 expected)
{
	lat_hist_record(h, v);
	if (expected == 0 || v <= expected)
		return;
	for (__u64 missing = v - expected; missing >= expected; missing -= expected)
		lat_hist_record(h, missing);
}

/* 3 significant digits with a unit: "812ns", "12.3us", "5.00ms", "2.50s" */
void lat_hist_pow2(const struct lat_hist *h, __u64 rows[LAT_HIST_POW2_ROWS])
{
	memset(rows, 0, LAT_HIST_POW2_ROWS * sizeof(rows[0]));
	for (__u32 i = 0; i < LAT_HIST_SLOTS; i++)
		if (h->slots[i])
			rows[lat_log2(lat_hist_slot_low(i) | 1)] += h->slots[i];
	rows[LAT_HIST_POW2_ROWS - 1] += h->overflow;
}


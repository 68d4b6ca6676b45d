// SPDX-License-Identifier: GPL-2.0
/* User-side histogram math: merge per-CPU copies, interval deltas,
 * percentiles. The bucket layout itself is include/latbpf/hist.h. */
#include <math.h>
#include <stdio.h>
#include "lat.h"

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
void lat_hist_delta(struct lat_hist *iv, const struct lat_hist *now,
		    const struct lat_hist *before)
{
	__u32 i, lo = LAT_HIST_SLOTS, hi = 0;

	iv->count = now->count - before->count;
	iv->sum = now->sum - before->sum;
	iv->overflow = now->overflow - before->overflow;
	for (i = 0; i < LAT_HIST_SLOTS; i++) {
		iv->slots[i] = now->slots[i] - before->slots[i];
		if (iv->slots[i]) {
			if (lo == LAT_HIST_SLOTS)
				lo = i;
			hi = i;
		}
	}
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
bool lat_hist_too_few(const struct lat_hist *h, double pct)
{
	return (double)h->count * (100.0 - pct) / 100.0 < 10.0;
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
int lat_fmt_ns(char *buf, size_t len, __u64 ns)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	unsigned i;
	double v;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (ns >= u[i].div) {
			v = ns / u[i].div;
			return snprintf(buf, len, v >= 100 ? "%.0f%s" :
						  v >= 10 ? "%.1f%s" : "%.2f%s",
					v, u[i].unit);
		}
	}
	return snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

/* "512B", "4.00KiB", "1.50MiB" */
int lat_fmt_bytes(char *buf, size_t len, __u64 b)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = -1;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		return snprintf(buf, len, "%lluB", (unsigned long long)b);
	return snprintf(buf, len, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s",
			v, unit[u]);
}

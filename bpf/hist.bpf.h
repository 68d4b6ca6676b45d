/* SPDX-License-Identifier: GPL-2.0 */
/* Recording into the shared histogram. Callers own a map value that only
 * their CPU writes (per-CPU maps), so no atomics are needed. */
#ifndef LATBPF_HIST_BPF_H
#define LATBPF_HIST_BPF_H

#include "latbpf/hist.h"

static __always_inline void lat_hist_record(struct lat_hist *h, __u64 v)
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

#endif

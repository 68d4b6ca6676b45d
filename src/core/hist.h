/* SPDX-License-Identifier: GPL-2.0 */
/* The loader's side of the one histogram (include/latbpf/hist.h holds the
 * layout and index math BPF shares): merging, interval deltas, packing,
 * percentiles. */
#ifndef LATBPF_CORE_HIST_H
#define LATBPF_CORE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include "latbpf/hist.h"

void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src);
void lat_hist_delta(struct lat_hist *iv, const struct lat_hist *now,
		    const struct lat_hist *before);
/* A histogram's header and its non-empty slots only (hist.c): what the
 * loader keeps per thread, where thousands of mostly empty 5 KiB
 * histograms would be tens of MiB */
struct lat_hist_head {
	__u64 count, sum, min, max, overflow;
};
struct lat_hist_packed {
	struct lat_hist_head h;
	__u32 nz;	/* non-empty slots, stored after this header */
	__u32 _pad;
};
size_t lat_hist_packed_size(const struct lat_hist *h);	/* bytes lat_hist_pack() writes */
void lat_hist_pack(struct lat_hist_packed *p, const struct lat_hist *h);
void lat_hist_unpack(struct lat_hist *h, const struct lat_hist_packed *p);
size_t lat_hist_packed_bytes(const struct lat_hist_packed *p);	/* its size */
/* *p plus h, packed anew in place of *p (*p NULL: h alone); scratch is room
 * for one histogram. -ENOMEM leaves *p as it was. */
int lat_hist_packed_add(struct lat_hist_packed **p, const struct lat_hist *h,
			struct lat_hist *scratch);
/* the interval between two packed histograms; before NULL: since nothing */
void lat_hist_delta_packed(struct lat_hist *iv, const struct lat_hist_packed *now,
			   const struct lat_hist_packed *before);
__u64 lat_hist_percentile(const struct lat_hist *h, double pct);
/* A histogram's slots summed per power of two: row r holds [2^r, 2^(r+1))
 * ns (row 0 also 0), overflow in the last; what bars, strips and heat maps
 * draw (a slot never straddles a power of two) */
#define LAT_HIST_POW2_ROWS (LAT_HIST_MAX_LOG2 + 1)
void lat_hist_pow2(const struct lat_hist *h, __u64 rows[LAT_HIST_POW2_ROWS]);
extern const double lat_pcts[];
extern const char *const lat_pct_names[];
#define LAT_NR_PCTS 5
/* HdrHistogram's recordValueWithExpectedInterval: a value v > I also
 * records v-I, v-2I, ... down to I, the samples an open-loop client would
 * have taken while the recorder was stalled */
void lat_hist_record_corrected(struct lat_hist *h, __u64 v, __u64 expected);
/* fewer than 10 samples beyond this percentile: it reads as the max */
bool lat_hist_too_few(const struct lat_hist *h, double pct);
bool lat_too_few(double count, double pct);	/* the same, of a count */

#endif

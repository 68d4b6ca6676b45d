/* SPDX-License-Identifier: GPL-2.0 */
/* Map value types of the block family: bpf/block.bpf.c and src/block.c. */
#ifndef LATBPF_BLOCK_H
#define LATBPF_BLOCK_H

#include "latbpf/hist.h"

enum lat_blk_op { LAT_BLK_READ, LAT_BLK_WRITE, LAT_BLK_OTHER, LAT_BLK_NR_OPS };

/* Hash keyed by (device, op), shared by every CPU. */
struct lat_blk_key {
	__u32 dev;	/* major << 20 | minor, as the kernel's dev_t */
	__u32 op;	/* enum lat_blk_op */
};

struct lat_blk_stats {
	struct lat_hist latency;	/* issue -> complete: the device */
	struct lat_hist queue;		/* insert -> issue: the I/O scheduler */
	struct lat_hist size;		/* request size in bytes */
};
_Static_assert(sizeof(struct lat_blk_stats) == 3 * sizeof(struct lat_hist),
	       "lat_blk_stats layout is shared with BPF");

#define LAT_BLK_MAX_KEYS 256
/* the target's requests in flight at once (entries deleted at completion) */
#define LAT_BLK_MAX_INFLIGHT 16384

#endif

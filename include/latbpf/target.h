/* SPDX-License-Identifier: GPL-2.0 */
/* The target filter every family's .rodata carries, set before load. */
#ifndef LATBPF_TARGET_H
#define LATBPF_TARGET_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define LAT_MAX_TARGETS 16

struct lat_target {
	__u32 n_tgids;	/* 0 and n_tids 0: the whole system */
	__u32 n_tids;
	__u32 tgids[LAT_MAX_TARGETS];
	__u32 tids[LAT_MAX_TARGETS];
};
_Static_assert(sizeof(struct lat_target) == 8 + 8 * LAT_MAX_TARGETS,
	       "lat_target layout is shared with BPF");

#endif

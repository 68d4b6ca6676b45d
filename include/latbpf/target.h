/* SPDX-License-Identifier: GPL-2.0 */
/* The target filter every family's .rodata carries, set before load. */
#ifndef LATBPF_TARGET_H
#define LATBPF_TARGET_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* ids the filter compares inline; more, or followed children, take the
 * bitmap (LAT_TARG_MAP) */
#define LAT_MAX_TARGETS 16

/* lat_target.mode */
#define LAT_TARG_MAP	1	/* tids in the lat_tbits bitmap, kept by bpf/target.bpf.c */
#define LAT_TARG_CGROUP	2	/* tasks under the cgroups in lat_cgroups */
#define LAT_TARG_NONE	4	/* no task (--cpus alone: only the watched CPUs) */

struct lat_target {
	__u32 n_tgids;	/* 0, n_tids 0 and mode 0: the whole system */
	__u32 n_tids;
	__u32 tgids[LAT_MAX_TARGETS];
	__u32 tids[LAT_MAX_TARGETS];
	__u32 mode;
	__u32 cg_mask;	/* LAT_TARG_CGROUP: slots of the answer cache - 1 */
};
/* one task of latbpf's own pid namespace (bpf/target.bpf.c's iterator) */
struct lat_nsid {
	__u32 tid, tgid;	/* the kernel's */
	__u32 ns_tid, ns_tgid;	/* in latbpf's namespace */
};

_Static_assert(sizeof(struct lat_target) == 16 + 8 * LAT_MAX_TARGETS,
	       "lat_target layout is shared with BPF");

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The target filter: the first thing every handler does, and all a thread
 * of another process costs. Values live in .rodata, so with no filter the
 * verifier sees the constant and removes the loops. */
#ifndef LATBPF_TARGET_BPF_H
#define LATBPF_TARGET_BPF_H

#include "latbpf/target.h"

const volatile struct lat_target lat_targ = {};

/* Whether any filter is set: a constant to the verifier. */
static __always_inline bool lat_filtering(void)
{
	return lat_targ.n_tgids != 0 || lat_targ.n_tids != 0;
}

static __always_inline bool lat_is_target(__u32 tgid, __u32 tid)
{
	__u32 i;

	if (!lat_filtering())
		return true;
	for (i = 0; i < LAT_MAX_TARGETS && i < lat_targ.n_tgids; i++)
		if (lat_targ.tgids[i] == tgid)
			return true;
	for (i = 0; i < LAT_MAX_TARGETS && i < lat_targ.n_tids; i++)
		if (lat_targ.tids[i] == tid)
			return true;
	return false;
}

/* The current task, for tracepoints that fire in its context; with no
 * filter, no helper call. */
static __always_inline bool lat_current_is_target(void)
{
	__u64 id;

	if (!lat_filtering())
		return true;
	id = bpf_get_current_pid_tgid();
	return lat_is_target((__u32)(id >> 32), (__u32)id);
}

#endif

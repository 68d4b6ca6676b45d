/* SPDX-License-Identifier: GPL-2.0 */
/* The target filter: the first thing every handler does, and all a thread
 * of another process costs. Three ways, chosen in .rodata, so the verifier
 * sees constants and compiles only the one in use:
 *   a short list   up to 16 pids and tids, compared inline (no filter: no
 *                  code at all)
 *   a bitmap       one bit per tid (LAT_TARG_MAP): any number of targets,
 *                  and the processes they start, kept by bpf/target.bpf.c
 *                  at every fork; an array lookup the verifier inlines
 *   cgroups        LAT_TARG_CGROUP: the task's cgroup v2 or an ancestor is
 *                  in lat_cgroups, decided per event from the cgroup the
 *                  task is in now (a migration counts at once), with the
 *                  answer per cgroup cached
 * A task is a target if the list or bitmap, or a cgroup, says so. */
#ifndef LATBPF_TARGET_BPF_H
#define LATBPF_TARGET_BPF_H

#include "latbpf/target.h"

const volatile struct lat_target lat_targ = {};

/* The maps are the loader's (created once, shared by every object); in
 * an object that does not use them they keep their minimum size. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* pid_max / 64 words */
	__type(key, __u32);
	__type(value, __u64);
} lat_tbits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);		/* cgroup id (its directory's inode) */
	__type(value, __u8);
} lat_cgroups SEC(".maps");

/* cgroup id -> 1 target, 2 not: ids are never reused, so an answer stays
 * true; an evicted one is worked out again */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u8);
} lat_cgv SEC(".maps");

#define LAT_CG_DEPTH 32		/* cgroup levels looked at, from the task's up */

/* Whether any filter is set: a constant to the verifier. */
static __always_inline bool lat_filtering(void)
{
	return lat_targ.n_tgids != 0 || lat_targ.n_tids != 0 || lat_targ.mode != 0;
}

static __always_inline bool lat_bit(void *map, __u32 id)
{
	__u32 w = id >> 6;
	__u64 *v = bpf_map_lookup_elem(map, &w);

	return v && ((*v >> (id & 63)) & 1);
}

/* cg: a struct cgroup *, as a number (read with CO-RE, not dereferenced) */
static __noinline bool lat_cg_walk(__u64 cg)
{
	struct cgroup *c = (struct cgroup *)cg;
	__u64 id = BPF_CORE_READ(c, kn, id);
	__u8 yes = 1, no = 2, *v;
	bool hit = false;
	int i;

	v = bpf_map_lookup_elem(&lat_cgv, &id);
	if (v)
		return *v == 1;
	for (i = 0; i < LAT_CG_DEPTH && c; i++) {
		__u64 a = BPF_CORE_READ(c, kn, id);

		if (bpf_map_lookup_elem(&lat_cgroups, &a)) {
			hit = true;
			break;
		}
		/* self, a cgroup's own css, is its first member */
		c = (struct cgroup *)BPF_CORE_READ(c, self.parent);
	}
	bpf_map_update_elem(&lat_cgv, &id, hit ? &yes : &no, BPF_ANY);
	return hit;
}

/* t: the task, or NULL for the current one */
static __always_inline bool lat_in_cgroups(struct task_struct *t)
{
	if (!t)
		t = (struct task_struct *)bpf_get_current_task();
	return lat_cg_walk((__u64)BPF_CORE_READ(t, cgroups, dfl_cgrp));
}

/* t (NULL: current), with its tgid and tid */
static __always_inline bool lat_task_is_target(struct task_struct *t, __u32 tgid,
					       __u32 tid)
{
	__u32 i;

	if (!lat_filtering())
		return true;
	if (lat_targ.mode & LAT_TARG_MAP) {
		if (lat_bit(&lat_tbits, tid))
			return true;
	} else {
		for (i = 0; i < LAT_MAX_TARGETS && i < lat_targ.n_tgids; i++)
			if (lat_targ.tgids[i] == tgid)
				return true;
		for (i = 0; i < LAT_MAX_TARGETS && i < lat_targ.n_tids; i++)
			if (lat_targ.tids[i] == tid)
				return true;
	}
	return (lat_targ.mode & LAT_TARG_CGROUP) && lat_in_cgroups(t);
}

/* The current task, for tracepoints that fire in its context; with no
 * filter, no helper call. */
static __always_inline bool lat_current_is_target(void)
{
	__u64 id;

	if (!lat_filtering())
		return true;
	id = bpf_get_current_pid_tgid();
	return lat_task_is_target(NULL, (__u32)(id >> 32), (__u32)id);
}

#endif

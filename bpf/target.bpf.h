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

/* The answer per cgroup, cached: slot id & cg_mask holds id << 2 | 1 for
 * a target, | 2 for not, in one word (an 8-byte store is atomic, so two
 * CPUs filling a slot never mix their halves). Cgroup ids are never
 * reused, so an answer stays true; a slot taken over is worked out again.
 * An array the verifier inlines: no helper call per event. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
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

/* Whether cgroup cg or an ancestor is a target: the miss path, read with
 * CO-RE. cg: a struct cgroup *, as a number. */
static __noinline bool lat_cg_walk(__u64 cg)
{
	struct cgroup *c = (struct cgroup *)cg;
	int i;

	for (i = 0; i < LAT_CG_DEPTH && c; i++) {
		__u64 a = BPF_CORE_READ(c, kn, id);

		if (bpf_map_lookup_elem(&lat_cgroups, &a))
			return true;
		/* self, a cgroup's own css, is its first member */
		c = (struct cgroup *)BPF_CORE_READ(c, self.parent);
	}
	return false;
}

/* id: the cgroup's id; cg: the cgroup, for the walk on a miss */
static __always_inline bool lat_cg_is_target(__u64 id, __u64 cg)
{
	__u32 k = (__u32)id & lat_targ.cg_mask;
	__u64 *e = bpf_map_lookup_elem(&lat_cgv, &k);
	bool hit;

	if (e && (*e >> 2) == id)
		return (*e & 3) == 1;
	hit = lat_cg_walk(cg);
	if (e && id < (1ULL << 62))
		*e = id << 2 | (hit ? 1 : 2);
	return hit;
}

/* t: a task through a BTF pointer (btf) or not; NULL: the current one */
static __always_inline bool lat_in_cgroups(struct task_struct *t, bool btf)
{
	struct cgroup *cg;

	if (!t) {
		t = (struct task_struct *)bpf_get_current_task();
		cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
		return lat_cg_is_target(bpf_get_current_cgroup_id(), (__u64)cg);
	}
	if (btf) {	/* plain loads */
		cg = t->cgroups->dfl_cgrp;
		return lat_cg_is_target(cg->kn->id, (__u64)cg);
	}
	cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	return lat_cg_is_target(BPF_CORE_READ(cg, kn, id), (__u64)cg);
}

/* t (NULL: current), with its tgid and tid; btf: t is a BTF pointer */
static __always_inline bool lat_task_is_target(struct task_struct *t, __u32 tgid,
					       __u32 tid, bool btf)
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
	return (lat_targ.mode & LAT_TARG_CGROUP) && lat_in_cgroups(t, btf);
}

/* The current task, for tracepoints that fire in its context; with no
 * filter, no helper call. */
static __always_inline bool lat_current_is_target(void)
{
	__u64 id;

	if (!lat_filtering())
		return true;
	id = bpf_get_current_pid_tgid();
	return lat_task_is_target(NULL, (__u32)(id >> 32), (__u32)id, false);
}

#endif

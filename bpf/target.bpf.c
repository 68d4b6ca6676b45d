// SPDX-License-Identifier: GPL-2.0
/*
 * Targets that grow: the tid bitmap (bpf/target.bpf.h) kept right at every
 * fork and clone on the machine, so the processes a target starts, and the
 * threads they start, are targets from their first event on.
 *
 * Two more bitmaps, by tgid: a process whose new threads are targets
 * (--pid, a COMMAND and what it starts), and one whose new processes are
 * too (--children, a COMMAND). Every new task's bits are decided at its
 * creation, set or cleared, so a tid or tgid reused after an exit never
 * inherits an old target's bit: no stranger is pulled in. The loader sets
 * the bits of what existed before this program was attached.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "target.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* pid_max / 64 words */
	__type(key, __u32);
	__type(value, __u64);
} lat_pbits SEC(".maps");		/* by tgid: its new threads are targets */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lat_fbits SEC(".maps");		/* by tgid: its new processes are too */

static __always_inline void put(void *map, __u32 id, bool on)
{
	__u32 w = id >> 6;
	__u64 bit = 1ULL << (id & 63), *v = bpf_map_lookup_elem(map, &w);

	if (!v || !!(*v & bit) == on)	/* no store in the common case */
		return;
	if (on)
		__sync_fetch_and_or(v, bit);
	else
		__sync_fetch_and_and(v, ~bit);
}

/* The tracepoint's parent is the task that called fork or clone. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(lat_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 tid = BPF_CORE_READ(child, pid), tgid = BPF_CORE_READ(child, tgid);
	bool follow;

	if (tgid == ptgid) {		/* a new thread */
		put(&lat_tbits, tid, lat_bit(&lat_pbits, tgid));
		return 0;
	}
	follow = lat_bit(&lat_fbits, ptgid);
	put(&lat_pbits, tgid, follow);
	put(&lat_fbits, tgid, follow);
	put(&lat_tbits, tid, follow);
	return 0;
}

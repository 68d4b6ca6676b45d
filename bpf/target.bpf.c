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

/*
 * Pid namespaces: latbpf inside a container reads --pid and --tid in its
 * own namespace, while every tracepoint sees the kernel's global ids. This
 * iterator, run once at start when latbpf is not in the initial pid
 * namespace, writes for each task of the namespace whose inode is ns_inum
 * its global tid and tgid and the ones it has there.
 */
const volatile __u32 ns_inum = 0;

#define LAT_NS_DEPTH 8		/* pid namespaces nest 32 deep at most */

/* p's number in the namespace ns_inum, or -1 where it has none */
static __always_inline int nr_in(struct pid *p)
{
	unsigned int level = BPF_CORE_READ(p, level);
	char *nums = (char *)p + bpf_core_field_offset(struct pid, numbers);
	struct upid up;

	for (unsigned int i = 0; i < LAT_NS_DEPTH && i <= level; i++) {
		if (bpf_probe_read_kernel(&up, sizeof(up), nums + i * sizeof(struct upid)))
			return -1;
		if (BPF_CORE_READ(up.ns, ns.inum) == ns_inum)
			return up.nr;
	}
	return -1;
}

SEC("iter/task")
int lat_ns_ids(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct lat_nsid r;
	int tid, tgid;

	if (!t)
		return 0;
	tid = nr_in(BPF_CORE_READ(t, thread_pid));
	tgid = nr_in(BPF_CORE_READ(t, group_leader, thread_pid));
	if (tid < 0 || tgid < 0)
		return 0;
	r.tid = BPF_CORE_READ(t, pid);
	r.tgid = BPF_CORE_READ(t, tgid);
	r.ns_tid = (__u32)tid;
	r.ns_tgid = (__u32)tgid;
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The floor for any tracer of these events: empty programs on the
 * tracepoints latbpf uses (the scheduler's and the timers'). tools/overhead.sh
 * measures against it.
 *
 * With `floor --blocks`, one more program per building block of a handler,
 * each on sched_switch, doing that one thing and nothing else: what each
 * costs on this host is its ns/event (bpf_stats) less the empty program's,
 * measured in the same run. The budget of a handler is the sum of its
 * blocks.
 *
 * With `floor --clock`, the two tracepoints' programs read the clock and
 * keep it instead (stamp_*): the least any tracer that timestamps these
 * events costs, a clock read per event being what every latency needs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "latbpf/hist.h"

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup)
{
	return 0;
}

/* The timer tracepoints latbpf's timer lateness uses (bpf/timer.bpf.h),
 * empty in every mode: lateness reads the clock the kernel passes. */
SEC("tp_btf/hrtimer_start")
int BPF_PROG(tfloor_start)
{
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(tfloor_expire)
{
	return 0;
}

SEC("tp_btf/hrtimer_cancel")
int BPF_PROG(tfloor_cancel)
{
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} stamp SEC(".maps");

static __always_inline void stamp_now(void)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&stamp, &k);

	if (v)
		*v = bpf_ktime_get_ns();
}

SEC("tp_btf/sched_switch")
int BPF_PROG(stamp_switch)
{
	stamp_now();
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(stamp_wakeup)
{
	stamp_now();
	return 0;
}

struct sink {
	__u64 v[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sink);
} sink SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_hist);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sink);
} tstore SEC(".maps");

struct hkey {
	__u32 cpu, who, id, pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct hkey);
	__type(value, struct sink);
} hash SEC(".maps");

static __always_inline struct sink *sink_get(void)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&sink, &k);
}

/* the clock every latency needs */
SEC("tp_btf/sched_switch")
int BPF_PROG(cost_clock)
{
	struct sink *s = sink_get();

	if (s)
		s->v[0] = bpf_ktime_get_ns();
	return 0;
}

/* one task-storage lookup: a per-task record */
SEC("tp_btf/sched_switch")
int BPF_PROG(cost_tstore, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct sink *s = bpf_task_storage_get(&tstore, next, NULL,
					      BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (s)
		s->v[0]++;
	return 0;
}

/* one hash lookup with a 16-byte key, the entry existing */
SEC("tp_btf/sched_switch")
int BPF_PROG(cost_hash, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct hkey k = { .cpu = 1, .who = 2, .id = next->pid };
	struct sink *s = bpf_map_lookup_elem(&hash, &k), zero = {};

	if (s)
		s->v[0]++;
	else
		bpf_map_update_elem(&hash, &k, &zero, BPF_NOEXIST);
	return 0;
}

/* recording one value into the histogram (per-CPU array) */
SEC("tp_btf/sched_switch")
int BPF_PROG(cost_hist, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 k = 0;
	struct lat_hist *h = bpf_map_lookup_elem(&hist, &k);

	if (h)
		lat_hist_record(h, (__u64)next->pid * 997 + 3000);
	return 0;
}

/* copying a task's name with a helper, as against plain loads */
SEC("tp_btf/sched_switch")
int BPF_PROG(cost_strread, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct sink *s = sink_get();

	if (s)
		bpf_probe_read_kernel_str(&s->v[2], 16, next->comm);
	return 0;
}

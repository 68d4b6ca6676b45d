/* SPDX-License-Identifier: GPL-2.0 */
/* Every kernel-version difference latbpf depends on, in one place. */
#ifndef LATBPF_COMPAT_BPF_H
#define LATBPF_COMPAT_BPF_H

#include <bpf/bpf_core_read.h>

/*
 * task_struct::state was renamed __state in 5.14
 * (commit 2f064a59a11f "sched: Change task_struct::state").
 */
struct task_struct___o {
	volatile long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 lat_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___o *)t, state);
}

/* The same through a BTF pointer (tp_btf): a plain load, no helper call. */
static __always_inline __u32 lat_task_state_btf(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return ((struct task_struct___o *)t)->state;
}

/*
 * The CPU a task is on (or queued on): thread_info::cpu with
 * CONFIG_THREAD_INFO_IN_TASK (x86, arm64 since 5.16, commit bcf9033e5449
 * "sched: move CPU field back into thread_info if THREAD_INFO_IN_TASK=y"),
 * task_struct::cpu on kernels between 5.10 and 5.15.
 */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 lat_task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___cpu *)t, cpu);
}

/* The same through a BTF pointer: a plain load. */
static __always_inline __u32 lat_task_cpu_btf(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return t->thread_info.cpu;
	return ((struct task_struct___cpu *)t)->cpu;
}

/*
 * Whether a request goes through an I/O scheduler, whose insert
 * (block_rq_insert) runs in the context of the task that submitted it:
 * RQF_USE_SCHED where the RQF_ bits are an enum in BTF (6.18 has it, as
 * __RQF_USE_SCHED); before, whether it came from the scheduler's tags,
 * which a queue with a scheduler also gives its flushes and passthrough
 * commands.
 */
enum rqf_flags___lat {
	__RQF_USE_SCHED___lat = 5,
};

static __always_inline bool lat_rq_scheduled(struct request *rq)
{
	if (bpf_core_enum_value_exists(enum rqf_flags___lat, __RQF_USE_SCHED___lat))
		return rq->rq_flags &
		       (1U << bpf_core_enum_value(enum rqf_flags___lat, __RQF_USE_SCHED___lat));
	return rq->internal_tag >= 0;	/* BLK_MQ_NO_TAG is -1 */
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Every kernel-version difference latbpf depends on, in one place. */
#ifndef LATBPF_COMPAT_BPF_H
#define LATBPF_COMPAT_BPF_H

#include <bpf/bpf_core_read.h>
#include "latbpf/time.h"

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
 * How long t, leaving this CPU, has been on it, by the scheduler's clock of
 * this run queue: rq->clock less t's arrival (sched_info.last_arrival,
 * stamped from the same clock when the kernel switched t in; both read
 * before this switch's own stamps). For any class: a real-time task's run
 * has no stamp in se. The run queue is t's group's (se.cfs_rq, set for a
 * task of any class as it lands on a CPU), as the per-CPU runqueues
 * symbol needs KALLSYMS_ALL (not on this 6.18). ~0 where the kernel keeps
 * none of it (no SCHED_INFO, no FAIR_GROUP_SCHED). Only where a switch-in
 * went untraced.
 */
static __always_inline __u64 lat_task_on_cpu(struct task_struct *t)
{
	struct cfs_rq *q;
	__u64 clk, at;

	if (!bpf_core_field_exists(t->sched_info) || !bpf_core_field_exists(t->se.cfs_rq) ||
	    !bpf_core_field_exists(((struct cfs_rq *)0)->rq))
		return ~0ULL;
	q = BPF_CORE_READ(t, se.cfs_rq);
	if (!q)
		return ~0ULL;
	clk = BPF_CORE_READ(q, rq, clock);
	at = BPF_CORE_READ(t, sched_info.last_arrival);
	return clk > at ? clk - at : 0;
}

/*
 * The CPU time of the run t ends at this switch-out, by the fair class's
 * own clock of it: sum_exec_runtime less its value at the pick, which
 * set_next_entity() stamps in prev_sum_exec_runtime (both since 2.6.23).
 * For a switch-in the kernel did not trace. A task of another class keeps
 * no such stamp: its time on the CPU (lat_task_on_cpu), ~0 where unknown.
 * btf: t is a BTF pointer (plain loads).
 */
static __always_inline __u64 lat_task_last_run(struct task_struct *t, bool btf)
{
	__u64 sum, at_pick;
	int policy;

	if (btf) {
		sum = t->se.sum_exec_runtime;
		at_pick = t->se.prev_sum_exec_runtime;
		policy = t->policy;
	} else {
		sum = BPF_CORE_READ(t, se.sum_exec_runtime);
		at_pick = BPF_CORE_READ(t, se.prev_sum_exec_runtime);
		policy = BPF_CORE_READ(t, policy);
	}
	if (policy != 0 && policy != 3 && policy != 5)	/* NORMAL, BATCH, IDLE */
		return lat_task_on_cpu(t);
	return sum > at_pick ? sum - at_pick : 0;
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

/*
 * The system call a task is in, from the registers saved when it entered
 * the kernel (bpf_task_pt_regs(), 5.15): orig_ax on x86-64, syscallno on
 * arm64; -1 when it entered another way (an interrupt, a fault: x86's
 * exception entry stores -1 there, arch/x86/entry/entry_64.S "no syscall
 * to restart"). A kernel thread never entered from user space: its saved
 * registers are zeros (copy_thread()), so it is in no call. As a code of
 * include/latbpf/time.h: 0 none, nr + 1, LAT_TIME_CODE_BAD out of range,
 * LAT_TIME_COMPAT for a 32-bit task's call (x86's TS_COMPAT in
 * thread_info.status while it runs an ia32 call; arm64's TIF_32BIT), whose
 * number is in that table.
 */
#define LAT_PF_KTHREAD 0x00200000
#define LAT_PF_IO_WORKER 0x00000010	/* io_uring's workers: no call of their own */

/*
 * Where those registers are: bpf_task_pt_regs() is a helper call, which on
 * a CPU with return-thunk mitigations (SRSO here) costs ~17 ns a switch.
 * The registers lie at a fixed offset from the task's stack (THREAD_SIZE
 * less the top padding less their size), so a kernel with the
 * bpf_rdonly_cast() kfunc ("bpf: Add a kfunc for generic type cast", 6.2;
 * the verifier turns it into a move) reads them with a plain load from
 * task->stack + that offset: the time family loads the program twin that
 * does (cast), and its loader measures the offset once, from the
 * iterator's first run (lat_regs_at, lat_stack_at: one task's registers
 * and stack, as numbers), into lat_regs_off. Until then, and without the
 * kfunc, the helper.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
volatile __u64 lat_regs_off = 0;
__u64 lat_regs_at = 0, lat_stack_at = 0;

static __always_inline struct pt_regs *lat_task_regs(struct task_struct *t, bool cast)
{
	if (cast && lat_regs_off)
		return bpf_rdonly_cast((char *)t->stack + lat_regs_off,
				       bpf_core_type_id_kernel(struct pt_regs));
	return (struct pt_regs *)bpf_task_pt_regs(t);
}

/* the iterator: one task's registers and stack, for the loader's offset */
static __always_inline void lat_regs_calibrate(struct task_struct *t)
{
	struct pt_regs *regs;

	if (lat_regs_at)
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	lat_stack_at = (__u64)t->stack;
	lat_regs_at = (__u64)regs;
}

static __always_inline __u32 lat_task_syscall_code(struct task_struct *t, bool cast)
{
	struct pt_regs *regs;
	long nr;
	__u32 compat = 0;

	if (t->flags & (LAT_PF_KTHREAD | LAT_PF_IO_WORKER))
		return LAT_TIME_CODE_NONE;
	regs = lat_task_regs(t, cast);
	if (!regs)
		return LAT_TIME_CODE_NONE;
#if defined(__TARGET_ARCH_x86)
	nr = (long)regs->orig_ax;
	if (t->thread_info.status & 0x0002 /* TS_COMPAT */)
		compat = LAT_TIME_COMPAT;
#elif defined(__TARGET_ARCH_arm64)
	nr = regs->syscallno;
	if (t->thread_info.flags & (1UL << 22) /* TIF_32BIT */)
		compat = LAT_TIME_COMPAT;
#else
	nr = -1;
#endif
	if (nr == -1)
		return LAT_TIME_CODE_NONE;
	if (nr < 0 || nr >= LAT_TIME_MAX_NR)
		return LAT_TIME_CODE_BAD;
	return compat | (__u32)(nr + 1);
}

/*
 * What the kernel says about a sleep beside its system call: in_iowait
 * (set by io_schedule()), in_memstall (PSI, 4.20: reclaim, compaction,
 * thrashing; CONFIG_PSI), in_user_fault (set around a user page fault for
 * memcg's OOM handling; CONFIG_MEMCG). A kernel without a bit has no such
 * reason, and says so (src/families/time.c's mode).
 */
static __always_inline __u32 lat_task_reason(struct task_struct *t)
{
	if (bpf_core_field_exists(t->in_memstall) && BPF_CORE_READ_BITFIELD(t, in_memstall))
		return LAT_TIME_REASON_MEMORY;
	if (BPF_CORE_READ_BITFIELD(t, in_iowait))
		return LAT_TIME_REASON_IO;
	if (bpf_core_field_exists(t->in_user_fault) && BPF_CORE_READ_BITFIELD(t, in_user_fault))
		return LAT_TIME_REASON_FAULT;
	return LAT_TIME_REASON_NONE;
}

/*
 * Whether a fair task left its CPU because its cgroup's CFS quota ran out.
 * 6.18 throttles tasks, not cfs_rqs, marking each with p->throttled as it
 * leaves for user space ("sched/fair: Switch to task based throttle model",
 * Valentin Schneider and Aaron Lu, merged for 6.18); before, the cfs_rq the
 * task is queued on counts the throttled levels at and above it
 * (cfs_rq::throttle_count; CONFIG_FAIR_GROUP_SCHED gives a task its
 * se.cfs_rq).
 */
struct task_struct___thr {
	bool throttled;
} __attribute__((preserve_access_index));

static __always_inline bool lat_task_throttled(struct task_struct *t)
{
	struct cfs_rq *rq;

	if (bpf_core_field_exists(((struct task_struct___thr *)t)->throttled))
		return ((struct task_struct___thr *)t)->throttled;
	if (!bpf_core_field_exists(t->se.cfs_rq))
		return false;
	rq = t->se.cfs_rq;
	return rq && rq->throttle_count > 0;
}

/*
 * Whether the program runs on an interrupt's stack, not the current task's:
 * hard and soft interrupts run on per-CPU stacks of their own (x86-64: the
 * IRQ stack for both, and softirqs run from local_bh_enable() switch to
 * it too; arm64 likewise), so a BPF frame outside current's task stack says
 * the code running is an interrupt, not the task it interrupted. (The
 * preempt count would also say which kind, but on x86 it is a per-CPU
 * variable whose address a kernel without CONFIG_KALLSYMS_ALL, as 6.18
 * here, does not give BPF.) A task stack is 16 KiB, 32 with KASAN: the
 * bound is well above, an interrupt stack far away. Privileged programs
 * only: it compares a stack address. scratch: a word in a map value.
 */
#define LAT_TASK_STACK_MAX (64U << 10)

static __always_inline bool lat_on_irq_stack(struct task_struct *cur, volatile __u64 *scratch)
{
	volatile __u64 here = 0;

	/* through a map value's word, which reads back as a plain number: a
	 * stack pointer minus an unbounded number is refused by older
	 * verifiers ("math between fp pointer and register with unbounded min
	 * value", 6.1), and the whole object with it */
	*scratch = (__u64)&here;
	return *scratch - (__u64)cur->stack >= LAT_TASK_STACK_MAX;
}

#endif

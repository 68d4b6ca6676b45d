/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault family: user page faults of the targets, by kind, and fault stalls.
 *
 * Page faults have an entry tracepoint (exceptions:page_fault_user, x86) and
 * no exit. What can be measured honestly: how many faults, of which kind
 * (error code: read / write / instruction fetch; filemap:mm_filemap_fault
 * marks those that went to the page cache), and, for a fault during which
 * the thread went to sleep, the time from fault entry until the thread is
 * back on CPU. A thread is still inside its fault when it is switched out
 * voluntarily with its saved user instruction pointer equal to the faulting
 * one: the fault has not returned to user space yet.
 *
 * The stall needs sched_switch, which bpf/sched.bpf.c owns (one program per
 * tracepoint for every family): it calls fault_on_switch() when en_fault is
 * set, with the per-task record it already fetched.
 */
#ifndef LATBPF_FAULT_BPF_H
#define LATBPF_FAULT_BPF_H

#include "latbpf/fault.h"

const volatile bool en_fault = false;

struct fault_task {
	__u64 since;	/* fault entry */
	__u64 ip;	/* faulting user instruction */
	__u32 state;	/* FT_NONE, FT_IN (entered), FT_STALLED (slept in it) */
	__u32 _pad;
};
enum { FT_NONE, FT_IN, FT_STALLED };

LAT_CPU_ARRAY(fault_cpu, struct lat_fault_cpu);

static __always_inline struct lat_fault_cpu *fault_cpu_get(void)
{
	return lat_cpu_value(&fault_cpu);
}

/* on entry: count it; remember where and when, for a possible stall */
static __always_inline void fault_on_entry(struct fault_task *ft, struct pt_regs *regs,
					   unsigned long error_code)
{
	struct lat_fault_cpu *c = fault_cpu_get();

	if (!c)
		return;
	c->faults++;
	if (error_code & 16)		/* X86_PF_INSTR */
		c->instr++;
	else if (error_code & 2)	/* X86_PF_WRITE */
		c->write++;
	else
		c->read++;
	if (ft) {
		ft->since = bpf_ktime_get_ns();
		ft->ip = PT_REGS_IP(regs);
		ft->state = FT_IN;
	}
}

static __always_inline void fault_on_filemap(void)
{
	struct lat_fault_cpu *c = fault_cpu_get();

	if (c)
		c->filemap++;
}

/* fp, fn: the fault records of prev and next, NULL unless targets */
static __always_inline void fault_on_switch(bool preempt, struct task_struct *prev,
					    struct fault_task *fp, struct fault_task *fn,
					    __u64 *clock)
{
	struct lat_fault_cpu *c;
	struct pt_regs *regs;

	/* a preemption inside the fault decides nothing: it may still sleep */
	if (fp && fp->state == FT_IN && !preempt && lat_task_state_btf(prev) != 0) {
		regs = (struct pt_regs *)bpf_task_pt_regs(prev);
		fp->state = regs && PT_REGS_IP(regs) == fp->ip ? FT_STALLED : FT_NONE;
	}
	if (fn && fn->state == FT_STALLED) {
		fn->state = FT_NONE;
		c = fault_cpu_get();
		if (c) {
			c->stalls++;
			lat_hist_record(&c->stall, lat_clock(clock) - fn->since);
		}
	}
}

#endif

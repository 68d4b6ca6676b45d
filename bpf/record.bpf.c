// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder (--record): the scheduling events of the CPUs that
 * matter, one record each into a BPF ring buffer, for the loader to keep
 * the last seconds of (src/core/flight.c) and write as a Perfetto trace.
 *
 * Its own object, loaded only with --record: the shared scheduler object
 * (bpf/sched.bpf.c) and its hot path stay as they are without it. With it,
 * sched_switch has a second program, which costs its dispatch and its own
 * work on every context switch of the machine (tools/overhead.sh, config
 * "record").
 *
 * Which CPUs: those the loader marks in rec_cpu (the CPUs the target is
 * pinned to, --cpus) and every CPU a target thread runs on, marked here at
 * its first switch-in there; rec_all (no filter: the whole system) all of
 * them. What, on a recorded CPU: every sched_switch, irq_handler_entry/exit
 * and softirq_entry/exit; sched_waking when the woken task is a target or
 * the waker's or the woken task's CPU is recorded (Perfetto makes a
 * thread's runnable state from it); sched_migrate_task of a target.
 *
 * Records are submitted without waking the reader, which drains the ring on
 * a timer (a wakeup per event would cost more than the event). A record
 * the full ring refuses is counted in rec_lost, per CPU.
 *
 * The handlers are written once; tp_btf entry points (BTF pointers, plain
 * loads) are preferred, raw_tp twins (CO-RE reads) load where tp_btf does
 * not, as in bpf/sched.bpf.c; the loader picks by loading.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "latbpf/record.h"
#include "target.bpf.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool rec_all = false;

/* set by the loader and by rec_switch; read on every event */
__u8 rec_cpu[LAT_REC_MAX_CPUS] = {};
/* records the full ring refused, by CPU */
__u64 rec_lost[LAT_REC_MAX_CPUS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* the loader sizes it */
} rec_ring SEC(".maps");

#define TREAD(btf, t, f) ((btf) ? (t)->f : BPF_CORE_READ(t, f))

/* A target thread (never an idle task). */
#define TARGET(btf, t) (TREAD(btf, t, pid) && \
			lat_task_is_target(t, TREAD(btf, t, tgid), TREAD(btf, t, pid), btf))

/* The tables are indexed by the CPU masked as well as checked: 6.1's
 * verifier loses the check's bound when the CPU goes through the stack
 * ("R2 unbounded memory access"), and the compiler drops a mask it knows
 * changes nothing, unless the value is opaque to it (barrier_var). */
_Static_assert((LAT_REC_MAX_CPUS & (LAT_REC_MAX_CPUS - 1)) == 0, "a power of two");
static __always_inline __u32 REC_CPU(__u32 cpu)
{
	barrier_var(cpu);
	return cpu & (LAT_REC_MAX_CPUS - 1);
}

static __always_inline bool recorded(__u32 cpu)
{
	return rec_all || (cpu < LAT_REC_MAX_CPUS && rec_cpu[REC_CPU(cpu)]);
}

/* A record's room, or NULL (counted by CPU; past LAT_REC_MAX_CPUS in the
 * slot of CPU % LAT_REC_MAX_CPUS). One test of the record on its path, and
 * no other test before it: 6.1's verifier does not know a reserved record
 * tested once is not NULL the second time ("Unreleased reference"). */
static __always_inline void *rec_reserve(__u32 size, __u32 cpu)
{
	void *e = bpf_ringbuf_reserve(&rec_ring, size, 0);

	if (!e)
		__sync_fetch_and_add(&rec_lost[REC_CPU(cpu)], 1);
	return e;
}

static __always_inline void rec_head(struct lat_rec_head *h, __u32 pid, __u32 cpu, __u8 type,
				     __u8 flags)
{
	h->ts = bpf_ktime_get_boot_ns();
	h->pid = pid;
	h->cpu = (__u16)cpu;
	h->type = type;
	h->flags = flags;
}

/*
 * The waker's context, as ftrace's common_flags say it: from the CPU's
 * preempt count (include/linux/preempt.h: NMI_MASK 0x00f00000, HARDIRQ_MASK
 * 0x000f0000, SOFTIRQ_OFFSET 0x100 while serving softirqs). Where the task
 * keeps it (arm64: thread_info), a read; x86 keeps it per CPU, which a
 * kernel without KALLSYMS_ALL does not let a program name (ksym), so it is
 * read at the CPU's run queue's address plus the distance between the two
 * per-CPU variables, which the loader reads from BTF (pc_from_rq: 0 when it
 * found none, and then every waker is in task context). PREEMPT_RT counts
 * softirqs per task (softirq_disable_cnt, a field only RT kernels have: its
 * presence says RT, where a __kconfig extern would need the kernel's config
 * file, which libbpf 1.1 fails the load without even for a weak one: the
 * guests' root has no /boot/config for their kernel, nor do many
 * containers).
 */
const volatile __s64 pc_from_rq = 0;

struct thread_info___pc {
	int preempt_count;
} __attribute__((preserve_access_index));
struct task_struct___pc {
	struct thread_info___pc thread_info;
	int softirq_disable_cnt;
} __attribute__((preserve_access_index));

/* cur: the current task, a BTF pointer (btf) or not */
static __always_inline __u8 rec_ctx(struct task_struct *cur, bool btf)
{
	struct task_struct___pc *t = (void *)cur;
	int pc = 0, soft;
	__u64 rq = 0;

	if (bpf_core_field_exists(t->thread_info.preempt_count)) {
		pc = btf ? t->thread_info.preempt_count : BPF_CORE_READ(t, thread_info.preempt_count);
	} else if (pc_from_rq && bpf_core_field_exists(((struct cfs_rq *)0)->rq)) {
		/* every task's cfs_rq is its CPU's, the idle task's too */
		rq = btf ? (__u64)cur->se.cfs_rq->rq : (__u64)BPF_CORE_READ(cur, se.cfs_rq, rq);
		if (rq)
			bpf_probe_read_kernel(&pc, sizeof(pc), (void *)(rq + pc_from_rq));
	}
	soft = pc;
	if (bpf_core_field_exists(t->softirq_disable_cnt))
		soft = btf ? t->softirq_disable_cnt : BPF_CORE_READ(t, softirq_disable_cnt);
	if (pc & 0x00f00000)
		return LAT_REC_F_NMI;
	if (pc & 0x000f0000)
		return LAT_REC_F_HARDIRQ;
	return (soft & 0x100) ? LAT_REC_F_SOFTIRQ : 0;
}

/*
 * prev_state as sched_switch reports it (include/trace/events/sched.h,
 * __trace_sched_switch_state): preempted is TASK_REPORT_MAX (0x100), else
 * the highest bit of the state within TASK_REPORT (0x7f), TASK_IDLE as
 * TASK_REPORT_IDLE (0x80), an RT lock wait or a frozen task as
 * uninterruptible.
 */
static __always_inline __u16 report_state(bool preempt, __u32 state, __u32 exit_state)
{
	__u32 s;

	if (preempt)
		return 0x100;
	s = (state | exit_state) & 0x7f;
	if ((state & 0x402) == 0x402)	/* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
		s = 0x80;
	if (state & (0x1000 | 0x8000))	/* TASK_RTLOCK_WAIT, TASK_FROZEN */
		s = 0x2;
	if (s & 0x80)
		return 0x80;
	if (s & 0x40)
		return 0x40;
	if (s & 0x20)
		return 0x20;
	if (s & 0x10)
		return 0x10;
	if (s & 0x8)
		return 0x8;
	if (s & 0x4)
		return 0x4;
	return (__u16)(s & 0x3 ? (s & 0x2 ? 0x2 : 0x1) : 0);
}

static __always_inline void copy_comm(char *dst, struct task_struct *t, bool btf)
{
	if (btf)
		__builtin_memcpy(dst, t->comm, LAT_REC_COMM);	/* plain loads */
	else
		bpf_probe_read_kernel(dst, LAT_REC_COMM, &t->comm);
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next, bool btf)
{
	__u32 cpu = bpf_get_smp_processor_id(), state;
	struct lat_rec_switch *e;
	bool tn, tp;

	tn = TARGET(btf, next);
	/* a CPU the target runs on is recorded from now on */
	if (tn && !rec_all && cpu < LAT_REC_MAX_CPUS && !rec_cpu[REC_CPU(cpu)])
		rec_cpu[REC_CPU(cpu)] = 1;
	if (!recorded(cpu))
		return 0;
	tp = TARGET(btf, prev);
	e = rec_reserve(sizeof(*e), cpu);
	if (!e)
		return 0;
	rec_head(&e->h, TREAD(btf, prev, pid), cpu, LAT_REC_SWITCH,
		 (tp ? LAT_REC_F_PREV : 0) | (tn ? LAT_REC_F_NEXT : 0));
	state = btf ? lat_task_state_btf(prev) : lat_task_state(prev);
	e->prev_state = report_state(preempt, state, TREAD(btf, prev, exit_state));
	e->prev_tgid = TREAD(btf, prev, tgid);
	e->next_pid = TREAD(btf, next, pid);
	e->next_tgid = TREAD(btf, next, tgid);
	e->prev_prio = (__u8)TREAD(btf, prev, prio);
	e->next_prio = (__u8)TREAD(btf, next, prio);
	copy_comm(e->prev_comm, prev, btf);
	copy_comm(e->next_comm, next, btf);
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline int on_waking(struct task_struct *p, bool btf)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tcpu = btf ? lat_task_cpu_btf(p) : lat_task_cpu(p);
	struct lat_rec_waking *e;
	struct task_struct *cur;
	__u64 id;
	bool t;

	t = TARGET(btf, p);
	if (!t && !recorded(cpu) && !recorded(tcpu))
		return 0;
	e = rec_reserve(sizeof(*e), cpu);
	if (!e)
		return 0;
	/* the waker: through its BTF pointer, plain loads, no helper call */
	cur = btf ? bpf_get_current_task_btf() : (struct task_struct *)bpf_get_current_task();
	if (btf) {
		rec_head(&e->h, cur->pid, cpu, LAT_REC_WAKING,
			 (t ? LAT_REC_F_PREV : 0) | rec_ctx(cur, true));
		e->tgid = cur->tgid;
		__builtin_memcpy(e->cur_comm, cur->comm, sizeof(e->cur_comm));
	} else {
		id = bpf_get_current_pid_tgid();
		rec_head(&e->h, (__u32)id, cpu, LAT_REC_WAKING,
			 (t ? LAT_REC_F_PREV : 0) | rec_ctx(cur, false));
		e->tgid = (__u32)(id >> 32);
		bpf_get_current_comm(e->cur_comm, sizeof(e->cur_comm));
	}
	e->wpid = TREAD(btf, p, pid);
	e->wtgid = TREAD(btf, p, tgid);
	e->target_cpu = (__u16)tcpu;
	e->prio = (__u8)TREAD(btf, p, prio);
	e->_pad = 0;
	copy_comm(e->comm, p, btf);
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline int on_migrate(struct task_struct *p, int dest, bool btf)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lat_rec_migrate *e;

	if (!TARGET(btf, p))
		return 0;
	e = rec_reserve(sizeof(*e), cpu);
	if (!e)
		return 0;
	rec_head(&e->h, (__u32)bpf_get_current_pid_tgid(), cpu, LAT_REC_MIGRATE, LAT_REC_F_PREV);
	e->mpid = TREAD(btf, p, pid);
	e->mtgid = TREAD(btf, p, tgid);
	e->orig_cpu = (__u16)(btf ? lat_task_cpu_btf(p) : lat_task_cpu(p));
	e->dest_cpu = (__u16)dest;
	e->prio = (__u8)TREAD(btf, p, prio);
	__builtin_memset(e->_pad, 0, sizeof(e->_pad));
	copy_comm(e->comm, p, btf);
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

/* action: the handler's, for its name at entry; NULL at exit. An
 * interrupt is short (1 us here), and every program on its tracepoints
 * runs inside someone's measure of it: this one's time stays out of its
 * own, its clock read last at entry and first at exit. */
static __always_inline int on_irq(__u8 type, int irq, struct irqaction *action, int ret,
				  bool btf)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 ts = action ? 0 : bpf_ktime_get_boot_ns();
	struct lat_rec_irq *e;
	const char *name;

	if (!recorded(cpu))
		return 0;
	e = rec_reserve(sizeof(*e), cpu);
	if (!e)
		return 0;
	e->irq = irq;
	e->ret = ret;
	__builtin_memset(e->name, 0, sizeof(e->name));
	if (action) {
		name = btf ? action->name : BPF_CORE_READ(action, name);
		bpf_probe_read_kernel_str(e->name, sizeof(e->name), name);
	}
	rec_head(&e->h, (__u32)bpf_get_current_pid_tgid(), cpu, type, 0);
	if (ts)
		e->h.ts = ts;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline int on_softirq(__u8 type, unsigned int vec)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lat_rec_softirq *e;

	if (!recorded(cpu))
		return 0;
	e = rec_reserve(sizeof(*e), cpu);
	if (!e)
		return 0;
	rec_head(&e->h, (__u32)bpf_get_current_pid_tgid(), cpu, type, 0);
	e->vec = vec;
	e->_pad = 0;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(rec_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(preempt, prev, next, true);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(rec_waking, struct task_struct *p)
{
	return on_waking(p, true);
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(rec_migrate, struct task_struct *p, int dest_cpu)
{
	return on_migrate(p, dest_cpu, true);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(rec_irq_entry, int irq, struct irqaction *action)
{
	return on_irq(LAT_REC_IRQ, irq, action, 0, true);
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(rec_irq_exit, int irq, struct irqaction *action, int ret)
{
	return on_irq(LAT_REC_IRQ_EXIT, irq, NULL, ret, true);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(rec_softirq_entry, unsigned int vec)
{
	return on_softirq(LAT_REC_SOFTIRQ, vec);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(rec_softirq_exit, unsigned int vec)
{
	return on_softirq(LAT_REC_SOFTIRQ_EXIT, vec);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(rec_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(preempt, prev, next, false);
}

SEC("raw_tp/sched_waking")
int BPF_PROG(rec_waking_raw, struct task_struct *p)
{
	return on_waking(p, false);
}

SEC("raw_tp/sched_migrate_task")
int BPF_PROG(rec_migrate_raw, struct task_struct *p, int dest_cpu)
{
	return on_migrate(p, dest_cpu, false);
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(rec_irq_entry_raw, int irq, struct irqaction *action)
{
	return on_irq(LAT_REC_IRQ, irq, action, 0, false);
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(rec_irq_exit_raw, int irq, struct irqaction *action, int ret)
{
	return on_irq(LAT_REC_IRQ_EXIT, irq, NULL, ret, false);
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(rec_softirq_entry_raw, unsigned int vec)
{
	return on_softirq(LAT_REC_SOFTIRQ, vec);
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(rec_softirq_exit_raw, unsigned int vec)
{
	return on_softirq(LAT_REC_SOFTIRQ_EXIT, vec);
}

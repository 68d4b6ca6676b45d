/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's events (--record): bpf/record.bpf.c writes them into
 * a BPF ring buffer, the loader keeps them per CPU (src/core/flight.c) and
 * writes them as Perfetto ftrace events (src/output/perfetto.c). Each record
 * starts with lat_rec_head; its type says which struct it is. Times are
 * CLOCK_BOOTTIME (bpf_ktime_get_boot_ns), the clock of Perfetto's ftrace.
 */
#ifndef LATBPF_RECORD_H
#define LATBPF_RECORD_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define LAT_REC_COMM 16
#define LAT_REC_MAX_CPUS 1024	/* the recorded-CPU table's size */

enum lat_rec_type {
	LAT_REC_SWITCH = 1,	/* sched_switch: prev is the head's pid */
	LAT_REC_WAKING,		/* sched_waking: the head's pid is the waker */
	LAT_REC_IRQ,		/* irq_handler_entry */
	LAT_REC_IRQ_EXIT,	/* irq_handler_exit */
	LAT_REC_SOFTIRQ,	/* softirq_entry */
	LAT_REC_SOFTIRQ_EXIT,	/* softirq_exit */
	LAT_REC_MIGRATE,	/* sched_migrate_task of a target */
	LAT_REC_DELAY,		/* the loader's: a target's wait (struct lat_rec_delay) */
	LAT_REC_NR_TYPES,
};

/* lat_rec_head.flags */
#define LAT_REC_F_PREV	0x01	/* switch: prev is a target; waking, migrate: the task is */
#define LAT_REC_F_NEXT	0x02	/* switch: next is a target */
/* waking: the context of the waker, with ftrace's common_flags values
 * (kernel/trace/trace.h: TRACE_FLAG_HARDIRQ, _SOFTIRQ, _NMI), so Perfetto
 * reads them as the kernel's own */
#define LAT_REC_F_HARDIRQ 0x08
#define LAT_REC_F_SOFTIRQ 0x10
#define LAT_REC_F_NMI	0x40
#define LAT_REC_F_CTX	(LAT_REC_F_HARDIRQ | LAT_REC_F_SOFTIRQ | LAT_REC_F_NMI)

struct lat_rec_head {
	__u64 ts;		/* CLOCK_BOOTTIME ns */
	__u32 pid;		/* the current task's tid (ftrace's common_pid) */
	__u16 cpu;
	__u8 type;		/* enum lat_rec_type */
	__u8 flags;		/* LAT_REC_F_* */
};

struct lat_rec_switch {
	struct lat_rec_head h;	/* h.pid: prev_pid */
	__u32 prev_tgid;
	__u32 next_pid;
	__u32 next_tgid;
	__u16 prev_state;	/* as the tracepoint reports it: 0x100 preempted */
	__u8 prev_prio, next_prio;	/* the kernel's prio, 0..139 */
	char prev_comm[LAT_REC_COMM];
	char next_comm[LAT_REC_COMM];
};

struct lat_rec_waking {
	struct lat_rec_head h;	/* h.pid: the waker (the interrupted task in an IRQ) */
	__u32 tgid;		/* the waker's */
	__u32 wpid;		/* the woken task */
	__u32 wtgid;
	__u16 target_cpu;	/* the CPU it last ran on, as the tracepoint says */
	__u8 prio;
	__u8 _pad;
	char comm[LAT_REC_COMM];	/* the woken task's */
	char cur_comm[LAT_REC_COMM];	/* the waker's */
};

/* irq_handler_entry (name) and irq_handler_exit (ret) */
struct lat_rec_irq {
	struct lat_rec_head h;
	__s32 irq;
	__s32 ret;
	char name[LAT_REC_COMM];
};

struct lat_rec_softirq {
	struct lat_rec_head h;
	__u32 vec;
	__u32 _pad;
};

struct lat_rec_migrate {
	struct lat_rec_head h;
	__u32 mpid;		/* the task that moves */
	__u32 mtgid;
	__u16 orig_cpu, dest_cpu;
	__u8 prio;
	__u8 _pad[3];
	char comm[LAT_REC_COMM];
};

/* Made by the loader, kept in the CPU's store with the kernel's events: a
 * target thread did not have the CPU from start to h.ts (preempted, woken,
 * or interrupted while it ran), on CPU h.cpu. */
enum lat_rec_delay_kind {
	LAT_REC_D_PREEMPTED,	/* switched out runnable, until it ran again */
	LAT_REC_D_WAKEUP,	/* woken, until it ran */
	LAT_REC_D_IRQ,		/* a hard IRQ handler while it ran */
	LAT_REC_D_SOFTIRQ,	/* a softirq while it ran (its hard IRQs included) */
	LAT_REC_D_NR,
};

struct lat_rec_delay {
	struct lat_rec_head h;	/* h.ts: the end; h.pid: the target thread */
	__u64 start;
	__u32 tgid;
	__u8 kind;		/* enum lat_rec_delay_kind */
	__u8 waker_flags;	/* wakeup: LAT_REC_F_CTX bits of its waking */
	__u16 waker_cpu;
	__u32 waker;		/* wakeup: the waker's tid (the interrupted one in an IRQ) */
	__u32 _pad;
	char comm[LAT_REC_COMM];	/* the target thread's */
	char waker_comm[LAT_REC_COMM];
};

_Static_assert(sizeof(struct lat_rec_head) == 16, "shared with BPF");
_Static_assert(sizeof(struct lat_rec_switch) == 64, "shared with BPF");
_Static_assert(sizeof(struct lat_rec_waking) == 64, "shared with BPF");
_Static_assert(sizeof(struct lat_rec_irq) == 40, "shared with BPF");
_Static_assert(sizeof(struct lat_rec_softirq) == 24, "shared with BPF");
_Static_assert(sizeof(struct lat_rec_migrate) == 48, "shared with BPF");
_Static_assert(sizeof(struct lat_rec_delay) == 72, "a record's size is a multiple of 8");

#endif

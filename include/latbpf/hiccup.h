/* SPDX-License-Identifier: GPL-2.0 */
/* Map value types of the hiccup family: bpf/hiccup.bpf.c and src/hiccup.c. */
#ifndef LATBPF_HICCUP_H
#define LATBPF_HICCUP_H

#include "latbpf/hist.h"

/* Why a target thread did not have its CPU. */
enum lat_hc_kind {
	LAT_HC_PREEMPTED,	/* switched out runnable, until it runs again */
	LAT_HC_WAKEUP,		/* woken, until it runs */
	LAT_HC_IRQ,		/* hard IRQ handler while it was on CPU */
	LAT_HC_SOFTIRQ,		/* softirq while it was on CPU (nested IRQs excluded) */
	LAT_HC_NMI,		/* NMI handler while it was on CPU */
	LAT_HC_RAN,		/* --cpus: a task ran on a watched CPU */
	LAT_HC_TIMER,		/* a timer it armed fired late (bpf/timer.bpf.h):
				 * it slept past its time, on the CPU the timer
				 * fired on; a tally, in no histogram */
	LAT_HC_SYSIRQ,		/* x86's system interrupts (local timer, IPIs),
				 * which have no irq_handler event: as IRQ */
	LAT_HC_NR_KINDS,
};
/* the kinds whose samples go into task_hist (the rest: intr_hist) */
#define LAT_HC_TASK_KIND(k) ((k) <= LAT_HC_WAKEUP || (k) == LAT_HC_RAN)

/* The intruder of a wakeup onto an idle CPU (LAT_HC_TASK, id 0): the time
 * the CPU took from the wakeup to running the target (leaving its idle
 * state, on a VM the hypervisor running the vCPU again); 15 characters. */
#define LAT_HC_IDLE_NAME "(CPU waking up)"

/* Who had the CPU meanwhile. */
enum lat_hc_who {
	LAT_HC_TASK,		/* id: pid (0: the CPU was idle: wakeup from idle) */
	LAT_HC_WHO_IRQ,		/* id: irq number, name: handler name */
	LAT_HC_WHO_SOFTIRQ,	/* id: vector */
	LAT_HC_WHO_NMI,
	LAT_HC_MIGRATION,	/* id: the CPU the thread was waiting on */
	LAT_HC_IRQ_THREAD,	/* id: pid of a threaded interrupt handler, name:
				 * its comm, "irq/NN-name" (every handler on
				 * PREEMPT_RT; some drivers' elsewhere) */
	LAT_HC_UNTRACED,	/* a stretch in which the kernel switched tasks
				 * without tracing it: whose time it was is
				 * unknown (id 0) */
	LAT_HC_WHO_VECTOR,	/* x86's system interrupts (local timer, IPIs):
				 * id: the vector, name: the kernel's event's */
	LAT_HC_OTHERS,		/* the loader's: intruders beyond those it keeps by
				 * name, summed per CPU (never from BPF) */
	LAT_HC_NR_WHO,
};

/* Per CPU (LAT_CPU_ARRAY, bpf/cpu.bpf.h): the state of the CPU's current
 * task and of the target threads waiting for it (bpf/hiccup.bpf.h) */
struct lat_hc_state {
	__u64 cur_start;	/* current task got the CPU (kept while waited for) */
	__u64 wait_since;	/* the waiters went 0 -> 1 */
	__u64 irq_in_window;	/* interrupt time since cur_start, in the window */
	__u64 top_ns;		/* largest intruder of the window */
	__u64 hard_start, soft_start, soft_nested, hard_nested;
	/* target threads waiting for this CPU: lat_hc_nwait() */
	__u32 nbegin;		/* waits begun, under its run-queue lock */
	__u32 nend;		/* ended under its run-queue lock */
	__u32 nend_remote;	/* ended from elsewhere: atomic */
	__u32 cur_target;	/* a target thread runs here */
	__u32 cur_next;		/* 1 + pid of the task the last traced switch
				 * here brought in; 0: none seen yet */
	__u32 top_who, top_id;
	__u32 hard_irq, soft_vec;
	char top_name[16];	/* the largest intruder's, taken when charged */
	__u32 vec_inside;	/* PREEMPT_RT: a system interrupt came inside an
				 * open threaded handler (hc_vec_entry) */
	__u32 _pad[2];		/* 128 bytes: CPUs' entries share no cache line */
};
_Static_assert(sizeof(struct lat_hc_state) % 64 == 0, "one CPU's entry, its own cache lines");

/* target threads waiting for the CPU of s (unsigned wrap-around); the
 * loader reads it through a mapping, racing BPF: a moment's value */
static inline __u32 lat_hc_nwait(const struct lat_hc_state *s)
{
	return s->nbegin - s->nend - s->nend_remote;
}

/* Per CPU (LAT_CPU_ARRAY, bpf/cpu.bpf.h): written only on that CPU, or under its
 * run-queue lock, so plain increments suffice. Sized in whole cache lines,
 * as are the other per-CPU arrays, so that CPUs never write one line. */
struct lat_hc_cpu {
	__u64 count[LAT_HC_NR_KINDS];
	__u64 stolen_ns[LAT_HC_NR_KINDS];
	__u64 events_lost;	/* ring buffer full */
	__u64 unseen;		/* waits whose end the kernel never traced */
	struct lat_hist task_hist;	/* PREEMPTED, WAKEUP and RAN intervals */
	struct lat_hist intr_hist;	/* IRQ, SOFTIRQ and NMI intervals */
	/* charges that found hc_intruders full: how many, and their time (the
	 * stolen time is still counted above, only its intruder is lost). With
	 * them the 16 bytes above make whole cache lines: CPUs share none. */
	__u64 intruders_lost;
	__u64 intruders_lost_ns;
	/* what threads pinned to this CPU (an affinity of one CPU) lost on it:
	 * their preempted, wakeup, irq, softirq, nmi and timer time */
	__u64 pinned_ns;
	__u64 _pad[1];
};
_Static_assert(sizeof(struct lat_hc_cpu) == 8 * (2 * LAT_HC_NR_KINDS + 2 + 2 + 1 + 1) +
		       2 * sizeof(struct lat_hist), "lat_hc_cpu layout is shared with BPF");
_Static_assert(sizeof(struct lat_hc_cpu) % 64 == 0, "one CPU's entry, its own cache lines");

/* Intruder totals, aggregated in the kernel: hash keyed by (cpu, who, id,
 * gen). The BPF side charges generation hc_gen, which the loader flips at
 * every poll; at the next poll nothing writes the other generation any
 * more, and the loader adds its entries to its own totals and deletes them:
 * the hash holds the intruders of about one interval, whatever the run's
 * length. */
struct lat_hc_intruder_key {
	__u32 cpu;
	__u32 who;
	__u32 id;
	__u32 gen;		/* 0 or 1; the loader's lists keep 0 */
};
struct lat_hc_intruder {
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
	char name[16];		/* comm or IRQ name: untrusted */
};
_Static_assert(sizeof(struct lat_hc_intruder) == 40, "shared with BPF");

#define LAT_HC_MAX_INTRUDERS 8192

/*
 * Task and migration intruders are charged on most context switches while a
 * target waits, and a hash update per switch cost more than the rest of the
 * family. So each CPU first charges into its own direct-mapped cache (array
 * indexed by CPU, written only by that CPU's sched_switch, interrupts off);
 * a slot moves into hc_intruders when another intruder needs it. A run's
 * totals are the hash plus every cache slot. `seq` is odd while a slot is
 * being moved or refilled: the loader reads seq, the hash, the cache and seq
 * again, and retries when seq moved.
 */
#define LAT_HC_CACHE_BITS 6
#define LAT_HC_CACHE (1U << LAT_HC_CACHE_BITS)

struct lat_hc_slot {
	__u32 who;
	__u32 id;
	__u64 count;		/* 0: empty */
	__u64 total_ns;
	__u64 max_ns;
	char name[16];
};

struct lat_hc_cache {
	__u64 seq;
	__u64 _pad[7];		/* whole cache lines: CPUs' entries share none */
	struct lat_hc_slot slot[LAT_HC_CACHE];
};
_Static_assert(sizeof(struct lat_hc_cache) == 64 + 48 * LAT_HC_CACHE, "shared with BPF");
_Static_assert(sizeof(struct lat_hc_cache) % 64 == 0, "one CPU's entry, its own cache lines");

/* The cache slot of an intruder: a multiplicative hash of who and id. */
static inline __u32 lat_hc_slot_of(__u32 who, __u32 id)
{
	return ((id ^ (who << 24)) * 2654435761U) >> (32 - LAT_HC_CACHE_BITS);
}

/* A hiccup above --threshold, through the ring buffer as it happens. */
struct lat_hc_event {
	__u64 ts_ns;		/* CLOCK_MONOTONIC at its end */
	__u64 duration_ns;
	__u32 cpu;
	__u32 tid;
	__u32 kind;		/* enum lat_hc_kind */
	__u32 who;		/* enum lat_hc_who of the largest intruder */
	__u32 pid;		/* its pid, irq or vector */
	__u32 _pad;
	__u64 who_ns;		/* its share of this hiccup */
	char name[16];		/* its comm or IRQ name */
	char comm[16];		/* the target thread's */
	__u64 timer_late_ns;	/* a wakeup by its own timer: how late that fired
				 * (before the wait, not in duration_ns) */
};
_Static_assert(sizeof(struct lat_hc_event) == 88, "shared with BPF");

#endif

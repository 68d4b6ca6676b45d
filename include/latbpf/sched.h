/* SPDX-License-Identifier: GPL-2.0 */
/* Map value types of the sched family, shared by bpf/sched.bpf.c (and
 * bpf/timer.bpf.h) and src/families/sched.c. */
#ifndef LATBPF_SCHED_H
#define LATBPF_SCHED_H

#include "latbpf/hist.h"

enum lat_sched_hist {
	LAT_SCHED_RUNQ,		/* runnable -> on CPU */
	LAT_SCHED_SLEEP,	/* switched out in S -> woken */
	LAT_SCHED_BLOCKED,	/* switched out in D or other -> woken */
	LAT_SCHED_TIMER,	/* a timer the thread armed: expiry -> fired */
	LAT_SCHED_NR_HIST,
};

/* One per CPU (LAT_CPU_ARRAY, bpf/cpu.bpf.h): the CPU an event was recorded on. */
struct lat_sched_cpu {
	__u64 voluntary;	/* switched out while not runnable */
	__u64 involuntary;	/* switched out while still runnable */
	__u64 threads_dropped;	/* --per-thread table full */
	__u64 unseen;		/* returns to CPU whose wakeup was never traced */
	struct lat_hist h[LAT_SCHED_NR_HIST];
};
_Static_assert(sizeof(struct lat_sched_cpu) ==
		       32 + LAT_SCHED_NR_HIST * sizeof(struct lat_hist),
	       "lat_sched_cpu layout is shared with BPF");

/* --per-thread: one per live target thread, hash map keyed by tid. At the
 * thread's last switch the BPF side sets exited; the loader then reads the
 * entry a last time and deletes it, so the map holds live threads only. */
struct lat_sched_thread {
	__u32 tid;
	__u32 tgid;
	char comm[16];
	__u64 voluntary;
	__u64 involuntary;
	__u32 exited;		/* its last switch is done: nothing writes it again */
	__u32 born;		/* the task's start_time >> 10: which task of
				 * this tid the entry is (tids are reused) */
	struct lat_hist h[LAT_SCHED_NR_HIST];
};
_Static_assert(sizeof(struct lat_sched_thread) ==
		       48 + LAT_SCHED_NR_HIST * sizeof(struct lat_hist),
	       "lat_sched_thread layout is shared with BPF");

/* live target threads with their own histograms in the kernel: 1024 x
 * 21.2 KB = 20.7 MiB at most (docs/performance.md, "Kernel memory") */
#define LAT_SCHED_MAX_THREADS 1024

/* the functions of a timed wait's hrtimer, found in /proc/kallsyms by the
 * loader (src/families/sched.c: timer_fns) for bpf/timer.bpf.h */
#define LAT_TIMER_FNS 4

/* timers the targets armed and that have not fired, followed at once
 * (bpf/timer.bpf.h: a hash, preallocated); more are counted in
 * sched.timers_lost, unmeasured */
#define LAT_SCHED_MAX_TIMERS 16384

#endif

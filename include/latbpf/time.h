/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Map value types of the time family (wall-time accounting), shared by
 * bpf/time.bpf.h and src/families/time.c.
 *
 * Every nanosecond of a target thread's life is in one state, and in the
 * state one cause: a key of 16 bits,
 *   state (2) | reason (2) | compat (1) | code (11)
 * running: code 0; runnable: code LAT_TIME_PREEMPTED, _WOKEN or _THROTTLED;
 * sleeping (S) and blocked (D and the rest): code 0 when the thread was in
 * no system call, the call's number + 1 when it was (compat: a 32-bit
 * task's number, in its own table), LAT_TIME_CODE_BAD for a number out of
 * range; reason what the kernel said beside it (in_iowait, in_memstall,
 * in_user_fault).
 */
#ifndef LATBPF_TIME_H
#define LATBPF_TIME_H

#include "latbpf/hist.h"

enum lat_time_state {
	LAT_TIME_RUNNING,
	LAT_TIME_RUNNABLE,
	LAT_TIME_SLEEPING,
	LAT_TIME_BLOCKED,
	LAT_TIME_NR_STATES,
};

/* runnable's causes: the code of a runnable key */
enum lat_time_runnable {
	LAT_TIME_PREEMPTED,	/* switched out while runnable */
	LAT_TIME_WOKEN,		/* woken, not yet on a CPU */
	LAT_TIME_THROTTLED,	/* switched out by its cgroup's CPU quota */
	LAT_TIME_NR_RUNNABLE,
};

enum lat_time_reason {
	LAT_TIME_REASON_NONE,
	LAT_TIME_REASON_IO,	/* in_iowait: io_schedule() */
	LAT_TIME_REASON_MEMORY,	/* in_memstall: reclaim, compaction, thrashing */
	LAT_TIME_REASON_FAULT,	/* in_user_fault: a user page fault */
};

#define LAT_TIME_CODE_BITS 11
#define LAT_TIME_CODE_NONE 0	/* in no system call */
#define LAT_TIME_CODE_BAD ((1U << LAT_TIME_CODE_BITS) - 1)	/* a number out of range */
#define LAT_TIME_MAX_NR (LAT_TIME_CODE_BAD - 1)	/* syscall numbers below this */
#define LAT_TIME_COMPAT (1U << LAT_TIME_CODE_BITS)

#define LAT_TIME_KEY(state, reason, code) \
	((__u32)(state) << 14 | (__u32)(reason) << 12 | (__u32)(code))
#define LAT_TIME_KEY_STATE(k) (((k) >> 14) & 3)
#define LAT_TIME_KEY_REASON(k) (((k) >> 12) & 3)
#define LAT_TIME_KEY_CODE(k) ((k) & (LAT_TIME_COMPAT - 1))
#define LAT_TIME_KEY_COMPAT(k) (!!((k) & LAT_TIME_COMPAT))
/* sleeping and blocked keys, as an index from 0 (time_key_slot) */
#define LAT_TIME_OFF_INDEX(k) ((k) & ((1U << 15) - 1))
#define LAT_TIME_OFF_KEYS (1U << 15)

/*
 * Where a cause's time goes, slots numbered for the loader: slot 0 running
 * (its time only), 1..3 the runnable causes, both in one per-CPU value
 * (time_fixed: a switch, which closes one and opens the other, looks up
 * one), the rest taken by sleeping and blocked keys as they are first seen
 * (time_key_slot maps a key to its slot, time_slot_key back), each an entry
 * of time_hist (slot - LAT_TIME_FIRST_DYN), up to the number of slots the
 * loader gave; keys beyond go to a shared hash (time_over), slower.
 */
#define LAT_TIME_SLOT_RUNNING 0
#define LAT_TIME_SLOT_RUNNABLE 1	/* + enum lat_time_runnable */
#define LAT_TIME_FIRST_DYN (LAT_TIME_SLOT_RUNNABLE + LAT_TIME_NR_RUNNABLE)
#define LAT_TIME_MAX_SLOTS 64
#define LAT_TIME_SLOT_NONE 0		/* time_key_slot: not taken yet */
#define LAT_TIME_SLOT_OVER 0xffff	/* time_key_slot: no slot left: time_over */

/* One slot per CPU (per-CPU array, one entry a slot). */
struct lat_time_slot {
	__u64 ns;		/* time credited: whole episodes and the open
				 * ones' part up to each poll */
	struct lat_hist h;	/* each episode whole, at its end */
};
_Static_assert(sizeof(struct lat_time_slot) == 8 + sizeof(struct lat_hist),
	       "lat_time_slot layout is shared with BPF");

/* Per CPU (LAT_CPU_ARRAY, bpf/cpu.bpf.h): running's time, the sched family's
 * switch counts when the time family carries the episodes (struct
 * lat_sched_cpu's, counted here to spare sched_switch a lookup), and the
 * runnable causes' slots (enum lat_time_runnable) */
struct lat_time_fixed {
	__u64 running_ns;
	__u64 voluntary, involuntary, unseen;
	struct lat_time_slot runnable[LAT_TIME_NR_RUNNABLE];
};
_Static_assert(sizeof(struct lat_time_fixed) == 32 + 3 * sizeof(struct lat_time_slot),
	       "lat_time_fixed layout is shared with BPF");

/* time_over's value: a slot every CPU writes (atomic adds) */
struct lat_time_over {
	__u64 ns;
	struct lat_hist h;
};
_Static_assert(sizeof(struct lat_time_over) == 8 + sizeof(struct lat_hist),
	       "lat_time_over layout is shared with BPF");

/* Per CPU (per-CPU array, key 0). */
struct lat_time_cpu {
	__u64 exited;		/* target threads that ended (their last switch) */
	__u64 over;		/* episodes that went to time_over */
	__u64 over_lost;	/* ... and found it full: their time is lost */
	__u64 wakers_lost;	/* wakers the waker hash had no room for */
	__u64 threads_lost;	/* --per-thread: episodes the thread hash had no room for */
	__u64 born;		/* target threads that started (sched_wakeup_new) */
	__u64 untraced_in;	/* switch-outs of a target whose switch-in the
				 * kernel did not trace: its wait or sleep
				 * ended where the fair class says its run
				 * began */
	__u64 _pad[1];
};
_Static_assert(sizeof(struct lat_time_cpu) == 64, "lat_time_cpu layout is shared with BPF");

/* Who ended a sleep (at sched_waking: the task running then, or the
 * interrupt it was in) */
enum lat_time_who {
	LAT_TIME_WHO_TASK,	/* id: its tid */
	LAT_TIME_WHO_IRQ,	/* an interrupt, hard or soft (on its own stack) */
	LAT_TIME_WHO_IDLE,	/* the idle task, outside an interrupt */
};

struct lat_time_waker_key {
	__u32 key;	/* the ended sleep's cause key */
	__u16 who;	/* enum lat_time_who */
	__u16 _pad;
	__u32 id;	/* WHO_TASK: the waker's tid */
	__u32 gen;	/* the loader's generation (see time_wk) */
};
_Static_assert(sizeof(struct lat_time_waker_key) == 16, "shared with BPF");

struct lat_time_waker {
	__u64 count;
	__u64 ns;	/* the sleeps it ended, their length */
	__u32 pid;	/* WHO_TASK: the waker's tgid */
	__u32 _pad;
	char comm[16];	/* WHO_TASK: its name when first seen */
};
_Static_assert(sizeof(struct lat_time_waker) == 40, "shared with BPF");

/*
 * Wakers are counted per CPU first, in a direct-mapped cache of tagged
 * slots written only by that CPU's wakeups (no atomics on the hot path);
 * a slot another waker needs is moved to the shared hash time_wakers,
 * inside seq (odd while moving), so the loader, which reads the caches and
 * the hash, can tell a torn read and read again.
 */
#define LAT_TIME_WK_SLOTS 64
struct lat_time_wk_slot {
	struct lat_time_waker_key k;
	struct lat_time_waker v;
};
struct lat_time_wk_cache {
	__u64 seq;
	struct lat_time_wk_slot slot[LAT_TIME_WK_SLOTS];
};
_Static_assert(sizeof(struct lat_time_wk_cache) == 8 + LAT_TIME_WK_SLOTS * 56,
	       "lat_time_wk_cache layout is shared with BPF");

static inline __u32 lat_time_wk_slot_of(__u32 key, __u32 who, __u32 id)
{
	__u32 h = key * 2654435761U ^ (id + who) * 40503U;

	return (h ^ (h >> 16)) & (LAT_TIME_WK_SLOTS - 1);
}

/* --per-thread: one entry per (thread, cause) in a hash */
struct lat_time_thread_key {
	__u32 tid;
	__u32 key;	/* LAT_TIME_THREAD_HEAD: the thread's own entry */
};
_Static_assert(sizeof(struct lat_time_thread_key) == 8, "shared with BPF");
#define LAT_TIME_THREAD_HEAD 0xffffffffU

struct lat_time_thread {
	__u64 ns;
	struct lat_hist h;
	/* in the head entry only: */
	__u32 tgid;
	__u32 born;	/* start_time >> 10, as sched's: which task of this tid */
	__u32 exited;	/* its last switch is done */
	__u32 _pad;
	char comm[16];
};
_Static_assert(sizeof(struct lat_time_thread) == 8 + sizeof(struct lat_hist) + 32,
	       "lat_time_thread layout is shared with BPF");

/* (thread, cause) pairs with their own histograms in the kernel: 1024 x
 * 5.4 KB = 5.5 MiB at most, allocated as used (docs/performance.md,
 * "Kernel memory"); beyond, a thread's episodes are in the totals only,
 * counted in time.threads_lost */
#define LAT_TIME_MAX_THREAD_ENTRIES 1024

#endif

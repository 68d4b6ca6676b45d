/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf keeps out of its target's way: off its CPUs, and below it in the
 * scheduler (away.c). */
#ifndef LATBPF_CORE_AWAY_H
#define LATBPF_CORE_AWAY_H

#include <sched.h>
#include <stdbool.h>
#include "core/idlecg.h"
#include "core/run.h"

/*
 * latbpf's own threads, kept off the target: off every CPU a target thread
 * is pinned to (an affinity of one CPU), and off isolated and nohz_full
 * CPUs, while other CPUs remain of those latbpf was started on. Applied to
 * every thread of latbpf (new ones inherit it) and checked again at every
 * poll, as the target may change its affinity.
 */
struct lat_away {
	cpu_set_t given;	/* what latbpf was started with */
	cpu_set_t isolated, nohz_full;	/* from sysfs */
	cpu_set_t avoid;	/* the target's pinned CPUs, last seen */
	cpu_set_t runs_on;	/* latbpf's threads' affinity now */
	bool stuck;		/* nowhere to go: latbpf shares a target's CPU */
	const char *priority;	/* now: "idle", "nice 19", "normal" */
	const char *yielded;	/* what lat_away_yield() got */
	bool want_idle;		/* it yielded (not --priority normal) */
	bool idle_now;		/* and is yielded now (not while stuck) */
	int guard_fd;		/* the guard's timer; -1: no guard */
	bool guard_on;
	int guard_stop;		/* set: the guard ends at its next wake */
	unsigned long guard_thr;	/* pthread_t */
	int main_tid;		/* the thread the guard lifts */
	struct lat_idlecg cg;	/* yielded: its threads' idle cgroup */
};
void lat_away_init(struct lat_away *a);
/* re-reads the target's pinned CPUs and moves latbpf's threads when they
 * changed; true when it moved them. Stuck on a target's CPU, latbpf's
 * threads get back the priority it was started with (at SCHED_IDLE they
 * would not run while the target does), and yield again once they can
 * leave. */
bool lat_away_update(struct lat_away *a, const struct lat_run *run);

/*
 * And out of its time: latbpf's threads (every one it has, and every one it
 * starts later) at SCHED_IDLE, so a task that wakes on their CPU preempts
 * them at once; where the kernel refuses that, at the lowest CFS weight
 * (nice 19). And in an idle cgroup of their own (idlecg.h), for the tasks
 * of every other group: SCHED_IDLE alone yields to latbpf's own group
 * only. Called once attached: the attach itself (the verifier's work,
 * a few hundred ms of CPU, once) runs at the priority latbpf was started
 * with, as at SCHED_IDLE a host with every CPU busy let it run so little
 * that it took minutes. idle false leaves them as latbpf was started
 * ("normal"). Returns what it got, also in a->priority.
 */
const char *lat_away_yield(struct lat_away *a, bool idle);
/* In a child latbpf starts (the COMMAND), before it execs: the policy and
 * nice latbpf was started with. */
void lat_away_unyield(void);

/*
 * The guard against starving: at SCHED_IDLE, a host whose every CPU is
 * busy (a hog on each) may not run latbpf for seconds, and the ring
 * buffers fill. Before EEVDF (6.6) an idle task that ran one tick owes a
 * nice-0 hog ~1.4 s of its run before it is picked again, and giving it
 * back a normal priority does not take that debt back (in a 6.1 guest,
 * polls came 5-10 s apart, lifted to normal or not). So a thread of its
 * own, at the priority latbpf was started with, sleeps on a timer the
 * poll loop moves on at every poll (lat_away_guard_arm: when the next
 * poll is a whole interval overdue); it wakes only if that poll has not
 * come, and then lifts the calling thread to SCHED_FIFO 1 (the lowest
 * real-time priority; the start's CFS priority where that is refused)
 * for that one poll; the next arm yields again. A poll on time costs one
 * timerfd_settime, and the guard never runs. Started after
 * lat_away_yield(); without a yield, none.
 */
int lat_away_guard_start(struct lat_away *a);
/* the next poll is due at due_ns (CLOCK_MONOTONIC); the guard fires at
 * due_ns + slack_ns. Yields again if the guard had lifted the caller. */
void lat_away_guard_arm(struct lat_away *a, unsigned long long due_ns,
			unsigned long long slack_ns);
/* polls the guard lifted, so far */
unsigned long long lat_away_guard_polls(void);
void lat_away_guard_stop(struct lat_away *a);
/* at the end: latbpf's threads back in their cgroup, the idle one removed */
void lat_away_leave(struct lat_away *a);

#endif

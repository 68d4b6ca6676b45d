/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An idle CPU cgroup for latbpf's own threads (idlecg.c).
 *
 * SCHED_IDLE yields only to tasks of latbpf's own task group since 6.12
 * (faa42d29419d "sched/fair: Make SCHED_IDLE entity be preempted in strict
 * hierarchy", also in 6.6.y): the fair class decides a wakeup's preemption
 * between the two tasks' entities at the level where they share a parent,
 * and a task's SCHED_IDLE is not its group's. A target in another cgroup, or in another session's autogroup
 * (a service, against latbpf started from a shell), woke on latbpf's CPU
 * and waited for latbpf's slice: up to 4.7 ms, 74 waits over 60 us in 12
 * s, against 4 and 0.9 ms in one group (2026-11-28, a SCHED_IDLE spinner
 * and yield.t's target, setsid or not). A cgroup whose cpu.idle is 1 (5.15)
 * makes the group's own entity idle: made at the top of the cpu
 * controller's hierarchy, it is below every other group at that level.
 */
#ifndef LATBPF_CORE_IDLECG_H
#define LATBPF_CORE_IDLECG_H

#include <stdbool.h>
#include <stdio.h>

struct lat_idlecg {
	bool on;		/* made, cpu.idle set */
	bool v2;		/* cgroup2: a whole process moves; v1: a thread */
	/* a real-time thread may stay in it: the kernel has no real-time
	 * group scheduling, or the group got real-time runtime (v1) */
	bool rt_ok;
	char root[512];		/* the hierarchy's mount */
	char dir[512];		/* ours: <root>/latbpf-idle.<pid> */
	char home[512];		/* where latbpf was: its cgroup in that hierarchy */
	const char *why;	/* off: why (JSON's idle_cgroup_off) */
};

/* Makes the cgroup (and removes those a killed latbpf left, empty). Moves
 * nothing. false, with g->why, where there is no cpu controller to use
 * (none mounted; cgroup2's not enabled at its root; inside a cgroup
 * namespace, whose top is not the host's), it cannot be written, or the
 * kernel has no cpu.idle. */
bool lat_idlecg_make(struct lat_idlecg *g);
/* tid (0: the calling thread) into the idle cgroup or back home; on v2
 * the whole process goes. A move writes the kernel's cgroup lock (every
 * fork and exit on the host waits for it): a few per run. 0 or -errno. */
int lat_idlecg_move(const struct lat_idlecg *g, int tid, bool idle);
/* the whole process at once (one take of that lock, where a thread at a
 * time takes it once a thread) */
int lat_idlecg_move_process(const struct lat_idlecg *g, bool idle);
/* every thread home (where home is gone, the hierarchy's top), the
 * cgroup removed */
void lat_idlecg_remove(struct lat_idlecg *g);
/* a process's cgroup in the cpu hierarchy (v2: cgroup2's "0::" line; v1:
 * the line whose controllers name cpu) from its /proc/PID/cgroup open at
 * f: false when there is none or it does not fit len */
bool lat_idlecg_home_in(FILE *f, bool v2, char *path, size_t len);

#endif

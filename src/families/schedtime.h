/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time family's cause slots in the shared scheduler object
 * (bpf/time.bpf.h), read once a poll for the two families that use them:
 * time, for every cause, and sched, whose run-queue and off-CPU histograms
 * are their sums while time runs (each episode is recorded once, in its
 * cause's slot).
 */
#ifndef LATBPF_FAMILIES_SCHEDTIME_H
#define LATBPF_FAMILIES_SCHEDTIME_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include "core/cpumap.h"
#include "families/schedcore.h"
#include "latbpf/time.h"

struct lat_sc_over {
	__u32 key;
	struct lat_time_over v;
};

/* One read: cumulative since the start. */
struct lat_sc_slots {
	int ncpus;
	__u32 nslots;
	__u32 key[LAT_TIME_MAX_SLOTS];	/* each slot's key (a taken one's) */
	bool taken[LAT_TIME_MAX_SLOTS];	/* holds a key (the fixed slots always) */
	struct lat_time_slot *slot;	/* per slot, summed over the CPUs */
	struct lat_hist *cpu_runnable;	/* per CPU, the runnable slots summed */
	struct lat_sc_over *over;	/* keys past the slots (time_over) */
	size_t nover, cap_over;
	struct lat_time_slot *buf;	/* one slot's per-CPU values */
	struct lat_time_fixed *fixed;	/* the fixed slots' per-CPU values */
	struct lat_cpu_array fixed_map;	/* time_fixed, mapped */
	unsigned consumed;		/* the readers that took this read */
	__u64 live;			/* target threads the iterator saw */
	struct bpf_link *iter;		/* the time family's task iterator */
	bool busy_always;		/* membarrier refused (nohz_full): the
					 * handlers' atomic path stays on */
};

enum { LAT_SC_READER_SCHED, LAT_SC_READER_TIME };

/* whether the time family's accounting runs in the loaded object */
bool lat_sc_time_on(const struct lat_schedcore *c);
/* Runs the time family's task iterator: every target's open episode
 * credited up to the poll's moment (c->poll_ns; init: up to now, and an
 * account made for each that has none, from what it does now). The target
 * threads it saw, or a negative errno. A read of the slots (below) runs it
 * first, so what it reads is whole. */
long long lat_sc_iterate(struct lat_schedcore *c, bool init);
/* The slots as read once this poll: a reader that took the last read
 * makes a new one, and c->time_read reads the time family's other maps
 * right after it (their error in c->time_err), so all of them end at the
 * poll's moment, whichever family polls first. 0, or a negative errno. */
int lat_sc_slots_read(struct lat_schedcore *c, unsigned reader,
		      const struct lat_sc_slots **out);
/* The sums sched reports: runnable, sleeping, blocked (every CPU's) */
void lat_sc_slots_states(const struct lat_sc_slots *t, struct lat_hist *runnable,
			 struct lat_hist *sleeping, struct lat_hist *blocked);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF object of the scheduler tracepoints, shared by the families that
 * ride on them (schedcore.c). */
#ifndef LATBPF_FAMILIES_SCHEDCORE_H
#define LATBPF_FAMILIES_SCHEDCORE_H

#include "core/run.h"
#include "core/snap.h"

struct sched_bpf;
struct bpf_link;
struct lat_sc_slots;

/* A family's settings for the shared object, applied at every (re)open:
 * btf says whether the tp_btf programs (true) or the raw_tp twins load. */
typedef void (*lat_schedcore_cfg)(struct sched_bpf *skel, void *priv, bool btf);

/* What the shared object lost (lat_schedcore_losses below) */
struct lat_sc_losses {
	__u64 lost;
	__u64 missed;	/* runs the kernel skipped: a program already running on the CPU */
};

/*
 * The BPF object bpf/sched.bpf.c, shared by the families that need the
 * scheduler tracepoints (sched, hiccup), so each tracepoint has one program.
 * Families join it in their open(); the first attach() loads and attaches it
 * with every joined family's settings; the last to leave destroys it. A
 * family that is off costs no kernel memory: every map but the object's own
 * is opened at one entry (a ring buffer at a page), and a family that joins
 * sizes its own maps in its settings.
 */
struct lat_schedcore {
	const struct lat_run *run;
	struct sched_bpf *skel;
	lat_schedcore_cfg cfg[4];
	void *priv[4];
	int n, users;
	bool tried;	/* load happens once, and attach */
	bool attached;
	int err;	/* their result */
	bool btf;	/* tp_btf programs loaded (else raw_tp twins) */
	char why[256];	/* why the tp_btf programs did not load, in the kernel's words */
	struct lat_sc_slots *slots;	/* the time family's slots, read once a poll
					 * for sched and time (schedtime.h) */
	void (*slots_free)(struct lat_schedcore *c);	/* theirs, set with them */
	__u64 poll_ns;		/* this poll's moment (lat_families_poll) */
	/* the time family's read of the rest of its maps, run right after
	 * the slots' (schedtime.h), and what it returned */
	int (*time_read)(void *priv, const struct lat_sc_slots *s);
	void *time_priv;
	int time_err;
	struct lat_sc_losses losses;	/* lat_schedcore_losses(), read at */
	__u64 losses_at;		/* this poll_ns */
	struct bpf_link *sweep;		/* lat_schedcore_sweep()'s iterator, run at */
	__u64 swept_at;			/* this poll_ns */
	bool sweep_failed;		/* said once, not tried again */
};

int lat_schedcore_join(struct lat_schedcore *c, lat_schedcore_cfg cfg, void *priv);
/* the first family's load() loads it, its attach() attaches it; both return
 * the object's state after that to the others */
int lat_schedcore_load(struct lat_schedcore *c);
int lat_schedcore_attach(struct lat_schedcore *c);
void lat_schedcore_leave(struct lat_schedcore *c);

/* Once a poll, from each family's poll (the first call does it): under
 * --cgroup without the time family (whose iterator does it then), the
 * records of threads that left the target cgroups and live on are freed,
 * as an exit frees them, so a thread that comes back starts afresh instead
 * of ending at its first event there a sleep or a wait across its time
 * away. A failure is said once on stderr, and the run goes on. */
void lat_schedcore_sweep(struct lat_schedcore *c);

/* What the shared object lost, for the one family that reports it (sched
 * when it runs, else hiccup): events of a target that found no per-task
 * record (task storage refused, the raw_tp table full), and program runs the
 * kernel skipped (recursion: bpf_prog_info's recursion_misses). */
void lat_schedcore_losses(struct lat_schedcore *c, struct lat_sc_losses *l);
/* the family that reports them: the first that joined (sched when it runs:
 * the registry opens families in its order) */
bool lat_schedcore_reporter(const struct lat_schedcore *c, const void *priv);
void lat_schedcore_publish_losses(const struct lat_schedcore *c, struct lat_snap *snap,
				  const struct lat_sc_losses *now,
				  const struct lat_sc_losses *before);

#endif

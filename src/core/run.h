/* SPDX-License-Identifier: GPL-2.0 */
/* The run as the probe families see it: what is traced, resolved for BPF
 * and for the loader, and the CPUs and kernel BTF it runs with. */
#ifndef LATBPF_CORE_RUN_H
#define LATBPF_CORE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>
#include <linux/types.h>
#include "latbpf/target.h"

struct bpf_object;
struct lat_flight;

/* The run as the modules see it. */
struct lat_run {
	struct lat_target target;	/* resolved tgids/tids, BPF layout */
	int ncpus;			/* possible CPUs: per-CPU map value count */
	cpu_set_t watch;		/* --cpus: watched whatever runs there */
	/* the target maps every object shares (bpf/target.bpf.h), or -1:
	 * each object keeps its own unused ones */
	int tbits_fd, cgroups_fd, cgv_fd;
	/* every target as given (a COMMAND's pid too), and the bitmap of
	 * target tids when the kernel keeps one (NULL otherwise) */
	const __u32 *pids, *tids;
	__u32 npids, ntids;
	const __u64 *tbits;
	size_t tbits_words;
	struct lat_flight *flight;	/* --record: its memory (core/flight.h), or NULL */
};

/* Every target thread latbpf can name now: the bitmap's tids, or the
 * listed processes' threads (/proc) and the listed tids. */
void lat_run_each_thread(const struct lat_run *run, void (*fn)(__u32 tid, void *ctx),
			 void *ctx);

/* Those of them pinned to one CPU (target.c: read at most every 100 ms,
 * every 1 ms per thread past 1000 threads); lat_run_pinned_free at exit. */
void lat_run_each_pinned(const struct lat_run *run, void (*fn)(__u32 tid, int cpu, void *ctx),
			 void *ctx);
void lat_run_pinned_free(void);

/* Before an object's load: its target maps become the run's. */
int lat_target_share(const struct lat_run *run, struct bpf_object *obj);

#endif

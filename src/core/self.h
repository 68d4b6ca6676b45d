/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf's own cost, for the "self" object (self.c; DESIGN.md). */
#ifndef LATBPF_CORE_SELF_H
#define LATBPF_CORE_SELF_H

#include "core/snap.h"

#define LAT_SELF_MAX_PROGS 64
#define LAT_SELF_MAX_MAPS 256

struct lat_self_prog {
	__u32 id;
	int fd;			/* latbpf's, for its run-time statistics */
	char name[64];		/* the function's, from the program's BTF */
	__u64 cnt, ns;		/* run_cnt, run_time_ns now */
	__u64 cnt_before, ns_before;	/* at the poll before */
};

struct lat_self {
	int stats_fd;		/* BPF_ENABLE_STATS: the statistics stay on while open */
	bool stats;		/* counting: ours, or on already */
	const char *stats_how;
	__u64 t_start, t_before, t_now;		/* CLOCK_MONOTONIC */
	__u64 cpu_start, cpu_before, cpu_now;	/* this process's CPU time */
	__u64 rss, rss_peak, map_bytes;
	/* polls that came late (latbpf yields: on a busy host it waits), at
	 * this poll and at the one before */
	__u64 late, late_before;
	/* brief sleeps the loader took in long work (core/yield.h) */
	__u64 yields, yields_before;
	/* polls a whole interval overdue, lifted by the guard (core/away.h) */
	__u64 guard, guard_before;
	int nprogs;
	struct lat_self_prog progs[LAT_SELF_MAX_PROGS];
	/* the fdinfo, kept open, of each map latbpf holds that can grow
	 * (read at every poll); the others' bytes, fixed when they were made */
	int map_info_fds[LAT_SELF_MAX_MAPS], nmaps;
	int status_fd;		/* /proc/self/status, kept open; -1 */
	__u64 fixed_bytes;
};

/* after attaching: the programs' counts start here */
void lat_self_init(struct lat_self *s, bool bpf_stats);
void lat_self_poll(struct lat_self *s);
void lat_self_publish(const struct lat_self *s, struct lat_snap *snap);
void lat_self_free(struct lat_self *s);

#endif

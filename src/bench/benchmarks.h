/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmarks of latbpf bench: each one function that takes a context
 * and adds its results to it (result.h), and one line of the list (list.c)
 * that names it, its group and its default time. The driver runs them; a
 * benchmark file includes this for its own prototype and result.h for the
 * rest, nothing of the driver.
 */
#ifndef LATBPF_BENCH_BENCHMARKS_H
#define LATBPF_BENCH_BENCHMARKS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct lat_bctx;

struct lat_bench_def {
	const char *name;	/* selects it */
	const char *group;	/* so does its group: cpu, mem, net, fs */
	const char *results;	/* the names it produces, for --list */
	const char *what;
	__u64 budget_ns;	/* default time */
	bool baseline;		/* part of --baseline */
	int (*run)(struct lat_bctx *c);
};

/* list.c: every benchmark, in the order they run */
extern const struct lat_bench_def lat_bench_defs[];
extern const int lat_bench_ndefs;
/* does NAME (a benchmark, a result name, a group, a prefix) select d? */
bool lat_bench_def_matches(const struct lat_bench_def *d, const char *name);
void lat_bench_list(FILE *f);	/* --list */

int lat_bench_timer(struct lat_bctx *c);	/* timer.c */
int lat_bench_call(struct lat_bctx *c);		/* call.c */
int lat_bench_syscall(struct lat_bctx *c);	/* ops.c */
int lat_bench_thread(struct lat_bctx *c);
int lat_bench_fork(struct lat_bctx *c);
int lat_bench_ctxsw(struct lat_bctx *c);	/* ctxsw.c */
int lat_bench_membw(struct lat_bctx *c);	/* membw.c */
int lat_bench_fault_minor(struct lat_bctx *c);	/* fault.c */
int lat_bench_fault_major(struct lat_bctx *c);
int lat_bench_fs_read(struct lat_bctx *c);	/* fs.c */
int lat_bench_fs_cache(struct lat_bctx *c);
int lat_bench_fs_contention(struct lat_bctx *c);
int lat_bench_memlat(struct lat_bctx *c);	/* memlat.c */
int lat_bench_tcp_rtt(struct lat_bctx *c);	/* tcp.c */
int lat_bench_tcp_connect(struct lat_bctx *c);
int lat_bench_tcp_bw(struct lat_bctx *c);
int lat_bench_hiccup(struct lat_bctx *c);	/* hiccup.c */

#endif

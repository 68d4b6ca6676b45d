/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment check of latbpf bench's run protocol (env.c): how the
 * host is set up, read before the runs, and what others did on it during
 * them. A check that fails quarantines the results it affects.
 */
#ifndef LATBPF_BENCH_ENV_H
#define LATBPF_BENCH_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct lat_bctx;
struct lat_snap;

#define LAT_BENV_MAX 16
struct lat_benv_snap {
	__u64 mono_ns;
	unsigned long long notbusy, steal, bench_steal, bench_ticks, swap, sectors, self_io;
	int ncpu;
	double self_cpu;
};
struct lat_benv {
	const struct lat_bctx *c;
	struct lat_benv_item {
		const char *name;	/* stable: "governor", "others_cpu" ... */
		char value[96];
		bool warn;
		const char *affects;	/* "all", a group, a benchmark; NULL: info */
		char why[160];
	} items[LAT_BENV_MAX];
	int n;
	double others_cpu;
	struct lat_benv_snap a;
	unsigned long long irqs, irq_n0;	/* device IRQs on the bench core */
	__u64 irq_ns, irq_t0;			/* ... in this much benchmark time */
};
/* env.c: the set-up, read before the runs; the verdicts */
void lat_benv_begin(struct lat_benv *e, const struct lat_bctx *c);
struct lat_benv_item *lat_benv_item(struct lat_benv *e, const char *name, const char *affects);
/* activity.c: others' activity, from the kernel's counters around the runs */
void lat_benv_snap_read(struct lat_benv_snap *s, const struct lat_bctx *c);
/* the hiccup meter's results among the runs merged (all): the worst core's
 * p99 beyond 1 ms quarantines every result */
void lat_benv_jitter(struct lat_benv *e, const struct lat_bctx *all);
void lat_benv_end(struct lat_benv *e);
void lat_benv_bench(struct lat_benv *e, const char *group, bool end);	/* around each */
void lat_benv_quarantine(const struct lat_benv *e, const char *bench, const char *group,
			 char *out, size_t n);
void lat_benv_publish(const struct lat_benv *e, struct lat_snap *s);
void lat_benv_text(const struct lat_benv *e, FILE *f);

#endif

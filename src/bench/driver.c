// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf bench [NAME...] [--duration DUR] [--runs N] [--cpu LIST]
 *              [--interval DUR] [--dir DIR] [--json FILE|-] [--hlog FILE]
 *              [--list]
 * The driver: the run protocol (a warm-up, then N runs, each benchmark once
 * per run, around them the environment check), the runs merged with their
 * spread, then the report: the table on stdout, the JSON, the .hlog.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench.h"
#include "bench/benchmarks.h"
#include "bench/env.h"
#include "bench/options.h"
#include "bench/publish.h"
#include "bench/runs.h"
#include "core/escape.h"
#include "core/provenance.h"
#include "core/snap.h"
#include "output/hlog_format.h"
#include "output/json.h"

#define S 1000000000ULL

/* One `latbpf bench`: what it was asked, and what it measured */
struct bench_run {
	int argc;
	char **argv;
	struct lat_bench_opts o;
	int runs;
	struct lat_bctx all;		/* the runs merged: one result per name */
	struct lat_benv env;
	struct lat_provenance *prov;
	FILE *jf;			/* --json, or NULL */
	cpu_set_t orig;			/* the affinity each benchmark starts from */
	__u64 t0, warm_ns;
	double epoch;			/* t0 on the wall clock */
};

static int open_json(struct bench_run *b)
{
	char q[LAT_ARG_MAX];
	int e;

	if (!b->o.json_path)
		return 0;
	b->jf = strcmp(b->o.json_path, "-") ? fopen(b->o.json_path, "w") : stdout;
	if (b->jf)
		return 0;
	e = errno;
	fprintf(stderr, "latbpf bench: cannot write '%s': %s\n",
		lat_term_arg(q, sizeof(q), b->o.json_path), strerror(e));
	return -EINVAL;
}

/* One pass over the chosen benchmarks: run r (-1: the warm-up, whose time
 * is a tenth of a run's share, at most 100 ms). 0, or -EIO when one
 * stopped on an error. */
static int one_pass(struct bench_run *b, int r)
{
	int err = 0;

	for (int i = 0; i < lat_bench_ndefs; i++) {
		const struct lat_bench_def *d = &lat_bench_defs[i];
		__u64 share = (b->o.duration_ns ? b->o.duration_ns : d->budget_ns) / b->runs;

		if (!b->o.selected[i])
			continue;
		if (share < 10000000ULL)
			share = 10000000ULL;
		if (r < 0) {
			share = share / 10 < 100000000ULL ? share / 10 : 100000000ULL;
			b->warm_ns += share;
		}
		fprintf(stderr, "latbpf bench: %s%s...\n", d->name, r < 0 ? " (warm-up)" : "");
		if (r >= 0)
			lat_benv_bench(&b->env, d->group, false);
		if (lat_bench_run_one(&b->o.c, d, share))
			err = -EIO;
		if (r >= 0)
			lat_benv_bench(&b->env, d->group, true);
		sched_setaffinity(0, sizeof(b->orig), &b->orig);
	}
	return err;
}

/*
 * A benchmark's time is shared by its runs. Before several runs, a warm-up
 * run of each, whose results and notes are dropped: caches, page tables,
 * the CPU's clock. The runs go round the benchmarks, so a host that drifts
 * spreads all of them alike. The environment check covers the counted runs.
 */
static int run_protocol(struct bench_run *b)
{
	int err = 0;

	for (int r = b->runs > 1 ? -1 : 0; r < b->runs; r++) {
		if (r == 0)	/* the warm-up's start-up is not the runs' */
			lat_benv_begin(&b->env, &b->o.c);
		if (one_pass(b, r))
			err = -EIO;
		if (r < 0) {
			lat_bench_free_results(&b->o.c);
			lat_bench_notes_free();
		}
	}
	lat_benv_end(&b->env);
	if (lat_bench_merge_runs(&b->o.c, b->runs, &b->all))
		err = -ENOMEM;
	lat_benv_jitter(&b->env, &b->all);
	for (int i = 0; i < b->all.nres; i++) {
		struct lat_bres *m = b->all.res[i];

		lat_benv_quarantine(&b->env, m->bench, m->group, m->quarantine,
				    sizeof(m->quarantine));
	}
	return err;
}

/* Each run of each result, an interval tagged with its name */
static int write_hlog(const char *path, const struct lat_bctx *c, __u64 t0, double epoch)
{
	struct lat_hlog *l = lat_hlog_open(path, epoch, "latbpf bench: one interval per "
					   "result and run; values in ns (MB/s for mem_ and "
					   "tcp_bw bandwidths)");
	int err = 0;

	if (!l)
		return -errno;
	for (int i = 0; i < c->nres && !err; i++) {
		const struct lat_bres *r = c->res[i];

		err = lat_hlog_write(l, r->name, (r->t_start - t0) / 1e9,
				     (r->t_end - r->t_start) / 1e9, &r->ns);
	}
	if (!err)
		err = lat_hlog_flush(l);
	if (lat_hlog_close(l) && !err)
		err = -EIO;
	return err;
}

/* The whole report into a snapshot: the host, how bench ran, the clock,
 * the environment, the results, the notes */
static void publish(struct bench_run *b, struct lat_snap *s)
{
	const struct lat_bctx *c = &b->o.c;

	lat_snap_reset(s);
	lat_provenance_publish_host(b->prov, s);
	lat_pub_obj(s, "bench", NULL);
	lat_pub_list(s, "argv", NULL);
	for (int i = 0; i < b->argc; i++)
		lat_pub_str(s, NULL, b->argv[i]);
	lat_pub_end(s);
	lat_pub_num(s, "cpu", c->cpu);
	lat_pub_ids(s, "hiccup_cpus", (const __u32 *)c->cpus, c->ncpus);
	lat_pub_num(s, "interval_ns", (long long)c->interval_ns);
	lat_pub_real(s, "duration_s", (lat_now_ns() - b->t0) / 1e9, 3);
	lat_pub_num(s, "runs", b->runs);
	lat_pub_real(s, "warmup_s", b->warm_ns / 1e9, 3);
	lat_pub_end(s);
	lat_bench_publish_clock(s, &lat_bclock);
	lat_benv_publish(&b->env, s);
	lat_bench_publish_results(s, b->all.res, b->all.nres);
	lat_pub_list(s, "notes", NULL);
	for (int i = 0; i < lat_bench_nnotes(); i++)
		lat_pub_str(s, NULL, lat_bench_note_at(i));
	lat_pub_end(s);
}

/* The text report: stdout, or stderr when the JSON goes to stdout */
static void print_text(const struct bench_run *b, const struct lat_snap *s)
{
	FILE *tf = b->jf == stdout ? stderr : stdout;
	const struct lat_bctx *c = &b->o.c;

	lat_provenance_host_text(b->prov, tf);
	fprintf(tf, "pinning: one-core benchmarks on cpu %d; hiccup meter on cpus", c->cpu);
	for (int i = 0; i < c->ncpus; i++)
		fprintf(tf, "%s%d", i ? "," : " ", c->cpus[i]);
	fprintf(tf, "; took %.1f s\n", (lat_now_ns() - b->t0) / 1e9);
	if (b->runs > 1)
		fprintf(tf, "runs: %d of each benchmark, in turn, after a warm-up of %.1f s "
			"in all that is not counted\n", b->runs, b->warm_ns / 1e9);
	lat_benv_text(&b->env, tf);
	lat_bench_table(tf, &s->root);
	lat_bench_methods(tf, lat_snap_find(&s->root, "results"));
	if (lat_bench_nnotes())
		fputc('\n', tf);
	for (int i = 0; i < lat_bench_nnotes(); i++)
		fprintf(tf, "%s\n", lat_bench_note_at(i));
}

/* The outputs: .hlog, the table, the JSON; 0 or a negative errno */
static int report(struct bench_run *b)
{
	struct lat_snap snap = { 0 };
	char q[LAT_ARG_MAX];
	int err = 0, e;

	if (b->o.hlog_path && (e = write_hlog(b->o.hlog_path, &b->o.c, b->t0, b->epoch))) {
		fprintf(stderr, "latbpf bench: writing '%s': %s\n",
			lat_term_arg(q, sizeof(q), b->o.hlog_path), strerror(-e));
		err = -EIO;
	}
	publish(b, &snap);
	if (snap.oom)
		err = -ENOMEM;
	print_text(b, &snap);
	if (b->jf && lat_json_write(b->jf, &snap)) {
		fprintf(stderr, "latbpf bench: writing JSON: %s\n", strerror(errno));
		err = -EIO;
	}
	lat_snap_free(&snap);
	return err;
}

static int measure(struct bench_run *b)
{
	struct timespec ts;
	int err, e;

	b->prov = lat_provenance_new(b->argc, b->argv, 0, NULL);
	if (!b->prov)
		return -ENOMEM;
	sched_getaffinity(0, sizeof(b->orig), &b->orig);
	b->t0 = lat_now_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	b->epoch = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	lat_bclock_init(b->o.quick, lat_provenance_tsc_flags(b->prov));
	b->runs = b->o.runs ? b->o.runs : b->o.named || b->o.quick ? 1 : 5;
	if (b->o.quick && !b->o.duration_ns)
		b->o.duration_ns = S / 10;
	b->o.c.runs = b->runs;
	err = run_protocol(b);
	e = report(b);
	return err ? err : e;
}

int lat_bench_main(int argc, char **argv)
{
	struct bench_run b = { .argc = argc, .argv = argv };
	int err;

	if (argc > 2 && !strcmp(argv[2], "compare"))
		return lat_bench_compare(argc - 2, argv + 2);
	err = lat_bench_opts_parse(argc - 1, argv + 1, &b.o);
	if (err)
		return err;
	if (b.o.help) {
		lat_bench_usage(stdout);
		return 0;
	}
	if (b.o.list) {
		lat_bench_list(stdout);
		return 0;
	}
	err = open_json(&b);
	if (!err)
		err = measure(&b);
	if (b.jf && b.jf != stdout)
		fclose(b.jf);
	lat_bench_free_results(&b.o.c);
	lat_bench_free_results(&b.all);
	lat_bench_notes_free();
	lat_provenance_free(b.prov);
	return err;
}

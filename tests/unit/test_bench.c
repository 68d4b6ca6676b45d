// SPDX-License-Identifier: GPL-2.0
/* latbpf bench's arithmetic: coordinated-omission correction against
 * HdrHistogram's recordValueWithExpectedInterval on hand-computed cases,
 * the pointer-chase permutation, per-operation amortisation, plateaus, the
 * median across runs; and its report from fixed results, runs merged,
 * published, written as JSON and as the table, against golden files. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "bench/cache.h"
#include "bench/env.h"
#include "bench/options.h"
#include "bench/publish.h"
#include "bench/rand.h"
#include "bench/result.h"
#include "bench/runs.h"
#include "core/hist.h"
#include "core/snap.h"
#include "golden.h"
#include "output/json.h"
#include "tap.h"

static struct lat_hist h;

/* Does h hold exactly these values (each once, none else)? */
static int holds(const __u64 *v, int n)
{
	static struct lat_hist want;
	__u64 sum = 0;

	memset(&want, 0, sizeof(want));
	for (int i = 0; i < n; i++) {
		lat_hist_record(&want, v[i]);
		sum += v[i];
	}
	return h.count == (__u64)n && h.sum == sum &&
	       !memcmp(h.slots, want.slots, sizeof(h.slots)) &&
	       (n == 0 || (h.min == want.min && h.max == want.max));
}

static void co(__u64 v, __u64 expected, const __u64 *want, int n, const char *what)
{
	memset(&h, 0, sizeof(h));
	lat_hist_record_corrected(&h, v, expected);
	ok(holds(want, n), "CO correction: %s", what);
}

static void test_co(void)
{
	/* HdrHistogram: record v; if I > 0 and v > I, record v-I, v-2I, ...
	 * while the value is still >= I */
	co(5000, 1000, (const __u64[]){ 5000, 4000, 3000, 2000, 1000 }, 5,
	   "5000 with interval 1000 also records 4000..1000");
	co(1000, 1000, (const __u64[]){ 1000 }, 1, "v == I records v only");
	co(999, 1000, (const __u64[]){ 999 }, 1, "v < I records v only");
	co(1999, 1000, (const __u64[]){ 1999 }, 1, "v - I below I adds nothing");
	co(2000, 1000, (const __u64[]){ 2000, 1000 }, 2, "v = 2I adds I");
	co(5300, 1000, (const __u64[]){ 5300, 4300, 3300, 2300, 1300 }, 5,
	   "5300 with interval 1000 adds 4300..1300, not 300");
	co(7, 0, (const __u64[]){ 7 }, 1, "interval 0: no correction");
	co(35, 10, (const __u64[]){ 35, 25, 15 }, 3, "35 with interval 10 adds 25, 15");

	/* the meter's case: a 5 ms stall seen with a 1 ms interval */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 30; i++)
		lat_hist_record_corrected(&h, 5000000 + i, 1000000);
	ok(h.count == 150, "30 stalls of 5 ms at 1 ms intervals: 150 samples (got %llu)",
	   (unsigned long long)h.count);
}

static void test_perm(void)
{
	static const __u32 sizes[] = { 1, 2, 3, 7, 64, 1000, 65536, 1 << 20 };
	__u64 seed = 12345;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		__u32 n = sizes[k], i, steps = 0, fixed = 0;
		__u32 *next = malloc(n * sizeof(*next));
		unsigned char *seen = calloc(n, 1);
		bool once = true, in_range = true;

		lat_perm_cycle(next, n, &seed);
		for (i = 0; i < n; i++) {
			fixed += n > 1 && next[i] == i;
			in_range &= next[i] < n;
		}
		i = 0;
		do {
			if (seen[i])
				once = false;
			seen[i] = 1;
			i = in_range ? next[i] : 0;
			steps++;
		} while (i != 0 && steps <= n);
		ok(in_range && once && steps == n && fixed == 0,
		   "permutation of %u slots is one cycle through every slot (%u steps)",
		   n, steps);
		free(next);
		free(seen);
	}
	/* two seeds, two orders: the shuffle is random, not a fixed stride */
	{
		__u32 a[64], b[64];
		__u64 s1 = 1, s2 = 2;

		lat_perm_cycle(a, 64, &s1);
		lat_perm_cycle(b, 64, &s2);
		ok(memcmp(a, b, sizeof(a)) != 0, "different seeds give different cycles");
	}
}

static void test_amortise(void)
{
	ok(lat_bench_per_op(1000, 40, 16) == 60, "(1000 - 40) / 16 = 60");
	ok(lat_bench_per_op(1000, 41, 16) == 60, "(1000 - 41) / 16 = 59.94 rounds to 60");
	ok(lat_bench_per_op(1000, 48, 16) == 60, "(1000 - 48) / 16 = 59.5 rounds to 60");
	ok(lat_bench_per_op(1000, 49, 16) == 59, "(1000 - 49) / 16 = 59.44 rounds to 59");
	ok(lat_bench_per_op(30, 40, 16) == 0, "a region cheaper than the empty one is 0");
	ok(lat_bench_per_op(100, 40, 1) == 60, "batch 1: only the timer is taken off");
	ok(lat_bench_per_op(100, 40, 0) == 60, "batch 0 counts as 1");
	/* ctxsw: a round trip of 2 switches less the timer and 2 pipe costs */
	ok(lat_bench_per_op(10000, 50 + 2 * 2000, 2) == 2975,
	   "round trip 10000, timer 50, pipe 2000: 2975 per switch");
	ok(lat_ticks_to_ns(2445428000ULL, 2445428000.0) == 1000000000ULL,
	   "hz ticks make one second");
	ok(lat_ticks_to_ns(3, 2.5e9) == 1, "3 ticks at 2.5 GHz: 1.2 ns rounds to 1");
	ok(lat_ticks_to_ns(4, 2.5e9) == 2, "4 ticks at 2.5 GHz: 1.6 ns rounds to 2");
}

static void test_plateaus(void)
{
	const double curve[] = { 1.2, 1.2, 1.3, 1.2, 3.7, 3.8, 4.0, 8, 14, 16, 17, 100, 130,
				 135 };
	int lv[14], want[] = { 0, 0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 4, 4, 4 };
	int n = lat_plateaus(curve, 14, 1.4, lv);

	ok(n == 5 && !memcmp(lv, want, sizeof(want)),
	   "plateaus of a cache curve: L1, L2, a step, L3, DRAM (%d)", n);
	ok(lat_plateaus(curve, 1, 1.4, lv) == 1 && lv[0] == 0, "one point, one plateau");
	ok(lat_plateaus(curve, 0, 1.4, lv) == 0, "no points, no plateau");
	/* where the caches end: before the first point slower than a third of
	 * the last (135 / 3 = 45: the 100 ns point, index 11) */
	ok(lat_cache_end(curve, 14) == 10, "the caches end at the last point before memory "
	   "(%d)", lat_cache_end(curve, 14));
	{
		const double flat[] = { 90, 95, 100 }, dip[] = { 1, 1, 50, 10, 150 };

		ok(lat_cache_end(flat, 3) == -1, "a flat curve shows no cache");
		ok(lat_cache_end(dip, 5) == 3, "a third exactly is still the cache; the first "
		   "point past it ends the search");
		ok(lat_cache_end(flat, 0) == -1, "no points, no end");
	}
}

/* --runs: the median across runs, whatever order they came in */
static void test_median(void)
{
	__u64 odd[] = { 9, 1, 5 }, even[] = { 40, 10, 30, 20 }, one[] = { 7 };
	__u64 same[] = { 3, 3, 3, 3, 3 }, big[] = { ~0ULL, 1, ~0ULL - 2 };

	ok(lat_bench_median(odd, 3) == 5, "median of 9 1 5 is 5");
	ok(odd[0] == 1 && odd[2] == 9, "  and v is left sorted: min first, max last");
	ok(lat_bench_median(even, 4) == 25, "median of 4 runs: the mean of the middle two");
	ok(lat_bench_median(one, 1) == 7, "median of one run: the run");
	ok(lat_bench_median(same, 5) == 3, "median of equal runs");
	ok(lat_bench_median(one, 0) == 0, "median of no runs: 0");
	ok(lat_bench_median(big, 3) == (double)(~0ULL - 2), "no overflow near 2^64");
}

/* A bench report from fixed results: 3 runs of five results (an
 * operation, a bandwidth, a failed check with a hostile note, a level with
 * no samples, a meter stalled 2 % of the time) merged, quarantined, published,
 * written as JSON and as the table; then run 0 alone (no spread rows). */
static void fill_run(struct lat_bctx *c, int run)
{
	struct lat_bres *r;

	r = lat_bres_new(c, "syscall_getppid", "syscall(SYS_getppid), not cached by libc", 16);
	for (int i = 0; i < 2000; i++)
		lat_bres_add_ticks(r, 300 + (__u64)((i * 37 + run * 11) % 700));
	r = lat_bres_new(c, "mem_copy_dram", "memcpy over 262144 KiB, 1 MiB blocks", 1);
	for (int i = 0; i < 300; i++)
		lat_bres_add_block(r, 250000 + (__u64)(i * 97 % 20000) + run * 1000, 1 << 20);
	r->total_mb_s = 8700 + run * 100;
	r = lat_bres_new(c, "fault_major", "first read of each page, one fault per timing", 1);
	for (int i = 0; i < 50 + run; i++)
		lat_bres_add_ns(r, 70000 + (__u64)(i * 1013 % 30000));
	r->check = "ru_majflt";
	r->expected = 8192;
	r->observed = 8000 - run;
	r->failed = run == 1;
	if (run == 1)
		snprintf(r->note, sizeof(r->note), "the kernel served %s", "\x1b[2Jfewer faults");
	r = lat_bres_new(c, "fs_cache_4m", "read every 64 KiB block", 1);
	r->check = "page_cache_bytes";
	r->check_level = true;
	r->expected = 134217728;
	r->observed = run == 2 ? 134217728 : 67108864;
	r = lat_bres_new(c, "hiccup_raw", "hiccup meter, RAW", 1);
	for (int i = 0; i < 5000; i++)
		lat_bres_add_ns(r, 50000 + (__u64)(i % 97) * 100 + (i % 50 == 0 ? 5000000 : 0));
}

static void fixed_clock(void)
{
	memset(&lat_bclock, 0, sizeof(lat_bclock));
	lat_bclock.source = "tsc";
	lat_bclock.counter = lat_bclock.invariant = lat_bclock.cpuid_invariant = true;
	snprintf(lat_bclock.flags, sizeof(lat_bclock.flags), "tsc rdtscp constant_tsc nonstop_tsc");
	lat_bclock.hz = 2445428043.0;
	lat_bclock.kernel_hz = 2445428000.0;
	lat_bclock.spread_ppm = 0.123;
	lat_bclock.windows = 5;
	lat_bclock.window_ns = 60000000;
	lat_bclock.skew_ns = -16;
	lat_bclock.skew_err_ns = 85;
	lat_bclock.skew_cpu = 1;
	lat_bclock.overhead = 49;
}

static void fixed_env(struct lat_benv *e, const struct lat_bctx *c)
{
	static const struct { const char *name, *value, *affects, *why; } it[] = {
		{ "governor", "none (no cpufreq: fixed or the host's)", "all", NULL },
		{ "thp", "always", "mem", "transparent huge pages are 'always'" },
		{ "smt", "1", NULL, NULL },
		{ "others_cpu", "0.30 CPUs", "all", "other processes kept 0.30 CPUs busy" },
	};

	memset(e, 0, sizeof(*e));
	e->c = c;
	for (size_t i = 0; i < sizeof(it) / sizeof(it[0]); i++) {
		struct lat_benv_item *x = &e->items[e->n++];

		x->name = it[i].name;
		snprintf(x->value, sizeof(x->value), "%s", it[i].value);
		x->affects = it[i].affects;
		x->warn = it[i].why != NULL;
		if (it[i].why)
			snprintf(x->why, sizeof(x->why), "%s", it[i].why);
	}
}

/* JSON then text, of the merged runs (3) and of run 0 alone */
static void bench_report(FILE *jf, FILE *tf)
{
	struct lat_bctx runs = { .cpu = 1 }, all = { .cpu = 1, .cpus = { 1 }, .ncpus = 1 };
	struct lat_bctx one = { .cpu = 1 };
	struct lat_benv env;

	fixed_clock();
	for (int run = 0; run < 3; run++)
		fill_run(&runs, run);
	fill_run(&one, 0);
	lat_bench_merge_runs(&runs, 3, &all);
	fixed_env(&env, &all);
	lat_benv_jitter(&env, &all);	/* the meter's stalls: 2 % of 5 ms */
	for (int i = 0; i < all.nres; i++)
		lat_benv_quarantine(&env, all.res[i]->bench, strncmp(all.res[i]->name, "mem", 3) ?
				    "cpu" : "mem", all.res[i]->quarantine,
				    sizeof(all.res[i]->quarantine));
	for (int pass = 0; pass < 2; pass++) {
		struct lat_bctx *c = pass ? &one : &all;
		struct lat_snap s = { 0 };

		lat_snap_reset(&s);
		lat_bench_publish_clock(&s, &lat_bclock);
		lat_benv_publish(&env, &s);
		lat_bench_publish_results(&s, c->res, c->nres);
		lat_json_write(jf, &s);
		lat_benv_text(&env, tf);
		lat_bench_table(tf, &s.root);
		lat_bench_methods(tf, lat_snap_find(&s.root, "results"));
		lat_snap_free(&s);
	}
	lat_bench_free_results(&runs);
	lat_bench_free_results(&all);
	lat_bench_free_results(&one);
}

static void test_report(void)
{
	struct out o[2] = { { .name = "bench.json" }, { .name = "bench.txt" } };

	for (int i = 0; i < 2; i++)
		o[i].f = open_memstream(&o[i].buf, &o[i].len);
	bench_report(o[0].f, o[1].f);
	for (int i = 0; i < 2; i++) {
		fclose(o[i].f);
		judge(&o[i]);
		free(o[i].buf);
	}
}

/* --cpu keeps the order given: the first CPU runs the one-core benchmarks.
 * The highest two CPUs this process may use, given high first. */
static void test_cpus(void)
{
	struct lat_bench_opts b = { 0 };
	char list[32], *argv[] = { "bench", "--cpu", list, NULL };
	int hi = -1, lo = -1;
	cpu_set_t allowed;

	sched_getaffinity(0, sizeof(allowed), &allowed);
	for (int k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &allowed)) {
			lo = hi;
			hi = k;
		}
	if (lo < 0)
		lo = hi;	/* one CPU: "N,N" */
	snprintf(list, sizeof(list), "%d,%d", hi, lo);
	ok(!lat_bench_opts_parse(3, argv, &b) && b.c.ncpus == 2 && b.c.cpus[0] == hi &&
	   b.c.cpus[1] == lo && b.c.cpu == hi, "--cpu %s: in that order, one-core on %d",
	   list, hi);
}

int main(void)
{
	test_co();
	test_perm();
	test_amortise();
	test_plateaus();
	test_median();
	test_report();
	test_cpus();
	return done_testing();
}

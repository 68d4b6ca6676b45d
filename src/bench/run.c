// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf bench [NAME...] [--duration DUR] [--runs N] [--cpu LIST]
 *              [--interval DUR] [--dir DIR] [--json FILE|-] [--hlog FILE]
 *              [--list]
 * The list of benchmarks, the run protocol (a warm-up, then N runs, each
 * benchmark once per run), their results merged with the spread across
 * runs, the table and the JSON. Also the short baseline a trace report can
 * carry (--baseline).
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/bench.h"
#include "core/escape.h"
#include "core/fmt.h"
#include "core/hist.h"
#include "core/parse.h"
#include "core/proc.h"
#include "core/provenance.h"
#include "core/snap.h"
#include "output/bench_table.h"
#include "output/hlog_format.h"
#include "output/json.h"

#define S 1000000000ULL

static const struct lat_bench_def defs[] = {
	{ "timer", "cpu", "timer_region timer_clock_gettime timer_rdtsc timer_rdtscp "
	  "timer_lfence_rdtsc timer_cpuid_rdtsc (x86) timer_cntvct timer_isb_cntvct (arm64)",
	  "what reading the time costs", S, false, lat_bench_timer },
	{ "call", "cpu", "call_0 ... call_7",
	  "a procedure call and return with 0 to 7 integer arguments", S / 2, false,
	  lat_bench_call },
	{ "syscall", "cpu", "syscall_getppid syscall_write_null",
	  "a system call that does nothing, and a 0-byte write to /dev/null", S, true,
	  lat_bench_syscall },
	{ "ctxsw", "cpu", "pipe_1thread ctxsw_thread ctxsw_process",
	  "pipe ping-pong on one core: per switch, pipe cost taken off", 2 * S, true,
	  lat_bench_ctxsw },
	{ "thread", "cpu", "thread_create_join", "pthread_create + pthread_join", S, true,
	  lat_bench_thread },
	{ "fork", "cpu", "fork_exit_wait", "fork + _exit + waitpid", S, false, lat_bench_fork },
	{ "membw", "mem", "mem_read_cache mem_write_cache mem_copy_cache mem_read_dram "
	  "mem_write_dram mem_copy_dram mem_read_cache_all mem_write_cache_all "
	  "mem_copy_cache_all mem_read_dram_all mem_write_dram_all mem_copy_dram_all",
	  "memory bandwidth in MB/s: read, write, copy; in cache and far above it", 4 * S,
	  false, lat_bench_membw },
	{ "fault_minor", "mem", "fault_minor", "first touch of anonymous memory, THP off", S, true,
	  lat_bench_fault_minor },
	{ "fault_major", "fs", "fault_major", "file pages read in by a fault, random order",
	  2 * S, false, lat_bench_fault_major },
	{ "fs_read", "fs", "fs_read_{seq,rand}_{cached,direct}_{4m,64m}",
	  "4 KiB file reads, in order and at random, page cache and O_DIRECT", 2 * S, false,
	  lat_bench_fs_read },
	{ "fs_cache", "fs", "fs_cache_4m ... fs_cache_<size>",
	  "read time per block against file size: the file cache's size", 2 * S, false,
	  lat_bench_fs_cache },
	{ "fs_contention", "fs", "fs_contention_1 fs_contention_2 ... fs_contention_<2 x cores>",
	  "O_DIRECT 4 KiB reads as 1, 2, 4 ... processes read their own files", 2 * S, false,
	  lat_bench_fs_contention },
	{ "memlat", "mem", "memlat_4k ... memlat_256m",
	  "dependent loads over a random cycle: the cache hierarchy", 5 * S, false,
	  lat_bench_memlat },
	{ "tcp_rtt", "net", "tcp_rtt", "1-byte TCP ping-pong over 127.0.0.1", S, true,
	  lat_bench_tcp_rtt },
	{ "tcp_connect", "net", "tcp_connect tcp_setup tcp_teardown",
	  "TCP connect + close over 127.0.0.1, and each alone", S, false,
	  lat_bench_tcp_connect },
	{ "tcp_bw", "net", "tcp_bw", "TCP bandwidth over 127.0.0.1 in MB/s", S, false,
	  lat_bench_tcp_bw },
	{ "hiccup", "cpu", "hiccup_raw hiccup_corrected hiccup_cpuN_raw hiccup_cpuN_corrected",
	  "jHiccup-style meter: a pinned thread per core sleeps --interval", 5 * S, false,
	  lat_bench_hiccup },
};
#define NDEFS (int)(sizeof(defs) / sizeof(defs[0]))

struct lat_bres *lat_bres_new(struct lat_bctx *c, const char *name,
			      const char *method, __u32 batch)
{
	struct lat_bres *r, **n;

	if (c->nres == c->cap) {
		n = realloc(c->res, (c->cap * 2 + 8) * sizeof(*n));
		if (!n)
			return NULL;
		c->res = n;
		c->cap = c->cap * 2 + 8;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->method = method;
	r->batch = batch ? batch : 1;
	c->res[c->nres++] = r;
	return r;
}

/*
 * Per operation: the region's ticks less the cost of an empty region, split
 * over the batch, rounded to the nearest tick. A region cheaper than the
 * empty one counts 0.
 */
__u64 lat_bench_per_op(__u64 ticks, __u64 overhead, __u32 batch)
{
	__u64 t = ticks > overhead ? ticks - overhead : 0;

	if (batch <= 1)
		return t;
	return (t + batch / 2) / batch;
}

void lat_bres_add(struct lat_bres *r, __u64 ticks)
{
	lat_bres_add_ticks(r, lat_bench_per_op(ticks, lat_bclock.overhead, r ? r->batch : 1));
}

void lat_bres_add_ticks(struct lat_bres *r, __u64 ticks)
{
	if (!r)
		return;
	lat_hist_record(&r->ticks, ticks);
	lat_hist_record(&r->ns, lat_ticks_to_ns(ticks, lat_bclock.hz));
}

void lat_bres_add_ns(struct lat_bres *r, __u64 ns)
{
	if (!r)
		return;
	lat_hist_record(&r->ns, ns);
	lat_hist_record(&r->ticks, (__u64)((double)ns * lat_bclock.hz / 1e9 + 0.5));
}

void lat_bres_add_block(struct lat_bres *r, __u64 ticks, __u64 bytes)
{
	__u64 t = lat_bench_per_op(ticks, lat_bclock.overhead, 1);
	__u64 ns = lat_ticks_to_ns(t, lat_bclock.hz);

	if (!r)
		return;
	r->mb_s = true;
	/* bytes per ns are GB/s: x 1000 for MB/s */
	lat_hist_record(&r->ns, (bytes * 1000 + (ns ? ns : 1) / 2) / (ns ? ns : 1));
	lat_hist_record(&r->ticks, t);
}

/* Enough: max samples taken, or the time is up (after at least one). */
bool lat_bench_over(const struct lat_bctx *c, __u64 samples, __u64 max)
{
	return samples >= max || (samples > 0 && lat_mono_ns() >= c->deadline);
}

int lat_bench_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Notes printed under the table and listed in the JSON */
static char *notes[64];
static int nnotes;

void lat_bench_note(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (nnotes < 64 && vasprintf(&s, fmt, ap) >= 0) {
		/* each run says it again: once is enough */
		for (int i = 0; s && i < nnotes; i++)
			if (!strcmp(notes[i], s)) {
				free(s);
				s = NULL;
			}
		if (s)
			notes[nnotes++] = s;
	}
	va_end(ap);
}

struct bopts {
	bool selected[NDEFS], list, help, named, quick;
	__u64 duration_ns;	/* 0: each benchmark's default */
	int runs;		/* 0: 5 for the whole set, 1 for names */
	const char *json_path, *hlog_path;
	struct lat_bctx c;
};

static void usage(FILE *f)
{
	fputs("usage: latbpf bench [NAME...] [--duration DUR] [--runs N] [--quick]\n"
	      "                    [--cpu LIST] [--interval DUR] [--dir DIR] [--json FILE|-]\n"
	      "                    [--hlog FILE] [--list]\n"
	      "       latbpf bench compare A.json B.json\n"
	      "  NAME        a benchmark, a result name, a group (cpu, mem, net, fs) or a\n"
	      "              prefix (fault, tcp); default: all\n"
	      "  --duration  time for each benchmark, shared by its runs (default: its own,\n"
	      "              0.5-5 s; ~27 s in all)\n"
	      "  --runs      runs of each benchmark, after a warm-up run that is not counted;\n"
	      "              each percentile is the median across runs, with min..max\n"
	      "              (default: 5 for the whole set, 1 for named benchmarks)\n"
	      "  --cpu       cores to use: the first runs one-core benchmarks, all run the\n"
	      "              hiccup meter (default: the last allowed core; all allowed cores)\n"
	      "  --interval  the hiccup meter's sleep (default 1ms)\n"
	      "  --dir       where fault_major puts its file (default: $TMPDIR or /var/tmp)\n"
	      "  --json      write one JSON object to FILE (- for stdout)\n"
	      "  --quick     a few seconds: 0.1 s a benchmark, one run, a short clock\n"
	      "              calibration (--duration and --runs still apply)\n"
	      "  --hlog      write each run of each result as an HdrHistogram interval\n"
	      "              (tag: the result's name) to FILE\n"
	      "  --list      list the benchmarks and the names of their results\n"
	      "compare: per result and percentile, B's median against A's min..max across\n"
	      "  runs; beyond it by more than 10 %, with B's best run beyond A's worst: a\n"
	      "  regression, exit 1\n", f);
}

static bool name_matches(const struct lat_bench_def *d, const char *name)
{
	size_t n = strlen(name);
	const char *u = strchr(d->name, '_');

	/* the results list also holds "(x86)" and "...": not names */
	if (!n || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return false;
	if (!strcmp(d->name, name) || !strcmp(d->group, name))
		return true;
	if (u && (size_t)(u - d->name) == n && !strncmp(d->name, name, n))
		return true;	/* a group: "fault", "tcp" */
	return lat_has_word(d->results, name);
}

static int parse_cpus(const char *s, struct lat_bctx *c)
{
	cpu_set_t allowed;
	char *end;
	long a, b;

	sched_getaffinity(0, sizeof(allowed), &allowed);
	c->ncpus = 0;
	while (*s) {
		a = b = strtol(s, &end, 10);
		if (end == s || a < 0)
			goto bad;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				goto bad;
		}
		for (; a <= b; a++) {
			if (a >= CPU_SETSIZE || !CPU_ISSET(a, &allowed)) {
				fprintf(stderr, "latbpf bench: cpu %ld is not one this process "
					"may run on\n", a);
				return -EINVAL;
			}
			if (c->ncpus < (int)(sizeof(c->cpus) / sizeof(c->cpus[0])))
				c->cpus[c->ncpus++] = (int)a;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			goto bad;
	}
	if (c->ncpus)
		return 0;
bad:
	fprintf(stderr, "latbpf bench: --cpu takes a list like 1 or 0,2-3\n");
	return -EINVAL;
}

static void default_cpus(struct lat_bctx *c)
{
	cpu_set_t allowed;

	c->ncpus = 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	for (int i = 0; i < CPU_SETSIZE && c->ncpus < 256; i++)
		if (CPU_ISSET(i, &allowed))
			c->cpus[c->ncpus++] = i;
	/* one-core benchmarks: the last core, usually the quietest */
	c->cpu = c->ncpus ? c->cpus[c->ncpus - 1] : -1;
}

#define SHORTS "d:j:c:i:D:r:H:qlh"

static int parse(int argc, char **argv, struct bopts *b)
{
	static const struct option lo[] = {
		{ "duration", required_argument, 0, 'd' },
		{ "json", required_argument, 0, 'j' },
		{ "cpu", required_argument, 0, 'c' },
		{ "interval", required_argument, 0, 'i' },
		{ "dir", required_argument, 0, 'D' },
		{ "runs", required_argument, 0, 'r' },
		{ "hlog", required_argument, 0, 'H' },
		{ "quick", no_argument, 0, 'q' },
		{ "list", no_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	bool any = false;
	int o, i, err;

	default_cpus(&b->c);
	b->c.interval_ns = 1000000ULL;
	b->c.dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	optind = 0;	/* 0, not 1: glibc forgets an earlier parse's "-xv" */
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":" SHORTS, lo, NULL)) != -1) {
		err = 0;
		switch (o) {
		case 'd':
			err = lat_parse_duration(optarg, &b->duration_ns);
			if (!err && (b->duration_ns < 10000000ULL || b->duration_ns > 3600 * S)) {
				fprintf(stderr, "latbpf bench: --duration must be 10ms..1h\n");
				err = -EINVAL;
			}
			break;
		case 'j':
			b->json_path = optarg;
			break;
		case 'c':
			err = parse_cpus(optarg, &b->c);
			b->c.cpu = b->c.ncpus ? b->c.cpus[0] : -1;
			break;
		case 'i':
			err = lat_parse_duration(optarg, &b->c.interval_ns);
			if (!err && (b->c.interval_ns < 10000ULL || b->c.interval_ns > S)) {
				fprintf(stderr, "latbpf bench: --interval must be 10us..1s\n");
				err = -EINVAL;
			}
			break;
		case 'D':
			b->c.dir = optarg;
			break;
		case 'r': {
			char *end;
			long n;

			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > 100) {
				fprintf(stderr, "latbpf bench: --runs must be 1..100\n");
				err = -EINVAL;
			}
			b->runs = (int)n;
			break;
		}
		case 'H':
			b->hlog_path = optarg;
			break;
		case 'q':
			b->quick = true;
			break;
		case 'l':
			b->list = true;
			break;
		case 'h':
			b->help = true;
			break;
		default:
			lat_opt_refused("latbpf bench", "latbpf bench --help", o, argv, SHORTS, lo);
			return -EINVAL;
		}
		if (err)
			return err;
	}
	for (; optind < argc; optind++) {
		bool hit = false;

		for (i = 0; i < NDEFS; i++)
			if (name_matches(&defs[i], argv[optind]))
				b->selected[i] = hit = true;
		if (!hit) {
			char q[LAT_ARG_MAX];

			fprintf(stderr, "latbpf bench: no benchmark named '%s' "
				"(latbpf bench --list)\n", lat_term_arg(q, sizeof(q), argv[optind]));
			return -EINVAL;
		}
		any = true;
	}
	for (i = 0; !any && i < NDEFS; i++)
		b->selected[i] = true;
	b->named = any;
	return 0;
}

static void list(FILE *f)
{
	for (int i = 0; i < NDEFS; i++)
		fprintf(f, "%-12s %-4s %4.1fs  %s\n%14s results: %s\n", defs[i].name,
			defs[i].group, defs[i].budget_ns / 1e9, defs[i].what, "", defs[i].results);
}

/* The bench's results go through the output layer like a trace's: published
 * into a snapshot, which the JSON sink writes and the table below reads. */
static void publish_clock(struct lat_snap *s, const struct lat_bclock *k)
{
	char *tok, *save, flags[256];

	lat_pub_obj(s, "tsc", "clock");
	lat_pub_str(s, "source", k->source);
	lat_pub_bool(s, "invariant", k->invariant);
	lat_pub_bool(s, "cpuid_invariant", k->cpuid_invariant);
	lat_pub_list(s, "flags", NULL);
	snprintf(flags, sizeof(flags), "%s", k->flags);
	for (tok = strtok_r(flags, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		lat_pub_str(s, NULL, tok);
	lat_pub_end(s);
	lat_pub_real(s, "hz", k->hz, 0);
	lat_pub_real(s, "kernel_hz", k->kernel_hz, 0);
	lat_pub_real(s, "spread_ppm", k->spread_ppm, 3);
	lat_pub_num(s, "windows", k->windows);
	lat_pub_num(s, "window_ns", (long long)k->window_ns);
	if (k->skew_cpu >= 0) {
		lat_pub_num(s, "skew_ns", k->skew_ns);
		lat_pub_num(s, "skew_err_ns", (long long)k->skew_err_ns);
		lat_pub_num(s, "skew_cpu", k->skew_cpu);
	} else {
		lat_pub_null(s, "skew_ns");
	}
	lat_pub_num(s, "overhead_ticks", (long long)k->overhead);
	lat_pub_str(s, "fallback", k->fallback[0] ? k->fallback : NULL);
	lat_pub_end(s);
}

const double lat_bench_cols[LAT_BENCH_COLS] = { 50, 90, 99, 99.9, 101 /* max */ };
const char *const lat_bench_col_names[LAT_BENCH_COLS] = { "p50", "p90", "p99", "p99.9",
							   "max" };

/* "runs": {"n": 5, "p50": {"median", "min", "max", "few"}, ..., "cycles":
 * {the same in ticks}} */
static void publish_runs(struct lat_snap *s, const struct lat_bres *r)
{
	lat_pub_obj(s, "runs", NULL);
	lat_pub_num(s, "n", r->nruns);
	for (int u = 0; u < 2; u++) {
		if (u)
			lat_pub_obj(s, "cycles", NULL);
		for (int k = 0; k < LAT_BENCH_COLS; k++) {
			const struct lat_brun *p = &r->runs[u][k];

			lat_pub_obj(s, lat_bench_col_names[k], NULL);
			lat_pub_real(s, "median", p->median, 1);
			lat_pub_num(s, "min", (long long)p->lo);
			lat_pub_num(s, "max", (long long)p->hi);
			lat_pub_bool(s, "few", p->few);
			lat_pub_end(s);
		}
		if (u)
			lat_pub_end(s);
	}
	lat_pub_end(s);
}

static void publish_results(struct lat_snap *s, struct lat_bres **res, int n)
{
	lat_pub_list(s, "results", "results");
	for (int i = 0; i < n; i++) {
		const struct lat_bres *r = res[i];
		struct lat_node *c;

		lat_pub_item(s, true, true);
		lat_pub_str(s, "name", r->name);
		lat_pub_str(s, "method", r->method);
		lat_pub_num(s, "batch", r->batch);
		lat_pub_str(s, "unit", r->mb_s ? "MB/s" : "ns");
		if (r->mb_s)
			lat_pub_real(s, "total_mb_s", r->total_mb_s, 0);
		lat_pub_hist(s, "hist", NULL, &r->ns, NULL);
		c = lat_pub_hist(s, "cycles", NULL, &r->ticks, NULL);
		if (c)
			c->unit = LAT_UNIT_TICKS;
		if (r->note[0])
			lat_pub_str(s, "note", r->note);
		if (r->check) {
			lat_pub_obj(s, "check", NULL);
			lat_pub_str(s, "counter", r->check);
			lat_pub_num(s, "expected", r->expected);
			lat_pub_num(s, "observed", r->observed);
			lat_pub_end(s);
		}
		if (r->nruns > 1)
			publish_runs(s, r);
		if (r->quarantine[0])
			lat_pub_str(s, "quarantine", r->quarantine);
		lat_pub_bool(s, "ok", !r->failed);
		lat_pub_end(s);
	}
	lat_pub_end(s);
}

static double real_of(const struct lat_node *obj, const char *key)
{
	const struct lat_node *n = lat_snap_find(obj, key);

	if (!n)
		return 0;
	return n->kind == LAT_REAL ? n->v.real : n->kind == LAT_NUM ? (double)n->v.num : 0;
}

/* a string member for the table, escaped: a saved run (latbpf report) is
 * untrusted; four live at once */
static const char *str_of(const struct lat_node *obj, const char *key)
{
	static char buf[4][1024];
	static int k;
	const struct lat_node *n = lat_snap_find(obj, key);

	if (!n || n->kind != LAT_STR || !n->v.str)
		return NULL;
	k = (k + 1) % 4;
	lat_term_str(buf[k], sizeof(buf[k]), n->v.str);
	return buf[k];
}

static void clock_text(FILE *f, const struct lat_node *k)
{
	const struct lat_node *flags = lat_snap_find(k, "flags"), *n, *cpuid;
	const char *fallback = str_of(k, "fallback");
	double hz = real_of(k, "hz"), khz = real_of(k, "kernel_hz");
	char a[32], b[32], fl[256] = "";
	size_t l = 0;

	if (!k)
		return;
	if (fallback) {
		fprintf(f, "clock: clock_gettime(CLOCK_MONOTONIC), NOT the counter: %s\n",
			fallback);
		return;
	}
	for (n = flags ? flags->child : NULL; n && l + 32 < sizeof(fl); n = n->next)
		if (n->kind == LAT_STR && n->v.str) {
			char e[64];

			lat_term_str(e, sizeof(e), n->v.str);
			l += (size_t)snprintf(fl + l, sizeof(fl) - l, "%s%s", l ? " " : "", e);
		}
	fprintf(f, "clock: %s at %.6f MHz", str_of(k, "source"), hz / 1e6);
	if (khz > 0)
		fprintf(f, " (kernel: %.3f MHz, %+.0f ppm)", khz / 1e6, (hz - khz) / khz * 1e6);
	n = lat_snap_find(k, "invariant");
	cpuid = lat_snap_find(k, "cpuid_invariant");
	fprintf(f, ", %s (%s%s), %.0f windows of %.0f ms, spread %.1f ppm\n",
		n && n->v.b ? "invariant" : "NOT invariant", fl,
		cpuid && cpuid->v.b ? "; CPUID invariant bit" : "",
		real_of(k, "windows"), real_of(k, "window_ns") / 1e6, real_of(k, "spread_ppm"));
	lat_fmt_ns(a, sizeof(a), (__u64)real_of(k, "skew_err_ns"));
	if (lat_snap_find(k, "skew_cpu"))
		fprintf(f, "cores: largest counter offset %+.0f ns on cpu %.0f (within +-%s)\n",
			real_of(k, "skew_ns"), real_of(k, "skew_cpu"), a);
	lat_fmt_ns(b, sizeof(b), lat_ticks_to_ns((__u64)real_of(k, "overhead_ticks"), hz));
	fprintf(f, "timing: an empty timed region costs %.0f ticks (%s); every timing "
		"subtracts it\n", real_of(k, "overhead_ticks"), b);
}

static void fmt_cell(char *b, size_t n, const struct lat_hist *h, double pct, bool ns)
{
	__u64 v = pct > 100 ? h->max : lat_hist_percentile(h, pct);

	if (ns)
		lat_fmt_ns(b, n, v);
	else
		snprintf(b, n, "%llu", (unsigned long long)v);
	if (pct <= 100 && lat_hist_too_few(h, pct))
		strncat(b, "*", n - strlen(b) - 1);
}

void lat_bench_fmt_value(char *b, size_t n, double v, bool ns)
{
	if (ns && v >= 0 && v < 1.8e19)
		lat_fmt_ns(b, n, (__u64)(v + 0.5));
	else
		snprintf(b, n, "%.0f", v);
}

/* The median across runs, starred as fmt_cell stars */
static void fmt_median(char *b, size_t n, const struct lat_node *p, bool ns)
{
	const struct lat_node *few = lat_snap_find(p, "few");

	lat_bench_fmt_value(b, n, real_of(p, "median"), ns);
	if (few && few->v.b)
		strncat(b, "*", n - strlen(b) - 1);
}

/* The runs' lowest and highest against their median: "-3..+5%" */
static void fmt_spread(char *b, size_t n, const struct lat_node *p)
{
	double m = real_of(p, "median"), lo = real_of(p, "min"), hi = real_of(p, "max");

	if (m <= 0) {
		snprintf(b, n, "%s", hi > 0 ? "0..inf" : "0");
		return;
	}
	lo = (lo / m - 1) * 100;
	hi = (hi / m - 1) * 100;
	snprintf(b, n, "%+.0f..%+.0f%%", lo, hi > 999 ? 999 : hi);
}

/* The clock, then a row in ns and a row in cycles per result, of an object
 * holding "tsc" and "results" (a bench's snapshot, or a baseline). */
void lat_bench_table(FILE *f, const struct lat_node *bench)
{
	const struct lat_node *res = lat_snap_find(bench, "results"), *r;
	bool starred = false;
	char b[32];

	clock_text(f, lat_snap_find(bench, "tsc"));
	fprintf(f, "%-24s %-6s %9s %9s %9s %9s %9s %9s\n", "result", "unit", "samples",
		"p50", "p90", "p99", "p99.9", "max");
	for (r = res ? res->child : NULL; r; r = r->next) {
		const struct lat_node *runs = lat_snap_find(r, "runs");

		for (int row = 0; row < 3; row++) {
			const struct lat_node *hn = lat_snap_find(r, row == 1 ? "cycles" : "hist");
			const struct lat_hist *h = hn && hn->kind == LAT_HIST &&
				!(hn->flags & LAT_F_PACKED) ? hn->v.h.run : NULL;
			/* with runs: the medians, then the spread in ns */
			const struct lat_node *rk = runs && row == 1 ?
				lat_snap_find(runs, "cycles") : runs;

			if (!h || (row == 2 && !runs))
				continue;
			const char *unit = str_of(r, "unit");
			bool ns = !unit || !strcmp(unit, "ns");

			if (row == 0)
				fprintf(f, "%-24s %-6s %9llu", str_of(r, "name"), ns ? "ns" : unit,
					(unsigned long long)h->count);
			else if (row == 1)
				fprintf(f, "%-24s %-6s %9s", "", "cycles", "");
			else
				fprintf(f, "%-24s %-6s %9s", "", "spread", "");
			for (int k = 0; k < LAT_BENCH_COLS; k++) {
				const struct lat_node *p = rk ?
					lat_snap_find(rk, lat_bench_col_names[k]) : NULL;

				if (!h->count) {
					fprintf(f, " %9s", "-");
					continue;
				}
				if (row == 2)
					fmt_spread(b, sizeof(b), p);
				else if (p)
					fmt_median(b, sizeof(b), p, row == 0 && ns);
				else
					fmt_cell(b, sizeof(b), h, lat_bench_cols[k], row == 0 && ns);
				starred |= strchr(b, '*') != NULL;
				fprintf(f, " %9s", b);
			}
			fputc('\n', f);
		}
	}
	if (starred)
		fputs("* fewer than 10 samples beyond this percentile: read it as the max\n", f);
	if (res && res->child && lat_snap_find(res->child, "runs"))
		fprintf(f, "each percentile is the median of %.0f runs; spread: the lowest and "
			"highest run against it\n",
			real_of(lat_snap_find(res->child, "runs"), "n"));
}

static void methods(FILE *f, const struct lat_node *res)
{
	const struct lat_node *r, *ok;
	const char *note;
	char safe[sizeof(((struct lat_bres *)0)->note) * 4];

	fputs("\nhow each was measured (cycles are TSC ticks):\n", f);
	for (r = res ? res->child : NULL; r; r = r->next) {
		fprintf(f, "  %-24s %s", str_of(r, "name"), str_of(r, "method"));
		if (real_of(r, "batch") > 1)
			fprintf(f, "; %.0f per timed region, per operation shown",
				real_of(r, "batch"));
		if (lat_snap_find(r, "total_mb_s"))
			fprintf(f, "; MB/s per timed block shown; in all: %.0f MB/s",
				real_of(r, "total_mb_s"));
		fputc('\n', f);
		ok = lat_snap_find(r, "ok");
		/* a note can quote --dir */
		if ((note = str_of(r, "note")))
			fprintf(f, "  %-24s %s%s\n", "", ok && !ok->v.b ? "WARNING: " : "",
				lat_term_arg(safe, sizeof(safe), note));
		if ((note = str_of(r, "quarantine")))
			fprintf(f, "  %-24s QUARANTINED: %s\n", "", note);
	}
}

/* 0, or -EIO when the benchmark stopped on an error (said in the notes):
 * never -EINVAL, which would read as a usage error */
static int run_one(struct lat_bctx *c, const struct lat_bench_def *d, __u64 budget)
{
	int err, first = c->nres;
	__u64 t = lat_mono_ns();

	c->budget_ns = budget;
	c->deadline = t + budget;
	err = d->run(c);
	for (int i = first; i < c->nres; i++) {
		c->res[i]->t_start = t;
		c->res[i]->t_end = lat_mono_ns();
		c->res[i]->bench = d->name;
		c->res[i]->group = d->group;
	}
	if (!err)
		return 0;
	lat_bench_note("%s: stopped on an error: %s", d->name, strerror(-err));
	fprintf(stderr, "latbpf bench: %s: stopped on an error: %s\n", d->name, strerror(-err));
	return -EIO;
}

double lat_bench_median(__u64 *v, int n)
{
	if (n <= 0)
		return 0;
	for (int i = 1; i < n; i++)	/* a handful of runs: insertion sort */
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			__u64 t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

static __u64 col_value(const struct lat_hist *h, int k)
{
	return lat_bench_cols[k] > 100 ? h->max : lat_hist_percentile(h, lat_bench_cols[k]);
}

/*
 * The results of all runs, in c->res in run order, into one result per
 * name: histograms added, checks summed, the bandwidth total averaged, and
 * per column the median, lowest and highest run. A result a run did not
 * produce (it stopped on an error) counts in fewer runs.
 */
static int merge_runs(struct lat_bctx *c, int runs, struct lat_bctx *out)
{
	__u64 *v = calloc((size_t)runs + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < c->nres; i++) {
		struct lat_bres *r = c->res[i], *m = NULL;

		for (int j = 0; j < out->nres && !m; j++)
			if (!strcmp(out->res[j]->name, r->name))
				m = out->res[j];
		if (m) {
			lat_hist_merge(&m->ns, &r->ns);
			lat_hist_merge(&m->ticks, &r->ticks);
			m->total_mb_s += r->total_mb_s;
			if (!m->check_level) {
				m->expected += r->expected;
				m->observed += r->observed;
			} else if (r->observed > m->observed) {
				m->observed = r->observed;	/* the largest knee */
			}
			m->failed |= r->failed;
			if (!m->note[0])
				memcpy(m->note, r->note, sizeof(m->note));
			m->t_end = r->t_end;
			m->nruns++;
			continue;
		}
		m = lat_bres_new(out, r->name, r->method, r->batch);
		if (!m) {
			free(v);
			return -ENOMEM;
		}
		*m = *r;
		m->nruns = 1;
	}
	for (int j = 0; j < out->nres; j++) {
		struct lat_bres *m = out->res[j];

		m->total_mb_s /= m->nruns;
		for (int u = 0; u < 2; u++)
			for (int k = 0; k < LAT_BENCH_COLS; k++) {
				struct lat_brun *p = &m->runs[u][k];
				int n = 0;

				p->few = false;
				for (int i = 0; i < c->nres && n < runs; i++) {
					const struct lat_bres *r = c->res[i];
					const struct lat_hist *h = u ? &r->ticks : &r->ns;

					if (strcmp(r->name, m->name) || !h->count)
						continue;
					v[n++] = col_value(h, k);
					p->few |= lat_bench_cols[k] <= 100 &&
						  lat_hist_too_few(h, lat_bench_cols[k]);
				}
				p->median = lat_bench_median(v, n);
				p->lo = n ? v[0] : 0;
				p->hi = n ? v[n - 1] : 0;
			}
	}
	free(v);
	return 0;
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

static void restore_affinity(const cpu_set_t *set)
{
	sched_setaffinity(0, sizeof(*set), set);
}

static void free_results(struct lat_bctx *c)
{
	for (int i = 0; i < c->nres; i++)
		free(c->res[i]);
	free(c->res);
	c->res = NULL;
	c->nres = c->cap = 0;
}

static void free_notes(void)
{
	for (int i = 0; i < nnotes; i++)
		free(notes[i]);
	nnotes = 0;
}

int lat_bench_parse(int argc, char **argv)
{
	struct bopts b = { 0 };

	return parse(argc - 1, argv + 1, &b);
}

int lat_bench_main(int argc, char **argv)
{
	struct bopts b = { 0 };
	struct lat_bctx all = { 0 };
	struct lat_benv env;
	struct lat_provenance *prov = NULL;
	FILE *jf = NULL;
	cpu_set_t orig;
	__u64 t0, warm_ns = 0;
	double epoch;
	int err, i, runs;

	if (argc > 2 && !strcmp(argv[2], "compare"))
		return lat_bench_compare(argc - 2, argv + 2);
	err = parse(argc - 1, argv + 1, &b);
	if (err)
		return err;
	if (b.help) {
		usage(stdout);
		return 0;
	}
	if (b.list) {
		list(stdout);
		return 0;
	}
	if (b.json_path) {
		jf = strcmp(b.json_path, "-") ? fopen(b.json_path, "w") : stdout;
		if (!jf) {
			char q[LAT_ARG_MAX];
			int e = errno;

			fprintf(stderr, "latbpf bench: cannot write '%s': %s\n",
				lat_term_arg(q, sizeof(q), b.json_path), strerror(e));
			return -EINVAL;
		}
	}
	prov = lat_provenance_new(argc, argv, 0, NULL);
	if (!prov) {
		err = -ENOMEM;
		goto out;
	}
	sched_getaffinity(0, sizeof(orig), &orig);
	t0 = lat_mono_ns();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		epoch = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	}
	lat_bclock_init(b.quick, lat_provenance_tsc_flags(prov));
	runs = b.runs ? b.runs : b.named || b.quick ? 1 : 5;
	if (b.quick && !b.duration_ns)
		b.duration_ns = S / 10;
	b.c.runs = runs;
	/*
	 * A benchmark's time is shared by its runs. Before several runs, a
	 * warm-up run of each (a tenth of its share, at most 100 ms), whose
	 * results and notes are dropped: caches, page tables, the CPU's clock.
	 * The runs go round the benchmarks, so a host that drifts spreads all
	 * of them alike.
	 */
	for (int r = runs > 1 ? -1 : 0; r < runs; r++) {
		if (r == 0)	/* the warm-up's start-up is not the runs' */
			lat_benv_begin(&env, &b.c);
		for (i = 0; i < NDEFS; i++) {
			__u64 share = (b.duration_ns ? b.duration_ns : defs[i].budget_ns) / runs;

			if (!b.selected[i])
				continue;
			if (share < 10000000ULL)
				share = 10000000ULL;
			if (r < 0) {
				share = share / 10 < 100000000ULL ? share / 10 : 100000000ULL;
				warm_ns += share;
			}
			fprintf(stderr, "latbpf bench: %s%s...\n", defs[i].name,
				r < 0 ? " (warm-up)" : "");
			if (r >= 0)
				lat_benv_bench(&env, defs[i].group, false);
			if (run_one(&b.c, &defs[i], share))
				err = -EIO;
			if (r >= 0)
				lat_benv_bench(&env, defs[i].group, true);
			restore_affinity(&orig);
		}
		if (r < 0) {
			free_results(&b.c);
			free_notes();
		}
	}
	lat_benv_end(&env);
	if (merge_runs(&b.c, runs, &all))
		err = -ENOMEM;
	for (i = 0; i < all.nres; i++)
		lat_benv_quarantine(&env, all.res[i]->bench, all.res[i]->group,
				    all.res[i]->quarantine, sizeof(all.res[i]->quarantine));
	if (b.hlog_path) {
		int e = write_hlog(b.hlog_path, &b.c, t0, epoch);
		char q[LAT_ARG_MAX];

		if (e) {
			fprintf(stderr, "latbpf bench: writing '%s': %s\n",
				lat_term_arg(q, sizeof(q), b.hlog_path), strerror(-e));
			err = -EIO;
		}
	}

	FILE *tf = jf == stdout ? stderr : stdout;
	struct lat_snap snap = { 0 };
	const struct lat_node *res;

	lat_snap_reset(&snap);
	lat_provenance_publish_host(prov, &snap);
	lat_pub_obj(&snap, "bench", NULL);
	lat_pub_list(&snap, "argv", NULL);
	for (i = 0; i < argc; i++)
		lat_pub_str(&snap, NULL, argv[i]);
	lat_pub_end(&snap);
	lat_pub_num(&snap, "cpu", b.c.cpu);
	lat_pub_ids(&snap, "hiccup_cpus", (const __u32 *)b.c.cpus, b.c.ncpus);
	lat_pub_num(&snap, "interval_ns", (long long)b.c.interval_ns);
	lat_pub_real(&snap, "duration_s", (lat_mono_ns() - t0) / 1e9, 3);
	lat_pub_num(&snap, "runs", runs);
	lat_pub_real(&snap, "warmup_s", warm_ns / 1e9, 3);
	lat_pub_end(&snap);
	publish_clock(&snap, &lat_bclock);
	lat_benv_publish(&env, &snap);
	publish_results(&snap, all.res, all.nres);
	lat_pub_list(&snap, "notes", NULL);
	for (i = 0; i < nnotes; i++)
		lat_pub_str(&snap, NULL, notes[i]);
	lat_pub_end(&snap);
	if (snap.oom)
		err = -ENOMEM;

	lat_provenance_host_text(prov, tf);
	fprintf(tf, "pinning: one-core benchmarks on cpu %d; hiccup meter on cpus", b.c.cpu);
	for (i = 0; i < b.c.ncpus; i++)
		fprintf(tf, "%s%d", i ? "," : " ", b.c.cpus[i]);
	fprintf(tf, "; took %.1f s\n", (lat_mono_ns() - t0) / 1e9);
	if (runs > 1)
		fprintf(tf, "runs: %d of each benchmark, in turn, after a warm-up of %.1f s "
			"in all that is not counted\n", runs, warm_ns / 1e9);
	lat_benv_text(&env, tf);
	lat_bench_table(tf, &snap.root);
	res = lat_snap_find(&snap.root, "results");
	methods(tf, res);
	if (nnotes)
		fputc('\n', tf);
	for (i = 0; i < nnotes; i++)
		fprintf(tf, "%s\n", notes[i]);
	if (jf && lat_json_write(jf, &snap)) {
		fprintf(stderr, "latbpf bench: writing JSON: %s\n", strerror(errno));
		err = -EIO;
	}
	lat_snap_free(&snap);
out:
	if (jf && jf != stdout)
		fclose(jf);
	free_results(&b.c);
	free_results(&all);
	free_notes();
	lat_provenance_free(prov);
	return err;
}

/* The baseline a trace report carries: the benchmarks marked for it, each
 * for a tenth of a second, with a quick calibration. */
struct lat_baseline {
	struct lat_bclock clock;
	struct lat_bctx c;
	__u64 took_ns;
};

struct lat_baseline *lat_baseline_run(const char *cpuinfo_flags)
{
	struct lat_baseline *bl = calloc(1, sizeof(*bl));
	cpu_set_t orig;
	__u64 t0 = lat_mono_ns();

	if (!bl)
		return NULL;
	sched_getaffinity(0, sizeof(orig), &orig);
	default_cpus(&bl->c);
	bl->c.interval_ns = 1000000ULL;
	lat_bclock_init(true, cpuinfo_flags);
	for (int i = 0; i < NDEFS; i++) {
		if (!defs[i].baseline)
			continue;
		run_one(&bl->c, &defs[i], S / 10);
		restore_affinity(&orig);
	}
	bl->clock = lat_bclock;
	bl->took_ns = lat_mono_ns() - t0;
	free_notes();
	return bl;
}

/* Into the final snapshot of a trace: "baseline", beside the provenance. */
void lat_baseline_publish(const struct lat_baseline *bl, struct lat_snap *s)
{
	if (!bl)
		return;
	lat_pub_flags(lat_pub_obj(s, "baseline", "host baseline"), LAT_F_PROV);
	lat_pub_real(s, "duration_s", bl->took_ns / 1e9, 3);
	lat_pub_num(s, "cpu", bl->c.cpu);
	publish_clock(s, &bl->clock);
	publish_results(s, bl->c.res, bl->c.nres);
	lat_pub_end(s);
}

void lat_baseline_free(struct lat_baseline *bl)
{
	if (!bl)
		return;
	free_results(&bl->c);
	free(bl);
}

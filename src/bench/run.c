// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf bench [NAME...] [--duration DUR] [--cpu LIST] [--interval DUR]
 *              [--dir DIR] [--json FILE|-] [--list]
 * The list of benchmarks, their results, the table and the JSON. Also the
 * short baseline a trace report can carry (--baseline).
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/bench.h"

#define S 1000000000ULL

static const struct lat_bench_def defs[] = {
	{ "timer", "timer_region timer_clock_gettime timer_rdtsc timer_rdtscp "
	  "timer_lfence_rdtsc timer_cpuid_rdtsc (x86) timer_cntvct timer_isb_cntvct (arm64)",
	  "what reading the time costs", S, false, lat_bench_timer },
	{ "syscall", "syscall_getppid syscall_write_null",
	  "a system call that does nothing, and a 0-byte write to /dev/null", S, true,
	  lat_bench_syscall },
	{ "ctxsw", "pipe_1thread ctxsw_thread ctxsw_process",
	  "pipe ping-pong on one core: per switch, pipe cost taken off", 2 * S, true,
	  lat_bench_ctxsw },
	{ "thread", "thread_create_join", "pthread_create + pthread_join", S, true,
	  lat_bench_thread },
	{ "fork", "fork_exit_wait", "fork + _exit + waitpid", S, false, lat_bench_fork },
	{ "fault_minor", "fault_minor", "first touch of anonymous memory, THP off", S, true,
	  lat_bench_fault_minor },
	{ "fault_major", "fault_major", "file pages read in by a fault, random order",
	  2 * S, false, lat_bench_fault_major },
	{ "memlat", "memlat_4k ... memlat_256m",
	  "dependent loads over a random cycle: the cache hierarchy", 5 * S, false,
	  lat_bench_memlat },
	{ "tcp_rtt", "tcp_rtt", "1-byte TCP ping-pong over 127.0.0.1", S, true,
	  lat_bench_tcp_rtt },
	{ "tcp_connect", "tcp_connect", "TCP connect + close over 127.0.0.1", S, false,
	  lat_bench_tcp_connect },
	{ "hiccup", "hiccup_raw hiccup_corrected hiccup_cpuN_raw hiccup_cpuN_corrected",
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
	if (nnotes < 64 && vasprintf(&s, fmt, ap) >= 0)
		notes[nnotes++] = s;
	va_end(ap);
}

struct bopts {
	bool selected[NDEFS], list, help;
	__u64 duration_ns;	/* 0: each benchmark's default */
	const char *json_path;
	struct lat_bctx c;
};

static void usage(FILE *f)
{
	fputs("usage: latbpf bench [NAME...] [--duration DUR] [--cpu LIST] [--interval DUR]\n"
	      "                    [--dir DIR] [--json FILE|-] [--list]\n"
	      "  NAME        a benchmark, a result name or a group (fault, tcp); default: all\n"
	      "  --duration  time for each benchmark (default: its own, 1-5 s; ~20 s in all)\n"
	      "  --cpu       cores to use: the first runs one-core benchmarks, all run the\n"
	      "              hiccup meter (default: the last allowed core; all allowed cores)\n"
	      "  --interval  the hiccup meter's sleep (default 1ms)\n"
	      "  --dir       where fault_major puts its file (default: $TMPDIR or /var/tmp)\n"
	      "  --json      write one JSON object to FILE (- for stdout)\n"
	      "  --list      list the benchmarks and the names of their results\n", f);
}

static bool name_matches(const struct lat_bench_def *d, const char *name)
{
	size_t n = strlen(name);
	const char *u = strchr(d->name, '_');

	if (!strcmp(d->name, name))
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

static int parse(int argc, char **argv, struct bopts *b)
{
	static const struct option lo[] = {
		{ "duration", required_argument, 0, 'd' },
		{ "json", required_argument, 0, 'j' },
		{ "cpu", required_argument, 0, 'c' },
		{ "interval", required_argument, 0, 'i' },
		{ "dir", required_argument, 0, 'D' },
		{ "list", no_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	bool any = false;
	int o, i, err;

	default_cpus(&b->c);
	b->c.interval_ns = 1000000ULL;
	b->c.dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":d:j:c:i:D:lh", lo, NULL)) != -1) {
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
		case 'l':
			b->list = true;
			break;
		case 'h':
			b->help = true;
			break;
		case ':':
			fprintf(stderr, "latbpf bench: option '%s' needs a value\n", argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(stderr, "latbpf bench: unknown option '%s' (see latbpf bench --help)\n",
				argv[optind - 1]);
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
			char safe[64];

			lat_term_str(safe, sizeof(safe), argv[optind]);
			fprintf(stderr, "latbpf bench: no benchmark named '%s' "
				"(latbpf bench --list)\n", safe);
			return -EINVAL;
		}
		any = true;
	}
	for (i = 0; !any && i < NDEFS; i++)
		b->selected[i] = true;
	return 0;
}

static void list(FILE *f)
{
	for (int i = 0; i < NDEFS; i++)
		fprintf(f, "%-12s %4.1fs  %s\n%14s results: %s\n", defs[i].name,
			defs[i].budget_ns / 1e9, defs[i].what, "", defs[i].results);
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

static const double cols[] = { 50, 90, 99, 99.9, 101 /* max */ };

static void table(FILE *f, struct lat_bres **res, int n)
{
	char b[32];
	bool starred = false;

	fprintf(f, "%-24s %-6s %9s %9s %9s %9s %9s %9s\n", "result", "unit", "samples",
		"p50", "p90", "p99", "p99.9", "max");
	for (int i = 0; i < n; i++) {
		const struct lat_bres *r = res[i];

		for (int row = 0; row < 2; row++) {
			const struct lat_hist *h = row ? &r->ticks : &r->ns;

			if (row == 0)
				fprintf(f, "%-24s %-6s %9llu", r->name, "ns",
					(unsigned long long)h->count);
			else
				fprintf(f, "%-24s %-6s %9s", "", "cycles", "");
			for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
				if (!h->count) {
					fprintf(f, " %9s", "-");
					continue;
				}
				fmt_cell(b, sizeof(b), h, cols[k], row == 0);
				starred |= strchr(b, '*') != NULL;
				fprintf(f, " %9s", b);
			}
			fputc('\n', f);
		}
	}
	if (starred)
		fputs("* fewer than 10 samples beyond this percentile: read it as the max\n", f);
}

static void methods(FILE *f, struct lat_bres **res, int n)
{
	fputs("\nhow each was measured (cycles are TSC ticks):\n", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "  %-24s %s", res[i]->name, res[i]->method);
		if (res[i]->batch > 1)
			fprintf(f, "; %u per timed region, per operation shown", res[i]->batch);
		fputc('\n', f);
		if (res[i]->note[0])
			fprintf(f, "  %-24s %s%s\n", "", res[i]->failed ? "WARNING: " : "",
				res[i]->note);
	}
}

static void clock_text(FILE *f, const struct lat_bclock *k)
{
	char a[32], b[32];

	if (!k->counter) {
		fprintf(f, "clock: clock_gettime(CLOCK_MONOTONIC), NOT the counter: %s\n",
			k->fallback);
		return;
	}
	fprintf(f, "clock: %s at %.6f MHz", k->source, k->hz / 1e6);
	if (k->kernel_hz > 0)
		fprintf(f, " (kernel: %.3f MHz, %+.0f ppm)", k->kernel_hz / 1e6,
			(k->hz - k->kernel_hz) / k->kernel_hz * 1e6);
	fprintf(f, ", %s (%s%s), %d windows of %llu ms, spread %.1f ppm\n",
		k->invariant ? "invariant" : "NOT invariant", k->flags,
		k->cpuid_invariant ? "; CPUID invariant bit" : "", k->windows,
		(unsigned long long)(k->window_ns / 1000000), k->spread_ppm);
	lat_fmt_ns(a, sizeof(a), k->skew_err_ns);
	if (k->skew_cpu >= 0)
		fprintf(f, "cores: largest counter offset %+lld ns on cpu %d (within +-%s)\n",
			(long long)k->skew_ns, k->skew_cpu, a);
	lat_fmt_ns(b, sizeof(b), lat_ticks_to_ns(k->overhead, k->hz));
	fprintf(f, "timing: an empty timed region costs %llu ticks (%s); every timing "
		"subtracts it\n", (unsigned long long)k->overhead, b);
}

static void clock_json(FILE *f, const struct lat_bclock *k)
{
	char *tok, *save, flags[256];
	bool first = true;

	fputs("{\"source\":", f);
	lat_json_str(f, k->source);
	fprintf(f, ",\"invariant\":%s,\"cpuid_invariant\":%s,\"flags\":[",
		k->invariant ? "true" : "false", k->cpuid_invariant ? "true" : "false");
	snprintf(flags, sizeof(flags), "%s", k->flags);
	for (tok = strtok_r(flags, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		fputs(first ? "" : ",", f);
		lat_json_str(f, tok);
		first = false;
	}
	fprintf(f, "],\"hz\":%.0f,\"kernel_hz\":%.0f,\"spread_ppm\":%.3f,\"windows\":%d,"
		"\"window_ns\":%llu,", k->hz, k->kernel_hz, k->spread_ppm, k->windows,
		(unsigned long long)k->window_ns);
	if (k->skew_cpu >= 0)
		fprintf(f, "\"skew_ns\":%lld,\"skew_err_ns\":%llu,\"skew_cpu\":%d,",
			(long long)k->skew_ns, (unsigned long long)k->skew_err_ns, k->skew_cpu);
	else
		fputs("\"skew_ns\":null,", f);
	fprintf(f, "\"overhead_ticks\":%llu,\"fallback\":", (unsigned long long)k->overhead);
	if (k->fallback[0])
		lat_json_str(f, k->fallback);
	else
		fputs("null", f);
	fputc('}', f);
}

static void results_json(FILE *f, struct lat_bres **res, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		const struct lat_bres *r = res[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		lat_json_str(f, r->name);
		fputs(",\"method\":", f);
		lat_json_str(f, r->method);
		fprintf(f, ",\"batch\":%u,\"hist\":", r->batch);
		lat_json_hist(f, &r->ns);
		fputs(",\"cycles\":", f);
		lat_json_hist(f, &r->ticks);
		if (r->note[0]) {
			fputs(",\"note\":", f);
			lat_json_str(f, r->note);
		}
		if (r->check) {
			fputs(",\"check\":{\"counter\":", f);
			lat_json_str(f, r->check);
			fprintf(f, ",\"expected\":%lld,\"observed\":%lld}",
				(long long)r->expected, (long long)r->observed);
		}
		fprintf(f, ",\"ok\":%s}", r->failed ? "false" : "true");
	}
	fputc(']', f);
}

/* 0, or -EIO when the benchmark stopped on an error (said in the notes):
 * never -EINVAL, which would read as a usage error */
static int run_one(struct lat_bctx *c, const struct lat_bench_def *d, __u64 budget)
{
	int err;

	c->budget_ns = budget;
	c->deadline = lat_mono_ns() + budget;
	err = d->run(c);
	if (!err)
		return 0;
	lat_bench_note("%s: stopped on an error: %s", d->name, strerror(-err));
	fprintf(stderr, "latbpf bench: %s: stopped on an error: %s\n", d->name, strerror(-err));
	return -EIO;
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

int lat_bench_main(int argc, char **argv)
{
	struct bopts b = { 0 };
	struct lat_provenance *prov = NULL;
	FILE *jf = NULL;
	cpu_set_t orig;
	__u64 t0;
	int err, i;

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
			fprintf(stderr, "latbpf bench: cannot write '%s': %s\n", b.json_path,
				strerror(errno));
			return -EINVAL;
		}
	}
	prov = lat_provenance_new(argc, argv, NULL);
	if (!prov) {
		err = -ENOMEM;
		goto out;
	}
	sched_getaffinity(0, sizeof(orig), &orig);
	t0 = lat_mono_ns();
	lat_bclock_init(false, lat_provenance_tsc_flags(prov));
	for (i = 0; i < NDEFS; i++) {
		if (!b.selected[i])
			continue;
		fprintf(stderr, "latbpf bench: %s...\n", defs[i].name);
		if (run_one(&b.c, &defs[i], b.duration_ns ? b.duration_ns : defs[i].budget_ns))
			err = -EIO;
		restore_affinity(&orig);
	}

	FILE *tf = jf == stdout ? stderr : stdout;

	lat_provenance_host_text(prov, tf);
	clock_text(tf, &lat_bclock);
	fprintf(tf, "pinning: one-core benchmarks on cpu %d; hiccup meter on cpus", b.c.cpu);
	for (i = 0; i < b.c.ncpus; i++)
		fprintf(tf, "%s%d", i ? "," : " ", b.c.cpus[i]);
	fprintf(tf, "; took %.1f s\n\n", (lat_mono_ns() - t0) / 1e9);
	table(tf, b.c.res, b.c.nres);
	methods(tf, b.c.res, b.c.nres);
	if (nnotes)
		fputc('\n', tf);
	for (i = 0; i < nnotes; i++)
		fprintf(tf, "%s\n", notes[i]);
	if (jf) {
		fputc('{', jf);
		lat_provenance_host_json(prov, jf);
		fputs(",\"bench\":{\"argv\":[", jf);
		for (i = 0; i < argc; i++) {
			fputs(i ? "," : "", jf);
			lat_json_str(jf, argv[i]);
		}
		fprintf(jf, "],\"cpu\":%d,\"hiccup_cpus\":[", b.c.cpu);
		for (i = 0; i < b.c.ncpus; i++)
			fprintf(jf, "%s%d", i ? "," : "", b.c.cpus[i]);
		fprintf(jf, "],\"interval_ns\":%llu,\"duration_s\":%.3f},\"tsc\":",
			(unsigned long long)b.c.interval_ns, (lat_mono_ns() - t0) / 1e9);
		clock_json(jf, &lat_bclock);
		fputs(",\"results\":", jf);
		results_json(jf, b.c.res, b.c.nres);
		fputs(",\"notes\":[", jf);
		for (i = 0; i < nnotes; i++) {
			fputs(i ? "," : "", jf);
			lat_json_str(jf, notes[i]);
		}
		fputs("]}\n", jf);
		if (fflush(jf)) {
			fprintf(stderr, "latbpf bench: writing JSON: %s\n", strerror(errno));
			err = -EIO;
		}
	}
out:
	if (jf && jf != stdout)
		fclose(jf);
	free_results(&b.c);
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

void lat_baseline_text(const struct lat_baseline *bl, FILE *f)
{
	if (!bl)
		return;
	fprintf(f, "\nhost baseline (latbpf bench, %.2f s before attaching; "
		"`latbpf bench` for the full set):\n", bl->took_ns / 1e9);
	clock_text(f, &bl->clock);
	table(f, bl->c.res, bl->c.nres);
}

void lat_baseline_json(const struct lat_baseline *bl, struct lat_emit *e)
{
	FILE *f;

	if (!bl)
		return;
	f = lat_json_member(e, "baseline");
	fprintf(f, "{\"duration_s\":%.3f,\"cpu\":%d,\"tsc\":", bl->took_ns / 1e9, bl->c.cpu);
	clock_json(f, &bl->clock);
	fputs(",\"results\":", f);
	results_json(f, bl->c.res, bl->c.nres);
	fputc('}', f);
}

void lat_baseline_free(struct lat_baseline *bl)
{
	if (!bl)
		return;
	free_results(&bl->c);
	free(bl);
}

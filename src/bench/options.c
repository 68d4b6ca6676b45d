// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf bench's command line: the benchmarks named (names, result names,
 * groups, prefixes), their time, runs, cores, and where the outputs go.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/options.h"
#include "bench/benchmarks.h"
#include "core/cpulist.h"
#include "core/escape.h"
#include "core/parse.h"

#define S 1000000000ULL

void lat_bench_usage(FILE *f)
{
	fputs("usage: latbpf bench [NAME...] [--duration DUR] [--runs N] [--quick]\n"
	      "                    [--cpu LIST] [--interval DUR] [--dir DIR] [--json FILE|-]\n"
	      "                    [--hlog FILE] [--list]\n"
	      "       latbpf bench compare [--force] A.json B.json\n"
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
	      "  regression. Only clean runs are judged: a result quarantined in A or B\n"
	      "  (the environment check or the hiccup meter distrusts it) is named with\n"
	      "  why, and nothing is compared, unless --force (then its lines say FORCED)\n"
	      "exit: 0; 1 a benchmark stopped on an error; 2 usage, or a file compare\n"
	      "  cannot read; compare: 1 regressed, 3 quarantined (no --force)\n", f);
}

/* --cpu: CPUs in the order given (the first runs the one-core benchmarks),
 * each comma's part a CPU list as the kernel writes them (core/cpulist.h) */
static int parse_cpus(const char *s, struct lat_bctx *c)
{
	cpu_set_t allowed, part;
	char tok[64];
	size_t n;

	sched_getaffinity(0, sizeof(allowed), &allowed);
	c->ncpus = 0;
	while (*s) {
		n = strcspn(s, ",");
		if (!n || n >= sizeof(tok))
			goto bad;
		memcpy(tok, s, n);
		tok[n] = '\0';
		if (lat_parse_cpulist(tok, &part) || !CPU_COUNT(&part))
			goto bad;
		for (int k = 0; k < CPU_SETSIZE; k++) {
			if (!CPU_ISSET(k, &part))
				continue;
			if (!CPU_ISSET(k, &allowed)) {
				fprintf(stderr, "latbpf bench: cpu %d is not one this process "
					"may run on\n", k);
				return -EINVAL;
			}
			if (c->ncpus < (int)(sizeof(c->cpus) / sizeof(c->cpus[0])))
				c->cpus[c->ncpus++] = k;
		}
		s += n + (s[n] == ',');
	}
	if (c->ncpus)
		return 0;
bad:
	fprintf(stderr, "latbpf bench: --cpu takes a list like 1 or 0,2-3\n");
	return -EINVAL;
}

void lat_bench_default_cpus(struct lat_bctx *c)
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

/* One option of getopt's: 0, or -EINVAL with the message said */
static int one_option(int o, struct lat_bench_opts *b)
{
	int err = 0;

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
	}
	return err;
}

/* The names after the options: each selects what it matches; none, all */
static int select_names(int argc, char **argv, struct lat_bench_opts *b)
{
	bool any = false;
	int i;

	for (; optind < argc; optind++) {
		bool hit = false;

		for (i = 0; i < lat_bench_ndefs; i++)
			if (lat_bench_def_matches(&lat_bench_defs[i], argv[optind]))
				b->selected[i] = hit = true;
		if (!hit) {
			char q[LAT_ARG_MAX];

			fprintf(stderr, "latbpf bench: no benchmark named '%s' "
				"(latbpf bench --list)\n", lat_term_arg(q, sizeof(q), argv[optind]));
			return -EINVAL;
		}
		any = true;
	}
	for (i = 0; !any && i < lat_bench_ndefs; i++)
		b->selected[i] = true;
	b->named = any;
	return 0;
}

#define SHORTS "d:j:c:i:D:r:H:qlh"

int lat_bench_opts_parse(int argc, char **argv, struct lat_bench_opts *b)
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
	int o, err;

	lat_bench_default_cpus(&b->c);
	b->c.interval_ns = 1000000ULL;
	b->c.dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	optind = 0;	/* 0, not 1: glibc forgets an earlier parse's "-xv" */
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":" SHORTS, lo, NULL)) != -1) {
		if (o == ':' || o == '?') {
			lat_opt_refused("latbpf bench", "latbpf bench --help", o, argv, SHORTS, lo);
			return -EINVAL;
		}
		err = one_option(o, b);
		if (err)
			return err;
	}
	return select_names(argc, argv, b);
}

int lat_bench_parse(int argc, char **argv)
{
	struct lat_bench_opts b = { 0 };

	return lat_bench_opts_parse(argc - 1, argv + 1, &b);
}

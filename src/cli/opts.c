// SPDX-License-Identifier: GPL-2.0
/* Command-line parsing. Returns -EINVAL with a message on stderr for every
 * bad value; main.c turns that into exit code 2. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lat.h"

/* --help, with each family's own options from its table */
void lat_usage(FILE *f)
{
	const struct lat_family_opt *fo;
	const char *h, *nl;
	char opt[64];

	fputs(
"Usage: latbpf [OPTIONS] [-- COMMAND [ARG...]]\n"
"       latbpf bench [NAME...] [--duration DUR] [--runs N] [--cpu LIST]\n"
"                    [--json FILE|-] [--hlog FILE] [--list] (latbpf bench --help)\n"
"       latbpf bench compare A.json B.json\n"
"       latbpf report FILE.json [--html OUT.html]   a saved --json run again\n"
"       latbpf --version | --help\n"
"\n"
"Traces where a process's latency goes, from outside it, with BPF on\n"
"tracepoints. With no --pid, --tid, --cgroup or COMMAND: the whole system.\n"
"\n"
"Target:\n"
"  -p, --pid PID[,PID...]    processes (all threads, also ones created later)\n"
"  -t, --tid TID[,TID...]    single threads\n"
"      --children            with --pid: also the processes they start from\n"
"                            then on, and those already started\n"
"      --cgroup PATH[,PATH...]  every task in these cgroup v2 subtrees, also\n"
"                            ones that join later (a systemd service, a\n"
"                            container); PATH as in /proc/PID/cgroup works\n"
"      --cpus LIST           hiccup: also watch these CPUs, whatever runs\n"
"                            there (alone: no target, hiccup only)\n"
"  -- COMMAND [ARG...]       start COMMAND after attaching; trace it and\n"
"                            every process it starts; end when it exits\n"
"What and how:\n"
"      --probes LIST         families, comma-separated (default: all):\n", f);
	fprintf(f, "                            %s\n", lat_family_list());
	fputs(
"  -i, --interval DUR        report interval (default 1s)\n"
"  -d, --duration DUR        stop after DUR (default: until Ctrl-C, q, or\n"
"                            the target exits)\n", f);
	for (int i = 0; lat_modules[i]; i++) {
		for (fo = lat_modules[i]->options; fo && fo->name; fo++) {
			snprintf(opt, sizeof(opt), "--%s%s%s", fo->name, fo->arg ? " " : "",
				 fo->arg ? fo->arg : "");
			fprintf(f, "      %-22s", opt);
			for (h = fo->help; (nl = strchr(h, '\n')); h = nl + 1)
				fprintf(f, "%.*s\n%28s", (int)(nl - h), h, "");
			fprintf(f, "%s\n", h);
		}
	}
	fputs(
"Output (any together):\n"
"      --json FILE|-         newline-delimited JSON, one object per interval\n"
"                            and a final one with \"final\": true\n"
"      --hlog FILE           HdrHistogram interval log (v1.3, compressed V2\n"
"                            histograms): every time histogram, every interval\n"
"      --prometheus [HOST:]PORT  serve GET /metrics (text format 0.0.4) on\n"
"                            HOST (default 127.0.0.1); runs until a signal\n"
"                            unless --duration is given\n"
"      --no-tui              plain interval blocks even on a terminal\n"
"      --baseline            measure the host first (< 1 s of latbpf bench:\n"
"                            context switch, syscall, fault, TCP) and put it\n"
"                            in the summary and the final JSON record\n"
"      --bpf-stats           the kernel's BPF run-time statistics on while\n"
"                            latbpf runs: each of its programs' events and\n"
"                            ns/event in \"self\" (costs every BPF program\n"
"                            on the host two clock reads per run)\n"
"  -v, --verbose             libbpf's messages too\n"
"  -V, --version             version and exit\n"
"  -h, --help                this text\n"
"\n"
"DUR takes a unit: ns, us, ms, s, m, h (500us, 10ms, 1.5s, 2m).\n"
"Exit status: 0 success, 1 runtime failure, 2 usage error,\n"
"3 environment (not root / no CAP_BPF, no kernel BTF, nothing attachable).\n",
	      f);
}

int lat_parse_duration(const char *s, __u64 *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 },
		      { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 } };
	char *end, q[LAT_ARG_MAX];
	double v;
	unsigned i;

	if (!s || !*s)
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		goto bad;
	if (!*end) {
		fprintf(stderr, "latbpf: missing unit in '%s' (use ns, us, ms, s, m, h)\n",
			lat_term_arg(q, sizeof(q), s));
		return -EINVAL;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			if (v * units[i].mult > 1e18)
				goto bad;
			*ns = (__u64)llround(v * units[i].mult);
			return 0;
		}
	}
bad:
	fprintf(stderr, "latbpf: bad duration '%s' (examples: 500us, 10ms, 1.5s, 2m)\n",
		lat_term_arg(q, sizeof(q), s));
	return -EINVAL;
}

int lat_u32_append(__u32 **v, __u32 *n, __u32 x)
{
	if ((*n & (*n - 1)) == 0) {	/* 0, 1, 2, 4 ...: double */
		__u32 *m = realloc(*v, (*n ? 2 * *n : 1) * sizeof(**v));

		if (!m)
			return -ENOMEM;
		*v = m;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* "1,2,3" of positive ids; appends to *ids (grown with realloc, n of
 * them), at most LAT_MAX_IDS in all. */
int lat_parse_id_list(const char *s, __u32 **ids, __u32 *n, const char *what)
{
	const char *p = s;
	char *end, q[LAT_ARG_MAX];
	long v;

	if (!s || !*s)
		goto bad;
	for (;;) {
		errno = 0;
		if (*p < '0' || *p > '9')
			goto bad;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > 0x3fffffff || (*end && *end != ','))
			goto bad;
		if (*n >= LAT_MAX_IDS) {
			fprintf(stderr, "latbpf: at most %d %ss\n", LAT_MAX_IDS, what);
			return -EINVAL;
		}
		if (lat_u32_append(ids, n, (__u32)v))
			return -ENOMEM;
		if (!*end)
			return 0;
		p = end + 1;
	}
bad:
	fprintf(stderr, "latbpf: bad %s list '%s' (positive numbers, comma-separated)\n",
		what, lat_term_arg(q, sizeof(q), s));
	return -EINVAL;
}

void lat_opts_free(struct lat_opts *o)
{
	free(o->pids);
	free(o->tids);
	o->pids = o->tids = NULL;
	o->n_pids = o->n_tids = 0;
}

int lat_parse_probes(const char *s, unsigned *mask)
{
	char buf[256], *tok, *save = NULL, q[LAT_ARG_MAX];
	unsigned i;

	if (!s || !*s || strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "all") == 0) {
			*mask = (1U << lat_nr_modules()) - 1;
			continue;
		}
		for (i = 0; lat_modules[i]; i++)
			if (strcmp(tok, lat_modules[i]->name) == 0)
				break;
		if (!lat_modules[i]) {
			fprintf(stderr, "latbpf: unknown probe family '%s' (known: %s)\n",
				lat_term_arg(q, sizeof(q), tok), lat_family_list());
			return -EINVAL;
		}
		*mask |= 1U << i;
	}
	if (*mask)
		return 0;
bad:
	fprintf(stderr, "latbpf: bad --probes '%s' (known: %s)\n", lat_term_arg(q, sizeof(q), s),
		lat_family_list());
	return -EINVAL;
}

/*
 * What getopt_long just refused (c: its ':' or '?'), named as the user wrote
 * it, in one line. Where it was: an unknown or ambiguous long option leaves
 * optopt 0; a long option given a value it does not take leaves optopt at
 * its val, which is a known short option or >= 256; both advance optind past
 * their element. A short option leaves optopt at its character, and optind
 * still on its element when more follow in it ("-xv"), so argv[optind - 1]
 * is not where it was: it is named from optopt alone. A missing value is at
 * the end of argv, whichever kind.
 */
void lat_opt_refused(const char *prog, const char *help, int c, char **argv,
		     const char *shorts, const struct option *lo)
{
	const char *elem = argv[optind - 1], *eq;
	char name[LAT_ARG_MAX], q[LAT_ARG_MAX];
	bool is_long = c == ':' ? !strncmp(elem, "--", 2) :
		       optopt == 0 || optopt >= 256 || (optopt != ':' && optopt != '+' &&
							  strchr(shorts, optopt));
	int i, n = 0;
	size_t len;

	if (!is_long) {
		snprintf(name, sizeof(name), "-%c", optopt);
		lat_term_arg(q, sizeof(q), name);
		if (c == ':')
			fprintf(stderr, "%s: option '%s' needs a value\n", prog, q);
		else
			fprintf(stderr, "%s: unknown option '%s' (see %s)\n", prog, q, help);
		return;
	}
	eq = strchr(elem, '=');
	len = eq && eq > elem + 2 ? (size_t)(eq - elem) : strlen(elem);
	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
		 elem);
	lat_term_arg(q, sizeof(q), name);
	if (c == ':') {
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, q);
		return;
	}
	if (optopt) {
		fprintf(stderr, "%s: option '%s' takes no value\n", prog, q);
		return;
	}
	for (i = 0; lo[i].name && len > 2; i++)
		n += !strncmp(lo[i].name, elem + 2, len - 2);
	fprintf(stderr, "%s: %s option '%s' (see %s)\n", prog, n > 1 ? "ambiguous" : "unknown",
		q, help);
}

enum { OPT_PROBES = 256, OPT_JSON, OPT_HLOG, OPT_PROM, OPT_NO_TUI, OPT_BASELINE, OPT_BPF_STATS,
       OPT_CGROUP, OPT_CHILDREN, OPT_CPUS,
       OPT_FAMILY = 1024 /* + index into the family options */ };

#define MAX_FAMILY_OPTS 32
#define SHORTS "p:t:i:d:vVh"

/* --cpus LIST: CPUs that exist here (the possible ones), at least one */
static int parse_watch(const char *arg, cpu_set_t *set)
{
	char buf[256] = "", q[LAT_ARG_MAX], have[256];
	cpu_set_t possible, extra;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (lat_parse_cpulist(buf, &possible) || !CPU_COUNT(&possible)) {
		CPU_ZERO(&possible);
		for (long c = 0; c < sysconf(_SC_NPROCESSORS_CONF) && c < CPU_SETSIZE; c++)
			CPU_SET(c, &possible);
	}
	lat_term_arg(q, sizeof(q), arg);
	if (lat_parse_cpulist(arg, set) || !CPU_COUNT(set)) {
		fprintf(stderr, "latbpf: bad --cpus '%s' (a CPU list: 1, 2-7, 0,4-5)\n", q);
		return -EINVAL;
	}
	CPU_XOR(&extra, set, &possible);
	CPU_AND(&extra, &extra, set);
	if (CPU_COUNT(&extra)) {
		fprintf(stderr, "latbpf: --cpus '%s': no such CPU here (CPUs %s)\n", q,
			lat_fmt_cpulist(have, sizeof(have), &possible));
		return -EINVAL;
	}
	return 0;
}

/* The trace command's options: the common ones, then every family's own. */
int lat_opts_parse(int argc, char **argv, struct lat_opts *o)
{
	static const struct option common[] = {
		{ "pid", required_argument, 0, 'p' },
		{ "tid", required_argument, 0, 't' },
		{ "cgroup", required_argument, 0, OPT_CGROUP },
		{ "children", no_argument, 0, OPT_CHILDREN },
		{ "cpus", required_argument, 0, OPT_CPUS },
		{ "probes", required_argument, 0, OPT_PROBES },
		{ "interval", required_argument, 0, 'i' },
		{ "duration", required_argument, 0, 'd' },
		{ "json", required_argument, 0, OPT_JSON },
		{ "hlog", required_argument, 0, OPT_HLOG },
		{ "prometheus", required_argument, 0, OPT_PROM },
		{ "no-tui", no_argument, 0, OPT_NO_TUI },
		{ "baseline", no_argument, 0, OPT_BASELINE },
		{ "bpf-stats", no_argument, 0, OPT_BPF_STATS },
		{ "verbose", no_argument, 0, 'v' },
		{ "version", no_argument, 0, 'V' },
		{ "help", no_argument, 0, 'h' },
	};
	struct option longopts[sizeof(common) / sizeof(common[0]) + MAX_FAMILY_OPTS + 1];
	struct { int family; const struct lat_family_opt *opt; } fam[MAX_FAMILY_OPTS];
	const struct lat_family_opt *fo;
	int c, err, i, n = (int)(sizeof(common) / sizeof(common[0])), nfam = 0;

	memset(o, 0, sizeof(*o));
	memcpy(longopts, common, sizeof(common));
	for (i = 0; lat_modules[i] && i < LAT_MAX_FAMILIES; i++) {
		if (lat_modules[i]->defaults)
			lat_modules[i]->defaults(o->cfg[i]);
		for (fo = lat_modules[i]->options; fo && fo->name && nfam < MAX_FAMILY_OPTS; fo++) {
			fam[nfam].family = i;
			fam[nfam].opt = fo;
			longopts[n++] = (struct option){ fo->name, fo->arg ? required_argument :
							 no_argument, 0, OPT_FAMILY + nfam };
			nfam++;
		}
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
	o->probes = (1U << lat_nr_modules()) - 1;
	o->interval_ns = 1000000000ULL;
	optind = 0;	/* 0, not 1: glibc forgets an earlier parse's "-xv" */
	opterr = 0;
	/* "+": stop at the first non-option, so COMMAND's own options stay its */
	while ((c = getopt_long(argc, argv, "+:" SHORTS, longopts, NULL)) != -1) {
		err = 0;
		switch (c) {
		case 'p':
			err = lat_parse_id_list(optarg, &o->pids, &o->n_pids, "pid");
			break;
		case 't':
			err = lat_parse_id_list(optarg, &o->tids, &o->n_tids, "tid");
			break;
		case OPT_CGROUP:
			if (o->n_cgroup_args >= LAT_MAX_TARGETS) {
				fprintf(stderr, "latbpf: --cgroup: at most %d times "
					"(each takes a comma-separated list)\n", LAT_MAX_TARGETS);
				err = -EINVAL;
			} else if (!*optarg) {
				fprintf(stderr, "latbpf: --cgroup: empty path\n");
				err = -EINVAL;
			} else {
				o->cgroups[o->n_cgroup_args++] = optarg;
			}
			break;
		case OPT_CHILDREN:
			o->children = true;
			break;
		case OPT_CPUS:
			err = parse_watch(optarg, &o->watch);
			break;
		case OPT_PROBES:
			o->probes_given = true;
			err = lat_parse_probes(optarg, &o->probes);
			break;
		case 'i':
			err = lat_parse_duration(optarg, &o->interval_ns);
			if (!err && o->interval_ns < 10000000ULL) {
				fprintf(stderr, "latbpf: --interval must be at least 10ms\n");
				err = -EINVAL;
			}
			break;
		case 'd':
			err = lat_parse_duration(optarg, &o->duration_ns);
			if (!err && o->duration_ns == 0) {
				fprintf(stderr, "latbpf: --duration must be above 0\n");
				err = -EINVAL;
			}
			break;
		case OPT_JSON:
			o->json_path = optarg;
			break;
		case OPT_HLOG:
			o->hlog_path = optarg;
			break;
		case OPT_PROM:
			o->prom_addr = optarg;
			break;
		case OPT_NO_TUI:
			o->no_tui = true;
			break;
		case OPT_BASELINE:
			o->baseline = true;
			break;
		case OPT_BPF_STATS:
			o->bpf_stats = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'V':
			o->version = true;
			break;
		case 'h':
			o->help = true;
			break;
		default:
			if (c >= OPT_FAMILY && c < OPT_FAMILY + nfam) {
				i = c - OPT_FAMILY;
				err = fam[i].opt->set(o->cfg[fam[i].family], optarg);
				break;
			}
			lat_opt_refused("latbpf", "--help", c, argv, SHORTS, longopts);
			return -EINVAL;
		}
		if (err)
			return err;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0) {
			char q[LAT_ARG_MAX];

			fprintf(stderr, "latbpf: unexpected argument '%s' (a command goes after --)\n",
				lat_term_arg(q, sizeof(q), argv[optind]));
			return -EINVAL;
		}
		o->command = argv + optind;
	}
	if (o->command && (o->n_pids || o->n_tids)) {
		fprintf(stderr, "latbpf: a COMMAND and --pid/--tid exclude each other\n");
		return -EINVAL;
	}
	/* --cpus alone: no task is a target, so only hiccup has something */
	if (CPU_COUNT(&o->watch) && !o->n_pids && !o->n_tids && !o->n_cgroup_args &&
	    !o->command && !o->probes_given)
		lat_parse_probes("hiccup", &o->probes);
	if (o->children && !o->n_pids) {
		fprintf(stderr, "latbpf: --children follows what --pid's processes start "
			"(a COMMAND's are followed already); give --pid\n");
		return -EINVAL;
	}
	return 0;
}

/* A CPU list as the kernel writes it ("0-3,8", "" for none) into set:
 * 0, or -EINVAL for anything else or a CPU beyond CPU_SETSIZE. */
int lat_parse_cpulist(const char *s, cpu_set_t *set)
{
	char *end;
	long a, b;

	CPU_ZERO(set);
	while (*s && *s != '\n') {
		errno = 0;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		a = b = strtol(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			b = strtol(s, &end, 10);
		}
		if (errno || b < a || b >= CPU_SETSIZE)
			return -EINVAL;
		for (; a <= b; a++)
			CPU_SET(a, set);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return 0;
}

/* set as a CPU list ("0-3,8"; "" for none), cut to len */
char *lat_fmt_cpulist(char *buf, size_t len, const cpu_set_t *set)
{
	size_t n = 0;
	int a, b;

	buf[0] = '\0';
	for (a = 0; a < CPU_SETSIZE; a = b + 1) {
		if (!CPU_ISSET(a, set)) {
			b = a;
			continue;
		}
		for (b = a; b + 1 < CPU_SETSIZE && CPU_ISSET(b + 1, set); b++)
			;
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
				      a == b ? "%s%d" : "%s%d-%d", n ? "," : "", a, b);
	}
	return buf;
}

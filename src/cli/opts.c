// SPDX-License-Identifier: GPL-2.0
/* The trace command's options (opts.h), with every family's and every
 * output's own from their tables. Returns -EINVAL with a message on stderr
 * for every bad value: a usage error. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/opts.h"
#include "cli/record_opts.h"
#include "core/cpulist.h"
#include "core/escape.h"
#include "core/parse.h"
#include "core/target.h"
#include "families/family.h"
#include "output/sink.h"

/* "      --name ARG            help", continued lines indented alike */
static void usage_opt(FILE *f, const char *name, const char *arg, const char *help)
{
	const char *h, *nl;
	char opt[64];

	snprintf(opt, sizeof(opt), "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
	fprintf(f, "      %-22s%s", opt, strlen(opt) > 21 ? "  " : "");
	for (h = help; (nl = strchr(h, '\n')); h = nl + 1)
		fprintf(f, "%.*s\n%28s", (int)(nl - h), h, "");
	fprintf(f, "%s\n", h);
}

/* The first family option named like fo (the i-th family's): an option
 * several families declare (--per-thread) is one option that sets each. */
static const struct lat_family_opt *family_opt_first(int i, const struct lat_family_opt *fo)
{
	const struct lat_family_opt *o;

	for (int j = 0; j <= i && lat_modules[j]; j++)
		for (o = lat_modules[j]->options; o && o->name; o++)
			if (!strcmp(o->name, fo->name))
				return o;
	return fo;
}

/* --help, with each family's and each output's options from their tables */
void lat_usage(FILE *f)
{
	const struct lat_family_opt *fo;

	fputs(
"Usage: latbpf [OPTIONS] [-- COMMAND [ARG...]]\n"
"       latbpf bench [NAME...] [--duration DUR] [--runs N] [--cpu LIST]\n"
"                    [--json FILE|-] [--hlog FILE] [--list] (latbpf bench --help)\n"
"       latbpf bench compare [--force] A.json B.json\n"
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
"      --probes LIST         families, comma-separated, of\n", f);
	fprintf(f, "                            %s\n", lat_family_list());
	fputs(
"                            (default: all but time and record, which\n"
"                            --record turns on; all,time adds time)\n"
"  -i, --interval DUR        report interval (default 1s)\n"
"  -d, --duration DUR        stop after DUR (default: until Ctrl-C, q, or\n"
"                            the target exits)\n", f);
	for (int i = 0; lat_modules[i]; i++)
		for (fo = lat_modules[i]->options; fo && fo->name; fo++)
			if (family_opt_first(i, fo) == fo)	/* a shared one once */
				usage_opt(f, fo->name, fo->arg, fo->help);
	fputs(
"Flight recorder (off by default; --trace saves it):\n"
"      --record [DUR]        keep the last DUR (default 10s) of the scheduling\n"
"                            events of the CPUs the target runs on or is\n"
"                            pinned to, and --cpus; at most 4 MiB of them per\n"
"                            CPU in memory (beyond: the oldest go, counted\n"
"                            as drops)\n"
"      --trigger EXPR        save a window around each incident: hiccup>DUR,\n"
"                            runq>DUR, runq.p99>DUR (an interval's\n"
"                            percentile), SIGUSR2; then ,before=DUR (2s),\n"
"                            after=DUR (500ms), every=DUR (1s), max=N (10);\n"
"                            repeatable; implies --record\n"
"Output (any together):\n", f);
	for (int i = 0; lat_outputs[i].option; i++)
		usage_opt(f, lat_outputs[i].option, lat_outputs[i].arg, lat_outputs[i].help);
	fputs(
"      --web-config FILE     with --prometheus: TLS and basic auth from an\n"
"                            exporter-toolkit web config file (YAML:\n"
"                            tls_server_config, basic_auth_users); SIGHUP\n"
"                            rereads it\n"
"      --no-tui              plain interval blocks even on a terminal\n"
"      --baseline            measure the host first (< 1 s of latbpf bench:\n"
"                            context switch, syscall, fault, TCP) and put it\n"
"                            in the summary and the final JSON record\n"
"      --bpf-stats           the kernel's BPF run-time statistics on while\n"
"                            latbpf runs: each of its programs' events and\n"
"                            ns/event in \"self\" (costs every BPF program\n"
"                            on the host two clock reads per run)\n"
"      --priority idle|normal  latbpf's threads at SCHED_IDLE once attached,\n"
"                            in an idle cgroup of their own (default: a task\n"
"                            that wakes on their CPU preempts them at once; a\n"
"                            poll a whole interval overdue runs at SCHED_FIFO\n"
"                            1) or as started (normal: for a host so loaded\n"
"                            that latbpf at idle would not run)\n"
"  -v, --verbose             libbpf's messages too\n"
"  -V, --version             version and exit\n"
"  -h, --help                this text\n"
"\n"
"DUR takes a unit: ns, us, ms, s, m, h (500us, 10ms, 1.5s, 2m).\n"
"Exit status: 0 success, 1 runtime failure, 2 usage error,\n"
"3 environment (not root / no CAP_BPF, no kernel BTF, nothing attachable).\n",
	      f);
}

void lat_opts_free(struct lat_opts *o)
{
	free(o->target.pids);
	free(o->target.tids);
	o->target.pids = o->target.tids = NULL;
	o->target.n_pids = o->target.n_tids = 0;
}


enum { OPT_PROBES = 256, OPT_NO_TUI, OPT_BASELINE, OPT_BPF_STATS, OPT_PRIORITY,
       OPT_CGROUP, OPT_CHILDREN, OPT_CPUS, OPT_WEB_CONFIG, OPT_RECORD, OPT_TRIGGER,
       OPT_OUTPUT = 512 /* + index into lat_outputs */,
       OPT_FAMILY = 1024 /* + index into the family options */ };

#define MAX_FAMILY_OPTS 32
#define SHORTS "p:t:i:d:vVh"

/* --cpus LIST: CPUs that exist here (the possible ones), at least one */
static int parse_watch(const char *arg, cpu_set_t *set)
{
	char q[LAT_ARG_MAX], have[256];
	cpu_set_t possible, extra;

	lat_read_cpulist("/sys/devices/system/cpu/possible", &possible);
	if (!CPU_COUNT(&possible)) {
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

static const struct option common[] = {
	{ "pid", required_argument, 0, 'p' },
	{ "tid", required_argument, 0, 't' },
	{ "cgroup", required_argument, 0, OPT_CGROUP },
	{ "children", no_argument, 0, OPT_CHILDREN },
	{ "cpus", required_argument, 0, OPT_CPUS },
	{ "probes", required_argument, 0, OPT_PROBES },
	{ "interval", required_argument, 0, 'i' },
	{ "duration", required_argument, 0, 'd' },
	{ "no-tui", no_argument, 0, OPT_NO_TUI },
	{ "baseline", no_argument, 0, OPT_BASELINE },
	{ "bpf-stats", no_argument, 0, OPT_BPF_STATS },
	{ "priority", required_argument, 0, OPT_PRIORITY },
	{ "web-config", required_argument, 0, OPT_WEB_CONFIG },
	{ "record", optional_argument, 0, OPT_RECORD },
	{ "trigger", required_argument, 0, OPT_TRIGGER },
	{ "verbose", no_argument, 0, 'v' },
	{ "version", no_argument, 0, 'V' },
	{ "help", no_argument, 0, 'h' },
};
#define NCOMMON (sizeof(common) / sizeof(common[0]))

/* The long options: the common ones, every output's, every family's own;
 * each family's configuration at its defaults */
struct optset {
	struct option lo[NCOMMON + LAT_MAX_OUTPUTS + MAX_FAMILY_OPTS + 1];
	struct { int family; const struct lat_family_opt *opt; } fam[MAX_FAMILY_OPTS];
	int nfam;
};

static void optset_make(struct optset *s, struct lat_opts *o)
{
	const struct lat_family_opt *fo;
	int i, n = NCOMMON;

	memcpy(s->lo, common, sizeof(common));
	for (i = 0; lat_outputs[i].option && i < LAT_MAX_OUTPUTS; i++)
		s->lo[n++] = (struct option){ lat_outputs[i].option, required_argument, 0,
					      OPT_OUTPUT + i };
	for (i = 0; lat_modules[i] && i < LAT_MAX_FAMILIES; i++) {
		if (lat_modules[i]->defaults)
			lat_modules[i]->defaults(o->cfg[i]);
		for (fo = lat_modules[i]->options; fo && fo->name && s->nfam < MAX_FAMILY_OPTS;
		     fo++) {
			s->fam[s->nfam].family = i;
			s->fam[s->nfam].opt = fo;
			if (family_opt_first(i, fo) == fo)
				s->lo[n++] = (struct option){ fo->name, fo->arg ? required_argument :
							      no_argument, 0, OPT_FAMILY + s->nfam };
			s->nfam++;
		}
	}
	memset(&s->lo[n], 0, sizeof(s->lo[n]));
}

static int set_cgroup(struct lat_target_spec *t, const char *arg)
{
	if (t->n_cgroup_args >= LAT_MAX_TARGETS) {
		fprintf(stderr, "latbpf: --cgroup: at most %d times "
			"(each takes a comma-separated list)\n", LAT_MAX_TARGETS);
		return -EINVAL;
	}
	if (!*arg) {
		fprintf(stderr, "latbpf: --cgroup: empty path\n");
		return -EINVAL;
	}
	t->cgroups[t->n_cgroup_args++] = arg;
	return 0;
}

static int set_dur(const char *arg, __u64 *ns, __u64 min, const char *says)
{
	int err = lat_parse_duration(arg, ns);

	if (!err && *ns < min) {
		fprintf(stderr, "latbpf: %s\n", says);
		err = -EINVAL;
	}
	return err;
}

/* --priority idle|normal */
static int set_priority(struct lat_opts *o, const char *arg)
{
	char q[LAT_ARG_MAX];

	if (strcmp(arg, "idle") && strcmp(arg, "normal")) {
		fprintf(stderr, "latbpf: bad --priority '%s' (idle or normal)\n",
			lat_term_arg(q, sizeof(q), arg));
		return -EINVAL;
	}
	o->priority_normal = !strcmp(arg, "normal");
	return 0;
}

/* one option getopt_long returned: 0, -EINVAL said, or 1 for one it does
 * not know (refused by the caller) */
static int take(const struct optset *s, struct lat_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'p':
		return lat_parse_id_list(arg, &o->target.pids, &o->target.n_pids, "pid");
	case 't':
		return lat_parse_id_list(arg, &o->target.tids, &o->target.n_tids, "tid");
	case OPT_CGROUP:
		return set_cgroup(&o->target, arg);
	case OPT_CHILDREN:
		o->target.children = true;
		return 0;
	case OPT_CPUS:
		return parse_watch(arg, &o->target.watch);
	case OPT_PROBES:
		o->probes_given = true;
		return lat_parse_probes(arg, &o->probes);
	case 'i':
		return set_dur(arg, &o->interval_ns, 10000000ULL,
			       "--interval must be at least 10ms");
	case 'd':
		return set_dur(arg, &o->duration_ns, 1, "--duration must be above 0");
	case OPT_NO_TUI: o->no_tui = true; return 0;
	case OPT_BASELINE: o->baseline = true; return 0;
	case OPT_BPF_STATS: o->bpf_stats = true; return 0;
	case OPT_PRIORITY:
		return set_priority(o, arg);
	case OPT_WEB_CONFIG:
		o->web_config = arg;
		return 0;
	case OPT_RECORD:
		return lat_record_opt(&o->rec, arg);
	case OPT_TRIGGER:
		return lat_trigger_opt(&o->rec, arg);
	case 'v': o->verbose = true; return 0;
	case 'V': o->version = true; return 0;
	case 'h': o->help = true; return 0;
	}
	if (c >= OPT_OUTPUT && c < OPT_OUTPUT + LAT_MAX_OUTPUTS) {
		o->outputs[c - OPT_OUTPUT] = arg;
		return 0;
	}
	if (c >= OPT_FAMILY && c < OPT_FAMILY + s->nfam) {
		/* every family that declares it */
		const char *name = s->fam[c - OPT_FAMILY].opt->name;
		int err = 0;

		for (int i = c - OPT_FAMILY; i < s->nfam && !err; i++)
			if (!strcmp(s->fam[i].opt->name, name))
				err = s->fam[i].opt->set(o->cfg[s->fam[i].family], arg);
		return err;
	}
	return 1;
}

/* --prometheus given: what --web-config configures */
static bool web_served(const struct lat_opts *o)
{
	for (int i = 0; lat_outputs[i].option && i < LAT_MAX_OUTPUTS; i++)
		if (!strcmp(lat_outputs[i].option, "prometheus"))
			return o->outputs[i];
	return false;
}

/* the output an option turns on, by its name: its argument, or NULL */
static const char *output_arg(const struct lat_opts *o, const char *option)
{
	for (int i = 0; lat_outputs[i].option && i < LAT_MAX_OUTPUTS; i++)
		if (!strcmp(lat_outputs[i].option, option))
			return o->outputs[i];
	return NULL;
}

/* the flight recorder: --trace and --trigger imply --record, which
 * implies its family, and --probes record implies --record */
static int record_agree(struct lat_opts *o)
{
	unsigned m = lat_family_bit("record");

	o->rec.trace_path = output_arg(o, "trace");
	if (o->rec.trace_path && !*o->rec.trace_path) {
		fprintf(stderr, "latbpf: --trace: empty file name\n");
		return -EINVAL;
	}
	if (o->probes & m)
		o->rec.on = true;
	if (lat_record_opts_check(&o->rec))
		return -EINVAL;
	if (o->rec.on)
		o->probes |= m;
	return 0;
}

/* what the options say together */
static int agree(struct lat_opts *o)
{
	const struct lat_target_spec *t = &o->target;

	if (record_agree(o))
		return -EINVAL;

	if (t->command && (t->n_pids || t->n_tids)) {
		fprintf(stderr, "latbpf: a COMMAND and --pid/--tid exclude each other\n");
		return -EINVAL;
	}
	/* --cpus alone: no task is a target, so only hiccup has something */
	if (CPU_COUNT(&t->watch) && !t->n_pids && !t->n_tids && !t->n_cgroup_args &&
	    !t->command && !o->probes_given)
		lat_parse_probes("hiccup", &o->probes);
	if (o->web_config && !web_served(o)) {
		fprintf(stderr, "latbpf: --web-config is for --prometheus's endpoint; "
			"give --prometheus\n");
		return -EINVAL;
	}
	if (t->children && !t->n_pids) {
		fprintf(stderr, "latbpf: --children follows what --pid's processes start "
			"(a COMMAND's are followed already); give --pid\n");
		return -EINVAL;
	}
	return 0;
}

/* The trace command's options: the common ones, then every family's own. */
int lat_opts_parse(int argc, char **argv, struct lat_opts *o)
{
	struct optset s = { .nfam = 0 };
	char q[LAT_ARG_MAX];
	int c, err;

	memset(o, 0, sizeof(*o));
	optset_make(&s, o);
	o->probes = lat_default_probes();
	o->interval_ns = 1000000000ULL;
	optind = 0;	/* 0, not 1: glibc forgets an earlier parse's "-xv" */
	opterr = 0;
	/* "+": stop at the first non-option, so COMMAND's own options stay its */
	while ((c = getopt_long(argc, argv, "+:" SHORTS, s.lo, NULL)) != -1) {
		const char *arg = optarg;

		/* --record DUR: its DUR the next word, when that is a number */
		if (c == OPT_RECORD && !arg)
			arg = lat_record_word(argc, argv, &optind);
		err = c == ':' || c == '?' ? 1 : take(&s, o, c, arg);
		if (err == 1) {
			lat_opt_refused("latbpf", "--help", c, argv, SHORTS, s.lo);
			return -EINVAL;
		}
		if (err)
			return err;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0) {
			fprintf(stderr, "latbpf: unexpected argument '%s' (a command goes after --)\n",
				lat_term_arg(q, sizeof(q), argv[optind]));
			return -EINVAL;
		}
		o->target.command = argv + optind;
	}
	return agree(o);
}

// SPDX-License-Identifier: GPL-2.0
/* Where a report comes from: latbpf, host, run, target, probes. Every JSON
 * record carries it; the text outputs print it once. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "core/provenance.h"
#include "core/away.h"
#include "core/cpulist.h"
#include "core/escape.h"
#include "core/fmt.h"
#include "core/proc.h"
#include "core/snap.h"
#include "core/target.h"
#include "version.h"	/* generated: LATBPF_VERSION, LATBPF_COMMIT */

#define MAX_PROBES 8

struct lat_provenance {
	char kernel[128], cpu_model[128], clocksource[64], start[40];
	char isolated[256], nohz_full[256];	/* CPU lists, "" for none */
	const struct lat_away *away;	/* where latbpf runs, when tracing */
	char tsc_flags[256];	/* space-separated cpuinfo flags */
	int cpus;
	int argc;
	char **argv;
	__u64 interval_ns;
	cpu_set_t watch;	/* --cpus */
	const struct lat_tgt *tgt;	/* what is traced; NULL: whole system */
	char pid_cgroup[512];	/* the first pid's cgroup v2 path, raw */
	const char *probe_name[MAX_PROBES];
	char *probe_status[MAX_PROBES];
	int nprobes;
};

/* model name and the TSC-related flags from /proc/cpuinfo */
static void read_cpuinfo(struct lat_provenance *p)
{
	static const char *const tsc[] = { "tsc", "rdtscp", "constant_tsc",
					   "nonstop_tsc", "tsc_known_freq",
					   "tsc_reliable" };
	char flags[4096];

	if (!lat_proc_field("/proc/cpuinfo", "model name", p->cpu_model, sizeof(p->cpu_model)))
		strcpy(p->cpu_model, "unknown");
	lat_proc_field("/proc/cpuinfo", "flags", flags, sizeof(flags));
	for (size_t i = 0; i < sizeof(tsc) / sizeof(tsc[0]); i++)
		if (lat_has_word(flags, tsc[i])) {
			strcat(p->tsc_flags, p->tsc_flags[0] ? " " : "");
			strcat(p->tsc_flags, tsc[i]);
		}
}

const char *lat_provenance_tsc_flags(const struct lat_provenance *p)
{
	return p->tsc_flags;
}

struct lat_provenance *lat_provenance_new(int argc, char **argv, __u64 interval_ns,
					  const cpu_set_t *watch)
{
	struct lat_provenance *p = calloc(1, sizeof(*p));
	struct utsname u;
	struct timespec ts;
	struct tm tm;

	if (!p)
		return NULL;
	p->argc = argc;
	p->argv = argv;
	p->interval_ns = interval_ns;
	if (watch)
		p->watch = *watch;
	if (uname(&u) == 0)
		snprintf(p->kernel, sizeof(p->kernel), "%s", u.release);
	read_cpuinfo(p);
	lat_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  p->clocksource, sizeof(p->clocksource));
	lat_read_line("/sys/devices/system/cpu/isolated", p->isolated, sizeof(p->isolated));
	lat_read_line("/sys/devices/system/cpu/nohz_full", p->nohz_full, sizeof(p->nohz_full));
	/* "(null)" on a kernel without nohz_full */
	if (p->nohz_full[0] < '0' || p->nohz_full[0] > '9')
		p->nohz_full[0] = '\0';
	p->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(p->start, sizeof(p->start), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(p->start + strlen(p->start), sizeof(p->start) - strlen(p->start),
		 ".%03ldZ", ts.tv_nsec / 1000000);
	return p;
}

void lat_provenance_set_target(struct lat_provenance *p, const struct lat_tgt *g)
{
	char path[64], line[600];
	FILE *f;

	p->tgt = g;
	p->pid_cgroup[0] = '\0';
	/* where a (containerised) target lives: its cgroup v2 path */
	if (!g->npids && !g->ntids)
		return;
	snprintf(path, sizeof(path), "/proc/%u/cgroup", g->npids ? g->pids[0] : g->tids[0]);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(p->pid_cgroup, sizeof(p->pid_cgroup), "%.511s", line + 3);
			break;
		}
	fclose(f);
}

void lat_provenance_set_away(struct lat_provenance *p, const struct lat_away *a)
{
	p->away = a;
}

void lat_provenance_set_probe(struct lat_provenance *p, const char *name,
			      const char *status)
{
	int i;

	for (i = 0; i < p->nprobes; i++)
		if (!strcmp(p->probe_name[i], name))
			break;
	if (i == MAX_PROBES)
		return;
	if (i == p->nprobes)
		p->probe_name[p->nprobes++] = name;
	free(p->probe_status[i]);
	p->probe_status[i] = strdup(status);
}

static bool has_flag(const struct lat_provenance *p, const char *flag)
{
	return lat_has_word(p->tsc_flags, flag);
}

void lat_provenance_publish_host(const struct lat_provenance *p, struct lat_snap *s)
{
	char flags[256], *tok, *save;

	lat_pub_flags(lat_pub_obj(s, "latbpf", NULL), LAT_F_PROV);
	lat_pub_str(s, "version", LATBPF_VERSION);
	lat_pub_str(s, "commit", LATBPF_COMMIT);
	lat_pub_end(s);
	lat_pub_flags(lat_pub_obj(s, "host", NULL), LAT_F_PROV);
	lat_pub_str(s, "kernel", p->kernel);
	lat_pub_str(s, "cpu_model", p->cpu_model);
	lat_pub_num(s, "cpus", p->cpus);
	lat_pub_str(s, "clocksource", p->clocksource);
	lat_pub_str(s, "isolated_cpus", p->isolated);
	lat_pub_str(s, "nohz_full_cpus", p->nohz_full);
	lat_pub_obj(s, "tsc", NULL);
	lat_pub_bool(s, "invariant", has_flag(p, "constant_tsc") && has_flag(p, "nonstop_tsc"));
	lat_pub_list(s, "flags", NULL);
	snprintf(flags, sizeof(flags), "%s", p->tsc_flags);
	for (tok = strtok_r(flags, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		lat_pub_str(s, NULL, tok);
	lat_pub_end(s);
	lat_pub_end(s);
	lat_pub_end(s);
}

void lat_provenance_publish(const struct lat_provenance *p, struct lat_snap *s,
			    __u64 elapsed_ns)
{
	int i;

	lat_provenance_publish_host(p, s);
	lat_pub_flags(lat_pub_obj(s, "run", NULL), LAT_F_PROV);
	lat_pub_list(s, "argv", NULL);
	for (i = 0; i < p->argc; i++)
		lat_pub_str(s, NULL, p->argv[i]);
	lat_pub_end(s);
	lat_pub_str(s, "start", p->start);
	lat_pub_real(s, "duration_s", elapsed_ns / 1e9, 3);
	lat_pub_real(s, "interval_s", p->interval_ns / 1e9, 3);
	lat_pub_obj(s, "target", NULL);
	{
		static const struct lat_tgt none;
		const struct lat_tgt *g = p->tgt ? p->tgt : &none;

		lat_pub_ids(s, "pids", g->pids, (int)g->npids);
		lat_pub_ids(s, "tids", g->tids, (int)g->ntids);
		/* latbpf in a container: the kernel's ids of the same tasks */
		if (g->ns_inum && g->host_pids) {
			lat_pub_ids(s, "host_pids", g->host_pids, (int)g->npids);
			lat_pub_ids(s, "host_tids", g->host_tids, (int)g->ntids);
		}
		lat_pub_list(s, "cgroups", NULL);
		for (i = 0; i < g->ncg; i++)
			lat_pub_str(s, NULL, g->cg_path[i]);
		lat_pub_end(s);
		lat_pub_bool(s, "children", g->follow);
		if (CPU_COUNT(&p->watch)) {
			char l[256];

			lat_pub_str(s, "cpus", lat_fmt_cpulist(l, sizeof(l), &p->watch));
		}
		lat_pub_str(s, "comm", g->comm);
		if (p->pid_cgroup[0])
			lat_pub_str(s, "pid_cgroup", p->pid_cgroup);
	}
	lat_pub_end(s);
	if (p->away) {
		char l[256];

		/* latbpf's own threads: where they run, what they keep off */
		lat_pub_obj(s, "latbpf_cpus", NULL);
		lat_pub_str(s, "runs_on", lat_fmt_cpulist(l, sizeof(l), &p->away->runs_on));
		lat_pub_str(s, "target_pinned", lat_fmt_cpulist(l, sizeof(l), &p->away->avoid));
		lat_pub_bool(s, "shares_target_cpu", p->away->stuck);
		if (p->away->priority)
			lat_pub_str(s, "priority", p->away->priority);
		if (p->away->cg.on && p->away->idle_now) {
			lat_pub_str(s, "idle_cgroup", p->away->cg.dir);
		} else {
			lat_pub_null(s, "idle_cgroup");
			lat_pub_str(s, "idle_cgroup_off",
				    !p->away->want_idle ? "not yielded" :
				    !p->away->cg.on ? p->away->cg.why :
				    "shares a target's CPU");
		}
		lat_pub_end(s);
	}
	lat_pub_end(s);
	lat_pub_flags(lat_pub_obj(s, "probes", NULL), LAT_F_PROV);
	for (i = 0; i < p->nprobes; i++)
		lat_pub_str(s, p->probe_name[i], p->probe_status[i]);
	lat_pub_end(s);
}

void lat_provenance_host_text(const struct lat_provenance *p, FILE *f)
{
	char model[128];

	lat_term_str(model, sizeof(model), p->cpu_model);
	fprintf(f, "latbpf %s (%s)  kernel %s  %d CPUs  %s  clocksource %s\n",
		LATBPF_VERSION, LATBPF_COMMIT, p->kernel, p->cpus, model, p->clocksource);
}

void lat_provenance_text(const struct lat_provenance *p, FILE *f, __u64 elapsed_ns)
{
	char comm[64], s[48];
	int i;
	__u32 k;

	static const struct lat_tgt none;
	const struct lat_tgt *g = p->tgt ? p->tgt : &none;

	lat_term_str(comm, sizeof(comm), g->comm);
	lat_provenance_host_text(p, f);
	fputs("target: ", f);
	if (g->t.mode & LAT_TARG_NONE)
		fputs("none", f);
	else if (!g->npids && !g->ntids && !g->ncg)
		fputs("whole system", f);
	/* thousands of ids: the first 8 and a count (the JSON has them all) */
	for (k = 0; k < g->npids + g->ntids; k++) {
		if (k == 8) {
			fprintf(f, " and %u more", g->npids + g->ntids - 8);
			break;
		}
		fprintf(f, "%s%s %u", k ? ", " : "", k < g->npids ? "pid" : "tid",
			k < g->npids ? g->pids[k] : g->tids[k - g->npids]);
		if (g->ns_inum && g->host_pids)
			fprintf(f, " (host %u)", k < g->npids ? g->host_pids[k] :
				g->host_tids[k - g->npids]);
	}
	if (comm[0])
		fprintf(f, " (%s)", comm);
	if (g->follow)
		fputs(" and children", f);
	for (i = 0; i < g->ncg; i++) {
		char cg[256];

		lat_term_str(cg, sizeof(cg), g->cg_path[i]);
		fprintf(f, "%scgroup %s", i || g->npids || g->ntids ? ", " : "", cg);
	}
	if (CPU_COUNT(&p->watch)) {
		char l[256];

		fprintf(f, ", watching CPU%s %s", CPU_COUNT(&p->watch) > 1 ? "s" : "",
			lat_fmt_cpulist(l, sizeof(l), &p->watch));
	}
	if (p->away && CPU_COUNT(&p->away->avoid)) {
		char pin[128], on[128];

		lat_fmt_cpulist(pin, sizeof(pin), &p->away->avoid);
		lat_fmt_cpulist(on, sizeof(on), &p->away->runs_on);
		if (p->away->stuck)
			fprintf(f, "  pinned to CPU %s, latbpf too (no other CPU)", pin);
		else
			fprintf(f, "  pinned to CPU %s, latbpf on %s", pin, on);
	}
	lat_fmt_ns(s, sizeof(s), elapsed_ns);
	fprintf(f, "  started %s  elapsed %s\nprobes:", p->start, s);
	for (i = 0; i < p->nprobes; i++) {
		char st[400];

		lat_term_str(st, sizeof(st), p->probe_status[i]);
		fprintf(f, " %s=%s", p->probe_name[i], st);
	}
	fputc('\n', f);
}

void lat_provenance_free(struct lat_provenance *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nprobes; i++)
		free(p->probe_status[i]);
	free(p);
}

/* A string member of a published object, "" when absent */
/* a string of a saved run, escaped: the file is untrusted; eight live at once */
static const char *snap_str(const struct lat_node *obj, const char *key)
{
	static char buf[8][512];
	static int k;
	const struct lat_node *n = lat_snap_find(obj, key);

	if (!n || n->kind != LAT_STR || !n->v.str)
		return "";
	k = (k + 1) % 8;
	lat_term_str(buf[k], sizeof(buf[k]), n->v.str);
	return buf[k];
}

static const struct lat_node *snap_ids(const struct lat_node *obj, const char *key)
{
	const struct lat_node *n = lat_snap_find(obj, key);

	return n && n->kind == LAT_IDS ? n : NULL;
}

/* The target line's middle, as lat_provenance_text() words it, from the
 * published "run" object */
static void target_text_snap(const struct lat_node *run, FILE *f)
{
	const struct lat_node *tg = lat_snap_find(run, "target"), *n;
	const struct lat_node *pids = snap_ids(tg, "pids"), *tids = snap_ids(tg, "tids");
	const struct lat_node *hp = snap_ids(tg, "host_pids"), *ht = snap_ids(tg, "host_tids");
	const struct lat_node *cgs = lat_snap_find(tg, "cgroups");
	const struct lat_node *away = lat_snap_find(run, "latbpf_cpus");
	int np = pids ? pids->v.ids.n : 0, nt = tids ? tids->v.ids.n : 0, k, i = 0;
	const char *watch = snap_str(tg, "cpus");
	char comm[64], l[256];
	cpu_set_t set;

	lat_term_str(comm, sizeof(comm), snap_str(tg, "comm"));
	if (watch[0] && !np && !nt && !(cgs && cgs->child))
		fputs("none", f);
	else if (!np && !nt && !(cgs && cgs->child))
		fputs("whole system", f);
	for (k = 0; k < np + nt; k++) {
		const struct lat_node *h = k < np ? hp : ht;
		int j = k < np ? k : k - np;

		if (k == 8) {
			fprintf(f, " and %d more", np + nt - 8);
			break;
		}
		fprintf(f, "%s%s %u", k ? ", " : "", k < np ? "pid" : "tid",
			(k < np ? pids : tids)->v.ids.v[j]);
		if (hp && h && j < h->v.ids.n)
			fprintf(f, " (host %u)", h->v.ids.v[j]);
	}
	if (comm[0])
		fprintf(f, " (%s)", comm);
	n = lat_snap_find(tg, "children");
	if (n && n->kind == LAT_BOOL && n->v.b)
		fputs(" and children", f);
	for (n = cgs ? cgs->child : NULL; n; n = n->next, i++) {
		char cg[256];

		lat_term_str(cg, sizeof(cg), n->kind == LAT_STR && n->v.str ? n->v.str : "");
		fprintf(f, "%scgroup %s", i || np || nt ? ", " : "", cg);
	}
	if (watch[0] && !lat_parse_cpulist(watch, &set))
		fprintf(f, ", watching CPU%s %s", CPU_COUNT(&set) > 1 ? "s" : "",
			lat_fmt_cpulist(l, sizeof(l), &set));
	if (away && snap_str(away, "target_pinned")[0]) {
		n = lat_snap_find(away, "shares_target_cpu");
		if (n && n->kind == LAT_BOOL && n->v.b)
			fprintf(f, "  pinned to CPU %s, latbpf too (no other CPU)",
				snap_str(away, "target_pinned"));
		else
			fprintf(f, "  pinned to CPU %s, latbpf on %s",
				snap_str(away, "target_pinned"), snap_str(away, "runs_on"));
	}
}

/* lat_provenance_text() of a published snapshot (a saved run read back by
 * latbpf report): the same lines, from "latbpf", "host", "run", "probes" */
void lat_provenance_text_snap(const struct lat_snap *s, FILE *f)
{
	const struct lat_node *lb = lat_snap_find(&s->root, "latbpf");
	const struct lat_node *host = lat_snap_find(&s->root, "host");
	const struct lat_node *run = lat_snap_find(&s->root, "run");
	const struct lat_node *n = lat_snap_find(host, "cpus");
	char model[128], el[48], v[400], st[400];

	lat_term_str(model, sizeof(model), snap_str(host, "cpu_model"));
	/* version and kernel are strings a file may have made anything */
	lat_term_str(v, sizeof(v), snap_str(lb, "version"));
	fprintf(f, "latbpf %s", v);
	lat_term_str(v, sizeof(v), snap_str(lb, "commit"));
	fprintf(f, " (%s)", v);
	lat_term_str(v, sizeof(v), snap_str(host, "kernel"));
	fprintf(f, "  kernel %s  %lld CPUs  %s", v,
		n && n->kind == LAT_NUM ? n->v.num : 0, model);
	lat_term_str(v, sizeof(v), snap_str(host, "clocksource"));
	fprintf(f, "  clocksource %s\ntarget: ", v);
	target_text_snap(run, f);
	lat_fmt_ns(el, sizeof(el), s->elapsed_ns);
	lat_term_str(v, sizeof(v), snap_str(run, "start"));
	fprintf(f, "  started %s  elapsed %s\nprobes:", v, el);
	n = lat_snap_find(&s->root, "probes");
	for (n = n ? n->child : NULL; n; n = n->next) {
		lat_term_str(v, sizeof(v), n->key ? n->key : "");
		lat_term_str(st, sizeof(st), n->kind == LAT_STR && n->v.str ? n->v.str : "");
		fprintf(f, " %s=%s", v, st);
	}
	fputc('\n', f);
}

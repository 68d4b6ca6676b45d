// SPDX-License-Identifier: GPL-2.0
/*
 * The environment check of the run protocol (env.h): what the host was set
 * to, read before the runs (here), and what others did on it during them
 * (activity.c). A check that fails quarantines the results it affects:
 * they are reported, marked, and not judged by bench compare. Thresholds
 * are stated beside each check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/env.h"
#include "bench/result.h"
#include "core/escape.h"
#include "core/proc.h"
#include "core/snap.h"

struct lat_benv_item *lat_benv_item(struct lat_benv *e, const char *name, const char *affects)
{
	struct lat_benv_item *it;

	if (e->n >= LAT_BENV_MAX)
		return &e->items[LAT_BENV_MAX - 1];
	it = &e->items[e->n++];
	memset(it, 0, sizeof(*it));
	it->name = name;
	it->affects = affects;
	return it;
}

/* The bench core's clock: its frequency governor, and boost (turbo) */
static void cpufreq(struct lat_benv *e, int cpu)
{
	struct lat_benv_item *it = lat_benv_item(e, "governor", "all");
	char path[96], buf[160];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
		 cpu < 0 ? 0 : cpu);
	if (!lat_read_line(path, it->value, sizeof(it->value))) {
		snprintf(it->value, sizeof(it->value), "none (no cpufreq: fixed or the host's)");
	} else if (strcmp(it->value, "performance")) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "cpu %d's frequency governor is '%.32s', not "
			 "performance: the clock moves with the load", cpu, it->value);
	}
	it = lat_benv_item(e, "boost", "all");
	if (lat_read_line("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf))) {
		snprintf(it->value, sizeof(it->value), "%s", atoi(buf) ? "on" : "off");
	} else if (lat_read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", buf,
				   sizeof(buf))) {
		snprintf(it->value, sizeof(it->value), "%s", atoi(buf) ? "off" : "on");
	} else {
		snprintf(it->value, sizeof(it->value), "unknown (no boost control)");
	}
	if (!strcmp(it->value, "on")) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "frequency boost (turbo) is on: the clock "
			 "depends on temperature and the other cores' load");
	}
}

static void thp(struct lat_benv *e)
{
	struct lat_benv_item *it = lat_benv_item(e, "thp", "mem");
	char buf[160], *l, *r;

	if (lat_read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) &&
	    (l = strchr(buf, '[')) && (r = strchr(l, ']'))) {
		snprintf(it->value, sizeof(it->value), "%.*s", (int)(r - l - 1), l + 1);
		if (!strcmp(it->value, "always")) {
			it->warn = true;
			snprintf(it->why, sizeof(it->why), "transparent huge pages are 'always': "
				 "memory latency and bandwidth depend on what khugepaged did");
		}
	} else {
		snprintf(it->value, sizeof(it->value), "unknown");
	}
}

/* Information only: the bench core's SMT siblings (a sibling's load shows
 * in others' CPU), the isolated and nohz_full cores */
static void topology(struct lat_benv *e, int cpu)
{
	struct lat_benv_item *it = lat_benv_item(e, "smt", NULL);
	char path[96], buf[160];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu < 0 ? 0 : cpu);
	if (!lat_read_line(path, it->value, sizeof(it->value)))
		snprintf(it->value, sizeof(it->value), "unknown");
	it = lat_benv_item(e, "isolated", NULL);
	lat_read_line("/sys/devices/system/cpu/isolated", buf, sizeof(buf));
	snprintf(it->value, sizeof(it->value), "%.90s", buf[0] ? buf : "none");
	it = lat_benv_item(e, "nohz_full", NULL);
	lat_read_line("/sys/devices/system/cpu/nohz_full", buf, sizeof(buf));
	snprintf(it->value, sizeof(it->value), "%.90s",
		 buf[0] && strcmp(buf, "(null)") ? buf : "none");
}

static void clocksource(struct lat_benv *e)
{
	struct lat_benv_item *it = lat_benv_item(e, "clocksource", "timer");

	lat_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			it->value, sizeof(it->value));
	if (it->value[0] && strcmp(it->value, "tsc") && strcmp(it->value, "arch_sys_counter")) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "the kernel's clocksource is '%.32s': "
			 "clock_gettime is slower than on tsc", it->value);
	}
}

/* Information: its cost shows in steal */
static void hypervisor(struct lat_benv *e)
{
	struct lat_benv_item *it = lat_benv_item(e, "hypervisor", NULL);
	char flags[4096], buf[160];

	snprintf(it->value, sizeof(it->value), "none");
	if (lat_proc_field("/proc/cpuinfo", "flags", flags, sizeof(flags)) &&
	    lat_has_word(flags, "hypervisor"))
		snprintf(it->value, sizeof(it->value), "yes (cpuinfo: hypervisor)");
	if (lat_read_line("/sys/hypervisor/type", buf, sizeof(buf)) && buf[0])
		snprintf(it->value, sizeof(it->value), "%.32s", buf);
}

/* What the host is set to: read before the runs */
void lat_benv_begin(struct lat_benv *e, const struct lat_bctx *c)
{
	memset(e, 0, sizeof(*e));
	e->c = c;
	cpufreq(e, c->cpu);
	thp(e);
	topology(e, c->cpu);
	clocksource(e);
	hypervisor(e);
	lat_benv_snap_read(&e->a, c);
}

/* The reasons a result of this benchmark (and group) is quarantined,
 * "; "-joined: "" if none */
void lat_benv_quarantine(const struct lat_benv *e, const char *bench, const char *group,
			 char *out, size_t n)
{
	size_t l = 0;

	out[0] = 0;
	for (int i = 0; i < e->n && l + 1 < n; i++) {
		const struct lat_benv_item *it = &e->items[i];

		if (!it->warn || !it->affects)
			continue;
		if (strcmp(it->affects, "all") && (!group || strcmp(it->affects, group)) &&
		    (!bench || strcmp(it->affects, bench)))
			continue;
		l += (size_t)snprintf(out + l, n - l, "%s%s", l ? "; " : "", it->why);
	}
}

void lat_benv_publish(const struct lat_benv *e, struct lat_snap *s)
{
	lat_pub_list(s, "env", "environment");
	for (int i = 0; i < e->n; i++) {
		const struct lat_benv_item *it = &e->items[i];

		lat_pub_item(s, false, false);
		lat_pub_str(s, "check", it->name);
		lat_pub_str(s, "value", it->value);
		lat_pub_bool(s, "warn", it->warn);
		lat_pub_str(s, "affects", it->affects);
		lat_pub_str(s, "why", it->warn ? it->why : NULL);
		lat_pub_end(s);
	}
	lat_pub_end(s);
}

void lat_benv_text(const struct lat_benv *e, FILE *f)
{
	char q[LAT_ARG_MAX];

	fputs("environment:", f);
	for (int i = 0; i < e->n; i++)
		fprintf(f, "%s%s %s%s", i ? ", " : " ", e->items[i].name,
			lat_term_arg(q, sizeof(q), e->items[i].value), e->items[i].warn ? " (!)" : "");
	fputc('\n', f);
	for (int i = 0; i < e->n; i++)
		if (e->items[i].warn)
			fprintf(f, "QUARANTINE (%s results): %s\n",
				e->items[i].affects ? e->items[i].affects : "no", e->items[i].why);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The environment check of the run protocol: what the host was set to, read
 * before the runs, and what others did on it during them, read as the
 * difference of the kernel's counters around the runs. A check that fails
 * quarantines the results it affects: they are reported, marked, and not
 * judged by bench compare. Thresholds are stated beside each check.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "bench/env.h"
#include "bench/result.h"
#include "core/escape.h"
#include "core/proc.h"
#include "core/snap.h"

/* whole CPU seconds are USER_HZ ticks in /proc/stat */
static double user_hz(void)
{
	long h = sysconf(_SC_CLK_TCK);

	return h > 0 ? (double)h : 100;
}

static bool in_set(const struct lat_bctx *c, int cpu)
{
	for (int i = 0; i < c->ncpus; i++)
		if (c->cpus[i] == cpu)
			return true;
	return cpu == c->cpu;
}

/*
 * /proc/stat: not-busy and steal ticks, all CPUs and per bench CPU. Busy
 * time is the wall time less idle, iowait and steal: with NO_HZ the kernel
 * measures idle exactly, while its user and system figures are sampled at
 * the tick, and a burner in step with the tick reads as 1.00 CPUs where it
 * uses 0.51 (seen here: 1 ms of every 2).
 */
static void read_stat(struct lat_benv_snap *s, const struct lat_bctx *c)
{
	char line[512];
	FILE *f = fopen("/proc/stat", "re");

	s->notbusy = s->steal = s->bench_steal = s->bench_ticks = 0;
	s->ncpu = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[10] = { 0 }, all = 0;
		int cpu = -1, n;

		if (strncmp(line, "cpu", 3))
			break;
		if (isdigit((unsigned char)line[3]))
			cpu = atoi(line + 3);
		n = sscanf(line + strcspn(line, " "), "%llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		if (n < 8)
			continue;
		for (int i = 0; i < 8; i++)
			all += v[i];
		if (cpu < 0) {
			s->notbusy = v[3] + v[4] + v[7];
			s->steal = v[7];
			continue;
		}
		s->ncpu++;
		if (in_set(c, cpu)) {
			s->bench_steal += v[7];
			s->bench_ticks += all;
		}
	}
	fclose(f);
}

/* /proc/interrupts: device IRQs (numbered lines) on the one-core bench CPU */
static unsigned long long read_irqs(int cpu)
{
	char *line = NULL, *p, *end;
	size_t cap = 0;
	unsigned long long sum = 0;
	FILE *f = fopen("/proc/interrupts", "re");

	if (!f || cpu < 0) {
		if (f)
			fclose(f);
		return 0;
	}
	/* the header names a column per online CPU: "CPU0 CPU2 ..." */
	int col = -1, ncol = 0;

	if (getline(&line, &cap, f) < 0)
		goto out;
	for (p = strtok(line, " \t\n"); p; p = strtok(NULL, " \t\n"), ncol++)
		if (!strncmp(p, "CPU", 3) && atoi(p + 3) == cpu)
			col = ncol;
	if (col < 0)
		goto out;
	cpu = col;
	while (getline(&line, &cap, f) >= 0) {
		p = line + strspn(line, " ");
		if (!isdigit((unsigned char)*p))
			continue;	/* LOC, RES, CAL ...: the kernel's own */
		p = strchr(p, ':');
		if (!p)
			continue;
		p++;
		for (int i = 0; i <= cpu; i++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (i == cpu)
				sum += v;
			p = end;
		}
	}
out:
	free(line);
	fclose(f);
	return sum;
}

static unsigned long long vmstat(const char *key)
{
	char line[128];
	size_t n = strlen(key);
	unsigned long long v = 0;
	FILE *f = fopen("/proc/vmstat", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ')
			v = strtoull(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static bool has_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool any = false;

	while (d && !any && (e = readdir(d)))
		any = e->d_name[0] != '.';
	if (d)
		closedir(d);
	return any;
}

/* /proc/diskstats: sectors read and written on whole disks and partitions
 * alike would count twice: whole devices only (no partition number) */
static unsigned long long disk_sectors(void)
{
	char line[256], name[64];
	unsigned long long rd, wr, sum = 0;
	unsigned maj, min;
	FILE *f = fopen("/proc/diskstats", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char path[128];

		if (sscanf(line, "%u %u %63s %*u %*u %llu %*u %*u %*u %llu", &maj, &min, name, &rd,
			   &wr) != 5)
			continue;
		/* a whole disk has /sys/block/NAME; loop and ram devices are ours
		 * or idle; a stacked one (dm, md: it has slaves) counts again what
		 * the disks under it count */
		snprintf(path, sizeof(path), "/sys/block/%s", name);
		if (access(path, F_OK) || !strncmp(name, "loop", 4) || !strncmp(name, "ram", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/slaves", name);
		if (has_entries(path))
			continue;
		sum += rd + wr;
	}
	if (f)
		fclose(f);
	return sum;
}

static unsigned long long self_io_bytes(void)
{
	char line[128];
	unsigned long long v, sum = 0;
	FILE *f = fopen("/proc/self/io", "re");

	/* written pages of a file deleted before writeback never reach the
	 * disk: cancelled_write_bytes takes them off again */
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "read_bytes: %llu", &v) == 1 ||
		    sscanf(line, "write_bytes: %llu", &v) == 1)
			sum += v;
		else if (sscanf(line, "cancelled_write_bytes: %llu", &v) == 1)
			sum -= v < sum ? v : sum;
	if (f)
		fclose(f);
	return sum;
}

static double self_cpu_s(void)
{
	struct rusage a, b;

	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec +
	       (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
		b.ru_stime.tv_usec) / 1e6;
}

/* a counter's growth; one that went down (a device gone, a counter that
 * wrapped) grew by nothing we can tell */
static unsigned long long grew(unsigned long long before, unsigned long long after)
{
	return after > before ? after - before : 0;
}

static void snap(struct lat_benv_snap *s, const struct lat_bctx *c)
{
	s->mono_ns = lat_now_ns();
	read_stat(s, c);
	s->swap = vmstat("pswpin") + vmstat("pswpout");
	s->sectors = disk_sectors();
	s->self_io = self_io_bytes();
	s->self_cpu = self_cpu_s();
}

static struct lat_benv_item *item(struct lat_benv *e, const char *name, const char *affects)
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
	struct lat_benv_item *it = item(e, "governor", "all");
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
	it = item(e, "boost", "all");
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
	struct lat_benv_item *it = item(e, "thp", "mem");
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
	struct lat_benv_item *it = item(e, "smt", NULL);
	char path[96], buf[160];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu < 0 ? 0 : cpu);
	if (!lat_read_line(path, it->value, sizeof(it->value)))
		snprintf(it->value, sizeof(it->value), "unknown");
	it = item(e, "isolated", NULL);
	lat_read_line("/sys/devices/system/cpu/isolated", buf, sizeof(buf));
	snprintf(it->value, sizeof(it->value), "%.90s", buf[0] ? buf : "none");
	it = item(e, "nohz_full", NULL);
	lat_read_line("/sys/devices/system/cpu/nohz_full", buf, sizeof(buf));
	snprintf(it->value, sizeof(it->value), "%.90s",
		 buf[0] && strcmp(buf, "(null)") ? buf : "none");
}

static void clocksource(struct lat_benv *e)
{
	struct lat_benv_item *it = item(e, "clocksource", "timer");

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
	struct lat_benv_item *it = item(e, "hypervisor", NULL);
	char *line = NULL, buf[160];
	size_t cap = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(it->value, sizeof(it->value), "none");
	while (f && getline(&line, &cap, f) >= 0)
		if (!strncmp(line, "flags", 5)) {
			if (strstr(line, " hypervisor"))
				snprintf(it->value, sizeof(it->value), "yes (cpuinfo: hypervisor)");
			break;
		}
	free(line);
	if (f)
		fclose(f);
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
	snap(&e->a, c);
}

/* Device IRQs on the bench core around one benchmark: the file-system
 * benchmarks' own disk interrupts are theirs, not others', so they are not
 * counted */
void lat_benv_bench(struct lat_benv *e, const char *group, bool end)
{
	if (!e->c || (group && !strcmp(group, "fs")))
		return;
	if (!end) {
		e->irq_t0 = lat_now_ns();
		e->irq_n0 = read_irqs(e->c->cpu);
		return;
	}
	e->irqs += grew(e->irq_n0, read_irqs(e->c->cpu));
	e->irq_ns += lat_now_ns() - e->irq_t0;
}

/* What others did during the runs */
void lat_benv_end(struct lat_benv *e)
{
	struct lat_benv_snap b;
	struct lat_benv_item *it;
	double s, hz = user_hz(), others, steal;
	double dev;

	snap(&b, e->c);
	s = (b.mono_ns - e->a.mono_ns) / 1e9;
	if (s <= 0)
		s = 1e-9;
	it = item(e, "others_cpu", "all");
	others = b.ncpu * s - grew(e->a.notbusy, b.notbusy) / hz - (b.self_cpu - e->a.self_cpu);
	others = others < 0 ? 0 : others / s;
	snprintf(it->value, sizeof(it->value), "%.2f CPUs", others);
	e->others_cpu = others;
	if (others > 0.10) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "other processes kept %.2f CPUs busy during "
			 "the runs (> 0.10)", others);
	}
	it = item(e, "steal", "all");
	steal = b.bench_ticks > e->a.bench_ticks ?
		(double)grew(e->a.bench_steal, b.bench_steal) / (b.bench_ticks - e->a.bench_ticks) : 0;
	snprintf(it->value, sizeof(it->value), "%.2f %%", steal * 100);
	if (steal > 0.01) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "the hypervisor stole %.1f %% of the bench "
			 "cores' time (> 1 %%)", steal * 100);
	}
	it = item(e, "irqs", "all");
	dev = e->irq_ns ? e->irqs / (e->irq_ns / 1e9) : 0;
	snprintf(it->value, sizeof(it->value), "%.0f/s on cpu %d", dev, e->c->cpu);
	if (dev > 1000) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "devices interrupted cpu %d %.0f times a "
			 "second (> 1000; the fs benchmarks' own not counted)", e->c->cpu, dev);
	}
	it = item(e, "swap", "all");
	snprintf(it->value, sizeof(it->value), "%llu pages", grew(e->a.swap, b.swap));
	if (grew(e->a.swap, b.swap)) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "%llu pages were swapped during the runs: "
			 "memory is short", grew(e->a.swap, b.swap));
	}
	it = item(e, "others_disk", "fs");
	others = ((double)grew(e->a.sectors, b.sectors) * 512 -
		  (double)grew(e->a.self_io, b.self_io)) / s;
	others = others < 0 ? 0 : others;
	snprintf(it->value, sizeof(it->value), "%.1f MB/s", others / 1e6);
	if (others > 1e6) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "others read or wrote %.1f MB/s on the disks "
			 "during the runs (> 1)", others / 1e6);
	}
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

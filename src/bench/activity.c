// SPDX-License-Identifier: GPL-2.0
/*
 * The environment check's second half (env.h): what others did on the host
 * during the runs, read as the difference of the kernel's counters around
 * them (CPU, steal, device IRQs on the bench core, swap, disk), and the
 * jitter the hiccup meter saw. Thresholds are stated beside each check.
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
#include "core/fmt.h"
#include "core/hist.h"
#include "core/proc.h"

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
	unsigned long long v = 0;

	lat_proc_u64("/proc/vmstat", key, &v);
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
	unsigned long long rd = 0, wr = 0, cancelled = 0;

	lat_proc_u64("/proc/self/io", "read_bytes", &rd);
	lat_proc_u64("/proc/self/io", "write_bytes", &wr);
	/* written pages of a file deleted before writeback never reach the
	 * disk: cancelled_write_bytes takes them off again */
	lat_proc_u64("/proc/self/io", "cancelled_write_bytes", &cancelled);
	return rd + wr - (cancelled < rd + wr ? cancelled : rd + wr);
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

void lat_benv_snap_read(struct lat_benv_snap *s, const struct lat_bctx *c)
{
	s->mono_ns = lat_now_ns();
	read_stat(s, c);
	s->swap = vmstat("pswpin") + vmstat("pswpout");
	s->sectors = disk_sectors();
	s->self_io = self_io_bytes();
	s->self_cpu = self_cpu_s();
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

	lat_benv_snap_read(&b, e->c);
	s = (b.mono_ns - e->a.mono_ns) / 1e9;
	if (s <= 0)
		s = 1e-9;
	it = lat_benv_item(e, "others_cpu", "all");
	others = b.ncpu * s - grew(e->a.notbusy, b.notbusy) / hz - (b.self_cpu - e->a.self_cpu);
	others = others < 0 ? 0 : others / s;
	snprintf(it->value, sizeof(it->value), "%.2f CPUs", others);
	e->others_cpu = others;
	if (others > 0.10) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "other processes kept %.2f CPUs busy during "
			 "the runs (> 0.10)", others);
	}
	it = lat_benv_item(e, "steal", "all");
	steal = b.bench_ticks > e->a.bench_ticks ?
		(double)grew(e->a.bench_steal, b.bench_steal) / (b.bench_ticks - e->a.bench_ticks) : 0;
	snprintf(it->value, sizeof(it->value), "%.2f %%", steal * 100);
	if (steal > 0.01) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "the hypervisor stole %.1f %% of the bench "
			 "cores' time (> 1 %%)", steal * 100);
	}
	it = lat_benv_item(e, "irqs", "all");
	dev = e->irq_ns ? e->irqs / (e->irq_ns / 1e9) : 0;
	snprintf(it->value, sizeof(it->value), "%.0f/s on cpu %d", dev, e->c->cpu);
	if (dev > 1000) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "devices interrupted cpu %d %.0f times a "
			 "second (> 1000; the fs benchmarks' own not counted)", e->c->cpu, dev);
	}
	it = lat_benv_item(e, "swap", "all");
	snprintf(it->value, sizeof(it->value), "%llu pages", grew(e->a.swap, b.swap));
	if (grew(e->a.swap, b.swap)) {
		it->warn = true;
		snprintf(it->why, sizeof(it->why), "%llu pages were swapped during the runs: "
			 "memory is short", grew(e->a.swap, b.swap));
	}
	it = lat_benv_item(e, "others_disk", "fs");
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

/*
 * Platform jitter, as the hiccup meter saw it on each core it ran on: when a
 * hundredth of a core's wakeups came 1 ms late or more (its raw p99 beyond
 * 1 ms), every result's tail holds the host's stalls, whatever their cause
 * (the hypervisor, firmware, another task): all results are quarantined.
 * This 2-vCPU VM idle: 70-80 us; beside a SCHED_FIFO burner of 5 ms every
 * 20 ms on the core: about 5 ms. Without the meter there is nothing to
 * judge, and the value says so.
 */
#define JITTER_P99_NS 1000000ULL

/* the hiccup meter's raw result with the highest p99: per core when it ran
 * on several, else its only one; NULL without it */
static const struct lat_bres *worst_core(const struct lat_bctx *all, const struct lat_bctx *c,
					 int *cpu)
{
	const struct lat_bres *w = NULL;
	int k, n;

	for (int i = 0; i < all->nres; i++) {
		const struct lat_bres *r = all->res[i];

		if (sscanf(r->name, "hiccup_cpu%d_raw%n", &k, &n) == 1 && !r->name[n] &&
		    (!w || lat_hist_percentile(&r->ns, 99) > lat_hist_percentile(&w->ns, 99))) {
			w = r;
			*cpu = k;
		}
	}
	for (int i = 0; !w && i < all->nres; i++)
		if (!strcmp(all->res[i]->name, "hiccup_raw")) {
			w = all->res[i];
			*cpu = c && c->ncpus ? c->cpus[0] : -1;
		}
	return w;
}

void lat_benv_jitter(struct lat_benv *e, const struct lat_bctx *all)
{
	struct lat_benv_item *it = lat_benv_item(e, "jitter", "all");
	int cpu = -1;
	const struct lat_bres *w = worst_core(all, e->c, &cpu);
	bool few;
	char a[32];

	if (!w) {
		snprintf(it->value, sizeof(it->value), "not measured (no hiccup meter)");
		return;
	}
	few = lat_hist_too_few(&w->ns, 99);
	lat_fmt_ns(a, sizeof(a), lat_hist_percentile(&w->ns, 99));
	snprintf(it->value, sizeof(it->value), "p99 %s on cpu %d%s", a, cpu,
		 few ? " (too few wakeups to judge)" : "");
	if (few || lat_hist_percentile(&w->ns, 99) <= JITTER_P99_NS)
		return;
	it->warn = true;
	snprintf(it->why, sizeof(it->why), "the hiccup meter's wakeups on cpu %d were %s "
		 "late or more at p99 (> 1 ms): the host's stalls are in every result's tail",
		 cpu, a);
}

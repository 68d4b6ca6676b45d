// SPDX-License-Identifier: GPL-2.0
/*
 * "self": what latbpf itself costs while it runs (DESIGN.md): the loader's
 * CPU and RSS, the kernel memory of the maps it holds, and, with the
 * kernel's BPF run-time statistics on, each of its programs' events and
 * ns per event.
 *
 * The figures come from where an outsider would read them, not from
 * latbpf's own bookkeeping: the process CPU clock, /proc/self, and the
 * kernel's view of every BPF map and program fd the process holds (fdinfo's
 * memlock, bpf_prog_info's run_cnt and run_time_ns, which bpftool shows).
 *
 * The statistics cost every BPF program on the host two clock reads per
 * run (measured: +0.2 us per pinned pipe round trip, docs/performance.md),
 * so they are on only when asked (--bpf-stats) and only while latbpf runs:
 * BPF_ENABLE_STATS hands out an fd that keeps them on until it is closed,
 * and closing it at exit leaves them as they were (on, if someone else had
 * turned them on too).
 */
#include <stdio.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "core/self.h"
#include "core/clock.h"
#include "core/proc.h"
#include "core/snap.h"
#include "core/away.h"
#include "core/yield.h"

static __u64 cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* "anon_inode:bpf-map" and "anon_inode:bpf-prog": what an fd is */
static const char *fd_kind(int fd)
{
	char path[32], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return "";
	link[n] = '\0';
	return !strcmp(link, "anon_inode:bpf-map") ? "map" :
	       !strcmp(link, "anon_inode:bpf-prog") ? "prog" : "";
}

/* a "name:\tvalue" line of /proc/self/fdinfo/fd */
static __u64 fdinfo_value(int fd, const char *name)
{
	unsigned long long v;
	char path[48];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return lat_proc_u64(path, name, &v) ? v : 0;
}

/* the same from a kept-open fdinfo (proc.h: lat_proc_open) */
static __u64 kept_value(int fd, const char *name)
{
	unsigned long long v;
	char text[1024];

	return lat_proc_reread(fd, text, sizeof(text)) && lat_text_u64(text, name, &v) ? v : 0;
}

/* The program's whole name: the kernel keeps 15 characters
 * ("hiccup_softirq_"), its BTF the function's name, as bpftool shows it. */
static void prog_name(int fd, const struct bpf_prog_info *info, char *name, size_t len)
{
	struct bpf_func_info fi = { 0 };
	struct bpf_prog_info i2 = { 0 };
	__u32 ilen = sizeof(i2);
	const struct btf_type *t;
	struct btf *btf;

	snprintf(name, len, "%s", info->name);
	if (!info->btf_id || !info->nr_func_info)
		return;
	i2.nr_func_info = 1;
	i2.func_info_rec_size = sizeof(fi);
	i2.func_info = (__u64)(unsigned long)&fi;
	if (bpf_obj_get_info_by_fd(fd, &i2, &ilen))
		return;
	btf = btf__load_from_kernel_by_id(info->btf_id);
	if (!btf)
		return;
	t = btf__type_by_id(btf, fi.type_id);
	if (t && btf_is_func(t))
		snprintf(name, len, "%s", btf__name_by_offset(btf, t->name_off));
	btf__free(btf);
}

static struct lat_self_prog *prog_slot(struct lat_self *s, int fd,
				       const struct bpf_prog_info *info)
{
	struct lat_self_prog *p;

	for (int i = 0; i < s->nprogs; i++)
		if (s->progs[i].id == info->id)
			return &s->progs[i];
	if (s->nprogs == LAT_SELF_MAX_PROGS)
		return NULL;
	p = &s->progs[s->nprogs++];
	p->id = info->id;
	prog_name(fd, info, p->name, sizeof(p->name));
	return p;
}

/* A preallocated map's memory is fixed at its creation: counted once
 * (s->fixed_bytes); one without preallocation (a hash, a task's storage)
 * grows and is read at every poll. Reading all ~50 maps' fdinfo at every
 * poll was 200 system calls, 0.6 ms of each 100 ms poll here. */
static void add_map(struct lat_self *s, int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	char path[48];
	int info_fd;

	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !(info.map_flags & BPF_F_NO_PREALLOC)) {
		s->fixed_bytes += fdinfo_value(fd, "memlock");
	} else if (s->nmaps < LAT_SELF_MAX_MAPS) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		if ((info_fd = lat_proc_open(path)) >= 0)
			s->map_info_fds[s->nmaps++] = info_fd;
	}
}

/* Every BPF map and program this process holds, each once (by id): read
 * once, after attaching. Listing /proc/self/fd at every poll took 100-270 us
 * in the kernel (a dentry per fd, ~90 of them), a stretch no task that
 * wakes on latbpf's CPU can preempt. */
static void close_kept(struct lat_self *s)
{
	for (int i = 0; i < s->nmaps; i++)
		close(s->map_info_fds[i]);
	s->nmaps = 0;
}

static void find_fds(struct lat_self *s)
{
	__u32 map_ids[LAT_SELF_MAX_MAPS];
	int nids = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");

	close_kept(s);
	s->fixed_bytes = 0;
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int fd = atoi(d->d_name), i;
		const char *kind;

		if (d->d_name[0] < '0' || d->d_name[0] > '9' || fd == dirfd(dir))
			continue;
		kind = fd_kind(fd);
		if (!strcmp(kind, "map") && nids < LAT_SELF_MAX_MAPS) {
			__u32 id = (__u32)fdinfo_value(fd, "map_id");

			for (i = 0; i < nids && map_ids[i] != id; i++)
				;
			if (i == nids) {
				map_ids[nids++] = id;
				add_map(s, fd);
			}
		} else if (!strcmp(kind, "prog")) {
			struct bpf_prog_info info = { 0 };
			__u32 len = sizeof(info);
			struct lat_self_prog *p;

			if (!bpf_obj_get_info_by_fd(fd, &info, &len) && (p = prog_slot(s, fd, &info)))
				p->fd = fd;
		}
	}
	closedir(dir);
}

/* what the maps take now (a hash without preallocation grows), and what
 * each program ran, since it was loaded, as bpftool shows them */
static void read_fds(struct lat_self *s)
{
	s->map_bytes = s->fixed_bytes;
	/* a read each, of an fdinfo kept open */
	for (int i = 0; i < s->nmaps; i++) {
		s->map_bytes += kept_value(s->map_info_fds[i], "memlock");
		lat_yield_point();
	}
	/* the kernel counts nothing while its statistics are off */
	for (int i = 0; s->stats && i < s->nprogs; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(s->progs[i].fd, &info, &len))
			continue;
		s->progs[i].cnt = info.run_cnt;
		s->progs[i].ns = info.run_time_ns;
	}
}

/* VmRSS and VmHWM, as ps and top read them (one read of a status kept
 * open; not getrusage's ru_maxrss, which keeps the peak of the image
 * before exec, the parent's copy after a fork) */
static void rss_bytes(struct lat_self *s)
{
	unsigned long long kib;
	char text[4096];

	if (s->status_fd < 0)
		s->status_fd = lat_proc_open("/proc/self/status");
	if (!lat_proc_reread(s->status_fd, text, sizeof(text)))
		return;
	if (lat_text_u64(text, "VmRSS", &kib))
		s->rss = kib * 1024;
	if (lat_text_u64(text, "VmHWM", &kib))
		s->rss_peak = kib * 1024;
}

void lat_self_init(struct lat_self *s, bool bpf_stats)
{
	char v = '0';
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->stats_fd = -1;
	s->status_fd = -1;
	if (bpf_stats) {
		s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (s->stats_fd < 0)
			fprintf(stderr, "latbpf: --bpf-stats: the kernel's BPF run-time "
				"statistics could not be turned on (%s); going on without\n",
				strerror(errno));
	}
	/* on already, by someone else (sysctl kernel.bpf_stats_enabled=1,
	 * bpftop): the programs' figures come for free */
	f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	if (f) {
		v = (char)fgetc(f);
		fclose(f);
	}
	s->stats = s->stats_fd >= 0 || v == '1';
	s->stats_how = s->stats_fd >= 0 ? "on (--bpf-stats, while latbpf runs)" :
		       s->stats ? "on (turned on outside latbpf)" :
				  "off (--bpf-stats turns them on)";
	find_fds(s);
	read_fds(s);
	/* the run starts now (trace.c's t0 follows at once): after the
	 * reads above, which run at SCHED_IDLE already and took 0.8 s of a
	 * busy host once, making cpu_pct 14 % low against duration_s */
	s->t_start = s->t_now = lat_now_ns();
	s->cpu_start = s->cpu_now = cpu_ns();
	/* the first interval counts from the programs' load, as the run does */
	for (int i = 0; i < s->nprogs; i++)
		s->progs[i].cnt = s->progs[i].ns = 0;
}

void lat_self_poll(struct lat_self *s)
{
	s->t_before = s->t_now;
	s->cpu_before = s->cpu_now;
	s->late_before = s->late;
	s->yields_before = s->yields;
	s->yields = lat_yields();
	s->guard_before = s->guard;
	s->guard = lat_away_guard_polls();
	for (int i = 0; i < s->nprogs; i++) {
		s->progs[i].cnt_before = s->progs[i].cnt;
		s->progs[i].ns_before = s->progs[i].ns;
	}
	s->t_now = lat_now_ns();
	s->cpu_now = cpu_ns();
	read_fds(s);
	rss_bytes(s);
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

void lat_self_publish(const struct lat_self *s, struct lat_snap *snap)
{
	__u64 t_iv = s->t_now - s->t_before, t_run = s->t_now - s->t_start;
	__u64 run_ns = 0, run_ns_iv = 0;
	bool final = snap->final;
	struct lat_node *obj = lat_pub_obj(snap, "self", "self: what latbpf itself costs");

	lat_pub_real(snap, "cpu_pct", final ? pct(s->cpu_now - s->cpu_start, t_run) :
					      pct(s->cpu_now - s->cpu_before, t_iv), 3);
	lat_pub_dur(snap, "cpu_ns", s->cpu_now - s->cpu_before, s->cpu_now - s->cpu_start);
	/* before the run: options, the kernel's BTF, loading and attaching */
	lat_pub_num(snap, "attach_cpu_ns", (long long)s->cpu_start);
	lat_pub_flags(lat_pub_count(snap, "rss_bytes", s->rss, s->rss), LAT_F_GAUGE);
	lat_pub_flags(lat_pub_count(snap, "rss_peak_bytes", s->rss_peak, s->rss_peak),
		      LAT_F_GAUGE);
	lat_pub_flags(lat_pub_count(snap, "kernel_map_bytes", s->map_bytes, s->map_bytes),
		      LAT_F_GAUGE);
	/* intervals that ended more than a tenth of an interval (10 ms at
	 * least) after their poll was due: their records say "late" */
	lat_pub_flags(lat_pub_count(snap, "late_polls", s->late - s->late_before, s->late),
		      LAT_F_NONZERO);
	/* brief sleeps in long work, so a target waking on latbpf's CPU
	 * waits one stretch at most (core/yield.c) */
	lat_pub_flags(lat_pub_count(snap, "yields", s->yields - s->yields_before, s->yields),
		      LAT_F_NONZERO);
	/* polls a whole interval overdue at SCHED_IDLE (every CPU busy),
	 * which the guard thread lifted to SCHED_FIFO 1 (core/away.h) */
	lat_pub_flags(lat_pub_count(snap, "guard_polls", s->guard - s->guard_before,
				    s->guard), LAT_F_NONZERO);
	lat_pub_str(snap, "bpf_stats", s->stats_how);
	if (s->stats) {
		for (int i = 0; i < s->nprogs; i++) {
			run_ns += s->progs[i].ns;
			run_ns_iv += s->progs[i].ns - s->progs[i].ns_before;
		}
		/* the share of one CPU that latbpf's programs took, on all CPUs */
		lat_pub_real(snap, "bpf_cpu_pct", final ? pct(run_ns, t_run) :
						      pct(run_ns_iv, t_iv), 3);
		lat_pub_obj(snap, "bpf", "its BPF programs");
		for (int i = 0; i < s->nprogs; i++) {
			const struct lat_self_prog *p = &s->progs[i];
			__u64 c_iv = p->cnt - p->cnt_before, c_run = p->cnt;
			__u64 n_iv = p->ns - p->ns_before, n_run = p->ns;

			lat_pub_obj(snap, p->name, p->name);
			lat_pub_label(snap, "program", p->name, p->name);
			lat_pub_count(snap, "events", c_iv, c_run);
			lat_pub_dur(snap, "run_ns", n_iv, n_run);
			if (final ? c_run : c_iv)
				lat_pub_real(snap, "ns_per_event",
					     final ? (double)n_run / (double)c_run :
						     (double)n_iv / (double)c_iv, 1);
			else
				lat_pub_null(snap, "ns_per_event");
			lat_pub_end(snap);
		}
		lat_pub_end(snap);
	}
	lat_pub_end(snap);
	/* beside the provenance, before "drops" (DESIGN.md) */
	lat_snap_move(snap, obj, lat_snap_find(&snap->root, "probes"));
}

void lat_self_free(struct lat_self *s)
{
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	s->stats_fd = -1;
	if (s->status_fd >= 0)
		close(s->status_fd);
	s->status_fd = -1;
	close_kept(s);
}

// SPDX-License-Identifier: GPL-2.0
/* The shared scheduler-tracepoint object: see schedcore.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "families/schedcore.h"
#include "core/btf.h"
#include "core/maps.h"
#include "core/proc.h"
#include "core/snap.h"
#include "families/skel.h"
#include "sched.skel.h"

int lat_schedcore_join(struct lat_schedcore *c, lat_schedcore_cfg cfg, void *priv)
{
	if (c->n == 4 || c->tried)
		return -EBUSY;
	c->cfg[c->n] = cfg;
	c->priv[c->n++] = priv;
	c->users++;
	return 0;
}

/* PREEMPT_RT: the records of threads whose slot another holds (preallocated,
 * 64 bytes and the hash's own per entry: under 1 MiB) */
#define LAT_TASK_RECORDS_RT 8192

/* Slots for per-task records (bpf/sched.bpf.c): one per possible tid up to
 * 65536 (64 bytes each: 2 MiB for the default pid_max of 32768), a power
 * of two. LATBPF_TASK_SLOTS overrides it, so
 * the tests can make tids share slots. */
static __u32 task_slots(void)
{
	const char *env = getenv("LATBPF_TASK_SLOTS");
	unsigned long want = 32768;
	__u32 n = 1;
	FILE *f;

	if (env) {
		want = strtoul(env, NULL, 10);
	} else if ((f = fopen("/proc/sys/kernel/pid_max", "r"))) {
		if (fscanf(f, "%lu", &want) != 1)
			want = 32768;
		fclose(f);
	}
	while (n < want && n < 65536)
		n <<= 1;
	return n;
}

/* Every family's map at its smallest (a ring buffer: one page), so a family
 * that is off costs no kernel memory; a family that joins sizes its own in
 * its settings. The object's own maps (task_*), the shared target maps
 * (lat_*) and the global sections keep theirs. */
static void shrink_family_maps(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj) {
		const char *name = bpf_map__name(m);

		if (!strncmp(name, "task_", 5) || !strncmp(name, "lat_", 4) ||
		    bpf_map__is_internal(m))
			continue;
		if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF)
			bpf_map__set_max_entries(m, (__u32)sysconf(_SC_PAGESIZE));
		else
			bpf_map__set_max_entries(m, 1);
	}
}

/* Open with every family off and its maps at minimum size; each joined
 * family then turns itself on. */
static int load(struct lat_schedcore *c, bool btf)
{
	struct sched_bpf *skel = sched_bpf__open();
	struct bpf_program *p;
	int i, err;

	if (!skel)
		return -errno;
	skel->rodata->lat_targ = c->run->target;
	if ((err = lat_skel_share(c->run, skel->obj))) {
		sched_bpf__destroy(skel);
		return err;
	}
	bpf_object__for_each_program(p, skel->obj) {
		const char *sec = bpf_program__section_name(p);

		/* scheduler entry points by mode; the others (interrupts,
		 * timers, sched_waking, the iterator and the *_cast twin of
		 * sched_switch) are a family's, which enables them (the
		 * iterator also below, for lat_schedcore_sweep) */
		if ((strstr(sec, "/sched_switch") || strstr(sec, "/sched_wakeup") ||
		     strstr(sec, "/sched_process_exit")) &&
		    !strstr(bpf_program__name(p), "_cast"))
			bpf_program__set_autoload(p, strncmp(sec, "raw_tp/", 7) ? btf : !btf);
		else
			bpf_program__set_autoload(p, false);
	}
	if (btf) {
		__u32 n = task_slots();

		bool rt = lat_no_storage_in_tracepoints();

		bpf_map__set_max_entries(skel->maps.task_slots, n);
		skel->rodata->slot_mask = n - 1;
		/* PREEMPT_RT: no task storage made in the scheduler; the
		 * threads without their slot in the table instead
		 * (bpf/sched.bpf.c, no_storage_new) */
		skel->rodata->no_storage_new = rt;
		bpf_map__set_max_entries(skel->maps.task_st_hash,
					 rt ? lat_env_entries("LATBPF_TASK_RECORDS",
							      LAT_TASK_RECORDS_RT) : 1);
	} else {
		bpf_map__set_autocreate(skel->maps.task_st, false);
		/* the test knob fills the table (README, "Environment") */
		bpf_map__set_max_entries(skel->maps.task_st_hash,
					 lat_env_entries("LATBPF_TASK_RECORDS", 65536));
	}
	shrink_family_maps(skel->obj);
	for (i = 0; i < c->n; i++)
		c->cfg[i](skel, c->priv[i], btf);
	/* lat_schedcore_sweep's (the time family loads it for itself) */
	if (btf && (c->run->target.mode & LAT_TARG_CGROUP))
		bpf_program__set_autoload(skel->progs.time_iter, true);
	err = sched_bpf__load(skel);
	if (err) {
		sched_bpf__destroy(skel);
		return err;
	}
	c->skel = skel;
	c->btf = btf;
	return 0;
}

int lat_schedcore_load(struct lat_schedcore *c)
{
	if (c->tried)
		return c->err;
	c->tried = true;
	/* Feature probe by loading: task storage for tracing programs needs
	 * 5.11, the slots' cmpxchg 5.12; older kernels get the raw_tp twins. LATBPF_FORCE_RAW_TP lets
	 * the tests run the twins here too. */
	char why[200];

	lat_libbpf_reset();
	c->err = getenv("LATBPF_FORCE_RAW_TP") ? -ENOTSUP : load(c, true);
	if (c->err && c->err != -EPERM) {
		if (getenv("LATBPF_FORCE_RAW_TP"))
			snprintf(c->why, sizeof(c->why), "LATBPF_FORCE_RAW_TP is set");
		else
			snprintf(c->why, sizeof(c->why), "%s: %s", strerror(-c->err),
				 lat_libbpf_why(why, sizeof(why)));
		lat_libbpf_reset();
		c->err = load(c, false);
	}
	if (c->err)
		fprintf(stderr, "sched: load failed: %s: %s\n", strerror(-c->err),
			lat_libbpf_why(why, sizeof(why)));
	return c->err;
}

int lat_schedcore_attach(struct lat_schedcore *c)
{
	if (c->err || c->attached)
		return c->err;
	c->attached = true;
	c->err = lat_skel_attach("sched", c->skel->skeleton);
	return c->err;
}

void lat_schedcore_sweep(struct lat_schedcore *c)
{
	char buf[64];
	ssize_t n = 0;
	int fd = -1;

	if (!c->skel || !c->btf || !(c->run->target.mode & LAT_TARG_CGROUP) ||
	    c->skel->rodata->en_time || c->sweep_failed ||
	    (c->swept_at && c->swept_at == c->poll_ns))
		return;
	c->swept_at = c->poll_ns;
	if (c->sweep || (c->sweep = bpf_program__attach_iter(c->skel->progs.time_iter, NULL)))
		fd = bpf_iter_create(bpf_link__fd(c->sweep));
	/* the program writes nothing: one read() walks every task */
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		;
	/* interrupted: this poll's sweep skipped, the next one's tried */
	if (fd >= 0 && n < 0 && (errno == EINTR || errno == EAGAIN))
		n = 0;
	if (fd < 0 || n < 0) {
		fprintf(stderr, "latbpf: sched: cannot free the records of threads that left the "
			"target cgroups (%s): one that comes back may show a wait across its "
			"time away\n", strerror(errno));
		c->sweep_failed = true;
	}
	if (fd >= 0)
		close(fd);
}

void lat_schedcore_leave(struct lat_schedcore *c)
{
	if (--c->users > 0)
		return;
	bpf_link__destroy(c->sweep);
	c->sweep = NULL;
	if (c->slots_free)
		c->slots_free(c);
	sched_bpf__destroy(c->skel);
	c->skel = NULL;
}

void lat_schedcore_losses(struct lat_schedcore *c, struct lat_sc_losses *l)
{
	/* once a poll for every family that asks: a system call a program */
	if (!c->losses_at || c->losses_at != c->poll_ns) {
		c->losses.lost = __atomic_load_n(&c->skel->bss->st_lost, __ATOMIC_RELAXED);
		c->losses.missed = lat_prog_misses(c->skel->obj);
		c->losses_at = c->poll_ns;
	}
	*l = c->losses;
}

bool lat_schedcore_reporter(const struct lat_schedcore *c, const void *priv)
{
	return c->n && c->priv[0] == priv;
}

void lat_schedcore_publish_losses(const struct lat_schedcore *c, struct lat_snap *snap,
				  const struct lat_sc_losses *now,
				  const struct lat_sc_losses *before)
{
	lat_pub_flags(lat_pub_count(snap, "task_records_lost", now->lost - before->lost,
				    now->lost), LAT_F_NONZERO | LAT_F_DROP);
	lat_pub_flags(lat_pub_count(snap, "missed", now->missed - before->missed, now->missed),
		      LAT_F_NONZERO | LAT_F_DROP);
}

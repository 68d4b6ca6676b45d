// SPDX-License-Identifier: GPL-2.0
/* The shared scheduler-tracepoint object: see schedcore.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "schedcore.h"
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
	bpf_object__for_each_program(p, skel->obj) {
		const char *sec = bpf_program__section_name(p);

		/* scheduler entry points by mode; interrupt programs are the
		 * hiccup family's, which enables them */
		if (!strncmp(sec, "raw_tp/", 7))
			bpf_program__set_autoload(p, !btf);
		else if (strstr(sec, "/sched_"))
			bpf_program__set_autoload(p, btf);
		else
			bpf_program__set_autoload(p, false);
	}
	if (btf) {
		bpf_map__set_max_entries(skel->maps.task_st_hash, 1);
	} else {
		bpf_map__set_autocreate(skel->maps.task_st, false);
	}
	bpf_map__set_max_entries(skel->maps.sched_threads, 1);
	bpf_map__set_max_entries(skel->maps.hc_state, 1);
	bpf_map__set_max_entries(skel->maps.hc_cpu, 1);
	bpf_map__set_max_entries(skel->maps.hc_intruders, 1);
	bpf_map__set_max_entries(skel->maps.hc_cache, 1);
	bpf_map__set_max_entries(skel->maps.hc_events, 4096);
	for (i = 0; i < c->n; i++)
		c->cfg[i](skel, c->priv[i], btf);
	err = sched_bpf__load(skel);
	if (err) {
		sched_bpf__destroy(skel);
		return err;
	}
	c->skel = skel;
	c->btf = btf;
	return 0;
}

int lat_schedcore_attach(struct lat_schedcore *c)
{
	if (c->tried)
		return c->err;
	c->tried = true;
	/* Feature probe by loading: task storage for tracing programs needs
	 * 5.11; older kernels get the raw_tp twins. LATBPF_FORCE_RAW_TP lets
	 * the tests run the twins here too. */
	c->err = getenv("LATBPF_FORCE_RAW_TP") ? -ENOTSUP : load(c, true);
	if (c->err && c->err != -EPERM)
		c->err = load(c, false);
	if (c->err) {
		fprintf(stderr, "sched: load failed: %s\n", strerror(-c->err));
		return c->err;
	}
	c->err = sched_bpf__attach(c->skel);
	if (c->err)
		fprintf(stderr, "sched: attach failed: %s\n", strerror(-c->err));
	return c->err;
}

void lat_schedcore_leave(struct lat_schedcore *c)
{
	if (--c->users > 0)
		return;
	sched_bpf__destroy(c->skel);
	c->skel = NULL;
}

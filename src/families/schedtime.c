// SPDX-License-Identifier: GPL-2.0
/* The time family's cause slots, read once a poll: see schedtime.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/hist.h"
#include "core/maps.h"
#include "families/schedtime.h"
#include "sched.skel.h"

bool lat_sc_time_on(const struct lat_schedcore *c)
{
	return c->skel && c->skel->rodata->en_time;
}

static int slots_alloc(struct lat_schedcore *c, struct lat_sc_slots **out);
static void slots_free(struct lat_schedcore *c);

long long lat_sc_iterate(struct lat_schedcore *c, bool init)
{
	struct lat_sc_slots *t = c->slots;
	char buf[64];
	int fd, err;

	if (!t && (err = slots_alloc(c, &t)))
		return err;
	c->slots = t;
	if (!t->iter && !(t->iter = bpf_program__attach_iter(c->skel->progs.time_iter, NULL)))
		return -errno;
	c->skel->bss->time_iter_init = init;
	c->skel->bss->time_iter_upto = init ? 0 : c->poll_ns;
	c->skel->bss->time_iter_live = 0;
	/* handlers take their records' words atomically from here on; those
	 * that read the flag clear are done once an RCU grace period has
	 * passed (every tracepoint program runs inside one). Without it the
	 * flag stays set: correct, a few ns a transition dearer. */
	c->skel->bss->time_iter_busy = 1;
	if (!t->busy_always && syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		t->busy_always = true;
	fd = bpf_iter_create(bpf_link__fd(t->iter));
	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	} else {
		err = -errno;
	}
	c->skel->bss->time_iter_init = 0;
	if (!t->busy_always)
		c->skel->bss->time_iter_busy = 0;
	return fd < 0 ? err : (long long)c->skel->bss->time_iter_live;
}

static int over_add(const void *key, void *value, void *ctx)
{
	struct lat_sc_slots *t = ctx;

	if (t->nover == t->cap_over) {
		size_t cap = t->cap_over ? 2 * t->cap_over : 16;
		struct lat_sc_over *o = realloc(t->over, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		t->over = o;
		t->cap_over = cap;
	}
	t->over[t->nover].key = *(const __u32 *)key;
	memcpy(&t->over[t->nover].v, value, sizeof(struct lat_time_over));
	lat_hist_count_slots(&t->over[t->nover++].v.h);
	return 0;
}

static int slots_alloc(struct lat_schedcore *c, struct lat_sc_slots **out)
{
	struct lat_sc_slots *t = calloc(1, sizeof(*t));
	int n = c->run->ncpus;

	if (!t)
		return -ENOMEM;
	t->ncpus = n;
	t->nslots = c->skel->rodata->time_nslots;
	t->slot = calloc(t->nslots, sizeof(*t->slot));
	t->cpu_runnable = calloc((size_t)n, sizeof(*t->cpu_runnable));
	t->buf = calloc((size_t)n, sizeof(*t->buf));
	t->fixed = calloc((size_t)n, sizeof(*t->fixed));
	lat_cpu_array_init(&t->fixed_map, c->skel->maps.time_fixed, n);
	if (!t->slot || !t->cpu_runnable || !t->buf || !t->fixed ||
	    t->nslots > LAT_TIME_MAX_SLOTS || t->nslots < LAT_TIME_FIRST_DYN) {
		free(t->slot);
		free(t->cpu_runnable);
		free(t->buf);
		free(t->fixed);
		free(t);
		return -ENOMEM;
	}
	*out = t;
	/* schedcore frees them when its last user leaves */
	c->slots_free = slots_free;
	return 0;
}

/* every slot's per-CPU values summed; the runnable ones per CPU too */
static int read_slots(struct lat_schedcore *c, struct lat_sc_slots *t)
{
	int hfd = bpf_map__fd(c->skel->maps.time_hist);
	int kfd = bpf_map__fd(c->skel->maps.time_slot_key);
	__u32 i, k;
	int cpu, err;

	/* running and runnable: a value per CPU */
	if ((err = lat_cpu_array_read(&t->fixed_map, t->fixed, sizeof(*t->fixed))))
		return err;
	memset(t->slot, 0, LAT_TIME_FIRST_DYN * sizeof(*t->slot));
	for (i = 0; i < LAT_TIME_FIRST_DYN; i++) {
		t->taken[i] = true;
		t->key[i] = i == LAT_TIME_SLOT_RUNNING ? LAT_TIME_KEY(LAT_TIME_RUNNING, 0, 0) :
			    LAT_TIME_KEY(LAT_TIME_RUNNABLE, 0, i - LAT_TIME_SLOT_RUNNABLE);
	}
	for (cpu = 0; cpu < t->ncpus; cpu++) {
		const struct lat_time_fixed *f = &t->fixed[cpu];

		t->slot[LAT_TIME_SLOT_RUNNING].ns += f->running_ns;
		memset(&t->cpu_runnable[cpu], 0, sizeof(t->cpu_runnable[cpu]));
		for (k = 0; k < LAT_TIME_NR_RUNNABLE; k++) {
			t->slot[LAT_TIME_SLOT_RUNNABLE + k].ns += f->runnable[k].ns;
			lat_hist_merge(&t->slot[LAT_TIME_SLOT_RUNNABLE + k].h, &f->runnable[k].h);
			lat_hist_merge(&t->cpu_runnable[cpu], &f->runnable[k].h);
		}
	}
	/* sleeping and blocked keys: a per-CPU value each */
	for (i = LAT_TIME_FIRST_DYN; i < t->nslots; i++) {
		struct lat_time_slot *s = &t->slot[i];
		__u32 idx = i - LAT_TIME_FIRST_DYN;

		t->key[i] = 0;
		t->taken[i] = !bpf_map_lookup_elem(kfd, &i, &t->key[i]) && t->key[i] != 0;
		if (bpf_map_lookup_elem(hfd, &idx, t->buf))
			return -errno;
		memset(s, 0, sizeof(*s));
		for (cpu = 0; cpu < t->ncpus; cpu++) {
			s->ns += t->buf[cpu].ns;
			lat_hist_merge(&s->h, &t->buf[cpu].h);
		}
	}
	t->nover = 0;
	return lat_map_each(bpf_map__fd(c->skel->maps.time_over), sizeof(__u32),
			    &(struct lat_time_over){ 0 }, over_add, t);
}

int lat_sc_slots_read(struct lat_schedcore *c, unsigned reader,
		      const struct lat_sc_slots **out)
{
	struct lat_sc_slots *t = c->slots;
	int err;

	if (!t && (err = slots_alloc(c, &t)))
		return err;
	c->slots = t;
	if (!t->consumed || (t->consumed & (1U << reader))) {
		/* every open episode credited first, so the read is whole */
		long long live = lat_sc_iterate(c, false);

		if (live < 0)
			return (int)live;
		t->live = (__u64)live;
		if ((err = read_slots(c, t)))
			return err;
		if (c->time_read)
			c->time_err = c->time_read(c->time_priv, t);
		t->consumed = 0;
	}
	t->consumed |= 1U << reader;
	*out = t;
	return 0;
}

void lat_sc_slots_states(const struct lat_sc_slots *t, struct lat_hist *runnable,
			 struct lat_hist *sleeping, struct lat_hist *blocked)
{
	struct lat_hist *to[LAT_TIME_NR_STATES] = { NULL, runnable, sleeping, blocked };
	size_t i;

	memset(runnable, 0, sizeof(*runnable));
	memset(sleeping, 0, sizeof(*sleeping));
	memset(blocked, 0, sizeof(*blocked));
	for (i = LAT_TIME_SLOT_RUNNABLE; i < t->nslots; i++)
		if (t->taken[i] && to[LAT_TIME_KEY_STATE(t->key[i])])
			lat_hist_merge(to[LAT_TIME_KEY_STATE(t->key[i])], &t->slot[i].h);
	for (i = 0; i < t->nover; i++)
		if (to[LAT_TIME_KEY_STATE(t->over[i].key)])
			lat_hist_merge(to[LAT_TIME_KEY_STATE(t->over[i].key)], &t->over[i].v.h);
}

static void slots_free(struct lat_schedcore *c)
{
	struct lat_sc_slots *t = c->slots;

	if (!t)
		return;
	bpf_link__destroy(t->iter);
	lat_cpu_array_free(&t->fixed_map);
	free(t->slot);
	free(t->cpu_runnable);
	free(t->over);
	free(t->buf);
	free(t->fixed);
	free(t);
	c->slots = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/* hiccup family: loader side of bpf/hiccup.bpf.h (in the shared scheduler
 * object, families/schedcore.c). */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "families/hiccup.h"
#include "core/btf.h"
#include "core/clock.h"
#include "core/cpumap.h"
#include "core/distinct.h"
#include "core/hist.h"
#include "core/maps.h"
#include "core/parse.h"
#include "core/proc.h"
#include "core/run.h"
#include "core/snap.h"
#include "core/yield.h"
#include "families/family.h"
#include "families/schedcore.h"
#include "latbpf/hiccup.h"
#include "sched.skel.h"

/* the newest events, kept for the final report (a ring: a day's events
 * take what a minute's do); every event is in its interval's report, up
 * to this many an interval (each is ~14 snapshot nodes, 1.7 KB: 10,000
 * target threads waking every 500 ms made 5,000 an interval, 9 MiB) */
#define MAX_EVENTS 1000
#define MAX_TOP 20		/* intruders per CPU in JSON; 5 on a screen */
#define MAX_PINNED 16
#define EVENTS_BEFORE 50	/* earlier events an interval's snapshot holds */

/* hiccup's own options */
struct hiccup_cfg {
	__u64 threshold_ns;	/* a hiccup this long or longer is an event */
};
_Static_assert(sizeof(struct hiccup_cfg) <= LAT_FAMILY_CFG, "fits LAT_FAMILY_CFG");

static void hiccup_defaults(void *cfg)
{
	((struct hiccup_cfg *)cfg)->threshold_ns = 1000000ULL;
}

static int set_threshold(void *cfg, const char *arg)
{
	return lat_parse_duration(arg, &((struct hiccup_cfg *)cfg)->threshold_ns);
}

static const struct lat_family_opt hiccup_options[] = {
	{ "threshold", "DUR", "hiccup event threshold (default 1ms)", set_threshold },
	{ NULL },
};

/* latbpf runs 2 threads (the Prometheus endpoint's besides the main one) */
#define MAX_SELF_TIDS 16

struct hiccup {
	struct sched_bpf *skel;	/* the shared scheduler object */
	const struct lat_run *run;
	struct lat_schedcore *sc;	/* the shared scheduler object */
	struct hiccup_cfg cfg;
	struct ring_buffer *rb;
	struct lat_hc_cpu *now, *before, iv;	/* per CPU, cumulative */
	struct lat_hc_intruder_entry *in_now, *in_before;
	size_t n_in_now, n_in_before;
	struct lat_hc_event *events;
	size_t nevents, iv_first;	/* this interval: events[iv_first..] */
	__u64 events_dropped;		/* beyond max_events in one interval */
	__u64 arrived, arrived_iv;	/* events read, kept or not; at the poll */
	__u64 dropped_iv;		/* events_dropped at the poll */
	size_t max_events;		/* MAX_EVENTS, or LATBPF_HC_EVENTS's */
	__u32 (*pinned)[MAX_PINNED];	/* per CPU: target tids pinned there */
	int *npinned;
	/* per CPU: the target threads pinned there at this poll and the one
	 * before (all of them, not only the MAX_PINNED listed), and their
	 * time there (ns x threads): what lost_pct is a share of */
	__u32 *nall, *nall_before;
	__u64 *pinned_time;
	__u64 t0, t_last;
	struct lat_hc_cache *seq, *cache;	/* per CPU: reads before and after, the cache */
	struct lat_cpu_array cpu_map, cache_map, state_map;	/* hc_cpu, hc_cache,
								 * hc_state: mapped */
	bool has_nmi;
	unsigned has_vectors;	/* bit i: vectors[i]'s events are there */
	bool rt;		/* PREEMPT_RT */
	/* polls whose intruder reads never came out consistent: the interval
	 * keeps the last consistent list (its intruders are carried over) */
	__u64 stale_polls, stale_polls_before;
	struct lat_sc_losses loss_now, loss_before;	/* when sched does not say them */
	/* intruders drained from the hash (their generation done), sorted by
	 * key; past ACC_HIGH the smallest are summed per CPU (LAT_HC_OTHERS) */
	struct lat_hc_intruder_list acc;
	/* per CPU, once some of its intruders were summed into others: every
	 * intruder key seen since (distinct.h), for the run's distinct count */
	struct lat_distinct **seen;
	struct lat_gen_drain gd;	/* of hc_intruders: its old generation */
	/* latbpf's own threads, read once a publish: an intruder that is one
	 * of them is "latbpf (self)" (an access() per intruder cost 6,800
	 * system calls in 10 s with --per-thread --per-cpu) */
	pid_t self_tids[MAX_SELF_TIDS];
	int nself;
};

/* intruders kept by name once drained; the test knob LATBPF_HC_KEEP
 * lowers it (README, "Environment") */
#define ACC_HIGH 4096

static const char *const kind_name[LAT_HC_NR_KINDS] = {
	"preempted", "wakeup", "irq", "softirq", "nmi", "ran", "timer", "sysirq"
};
/* a threaded interrupt handler is an IRQ intruder, whatever runs it */
static const char *const who_name[LAT_HC_NR_WHO] = {
	"task", "irq", "softirq", "nmi", "migration", "irq", "untraced", "irq", "others"
};
static const char *const softirq_name[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

static int on_event(void *ctx, void *data, size_t len)
{
	struct hiccup *h = ctx;
	struct lat_hc_event *e;

	if (len < sizeof(*e))
		return 0;
	lat_yield_point();
	h->arrived++;
	/* the ring is full of events not yet reported */
	if (h->nevents - h->iv_first >= h->max_events) {
		h->events_dropped++;
		return 0;
	}
	if (!h->events && !(h->events = calloc(h->max_events, sizeof(*e))))
		return -ENOMEM;
	memcpy(&h->events[h->nevents++ % h->max_events], data, sizeof(*e));
	return 0;
}

/* x86's system interrupts (bpf/hiccup.bpf.h, HC_VECTOR): each a pair of
 * programs, hiccup_EV_entry and _exit, loaded where the kernel has EV */
static const char *const vectors[] = {
	"local_timer", "reschedule", "call_function", "call_function_single", "irq_work",
};

static void hiccup_configure(struct sched_bpf *skel, void *priv, bool btf)
{
	struct hiccup *h = priv;
	int n = h->run->ncpus;

	if (!btf)
		return;	/* needs BTF pointers and task storage: stays off */
	skel->rodata->en_hiccup = true;
	skel->rodata->threshold_ns = h->cfg.threshold_ns;
	/* --cpus */
	for (int c = 0; c < n && c < 1024 && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &h->run->watch))
			continue;
		skel->rodata->en_watch = true;
		skel->rodata->watch_cpus[c / 64] |= 1ULL << (c % 64);
	}
	lat_cpu_array_size(skel->maps.hc_state, n);
	lat_cpu_array_size(skel->maps.hc_cpu, n);
	bpf_map__set_max_entries(skel->maps.hc_intruders,
				 lat_env_entries("LATBPF_HC_INTRUDERS", LAT_HC_MAX_INTRUDERS));
	lat_cpu_array_size(skel->maps.hc_cache, n);
	/* bytes; libbpf rounds it up to a power of two of pages */
	bpf_map__set_max_entries(skel->maps.hc_events,
				 lat_env_entries("LATBPF_HC_RING", 256 * 1024));
	bpf_program__set_autoload(skel->progs.hiccup_irq_entry, true);
	bpf_program__set_autoload(skel->progs.hiccup_irq_exit, true);
	bpf_program__set_autoload(skel->progs.hiccup_softirq_entry, true);
	bpf_program__set_autoload(skel->progs.hiccup_softirq_exit, true);
	/* NMIs have a tracepoint on x86 only: without it, NMI time shows up
	 * inside the IRQ or task it interrupted. */
	bpf_program__set_autoload(skel->progs.hiccup_nmi, h->has_nmi);
	/* so have the system interrupts (irq_vectors): elsewhere their time
	 * is the interrupted task's, as before */
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		for (int e = 0; e < 2; e++) {
			char name[64];
			struct bpf_program *p;

			snprintf(name, sizeof(name), "hiccup_%s_%s", vectors[i], e ? "exit" : "entry");
			if ((p = bpf_object__find_program_by_name(skel->obj, name)))
				bpf_program__set_autoload(p, h->has_vectors & (1u << i));
		}
	}
	skel->rodata->hc_rt = h->rt;
}

static int hiccup_open(const struct lat_family_ctx *fc, const void *cfg, void **priv)
{
	const struct lat_run *run = fc->run;
	struct hiccup *h = calloc(1, sizeof(*h));
	int err = -ENOMEM, n = run->ncpus;

	if (!h)
		return -ENOMEM;
	h->run = run;
	h->sc = fc->sched;
	h->gd.key_size = sizeof(struct lat_hc_intruder_key);
	h->cfg = *(const struct hiccup_cfg *)cfg;
	h->now = calloc(n, sizeof(*h->now));
	h->before = calloc(n, sizeof(*h->before));
	h->pinned = calloc(n, sizeof(*h->pinned));
	h->npinned = calloc(n, sizeof(*h->npinned));
	h->nall = calloc(n, sizeof(*h->nall));
	h->nall_before = calloc(n, sizeof(*h->nall_before));
	h->pinned_time = calloc(n, sizeof(*h->pinned_time));
	h->seq = calloc(2 * n, sizeof(*h->seq));
	h->cache = calloc(n, sizeof(*h->cache));
	h->seen = calloc(n, sizeof(*h->seen));
	/* the test knob shrinks the ring (README, "Environment") */
	h->max_events = lat_env_entries("LATBPF_HC_EVENTS", MAX_EVENTS);
	if (!h->seen || !h->now || !h->before || !h->pinned || !h->npinned || !h->seq || !h->cache ||
	    !h->nall || !h->nall_before || !h->pinned_time ||
	    (err = lat_schedcore_join(fc->sched, hiccup_configure, h))) {
		free(h->now);
		free(h->before);
		free(h->pinned);
		free(h->npinned);
		free(h->nall);
		free(h->nall_before);
		free(h->pinned_time);
		free(h->seq);
		free(h->cache);
		free(h->seen);
		free(h);
		return err;
	}
	h->has_nmi = lat_btf_has_tracepoint(fc->btf, "nmi_handler");
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		char entry[48], exit_[48];

		snprintf(entry, sizeof(entry), "%s_entry", vectors[i]);
		snprintf(exit_, sizeof(exit_), "%s_exit", vectors[i]);
		if (lat_btf_has_tracepoint(fc->btf, entry) && lat_btf_has_tracepoint(fc->btf, exit_))
			h->has_vectors |= 1u << i;
	}
	h->rt = lat_kernel_is_rt();
	*priv = h;
	return 0;
}

/* core/yield.h: a target thread waits for cpu now */
static bool target_waits(void *ctx, int cpu)
{
	const volatile struct lat_hc_state *s = lat_cpu_array_at(&((struct hiccup *)ctx)->state_map,
								 cpu);

	/* a call through a pointer: its loads are this moment's */
	return s && (__s32)lat_hc_nwait((const struct lat_hc_state *)s) > 0;
}

static int hiccup_load(void *priv)
{
	struct hiccup *h = priv;
	int err = lat_schedcore_load(h->sc);

	if (err)
		return err;
	if (!h->sc->btf) {
		fprintf(stderr, "hiccup: needs the tp_btf programs (task storage, cmpxchg: "
			"kernel >= 5.12), which did not load: %s\n", h->sc->why);
		return -ENOTSUP;
	}
	h->skel = h->sc->skel;
	lat_cpu_array_init(&h->cpu_map, h->skel->maps.hc_cpu, h->run->ncpus);
	lat_cpu_array_init(&h->cache_map, h->skel->maps.hc_cache, h->run->ncpus);
	lat_cpu_array_init(&h->state_map, h->skel->maps.hc_state, h->run->ncpus);
	lat_yield_watch(target_waits, h);
	h->rb = ring_buffer__new(bpf_map__fd(h->skel->maps.hc_events), on_event, h, NULL);
	if (!h->rb) {
		err = -errno;
		fprintf(stderr, "hiccup: ring buffer: %s\n", strerror(-err));
	}
	return err;
}

static int hiccup_attach(void *priv)
{
	struct hiccup *h = priv;

	h->t0 = lat_now_ns();
	return lat_schedcore_attach(h->sc);
}

static const char *hiccup_mode(void *priv)
{
	return "attached (tp_btf)";
}

static void add_pinned(__u32 tid, int cpu, void *ctx)
{
	struct hiccup *h = ctx;

	if (cpu >= h->run->ncpus)
		return;
	h->nall[cpu]++;
	if (h->npinned[cpu] < MAX_PINNED)
		h->pinned[cpu][h->npinned[cpu]++] = tid;
}

/* Which target threads are pinned to one CPU, from their affinity now;
 * dt: the time since the last poll, which the threads pinned at either
 * end of it had there (a thread pinned for part of it counts whole: a
 * share of it is never above what it lost) */
static void find_pinned(struct hiccup *h, __u64 dt)
{
	__u32 *t = h->nall_before;

	h->nall_before = h->nall;
	h->nall = t;
	memset(h->npinned, 0, h->run->ncpus * sizeof(*h->npinned));
	memset(h->nall, 0, h->run->ncpus * sizeof(*h->nall));
	lat_run_each_pinned(h->run, add_pinned, h);
	for (int c = 0; c < h->run->ncpus; c++)
		h->pinned_time[c] += dt * (h->nall[c] > h->nall_before[c] ? h->nall[c] :
					   h->nall_before[c]);
}

static int cmp_key(const void *a, const void *b)
{
	const struct lat_hc_intruder_entry *x = a, *y = b;

	/* field by field: a memcmp call was a tenth of the poll's time
	 * with thousands of intruders */
	if (x->k.cpu != y->k.cpu)
		return x->k.cpu < y->k.cpu ? -1 : 1;
	if (x->k.who != y->k.who)
		return x->k.who < y->k.who ? -1 : 1;
	if (x->k.id != y->k.id)
		return x->k.id < y->k.id ? -1 : 1;
	return (x->k.gen > y->k.gen) - (x->k.gen < y->k.gen);
}

static int add_intruder(const void *key, void *value, void *ctx)
{
	struct lat_hc_intruder_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct lat_hc_intruder_entry *a = realloc(l->a, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		l->a = a;
		l->cap = cap;
	}
	memcpy(&l->a[l->n].k, key, sizeof(l->a[l->n].k));
	memcpy(&l->a[l->n++].v, value, sizeof(l->a[0].v));
	return 0;
}

/* l: the hash's entries, in any order. Adds every CPU's cached slots
 * (latbpf/hiccup.h) and leaves l sorted by key. */
int lat_hc_merge_caches(struct lat_hc_intruder_list *l, const struct lat_hc_cache *c,
			int ncpus)
{
	size_t n = l->n;
	__u32 cpu, j;

	qsort(l->a, n, sizeof(*l->a), cmp_key);
	for (cpu = 0; cpu < (__u32)ncpus; cpu++) {
		for (j = 0; j < LAT_HC_CACHE; j++) {
			const struct lat_hc_slot *sl = &c[cpu].slot[j];
			struct lat_hc_intruder_entry key = {
				.k = { .cpu = cpu, .who = sl->who, .id = sl->id } }, *in;

			if (!sl->count)
				continue;
			/* a key has one slot, on its own CPU: only the hash's
			 * entries can hold it */
			in = bsearch(&key, l->a, n, sizeof(*l->a), cmp_key);
			if (!in) {
				if (add_intruder(&key.k, &key.v, l))
					return -ENOMEM;
				in = &l->a[l->n - 1];
			}
			/* the slot's name is the newer: taken when it was filled */
			memcpy(in->v.name, sl->name, sizeof(in->v.name));
			in->v.count += sl->count;
			in->v.total_ns += sl->total_ns;
			if (sl->max_ns > in->v.max_ns)
				in->v.max_ns = sl->max_ns;
		}
	}
	qsort(l->a, l->n, sizeof(*l->a), cmp_key);
	return 0;
}

/* a's and b's entries, both sorted by key, into one sorted list (b's
 * name wins: b is the newer); a and b are freed */
static int list_merge(struct lat_hc_intruder_list *a, struct lat_hc_intruder_list *b)
{
	struct lat_hc_intruder_list m = { 0 };
	size_t i = 0, j = 0;
	int c;

	m.cap = a->n + b->n ? a->n + b->n : 1;
	m.a = malloc(m.cap * sizeof(*m.a));
	if (!m.a)
		return -ENOMEM;
	while (i < a->n || j < b->n) {
		c = i == a->n ? 1 : j == b->n ? -1 : cmp_key(&a->a[i], &b->a[j]);
		if (c < 0) {
			m.a[m.n++] = a->a[i++];
		} else if (c > 0) {
			m.a[m.n++] = b->a[j++];
		} else {
			struct lat_hc_intruder_entry e = a->a[i++];
			const struct lat_hc_intruder *v = &b->a[j++].v;

			e.v.count += v->count;
			e.v.total_ns += v->total_ns;
			e.v.max_ns = v->max_ns > e.v.max_ns ? v->max_ns : e.v.max_ns;
			if (v->name[0])
				memcpy(e.v.name, v->name, sizeof(e.v.name));
			m.a[m.n++] = e;
		}
	}
	free(a->a);
	free(b->a);
	*a = m;
	memset(b, 0, sizeof(*b));
	return 0;
}

static __u64 entry_total(const void *e)
{
	return ((const struct lat_hc_intruder_entry *)e)->v.total_ns;
}

static bool not_others(const void *e)
{
	return ((const struct lat_hc_intruder_entry *)e)->k.who != LAT_HC_OTHERS;
}

/* Moves what the victims hold (their drained totals) from their entries in
 * l into l's per-CPU others; an entry that had more (its live part, in the
 * list of the poll before) keeps the rest. */
static int sum_into_others(struct lat_hc_intruder_list *l,
			   const struct lat_hc_intruder_entry *victims, size_t n)
{
	struct lat_hc_intruder_list o = { 0 };
	struct lat_hc_intruder_entry *e, key;
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct lat_hc_intruder *v = &victims[i].v;
		__u64 c, t;

		e = bsearch(&victims[i], l->a, l->n, sizeof(*l->a), cmp_key);
		if (!e)
			continue;
		c = v->count < e->v.count ? v->count : e->v.count;
		t = v->total_ns < e->v.total_ns ? v->total_ns : e->v.total_ns;
		key.k = (struct lat_hc_intruder_key){ .cpu = e->k.cpu, .who = LAT_HC_OTHERS };
		for (k = 0; k < o.n && o.a[k].k.cpu != e->k.cpu; k++)
			;
		if (k == o.n) {
			memset(&key.v, 0, sizeof(key.v));
			if (add_intruder(&key.k, &key.v, &o)) {
				free(o.a);
				return -ENOMEM;
			}
		}
		o.a[k].v.count += c;
		o.a[k].v.total_ns += t;
		if (v->max_ns > o.a[k].v.max_ns)
			o.a[k].v.max_ns = v->max_ns;
		e->v.count -= c;
		e->v.total_ns -= t;
	}
	/* drop the emptied, then merge the sums in */
	for (i = k = 0; i < l->n; i++)
		if (l->a[i].v.count || l->a[i].k.who == LAT_HC_OTHERS)
			l->a[k++] = l->a[i];
	l->n = k;
	qsort(o.a, o.n, sizeof(*o.a), cmp_key);
	return list_merge(l, &o);
}

/* Into their CPUs' sketches, where there is one: the keys of n entries. */
static void seen_add(struct hiccup *h, const struct lat_hc_intruder_entry *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].k.who != LAT_HC_OTHERS && a[i].k.cpu < (__u32)h->run->ncpus &&
		    h->seen[a[i].k.cpu])
			lat_distinct_add(h->seen[a[i].k.cpu], (__u64)a[i].k.who << 32 | a[i].k.id);
}

/* A CPU's sketch, made at its first summing into others from every key it
 * had: none was forgotten before (other CPUs' sketches get their keys
 * again, which changes nothing). Then every key listed at a poll goes in
 * (poll_intruders), and each one summed (bound_acc). */
static int seen_start(struct hiccup *h, __u32 cpu)
{
	if (cpu >= (__u32)h->run->ncpus || h->seen[cpu])
		return 0;
	if (!(h->seen[cpu] = calloc(1, sizeof(*h->seen[cpu]))))
		return -ENOMEM;
	seen_add(h, h->acc.a, h->acc.n);
	seen_add(h, h->in_now, h->n_in_now);
	return 0;
}

/*
 * Keeps the drained list bounded: past ACC_HIGH entries, the smallest
 * totals down to three quarters of it go into their CPU's others. The list of the poll
 * before (h->in_now, soon in_before) sums the same intruders, so no
 * interval sees their past time again.
 */
static int bound_acc(struct hiccup *h)
{
	struct lat_hc_intruder_entry *victims = NULL;
	struct lat_hc_intruder_list prev;
	size_t high = lat_env_entries("LATBPF_HC_KEEP", ACC_HIGH), low = high - high / 4;
	const void **by = NULL;
	long i, nv;
	int err = 0;

	if (h->acc.n <= high)
		return 0;
	nv = lat_fold_pick(h->acc.a, h->acc.n, sizeof(*h->acc.a), low, not_others,
			   entry_total, &by);
	if (nv < 0 || !(victims = malloc((size_t)nv * sizeof(*victims) + 1))) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nv; i++) {
		victims[i] = *(const struct lat_hc_intruder_entry *)by[i];
		if ((err = seen_start(h, victims[i].k.cpu)))
			goto out;
		seen_add(h, &victims[i], 1);
	}
	qsort(victims, (size_t)nv, sizeof(*victims), cmp_key);
	prev = (struct lat_hc_intruder_list){ .a = h->in_now, .n = h->n_in_now,
					      .cap = h->n_in_now };
	err = sum_into_others(&h->acc, victims, (size_t)nv);
	if (!err)
		err = sum_into_others(&prev, victims, (size_t)nv);
	h->in_now = prev.a;
	h->n_in_now = prev.n;
out:
	free(by);
	free(victims);
	return err;
}

/*
 * The hash's entries of the generation BPF no longer charges (flipped at
 * the poll before) into acc, and out of the hash; l keeps the current
 * generation's, as gen 0. Then the flip: BPF charges the other one.
 */
static int drain(struct hiccup *h, struct lat_hc_intruder_list *l)
{
	int fd = bpf_map__fd(h->skel->maps.hc_intruders), err = 0, live;
	struct lat_hc_intruder_list old = { 0 };
	size_t i, k;

	for (i = k = 0; !err && i < l->n; i++) {
		struct lat_hc_intruder_entry *e = &l->a[i];

		if ((live = lat_gen_seen(&h->gd, &e->k, e->k.gen)) < 0) {
			err = live;
			break;
		}
		e->k.gen = 0;
		if (live)
			l->a[k++] = *e;
		else
			err = add_intruder(&e->k, &e->v, &old);
	}
	if (err) {
		free(old.a);
		return err;
	}
	l->n = k;
	h->skel->bss->hc_gen = lat_gen_flip(&h->gd, fd);
	qsort(old.a, old.n, sizeof(*old.a), cmp_key);
	err = list_merge(&h->acc, &old);
	return err ? err : bound_acc(h);
}

/* every CPU's cache sequence word, alone (no yield point) */
static int read_seqs(struct hiccup *h, struct lat_hc_cache *to)
{
	const volatile struct lat_hc_cache *c;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (int i = 0; i < h->run->ncpus; i++) {
		if (!(c = lat_cpu_array_at(&h->cache_map, i)))	/* not mapped */
			return lat_cpu_array_copy(&h->cache_map, to, sizeof(*to));
		to[i].seq = c->seq;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return 0;
}

/* The run's intruders: the hash plus every CPU's cache, read so that no
 * slot moved into the hash meanwhile: seq even and unchanged from before
 * the hash was read until after the cache was (a third read, as the cache
 * copy itself takes time). */
static int poll_intruders(struct hiccup *h)
{
	int n = h->run->ncpus, err = 0, tries;
	struct lat_hc_intruder_list l = { 0 };
	struct lat_hc_intruder v;
	bool same = false;
	/* the test knob: no read is consistent (README, "Environment") */
	int max_tries = getenv("LATBPF_HC_STALE") ? 0 : 8;
	__u32 i;

	for (tries = 0; tries < max_tries; tries++) {
		same = true;
		l.n = 0;
		if ((err = read_seqs(h, h->seq)) ||
		    (err = lat_map_each(bpf_map__fd(h->skel->maps.hc_intruders),
					sizeof(struct lat_hc_intruder_key), &v, add_intruder, &l)) ||
		    (err = lat_cpu_array_copy(&h->cache_map, h->cache, sizeof(*h->cache))) ||
		    (err = read_seqs(h, h->seq + n)))
			break;
		for (i = 0; i < (__u32)n; i++)
			same &= h->seq[i].seq == h->seq[n + i].seq && !(h->seq[i].seq & 1);
		if (same)
			break;
	}
	if (!err && !same) {
		/* the BPF side kept moving slots into the hash: rather than a
		 * half-updated list, this interval names no new intruder time
		 * (the list before is the list now) and the next poll has it.
		 * The generation BPF no longer charges is still drained: nothing
		 * has written it since the last flip, so its read is whole, and
		 * the hash must not fill while polls keep missing (a soak with
		 * 1000 new processes a second missed 178 of 182) */
		struct lat_hc_intruder_entry *copy;

		if (tries && (err = drain(h, &l))) {
			free(l.a);
			return err;
		}
		free(l.a);
		copy = malloc((h->n_in_now ? h->n_in_now : 1) * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		if (h->n_in_now)
			memcpy(copy, h->in_now, h->n_in_now * sizeof(*copy));
		free(h->in_before);
		h->in_before = copy;
		h->n_in_before = h->n_in_now;
		h->stale_polls++;
		return 0;
	}
	if (!err)
		err = drain(h, &l);
	if (!err)
		err = lat_hc_merge_caches(&l, h->cache, n);
	if (!err && h->acc.n) {
		/* the drained totals, added to the live ones */
		struct lat_hc_intruder_list acc = { .n = h->acc.n, .cap = h->acc.n,
						    .a = malloc(h->acc.n * sizeof(*acc.a)) };

		if (!acc.a)
			err = -ENOMEM;
		else
			memcpy(acc.a, h->acc.a, h->acc.n * sizeof(*acc.a));
		if (!err)
			err = list_merge(&acc, &l);	/* the live names are newer */
		l = acc;
	}
	if (err) {
		free(l.a);
		return err;
	}
	free(h->in_before);
	h->in_before = h->in_now;
	h->n_in_before = h->n_in_now;
	h->in_now = l.a;
	h->n_in_now = l.n;
	seen_add(h, h->in_now, h->n_in_now);
	return 0;
}

static int hiccup_poll(void *priv)
{
	struct hiccup *h = priv;
	struct lat_hc_cpu *tmp;
	__u64 tp;
	int err;

	lat_schedcore_sweep(h->sc);
	h->iv_first = h->nevents;
	h->arrived_iv = h->arrived;
	h->dropped_iv = h->events_dropped;
	h->stale_polls_before = h->stale_polls;
	h->loss_before = h->loss_now;
	lat_schedcore_losses(h->sc, &h->loss_now);
	err = ring_buffer__consume(h->rb);
	if (err < 0)
		return err;
	tmp = h->before;
	h->before = h->now;
	h->now = tmp;
	tp = h->t_last ? h->t_last : h->t0;
	h->t_last = lat_now_ns();
	find_pinned(h, h->t_last - tp);
	lat_yield_point();
	/* the CPUs' waits right before their intruders' charges: what is
	 * charged between the two reads is in the charges and not in the
	 * waits (the 6.1-rt guest under TCG, with two yield points between
	 * them at SCHED_IDLE: 1.04 % more charged than waited, once) */
	if ((err = lat_cpu_array_read(&h->cpu_map, h->now, sizeof(*h->now))))
		return err;
	return poll_intruders(h);
}

/*
 * A threaded handler's IRQ number and name from its comm, "irq/NN-name" or
 * "irq/NN-s-name" (a secondary thread), cut to 15 characters by the kernel.
 * Returns the number, or -1 when comm is not of that form.
 */
long lat_hc_irq_thread(const char *comm, const char **name)
{
	char c[17], *end;
	long irq;

	snprintf(c, sizeof(c), "%.16s", comm);
	if (strncmp(c, "irq/", 4) || c[4] < '0' || c[4] > '9')
		return -1;
	irq = strtol(c + 4, &end, 10);
	if (*end != '-' && *end != '\0')
		return -1;
	if (*end == '-')
		end++;
	if (!strncmp(end, "s-", 2))
		end += 2;
	*name = comm + (end - c);
	return irq;
}

static void add_self_tid(int tid, void *ctx)
{
	struct hiccup *h = ctx;

	if (h->nself < MAX_SELF_TIDS)
		h->self_tids[h->nself++] = tid;
}

/* latbpf's own threads, as they are now */
static void read_self_tids(struct hiccup *h)
{
	h->nself = 0;
	lat_proc_each_self_thread(add_self_tid, h);
}

/* whether tid is one of latbpf's own threads */
static bool is_self(const struct hiccup *h, __u32 tid)
{
	for (int i = 0; i < h->nself; i++)
		if ((__u32)h->self_tids[i] == tid)
			return true;
	return false;
}

static void intruder_name(const struct hiccup *h, const struct lat_hc_intruder_entry *in,
			  char *buf, size_t len)
{
	const char *irq_name;

	/* the tracer itself, where it could not keep off a target's CPU */
	if (in->k.who == LAT_HC_TASK && in->k.id && is_self(h, in->k.id))
		snprintf(buf, len, "latbpf (self)");
	else if (in->k.who == LAT_HC_IRQ_THREAD && lat_hc_irq_thread(in->v.name, &irq_name) >= 0)
		snprintf(buf, len, "%.*s", (int)strnlen(irq_name, sizeof(in->v.name) -
				(irq_name - in->v.name)), irq_name);
	else if (in->k.who == LAT_HC_WHO_SOFTIRQ && in->k.id < 10)
		snprintf(buf, len, "%s", softirq_name[in->k.id]);
	else if (in->k.who == LAT_HC_MIGRATION)
		snprintf(buf, len, "from CPU %u", in->k.id);
	else if (in->k.who == LAT_HC_OTHERS)
		snprintf(buf, len, "(others)");
	else if (in->k.who == LAT_HC_UNTRACED)
		snprintf(buf, len, "(untraced)");
	else if (in->k.who == LAT_HC_TASK && !in->k.id)
		snprintf(buf, len, "%s", LAT_HC_IDLE_NAME);
	else if (in->v.name[0])
		snprintf(buf, len, "%.16s", in->v.name);
	else	/* a name the kernel did not give: what it is, never blank */
		snprintf(buf, len, "%s %u", in->k.who == LAT_HC_TASK ? "pid" : "irq", in->k.id);
}

/* an intruder's kind: the idle task (a wakeup onto an idle CPU) is none */
static const char *intruder_kind(__u32 who, __u32 id)
{
	if (who == LAT_HC_TASK && !id)
		return "idle";
	return who_name[who < LAT_HC_NR_WHO ? who : 0];
}

/* A threaded handler's IRQ number, beside the thread's pid. */
static void pub_irq_thread(struct lat_snap *s, __u32 who, const char *comm)
{
	const char *name;
	long irq;

	if (who != LAT_HC_IRQ_THREAD)
		return;
	irq = lat_hc_irq_thread(comm, &name);
	if (irq >= 0)
		lat_pub_num(s, "irq", irq);
	else
		lat_pub_null(s, "irq");
}

/* The CPU's intruders, each with its interval and run totals; a view
 * ranks them by its own total. */
struct top_cand {
	const struct lat_hc_intruder_entry *in;
	__u64 c_iv, t_iv;
	bool listed;
};

static int cmp_t_iv(const void *a, const void *b)
{
	const struct top_cand *x = *(struct top_cand *const *)a, *y = *(struct top_cand *const *)b;

	return (x->t_iv < y->t_iv) - (x->t_iv > y->t_iv);
}

static int cmp_t_run(const void *a, const void *b)
{
	const struct top_cand *x = *(struct top_cand *const *)a, *y = *(struct top_cand *const *)b;

	return (x->in->v.total_ns < y->in->v.total_ns) - (x->in->v.total_ns > y->in->v.total_ns);
}

/* The CPU's intruders: the totals of all of them, and as items the top
 * MAX_TOP of the interval and of the run (a view ranks them by its own
 * total): with thousands of intruders, every one an item made a 10 MiB
 * snapshot. */
static void publish_top(struct hiccup *h, struct lat_snap *s, __u32 cpu)
{
	__u64 n_iv = 0, n_run = 0, sum_iv = 0, sum_run = 0;
	__u64 self_c_iv = 0, self_c = 0, self_t_iv = 0, self_t = 0, self_max = 0;
	struct top_cand *cand = malloc((h->n_in_now + 1) * sizeof(*cand)), **by;
	const struct lat_hc_intruder_entry *in, *b;
	size_t i, n = 0, k;
	char name[32];

	by = malloc((h->n_in_now + 1) * sizeof(*by));
	for (i = 0; cand && by && i < h->n_in_now; i++) {
		struct top_cand *c = &cand[n];

		in = &h->in_now[i];
		if (in->k.cpu != cpu || !in->v.count)
			continue;
		b = bsearch(in, h->in_before, h->n_in_before, sizeof(*in), cmp_key);
		/* totals only grow; a read that raced a slot move
		 * (latbpf/hiccup.h) more than 8 times in a row must not wrap */
		c->in = in;
		c->c_iv = in->v.count - (b ? (b->v.count < in->v.count ? b->v.count :
					      in->v.count) : 0);
		c->t_iv = in->v.total_ns - (b ? (b->v.total_ns < in->v.total_ns ?
						b->v.total_ns : in->v.total_ns) : 0);
		c->listed = false;
		n_iv += in->k.who != LAT_HC_OTHERS && c->c_iv > 0;
		sum_iv += c->c_iv ? c->t_iv : 0;
		n_run += in->k.who != LAT_HC_OTHERS;
		sum_run += in->v.total_ns;
		if (in->k.who == LAT_HC_TASK && in->k.id && is_self(h, in->k.id)) {
			self_c_iv += c->c_iv;
			self_t_iv += c->c_iv ? c->t_iv : 0;
			self_c += in->v.count;
			self_t += in->v.total_ns;
			if (in->v.max_ns > self_max)
				self_max = in->v.max_ns;
		}
		by[n] = c;
		n++;
	}
	/* once some were summed into others, the run's distinct intruders
	 * are the sketch's estimate, never fewer than those listed */
	if (h->seen[cpu] && (k = lat_distinct_count(h->seen[cpu])) > n_run)
		n_run = k;
	lat_pub_count(s, "intruders", n_iv, n_run);
	lat_pub_dur(s, "intruders_ns", sum_iv, sum_run);
	/* latbpf's own threads, whether or not they rank among the top: what
	 * the tracer cost the targets here (its threads yield: core/away.h) */
	lat_pub_count(s, "self_count", self_c_iv, self_c);
	lat_pub_dur(s, "self_ns", self_t_iv, self_t);
	lat_pub_flags(lat_pub_dur(s, "self_max_ns", self_max, self_max), LAT_F_GAUGE);
	lat_pub_flags(lat_pub_list(s, "top", "top intruders"), LAT_F_BRIEF);
	lat_pub_rank(s, "total_ns", MAX_TOP, 5);
	if (cand && by) {
		qsort(by, n, sizeof(*by), cmp_t_iv);
		for (k = 0; k < n && k < MAX_TOP && by[k]->t_iv; k++)
			by[k]->listed = true;
		qsort(by, n, sizeof(*by), cmp_t_run);
		for (k = 0; k < n && k < MAX_TOP; k++)
			by[k]->listed = true;
	}
	for (i = 0; cand && by && i < n; i++) {
		const struct top_cand *c = &cand[i];

		if (!c->listed)
			continue;
		in = c->in;
		intruder_name(h, in, name, sizeof(name));
		lat_pub_item(s, c->c_iv > 0, true);
		lat_pub_str(s, "kind", intruder_kind(in->k.who, in->k.id));
		lat_pub_str(s, "name", name);
		lat_pub_num(s, "pid", in->k.id);
		pub_irq_thread(s, in->k.who, in->v.name);
		lat_pub_count(s, "count", c->c_iv, in->v.count);
		lat_pub_dur(s, "total_ns", c->t_iv, in->v.total_ns);
		lat_pub_dur(s, "max_ns", in->v.max_ns, in->v.max_ns);
		lat_pub_end(s);
	}
	lat_pub_end(s);
	if (!cand || !by)
		s->oom = true;
	free(cand);
	free(by);
}

/*
 * A share of the run lost, where it is a thread's: the threads pinned to
 * CPU c (an affinity of one CPU) lost pinned_ns there, of the time they
 * were pinned there (pinned_time); a watched CPU's share is the time it
 * was busy (runs and interrupts: never both at once). Elsewhere the CPU's
 * hiccups are any number of unpinned threads' waits, whose sum is no share
 * of anything (four backends on one CPU made 82 %): null.
 */
static void pub_lost(struct hiccup *h, struct lat_snap *s, __u32 c, bool watched,
		     __u64 elapsed)
{
	const struct lat_hc_cpu *now = &h->now[c];
	double lost, of = h->pinned_time[c] ? (double)h->pinned_time[c] : (double)elapsed;

	if (!of || (!h->pinned_time[c] && !watched)) {
		lat_pub_flags(lat_pub_null(s, "lost_pct"), LAT_F_BRIEF);
		return;
	}
	if (h->pinned_time[c])
		lost = (double)now->pinned_ns;
	else
		lost = (double)(now->stolen_ns[LAT_HC_RAN] + now->stolen_ns[LAT_HC_IRQ] +
				now->stolen_ns[LAT_HC_SOFTIRQ] + now->stolen_ns[LAT_HC_NMI] +
				now->stolen_ns[LAT_HC_SYSIRQ]);
	lat_pub_flags(lat_pub_real(s, "lost_pct", 100.0 * lost / of, 3), LAT_F_BRIEF);
}

static void publish_cpu(struct hiccup *h, struct lat_snap *s, __u32 c, bool iv, bool run)
{
	const struct lat_hc_cpu *now = &h->now[c], *b = &h->before[c];
	__u64 elapsed = h->t_last - h->t0, task_iv = 0, task_run = 0;
	bool watched = c < CPU_SETSIZE && CPU_ISSET(c, &h->run->watch);
	char cpu[16], tag[24];
	int k;

	for (k = 0; k < LAT_HC_NR_KINDS; k++) {
		if (!LAT_HC_TASK_KIND(k))
			continue;
		task_iv += now->stolen_ns[k] - b->stolen_ns[k];
		task_run += now->stolen_ns[k];
	}
	/* only its max: the sinks take the interval's histogram themselves */
	lat_hist_delta(&h->iv.task_hist, &now->task_hist, &b->task_hist);
	lat_pub_item(s, iv, run);
	snprintf(cpu, sizeof(cpu), "%u", c);
	snprintf(tag, sizeof(tag), "cpu%u", c);
	lat_pub_label(s, "cpu", cpu, tag);
	lat_pub_flags(lat_pub_num(s, "cpu", c), LAT_F_BRIEF);
	lat_pub_bool(s, "watched", watched);
	lat_pub_flags(lat_pub_ids(s, "pinned_tids", h->pinned[c], h->npinned[c]), LAT_F_BRIEF);
	lat_pub_flags(lat_pub_count(s, "count", now->task_hist.count - b->task_hist.count,
				    now->task_hist.count), LAT_F_BRIEF);
	lat_pub_flags(lat_pub_dur(s, "stolen_ns", task_iv, task_run), LAT_F_BRIEF);
	pub_lost(h, s, c, watched, elapsed);
	lat_pub_flags(lat_pub_dur(s, "max_ns", h->iv.task_hist.max, now->task_hist.max),
		      LAT_F_GAUGE | LAT_F_BRIEF);
	/* in Prometheus: latbpf_hiccup_stolen_seconds{cpu} (DESIGN.md) */
	struct lat_node *hist = lat_pub_hist(s, "hist", "hiccups (preempted, wakeup, ran)",
					     &now->task_hist, &b->task_hist);
	if (hist)
		hist->metric = "stolen";
	for (k = 0; k < LAT_HC_NR_KINDS; k++) {
		char key[32];

		lat_pub_count(s, kind_name[k], now->count[k] - b->count[k], now->count[k]);
		snprintf(key, sizeof(key), "%s_ns", kind_name[k]);
		lat_pub_dur(s, key, now->stolen_ns[k] - b->stolen_ns[k], now->stolen_ns[k]);
	}
	lat_pub_hist(s, "interrupts", "interrupts (irq, softirq, nmi, sysirq)", &now->intr_hist,
		     &b->intr_hist);
	lat_pub_flags(lat_pub_count(s, "events_lost", now->events_lost - b->events_lost,
				    now->events_lost), LAT_F_NONZERO | LAT_F_DROP);
	lat_pub_flags(lat_pub_count(s, "unseen", now->unseen - b->unseen, now->unseen),
		      LAT_F_NONZERO);
	/* stolen time whose intruder the full hash could not take */
	lat_pub_flags(lat_pub_count(s, "intruders_lost", now->intruders_lost - b->intruders_lost,
				    now->intruders_lost), LAT_F_NONZERO | LAT_F_DROP);
	if (now->intruders_lost)
		lat_pub_dur(s, "intruders_lost_ns", now->intruders_lost_ns - b->intruders_lost_ns,
			    now->intruders_lost_ns);
	publish_top(h, s, c);
	lat_pub_end(s);
}

static void publish_events(struct hiccup *h, struct lat_snap *s)
{
	char name[32];
	size_t i = 0;

	/* an interval's snapshot: its own events, and the latest before them
	 * for a screen; the whole run's: the newest max_events */
	if (s->interval && h->iv_first > EVENTS_BEFORE)
		i = h->iv_first - EVENTS_BEFORE;
	if (h->nevents > h->max_events && i < h->nevents - h->max_events)
		i = h->nevents - h->max_events;
	lat_pub_count(s, "events_seen", h->arrived - h->arrived_iv, h->arrived);
	lat_pub_list(s, "events", "hiccups above the threshold");
	lat_pub_flags(s->cur, LAT_F_TAIL);
	for (; i < h->nevents; i++) {
		const struct lat_hc_event *ev = &h->events[i % h->max_events];
		struct lat_hc_intruder_entry in = { .k = { .who = ev->who, .id = ev->pid } };

		memcpy(in.v.name, ev->name, sizeof(in.v.name));
		intruder_name(h, &in, name, sizeof(name));
		lat_pub_item(s, i >= h->iv_first, true);
		lat_pub_flags(lat_pub_num(s, "ts_ns", (__s64)ev->ts_ns), LAT_F_BRIEF);
		lat_pub_flags(lat_pub_num(s, "cpu", ev->cpu), LAT_F_BRIEF);
		lat_pub_num(s, "tid", ev->tid);
		lat_pub_flags(lat_pub_str(s, "comm", ev->comm), LAT_F_BRIEF);
		/* woken by its own timer: how late that fired, then the wait
		 * for the CPU (duration): the two parts of how late it ran */
		if (ev->timer_late_ns)
			lat_pub_dur(s, "timer_late_ns", ev->timer_late_ns, ev->timer_late_ns);
		else
			lat_pub_null(s, "timer_late_ns");
		lat_pub_flags(lat_pub_dur(s, "duration_ns", ev->duration_ns, ev->duration_ns),
			      LAT_F_BRIEF);
		lat_pub_str(s, "hiccup", kind_name[ev->kind < LAT_HC_NR_KINDS ? ev->kind : 0]);
		lat_pub_str(s, "kind", intruder_kind(ev->who, ev->pid));
		lat_pub_flags(lat_pub_str(s, "name", name), LAT_F_BRIEF);
		lat_pub_num(s, "pid", ev->pid);
		pub_irq_thread(s, ev->who, ev->name);
		lat_pub_dur(s, "intruder_ns", ev->who_ns, ev->who_ns);
		lat_pub_end(s);
	}
	lat_pub_end(s);
}

static void hiccup_publish(void *priv, struct lat_snap *s)
{
	struct hiccup *h = priv;
	__u32 c;
	int pass;

	read_self_tids(h);
	lat_pub_obj(s, "hiccup", "hiccup: who had the target's CPU while it wanted it");
	lat_pub_num(s, "threshold_ns", (__s64)h->cfg.threshold_ns);
	lat_pub_list(s, "cpus", "per CPU (pinned and watched first)");
	/* pinned CPUs first, then every CPU the target waited on */
	for (pass = 0; pass < 2; pass++) {
		for (c = 0; c < (__u32)h->run->ncpus; c++) {
			/* watched CPUs with the pinned ones: always shown */
			bool pinned = h->npinned[c] > 0 || (c < CPU_SETSIZE &&
							     CPU_ISSET(c, &h->run->watch));
			const struct lat_hc_cpu *n = &h->now[c], *b = &h->before[c];
			bool iv = n->task_hist.count != b->task_hist.count ||
				  n->intr_hist.count != b->intr_hist.count ||
				  n->count[LAT_HC_TIMER] != b->count[LAT_HC_TIMER];
			bool run = n->task_hist.count || n->intr_hist.count ||
				   n->count[LAT_HC_TIMER];

			if (pinned != (pass == 0))
				continue;
			if (pinned)
				publish_cpu(h, s, c, true, true);
			else if (run)
				publish_cpu(h, s, c, iv, run);
		}
	}
	lat_pub_end(s);
	publish_events(h, s);
	lat_pub_flags(lat_pub_count(s, "events_dropped", h->events_dropped - h->dropped_iv,
				    h->events_dropped),
		      LAT_F_NONZERO | LAT_F_DROP);
	lat_pub_flags(lat_pub_count(s, "stale_polls", h->stale_polls - h->stale_polls_before,
				    h->stale_polls), LAT_F_NONZERO | LAT_F_DROP);
	if (lat_schedcore_reporter(h->sc, h))
		lat_schedcore_publish_losses(h->sc, s, &h->loss_now, &h->loss_before);
	lat_pub_end(s);
}

static void hiccup_destroy(void *priv)
{
	struct hiccup *h = priv;
	__u32 c;

	if (!h)
		return;
	ring_buffer__free(h->rb);
	lat_yield_watch(NULL, NULL);
	lat_cpu_array_free(&h->state_map);
	lat_cpu_array_free(&h->cpu_map);
	lat_cpu_array_free(&h->cache_map);
	lat_schedcore_leave(h->sc);
	free(h->now);
	free(h->before);
	free(h->seq);
	free(h->cache);
	free(h->in_now);
	free(h->in_before);
	free(h->acc.a);
	lat_gen_free(&h->gd);
	for (c = 0; h->seen && c < (__u32)h->run->ncpus; c++)
		free(h->seen[c]);
	free(h->seen);
	free(h->events);
	free(h->pinned);
	free(h->npinned);
	free(h->nall);
	free(h->nall_before);
	free(h->pinned_time);
	free(h);
}

const struct lat_module_ops lat_hiccup_ops = {
	.name = "hiccup",
	.options = hiccup_options,
	.defaults = hiccup_defaults,
	.open = hiccup_open,
	.load = hiccup_load,
	.attach = hiccup_attach,
	.mode = hiccup_mode,
	.poll = hiccup_poll,
	.publish = hiccup_publish,
	.destroy = hiccup_destroy,
};

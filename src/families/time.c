// SPDX-License-Identifier: GPL-2.0
/*
 * time family: loader side of bpf/time.bpf.h (in the shared scheduler
 * object): every nanosecond of the target's threads, by state and cause.
 *
 * Each poll runs the object's task iterator, which credits every open
 * episode up to now, then reads the cause slots (schedtime.h, shared with
 * sched), the wakers (each CPU's cache and the hash they spill to, read so
 * that no slot moved meanwhile) and, with --per-thread, every thread's
 * causes. All are cumulative; an interval is the difference of two polls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "core/btf.h"
#include "core/clock.h"
#include "core/hist.h"
#include "core/maps.h"
#include "core/run.h"
#include "core/snap.h"
#include "core/syscall.h"
#include "families/family.h"
#include "families/schedcore.h"
#include "families/schedtime.h"
#include "latbpf/time.h"
#include "sched.skel.h"

struct time_cfg {
	bool per_thread;
};
_Static_assert(sizeof(struct time_cfg) <= LAT_FAMILY_CFG, "fits LAT_FAMILY_CFG");

static int set_per_thread(void *cfg, const char *arg)
{
	((struct time_cfg *)cfg)->per_thread = true;
	return 0;
}

/* --per-thread is sched's too: one option sets both */
static const struct lat_family_opt time_options[] = {
	{ "per-thread", NULL, "break sched histograms and time's causes down\nper thread",
	  set_per_thread },
	{ NULL },
};

/* a cause as the loader sums it (slots, the hash past them) */
struct cause {
	__u32 key;
	__u64 ns;
	struct lat_hist h;
};

struct causes {
	struct cause *c;	/* by key */
	size_t n, cap;
};

struct waker {
	struct lat_time_waker_key k;	/* gen 0 */
	struct lat_time_waker v;
};

struct wakers {
	struct waker *a;	/* by key, who, id */
	size_t n, cap;
};

/* --per-thread: a thread's causes, each histogram packed in the set's blob */
struct tcause {
	__u32 key;
	__u64 ns;
	size_t off;
};

struct tthread {
	__u32 tid, tgid, born;
	char comm[16];
	__u64 exited;		/* 0, or the poll that saw it exited */
	size_t first, n;	/* its causes in the set's c[] */
};

struct tset {
	struct tthread *t;
	size_t n, cap;
	struct tcause *c;
	size_t nc, capc;
	char *blob;
	size_t used, size;
};

/* exited threads kept by name; older ones leave the per-thread list
 * (their time stays in the totals) */
#define MAX_EXITED 4096

struct timefam {
	const struct lat_run *run;
	struct lat_schedcore *sc;
	struct sched_bpf *skel;
	struct time_cfg cfg;
	__u32 nslots;
	bool has_memstall, has_user_fault, task_throttle;
	bool cast;		/* the kernel has bpf_rdonly_cast(): sched_switch_cast */
	__u64 polls, t0;
	/* how long after the poll's moment the counts were read: an episode
	 * that ended in between is in this interval, whole (the run's most) */
	__u64 read_ns, read_max;
	struct causes now, before;
	struct lat_time_cpu *cpu;		/* per-CPU read buffer */
	struct lat_time_cpu cnow, cbefore;	/* merged */
	__u64 live, live_start, live_before;
	struct wakers wk_now, wk_before;
	struct lat_time_wk_cache *wkc;		/* per CPU: seq before, seq after, cache */
	__u64 stale_polls, stale_polls_before;
	struct tset th_now, th_before;
	/* kept from poll to poll, as the sets' buffers: read_threads' entries
	 * and its unsorted set (a block of 64 KiB and more is mmap'd: made
	 * anew at every poll it cost an mmap, its page faults, a munmap) */
	struct tset spare;
	struct tentry *re;
	size_t re_cap;
	__u64 th_dropped, th_dropped_before;
	struct lat_time_thread scratch;	/* one value of time_threads */
	struct lat_sc_losses loss_now, loss_before;	/* the shared object's, */
	char mode[256];					/* when time reports them */
};

/* slots (running and runnable's four, then the sleeping and blocked
 * causes'): what the CPUs' kernel memory allows, each 5.3 KB a CPU, 16 MiB
 * over all CPUs, 32 at most, 8 at least */
static __u32 pick_nslots(int ncpus)
{
	size_t per = (size_t)ncpus * sizeof(struct lat_time_slot);
	size_t n = per ? (16u << 20) / per : 32;

	n = n > 32 ? 32 : n < LAT_TIME_FIRST_DYN + 4 ? LAT_TIME_FIRST_DYN + 4 : n;
	return (__u32)n;
}

static void time_configure(struct sched_bpf *skel, void *priv, bool btf)
{
	struct timefam *t = priv;

	if (!btf)
		return;	/* stays off: attach says why */
	skel->rodata->en_time = true;
	skel->rodata->time_per_thread = t->cfg.per_thread;
	skel->rodata->time_nslots = t->nslots;
	bpf_map__set_max_entries(skel->maps.time_hist, t->nslots - LAT_TIME_FIRST_DYN);
	bpf_map__set_max_entries(skel->maps.time_slot_key, t->nslots);
	bpf_map__set_max_entries(skel->maps.time_key_slot, LAT_TIME_OFF_KEYS);
	bpf_map__set_max_entries(skel->maps.time_over, 256);
	bpf_map__set_max_entries(skel->maps.time_wk, (__u32)t->run->ncpus);
	lat_cpu_array_size(skel->maps.time_fixed, t->run->ncpus);
	bpf_map__set_max_entries(skel->maps.time_wakers,
				 lat_env_entries("LATBPF_TIME_WAKERS", 8192));
	/* --per-thread: preallocated (5.6 MB). Allocated as used, a thread's
	 * first entries came from a per-CPU cache that holds one to three of
	 * this size and is refilled later (kernel/bpf/memalloc.c): threads
	 * started together found it empty at their first switch-in, and their
	 * first wait was lost (threads_lost). */
	if (t->cfg.per_thread) {
		bpf_map__set_max_entries(skel->maps.time_threads, LAT_TIME_MAX_THREAD_ENTRIES);
		bpf_map__set_map_flags(skel->maps.time_threads,
				       bpf_map__map_flags(skel->maps.time_threads) &
					       ~(__u32)BPF_F_NO_PREALLOC);
	} else {
		bpf_map__set_max_entries(skel->maps.time_threads, 1);
	}
	bpf_map__set_max_entries(skel->maps.time_waking_of, skel->rodata->slot_mask + 1);
	bpf_program__set_autoload(skel->progs.time_iter, true);
	bpf_program__set_autoload(skel->progs.sched_waking, true);
	/* the switch program's twin that reads saved registers with plain
	 * loads (bpf/compat.bpf.h): ~17 ns a switch less than the helper */
	if (t->cast) {
		bpf_program__set_autoload(skel->progs.sched_switch, false);
		bpf_program__set_autoload(skel->progs.sched_switch_cast, true);
	}
}

static int time_open(const struct lat_family_ctx *fc, const void *cfg, void **priv)
{
	struct timefam *t = calloc(1, sizeof(*t));
	int n = fc->run->ncpus, err = -ENOMEM;

	if (!t)
		return -ENOMEM;
	t->run = fc->run;
	t->sc = fc->sched;
	t->cfg = *(const struct time_cfg *)cfg;
	t->nslots = pick_nslots(n);
	t->has_memstall = lat_btf_has_member(fc->btf, "task_struct", "in_memstall");
	t->has_user_fault = lat_btf_has_member(fc->btf, "task_struct", "in_user_fault");
	t->task_throttle = lat_btf_has_member(fc->btf, "task_struct", "throttled");
	t->cast = fc->btf && btf__find_by_name_kind(fc->btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0 &&
		  !getenv("LATBPF_TIME_NO_CAST");
	t->cpu = calloc((size_t)n, sizeof(*t->cpu));
	t->wkc = calloc(3 * (size_t)n, sizeof(*t->wkc));
	if (!t->cpu || !t->wkc || (err = lat_schedcore_join(fc->sched, time_configure, t))) {
		free(t->cpu);
		free(t->wkc);
		free(t);
		return err;
	}
	*priv = t;
	return 0;
}

static int time_read(void *priv, const struct lat_sc_slots *s);

static int time_load(void *priv)
{
	struct timefam *t = priv;
	int err = lat_schedcore_load(t->sc);

	if (err)
		return err;
	if (!t->sc->btf) {
		fprintf(stderr, "time: needs the tp_btf programs (BTF task pointers: the "
			"saved registers, the task's flags), which did not load: %s\n", t->sc->why);
		return -ENOTSUP;
	}
	t->skel = t->sc->skel;
	t->sc->time_read = time_read;
	t->sc->time_priv = t;
	return lat_map_template(bpf_map__fd(t->skel->maps.time_over_zero),
				&(struct lat_time_over){ .h.min = ~0ULL }, "time");
}

static int time_attach(void *priv)
{
	return lat_schedcore_attach(((struct timefam *)priv)->sc);
}

static const char *time_mode(void *priv)
{
	struct timefam *t = priv;
	size_t l = (size_t)snprintf(t->mode, sizeof(t->mode), "attached (tp_btf");

	/* what this kernel does not say, and so what is not told apart */
	if (!t->has_memstall)
		l += (size_t)snprintf(t->mode + l, sizeof(t->mode) - l,
				      "; no in_memstall: reason memory not told");
	if (!t->has_user_fault)
		l += (size_t)snprintf(t->mode + l, sizeof(t->mode) - l,
				      "; no in_user_fault: reason fault not told");
	if (!t->task_throttle)
		l += (size_t)snprintf(t->mode + l, sizeof(t->mode) - l,
				      "; throttled from the cfs_rq's throttle count");
	if (!t->cast)
		l += (size_t)snprintf(t->mode + l, sizeof(t->mode) - l,
				      "; saved registers through a helper call");
	snprintf(t->mode + l, sizeof(t->mode) - l, ")");
	return t->mode;
}

/* The window opens: nothing before t0 is credited, and every target thread
 * alive now gets its account from what it is doing (asleep since before
 * latbpf: its wait counts from here, in the call it waits in). */
static void time_start(void *priv, __u64 t0)
{
	struct timefam *t = priv;

	if (!t->skel)
		return;
	long long live;

	__u64 off;

	t->t0 = t0;
	t->skel->bss->time_t0 = t0;
	live = lat_sc_iterate(t->sc, true);
	t->live_start = t->live = live > 0 ? (__u64)live : 0;
	/* where a task's saved registers are, from its stack: one task's as
	 * the iterator saw them (the same for every task: THREAD_SIZE less
	 * the top padding less their size) */
	off = t->skel->bss->lat_regs_at - t->skel->bss->lat_stack_at;
	if (t->cast && t->skel->bss->lat_regs_at && off < (64U << 10) && !(off & 7))
		t->skel->bss->lat_regs_off = off;
}

/* ---- causes ---- */

static int cmp_cause(const void *a, const void *b)
{
	__u32 x = ((const struct cause *)a)->key, y = ((const struct cause *)b)->key;

	return (x > y) - (x < y);
}

static struct cause *cause_find(const struct causes *cs, __u32 key)
{
	struct cause k = { .key = key };

	return cs->n ? bsearch(&k, cs->c, cs->n, sizeof(k), cmp_cause) : NULL;
}

/* the cause of key in cs, added (zero) if new: cs stays sorted */
static struct cause *cause_get(struct causes *cs, __u32 key)
{
	struct cause *c = cause_find(cs, key);
	size_t i;

	if (c)
		return c;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 16;

		if (!(c = realloc(cs->c, cap * sizeof(*c))))
			return NULL;
		cs->c = c;
		cs->cap = cap;
	}
	for (i = cs->n; i > 0 && cs->c[i - 1].key > key; i--)
		;
	memmove(&cs->c[i + 1], &cs->c[i], (cs->n - i) * sizeof(*c));
	cs->n++;
	memset(&cs->c[i], 0, sizeof(cs->c[i]));
	cs->c[i].key = key;
	return &cs->c[i];
}

static int causes_copy(struct causes *to, const struct causes *from)
{
	if (to->cap < from->n) {
		struct cause *c = realloc(to->c, (from->n ? from->n : 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		to->c = c;
		to->cap = from->n;
	}
	if (from->n)
		memcpy(to->c, from->c, from->n * sizeof(*to->c));
	to->n = from->n;
	return 0;
}

static int read_causes(struct timefam *t, const struct lat_sc_slots *s)
{
	struct cause *c;
	int err;

	if ((err = causes_copy(&t->before, &t->now)))
		return err;
	t->live = s->live;
	/* cumulative: rebuilt from the slots each poll */
	for (size_t i = 0; i < t->now.n; i++) {
		t->now.c[i].ns = 0;
		memset(&t->now.c[i].h, 0, sizeof(t->now.c[i].h));
	}
	for (__u32 i = 0; i < s->nslots; i++) {
		if (!s->taken[i] || !(s->slot[i].ns || s->slot[i].h.count))
			continue;
		if (!(c = cause_get(&t->now, s->key[i])))
			return -ENOMEM;
		c->ns += s->slot[i].ns;
		lat_hist_merge(&c->h, &s->slot[i].h);
	}
	for (size_t i = 0; i < s->nover; i++) {
		if (!(c = cause_get(&t->now, s->over[i].key)))
			return -ENOMEM;
		c->ns += s->over[i].v.ns;
		lat_hist_merge(&c->h, &s->over[i].v.h);
	}
	return 0;
}

static int read_cpu(struct timefam *t)
{
	__u32 k = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.time_cpu), &k, t->cpu))
		return -errno;
	t->cbefore = t->cnow;
	memset(&t->cnow, 0, sizeof(t->cnow));
	for (int i = 0; i < t->run->ncpus; i++) {
		t->cnow.exited += t->cpu[i].exited;
		t->cnow.over += t->cpu[i].over;
		t->cnow.over_lost += t->cpu[i].over_lost;
		t->cnow.wakers_lost += t->cpu[i].wakers_lost;
		t->cnow.threads_lost += t->cpu[i].threads_lost;
		t->cnow.born += t->cpu[i].born;
		t->cnow.untraced_in += t->cpu[i].untraced_in;
	}
	return 0;
}

/* ---- wakers ---- */

static int cmp_waker(const void *a, const void *b)
{
	const struct lat_time_waker_key *x = a, *y = b;

	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	if (x->who != y->who)
		return (x->who > y->who) - (x->who < y->who);
	return (x->id > y->id) - (x->id < y->id);
}

/* adds (k, v) to ws, unsorted; the caller sorts and sums */
static int waker_push(struct wakers *ws, const struct lat_time_waker_key *k,
		      const struct lat_time_waker *v)
{
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 64;
		struct waker *a = realloc(ws->a, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		ws->a = a;
		ws->cap = cap;
	}
	ws->a[ws->n].k = *k;
	ws->a[ws->n].k.gen = 0;
	ws->a[ws->n].k._pad = 0;
	ws->a[ws->n++].v = *v;
	return 0;
}

static int waker_from_hash(const void *key, void *value, void *ctx)
{
	return waker_push(ctx, key, value);
}

/* sorted, the same waker's entries (cache and hash) summed */
static void wakers_sum(struct wakers *ws)
{
	size_t i, k = 0;

	if (ws->n)
		qsort(ws->a, ws->n, sizeof(*ws->a), cmp_waker);
	for (i = 0; i < ws->n; i++) {
		if (k && !cmp_waker(&ws->a[k - 1].k, &ws->a[i].k)) {
			ws->a[k - 1].v.count += ws->a[i].v.count;
			ws->a[k - 1].v.ns += ws->a[i].v.ns;
			continue;
		}
		ws->a[k++] = ws->a[i];
	}
	ws->n = k;
}

static int read_caches(int fd, struct lat_time_wk_cache *to, int n)
{
	for (__u32 c = 0; c < (__u32)n; c++)
		if (bpf_map_lookup_elem(fd, &c, &to[c]))
			return -errno;
	return 0;
}

/* The wakers: the hash and every CPU's cache, read so that no slot moved
 * into the hash meanwhile (seq even and the same before the hash was read
 * and after the caches were); after 8 tries the list stays as it was (a
 * stale poll, counted) and the next poll has what moved. */
static int read_wakers(struct timefam *t)
{
	int cfd = bpf_map__fd(t->skel->maps.time_wk), n = t->run->ncpus, err = 0, tries;
	struct lat_time_wk_cache *s0 = t->wkc, *s1 = t->wkc + n, *cache = t->wkc + 2 * n;
	struct wakers l = { 0 }, swap;
	struct lat_time_waker v;
	bool same = false;

	for (tries = 0; tries < 8 && !same; tries++) {
		l.n = 0;
		if ((err = read_caches(cfd, s0, n)) ||
		    (err = lat_map_each(bpf_map__fd(t->skel->maps.time_wakers),
					sizeof(struct lat_time_waker_key), &v, waker_from_hash,
					&l)) ||
		    (err = read_caches(cfd, cache, n)) || (err = read_caches(cfd, s1, n)))
			break;
		same = true;
		for (int c = 0; c < n; c++)
			same &= s0[c].seq == s1[c].seq && !(s0[c].seq & 1);
	}
	if (err || !same) {
		free(l.a);
		if (!err)
			t->stale_polls++;
		/* the list before is the list now: this interval names none */
		return err ? err : -EAGAIN;
	}
	for (int c = 0; c < n && !err; c++)
		for (int i = 0; i < LAT_TIME_WK_SLOTS && !err; i++)
			if (cache[c].slot[i].v.count)
				err = waker_push(&l, &cache[c].slot[i].k, &cache[c].slot[i].v);
	if (err) {
		free(l.a);
		return err;
	}
	wakers_sum(&l);
	swap = t->wk_before;
	t->wk_before = t->wk_now;
	t->wk_now = l;
	free(swap.a);
	return 0;
}

/* ---- per thread ---- */

static void tset_free(struct tset *ts)
{
	free(ts->t);
	free(ts->c);
	free(ts->blob);
	memset(ts, 0, sizeof(*ts));
}

/* an empty set in the buffers of ts, which it takes (ts left empty) */
static struct tset tset_reuse(struct tset *ts)
{
	struct tset r = *ts;

	memset(ts, 0, sizeof(*ts));
	r.n = r.nc = r.used = 0;
	return r;
}

static const struct lat_hist_packed *tset_hist(const struct tset *ts, const struct tcause *c)
{
	return (const struct lat_hist_packed *)(ts->blob + c->off);
}

/* one map entry, (tid, key) -> value, as read: sorted and grouped after */
struct tentry {
	struct lat_time_thread_key k;
	__u32 tgid, born, exited;
	char comm[16];
	__u64 ns;
	size_t off;	/* packed histogram in the set's blob */
};

struct tread {
	struct tentry *e;
	size_t n, cap;
	struct tset *ts;	/* its blob */
};

static int blob_room(struct tset *ts, size_t need)
{
	if (ts->used + need > ts->size) {
		size_t size = 2 * ts->size > ts->used + need ? 2 * ts->size : ts->used + need + 65536;
		char *b = realloc(ts->blob, size);

		if (!b)
			return -ENOMEM;
		ts->blob = b;
		ts->size = size;
	}
	return 0;
}

/* e's time and histogram from the map's value v, packed into the blob */
static int tentry_value(struct tread *r, struct tentry *e, const struct lat_time_thread *v)
{
	size_t need = lat_hist_packed_size(&v->h);

	if (blob_room(r->ts, need))
		return -ENOMEM;
	e->ns = v->ns;
	e->off = r->ts->used;
	lat_hist_pack((struct lat_hist_packed *)(r->ts->blob + r->ts->used), &v->h);
	r->ts->used += need;
	return 0;
}

static int tentry_add(const void *key, void *value, void *ctx)
{
	const struct lat_time_thread *v = value;
	struct tread *r = ctx;
	struct tentry *e;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;

		if (!(e = realloc(r->e, cap * sizeof(*e))))
			return -ENOMEM;
		r->e = e;
		r->cap = cap;
	}
	e = &r->e[r->n];
	e->k = *(const struct lat_time_thread_key *)key;
	e->tgid = v->tgid;
	e->born = v->born;
	e->exited = v->exited;
	memcpy(e->comm, v->comm, sizeof(e->comm));
	if (tentry_value(r, e, v))
		return -ENOMEM;
	r->n++;
	return 0;
}

static int cmp_tentry(const void *a, const void *b)
{
	const struct tentry *x = a, *y = b;

	if (x->k.tid != y->k.tid)
		return (x->k.tid > y->k.tid) - (x->k.tid < y->k.tid);
	if (x->born != y->born)
		return (x->born > y->born) - (x->born < y->born);
	return (x->k.key > y->k.key) - (x->k.key < y->k.key);
}

static int cmp_tthread(const void *a, const void *b)
{
	const struct tthread *x = a, *y = b;

	return x->tid != y->tid ? (x->tid > y->tid) - (x->tid < y->tid) :
				  (x->born > y->born) - (x->born < y->born);
}

static int tset_thread(struct tset *ts, const struct tthread *proto)
{
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? 2 * ts->cap : 64;
		struct tthread *t = realloc(ts->t, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		ts->t = t;
		ts->cap = cap;
	}
	ts->t[ts->n] = *proto;
	ts->t[ts->n].first = ts->nc;
	ts->t[ts->n].n = 0;
	ts->n++;
	return 0;
}

static int tset_cause(struct tset *ts, __u32 key, __u64 ns, size_t off)
{
	if (ts->nc == ts->capc) {
		size_t cap = ts->capc ? 2 * ts->capc : 256;
		struct tcause *c = realloc(ts->c, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		ts->c = c;
		ts->capc = cap;
	}
	ts->c[ts->nc++] = (struct tcause){ .key = key, .ns = ns, .off = off };
	ts->t[ts->n - 1].n++;
	return 0;
}

/* a thread of another set, with its causes, into ts */
static int tset_copy(struct tset *ts, const struct tset *from, const struct tthread *th)
{
	int err = tset_thread(ts, th);

	for (size_t i = 0; !err && i < th->n; i++) {
		const struct tcause *c = &from->c[th->first + i];
		size_t n = lat_hist_packed_bytes(tset_hist(from, c));

		if ((err = blob_room(ts, n)))
			break;
		memcpy(ts->blob + ts->used, tset_hist(from, c), n);
		err = tset_cause(ts, c->key, c->ns, ts->used);
		ts->used += n;
	}
	return err;
}

/* e's value read again (its packed size may differ); kept as it was if
 * the entry is gone */
static int tentry_reread(int fd, struct tread *r, struct tentry *e, struct lat_time_thread *v)
{
	return bpf_map_lookup_elem(fd, &e->k, v) ? 0 : tentry_value(r, e, v);
}

/*
 * Every thread's causes from the hash, grouped by thread; a thread whose
 * last switch is done is read a last time and its entries deleted, so the
 * hash holds live threads; the exited ones stay here by name (the newest
 * MAX_EXITED).
 *
 * One read of the hash is not one moment: an entry read before the
 * thread's head may miss the thread's last credits (its last wait's end,
 * its last run), which land before the head says exited. So the entries
 * of a thread seen exited are read again, one by one, before they go:
 * final then. An entry the thread made while the hash was read, after its
 * place was passed, is found by a later poll under a thread that exited
 * before (no head: it went): its causes join that thread's, and it goes.
 */
static int read_threads(struct timefam *t)
{
	int fd = bpf_map__fd(t->skel->maps.time_threads), err;
	struct tset ts = tset_reuse(&t->spare), *bs = &t->th_now;
	struct tread r = { .e = t->re, .cap = t->re_cap, .ts = &ts };
	struct lat_time_thread_key *gone = NULL;
	size_t i, j, ngone = 0, keep;
	struct tthread th;

	err = lat_map_each(fd, sizeof(struct lat_time_thread_key), &t->scratch, tentry_add, &r);
	if (!err && r.n && !(gone = malloc(r.n * sizeof(*gone))))
		err = -ENOMEM;
	qsort(r.e, r.n, sizeof(*r.e), cmp_tentry);
	for (i = 0; !err && i < r.n; i = j) {
		const struct tthread *o = NULL;
		bool exited = false;

		for (j = i; j < r.n && r.e[j].k.tid == r.e[i].k.tid && r.e[j].born == r.e[i].born;
		     j++)
			exited |= r.e[j].k.key == LAT_TIME_THREAD_HEAD && r.e[j].exited;
		memset(&th, 0, sizeof(th));
		th.tid = r.e[i].k.tid;
		th.tgid = r.e[i].tgid;
		th.born = r.e[i].born;
		memcpy(th.comm, r.e[i].comm, sizeof(th.comm));
		if (!exited && bs->n &&
		    (o = bsearch(&th, bs->t, bs->n, sizeof(*o), cmp_tthread)) && !o->exited)
			o = NULL;
		if (o)		/* a late entry of a thread gone before */
			err = tset_copy(&ts, bs, o);
		else {
			th.exited = exited ? t->polls : 0;
			err = tset_thread(&ts, &th);
		}
		for (size_t k = i; k < j && !err; k++) {
			if (exited && r.e[k].k.key != LAT_TIME_THREAD_HEAD)
				err = tentry_reread(fd, &r, &r.e[k], &t->scratch);
			if (!err && r.e[k].k.key != LAT_TIME_THREAD_HEAD)
				err = tset_cause(&ts, r.e[k].k.key, r.e[k].ns, r.e[k].off);
			if (exited || o)
				gone[ngone++] = r.e[k].k;
		}
	}
	if (!err && ngone)
		lat_map_delete_keys(fd, gone, ngone, sizeof(*gone));
	free(gone);
	t->re = r.e;
	t->re_cap = r.cap;
	/* exited threads of before whose entries are gone, the newest kept */
	keep = MAX_EXITED;
	for (i = bs->n; !err && i-- > 0;) {
		const struct tthread *o = &bs->t[i];

		if (!o->exited || bsearch(o, ts.t, ts.n, sizeof(*o), cmp_tthread))
			continue;
		if (keep == 0) {
			t->th_dropped++;
			continue;
		}
		keep--;
		err = tset_copy(&ts, bs, o);
	}
	if (err) {
		tset_free(&ts);
		return err;
	}
	/* the map's were sorted; the copied exited ones sort in */
	{
		struct tthread **idx = malloc((ts.n ? ts.n : 1) * sizeof(*idx));
		struct tset sorted;

		if (!idx) {
			tset_free(&ts);
			return -ENOMEM;
		}
		/* the set before last's buffers, from here on (a copy that
		 * fails leaves the family's last interval without it) */
		sorted = tset_reuse(&t->th_before);
		for (i = 0; i < ts.n; i++)
			idx[i] = &ts.t[i];
		for (i = 1; i < ts.n; i++)	/* insertion: nearly sorted */
			for (j = i; j > 0 && cmp_tthread(idx[j - 1], idx[j]) > 0; j--) {
				struct tthread *x = idx[j];

				idx[j] = idx[j - 1];
				idx[j - 1] = x;
			}
		for (i = 0; !err && i < ts.n; i++)
			err = tset_copy(&sorted, &ts, idx[i]);
		free(idx);
		t->spare = ts;
		if (err) {
			tset_free(&sorted);
			return err;
		}
		ts = sorted;
	}
	t->th_before = t->th_now;
	t->th_now = ts;
	return 0;
}

/* The poll's read, right after the slots' (schedtime.c: whichever of
 * sched and time polls first), so every count ends at the poll's moment */
static int time_read(void *priv, const struct lat_sc_slots *s)
{
	struct timefam *t = priv;
	int err;

	t->polls++;
	t->live_before = t->live;
	t->stale_polls_before = t->stale_polls;
	t->th_dropped_before = t->th_dropped;
	t->loss_before = t->loss_now;
	lat_schedcore_losses(t->sc, &t->loss_now);
	if ((err = read_causes(t, s)) || (err = read_cpu(t)))
		return err;
	err = read_wakers(t);
	if (err == -EAGAIN) {	/* stale: the same list twice */
		struct wakers copy = { .n = t->wk_now.n, .cap = t->wk_now.n,
				       .a = malloc((t->wk_now.n + 1) * sizeof(struct waker)) };

		if (!copy.a)
			return -ENOMEM;
		if (t->wk_now.n)
			memcpy(copy.a, t->wk_now.a, t->wk_now.n * sizeof(struct waker));
		free(t->wk_before.a);
		t->wk_before = copy;
		err = 0;
	}
	if (err)
		return err;
	if (t->cfg.per_thread && (err = read_threads(t)))
		return err;
	t->read_ns = t->sc->poll_ns ? lat_now_ns() - t->sc->poll_ns : 0;
	t->read_max = t->read_ns > t->read_max ? t->read_ns : t->read_max;
	return 0;
}

static int time_poll(void *priv)
{
	struct timefam *t = priv;
	const struct lat_sc_slots *s;
	int err = lat_sc_slots_read(t->sc, LAT_SC_READER_TIME, &s);

	return err ? err : t->sc->time_err;
}

/* ---- names ---- */

static const char *const state_names[LAT_TIME_NR_STATES] = {
	"running", "runnable", "sleeping", "blocked"
};
static const char *const runnable_names[LAT_TIME_NR_RUNNABLE] = {
	"preempted", "woken", "throttled"
};
static const char *const reason_names[] = { NULL, "io", "memory", "fault" };

static const char *cause_name(__u32 key, char *buf, size_t len)
{
	__u32 code = LAT_TIME_KEY_CODE(key);

	switch (LAT_TIME_KEY_STATE(key)) {
	case LAT_TIME_RUNNING:
		return NULL;
	case LAT_TIME_RUNNABLE:
		return code < LAT_TIME_NR_RUNNABLE ? runnable_names[code] : "?";
	}
	if (code == LAT_TIME_CODE_NONE)
		return "none";
	if (code == LAT_TIME_CODE_BAD)
		return "unknown";
	return lat_syscall_name(code - 1, LAT_TIME_KEY_COMPAT(key), buf, len);
}

static const char *const who_names[] = {
	[LAT_TIME_WHO_TASK] = "task", [LAT_TIME_WHO_IRQ] = "irq",
	[LAT_TIME_WHO_IDLE] = "idle",
};

/* ---- publish ---- */

static const struct waker *waker_before(const struct timefam *t, const struct waker *w)
{
	return t->wk_before.n ? bsearch(&w->k, t->wk_before.a, t->wk_before.n,
					sizeof(*w), cmp_waker) : NULL;
}

static void publish_waker(struct lat_snap *s, const struct waker *w, __u64 iv_count,
			  __u64 iv_ns)
{
	lat_pub_item(s, iv_count > 0, true);
	lat_pub_str(s, "kind", w->k.who < sizeof(who_names) / sizeof(who_names[0]) ?
		    who_names[w->k.who] : "?");
	if (w->k.who == LAT_TIME_WHO_TASK) {
		char comm[17];

		memcpy(comm, w->v.comm, 16);
		comm[16] = '\0';
		lat_pub_str(s, "name", comm);
		lat_pub_num(s, "pid", w->v.pid);
		lat_pub_num(s, "tid", w->k.id);
	} else {
		lat_pub_str(s, "name", w->k.who < sizeof(who_names) / sizeof(who_names[0]) ?
			    who_names[w->k.who] : "?");
	}
	lat_pub_count(s, "count", iv_count, w->v.count);
	lat_pub_dur(s, "ns", iv_ns, w->v.ns);
	lat_pub_end(s);
}

/* a waker summed over the causes of its sleeps, with its interval */
struct wsum {
	struct waker w;		/* key 0 */
	__u64 iv_count, iv_ns;
};

static int cmp_wsum(const void *a, const void *b)
{
	return cmp_waker(&((const struct wsum *)a)->w.k, &((const struct wsum *)b)->w.k);
}

/* every sleep's wakers, summed by waker: who woke the thread at all */
static void publish_all_wakers(struct timefam *t, struct lat_snap *s)
{
	struct wsum *a = malloc((t->wk_now.n + 1) * sizeof(*a));
	size_t n = 0;

	if (!a)
		return;
	for (size_t i = 0; i < t->wk_now.n; i++) {
		const struct waker *w = &t->wk_now.a[i], *b = waker_before(t, w);

		a[n].w = *w;
		a[n].w.k.key = 0;
		a[n].iv_count = b ? w->v.count - b->v.count : w->v.count;
		a[n++].iv_ns = b ? w->v.ns - b->v.ns : w->v.ns;
	}
	qsort(a, n, sizeof(*a), cmp_wsum);
	for (size_t i = 0, k = 0; i < n; i++) {
		if (k && !cmp_wsum(&a[k - 1], &a[i])) {
			a[k - 1].w.v.count += a[i].w.v.count;
			a[k - 1].w.v.ns += a[i].w.v.ns;
			a[k - 1].iv_count += a[i].iv_count;
			a[k - 1].iv_ns += a[i].iv_ns;
		} else {
			a[k++] = a[i];
		}
		if (i + 1 == n)
			n = k;
	}
	for (size_t i = 0; i < n; i++)
		publish_waker(s, &a[i].w, a[i].iv_count, a[i].iv_ns);
	free(a);
}

/* the wakers of key's sleeps; all: of every sleep (the woken runnable's) */
static void publish_wakers(struct timefam *t, struct lat_snap *s, __u32 key, bool all)
{
	const struct wakers *ws = &t->wk_now;

	lat_pub_list(s, "wakers", "who ended these sleeps: the task running, or the "
		     "interrupt, at the wakeup");
	lat_pub_rank(s, "count", 5, 1);
	if (all)
		publish_all_wakers(t, s);
	for (size_t i = 0; !all && i < ws->n; i++) {
		const struct waker *w = &ws->a[i], *b;

		if (w->k.key != key)
			continue;
		b = waker_before(t, w);
		publish_waker(s, w, b ? w->v.count - b->v.count : w->v.count,
			      b ? w->v.ns - b->v.ns : w->v.ns);
	}
	lat_pub_end(s);
}

/* one cause as a list item: its labels, time, episodes (not running's) */
static void publish_cause(struct timefam *t, struct lat_snap *s, __u32 key, __u64 ns,
			  __u64 ns_before, const struct lat_hist *h, const struct lat_hist *hb,
			  const struct lat_hist_packed *hp, const struct lat_hist_packed *hpb,
			  bool wakers)
{
	__u32 state = LAT_TIME_KEY_STATE(key), reason = LAT_TIME_KEY_REASON(key);
	const char *cause;
	struct lat_node *n;
	char buf[48];

	lat_pub_item(s, ns > ns_before, ns > 0);
	lat_pub_str_label(s, "state", state_names[state]);
	if ((cause = cause_name(key, buf, sizeof(buf))))
		lat_pub_str_label(s, "cause", cause);
	if (state >= LAT_TIME_SLEEPING && reason)
		lat_pub_str_label(s, "reason", reason_names[reason]);
	lat_pub_label_members(s);
	n = lat_pub_dur(s, "ns", ns - ns_before, ns);
	if (n)
		n->metric = "time";	/* latbpf_thread_time_seconds_total */
	if (state != LAT_TIME_RUNNING) {
		n = hp ? lat_pub_hist_packed(s, "hist", "episodes (each one's length, at its end)",
					     hp, hpb) :
			 lat_pub_hist(s, "hist", "episodes (each one's length, at its end)", h, hb);
		lat_pub_flags(n, LAT_F_INLINE);
		if (n)
			n->metric = "episode";	/* latbpf_thread_episode_seconds */
	}
	if (wakers && (state >= LAT_TIME_SLEEPING ||
		       key == LAT_TIME_KEY(LAT_TIME_RUNNABLE, 0, LAT_TIME_WOKEN)))
		publish_wakers(t, s, key, state == LAT_TIME_RUNNABLE);
	lat_pub_end(s);
}

static void publish_causes(struct timefam *t, struct lat_snap *s)
{
	lat_pub_flags(lat_pub_list(s, "causes", "where the time went: each state and cause, "
				   "its share of the threads' wall time"), LAT_F_SHARES);
	lat_pub_rank(s, "ns", 0, 0);
	for (size_t i = 0; i < t->now.n; i++) {
		const struct cause *c = &t->now.c[i], *b = cause_find(&t->before, c->key);

		publish_cause(t, s, c->key, c->ns, b ? b->ns : 0, &c->h, b ? &b->h : NULL,
			      NULL, NULL, true);
	}
	lat_pub_end(s);
}

static const struct tthread *thread_before(const struct timefam *t, const struct tthread *th)
{
	return t->th_before.n ? bsearch(th, t->th_before.t, t->th_before.n, sizeof(*th),
					cmp_tthread) : NULL;
}

static const struct tcause *tcause_of(const struct tset *ts, const struct tthread *th,
				      __u32 key)
{
	for (size_t i = 0; th && i < th->n; i++)
		if (ts->c[th->first + i].key == key)
			return &ts->c[th->first + i];
	return NULL;
}

static void publish_threads(struct timefam *t, struct lat_snap *s)
{
	const struct tset *now = &t->th_now, *bs = &t->th_before;
	char tid[16], tag[24], comm[17];
	struct lat_node *n;

	lat_pub_flags(lat_pub_list(s, "per_thread", "per thread"), LAT_F_BREAKDOWN);
	for (size_t i = 0; i < now->n; i++) {
		const struct tthread *th = &now->t[i], *b = thread_before(t, th);
		__u64 wall = 0, wall_b = 0;

		for (size_t k = 0; k < th->n; k++) {
			const struct tcause *c = &now->c[th->first + k], *cb = tcause_of(bs, b, c->key);

			wall += c->ns;
			wall_b += cb ? cb->ns : 0;
		}
		lat_pub_item(s, wall > wall_b, true);
		snprintf(tid, sizeof(tid), "%u", th->tid);
		snprintf(tag, sizeof(tag), "thread.%u", th->tid);
		lat_pub_label(s, "tid", tid, tag);
		lat_pub_num(s, "tid", th->tid);
		lat_pub_num(s, "pid", th->tgid);
		memcpy(comm, th->comm, 16);
		comm[16] = '\0';
		lat_pub_str(s, "comm", comm);
		n = lat_pub_obj(s, "time", "its wall time, by state and cause");
		if (n)
			n->metric = "";	/* latbpf_thread_per_thread_time_seconds_total */
		lat_pub_dur(s, "wall_ns", wall - wall_b, wall);
		lat_pub_list(s, "causes", "where its time went");
		lat_pub_rank(s, "ns", 0, 0);
		for (size_t k = 0; k < th->n; k++) {
			const struct tcause *c = &now->c[th->first + k], *cb = tcause_of(bs, b, c->key);

			publish_cause(t, s, c->key, c->ns, cb ? cb->ns : 0, NULL, NULL,
				      tset_hist(now, c), cb ? tset_hist(bs, cb) : NULL, false);
		}
		lat_pub_end(s);	/* causes */
		lat_pub_end(s);	/* time */
		lat_pub_end(s);	/* item */
	}
	lat_pub_end(s);
}

static void drop(struct lat_snap *s, const char *key, __u64 now, __u64 before)
{
	lat_pub_flags(lat_pub_count(s, key, now - before, now), LAT_F_NONZERO | LAT_F_DROP);
}

static void time_publish(void *priv, struct lat_snap *s)
{
	struct timefam *t = priv;
	__u64 wall = 0, wall_b = 0;
	struct lat_node *n;

	for (size_t i = 0; i < t->now.n; i++)
		wall += t->now.c[i].ns;
	for (size_t i = 0; i < t->before.n; i++)
		wall_b += t->before.c[i].ns;
	n = lat_pub_obj(s, "time", "time: where the target's threads' wall time went, "
			"by state and cause");
	if (n)
		n->metric = "thread";
	/* the threads that lived in the interval: alive at its end, or ended
	 * in it; in the run: alive at the start, or started since */
	n = lat_pub_count(s, "threads", t->live + t->cnow.exited - t->cbefore.exited,
			  t->live_start + t->cnow.born);
	lat_pub_dur(s, "wall_ns", wall - wall_b, wall);
	lat_pub_flags(lat_pub_dur(s, "read_ns", t->read_ns, t->read_max), LAT_F_GAUGE);
	publish_causes(t, s);
	if (t->cfg.per_thread)
		publish_threads(t, s);
	lat_pub_flags(lat_pub_count(s, "over", t->cnow.over - t->cbefore.over, t->cnow.over),
		      LAT_F_NONZERO);
	/* runs whose switch-in the kernel did not trace, split by the fair
	 * class's clock of the run (bpf/compat.bpf.h: lat_task_last_run) */
	lat_pub_flags(lat_pub_count(s, "untraced_switch_ins",
				    t->cnow.untraced_in - t->cbefore.untraced_in,
				    t->cnow.untraced_in), LAT_F_NONZERO);
	drop(s, "over_lost", t->cnow.over_lost, t->cbefore.over_lost);
	drop(s, "wakers_lost", t->cnow.wakers_lost, t->cbefore.wakers_lost);
	drop(s, "stale_polls", t->stale_polls, t->stale_polls_before);
	if (t->cfg.per_thread) {
		drop(s, "threads_lost", t->cnow.threads_lost, t->cbefore.threads_lost);
		drop(s, "threads_dropped", t->th_dropped, t->th_dropped_before);
	}
	/* the shared object's losses, when sched does not run to say them */
	if (lat_schedcore_reporter(t->sc, t))
		lat_schedcore_publish_losses(t->sc, s, &t->loss_now, &t->loss_before);
	lat_pub_end(s);
}

static void time_destroy(void *priv)
{
	struct timefam *t = priv;

	if (!t)
		return;
	if (t->sc->time_priv == t)
		t->sc->time_read = NULL;
	lat_schedcore_leave(t->sc);
	free(t->cpu);
	free(t->wkc);
	free(t->now.c);
	free(t->before.c);
	free(t->wk_now.a);
	free(t->wk_before.a);
	tset_free(&t->th_now);
	tset_free(&t->th_before);
	tset_free(&t->spare);
	free(t->re);
	free(t);
}

/* opt_in: asked for with --probes (all,time): on every wakeup in the
 * system its sched_waking program runs (~55 ns, the cost of any program
 * there), which puts an idle --pid target further above the floor, and a
 * target's switch costs 11-20 ns more than sched's alone (the 15 the family
 * may add; docs/performance.md) */
const struct lat_module_ops lat_time_ops = {
	.name = "time",
	.opt_in = true,
	.options = time_options,
	.open = time_open,
	.load = time_load,
	.attach = time_attach,
	.start = time_start,
	.mode = time_mode,
	.poll = time_poll,
	.publish = time_publish,
	.destroy = time_destroy,
};

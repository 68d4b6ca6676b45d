// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's reading of its records (core/flight.h): the target
 * threads' waits, as they arrive; the triggers they trip and the incidents
 * those save; and, once an incident's window is over, the breakdown of its
 * wait into what had the CPU meanwhile.
 *
 * A wait, on the CPU the thread then runs on:
 *   preempted  switched out still runnable ........ until it runs again
 *   wakeup     sched_waking ....................... until it runs
 *   irq        a hard IRQ handler while it runs ... until the handler exits
 *   softirq    a softirq while it runs ............ until it exits
 * The first two are the run-queue waits (runq>); all four are hiccups
 * (hiccup>), as the hiccup family counts them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/flight.h"
#include "core/hist.h"
#include "core/snap.h"

const char *const lat_rec_delay_names[LAT_REC_D_NR] = {
	"preempted", "wakeup", "irq", "softirq",
};
const char *const lat_part_names[LAT_PART_NR] = {
	"task", "irq", "softirq", "wakeup", "unexplained",
};

const char *lat_softirq_name(__u32 vec)
{
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "?";
}

/* ---- the target threads' states ---- */

static size_t slot_of(__u32 tid, size_t cap)
{
	return (size_t)((tid * 2654435761U) & (cap - 1));
}

static struct lat_flight_task *task_find(struct lat_flight *f, __u32 tid)
{
	size_t i;

	if (!f->tasks_cap)
		return NULL;
	for (i = slot_of(tid, f->tasks_cap); f->tasks[i].tid; i = (i + 1) & (f->tasks_cap - 1))
		if (f->tasks[i].tid == tid)
			return &f->tasks[i];
	return NULL;
}

#define TASKS_MAX (1U << 18)

static int tasks_grow(struct lat_flight *f)
{
	size_t cap = f->tasks_cap ? 2 * f->tasks_cap : 1024, old = f->tasks_cap;
	struct lat_flight_task *t = calloc(cap, sizeof(*t)), *o = f->tasks;

	if (!t)
		return -ENOMEM;
	f->tasks = t;
	f->tasks_cap = cap;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!o[i].tid)
			continue;
		for (j = slot_of(o[i].tid, cap); t[j].tid; j = (j + 1) & (cap - 1))
			;
		t[j] = o[i];
	}
	free(o);
	return 0;
}

static struct lat_flight_task *task_get(struct lat_flight *f, __u32 tid)
{
	struct lat_flight_task *t = task_find(f, tid);
	size_t i;

	if (t)
		return t;
	if ((f->ntasks + 1) * 2 > f->tasks_cap &&
	    (f->tasks_cap >= TASKS_MAX || tasks_grow(f)))
		return NULL;
	for (i = slot_of(tid, f->tasks_cap); f->tasks[i].tid; i = (i + 1) & (f->tasks_cap - 1))
		;
	memset(&f->tasks[i], 0, sizeof(f->tasks[i]));
	f->tasks[i].tid = tid;
	f->ntasks++;
	return &f->tasks[i];
}

/* linear probing: the entries after it move back into the hole */
static void task_del(struct lat_flight *f, struct lat_flight_task *t)
{
	size_t m = f->tasks_cap - 1, i = (size_t)(t - f->tasks), j = i, k;

	t->tid = 0;
	f->ntasks--;
	for (;;) {
		j = (j + 1) & m;
		if (!f->tasks[j].tid)
			return;
		k = slot_of(f->tasks[j].tid, f->tasks_cap);
		/* stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		f->tasks[i] = f->tasks[j];
		f->tasks[j].tid = 0;
		i = j;
	}
}

/* ---- triggers and incidents ---- */

static struct lat_incident *incident_new(struct lat_flight *f, int trig, __u64 at,
					 __u64 from, __u64 to, __u64 value)
{
	struct lat_incident *in;

	if (f->ninc == f->inc_cap) {
		size_t cap = f->inc_cap ? 2 * f->inc_cap : 16;

		if (cap > LAT_FLIGHT_MAX_INCIDENTS)
			return NULL;
		in = realloc(f->inc, cap * sizeof(*in));
		if (!in)
			return NULL;
		f->inc = in;
		f->inc_cap = cap;
	}
	in = &f->inc[f->ninc++];
	memset(in, 0, sizeof(*in));
	in->n = f->next_n++;
	in->trig = trig;
	in->at = at;
	in->from = from;
	in->to = to;
	in->value_ns = value;
	return in;
}

/* Trigger i fires at `at` (its window around [start, at]), unless its rate
 * or its count says no. */
static struct lat_incident *fire(struct lat_flight *f, int i, __u64 start, __u64 at,
				 __u64 value)
{
	const struct lat_trigger *t = &f->o.trig[i];
	struct lat_trig_stats *s = &f->ts[i];
	struct lat_incident *in;

	if (s->fired >= t->max || (s->fired && at - s->last_at < t->every_ns)) {
		s->skipped++;
		return NULL;
	}
	in = incident_new(f, i, at, start > t->before_ns ? start - t->before_ns : 0,
			  at + t->after_ns, value);
	if (!in) {
		s->skipped++;
		return NULL;
	}
	s->fired++;
	s->last_at = at;
	return in;
}

/* A target's wait ended: kept as a record, and shown to the triggers. */
static void waited(struct lat_flight *f, const struct lat_flight_task *t, __u32 cpu,
		   __u8 kind, __u64 start, __u64 end)
{
	struct lat_rec_delay d = {
		.h = { .ts = end, .pid = t->tid, .cpu = (__u16)cpu, .type = LAT_REC_DELAY },
		.start = start, .tgid = t->tgid, .kind = kind,
	};
	__u64 len = end > start ? end - start : 0;

	memcpy(d.comm, t->comm, sizeof(d.comm));
	if (kind == LAT_REC_D_WAKEUP) {
		d.waker = t->waker;
		d.waker_cpu = t->wcpu;
		d.waker_flags = t->wflags;
		memcpy(d.waker_comm, t->wcomm, sizeof(d.waker_comm));
	}
	if (len >= LAT_FLIGHT_DELAY_FLOOR)
		lat_flight_store(f, &d, sizeof(d));
	for (int i = 0; i < f->o.ntrig; i++) {
		const struct lat_trigger *tr = &f->o.trig[i];
		struct lat_incident *in;

		if (!(tr->kind == LAT_TRIG_HICCUP ||
		      (tr->kind == LAT_TRIG_RUNQ && kind <= LAT_REC_D_WAKEUP)) ||
		    len <= tr->above_ns)
			continue;
		in = fire(f, i, start, end, len);
		if (in) {
			in->has_delay = true;
			in->d = d;
		}
	}
}

/* A CPU's interrupt interrupts the target running there: a wait too. */
static void cpu_event(struct lat_flight *f, struct lat_flight_cpu *c, const void *rec)
{
	const struct lat_rec_head *h = rec;
	const struct lat_rec_irq *q = rec;
	const struct lat_rec_softirq *sq = rec;
	struct lat_flight_task who = { .tid = c->cur, .tgid = c->cur_tgid };

	memcpy(who.comm, c->cur_comm, sizeof(who.comm));
	switch (h->type) {
	case LAT_REC_IRQ:
		if (c->hard++ == 0) {
			c->hard_start = h->ts;
			c->hard_irq = q->irq;
		}
		break;
	case LAT_REC_IRQ_EXIT:
		if (c->hard > 0 && --c->hard == 0 && c->cur_target && c->cur)
			waited(f, &who, h->cpu, LAT_REC_D_IRQ, c->hard_start, h->ts);
		break;
	case LAT_REC_SOFTIRQ:
		c->soft = true;
		c->soft_start = h->ts;
		c->soft_vec = sq->vec;
		break;
	case LAT_REC_SOFTIRQ_EXIT:
		if (c->soft && c->cur_target && c->cur)
			waited(f, &who, h->cpu, LAT_REC_D_SOFTIRQ, c->soft_start, h->ts);
		c->soft = false;
		break;
	}
}

static void on_switch(struct lat_flight *f, const struct lat_rec_switch *s)
{
	struct lat_flight_cpu *c = &f->cpu[s->h.cpu];
	struct lat_flight_task *t;

	c->cur = s->next_pid;
	c->cur_tgid = s->next_tgid;
	c->cur_target = s->h.flags & LAT_REC_F_NEXT;
	memcpy(c->cur_comm, s->next_comm, sizeof(c->cur_comm));
	c->hard = 0;
	c->soft = false;
	if ((s->h.flags & LAT_REC_F_PREV) && s->h.pid) {
		/* still runnable (0), or preempted (TASK_REPORT_MAX) */
		if (s->prev_state == 0 || s->prev_state == 0x100) {
			t = task_get(f, s->h.pid);
			if (t) {
				t->state = LAT_FT_RUNNABLE;
				t->kind = LAT_REC_D_PREEMPTED;
				t->since = s->h.ts;
				t->cpu = s->h.cpu;
				t->tgid = s->prev_tgid;
				memcpy(t->comm, s->prev_comm, sizeof(t->comm));
			}
		} else if ((t = task_find(f, s->h.pid))) {
			task_del(f, t);
		}
	}
	if ((s->h.flags & LAT_REC_F_NEXT) && s->next_pid) {
		t = task_get(f, s->next_pid);
		if (!t)
			return;
		memcpy(t->comm, s->next_comm, sizeof(t->comm));
		t->tgid = s->next_tgid;
		if (t->state == LAT_FT_RUNNABLE)
			waited(f, t, s->h.cpu, t->kind, t->since, s->h.ts);
		t->state = LAT_FT_RUNNING;
		t->cpu = s->h.cpu;
	}
}

static void on_waking(struct lat_flight *f, const struct lat_rec_waking *w)
{
	struct lat_flight_task *t;

	if (!(w->h.flags & LAT_REC_F_PREV) || !w->wpid)
		return;
	/* woken while it runs or waits already: nothing starts */
	t = task_find(f, w->wpid);
	if (t && t->state != LAT_FT_FREE)
		return;
	t = task_get(f, w->wpid);
	if (!t)
		return;
	t->state = LAT_FT_RUNNABLE;
	t->kind = LAT_REC_D_WAKEUP;
	t->since = w->h.ts;
	t->cpu = w->target_cpu;
	t->tgid = w->wtgid;
	t->waker = w->h.pid;
	t->wcpu = w->h.cpu;
	t->wflags = w->h.flags & LAT_REC_F_CTX;
	memcpy(t->comm, w->comm, sizeof(t->comm));
	memcpy(t->wcomm, w->cur_comm, sizeof(t->wcomm));
}

int lat_flight_add(struct lat_flight *f, const void *rec, size_t size)
{
	const struct lat_rec_head *h = rec;
	size_t want = size >= sizeof(*h) ? lat_rec_size(h->type) : 0;
	int err;

	/* the kernel's ring pads records to 8 bytes: ours are multiples */
	if (!want || want > size || h->type == LAT_REC_DELAY || h->cpu >= f->ncpus) {
		f->dropped_bad++;
		return -EINVAL;
	}
	f->events++;
	if (h->ts > f->newest)
		f->newest = h->ts;
	err = lat_flight_store(f, rec, want);
	switch (h->type) {
	case LAT_REC_SWITCH:
		on_switch(f, rec);
		break;
	case LAT_REC_WAKING:
		on_waking(f, rec);
		break;
	case LAT_REC_MIGRATE: {
		const struct lat_rec_migrate *m = rec;
		struct lat_flight_task *t = task_find(f, m->mpid);

		if (t && t->state == LAT_FT_RUNNABLE)
			t->cpu = m->dest_cpu;
		break;
	}
	default:
		cpu_event(f, &f->cpu[h->cpu], rec);
		break;
	}
	return err;
}

/* Waits whose end was never seen (a record lost): gone after the window */
static void tasks_prune(struct lat_flight *f, __u64 cut)
{
	for (size_t i = 0; i < f->tasks_cap; i++) {
		struct lat_flight_task *t = &f->tasks[i];

		if (t->tid && t->state == LAT_FT_RUNNABLE && t->since < cut) {
			task_del(f, t);
			i--;	/* an entry may have moved into this slot */
		} else if (t->tid && t->state == LAT_FT_RUNNING && t->cpu < f->ncpus &&
			   f->cpu[t->cpu].cur != t->tid) {
			task_del(f, t);
			i--;
		}
	}
}

static void analyse(struct lat_flight *f, struct lat_incident *in)
{
	const struct lat_rec_head **recs;
	long n;

	if (!in->has_delay)
		in->has_delay = lat_flight_longest(f, in->from, in->to, &in->d);
	if (in->has_delay) {
		n = lat_flight_window(f, in->d.h.cpu, 0, in->d.h.ts, &recs);
		if (n >= 0) {
			lat_flight_breakdown(recs, n, &in->d, &in->bd);
			free(recs);
		}
	}
	in->closed = true;
}

void lat_flight_tick(struct lat_flight *f, __u64 upto)
{
	static const __u64 prune_every = 1000000000ULL;
	__u64 cut = upto > f->o.window_ns ? upto - f->o.window_ns : 0;

	f->upto = upto;
	for (size_t i = 0; i < f->ninc; i++) {
		struct lat_incident *in = &f->inc[i];

		if (!in->closed && in->to <= upto)
			analyse(f, in);
		/* its records stay until it is written */
		if ((!in->closed || (!in->written && f->o.trace_path)) && in->from < cut)
			cut = in->from;
	}
	if (upto - f->pruned_at >= prune_every) {
		tasks_prune(f, upto > f->o.window_ns ? upto - f->o.window_ns : 0);
		f->pruned_at = upto;
	}
	lat_flight_age(f, cut);
}

void lat_flight_finish(struct lat_flight *f)
{
	__u64 oldest, newest;
	struct lat_incident *in;

	for (size_t i = 0; i < f->ninc; i++) {
		if (f->inc[i].closed)
			continue;
		f->inc[i].truncated = f->inc[i].to > f->newest;
		analyse(f, &f->inc[i]);
	}
	if (f->o.ntrig)
		return;
	lat_flight_span(f, &oldest, &newest);
	if (!newest)
		return;
	/* a quiet CPU's chunk may hold older records: the window is the window */
	if (newest - oldest > f->o.window_ns)
		oldest = newest - f->o.window_ns;
	in = incident_new(f, -1, newest, oldest, newest, 0);
	if (in) {
		analyse(f, in);
		in->value_ns = in->has_delay ? in->d.h.ts - in->d.start : 0;
	}
}

bool lat_flight_signal(struct lat_flight *f, __u64 now)
{
	bool any = false;

	lat_flight_lock(f);
	for (int i = 0; i < f->o.ntrig; i++) {
		if (f->o.trig[i].kind != LAT_TRIG_SIGNAL)
			continue;
		fire(f, i, now, now, 0);
		any = true;
	}
	lat_flight_unlock(f);
	return any;
}

/* a histogram's node from its path ("sched.runq"; a bare name is the
 * sched family's) */
static const struct lat_node *hist_at(const struct lat_node *root, const char *path)
{
	const struct lat_node *n = root;
	char buf[64], *tok, *save = NULL;

	if (!strchr(path, '.')) {
		const struct lat_node *s = lat_snap_find(root, "sched");

		n = s ? lat_snap_find(s, path) : NULL;
		return n && n->kind == LAT_HIST ? n : lat_snap_find(root, path);
	}
	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && n; tok = strtok_r(NULL, ".", &save))
		n = lat_snap_find(n, tok);
	return n;
}

static __u64 iv_pct(const struct lat_node *n, double pct, struct lat_hist *buf)
{
	const struct lat_hist *h;

	if (!n || n->kind != LAT_HIST)
		return 0;
	h = lat_node_iv(n, buf);
	return h && h->count ? lat_hist_percentile(h, pct) : 0;
}

/* the interval's value of a percentile trigger: "hiccup" is every CPU's */
static __u64 pct_value(const struct lat_snap *s, const struct lat_trigger *t,
		       struct lat_hist *buf)
{
	const struct lat_node *n, *cpus;
	__u64 v = 0, x;

	if (strcmp(t->hist, "hiccup"))
		return iv_pct(hist_at(&s->root, t->hist), t->pct, buf);
	n = lat_snap_find(&s->root, "hiccup");
	cpus = n ? lat_snap_find(n, "cpus") : NULL;
	for (n = cpus ? cpus->child : NULL; n; n = n->next)
		if ((x = iv_pct(lat_snap_find(n, "hist"), t->pct, buf)) > v)
			v = x;
	return v;
}

void lat_flight_snap(struct lat_flight *f, const struct lat_snap *s, __u64 now)
{
	struct lat_hist *buf = NULL;
	__u64 v;

	if (s->final || !s->interval)
		return;
	for (int i = 0; i < f->o.ntrig; i++) {
		const struct lat_trigger *t = &f->o.trig[i];

		if (t->kind != LAT_TRIG_PCT)
			continue;
		if (!buf && !(buf = malloc(sizeof(*buf))))
			return;
		v = pct_value(s, t, buf);
		if (v > t->above_ns)
			fire(f, i, now, now, v);
	}
	free(buf);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * What a target thread's wait was made of (core/flight.h), the way rtla's
 * timerlat auto-analysis splits a latency: the records of the CPU it waited
 * for, replayed from the last context switch before the wait, cut the wait
 * into stretches, each charged to what held the CPU then:
 *   a hard IRQ handler            irq (by IRQ)
 *   a softirq, outside hard IRQs  softirq (by vector)
 *   another task                  task (by tid)
 *   the idle task, in the wait of a thread woken onto an idle CPU, before
 *   any other task ran there (the idle exit, the IPI, the switch)  wakeup
 *   anything else: the idle task while a preempted thread waited or after
 *   another task ran, the target itself, or no record of what ran (before
 *   the CPU's first switch in the store)   unexplained
 * A vCPU the hypervisor stopped shows as whatever it was running then.
 * The stretches partition the wait, so the parts add up to it exactly.
 */
#include <stdlib.h>
#include <string.h>
#include "core/flight.h"

#define MAX_NAMED 64

struct replay {
	const struct lat_rec_delay *d;
	struct lat_breakdown *bd;
	bool known;		/* a switch seen: cur is what runs */
	__u32 cur;
	char cur_comm[LAT_REC_COMM];
	int hard;
	__s32 irq;
	char irq_name[LAT_REC_COMM];
	bool soft;
	__u32 vec;
	bool quiet;		/* no other task ran on the CPU since the wait began */
	struct lat_part named[MAX_NAMED];
	int nnamed;
	__u64 others[LAT_PART_NR];	/* of named kinds, past MAX_NAMED */
};

static void charge(struct replay *r, __u32 kind, __u32 id, const char *name, __u64 ns)
{
	int i;

	r->bd->ns[kind] += ns;
	if (kind >= LAT_PART_WAKEUP)
		return;		/* nothing to name: rank() adds them */
	for (i = 0; i < r->nnamed; i++)
		if (r->named[i].kind == kind && r->named[i].id == id)
			break;
	if (i == r->nnamed) {
		if (i == MAX_NAMED) {
			r->others[kind] += ns;
			return;
		}
		r->nnamed++;
		r->named[i] = (struct lat_part){ .kind = kind, .id = id };
	}
	r->named[i].ns += ns;
	/* a task renamed meanwhile keeps its later name */
	if (name)
		memcpy(r->named[i].name, name, LAT_REC_COMM);
}

/* the stretch [t0, t1) of the wait, charged to what held the CPU */
static void stretch(struct replay *r, __u64 t0, __u64 t1)
{
	__u64 ns = t1 - t0;

	if (t1 <= t0)
		return;
	if (r->hard > 0)
		charge(r, LAT_PART_IRQ, (__u32)r->irq, r->irq_name, ns);
	else if (r->soft)
		charge(r, LAT_PART_SOFTIRQ, r->vec, lat_softirq_name(r->vec), ns);
	else if (r->known && r->cur && r->cur != r->d->h.pid)
		charge(r, LAT_PART_TASK, r->cur, r->cur_comm, ns), r->quiet = false;
	else if (r->known && !r->cur && r->quiet && r->d->kind == LAT_REC_D_WAKEUP)
		charge(r, LAT_PART_WAKEUP, 0, NULL, ns);
	else
		charge(r, LAT_PART_UNEXPLAINED, 0, NULL, ns);
}

static void apply(struct replay *r, const struct lat_rec_head *h)
{
	const struct lat_rec_switch *s = (const void *)h;
	const struct lat_rec_irq *q = (const void *)h;

	switch (h->type) {
	case LAT_REC_SWITCH:
		r->known = true;
		r->cur = s->next_pid;
		memcpy(r->cur_comm, s->next_comm, LAT_REC_COMM);
		r->hard = 0;
		r->soft = false;
		break;
	case LAT_REC_IRQ:
		if (r->hard++ == 0) {
			r->irq = q->irq;
			memcpy(r->irq_name, q->name, LAT_REC_COMM);
		}
		break;
	case LAT_REC_IRQ_EXIT:
		if (r->hard > 0)
			r->hard--;
		break;
	case LAT_REC_SOFTIRQ:
		r->soft = true;
		r->vec = ((const struct lat_rec_softirq *)h)->vec;
		break;
	case LAT_REC_SOFTIRQ_EXIT:
		r->soft = false;
		break;
	}
}

static int by_ns(const void *a, const void *b)
{
	const struct lat_part *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* the largest named parts, then wakeup and unexplained; the rest in one */
static void rank(struct replay *r)
{
	struct lat_breakdown *bd = r->bd;
	__u64 rest = 0;
	int i;

	for (i = LAT_PART_WAKEUP; i < LAT_PART_NR; i++)
		if (bd->ns[i] && r->nnamed < MAX_NAMED)
			r->named[r->nnamed++] = (struct lat_part){ .kind = (__u32)i, .ns = bd->ns[i] };
	qsort(r->named, (size_t)r->nnamed, sizeof(r->named[0]), by_ns);
	for (i = 0; i < r->nnamed; i++) {
		if (i < LAT_BD_PARTS)
			bd->part[bd->nparts++] = r->named[i];
		else
			rest += r->named[i].ns;
	}
	for (i = 0; i < LAT_PART_NR; i++)
		rest += r->others[i];
	if (rest)
		bd->part[bd->nparts++] = (struct lat_part){ .kind = LAT_PART_NR, .ns = rest,
							     .name = "(others)" };
}

void lat_flight_breakdown(const struct lat_rec_head *const *recs, long n,
			  const struct lat_rec_delay *d, struct lat_breakdown *bd)
{
	struct replay r = { .d = d, .bd = bd, .quiet = true };
	__u64 a = d->start, b = d->h.ts, t = a;
	long lo = 0, hi = n, i;

	memset(bd, 0, sizeof(*bd));
	if (b <= a)
		return;
	bd->delay_ns = b - a;
	/* the first record after a, then back to the last switch at or before */
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (recs[mid]->ts <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo - 1; i >= 0 && recs[i]->type != LAT_REC_SWITCH; i--)
		;
	for (i = i < 0 ? 0 : i; i < n && recs[i]->ts <= b; i++) {
		const struct lat_rec_head *h = recs[i];

		if (h->ts > a) {
			stretch(&r, t, h->ts);
			t = h->ts;
		}
		apply(&r, h);
	}
	stretch(&r, t, b);
	rank(&r);
}

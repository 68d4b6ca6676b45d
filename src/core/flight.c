// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's store (core/flight.h): each CPU's records in a
 * list of chunks, oldest first, in a fixed budget. A chunk goes when all its
 * records are older than the window (and than every incident not yet
 * written), or, over the budget, when a new record needs its room: then its
 * records younger than the window are counted as evicted. The waits and
 * the incidents are incident.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/flight.h"

__u64 lat_boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

size_t lat_rec_size(unsigned type)
{
	switch (type) {
	case LAT_REC_SWITCH:
		return sizeof(struct lat_rec_switch);
	case LAT_REC_WAKING:
		return sizeof(struct lat_rec_waking);
	case LAT_REC_IRQ:
	case LAT_REC_IRQ_EXIT:
		return sizeof(struct lat_rec_irq);
	case LAT_REC_SOFTIRQ:
	case LAT_REC_SOFTIRQ_EXIT:
		return sizeof(struct lat_rec_softirq);
	case LAT_REC_MIGRATE:
		return sizeof(struct lat_rec_migrate);
	case LAT_REC_DELAY:
		return sizeof(struct lat_rec_delay);
	default:
		return 0;
	}
}

struct lat_flight *lat_flight_new(const struct lat_flight_opts *o, int ncpus)
{
	struct lat_flight *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->o = *o;
	if (!f->o.window_ns)
		f->o.window_ns = LAT_FLIGHT_DEFAULT_WINDOW;
	f->ncpus = ncpus;
	f->cpu = calloc((size_t)ncpus, sizeof(*f->cpu));
	f->budget_chunks = LAT_FLIGHT_CPU_BUDGET / LAT_FLIGHT_CHUNK;
	if (!f->cpu || pthread_mutex_init(&f->lock, NULL)) {
		free(f->cpu);
		free(f);
		return NULL;
	}
	f->next_n = 1;
	return f;
}

void lat_flight_free(struct lat_flight *f)
{
	if (!f)
		return;
	for (int c = 0; c < f->ncpus; c++) {
		struct lat_flight_chunk *k = f->cpu[c].head, *next;

		for (; k; k = next) {
			next = k->next;
			free(k);
		}
	}
	pthread_mutex_destroy(&f->lock);
	free(f->cpu);
	free(f->tasks);
	free(f->inc);
	free(f);
}

void lat_flight_lock(struct lat_flight *f)
{
	pthread_mutex_lock(&f->lock);
}

void lat_flight_unlock(struct lat_flight *f)
{
	pthread_mutex_unlock(&f->lock);
}

#define FOR_RECS(k, h) \
	for (const unsigned char *_p = (k)->data; \
	     _p < (k)->data + (k)->used && ((h) = (const struct lat_rec_head *)_p); \
	     _p += lat_rec_size((h)->type))

/* The head chunk goes to make room: what it held within the window is lost */
static struct lat_flight_chunk *evict(struct lat_flight *f, struct lat_flight_cpu *c)
{
	struct lat_flight_chunk *k = c->head;
	const struct lat_rec_head *h;
	__u64 cut = f->newest > f->o.window_ns ? f->newest - f->o.window_ns : 0;

	FOR_RECS(k, h)
		if (h->ts >= cut)
			f->evicted++;
	c->head = k->next;
	c->nchunks--;
	f->bytes -= k->used;
	return k;
}

int lat_flight_store(struct lat_flight *f, const void *rec, size_t size)
{
	const struct lat_rec_head *h = rec;
	struct lat_flight_cpu *c = &f->cpu[h->cpu];
	struct lat_flight_chunk *k = c->tail;

	if (!k || k->used + size > LAT_FLIGHT_CHUNK_DATA) {
		if (c->nchunks >= f->budget_chunks && c->head != c->tail) {
			k = evict(f, c);
		} else {
			k = malloc(sizeof(*k) + LAT_FLIGHT_CHUNK_DATA);
			if (!k)
				return -ENOMEM;
		}
		k->next = NULL;
		k->used = 0;
		k->n = 0;
		k->first = k->last = h->ts;
		if (c->tail)
			c->tail->next = k;
		else
			c->head = k;
		c->tail = k;
		c->nchunks++;
	}
	memcpy(k->data + k->used, rec, size);
	k->used += (__u32)size;
	k->n++;
	k->first = h->ts < k->first ? h->ts : k->first;
	k->last = h->ts > k->last ? h->ts : k->last;
	f->bytes += size;
	return 0;
}

/* Frees the chunks every record of which is older than cut. */
void lat_flight_age(struct lat_flight *f, __u64 cut)
{
	for (int i = 0; i < f->ncpus; i++) {
		struct lat_flight_cpu *c = &f->cpu[i];

		while (c->head && c->head != c->tail && c->head->last < cut) {
			struct lat_flight_chunk *k = c->head;

			c->head = k->next;
			c->nchunks--;
			f->bytes -= k->used;
			free(k);
		}
	}
}

void lat_flight_span(struct lat_flight *f, __u64 *oldest, __u64 *newest)
{
	*oldest = *newest = 0;
	for (int i = 0; i < f->ncpus; i++) {
		for (struct lat_flight_chunk *k = f->cpu[i].head; k; k = k->next) {
			if (!*oldest || k->first < *oldest)
				*oldest = k->first;
			if (k->last > *newest)
				*newest = k->last;
		}
	}
}

struct order {
	__u64 ts;
	__u64 seq;
	const struct lat_rec_head *h;
};

static int by_time(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* In time order, ties in the order they came: a program interrupted between
 * its clock read and its reserve lands after the interrupt's record. */
long lat_flight_window(struct lat_flight *f, int cpu, __u64 from, __u64 to,
		       const struct lat_rec_head ***recs)
{
	struct lat_flight_chunk *k;
	const struct lat_rec_head *h;
	struct order *o;
	size_t n = 0, cap = 0;

	*recs = NULL;
	if (cpu < 0 || cpu >= f->ncpus)
		return 0;
	for (k = f->cpu[cpu].head; k; k = k->next)
		if (k->last >= from && k->first <= to)
			cap += k->n;
	o = malloc((cap ? cap : 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	for (k = f->cpu[cpu].head; k; k = k->next) {
		if (k->last < from || k->first > to)
			continue;
		FOR_RECS(k, h)
			if (h->ts >= from && h->ts <= to && n < cap) {
				o[n] = (struct order){ h->ts, n, h };
				n++;
			}
	}
	qsort(o, n, sizeof(*o), by_time);
	*recs = malloc((n ? n : 1) * sizeof(**recs));
	if (!*recs) {
		free(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		(*recs)[i] = o[i].h;
	free(o);
	return (long)n;
}

bool lat_flight_longest(struct lat_flight *f, __u64 from, __u64 to, struct lat_rec_delay *d)
{
	const struct lat_rec_head *h;
	__u64 best = 0;

	for (int i = 0; i < f->ncpus; i++) {
		for (struct lat_flight_chunk *k = f->cpu[i].head; k; k = k->next) {
			if (k->last < from || k->first > to)
				continue;
			FOR_RECS(k, h) {
				const struct lat_rec_delay *r = (const void *)h;

				if (h->type != LAT_REC_DELAY || h->ts < from || h->ts > to ||
				    r->start > h->ts || h->ts - r->start <= best)
					continue;
				best = h->ts - r->start;
				*d = *r;
			}
		}
	}
	return best > 0;
}

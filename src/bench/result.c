// SPDX-License-Identifier: GPL-2.0
/* latbpf bench's result library (result.h): results, their timings, notes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/result.h"

struct lat_bres *lat_bres_new(struct lat_bctx *c, const char *name,
			      const char *method, __u32 batch)
{
	struct lat_bres *r, **n;

	if (c->nres == c->cap) {
		n = realloc(c->res, (c->cap * 2 + 8) * sizeof(*n));
		if (!n)
			return NULL;
		c->res = n;
		c->cap = c->cap * 2 + 8;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->method = method;
	r->batch = batch ? batch : 1;
	c->res[c->nres++] = r;
	return r;
}

void lat_bench_free_results(struct lat_bctx *c)
{
	for (int i = 0; i < c->nres; i++)
		free(c->res[i]);
	free(c->res);
	c->res = NULL;
	c->nres = c->cap = 0;
}

/*
 * Per operation: the region's ticks less the cost of an empty region, split
 * over the batch, rounded to the nearest tick. A region cheaper than the
 * empty one counts 0.
 */
__u64 lat_bench_per_op(__u64 ticks, __u64 overhead, __u32 batch)
{
	__u64 t = ticks > overhead ? ticks - overhead : 0;

	if (batch <= 1)
		return t;
	return (t + batch / 2) / batch;
}

void lat_bres_add(struct lat_bres *r, __u64 ticks)
{
	lat_bres_add_ticks(r, lat_bench_per_op(ticks, lat_bclock.overhead, r ? r->batch : 1));
}

void lat_bres_add_ticks(struct lat_bres *r, __u64 ticks)
{
	if (!r)
		return;
	lat_hist_record(&r->ticks, ticks);
	lat_hist_record(&r->ns, lat_ticks_to_ns(ticks, lat_bclock.hz));
}

void lat_bres_add_ns(struct lat_bres *r, __u64 ns)
{
	if (!r)
		return;
	lat_hist_record(&r->ns, ns);
	lat_hist_record(&r->ticks, (__u64)((double)ns * lat_bclock.hz / 1e9 + 0.5));
}

void lat_bres_add_block(struct lat_bres *r, __u64 ticks, __u64 bytes)
{
	__u64 t = lat_bench_per_op(ticks, lat_bclock.overhead, 1);
	__u64 ns = lat_ticks_to_ns(t, lat_bclock.hz);

	if (!r)
		return;
	r->mb_s = true;
	/* bytes per ns are GB/s: x 1000 for MB/s */
	lat_hist_record(&r->ns, (bytes * 1000 + (ns ? ns : 1) / 2) / (ns ? ns : 1));
	lat_hist_record(&r->ticks, t);
}

bool lat_bench_over(const struct lat_bctx *c, __u64 samples, __u64 max)
{
	return samples >= max || (samples > 0 && lat_now_ns() >= c->deadline);
}

static char *notes[64];
static int nnotes;

void lat_bench_note(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (nnotes < 64 && vasprintf(&s, fmt, ap) >= 0) {
		/* each run says it again: once is enough */
		for (int i = 0; s && i < nnotes; i++)
			if (!strcmp(notes[i], s)) {
				free(s);
				s = NULL;
			}
		if (s)
			notes[nnotes++] = s;
	}
	va_end(ap);
}

int lat_bench_nnotes(void)
{
	return nnotes;
}

const char *lat_bench_note_at(int i)
{
	return i >= 0 && i < nnotes ? notes[i] : NULL;
}

void lat_bench_notes_free(void)
{
	for (int i = 0; i < nnotes; i++)
		free(notes[i]);
	nnotes = 0;
}

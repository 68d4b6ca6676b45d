// SPDX-License-Identifier: GPL-2.0
/*
 * The hiccup meter, jHiccup's method: a thread pinned to each chosen core
 * sleeps a fixed interval I again and again (timer slack 1 ns) and records
 * how much later than I it got back: observed - expected. A stall of D hides
 * the wakeups an open-loop client would have had meanwhile, so the
 * corrected histogram also records D-I, D-2I, ... down to I (HdrHistogram's
 * recordValueWithExpectedInterval). Both are reported, labelled.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "bench/benchmarks.h"
#include "bench/result.h"
#include "core/hist.h"

struct meter {
	int cpu;
	__u64 interval_ns, deadline;
	struct lat_hist raw_ns, raw_ticks, cor_ns, cor_ticks;	/* this thread's only */
	int err;
};

static void *meter(void *arg)
{
	struct meter *m = arg;
	struct timespec ts = { m->interval_ns / 1000000000ULL, m->interval_ns % 1000000000ULL };
	__u64 prev, now, obs, hic, ival_ticks;

	m->err = lat_bench_pin(m->cpu);
	if (m->err)
		return NULL;
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	ival_ticks = (__u64)((double)m->interval_ns * lat_bclock.hz / 1e9 + 0.5);
	prev = lat_tick_begin();
	while (lat_now_ns() < m->deadline) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		now = lat_tick_begin();
		obs = now - prev;
		prev = now;
		hic = obs > ival_ticks ? obs - ival_ticks : 0;
		lat_hist_record(&m->raw_ticks, hic);
		lat_hist_record_corrected(&m->cor_ticks, hic, ival_ticks);
		hic = lat_ticks_to_ns(hic, lat_bclock.hz);
		lat_hist_record(&m->raw_ns, hic);
		lat_hist_record_corrected(&m->cor_ns, hic, m->interval_ns);
	}
	return NULL;
}

static void put(struct lat_bctx *c, const char *name, const char *method,
		const struct lat_hist *ns, const struct lat_hist *ticks)
{
	struct lat_bres *r = lat_bres_new(c, name, method, 1);

	if (!r)
		return;
	lat_hist_merge(&r->ns, ns);
	lat_hist_merge(&r->ticks, ticks);
}

static const char RAW[] = "hiccup meter, RAW: a thread pinned to the core sleeps "
			  "--interval; observed - expected per wakeup";
static const char COR[] = "hiccup meter, CORRECTED for coordinated omission: a stall D "
			  "also records D-I, D-2I, ... down to I";

int lat_bench_hiccup(struct lat_bctx *c)
{
	struct meter *m = calloc(c->ncpus, sizeof(*m));
	pthread_t *th = calloc(c->ncpus, sizeof(*th));
	static struct lat_hist all[4];
	char name[40];
	int i, n = 0, err = 0;

	if (!m || !th) {
		free(m);
		free(th);
		return -ENOMEM;
	}
	memset(all, 0, sizeof(all));
	for (i = 0; i < c->ncpus; i++) {
		m[i].cpu = c->cpus[i];
		m[i].interval_ns = c->interval_ns;
		m[i].deadline = c->deadline;
		err = -pthread_create(&th[i], NULL, meter, &m[i]);
		if (err)
			break;
		n++;
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		if (m[i].err && !err)
			err = m[i].err;
	}
	for (i = 0; !err && i < n; i++) {
		lat_hist_merge(&all[0], &m[i].raw_ns);
		lat_hist_merge(&all[1], &m[i].raw_ticks);
		lat_hist_merge(&all[2], &m[i].cor_ns);
		lat_hist_merge(&all[3], &m[i].cor_ticks);
	}
	if (!err) {
		put(c, "hiccup_raw", RAW, &all[0], &all[1]);
		put(c, "hiccup_corrected", COR, &all[2], &all[3]);
		lat_bench_note("hiccup: %d core(s), interval %llu us: corrected adds %llu samples "
			       "to the raw %llu (the wakeups stalls hid)", n,
			       (unsigned long long)(c->interval_ns / 1000),
			       (unsigned long long)(all[2].count - all[0].count),
			       (unsigned long long)all[0].count);
	}
	for (i = 0; !err && n > 1 && i < n; i++) {
		snprintf(name, sizeof(name), "hiccup_cpu%d_raw", m[i].cpu);
		put(c, name, RAW, &m[i].raw_ns, &m[i].raw_ticks);
		snprintf(name, sizeof(name), "hiccup_cpu%d_corrected", m[i].cpu);
		put(c, name, COR, &m[i].cor_ns, &m[i].cor_ticks);
	}
	free(m);
	free(th);
	return err;
}

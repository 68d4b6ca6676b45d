// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's reading of a CPU's records, on timelines written
 * by hand whose answer is known: the target's waits, their breakdown into
 * parts that add up, the triggers (bounds, rate, count, windows), the
 * store's order and its budget. */
#include <stdlib.h>
#include <string.h>
#include "core/flight.h"
#include "core/snap.h"
#include "cli/record_opts.h"
#include "tap.h"

#define US 1000ULL
#define MS 1000000ULL
#define T0 (100 * MS)		/* the timelines start here */
#define SPIN 100		/* the target thread */
#define BURN 200
#define WAKER 300
#define OTHER 400

static struct lat_flight *f;

static void sw(__u64 t, __u16 cpu, __u32 prev, __u16 state, __u32 next)
{
	struct lat_rec_switch s = {
		.h = { .ts = T0 + t, .pid = prev, .cpu = cpu, .type = LAT_REC_SWITCH,
		       .flags = (prev == SPIN ? LAT_REC_F_PREV : 0) |
				(next == SPIN ? LAT_REC_F_NEXT : 0) },
		.prev_tgid = prev, .next_pid = next, .next_tgid = next, .prev_state = state,
		.prev_prio = 120, .next_prio = next == BURN ? 49 : 120,
	};

	snprintf(s.prev_comm, sizeof(s.prev_comm), "%s", prev == SPIN ? "spinner" :
		 prev == BURN ? "burner" : prev ? "other" : "swapper/1");
	snprintf(s.next_comm, sizeof(s.next_comm), "%s", next == SPIN ? "spinner" :
		 next == BURN ? "burner" : next ? "other" : "swapper/1");
	lat_flight_add(f, &s, sizeof(s));
}

static void irq(__u64 t, __u16 cpu, unsigned type, int n, const char *name)
{
	struct lat_rec_irq q = { .h = { .ts = T0 + t, .cpu = cpu, .type = (__u8)type }, .irq = n };

	snprintf(q.name, sizeof(q.name), "%s", name);
	lat_flight_add(f, &q, sizeof(q));
}

static void soft(__u64 t, __u16 cpu, unsigned type, __u32 vec)
{
	struct lat_rec_softirq q = { .h = { .ts = T0 + t, .cpu = cpu, .type = (__u8)type },
				     .vec = vec };

	lat_flight_add(f, &q, sizeof(q));
}

static void waking(__u64 t, __u16 cpu, __u32 waker, __u8 ctx, __u32 wakee, __u16 tcpu)
{
	struct lat_rec_waking w = {
		.h = { .ts = T0 + t, .pid = waker, .cpu = cpu, .type = LAT_REC_WAKING,
		       .flags = (wakee == SPIN ? LAT_REC_F_PREV : 0) | ctx },
		.tgid = waker, .wpid = wakee, .wtgid = wakee, .target_cpu = tcpu,
	};

	snprintf(w.comm, sizeof(w.comm), "spinner");
	snprintf(w.cur_comm, sizeof(w.cur_comm), "waker");
	lat_flight_add(f, &w, sizeof(w));
}

static struct lat_flight *fresh(const char *const *trig, int n)
{
	struct lat_flight_opts o = { .on = true, .window_ns = 10000 * MS };

	for (int i = 0; i < n; i++)
		if (lat_trigger_parse(trig[i], &o.trig[o.ntrig++]))
			return NULL;
	lat_flight_free(f);
	return f = lat_flight_new(&o, 4);
}

/* The timeline, on CPU 1:
 *   0        spinner runs
 *   1ms      the burner preempts it: 3 ms, with an IRQ of 20 us, a softirq of
 *            20 us with a 2 us IRQ inside
 *   4ms      spinner again; sleeps at 10 ms
 *   12ms     woken from CPU 0 by a task, onto idle CPU 1: runs 50 us later
 *   20ms     sleeps; `other` runs; woken at 21 ms from an IRQ on CPU 1;
 *            other runs until 21.5, idle 100 us, spinner at 21.6
 *   30ms     an IRQ of 300 us while spinner runs */
static void timeline(void)
{
	sw(0, 1, 0, 0, SPIN);
	sw(1 * MS, 1, SPIN, 0x100, BURN);
	irq(1500 * US, 1, LAT_REC_IRQ, 24, "virtio0");
	irq(1520 * US, 1, LAT_REC_IRQ_EXIT, 24, "");
	soft(2000 * US, 1, LAT_REC_SOFTIRQ, 1);
	irq(2010 * US, 1, LAT_REC_IRQ, 30, "eth0");
	irq(2012 * US, 1, LAT_REC_IRQ_EXIT, 30, "");
	soft(2020 * US, 1, LAT_REC_SOFTIRQ_EXIT, 1);
	sw(4 * MS, 1, BURN, 1, SPIN);
	sw(10 * MS, 1, SPIN, 1, 0);
	waking(12 * MS, 0, WAKER, 0, SPIN, 1);
	sw(12050 * US, 1, 0, 0, SPIN);
	sw(20 * MS, 1, SPIN, 1, OTHER);
	waking(21 * MS, 1, OTHER, LAT_REC_F_HARDIRQ, SPIN, 1);
	sw(21500 * US, 1, OTHER, 1, 0);
	sw(21600 * US, 1, 0, 0, SPIN);
	irq(30 * MS, 1, LAT_REC_IRQ, 11, "timer");
	irq(30300 * US, 1, LAT_REC_IRQ_EXIT, 11, "");
	sw(40 * MS, 1, SPIN, 1, 0);
}

static bool adds_up(const struct lat_breakdown *bd)
{
	__u64 s = 0, p = 0;

	for (int i = 0; i < LAT_PART_NR; i++)
		s += bd->ns[i];
	for (int i = 0; i < bd->nparts; i++)
		p += bd->part[i].ns;
	return s == bd->delay_ns && p == bd->delay_ns;
}

static const struct lat_incident *inc(int i)
{
	return i < (int)f->ninc ? &f->inc[i] : NULL;
}

static void test_waits(void)
{
	static const char *const t[] = { "runq>40us,every=0,before=1ms,after=1ms,max=100" };
	const struct lat_incident *in;
	const struct lat_breakdown *bd;

	fresh(t, 1);
	timeline();
	lat_flight_tick(f, T0 + 100 * MS);
	ok(f->ninc == 3, "runq>40us: three run-queue waits (%zu)", f->ninc);

	in = inc(0);
	bd = in ? &in->bd : NULL;
	ok(in && in->closed && in->has_delay && in->d.kind == LAT_REC_D_PREEMPTED &&
	   in->d.h.pid == SPIN && in->d.h.cpu == 1, "1: preempted, spinner, CPU 1");
	ok(in && in->from == T0 + 1 * MS - 1 * MS && in->to == T0 + 4 * MS + 1 * MS,
	   "1: its window is [start - before, end + after]");
	ok(bd && bd->delay_ns == 3 * MS && adds_up(bd), "1: 3 ms, the parts add up");
	ok(bd && bd->ns[LAT_PART_IRQ] == 22 * US && bd->ns[LAT_PART_SOFTIRQ] == 18 * US,
	   "1: irq 22 us (20 + 2 nested), softirq 18 us (20 less its IRQ): %llu %llu",
	   bd ? (unsigned long long)bd->ns[LAT_PART_IRQ] : 0,
	   bd ? (unsigned long long)bd->ns[LAT_PART_SOFTIRQ] : 0);
	ok(bd && bd->ns[LAT_PART_TASK] == 2960 * US && bd->part[0].kind == LAT_PART_TASK &&
	   bd->part[0].id == BURN && !strcmp(bd->part[0].name, "burner"),
	   "1: the burner ran 2960 us, the largest part");

	in = inc(1);
	bd = in ? &in->bd : NULL;
	ok(in && in->d.kind == LAT_REC_D_WAKEUP && in->d.waker == WAKER && in->d.waker_cpu == 0 &&
	   !strcmp(in->d.waker_comm, "waker") && !(in->d.waker_flags & LAT_REC_F_CTX),
	   "2: woken by the waker task on CPU 0");
	ok(bd && bd->delay_ns == 50 * US && bd->ns[LAT_PART_WAKEUP] == 50 * US && adds_up(bd),
	   "2: 50 us on an idle CPU: all wakeup");

	in = inc(2);
	bd = in ? &in->bd : NULL;
	ok(in && in->d.kind == LAT_REC_D_WAKEUP && (in->d.waker_flags & LAT_REC_F_HARDIRQ),
	   "3: woken from a hard IRQ");
	ok(bd && bd->delay_ns == 600 * US && bd->ns[LAT_PART_TASK] == 500 * US &&
	   bd->ns[LAT_PART_UNEXPLAINED] == 100 * US && bd->ns[LAT_PART_WAKEUP] == 0 && adds_up(bd),
	   "3: 600 us: other ran 500, then idle 100 unexplained (another task ran first)");
	ok(f->ts[0].fired == 3 && f->ts[0].skipped == 0, "fired 3, skipped 0");
}

static void test_hiccup_rate(void)
{
	static const char *const t[] = { "hiccup>200us,before=1ms,after=1ms" };

	fresh(t, 1);
	timeline();
	lat_flight_tick(f, T0 + 100 * MS);
	/* 3 ms (fires), 600 us and the 300 us IRQ within its 1 s: skipped */
	ok(f->ninc == 1 && f->ts[0].fired == 1 && f->ts[0].skipped == 2,
	   "hiccup>200us, every 1s: one fired, two skipped (%llu, %llu)",
	   (unsigned long long)f->ts[0].fired, (unsigned long long)f->ts[0].skipped);

	static const char *const t2[] = { "hiccup>200us,every=0,max=2" };

	fresh(t2, 1);
	timeline();
	lat_flight_tick(f, T0 + 10000 * MS);
	ok(f->ninc == 2 && f->ts[0].skipped == 1, "max=2: two, the third skipped");

	static const char *const t3[] = { "hiccup>250us,every=0" };

	fresh(t3, 1);
	timeline();
	lat_flight_tick(f, T0 + 10000 * MS);
	ok(f->ninc == 3 && inc(2)->d.kind == LAT_REC_D_IRQ && inc(2)->bd.delay_ns == 300 * US &&
	   inc(2)->bd.ns[LAT_PART_IRQ] == 300 * US && !strcmp(inc(2)->bd.part[0].name, "timer"),
	   "hiccup>250us: the 300 us IRQ while it ran is a hiccup, charged to 'timer'");
	ok(inc(0) && inc(0)->n == 1 && inc(2) && inc(2)->n == 3, "incidents numbered 1, 2, 3");
}

static void test_open_windows(void)
{
	static const char *const t[] = { "hiccup>2ms,before=1ms,after=50ms" };

	fresh(t, 1);
	timeline();
	lat_flight_tick(f, T0 + 20 * MS);
	ok(f->ninc == 1 && !inc(0)->closed, "a window still open (ends at 54 ms) stays open at 20");
	lat_flight_tick(f, T0 + 54 * MS);
	ok(inc(0)->closed && !inc(0)->truncated, "closed once every record up to its end is in");

	fresh(t, 1);
	timeline();
	lat_flight_finish(f);
	ok(f->ninc == 1 && inc(0)->closed && inc(0)->truncated && inc(0)->bd.delay_ns == 3 * MS,
	   "the run ends first: closed, truncated, analysed");
}

static void test_exit_and_signal(void)
{
	static const char *const t[] = { "SIGUSR2,before=35ms,after=1ms" };

	fresh(NULL, 0);
	timeline();
	lat_flight_finish(f);
	ok(f->ninc == 1 && inc(0)->trig == -1 && inc(0)->has_delay &&
	   inc(0)->bd.delay_ns == 3 * MS && inc(0)->from == T0 && inc(0)->to == T0 + 40 * MS,
	   "no trigger: the exit incident spans the store, about its longest wait");

	fresh(t, 1);
	timeline();
	ok(lat_flight_signal(f, T0 + 35 * MS), "SIGUSR2: a trigger takes it");
	lat_flight_tick(f, T0 + 40 * MS);
	ok(f->ninc == 1 && inc(0)->closed && inc(0)->has_delay && inc(0)->bd.delay_ns == 3 * MS,
	   "its window [0, 36ms]: its longest wait, 3 ms");
	fresh(NULL, 0);
	ok(!lat_flight_signal(f, T0), "SIGUSR2 without the trigger: nothing");
}

static void test_percentile(void)
{
	static const char *const t[] = { "runq.p99>1ms,every=0", "hiccup.p50>5ms" };
	struct lat_snap s = { 0 };
	static struct lat_hist h, before;

	fresh(t, 2);
	timeline();
	h.min = ~0ULL;
	for (int i = 0; i < 100; i++)
		lat_hist_record(&h, i < 98 ? 10 * US : 3 * MS);
	lat_snap_reset(&s);
	s.interval = 1;
	lat_pub_obj(&s, "sched", NULL);
	lat_pub_hist(&s, "runq", NULL, &h, &before);
	lat_pub_end(&s);
	lat_pub_obj(&s, "hiccup", NULL);
	lat_pub_list(&s, "cpus", NULL);
	lat_pub_item(&s, true, true);
	lat_pub_hist(&s, "hist", NULL, &h, &before);
	lat_pub_end(&s);
	lat_pub_end(&s);
	lat_pub_end(&s);
	lat_flight_snap(f, &s, T0 + 50 * MS);
	ok(f->ts[0].fired == 1 && f->ninc == 1 && inc(0)->value_ns >= 3 * MS * 15 / 16,
	   "runq.p99>1ms: the interval's p99 (3 ms) fires it");
	ok(f->ts[1].fired == 0, "hiccup.p50>5ms: every CPU's p50 is 10 us: not");
	lat_snap_free(&s);
}

static void test_store(void)
{
	const struct lat_rec_head **recs;
	long n;
	bool sorted = true;

	fresh(NULL, 0);
	/* a record later in the ring than one it precedes (an interrupted
	 * program): read back in time order */
	irq(5 * US, 2, LAT_REC_IRQ, 1, "a");
	irq(3 * US, 2, LAT_REC_IRQ_EXIT, 1, "");
	irq(4 * US, 2, LAT_REC_IRQ, 2, "b");
	n = lat_flight_window(f, 2, 0, ~0ULL, &recs);
	for (long i = 1; i < n; i++)
		sorted &= recs[i - 1]->ts <= recs[i]->ts;
	ok(n == 3 && sorted, "a CPU's window comes in time order");
	free(recs);

	fresh(NULL, 0);
	f->budget_chunks = 2;
	for (__u64 i = 0; i < 10000; i++)
		soft(i * US, 3, LAT_REC_SOFTIRQ, 1);
	n = lat_flight_window(f, 3, 0, ~0ULL, &recs);
	free(recs);
	ok(f->bytes <= 2 * LAT_FLIGHT_CHUNK && f->evicted > 0 &&
	   (__u64)n + f->evicted == 10000,
	   "over the budget (2 chunks): %ld kept, %llu evicted, all counted", n,
	   (unsigned long long)f->evicted);

	fresh(NULL, 0);
	for (__u64 i = 0; i < 10000; i++)
		soft(i * MS, 3, LAT_REC_SOFTIRQ, 1);
	lat_flight_tick(f, T0 + 15000 * MS);
	n = lat_flight_window(f, 3, 0, ~0ULL, &recs);
	/* the 5000 within the window, and the chunk that straddles its start */
	ok(f->evicted == 0 && n >= 5000 &&
	   n < 5000 + (long)(LAT_FLIGHT_CHUNK / sizeof(struct lat_rec_softirq)),
	   "past the window (10 s): aged out by the chunk (%ld left), not evicted", n);
	free(recs);
	ok(lat_flight_add(f, "x", 1) < 0 && f->dropped_bad == 1, "a short record is refused");
}

int main(void)
{
	test_waits();
	test_hiccup_rate();
	test_open_windows();
	test_exit_and_signal();
	test_percentile();
	test_store();
	lat_flight_free(f);
	return done_testing();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The loader runs at SCHED_IDLE, so a target woken on its CPU should take
 * the CPU at once. Under EEVDF (6.6 and later) it does not always: a woken
 * task whose lag is negative is not eligible, and the scheduler picks the
 * idle-weight loader again until the loader's vruntime passes it, which
 * at a weight of 3 against 1024 takes up to about a tick of the loader's
 * time (yield.t saw waits of 1-1.6 ms behind latbpf, the profile timer's
 * interrupts all there, latbpf going on until it slept in poll()). A
 * sched_yield() does not help (it moves the deadline, not the
 * eligibility). A sleep does: with the loader off the run queue the
 * target is the one left to run. So long work sleeps once every
 * LAT_STRETCH_NS (a nanosleep of 1 us, which the timer slack makes up to
 * 50 us more), and the target's wait is at most one stretch.
 *
 * A target can also be queued on the loader's CPU when the scheduler
 * gives the loader that CPU (EEVDF picks by eligibility and deadline, not
 * weight): yield.t's observer saw such runs of 62-88 us, from the pick to
 * the next stretch's end. Where the hiccup family runs, BPF counts the
 * target threads waiting for each CPU, in a map the loader reads from
 * memory (bpf/cpu.bpf.h), so a yield point also sleeps at once when one
 * waits for the loader's CPU (after LAT_WAITER_MIN_NS of running, and at
 * most LAT_WAITER_NAPS times between two of the loader's sleeps in poll(),
 * so that a count left wrong, a target that left the target set while it
 * waited, cannot slow the loader's work down).
 */
#include <sched.h>
#include <time.h>
#include "core/clock.h"
#include "core/yield.h"

/* per thread: the main one polls and renders, an HTTP sink's answers a
 * scrape (the count published is the main thread's) */
static __thread __u64 since;
static __thread unsigned long long yields;
static __thread unsigned waiter_naps;	/* since the last poll() */
/* the main thread's, which loads and destroys the families */
static __thread bool (*watch)(void *ctx, int cpu);
static __thread void *watch_ctx;

void lat_yield_watch(bool (*waiting)(void *ctx, int cpu), void *ctx)
{
	watch_ctx = ctx;
	watch = waiting;
}

static bool target_waits_here(void)
{
	if (!watch || waiter_naps >= LAT_WAITER_NAPS || !watch(watch_ctx, sched_getcpu()))
		return false;
	waiter_naps++;
	return true;
}

/* off the run queue briefly: whatever waits for this CPU runs; and again
 * at once when the scheduler gives the CPU back while a target still waits
 * for it (the pick above, which after a nap ran on to the next yield point:
 * 40-108 us in yield.t's calm runs, its longest waits behind latbpf) */
static void nap(void)
{
	struct timespec ts = { 0, 1000 };

	do {
		nanosleep(&ts, NULL);
		yields++;
	} while (target_waits_here());
	since = lat_now_ns();
}

void lat_stretch_start(void)
{
	since = lat_now_ns();
	waiter_naps = 0;
	/* given the CPU while a target waits for it: its turn first */
	if (target_waits_here())
		nap();
}

void lat_yield_point(void)
{
	__u64 ran = lat_now_ns() - since;

	if (ran < LAT_STRETCH_NS && (ran < LAT_WAITER_MIN_NS || !target_waits_here()))
		return;
	nap();
}

unsigned long long lat_yields(void)
{
	return yields;
}

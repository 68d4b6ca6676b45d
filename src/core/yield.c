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
 */
#include <time.h>
#include "core/clock.h"
#include "core/yield.h"

/* per thread: the main one polls and renders, an HTTP sink's answers a
 * scrape (the count published is the main thread's) */
static __thread __u64 since;
static __thread unsigned long long yields;

void lat_stretch_start(void)
{
	since = lat_now_ns();
}

void lat_yield_point(void)
{
	struct timespec ts = { 0, 1000 };

	if (lat_now_ns() - since < LAT_STRETCH_NS)
		return;
	nanosleep(&ts, NULL);
	yields++;
	since = lat_now_ns();
}

unsigned long long lat_yields(void)
{
	return yields;
}

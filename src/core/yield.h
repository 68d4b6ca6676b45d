/* SPDX-License-Identifier: GPL-2.0 */
/* The loader's own stretches on a CPU, kept short: see yield.c. */
#ifndef LATBPF_CORE_YIELD_H
#define LATBPF_CORE_YIELD_H

#include <stdbool.h>

/* the longest the loader runs before it sleeps once: the goal is that no
 * target thread waits behind it for more than 100 us at a time */
#define LAT_STRETCH_NS 50000ULL

/* the loader just slept (poll() returned): a stretch starts, after a nap
 * when a target waits for its CPU (lat_yield_watch) */
void lat_stretch_start(void);
/* a point where the loader's work may pause: when it has run
 * LAT_STRETCH_NS since it last slept, it sleeps once, briefly */
void lat_yield_point(void);
/* how many times it slept at a yield point (self.yields) */
unsigned long long lat_yields(void);
/* for the calling thread: what says a target thread waits for a CPU
 * (hiccup's waiter counts), or NULL: then a yield point also sleeps when
 * one waits for the CPU the thread runs on, once it has run
 * LAT_WAITER_MIN_NS, up to LAT_WAITER_NAPS times a poll */
void lat_yield_watch(bool (*waiting)(void *ctx, int cpu), void *ctx);
#define LAT_WAITER_MIN_NS 5000ULL
#define LAT_WAITER_NAPS 16	/* at most, between two sleeps in poll() */

#endif

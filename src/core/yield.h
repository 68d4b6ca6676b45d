/* SPDX-License-Identifier: GPL-2.0 */
/* The loader's own stretches on a CPU, kept short: see yield.c. */
#ifndef LATBPF_CORE_YIELD_H
#define LATBPF_CORE_YIELD_H

/* the longest the loader runs before it sleeps once: the goal is that no
 * target thread waits behind it for more than 100 us at a time */
#define LAT_STRETCH_NS 50000ULL

/* the loader just slept (poll() returned): a stretch starts */
void lat_stretch_start(void);
/* a point where the loader's work may pause: when it has run
 * LAT_STRETCH_NS since it last slept, it sleeps once, briefly */
void lat_yield_point(void);
/* how many times it slept at a yield point (self.yields) */
unsigned long long lat_yields(void);

#endif

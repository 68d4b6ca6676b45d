/* SPDX-License-Identifier: GPL-2.0 */
/* Heat maps over time of a run's histograms, by name (heatset.c). */
#ifndef LATBPF_OUTPUT_HEATSET_H
#define LATBPF_OUTPUT_HEATSET_H

#include <stdio.h>
#include "core/snap.h"

struct lat_heat;

/* Heat maps over time for the histograms that are not in lists, by name:
 * the live view's (the focused one) and the summary's. Fed every
 * interval's snapshot. */
struct lat_heat_set;
struct lat_heat_set *lat_heat_set_new(void);
void lat_heat_set_push(struct lat_heat_set *hs, const struct lat_snap *s);
const struct lat_heat *lat_heat_set_find(struct lat_heat_set *hs, const char *name);
void lat_heat_set_summary(struct lat_heat_set *hs, FILE *f, const struct lat_snap *s,
			  int cols);
void lat_heat_set_free(struct lat_heat_set *hs);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* One family of a snapshot in full: the live view's panel (panel.c). */
#ifndef LATBPF_OUTPUT_PANEL_H
#define LATBPF_OUTPUT_PANEL_H

#include <stdio.h>
#include "core/snap.h"

/* interval and whole-run percentiles, bars, its lists' items a line each,
 * in cols columns (at least 60) */
void lat_text_panel(FILE *f, const struct lat_snap *s, const struct lat_node *fam, int cols);

#endif

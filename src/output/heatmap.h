/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A latency heat map over time (issue #15): the last `cap` intervals of one
 * histogram, each folded to power-of-two rows, drawn with time left to
 * right and latency bottom to top. Pure: no terminal, no BPF; the live view
 * and the whole-run summary hand it a FILE and a size.
 */
#ifndef LATBPF_OUTPUT_HEATMAP_H
#define LATBPF_OUTPUT_HEATMAP_H

#include <stdio.h>
#include "latbpf/hist.h"

#define LAT_HEAT_ROWS 64	/* row k: [2^k, 2^(k+1)) ns; row 0 also holds 0 */

struct lat_heat;

/* cap >= 1 intervals; NULL on ENOMEM (or cap < 1) */
struct lat_heat *lat_heat_new(int cap);
void lat_heat_free(struct lat_heat *h);

/*
 * One interval's histogram (a delta, not a running total), or NULL for an
 * interval with nothing recorded. Past cap intervals the oldest is dropped.
 */
void lat_heat_push(struct lat_heat *h, const struct lat_hist *iv);
void lat_heat_clear(struct lat_heat *h);

enum lat_heat_style {
	LAT_HEAT_ASCII,		/* shades " .:-=+*#%@" */
	LAT_HEAT_UNICODE,	/* shades " ░▒▓█" (UTF-8) */
	LAT_HEAT_256,		/* xterm 256-colour backgrounds, ESC[0m at each line end */
};

/*
 * Draws the newest intervals that fit into f: every line at most `width`
 * terminal cells (escape sequences take none), exactly `height` lines:
 * height - 2 latency bands, an axis line and a legend (with less height the
 * legend goes first, then the axis). When there is nothing to draw (no
 * samples in the intervals that fit, or no room for one column) it is one
 * line saying so instead.
 *
 * Each band is one or more power-of-two rows (merged when the rows with
 * samples outnumber the bands), labelled on the left with its lowest
 * value. A cell is shaded by its count against the fullest cell shown, on a
 * log scale so that a sparse tail stays visible; zero is blank. The cell
 * holding a column's p50 reads '5', its p99 '9', both 'X'. The axis line
 * names the leftmost column's age in intervals ("-39 iv") and "now".
 */
void lat_heat_render(FILE *f, const struct lat_heat *h, int width, int height,
		     enum lat_heat_style st);

#endif /* LATBPF_OUTPUT_HEATMAP_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latbpf bench's results as text, read from a snapshot that holds "tsc"
 * and "results" (bench's own, a trace's "baseline", a saved run's): the
 * clock, the table, how each was measured. The text sink prints a trace's
 * baseline with it; bench prints its report with it; bench compare reads
 * the same columns.
 */
#ifndef LATBPF_OUTPUT_BENCH_TABLE_H
#define LATBPF_OUTPUT_BENCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "core/snap.h"

/* the columns: p50 p90 p99 p99.9 and the max (101), by the names the JSON's
 * "runs" and "hist" give them */
#define LAT_BENCH_COLS 5
extern const double lat_bench_cols[LAT_BENCH_COLS];
extern const char *const lat_bench_col_names[LAT_BENCH_COLS];
/* a result's note, at most (bench's own; a saved run's is cut to it) */
#define LAT_BENCH_NOTE_MAX 240

/* the clock, then a row in ns and a row in cycles per result (and the
 * spread across runs, when there were several) */
void lat_bench_table(FILE *f, const struct lat_node *bench);
/* "how each was measured": per result its method, note and quarantine */
void lat_bench_methods(FILE *f, const struct lat_node *results);
/* a figure as the table shows it: ns formatted, else whole (MB/s); one
 * out of range (a JSON from anywhere) printed as a number */
void lat_bench_fmt_value(char *b, size_t n, double v, bool ns);

#endif

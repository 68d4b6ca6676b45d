/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf bench's results as a table: a bench's snapshot, or a trace's
 * --baseline. */
#ifndef LATBPF_OUTPUT_BENCH_TABLE_H
#define LATBPF_OUTPUT_BENCH_TABLE_H

#include <stdio.h>
#include "core/snap.h"

/* bench/run.c: the clock and the table of an object holding "tsc" and
 * "results" (a bench's snapshot root, or a trace's "baseline") */
void lat_bench_table(FILE *f, const struct lat_node *bench);

#endif

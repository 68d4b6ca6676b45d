/* SPDX-License-Identifier: GPL-2.0 */
/* The plain text sink: interval blocks and the whole-run summary (text.c). */
#ifndef LATBPF_OUTPUT_TEXT_H
#define LATBPF_OUTPUT_TEXT_H

#include <stdbool.h>
#include <stdio.h>
#include "output/sink.h"

struct lat_provenance;

/* log: a block per interval too; always the summary at the end. p NULL:
 * the provenance the snapshot carries (a saved run's) */
struct lat_sink *lat_text_sink_new(FILE *f, const struct lat_provenance *p, bool log);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* --json: one NDJSON record per snapshot. */
#ifndef LATBPF_OUTPUT_JSON_H
#define LATBPF_OUTPUT_JSON_H

#include <stdio.h>
#include "core/snap.h"
#include "output/sink.h"

struct lat_sink *lat_json_sink_new(FILE *f, const char *path);
int lat_json_write(FILE *f, const struct lat_snap *s);
void lat_json_hist(FILE *f, const struct lat_hist *h);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The live view in a terminal: a sink with keys (live.c). */
#ifndef LATBPF_OUTPUT_LIVE_H
#define LATBPF_OUTPUT_LIVE_H

#include "output/sink.h"

struct lat_provenance;

/* Takes the terminal (in: its keys, out: the screen) until stop or free.
 * Expects SIGWINCH blocked in every thread. */
struct lat_sink *lat_live_sink_new(const struct lat_provenance *p, int in, int out);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* --trace FILE: the flight recorder's incidents as Perfetto traces */
#ifndef LATBPF_PERFETTO_H
#define LATBPF_PERFETTO_H

#include <stdio.h>
#include "core/flight.h"

struct lat_sink;

/* The sink: each interval and at the end, the incidents whose window is
 * over go to FILE.n (FILE alone for the whole window at exit). NULL when
 * FILE cannot be written (said on stderr). */
struct lat_sink *lat_perfetto_sink_new(const char *path, struct lat_flight *fl);

/* One trace: the records of [from, to], an annotation for each target
 * wait of threshold_ns or more, and in's trigger; 0 or a negative errno.
 * The flight's lock is held. */
int lat_perfetto_write(FILE *out, struct lat_flight *fl, const struct lat_incident *in,
		       __u64 threshold_ns);

#endif

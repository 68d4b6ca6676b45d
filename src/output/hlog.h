/* SPDX-License-Identifier: GPL-2.0 */
/* --hlog FILE: an HdrHistogram interval log of every time histogram. */
#ifndef LATBPF_OUTPUT_HLOG_H
#define LATBPF_OUTPUT_HLOG_H

#include "output/sink.h"

struct lat_sink *lat_hlog_sink_new(const char *path, double start_epoch_s);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* --prometheus [HOST:]PORT: the snapshot as a /metrics exposition. */
#ifndef LATBPF_OUTPUT_PROM_H
#define LATBPF_OUTPUT_PROM_H

#include <stddef.h>
#include "core/snap.h"
#include "output/sink.h"

/* web_config: --web-config FILE, or NULL */
struct lat_sink *lat_prom_sink_new(const char *addr, const char *web_config);
/* the exposition of a snapshot (exposed for the unit test) */
char *lat_prom_render(const struct lat_snap *s, size_t *len);

#endif

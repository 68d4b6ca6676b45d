/* SPDX-License-Identifier: GPL-2.0 */
/* A snapshot's keys and figures as people read them (format.c). */
#ifndef LATBPF_OUTPUT_FORMAT_H
#define LATBPF_OUTPUT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* does key end in suffix ("stolen_ns", "_ns"), and is longer than it */
bool lat_key_ends(const char *key, const char *suffix);
/* a JSON key for people ("stolen_ns" -> "stolen") and a value in the unit
 * its key names (ns, bytes, an event's time on the wall clock: wall is the
 * snapshot's wall_minus_mono_ns) */
const char *lat_text_label(const char *key, char *buf, size_t n);
void lat_text_value(char *b, size_t n, const char *key, __u64 v, long long wall);
/* a real as the JSON holds it (decimals), a share ("_pct") as a percentage */
void lat_text_real(char *b, size_t n, const char *key, double v, int decimals);

#endif

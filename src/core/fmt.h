/* SPDX-License-Identifier: GPL-2.0 */
/* Figures for people: a time in ns ("2.36ms") and a size in bytes, in the
 * few significant digits every output prints. */
#ifndef LATBPF_CORE_FMT_H
#define LATBPF_CORE_FMT_H

#include <stddef.h>
#include <linux/types.h>

int lat_fmt_ns(char *buf, size_t len, __u64 ns);
int lat_fmt_bytes(char *buf, size_t len, __u64 bytes);

#endif

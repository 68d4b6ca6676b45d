/* SPDX-License-Identifier: GPL-2.0 */
/* Core kernel functions' addresses, from /proc/kallsyms. */
#ifndef LATBPF_CORE_KALLSYMS_H
#define LATBPF_CORE_KALLSYMS_H

#include <linux/types.h>

/* addr[i]: the address of names[i] (0: not found); how many were found,
 * -1 when /proc/kallsyms cannot be read */
int lat_kallsyms_find(const char *const names[], __u64 addr[], int n);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* CPU lists as the kernel writes them ("0,4-7"): parsed, read from sysfs,
 * and printed back. */
#ifndef LATBPF_CORE_CPULIST_H
#define LATBPF_CORE_CPULIST_H

#include <sched.h>
#include <stddef.h>

int lat_parse_cpulist(const char *s, cpu_set_t *set);
char *lat_fmt_cpulist(char *buf, size_t len, const cpu_set_t *set);
/* a sysfs CPU list file (isolated, nohz_full, online); empty when unreadable */
void lat_read_cpulist(const char *path, cpu_set_t *set);

#endif

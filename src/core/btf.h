/* SPDX-License-Identifier: GPL-2.0 */
/* What the kernel's BTF says about its tracepoints, and libbpf's own words
 * for a load that failed. */
#ifndef LATBPF_CORE_BTF_H
#define LATBPF_CORE_BTF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>

struct btf;
bool lat_btf_has_tracepoint(const struct btf *btf, const char *tp);
/* libbpf's own words for the last failed load: call reset before a load,
 * why after it fails ("" when libbpf said nothing) */
void lat_libbpf_reset(void);
void lat_libbpf_note(enum libbpf_print_level level, const char *fmt, va_list ap);
const char *lat_libbpf_why(char *buf, size_t len);
int lat_btf_tracepoint_nargs(const struct btf *btf, const char *tp);
/* whether the kernel's struct type has a member by that name (a field a
 * kernel may lack: what a family's mode says it goes without) */
bool lat_btf_has_member(const struct btf *btf, const char *type, const char *member);

#endif

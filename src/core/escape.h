/* SPDX-License-Identifier: GPL-2.0 */
/* Strings from the kernel and from users are untrusted: escaped before they
 * reach a terminal or a JSON document. */
#ifndef LATBPF_CORE_ESCAPE_H
#define LATBPF_CORE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

void lat_json_str(FILE *f, const char *s);
void lat_term_str(char *dst, size_t len, const char *s);
/* an argument quoted in a message: LAT_ARG_MAX bytes, escaped, cut */
#define LAT_ARG_MAX 128
const char *lat_term_arg(char *dst, size_t len, const char *s);

#endif

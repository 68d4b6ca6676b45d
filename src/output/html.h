/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf report --html: a saved run as one self-contained page (html.c). */
#ifndef LATBPF_OUTPUT_HTML_H
#define LATBPF_OUTPUT_HTML_H

#include <stdio.h>
#include "core/saved.h"

/* 0, or a negative errno (the file's) */
int lat_report_html(FILE *f, const struct lat_saved_run *r);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HdrHistogram interval logs (format 1.3, as Java's HistogramLogWriter
 * writes them) with V2 compressed histograms. latbpf's histogram layout is
 * HdrHistogram's for lowest discernible value 1 and one significant digit,
 * so a histogram is written slot by slot, never re-binned.
 */
#ifndef LATBPF_OUTPUT_HLOG_FORMAT_H
#define LATBPF_OUTPUT_HLOG_FORMAT_H

#include "latbpf/hist.h"

struct lat_hlog;
/* Creates FILE (truncating it) and writes the header. NULL with errno. */
struct lat_hlog *lat_hlog_open(const char *path, double start_epoch_s, const char *comment);
/* One interval of one histogram, start relative to the log's start (s) */
int lat_hlog_write(struct lat_hlog *l, const char *tag, double start_s, double length_s,
		   const struct lat_hist *h);
/* Writes what the intervals so far added, whole lines only: a run killed
 * after this leaves a log readable to its last line. */
int lat_hlog_flush(struct lat_hlog *l);
int lat_hlog_close(struct lat_hlog *l);	/* NULL ok */
/* The base64 of h's V2 compressed encoding, malloc'd into *out */
int lat_hlog_encode(const struct lat_hist *h, char **out);

#endif

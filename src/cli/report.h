/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf report: a saved --json run read back (report_cmd.c) and drawn as
 * one HTML page (report_html.c). */
#ifndef LATBPF_REPORT_H
#define LATBPF_REPORT_H

#include <stdio.h>
#include <jansson.h>
#include "snap.h"

struct lat_saved_run {
	const char *path;
	json_t **iv;		/* the interval records, in order */
	size_t n_iv;
	json_t *final;		/* the "final": true record */
	json_t *nodes;		/* its layout's nodes (README, JSON) */
	struct lat_snap snap;	/* the final record, as the run published it */
	struct lat_hist **hists;	/* what snap's histograms point at */
	size_t n_hists;
};

/* A run saved with --json, read whole (0, or -EINVAL after saying
 * FILE:LINE: why); snap(i) rebuilds record i into r->snap: interval i
 * (0-based) while i < n_iv, the final record at n_iv */
int lat_saved_run_load(struct lat_saved_run *r, const char *path);
int lat_saved_run_snap(struct lat_saved_run *r, size_t i);
void lat_saved_run_free(struct lat_saved_run *r);

/* latbpf report FILE.json [--html OUT.html]: 0, or a negative errno after
 * saying why (-EINVAL: usage or an unreadable run) */
int lat_report_main(int argc, char **argv, int sub);
int lat_report_html(FILE *f, const struct lat_saved_run *r);

#endif

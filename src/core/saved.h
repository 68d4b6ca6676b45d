/* SPDX-License-Identifier: GPL-2.0 */
/* A run saved with --json, read back whole (saved.c). */
#ifndef LATBPF_CORE_SAVED_H
#define LATBPF_CORE_SAVED_H

#include <stddef.h>
#include <jansson.h>
#include "core/snap.h"

struct lat_saved_run {
	const char *path;
	json_t **iv;		/* the interval records, in order */
	size_t n_iv;
	json_t *final;		/* the "final": true record */
	json_t *nodes;		/* its layout's nodes (README, JSON) */
	struct lat_snap snap;	/* the record last rebuilt, as the run published it */
	struct lat_hist **hists;	/* what snap's histograms point at */
	size_t n_hists;
};

/* 0, or -EINVAL after saying FILE:LINE: why; snap(i) rebuilds record i into
 * r->snap: interval i (0-based) while i < n_iv, the final record at n_iv */
int lat_saved_run_load(struct lat_saved_run *r, const char *path);
int lat_saved_run_snap(struct lat_saved_run *r, size_t i);
void lat_saved_run_free(struct lat_saved_run *r);

#endif

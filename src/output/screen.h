/* SPDX-License-Identifier: GPL-2.0 */
/* A snapshot on one screen, and as the plain tables (screen.c). */
#ifndef LATBPF_OUTPUT_SCREEN_H
#define LATBPF_OUTPUT_SCREEN_H

#include <stdbool.h>
#include <stdio.h>
#include "core/snap.h"

struct lat_provenance;
struct lat_heat;

struct lat_screen {
	int cols;		/* every line fits this many cells */
	int rows;		/* and this many lines; 0: no limit (plain text) */
	bool run;		/* the whole run's figures, else the interval's */
	bool utf8;		/* Unicode shades; else ASCII */
	bool live;		/* a terminal: the header names the keys */
	bool provenance;	/* the header starts with it (p, or the snapshot's) */
	bool paused, help;
	int focus;		/* 0: every family; k: family k in full */
	/* the focused family's heat map, and what it shows, or NULL */
	const struct lat_heat *heat;
	const char *heat_name;
};

/* at most this many families a screen shows (and lat_screen_families finds) */
#define LAT_SCREEN_MAX_FAMILIES 32

/* the families of a snapshot, in its order: the objects and lists that are
 * measurements (not provenance, self, drops or a bench baseline) */
int lat_screen_families(const struct lat_snap *s, const struct lat_node **fam, int max);
/* every line of it fitted to o->cols and, when o->rows, to o->rows - 1 */
void lat_screen_render(FILE *f, const struct lat_snap *s, const struct lat_provenance *p,
		       const struct lat_screen *o);
/* the histograms a heat map can follow: those not inside a list, with their
 * names as the table shows them; returns how many went into n[] */
int lat_screen_hists(const struct lat_node *fam, const struct lat_node **n, int max);
/* "sched run-queue latency": a histogram's name in the tables */
void lat_screen_hist_name(char *buf, size_t len, const struct lat_node *n);

#endif

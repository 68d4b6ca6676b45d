/* SPDX-License-Identifier: GPL-2.0 */
/* report_screen.c: a snapshot on one screen, and as the plain tables */
#ifndef LATBPF_SCREEN_H
#define LATBPF_SCREEN_H

#include <stdbool.h>
#include <stdio.h>
#include "snap.h"

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


/* Heat maps over time for the histograms that are not in lists, by name:
 * the live view's (the focused one) and the summary's. Fed every
 * interval's snapshot. */
struct lat_heat_set;
struct lat_heat_set *lat_heat_set_new(void);
void lat_heat_set_push(struct lat_heat_set *hs, const struct lat_snap *s);
const struct lat_heat *lat_heat_set_find(struct lat_heat_set *hs, const char *name);
void lat_heat_set_summary(struct lat_heat_set *hs, FILE *f, const struct lat_snap *s,
			  int cols);
void lat_heat_set_free(struct lat_heat_set *hs);

#endif

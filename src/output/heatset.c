// SPDX-License-Identifier: GPL-2.0
/*
 * Heat maps over time for the histograms a screen shows outside lists, by
 * their name in the tables (heatset.h): fed every interval's snapshot.
 */
#include <stdlib.h>
#include <string.h>
#include "output/heatset.h"
#include "core/yield.h"
#include "core/snap.h"
#include "output/heatmap.h"
#include "output/screen.h"

#define HEAT_MAX 32
#define HEAT_CAP 240	/* intervals kept: wider than any screen */

struct lat_heat_set {
	int n;
	struct {
		char name[96];
		struct lat_heat *h;
	} e[HEAT_MAX];
	struct lat_hist buf;
};

struct lat_heat_set *lat_heat_set_new(void)
{
	return calloc(1, sizeof(struct lat_heat_set));
}

void lat_heat_set_free(struct lat_heat_set *hs)
{
	for (int i = 0; hs && i < hs->n; i++)
		lat_heat_free(hs->e[i].h);
	free(hs);
}

static struct lat_heat *heat_get(struct lat_heat_set *hs, const char *name, bool make)
{
	for (int i = 0; i < hs->n; i++)
		if (!strcmp(hs->e[i].name, name))
			return hs->e[i].h;
	if (!make || hs->n == HEAT_MAX)
		return NULL;
	hs->e[hs->n].h = lat_heat_new(HEAT_CAP);
	if (!hs->e[hs->n].h)
		return NULL;
	snprintf(hs->e[hs->n].name, sizeof(hs->e[0].name), "%s", name);
	return hs->e[hs->n++].h;
}

void lat_heat_set_push(struct lat_heat_set *hs, const struct lat_snap *s)
{
	const struct lat_node *fam[LAT_SCREEN_MAX_FAMILIES], *h[16];
	int nf, nh;
	char name[96];

	if (!hs || s->final)
		return;
	nf = lat_screen_families(s, fam, LAT_SCREEN_MAX_FAMILIES);
	for (int i = 0; i < nf; i++) {
		nh = lat_screen_hists(fam[i], h, 16);
		for (int k = 0; k < nh; k++) {
			struct lat_heat *m;

			lat_yield_point();
			lat_screen_hist_name(name, sizeof(name), h[k]);
			m = heat_get(hs, name, true);
			if (m)
				lat_heat_push(m, lat_node_iv(h[k], &hs->buf));
		}
	}
}

const struct lat_heat *lat_heat_set_find(struct lat_heat_set *hs, const char *name)
{
	return hs ? heat_get(hs, name, false) : NULL;
}

/* the summary's: every histogram that has samples, over the last intervals */
void lat_heat_set_summary(struct lat_heat_set *hs, FILE *f, const struct lat_snap *s,
			  int cols)
{
	const struct lat_node *fam[LAT_SCREEN_MAX_FAMILIES], *h[16];
	int nf = lat_screen_families(s, fam, LAT_SCREEN_MAX_FAMILIES), nh;
	char name[96];

	for (int i = 0; hs && i < nf; i++) {
		nh = lat_screen_hists(fam[i], h, 16);
		for (int k = 0; k < nh; k++) {
			const struct lat_heat *m;

			lat_screen_hist_name(name, sizeof(name), h[k]);
			m = heat_get(hs, name, false);
			if (!m || !lat_node_run(h[k], &hs->buf)->count)
				continue;
			fprintf(f, "\nheat map: %s over time (a column an interval, "
				"the newest right; 5 p50, 9 p99)\n", name);
			lat_heat_render(f, m, cols, 14, LAT_HEAT_ASCII);
		}
	}
}

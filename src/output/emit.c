// SPDX-License-Identifier: GPL-2.0
/* lat_snap_walk(): a renderer driven through a snapshot's nodes (emit.h). */
#include <stdlib.h>
#include "output/emit.h"
#include "core/snap.h"
#include "core/yield.h"

/* Drives a renderer through one node and what it holds, as the renderer's
 * view asks: e->final or e->live show the run, others the interval. */
void lat_snap_walk(const struct lat_node *n, struct lat_emit *e)
{
	const struct lat_node **items, *c;
	bool run_view = e->final || e->live;
	struct lat_hist *iv;
	int i, k;

	switch (n->kind) {
	case LAT_OBJ:
		e->ops->obj_begin(e, n->key, n->title);
		for (c = n->child; c; c = c->next)
			lat_snap_walk(c, e);
		e->ops->obj_end(e);
		break;
	case LAT_LIST:
		k = lat_snap_items(n, run_view, e->max_items, &items);
		e->ops->list_begin(e, n->key, n->title);
		/* an item without histograms (an intruder, an event) has
		 * no point of its own: thousands of them took 1.9 ms */
		for (i = 0; i < k; i++) {
			lat_yield_point();
			lat_snap_walk(items[i], e);
		}
		e->ops->list_end(e);
		if (k >= 0)
			free(items);
		break;
	case LAT_HIST:
		lat_yield_point();
		iv = malloc(2 * sizeof(*iv));	/* the interval; a packed run */
		if (!iv)
			break;
		(n->unit == LAT_UNIT_BYTES ? e->ops->bytes :
		 (n->flags & LAT_F_INLINE) && e->ops->hist_inline ? e->ops->hist_inline :
		 e->ops->hist)(e, n->key, n->title, lat_node_iv(n, iv), lat_node_run(n, iv + 1));
		free(iv);
		break;
	case LAT_COUNT:
	case LAT_DUR:
		if ((n->flags & LAT_F_NONZERO) && !n->v.c.run)
			break;
		(n->kind == LAT_COUNT ? e->ops->count : e->ops->dur)(e, n->key, n->v.c.iv,
								     n->v.c.run);
		break;
	case LAT_NUM:
		e->ops->num(e, n->key, n->v.num);
		break;
	case LAT_REAL:
		e->ops->real(e, n->key, n->v.real, n->decimals);
		break;
	case LAT_BOOL:
		e->ops->boolean(e, n->key, n->v.b);
		break;
	case LAT_NULL:
		e->ops->null(e, n->key);
		break;
	case LAT_IDS:
		e->ops->ids(e, n->key, n->v.ids.v, n->v.ids.n);
		break;
	case LAT_STR:
		e->ops->str(e, n->key, n->v.str);
		break;
	}
}

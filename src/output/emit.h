/* SPDX-License-Identifier: GPL-2.0 */
/* A renderer driven through a snapshot's nodes (emit.c): how the JSON
 * writer and the live view's panel read a snapshot. */
#ifndef LATBPF_OUTPUT_EMIT_H
#define LATBPF_OUTPUT_EMIT_H

#include <stdbool.h>
#include <linux/types.h>
#include "core/snap.h"

/*
 * A renderer that lat_snap_walk() drives through a snapshot's nodes (the
 * JSON and text sinks). Every value comes as (this interval, whole run);
 * the renderer's own mode picks what it shows. Families never see this.
 */
struct lat_emit;
struct lat_emit_ops {
	void (*obj_begin)(struct lat_emit *e, const char *key, const char *title);
	void (*obj_end)(struct lat_emit *e);
	void (*list_begin)(struct lat_emit *e, const char *key, const char *title);
	void (*list_end)(struct lat_emit *e);
	void (*hist)(struct lat_emit *e, const char *key, const char *title,
		     const struct lat_hist *iv, const struct lat_hist *run);
	/* a histogram of sizes in bytes, not times: the same in JSON */
	void (*bytes)(struct lat_emit *e, const char *key, const char *title,
		      const struct lat_hist *iv, const struct lat_hist *run);
	void (*count)(struct lat_emit *e, const char *key, __u64 iv, __u64 run);
	void (*dur)(struct lat_emit *e, const char *key, __u64 iv_ns, __u64 run_ns);
	void (*num)(struct lat_emit *e, const char *key, __s64 v);
	void (*ids)(struct lat_emit *e, const char *key, const __u32 *ids, int n);
	void (*real)(struct lat_emit *e, const char *key, double v, int decimals);
	void (*boolean)(struct lat_emit *e, const char *key, bool v);
	void (*null)(struct lat_emit *e, const char *key);
	void (*str)(struct lat_emit *e, const char *key, const char *untrusted);
	/* a histogram whose fields are its object's own (LAT_F_INLINE); NULL:
	 * the renderer takes it as any other */
	void (*hist_inline)(struct lat_emit *e, const char *key, const char *title,
			    const struct lat_hist *iv, const struct lat_hist *run);
};
struct lat_emit {
	const struct lat_emit_ops *ops;
	bool final;		/* reporting the whole run, not an interval */
	bool live;		/* a terminal screen: show the run, keep lists short */
	int max_items;		/* long lists: show at most this many (0: all) */
};
void lat_snap_walk(const struct lat_node *n, struct lat_emit *e);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output layer's one data model. Each poll the run publishes into a
 * snapshot: provenance, then every family's named histograms and counters,
 * each with its value for this interval and for the whole run, list items
 * labelled (cpu, device, op, remote, thread). Sinks (live view, plain text,
 * NDJSON, .hlog, Prometheus) render snapshots; no family knows a sink, and
 * no sink knows a family.
 *
 * A snapshot is valid until the next poll: histograms are not copied, a node
 * points at the family's cumulative histogram and at the one from the poll
 * before, and a sink that wants the interval takes the difference.
 */
#ifndef LATBPF_CORE_SNAP_H
#define LATBPF_CORE_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include "latbpf/hist.h"
#include "core/hist.h"

enum lat_kind {
	LAT_OBJ, LAT_LIST,
	LAT_HIST,	/* (run, before): the interval is their difference */
	LAT_COUNT,	/* (iv, run) */
	LAT_DUR,	/* (iv, run) in ns */
	LAT_NUM, LAT_REAL, LAT_BOOL, LAT_NULL, LAT_IDS, LAT_STR,
};

enum lat_unit { LAT_UNIT_NS, LAT_UNIT_BYTES, LAT_UNIT_TICKS };

/* Node flags */
#define LAT_F_IV	0x01	/* list item: active in this interval */
#define LAT_F_RUN	0x02	/* list item: active in the run */
#define LAT_F_TAIL	0x04	/* list: newest last; a short view keeps the tail */
#define LAT_F_NONZERO	0x08	/* count: shown only once its run value is not 0 */
#define LAT_F_DROP	0x10	/* count: events or samples that were lost */
#define LAT_F_GAUGE	0x20	/* count: a rate, not a running total */
#define LAT_F_PROV	0x40	/* provenance, not a measurement */
#define LAT_F_BREAKDOWN	0x80	/* list: its items break down totals published beside it */
#define LAT_F_PACKED	0x100	/* hist: holds packed histograms (v.hp) */
#define LAT_F_BRIEF	0x200	/* an item's column a narrow screen keeps (output/screen.c) */
#define LAT_F_INLINE	0x400	/* hist: its fields are its object's own (JSON: no key) */
#define LAT_F_LABEL	0x800	/* str: one of its item's labels (state="sleeping") */
#define LAT_F_SHARES	0x1000	/* list: its items' rank values divide a whole (shares,
				 * a bar each: the screen's first table) */

struct lat_node {
	struct lat_node *next, *child, *last, *parent;
	const char *key;	/* JSON key; NULL for list items */
	const char *title;	/* for people; NULL: the key */
	/* a list item or an object standing for a label value: device="vda" */
	const char *label, *lvalue;
	const char *tag;	/* its part of a .hlog tag ("cpu1", "vda") */
	const char *metric;	/* Prometheus name part, when not the key */
	const char *rank;	/* list: items ordered by this child, largest first */
	int keep;		/* list: at most this many items (0: all) */
	int keep_short;		/* list: at most this many on a screen (0: keep) */
	unsigned char kind, unit;
	unsigned short flags;
	int decimals;		/* LAT_REAL */
	union {
		struct { const struct lat_hist *run, *before; } h;
		struct { const struct lat_hist_packed *run, *before; } hp;
		struct { unsigned long long iv, run; } c;
		long long num;
		double real;
		bool b;
		const char *str;
		struct { const __u32 *v; int n; } ids;
	} v;
};

struct lat_arena_chunk;
struct lat_snap {
	struct lat_node root;
	struct lat_node *cur;		/* where the next node goes */
	struct lat_arena_chunk *chunks;	/* kept and reused by the next reset */
	size_t used;			/* in the current chunk */
	struct lat_arena_chunk *at;
	bool oom;			/* something was not published */
	/* what the snapshot covers: interval 1.., or 0 for the whole run (the
	 * final one, a bench); final: the run's last */
	long interval;
	bool final;
	double iv_start_s, iv_len_s;	/* this interval, from the start */
	unsigned long long elapsed_ns;	/* since the run started */
	/* CLOCK_REALTIME minus CLOCK_MONOTONIC when the snapshot was taken:
	 * where an event's ts_ns falls on the wall clock, read once so every
	 * sink (and a saved run's report) puts it at the same time */
	long long wall_minus_mono_ns;
};

/* node flags by name, as the final record's "layout" names them (the JSON
 * writes them, a saved run's reader reads them back) */
struct lat_flag_name {
	unsigned flag;
	const char *name;
};
extern const struct lat_flag_name lat_layout_flags[];

void lat_snap_reset(struct lat_snap *s);
void lat_snap_free(struct lat_snap *s);

/* Publishing: nodes go into the object or list opened last. Strings are
 * copied. Every function returns the node, or NULL when out of memory (the
 * snapshot remembers it and renders what it has). */
struct lat_node *lat_pub_obj(struct lat_snap *s, const char *key, const char *title);
struct lat_node *lat_pub_list(struct lat_snap *s, const char *key, const char *title);
/* a list item: shown in an interval's view when iv, in the run's when run */
struct lat_node *lat_pub_item(struct lat_snap *s, bool iv, bool run);
void lat_pub_end(struct lat_snap *s);	/* closes the object, list or item */
/* the open item or object stands for label=value; its .hlog tag part */
void lat_pub_label(struct lat_snap *s, const char *label, const char *value,
		   const char *tag);
/* a string member that is one of the open item's labels (LAT_F_LABEL) */
struct lat_node *lat_pub_str_label(struct lat_snap *s, const char *key, const char *v);
/* the open item is named by its label members: its tag their values
 * joined with dots ("sleeping.futex.io"), for the sinks that name an item
 * by one string (.hlog, the screen) */
void lat_pub_label_members(struct lat_snap *s);
struct lat_node *lat_pub_hist(struct lat_snap *s, const char *key, const char *title,
			      const struct lat_hist *run, const struct lat_hist *before);
struct lat_node *lat_pub_bytes(struct lat_snap *s, const char *key, const char *title,
			       const struct lat_hist *run, const struct lat_hist *before);
/* a histogram kept packed (per-thread ones); before NULL: since the start */
struct lat_node *lat_pub_hist_packed(struct lat_snap *s, const char *key, const char *title,
				     const struct lat_hist_packed *run,
				     const struct lat_hist_packed *before);
struct lat_node *lat_pub_count(struct lat_snap *s, const char *key,
			       unsigned long long iv, unsigned long long run);
struct lat_node *lat_pub_dur(struct lat_snap *s, const char *key,
			     unsigned long long iv, unsigned long long run);
struct lat_node *lat_pub_num(struct lat_snap *s, const char *key, long long v);
struct lat_node *lat_pub_real(struct lat_snap *s, const char *key, double v, int decimals);
struct lat_node *lat_pub_bool(struct lat_snap *s, const char *key, bool v);
struct lat_node *lat_pub_null(struct lat_snap *s, const char *key);
struct lat_node *lat_pub_ids(struct lat_snap *s, const char *key, const __u32 *ids, int n);
/* untrusted strings welcome: every sink escapes; NULL publishes null */
struct lat_node *lat_pub_str(struct lat_snap *s, const char *key, const char *v);
struct lat_node *lat_pub_strf(struct lat_snap *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* the open list: order items by child `key` (largest first in the view shown),
 * keep at most `keep`, at most `keep_short` on a screen */
void lat_pub_rank(struct lat_snap *s, const char *key, int keep, int keep_short);
void lat_pub_flags(struct lat_node *n, unsigned flags);	/* NULL ok */
/* moves a top-level node right after another (NULL: first) */
void lat_snap_move(struct lat_snap *s, struct lat_node *n, struct lat_node *after);

/* After the families: "drops", every node marked LAT_F_DROP summed by
 * family.what, right after "probes" (DESIGN.md); 0s are kept, for the sinks
 * that report every place, and hidden by the ones that omit them */
void lat_snap_publish_drops(struct lat_snap *s);

/* Reading */
struct lat_node *lat_snap_find(const struct lat_node *obj, const char *key);
/* the interval of a LAT_HIST node, into *iv (the run's when it has no before) */
const struct lat_hist *lat_node_iv(const struct lat_node *n, struct lat_hist *iv);
/* the run of a LAT_HIST node: its own, or unpacked into *buf */
const struct lat_hist *lat_node_run(const struct lat_node *n, struct lat_hist *buf);

/* The items of a list a view shows, in the order it shows them: visible in
 * the view (run or interval), ranked, cut to max (0: the list's keep).
 * Returns how many went into *items (malloc'd; free it), or -1. */
int lat_snap_items(const struct lat_node *list, bool run_view, int max,
		   const struct lat_node ***items);

#endif

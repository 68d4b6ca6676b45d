// SPDX-License-Identifier: GPL-2.0
/* The snapshot: nodes in an arena that each poll reuses, so publishing does
 * not allocate once the first interval has sized it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/snap.h"
#include "core/clock.h"
#include "core/hist.h"
#include "core/yield.h"

/* in the order the final record's layout lists a node's flags */
const struct lat_flag_name lat_layout_flags[] = {
	{ LAT_F_TAIL, "tail" }, { LAT_F_NONZERO, "nonzero" }, { LAT_F_DROP, "drop" },
	{ LAT_F_GAUGE, "gauge" }, { LAT_F_PROV, "prov" }, { LAT_F_BREAKDOWN, "breakdown" },
	{ LAT_F_BRIEF, "brief" }, { LAT_F_INLINE, "inline" }, { LAT_F_LABEL, "label" },
	{ LAT_F_SHARES, "shares" }, { 0, NULL },
};

#define CHUNK (64 * 1024)

struct lat_arena_chunk {
	struct lat_arena_chunk *next;
	size_t size;
	_Alignas(16) char mem[];
};

static void *alloc(struct lat_snap *s, size_t n)
{
	struct lat_arena_chunk *c = s->at;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (c && s->used + n > c->size) {
		/* the next chunk kept from an earlier poll, if it is big enough */
		for (c = c->next; c && c->size < n; c = c->next)
			;
		s->used = 0;
	}
	if (!c) {
		size_t size = n > CHUNK ? n : CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c) {
			s->oom = true;
			return NULL;
		}
		c->size = size;
		c->next = s->at ? s->at->next : NULL;
		if (s->at)
			s->at->next = c;
		else
			s->chunks = c;
		s->used = 0;
	}
	s->at = c;
	p = c->mem + s->used;
	s->used += n;
	return p;
}

static const char *copy(struct lat_snap *s, const char *str)
{
	size_t n;
	char *p;

	if (!str)
		return NULL;
	n = strlen(str) + 1;
	p = alloc(s, n);
	if (p)
		memcpy(p, str, n);
	return p;
}

void lat_snap_reset(struct lat_snap *s)
{
	memset(&s->root, 0, sizeof(s->root));
	s->root.kind = LAT_OBJ;
	s->cur = &s->root;
	s->at = s->chunks;
	s->used = 0;
	s->oom = false;
	s->interval = 0;
	s->final = false;
	s->wall_minus_mono_ns = lat_wall_minus_mono_ns();
}

void lat_snap_free(struct lat_snap *s)
{
	struct lat_arena_chunk *c, *n;

	for (c = s->chunks; c; c = n) {
		n = c->next;
		free(c);
	}
	s->chunks = s->at = NULL;
}

static struct lat_node *add(struct lat_snap *s, enum lat_kind kind, const char *key)
{
	struct lat_node *n, *p = s->cur ? s->cur : &s->root;

	n = alloc(s, sizeof(*n));
	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->kind = (unsigned char)kind;
	n->key = p->kind == LAT_LIST ? NULL : copy(s, key);
	n->parent = p;
	if (p->last)
		p->last->next = n;
	else
		p->child = n;
	p->last = n;
	return n;
}

static struct lat_node *open_node(struct lat_snap *s, enum lat_kind kind, const char *key,
				  const char *title)
{
	struct lat_node *n = add(s, kind, key);

	if (n) {
		n->title = copy(s, title);
		s->cur = n;
	}
	return n;
}

struct lat_node *lat_pub_obj(struct lat_snap *s, const char *key, const char *title)
{
	return open_node(s, LAT_OBJ, key, title);
}

struct lat_node *lat_pub_list(struct lat_snap *s, const char *key, const char *title)
{
	return open_node(s, LAT_LIST, key, title);
}

struct lat_node *lat_pub_item(struct lat_snap *s, bool iv, bool run)
{
	struct lat_node *n = open_node(s, LAT_OBJ, NULL, NULL);

	if (n)
		n->flags |= (iv ? LAT_F_IV : 0) | (run ? LAT_F_RUN : 0);
	return n;
}

/* A node that could not be opened leaves cur where it was: closing then
 * closes its parent, and what follows lands one level up, which a sink
 * renders as it is; s->oom says the snapshot is incomplete. */
void lat_pub_end(struct lat_snap *s)
{
	if (s->cur && s->cur->parent)
		s->cur = s->cur->parent;
}

void lat_pub_label(struct lat_snap *s, const char *label, const char *value,
		   const char *tag)
{
	if (!s->cur || s->cur == &s->root)
		return;
	s->cur->label = copy(s, label);
	s->cur->lvalue = copy(s, value);
	s->cur->tag = copy(s, tag ? tag : value);
}

void lat_pub_label_members(struct lat_snap *s)
{
	char tag[192];
	size_t l = 0;

	if (!s->cur || s->cur == &s->root)
		return;
	tag[0] = '\0';
	for (const struct lat_node *c = s->cur->child; c; c = c->next)
		if (c->kind == LAT_STR && (c->flags & LAT_F_LABEL) && l < sizeof(tag))
			l += (size_t)snprintf(tag + l, sizeof(tag) - l, "%s%s", l ? "." : "",
					      c->v.str);
	if (l && l < sizeof(tag))
		s->cur->tag = s->cur->lvalue = copy(s, tag);
}

static struct lat_node *hist(struct lat_snap *s, const char *key, const char *title,
			     enum lat_unit unit, const struct lat_hist *run,
			     const struct lat_hist *before)
{
	struct lat_node *n = add(s, LAT_HIST, key);

	/* a histogram a thread or CPU: the publish of thousands is long */
	lat_yield_point();
	if (n) {
		n->title = copy(s, title);
		n->unit = (unsigned char)unit;
		n->v.h.run = run;
		n->v.h.before = before;
	}
	return n;
}

struct lat_node *lat_pub_hist(struct lat_snap *s, const char *key, const char *title,
			      const struct lat_hist *run, const struct lat_hist *before)
{
	return hist(s, key, title, LAT_UNIT_NS, run, before);
}

struct lat_node *lat_pub_bytes(struct lat_snap *s, const char *key, const char *title,
			       const struct lat_hist *run, const struct lat_hist *before)
{
	return hist(s, key, title, LAT_UNIT_BYTES, run, before);
}

struct lat_node *lat_pub_hist_packed(struct lat_snap *s, const char *key, const char *title,
				     const struct lat_hist_packed *run,
				     const struct lat_hist_packed *before)
{
	struct lat_node *n = hist(s, key, title, LAT_UNIT_NS, NULL, NULL);

	if (n) {
		n->flags |= LAT_F_PACKED;
		n->v.hp.run = run;
		n->v.hp.before = before;
	}
	return n;
}

static struct lat_node *pair(struct lat_snap *s, enum lat_kind kind, const char *key,
			     unsigned long long iv, unsigned long long run)
{
	struct lat_node *n = add(s, kind, key);

	if (n) {
		n->v.c.iv = iv;
		n->v.c.run = run;
	}
	return n;
}

struct lat_node *lat_pub_count(struct lat_snap *s, const char *key,
			       unsigned long long iv, unsigned long long run)
{
	return pair(s, LAT_COUNT, key, iv, run);
}

struct lat_node *lat_pub_dur(struct lat_snap *s, const char *key,
			     unsigned long long iv, unsigned long long run)
{
	return pair(s, LAT_DUR, key, iv, run);
}

struct lat_node *lat_pub_num(struct lat_snap *s, const char *key, long long v)
{
	struct lat_node *n = add(s, LAT_NUM, key);

	if (n)
		n->v.num = v;
	return n;
}

struct lat_node *lat_pub_real(struct lat_snap *s, const char *key, double v, int decimals)
{
	struct lat_node *n = add(s, LAT_REAL, key);

	if (n) {
		n->v.real = v;
		n->decimals = decimals;
	}
	return n;
}

struct lat_node *lat_pub_bool(struct lat_snap *s, const char *key, bool v)
{
	struct lat_node *n = add(s, LAT_BOOL, key);

	if (n)
		n->v.b = v;
	return n;
}

struct lat_node *lat_pub_null(struct lat_snap *s, const char *key)
{
	return add(s, LAT_NULL, key);
}

struct lat_node *lat_pub_ids(struct lat_snap *s, const char *key, const __u32 *ids, int n)
{
	struct lat_node *node = add(s, LAT_IDS, key);
	__u32 *v = n > 0 ? alloc(s, (size_t)n * sizeof(*v)) : NULL;

	if (!node)
		return NULL;
	if (v)
		memcpy(v, ids, (size_t)n * sizeof(*v));
	node->v.ids.v = v;
	node->v.ids.n = v ? n : 0;
	return node;
}

struct lat_node *lat_pub_str(struct lat_snap *s, const char *key, const char *v)
{
	struct lat_node *n;

	if (!v)
		return lat_pub_null(s, key);
	n = add(s, LAT_STR, key);
	if (n && !(n->v.str = copy(s, v)))
		n->kind = LAT_NULL;
	return n;
}

struct lat_node *lat_pub_str_label(struct lat_snap *s, const char *key, const char *v)
{
	struct lat_node *n = lat_pub_str(s, key, v);

	lat_pub_flags(n, LAT_F_LABEL);
	return n;
}

struct lat_node *lat_pub_strf(struct lat_snap *s, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return lat_pub_str(s, key, buf);
}

void lat_pub_rank(struct lat_snap *s, const char *key, int keep, int keep_short)
{
	if (!s->cur || s->cur->kind != LAT_LIST)
		return;
	s->cur->rank = copy(s, key);
	s->cur->keep = keep;
	s->cur->keep_short = keep_short;
}

/* Moves top-level node n to right after top-level node `after` (NULL: first) */
void lat_snap_move(struct lat_snap *s, struct lat_node *n, struct lat_node *after)
{
	struct lat_node **pp, *r = &s->root;

	if (!n || n == after || n->parent != r || (after && after->parent != r))
		return;
	for (pp = &r->child; *pp && *pp != n; pp = &(*pp)->next)
		;
	if (!*pp)
		return;
	*pp = n->next;
	if (r->last == n) {
		struct lat_node *l = r->child;

		while (l && l->next)
			l = l->next;
		r->last = l;
	}
	pp = after ? &after->next : &r->child;
	n->next = *pp;
	*pp = n;
	if (!n->next)
		r->last = n;
}

void lat_pub_flags(struct lat_node *n, unsigned flags)
{
	if (n)
		n->flags |= (unsigned short)flags;
}

struct lat_node *lat_snap_find(const struct lat_node *obj, const char *key)
{
	struct lat_node *n;

	for (n = obj ? obj->child : NULL; n; n = n->next)
		if (n->key && !strcmp(n->key, key))
			return n;
	return NULL;
}

const struct lat_hist *lat_node_run(const struct lat_node *n, struct lat_hist *buf)
{
	if (!(n->flags & LAT_F_PACKED))
		return n->v.h.run;
	lat_hist_unpack(buf, n->v.hp.run);
	return buf;
}

const struct lat_hist *lat_node_iv(const struct lat_node *n, struct lat_hist *iv)
{
	if (n->flags & LAT_F_PACKED) {
		lat_hist_delta_packed(iv, n->v.hp.run, n->v.hp.before);
		return iv;
	}
	if (!n->v.h.before)
		return n->v.h.run;
	lat_hist_delta(iv, n->v.h.run, n->v.h.before);
	return iv;
}

static bool visible(const struct lat_node *item, bool run_view)
{
	if (!(item->flags & (LAT_F_IV | LAT_F_RUN)))
		return true;	/* not an activity-dependent item */
	return item->flags & (run_view ? LAT_F_RUN : LAT_F_IV);
}

static unsigned long long rank_value(const struct lat_node *item, const char *key,
				     bool run_view)
{
	const struct lat_node *n = lat_snap_find(item, key);

	if (!n || (n->kind != LAT_COUNT && n->kind != LAT_DUR))
		return 0;
	return run_view ? n->v.c.run : n->v.c.iv;
}

/* items by their rank value, largest first; equal ones keep their order,
 * so a list saved ranked and ranked again (latbpf report) reads the same */
struct ranked {
	const struct lat_node *n;
	unsigned long long v;
	int i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

static int rank_items(const struct lat_node **a, int count, const char *key, bool run_view)
{
	struct ranked *r = calloc((size_t)count, sizeof(*r));

	if (!r)
		return -1;
	for (int i = 0; i < count; i++) {
		r[i] = (struct ranked){ a[i], rank_value(a[i], key, run_view), i };
		lat_yield_point();
	}
	qsort(r, (size_t)count, sizeof(*r), cmp_ranked);
	for (int i = 0; i < count; i++)
		a[i] = r[i].n;
	free(r);
	return 0;
}

int lat_snap_items(const struct lat_node *list, bool run_view, int max,
		   const struct lat_node ***items)
{
	const struct lat_node *n, **a;
	int count = 0, i = 0, keep;
	unsigned walked = 0;

	/* long lists (thousands of intruders, events): a yield point every
	 * 256 items of a walk */
	for (n = list->child; n; n = n->next, walked++) {
		count += visible(n, run_view);
		if ((walked & 255) == 255)
			lat_yield_point();
	}
	a = calloc((size_t)count + 1, sizeof(*a));
	if (!a)
		return -1;
	for (n = list->child, walked = 0; n; n = n->next, walked++) {
		if (visible(n, run_view))
			a[i++] = n;
		if ((walked & 255) == 255)
			lat_yield_point();
	}
	if (list->rank && count > 1 && rank_items(a, count, list->rank, run_view)) {
		free(a);
		return -1;
	}
	keep = list->keep;
	if (max && list->keep_short)
		keep = list->keep_short;
	else if (max && (!keep || max < keep))
		keep = max;
	if (keep > 0 && count > keep) {
		if (list->flags & LAT_F_TAIL)
			memmove(a, a + (count - keep), (size_t)keep * sizeof(*a));
		count = keep;
	}
	*items = a;
	return count;
}

#define MAX_DROPS 64

struct drop {
	char what[64];
	unsigned long long iv, run;
};

static void find_drops(const struct lat_node *n, const char *family, struct drop *d, int *nd)
{
	char what[64];
	int i;

	for (; n; n = n->next) {
		if (n->kind == LAT_OBJ || n->kind == LAT_LIST)
			find_drops(n->child, family, d, nd);
		if (n->kind != LAT_COUNT || !(n->flags & LAT_F_DROP))
			continue;
		/* one entry per place, summed over CPUs or devices */
		snprintf(what, sizeof(what), "%s.%s", family, n->key);
		for (i = 0; i < *nd && strcmp(d[i].what, what); i++)
			;
		if (i == *nd) {
			if (*nd == MAX_DROPS)
				continue;
			memcpy(d[(*nd)++].what, what, sizeof(what));
		}
		d[i].iv += n->v.c.iv;
		d[i].run += n->v.c.run;
	}
}

/* "drops": every place where the families can lose data, by family.what,
 * right after the provenance and "self"; a place that lost nothing is left out, and
 * nothing lost at all is said in the title */
void lat_snap_publish_drops(struct lat_snap *s)
{
	static struct drop d[MAX_DROPS];
	struct lat_node *n, *obj;
	bool any = false;
	int nd = 0, i;

	memset(d, 0, sizeof(d));
	for (n = s->root.child; n; n = n->next)
		if (!(n->flags & LAT_F_PROV) && n->kind == LAT_OBJ && n->key)
			find_drops(n->child, n->key, d, &nd);
	for (i = 0; i < nd; i++)
		any |= d[i].run > 0;
	obj = lat_pub_obj(s, "drops", any ? "drops: events or samples latbpf lost" :
				       "drops: none (no event or sample was lost)");
	for (i = 0; i < nd; i++)
		lat_pub_flags(lat_pub_count(s, d[i].what, d[i].iv, d[i].run), LAT_F_NONZERO);
	lat_pub_end(s);
	n = lat_snap_find(&s->root, "self");
	lat_snap_move(s, obj, n ? n : lat_snap_find(&s->root, "probes"));
}

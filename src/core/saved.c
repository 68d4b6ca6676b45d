// SPDX-License-Identifier: GPL-2.0
/*
 * A run saved with --json, read back with jansson (DESIGN.md: reading a
 * saved run is a JSON library's job). The final record, with its "layout"
 * (what the values alone do not say: kinds, titles, ranking), becomes the
 * snapshot the run published at its end; an interval record, that
 * interval's. What latbpf report and its HTML page render.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/saved.h"
#include "core/escape.h"
#include "core/jsonfile.h"
#include "core/snap.h"

struct rebuild {
	struct lat_snap *s;
	json_t *nodes;
	struct lat_hist **hists;	/* the snapshot points at them */
	size_t n, cap;
	const char *why;		/* the first thing wrong, or NULL */
};

static const char *lay_str(json_t *lay, const char *k)
{
	return json_string_value(json_object_get(lay, k));
}

/* a layout's numbers are bounded: keep, keep_short, decimals */
static int lay_int(json_t *lay, const char *k, int max)
{
	json_int_t v = json_integer_value(json_object_get(lay, k));

	return v < 0 ? 0 : v > max ? max : (int)v;
}

/* Keys and the layout's strings reach the terminal as they are (a comm
 * is a value, and values are escaped): only printable ASCII is taken */
static bool printable(const char *s)
{
	for (; s && *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static const char *lay_bad(json_t *lay)
{
	static const char *const strs[] = { "kind", "title", "rank", "label", "lvalue", "tag",
					    "label_member", "tag_prefix" };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!printable(lay_str(lay, strs[i])))
			return "a layout string that is not printable ASCII";
	return NULL;
}

/* Layout flags by name, as the JSON writes them (lat_layout_flags) */
static unsigned lay_flags(json_t *lay)
{
	unsigned flags = 0;
	size_t i, k;
	json_t *v;

	json_array_foreach(json_object_get(lay, "flags"), i, v)
		for (k = 0; lat_layout_flags[k].name; k++)
			if (json_is_string(v) && !strcmp(json_string_value(v),
							 lat_layout_flags[k].name))
				flags |= lat_layout_flags[k].flag;
	return flags;
}

/* what the open item stands for: its label, the value of the member the
 * layout names, the tag made of the two */
static void item_label(struct rebuild *r, json_t *lay, json_t *item)
{
	const char *label = lay_str(lay, "label"), *member = lay_str(lay, "label_member");
	const char *pre = lay_str(lay, "tag_prefix");
	json_t *v = member ? json_object_get(item, member) : NULL;
	char val[64], tag[128];

	if (!label || !v)
		return;
	if (json_is_integer(v))
		snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(val, sizeof(val), "%s", json_string_value(v));
	else
		return;
	snprintf(tag, sizeof(tag), "%s%s", pre ? pre : "", val);
	lat_pub_label(r->s, label, val, pre ? tag : NULL);
}

static const char *layout_bad(json_t *nodes)
{
	const char *k, *why;
	json_t *v;

	json_object_foreach(nodes, k, v)
		if (!printable(k) || (why = lay_bad(v)))
			return printable(k) ? why : "a layout path that is not printable ASCII";
	return NULL;
}

/* The kind the layout names; without one, what the JSON value is */
static const char *kind_of(json_t *lay, json_t *v)
{
	const char *k = lay_str(lay, "kind");

	if (k)
		return k;
	if (json_is_object(v))
		return json_object_get(v, "buckets") ? "hist" : "obj";
	if (json_is_array(v))
		return "list";
	if (json_is_integer(v))
		return "num";
	if (json_is_real(v))
		return "real";
	if (json_is_boolean(v))
		return "bool";
	return json_is_string(v) ? "str" : "null";
}

static __u64 u64_of(json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));

	return v < 0 ? 0 : (__u64)v;
}

/* A histogram H back into its slots: every bucket must be one of them */
static struct lat_hist *hist_of(struct rebuild *r, json_t *o)
{
	struct lat_hist *h;
	json_t *b;
	size_t i;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct lat_hist **v = realloc(r->hists, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->hists = v;
		r->cap = cap;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	r->hists[r->n++] = h;
	h->count = u64_of(o, "count");
	h->sum = u64_of(o, "sum");
	h->min = u64_of(o, "min");
	h->max = u64_of(o, "max");
	h->overflow = u64_of(o, "overflow");
	json_array_foreach(json_object_get(o, "buckets"), i, b) {
		json_int_t lo = json_integer_value(json_array_get(b, 0));
		json_int_t hi = json_integer_value(json_array_get(b, 1));
		json_int_t n = json_integer_value(json_array_get(b, 2));
		__u64 slot = lat_hist_index(lo < 0 ? 0 : (__u64)lo);

		if (json_array_size(b) != 3 || slot >= LAT_HIST_SLOTS || n < 0 ||
		    lat_hist_slot_low((__u32)slot) != (__u64)lo ||
		    lat_hist_slot_high((__u32)slot) != (__u64)hi) {
			r->why = r->why ? r->why : "a histogram bucket that is not one of latbpf's slots";
			continue;
		}
		h->slots[slot] = (__u64)n;
	}
	return h;
}

static void rebuild_value(struct rebuild *r, const char *key, json_t *v, char *path,
			  size_t len);

/* The key of a histogram of the object at path whose members are the
 * object's own (LAT_F_INLINE: "ns": N, "count": N, ...H), or NULL */
static const char *inline_hist(struct rebuild *r, const char *path)
{
	size_t l = strlen(path);
	const char *k;
	json_t *lay;

	json_object_foreach(r->nodes, k, lay) {
		if (strncmp(k, path, l) || k[l] != '.' || strchr(k + l + 1, '.') ||
		    strchr(k + l + 1, '['))
			continue;
		if (lay_flags(lay) & LAT_F_INLINE)
			return k + l + 1;
	}
	return NULL;
}

/* a member of a histogram object H (output/json.c writes these) */
static bool hist_member(const char *k)
{
	static const char *const m[] = { "count", "min", "max", "sum", "overflow", "buckets" };

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(k, m[i]))
			return true;
	for (int i = 0; i < LAT_NR_PCTS; i++)
		if (!strcmp(k, lat_pct_names[i]))
			return true;
	return false;
}

static void rebuild_members(struct rebuild *r, json_t *obj, char *path, size_t len)
{
	size_t at = strlen(path);
	const char *k, *ih = inline_hist(r, path);
	json_t *v;

	json_object_foreach(obj, k, v) {
		if (at == 0 && !strcmp(k, "layout"))
			continue;	/* about the record, not in it */
		if (ih && hist_member(k)) {
			/* the inline histogram, where its first member is */
			struct lat_hist *h;

			if (strcmp(k, "count"))
				continue;
			if (!(h = hist_of(r, obj))) {
				r->why = "out of memory";
				return;
			}
			snprintf(path + at, len - at, "%s%s", at ? "." : "", ih);
			lat_pub_flags(lat_pub_hist(r->s, ih, lay_str(json_object_get(r->nodes, path),
								   "title"), h, NULL),
				      lay_flags(json_object_get(r->nodes, path)));
			path[at] = '\0';
			continue;
		}
		if (!printable(k) || strlen(k) > 64) {
			r->why = r->why ? r->why : "a key that is not up to 64 printable ASCII bytes";
			continue;
		}
		snprintf(path + at, len - at, "%s%s", at ? "." : "", k);
		rebuild_value(r, k, v, path, len);
		path[at] = '\0';
	}
}

static void rebuild_items(struct rebuild *r, json_t *list, char *path, size_t len)
{
	size_t at = strlen(path), i;
	json_t *v;

	snprintf(path + at, len - at, "[]");
	json_array_foreach(list, i, v) {
		if (json_is_object(v)) {
			/* the final record holds the items the run's view showed */
			lat_pub_item(r->s, true, true);
			rebuild_members(r, v, path, len);
			item_label(r, json_object_get(r->nodes, path), v);
			lat_pub_label_members(r->s);
			lat_pub_end(r->s);
		} else {
			rebuild_value(r, NULL, v, path, len);
		}
	}
	path[at] = '\0';
}

static void rebuild_ids(struct rebuild *r, const char *key, json_t *v)
{
	size_t n = json_array_size(v), i;
	__u32 *ids = calloc(n + 1, sizeof(*ids));
	json_t *x;

	if (!ids) {
		r->why = "out of memory";
		return;
	}
	json_array_foreach(v, i, x)
		ids[i] = (__u32)json_integer_value(x);
	lat_pub_ids(r->s, key, ids, (int)n);	/* copies them */
	free(ids);
}

static void rebuild_value(struct rebuild *r, const char *key, json_t *v, char *path,
			  size_t len)
{
	json_t *lay = json_object_get(r->nodes, path);
	const char *kind = kind_of(lay, v), *title = lay_str(lay, "title");
	struct lat_snap *s = r->s;
	struct lat_node *n = NULL;
	struct lat_hist *h;

	if (lay_bad(lay)) {
		r->why = r->why ? r->why : lay_bad(lay);
		return;
	}

	if (!strcmp(kind, "obj") && json_is_object(v)) {
		n = lat_pub_obj(s, key, title);
		if (lay_str(lay, "label") && lay_str(lay, "lvalue"))
			lat_pub_label(s, lay_str(lay, "label"), lay_str(lay, "lvalue"),
				      lay_str(lay, "tag"));
		rebuild_members(r, v, path, len);
		lat_pub_end(s);
	} else if (!strcmp(kind, "list") && json_is_array(v)) {
		n = lat_pub_list(s, key, title);
		/* items come ranked already; ranking again keeps ties in order */
		lat_pub_rank(s, lay_str(lay, "rank"), lay_int(lay, "keep", 1 << 20),
			     lay_int(lay, "keep_short", 1 << 20));
		rebuild_items(r, v, path, len);
		lat_pub_end(s);
	} else if ((!strcmp(kind, "hist") || !strcmp(kind, "bytes")) && json_is_object(v)) {
		if (!(h = hist_of(r, v))) {
			r->why = "out of memory";
			return;
		}
		n = (kind[0] == 'b' ? lat_pub_bytes : lat_pub_hist)(s, key, title, h, NULL);
	} else if ((!strcmp(kind, "count") || !strcmp(kind, "dur")) && json_is_integer(v)) {
		n = (kind[0] == 'c' ? lat_pub_count : lat_pub_dur)(s, key, json_integer_value(v),
								   json_integer_value(v));
	} else if (!strcmp(kind, "ids") && json_is_array(v)) {
		rebuild_ids(r, key, v);
	} else if (json_is_integer(v) && strcmp(kind, "real")) {
		n = lat_pub_num(s, key, json_integer_value(v));
	} else if (json_is_number(v)) {
		n = lat_pub_real(s, key, json_number_value(v),
				 lay ? lay_int(lay, "decimals", 9) : 3);
	} else if (json_is_boolean(v)) {
		n = lat_pub_bool(s, key, json_is_true(v));
	} else if (json_is_string(v)) {
		n = lat_pub_str(s, key, json_string_value(v));
	} else if (json_is_null(v)) {
		n = lat_pub_null(s, key);
	} else {
		r->why = r->why ? r->why : "a value whose kind is not the layout's";
	}
	lat_pub_flags(n, lay_flags(lay));
}

static void rebuilt_free(struct lat_saved_run *r);

/* A record as the snapshot the run published: the final one, or an
 * interval's (its histograms the interval's own), with the final one's
 * layout */
static int rebuild(struct lat_saved_run *r, json_t *rec, const char **why)
{
	json_t *layout = json_object_get(r->final, "layout");
	struct rebuild rb = { .s = &r->snap, .nodes = json_object_get(layout, "nodes") };
	char path[512] = "";
	int err = 0;

	rebuilt_free(r);
	r->nodes = rb.nodes;
	lat_snap_reset(&r->snap);
	r->snap.final = rec == r->final;
	r->snap.interval = r->snap.final ? 0 : json_integer_value(json_object_get(rec, "interval"));
	r->snap.elapsed_ns = u64_of(layout, "elapsed_ns");
	r->snap.wall_minus_mono_ns = json_integer_value(json_object_get(layout,
								       "wall_minus_mono_ns"));
	rebuild_members(&rb, rec, path, sizeof(path));
	if (rb.why || r->snap.oom) {
		*why = rb.why ? rb.why : "out of memory";
		err = -EINVAL;
	}
	/* the snapshot points at them until the report is done */
	r->hists = rb.hists;
	r->n_hists = rb.n;
	return err;
}

static void rebuilt_free(struct lat_saved_run *r)
{
	for (size_t i = 0; i < r->n_hists; i++)
		free(r->hists[i]);
	free(r->hists);
	r->hists = NULL;
	r->n_hists = 0;
}

/* Is this one of latbpf's run records? Says why not. */
static const char *not_a_record(json_t *o)
{
	json_t *lb = json_object_get(o, "latbpf");

	if (!json_is_object(o))
		return "not a JSON object";
	if (!json_is_object(lb) || !json_is_string(json_object_get(lb, "version")))
		return "not a latbpf record (no \"latbpf\": {\"version\": ...})";
	if (json_object_get(o, "bench"))
		return "a latbpf bench record, not a run's (latbpf bench compare reads those)";
	if (json_is_true(json_object_get(o, "final"))) {
		if (!json_is_object(json_object_get(json_object_get(o, "layout"), "nodes")))
			return "a final record without \"layout\" (written by a latbpf before report existed)";
		return NULL;
	}
	if (!json_is_integer(json_object_get(o, "interval")))
		return "not a latbpf run record (neither \"interval\" nor \"final\")";
	return NULL;
}

static int refuse(const char *path, size_t line, const char *why)
{
	struct lat_jsonfile j = { .prog = "latbpf report", .path = path };

	return lat_jsonfile_refuse(&j, line, why);
}

static int keep_record(struct lat_saved_run *r, json_t *o)
{
	json_t **v;

	if (json_is_true(json_object_get(o, "final"))) {
		r->final = o;
		return 0;
	}
	v = realloc(r->iv, (r->n_iv + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->iv = v;
	r->iv[r->n_iv++] = o;
	return 0;
}

/* Every line one record, the last the final one, each line whole */
static int load(struct lat_saved_run *r)
{
	struct lat_jsonfile j;
	const char *bad;
	json_t *o;
	int err = lat_jsonfile_open(&j, "latbpf report", r->path, "run");

	while (!err && (err = lat_jsonfile_line(&j)) > 0) {
		err = 0;
		if (r->final) {
			err = lat_jsonfile_refuse(&j, j.line, "a record after the final one");
			break;
		}
		if (lat_jsonfile_record(&j, &o) < 0) {
			err = -EINVAL;
			break;
		}
		if ((bad = not_a_record(o))) {
			json_decref(o);
			err = lat_jsonfile_refuse(&j, j.line, bad);
			break;
		}
		if (keep_record(r, o)) {
			json_decref(o);
			err = lat_jsonfile_refuse(&j, j.line, "out of memory");
		}
	}
	if (!err && !r->final)
		err = lat_jsonfile_refuse(&j, j.line, j.line ? "no final record: a truncated run" :
							      "empty: no record");
	lat_jsonfile_close(&j);
	return err;
}

static void saved_free(struct lat_saved_run *r)
{
	for (size_t i = 0; i < r->n_iv; i++)
		json_decref(r->iv[i]);
	free(r->iv);
	json_decref(r->final);
}

int lat_saved_run_load(struct lat_saved_run *r, const char *path)
{
	const char *why;
	int err;

	memset(r, 0, sizeof(*r));
	r->path = path;
	err = load(r);
	/* the layout is the final record's, and every record is read with it */
	if (!err && (why = layout_bad(json_object_get(json_object_get(r->final, "layout"),
						     "nodes"))))
		err = refuse(r->path, r->n_iv + 1, why);
	return err;
}

int lat_saved_run_snap(struct lat_saved_run *r, size_t i)
{
	const char *why = NULL;

	if (rebuild(r, i < r->n_iv ? r->iv[i] : r->final, &why))
		return refuse(r->path, (i < r->n_iv ? i : r->n_iv) + 1, why);
	return 0;
}

void lat_saved_run_free(struct lat_saved_run *r)
{
	rebuilt_free(r);
	lat_snap_free(&r->snap);
	saved_free(r);
}

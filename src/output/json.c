// SPDX-License-Identifier: GPL-2.0
/* --json: newline-delimited JSON, one record per interval and a final one.
 * Schema: DESIGN.md and README.md ("JSON output"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/json.h"
#include "core/escape.h"
#include "core/hist.h"
#include "core/snap.h"
#include "output/emit.h"
#include "output/sink.h"

#define MAX_DEPTH 16

struct json_emit {
	struct lat_emit e;
	FILE *f;
	int depth;
	bool need_comma[MAX_DEPTH];
	bool in_list[MAX_DEPTH];
};

static struct json_emit *J(struct lat_emit *e)
{
	return (struct json_emit *)e;
}

/* Separator and key before a value; keys are ours, values may be hostile. */
static void key(struct json_emit *j, const char *k)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (k && !j->in_list[j->depth]) {
		lat_json_str(j->f, k);
		fputc(':', j->f);
	}
}

static void push(struct json_emit *j, char open, bool list)
{
	fputc(open, j->f);
	if (j->depth + 1 < MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
	j->in_list[j->depth] = list;
}

static void pop(struct json_emit *j, char close)
{
	fputc(close, j->f);
	if (j->depth > 0)
		j->depth--;
}

static void obj_begin(struct lat_emit *e, const char *k, const char *title)
{
	key(J(e), k);
	push(J(e), '{', false);
}

static void obj_end(struct lat_emit *e)
{
	pop(J(e), '}');
}

static void list_begin(struct lat_emit *e, const char *k, const char *title)
{
	key(J(e), k);
	push(J(e), '[', true);
}

static void list_end(struct lat_emit *e)
{
	pop(J(e), ']');
}

/* The members of a histogram object H (DESIGN.md), in its own unit */
static void hist_members(FILE *f, const struct lat_hist *h)
{
	bool first = true;
	__u32 i;
	int p;

	fprintf(f, "\"count\":%llu,\"min\":%llu,\"max\":%llu,\"sum\":%llu",
		(unsigned long long)h->count, (unsigned long long)h->min,
		(unsigned long long)h->max, (unsigned long long)h->sum);
	for (p = 0; p < LAT_NR_PCTS; p++)
		fprintf(f, ",\"%s\":%llu", lat_pct_names[p],
			(unsigned long long)lat_hist_percentile(h, lat_pcts[p]));
	if (h->overflow)
		fprintf(f, ",\"overflow\":%llu", (unsigned long long)h->overflow);
	fputs(",\"buckets\":[", f);
	for (i = 0; i < LAT_HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		fprintf(f, "%s[%llu,%llu,%llu]", first ? "" : ",",
			(unsigned long long)lat_hist_slot_low(i),
			(unsigned long long)lat_hist_slot_high(i),
			(unsigned long long)h->slots[i]);
		first = false;
	}
	fputc(']', f);
}

/* One histogram object H (DESIGN.md), in the histogram's own unit */
void lat_json_hist(FILE *f, const struct lat_hist *h)
{
	fputc('{', f);
	hist_members(f, h);
	fputc('}', f);
}

static void hist(struct lat_emit *e, const char *k, const char *title,
		 const struct lat_hist *iv, const struct lat_hist *run)
{
	key(J(e), k);
	lat_json_hist(J(e)->f, e->final ? run : iv);
}

/* H's members in the object that holds it ("ns": N, "count": N, ...H) */
static void hist_inline(struct lat_emit *e, const char *k, const char *title,
			const struct lat_hist *iv, const struct lat_hist *run)
{
	key(J(e), NULL);
	hist_members(J(e)->f, e->final ? run : iv);
}

static void count(struct lat_emit *e, const char *k, __u64 iv, __u64 run)
{
	key(J(e), k);
	fprintf(J(e)->f, "%llu", (unsigned long long)(e->final ? run : iv));
}

static void dur(struct lat_emit *e, const char *k, __u64 iv, __u64 run)
{
	count(e, k, iv, run);
}

static void num(struct lat_emit *e, const char *k, __s64 v)
{
	key(J(e), k);
	fprintf(J(e)->f, "%lld", (long long)v);
}

static void ids(struct lat_emit *e, const char *k, const __u32 *v, int n)
{
	key(J(e), k);
	fputc('[', J(e)->f);
	for (int i = 0; i < n; i++)
		fprintf(J(e)->f, "%s%u", i ? "," : "", v[i]);
	fputc(']', J(e)->f);
}

static void real(struct lat_emit *e, const char *k, double v, int decimals)
{
	key(J(e), k);
	fprintf(J(e)->f, "%.*f", decimals, v);
}

static void boolean(struct lat_emit *e, const char *k, bool v)
{
	key(J(e), k);
	fputs(v ? "true" : "false", J(e)->f);
}

static void null(struct lat_emit *e, const char *k)
{
	key(J(e), k);
	fputs("null", J(e)->f);
}

static void str(struct lat_emit *e, const char *k, const char *s)
{
	key(J(e), k);
	lat_json_str(J(e)->f, s);
}

static const struct lat_emit_ops json_ops = {
	.obj_begin = obj_begin, .obj_end = obj_end,
	.list_begin = list_begin, .list_end = list_end,
	.hist = hist, .bytes = hist, .count = count, .dur = dur, .num = num, .ids = ids,
	.real = real, .boolean = boolean, .null = null, .str = str, .hist_inline = hist_inline,
};

/*
 * The final record's "layout": what a sink needs beyond the values to
 * render the run as the live run did (latbpf report), per node path (list
 * items as "[]"): its kind where JSON does not tell (count, dur, num; a
 * histogram of bytes), title, decimals, ranking and flags. Items of a list
 * give one entry per path, the first one's.
 */
static const char *const kind_names[] = {
	[LAT_OBJ] = "obj", [LAT_LIST] = "list", [LAT_HIST] = "hist",
	[LAT_COUNT] = "count", [LAT_DUR] = "dur", [LAT_NUM] = "num",
	[LAT_REAL] = "real", [LAT_BOOL] = "bool", [LAT_NULL] = "null",
	[LAT_IDS] = "ids", [LAT_STR] = "str",
};

struct layout {
	FILE *f;
	char **seen;		/* paths written */
	size_t n, cap;
	bool first;
};

/* false when the path was written already (or cannot be remembered) */
static bool layout_new_path(struct layout *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->seen[i], path))
			return false;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->seen, cap * sizeof(*v));

		if (!v)
			return false;
		l->seen = v;
		l->cap = cap;
	}
	return (l->seen[l->n] = strdup(path)) && ++l->n;
}

/* what an item or object stands for (label=value, its .hlog tag): an
 * object's as it is; an item's as the member that holds its value and the
 * part of the tag before it ("cpu" of "cpu1"), the values being the items' */
static void label_entry(FILE *f, const struct lat_node *n)
{
	const struct lat_node *c;
	size_t tl, vl;
	char v[32];

	if (!n->label || !n->lvalue)
		return;
	fputs(",\"label\":", f);
	lat_json_str(f, n->label);
	if (n->key) {
		fputs(",\"lvalue\":", f);
		lat_json_str(f, n->lvalue);
		if (n->tag) {
			fputs(",\"tag\":", f);
			lat_json_str(f, n->tag);
		}
		return;
	}
	for (c = n->child; c; c = c->next) {
		if (c->kind == LAT_NUM)
			snprintf(v, sizeof(v), "%lld", c->v.num);
		if ((c->kind == LAT_NUM && !strcmp(v, n->lvalue)) ||
		    (c->kind == LAT_STR && c->v.str && !strcmp(c->v.str, n->lvalue)))
			break;
	}
	if (!c)
		return;
	fputs(",\"label_member\":", f);
	lat_json_str(f, c->key);
	tl = n->tag ? strlen(n->tag) : 0;
	vl = strlen(n->lvalue);
	if (n->tag && tl >= vl && !strcmp(n->tag + tl - vl, n->lvalue)) {
		char pre[64];

		snprintf(pre, sizeof(pre), "%.*s", (int)(tl - vl), n->tag);
		fputs(",\"tag_prefix\":", f);
		lat_json_str(f, pre);
	}
}

static void layout_entry(struct layout *l, const struct lat_node *n, const char *path)
{
	FILE *f = l->f;
	bool first = true;

	fputs(l->first ? "" : ",", f);
	l->first = false;
	lat_json_str(f, path);
	fprintf(f, ":{\"kind\":\"%s\"", n->kind == LAT_HIST && n->unit == LAT_UNIT_BYTES ?
		"bytes" : kind_names[n->kind]);
	if (n->title) {
		fputs(",\"title\":", f);
		lat_json_str(f, n->title);
	}
	if (n->kind == LAT_REAL)
		fprintf(f, ",\"decimals\":%d", n->decimals);
	if (n->rank) {
		fputs(",\"rank\":", f);
		lat_json_str(f, n->rank);
	}
	if (n->keep)
		fprintf(f, ",\"keep\":%d", n->keep);
	if (n->keep_short)
		fprintf(f, ",\"keep_short\":%d", n->keep_short);
	label_entry(f, n);
	for (size_t i = 0; lat_layout_flags[i].name; i++) {
		if (!(n->flags & lat_layout_flags[i].flag))
			continue;
		fprintf(f, "%s\"%s\"", first ? ",\"flags\":[" : ",", lat_layout_flags[i].name);
		first = false;
	}
	fputs(first ? "}" : "]}", f);
}

static void layout_walk(struct layout *l, const struct lat_node *n, char *path,
			size_t len)
{
	size_t at = strlen(path);

	for (; n; n = n->next) {
		if (n->key)
			snprintf(path + at, len - at, "%s%s", at ? "." : "", n->key);
		else
			snprintf(path + at, len - at, "[]");
		/* items have nothing the list's entry does not say, but what
		 * they stand for */
		if ((n->key || n->label) && layout_new_path(l, path))
			layout_entry(l, n, path);
		if (n->kind == LAT_OBJ || n->kind == LAT_LIST)
			layout_walk(l, n->child, path, len);
		path[at] = '\0';
	}
}

static void layout_write(FILE *f, const struct lat_snap *s)
{
	struct layout l = { .f = f, .first = true };
	char path[512] = "";

	fprintf(f, ",\"layout\":{\"elapsed_ns\":%llu,\"wall_minus_mono_ns\":%lld,\"nodes\":{",
		s->elapsed_ns, s->wall_minus_mono_ns);
	layout_walk(&l, s->root.child, path, sizeof(path));
	fputs("}}", f);
	for (size_t i = 0; i < l.n; i++)
		free(l.seen[i]);
	free(l.seen);
}

/* One object per snapshot, on one line: its nodes as members, the interval's
 * values in an interval's snapshot and the run's in a whole-run one. */
int lat_json_write(FILE *f, const struct lat_snap *s)
{
	struct json_emit j = { .e = { .ops = &json_ops, .final = s->interval == 0 }, .f = f };

	fputc('{', f);
	for (const struct lat_node *n = s->root.child; n; n = n->next)
		lat_snap_walk(n, &j.e);
	if (s->final)
		layout_write(f, s);
	fputs("}\n", f);
	return fflush(f) ? -errno : 0;
}

struct json_sink {
	struct lat_sink k;
	FILE *f;
	const char *path;
	int err;		/* the first write error: said once, then no more writes */
};

static int json_sink_write(struct lat_sink *k, const struct lat_snap *s)
{
	struct json_sink *j = (struct json_sink *)k;

	if (j->err)
		return j->err;
	j->err = lat_json_write(j->f, s);
	if (j->err) {
		char q[LAT_ARG_MAX];

		fprintf(stderr, "latbpf: --json: writing '%s': %s; no more records\n",
			lat_term_arg(q, sizeof(q), j->path), strerror(-j->err));
	}
	return j->err;
}

static void json_sink_free(struct lat_sink *k)
{
	struct json_sink *j = (struct json_sink *)k;

	if (j->f != stdout)
		fclose(j->f);
	free(j);
}

static const struct lat_sink_ops json_sink_ops = {
	.name = "json",
	.interval = json_sink_write,
	.final = json_sink_write,
	.free = json_sink_free,
};

/* takes f, and closes it unless it is stdout */
struct lat_sink *lat_json_sink_new(FILE *f, const char *path)
{
	struct json_sink *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->k.ops = &json_sink_ops;
	j->f = f;
	j->path = path;
	return &j->k;
}

/* --json FILE|-: a file that cannot be written is the user's to fix */
struct lat_sink *lat_json_output(const char *arg, struct lat_sink_env *env)
{
	bool out = !strcmp(arg, "-");
	FILE *f = out ? stdout : fopen(arg, "w");
	struct lat_sink *k;
	char q[LAT_ARG_MAX];

	if (!f) {
		int e = errno;

		fprintf(stderr, "latbpf: cannot write '%s': %s\n", lat_term_arg(q, sizeof(q), arg),
			strerror(e));
		errno = EINVAL;
		return NULL;
	}
	env->stdout_taken |= out;
	if (!(k = lat_json_sink_new(f, arg))) {
		if (!out)
			fclose(f);
		errno = ENOMEM;
	}
	return k;
}

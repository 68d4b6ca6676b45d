// SPDX-License-Identifier: GPL-2.0
/*
 * --prometheus [HOST:]PORT: each snapshot as Prometheus text exposition
 * 0.0.4, rendered here on the poll loop and handed whole to the HTTP thread
 * (src/http.c), which only copies bytes out. Names: latbpf_<json path>,
 * with list items and label objects turned into labels (device, op, cpu,
 * tid, remote); time histograms in seconds, counters ending in _total.
 *
 * Histogram buckets are two of latbpf's 16 slot edges per power of two: the
 * le of a bucket is the highest value of a slot, so every cumulative count
 * is exact, not interpolated. A breakdown (per thread, CPU, remote) keeps
 * its list's name, apart from the total beside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/prom.h"
#include "core/escape.h"
#include "core/snap.h"
#include "output/http.h"
#include "output/sink.h"

/* Bucket edges: 2^k - 1 and 1.5 * 2^k - 1 for k in [LO, HI] */
#define NS_LO 10	/* ~1 us */
#define NS_HI 36	/* ~69 s */
#define BYTES_LO 9	/* 512 B */
#define BYTES_HI 26	/* 64 MiB */

struct sample {
	const char *name;	/* family name, without _bucket/_sum/_count */
	const char *type;
	char *help;
	char *text;		/* its lines */
	size_t order;
};

struct expo {
	struct sample *a;
	size_t n, cap;
	bool oom;
	struct lat_hist *tmp;	/* a packed histogram, unpacked */
};

static void add(struct expo *x, const char *name, const char *type, const char *help,
		char *text)
{
	struct sample *n;

	if (!text) {
		x->oom = true;
		return;
	}
	if (x->n == x->cap) {
		n = realloc(x->a, (x->cap * 2 + 64) * sizeof(*n));
		if (!n) {
			free(text);
			x->oom = true;
			return;
		}
		x->a = n;
		x->cap = x->cap * 2 + 64;
	}
	x->a[x->n] = (struct sample){ strdup(name), type, strdup(help), text, x->n };
	if (!x->a[x->n].name || !x->a[x->n].help) {
		free((char *)x->a[x->n].name);
		free(x->a[x->n].help);
		free(text);
		x->oom = true;
		return;
	}
	x->n++;
}

/* A label value or HELP text: backslash, quote (labels) and newline escaped;
 * control characters from kernel strings dropped */
static void esc(FILE *f, const char *s, bool quote)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && quote)
			fputs("\\\"", f);
		else if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
			fputc(*s, f);
		else if ((unsigned char)*s >= 0x80)
			fputc('_', f);	/* the exposition must stay valid UTF-8 */
	}
}

/* metric name characters: [a-zA-Z0-9_:], anything else becomes '_' */
static void name_part(char *buf, size_t len, const char *seg)
{
	size_t l = strlen(buf);

	if (l && l + 1 < len)
		buf[l++] = '_';
	for (; *seg && l + 1 < len; seg++) {
		char c = *seg;

		buf[l++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '_' ? c : '_';
	}
	buf[l] = '\0';
}

/* An item's string members flagged LAT_F_LABEL as labels (state="sleeping",
 * cause="futex"); false when it has none */
static bool label_members(FILE *lf, const struct lat_node *item)
{
	bool any = false;

	for (const struct lat_node *c = item->child; c; c = c->next) {
		if (c->kind != LAT_STR || !(c->flags & LAT_F_LABEL))
			continue;
		fprintf(lf, "%s%s=\"", ftell(lf) ? "," : "", c->key);
		esc(lf, c->v.str, true);
		fputc('"', lf);
		any = true;
	}
	return any;
}

/* Name and labels of node n: path keys joined, label objects and items as
 * labels. False when an item on the way has no label (events, intruders). */
static bool naming(struct expo *x, const struct lat_node *n, const char *key, char *name,
		   size_t nlen, char **labels, size_t *llen, FILE **lf)
{
	const struct lat_node *path[16];
	int depth = 0;

	*lf = open_memstream(labels, llen);
	if (!*lf) {
		x->oom = true;
		return false;
	}
	snprintf(name, nlen, "latbpf");
	for (; n && n->parent && depth < 16; n = n->parent)
		path[depth++] = n;
	while (depth-- > 0) {
		const struct lat_node *p = path[depth];
		bool item = p->parent->kind == LAT_LIST;

		/* a breakdown (per thread, per CPU) is named apart from the total
		 * beside it, or a sum over all series would count twice */
		if (p->kind == LAT_LIST) {
			if (p->flags & LAT_F_BREAKDOWN)
				name_part(name, nlen, p->key);
			continue;
		}
		if (item && !p->label && !label_members(*lf, p))
			return false;
		if (p->label) {
			fprintf(*lf, "%s%s=\"", ftell(*lf) ? "," : "", p->label);
			esc(*lf, p->lvalue, true);
			fputc('"', *lf);
			continue;
		}
		if (item)
			continue;	/* named by its label members */
		/* a metric part stands in for the key; an empty one is none */
		if (depth == 0)
			name_part(name, nlen, p->metric ? p->metric : key);
		else if (!p->metric || p->metric[0])
			name_part(name, nlen, p->metric ? p->metric : p->key);
	}
	fflush(*lf);
	return true;
}

/* the seconds of an integer count of ns, exactly, without an exponent */
static void seconds(FILE *f, unsigned long long ns, bool in_seconds)
{
	char b[32];
	int l;

	if (!in_seconds) {
		fprintf(f, "%llu", ns);
		return;
	}
	l = snprintf(b, sizeof(b), "%llu.%09llu", ns / 1000000000ULL, ns % 1000000000ULL);
	while (l > 0 && b[l - 1] == '0')
		b[--l] = '\0';
	if (l > 0 && b[l - 1] == '.')
		b[--l] = '\0';
	fputs(b, f);
}

static void histogram(struct expo *x, const struct lat_node *n)
{
	bool ns = n->unit == LAT_UNIT_NS;
	const struct lat_hist *h;
	char name[256], *labels = NULL, *text = NULL;
	size_t llen = 0, tlen = 0;
	unsigned long long cum = 0;
	__u32 slot = 0;
	FILE *lf, *f;
	int k, half;

	if ((n->flags & LAT_F_PACKED) && !x->tmp && !(x->tmp = malloc(sizeof(*x->tmp)))) {
		x->oom = true;
		return;
	}
	h = lat_node_run(n, x->tmp);
	if (!naming(x, n, n->key, name, sizeof(name) - 16, &labels, &llen, &lf)) {
		if (lf)
			fclose(lf);
		free(labels);
		return;
	}
	fclose(lf);
	name_part(name, sizeof(name), ns ? "seconds" : "bytes");
	f = open_memstream(&text, &tlen);
	if (!f) {
		free(labels);
		x->oom = true;
		return;
	}
	for (k = ns ? NS_LO : BYTES_LO; k <= (ns ? NS_HI : BYTES_HI); k++) {
		for (half = 0; half < 2; half++) {
			unsigned long long edge = (1ULL << k) + (half ? 1ULL << (k - 1) : 0) - 1;

			for (; slot < LAT_HIST_SLOTS && lat_hist_slot_high(slot) <= edge; slot++)
				cum += h->slots[slot];
			fprintf(f, "%s_bucket{%s%sle=\"", name, labels, llen ? "," : "");
			seconds(f, edge, ns);
			fprintf(f, "\"} %llu\n", cum);
		}
	}
	fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, llen ? "," : "",
		(unsigned long long)h->count);
	fprintf(f, "%s_sum%s%s%s ", name, llen ? "{" : "", labels, llen ? "}" : "");
	if (ns)
		fprintf(f, "%.9f\n", h->sum / 1e9);
	else
		fprintf(f, "%llu\n", (unsigned long long)h->sum);
	fprintf(f, "%s_count%s%s%s %llu\n", name, llen ? "{" : "", labels, llen ? "}" : "",
		(unsigned long long)h->count);
	fclose(f);
	free(labels);
	add(x, name, "histogram", n->title ? n->title : n->key, text);
}

static void scalar(struct expo *x, const struct lat_node *n, const char *family_key)
{
	char name[256], key[128], *labels = NULL, *text = NULL, what[256];
	size_t llen = 0, tlen = 0, kl = strlen(n->key);
	bool dur = n->kind == LAT_DUR, gauge = n->flags & LAT_F_GAUGE;
	FILE *lf, *f;

	snprintf(key, sizeof(key), "%s", n->key);
	if (dur && kl > 3 && !strcmp(key + kl - 3, "_ns"))
		key[kl - 3] = '\0';
	if (!naming(x, n, key, name, sizeof(name) - 16, &labels, &llen, &lf)) {
		if (lf)
			fclose(lf);
		free(labels);
		return;
	}
	fclose(lf);
	if (dur)
		name_part(name, sizeof(name), "seconds");
	if (!gauge)
		name_part(name, sizeof(name), "total");
	f = open_memstream(&text, &tlen);
	if (!f) {
		free(labels);
		x->oom = true;
		return;
	}
	fprintf(f, "%s%s%s%s ", name, llen ? "{" : "", labels, llen ? "}" : "");
	if (dur)
		fprintf(f, "%.9f\n", (gauge ? n->v.c.iv : n->v.c.run) / 1e9);
	else
		fprintf(f, "%llu\n", gauge ? n->v.c.iv : n->v.c.run);
	fclose(f);
	free(labels);
	snprintf(what, sizeof(what), "%s: %s", family_key, n->key);
	add(x, name, gauge ? "gauge" : "counter", what, text);
}

static void walk(struct expo *x, const struct lat_node *n, const char *family_key)
{
	const struct lat_node *c;

	switch (n->kind) {
	case LAT_OBJ:
	case LAT_LIST:
		for (c = n->child; c; c = c->next)
			walk(x, c, family_key);
		break;
	case LAT_HIST:
		if (n->unit != LAT_UNIT_TICKS)
			histogram(x, n);
		break;
	case LAT_COUNT:
	case LAT_DUR:
		/* a loss counter is in latbpf_drops_total, from the run's "drops" */
		if (!(n->flags & LAT_F_DROP))
			scalar(x, n, family_key);
		break;
	default:
		break;	/* ids, names, numbers: labels or provenance */
	}
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static const char *str_at(const struct lat_node *root, const char *obj, const char *key)
{
	const struct lat_node *n = lat_snap_find(lat_snap_find(root, obj), key);

	return n && n->kind == LAT_STR ? n->v.str : "";
}

/* What latbpf is and which families run, always there */
static void about(FILE *f, const struct lat_snap *s)
{
	const struct lat_node *probes = lat_snap_find(&s->root, "probes"), *p;

	fputs("# HELP latbpf_build_info latbpf's version and commit, and the kernel it runs on\n"
	      "# TYPE latbpf_build_info gauge\nlatbpf_build_info{version=\"", f);
	esc(f, str_at(&s->root, "latbpf", "version"), true);
	fputs("\",commit=\"", f);
	esc(f, str_at(&s->root, "latbpf", "commit"), true);
	fputs("\",kernel=\"", f);
	esc(f, str_at(&s->root, "host", "kernel"), true);
	fputs("\"} 1\n# HELP latbpf_probe_up 1 when the probe family is attached\n"
	      "# TYPE latbpf_probe_up gauge\n", f);
	for (p = probes ? probes->child : NULL; p; p = p->next) {
		fputs("latbpf_probe_up{family=\"", f);
		esc(f, p->key, true);
		fprintf(f, "\"} %d\n", p->kind == LAT_STR && !strncmp(p->v.str, "attached", 8));
	}
	fprintf(f, "# HELP latbpf_interval the interval these values are from (0: the whole "
		"run, at exit)\n# TYPE latbpf_interval gauge\nlatbpf_interval %ld\n", s->interval);
}

/* The exposition of s into f; x: the sample array of the last render,
 * reused (n 0). False when memory ran out. */
static bool render(const struct lat_snap *s, FILE *f, struct expo *x)
{
	const struct lat_node *drops = lat_snap_find(&s->root, "drops"), *d;
	const char *last = NULL;
	size_t i;

	x->n = 0;
	x->oom = false;
	for (const struct lat_node *n = s->root.child; n; n = n->next)
		if (!(n->flags & LAT_F_PROV) && n->key && strcmp(n->key, "drops"))
			walk(x, n, n->key);
	qsort(x->a, x->n, sizeof(*x->a), cmp_sample);
	about(f, s);
	for (i = 0; i < x->n; i++) {
		if (!last || strcmp(last, x->a[i].name)) {
			fprintf(f, "# HELP %s ", x->a[i].name);
			esc(f, x->a[i].help, false);
			fprintf(f, "\n# TYPE %s %s\n", x->a[i].name, x->a[i].type);
		}
		last = x->a[i].name;
		fputs(x->a[i].text, f);
	}
	fputs("# HELP latbpf_drops_total events or samples latbpf lost, by where\n"
	      "# TYPE latbpf_drops_total counter\n", f);
	/* every place the run's "drops" sums, 0 included */
	for (d = drops ? drops->child : NULL; d; d = d->next) {
		fputs("latbpf_drops_total{what=\"", f);
		esc(f, d->key, true);
		fprintf(f, "\"} %llu\n", d->v.c.run);
	}
	for (i = 0; i < x->n; i++) {
		free((char *)x->a[i].name);
		free(x->a[i].help);
		free(x->a[i].text);
	}
	return !x->oom;
}

char *lat_prom_render(const struct lat_snap *s, size_t *len)
{
	struct expo x = { 0 };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	bool ok;

	if (!f)
		return NULL;
	ok = render(s, f, &x);
	if (fclose(f) || !ok) {
		free(buf);
		buf = NULL;
	}
	free(x.a);
	free(x.tmp);
	return buf;
}

struct prom_sink {
	struct lat_sink k;
	struct lat_http *http;
	struct expo x;	/* kept from poll to poll, as the bodies are
			 * (output/http.h): no mmap'd block made anew */
};

static int prom_publish(struct lat_sink *k, const struct lat_snap *s)
{
	struct prom_sink *p = (struct prom_sink *)k;
	struct lat_http_body w;
	size_t len = 0;
	char *body = NULL;

	if (!lat_http_body_open(&w)) {
		bool ok = render(s, w.f, &p->x);

		body = lat_http_body_close(&w, &len);
		if (body && !ok) {
			lat_http_body_put(body);
			body = NULL;
		}
	}
	if (!body) {
		fprintf(stderr, "latbpf: --prometheus: out of memory; serving the last metrics\n");
		return -ENOMEM;
	}
	lat_http_publish(p->http, body, len);
	return 0;
}

static void prom_free(struct lat_sink *k)
{
	struct prom_sink *p = (struct prom_sink *)k;

	lat_http_stop(p->http);
	free(p->x.a);
	free(p->x.tmp);
	free(p);
}

static int prom_reload(struct lat_sink *k)
{
	return lat_http_reload(((struct prom_sink *)k)->http);
}

static const struct lat_sink_ops prom_ops = {
	.name = "prometheus",
	.interval = prom_publish,
	.final = prom_publish,
	.free = prom_free,
	.reload = prom_reload,
};

/* NULL with errno EINVAL for a bad address or web config (a usage error),
 * another errno when it cannot serve there; the message is said */
struct lat_sink *lat_prom_sink_new(const char *addr, const char *web_config)
{
	struct prom_sink *p = calloc(1, sizeof(*p));
	struct lat_http_bound b;
	char q[LAT_ARG_MAX];
	int err;

	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	p->k.ops = &prom_ops;
	err = lat_http_start(addr, web_config, &p->http, &b);
	if (err) {
		free(p);
		errno = -err;
		return NULL;
	}
	lat_term_arg(q, sizeof(q), addr);
	if (b.inherited)
		fprintf(stderr, "latbpf: serving Prometheus metrics on port %u, the socket systemd "
			"passed (--prometheus %s not bound)", b.port, q);
	else
		fprintf(stderr, "latbpf: serving Prometheus metrics on port %u (--prometheus %s)",
			b.port, q);
	fprintf(stderr, ": GET /metrics%s%s%s\n", b.tls ? " over TLS" : "",
		b.users ? " with basic auth" : "", web_config ? " (SIGHUP rereads --web-config)" : "");
	return &p->k;
}

struct lat_sink *lat_prom_output(const char *arg, struct lat_sink_env *env)
{
	return lat_prom_sink_new(arg, env->web_config);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * --hlog FILE: every time histogram of every interval as one line of an
 * HdrHistogram interval log (src/hlog.c writes the format). The tag is the
 * histogram's JSON path with list items named by their label: sched.runq,
 * hiccup.cpu1, block.vda.read.latency, sched.thread.1234.runq.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "output/hlog.h"
#include "core/escape.h"
#include "core/snap.h"
#include "output/hlog_format.h"
#include "output/sink.h"
#include "version.h"	/* generated: LATBPF_VERSION, LATBPF_COMMIT */

struct hlog_sink {
	struct lat_sink k;
	struct lat_hlog *log;
	const char *path;
	struct lat_hist iv;
	int err;		/* the first write error, said once */
};

/* The tag of a histogram node, or false when a list item on its path has no
 * name (hiccup events, intruders: not histograms of their own anyway). A
 * histogram keyed "hist" is its item's own: hiccup.cpu1, not hiccup.cpu1.hist. */
static bool tag_of(const struct lat_node *n, char *buf, size_t len)
{
	const struct lat_node *path[16];
	int depth = 0;
	size_t l = 0;

	for (; n && n->parent && depth < 16; n = n->parent)
		path[depth++] = n;
	buf[0] = '\0';
	while (depth-- > 0) {
		const struct lat_node *p = path[depth];
		const char *seg = p->key;

		if (p->kind == LAT_LIST)
			continue;
		if (p->parent->kind == LAT_LIST) {
			if (!p->tag)
				return false;
			seg = p->tag;
		} else if (p->kind == LAT_HIST && depth == 0 && !strcmp(seg, "hist") && l) {
			continue;
		}
		l += (size_t)snprintf(buf + l, len > l ? len - l : 0, "%s%s", l ? "." : "", seg);
	}
	return l > 0 && l < len;
}

static int write_node(struct hlog_sink *h, const struct lat_snap *s,
		      const struct lat_node *n, bool in_item)
{
	const struct lat_hist *iv;
	char tag[256];
	int err = 0;

	if (n->flags & LAT_F_PROV)
		return 0;
	if (n->kind == LAT_OBJ || n->kind == LAT_LIST) {
		for (const struct lat_node *c = n->child; c && !err; c = c->next) {
			/* an item that saw nothing this interval adds nothing */
			if (n->kind == LAT_LIST && (c->flags & (LAT_F_IV | LAT_F_RUN)) &&
			    !(c->flags & LAT_F_IV))
				continue;
			err = write_node(h, s, c, in_item || n->kind == LAT_LIST);
		}
		return err;
	}
	if (n->kind != LAT_HIST || n->unit != LAT_UNIT_NS)
		return 0;
	iv = lat_node_iv(n, &h->iv);
	/* an item that recorded nothing, or anything in the last stretch after
	 * the last interval when it recorded nothing: no line */
	if (((in_item || s->final) && !iv->count) || !tag_of(n, tag, sizeof(tag)))
		return 0;
	return lat_hlog_write(h->log, tag, s->iv_start_s, s->iv_len_s, iv);
}

/* Each interval's lines, flushed together: a run killed mid-way leaves a
 * log readable up to its last whole interval. The final snapshot adds the
 * stretch between the last interval and the end. */
static int hlog_interval(struct lat_sink *k, const struct lat_snap *s)
{
	struct hlog_sink *h = (struct hlog_sink *)k;
	int err;

	if (h->err)
		return h->err;
	if (s->final && s->iv_len_s <= 0)
		return 0;
	err = write_node(h, s, &s->root, false);
	if (!err)
		err = lat_hlog_flush(h->log);
	if (err) {
		char q[LAT_ARG_MAX];

		fprintf(stderr, "latbpf: --hlog: writing '%s': %s\n",
			lat_term_arg(q, sizeof(q), h->path), strerror(-err));
		h->err = err;
	}
	return err;
}

static void hlog_free(struct lat_sink *k)
{
	struct hlog_sink *h = (struct hlog_sink *)k;
	int err = lat_hlog_close(h->log);
	char q[LAT_ARG_MAX];

	if (err && !h->err)
		fprintf(stderr, "latbpf: --hlog: closing '%s': %s\n",
			lat_term_arg(q, sizeof(q), h->path), strerror(-err));
	free(h);
}

static const struct lat_sink_ops hlog_ops = {
	.name = "hlog",
	.interval = hlog_interval,
	.final = hlog_interval,
	.free = hlog_free,
};

struct lat_sink *lat_hlog_sink_new(const char *path, double start_epoch_s)
{
	struct hlog_sink *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->k.ops = &hlog_ops;
	h->path = path;
	h->log = lat_hlog_open(path, start_epoch_s, "latbpf " LATBPF_VERSION " (" LATBPF_COMMIT ")");
	if (!h->log) {
		char q[LAT_ARG_MAX];
		int e = errno;

		fprintf(stderr, "latbpf: cannot write '%s': %s\n", lat_term_arg(q, sizeof(q), path),
			strerror(e));
		free(h);
		return NULL;
	}
	return &h->k;
}

struct lat_sink *lat_hlog_output(const char *arg, struct lat_sink_env *env)
{
	struct lat_sink *k = lat_hlog_sink_new(arg, env->t0_epoch_s);

	if (!k)
		errno = EINVAL;	/* said: the file cannot be written */
	return k;
}

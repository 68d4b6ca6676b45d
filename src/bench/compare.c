// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf bench compare A.json B.json: B against A, per result and per
 * percentile, judged against the spread across runs. A regression is B's
 * median beyond A's worst run by more than 10 % of A's median (and 1 ns),
 * with even B's best run beyond A's worst: the two spreads apart. A
 * bandwidth regresses downwards. A result the environment check
 * quarantined in either file is still judged (a CI gate errs on the side
 * of a flag), and the verdict and the summary say so. The JSON is read with a small parser of
 * its own: a bench's output is latbpf's, but the files come from anywhere.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdio.h>
#include "bench/bench.h"
#include "core/escape.h"
#include "core/hist.h"
#include "output/bench_table.h"

enum jkind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jkind kind;
	double num;
	char *str;		/* J_STR; the key when a member */
	char *key;
	struct jval *child, *next;
};

struct jparse {
	const char *p, *end;
	int depth, line;
	const char *err;
};

static void jfree(struct jval *v)
{
	while (v) {
		struct jval *n = v->next;

		jfree(v->child);
		free(v->str);
		free(v->key);
		free(v);
		v = n;
	}
}

static void skip_ws(struct jparse *j)
{
	for (; j->p < j->end && isspace((unsigned char)*j->p); j->p++)
		if (*j->p == '\n')
			j->line++;
}

/* A string's text, escapes decoded (\uXXXX above 0x7f as '?'): enough to
 * match names and print them escaped */
static char *jstring(struct jparse *j)
{
	size_t cap = 16, n = 0;
	char *s = malloc(cap), *t;

	if (!s || j->p >= j->end || *j->p != '"')
		goto bad;
	for (j->p++; j->p < j->end && *j->p != '"'; j->p++) {
		char ch = *j->p;

		if ((unsigned char)ch < 0x20)
			goto bad;
		if (ch == '\\') {
			if (++j->p >= j->end)
				goto bad;
			switch (*j->p) {
			case 'n': ch = '\n'; break;
			case 't': ch = '\t'; break;
			case 'r': ch = '\r'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case '"': case '\\': case '/': ch = *j->p; break;
			case 'u':
				if (j->end - j->p < 5)
					goto bad;
				for (int k = 1; k <= 4; k++)
					if (!isxdigit((unsigned char)j->p[k]))
						goto bad;
				ch = (char)strtol((char[]){ j->p[1], j->p[2], j->p[3], j->p[4], 0 },
						  NULL, 16);
				if ((unsigned char)ch > 0x7f || strncmp(j->p + 1, "00", 2))
					ch = '?';
				j->p += 4;
				break;
			default:
				goto bad;
			}
		}
		if (n + 2 > cap) {
			t = realloc(s, cap *= 2);
			if (!t)
				goto bad;
			s = t;
		}
		s[n++] = ch;
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	s[n] = 0;
	return s;
bad:
	free(s);
	j->err = "a string is not closed or holds a bad escape";
	return NULL;
}

static struct jval *jvalue(struct jparse *j);

static struct jval *jcontainer(struct jparse *j, struct jval *v, char close)
{
	struct jval **tail = &v->child;

	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jval *c;

		skip_ws(j);
		if (close == '}') {
			key = jstring(j);
			if (!key)
				break;
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				j->err = "a ':' is missing after a key";
				break;
			}
			j->p++;
		}
		c = jvalue(j);
		if (!c) {
			free(key);
			break;
		}
		c->key = key;
		*tail = c;
		tail = &c->next;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return v;
		}
		j->err = close == '}' ? "an object is not closed" : "an array is not closed";
		break;
	}
	jfree(v);
	return NULL;
}

static struct jval *jvalue(struct jparse *j)
{
	struct jval *v;
	char *end;

	skip_ws(j);
	if (j->p >= j->end) {
		j->err = "the input ends where a value should be";
		return NULL;
	}
	if (++j->depth > 64) {
		j->err = "nested too deep";
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		j->err = "out of memory";
		return NULL;
	}
	switch (*j->p) {
	case '{':
		v->kind = J_OBJ;
		v = jcontainer(j, v, '}');
		break;
	case '[':
		v->kind = J_ARR;
		v = jcontainer(j, v, ']');
		break;
	case '"':
		v->kind = J_STR;
		v->str = jstring(j);
		if (!v->str) {
			free(v);
			v = NULL;
		}
		break;
	default:
		if (j->end - j->p >= 4 && !strncmp(j->p, "true", 4)) {
			v->kind = J_BOOL, v->num = 1, j->p += 4;
		} else if (j->end - j->p >= 5 && !strncmp(j->p, "false", 5)) {
			v->kind = J_BOOL, j->p += 5;
		} else if (j->end - j->p >= 4 && !strncmp(j->p, "null", 4)) {
			j->p += 4;
		} else if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
			/* the buffer ends in a NUL (read_file): strtod stops there */
			v->kind = J_NUM;
			v->num = strtod(j->p, &end);
			if (end == j->p || end > j->end) {
				free(v);
				j->err = "a number does not parse";
				return NULL;
			}
			j->p = end;
		} else {
			free(v);
			j->err = "not a JSON value";
			v = NULL;
		}
	}
	j->depth--;
	return v;
}

/* The whole of FILE as one JSON value; NULL with the reason said */
static struct jval *read_json(const char *path)
{
	struct jparse j = { 0 };
	struct jval *v = NULL;
	char *buf = NULL, q[LAT_ARG_MAX];
	size_t len = 0, cap = 0, got;
	FILE *f = fopen(path, "r");

	lat_term_arg(q, sizeof(q), path);
	if (!f) {
		fprintf(stderr, "latbpf bench compare: cannot read '%s': %s\n", q, strerror(errno));
		return NULL;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *t = realloc(buf, cap = cap * 2 + 4096 + 1);

			if (!t || cap > (256u << 20)) {
				free(t ? t : buf);
				fclose(f);
				fprintf(stderr, "latbpf bench compare: '%s' is too large\n", q);
				return NULL;
			}
			buf = t;
		}
		got = fread(buf + len, 1, 4096, f);
		len += got;
	} while (got);
	fclose(f);
	buf[len] = 0;
	j.p = buf;
	j.end = buf + len;
	j.line = 1;
	v = jvalue(&j);
	skip_ws(&j);
	if (v && j.p != j.end) {
		jfree(v);
		v = NULL;
		j.err = "more follows the JSON object";
	}
	if (!v)
		fprintf(stderr, "latbpf bench compare: '%s' line %d: %s\n", q, j.line,
			j.err ? j.err : "not JSON");
	free(buf);
	return v;
}

static const struct jval *jget(const struct jval *o, const char *key)
{
	for (const struct jval *c = o && o->kind == J_OBJ ? o->child : NULL; c; c = c->next)
		if (c->key && !strcmp(c->key, key))
			return c;
	return NULL;
}

static bool jnum(const struct jval *o, const char *key, double *out)
{
	const struct jval *v = jget(o, key);

	if (!v || v->kind != J_NUM || !isfinite(v->num))
		return false;
	*out = v->num;
	return true;
}

/* One result's column in one file: the median across runs and the lowest
 * and highest run (all three the single run's value without runs) */
struct col {
	double median, lo, hi;
	bool few;
};

static bool read_col(const struct jval *r, int k, struct col *c)
{
	const char *name = lat_bench_col_names[k];
	const struct jval *p = jget(jget(r, "runs"), name), *few;

	if (p) {
		few = jget(p, "few");
		c->few = few && few->kind == J_BOOL && few->num;
		return jnum(p, "median", &c->median) && jnum(p, "min", &c->lo) &&
		       jnum(p, "max", &c->hi);
	}
	/* a single run: its histogram's own figure, and its own count for
	 * whether 10 samples lie beyond it */
	double count = 0;

	if (!jnum(jget(r, "hist"), name, &c->median))
		return false;
	jnum(jget(r, "hist"), "count", &count);
	c->few = k < LAT_BENCH_COLS - 1 && lat_too_few(count, lat_bench_cols[k]);
	c->lo = c->hi = c->median;
	return true;
}

static const char *rname(const struct jval *r)
{
	const struct jval *n = jget(r, "name");

	return n && n->kind == J_STR ? n->str : NULL;
}

static const struct jval *results_of(const struct jval *doc, const char *path)
{
	const struct jval *res = jget(doc, "results");
	char q[LAT_ARG_MAX];

	if (res && res->kind == J_ARR && jget(doc, "tsc"))
		return res;
	fprintf(stderr, "latbpf bench compare: '%s' is not the JSON of latbpf bench --json\n",
		lat_term_arg(q, sizeof(q), path));
	return NULL;
}

int lat_bench_compare(int argc, char **argv)
{
	struct jval *a = NULL, *b = NULL;
	const struct jval *ra, *rb, *r, *s;
	int flagged = 0, compared = 0, err = 0, doubtful = 0;
	char n1[32], n2[32], n3[32], n4[32], q[LAT_ARG_MAX];

	if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		fprintf(stderr, "usage: latbpf bench compare A.json B.json\n"
			"  B against A: per result and percentile, B's median across runs "
			"against A's min..max\n");
		return -EINVAL;
	}
	a = read_json(argv[1]);
	b = a ? read_json(argv[2]) : NULL;
	ra = b ? results_of(a, argv[1]) : NULL;
	rb = ra ? results_of(b, argv[2]) : NULL;
	if (!rb) {
		err = -EINVAL;
		goto out;
	}
	printf("%-24s %-6s %10s %22s %10s %8s  %s\n", "result", "pct", "A median",
	       "A runs min..max", "B median", "B vs A", "verdict");
	for (r = ra->child; r; r = r->next) {
		const char *name = rname(r), *unit;
		const struct jval *u;
		bool ns;

		if (!name)
			continue;
		for (s = rb->child; s && (!rname(s) || strcmp(rname(s), name)); s = s->next)
			;
		lat_term_arg(q, sizeof(q), name);
		if (!s) {
			printf("%-24s only in A\n", q);
			continue;
		}
		const struct jval *qa = jget(r, "quarantine"), *qb = jget(s, "quarantine");
		const char *quar = qa && qa->kind == J_STR ? (qb && qb->kind == J_STR ?
			" (A and B quarantined)" : " (A quarantined)") :
			qb && qb->kind == J_STR ? " (B quarantined)" : "";

		u = jget(r, "unit");
		unit = u && u->kind == J_STR ? u->str : "ns";
		ns = strcmp(unit, "MB/s") != 0;
		for (int k = 0; k < LAT_BENCH_COLS; k++) {
			struct col ca, cb;
			const char *verdict = "ok";
			double margin, pct;

			if (!read_col(r, k, &ca) || !read_col(s, k, &cb))
				continue;
			margin = 0.10 * ca.median + (ns ? 1 : 0);
			pct = ca.median > 0 ? (cb.median / ca.median - 1) * 100 : 0;
			if (k == LAT_BENCH_COLS - 1)
				verdict = "(the max: one sample, not judged)";
			else if (ca.few || cb.few)
				verdict = "(too few samples, not judged)";
			else if (ns ? cb.median > ca.hi + margin && cb.lo > ca.hi :
				      cb.median < ca.lo - margin && cb.hi < ca.lo)
				verdict = "REGRESSED", flagged++, doubtful += *quar != 0;
			else if (ns ? cb.median < ca.lo - margin && cb.hi < ca.lo :
				      cb.median > ca.hi + margin && cb.lo > ca.hi)
				verdict = "better";
			if (k < LAT_BENCH_COLS - 1 && !ca.few && !cb.few)
				compared++;
			lat_bench_fmt_value(n1, sizeof(n1), ca.median, ns);
			lat_bench_fmt_value(n2, sizeof(n2), ca.lo, ns);
			lat_bench_fmt_value(n3, sizeof(n3), ca.hi, ns);
			lat_bench_fmt_value(n4, sizeof(n4), cb.median, ns);
			printf("%-24s %-6s %10s %10s..%-10s %10s %+7.1f%%  %s%s\n", k ? "" : q,
			       lat_bench_col_names[k], n1, n2, n3, n4, pct, verdict,
			       k < LAT_BENCH_COLS - 1 ? quar : "");
		}
	}
	for (s = rb->child; s; s = s->next) {
		const char *name = rname(s);

		for (r = ra->child; name && r && (!rname(r) || strcmp(rname(r), name)); r = r->next)
			;
		if (name && !r)
			printf("%-24s only in B\n", lat_term_arg(q, sizeof(q), name));
	}
	printf("%d of %d compared percentiles regressed beyond A's spread (+10%%, B's best "
	       "run beyond A's worst)\n", flagged, compared);
	if (doubtful)
		printf("%d of these in results the environment check quarantined (their "
		       "\"quarantine\" says why): the host, not the build, may be the cause\n",
		       doubtful);
	err = flagged ? LAT_BENCH_REGRESSED : 0;
out:
	jfree(a);
	jfree(b);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * --web-config FILE: exporter-toolkit's web configuration, read with libyaml
 * and checked whole before anything serves with it; basic auth checked with
 * the system's crypt() (libxcrypt: bcrypt's $2a$, $2b$ and $2y$). What is
 * refused, and why, is in webconfig.h.
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#include "output/webconfig.h"
#include "core/escape.h"

#define MAX_FILE (1 << 20)	/* a config, a certificate chain or a CA bundle */
#define MAX_OK 8

struct lat_web_user {
	char *name, *hash;
};

struct lat_web_pass {
	char *user, *pass;
};

struct ctx {
	struct lat_webconfig *w;
	yaml_document_t *doc;
	char *dir;		/* the file's folder, for relative paths */
	char *cert_file, *key_file, *ca_file;
};

static int bad(const struct ctx *c, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	char q[LAT_ARG_MAX];
	va_list ap;

	fprintf(stderr, "latbpf: --web-config %s: ", lat_term_arg(q, sizeof(q), c->w->path));
	if (n)
		fprintf(stderr, "line %zu: ", n->start_mark.line + 1);
	if (key)
		fprintf(stderr, "%s: ", key);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/* a scalar's text, NUL-terminated by libyaml; one with a NUL inside is refused */
static int scalar(const struct ctx *c, const yaml_node_t *n, const char *key, const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return bad(c, n, key, "want a single value, not a %s",
			   n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	*out = (const char *)n->data.scalar.value;
	if (strlen(*out) != n->data.scalar.length)
		return bad(c, n, key, "a NUL byte in the value");
	return 0;
}

/* a value YAML reads as null: "key:" alone, "~", "null" */
static bool is_null(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;

	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
		!strcmp(v, "NULL"));
}

static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1), *nb;
	ssize_t r;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_FILE) {
				free(b);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(b);
			return (int)r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/*
 * A file the config names, read whole. A private key must not be readable
 * by others: a key that every local user can read authenticates nothing.
 */
static int read_named(const struct ctx *c, const char *key, const char *path, bool secret,
		      char **buf, size_t *len)
{
	char q[LAT_ARG_MAX];
	struct stat st;
	int fd, err;

	lat_term_arg(q, sizeof(q), path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return bad(c, NULL, key, "cannot read %s: %s", q, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return bad(c, NULL, key, "%s is not a file", q);
	}
	if (secret && (st.st_mode & S_IROTH)) {
		close(fd);
		return bad(c, NULL, key, "%s is readable by others (mode %04o): chmod o-r it",
			   q, (unsigned)(st.st_mode & 07777));
	}
	err = read_all(fd, buf, len);
	close(fd);
	if (err == -ENOMEM)
		return err;
	if (err)
		return bad(c, NULL, key, "cannot read %s: %s", q,
			   err == -EFBIG ? "larger than 1 MiB" : strerror(-err));
	if (!*len || strlen(*buf) != *len) {
		free(*buf);
		*buf = NULL;
		return bad(c, NULL, key, "%s is %s", q, *len ? "not PEM text" : "empty");
	}
	return 0;
}

/* relative to the config file's folder, as exporter-toolkit does */
static int set_path(const struct ctx *c, const yaml_node_t *n, const char *key, char **dst)
{
	const char *v;
	int err = scalar(c, n, key, &v);

	if (err)
		return err;
	if (!*v)
		return bad(c, n, key, "empty");
	if (v[0] == '/' ? asprintf(dst, "%s", v) < 0 : asprintf(dst, "%s/%s", c->dir, v) < 0) {
		*dst = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int tls_version(const struct ctx *c, const yaml_node_t *n, const char *key, unsigned *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	char q[LAT_ARG_MAX];
	const char *s;
	int err = scalar(c, n, key, &s);

	if (err)
		return err;
	for (unsigned i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			*v = 10 + i;
			return 0;
		}
	}
	return bad(c, n, key, "unknown TLS version '%s' (TLS10, TLS11, TLS12, TLS13)",
		   lat_term_arg(q, sizeof(q), s));
}

static int client_auth(const struct ctx *c, const yaml_node_t *n, const char *key,
		       enum lat_client_auth *v)
{
	static const struct {
		const char *name;
		enum lat_client_auth v;
	} types[] = {
		{ "NoClientCert", LAT_CLIENT_NONE },
		{ "RequestClientCert", LAT_CLIENT_REQUEST },
		{ "RequireAnyClientCert", LAT_CLIENT_REQUIRE_ANY },
		{ "RequireClientCert", LAT_CLIENT_REQUIRE_ANY },	/* exporter-toolkit's old name */
		{ "VerifyClientCertIfGiven", LAT_CLIENT_VERIFY_IF_GIVEN },
		{ "RequireAndVerifyClientCert", LAT_CLIENT_REQUIRE_VERIFY },
	};
	char q[LAT_ARG_MAX];
	const char *s;
	int err = scalar(c, n, key, &s);

	if (err)
		return err;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!strcmp(s, types[i].name)) {
			*v = types[i].v;
			return 0;
		}
	}
	return bad(c, n, key, "unknown '%s' (NoClientCert, RequestClientCert, RequireAnyClientCert, "
		   "VerifyClientCertIfGiven, RequireAndVerifyClientCert)", lat_term_arg(q, sizeof(q), s));
}

/* exporter-toolkit keys latbpf refuses by name, and what to give instead */
static const struct {
	const char *key, *instead;
} unsupported[] = {
	{ "tls_server_config.cert", "cert_file" },
	{ "tls_server_config.key", "key_file" },
	{ "tls_server_config.client_ca", "client_ca_file" },
	{ "tls_server_config.cipher_suites", "GnuTLS's defaults for the TLS versions allowed" },
	{ "tls_server_config.curve_preferences", "GnuTLS's defaults" },
	{ "tls_server_config.prefer_server_cipher_suites", "GnuTLS's defaults" },
	{ "tls_server_config.client_allowed_sans", "a client CA that signs only the allowed clients" },
	{ "http_server_config.headers", "a reverse proxy" },
};

static int refused(const struct ctx *c, const yaml_node_t *n, const char *path, const char *known)
{
	char q[LAT_ARG_MAX];

	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (!strcmp(path, unsupported[i].key))
			return bad(c, n, path, "not supported by latbpf (instead: %s)",
				   unsupported[i].instead);
	return bad(c, n, lat_term_arg(q, sizeof(q), path), "unknown key (known: %s)", known);
}

/* the keys of a mapping in turn, each once; NULL value: a null mapping */
typedef int (*pair_fn)(struct ctx *c, const char *key, const yaml_node_t *k,
		       const yaml_node_t *v);

static int each_pair(struct ctx *c, const yaml_node_t *m, const char *where, pair_fn fn)
{
	yaml_node_pair_t *p, *q;
	const char *key, *other;
	int err;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return bad(c, m, where, "want a mapping of keys");
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(c->doc, p->value);

		if (!k || !v)
			return bad(c, m, where, "a broken mapping");
		if ((err = scalar(c, k, where, &key)))
			return err;
		for (q = m->data.mapping.pairs.start; q < p; q++) {
			if (!scalar(c, yaml_document_get_node(c->doc, q->key), where, &other) &&
			    !strcmp(key, other)) {
				char e[LAT_ARG_MAX];

				return bad(c, k, where, "'%s' given twice",
					   lat_term_arg(e, sizeof(e), key));
			}
		}
		if ((err = fn(c, key, k, v)))
			return err;
	}
	return 0;
}

static int tls_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct lat_webconfig *w = c->w;
	char path[96];

	snprintf(path, sizeof(path), "tls_server_config.%s", key);
	if (!strcmp(key, "cert_file"))
		return set_path(c, v, path, &c->cert_file);
	if (!strcmp(key, "key_file"))
		return set_path(c, v, path, &c->key_file);
	if (!strcmp(key, "client_ca_file"))
		return set_path(c, v, path, &c->ca_file);
	if (!strcmp(key, "client_auth_type"))
		return client_auth(c, v, path, &w->client_auth);
	if (!strcmp(key, "min_version"))
		return tls_version(c, v, path, &w->min_version);
	if (!strcmp(key, "max_version"))
		return tls_version(c, v, path, &w->max_version);
	return refused(c, k, path, "cert_file, key_file, client_auth_type, client_ca_file, "
		       "min_version, max_version");
}

/* $2a$, $2b$ or $2y$, a cost of 04..31, 22 characters of salt and 31 of hash */
static bool bcrypt_form(const char *h)
{
	size_t i;

	if (strlen(h) != 60 || strncmp(h, "$2", 2) || !strchr("aby", h[2]) || h[3] != '$' ||
	    h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return false;
	if ((h[4] - '0') * 10 + h[5] - '0' < 4 || (h[4] - '0') * 10 + h[5] - '0' > 31)
		return false;
	for (i = 7; i < 60; i++)
		if (!strchr("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", h[i]))
			return false;
	return true;
}

static int user_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct lat_webconfig *w = c->w;
	struct lat_web_user *u;
	struct crypt_data cd;
	char path[LAT_ARG_MAX + 32], q[LAT_ARG_MAX];
	const char *hash, *r;
	int err;

	snprintf(path, sizeof(path), "basic_auth_users.%s", lat_term_arg(q, sizeof(q), key));
	if (!*key || strchr(key, ':'))
		return bad(c, k, path, "a user name must be non-empty and have no ':' (HTTP basic auth)");
	if ((err = scalar(c, v, path, &hash)))
		return err;
	if (!bcrypt_form(hash))
		return bad(c, v, path, "not a bcrypt hash (a plaintext password?): make one with "
			   "htpasswd -nBC 10 \"\" | tr -d ':\\n'");
	/* the system's crypt() must take it, or every check would fail */
	memset(&cd, 0, sizeof(cd));
	r = crypt_r("", hash, &cd);
	if (!r || r[0] == '*')
		return bad(c, v, path, "this system's crypt() does not take this bcrypt hash");
	u = realloc(w->users, (w->nusers + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	w->users = u;
	u[w->nusers].name = strdup(key);
	u[w->nusers].hash = strdup(hash);
	w->nusers++;
	return u[w->nusers - 1].name && u[w->nusers - 1].hash ? 0 : -ENOMEM;
}

static int http_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	char path[96];
	const char *s;
	int err;

	snprintf(path, sizeof(path), "http_server_config.%s", key);
	if (strcmp(key, "http2"))
		return refused(c, k, path, "http2");
	/* HTTP/2 is an offer a client may decline: latbpf answers in HTTP/1.1 */
	if ((err = scalar(c, v, path, &s)))
		return err;
	if (strcmp(s, "true") && strcmp(s, "false"))
		return bad(c, v, path, "want true or false");
	return 0;
}

/* A Go duration ("1s", "1m30s", "250ms", "0"), in seconds */
static int go_duration(const struct ctx *c, const yaml_node_t *n, const char *key, double *out)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 },
		      { "s", 1 }, { "m", 60 }, { "h", 3600 } };
	const char *s, *p;
	char *end, q[LAT_ARG_MAX];
	double v, sum = 0;
	size_t i;
	int err = scalar(c, n, key, &s);

	if (err)
		return err;
	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	for (p = s; *p;) {
		if ((*p < '0' || *p > '9') && *p != '.')
			goto bad;
		v = strtod(p, &end);
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t l = strlen(units[i].unit);

			/* "m" must not take the "m" of "ms" */
			if (!strncmp(end, units[i].unit, l) && (l > 1 || end[1] < 'a' || end[1] > 'z'))
				break;
		}
		if (end == p || i == sizeof(units) / sizeof(units[0]))
			goto bad;
		sum += v * units[i].s;
		p = end + strlen(units[i].unit);
	}
	if (p == s || sum > 86400 * 365.0)
		goto bad;
	*out = sum;
	return 0;
bad:
	return bad(c, n, key, "bad duration '%s' (Go's: 1s, 250ms, 1m30s; 0 for none)",
		   lat_term_arg(q, sizeof(q), s));
}

static int rate_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct lat_webconfig *w = c->w;
	char path[64], q[LAT_ARG_MAX];
	const char *s;
	char *end;
	long b;
	int err;

	snprintf(path, sizeof(path), "rate_limit.%s", key);
	if (!strcmp(key, "interval"))
		return go_duration(c, v, path, &w->rate_interval_s);
	if (strcmp(key, "burst"))
		return refused(c, k, path, "interval, burst");
	if ((err = scalar(c, v, path, &s)))
		return err;
	errno = 0;
	b = strtol(s, &end, 10);
	if (errno || end == s || *end || b < 0 || b > 1000000)
		return bad(c, v, path, "want a whole number of requests, not '%s'",
			   lat_term_arg(q, sizeof(q), s));
	w->rate_burst = (unsigned)b;
	return 0;
}

static int top_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	char q[LAT_ARG_MAX];

	if (!strcmp(key, "tls_server_config"))
		return each_pair(c, v, key, tls_pair);
	if (!strcmp(key, "basic_auth_users"))
		return each_pair(c, v, key, user_pair);
	if (!strcmp(key, "http_server_config"))
		return each_pair(c, v, key, http_pair);
	if (!strcmp(key, "rate_limit"))
		return each_pair(c, v, key, rate_pair);
	return bad(c, k, lat_term_arg(q, sizeof(q), key), "unknown key (known: tls_server_config, "
		   "basic_auth_users, http_server_config, rate_limit)");
}

static int parse(struct ctx *c, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_document_t doc, more;
	yaml_node_t *root;
	int err = 0;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &doc)) {
		err = bad(c, NULL, NULL, "line %zu column %zu: not YAML: %s%s%s",
			  p.problem_mark.line + 1, p.problem_mark.column + 1,
			  p.problem ? p.problem : "?", p.context ? " " : "",
			  p.context ? p.context : "");
		yaml_parser_delete(&p);
		return err;
	}
	c->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (root && !is_null(root))
		err = root->type == YAML_MAPPING_NODE ? each_pair(c, root, "the file", top_pair) :
			bad(c, root, NULL, "want a mapping of keys (tls_server_config, "
			    "basic_auth_users, http_server_config, rate_limit)");
	if (!err && yaml_parser_load(&p, &more)) {
		if (yaml_document_get_root_node(&more))
			err = bad(c, NULL, NULL, "more than one YAML document");
		yaml_document_delete(&more);
	}
	c->doc = NULL;
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	return err;
}

/* what exporter-toolkit checks once the keys are read, then the files */
static int settle(struct ctx *c)
{
	struct lat_webconfig *w = c->w;
	size_t len;
	int err;

	if (w->min_version > w->max_version)
		return bad(c, NULL, "tls_server_config.min_version",
			   "TLS1%u is above max_version TLS1%u", w->min_version - 10,
			   w->max_version - 10);
	w->tokens = w->rate_burst;	/* as Go's rate.Limiter: full at the start */
	w->tls = c->cert_file || c->key_file || c->ca_file || w->client_auth != LAT_CLIENT_NONE;
	if (!w->tls)
		return 0;
	if (!c->cert_file || !c->key_file)
		return bad(c, NULL, c->cert_file ? "tls_server_config.key_file" :
			   "tls_server_config.cert_file", "missing (TLS needs both cert_file and key_file)");
	if (c->ca_file && w->client_auth == LAT_CLIENT_NONE)
		return bad(c, NULL, "tls_server_config.client_ca_file",
			   "given without a client_auth_type that asks for client certificates");
	if (!c->ca_file && (w->client_auth == LAT_CLIENT_VERIFY_IF_GIVEN ||
			    w->client_auth == LAT_CLIENT_REQUIRE_VERIFY))
		return bad(c, NULL, "tls_server_config.client_ca_file",
			   "missing: client_auth_type %s verifies client certificates against it",
			   w->client_auth == LAT_CLIENT_VERIFY_IF_GIVEN ? "VerifyClientCertIfGiven" :
			   "RequireAndVerifyClientCert");
	if ((err = read_named(c, "tls_server_config.cert_file", c->cert_file, false, &w->cert, &len)))
		return err;
	if ((err = read_named(c, "tls_server_config.key_file", c->key_file, true, &w->key,
			      &w->key_len)))
		return err;
	if (c->ca_file &&
	    (err = read_named(c, "tls_server_config.client_ca_file", c->ca_file, false, &w->ca, &len)))
		return err;
	return 0;
}

int lat_webconfig_load(const char *path, struct lat_webconfig **out)
{
	struct lat_webconfig *w = calloc(1, sizeof(*w));
	struct ctx c = { .w = w };
	char *text = NULL, *slash;
	size_t len;
	int err, fd;

	*out = NULL;
	if (!w || !(w->path = strdup(path)) || !(c.dir = strdup(path))) {
		err = -ENOMEM;
		goto out;
	}
	slash = strrchr(c.dir, '/');
	if (!slash)
		strcpy(c.dir, ".");
	else
		slash[slash == c.dir] = '\0';	/* "/x": "/" */
	w->min_version = 12;	/* exporter-toolkit's defaults */
	w->max_version = 13;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = bad(&c, NULL, NULL, "cannot read it: %s", strerror(errno));
		goto out;
	}
	err = read_all(fd, &text, &len);
	close(fd);
	if (err == -ENOMEM)
		goto out;
	if (err) {
		err = bad(&c, NULL, NULL, "cannot read it: %s",
			  err == -EFBIG ? "larger than 1 MiB" : strerror(-err));
		goto out;
	}
	err = parse(&c, text, len);
	if (!err)
		err = settle(&c);
out:
	if (err == -ENOMEM)
		fprintf(stderr, "latbpf: --web-config: out of memory\n");
	free(text);
	free(c.dir);
	free(c.cert_file);
	free(c.key_file);
	free(c.ca_file);
	if (err)
		lat_webconfig_free(w);
	else
		*out = w;
	return err;
}

void lat_webconfig_free(struct lat_webconfig *w)
{
	size_t i;

	if (!w)
		return;
	if (w->key)
		explicit_bzero(w->key, w->key_len);
	free(w->key);
	free(w->cert);
	free(w->ca);
	for (i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	for (i = 0; i < w->nok; i++) {
		explicit_bzero(w->ok[i].pass, strlen(w->ok[i].pass));
		free(w->ok[i].user);
		free(w->ok[i].pass);
	}
	free(w->ok);
	free(w->path);
	free(w);
}

void lat_webconfig_priorities(const struct lat_webconfig *w, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "NORMAL:-VERS-ALL");

	for (unsigned v = w->max_version; v >= w->min_version && v >= 10 && n < len; v--)
		n += (size_t)snprintf(buf + n, len - n, ":+VERS-TLS1.%u", v - 10);
}

/* equal without an early exit, so the time taken says nothing of where they differ */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

static void remember(struct lat_webconfig *w, const char *user, const char *pass)
{
	struct lat_web_pass *p = w->ok, e = { strdup(user), strdup(pass) };

	if (!e.user || !e.pass)
		goto drop;
	if (w->nok < MAX_OK) {
		p = realloc(w->ok, (w->nok + 1) * sizeof(*p));
		if (!p)
			goto drop;
		w->ok = p;
		w->ok[w->nok++] = e;
		return;
	}
	/* full: the oldest goes */
	explicit_bzero(p[w->next_ok].pass, strlen(p[w->next_ok].pass));
	free(p[w->next_ok].user);
	free(p[w->next_ok].pass);
	p[w->next_ok] = e;
	w->next_ok = (w->next_ok + 1) % MAX_OK;
	return;
drop:
	if (e.pass)
		explicit_bzero(e.pass, strlen(e.pass));
	free(e.user);
	free(e.pass);
}

bool lat_webconfig_allows(struct lat_webconfig *w, const char *user, const char *pass)
{
	/* exporter-toolkit's: an unknown user costs a bcrypt check too, so
	 * the time taken does not tell which users exist */
	static const char fake[] = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";
	const struct lat_web_user *u = NULL;
	struct crypt_data *cd;
	const char *r, *hash = fake;
	bool ok;
	size_t i;

	if (!w || !w->nusers)
		return true;
	if (!user || !pass)
		return false;
	for (i = 0; i < w->nusers; i++)
		if (!strcmp(w->users[i].name, user))
			u = &w->users[i];
	for (i = 0; i < w->nok; i++)
		if (u && same(w->ok[i].user, user) && same(w->ok[i].pass, pass))
			return true;
	if (u)
		hash = u->hash;
	cd = calloc(1, sizeof(*cd));	/* 32 KiB: not for a thread's stack */
	if (!cd)
		return false;
	r = crypt_r(pass, hash, cd);
	ok = u && r && r[0] != '*' && same(r, hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	if (ok)
		remember(w, user, pass);
	return ok;
}

/* Go's rate.Limiter as exporter-toolkit uses it: a token per interval, at
 * most burst of them */
bool lat_webconfig_admit(struct lat_webconfig *w)
{
	struct timespec ts;
	double now;

	if (!w || w->rate_interval_s <= 0)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	if (w->rate_last > 0)
		w->tokens += (now - w->rate_last) / w->rate_interval_s;
	if (w->tokens > w->rate_burst)
		w->tokens = w->rate_burst;
	w->rate_last = now;
	if (w->tokens < 1)
		return false;
	w->tokens -= 1;
	return true;
}

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LATBPF_WEBCONFIG_H
#define LATBPF_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * --web-config FILE: the Prometheus exporter-toolkit's web configuration
 * (docs/web-configuration.md in prometheus/exporter-toolkit), the file
 * node_exporter and the other exporters read with --web.config.file:
 *
 *   tls_server_config:
 *     cert_file: server.crt          relative paths: to the file's folder
 *     key_file: server.key           not readable by others
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: clients-ca.crt
 *     min_version: TLS12             (default; TLS10, TLS11, TLS13)
 *     max_version: TLS13             (default)
 *   basic_auth_users:
 *     alice: $2y$10$...              bcrypt hashes only
 *   http_server_config:
 *     http2: false                   accepted; latbpf speaks HTTP/1.1 only
 *   rate_limit:
 *     interval: 1s                   a request per interval (0: no limit)
 *     burst: 20                      and this many at once
 *
 * Parsed with libyaml; the exporter-toolkit keys latbpf does not implement
 * (inline cert/key/client_ca, cipher_suites, curve_preferences,
 * prefer_server_cipher_suites, client_allowed_sans, headers)
 * are refused by name rather than ignored: each changes who may read the
 * metrics, and a setting that silently does nothing is worse than none.
 */

/* exporter-toolkit's client_auth_type values, as Go's tls.ClientAuthType */
enum lat_client_auth {
	LAT_CLIENT_NONE,		/* NoClientCert (default) */
	LAT_CLIENT_REQUEST,		/* RequestClientCert: asked, not checked */
	LAT_CLIENT_REQUIRE_ANY,		/* RequireAnyClientCert (RequireClientCert) */
	LAT_CLIENT_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	LAT_CLIENT_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
};

struct lat_web_user;

struct lat_webconfig {
	char *path;		/* as given */
	bool tls;		/* any tls_server_config key set */
	char *cert, *key, *ca;	/* the PEM files' contents (ca: NULL without one) */
	size_t key_len;
	enum lat_client_auth client_auth;
	unsigned min_version, max_version;	/* 10..13: TLS 1.0..1.3 */
	struct lat_web_user *users;
	size_t nusers;
	double rate_interval_s, tokens, rate_last;	/* rate_limit's bucket */
	unsigned rate_burst;
	struct lat_web_pass *ok;	/* a few user:password pairs that passed */
	size_t nok, next_ok;
};

/*
 * Reads and checks FILE, and reads the files it names. Every refusal is one
 * line on stderr, "latbpf: --web-config FILE: KEY: why", and -EINVAL (a
 * usage error: exit 2); -ENOMEM otherwise.
 */
int lat_webconfig_load(const char *path, struct lat_webconfig **out);
void lat_webconfig_free(struct lat_webconfig *w);	/* NULL is fine; wipes the key */

/* A GnuTLS priority string allowing min_version..max_version */
void lat_webconfig_priorities(const struct lat_webconfig *w, char *buf, size_t len);

/*
 * Whether user:pass may read /metrics: true when the file names no users.
 * A bcrypt check per new pair (tens of ms at cost 10); pairs that passed are
 * remembered (at most 8, reset with the file), so a scraper pays it once.
 * One thread at a time: the HTTP server's.
 */
bool lat_webconfig_allows(struct lat_webconfig *w, const char *user, const char *pass);

/* rate_limit: whether a request may go on now (false: answer 429) */
bool lat_webconfig_admit(struct lat_webconfig *w);

#endif

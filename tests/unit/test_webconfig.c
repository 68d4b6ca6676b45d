// SPDX-License-Identifier: GPL-2.0
/*
 * --web-config files (src/output/webconfig.c): what a good file sets, and
 * that every bad one is refused with -EINVAL and one line on stderr naming
 * the file and the key. Passwords against hashes made by the system's own
 * crypt_gensalt() and crypt(), the rate limit's bucket, the GnuTLS priority
 * strings. No root, no network.
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output/webconfig.h"
#include "tap.h"

static char dir[64], cfg[128], err_path[128];

static void put(const char *name, const char *text, mode_t mode)
{
	char p[192];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
}

/* loads text as the config; stderr into err_path */
static int load(const char *text, struct lat_webconfig **w)
{
	int r, saved = dup(2);
	FILE *e = fopen(err_path, "w");

	put("web.yml", text, 0644);
	fflush(stderr);
	dup2(fileno(e), 2);
	r = lat_webconfig_load(cfg, w);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(e);
	return r;
}

/* what load() said: its lines, and whether they hold the file and key */
static int said(const char *key, char *line, size_t len)
{
	FILE *f = fopen(err_path, "r");
	int n = 0;
	char buf[1024];

	line[0] = '\0';
	while (fgets(buf, sizeof(buf), f)) {
		if (!n++)
			snprintf(line, len, "%s", buf);
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return n == 1 && strstr(line, cfg) && strstr(line, key);
}

static void refused(const char *what, const char *key, const char *text)
{
	struct lat_webconfig *w = NULL;
	char line[1024];
	int r = load(text, &w);

	ok(r == -EINVAL && !w && said(key, line, sizeof(line)),
	   "%s: -EINVAL, one line naming the file and %s (%d: %s)", what, key, r, line);
}

int main(void)
{
	struct lat_webconfig *w = NULL;
	char text[1024], hash[128], prio[96], line[1024], salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data cd;
	const char *setting;
	int r;

	snprintf(dir, sizeof(dir), "/tmp/latbpf-webconfig.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(cfg, sizeof(cfg), "%s/web.yml", dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	put("tls.crt", "-----BEGIN CERTIFICATE-----\nxx\n-----END CERTIFICATE-----\n", 0644);
	put("tls.key", "-----BEGIN PRIVATE KEY-----\nyy\n-----END PRIVATE KEY-----\n", 0600);
	put("open.key", "-----BEGIN PRIVATE KEY-----\nyy\n-----END PRIVATE KEY-----\n", 0644);
	put("ca.crt", "-----BEGIN CERTIFICATE-----\nzz\n-----END CERTIFICATE-----\n", 0644);

	/* a hash of "s3cret" made here, by libxcrypt */
	memset(&cd, 0, sizeof(cd));
	setting = crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt));
	snprintf(hash, sizeof(hash), "%s", setting ? crypt_r("s3cret", setting, &cd) : "");
	ok(!strncmp(hash, "$2b$04$", 7) && strlen(hash) == 60, "crypt() makes bcrypt hashes (%s)",
	   hash);

	snprintf(text, sizeof(text),
		 "# a comment\n"
		 "tls_server_config:\n"
		 "  cert_file: tls.crt\n"
		 "  key_file: \"tls.key\"\n"
		 "  client_auth_type: RequireAndVerifyClientCert\n"
		 "  client_ca_file: %s/ca.crt\n"
		 "  min_version: TLS13\n"
		 "basic_auth_users:\n"
		 "  alice: %s\n"
		 "  bob: '%s'\n"
		 "http_server_config:\n"
		 "  http2: false\n"
		 "rate_limit:\n"
		 "  interval: 1h\n"
		 "  burst: 2\n", dir, hash, hash);
	r = load(text, &w);
	ok(r == 0 && w, "a full file loads (%d)", r);
	if (!w)
		return done_testing();
	ok(w->tls && w->client_auth == LAT_CLIENT_REQUIRE_VERIFY && w->min_version == 13 &&
	   w->max_version == 13, "its TLS settings");
	ok(w->cert && strstr(w->cert, "xx") && w->key && strstr(w->key, "yy") && w->ca &&
	   strstr(w->ca, "zz"), "the files it names, relative to its folder and absolute, read");
	ok(w->nusers == 2, "two users (%zu)", w->nusers);
	lat_webconfig_priorities(w, prio, sizeof(prio));
	ok(!strcmp(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3"), "TLS13 only: %s", prio);
	ok(lat_webconfig_allows(w, "alice", "s3cret"), "alice with her password");
	ok(lat_webconfig_allows(w, "alice", "s3cret"), "again (remembered)");
	ok(!lat_webconfig_allows(w, "alice", "s3cre"), "alice with a wrong one: no");
	ok(!lat_webconfig_allows(w, "alice", "s3cret\n"), "one byte more: no");
	ok(!lat_webconfig_allows(w, "carol", "s3cret"), "an unknown user: no");
	ok(!lat_webconfig_allows(w, NULL, NULL), "no credentials: no");
	ok(lat_webconfig_allows(w, "bob", "s3cret"), "bob (a quoted hash)");
	ok(lat_webconfig_admit(w) && lat_webconfig_admit(w) && !lat_webconfig_admit(w),
	   "rate_limit: a burst of 2, then 429");
	lat_webconfig_free(w);

	r = load("", &w);
	ok(r == 0 && w && !w->tls && !w->nusers && lat_webconfig_allows(w, NULL, NULL),
	   "an empty file: plain HTTP, no passwords (%d)", r);
	if (w) {
		lat_webconfig_priorities(w, prio, sizeof(prio));
		ok(!strcmp(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"),
		   "TLS 1.2 the default minimum: %s", prio);
		ok(lat_webconfig_admit(w), "no rate_limit: admitted");
	}
	lat_webconfig_free(w);
	w = NULL;
	r = load("tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n"
		 "  min_version: TLS10\n  max_version: TLS11\n", &w);
	if (w)
		lat_webconfig_priorities(w, prio, sizeof(prio));
	ok(r == 0 && w && !strcmp(prio, "NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0"),
	   "TLS10..TLS11: %s", w ? prio : "");
	lat_webconfig_free(w);
	w = NULL;

	refused("an unknown key", "tls_server_config.cert_filse",
		"tls_server_config:\n  cert_filse: tls.crt\n");
	refused("an unknown top key", "tls_config", "tls_config:\n  cert_file: tls.crt\n");
	refused("a key given twice", "key_file",
		"tls_server_config:\n  key_file: tls.key\n  key_file: tls.key\n");
	refused("a plaintext password", "basic_auth_users.alice",
		"basic_auth_users:\n  alice: s3cret\n");
	snprintf(text, sizeof(text), "basic_auth_users:\n  alice: %.59s\n", hash);
	refused("a hash cut short", "basic_auth_users.alice", text);
	refused("a key file others can read", "tls_server_config.key_file",
		"tls_server_config:\n  cert_file: tls.crt\n  key_file: open.key\n");
	load("tls_server_config:\n  cert_file: tls.crt\n  key_file: open.key\n", &w);
	said("key_file", line, sizeof(line));
	ok(strstr(line, "readable by others") && strstr(line, "0644"), "and why: %s", line);
	refused("a key file that is not there", "tls_server_config.key_file",
		"tls_server_config:\n  cert_file: tls.crt\n  key_file: missing.key\n");
	refused("a key file that is a folder", "tls_server_config.key_file",
		"tls_server_config:\n  cert_file: tls.crt\n  key_file: /tmp\n");
	refused("a certificate without a key", "tls_server_config.key_file",
		"tls_server_config:\n  cert_file: tls.crt\n");
	refused("a client CA with NoClientCert", "tls_server_config.client_ca_file",
		"tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n"
		"  client_ca_file: ca.crt\n");
	refused("verifying without a client CA", "tls_server_config.client_ca_file",
		"tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n"
		"  client_auth_type: VerifyClientCertIfGiven\n");
	refused("an unknown client_auth_type", "tls_server_config.client_auth_type",
		"tls_server_config:\n  client_auth_type: Maybe\n");
	refused("an unknown TLS version", "tls_server_config.min_version",
		"tls_server_config:\n  min_version: SSL3\n");
	refused("min above max", "tls_server_config.min_version",
		"tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n"
		"  min_version: TLS13\n  max_version: TLS12\n");
	refused("an inline key", "tls_server_config.key", "tls_server_config:\n  key: abc\n");
	refused("cipher_suites", "tls_server_config.cipher_suites",
		"tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n");
	refused("headers", "http_server_config.headers",
		"http_server_config:\n  headers:\n    X-Frame-Options: deny\n");
	refused("a bad rate_limit interval", "rate_limit.interval",
		"rate_limit:\n  interval: soon\n");
	refused("a list for a path", "tls_server_config.cert_file",
		"tls_server_config:\n  cert_file: [a, b]\n");
	refused("not a mapping", "line 1", "- a\n- b\n");
	refused("not YAML", "line", "tls_server_config:\n  cert_file: [tls.crt\n");
	refused("two documents", "more than one", "---\nbasic_auth_users:\n---\nfoo: 1\n");
	refused("a user name with a colon", "basic_auth_users.a:b",
		"basic_auth_users:\n  \"a:b\": x\n");
	unlink(cfg);
	{
		int saved = dup(2), e = open(err_path, O_WRONLY | O_TRUNC);

		dup2(e, 2);
		r = lat_webconfig_load(cfg, &w);
		dup2(saved, 2);
		close(saved);
		close(e);
	}
	ok(r == -EINVAL && !w && said("cannot read it", line, sizeof(line)),
	   "a file that is not there: -EINVAL, said (%d: %s)", r, line);

	snprintf(text, sizeof(text), "rm -rf %s", dir);
	r = system(text);
	return done_testing();
}

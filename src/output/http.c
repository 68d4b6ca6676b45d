// SPDX-License-Identifier: GPL-2.0
/*
 * The --prometheus endpoint. A publish swaps in a new MHD response under a
 * mutex held for a pointer's worth of work; MHD counts references to
 * responses, so a client still reading an older body keeps it alive and the
 * poll loop never waits for any client. With --web-config: TLS by MHD's own
 * GnuTLS support, basic auth by MHD's header parsing and webconfig.c's
 * bcrypt check, and a reload that swaps the daemon, never the port.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "output/http.h"
#include "output/webconfig.h"
#include "core/escape.h"

#define PFX "latbpf: --prometheus: "

/*
 * libmicrohttpd is opened only when --prometheus asks for it: linked, it
 * brings Debian's gnutls and nine more libraries into every run, 2.6 MiB of
 * RSS for a loader that must stay small. The calls below go through these
 * pointers, with the library's own prototypes. With TLS, a few GnuTLS calls
 * come from the gnutls that libmicrohttpd brought: the same library its
 * sessions are made by.
 */
static struct {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_quiesce_daemon) quiesce_daemon;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_create_response_from_buffer_with_free_callback) create_response_free_cb;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_get_connection_info) get_connection_info;
	__typeof__(&MHD_basic_auth_get_username_password) basic_auth_get_username_password;
	__typeof__(&MHD_queue_basic_auth_fail_response) queue_basic_auth_fail_response;
	__typeof__(&MHD_free) free;
	__typeof__(&MHD_is_feature_supported) is_feature_supported;
} mhd;
#define MHD_start_daemon (*mhd.start_daemon)
#define MHD_stop_daemon (*mhd.stop_daemon)
#define MHD_quiesce_daemon (*mhd.quiesce_daemon)
#define MHD_create_response_from_buffer (*mhd.create_response_from_buffer)
#define MHD_create_response_from_buffer_with_free_callback (*mhd.create_response_free_cb)
#define MHD_add_response_header (*mhd.add_response_header)
#define MHD_queue_response (*mhd.queue_response)
#define MHD_destroy_response (*mhd.destroy_response)
#define MHD_lookup_connection_value (*mhd.lookup_connection_value)
#define MHD_get_connection_info (*mhd.get_connection_info)
#define MHD_basic_auth_get_username_password (*mhd.basic_auth_get_username_password)
#define MHD_queue_basic_auth_fail_response (*mhd.queue_basic_auth_fail_response)
#define MHD_free (*mhd.free)
#define MHD_is_feature_supported (*mhd.is_feature_supported)

static struct {
	__typeof__(&gnutls_certificate_server_set_request) certificate_server_set_request;
	__typeof__(&gnutls_session_set_verify_function) session_set_verify_function;
	__typeof__(&gnutls_certificate_get_peers) certificate_get_peers;
	__typeof__(&gnutls_certificate_verify_peers) certificate_verify_peers;
	__typeof__(&gnutls_certificate_allocate_credentials) certificate_allocate_credentials;
	__typeof__(&gnutls_certificate_free_credentials) certificate_free_credentials;
	__typeof__(&gnutls_certificate_set_x509_key_mem2) certificate_set_x509_key_mem2;
	__typeof__(&gnutls_certificate_set_x509_trust_mem) certificate_set_x509_trust_mem;
	__typeof__(&gnutls_strerror) strerror;
} gtls;

static int load_syms(void *lib, const char *what, const char *const *names, void **fn, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fn[i] = dlsym(lib, names[i]);
		if (!fn[i]) {
			fprintf(stderr, PFX "%s has no %s\n", what, names[i]);
			return -ENOENT;	/* the library stays loaded: harmless */
		}
	}
	return 0;
}

static int load_mhd(void)
{
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_quiesce_daemon",
		"MHD_create_response_from_buffer",
		"MHD_create_response_from_buffer_with_free_callback", "MHD_add_response_header",
		"MHD_queue_response", "MHD_destroy_response", "MHD_lookup_connection_value",
		"MHD_get_connection_info", "MHD_basic_auth_get_username_password",
		"MHD_queue_basic_auth_fail_response", "MHD_free", "MHD_is_feature_supported",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == sizeof(mhd) / sizeof(void *),
		       "one name per pointer");
	void *lib;

	if (mhd.start_daemon)
		return 0;
	lib = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, PFX "cannot load libmicrohttpd (Debian: libmicrohttpd12): %s\n",
			dlerror());
		return -ENOENT;
	}
	if (load_syms(lib, "libmicrohttpd", names, (void **)&mhd, sizeof(names) / sizeof(names[0]))) {
		memset(&mhd, 0, sizeof(mhd));
		return -ENOENT;
	}
	return 0;
}

/* After load_mhd(), for a web config with TLS */
static int load_gnutls(void)
{
	static const char *const names[] = {
		"gnutls_certificate_server_set_request", "gnutls_session_set_verify_function",
		"gnutls_certificate_get_peers", "gnutls_certificate_verify_peers",
		"gnutls_certificate_allocate_credentials", "gnutls_certificate_free_credentials",
		"gnutls_certificate_set_x509_key_mem2", "gnutls_certificate_set_x509_trust_mem",
		"gnutls_strerror",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == sizeof(gtls) / sizeof(void *),
		       "one name per pointer");
	void *lib;

	if (gtls.strerror)
		return 0;
	/* already there if libmicrohttpd was built with it, as Debian's is */
	lib = dlopen("libgnutls.so.30", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES || !lib) {
		fprintf(stderr, PFX "this libmicrohttpd has no TLS (GnuTLS) support: "
			"--web-config's tls_server_config needs it\n");
		return -ENOTSUP;
	}
	if (load_syms(lib, "libgnutls", names, (void **)&gtls, sizeof(names) / sizeof(names[0]))) {
		memset(&gtls, 0, sizeof(gtls));
		return -ENOENT;
	}
	return 0;
}

struct server;

struct lat_http {
	pthread_mutex_t lock;		/* guards cur: a swap or a queue, nothing more */
	struct MHD_Response *cur;	/* the latest body; NULL before the first */
	struct server *srv;		/* serving now; changed by the main thread only */
	char *web_config;		/* --web-config FILE, reread by lat_http_reload() */
	int fd, family;			/* the listening socket: srv's daemon's */
	_Atomic unsigned long long ok, client_errors, dropped;
};

/* One MHD daemon and the web configuration it serves with */
struct server {
	struct MHD_Daemon *d;
	struct lat_http *h;
	struct lat_webconfig *wc;	/* NULL: plain HTTP, no passwords */
	_Atomic bool serving;
};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct server *s = cls;

	/* a connection refused at a limit is reported only here */
	if (strstr(fmt, "connection limit"))
		s->h->dropped++;
	/* once serving, what MHD says is about clients: not for the terminal */
	else if (!s->serving) {
		fputs(PFX, stderr);
		vfprintf(stderr, fmt, ap);
	}
}

static struct MHD_Response *text_response(const char *text)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
	return r;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text)
{
	struct MHD_Response *r = text_response(text);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* basic auth, when the web config names users: 401 with WWW-Authenticate */
static bool authorized(struct server *s, struct MHD_Connection *c)
{
	char *user, *pass = NULL;
	bool ok;

	if (!s->wc || !s->wc->nusers)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = lat_webconfig_allows(s->wc, user, pass);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

static enum MHD_Result deny(struct MHD_Connection *c)
{
	struct MHD_Response *r = text_response("401 Unauthorized\n");
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	ret = MHD_queue_basic_auth_fail_response(c, "latbpf", r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *c, const char *url,
			     const char *method, const char *version,
			     const char *upload, size_t *upload_size, void **req)
{
	struct server *s = cls;
	struct lat_http *h = s->h;
	enum MHD_Result ret;
	const char *len;
	bool have;

	/* First call, headers only: an answer now makes MHD close without reading
	 * a body (no scrape has one); a good request, answered on the second call,
	 * keeps its connection. Without the password nothing else is said, as
	 * exporter-toolkit does. */
	if (!*req) {
		if (!lat_webconfig_admit(s->wc))
			return reply(c, MHD_HTTP_TOO_MANY_REQUESTS, "429 Too Many Requests\n");
		if (!authorized(s, c))
			return deny(c);
		if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
			return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
		len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		if ((len && strcmp(len, "0")) ||
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding"))
			return reply(c, MHD_HTTP_BAD_REQUEST, "a request body is not accepted\n");
		*req = h;	/* any mark for "headers seen" */
		return MHD_YES;
	}
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "not found: latbpf serves /metrics\n");
	pthread_mutex_lock(&h->lock);
	have = h->cur;
	ret = have ? MHD_queue_response(c, MHD_HTTP_OK, h->cur) : MHD_NO;
	pthread_mutex_unlock(&h->lock);
	/* before the first interval there is nothing true to say: the scrape fails */
	return have ? ret : reply(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "no data yet: latbpf publishes after its first interval\n");
}

/* Makes MHD tell completed() of every request line, even those it answers itself */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
	return NULL;
}

static void completed(void *cls, struct MHD_Connection *c, void **req,
		      enum MHD_RequestTerminationCode toe)
{
	bool answered = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK;
	const union MHD_ConnectionInfo *st, *sc;
	struct lat_http *h = ((struct server *)cls)->h;
	unsigned status;

	st = MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);
	sc = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	status = st ? st->http_status : 0;
	if (sc && sc->socket_context)
		*(void **)sc->socket_context = NULL;	/* see conn_event() */
	/* WITH_ERROR: MHD answered a bad request itself, then closed */
	if (status / 100 == 4 && (answered || toe == MHD_REQUEST_TERMINATED_WITH_ERROR))
		h->client_errors++;
	/* 503: a scrape before the first publish, answered as meant */
	else if ((status / 100 == 2 || status == MHD_HTTP_SERVICE_UNAVAILABLE) && answered)
		h->ok++;
	else
		h->dropped++;
}

/*
 * A client's certificate, if it sent one, against client_ca_file, for TLS
 * client use (Go's crypto/tls checks the same): in the handshake, which a
 * nonzero return fails.
 */
static int verify_client(gnutls_session_t ss)
{
	gnutls_typed_vdata_st purpose = { GNUTLS_DT_KEY_PURPOSE_OID,
					  (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, 0 };
	unsigned n = 0, status = 0;

	if (!gtls.certificate_get_peers(ss, &n) || !n)
		return 0;	/* none: REQUIRE has failed it already */
	return gtls.certificate_verify_peers(ss, &purpose, 1, &status) < 0 || status ? -1 : 0;
}

/*
 * What client_auth_type asks of a TLS client, set on its session before the
 * handshake (MHD makes the session first, then tells of the connection): a
 * missing required certificate, or one that fails verification, fails the
 * handshake itself, as in Go's crypto/tls. MHD alone would only request
 * one, and verify nothing.
 */
static void client_policy(struct server *s, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	enum lat_client_auth a = s->wc ? s->wc->client_auth : LAT_CLIENT_NONE;

	if (!s->wc || !s->wc->tls)
		return;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return;
	gtls.certificate_server_set_request(ci->tls_session,
		a == LAT_CLIENT_NONE ? GNUTLS_CERT_IGNORE :
		a == LAT_CLIENT_REQUIRE_ANY || a == LAT_CLIENT_REQUIRE_VERIFY ? GNUTLS_CERT_REQUIRE :
		GNUTLS_CERT_REQUEST);
	if (a == LAT_CLIENT_VERIFY_IF_GIVEN || a == LAT_CLIENT_REQUIRE_VERIFY)
		gtls.session_set_verify_function(ci->tls_session, verify_client);
}

/*
 * A connection closed before any request on it completed was idle, half-open,
 * slow, refused in its TLS handshake, or sent no readable request line. Its
 * socket context points at itself until completed() clears it through that
 * address: a mark with no allocation.
 */
static void conn_event(void *cls, struct MHD_Connection *c, void **sock,
		       enum MHD_ConnectionNotificationCode ev)
{
	struct server *s = cls;

	if (ev == MHD_CONNECTION_NOTIFY_STARTED) {
		*sock = sock;
		client_policy(s, c);
	} else if (*sock) {
		s->h->dropped++;
	}
}

/* No name lookups: what is given is what is bound. */
static int parse(const char *hostport, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN] = "127.0.0.1", end;
	unsigned port = 65536;
	/* %u would skip white space (a newline too) and take a sign */
	bool clean = !hostport[strcspn(hostport, " \t\n\v\f\r+-")];

	memset(ss, 0, sizeof(*ss));
	if (clean && sscanf(hostport, "[%45[^]]]:%5u%c", host, &port, &end) == 2 && port < 65536 &&
	    inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		*len = sizeof(*in6);
	} else if (clean && (sscanf(hostport, "%5u%c", &port, &end) == 1 ||
		    sscanf(hostport, "%15[^:]:%5u%c", host, &port, &end) == 2) && port < 65536 &&
		   inet_pton(AF_INET, strcmp(host, "localhost") ? host : "127.0.0.1",
			     &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		*len = sizeof(*in);
	} else {
		char q[LAT_ARG_MAX];

		fprintf(stderr, PFX "bad address '%s': want [HOST:]PORT, HOST an IPv4 address, "
			"localhost or [IPv6 address] (no names), PORT 1-65535\n",
			lat_term_arg(q, sizeof(q), hostport));
		return -EINVAL;
	}
	in->sin_port = htons((unsigned short)port);	/* sin6_port: the same offset */
	return 0;
}

static int listen_on(const char *hostport, struct sockaddr_storage *ss, socklen_t len)
{
	int one = 1, fd, err;
	char q[LAT_ARG_MAX];

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* a restarted latbpf must not wait out the TIME_WAIT of its last scrape */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)ss, len) || listen(fd, 32) ||
	    getsockname(fd, (struct sockaddr *)ss, &len))
		goto fail;
	return fd;
fail:
	err = errno;
	fprintf(stderr, PFX "cannot listen on %s: %s\n", lat_term_arg(q, sizeof(q), hostport),
		strerror(err));
	if (fd >= 0)
		close(fd);
	return -err;
}

/*
 * systemd's socket activation (sd_listen_fds(3)): LISTEN_PID names this
 * process and LISTEN_FDS counts the sockets passed from fd 3 on. The first
 * is served, whatever address --prometheus names. Taken once: the variables
 * go and the socket is closed on exec, so a COMMAND latbpf starts sees
 * neither. -1: none was passed; -EBADF: fd 3 is no listening TCP socket.
 */
static int listen_fd = -2;	/* -2: not looked at yet */

int lat_http_inherit(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	struct sockaddr_storage ss;
	socklen_t len = sizeof(int), slen = sizeof(ss);
	int fd = 3, type = 0, acc = 0;
	char *end;
	long p, n;

	if (listen_fd != -2)
		return listen_fd;
	listen_fd = -1;
	if (!pid || !fds)
		return -1;
	errno = 0;
	p = strtol(pid, &end, 10);
	if (errno || *end || p != getpid())
		return -1;
	n = strtol(fds, &end, 10);
	if (errno || *end || n < 1)
		return -1;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_STREAM ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) || !acc ||
	    getsockname(fd, (struct sockaddr *)&ss, &slen) ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		return listen_fd = -EBADF;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return listen_fd = fd;
}

/* The TLS files as GnuTLS reads them, before MHD does: MHD would say only
 * that TLS failed, and close a socket it was lent (a reload needs it). */
static int check_tls(const struct lat_webconfig *wc)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = { (unsigned char *)wc->cert, (unsigned)strlen(wc->cert) };
	gnutls_datum_t key = { (unsigned char *)wc->key, (unsigned)wc->key_len };
	gnutls_datum_t ca = { (unsigned char *)wc->ca, wc->ca ? (unsigned)strlen(wc->ca) : 0 };
	char q[LAT_ARG_MAX];
	int r;

	if (gtls.certificate_allocate_credentials(&cred) < 0)
		return -ENOMEM;
	lat_term_arg(q, sizeof(q), wc->path);
	r = gtls.certificate_set_x509_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
	if (r < 0)
		fprintf(stderr, "latbpf: --web-config %s: tls_server_config.cert_file, key_file: "
			"GnuTLS: %s\n", q, gtls.strerror(r));
	else if (wc->ca &&
		 (r = gtls.certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM)) <= 0)
		fprintf(stderr, "latbpf: --web-config %s: tls_server_config.client_ca_file: %s\n",
			q, r ? gtls.strerror(r) : "no PEM certificate in it");
	gtls.certificate_free_credentials(cred);
	return r < 0 || (wc->ca && r == 0) ? -EINVAL : 0;
}

/* A daemon on fd (its own from now on) with wc (NULL: plain HTTP) */
static struct server *server_start(struct lat_http *h, int fd, struct lat_webconfig *wc)
{
	struct server *s = calloc(1, sizeof(*s));
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC;
	struct MHD_OptionItem tls[5];
	char prio[96];
	sigset_t all, old;
	int n = 0;

	if (!s)
		return NULL;
	s->h = h;
	s->wc = wc;
	if (h->family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (wc && wc->tls) {
		flags |= MHD_USE_TLS;
		lat_webconfig_priorities(wc, prio, sizeof(prio));
		tls[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, wc->key };
		tls[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, wc->cert };
		if (wc->ca)
			tls[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, wc->ca };
		tls[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, prio };
	}
	tls[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	/*
	 * MHD's thread inherits this mask: signals go to the poll loop, whose
	 * waits they end. poll, not epoll: free at 16 connections, and MHD
	 * 0.9.75's epoll misses a FIN that comes with a request's bytes, which
	 * then holds a connection and a per-IP slot until the timeout.
	 * A scraper needs one connection and a few hundred bytes of request; 8
	 * of 16 connections per address leave Prometheus room when a host
	 * misbehaves. The timeout is for inactivity: 5 s is far more than an
	 * answer ready at once needs, and frees idle and half-open connections.
	 * A client trickling a byte every few seconds keeps its connection while
	 * its request fits the 16 KiB pool: the per-address limit bounds that.
	 * ITC: a reload quiesces the daemon it replaces.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, serve, s,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,	/* first: sees all */
				MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				MHD_OPTION_CONNECTION_LIMIT, 16U,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, 8U,
				MHD_OPTION_CONNECTION_TIMEOUT, 5U,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16 * 1024,
				MHD_OPTION_STRICT_FOR_CLIENT, 1,
				MHD_OPTION_URI_LOG_CALLBACK, uri_seen, s,
				MHD_OPTION_NOTIFY_COMPLETED, completed, s,
				MHD_OPTION_NOTIFY_CONNECTION, conn_event, s,
				MHD_OPTION_ARRAY, tls,
				MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->d) {
		/* fd is not closed: MHD closes it on some failure paths, not all */
		free(s);
		return NULL;
	}
	s->serving = true;
	return s;
}

static void server_stop(struct server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);	/* joins its thread; closes the socket unless quiesced */
	lat_webconfig_free(s->wc);
	free(s);
}

static int load_config(const char *path, struct lat_webconfig **wc)
{
	int err = lat_webconfig_load(path, wc);

	if (!err && (*wc)->tls && ((err = load_gnutls()) || (err = check_tls(*wc)))) {
		lat_webconfig_free(*wc);
		*wc = NULL;
	}
	return err;
}

int lat_http_start(const char *hostport, const char *web_config, struct lat_http **out,
		   struct lat_http_bound *b)
{
	struct lat_webconfig *wc = NULL;
	struct sockaddr_storage ss;
	struct lat_http *h;
	char q[LAT_ARG_MAX];
	socklen_t len;
	int fd, err;

	*out = NULL;
	memset(b, 0, sizeof(*b));
	/* the address is checked even when systemd passed the socket */
	err = parse(hostport, &ss, &len);
	if (err)
		return err;
	if ((err = load_mhd()))
		return err;
	if (web_config && (err = load_config(web_config, &wc)))
		return err;
	fd = lat_http_inherit();
	b->inherited = fd >= 0;
	if (fd == -EBADF)
		fprintf(stderr, PFX "LISTEN_FDS: fd 3 is not a listening TCP socket "
			"(systemd's socket unit: ListenStream=[HOST:]PORT)\n");
	if (fd >= 0) {
		len = sizeof(ss);
		getsockname(fd, (struct sockaddr *)&ss, &len);
		listen_fd = -1;	/* the daemon's now */
	} else if (fd == -1) {
		fd = listen_on(hostport, &ss, len);
	}
	h = fd >= 0 ? calloc(1, sizeof(*h)) : NULL;
	if (!h || pthread_mutex_init(&h->lock, NULL) ||
	    (web_config && !(h->web_config = strdup(web_config)))) {
		err = fd < 0 ? fd : -ENOMEM;
		goto fail;
	}
	h->family = ss.ss_family;
	h->fd = fd;
	h->srv = server_start(h, fd, wc);
	if (!h->srv) {
		fprintf(stderr, PFX "cannot start the HTTP server on %s\n",
			lat_term_arg(q, sizeof(q), hostport));
		pthread_mutex_destroy(&h->lock);
		free(h->web_config);
		free(h);
		lat_webconfig_free(wc);
		return -EIO;
	}
	b->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);	/* sin6_port: the same offset */
	b->tls = wc && wc->tls;
	b->users = wc ? wc->nusers : 0;
	*out = h;
	return 0;
fail:
	if (h)
		free(h->web_config);
	free(h);
	if (fd >= 0)
		close(fd);
	lat_webconfig_free(wc);
	return err;
}

/*
 * A new daemon with the reread file starts on a copy of the socket before
 * the old one stops taking connections (MHD_quiesce_daemon), so the port is
 * never closed and a file that does not load changes nothing. A scrape in
 * flight on the old daemon is cut; its scraper retries at the next one.
 */
int lat_http_reload(struct lat_http *h)
{
	struct lat_webconfig *wc = NULL;
	struct server *s;
	char q[LAT_ARG_MAX];
	int fd, err;

	if (!h || !h->web_config)
		return 0;
	lat_term_arg(q, sizeof(q), h->web_config);
	err = load_config(h->web_config, &wc);
	fd = err ? -1 : fcntl(h->fd, F_DUPFD_CLOEXEC, 3);
	if (!err && fd < 0)
		err = -errno;
	s = err ? NULL : server_start(h, fd, wc);
	if (!s) {
		/* on MHD's failure the copy may stay open: one fd, until exit */
		lat_webconfig_free(wc);
		fprintf(stderr, PFX "SIGHUP: still serving with %s as it was read before\n", q);
		return err ? err : -EIO;
	}
	MHD_quiesce_daemon(h->srv->d);
	server_stop(h->srv);
	close(h->fd);
	h->fd = fd;
	h->srv = s;
	fprintf(stderr, PFX "SIGHUP: reread %s: %s, %zu user%s\n", q,
		wc->tls ? "TLS" : "plain HTTP", wc->nusers, wc->nusers == 1 ? "" : "s");
	return 0;
}

/* A pooled body: its size before its bytes (MHD is given data) */
struct lat_body {
	size_t cap, len;
	char data[];
};

/* two: the one MHD serves and the one the next poll writes */
#define BODY_POOL 2
static pthread_mutex_t body_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lat_body *body_pool[BODY_POOL];

/* MHD's free callback too: from its thread when a client held it last */
void lat_http_body_put(void *data)
{
	struct lat_body *b;

	if (!data)
		return;
	b = (struct lat_body *)((char *)data - offsetof(struct lat_body, data));
	pthread_mutex_lock(&body_lock);
	for (int i = 0; i < BODY_POOL && b; i++)
		if (!body_pool[i]) {
			body_pool[i] = b;
			b = NULL;
		}
	pthread_mutex_unlock(&body_lock);
	free(b);
}

static ssize_t body_write(void *cookie, const char *buf, size_t n)
{
	struct lat_http_body *w = cookie;
	struct lat_body *b = w->b, *nb;
	size_t cap = b->cap;

	while (cap < b->len + n + 1)
		cap *= 2;
	if (cap != b->cap) {
		if (!(nb = realloc(b, sizeof(*b) + cap)))
			return -1;
		w->b = b = nb;
		b->cap = cap;
	}
	memcpy(b->data + b->len, buf, n);
	b->len += n;
	return (ssize_t)n;
}

int lat_http_body_open(struct lat_http_body *w)
{
	struct lat_body *b = NULL;

	pthread_mutex_lock(&body_lock);
	for (int i = 0; i < BODY_POOL && !b; i++)
		if ((b = body_pool[i]))
			body_pool[i] = NULL;
	pthread_mutex_unlock(&body_lock);
	if (!b && (b = malloc(sizeof(*b) + 4096)))
		b->cap = 4096;
	if (!b)
		return -ENOMEM;
	b->len = 0;
	w->b = b;
	w->f = fopencookie(w, "w", (cookie_io_functions_t){ .write = body_write });
	if (!w->f) {
		lat_http_body_put(b->data);
		w->b = NULL;
		return -ENOMEM;
	}
	return 0;
}

char *lat_http_body_close(struct lat_http_body *w, size_t *len)
{
	/* a chunk the stream could not write is dropped and the stream
	 * marked (ferror); fclose says only its own last flush */
	bool bad = ferror(w->f);

	bad |= fclose(w->f) != 0;

	w->f = NULL;
	if (bad) {
		lat_http_body_put(w->b->data);
		w->b = NULL;
		return NULL;
	}
	w->b->data[w->b->len] = '\0';
	*len = w->b->len;
	return w->b->data;
}

void lat_http_publish(struct lat_http *h, char *body, size_t len)
{
	struct MHD_Response *r, *old;

	r = h ? MHD_create_response_from_buffer_with_free_callback(len, body,
								  lat_http_body_put) : NULL;
	if (!r) {
		lat_http_body_put(body);	/* scrapers keep the previous body */
		return;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    "text/plain; version=0.0.4; charset=utf-8") != MHD_YES) {
		MHD_destroy_response(r);
		return;
	}
	pthread_mutex_lock(&h->lock);
	old = h->cur;
	h->cur = r;
	pthread_mutex_unlock(&h->lock);
	/* freed now, or by MHD when the last client still sending it is done */
	if (old)
		MHD_destroy_response(old);
}

void lat_http_stats(struct lat_http *h, struct lat_http_stats *s)
{
	*s = h ? (struct lat_http_stats){ h->ok, h->client_errors, h->dropped } :
		 (struct lat_http_stats){ 0 };
}

void lat_http_stop(struct lat_http *h)
{
	if (!h)
		return;
	server_stop(h->srv);
	if (h->cur)
		MHD_destroy_response(h->cur);
	pthread_mutex_lock(&body_lock);
	for (int i = 0; i < BODY_POOL; i++) {
		free(body_pool[i]);
		body_pool[i] = NULL;
	}
	pthread_mutex_unlock(&body_lock);
	pthread_mutex_destroy(&h->lock);
	free(h->web_config);
	free(h);
}

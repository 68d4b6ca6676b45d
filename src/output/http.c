// SPDX-License-Identifier: GPL-2.0
/*
 * The --prometheus endpoint. A publish swaps in a new MHD response under a
 * mutex held for a pointer's worth of work; MHD counts references to
 * responses, so a client still reading an older body keeps it alive and the
 * poll loop never waits for any client.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "output/http.h"
#include "core/escape.h"

#define PFX "latbpf: --prometheus: "

/*
 * libmicrohttpd is opened only when --prometheus asks for it: linked, it
 * brings Debian's gnutls and nine more libraries into every run, 2.6 MiB of
 * RSS for a loader that must stay small. The calls below go through these
 * pointers, with the library's own prototypes.
 */
static struct {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_get_connection_info) get_connection_info;
} mhd;
#define MHD_start_daemon (*mhd.start_daemon)
#define MHD_stop_daemon (*mhd.stop_daemon)
#define MHD_create_response_from_buffer (*mhd.create_response_from_buffer)
#define MHD_add_response_header (*mhd.add_response_header)
#define MHD_queue_response (*mhd.queue_response)
#define MHD_destroy_response (*mhd.destroy_response)
#define MHD_lookup_connection_value (*mhd.lookup_connection_value)
#define MHD_get_connection_info (*mhd.get_connection_info)

static int load_mhd(void)
{
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_create_response_from_buffer",
		"MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
		"MHD_lookup_connection_value", "MHD_get_connection_info",
	};
	void **fn = (void **)&mhd, *lib;
	size_t i;

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
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fn[i] = dlsym(lib, names[i]);
		if (!fn[i]) {
			fprintf(stderr, PFX "libmicrohttpd has no %s\n", names[i]);
			memset(&mhd, 0, sizeof(mhd));
			return -ENOENT;	/* the library stays loaded: harmless */
		}
	}
	return 0;
}

struct lat_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;		/* guards cur: a swap or a queue, nothing more */
	struct MHD_Response *cur;	/* the latest body; NULL before the first */
	_Atomic bool serving;
	_Atomic unsigned long long ok, client_errors, dropped;
};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct lat_http *h = cls;

	/* a connection refused at a limit is reported only here */
	if (strstr(fmt, "connection limit"))
		h->dropped++;
	/* once serving, what MHD says is about clients: not for the terminal */
	else if (!h->serving) {
		fputs(PFX, stderr);
		vfprintf(stderr, fmt, ap);
	}
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *c, const char *url,
			     const char *method, const char *version,
			     const char *upload, size_t *upload_size, void **req)
{
	struct lat_http *h = cls;
	enum MHD_Result ret;
	const char *len;
	bool have;

	/* First call, headers only: an answer now makes MHD close without reading
	 * a body (no scrape has one); a good request, answered on the second call,
	 * keeps its connection. */
	if (!*req) {
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
	struct lat_http *h = cls;
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
 * A connection closed before any request on it completed was idle, half-open,
 * slow, or sent no readable request line. Its socket context points at itself
 * until completed() clears it through that address: a mark with no allocation.
 */
static void conn_event(void *cls, struct MHD_Connection *c, void **sock,
		       enum MHD_ConnectionNotificationCode ev)
{
	if (ev == MHD_CONNECTION_NOTIFY_STARTED)
		*sock = sock;
	else if (*sock)
		((struct lat_http *)cls)->dropped++;
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

static int listen_on(const char *hostport, struct sockaddr_storage *ss, unsigned *port)
{
	int one = 1, fd, err;
	char q[LAT_ARG_MAX];
	socklen_t len;

	err = parse(hostport, ss, &len);
	if (err)
		return err;
	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* a restarted latbpf must not wait out the TIME_WAIT of its last scrape */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)ss, len) || listen(fd, 32) ||
	    getsockname(fd, (struct sockaddr *)ss, &len))
		goto fail;
	*port = ntohs(((struct sockaddr_in *)ss)->sin_port);
	return fd;
fail:
	err = errno;
	fprintf(stderr, PFX "cannot listen on %s: %s\n", lat_term_arg(q, sizeof(q), hostport),
		strerror(err));
	if (fd >= 0)
		close(fd);
	return -err;
}

int lat_http_start(const char *hostport, struct lat_http **out, unsigned *port_out)
{
	struct sockaddr_storage ss;
	struct lat_http *h;
	sigset_t all, old;
	char q[LAT_ARG_MAX];
	int fd, err;

	*out = NULL;
	fd = listen_on(hostport, &ss, port_out);
	if (fd < 0)
		return fd;
	if ((err = load_mhd())) {
		close(fd);
		return err;
	}
	h = calloc(1, sizeof(*h));
	if (!h || pthread_mutex_init(&h->lock, NULL)) {
		free(h);
		close(fd);
		return -ENOMEM;
	}
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
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	h->d = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
				(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, serve, h,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,	/* first: sees all */
				MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				MHD_OPTION_CONNECTION_LIMIT, 16U,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, 8U,
				MHD_OPTION_CONNECTION_TIMEOUT, 5U,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16 * 1024,
				MHD_OPTION_STRICT_FOR_CLIENT, 1,
				MHD_OPTION_URI_LOG_CALLBACK, uri_seen, h,
				MHD_OPTION_NOTIFY_COMPLETED, completed, h,
				MHD_OPTION_NOTIFY_CONNECTION, conn_event, h,
				MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->d) {
		/* fd is not closed: MHD closes it on some failure paths, not all */
		fprintf(stderr, PFX "cannot start the HTTP server on %s\n",
			lat_term_arg(q, sizeof(q), hostport));
		pthread_mutex_destroy(&h->lock);
		free(h);
		return -EIO;
	}
	h->serving = true;
	*out = h;
	return 0;
}

void lat_http_publish(struct lat_http *h, char *body, size_t len)
{
	struct MHD_Response *r, *old;

	r = h ? MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE) : NULL;
	if (!r) {
		free(body);	/* scrapers keep the previous body */
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
	MHD_stop_daemon(h->d);	/* joins its thread, closes the listening socket */
	if (h->cur)
		MHD_destroy_response(h->cur);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

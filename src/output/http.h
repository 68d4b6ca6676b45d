/* SPDX-License-Identifier: GPL-2.0 */
/* The HTTP server of --prometheus: libmicrohttpd, its own thread (http.c). */
#ifndef LATBPF_OUTPUT_HTTP_H
#define LATBPF_OUTPUT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The --prometheus endpoint: GET /metrics served by libmicrohttpd from its
 * own thread. The poll loop publishes each rendered body and never waits
 * for a client; before the first publish /metrics answers 503.
 */
struct lat_http;

/*
 * "[HOST:]PORT": HOST an IPv4 literal, "localhost" or a bracketed IPv6
 * literal ("[::1]"), 127.0.0.1 when left out; PORT 1..65535, or 0 for any
 * free port (tests). No name lookups. Started by systemd's socket
 * activation (LISTEN_PID is this process), it serves the socket it was
 * given instead, once the address is checked. web_config: --web-config
 * FILE (webconfig.h), or NULL. Errors are printed, prefixed "latbpf:
 * --prometheus: " (or "latbpf: --web-config FILE: "): -EINVAL for a bad
 * address or web config, -errno when it cannot serve.
 */
struct lat_http_bound {
	unsigned port;		/* where it listens */
	bool inherited;		/* a socket systemd passed */
	bool tls;
	size_t users;		/* basic auth's */
};
int lat_http_start(const char *hostport, const char *web_config, struct lat_http **out,
		   struct lat_http_bound *b);

/*
 * The socket systemd passed (LISTEN_PID, LISTEN_FDS), taken early so that
 * a COMMAND forked before the endpoint starts does not inherit it: its fd,
 * -1 when none was passed, -EBADF when fd 3 is no listening TCP socket.
 * lat_http_start() calls it too; the second call answers as the first.
 */
int lat_http_inherit(void);

/*
 * Reads the web config again (SIGHUP) and serves with it from the next
 * connection on; a file that does not load is said and changes nothing
 * (-EINVAL). Without --web-config, nothing to do: 0.
 */
int lat_http_reload(struct lat_http *h);

/*
 * Bodies for lat_http_publish. A poll's exposition is hundreds of KiB, and
 * a block that large is mmap'd (src/cli/trace.c's mallopt): a fresh one
 * at every poll cost an mmap, a page fault a page and a munmap whose TLB
 * flush waits for the other CPUs, kernel work a target woken on latbpf's
 * CPU waits behind. So a body MHD is done with goes back to a small pool,
 * and the next poll writes into it. lat_http_body_open: a stream (w->f, 0
 * or -ENOMEM) writing into a pooled body; lat_http_body_close: the body
 * (NULL on an error of the stream's, which is closed either way) and its
 * length.
 */
struct lat_http_body {
	FILE *f;		/* write the body here */
	struct lat_body *b;	/* http.c's */
};
int lat_http_body_open(struct lat_http_body *w);
char *lat_http_body_close(struct lat_http_body *w, size_t *len);
/* a body not published: back to the pool */
void lat_http_body_put(void *body);

/* Takes ownership of body (lat_http_body_close's, or NULL when len is 0). */
void lat_http_publish(struct lat_http *h, char *body, size_t len);

/*
 * ok: requests answered as meant: 200, or 503 before the first publish.
 * client_errors: requests answered 4xx, by us (401 without the password,
 * 404, 405, a request body) or by MHD (no Host, a bad or oversized header).
 * dropped: connections refused at the connection or per-IP limit, and
 * connections or requests ended by a timeout, a reset, a failed TLS
 * handshake or an error before a complete answer. MHD reports a request
 * line it cannot parse (garbage,
 * a 64 KiB URL, HTTP/9.9) only as a closed connection: dropped too, even
 * when it did answer 400, 414 or 505.
 */
struct lat_http_stats {
	unsigned long long ok, client_errors, dropped;
};
void lat_http_stats(struct lat_http *h, struct lat_http_stats *s);

void lat_http_stop(struct lat_http *h);	/* NULL is fine */

#endif

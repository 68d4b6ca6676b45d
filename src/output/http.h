/* SPDX-License-Identifier: GPL-2.0 */
/* The HTTP server of --prometheus: libmicrohttpd, its own thread (http.c). */
#ifndef LATBPF_OUTPUT_HTTP_H
#define LATBPF_OUTPUT_HTTP_H

#include <stddef.h>

/*
 * The --prometheus endpoint: GET /metrics served by libmicrohttpd from its
 * own thread. The poll loop publishes each rendered body and never waits
 * for a client; before the first publish /metrics answers 503.
 */
struct lat_http;

/*
 * "[HOST:]PORT": HOST an IPv4 literal, "localhost" or a bracketed IPv6
 * literal ("[::1]"), 127.0.0.1 when left out; PORT 1..65535, or 0 for any
 * free port (tests). No name lookups. Errors are printed, prefixed
 * "latbpf: --prometheus: ": -EINVAL for a bad address, -errno when it
 * cannot listen. *port_out gets the bound port.
 */
int lat_http_start(const char *hostport, struct lat_http **out, unsigned *port_out);

/* Takes ownership of body (malloc'd, or NULL when len is 0). */
void lat_http_publish(struct lat_http *h, char *body, size_t len);

/*
 * ok: requests answered as meant: 200, or 503 before the first publish.
 * client_errors: requests answered 4xx, by us (404, 405, a request body)
 * or by MHD (no Host, a bad or oversized header).
 * dropped: connections refused at the connection or per-IP limit, and
 * connections or requests ended by a timeout, a reset or an error before
 * a complete answer. MHD reports a request line it cannot parse (garbage,
 * a 64 KiB URL, HTTP/9.9) only as a closed connection: dropped too, even
 * when it did answer 400, 414 or 505.
 */
struct lat_http_stats {
	unsigned long long ok, client_errors, dropped;
};
void lat_http_stats(struct lat_http *h, struct lat_http_stats *s);

void lat_http_stop(struct lat_http *h);	/* NULL is fine */

#endif

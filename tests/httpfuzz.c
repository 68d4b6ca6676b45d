// SPDX-License-Identifier: GPL-2.0
/*
 * Abuse client for the --prometheus endpoint: malformed, oversized,
 * slow-loris, half-open, pipelined, binary-garbage, wrong-method and valid
 * requests, in turn, from a few threads, for at most --seconds. Every
 * socket has timeouts, so the run is bounded whatever the server does. It
 * talks to 127.0.0.0/8 only and says so if given anything else.
 *
 * httpfuzz --port PORT [--host 127.0.0.1] [--requests N] [--seconds S] [--threads T]
 *          [--kinds valid,malformed,...]   (default: all, in turn)
 *
 * Prints one line: what was sent by kind, then what came back: each HTTP
 * status seen (sNNN=count), and connections closed without an answer,
 * reset, timed out, or that failed to connect. "valid_failed" counts valid
 * requests that got anything but 200; "idle_closed" idle half-open
 * connections the server closed on its own timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum kind { VALID, MALFORMED, OVERSIZED, SLOWLORIS, HALFOPEN, PIPELINED, GARBAGE, METHOD, KINDS };
static const char *const kind_name[KINDS] = {
	"valid", "malformed", "oversized", "slowloris",
	"halfopen", "pipelined", "garbage", "method",
};

/* Outcomes other than a status: negative so they never look like one */
enum { R_CLOSED = -1, R_RESET = -2, R_TIMEOUT = -3, R_BAD = -4, R_CONNECT = -5, R_GONE = -6 };

struct tally {
	unsigned long kind[KINDS], status[600];
	unsigned long closed, reset, timeout, bad, connect_failed, gone, valid_failed, idle_closed;
};

struct worker {
	pthread_t thread;
	unsigned long long rng;
	struct tally t;
};

static struct sockaddr_in target;
static long long deadline_ns;
static unsigned long n_requests = 1000;
static atomic_ulong next_request;
static enum kind chosen[KINDS];
static int n_chosen;

#define S(s) { s, sizeof(s) - 1 }
static const struct { const char *s; size_t n; } malformed[] = {
	S("GET\r\n\r\n"),
	S("GET /metrics\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\n\r\n"),			/* no Host */
	S("GET /metrics HTTP/9.9\r\nHost: l\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nBad Header\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\n: novalue\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nContent-Length: -1\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"
	  "hello"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\n Folded: x\r\n\r\n"),
	S("GET /metrics HTTP/1.1\nHost: l\n\n"),
	S("GET /met rics HTTP/1.1\r\nHost: l\r\n\r\n"),
	S("GET http://x/metrics HTTP/1.1\r\nHost: l\r\n\r\n"),
	S("GET /%zz%00%ff HTTP/1.1\r\nHost: l\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nX: a\0b\x01\x7f\r\n\r\n"),
	S("\r\n\r\n\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n"),
	S("GET /metrics HTTP/1.1\r\nHost: l\r\nHost: m\r\n\r\n"),
	S("GET /metrics?a=%%%&b HTTP/1.1\r\nHost: l\r\n\r\n"),
	S("G\x80T /metrics HTTP/1.1\r\nHost: l\r\n\r\n"),
};
static const char *const methods[] = {
	"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "BREW", "get", "PROPFIND",
};
static const char valid_req[] = "GET /metrics HTTP/1.1\r\nHost: l\r\n\r\n";

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static unsigned rnd(struct worker *w, unsigned n)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (unsigned)(w->rng % n);
}

static void set_timeout(int fd, long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A connected socket with 500 ms send and receive timeouts, or -1: the server
 * answers on loopback within a millisecond unless it waits for more input */
static int dial(void)
{
	struct pollfd p;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int err = 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -1;
	/* a server at its connection limit leaves SYNs in the backlog: bound the wait */
	if (connect(fd, (struct sockaddr *)&target, sizeof(target)) && errno != EINPROGRESS)
		goto fail;
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, 1000) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
		goto fail;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		goto fail;
	set_timeout(fd, 500);
	return fd;
fail:
	close(fd);
	return -1;
}

static int outcome_of_errno(void)
{
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINPROGRESS)
		return R_TIMEOUT;
	return R_RESET;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return outcome_of_errno();
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

struct reader {
	int fd;
	size_t len;
	char buf[16384 + 1];
};

static int fill(struct reader *r)
{
	ssize_t n;

	if (r->len == sizeof(r->buf) - 1)
		return R_BAD;
	do
		n = recv(r->fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len, 0);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return R_CLOSED;
	if (n < 0)
		return outcome_of_errno();
	r->len += (size_t)n;
	return 0;
}

/* The next response's status, its body read and dropped; or why there was none */
static int response(struct reader *r, bool head)
{
	unsigned long long body = 0;
	char *end, *cl;
	int status, err;
	size_t hdr;

	for (;;) {
		r->buf[r->len] = '\0';
		end = memmem(r->buf, r->len, "\r\n\r\n", 4);
		if (end)
			break;
		err = fill(r);
		if (err)
			return err == R_CLOSED && r->len ? R_BAD : err;
	}
	*end = '\0';
	if (sscanf(r->buf, "HTTP/1.%*d %d", &status) != 1 || status < 100 || status > 599)
		return R_BAD;
	cl = strcasestr(r->buf, "\r\nContent-Length:");
	if (cl && !head && status >= 200 && status != 204 && status != 304)
		body = strtoull(cl + 17, NULL, 10);
	hdr = (size_t)(end + 4 - r->buf);
	memmove(r->buf, r->buf + hdr, r->len - hdr);
	r->len -= hdr;
	while (body) {
		size_t take = body < r->len ? (size_t)body : r->len;

		memmove(r->buf, r->buf + take, r->len - take);
		r->len -= take;
		body -= take;
		if (body && (err = fill(r)))
			return err;
	}
	return status;
}

static void record(struct tally *t, int o)
{
	if (o >= 100 && o < 600)
		t->status[o]++;
	else if (o == R_CLOSED)
		t->closed++;
	else if (o == R_RESET)
		t->reset++;
	else if (o == R_TIMEOUT)
		t->timeout++;
	else if (o == R_CONNECT)
		t->connect_failed++;
	else if (o == R_GONE)
		t->gone++;
	else
		t->bad++;
}

/* Send, then read one answer; a send cut short may still have one waiting */
static int exchange(int fd, const char *req, size_t n, bool head)
{
	struct reader *r = malloc(sizeof(*r));
	int o, s = send_all(fd, req, n);

	if (!r)
		return R_BAD;
	r->fd = fd;
	r->len = 0;
	o = response(r, head);
	free(r);
	return o < 100 && s ? s : o;
}

static int big_request(struct worker *w, int fd)
{
	size_t n = 0, cap = (1 << 20) + 256;
	char *b = malloc(cap);
	int i, o, v = rnd(w, 4);

	if (!b)
		return R_BAD;
	if (v == 0 || v == 1) {		/* one 1 MiB or 100 KiB header */
		size_t big = v ? 100 << 10 : 1 << 20;

		n = (size_t)sprintf(b, "GET /metrics HTTP/1.1\r\nHost: l\r\nX-Big: ");
		memset(b + n, 'a', big);
		n += big;
	} else if (v == 2) {		/* a 64 KiB URL */
		n = (size_t)sprintf(b, "GET /metrics?");
		memset(b + n, 'q', 64 << 10);
		n += 64 << 10;
		n += (size_t)sprintf(b + n, " HTTP/1.1\r\nHost: l");
	} else {			/* 4000 small headers */
		n = (size_t)sprintf(b, "GET /metrics HTTP/1.1\r\nHost: l");
		for (i = 0; i < 4000; i++)
			n += (size_t)sprintf(b + n, "\r\nX-%d: v", i);
	}
	n += (size_t)sprintf(b + n, "\r\n\r\n");
	o = exchange(fd, b, n, false);
	free(b);
	return o;
}

static int slowloris(struct worker *w, int fd)
{
	static const char hdr[] = "X-Slow: still-coming\r\n";
	size_t i, n;

	if (rnd(w, 50)) {	/* a valid request, one to three bytes at a time */
		for (i = 0; i < sizeof(valid_req) - 1; i += n) {
			n = 1 + rnd(w, 3);
			if (n > sizeof(valid_req) - 1 - i)
				n = sizeof(valid_req) - 1 - i;
			if (send_all(fd, valid_req + i, n))
				return R_RESET;
			sleep_ms(1);
		}
		return exchange(fd, "", 0, false);
	}
	/* headers that never end, for half a second */
	if (send_all(fd, valid_req, 31))
		return R_RESET;
	for (i = 0; i < 50 && now_ns() < deadline_ns; i++) {
		if (send_all(fd, hdr + i % (sizeof(hdr) - 1), 1))
			return R_RESET;
		sleep_ms(10);
	}
	return R_GONE;
}

static int halfopen(struct worker *w, int fd)
{
	long long t0;
	int o;

	switch (rnd(w, 100) % 4) {
	case 0:				/* half a request, then gone */
		send_all(fd, valid_req, 15);
		return R_GONE;
	case 1:				/* connect, then gone */
		return R_GONE;
	case 2:				/* half a request, then our half closed */
		send_all(fd, valid_req, 15);
		shutdown(fd, SHUT_WR);
		return exchange(fd, "", 0, false);
	}
	if (rnd(w, 100))
		return R_GONE;
	/* rarely (each costs the server's timeout): idle until the server gives up */
	send_all(fd, valid_req, 15);
	set_timeout(fd, 8000);
	t0 = now_ns();
	o = exchange(fd, "", 0, false);
	/* sooner would be a refusal at a limit, not the timeout */
	t0 = now_ns() - t0;
	if ((o == R_CLOSED || o == R_RESET || (o >= 400 && o < 500)) &&
	    t0 > 3000000000LL && t0 < 7000000000LL)
		w->t.idle_closed++;
	return o;
}

static int pipelined(struct worker *w, int fd)
{
	static const char *const reqs[] = {
		"GET /metrics HTTP/1.1\r\nHost: l\r\n\r\n",
		"HEAD /metrics HTTP/1.1\r\nHost: l\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: l\r\n\r\n", "GET /nope HTTP/1.1\r\nHost: l\r\n\r\n",
	};
	struct reader *r = malloc(sizeof(*r));
	bool head[8];
	char buf[512] = "";
	int i, k = 2 + (int)rnd(w, 7), o = 0;
	size_t n = 0;

	if (!r)
		return R_BAD;
	for (i = 0; i < k; i++) {
		int j = (int)rnd(w, 4);

		head[i] = j == 1;
		n += (size_t)sprintf(buf + n, "%s", reqs[j]);
	}
	o = send_all(fd, buf, n);
	r->fd = fd;
	r->len = 0;
	/* all but the last answer are recorded here, the last one by the caller */
	for (i = 0; !o && i < k; i++) {
		o = response(r, head[i]);
		if (o < 100 || i == k - 1)
			break;
		record(&w->t, o);
		o = 0;
	}
	free(r);
	return o;
}

static int garbage(struct worker *w, int fd)
{
	char b[2052];
	size_t i, n = 1 + rnd(w, 2048);

	for (i = 0; i < n; i++)
		b[i] = (char)rnd(w, 256);
	if (rnd(w, 4)) {	/* without an end, the server waits: a timeout here */
		memcpy(b + n, "\r\n\r\n", 4);
		n += 4;
	}
	return exchange(fd, b, n, false);
}

static int method(struct worker *w, int fd)
{
	char b[256];
	int n = snprintf(b, sizeof(b), "%s /metrics HTTP/1.1\r\nHost: l\r\n%s",
			 methods[rnd(w, sizeof(methods) / sizeof(methods[0]))],
			 rnd(w, 2) ? "Content-Length: 5\r\n\r\nhello" : "\r\n");

	return exchange(fd, b, (size_t)n, false);
}

static void one(struct worker *w, enum kind k)
{
	int fd = dial(), o, m;

	w->t.kind[k]++;
	if (fd < 0) {
		record(&w->t, R_CONNECT);
		if (k == VALID)
			w->t.valid_failed++;
		return;
	}
	switch (k) {
	case VALID:
		o = exchange(fd, valid_req, sizeof(valid_req) - 1, false);
		if (o != 200)
			w->t.valid_failed++;
		break;
	case MALFORMED:
		m = (int)rnd(w, sizeof(malformed) / sizeof(malformed[0]));
		o = exchange(fd, malformed[m].s, malformed[m].n, false);
		break;
	case OVERSIZED:
		o = big_request(w, fd);
		break;
	case SLOWLORIS:
		o = slowloris(w, fd);
		break;
	case HALFOPEN:
		o = halfopen(w, fd);
		break;
	case PIPELINED:
		o = pipelined(w, fd);
		break;
	case GARBAGE:
		o = garbage(w, fd);
		break;
	default:
		o = method(w, fd);
		break;
	}
	record(&w->t, o);
	close(fd);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned long i;

	while (now_ns() < deadline_ns &&
	       (i = atomic_fetch_add(&next_request, 1)) < n_requests)
		one(w, chosen[i % (unsigned long)n_chosen]);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1", *kinds = NULL;
	long port = -1, threads = 4, i, k;
	double seconds = 60;
	struct worker *w;
	struct tally t = { 0 };
	long long start;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--host"))
			host = argv[i + 1];
		else if (!strcmp(argv[i], "--port"))
			port = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--requests"))
			n_requests = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--threads"))
			threads = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--kinds"))
			kinds = argv[i + 1];
		else
			break;
	}
	if (i != argc || port < 1 || port > 65535 || seconds <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: httpfuzz --port PORT [--host 127.0.0.1] [--requests N] "
			"[--seconds S] [--threads T] [--kinds K,K...]\n");
		return 2;
	}
	for (k = 0; k < KINDS; k++) {
		const char *p = kinds ? strstr(kinds, kind_name[k]) : NULL;
		size_t len = strlen(kind_name[k]);

		if (!kinds || (p && (p == kinds || p[-1] == ',') && (!p[len] || p[len] == ',')))
			chosen[n_chosen++] = (enum kind)k;
	}
	if (!n_chosen) {
		fprintf(stderr, "httpfuzz: --kinds: none of valid,malformed,oversized,slowloris,"
			"halfopen,pipelined,garbage,method\n");
		return 2;
	}
	target.sin_family = AF_INET;
	target.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, host, &target.sin_addr) != 1 ||
	    (ntohl(target.sin_addr.s_addr) >> 24) != 127) {
		fprintf(stderr, "httpfuzz: '%s': only loopback IPv4 (127.0.0.0/8) is a target\n",
			host);
		return 2;
	}
	w = calloc((size_t)threads, sizeof(*w));
	if (!w)
		return 1;
	start = now_ns();
	deadline_ns = start + (long long)(seconds * 1e9);
	for (i = 0; i < threads; i++) {
		/* a seed per thread and run; xorshift must not start at 0 */
		w[i].rng = (0x9e3779b97f4a7c15ULL * (unsigned long long)(i + 1) ^
			    (unsigned long long)start) | 1;
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			fprintf(stderr, "httpfuzz: cannot start a thread\n");
			return 1;
		}
	}
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		for (k = 0; k < KINDS; k++)
			t.kind[k] += w[i].t.kind[k];
		for (k = 0; k < 600; k++)
			t.status[k] += w[i].t.status[k];
		t.closed += w[i].t.closed;
		t.reset += w[i].t.reset;
		t.timeout += w[i].t.timeout;
		t.bad += w[i].t.bad;
		t.connect_failed += w[i].t.connect_failed;
		t.gone += w[i].t.gone;
		t.valid_failed += w[i].t.valid_failed;
		t.idle_closed += w[i].t.idle_closed;
	}
	for (k = 0, i = 0; k < KINDS; k++)
		i += (long)t.kind[k];
	printf("httpfuzz requests=%ld elapsed_s=%.1f", i, (now_ns() - start) / 1e9);
	for (k = 0; k < KINDS; k++)
		printf(" %s=%lu", kind_name[k], t.kind[k]);
	for (k = 0; k < 600; k++)
		if (t.status[k])
			printf(" s%ld=%lu", k, t.status[k]);
	printf(" closed=%lu reset=%lu timeout=%lu bad_response=%lu connect_failed=%lu gone=%lu "
	       "valid_failed=%lu idle_closed=%lu\n", t.closed, t.reset, t.timeout, t.bad,
	       t.connect_failed, t.gone, t.valid_failed, t.idle_closed);
	free(w);
	return 0;
}

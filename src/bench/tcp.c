// SPDX-License-Identifier: GPL-2.0
/*
 * TCP over 127.0.0.1, client and server threads on the same core (loopback
 * has two regimes here: one core, or a cross-core wakeup each way; one core
 * is the steadier). Round trip: one byte each way on a connected pair with
 * TCP_NODELAY. Connect: connect() to a listener whose thread accepts and
 * closes, then close(), each also timed alone. Bandwidth: a sender writes to
 * a receiver that reads and discards, on two cores when there are two.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "bench/benchmarks.h"
#include "bench/result.h"

enum srv_mode { SRV_CLOSE, SRV_ECHO, SRV_SINK };

struct srv {
	int lfd, cpu;
	enum srv_mode mode;	/* accept and close, echo, or read and discard */
};

#define BW_CHUNK (128 * 1024)	/* one write() */
#define BW_BLOCK (1024 * 1024)	/* one timed block */

static int listener(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa->sin_port = 0;
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) || listen(fd, 1024) ||
	    getsockname(fd, (struct sockaddr *)sa, &len)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void *server(void *arg)
{
	struct srv *s = arg;
	char *buf = s->mode == SRV_SINK ? malloc(BW_CHUNK) : NULL;
	int one = 1, fd;
	char b;

	lat_bench_pin(s->cpu);
	while ((fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		if (s->mode == SRV_ECHO) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			while (read(fd, &b, 1) == 1)
				if (write(fd, &b, 1) != 1)
					break;
		} else if (s->mode == SRV_SINK && buf) {
			while (read(fd, buf, BW_CHUNK) > 0)
				;
		}
		close(fd);
	}
	free(buf);
	return NULL;	/* the listener was shut down */
}

static int start(struct srv *s, struct sockaddr_in *sa, pthread_t *th)
{
	int err;

	s->lfd = listener(sa);
	if (s->lfd < 0)
		return s->lfd;
	err = pthread_create(th, NULL, server, s);
	if (err) {
		close(s->lfd);
		return -err;
	}
	return 0;
}

static void stop(struct srv *s, pthread_t th)
{
	shutdown(s->lfd, SHUT_RDWR);	/* wakes accept() */
	pthread_join(th, NULL);
	close(s->lfd);
}

int lat_bench_tcp_rtt(struct lat_bctx *c)
{
	struct srv s = { .cpu = c->cpu, .mode = SRV_ECHO };
	struct sockaddr_in sa;
	struct lat_bres *r;
	int one = 1, fd, err;
	__u64 i, a;
	pthread_t th;
	char b = 1;

	lat_bench_pin(c->cpu);
	r = lat_bres_new(c, "tcp_rtt", "1 byte to an echo server and back over 127.0.0.1, "
			 "TCP_NODELAY, both threads on one core", 1);
	err = start(&s, &sa, &th);
	if (err)
		return err;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		goto out;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; !lat_bench_over(c, i, 200000 + 100); i++) {
		a = lat_tick_begin();
		if (write(fd, &b, 1) != 1 || read(fd, &b, 1) != 1) {
			err = -EIO;
			break;
		}
		if (i >= 100)	/* past slow start and the first wakeups */
			lat_bres_add(r, lat_tick_end() - a);
	}
out:
	if (fd >= 0)
		close(fd);
	stop(&s, th);
	return err;
}

int lat_bench_tcp_connect(struct lat_bctx *c)
{
	struct srv s = { .cpu = c->cpu, .mode = SRV_CLOSE };
	struct lat_bres *r, *up, *down;
	struct sockaddr_in sa;
	int fd, err;
	__u64 i, a, b, t, e;
	pthread_t th;

	lat_bench_pin(c->cpu);
	r = lat_bres_new(c, "tcp_connect", "connect() to a listener on 127.0.0.1 that "
			 "accepts and closes, then close(); both threads on one core", 1);
	up = lat_bres_new(c, "tcp_setup", "the connect() of tcp_connect alone: the "
			  "handshake, to the listener's queue", 1);
	down = lat_bres_new(c, "tcp_teardown", "the close() of tcp_connect alone: "
			    "the FIN sent, the socket released", 1);
	err = start(&s, &sa, &th);
	if (err)
		return err;
	/* few enough that ephemeral ports in TIME_WAIT never run out */
	for (i = 0; !lat_bench_over(c, i, 20000); i++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err = -errno;
			break;
		}
		a = lat_tick_begin();
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			err = -errno;
			close(fd);
			break;
		}
		b = lat_tick_end();
		lat_bres_add(up, b - a);
		t = lat_tick_begin();
		close(fd);
		e = lat_tick_end();
		lat_bres_add(down, e - t);
		lat_bres_add(r, e - a);
	}
	stop(&s, th);
	return err;
}

/* The other core for the receiver: the first chosen one that is not the
 * sender's, or the sender's own on one core */
static int other_cpu(const struct lat_bctx *c)
{
	for (int i = 0; i < c->ncpus; i++)
		if (c->cpus[i] != c->cpu)
			return c->cpus[i];
	return c->cpu;
}

int lat_bench_tcp_bw(struct lat_bctx *c)
{
	struct srv s = { .cpu = other_cpu(c), .mode = SRV_SINK };
	char *buf = malloc(BW_CHUNK);
	__u64 i, a, t0 = 0, bytes = 0;
	struct sockaddr_in sa;
	struct lat_bres *r;
	static char method[160];
	int fd = -1, err;
	pthread_t th;

	if (!buf)
		return -ENOMEM;
	memset(buf, 0x5a, BW_CHUNK);
	lat_bench_pin(c->cpu);
	snprintf(method, sizeof(method), "write() of 128 KiB at a time to a reader that "
		 "discards, over 127.0.0.1; sender on cpu %d, reader on cpu %d; "
		 "1 MiB timed blocks", c->cpu, s.cpu);
	r = lat_bres_new(c, "tcp_bw", method, 1);
	err = start(&s, &sa, &th);
	if (err) {
		free(buf);
		return err;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		goto out;
	}
	/* the first 16 blocks grow the window and are not counted */
	for (i = 0; !lat_bench_over(c, i, 1000000 + 16); i++) {
		size_t done = 0;
		ssize_t n;

		if (i == 16)
			t0 = lat_now_ns();
		a = lat_tick_begin();
		while (done < BW_BLOCK) {
			n = write(fd, buf, BW_BLOCK - done < BW_CHUNK ? BW_BLOCK - done : BW_CHUNK);
			if (n <= 0) {
				err = n < 0 ? -errno : -EIO;
				goto out;
			}
			done += (size_t)n;
		}
		if (i >= 16) {
			lat_bres_add_block(r, lat_tick_end() - a, BW_BLOCK);
			bytes += BW_BLOCK;
		}
	}
	if (t0 && lat_now_ns() > t0)
		r->total_mb_s = (double)bytes * 1000.0 / (double)(lat_now_ns() - t0);
out:
	if (fd >= 0)
		close(fd);
	stop(&s, th);
	free(buf);
	return err;
}

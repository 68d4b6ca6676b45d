// SPDX-License-Identifier: GPL-2.0
/*
 * TCP over 127.0.0.1, client and server threads on the same core (loopback
 * has two regimes here: one core, or a cross-core wakeup each way; one core
 * is the steadier). Round trip: one byte each way on a connected pair with
 * TCP_NODELAY. Connect: connect() to a listener whose thread accepts and
 * closes, then close().
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "bench/bench.h"

struct srv {
	int lfd, cpu;
	bool echo;		/* echo one connection, or accept and close */
};

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
	int one = 1, fd;
	char b;

	lat_bench_pin(s->cpu);
	while ((fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		if (s->echo) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			while (read(fd, &b, 1) == 1)
				if (write(fd, &b, 1) != 1)
					break;
		}
		close(fd);
	}
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
	struct srv s = { .cpu = c->cpu, .echo = true };
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
	struct srv s = { .cpu = c->cpu };
	struct sockaddr_in sa;
	struct lat_bres *r;
	int fd, err;
	__u64 i, a;
	pthread_t th;

	lat_bench_pin(c->cpu);
	r = lat_bres_new(c, "tcp_connect", "connect() to a listener on 127.0.0.1 that "
			 "accepts and closes, then close(); both threads on one core", 1);
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
		close(fd);
		lat_bres_add(r, lat_tick_end() - a);
	}
	stop(&s, th);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Context switch, lmbench's way: two threads (or processes) pinned to one
 * core pass a byte back and forth over two pipes. A round trip is two
 * switches plus two pipe writes and two pipe reads; the pipe cost is
 * measured alone on one thread (write a byte, read it back) and taken off,
 * so what remains is the switch: per switch = (round trip - 2 x pipe) / 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench/benchmarks.h"
#include "bench/result.h"
#include "core/hist.h"

#define WARMUP 200
#define MAX_SAMPLES 200000

struct pp {
	int to[2], back[2];	/* initiator -> partner, partner -> initiator */
	int cpu;
};

static void partner_loop(struct pp *p)
{
	char b;

	lat_bench_pin(p->cpu);
	while (read(p->to[0], &b, 1) == 1)
		if (write(p->back[1], &b, 1) != 1)
			break;
}

static void *partner_thread(void *arg)
{
	partner_loop(arg);
	return NULL;
}

/* Round trips until the deadline; per switch into r. */
static int ping(struct lat_bctx *c, struct pp *p, struct lat_bres *r, __u64 pipe_ticks)
{
	__u64 i, a, t;
	char b = 1;

	for (i = 0; !lat_bench_over(c, i, MAX_SAMPLES + WARMUP); i++) {
		a = lat_tick_begin();
		if (write(p->to[1], &b, 1) != 1 || read(p->back[0], &b, 1) != 1)
			return -EIO;
		t = lat_tick_end() - a;
		if (i < WARMUP)
			continue;
		/* lat_bres_add would take off only the timer: take the pipes too */
		lat_bres_add_ticks(r, lat_bench_per_op(t, lat_bclock.overhead + 2 * pipe_ticks, 2));
	}
	return 0;
}

static int pipes(struct pp *p)
{
	if (pipe2(p->to, O_CLOEXEC))
		return -errno;
	if (pipe2(p->back, O_CLOEXEC)) {
		close(p->to[0]);
		close(p->to[1]);
		return -errno;
	}
	return 0;
}

static void close_pipes(struct pp *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->to[i] >= 0)
			close(p->to[i]);
		if (p->back[i] >= 0)
			close(p->back[i]);
		p->to[i] = p->back[i] = -1;
	}
}

int lat_bench_ctxsw(struct lat_bctx *c)
{
	struct lat_bres *pr, *tr, *xr;
	struct pp p = { .cpu = c->cpu };
	__u64 i, a, pipe_ticks, budget = c->budget_ns, t0 = lat_now_ns();
	pthread_t th;
	pid_t pid;
	char b = 1;
	int err, st;

	lat_bench_pin(c->cpu);
	pr = lat_bres_new(c, "pipe_1thread", "write 1 byte to a pipe and read it back, "
			  "one thread: the pipe cost taken off the switches", 1);
	tr = lat_bres_new(c, "ctxsw_thread", "pipe ping-pong between two threads on one "
			  "core, per switch, minus 2 x pipe_1thread p50 per round trip", 2);
	xr = lat_bres_new(c, "ctxsw_process", "pipe ping-pong between two processes on one "
			  "core, per switch, minus 2 x pipe_1thread p50 per round trip", 2);
	if (!pr || !tr || !xr)
		return -ENOMEM;
	err = pipes(&p);
	if (err)
		return err;

	c->deadline = t0 + budget / 5;
	for (i = 0; !lat_bench_over(c, i, MAX_SAMPLES); i++) {
		a = lat_tick_begin();
		if (write(p.to[1], &b, 1) != 1 || read(p.to[0], &b, 1) != 1) {
			close_pipes(&p);
			return -EIO;
		}
		lat_bres_add(pr, lat_tick_end() - a);
	}
	pipe_ticks = lat_hist_percentile(&pr->ticks, 50);

	c->deadline = t0 + budget * 3 / 5;
	err = -pthread_create(&th, NULL, partner_thread, &p);
	if (err) {
		close_pipes(&p);
		return err;
	}
	err = ping(c, &p, tr, pipe_ticks);
	close(p.to[1]);		/* the partner reads EOF and returns */
	p.to[1] = -1;
	pthread_join(th, NULL);
	close_pipes(&p);
	if (err)
		return err;

	err = pipes(&p);
	if (err)
		return err;
	c->deadline = t0 + budget;
	pid = fork();
	if (pid < 0) {
		close_pipes(&p);
		return -errno;
	}
	if (pid == 0) {
		close(p.to[1]);
		close(p.back[0]);
		partner_loop(&p);
		_exit(0);
	}
	/* the partner's ends are the partner's: should it die, read() sees EOF
	 * instead of waiting forever on an end this process still holds */
	close(p.to[0]);
	close(p.back[1]);
	p.to[0] = p.back[1] = -1;
	err = ping(c, &p, xr, pipe_ticks);
	close_pipes(&p);
	if (err)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/* System calls, thread creation and fork: what the kernel charges for the
 * simplest things a process asks of it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench/benchmarks.h"
#include "bench/result.h"

/* Short enough that one timing would be mostly the timer: batched. */
#define SYSCALL_BATCH 16
#define MAX_SAMPLES 1000000

int lat_bench_syscall(struct lat_bctx *c)
{
	struct lat_bres *gp, *wr;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	__u64 i, a;
	char z = 0;

	if (fd < 0)
		return -errno;
	lat_bench_pin(c->cpu);
	gp = lat_bres_new(c, "syscall_getppid", "syscall(SYS_getppid), not cached by libc",
			  SYSCALL_BATCH);
	wr = lat_bres_new(c, "syscall_write_null", "write(fd of /dev/null, buf, 0)",
			  SYSCALL_BATCH);
	for (i = 0; !lat_bench_over(c, i, MAX_SAMPLES); i++) {
		a = lat_tick_begin();
		for (int j = 0; j < SYSCALL_BATCH; j++)
			syscall(SYS_getppid);
		lat_bres_add(gp, lat_tick_end() - a);
		a = lat_tick_begin();
		for (int j = 0; j < SYSCALL_BATCH; j++)
			if (write(fd, &z, 0) < 0)
				break;
		lat_bres_add(wr, lat_tick_end() - a);
	}
	close(fd);
	return 0;
}

static void *nothing(void *arg)
{
	return arg;
}

int lat_bench_thread(struct lat_bctx *c)
{
	struct lat_bres *r;
	pthread_t th;
	__u64 i, a;
	int err;

	lat_bench_pin(c->cpu);
	r = lat_bres_new(c, "thread_create_join", "pthread_create of a thread that returns "
			 "at once, then pthread_join; same core", 1);
	for (i = 0; !lat_bench_over(c, i, 200000); i++) {
		a = lat_tick_begin();
		err = pthread_create(&th, NULL, nothing, NULL);
		if (err)
			return -err;
		pthread_join(th, NULL);
		lat_bres_add(r, lat_tick_end() - a);
	}
	return 0;
}

int lat_bench_fork(struct lat_bctx *c)
{
	struct lat_bres *r;
	__u64 i, a;
	pid_t pid;
	int st;

	lat_bench_pin(c->cpu);
	r = lat_bres_new(c, "fork_exit_wait", "fork, the child _exits at once, waitpid; "
			 "same core", 1);
	for (i = 0; !lat_bench_over(c, i, 100000); i++) {
		a = lat_tick_begin();
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0)
			_exit(0);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		lat_bres_add(r, lat_tick_end() - a);
	}
	return 0;
}

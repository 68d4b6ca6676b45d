// SPDX-License-Identifier: GPL-2.0
/*
 * The demo target `make run` traces: a small service with a latency problem
 * that latbpf should make visible.
 *
 *  - worker: pinned to the last CPU, serves requests on an open-loop
 *    schedule (one every 2 ms, 200 us of work each); its response time is
 *    measured from when each request was due (no coordinated omission);
 *  - hog: a thread sharing the worker's CPU that computes in bursts
 *    (30 ms every 250 ms): the worker waits on the run queue;
 *  - flusher: writes and fsyncs a small file every 100 ms: blocked (D) time;
 *  - ticker: sleeps 10 ms in a loop: interruptible (S) time;
 *  - intruder: a separate process (so not a target) on the worker's CPU,
 *    SCHED_FIFO when allowed, computing 5 ms every 300 ms: the hiccup
 *    table names it as the thief of the worker's core.
 *
 *   demo [--seconds N]   (default 20; stops by itself)
 * At the end it prints its own view: requests served and response-time
 * percentiles, for comparison with what latbpf saw from outside.
 */
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REQ_PERIOD_NS 2000000LL
#define REQ_WORK_NS 200000LL
#define MAX_REQ 200000

static long long end_ns;
static int worker_cpu;
static long long resp[MAX_REQ];
static int nresp;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(long long t)
{
	struct timespec ts = { t / 1000000000LL, t % 1000000000LL };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void spin(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static void *worker(void *arg)
{
	long long due;

	prctl(PR_SET_NAME, "demo-worker");
	pin(worker_cpu);
	for (due = now_ns() + REQ_PERIOD_NS; due < end_ns; due += REQ_PERIOD_NS) {
		if (now_ns() < due)
			sleep_until(due);
		spin(REQ_WORK_NS);
		if (nresp < MAX_REQ)
			resp[nresp++] = now_ns() - due;
	}
	return arg;
}

static void *hog(void *arg)
{
	long long t;

	prctl(PR_SET_NAME, "demo-hog");
	pin(worker_cpu);
	for (t = now_ns() + 250000000LL; t < end_ns; t += 250000000LL) {
		sleep_until(t);
		spin(30000000LL);
	}
	return arg;
}

static void *flusher(void *arg)
{
	char path[] = "/tmp/latbpf-demo-XXXXXX", buf[4096];
	int fd = mkstemp(path);

	prctl(PR_SET_NAME, "demo-flusher");
	if (fd < 0)
		return arg;
	unlink(path);
	memset(buf, 'x', sizeof(buf));
	while (now_ns() < end_ns) {
		if (pwrite(fd, buf, sizeof(buf), 0) < 0 || fsync(fd) < 0)
			break;
		usleep(100000);
	}
	close(fd);
	return arg;
}

static void *ticker(void *arg)
{
	prctl(PR_SET_NAME, "demo-ticker");
	while (now_ns() < end_ns)
		usleep(10000);
	return arg;
}

static void intruder(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	long long t;

	prctl(PR_SET_NAME, "demo-intruder");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pin(worker_cpu);
	sched_setscheduler(0, SCHED_FIFO, &sp);	/* best effort: root only */
	for (t = now_ns() + 300000000LL; t < end_ns; t += 300000000LL) {
		sleep_until(t);
		spin(5000000LL);
	}
	_exit(0);
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { worker, hog, flusher, ticker };
	pthread_t th[4];
	double secs = 20;
	pid_t child;
	int i;

	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		secs = atof(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: demo [--seconds N]\n");
		return 2;
	}
	if (secs <= 0 || secs > 3600)
		secs = 20;
	worker_cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	end_ns = now_ns() + (long long)(secs * 1e9);
	child = fork();
	if (child == 0)
		intruder();
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, fn[i], NULL);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	if (child > 0)
		waitpid(child, NULL, 0);
	qsort(resp, (size_t)nresp, sizeof(resp[0]), cmp);
	if (nresp)
		fprintf(stderr, "demo: %d requests on CPU %d; response from due time: "
			"p50 %.0f us, p99 %.0f us, max %.0f us\n", nresp, worker_cpu,
			resp[nresp / 2] / 1e3, resp[(nresp * 99) / 100] / 1e3,
			resp[nresp - 1] / 1e3);
	return 0;
}

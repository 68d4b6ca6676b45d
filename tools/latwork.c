// SPDX-License-Identifier: GPL-2.0
/*
 * latwork: workloads with a known answer, for latbpf's tests and benchmarks.
 * Every mode stops by itself.
 *
 *   latwork [common] sleep  --sleep DUR --count N [--threads K] [--spawn-after DUR]
 *       K threads (default 1) each sleep DUR N times (clock_nanosleep,
 *       relative); with --spawn-after one more thread is created that late
 *       and does the same. Prints "sleeps=<total> nvcsw=<n> nivcsw=<n>
 *       slept_ns=<ns> slept_p50=<ns> tids=<tid,...>", the switch counts from
 *       getrusage(RUSAGE_THREAD) of the sleeping threads and their time
 *       inside clock_nanosleep (CLOCK_MONOTONIC around each call); with
 *       --spawn-after, then "late_nvcsw=<n>": the late thread's own
 *       voluntary switches (a sleep whose timer fired before the thread
 *       reached schedule() is not one).
 *   latwork [common] threads --threads K --sleep DUR [--sleep-max DUR] --for DUR
 *       K threads (any number: small stacks) each sleep DUR in a loop
 *       (with --sleep-max, a length drawn evenly between the two each
 *       time) until DUR of --for has passed since the last one started,
 *       then exit. Prints "threads=<k> sleeps=<total>" once they are all
 *       created ("started=<k>") and at the end.
 *   latwork [common] waits  --sleep DUR --count N
 *       N rounds of four waits that time out after DUR, each on its own
 *       timer: poll() with no descriptor, epoll_wait() on an empty epoll
 *       set, a futex wait on a word nobody wakes, and a read() of a
 *       one-shot timerfd. (poll and epoll take whole milliseconds: DUR is
 *       rounded up.) Then N rounds of two waits of 1 s that a second
 *       thread ends after DUR (it spins: no timer of its own): poll() on
 *       a pipe it writes, a futex wait it wakes. Prints "timeouts=<n>
 *       early=<n>": the waits that timed out, and those that ended first.
 *   latwork [common] hog    --for DUR
 *       spins for DUR.
 *   latwork [common] burner --period DUR --burst DUR --for DUR [--fifo]
 *       every period (absolute schedule) spins burst; SCHED_FIFO 50 with
 *       --fifo. Prints "bursts=<n> whole=<n>" 20 ms after the last (its
 *       exit is not part of a burst): whole, the bursts it spun without
 *       being switched out (getrusage's ru_nivcsw around each).
 *   latwork [common] idler  --period DUR --burst DUR --for DUR
 *       at SCHED_IDLE, every period (absolute schedule) burst of its own
 *       CPU time in 50 us stretches, a 1 us sleep after each: latbpf's
 *       loader without its work (yield.t's control). Prints "bursts=<n>
 *       naps=<n>".
 *   latwork [common] futex  --count N [--sleep DUR]
 *       two threads (the second on the first's CPUs) take N turns each:
 *       each spins DUR (default 1 ms), then hands the turn to the other
 *       with FUTEX_WAKE and waits for it back with FUTEX_WAIT: each is
 *       woken only by the other (when the other's wakeup preempted it, it
 *       did not sleep). Prints "rounds=<n> tids=<first>,<second>
 *       sleeps=<the first's voluntary switches>" (getrusage).
 *   latwork [common] tcp    --for DUR [--count N]
 *       a server and a client thread on 127.0.0.1 exchange 64-byte
 *       messages for DUR (or N round trips). Prints "roundtrips=<n>".
 *   latwork [common] dio    --file PATH --count N [--write] [--for DUR]
 *       N 4 KiB O_DIRECT reads (or writes) at random aligned offsets of
 *       PATH (a file or a block device), within DUR if given. Prints
 *       "ios=<n> slept=<n>" (slept: the thread's voluntary switches in
 *       the loop, getrusage(RUSAGE_THREAD)).
 *   latwork [common] idle   --count N
 *       N child processes (forked, not exec'd) that wait for a signal, 600 s
 *       at most. Prints "pids=<pid,...>" once they all exist; exits when
 *       the last has gone (it reaps them).
 *   latwork [common] churn  --rate R --for DUR [--exec PATH] [--file F] [--port P]
 *       with --exec: starts PATH (no arguments) R times a second and reaps
 *       it; prints "spawned=<n> failed=<n>". Without: creates R threads a
 *       second, each of which touches 16 fresh pages, does one 4 KiB
 *       O_DIRECT read of F (--file), one connect and 64-byte round trip to
 *       127.0.0.1:P (--port, e.g. a tcpserver), sleeps 1 ms and exits;
 *       prints "threads=<n> ios=<n> connects=<n>".
 *   latwork [common] futexwait --count N --sleep DUR
 *       a waiter thread waits N times on a futex (FUTEX_WAIT_PRIVATE) that a
 *       releaser thread wakes DUR after each wait began (clock_nanosleep,
 *       then FUTEX_WAKE_PRIVATE). The main thread waits for them in
 *       clock_nanosleep, not in a futex. Prints "waits=<n> waiter=<tid>
 *       waker=<tid> waited_ns=<ns>" (the waiter's time inside its futex
 *       calls, CLOCK_MONOTONIC around each).
 *   latwork [common] mixed  --for DUR [--sleep DUR] [--file PATH] [--io-size B]
 *       one thread of each kind for DUR: spin (busy), sleep (clock_nanosleep
 *       DUR in a loop), futex (waits on a futex woken DUR later by a fifth
 *       thread, waker), dio (an O_DIRECT read of B bytes, default 4 KiB,
 *       at a random B-aligned offset of PATH, then a sleep of DUR, in a
 *       loop, with --file).
 *       With --cpu all on one CPU, so they also wait for it. When all are
 *       done each thread parks (a futex wait the process's end breaks) and
 *       the process prints "spin=<tid> sleep=<tid> futex=<tid> waker=<tid>
 *       dio=<tid> ios=<n> done": their schedstat and taskstats can be read
 *       then, whole lives. Use --linger to keep them there.
 *   latwork [common] touch  --count N
 *       maps N fresh anonymous pages (no transparent huge pages) and writes
 *       one byte to each: N page faults. Prints "touched=<n>".
 *   latwork [common] mmapread --file PATH --count N
 *       drops PATH from the page cache (POSIX_FADV_DONTNEED), maps it with
 *       MADV_RANDOM and reads one byte of N random distinct pages. Prints
 *       "pages=<n> majflt=<delta> minflt=<delta> nvcsw=<delta>
 *       slept_touches=<n> slept_ns=<ns> slept_p50=<ns>", from the reading
 *       thread's getrusage(RUSAGE_THREAD): nvcsw counts its sleeps; the
 *       touches it slept in (nvcsw moved across one), their time by
 *       CLOCK_MONOTONIC around each, and the median of those.
 *   latwork [common] tcpserver --port P [--host A] [--for DUR]
 *       echoes every connection to A:P (default 127.0.0.1), a thread each,
 *       for DUR (default 10 s). Prints "listening".
 *   latwork [common] tcpclient --port P [--host A] --count N [--connects] [--for DUR]
 *       N round trips of 64 bytes on one connection (--for bounds them in
 *       time), or with --connects N connect+close (with --hold N
 *       connections, each open until exit). Prints "roundtrips=<n>"
 *       or, after "connect_ns p50=<ns> max=<ns>" (each connect() call as
 *       the client timed it), "connects=<n>"; the connection stays open
 *       until exit (--linger).
 * common:
 *   --cpu C        pin to CPU C
 *   --wait         start only on SIGUSR1 (after printing "ready <pid>"),
 *                  or exit 1 after 600 s without it
 *   --linger       after finishing, wait for SIGTERM/SIGINT (max 60 s)
 *   --hold         sleep's threads, once counted, stay until the process
 *                  exits (with --linger: a tracer stopped meanwhile sees
 *                  none of their exits, which come after their switch
 *                  counts); tcpclient --connects' connections too
 *   --comm NAME    set the process name (any bytes, for escaping tests)
 *   --timerslack NS  the timer slack of every thread (PR_SET_TIMERSLACK,
 *                  inherited by those it creates): sleeps as long as asked
 *   --batch        every thread SCHED_BATCH (inherited): a wakeup never
 *                  preempts, the tick does; the kernel's own run and wait
 *                  times (schedstat) are then exact, where a wakeup
 *                  preemption skips the clock update of the switch it
 *                  causes and shifts the time between the two tasks
 *   --rate R       tcp, dio: at most R round trips or I/Os a second
 *                  (absolute schedule; a late one does not wait)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/syscall.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <linux/futex.h>
#include <sys/wait.h>
#include <semaphore.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

static long long sleep_ns = 1000000, count = -1, for_ns = 1000000000LL;
static long long period_ns = 100000000, burst_ns = 5000000, spawn_after_ns, sleep_max_ns;
static int cpu = -1, nthreads = 1, fifo, batch, for_set;
static double rate;
static volatile long long total_sleeps, total_nvcsw, total_nivcsw, total_slept_ns;
static volatile long long late_nvcsw = -1;	/* the --spawn-after thread's own */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int hold;
static sem_t sleepers_done;
/* sleep's sleeps, each as its thread's clock saw it (for slept_p50) */
static long long *sleep_lens;
static long sleep_nlens, sleep_cap;
static char tids[4096];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return (a > b) - (a < b);
}

/* v's median (the lower middle), v sorted in place; 0 for none */
static long long median_ll(long long *v, long n)
{
	if (!v || n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return v[(n - 1) / 2];
}

static long long parse_dur(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!strcmp(end, "ns"))
		return (long long)v;
	if (!strcmp(end, "us"))
		return (long long)(v * 1e3);
	if (!strcmp(end, "ms"))
		return (long long)(v * 1e6);
	if (!strcmp(end, "s"))
		return (long long)(v * 1e9);
	fprintf(stderr, "latwork: bad duration %s\n", s);
	exit(2);
}

static void pin(void)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("latwork: sched_setaffinity");
		exit(1);
	}
}

static void spin_until(long long end)
{
	while (now_ns() < end)
		;
}

/* the i-th operation of a run started at start, at --rate */
static void pace(long long start, long long i)
{
	long long t = start + (long long)(i * 1e9 / (rate > 0 ? rate : 1));
	struct timespec ts = { t / 1000000000LL, t % 1000000000LL };

	if (rate > 0 && now_ns() < t)
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void *sleeper(void *arg)
{
	struct timespec ts = { sleep_ns / 1000000000LL, sleep_ns % 1000000000LL };
	long long i, n = 0, t0, in = 0;
	struct rusage ru;
	char buf[32];

	pin();
	pthread_mutex_lock(&lock);
	/* under the lock: two threads once both saw an empty list */
	snprintf(buf, sizeof(buf), "%s%ld", tids[0] ? "," : "", syscall(SYS_gettid));
	strncat(tids, buf, sizeof(tids) - strlen(tids) - 1);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < count; i++) {
		long long d;
		int rc;

		t0 = now_ns();
		rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		d = now_ns() - t0;
		in += d;
		if (rc == 0) {
			long at = __sync_fetch_and_add(&sleep_nlens, 1);

			if (at < sleep_cap)
				sleep_lens[at] = d;
			n++;
		}
	}
	/* the kernel's own switch counts for this thread, from its start */
	getrusage(RUSAGE_THREAD, &ru);
	__sync_fetch_and_add(&total_nvcsw, ru.ru_nvcsw);
	if (arg)
		late_nvcsw = ru.ru_nvcsw;
	__sync_fetch_and_add(&total_nivcsw, ru.ru_nivcsw);
	__sync_fetch_and_add(&total_sleeps, n);
	__sync_fetch_and_add(&total_slept_ns, in);
	if (hold) {
		/* counted: stay until the process exits (run_sleep) */
		sem_post(&sleepers_done);
		for (;;)
			pause();
	}
	return arg;
}

static int run_sleep(void)
{
	pthread_t th[65];
	struct timespec ts;
	int i, n = nthreads > 64 ? 64 : nthreads;

	sem_init(&sleepers_done, 0, 0);
	sleep_cap = count > 0 && count <= 1000000 ? (long)count * (n + 1) : 0;
	sleep_lens = sleep_cap ? calloc((size_t)sleep_cap, sizeof(*sleep_lens)) : NULL;
	if (!sleep_lens)
		sleep_cap = 0;
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, sleeper, NULL);
	if (spawn_after_ns) {
		ts.tv_sec = spawn_after_ns / 1000000000LL;
		ts.tv_nsec = spawn_after_ns % 1000000000LL;
		nanosleep(&ts, NULL);
		pthread_create(&th[n++], NULL, sleeper, (void *)1);
	}
	for (i = 0; i < n; i++) {
		if (hold)
			while (sem_wait(&sleepers_done) && errno == EINTR)
				;
		else
			pthread_join(th[i], NULL);
	}
	printf("sleeps=%lld nvcsw=%lld nivcsw=%lld slept_ns=%lld slept_p50=%lld tids=%s\n",
	       total_sleeps, total_nvcsw, total_nivcsw, total_slept_ns,
	       median_ll(sleep_lens, sleep_nlens < sleep_cap ? sleep_nlens : sleep_cap), tids);
	if (spawn_after_ns)
		printf("late_nvcsw=%lld\n", late_nvcsw);
	return 0;
}

static int waits_pipe[2];
static unsigned int waits_word;

/* ends each round's two waits: spins DUR, writes the pipe; then wakes
 * the futex every DUR until the round is done (a wake before the wait
 * began wakes nobody: the next one does) */
static void *waits_ender(void *arg)
{
	for (long long i = 0; i < count; i++) {
		spin_until(now_ns() + sleep_ns);
		if (write(waits_pipe[1], "x", 1) != 1)
			break;
		while (__atomic_load_n((long long *)arg, __ATOMIC_ACQUIRE) <= i) {
			spin_until(now_ns() + sleep_ns);
			syscall(SYS_futex, &waits_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		}
	}
	return arg;
}

/* Four timed waits a round, each timing out: a timer fires for each; then
 * two a round that end first: their timers are cancelled. */
static int run_waits(void)
{
	int ms = (int)((sleep_ns + 999999) / 1000000), ep = epoll_create1(0),
	    tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = { .it_value = { sleep_ns / 1000000000LL, sleep_ns % 1000000000LL } };
	struct timespec ts = its.it_value;
	struct epoll_event ev;
	long long n = 0, i;
	unsigned int word = 0;
	uint64_t ticks;

	if (ep < 0 || tfd < 0) {
		perror("latwork: epoll_create1/timerfd_create");
		return 1;
	}
	for (i = 0; i < count; i++) {
		n += poll(NULL, 0, ms) == 0;
		n += epoll_wait(ep, &ev, 1, ms) == 0;
		n += syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0) < 0 &&
		     errno == ETIMEDOUT;
		n += !timerfd_settime(tfd, 0, &its, NULL) &&
		     read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks);
	}
	struct timespec far = { 1, 0 };
	struct pollfd pf = { .events = POLLIN };
	long long early = 0, done = 0;
	pthread_t th;
	char c;

	if (pipe(waits_pipe) || pthread_create(&th, NULL, waits_ender, &done)) {
		perror("latwork: pipe/pthread_create");
		return 1;
	}
	pf.fd = waits_pipe[0];
	for (i = 0; i < count; i++) {
		early += poll(&pf, 1, 1000) == 1 && read(waits_pipe[0], &c, 1) == 1;
		early += syscall(SYS_futex, &waits_word, FUTEX_WAIT_PRIVATE, 0, &far, NULL, 0) == 0;
		__atomic_store_n(&done, i + 1, __ATOMIC_RELEASE);
	}
	pthread_join(th, NULL);
	printf("timeouts=%lld early=%lld\n", n, early);
	close(ep);
	close(tfd);
	return 0;
}

static long long threads_end;

static void *napper(void *arg)
{
	struct timespec ts = { sleep_ns / 1000000000LL, sleep_ns % 1000000000LL };
	unsigned seed = (unsigned)syscall(SYS_gettid);
	long long n = 0, d;

	while (now_ns() < __atomic_load_n(&threads_end, __ATOMIC_RELAXED)) {
		if (sleep_max_ns > sleep_ns) {
			d = sleep_ns + (long long)((double)rand_r(&seed) / RAND_MAX *
						   (double)(sleep_max_ns - sleep_ns));
			ts.tv_sec = d / 1000000000LL;
			ts.tv_nsec = d % 1000000000LL;
		}
		n += clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) == 0;
	}
	__sync_fetch_and_add(&total_sleeps, n);
	return arg;
}

static int run_threads(void)
{
	pthread_t *th = calloc((size_t)nthreads, sizeof(*th));
	pthread_attr_t attr;
	int i, n = 0;

	if (!th)
		return 1;
	/* DUR counts from the last thread's start: creating thousands takes
	 * minutes under qemu's TCG, longer than a test's DUR once */
	__atomic_store_n(&threads_end, LLONG_MAX, __ATOMIC_RELAXED);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < nthreads; i++)
		n += pthread_create(&th[n], &attr, napper, NULL) == 0;
	__atomic_store_n(&threads_end, now_ns() + for_ns, __ATOMIC_RELAXED);
	printf("started=%d\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("threads=%d sleeps=%lld\n", n, total_sleeps);
	free(th);
	return n == nthreads ? 0 : 1;
}

static int run_burner(void)
{
	struct sched_param sp = { .sched_priority = 50 };
	long long start, next, end, bursts = 0, whole = 0;
	struct rusage r0, r1;
	struct timespec ts;

	if (fifo && sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("latwork: SCHED_FIFO");
		return 1;
	}
	start = now_ns();
	end = start + for_ns;
	for (next = start + period_ns; next + burst_ns <= end; next += period_ns) {
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		getrusage(RUSAGE_THREAD, &r0);
		spin_until(now_ns() + burst_ns);
		getrusage(RUSAGE_THREAD, &r1);
		bursts++;
		/* switched out in the middle: whoever ran then (a task above
		 * it, or the kernel's fair server giving the CPU's fair tasks
		 * their share) split the burst */
		whole += r1.ru_nivcsw == r0.ru_nivcsw;
	}
	/* the exit on a run of its own, 20 ms after the last burst (a trace
	 * tells it from the burst by the gap) */
	ts.tv_sec = 0;
	ts.tv_nsec = 20000000;
	nanosleep(&ts, NULL);
	printf("bursts=%lld whole=%lld\n", bursts, whole);
	return 0;
}

/* idler: a stand-in for latbpf's loader that does no work of its own
 * (yield.t's control): at SCHED_IDLE, every period a burst of CPU time
 * (the thread's own clock, read once a stretch, so the share is the same
 * however often it is preempted) in 50 us stretches, each followed by a 1 us sleep, as latbpf's
 * yield points (src/core/yield.c) */
static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int run_idler(void)
{
	const struct timespec nap = { 0, 1000 };
	long long start = now_ns(), next, end = start + for_ns, bursts = 0, naps = 0, c0, s0;
	struct timespec ts;

	if (sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){ 0 })) {
		perror("latwork: SCHED_IDLE");
		return 1;
	}
	for (next = start + period_ns; next + burst_ns <= end; next += period_ns) {
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		for (c0 = thread_cpu_ns(); thread_cpu_ns() - c0 < burst_ns; naps++) {
			/* the wall clock (vDSO): a thread's CPU clock is a
			 * system call, which the stretch must not be */
			for (s0 = now_ns(); now_ns() - s0 < 50000;)
				;
			clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
		}
		bursts++;
	}
	printf("bursts=%lld naps=%lld\n", bursts, naps);
	return 0;
}

/* futex: whose turn it is, 0 the first thread's, 1 the second's */
static int turn;

static void futex(int op, int val)
{
	syscall(SYS_futex, &turn, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* takes n turns as `me`: wait for mine, spin, hand it over */
static void turns(int me, long long n)
{
	for (long long i = 0; i < n; i++) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != me)
			futex(FUTEX_WAIT, !me);
		spin_until(now_ns() + sleep_ns);
		__atomic_store_n(&turn, !me, __ATOMIC_RELEASE);
		futex(FUTEX_WAKE, 1);
	}
}

static pid_t second_tid;

static void *second(void *arg)
{
	second_tid = (pid_t)syscall(SYS_gettid);
	turns(1, count);
	return NULL;
}

static int run_futex(void)
{
	struct rusage r0, r1;
	pthread_t t;

	getrusage(RUSAGE_THREAD, &r0);
	if (pthread_create(&t, NULL, second, NULL))
		return 1;
	turns(0, count);
	/* the last turn handed back: the second's last wait ends */
	pthread_join(t, NULL);
	getrusage(RUSAGE_THREAD, &r1);
	printf("rounds=%lld tids=%d,%d sleeps=%ld\n", count, (int)syscall(SYS_gettid),
	       (int)second_tid, r1.ru_nvcsw - r0.ru_nvcsw);
	return 0;
}

static const char *dio_path;
static int dio_write;
static long long io_size = 4096;	/* mixed's dio reads (--io-size) */

static int run_dio(void)
{
	long long i, n = 0, blocks, start;
	struct rusage ru0, ru1;
	off_t size;
	void *buf;
	int fd;

	fd = dio_path ? open(dio_path, (dio_write ? O_RDWR : O_RDONLY) | O_DIRECT) : -1;
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror("latwork: dio");
		return 1;
	}
	memset(buf, 'x', 4096);
	size = lseek(fd, 0, SEEK_END);
	blocks = size / 4096;
	if (blocks < 1) {
		fprintf(stderr, "latwork: %s is smaller than 4 KiB\n", dio_path);
		return 1;
	}
	srand((unsigned)getpid());
	getrusage(RUSAGE_THREAD, &ru0);
	start = now_ns();
	for (i = 0; i < count && (!for_set || now_ns() < start + for_ns); i++) {
		off_t off = (off_t)(rand() % blocks) * 4096;

		pace(start, i);

		if ((dio_write ? pwrite(fd, buf, 4096, off) : pread(fd, buf, 4096, off)) == 4096)
			n++;
	}
	getrusage(RUSAGE_THREAD, &ru1);
	close(fd);
	/* slept: the kernel's count of this thread's voluntary switches in
	 * the loop (an I/O that completed before the thread slept has none) */
	printf("ios=%lld slept=%ld\n", n, ru1.ru_nvcsw - ru0.ru_nvcsw);
	return 0;
}

/* futexwait and mixed: a waiter and its releaser */
static volatile int fx_seq, fx_stop;
static volatile long long fx_waits, fx_waited_ns;
static long fx_waiter_tid, fx_waker_tid;

static long fx_futex(volatile int *uaddr, int op, int val, const struct timespec *t)
{
	return syscall(SYS_futex, uaddr, op, val, t, NULL, 0);
}

static void *fx_waiter(void *arg)
{
	long long end = *(long long *)arg, i;

	fx_waiter_tid = syscall(SYS_gettid);
	for (i = 0; i < count && (!end || now_ns() < end); i++) {
		int v = fx_seq;

		while (fx_seq == v && !fx_stop) {
			long long t0 = now_ns();

			fx_futex(&fx_seq, FUTEX_WAIT_PRIVATE, v, NULL);
			fx_waited_ns += now_ns() - t0;
		}
		if (fx_stop)
			break;
		fx_waits++;
	}
	fx_stop = 1;
	return arg;
}

/* wakes the waiter DUR after each of its waits began */
static void *fx_releaser(void *arg)
{
	struct timespec ts = { sleep_ns / 1000000000LL, sleep_ns % 1000000000LL };

	fx_waker_tid = syscall(SYS_gettid);
	while (!fx_stop) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		__sync_fetch_and_add(&fx_seq, 1);
		fx_futex(&fx_seq, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
	return arg;
}

/* the main thread waits for flag in clock_nanosleep, so no futex is its */
static void nap_until(volatile int *flag, int want)
{
	struct timespec ms = { 0, 1000000 };

	while (*flag < want)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
}

static int run_futexwait(void)
{
	long long end = for_set ? now_ns() + for_ns : 0;
	pthread_t w, r;

	pthread_create(&w, NULL, fx_waiter, &end);
	pthread_create(&r, NULL, fx_releaser, NULL);
	nap_until(&fx_stop, 1);
	/* the releaser's last sleep ends by itself */
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	printf("waits=%lld waiter=%ld waker=%ld waited_ns=%lld\n", fx_waits, fx_waiter_tid,
	       fx_waker_tid, fx_waited_ns);
	return fx_waits == count ? 0 : 1;
}

static long long mx_end;
static volatile int mx_done;
static volatile int mx_park;
static long mx_tid[3];	/* spin, sleep, dio */
static volatile long long mx_ios;

/* a thread whose work is done waits, counted, until the process ends */
static void park(void)
{
	struct timespec limit = { 120, 0 };

	__sync_fetch_and_add(&mx_done, 1);
	fx_futex(&mx_park, FUTEX_WAIT_PRIVATE, 0, &limit);
}

static void *mx_spin(void *arg)
{
	pin();
	mx_tid[0] = syscall(SYS_gettid);
	spin_until(mx_end);
	park();
	return arg;
}

static void *mx_sleep(void *arg)
{
	struct timespec ts = { sleep_ns / 1000000000LL, sleep_ns % 1000000000LL };

	pin();
	mx_tid[1] = syscall(SYS_gettid);
	while (now_ns() < mx_end)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	park();
	return arg;
}

static void *mx_dio(void *arg)
{
	struct timespec ts = { sleep_ns / 1000000000LL, sleep_ns % 1000000000LL };
	off_t blocks = 0;
	void *buf = NULL;
	int fd;

	pin();
	mx_tid[2] = syscall(SYS_gettid);
	fd = dio_path ? open(dio_path, O_RDONLY | O_DIRECT) : -1;
	if (fd >= 0)
		blocks = lseek(fd, 0, SEEK_END) / io_size;
	/* one read every DUR: as many reads (and wakeups) whether the disk
	 * serves them in 20 us or in 4 ms */
	if (fd >= 0 && blocks > 0 && !posix_memalign(&buf, 4096, (size_t)io_size))
		while (now_ns() < mx_end) {
			if (pread(fd, buf, (size_t)io_size, (off_t)(random() % blocks) * io_size) == io_size)
				mx_ios++;
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		}
	free(buf);
	if (fd >= 0)
		close(fd);
	park();
	return arg;
}

static void *mx_futex(void *arg)
{
	pin();
	fx_waiter(arg);
	park();
	return arg;
}

static void *mx_releaser(void *arg)
{
	pin();
	fx_releaser(arg);
	park();
	return arg;
}

static int run_mixed(void)
{
	void *(*fn[])(void *) = { mx_spin, mx_sleep, mx_dio, mx_futex, mx_releaser };
	int n = (int)(sizeof(fn) / sizeof(fn[0]));
	pthread_t th;

	mx_end = now_ns() + for_ns;
	count = 1LL << 62;
	for (int i = 0; i < n; i++)
		pthread_create(&th, NULL, fn[i], &mx_end);
	nap_until(&mx_done, n);
	printf("spin=%ld sleep=%ld futex=%ld waker=%ld dio=%ld ios=%lld done\n", mx_tid[0],
	       mx_tid[1], fx_waiter_tid, fx_waker_tid, mx_tid[2], mx_ios);
	return 0;
}

static int run_touch(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(count * pg), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long i;

	if (p == MAP_FAILED) {
		perror("latwork: mmap");
		return 1;
	}
	madvise(p, (size_t)(count * pg), MADV_NOHUGEPAGE);
	for (i = 0; i < count; i++)
		p[i * pg] = 1;
	printf("touched=%lld\n", count);
	return 0;
}

static int run_mmapread(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct rusage a, b, r0, r1;
	long long i, npages, n = 0, nslept = 0, slept_ns = 0, *lens;
	volatile char sink;
	char *seen, *p;
	off_t size;
	int fd = dio_path ? open(dio_path, O_RDONLY) : -1;

	if (fd < 0) {
		perror("latwork: mmapread");
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	npages = size / pg;
	if (count > npages)
		count = npages;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	p = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	seen = calloc((size_t)npages, 1);
	if (p == MAP_FAILED || !seen) {
		perror("latwork: mmap");
		return 1;
	}
	madvise(p, (size_t)size, MADV_RANDOM);
	srand((unsigned)getpid());
	lens = calloc((size_t)count + 1, sizeof(*lens));
	if (!lens) {
		perror("latwork: calloc");
		return 1;
	}
	getrusage(RUSAGE_THREAD, &a);
	for (i = 0; i < count; ) {
		long long k = rand() % npages, t0, t1;

		if (seen[k])
			continue;
		seen[k] = 1;
		/* the touch timed, and whether the thread slept in it */
		getrusage(RUSAGE_THREAD, &r0);
		t0 = now_ns();
		sink = p[k * pg];
		t1 = now_ns();
		getrusage(RUSAGE_THREAD, &r1);
		if (r1.ru_nvcsw != r0.ru_nvcsw) {
			lens[nslept++] = t1 - t0;
			slept_ns += t1 - t0;
		}
		i++;
	}
	getrusage(RUSAGE_THREAD, &b);
	(void)sink;
	n = b.ru_majflt - a.ru_majflt;
	printf("pages=%lld majflt=%lld minflt=%ld nvcsw=%ld slept_touches=%lld slept_ns=%lld"
	       " slept_p50=%lld\n", count, n, b.ru_minflt - a.ru_minflt, b.ru_nvcsw - a.ru_nvcsw,
	       nslept, slept_ns, median_ll(lens, (long)nslept));
	free(lens);
	return 0;
}

static const char *tcp_host = "127.0.0.1";
static int tcp_port, tcp_connects;

static int addr_of(struct sockaddr_in *a)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((unsigned short)tcp_port);
	return inet_pton(AF_INET, tcp_host, &a->sin_addr) == 1 ? 0 : -1;
}

static void *echo(void *arg)
{
	int fd = (int)(long)arg;
	char buf[64];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	close(fd);
	return NULL;
}

static int run_tcpserver(void)
{
	struct sockaddr_in a;
	int l, fd, one = 1;

	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr_of(&a) || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 128)) {
		perror("latwork: tcpserver");
		return 1;
	}
	alarm((unsigned)(for_ns / 1000000000LL) + 1);	/* stops by itself */
	printf("listening\n");
	fflush(stdout);
	/* a thread per connection: a client that keeps its connection open
	 * (--linger) does not hold up the others' */
	while ((fd = accept(l, NULL, NULL)) >= 0) {
		pthread_t th;

		if (pthread_create(&th, NULL, echo, (void *)(long)fd)) {
			echo((void *)(long)fd);
			continue;
		}
		pthread_detach(th);
	}
	return 0;
}

/* --connects: each connect() call's time, as the ground truth a traced
 * handshake (SYN_SENT -> ESTABLISHED, inside the call) must fit in */
static void print_connect_ns(long long *ns, long long n)
{
	long long p50;

	if (!ns || n <= 0)
		return;
	p50 = median_ll(ns, (long)n);	/* sorts ns: its max is last */
	printf("connect_ns p50=%lld max=%lld\n", p50, ns[n - 1]);
}

static int run_tcpclient(void)
{
	long long i, n = 0, end = now_ns() + for_ns, t;
	long long *cns = tcp_connects && count > 0 ? calloc((size_t)count, sizeof(*cns)) : NULL;
	struct sockaddr_in a;
	char buf[64] = "latwork";
	int fd = -1, one = 1;

	if (addr_of(&a))
		return 2;
	for (i = 0; i < count && now_ns() < end; i++) {
		if (fd < 0 || tcp_connects) {
			if (fd >= 0 && !hold)
				close(fd);
			fd = socket(AF_INET, SOCK_STREAM, 0);
			t = now_ns();
			if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
				perror("latwork: connect");
				return 1;
			}
			t = now_ns() - t;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			if (tcp_connects) {
				if (cns)
					cns[n] = t;
				n++;
				continue;
			}
		}
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) || read(fd, buf, sizeof(buf)) <= 0)
			break;
		n++;
	}
	if (tcp_connects)
		print_connect_ns(cns, n);
	printf(tcp_connects ? "connects=%lld\n" : "roundtrips=%lld\n", n);
	free(cns);
	return 0;	/* fd stays open: ss can read its RTT while we linger */
}

static int listen_fd;

static void *tcp_server(void *arg)
{
	char buf[64];
	int fd = accept(listen_fd, NULL, NULL);
	ssize_t n;

	pin();
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	if (fd >= 0)
		close(fd);
	return arg;
}

static int run_tcp(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	long long end = now_ns() + for_ns, trips = 0;
	char buf[64] = "latwork";
	pthread_t th;
	int fd, one = 1;

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(listen_fd, 1) || getsockname(listen_fd, (struct sockaddr *)&a, &alen)) {
		perror("latwork: tcp listen");
		return 1;
	}
	pthread_create(&th, NULL, tcp_server, NULL);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("latwork: tcp connect");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (trips < count && now_ns() < end) {
		pace(end - for_ns, trips);
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    read(fd, buf, sizeof(buf)) <= 0)
			break;
		trips++;
	}
	close(fd);
	pthread_join(th, NULL);
	close(listen_fd);
	printf("roundtrips=%lld\n", trips);
	return 0;
}

/*
 * churn: processes or threads that live for a moment, at a rate, so that
 * pids are reused and per-task state is claimed and released all the time.
 */
static const char *exec_path;
static volatile long long churn_ios, churn_connects;

static void *churn_thread(void *arg)
{
	struct timespec ms = { 0, 1000000 };
	long pg = sysconf(_SC_PAGESIZE);
	struct sockaddr_in a;
	char buf[64] = "latwork", *p;
	void *io;
	int fd, i;

	p = mmap(NULL, (size_t)(16 * pg), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		for (i = 0; i < 16; i++)
			p[i * pg] = 1;
		munmap(p, (size_t)(16 * pg));
	}
	fd = dio_path ? open(dio_path, O_RDONLY | O_DIRECT) : -1;
	if (fd >= 0 && !posix_memalign(&io, 4096, 4096)) {
		off_t blocks = lseek(fd, 0, SEEK_END) / 4096;

		if (blocks > 0 && pread(fd, io, 4096, (off_t)(random() % blocks) * 4096) == 4096)
			__sync_fetch_and_add(&churn_ios, 1);
		free(io);
	}
	if (fd >= 0)
		close(fd);
	fd = tcp_port ? socket(AF_INET, SOCK_STREAM, 0) : -1;
	if (fd >= 0 && !addr_of(&a) && !connect(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    write(fd, buf, sizeof(buf)) == sizeof(buf) && read(fd, buf, sizeof(buf)) > 0)
		__sync_fetch_and_add(&churn_connects, 1);
	if (fd >= 0)
		close(fd);
	nanosleep(&ms, NULL);
	return arg;
}

/* idle --count N: N child processes that wait for a signal (600 s at
 * most), forked, not exec'd: a thousand start in a moment, even under
 * qemu's TCG. Prints "pids=<pid,...>" once all exist; reaps them, and
 * exits when the last is gone. */
static int run_idle(void)
{
	pid_t *pids = calloc((size_t)(count > 0 ? count : 1), sizeof(*pids));
	long long i, n = 0;

	if (!pids)
		return 1;
	fflush(stdout);
	for (i = 0; i < count; i++) {
		pid_t p = fork();

		if (p == 0) {
			alarm(600);
			for (;;)
				pause();
		}
		if (p < 0) {
			perror("latwork: fork");
			break;
		}
		pids[n++] = p;
	}
	printf("pids=");
	for (i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", (int)pids[i]);
	printf("\n");
	fflush(stdout);
	free(pids);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return n == count ? 0 : 1;
}

static int run_churn(void)
{
	char *argv[] = { (char *)exec_path, NULL };
	long long start = now_ns(), i, n = 0, failed = 0;
	pthread_attr_t attr;
	pthread_t th;
	pid_t pid;

	if (rate <= 0) {
		fprintf(stderr, "latwork: churn needs --rate\n");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 0; now_ns() < start + for_ns; i++) {
		pace(start, i);
		if (exec_path ? posix_spawn(&pid, exec_path, NULL, NULL, argv, environ) :
				pthread_create(&th, &attr, churn_thread, NULL))
			failed++;
		else
			n++;
		while (exec_path && waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (exec_path && wait(NULL) > 0)
		;
	if (exec_path) {
		printf("spawned=%lld failed=%lld\n", n, failed);
		return 0;
	}
	nanosleep(&(struct timespec){ 1, 0 }, NULL);	/* the last ones finish */
	printf("threads=%lld failed=%lld ios=%lld connects=%lld\n", n, failed,
	       churn_ios, churn_connects);
	return 0;
}

int main(int argc, char **argv)
{
	int i, wait = 0, linger = 0, rc;
	const char *mode = NULL;
	sigset_t set;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--wait"))
			wait = 1;
		else if (!strcmp(a, "--linger"))
			linger = 1;
		else if (!strcmp(a, "--hold"))
			hold = 1;
		else if (!strcmp(a, "--fifo"))
			fifo = 1;
		else if (!strcmp(a, "--batch"))
			batch = 1;
		else if (!strcmp(a, "--write"))
			dio_write = 1;
		else if (!strcmp(a, "--connects"))
			tcp_connects = 1;
		else if (!v && a[0] == '-')
			goto usage;
		else if (!strcmp(a, "--cpu"))
			cpu = atoi(v), i++;
		else if (!strcmp(a, "--port"))
			tcp_port = atoi(v), i++;
		else if (!strcmp(a, "--host"))
			tcp_host = v, i++;
		else if (!strcmp(a, "--file"))
			dio_path = v, i++;
		else if (!strcmp(a, "--io-size"))
			io_size = atoll(v), i++;
		else if (!strcmp(a, "--comm"))
			prctl(PR_SET_NAME, v), i++;
		else if (!strcmp(a, "--timerslack"))
			prctl(PR_SET_TIMERSLACK, strtoul(v, NULL, 10)), i++;
		else if (!strcmp(a, "--sleep"))
			sleep_ns = parse_dur(v), i++;
		else if (!strcmp(a, "--sleep-max"))
			sleep_max_ns = parse_dur(v), i++;
		else if (!strcmp(a, "--count"))
			count = atoll(v), i++;
		else if (!strcmp(a, "--threads"))
			nthreads = atoi(v), i++;
		else if (!strcmp(a, "--spawn-after"))
			spawn_after_ns = parse_dur(v), i++;
		else if (!strcmp(a, "--for"))
			for_ns = parse_dur(v), for_set = 1, i++;
		else if (!strcmp(a, "--rate"))
			rate = atof(v), i++;
		else if (!strcmp(a, "--exec"))
			exec_path = v, i++;
		else if (!strcmp(a, "--period"))
			period_ns = parse_dur(v), i++;
		else if (!strcmp(a, "--burst"))
			burst_ns = parse_dur(v), i++;
		else if (a[0] != '-' && !mode)
			mode = a;
		else
			goto usage;
	}
	if (!mode || io_size <= 0 || io_size % 4096)
		goto usage;
	/* Only SIGUSR1 is blocked (for sigtimedwait); SIGTERM and SIGINT keep
	 * their default action while working, so a test can always stop us. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pin();
	if (batch && sched_setscheduler(0, SCHED_BATCH, &(struct sched_param){ 0 })) {
		perror("latwork: SCHED_BATCH");
		return 1;
	}
	if (wait) {
		/* a bound against a test that never signals: under qemu's
		 * TCG three latbpf attached in over 60 s, the 6.1-rt guest's
		 * hiccup.t, while its hog and 120 burners waited */
		struct timespec limit = { 600, 0 };

		printf("ready %d\n", getpid());
		fflush(stdout);
		if (sigtimedwait(&set, NULL, &limit) < 0) {
			fprintf(stderr, "latwork: no SIGUSR1 within 600 s\n");
			return 1;
		}
	}
	if (count < 0)	/* mode defaults: 1000 sleeps; round trips until --for */
		count = strcmp(mode, "tcp") && strcmp(mode, "hog") &&
			strcmp(mode, "tcpserver") ? 1000 : 1LL << 62;
	if (!strcmp(mode, "sleep"))
		rc = run_sleep();
	else if (!strcmp(mode, "threads"))
		rc = run_threads();
	else if (!strcmp(mode, "hog"))
		spin_until(now_ns() + for_ns), rc = 0;
	else if (!strcmp(mode, "waits"))
		rc = run_waits();
	else if (!strcmp(mode, "burner"))
		rc = run_burner();
	else if (!strcmp(mode, "idler"))
		rc = run_idler();
	else if (!strcmp(mode, "futex"))
		rc = run_futex();
	else if (!strcmp(mode, "tcp"))
		rc = run_tcp();
	else if (!strcmp(mode, "dio"))
		rc = run_dio();
	else if (!strcmp(mode, "tcpserver"))
		rc = run_tcpserver();
	else if (!strcmp(mode, "tcpclient"))
		rc = run_tcpclient();
	else if (!strcmp(mode, "touch"))
		rc = run_touch();
	else if (!strcmp(mode, "futexwait"))
		rc = run_futexwait();
	else if (!strcmp(mode, "mixed"))
		rc = run_mixed();
	else if (!strcmp(mode, "mmapread"))
		rc = run_mmapread();
	else if (!strcmp(mode, "idle"))
		rc = run_idle();
	else if (!strcmp(mode, "churn"))
		rc = run_churn();
	else
		goto usage;
	fflush(stdout);
	if (linger) {
		struct timespec limit = { 60, 0 };

		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		sigtimedwait(&set, NULL, &limit);
	}
	return rc;
usage:
	fprintf(stderr, "usage: see the comment at the top of tools/latwork.c\n");
	return 2;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf must not become the hiccup it measures (DESIGN.md): its threads
 * run off the CPUs its target is pinned to, and off isolated and nohz_full
 * CPUs while others remain; and below everything it watches in the
 * scheduler (away.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include "core/away.h"
#include "core/cpulist.h"
#include "core/proc.h"
#include "core/run.h"

static void add_if_pinned(__u32 tid, int cpu, void *ctx)
{
	cpu_set_t *avoid = ctx;

	(void)tid;
	if (cpu < CPU_SETSIZE)
		CPU_SET(cpu, avoid);
}

void lat_away_init(struct lat_away *a)
{
	memset(a, 0, sizeof(*a));
	a->guard_fd = -1;
	if (sched_getaffinity(0, sizeof(a->given), &a->given))
		CPU_ZERO(&a->given);
	a->runs_on = a->given;
	lat_read_cpulist("/sys/devices/system/cpu/isolated", &a->isolated);
	lat_read_cpulist("/sys/devices/system/cpu/nohz_full", &a->nohz_full);
}

/* every thread of this process: fn(tid, ctx), the calling one first as 0 */
static void each_thread(void (*fn)(int tid, void *ctx), void *ctx)
{
	fn(0, ctx);
	lat_proc_each_self_thread(fn, ctx);
}

static void set_affinity(int tid, void *set)
{
	sched_setaffinity(tid, sizeof(cpu_set_t), set);
}

static void set_priority(int tid, void *idle);
static int move_all(struct lat_away *a, bool idle);

bool lat_away_update(struct lat_away *a, const struct lat_run *run)
{
	cpu_set_t want, quiet;

	if (!CPU_COUNT(&a->given))
		return false;
	CPU_ZERO(&a->avoid);
	lat_run_each_pinned(run, add_if_pinned, &a->avoid);
	/* off the target's CPUs: where none is left, latbpf stays where it
	 * was started, and its time on the target's CPUs is named as such
	 * (the hiccup intruder "latbpf (self)") */
	CPU_XOR(&want, &a->given, &a->avoid);
	CPU_AND(&want, &want, &a->given);
	a->stuck = !CPU_COUNT(&want);
	if (a->stuck)
		want = a->given;
	/* sharing a busy target's only CPU at SCHED_IDLE, latbpf would not run
	 * while the target does (a 3 s run took 60 s): there it keeps the
	 * priority it was started with, and its time is "latbpf (self)" */
	if (a->want_idle && a->stuck == a->idle_now) {
		bool idle = !a->stuck;

		/* in after the policy, out before it */
		if (!idle)
			move_all(a, false);
		each_thread(set_priority, &idle);
		if (idle)
			move_all(a, true);
		a->idle_now = idle;
		a->priority = idle ? a->yielded : "normal";
	}
	/* and off isolated and nohz_full CPUs while others remain */
	CPU_OR(&quiet, &a->isolated, &a->nohz_full);
	CPU_AND(&quiet, &quiet, &want);
	if (CPU_COUNT(&quiet) && CPU_COUNT(&quiet) < CPU_COUNT(&want))
		CPU_XOR(&want, &want, &quiet);
	if (CPU_EQUAL(&want, &a->runs_on))
		return false;
	each_thread(set_affinity, &want);
	a->runs_on = want;
	return true;
}

/* what latbpf was started with, for the children it starts */
static int start_policy = -1, start_nice;
/* the guard thread (it keeps the priority latbpf was started with),
 * whether it lifted the poll loop's thread, and how often */
static int guard_tid;
static int lifted;
/* the idle cgroup, when made (a->cg), and whether the guard's lift took
 * the poll thread out of it */
static const struct lat_idlecg *idlecg;
static int lifted_out;
static unsigned long long guard_polls;

/* idle: SCHED_IDLE, or nice 19 where that is refused; else the policy
 * and nice latbpf was started with */
static void set_priority(int tid, void *idle)
{
	struct sched_param none = { 0 };

	if (*(const bool *)idle) {
		if (guard_tid && tid == guard_tid)
			return;
		if (sched_setscheduler(tid, SCHED_IDLE, &none))
			setpriority(PRIO_PROCESS, (id_t)tid, 19);
		return;
	}
	/* a real-time start keeps its priority: only a CFS policy is ours */
	if (start_policy == SCHED_OTHER || start_policy == SCHED_BATCH ||
	    start_policy == SCHED_IDLE)
		sched_setscheduler(tid, start_policy, &none);
	setpriority(PRIO_PROCESS, (id_t)tid, start_nice);
}

/* Every thread of latbpf's into the idle cgroup (after they went
 * SCHED_IDLE: a real-time thread may not enter a group without real-time
 * runtime) or out of it, the process at once, then on v1 the guard back
 * out; then their CPUs again, as a move can reset them (a cpuset that
 * differs). */
static int move_all(struct lat_away *a, bool idle)
{
	int err;

	if (!idlecg)
		return 0;
	err = lat_idlecg_move_process(idlecg, idle);
	if (idle && !idlecg->v2 && guard_tid)
		lat_idlecg_move(idlecg, guard_tid, false);
	each_thread(set_affinity, &a->runs_on);
	return err;
}

const char *lat_away_yield(struct lat_away *a, bool idle)
{
	struct sched_param none = { 0 };

	start_policy = sched_getscheduler(0);
	errno = 0;
	start_nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		start_nice = 0;
	a->priority = "normal";
	if (!idle)
		return a->priority;
	if (!sched_setscheduler(0, SCHED_IDLE, &none))
		a->priority = "idle";
	else if (!setpriority(PRIO_PROCESS, 0, 19))
		a->priority = "nice 19";
	else
		return a->priority;
	a->want_idle = true;
	a->yielded = a->priority;
	/* every thread, those started before (the outputs') too; stuck on a
	 * target's CPU, latbpf keeps its priority (lat_away_update) */
	a->idle_now = !a->stuck;
	each_thread(set_priority, &a->idle_now);
	/* and, for other groups' tasks, into the idle cgroup (idlecg.h) */
	if (lat_idlecg_make(&a->cg)) {
		idlecg = &a->cg;
		if (a->idle_now && move_all(a, true)) {
			move_all(a, false);
			idlecg = NULL;
			lat_idlecg_remove(&a->cg);
			a->cg.why = "latbpf could not move into it";
		}
	}
	if (a->stuck)
		a->priority = "normal";
	return a->priority;
}

void lat_away_unyield(void)
{
	struct sched_param none = { 0 };

	if (start_policy < 0 || start_policy == sched_getscheduler(0))
		return;
	/* a real-time start keeps its priority: only a CFS policy is ours to give back */
	if (start_policy == SCHED_OTHER || start_policy == SCHED_BATCH || start_policy == SCHED_IDLE)
		sched_setscheduler(0, start_policy, &none);
	setpriority(PRIO_PROCESS, 0, start_nice);
}

/* a lift's thread out of the idle cgroup (on cgroup2 the process goes),
 * back at the next arm */
static void lift_out(struct lat_away *a, int tid)
{
	if (idlecg && !lat_idlecg_move(idlecg, tid, false)) {
		__atomic_store_n(&lifted_out, 1, __ATOMIC_RELEASE);
		set_affinity(tid, &a->runs_on);
	}
}

/* the poll loop's thread to SCHED_FIFO 1: first out of an idle cgroup
 * that has no real-time runtime. Where that is refused, the start's
 * priority, out of the idle cgroup too (in it, it would stay idle). */
static void lift(struct lat_away *a, int tid)
{
	struct sched_param rt = { .sched_priority = 1 };
	bool normal = false, out = idlecg && !idlecg->rt_ok;

	if (out)
		lift_out(a, tid);
	if (!sched_setscheduler(tid, SCHED_FIFO, &rt))
		return;
	if (!out)
		lift_out(a, tid);
	set_priority(tid, &normal);
}

static void *guard(void *arg)
{
	struct lat_away *a = arg;
	unsigned long long n;
	sigset_t all;

	/* signals are the loop's (signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&guard_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(a->guard_fd, &n, sizeof(n)) == (ssize_t)sizeof(n) &&
	       !__atomic_load_n(&a->guard_stop, __ATOMIC_ACQUIRE)) {
		/* stuck on a target's CPU latbpf is not idle, and a real-time
		 * poll there would hold the target back */
		if (!__atomic_load_n(&a->idle_now, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&lifted, __ATOMIC_ACQUIRE))
			continue;
		/* counted first: the lifted thread may run at once */
		__atomic_add_fetch(&guard_polls, 1, __ATOMIC_RELAXED);
		lift(a, a->main_tid);
		/* marked after the lift: an arm between the two leaves it
		 * lifted for one more poll, where marked before, an arm could
		 * yield first and the lift land after, for good */
		__atomic_store_n(&lifted, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

int lat_away_guard_start(struct lat_away *a)
{
	pthread_t th;
	bool normal = false;
	int err;

	if (!a->want_idle || a->guard_on)
		return 0;
	a->guard_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (a->guard_fd < 0)
		return -errno;
	a->main_tid = (int)syscall(SYS_gettid);
	a->guard_stop = 0;
	err = -pthread_create(&th, NULL, guard, a);
	if (err) {
		close(a->guard_fd);
		a->guard_fd = -1;
		return err;
	}
	a->guard_thr = (unsigned long)th;
	a->guard_on = true;
	/* its own name: in top -H, and for an observer that tells it from
	 * the threads at SCHED_IDLE (yield.t) */
	pthread_setname_np(th, "latbpf-guard");
	/* it inherited SCHED_IDLE and the idle cgroup: back to the start's,
	 * once it has a tid. On cgroup2 a thread cannot leave its process's
	 * cgroup, where an idle group would not preempt a busy CPU's task
	 * for it: there it sleeps at SCHED_FIFO 1 instead, where allowed. */
	while (!__atomic_load_n(&guard_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	set_priority(guard_tid, &normal);
	if (idlecg && !idlecg->v2) {
		lat_idlecg_move(idlecg, guard_tid, false);
		set_affinity(guard_tid, &a->runs_on);
	} else if (idlecg) {
		struct sched_param rt = { .sched_priority = 1 };

		sched_setscheduler(guard_tid, SCHED_FIFO, &rt);
	}
	return 0;
}

void lat_away_guard_arm(struct lat_away *a, unsigned long long due_ns,
			unsigned long long slack_ns)
{
	struct itimerspec its = { 0 };
	unsigned long long at = due_ns + slack_ns;

	if (!a->guard_on)
		return;
	its.it_value.tv_sec = (time_t)(at / 1000000000ULL);
	its.it_value.tv_nsec = (long)(at % 1000000000ULL);
	timerfd_settime(a->guard_fd, TFD_TIMER_ABSTIME, &its, NULL);
	/* lifted for this poll: below everything again (stuck on a target's
	 * CPU: the priority latbpf was started with) */
	if (__atomic_exchange_n(&lifted, 0, __ATOMIC_ACQ_REL)) {
		set_priority(0, &(bool){ a->idle_now });
		if (__atomic_exchange_n(&lifted_out, 0, __ATOMIC_ACQ_REL) && a->idle_now) {
			lat_idlecg_move(idlecg, 0, true);
			set_affinity(0, &a->runs_on);
		}
	}
}

unsigned long long lat_away_guard_polls(void)
{
	return __atomic_load_n(&guard_polls, __ATOMIC_RELAXED);
}

void lat_away_guard_stop(struct lat_away *a)
{
	struct itimerspec its = { .it_value = { .tv_nsec = 1 } };
	bool idle = a->idle_now;

	if (!a->guard_on)
		return;
	/* woken at once, it sees the flag and ends */
	__atomic_store_n(&a->guard_stop, 1, __ATOMIC_RELEASE);
	timerfd_settime(a->guard_fd, 0, &its, NULL);
	pthread_join((pthread_t)a->guard_thr, NULL);
	close(a->guard_fd);
	a->guard_fd = -1;
	a->guard_on = false;
	if (__atomic_exchange_n(&lifted, 0, __ATOMIC_ACQ_REL))
		set_priority(0, &idle);
}

void lat_away_leave(struct lat_away *a)
{
	idlecg = NULL;
	lat_idlecg_remove(&a->cg);
}

// SPDX-License-Identifier: GPL-2.0
/* Targets: check that the PIDs and TIDs exist, start a COMMAND only after
 * the probes are attached, and notice when every target is gone. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include "core/target.h"
#include "core/yield.h"
#include "core/away.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/parse.h"
#include "core/proc.h"
#include "core/run.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

static int pidfd_open(pid_t pid, unsigned flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static void read_comm(pid_t id, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", id);
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The thread group a tid belongs to, from /proc/TID/status; 0 if none. */
pid_t lat_tgid_of(pid_t tid)
{
	unsigned long long tgid;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	return lat_proc_u64(path, "Tgid", &tgid) && tgid < 0x40000000 ? (pid_t)tgid : 0;
}

/* Whether execvp could find cmd, as it looks (PATH, or a path with a '/'):
 * 0, -ENOENT, or -EACCES when only something not executable was found.
 * exec can still fail later; this catches the typo before attaching. */
static int findable(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *colon;
	char buf[4096];
	struct stat st;
	int err = -ENOENT;

	if (!*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st))
			return -errno;
		return S_ISREG(st.st_mode) && !access(cmd, X_OK) ? 0 : -EACCES;
	}
	for (p = path ? path : "/bin:/usr/bin"; ; p = colon + 1) {
		size_t n;

		colon = strchrnul(p, ':');
		n = (size_t)(colon - p);
		/* an empty entry is the current directory */
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(n ? n : 1), n ? p : ".", cmd) <
			    (int)sizeof(buf) && !stat(buf, &st)) {
			if (S_ISREG(st.st_mode) && !access(buf, X_OK))
				return 0;
			err = -EACCES;
		}
		if (!*colon)
			return err;
	}
}

/* Each target's pidfd goes into one epoll set: one fd to poll however
 * many targets there are. */
static int watch(struct lat_tgt *g, pid_t id, bool thread)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = pidfd_open(id, thread ? PIDFD_THREAD : 0);

	/* Kernels before 6.9 have no thread pidfds: fall back to /proc. */
	if (fd < 0 && thread && errno == EINVAL)
		return lat_u32_append(&g->proc_tids, &g->nproc_tids, (__u32)id);
	if (fd < 0)
		return errno == EMFILE ? -EMFILE : -errno;
	ev.data.fd = fd;
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		return -errno;
	}
	g->alive++;
	return 0;
}

/* the task directories kept open for the pinned walk (below) */
#define LAT_TASK_DIRS 64

/* A pidfd per target, and the kept task directories: room for them all */
static void raise_nofile(__u32 need)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < need + 256) {
		r.rlim_cur = need + 256 < r.rlim_max ? need + 256 : r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

/* --pid's processes and --tid's threads: each must exist, and is watched
 * for its exit */
static int take_ids(struct lat_tgt *g, const struct lat_target_spec *o)
{
	__u32 i;
	int err;

	raise_nofile(o->n_pids + o->n_tids + LAT_TASK_DIRS);
	for (i = 0; i < o->n_pids; i++) {
		pid_t p = (pid_t)o->pids[i];

		if (lat_tgid_of(p) != p) {
			fprintf(stderr, lat_tgid_of(p) ?
				"latbpf: %d is a thread, not a process (use --tid)\n" :
				"latbpf: no such process: %d\n", p);
			return -ESRCH;
		}
		if ((err = lat_u32_append(&g->pids, &g->npids, (__u32)p)) || (err = watch(g, p, false)))
			return err;
		if (!g->comm[0])
			read_comm(p, g->comm, sizeof(g->comm));
	}
	for (i = 0; i < o->n_tids; i++) {
		pid_t t = (pid_t)o->tids[i];

		if (!lat_tgid_of(t)) {
			fprintf(stderr, "latbpf: no such thread: %d\n", t);
			return -ESRCH;
		}
		if ((err = lat_u32_append(&g->tids, &g->ntids, (__u32)t)) || (err = watch(g, t, true)))
			return err;
		if (!g->comm[0])
			read_comm(t, g->comm, sizeof(g->comm));
	}
	/* a short list is compared inline; more take the bitmap */
	if (g->npids <= LAT_MAX_TARGETS && g->ntids <= LAT_MAX_TARGETS) {
		for (i = 0; i < g->npids; i++)
			g->t.tgids[g->t.n_tgids++] = g->pids[i];
		for (i = 0; i < g->ntids; i++)
			g->t.tids[g->t.n_tids++] = g->tids[i];
	} else {
		g->t.mode |= LAT_TARG_MAP;
	}
	return 0;
}

/* Fork now so the probes can filter on the child's pid; it execs only once
 * lat_tgt_start() closes go_fd, so nothing runs untraced. */
static int fork_command(struct lat_tgt *g, char **command)
{
	int go[2], ex[2], err;

	if ((err = findable(command[0]))) {
		char q[LAT_ARG_MAX];

		fprintf(stderr, "latbpf: cannot run '%s': %s\n",
			lat_term_arg(q, sizeof(q), command[0]), strerror(-err));
		return -ENOENT;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return -errno;
	g->child = fork();
	if (g->child < 0)
		return -errno;
	if (g->child == 0) {
		sigset_t none;
		char c;

		close(go[1]);
		close(ex[0]);
		/* latbpf blocks these for its signalfd, and yields to every
		 * other task: exec would keep both */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		lat_away_unyield();
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* EOF: latbpf gave up before starting us */
		execvp(command[0], command);
		err = errno;
		if (write(ex[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	g->go_fd = go[1];
	g->err_fd = ex[0];
	g->t.tgids[g->t.n_tgids++] = (__u32)g->child;
	snprintf(g->comm, sizeof(g->comm), "%s", command[0]);
	return lat_u32_append(&g->pids, &g->npids, (__u32)g->child);
}

int lat_tgt_init(struct lat_tgt *g, const struct lat_target_spec *o)
{
	int err;

	memset(g, 0, sizeof(*g));
	g->go_fd = g->err_fd = -1;
	if ((g->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -errno;
	if ((err = take_ids(g, o)))
		return err;
	return o->command ? fork_command(g, o->command) : 0;
}

/* Lets the COMMAND exec; -ENOENT etc. if it could not. */
int lat_tgt_start(struct lat_tgt *g)
{
	int err = 0;
	ssize_t n;

	if (!g->child)
		return 0;
	n = write(g->go_fd, "g", 1);
	close(g->go_fd);
	g->go_fd = -1;
	if (n != 1)
		return -EPIPE;
	n = read(g->err_fd, &err, sizeof(err));
	close(g->err_fd);
	g->err_fd = -1;
	if (n == sizeof(err)) {
		waitpid(g->child, NULL, 0);
		g->child = 0;
		return -err;
	}
	return 0;
}

static bool exists(pid_t id)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	return access(path, F_OK) == 0;
}

/* True once every target has exited (never for the whole system). */
bool lat_tgt_gone(struct lat_tgt *g)
{
	struct epoll_event ev[64];
	int i, n, status;

	if (g->child) {
		if (waitpid(g->child, &status, WNOHANG) == g->child) {
			g->exit_status = status;
			g->child = 0;
			return true;
		}
		return false;
	}
	if (!g->npids && !g->ntids)
		return false;
	/* each exited target's pidfd once: out of the set, closed */
	while ((n = epoll_wait(g->epfd, ev, 64, 0)) > 0) {
		for (i = 0; i < n; i++) {
			epoll_ctl(g->epfd, EPOLL_CTL_DEL, ev[i].data.fd, NULL);
			close(ev[i].data.fd);
			g->alive--;
		}
	}
	if (g->alive)
		return false;
	for (__u32 k = 0; k < g->nproc_tids; k++)
		if (exists((pid_t)g->proc_tids[k]))
			return false;
	return true;
}

void lat_tgt_cleanup(struct lat_tgt *g)
{
	if (g->go_fd >= 0)
		close(g->go_fd);	/* EOF: the child exits without exec */
	/* closing the epoll set leaves the pidfds in it open: until exit,
	 * which comes next */
	if (g->epfd > 0)
		close(g->epfd);
	g->epfd = -1;
	if (g->child) {
		kill(g->child, SIGTERM);
		waitpid(g->child, NULL, 0);
	}
	free(g->pids);
	free(g->tids);
	free(g->proc_tids);
	g->pids = g->tids = g->proc_tids = NULL;
	g->npids = g->ntids = g->nproc_tids = 0;
}

/*
 * The first LAT_TASK_DIRS target processes' /proc/PID/task, kept open and
 * rewound at each walk: an openat of it took 30 us on average and up to
 * 200 (its close up to 60), in the kernel, where a target woken on
 * latbpf's CPU waits (this kernel does not preempt in a system call). A
 * walk that finds no thread (the process is gone, its pid perhaps taken
 * by another) closes it, and the next walk opens the path again.
 */
static struct {
	const __u32 *pids;	/* whose: the run's list these are of */
	DIR *dir[LAT_TASK_DIRS];
} task_dirs;

static void task_dirs_close(void)
{
	for (int i = 0; i < LAT_TASK_DIRS; i++)
		if (task_dirs.dir[i])
			closedir(task_dirs.dir[i]);
	memset(&task_dirs, 0, sizeof(task_dirs));
}

static DIR *task_dir(const struct lat_run *run, __u32 i)
{
	char path[64];
	DIR *dir;

	if (task_dirs.pids != run->pids) {
		task_dirs_close();
		task_dirs.pids = run->pids;
	}
	if (i < LAT_TASK_DIRS && (dir = task_dirs.dir[i])) {
		rewinddir(dir);
		return dir;
	}
	snprintf(path, sizeof(path), "/proc/%u/task", run->pids[i]);
	dir = opendir(path);
	if (dir && i < LAT_TASK_DIRS)
		task_dirs.dir[i] = dir;
	return dir;
}

void lat_run_each_thread(const struct lat_run *run, void (*fn)(__u32 tid, void *ctx),
			 void *ctx)
{
	struct dirent *d;
	size_t seen;
	DIR *dir;

	if (run->tbits) {
		for (size_t w = 0; w < run->tbits_words; w++)
			for (__u64 v = __atomic_load_n(&run->tbits[w], __ATOMIC_RELAXED); v;
			     v &= v - 1)
				fn((__u32)(w * 64 + (size_t)__builtin_ctzll(v)), ctx);
		return;
	}
	for (__u32 i = 0; i < run->npids; i++) {
		if (!(dir = task_dir(run, i)))
			continue;
		seen = 0;
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.') {
				fn((__u32)atoi(d->d_name), ctx);
				seen++;
			}
		if (i >= LAT_TASK_DIRS || !seen) {
			closedir(dir);
			if (i < LAT_TASK_DIRS)
				task_dirs.dir[i] = NULL;
		}
	}
	for (__u32 i = 0; i < run->ntids; i++)
		fn(run->tids[i], ctx);
}

/*
 * The target threads pinned to one CPU, read once for every asker: the
 * hiccup family (its pinned-first table) and the loader's own placement
 * ask at every poll. A read walks /proc/PID/task and asks each thread's
 * affinity: about 1.3 us a thread of the loader's CPU (10,000 threads, two
 * walks a second: 2.6 % of a CPU, perf). So one read serves every asker
 * for 100 ms, and a target of more than 1000 threads is read again after
 * 1 ms per thread (10 s at 10,000: 0.13 %): its affinity changes are seen
 * that much later.
 */
static struct {
	const struct lat_run *run;
	__u64 at;
	__u32 n, cap, threads;
	struct lat_pinned_tid {
		__u32 tid;
		int cpu;
	} *v;
} pinned;

static void collect_pinned(__u32 tid, void *ctx)
{
	cpu_set_t set;
	int cpu;

	(void)ctx;
	lat_yield_point();
	pinned.threads++;
	if (sched_getaffinity((pid_t)tid, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	if (pinned.n == pinned.cap) {
		__u32 cap = pinned.cap ? pinned.cap * 2 : 64;
		struct lat_pinned_tid *v = realloc(pinned.v, cap * sizeof(*v));

		if (!v)
			return;
		pinned.v = v;
		pinned.cap = cap;
	}
	pinned.v[pinned.n].tid = tid;
	pinned.v[pinned.n++].cpu = cpu;
}

void lat_run_each_pinned(const struct lat_run *run, void (*fn)(__u32 tid, int cpu, void *ctx),
			 void *ctx)
{
	__u64 now = lat_now_ns();
	__u64 gap = pinned.threads > 1000 ? pinned.threads * 1000000ULL : 100000000ULL;

	if (pinned.run != run || !pinned.at || now - pinned.at >= gap) {
		pinned.n = pinned.threads = 0;
		lat_run_each_thread(run, collect_pinned, NULL);
		pinned.run = run;
		pinned.at = now;
	}
	for (__u32 i = 0; i < pinned.n; i++)
		fn(pinned.v[i].tid, pinned.v[i].cpu, ctx);
}

void lat_run_pinned_free(void)
{
	task_dirs_close();
	free(pinned.v);
	memset(&pinned, 0, sizeof(pinned));
}

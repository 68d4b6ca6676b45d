// SPDX-License-Identifier: GPL-2.0
/*
 * latbpf [trace] [OPTIONS] [-- COMMAND]: the main job, in the steps
 * lat_trace_main() names: read the options, open the outputs, resolve the
 * target and keep latbpf's threads off its CPUs, load the target filter,
 * attach the families, then poll every interval and hand each snapshot to
 * every sink until the duration ends, a signal or 'q' comes, or the target
 * is gone; last, the whole run's snapshot.
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cli/trace.h"
#include "bench/bench.h"
#include "cli/opts.h"
#include "core/away.h"
#include "core/btf.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/flight.h"
#include "core/provenance.h"
#include "core/run.h"
#include "core/self.h"
#include "core/snap.h"
#include "core/status.h"
#include "core/target.h"
#include "core/yield.h"
#include "families/family.h"
#include "families/set.h"
#include "output/http.h"
#include "output/live.h"
#include "output/sink.h"
#include "output/text.h"
#include "version.h"	/* generated: LATBPF_VERSION, LATBPF_COMMIT */

#define MAX_SINKS 8

struct trace {
	struct lat_opts o;
	struct lat_run run;
	struct lat_tgt tgt;
	struct lat_away away;	/* latbpf's threads off the target's CPUs */
	struct lat_provenance *prov;
	struct lat_families fams;
	struct lat_sink *sinks[MAX_SINKS];	/* every output, fed the same snapshots */
	int nsinks;
	struct lat_sink_env env;	/* what the outputs are told; stdout_taken: by one */
	bool to_tty;		/* the live view has the terminal */
	struct lat_snap snap;
	struct lat_baseline *baseline;	/* --baseline: measured before attaching */
	struct lat_self self;
	__u64 t0, t_last;	/* start, last poll */
	__u64 poll_ns;		/* this poll's moment: its interval ends there */
	long interval;
	__u64 timer_t0, ticks;	/* the interval timer's start, its ticks so far */
	__u64 due;		/* when this interval's poll was due (tick) */
	int sfd;		/* the signals that end the run */
};

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	lat_libbpf_note(level, fmt, ap);
	return verbose ? vfprintf(stderr, fmt, ap) : 0;
}

static double epoch_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* a sink at the end (first: at the front); a NULL one is out of memory */
static int add_sink(struct trace *t, struct lat_sink *k, bool first)
{
	if (!k)
		return -ENOMEM;
	if (t->nsinks == MAX_SINKS) {
		k->ops->free(k);
		return -ENOSPC;
	}
	if (first)
		memmove(t->sinks + 1, t->sinks, (size_t)t->nsinks * sizeof(t->sinks[0]));
	t->sinks[first ? 0 : t->nsinks] = k;
	t->nsinks++;
	return 0;
}

static const char *q_arg(char *q, size_t n, const char *s)
{
	return lat_term_arg(q, n, s);
}

/* The outputs the options asked for (output/registry.c), in its order:
 * files first of all, so one that cannot be written is the user's to fix
 * before anything is attached; those with a thread of their own once
 * latbpf's threads keep off the target's CPUs (they inherit that). */
static enum lat_status open_outputs(struct trace *t, bool threads)
{
	for (int i = 0; lat_outputs[i].option; i++) {
		const struct lat_output *out = &lat_outputs[i];
		struct lat_sink *k;

		if (!t->o.outputs[i] || out->threads != threads)
			continue;
		k = out->open(t->o.outputs[i], &t->env);
		if (!k)
			return errno == EINVAL ? LAT_FAIL_USAGE : LAT_FAIL_RUNTIME;
		if (add_sink(t, k, false))
			return LAT_FAIL_RUNTIME;
	}
	return LAT_OK;
}

/* Signals arrive through a signalfd: the loop ends cleanly on each
 * (SIGUSR2 is --trigger SIGUSR2's). SIGWINCH is blocked for the live
 * view's own signalfd. */
static int block_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGWINCH);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigdelset(&mask, SIGWINCH);
	return signalfd(-1, &mask, SFD_CLOEXEC);
}

/* what is traced: the processes, threads, cgroups or COMMAND (forked now,
 * waiting to exec), then latbpf's threads off their CPUs */
static enum lat_status resolve_target(struct trace *t)
{
	int err = lat_tgt_init(&t->tgt, &t->o.target);

	if (!err)
		err = lat_scope_init(&t->tgt, &t->o.target);
	if (err) {
		/* said already */
		bool usage = err == -ESRCH || err == -ENOENT || err == -EMEDIUMTYPE;

		if (!usage && err != -ENODEV)
			fprintf(stderr, "latbpf: target: %s\n", strerror(-err));
		return usage ? LAT_FAIL_USAGE : err == -ENODEV ? LAT_FAIL_ENV : LAT_FAIL_RUNTIME;
	}
	lat_provenance_set_target(t->prov, &t->tgt);
	/* before anything else runs: off the target's CPUs (the COMMAND,
	 * forked already, keeps the CPUs latbpf was given) */
	t->run.pids = t->tgt.pids;
	t->run.npids = t->tgt.npids;
	t->run.tids = t->tgt.tids;
	t->run.ntids = t->tgt.ntids;
	t->run.target = t->tgt.t;
	t->run.watch = t->o.target.watch;
	lat_away_update(&t->away, &t->run);
	lat_provenance_set_away(t->prov, &t->away);
	t->run.ncpus = libbpf_num_possible_cpus();
	return t->run.ncpus > 0 ? LAT_OK : LAT_FAIL_RUNTIME;
}

static void said(void *ctx, const char *family, const char *status)
{
	lat_provenance_set_probe(ctx, family, status);
}

static void no_bpf(void)
{
	fprintf(stderr, "latbpf: not permitted to load BPF: run as root, "
		"or with CAP_BPF and CAP_PERFMON\n");
}

/* the target filter, then every family; one that fails is in the
 * provenance and the others go on */
static enum lat_status attach(struct trace *t)
{
	int err = lat_scope_load(&t->tgt, &t->run);

	if (err == -ESRCH) {
		fprintf(stderr, "latbpf: the target exited before latbpf attached\n");
		return LAT_FAIL_USAGE;
	}
	if (err == -EPERM) {
		no_bpf();
		return LAT_FAIL_ENV;
	}
	if (err) {
		fprintf(stderr, "latbpf: the target filter could not be loaded: %s "
			"(-v shows why)\n", strerror(-err));
		return LAT_FAIL_RUNTIME;
	}
	err = lat_families_attach(&t->fams, &t->run, t->o.probes,
				  (const unsigned char (*)[LAT_FAMILY_CFG])t->o.cfg, said, t->prov);
	if (t->fams.n == 0) {
		if (err == -EPERM)
			no_bpf();
		else
			fprintf(stderr, "latbpf: nothing could be attached (-v shows why)\n");
		return LAT_FAIL_ENV;
	}
	/* libbpf has freed the kernel's BTF (5-6 MiB) it parsed to load; give
	 * the heap's free pages back rather than carry them for the run */
	malloc_trim(0);
	return LAT_OK;
}

/* The summary first at the end: the text sink leads; interval blocks
 * unless the live view or the JSON has stdout. Then the live view, which
 * takes the terminal, after the "attached" line. */
static enum lat_status open_views(struct trace *t)
{
	FILE *out = t->env.stdout_taken ? stderr : stdout;

	if (add_sink(t, lat_text_sink_new(out, t->prov, !t->to_tty && !t->env.stdout_taken), true))
		return LAT_FAIL_RUNTIME;
	/* Tests and scripts wait for this line before starting their load. */
	fputs("latbpf: attached; ", stderr);
	lat_provenance_text(t->prov, stderr, 0);
	fflush(stdout);
	if (t->to_tty && add_sink(t, lat_live_sink_new(t->prov, STDIN_FILENO, STDOUT_FILENO),
				  false))
		return LAT_FAIL_RUNTIME;
	return LAT_OK;
}

/* Everything the run knows now, into the snapshot: provenance, then each
 * family, and what they lost. final: the whole run's, which also carries
 * the baseline. */
static void publish(struct trace *t, bool final)
{
	struct lat_snap *s = &t->snap;
	__u64 now = t->poll_ns, iv = t->o.interval_ns;
	__u64 grace = iv / 10 > 10000000ULL ? iv / 10 : 10000000ULL;
	/* after its due moment, or longer than an interval by as much (the
	 * first one counts from the attach, before the timer started) */
	bool late = !final && (now > t->due + grace || now - t->t_last > iv + grace);

	lat_snap_reset(s);
	s->final = final;
	s->interval = final ? 0 : t->interval;
	/* the whole run ends at the last poll, whose interval record is out
	 * already: the final snapshot adds no stretch of its own */
	if (final)
		now = t->t_last;
	s->elapsed_ns = now - t->t0;
	s->iv_start_s = (t->t_last - t->t0) / 1e9;
	s->iv_len_s = (now - t->t_last) / 1e9;
	t->t_last = now;
	if (final) {
		lat_pub_flags(lat_pub_bool(s, "final", true), LAT_F_PROV);
	} else {
		lat_pub_flags(lat_pub_num(s, "interval", t->interval), LAT_F_PROV);
		/* the interval as it was, not as asked: a late poll's is longer */
		lat_pub_flags(lat_pub_real(s, "length_s", s->iv_len_s, 3), LAT_F_PROV);
		if (late)
			lat_pub_flags(lat_pub_bool(s, "late", true), LAT_F_PROV);
	}
	lat_provenance_publish(t->prov, s, s->elapsed_ns);
	t->self.late += late;
	lat_self_publish(&t->self, s);
	lat_families_publish(&t->fams, s);
	lat_snap_publish_drops(s);
	if (final)
		lat_baseline_publish(t->baseline, s);
	if (s->oom)
		fprintf(stderr, "latbpf: out of memory: this report is incomplete\n");
}

/* Every sink renders the snapshot; one that fails says so and the others go
 * on. Returns the first failure. */
static int render(struct trace *t, bool final)
{
	int err, first = 0;

	publish(t, final);
	for (int i = 0; i < t->nsinks; i++) {
		struct lat_sink *k = t->sinks[i];

		lat_yield_point();
		err = final ? k->ops->final(k, &t->snap) : k->ops->interval(k, &t->snap);
		first = first ? first : err;
	}
	return first;
}

static int poll_all(struct trace *t)
{
	lat_self_poll(&t->self);
	lat_yield_point();
	lat_away_update(&t->away, &t->run);
	t->poll_ns = lat_now_ns();
	return lat_families_poll(&t->fams, t->poll_ns);
}

/* one interval: read the maps, render. due: when its poll was due (for the
 * run's last stretch, the tick it did not wait for); publish() says it came
 * late when it ends more than a tenth of an interval (10 ms at least) after
 * that, or is longer than an interval by as much: latbpf yields, so a busy
 * moment holds it back, and the interval is longer by as much */
static int tick(struct trace *t, __u64 due)
{
	int err;

	t->interval++;
	if ((err = poll_all(t)))
		return err;
	t->due = due;
	render(t, false);
	/* the next poll: lifted by the guard if a whole interval overdue */
	lat_away_guard_arm(&t->away, t->timer_t0 + (t->ticks + 1) * t->o.interval_ns,
			   t->o.interval_ns);
	return 0;
}

/* the timer fired ticks times since it was last read: the poll was due at
 * the first of them (more than one: a poll held back past a whole interval,
 * whose record is as much longer) */
static __u64 due_at(struct trace *t, __u64 ticks)
{
	__u64 due = t->timer_t0 + (t->ticks + 1) * t->o.interval_ns;

	t->ticks += ticks;
	return due;
}

static int start_timer(__u64 interval_ns)
{
	struct itimerspec its = { 0 };
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (tfd < 0)
		return -errno;
	its.it_interval.tv_sec = (time_t)(interval_ns / 1000000000ULL);
	its.it_interval.tv_nsec = (long)(interval_ns % 1000000000ULL);
	its.it_value = its.it_interval;
	timerfd_settime(tfd, 0, &its, NULL);
	return tfd;
}

/* how long poll() may wait: until --duration ends, or a look at /proc for
 * threads without pidfds; -2 when the duration is over */
static int wait_ms(const struct trace *t, __u64 end)
{
	if (end) {
		__u64 now = lat_now_ns(), ms;

		if (now >= end)
			return -2;
		/* --duration goes to 1e18 ns: its ms do not fit an int */
		ms = (end - now + 999999) / 1000000;
		return ms > 3600000 ? 3600000 : (int)ms;
	}
	return t->tgt.nproc_tids ? 200 : -1;
}

/* the sinks people talk to: their fds after pfd[from] */
static int watch_sinks(const struct trace *t, struct pollfd *pfd, int from,
		       struct lat_sink **who)
{
	int n = from;

	for (int i = 0; i < t->nsinks && n < 3 + MAX_SINKS; i++) {
		struct lat_sink *k = t->sinks[i];
		int fd = k->ops->input_fd ? k->ops->input_fd(k) : -1;

		if (fd >= 0) {
			who[n] = k;
			pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
		}
	}
	return n;
}

/* SIGHUP: each sink with a configuration file rereads it */
static void reload_sinks(struct trace *t)
{
	for (int i = 0; i < t->nsinks; i++)
		if (t->sinks[i]->ops->reload)
			t->sinks[i]->ops->reload(t->sinks[i]);
}

/* Runs until the duration ends, a signal or 'q' arrives, or the target is
 * gone. Returns 0 or a negative errno. */
static int loop(struct trace *t)
{
	struct pollfd pfd[3 + MAX_SINKS];
	struct lat_sink *who[3 + MAX_SINKS];
	__u64 end = t->o.duration_ns ? t->t0 + t->o.duration_ns : 0;
	int tfd = start_timer(t->o.interval_ns), n, err = 0, ms, i;

	if (tfd < 0)
		return tfd;
	t->timer_t0 = lat_now_ns();
	lat_away_guard_arm(&t->away, t->timer_t0 + t->o.interval_ns, t->o.interval_ns);
	for (;;) {
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = t->sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = t->tgt.alive ? t->tgt.epfd : -1,
					    .events = POLLIN };
		n = watch_sinks(t, pfd, n, who);
		if ((ms = wait_ms(t, end)) == -2)
			break;
		if (poll(pfd, (nfds_t)n, ms) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		lat_stretch_start();
		if (pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(t->sfd, &si, sizeof(si)) != sizeof(si))
				si.ssi_signo = SIGCHLD;	/* none read: nothing to do */
			if (si.ssi_signo == SIGUSR2) {
				/* --trigger SIGUSR2's, else nothing */
				if (t->env.flight)
					lat_flight_signal(t->env.flight, lat_boot_ns());
			} else if (si.ssi_signo != SIGCHLD) {
				/* with --web-config, SIGHUP is a service's reload */
				if (si.ssi_signo != SIGHUP || !t->o.web_config)
					break;	/* SIGINT, SIGTERM, SIGHUP */
				reload_sinks(t);
			}
		}
		if (pfd[1].revents) {
			__u64 ticks;

			if (read(tfd, &ticks, sizeof(ticks)) < 0)
				continue;
			if ((err = tick(t, due_at(t, ticks))))
				break;
		}
		for (i = 3; i < n; i++)
			if (pfd[i].revents && !who[i]->ops->input(who[i]))
				goto out;
		if (lat_tgt_gone(&t->tgt)) {
			fprintf(stderr, "latbpf: target exited\n");
			break;
		}
	}
out:
	close(tfd);
	return err;
}

/* The loop is over: the terminal back, then the stretch since the last
 * interval as one more interval record, so the intervals add up to the
 * whole run exactly (under 1 ms, when the duration ended on a tick, the
 * run ends at the last poll instead), then the whole run's. */
static int finish(struct trace *t, int err)
{
	/* the end stays below everything, and the guard lifts it if it is
	 * an interval overdue: what is left is bounded, and a user waits */
	lat_away_guard_arm(&t->away, lat_now_ns(), t->o.interval_ns);
	for (int i = 0; i < t->nsinks; i++)
		if (t->sinks[i]->ops->stop)
			t->sinks[i]->ops->stop(t->sinks[i]);
	if (!err && lat_now_ns() - t->t_last >= 1000000ULL)
		err = tick(t, t->timer_t0 + (t->ticks + 1) * t->o.interval_ns);
	if (render(t, true) && !err)
		err = -EIO;
	return err;
}

static void cleanup(struct trace *t)
{
	for (int i = 0; i < t->nsinks; i++)
		if (t->sinks[i]->ops->stop)
			t->sinks[i]->ops->stop(t->sinks[i]);
	lat_families_destroy(&t->fams);
	/* the guard watches the detach too: at SCHED_IDLE on a busy machine
	 * it waited on every other task while the programs ran on (the
	 * 6.1-rt guest beside a target of 2,000 threads: 140 s from SIGINT
	 * to exit, with the guard stopped before it) */
	lat_away_guard_stop(&t->away);
	lat_tgt_cleanup(&t->tgt);
	lat_run_pinned_free();
	lat_scope_cleanup(&t->tgt);
	for (int i = 0; i < t->nsinks; i++)
		t->sinks[i]->ops->free(t->sinks[i]);
	t->nsinks = 0;
	lat_snap_free(&t->snap);
	lat_flight_free(t->env.flight);
	lat_provenance_free(t->prov);
	lat_baseline_free(t->baseline);
	lat_self_free(&t->self);
	lat_opts_free(&t->o);
	if (t->sfd >= 0)
		close(t->sfd);
	/* last: a move out of the idle cgroup waits for an RCU grace period,
	 * which the programs, detached above, no longer count in */
	lat_away_leave(&t->away);
}

/* after the options: everything up to the first interval */
static enum lat_status prepare(struct trace *t, int argc, char **argv)
{
	enum lat_status st;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "latbpf: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"CONFIG_DEBUG_INFO_BTF=y is required\n");
		return LAT_FAIL_ENV;
	}
	t->env.t0_epoch_s = epoch_s();
	t->env.web_config = t->o.web_config;
	/* --record: its memory, filled by the record family, read by --trace */
	if (t->o.rec.on) {
		t->env.flight = lat_flight_new(&t->o.rec, libbpf_num_possible_cpus());
		if (!t->env.flight)
			return LAT_FAIL_RUNTIME;
		t->run.flight = t->env.flight;
	}
	if ((st = open_outputs(t, false)))
		return st;
	t->sfd = block_signals();
	t->prov = lat_provenance_new(argc, argv, t->o.interval_ns, &t->o.target.watch);
	if (!t->prov || t->sfd < 0)
		return LAT_FAIL_RUNTIME;
	/* before attaching: the probes must not weigh on what it measures;
	 * at the priority latbpf was started with, as a bench runs */
	if (t->o.baseline) {
		t->baseline = lat_baseline_run(lat_provenance_tsc_flags(t->prov));
		if (!t->baseline)
			fprintf(stderr, "latbpf: --baseline: out of memory; going on without\n");
	}
	/* where latbpf may run; it yields once attached (below), and the
	 * COMMAND, forked next, keeps what latbpf was started with */
	lat_away_init(&t->away);
	/* the socket systemd passed, if it did, taken before a COMMAND is
	 * forked: not the COMMAND's (--prometheus serves it) */
	lat_http_inherit();
	if ((st = resolve_target(t)) || (st = open_outputs(t, true)))
		return st;
	if ((st = attach(t)))
		return st;
	/* below everything it watches from here on: the attach ran at the
	 * priority latbpf was started with (away.h) */
	lat_away_yield(&t->away, !t->o.priority_normal);
	if ((err = lat_away_guard_start(&t->away)))
		fprintf(stderr, "latbpf: no guard thread against starving at SCHED_IDLE "
			"(%s); going on without\n", strerror(-err));
	t->to_tty = !t->o.no_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) &&
		    !t->env.stdout_taken;
	/* the live view shows what latbpf's programs cost, as bpftop does:
	 * the kernel's run-time statistics on while it runs */
	lat_self_init(&t->self, t->o.bpf_stats || t->to_tty);
	t->t0 = t->t_last = lat_now_ns();
	lat_families_start(&t->fams, t->t0);
	return open_views(t);
}

enum lat_status lat_trace_main(int argc, char **argv, int sub)
{
	struct trace t = { .tgt.go_fd = -1, .tgt.err_fd = -1, .self.stats_fd = -1, .sfd = -1 };
	enum lat_status st;
	char q[LAT_ARG_MAX];
	int err;

	/* Blocks of 64 KiB and more (per-CPU copies, thread sets) come from
	 * mmap and go back at free: glibc's default raises that bar after
	 * each free, so the heap keeps every poll's high water and
	 * fragments as the blocks change size (26 MiB with 10,000 threads) */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	/* and the heap's top is not given back and taken again at each
	 * poll: a render's strings grew it 8 brk() calls of 132 KiB (a page
	 * fault a page) and trimmed 700 KiB after, kernel work a target
	 * woken on latbpf's CPU waits behind. The peak (VmHWM) is the same:
	 * those pages were resident at each render's height */
	mallopt(M_TRIM_THRESHOLD, 2 * 1024 * 1024);
	mallopt(M_TOP_PAD, 512 * 1024);
	if (lat_opts_parse(argc - sub + 1, argv + sub - 1, &t.o))
		return LAT_FAIL_USAGE;
	if (t.o.help || t.o.version) {
		if (t.o.help)
			lat_usage(stdout);
		else
			printf("latbpf %s (%s)\n", LATBPF_VERSION, LATBPF_COMMIT);
		lat_opts_free(&t.o);
		return LAT_OK;
	}
	verbose = t.o.verbose;
	libbpf_set_print(libbpf_print);
	if ((st = prepare(&t, argc, argv)))
		goto out;
	err = lat_tgt_start(&t.tgt);
	if (err) {
		for (int i = 0; i < t.nsinks; i++)
			if (t.sinks[i]->ops->stop)
				t.sinks[i]->ops->stop(t.sinks[i]);
		fprintf(stderr, "latbpf: cannot run '%s': %s\n",
			q_arg(q, sizeof(q), t.o.target.command[0]), strerror(-err));
		st = LAT_FAIL_USAGE;
		goto out;
	}
	err = finish(&t, loop(&t));
	st = err ? LAT_FAIL_RUNTIME : LAT_OK;
out:
	cleanup(&t);
	return st;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random latbpf command lines from its option grammar (latbpf --help,
 * latbpf bench --help): valid and invalid values, unknown and abbreviated
 * options, clusters, repeats, missing values, binary junk, "--" commands.
 * tests/unit/test_fuzz_opts.c parses 10,000 of them in process;
 * tools/argfuzz prints "safe" ones that tests/integration/fuzz_cli.t runs
 * through the real binary.
 *
 * Safe means runnable as root on a shared machine: files only under dir (or
 * /dev/null, or a directory that does not exist), commands from a fixed
 * list, --prometheus only on port 0, a run-ending --duration of at most
 * 100 ms first (a later one of at most 100 ms may replace it), and bench
 * only with a cheap benchmark named and --duration 10ms first.
 *
 * Every case is reproducible from (seed, index) alone.
 */
#ifndef LATBPF_ARGFUZZ_H
#define LATBPF_ARGFUZZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define AF_MAX_ARGS 64
#define AF_BUF 32768

struct af {
	unsigned long long rng;
	bool safe;
	const char *dir;	/* safe: where files may be written */
	const char *latwork;	/* safe: a workload binary, for COMMAND */
	unsigned live_pid, live_tid;	/* safe: a process and one of its threads */
	bool bench;		/* this case is latbpf bench's */
	int argc;
	char *argv[AF_MAX_ARGS + 1];
	char buf[AF_BUF];
	size_t used;
};

#define AF_N(arr) (sizeof(arr) / sizeof((arr)[0]))
#define AF_PICK(a, arr) ((arr)[af_rand(a, AF_N(arr))])

/* splitmix64: case i of seed s starts from its own state */
static unsigned long long af_next(struct af *a)
{
	unsigned long long z = (a->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned af_rand(struct af *a, unsigned n)
{
	return (unsigned)(af_next(a) % n);
}

static bool af_chance(struct af *a, unsigned pct)
{
	return af_rand(a, 100) < pct;
}

/* a string in the case's buffer (cut when the buffer is full) */
static char *__attribute__((format(printf, 2, 3))) af_str(struct af *a, const char *fmt, ...)
{
	char *s = a->buf + a->used;
	size_t room = sizeof(a->buf) - a->used;
	va_list ap;
	int n;

	if (room < 2)
		return a->buf + sizeof(a->buf) - 1;	/* "" */
	va_start(ap, fmt);
	n = vsnprintf(s, room, fmt, ap);
	va_end(ap);
	a->used += n < 0 ? 1 : (size_t)n < room ? (size_t)n + 1 : room;
	return s;
}

static void af_push(struct af *a, const char *s)
{
	if (a->argc < AF_MAX_ARGS)
		a->argv[a->argc++] = (char *)s;
	a->argv[a->argc] = NULL;
}

/* Bytes 1..255: escapes, C1, invalid UTF-8, quotes, format directives,
 * option-like pieces; now and then a long one. safe: no '/' (a path part). */
static char *af_junk(struct af *a)
{
	static const char *const spice[] = {
		"\x1b[2J", "\x1b]0;pwn\x07", "\x9b" "31m", "\xc2\x9b", "\n", "\r", "\t", "\x07",
		"'", "\"", "\\", "%s%n", "%", "\xff", "\xc3", "\xed\xa0\x80", "\xe2\x80\xae",
		"--", "=", ",", "-", " ", "ms", "1", "pid",
	};
	char tmp[4096];
	size_t n = 0, pieces;
	unsigned k = af_rand(a, 100);

	pieces = k < 70 ? af_rand(a, 9) : k < 95 ? 8 + af_rand(a, 32) : 200 + af_rand(a, 3000);
	while (pieces-- && n < sizeof(tmp) - 16) {
		k = af_rand(a, 4);
		if (k < 2) {
			tmp[n++] = (char)(1 + af_rand(a, 255));
		} else if (k == 2) {
			tmp[n++] = (char)(0x20 + af_rand(a, 0x5f));
		} else {
			const char *s = AF_PICK(a, spice);

			memcpy(tmp + n, s, strlen(s));
			n += strlen(s);
		}
		if (a->safe && tmp[n - 1] == '/')
			tmp[n - 1] = '_';
	}
	tmp[n] = '\0';
	return af_str(a, "%s", tmp);
}

/* A duration. cap_ms: it may end a safe run, so a valid one is at most
 * that (0: anything). */
static char *af_dur(struct af *a, unsigned cap_ms)
{
	static const char *const units[] = { "ns", "us", "ms", "s", "m", "h" };
	/* invalid, or valid and at most 100 ms */
	static const char *const bad[] = {
		"", "5", "5x", "5sec", "5 s", "5S", "-1s", "-0s", "1e30s", "99999999999999999999h",
		"1e400s", "1e-400s", "nan", "inf", "infs", "nans", "-infms", "1.5.2s", "ms", "s5",
		".s", " 50ms", "+50ms", "0x10ms", "5e1ms", "050ms", "1e-3s", "0.0000001ns",
		"18446744073709551616ns", "1000000000000000001ns", "0.5", "10\n", "10ms\n", "10ms ",
		"１０ms",
	};
	/* valid, and maybe long: only where nothing waits on them */
	static const char *const big[] = { "1e18ns", "277777h", "0x10s", "0x1p3s", "1e3s" };
	unsigned k = af_rand(a, 100);

	if (k < 55) {
		if (cap_ms) {
			unsigned ms = 1 + af_rand(a, cap_ms);

			switch (af_rand(a, 4)) {
			case 0: return af_str(a, "%ums", ms);
			case 1: return af_str(a, "%uus", ms * 1000);
			case 2: return af_str(a, "0.%03us", ms);
			default: return af_str(a, "%u000000ns", ms);
			}
		}
		switch (af_rand(a, 4)) {
		case 0: return af_str(a, "%u%s", af_rand(a, 100000), AF_PICK(a, units));
		case 1: return af_str(a, "%u.%u%s", af_rand(a, 1000), af_rand(a, 1000),
				      AF_PICK(a, units));
		case 2: return af_str(a, "%ue%u%s", af_rand(a, 10), af_rand(a, 20), AF_PICK(a, units));
		default: return af_str(a, "0.%06u%s", af_rand(a, 1000000), AF_PICK(a, units));
		}
	}
	if (k < 90)
		return (char *)AF_PICK(a, bad);
	if (k < 93 && !cap_ms)
		return (char *)AF_PICK(a, big);
	return af_junk(a);
}

/* A pid or tid list. */
static char *af_ids(struct af *a, bool tid)
{
	static const char *const bad[] = {
		"", "0", "-5", "abc", "1,,2", "1,", ",1", "1,2x", "99999999999", "1 2", "+1", " 1",
		"0x10", "1073741824", "4294967297", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "1\n",
		"9223372036854775808",
	};
	char *s = af_str(a, "%s", "");
	unsigned n, i, k = af_rand(a, 100);

	if (k >= 60)
		return k < 90 ? (char *)AF_PICK(a, bad) : af_junk(a);
	n = 1 + af_rand(a, af_chance(a, 10) ? 17 : 3);
	for (i = 0; i < n; i++) {
		unsigned id;

		if (a->safe) {
			unsigned ids[] = { 1, tid ? a->live_tid : a->live_pid, a->live_pid,
					   999999999, 1073741823 };

			id = AF_PICK(a, ids);
		} else {
			id = af_chance(a, 50) ? 1 + af_rand(a, 40000) : 1 + af_rand(a, 0x3fffffff);
		}
		a->used--;	/* over the NUL: one string grows */
		af_str(a, "%s%u", i ? "," : "", id);
	}
	return s;
}

static char *af_probes(struct af *a)
{
	static const char *const fam[] = { "sched", "hiccup", "fault", "block", "tcp", "all" };
	static const char *const bad[] = { "", ",", "disk", "SCHED", "sched,disk", "sched ",
					   "sched,,disk", "al", "sched\n" };
	char *s = af_str(a, "%s", "");
	unsigned n, i, k = af_rand(a, 100);

	if (k >= 70) {
		if (k < 75) {
			for (i = 0; i < 60; i++) {	/* longer than its 256-byte buffer */
				a->used--;
				af_str(a, "sched,");
			}
			return s;
		}
		return k < 92 ? (char *)AF_PICK(a, bad) : af_junk(a);
	}
	n = 1 + af_rand(a, 3);
	for (i = 0; i < n; i++) {
		a->used--;
		/* empty items between commas are skipped: valid */
		af_str(a, "%s%s", i ? af_chance(a, 10) ? ",," : "," : af_chance(a, 5) ? "," : "",
		       AF_PICK(a, fam));
	}
	return s;
}

/* --json/--hlog's FILE (and bench's --dir: dir) */
static char *af_path(struct af *a, bool dash, bool dir)
{
	unsigned k = af_rand(a, 100);

	if (!a->safe) {
		static const char *const any[] = { "-", "out.json", "", "/nonexistent/dir/x",
						   "/dev/null", "/tmp", "a b", "-x" };

		return k < 70 ? (char *)AF_PICK(a, any) : af_junk(a);
	}
	if (dash && k < 25)
		return "-";
	if (k < 60)
		return dir ? (char *)a->dir : af_str(a, "%s/f%u", a->dir, af_rand(a, 8));
	if (k < 70)
		return af_str(a, "%s/nodir/x", a->dir);
	if (k < 75)
		return "";
	if (k < 80)
		return "/dev/null";
	return af_str(a, "%s/%s", a->dir, af_junk(a));
}

static char *af_prom(struct af *a)
{
	static const char *const ok_safe[] = { "0", "127.0.0.1:0", "localhost:0", "[::1]:0" };
	static const char *const ok_any[] = { "9100", "127.0.0.1:9100", "0.0.0.0:80", "[::]:65535" };
	static const char *const bad[] = {
		"", "65536", "-1", "+0", " 0", "\n0", "0\n", "host:80", "1.2.3.4:5:6", "[::1]",
		"[zz]:0", "127.0.0.1:", ":80", "localhost", "127.0.0.1:99999", "[::1]:-1",
		"256.0.0.1:0", "example.com:0", "[::1]:0x", "0 ",
	};
	unsigned k = af_rand(a, 100);

	if (k < 45)
		return (char *)(a->safe || af_chance(a, 50) ? AF_PICK(a, ok_safe) : AF_PICK(a, ok_any));
	return k < 90 ? (char *)AF_PICK(a, bad) : af_junk(a);
}

/* What follows "--": the in-process parser only keeps it; a safe run
 * starts it. */
static void af_command(struct af *a)
{
	unsigned i, n;

	if (!a->safe) {
		static const char *const w[] = { "sleep", "1", "true", "--pid", "3", "-v", "--", "" };

		for (i = 0, n = af_rand(a, 5); i < n; i++)
			af_push(a, af_chance(a, 20) ? af_junk(a) : AF_PICK(a, w));
		return;
	}
	switch (af_rand(a, 11)) {
	case 0: af_push(a, "true"); break;
	case 1: af_push(a, "false"); break;
	case 2: af_push(a, "sleep"); af_push(a, "4.321"); break;	/* outlives the run */
	case 3: af_push(a, "/nonexistent/cmd"); break;
	case 4: af_push(a, ""); break;
	case 5: af_push(a, "/etc"); break;
	case 6: af_push(a, "sh"); af_push(a, "-c"); af_push(a, "exit 3"); break;
	case 7:
		af_push(a, a->latwork);
		af_push(a, "--comm");
		af_push(a, "fuzzcmd");
		af_push(a, "sleep");
		af_push(a, "--sleep");
		af_push(a, "1ms");
		af_push(a, "--count");
		af_push(a, "5000");
		break;
	case 8: af_push(a, af_str(a, "/nonexistent/%s", af_junk(a))); break;
	case 9: af_push(a, "true"); af_push(a, af_junk(a)); af_push(a, "--pid"); break;
	default: break;	/* "--" and nothing */
	}
}

struct af_opt {
	const char *name;	/* long, without "--" */
	char short_;		/* or 0 */
	char *(*value)(struct af *a, int which);	/* NULL: a flag */
	int which;
};

static char *af_v_ids(struct af *a, int which) { return af_ids(a, which); }
static char *af_v_probes(struct af *a, int which) { return af_probes(a); }
static char *af_v_dur(struct af *a, int cap_ms) { return af_dur(a, a->safe ? (unsigned)cap_ms : 0); }
static char *af_v_path(struct af *a, int which) { return af_path(a, which == 1, which == 2); }
static char *af_v_prom(struct af *a, int which) { return af_prom(a); }
static char *af_v_cpus(struct af *a, int which)
{
	static const char *const l[] = { "0", "1", "0-1", "0,1", "1-0", "", "a", "-1", "0-",
					 "5", "0-99999999999", "99999999999", "0,,1", "1,0", "0 1",
					 "4096", "1-1" };

	return af_chance(a, 90) ? (char *)AF_PICK(a, l) : af_junk(a);
}

static char *af_v_priority(struct af *a, int which)
{
	static const char *const l[] = { "idle", "normal", "", "IDLE", "nice", "19", "normal,idle" };

	return af_chance(a, 90) ? (char *)AF_PICK(a, l) : af_junk(a);
}

static char *af_v_cgroup(struct af *a, int which)
{
	static const char *const l[] = { "/", "/nope", "", ",", "/,/", "/sys/fs/cgroup",
					 "/sys/fs/cgroup/unified", "/sys/fs/cgroup/cpu",
					 "/etc/hostname", "system.slice", "/user.slice,/nope" };

	return af_chance(a, 90) ? (char *)AF_PICK(a, l) : af_junk(a);
}

/* --trigger: the forms, good and bad */
static char *af_v_trigger(struct af *a, int which)
{
	static const char *const l[] = {
		"hiccup>2ms", "runq>5ms", "runq.p99>1ms", "SIGUSR2", "sigusr2", "hiccup>1ms,before=1s",
		"hiccup>1ms,before=100ms,after=100ms,every=0,max=2", "hiccup.p99>10ms",
		"sched.runq.p50>1us", "runq.p99.9>1ms", "offcpu_blocked.p90>1ms", "nope", "",
		"hiccup>", "hiccup>1", "hiccup>-1ms", "runq.p100>1ms", "runq.p0>1ms",
		"hiccup>1ms,before=-1s", "hiccup>1ms,max=0", "hiccup>1ms,max=99999",
		"hiccup>1ms,x=1", "hiccup>1ms,", ",", "SIGUSR2,before=20s", "nosuch.p99>1ms",
		"hiccup>1ms,every", "runq>>1ms", "runq<1ms",
	};

	return af_chance(a, 90) ? (char *)AF_PICK(a, l) : af_junk(a);
}

/* --runs: a count, in and out of 1..100; at most 3 where it runs */
static char *af_v_runs(struct af *a, int which)
{
	static const char *const l[] = { "1", "2", "3", "0", "-1", "101", "100", "5x", "",
					 "99999999999999999999", "0x3", " 2" };

	if (a->safe)
		return (char *)AF_PICK(a, ((const char *const[]){ "1", "2", "3", "0", "x" }));
	return af_chance(a, 90) ? (char *)AF_PICK(a, l) : af_junk(a);
}

/* latbpf --help's options, each family's included */
static const struct af_opt af_trace_opts[] = {
	{ "pid", 'p', af_v_ids, 0 }, { "tid", 't', af_v_ids, 1 },
	{ "probes", 0, af_v_probes, 0 }, { "interval", 'i', af_v_dur, 0 },
	{ "duration", 'd', af_v_dur, 100 }, { "threshold", 0, af_v_dur, 0 },
	{ "json", 0, af_v_path, 1 }, { "hlog", 0, af_v_path, 0 },
	{ "prometheus", 0, af_v_prom, 0 }, { "no-tui", 0, NULL, 0 },
	{ "baseline", 0, NULL, 0 }, { "verbose", 'v', NULL, 0 }, { "version", 'V', NULL, 0 },
	{ "help", 'h', NULL, 0 }, { "per-thread", 0, NULL, 0 }, { "per-cpu", 0, NULL, 0 },
	{ "per-remote", 0, NULL, 0 }, { "bpf-stats", 0, NULL, 0 },
	{ "cgroup", 0, af_v_cgroup, 0 }, { "children", 0, NULL, 0 },
	{ "cpus", 0, af_v_cpus, 0 }, { "priority", 0, af_v_priority, 0 },
	{ "web-config", 0, af_v_path, 0 }, { "record", 0, af_v_dur, 0 },
	{ "trigger", 0, af_v_trigger, 0 }, { "trace", 0, af_v_path, 0 },
};

/* latbpf bench --help's */
static const struct af_opt af_bench_opts[] = {
	{ "duration", 'd', af_v_dur, 30 }, { "cpu", 'c', af_v_cpus, 0 },
	{ "interval", 'i', af_v_dur, 0 }, { "dir", 'D', af_v_path, 2 },
	{ "json", 'j', af_v_path, 1 }, { "list", 'l', NULL, 0 }, { "help", 'h', NULL, 0 },
	{ "runs", 'r', af_v_runs, 0 }, { "hlog", 'H', af_v_path, 0 },
	{ "quick", 'q', NULL, 0 },
	/* bench compare's, in bench --help too: bench itself refuses it */
	{ "force", 0, NULL, 0 },
};

/* One option, in one of the ways getopt_long reads it (and some it does not) */
static void af_option(struct af *a, const struct af_opt *o)
{
	unsigned k = af_rand(a, 100), cut;
	char *v;

	/* --baseline costs a second: rare where it runs */
	if (a->safe && !strcmp(o->name, "baseline") && !af_chance(a, 10))
		o = &af_trace_opts[9];	/* --no-tui */
	if (!o->value) {
		if (k < 55 || (k < 75 && !o->short_))
			af_push(a, af_str(a, "--%s", o->name));
		else if (k < 75)
			af_push(a, af_str(a, "-%c", o->short_));
		else if (k < 90)	/* an abbreviation, maybe ambiguous */
			af_push(a, af_str(a, "--%.*s", 1 + (int)af_rand(a, (unsigned)strlen(o->name)),
					  o->name));
		else		/* a value it does not take */
			af_push(a, af_str(a, "--%s=%s", o->name, af_chance(a, 50) ? "1" : af_junk(a)));
		return;
	}
	v = o->value(a, o->which);
	if (k < 45 || (k < 70 && !o->short_)) {
		af_push(a, af_str(a, "--%s", o->name));
		af_push(a, v);
	} else if (k < 70) {
		af_push(a, af_str(a, "-%c", o->short_));
		af_push(a, v);
	} else if (k < 82) {
		af_push(a, af_str(a, "--%s=%s", o->name, v));
	} else if (k < 90 && o->short_) {
		af_push(a, af_str(a, "-%c%s", o->short_, v));
	} else {
		cut = 1 + af_rand(a, (unsigned)strlen(o->name));
		af_push(a, af_str(a, "--%.*s", (int)cut, o->name));
		af_push(a, v);
	}
}

/* Not in the grammar: unknown options, stray words, clusters */
static void af_stray(struct af *a, bool bench)
{
	static const char *const s[] = {
		"--frobnicate", "-x", "-Z", "---", "--=x", "-", "--pe", "--p", "--d", "sleep", "-vx",
		"-xv", "-vV", "-hv", "-:", "-?", "-W", "--no-tui=", "--json=", "-", "bench", "trace",
		"--list", "-l", "--cpu", "--dir",
	};
	unsigned k = af_rand(a, 100);

	if (k < 55)
		af_push(a, AF_PICK(a, s));
	else if (k < 70)
		af_push(a, af_str(a, "-%s", af_junk(a)));
	else if (k < 80)
		af_push(a, af_str(a, "--%s", af_junk(a)));
	else if (k < 90 && !bench)	/* a cluster with a value at its end */
		af_push(a, af_str(a, "-v%s", af_chance(a, 50) ? af_str(a, "d%s", af_dur(a, 100)) :
					     af_str(a, "p%s", af_ids(a, false))));
	else
		af_push(a, af_junk(a));
}

static void af_bench(struct af *a)
{
	static const char *const cheap[] = { "timer", "syscall", "thread", "fork",
					     "syscall_getppid", "syscall_write_null", "timer_rdtsc" };
	static const char *const any[] = { "ctxsw", "fault_minor", "fault_major", "memlat",
					   "tcp_rtt", "tcp_connect", "hiccup", "fault", "tcp",
					   "memlat_4k", "hiccup_raw", "pipe_1thread" };
	static const char *const bad[] = { "", "nope", "(x86)", "...", "TIMER", "timer ",
					   "hiccup_cpuN_raw", "timer,syscall", "-", "all" };
	unsigned i, n = af_rand(a, 7);

	af_push(a, "bench");
	a->bench = true;
	if (a->safe) {
		af_push(a, "--duration");
		af_push(a, "10ms");
		af_push(a, AF_PICK(a, cheap));
	}
	for (i = 0; i < n; i++) {
		unsigned k = af_rand(a, 100);

		if (k < 50)
			af_option(a, &AF_PICK(a, af_bench_opts));
		else if (k < 65)
			af_push(a, a->safe || af_chance(a, 50) ? AF_PICK(a, cheap) : AF_PICK(a, any));
		else if (k < 80)
			af_push(a, af_chance(a, 70) ? AF_PICK(a, bad) : af_junk(a));
		else if (k < 85)
			af_push(a, "--");
		else
			af_stray(a, true);
	}
	if (af_chance(a, 4))	/* a missing value */
		af_push(a, af_chance(a, 50) ? "--json" : "-d");
}

/* Case index of seed: argv[0] is "latbpf". */
static void af_gen(struct af *a, unsigned long long seed, unsigned index)
{
	unsigned i, n, k;

	a->rng = seed * 0x2545f4914f6cdd1dULL + index;
	af_next(a);
	a->argc = 0;
	a->used = 0;
	a->bench = false;
	af_push(a, "latbpf");
	k = af_rand(a, 100);
	if (k < 15) {
		af_bench(a);
		return;
	}
	if (k < 20)
		af_push(a, "trace");
	if (a->safe) {
		af_push(a, "--duration");
		af_push(a, "100ms");
	}
	/* each option may be the one that is wrong: safe runs are meant to
	 * attach often too, so they have fewer */
	n = af_chance(a, 10) ? 8 + af_rand(a, 20) : af_rand(a, a->safe ? 4 : 7);
	for (i = 0; i < n; i++) {
		if (af_chance(a, 85))
			af_option(a, &AF_PICK(a, af_trace_opts));
		else
			af_stray(a, false);
	}
	k = af_rand(a, 100);
	if (k < 18) {
		af_push(a, "--");
		af_command(a);
	} else if (k < 23) {	/* a missing value */
		static const char *const last[] = { "--pid", "-p", "--json", "-d", "--threshold",
						    "--prometheus", "-vt" };

		af_push(a, AF_PICK(a, last));
	}
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * 10,000 random command lines (tests/unit/argfuzz.h) through the parsers
 * main.c calls, lat_opts_parse and lat_bench_parse, built with ASan and
 * UBSan (Makefile). Each is parsed twice: the answer is 0 or -EINVAL (main
 * makes that exit 0 or 2), the same both times; an error is exactly one
 * printable line starting "latbpf: " (bench: "latbpf bench: "); a success
 * says nothing and what it parsed holds together. LATBPF_FUZZ_SEED and
 * LATBPF_FUZZ_N choose the cases; a failure names its case.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bench/bench.h"
#include "cli/opts.h"
#include "core/escape.h"
#include "core/parse.h"
#include "families/family.h"
#include "tap.h"
#include "argfuzz.h"

#define SEED 20261123ULL
#define MSG_MAX 300

static int mfd, saved_err;
static unsigned long long seed = SEED;
static volatile unsigned current;

/* A parse that does not return (an endless loop) fails the test, naming
 * its case, instead of waiting for prove's timeout. */
static void hung(int sig)
{
	char m[160];
	int n = snprintf(m, sizeof(m), "not ok 1 - case %u (LATBPF_FUZZ_SEED=%llu) did not "
			 "return within 5 s\n1..1\n", current, seed);

	fflush(stdout);
	if (write(1, m, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}

/* Runs fn with fd 2 on a memfd; returns what it wrote there. */
static size_t capture(int fd, char *out, size_t len, int (*fn)(void *), void *arg, int *rc)
{
	int saved = dup(fd);
	ssize_t n;

	fflush(fd == 1 ? stdout : stderr);
	if (ftruncate(mfd, 0) || lseek(mfd, 0, SEEK_SET) || dup2(mfd, fd) < 0)
		abort();
	*rc = fn(arg);
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
	n = pread(mfd, out, len - 1, 0);
	n = n < 0 ? 0 : n;
	out[n] = '\0';
	return (size_t)n;
}

struct call {
	struct af *a;
	struct lat_opts o;
};

/* as main() dispatches: "bench" and "trace" are subcommands */
static int parse(void *arg)
{
	struct call *c = arg;
	char *argv[AF_MAX_ARGS + 1];
	int argc = c->a->argc;

	memcpy(argv, c->a->argv, sizeof(argv));	/* getopt permutes it */
	if (argc > 1 && !strcmp(argv[1], "bench"))
		return lat_bench_parse(argc, argv);	/* as lat_bench_main: from argv[2] */
	if (argc > 1 && !strcmp(argv[1], "trace"))
		return lat_opts_parse(argc - 1, argv + 1, &c->o);
	return lat_opts_parse(argc, argv, &c->o);
}

static void diag_case(unsigned i, const struct af *a, const char *what, const char *msg)
{
	char q[256];

	printf("# case %u (LATBPF_FUZZ_SEED=%llu): %s:", i, seed, what);
	for (int k = 0; k < a->argc; k++) {
		lat_term_str(q, sizeof(q), a->argv[k]);
		printf(" '%s'", q);
	}
	lat_term_str(q, sizeof(q), msg);
	printf("\n#   stderr: %s\n", q);
}

/* One line, "latbpf: ...\n" (bench: also "latbpf bench: ...\n", its own
 * words; a duration is the shared parser's), printable ASCII, not too long */
static bool one_line(const char *s, size_t n, bool bench)
{
	const char *prefix = bench && !strncmp(s, "latbpf bench: ", 14) ? "latbpf bench: " :
			     "latbpf: ";

	if (n < strlen(prefix) + 2 || n > MSG_MAX || strncmp(s, prefix, strlen(prefix)) ||
	    s[n - 1] != '\n')
		return false;
	for (size_t i = 0; i + 1 < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

/* What a successful trace parse must hold */
static bool coherent(const struct lat_opts *o)
{
	return o->interval_ns >= 10000000ULL && o->target.n_pids <= LAT_MAX_IDS &&
	       o->target.n_tids <= LAT_MAX_IDS && (!o->target.n_pids || o->target.pids) && o->probes &&
	       o->probes < (1U << lat_nr_modules()) &&
	       !(o->target.command && (o->target.n_pids || o->target.n_tids)) && (!o->target.command || o->target.command[0]);
}

static int help(void *arg)
{
	lat_usage(stdout);
	return 0;
}

static int bench_help(void *arg)
{
	char *argv[] = { "latbpf", "bench", "--help", NULL };

	return lat_bench_main(3, argv);
}

/* Every "--name" in a --help text is generated at least 50 times: the
 * generator follows the grammar as it grows. */
static int options_seen(const char *text, const unsigned *cnt, const char *const *names,
			int nnames, char *missing, size_t len)
{
	const char *p = text;
	int bad = 0;

	missing[0] = '\0';
	while ((p = strstr(p, "--"))) {
		char name[32];
		size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
		int k;

		p += 2;
		if (!n || n >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		for (k = 0; k < nnames && strcmp(names[k], name); k++)
			;
		if (k == nnames || cnt[k] < 50) {
			char item[48];

			snprintf(item, sizeof(item), " --%s(%u)", name, k == nnames ? 0 : cnt[k]);
			bad++;
			if (!strstr(missing, item))
				snprintf(missing + strlen(missing), len - strlen(missing), "%s", item);
		}
	}
	return bad;
}

int main(void)
{
	const char *env = getenv("LATBPF_FUZZ_SEED");
	unsigned n = getenv("LATBPF_FUZZ_N") ? (unsigned)atoi(getenv("LATBPF_FUZZ_N")) : 10000;
	static struct af a;
	static struct call c1, c2;
	static char e1[8192], e2[8192], text[8192], missing[512];
	unsigned bad_rc = 0, bad_msg = 0, noisy_ok = 0, unstable = 0, incoherent = 0;
	unsigned ok_trace = 0, err_trace = 0, ok_bench = 0, err_bench = 0, shown = 0;
	/* long option names of both --help texts, and how often each was generated */
	static const char *names[64];
	static unsigned cnt[64];
	int nnames = 0, rc1, rc2;
	size_t n1, n2;

	if (env)
		seed = strtoull(env, NULL, 0);
	mfd = memfd_create("fuzz-stderr", 0);
	saved_err = dup(2);
	if (mfd < 0 || saved_err < 0) {
		ok(0, "memfd for stderr: %s", strerror(errno));
		return done_testing();
	}
	printf("# seed %llu (LATBPF_FUZZ_SEED=%llu reproduces), %u cases\n", seed, seed, n);
	for (size_t k = 0; k < AF_N(af_trace_opts); k++)
		names[nnames++] = af_trace_opts[k].name;
	for (size_t k = 0; k < AF_N(af_bench_opts); k++)
		names[nnames++] = af_bench_opts[k].name;

	signal(SIGALRM, hung);
	for (unsigned i = 0; i < n; i++) {
		bool bench, fail = false;

		current = i;
		alarm(5);
		af_gen(&a, seed, i);
		/* main's rule: a stray "bench" first is the subcommand too */
		bench = a.argc > 1 && !strcmp(a.argv[1], "bench");
		for (int k = 1; k < a.argc; k++)
			for (int m = 0; m < nnames; m++)
				if (!strncmp(a.argv[k], "--", 2) &&
				    !strncmp(a.argv[k] + 2, names[m], strlen(names[m])))
					cnt[m]++;
		c1.a = c2.a = &a;
		n1 = capture(2, e1, sizeof(e1), parse, &c1, &rc1);
		n2 = capture(2, e2, sizeof(e2), parse, &c2, &rc2);
		if (rc1 != 0 && rc1 != -EINVAL) {
			bad_rc++;
			fail = true;
		}
		if (rc1 == 0 && n1) {
			noisy_ok++;
			fail = true;
		}
		if (rc1 && !one_line(e1, n1, bench)) {
			bad_msg++;
			fail = true;
		}
		if (rc1 != rc2 || n1 != n2 || memcmp(e1, e2, n1)) {
			unstable++;
			fail = true;
		}
		if (!bench && !rc1 && !coherent(&c1.o)) {
			incoherent++;
			fail = true;
		}
		if (fail && shown++ < 8) {
			diag_case(i, &a, "failed", e1);
			printf("#   rc %d then %d\n", rc1, rc2);
		}
		lat_opts_free(&c1.o);
		lat_opts_free(&c2.o);
		if (bench)
			rc1 ? err_bench++ : ok_bench++;
		else
			rc1 ? err_trace++ : ok_trace++;
	}
	alarm(0);
	dup2(saved_err, 2);

	ok(!bad_rc, "%u command lines: every parse returns 0 or -EINVAL (%u others)", n, bad_rc);
	ok(!bad_msg, "every error is one printable line starting 'latbpf: ' (bench: or "
	   "'latbpf bench: '), at most %d bytes (%u not)", MSG_MAX, bad_msg);
	ok(!noisy_ok, "a command line that parses says nothing (%u did)", noisy_ok);
	ok(!unstable, "parsing it again gives the same answer and message (%u did not)", unstable);
	ok(!incoherent, "what parsed holds together: interval >= 10ms, <= %d pids and tids, "
	   "known probes, COMMAND without --pid/--tid (%u not)", LAT_MAX_TARGETS, incoherent);
	ok(ok_trace > n / 5 && err_trace > n / 5,
	   "both kinds common: %u trace command lines parsed, %u rejected", ok_trace, err_trace);
	ok(ok_bench > n / 50 && err_bench > n / 50,
	   "bench too: %u parsed, %u rejected", ok_bench, err_bench);

	capture(1, text, sizeof(text), help, NULL, &rc1);
	capture(1, e1, sizeof(e1), bench_help, NULL, &rc2);
	/* (not strncat: with _FORTIFY_SOURCE, as the Debian build has it, gcc
	 * warns that it may cut, which it may, and -Werror stops the build) */
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s", e1);
	/* latbpf report's --html is its own parser's (report_cmd.c), whose
	 * usage errors tests/integration/report.t checks; not these two */
	{
		char *r = strstr(text, "latbpf report "), *e = r ? strchr(r, '\n') : NULL;

		if (r && e)
			memmove(r, e, strlen(e) + 1);
	}
	ok(rc1 == 0 && rc2 == 0 && strstr(text, "--threshold") && strstr(text, "--cpu") &&
	   !options_seen(text, cnt, names, nnames, missing, sizeof(missing)),
	   "every option of latbpf --help and latbpf bench --help generated >= 50 times%s",
	   missing);
	return done_testing();
}

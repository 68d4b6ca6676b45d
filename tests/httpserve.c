// SPDX-License-Identifier: GPL-2.0
/*
 * Stands in for latbpf's poll loop around src/http.c: publishes a small
 * Prometheus body every interval from the main thread and records how
 * late each publish finishes, so a test can tell whether clients (or
 * abusers) of the endpoint ever stall the loop.
 *
 * httpserve [--listen [HOST:]PORT] [--seconds S] [--interval-ms MS] [--hold-ms MS]
 *           [--pad-kb KB] [--web-config FILE]
 * Prints "listening PORT pid PID" once serving (the first publish comes
 * --hold-ms later, 0 by default); on SIGUSR1 and at the end a "stats ..."
 * line; SIGHUP rereads --web-config; exits 0 after --seconds or on
 * SIGINT/SIGTERM. --pad-kb adds a comment line of that size to each body,
 * for clients too slow to read it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "output/http.h"

static volatile sig_atomic_t stop, report, reload;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else if (sig == SIGHUP)
		reload = 1;
	else
		stop = 1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * max_late_us: how long after its deadline a publish had returned (the
 * wake-up included); max_publish_us: the longest lat_http_publish() call.
 */
static void print_stats(struct lat_http *h, const char *when, unsigned long n,
			long long max_late, long long max_publish, long rss_start)
{
	struct lat_http_stats s;

	lat_http_stats(h, &s);
	printf("stats when=%s ok=%llu client_errors=%llu dropped=%llu publishes=%lu "
	       "max_late_us=%lld max_publish_us=%lld rss_start_kb=%ld rss_kb=%ld\n", when,
	       s.ok, s.client_errors, s.dropped, n, max_late / 1000, max_publish / 1000,
	       rss_start, rss_kb());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *listen = "127.0.0.1:0", *web_config = NULL;
	double seconds = 10;
	long interval_ms = 100, hold_ms = 0, pad_kb = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct lat_http *h;
	struct lat_http_bound b;
	unsigned long n = 0;
	long long start, next, end, t, done, late, max_late = 0, max_publish = 0;
	long rss_start;
	struct timespec ts;
	int i, err;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--listen"))
			listen = argv[i + 1];
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--interval-ms"))
			interval_ms = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold-ms"))
			hold_ms = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--pad-kb"))
			pad_kb = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--web-config"))
			web_config = argv[i + 1];
		else
			break;
	}
	if (i != argc || seconds <= 0 || interval_ms <= 0 || hold_ms < 0 || pad_kb < 0 ||
	    pad_kb > 1 << 20) {
		fprintf(stderr, "usage: httpserve [--listen [HOST:]PORT] [--seconds S] "
			"[--interval-ms MS] [--hold-ms MS] [--pad-kb KB] [--web-config FILE]\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rss_start = rss_kb();
	err = lat_http_start(listen, web_config, &h, &b);
	if (err)
		return err == -EINVAL ? 2 : 1;
	printf("listening %u pid %d\n", b.port, (int)getpid());
	fflush(stdout);

	start = now_ns() + hold_ms * 1000000LL;
	end = now_ns() + (long long)(seconds * 1e9);
	for (next = start; !stop && next < end; next += interval_ms * 1000000LL) {
		size_t pad = (size_t)pad_kb * 1024;
		struct lat_http_body w;
		char *body;
		size_t len;

		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		/* a signal ends the sleep early; sleep again to the same deadline */
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		if (stop)
			break;
		if (lat_http_body_open(&w))
			return 1;
		fprintf(w.f,
			"# HELP latbpf_demo_publishes_total Publishes so far.\n"
			"# TYPE latbpf_demo_publishes_total counter\n"
			"latbpf_demo_publishes_total %lu\n"
			"# HELP latbpf_demo_wait_seconds A fixed histogram.\n"
			"# TYPE latbpf_demo_wait_seconds histogram\n"
			"latbpf_demo_wait_seconds_bucket{le=\"0.001\"} 3\n"
			"latbpf_demo_wait_seconds_bucket{le=\"+Inf\"} 5\n"
			"latbpf_demo_wait_seconds_sum 0.25\n"
			"latbpf_demo_wait_seconds_count 5\n%s", n + 1, pad ? "# " : "");
		for (size_t k = 0; pad && k + 1 < pad; k++)
			fputc('x', w.f);
		if (pad)
			fputc('\n', w.f);
		if (!(body = lat_http_body_close(&w, &len)))
			return 1;
		t = now_ns();
		lat_http_publish(h, body, len);
		n++;
		done = now_ns();
		if (done - t > max_publish)
			max_publish = done - t;
		late = done - next;
		if (late > max_late)
			max_late = late;
		if (reload) {
			reload = 0;
			printf("reload %s\n", lat_http_reload(h) ? "failed" : "ok");
			fflush(stdout);
		}
		if (report) {
			report = 0;
			print_stats(h, "signal", n, max_late, max_publish, rss_start);
		}
	}
	print_stats(h, "end", n, max_late, max_publish, rss_start);
	lat_http_stop(h);
	return 0;
}

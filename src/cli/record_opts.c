// SPDX-License-Identifier: GPL-2.0
/*
 * --trigger EXPR: COND[,KEY=VALUE...]
 *   COND   hiccup>DUR       a target thread's wait of any kind above DUR
 *          runq>DUR         its run-queue wait (preempted, woken) above DUR
 *          NAME.pN>DUR      an interval's percentile N of histogram NAME above
 *                           DUR: runq, offcpu_sleep, offcpu_blocked, timer_late
 *                           (the sched family's), hiccup (any CPU's), or a
 *                           JSON path (sched.runq)
 *          SIGUSR2          the signal (kill -USR2)
 *   KEY    before=DUR (2s), after=DUR (500ms): the window saved around it
 *          every=DUR (1s; SIGUSR2 0): at most one incident per DUR
 *          max=N (10): at most N incidents (files) of this trigger
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include "cli/record_opts.h"
#include "core/escape.h"
#include "core/fmt.h"
#include "core/parse.h"
#include "families/family.h"

#define TRIG_FORMS "hiccup>DUR, runq>DUR, runq.p99>DUR, SIGUSR2; then ,before=DUR," \
	"after=DUR,every=DUR,max=N"

static bool known_hist(const char *name)
{
	static const char *const sched[] = { "runq", "offcpu_sleep", "offcpu_blocked",
					     "timer_late", "hiccup" };
	size_t fam;

	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' ||
		      *c == '.'))
			return false;
	for (size_t i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
		if (!strcmp(name, sched[i]))
			return true;
	/* a path: its first part a family */
	fam = strcspn(name, ".");
	if (!name[fam] || !name[fam + 1])
		return false;
	for (int i = 0; lat_modules[i]; i++)
		if (strlen(lat_modules[i]->name) == fam && !strncmp(name, lat_modules[i]->name, fam))
			return true;
	return false;
}

/* NAME.pN: the histogram and the percentile */
static bool pct_cond(char *cond, struct lat_trigger *t)
{
	char *p = strrchr(cond, '.'), *end;

	if (!p || p[1] != 'p' || p[2] < '0' || p[2] > '9')
		return false;
	t->pct = strtod(p + 2, &end);
	if (*end || !(t->pct > 0 && t->pct < 100))
		return false;
	*p = '\0';
	if (!known_hist(cond) || strlen(cond) >= sizeof(t->hist))
		return false;
	snprintf(t->hist, sizeof(t->hist), "%s", cond);
	return true;
}

static int dur(const char *whole, const char *key, const char *v, __u64 *ns)
{
	char q[LAT_ARG_MAX];

	if (*v == '-') {
		fprintf(stderr, "latbpf: --trigger '%s': %s must be a duration of 0 or more "
			"(500ms, 2s)\n", lat_term_arg(q, sizeof(q), whole), key);
		return -EINVAL;
	}
	if (!strcmp(v, "0")) {	/* no unit needed for none */
		*ns = 0;
		return 0;
	}
	return lat_parse_duration(v, ns);
}

static int option(const char *whole, char *kv, struct lat_trigger *t)
{
	char *v = strchr(kv, '='), *end, q[LAT_ARG_MAX], k[LAT_ARG_MAX];
	long n;

	if (v)
		*v++ = '\0';
	if (v && !strcmp(kv, "before"))
		return dur(whole, kv, v, &t->before_ns);
	if (v && !strcmp(kv, "after"))
		return dur(whole, kv, v, &t->after_ns);
	if (v && !strcmp(kv, "every"))
		return dur(whole, kv, v, &t->every_ns);
	if (v && !strcmp(kv, "max")) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || end == v || *end || n < 1 || n > LAT_FLIGHT_MAX_INCIDENTS) {
			fprintf(stderr, "latbpf: --trigger '%s': max must be 1 to %d\n",
				lat_term_arg(q, sizeof(q), whole), LAT_FLIGHT_MAX_INCIDENTS);
			return -EINVAL;
		}
		t->max = (__u32)n;
		return 0;
	}
	fprintf(stderr, "latbpf: --trigger '%s': unknown option '%s' (before=DUR, after=DUR, "
		"every=DUR, max=N)\n", lat_term_arg(q, sizeof(q), whole),
		lat_term_arg(k, sizeof(k), kv));
	return -EINVAL;
}

int lat_trigger_parse(const char *arg, struct lat_trigger *t)
{
	char buf[256], *cond, *gt, *kv, *save = NULL, q[LAT_ARG_MAX];
	int err;

	memset(t, 0, sizeof(*t));
	t->before_ns = 2000000000ULL;
	t->after_ns = 500000000ULL;
	t->every_ns = 1000000000ULL;
	t->max = 10;
	if (strlen(arg) >= sizeof(buf))
		goto unknown;
	snprintf(buf, sizeof(buf), "%s", arg);
	snprintf(t->text, sizeof(t->text), "%s", arg);
	cond = strtok_r(buf, ",", &save);
	if (!cond)
		goto unknown;
	if (!strcasecmp(cond, "SIGUSR2")) {
		t->kind = LAT_TRIG_SIGNAL;
		t->every_ns = 0;
	} else {
		gt = strchr(cond, '>');
		if (!gt)
			goto unknown;
		*gt = '\0';
		if (!strcmp(cond, "hiccup"))
			t->kind = LAT_TRIG_HICCUP;
		else if (!strcmp(cond, "runq"))
			t->kind = LAT_TRIG_RUNQ;
		else if (pct_cond(cond, t))
			t->kind = LAT_TRIG_PCT;
		else
			goto unknown;
		if ((err = dur(arg, "the bound", gt + 1, &t->above_ns)))
			return err;
	}
	while ((kv = strtok_r(NULL, ",", &save)))
		if ((err = option(arg, kv, t)))
			return err;
	return 0;
unknown:
	fprintf(stderr, "latbpf: unknown --trigger '%s' (%s)\n", lat_term_arg(q, sizeof(q), arg),
		TRIG_FORMS);
	return -EINVAL;
}

int lat_record_opts_check(struct lat_flight_opts *r)
{
	char q[LAT_ARG_MAX], a[32], b[32];

	if (r->ntrig || r->trace_path)
		r->on = true;
	if (!r->on)
		return 0;
	if (!r->window_ns)
		r->window_ns = LAT_FLIGHT_DEFAULT_WINDOW;
	for (int i = 0; i < r->ntrig; i++) {
		if (r->trig[i].before_ns <= r->window_ns)
			continue;
		lat_fmt_ns(a, sizeof(a), r->trig[i].before_ns);
		lat_fmt_ns(b, sizeof(b), r->window_ns);
		fprintf(stderr, "latbpf: --trigger '%s': before=%s is longer than the --record "
			"window (%s)\n", lat_term_arg(q, sizeof(q), r->trig[i].text), a, b);
		return -EINVAL;
	}
	return 0;
}

int lat_record_opt(struct lat_flight_opts *r, const char *arg)
{
	r->on = true;
	if (!arg)
		return 0;
	if (lat_parse_duration(arg, &r->window_ns))
		return -EINVAL;
	if (!r->window_ns) {
		fprintf(stderr, "latbpf: --record: the window must be above 0\n");
		return -EINVAL;
	}
	return 0;
}

int lat_trigger_opt(struct lat_flight_opts *r, const char *arg)
{
	if (r->ntrig == LAT_FLIGHT_MAX_TRIGGERS) {
		fprintf(stderr, "latbpf: at most %d --trigger\n", LAT_FLIGHT_MAX_TRIGGERS);
		return -EINVAL;
	}
	return lat_trigger_parse(arg, &r->trig[r->ntrig++]);
}

/* a number next (a negative one too, to be refused): --record's DUR */
const char *lat_record_word(int argc, char **argv, int *optind)
{
	const char *n;

	if (*optind >= argc)
		return NULL;
	n = argv[*optind] + (argv[*optind][0] == '-');
	if (*n != '.' && (*n < '0' || *n > '9'))
		return NULL;
	return argv[(*optind)++];
}

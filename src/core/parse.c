// SPDX-License-Identifier: GPL-2.0
/* What people type: durations and id lists (parse.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/parse.h"
#include "core/escape.h"

int lat_parse_duration(const char *s, __u64 *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 },
		      { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 } };
	char *end, q[LAT_ARG_MAX];
	double v;
	unsigned i;

	if (!s || !*s)
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		goto bad;
	if (!*end) {
		fprintf(stderr, "latbpf: missing unit in '%s' (use ns, us, ms, s, m, h)\n",
			lat_term_arg(q, sizeof(q), s));
		return -EINVAL;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			if (v * units[i].mult > 1e18)
				goto bad;
			*ns = (__u64)llround(v * units[i].mult);
			return 0;
		}
	}
bad:
	fprintf(stderr, "latbpf: bad duration '%s' (examples: 500us, 10ms, 1.5s, 2m)\n",
		lat_term_arg(q, sizeof(q), s));
	return -EINVAL;
}

int lat_u32_append(__u32 **v, __u32 *n, __u32 x)
{
	if ((*n & (*n - 1)) == 0) {	/* 0, 1, 2, 4 ...: double */
		__u32 *m = realloc(*v, (*n ? 2 * *n : 1) * sizeof(**v));

		if (!m)
			return -ENOMEM;
		*v = m;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* "1,2,3" of positive ids; appends to *ids (grown with realloc, n of
 * them), at most LAT_MAX_IDS in all. */
int lat_parse_id_list(const char *s, __u32 **ids, __u32 *n, const char *what)
{
	const char *p = s;
	char *end, q[LAT_ARG_MAX];
	long v;

	if (!s || !*s)
		goto bad;
	for (;;) {
		errno = 0;
		if (*p < '0' || *p > '9')
			goto bad;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > 0x3fffffff || (*end && *end != ','))
			goto bad;
		if (*n >= LAT_MAX_IDS) {
			fprintf(stderr, "latbpf: at most %d %ss\n", LAT_MAX_IDS, what);
			return -EINVAL;
		}
		if (lat_u32_append(ids, n, (__u32)v))
			return -ENOMEM;
		if (!*end)
			return 0;
		p = end + 1;
	}
bad:
	fprintf(stderr, "latbpf: bad %s list '%s' (positive numbers, comma-separated)\n",
		what, lat_term_arg(q, sizeof(q), s));
	return -EINVAL;
}

/*
 * What getopt_long just refused (c: its ':' or '?'), named as the user wrote
 * it, in one line. Where it was: an unknown or ambiguous long option leaves
 * optopt 0; a long option given a value it does not take leaves optopt at
 * its val, which is a known short option or >= 256; both advance optind past
 * their element. A short option leaves optopt at its character, and optind
 * still on its element when more follow in it ("-xv"), so argv[optind - 1]
 * is not where it was: it is named from optopt alone. A missing value is at
 * the end of argv, whichever kind.
 */
void lat_opt_refused(const char *prog, const char *help, int c, char **argv,
		     const char *shorts, const struct option *lo)
{
	const char *elem = argv[optind - 1], *eq;
	char name[LAT_ARG_MAX], q[LAT_ARG_MAX];
	bool is_long = c == ':' ? !strncmp(elem, "--", 2) :
		       optopt == 0 || optopt >= 256 || (optopt != ':' && optopt != '+' &&
							  strchr(shorts, optopt));
	int i, n = 0;
	size_t len;

	if (!is_long) {
		snprintf(name, sizeof(name), "-%c", optopt);
		lat_term_arg(q, sizeof(q), name);
		if (c == ':')
			fprintf(stderr, "%s: option '%s' needs a value\n", prog, q);
		else
			fprintf(stderr, "%s: unknown option '%s' (see %s)\n", prog, q, help);
		return;
	}
	eq = strchr(elem, '=');
	len = eq && eq > elem + 2 ? (size_t)(eq - elem) : strlen(elem);
	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
		 elem);
	lat_term_arg(q, sizeof(q), name);
	if (c == ':') {
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, q);
		return;
	}
	if (optopt) {
		fprintf(stderr, "%s: option '%s' takes no value\n", prog, q);
		return;
	}
	for (i = 0; lo[i].name && len > 2; i++)
		n += !strncmp(lo[i].name, elem + 2, len - 2);
	fprintf(stderr, "%s: %s option '%s' (see %s)\n", prog, n > 1 ? "ambiguous" : "unknown",
		q, help);
}

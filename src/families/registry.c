// SPDX-License-Identifier: GPL-2.0
/*
 * The probe families, one line each, in the order they open, attach and
 * report (sched first: the families sharing the scheduler object report its
 * losses through the first of them). A family is bpf/X.bpf.c (or a
 * bpf/X.bpf.h in the sched object), src/families/X.c exporting lat_X_ops,
 * and its line here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "core/escape.h"
#include "families/family.h"

#define FAMILIES(F)	\
	F(sched)	\
	F(hiccup)	\
	F(fault)	\
	F(block)	\
	F(tcp)		\
	F(time)		\
	F(record)	\
	/* a new family: its line above this one */

#define DECLARE(name) extern const struct lat_module_ops lat_##name##_ops;
FAMILIES(DECLARE)
#define ENTRY(name) &lat_##name##_ops,
const struct lat_module_ops *const lat_modules[] = {
	FAMILIES(ENTRY)
	NULL,
};

int lat_nr_modules(void)
{
	int n = 0;

	while (lat_modules[n])
		n++;
	return n;
}

unsigned lat_default_probes(void)
{
	unsigned m = 0;

	for (int i = 0; lat_modules[i]; i++)
		if (!lat_modules[i]->opt_in)
			m |= 1U << i;
	return m;
}

unsigned lat_family_bit(const char *name)
{
	for (int i = 0; lat_modules[i]; i++)
		if (!strcmp(lat_modules[i]->name, name))
			return 1U << i;
	return 0;
}

const char *lat_family_list(void)
{
	static char list[256];
	size_t l = 0;

	if (!list[0])
		for (int i = 0; lat_modules[i] && l < sizeof(list); i++)
			l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s", i ? "," : "",
					      lat_modules[i]->name);
	return list;
}

int lat_parse_probes(const char *s, unsigned *mask)
{
	char buf[256], *tok, *save = NULL, q[LAT_ARG_MAX];
	unsigned i;

	if (!s || !*s || strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "all") == 0) {
			*mask |= lat_default_probes();
			continue;
		}
		for (i = 0; lat_modules[i]; i++)
			if (strcmp(tok, lat_modules[i]->name) == 0)
				break;
		if (!lat_modules[i]) {
			fprintf(stderr, "latbpf: unknown probe family '%s' (known: %s)\n",
				lat_term_arg(q, sizeof(q), tok), lat_family_list());
			return -EINVAL;
		}
		*mask |= 1U << i;
	}
	if (*mask)
		return 0;
bad:
	fprintf(stderr, "latbpf: bad --probes '%s' (known: %s)\n", lat_term_arg(q, sizeof(q), s),
		lat_family_list());
	return -EINVAL;
}

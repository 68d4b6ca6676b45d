// SPDX-License-Identifier: GPL-2.0
/* CPU lists as the kernel writes them (cpulist.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/cpulist.h"
#include "core/proc.h"

/* A CPU list as the kernel writes it ("0-3,8", "" for none) into set:
 * 0, or -EINVAL for anything else or a CPU beyond CPU_SETSIZE. */
int lat_parse_cpulist(const char *s, cpu_set_t *set)
{
	char *end;
	long a, b;

	CPU_ZERO(set);
	while (*s && *s != '\n') {
		errno = 0;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		a = b = strtol(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			b = strtol(s, &end, 10);
		}
		if (errno || b < a || b >= CPU_SETSIZE)
			return -EINVAL;
		for (; a <= b; a++)
			CPU_SET(a, set);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return 0;
}

/* set as a CPU list ("0-3,8"; "" for none), cut to len */
char *lat_fmt_cpulist(char *buf, size_t len, const cpu_set_t *set)
{
	size_t n = 0;
	int a, b;

	buf[0] = '\0';
	for (a = 0; a < CPU_SETSIZE; a = b + 1) {
		if (!CPU_ISSET(a, set)) {
			b = a;
			continue;
		}
		for (b = a; b + 1 < CPU_SETSIZE && CPU_ISSET(b + 1, set); b++)
			;
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
				      a == b ? "%s%d" : "%s%d-%d", n ? "," : "", a, b);
	}
	return buf;
}

void lat_read_cpulist(const char *path, cpu_set_t *set)
{
	char buf[4096];

	if (!lat_read_line(path, buf, sizeof(buf)) || lat_parse_cpulist(buf, set))
		CPU_ZERO(set);
}

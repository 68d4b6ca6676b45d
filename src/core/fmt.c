// SPDX-License-Identifier: GPL-2.0
/* Figures for people (fmt.h). */
#include <stdio.h>
#include "core/fmt.h"

int lat_fmt_ns(char *buf, size_t len, __u64 ns)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	unsigned i;
	double v;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (ns >= u[i].div) {
			v = ns / u[i].div;
			return snprintf(buf, len, v >= 100 ? "%.0f%s" :
						  v >= 10 ? "%.1f%s" : "%.2f%s",
					v, u[i].unit);
		}
	}
	return snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

/* "512B", "4.00KiB", "1.50MiB" */
int lat_fmt_bytes(char *buf, size_t len, __u64 b)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = -1;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		return snprintf(buf, len, "%lluB", (unsigned long long)b);
	return snprintf(buf, len, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s",
			v, unit[u]);
}

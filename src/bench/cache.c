// SPDX-License-Identifier: GPL-2.0
/* The CPU's caches as sysfs describes them, and as a latency curve shows
 * them (cache.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/cache.h"

void lat_bench_cache_sizes(char *buf, size_t len)
{
	char path[96], lvl[16], type[32], size[32];
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < 8; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!(f = fopen(path, "r")))
			break;
		if (fscanf(f, "%15s", lvl) != 1)
			lvl[0] = '\0';
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", type) != 1)
				type[0] = '\0';
			fclose(f);
		}
		if (!strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", size) != 1)
				size[0] = '\0';
			fclose(f);
		}
		o += snprintf(buf + o, len - o, "%sL%s %s", o ? ", " : "", lvl, size);
		if (o >= len)
			break;
	}
}

/* The largest cache cpu0 reports (the last level), or 0: membw.c sizes
 * its working sets by it */
__u64 lat_bench_llc_bytes(void)
{
	char path[80], buf[32], *end;
	__u64 best = 0, v;
	FILE *f;

	for (int i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (!(f = fopen(path, "re")))
			break;
		if (fgets(buf, sizeof(buf), f)) {
			v = strtoull(buf, &end, 10);
			v <<= *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
			best = v > best ? v : best;
		}
		fclose(f);
	}
	return best;
}

int lat_plateaus(const double *lat, int n, double step, int *levels)
{
	int k = 0;
	double base;

	if (n <= 0)
		return 0;
	base = lat[0];
	levels[0] = 0;
	for (int i = 1; i < n; i++) {
		if (lat[i] > base * step) {
			k++;
			base = lat[i];
		}
		levels[i] = k;
	}
	return k + 1;
}

// SPDX-License-Identifier: GPL-2.0
/* Addresses of kernel functions, from /proc/kallsyms: what a BPF program
 * compares a function pointer with (BTF has no addresses). */
#include <stdio.h>
#include <string.h>
#include "core/kallsyms.h"

/*
 * addr[i] = the address of the core kernel function names[i], 0 when it is
 * not there (or hidden: kptr_restrict shows 0 to a reader without
 * CAP_SYSLOG). Reads only up to the last one found: the core kernel's
 * symbols come first, in address order, and /proc/kallsyms is written as
 * it is read (about 15 ms for a third of 6.18's 122,000 lines). Returns how
 * many it found, or -1 when the file cannot be read.
 */
int lat_kallsyms_find(const char *const names[], __u64 addr[], int n)
{
	char line[512], type, name[256], mod;
	unsigned long long a;
	int found = 0, i;
	FILE *f = fopen("/proc/kallsyms", "r");

	for (i = 0; i < n; i++)
		addr[i] = 0;
	if (!f)
		return -1;
	while (found < n && fgets(line, sizeof(line), f)) {
		/* "ffffffff814204b0 t hrtimer_wakeup", a module's with "\t[mod]" */
		mod = 0;
		if (sscanf(line, "%llx %c %255s %c", &a, &type, name, &mod) < 3 || mod || !a)
			continue;
		for (i = 0; i < n; i++) {
			if (addr[i] || strcmp(name, names[i]))
				continue;
			addr[i] = a;
			found++;
		}
	}
	fclose(f);
	return found;
}

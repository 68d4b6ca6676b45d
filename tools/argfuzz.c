// SPDX-License-Identifier: GPL-2.0
/*
 * argfuzz: random latbpf command lines that are safe to run as root
 * (tests/unit/argfuzz.h), for tests/integration/fuzz_cli.t.
 *
 *   argfuzz --seed S --count N --dir DIR --latwork PATH --pid P --tid T
 *
 * Case i of seed S is the same as the unit test's generator makes in safe
 * mode. Prints each case's arguments after "latbpf" as a record: their
 * count, then each, every one ended by a NUL (an argument may be empty or
 * hold a newline; none holds a NUL).
 */
#include <stdlib.h>
#include <string.h>
#include "../tests/unit/argfuzz.h"

int main(int argc, char **argv)
{
	static struct af a = { .safe = true };
	unsigned long long seed = 0;
	unsigned count = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--count"))
			count = (unsigned)atoi(v);
		else if (!strcmp(k, "--dir"))
			a.dir = v;
		else if (!strcmp(k, "--latwork"))
			a.latwork = v;
		else if (!strcmp(k, "--pid"))
			a.live_pid = (unsigned)atoi(v);
		else if (!strcmp(k, "--tid"))
			a.live_tid = (unsigned)atoi(v);
		else
			goto usage;
	}
	if (!a.dir || !a.latwork || !a.live_pid || !a.live_tid || !count)
		goto usage;
	for (unsigned i = 0; i < count; i++) {
		af_gen(&a, seed, i);
		printf("%d%c", a.argc - 1, 0);
		for (int k = 1; k < a.argc; k++)
			printf("%s%c", a.argv[k], 0);
	}
	return 0;
usage:
	fprintf(stderr, "usage: see the comment at the top of tools/argfuzz.c\n");
	return 2;
}

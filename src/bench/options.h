/* SPDX-License-Identifier: GPL-2.0 */
/* latbpf bench's command line (options.c), as the driver runs it. */
#ifndef LATBPF_BENCH_OPTIONS_H
#define LATBPF_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>
#include "bench/result.h"

#define LAT_BENCH_MAX_DEFS 32	/* list.c's entries, at most */

struct lat_bench_opts {
	bool selected[LAT_BENCH_MAX_DEFS], list, help, named, quick;
	__u64 duration_ns;	/* 0: each benchmark's default */
	int runs;		/* 0: 5 for the whole set, 1 for names */
	const char *json_path, *hlog_path;
	struct lat_bctx c;	/* where and how the benchmarks run */
};

/* argv[0] is "bench": 0, or -EINVAL with the message said */
int lat_bench_opts_parse(int argc, char **argv, struct lat_bench_opts *b);
void lat_bench_usage(FILE *f);
/* every core this process may run on; one-core benchmarks on the last */
void lat_bench_default_cpus(struct lat_bctx *c);

#endif

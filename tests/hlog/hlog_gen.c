// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a .hlog of known histograms through src/hlog.c and prints what a
 * reader must find in it, in the readers' own format (tests/hlog/readers.sh):
 * "<tag> <intervals> <count> <p50> <p99> <max>" per tag, then "lines <n>".
 * p50/p99 are latbpf's own lat_hist_percentile() of the tag's intervals
 * merged, max the exact max. Used by tests/integration/hlog_format.t:
 *
 *   hlog_gen FILE [SEED [EXTREME]]
 *
 * SEED changes the random tag's values (default 1). EXTREME is one more
 * overflowed value, recorded into the "overflow" tag's last interval, to
 * find how large an overflow the readers survive.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "output/hlog_format.h"

#define INTERVALS 4
#define RAND_VALUES 100000

enum { EDGES, OVERFLOW, EMPTY, SINGLE, ZEROS, BAD, RAND, NTAGS };
/* as written, and as the readers must see it after src/hlog.c's replacements */
static const struct {
	const char *written, *read;
} tags[NTAGS] = {
	[EDGES] = { "edges", "edges" },
	[OVERFLOW] = { "overflow", "overflow" },
	[EMPTY] = { "empty", "empty" },
	[SINGLE] = { "single", "single" },
	[ZEROS] = { "zeros", "zeros" },
	[BAD] = { "bad tag,x=y\tz\r\nw\xc2\x85", "bad_tag_x=y_z__w__" },
	[RAND] = { "rand", "rand" },	/* last: the longest line, which the test cuts */
};

static struct lat_hist iv[NTAGS][INTERVALS], all[NTAGS];
static __u64 rng;

static __u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double urand(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* log-normal around 50 us: most slots from 0 to seconds get some counts */
static __u64 rand_value(void)
{
	double n = sqrt(-2 * log(urand() + 1e-300)) * cos(2 * M_PI * urand());

	return (__u64)exp(log(50000.0) + 2.5 * n);
}

static void fill(__u64 extreme)
{
	__u64 i;
	int k, t;

	for (i = 0; i < RAND_VALUES; i++)
		lat_hist_record(&iv[RAND][i % INTERVALS], rand_value());
	/* every power-of-two edge up to the highest trackable value */
	for (i = 0; i < 32; i++)
		lat_hist_record(&iv[EDGES][1], i);
	for (k = 5; k <= LAT_HIST_MAX_LOG2; k++) {
		lat_hist_record(&iv[EDGES][1], (1ULL << k) - 1);
		if (k < LAT_HIST_MAX_LOG2) {
			lat_hist_record(&iv[EDGES][1], 1ULL << k);
			lat_hist_record(&iv[EDGES][1], (1ULL << k) + 1);
		}
	}
	/* 1000 ordinary values, so p50/p99 are among them, and overflow with
	 * a different max in each of three intervals; two in the third */
	for (i = 0; i < 1000; i++)
		lat_hist_record(&iv[OVERFLOW][i % INTERVALS], 1000 + i);
	lat_hist_record(&iv[OVERFLOW][0], LAT_HIST_MAX_VALUE + 1);
	lat_hist_record(&iv[OVERFLOW][1], (1ULL << 47) + 5);
	lat_hist_record(&iv[OVERFLOW][3], 1ULL << 45);
	lat_hist_record(&iv[OVERFLOW][3], 1ULL << 52);
	if (extreme)
		lat_hist_record(&iv[OVERFLOW][3], extreme);
	lat_hist_record(&iv[SINGLE][2], 123456789);
	for (t = 0; t < INTERVALS; t++)
		for (i = 0; i < 10; i++)
			lat_hist_record(&iv[ZEROS][t], 0);
	lat_hist_record(&iv[BAD][0], 42);
}

int main(int argc, char **argv)
{
	__u64 extreme = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	struct lat_hlog *l;
	unsigned t, i;
	int err = 0, cerr;

	if (argc < 2) {
		fprintf(stderr, "usage: hlog_gen FILE [SEED [EXTREME]]\n");
		return 2;
	}
	rng = 0x9e3779b97f4a7c15ULL * (argc > 2 ? strtoull(argv[2], NULL, 0) : 1);
	fill(extreme);
	l = lat_hlog_open(argv[1], 1700000000.123, "latbpf hlog_gen");
	if (!l) {
		fprintf(stderr, "hlog_gen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* interval by interval, each flushed, as the --hlog sink does */
	for (i = 0; i < INTERVALS && !err; i++) {
		for (t = 0; t < NTAGS && !err; t++) {
			err = lat_hlog_write(l, tags[t].written, i * 1.0, 1.0, &iv[t][i]);
			lat_hist_merge(&all[t], &iv[t][i]);
		}
		if (!err)
			err = lat_hlog_flush(l);
	}
	cerr = lat_hlog_close(l);
	if (err || cerr) {
		fprintf(stderr, "hlog_gen: writing %s: %s\n", argv[1], strerror(-(err ? err : cerr)));
		return 1;
	}
	for (t = 0; t < NTAGS; t++)
		printf("%s %d %llu %llu %llu %llu\n", tags[t].read, INTERVALS,
		       (unsigned long long)all[t].count,
		       (unsigned long long)lat_hist_percentile(&all[t], 50),
		       (unsigned long long)lat_hist_percentile(&all[t], 99),
		       (unsigned long long)all[t].max);
	printf("lines %d\n", NTAGS * INTERVALS);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The distinct-key sketch against the true count of what was added: keys
 * shaped as latbpf's intruders (a kind, then a pid: runs of adjacent ids),
 * each added several times, at sizes from 1 to a million. */
#include <stdlib.h>
#include <string.h>
#include "core/distinct.h"
#include "tap.h"

static struct lat_distinct d;

/* n distinct keys, kind << 32 | id, ids from first up, each added reps times */
static __u64 fill(__u64 n, __u64 first, int reps)
{
	__u64 i;
	int r;

	memset(&d, 0, sizeof(d));
	for (r = 0; r < reps; r++)
		for (i = 0; i < n; i++)
			lat_distinct_add(&d, (__u64)(i % 3) << 32 | (first + i / 3));
	return lat_distinct_count(&d);
}

int main(void)
{
	static const __u64 small[] = { 1, 2, 10, 64, 130, 300, 1000 };
	static const __u64 large[] = { 4096, 10000, 32768, 100000, 1000000 };
	__u64 e, n;
	size_t i;

	ok(lat_distinct_count(&d) == 0, "empty: 0");
	for (i = 0; i < sizeof(small) / sizeof(*small); i++) {
		n = small[i];
		e = fill(n, 300, 3);
		/* linear counting: within 2 keys, or 3 standard errors (1.2 %
		 * rms at 1000 keys over 40 key sets) */
		ok(llabs((long long)e - (long long)n) <= (long long)(n * 4 / 100 > 2 ? n * 4 / 100 : 2),
		   "%llu keys, each added 3 times: %llu (+-4 %% or 2)", n, e);
	}
	for (i = 0; i < sizeof(large) / sizeof(*large); i++) {
		n = large[i];
		e = fill(n, 1, 1);
		/* 3 standard errors: 1.6 % for 4096 registers (1.04 / 64),
		 * 2.7 % rms where linear counting hands over (10,000 keys) */
		ok(llabs((long long)e - (long long)n) <= (long long)(n * 8 / 100),
		   "%llu keys: %llu (+-8 %%)", n, e);
	}
	/* the same keys again, from a wrapped pid space: nothing new */
	fill(20000, 1, 1);
	e = lat_distinct_count(&d);
	for (n = 0; n < 20000; n++)
		lat_distinct_add(&d, (n % 3) << 32 | (1 + n / 3));
	ok(lat_distinct_count(&d) == e, "the same 20000 keys again: unchanged (%llu)", e);
	/* kinds apart: the same id under two kinds is two keys */
	memset(&d, 0, sizeof(d));
	for (n = 0; n < 100; n++) {
		lat_distinct_add(&d, 1ULL << 32 | n);
		lat_distinct_add(&d, 2ULL << 32 | n);
	}
	ok(lat_distinct_count(&d) >= 198 && lat_distinct_count(&d) <= 202,
	   "100 ids under two kinds: 200 (%llu)", lat_distinct_count(&d));
	return done_testing();
}

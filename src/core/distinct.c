// SPDX-License-Identifier: GPL-2.0
/* The distinct-key sketch of distinct.h. */
#include <math.h>
#include "core/distinct.h"

/* a 64-bit mix (the splitmix64 finaliser): keys that differ in one bit
 * (adjacent pids) land far apart */
static __u64 mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void lat_distinct_add(struct lat_distinct *d, __u64 key)
{
	__u64 h = mix(key), rest = h << LAT_DISTINCT_BITS;
	__u32 i = h >> (64 - LAT_DISTINCT_BITS);
	/* the position of the first 1 in what the index left, from 1 */
	__u8 rank = rest ? __builtin_clzll(rest) + 1 : 64 - LAT_DISTINCT_BITS + 1;

	if (rank > d->reg[i])
		d->reg[i] = rank;
}

__u64 lat_distinct_count(const struct lat_distinct *d)
{
	const double m = LAT_DISTINCT_REGS, alpha = 0.7213 / (1 + 1.079 / m);
	double sum = 0, e;
	__u32 i, zeros = 0;

	for (i = 0; i < LAT_DISTINCT_REGS; i++) {
		sum += ldexp(1.0, -d->reg[i]);
		zeros += !d->reg[i];
	}
	e = alpha * m * m / sum;
	/* small range: linear counting over the empty registers */
	if (e <= 2.5 * m && zeros)
		e = m * log(m / zeros);
	return (__u64)(e + 0.5);
}

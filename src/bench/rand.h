/* SPDX-License-Identifier: GPL-2.0 */
/* Random orders for the benchmarks that must defeat prefetchers and
 * readahead: a fast generator and a random single cycle. */
#ifndef LATBPF_BENCH_RAND_H
#define LATBPF_BENCH_RAND_H

#include <linux/types.h>

/* Marsaglia's xorshift64: *s must not be 0 */
static inline __u64 lat_xorshift(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random cyclic permutation (Sattolo): following next[] from any slot
 * visits every slot once before coming back. */
void lat_perm_cycle(__u32 *next, __u32 n, __u64 *seed);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Random orders (rand.h). */
#include "bench/rand.h"

/* Sattolo's shuffle: a uniformly random permutation with exactly one cycle */
void lat_perm_cycle(__u32 *next, __u32 n, __u64 *seed)
{
	__u32 i, j, t;

	for (i = 0; i < n; i++)
		next[i] = i;
	for (i = n - 1; i > 0 && n > 1; i--) {
		j = (__u32)(lat_xorshift(seed) % i);	/* j < i: no fixed points */
		t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
}

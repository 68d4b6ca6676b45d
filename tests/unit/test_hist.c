// SPDX-License-Identifier: GPL-2.0
/* The histogram, through the very index and record code the BPF programs
 * run: layout against HdrHistogram's own index formula, the
 * index/inverse round trip at every power-of-two edge, and percentiles
 * against exact percentiles of sorted samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "tap.h"

/* HdrHistogram_c's counts_index for lowest 1, 1 significant digit
 * (sub_bucket_count 32, half count magnitude 4, unit magnitude 0), written
 * with clz as the reference does: an independent second opinion. */
static __u64 hdr_counts_index(__u64 v)
{
	int pow2ceiling = 64 - __builtin_clzll(v | 31);
	int bucket = pow2ceiling - 5;
	__u64 sub = v >> bucket;

	return ((__u64)(bucket + 1) << 4) + sub - 16;
}

static __u64 rng_state = 88172645463325252ULL;
static __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static double urand(void)
{
	return (rnd() >> 11) * (1.0 / 9007199254740992.0);
}
static double nrand(void)
{
	return sqrt(-2 * log(urand() + 1e-300)) * cos(2 * M_PI * urand());
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/* Every percentile: never below the exact value, above it by less than the
 * width of the exact value's slot. */
static void check_pcts(const char *name, __u64 *v, size_t n)
{
	static struct lat_hist h;
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	int bad = 0;
	size_t i;

	memset(&h, 0, sizeof(h));
	for (i = 0; i < n; i++)
		lat_hist_record(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		size_t rank = (size_t)ceil(ps[i] / 100 * (double)n);
		__u64 exact = v[(rank ? rank : 1) - 1];
		__u64 got = lat_hist_percentile(&h, ps[i]);
		__u64 hi = lat_hist_slot_high((__u32)lat_hist_index(exact));

		if (got < exact || got > hi) {
			printf("# %s p%g: exact %llu got %llu slot high %llu\n", name,
			       ps[i], (unsigned long long)exact,
			       (unsigned long long)got, (unsigned long long)hi);
			bad++;
		}
		if (exact >= 32 && (double)(got - exact) / (double)exact > 0.0625) {
			printf("# %s p%g: error above 6.25%%\n", name, ps[i]);
			bad++;
		}
	}
	ok(!bad, "%s: percentiles within one slot above exact (n=%zu)", name, n);
	ok(h.min == v[0] && h.max == v[n - 1], "%s: min and max exact", name);
}

int main(void)
{
	enum { N = 200000 };
	static __u64 v[N];
	static struct lat_hist a, b, u, iv;
	int bad = 0, k;
	__u32 i;
	size_t j;

	/* layout */
	ok(LAT_HIST_SLOTS == 656, "656 slots cover 2^44 ns (HdrHistogram counts_len)");
	for (j = 0; j < 1000000 && !bad; j++) {
		__u64 x = rnd() >> (rnd() % 64);

		if (x > LAT_HIST_MAX_VALUE)
			continue;
		if (lat_hist_index(x) != hdr_counts_index(x)) {
			printf("# index(%llu) = %llu, HdrHistogram says %llu\n",
			       (unsigned long long)x, (unsigned long long)lat_hist_index(x),
			       (unsigned long long)hdr_counts_index(x));
			bad++;
		}
	}
	ok(!bad, "index equals HdrHistogram's counts_index on 10^6 random values");

	bad = 0;
	for (i = 0; i < LAT_HIST_SLOTS; i++) {
		__u64 lo = lat_hist_slot_low(i), hi = lat_hist_slot_high(i);

		if (lat_hist_index(lo) != i || lat_hist_index(hi) != i ||
		    (i + 1 < LAT_HIST_SLOTS && lat_hist_index(hi + 1) != i + 1) ||
		    (i > 0 && lat_hist_index(lo - 1) != i - 1))
			bad++;
		if (lo >= 32 && (double)(hi - lo + 1) / (double)lo > 0.0625)
			bad++;
	}
	ok(!bad, "every slot: low and high map back to it, neighbours adjacent, width <= 6.25%%");

	bad = 0;
	for (k = 0; k <= LAT_HIST_MAX_LOG2; k++) {
		__u64 e = 1ULL << k, c[3] = { e - 1, e, e + 1 };

		for (int m = 0; m < 3; m++) {
			__u64 x = c[m], idx = lat_hist_index(x);

			if (x > LAT_HIST_MAX_VALUE) {
				bad += idx != LAT_HIST_SLOTS;
				continue;
			}
			if (lat_hist_slot_low((__u32)idx) > x || lat_hist_slot_high((__u32)idx) < x)
				bad++;
		}
	}
	ok(!bad, "2^k-1, 2^k, 2^k+1 for k = 0..44 land in slots that contain them");
	ok(lat_log2(1) == 0 && lat_log2(2) == 1 && lat_log2(~0ULL) == 63 &&
	   lat_log2(1ULL << 44) == 44, "log2 at the ends");
	{
		int bad = 0;

		for (int b = 0; b < 64; b++)
			for (__u64 d = 0; d < 3; d++) {
				__u64 v = (1ULL << b) + (b ? d * ((1ULL << b) / 3) : 0);

				bad += lat_log2(v) != (__u32)(63 - __builtin_clzll(v));
				bad += b && lat_log2((1ULL << b) - 1) != (__u32)(b - 1);
			}
		ok(bad == 0, "log2 = 63 - clz at every power of two, beside it and within (%d off)",
		   bad);
	}

	/* percentiles against exact ones */
	for (j = 0; j < N; j++)
		v[j] = 1000 + rnd() % 1000000;
	check_pcts("uniform 1us-1ms", v, N);
	for (j = 0; j < N; j++)
		v[j] = (__u64)exp(log(50000) + 1.2 * nrand());
	check_pcts("lognormal median 50us", v, N);
	for (j = 0; j < N; j++)
		v[j] = urand() < 0.999 ? 2000 + rnd() % 3000 : 40000000 + rnd() % 20000000;
	check_pcts("bimodal, 0.1% far tail at 40-60ms", v, N);
	for (j = 0; j < 1000; j++)
		v[j] = rnd() % 40;
	check_pcts("small values 0-39ns", v, 1000);

	/* merge: two halves merged equal the whole */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&u, 0, sizeof(u));
	for (j = 0; j < 10000; j++) {
		__u64 x = rnd() % 10000000;

		lat_hist_record(j % 2 ? &a : &b, x);
		lat_hist_record(&u, x);
	}
	lat_hist_merge(&a, &b);
	ok(!memcmp(&a, &u, sizeof(a)), "merge of two halves equals the whole");

	/* delta: an interval's counts are exact, its min/max within a slot */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (j = 0; j < 5000; j++)
		lat_hist_record(&a, 1000000 + rnd() % 1000);	/* before: around 1 ms */
	b = a;
	memset(&u, 0, sizeof(u));
	for (j = 0; j < 5000; j++) {
		__u64 x = 5000 + rnd() % 500000;	/* interval: 5us-505us */

		lat_hist_record(&b, x);
		lat_hist_record(&u, x);
	}
	lat_hist_delta(&iv, &b, &a);
	ok(iv.count == u.count && iv.sum == u.sum &&
	   !memcmp(iv.slots, u.slots, sizeof(u.slots)), "delta: count, sum, slots exact");
	ok(iv.min == u.min, "delta: a new run minimum is exact (%llu)",
	   (unsigned long long)iv.min);
	ok(iv.max >= u.max && lat_hist_index(iv.max) == lat_hist_index(u.max),
	   "delta: max within the slot of the true max (%llu vs %llu)",
	   (unsigned long long)iv.max, (unsigned long long)u.max);

	/* packed: the same histogram, the same interval, in far fewer bytes */
	{
		struct lat_hist_packed *pa = malloc(lat_hist_packed_size(&a));
		struct lat_hist_packed *pb = malloc(lat_hist_packed_size(&b));
		struct lat_hist back, iv2, scratch;

		lat_hist_pack(pa, &a);
		lat_hist_pack(pb, &b);
		lat_hist_unpack(&back, pb);
		ok(!memcmp(&back, &b, sizeof(b)), "pack, unpack: byte for byte (%u slots in %zu bytes)",
		   pb->nz, lat_hist_packed_size(&b));
		lat_hist_delta_packed(&iv2, pb, pa);
		ok(!memcmp(&iv2, &iv, sizeof(iv)), "delta of packed = delta of dense");
		lat_hist_delta_packed(&iv2, pb, NULL);
		ok(!memcmp(&iv2, &b, sizeof(b)), "delta of packed from nothing = the run");
		memset(&back, 0, sizeof(back));
		free(pa);
		pa = malloc(lat_hist_packed_size(&back));
		lat_hist_pack(pa, &back);
		ok(pa->nz == 0 && lat_hist_packed_size(&back) == sizeof(*pa),
		   "an empty histogram packs to its header");
		free(pa);
		free(pb);
		/* packed sums (tcp --per-remote): a + u packed = a merged with u */
		pa = NULL;
		ok(!lat_hist_packed_add(&pa, &a, &scratch) && !lat_hist_packed_add(&pa, &u, &scratch),
		   "packed add: from nothing, twice");
		back = a;
		lat_hist_merge(&back, &u);
		lat_hist_unpack(&iv2, pa);
		ok(!memcmp(&iv2, &back, sizeof(back)) && lat_hist_packed_bytes(pa) ==
		   lat_hist_packed_size(&back), "packed add = merge, byte for byte, in its own size");
		free(pa);
	}

	/* overflow counted, never clipped */
	memset(&a, 0, sizeof(a));
	lat_hist_record(&a, 5);
	lat_hist_record(&a, 1ULL << 50);
	ok(a.overflow == 1 && a.count == 2 && a.max == 1ULL << 50 &&
	   lat_hist_percentile(&a, 100) == 1ULL << 50 && lat_hist_percentile(&a, 50) == 5,
	   "a value above 2^44 ns is counted as overflow; max and p100 exact");
	/* a shared histogram keeps no count in BPF: its reader's, from the
	 * slots, equals what a recorder that counts gets */
	u = a;
	a.count = 0;
	lat_hist_count_slots(&a);
	ok(!memcmp(&a, &u, sizeof(a)), "count from the slots and overflow (%llu) = counted (%llu)",
	   (unsigned long long)a.count, (unsigned long long)u.count);
	memset(&a, 0, sizeof(a));
	ok(lat_hist_percentile(&a, 50) == 0, "empty histogram: percentile 0");
	return done_testing();
}

// SPDX-License-Identifier: GPL-2.0
/* lat_table: get-or-insert keeps items sorted by key, zeroes new ones. */
#include <stdlib.h>
#include <string.h>
#include "core/maps.h"
#include "tap.h"

struct item {
	__u32 key;
	__u32 value;
};

int main(void)
{
	struct lat_table t = { .item_size = sizeof(struct item), .key_size = sizeof(__u32) };
	struct item *it;
	bool fresh, sorted = true, all_fresh = true;
	__u32 k, i;

	for (i = 0; i < 1000; i++) {	/* 0, 7, 14, ... in scrambled order */
		k = (i * 389) % 1000 * 7;
		it = lat_table_get(&t, &k, &fresh);
		all_fresh &= it && fresh && it->key == k && it->value == 0;
		if (it)
			it->value = k + 1;
	}
	ok(all_fresh && t.n == 1000, "1000 distinct keys: 1000 fresh, zeroed items");
	for (i = 1; i < t.n; i++)
		sorted &= memcmp(lat_table_at(&t, i - 1), lat_table_at(&t, i), sizeof(__u32)) < 0;
	ok(sorted, "items stay in key byte order across growth");
	k = 700;
	it = lat_table_get(&t, &k, &fresh);
	ok(it && !fresh && it->value == 701 && t.n == 1000, "an existing key returns its item");
	free(t.items);
	return done_testing();
}

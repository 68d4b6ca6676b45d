/* SPDX-License-Identifier: GPL-2.0 */
/* The hiccup family's intruder lists, exposed for its unit test. */
#ifndef LATBPF_FAMILIES_HICCUP_H
#define LATBPF_FAMILIES_HICCUP_H

#include <stddef.h>
#include "latbpf/hiccup.h"

struct lat_hc_intruder_entry {
	struct lat_hc_intruder_key k;
	struct lat_hc_intruder v;
};
struct lat_hc_intruder_list {
	struct lat_hc_intruder_entry *a;
	size_t n, cap;
};
long lat_hc_irq_thread(const char *comm, const char **name);
int lat_hc_merge_caches(struct lat_hc_intruder_list *l, const struct lat_hc_cache *c,
			int ncpus);

#endif

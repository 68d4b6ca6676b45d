// SPDX-License-Identifier: GPL-2.0
/* The modules main.c iterates over, generated from FAMILIES in the Makefile. */
#include <stdio.h>
#include "lat.h"

#define LAT_FAMILY(n) extern const struct lat_module_ops lat_##n##_ops;
#include "families.h"
#undef LAT_FAMILY

#define LAT_FAMILY(n) &lat_##n##_ops,
const struct lat_module_ops *const lat_modules[] = {
#include "families.h"
	NULL,
};

int lat_nr_modules(void)
{
	int n = 0;

	while (lat_modules[n])
		n++;
	return n;
}

const char *lat_family_list(void)
{
	static char list[256];
	size_t l = 0;

	if (!list[0])
		for (int i = 0; lat_modules[i] && l < sizeof(list); i++)
			l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s", i ? "," : "",
					      lat_modules[i]->name);
	return list;
}

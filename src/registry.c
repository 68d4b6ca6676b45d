// SPDX-License-Identifier: GPL-2.0
/* The modules main.c iterates over, generated from FAMILIES in the Makefile. */
#include "lat.h"

#define LAT_FAMILY(n) extern const struct lat_module_ops lat_##n##_ops;
#include "families.h"
#undef LAT_FAMILY

#define LAT_FAMILY(n) &lat_##n##_ops,
const struct lat_module_ops *const lat_modules[] = {
#include "families.h"
	NULL,
};

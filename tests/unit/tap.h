/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP producer for the unit tests; prove reads the output. */
#ifndef LATBPF_TAP_H
#define LATBPF_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static void __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
}

static int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif

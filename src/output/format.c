// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot's figures as people read them, in one place for every text
 * output (the panel, the tables, the HTML page): a JSON key without its unit
 * ("stolen_ns" -> "stolen") and a value in the unit the key names (a time,
 * a size, an event's time on the wall clock, a share).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "output/format.h"
#include "core/fmt.h"

bool lat_key_ends(const char *key, const char *suffix)
{
	size_t n = strlen(key), m = strlen(suffix);

	return n > m && !strcmp(key + n - m, suffix);
}

/* People read "stolen=21.3ms", not "stolen_ns=21300000": the unit the JSON
 * key carries is in the value, so the label drops it. Where a count of the
 * same name sits beside a time ("preempted" and "preempted_ns"), the time
 * is "preempted_time". */
const char *lat_text_label(const char *key, char *buf, size_t n)
{
	static const char *const units[] = { "_ns", "_bytes", "_pct" };
	static const char *const times[] = { "max", "min", "duration", "threshold", "stolen",
					     "intruder", "total", "elapsed", "attach_cpu",
					     "delay", "tasks", "unexplained", "window", "timer_late" };
	size_t stem;

	if (!strcmp(key, "ts_ns"))
		return "at";
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!lat_key_ends(key, units[i]))
			continue;
		stem = strlen(key) - strlen(units[i]);
		snprintf(buf, n, "%.*s", (int)stem, key);
		if (i == 0) {
			bool alone = false;

			for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++)
				alone |= !strcmp(buf, times[k]);
			if (!alone)
				snprintf(buf, n, "%.*s_time", (int)stem, key);
		}
		return buf;
	}
	return key;
}

/* a value in the unit its key names; wall: the snapshot's wall_minus_mono_ns */
void lat_text_value(char *b, size_t n, const char *key, __u64 v, long long wall)
{
	if (!strcmp(key, "ts_ns")) {
		/* an event's CLOCK_MONOTONIC time (bpf_ktime_get_ns), on the wall
		 * clock: UTC, as the provenance's start; the snapshot's offset,
		 * so a saved run's report prints the same time */
		long long at;
		time_t sec;
		struct tm tm;

		/* a saved run's figures can be anything: no overflow, no time */
		if (v > (__u64)LLONG_MAX || __builtin_add_overflow((long long)v, wall, &at) ||
		    at < 0) {
			snprintf(b, n, "?");
			return;
		}
		sec = (time_t)(at / 1000000000LL);
		if (!gmtime_r(&sec, &tm)) {
			snprintf(b, n, "?");
			return;
		}
		snprintf(b, n, "%02d:%02d:%02d.%03dZ", tm.tm_hour, tm.tm_min, tm.tm_sec,
			 (int)(at % 1000000000LL / 1000000));
	} else if (lat_key_ends(key, "_ns")) {
		lat_fmt_ns(b, n, v);
	} else if (lat_key_ends(key, "_bytes")) {
		lat_fmt_bytes(b, n, v);
	} else {
		snprintf(b, n, "%llu", (unsigned long long)v);
	}
}

/* the figure the JSON holds (decimals), rounded again from there: a saved
 * run's report reads that and must print the same; a share ("lost_pct")
 * reads as a percentage */
void lat_text_real(char *b, size_t n, const char *key, double v, int decimals)
{
	snprintf(b, n, "%.*f", decimals, v);
	v = strtod(b, NULL);
	if (lat_key_ends(key, "_pct"))
		snprintf(b, n, "%.2f%%", v);
	else
		snprintf(b, n, "%.*f", decimals, v);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The host baseline a trace report carries (--baseline): the benchmarks
 * the list marks for it, each for a tenth of a second, with a quick
 * calibration, run before attaching and published with the final record.
 */
#include <sched.h>
#include <stdlib.h>
#include "bench/bench.h"
#include "bench/benchmarks.h"
#include "bench/options.h"
#include "bench/publish.h"
#include "bench/runs.h"
#include "core/snap.h"

#define S 1000000000ULL

struct lat_baseline {
	struct lat_bclock clock;
	struct lat_bctx c;
	__u64 took_ns;
};

struct lat_baseline *lat_baseline_run(const char *cpuinfo_flags)
{
	struct lat_baseline *bl = calloc(1, sizeof(*bl));
	cpu_set_t orig;
	__u64 t0 = lat_now_ns();

	if (!bl)
		return NULL;
	sched_getaffinity(0, sizeof(orig), &orig);
	lat_bench_default_cpus(&bl->c);
	bl->c.interval_ns = 1000000ULL;
	lat_bclock_init(true, cpuinfo_flags);
	for (int i = 0; i < lat_bench_ndefs; i++) {
		if (!lat_bench_defs[i].baseline)
			continue;
		lat_bench_run_one(&bl->c, &lat_bench_defs[i], S / 10);
		sched_setaffinity(0, sizeof(orig), &orig);
	}
	bl->clock = lat_bclock;
	bl->took_ns = lat_now_ns() - t0;
	lat_bench_notes_free();
	return bl;
}

/* Into the final snapshot of a trace: "baseline", beside the provenance. */
void lat_baseline_publish(const struct lat_baseline *bl, struct lat_snap *s)
{
	if (!bl)
		return;
	lat_pub_flags(lat_pub_obj(s, "baseline", "host baseline"), LAT_F_PROV);
	lat_pub_real(s, "duration_s", bl->took_ns / 1e9, 3);
	lat_pub_num(s, "cpu", bl->c.cpu);
	lat_bench_publish_clock(s, &bl->clock);
	lat_bench_publish_results(s, bl->c.res, bl->c.nres);
	lat_pub_end(s);
}

void lat_baseline_free(struct lat_baseline *bl)
{
	if (!bl)
		return;
	lat_bench_free_results(&bl->c);
	free(bl);
}

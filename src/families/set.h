/* SPDX-License-Identifier: GPL-2.0 */
/* The families a run uses, as one: opened and attached in the registry's
 * order, polled, published, destroyed; and the scheduler object the ones
 * on its tracepoints share. The trace command holds one of these. */
#ifndef LATBPF_FAMILIES_SET_H
#define LATBPF_FAMILIES_SET_H

#include "core/run.h"
#include "core/snap.h"
#include "families/family.h"
#include "families/schedcore.h"

struct lat_families {
	struct lat_schedcore sched;
	struct {
		const struct lat_module_ops *ops;
		void *priv;
	} m[LAT_MAX_FAMILIES];
	int n;			/* attached */
};

/* What became of one family at attach: "attached (...)" or
 * "unavailable: why", for the provenance */
typedef void (*lat_family_said)(void *ctx, const char *family, const char *status);

/*
 * Opens every family whose bit is in mask (bit i: lat_modules[i]) with its
 * configuration cfg[i], then loads them all (families sharing an object must
 * all be configured before it loads), then attaches them. One that fails is
 * said and the others go on. Returns the first failure; fs->n says how many
 * attached.
 */
int lat_families_attach(struct lat_families *fs, const struct lat_run *run, unsigned mask,
			const unsigned char (*cfg)[LAT_FAMILY_CFG], lat_family_said said,
			void *ctx);
/* the run's window opens at t0: every family that counts from it is told */
void lat_families_start(struct lat_families *fs, __u64 t0_ns);
/* every family reads its maps as of now_ns, the poll's moment (the time
 * family's accounts end there exactly): 0, or the first failure (said) */
int lat_families_poll(struct lat_families *fs, __u64 now_ns);
void lat_families_publish(struct lat_families *fs, struct lat_snap *s);
void lat_families_destroy(struct lat_families *fs);

#endif

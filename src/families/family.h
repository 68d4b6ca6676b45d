/* SPDX-License-Identifier: GPL-2.0 */
/* One probe family: the ops table every family implements (src/families/X.c),
 * its own options, and the registry of all of them (registry.c). */
#ifndef LATBPF_FAMILIES_FAMILY_H
#define LATBPF_FAMILIES_FAMILY_H

#include <stdbool.h>
#include "core/run.h"
#include "core/snap.h"
#include "families/schedcore.h"

#define LAT_MAX_FAMILIES 16
#define LAT_FAMILY_CFG 64	/* bytes of a family's own configuration */

/* A family's own command-line option: set() puts its value into the
 * family's configuration (0, or -EINVAL with a message). */
struct lat_family_opt {
	const char *name;	/* long option, without "--"; NULL ends a table */
	const char *arg;	/* its value in --help ("DUR"), NULL for a flag */
	const char *help;	/* --help's text; '\n' continues on the next line */
	int (*set)(void *cfg, const char *arg);
};

struct btf;
struct lat_schedcore;

/* What a family's open() is given: the run, the kernel's BTF (parsed once,
 * for open() only), and the object the families on the scheduler's
 * tracepoints share (schedcore.h). */
struct lat_family_ctx {
	const struct lat_run *run;
	const struct btf *btf;
	struct lat_schedcore *sched;
};

/* One probe family. Functions return 0 or a negative errno and print their
 * own message, prefixed by the family name. */
struct lat_module_ops {
	const char *name;
	bool opt_in;	/* not in the default --probes: on when asked for */
	const struct lat_family_opt *options;	/* its own, or NULL */
	void (*defaults)(void *cfg);	/* its configuration before options, or NULL */
	/* open, configure; cfg: its configuration (LAT_FAMILY_CFG bytes) */
	int (*open)(const struct lat_family_ctx *fc, const void *cfg, void **priv);
	/* load (the verifier's work): every family loads before any attaches,
	 * so the families watching the scheduler do not see latbpf's own
	 * loading as the target's hiccups; NULL: attach does it */
	int (*load)(void *priv);
	int (*attach)(void *priv);	/* attach (and load, without load()) */
	/* the run's window opens at t0 (CLOCK_MONOTONIC ns), after every
	 * family attached: what a family counts from then on; NULL: nothing */
	void (*start)(void *priv, __u64 t0_ns);
	const char *(*mode)(void *priv);	/* how it attached, for provenance */
	int (*poll)(void *priv);	/* read maps: close an interval */
	/* what the last poll read, into the snapshot; valid until the next poll */
	void (*publish)(void *priv, struct lat_snap *s);
	void (*destroy)(void *priv);
};

extern const struct lat_module_ops *const lat_modules[];
int lat_nr_modules(void);
/* "sched,hiccup,..." for messages and --help */
const char *lat_family_list(void);
/* the families on without --probes: all but the opt_in ones */
unsigned lat_default_probes(void);
/* the bit of the family called name, or 0 */
unsigned lat_family_bit(const char *name);

/* "sched,hiccup" -> bits of lat_modules[]: 0, or -EINVAL with a message */
int lat_parse_probes(const char *s, unsigned *mask);

#endif

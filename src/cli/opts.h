/* SPDX-License-Identifier: GPL-2.0 */
/* The trace command's options: what latbpf was asked to do. */
#ifndef LATBPF_CLI_OPTS_H
#define LATBPF_CLI_OPTS_H

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "latbpf/target.h"
#include "core/flight.h"
#include "core/target.h"
#include "families/family.h"
#include "output/sink.h"

/* Everything the trace command line says; filled by lat_opts_parse(). */
struct lat_opts {
	struct lat_target_spec target;	/* --pid, --tid, --cgroup, --cpus, -- COMMAND */
	bool probes_given;		/* --probes was on the command line */
	unsigned probes;		/* bit i: lat_modules[i] */
	__u64 interval_ns, duration_ns;
	bool no_tui, verbose, baseline, bpf_stats;
	bool priority_normal;		/* --priority normal: not SCHED_IDLE */
	const char *outputs[LAT_MAX_OUTPUTS];	/* each lat_outputs[i]'s argument, or NULL */
	const char *web_config;		/* --web-config FILE, for --prometheus */
	struct lat_flight_opts rec;	/* --record, --trigger (and --trace's FILE) */
	bool help, version;
	/* each family's own options, in the layout it alone knows */
	_Alignas(8) unsigned char cfg[LAT_MAX_FAMILIES][LAT_FAMILY_CFG];
};

int lat_opts_parse(int argc, char **argv, struct lat_opts *o);
void lat_opts_free(struct lat_opts *o);
void lat_usage(FILE *f);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Every output is a sink: it renders the snapshots of a run (or of a bench)
 * its own way. A new output is one src/output/X.c behind these ops. */
#ifndef LATBPF_OUTPUT_SINK_H
#define LATBPF_OUTPUT_SINK_H

#include <stdbool.h>
#include "core/snap.h"

/* Sinks: each renders the snapshots of a run (or of a bench) its own way.
 * interval() gets every interval's, final() the whole run's at the end;
 * both return 0 or a negative errno (said on stderr). */
struct lat_sink;
struct lat_sink_ops {
	const char *name;
	int (*interval)(struct lat_sink *k, const struct lat_snap *s);
	int (*final)(struct lat_sink *k, const struct lat_snap *s);
	void (*free)(struct lat_sink *k);
	/* A sink people talk to (the live view) also has these, others NULL:
	 * the fd the run's loop watches for it; what it does when that is
	 * readable (false: the user ends the run); and, when the loop is over,
	 * giving the terminal back before the last records are rendered. */
	int (*input_fd)(struct lat_sink *k);
	bool (*input)(struct lat_sink *k);
	void (*stop)(struct lat_sink *k);
	/* A sink with a configuration file rereads it on SIGHUP (and says how
	 * it went); NULL for others */
	int (*reload)(struct lat_sink *k);
};
struct lat_sink {
	const struct lat_sink_ops *ops;
};

struct lat_flight;

/* What the trace command tells an output it opens from its option */
struct lat_sink_env {
	double t0_epoch_s;	/* the run's start on the wall clock */
	bool stdout_taken;	/* set by an output that writes to stdout */
	const char *web_config;	/* --web-config FILE, for --prometheus */
	struct lat_flight *flight;	/* --record's memory (core/flight.h), or NULL */
};

/*
 * The outputs an option turns on (registry.c), one line each: the option,
 * its argument and help as --help shows them, and the constructor, which
 * returns NULL with errno EINVAL for the user's mistake (said on stderr),
 * another errno for a failure. threads: it starts a thread of its own,
 * so it is opened once latbpf's threads keep off the target's CPUs.
 */
struct lat_output {
	const char *option, *arg, *help;
	bool threads;
	struct lat_sink *(*open)(const char *arg, struct lat_sink_env *env);
};
#define LAT_MAX_OUTPUTS 8
extern const struct lat_output lat_outputs[];	/* ends with a NULL option */

#endif

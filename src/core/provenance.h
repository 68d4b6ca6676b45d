/* SPDX-License-Identifier: GPL-2.0 */
/* Where a report comes from: latbpf, host, run, target, probes. Every JSON
 * record carries it; the text outputs print it once. */
#ifndef LATBPF_CORE_PROVENANCE_H
#define LATBPF_CORE_PROVENANCE_H

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "core/away.h"
#include "core/snap.h"
#include "core/target.h"

/* argv: the command line, kept (not copied); watch: --cpus, or NULL
 * (interval and watch matter to a trace only; a bench publishes the host) */
struct lat_provenance *lat_provenance_new(int argc, char **argv, __u64 interval_ns,
					  const cpu_set_t *watch);
struct lat_tgt;
/* the target (kept, not copied); also looks up its first pid's cgroup */
void lat_provenance_set_target(struct lat_provenance *p, const struct lat_tgt *g);
struct lat_away;
/* where latbpf's threads run (target.h), published with the run */
void lat_provenance_set_away(struct lat_provenance *p, const struct lat_away *a);
void lat_provenance_set_probe(struct lat_provenance *p, const char *name,
			      const char *status);
/* into the snapshot: "latbpf", "host", "run" and "probes"; elapsed in ns */
void lat_provenance_publish(const struct lat_provenance *p, struct lat_snap *s,
			    __u64 elapsed_ns);
/* the host alone: "latbpf" and "host"; the first text line */
void lat_provenance_publish_host(const struct lat_provenance *p, struct lat_snap *s);
void lat_provenance_text(const struct lat_provenance *p, FILE *f, __u64 elapsed_ns);
void lat_provenance_host_text(const struct lat_provenance *p, FILE *f);
/* the same lines from a snapshot's published provenance (a saved run) */
void lat_provenance_text_snap(const struct lat_snap *s, FILE *f);
const char *lat_provenance_tsc_flags(const struct lat_provenance *p);
void lat_provenance_free(struct lat_provenance *p);

#endif

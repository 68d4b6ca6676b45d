/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LATBPF_TARGET_USER_H
#define LATBPF_TARGET_USER_H

#include <sched.h>
#include "lat.h"

/* What is being traced, and how its end is noticed. */
struct lat_tgt {
	struct lat_target t;	/* BPF layout: tgids and tids */
	char comm[64];		/* raw bytes from /proc; escape before use */
	pid_t child;		/* COMMAND we started, or 0 */
	int go_fd;		/* write end: closing it lets the child exec */
	int err_fd;		/* read end: exec errno, or EOF on success */
	int pidfd[LAT_MAX_TARGETS * 2];
	int npidfd;
	int exit_status;	/* of the child */
};

/* 0; -ESRCH (no such pid or tid) or -ENOENT (no such COMMAND), both said
 * on stderr; or another -errno */
int lat_tgt_init(struct lat_tgt *g, const struct lat_opts *o);
int lat_tgt_start(struct lat_tgt *g);
bool lat_tgt_gone(struct lat_tgt *g);
void lat_tgt_cleanup(struct lat_tgt *g);
void lat_tgt_pinned_cpus(const struct lat_tgt *g, cpu_set_t *pinned);

#endif

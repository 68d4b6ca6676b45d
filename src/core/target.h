/* SPDX-License-Identifier: GPL-2.0 */
/* What is traced: the user's target resolved to processes, threads and
 * cgroups, watched for its end (target.c, scope.c). */
#ifndef LATBPF_CORE_TARGET_H
#define LATBPF_CORE_TARGET_H

#include <sched.h>
#include <stdbool.h>
#include <linux/types.h>
#include "latbpf/target.h"
#include "core/run.h"

/* What the user asked to trace (the trace command's target options) */
struct lat_target_spec {
	__u32 *pids, n_pids;		/* --pid, up to LAT_MAX_IDS */
	__u32 *tids, n_tids;		/* --tid */
	const char *cgroups[LAT_MAX_TARGETS];	/* --cgroup arguments, unsplit */
	__u32 n_cgroup_args;
	bool children;			/* --children */
	cpu_set_t watch;		/* --cpus: the hiccup family watches these */
	char **command;			/* after "--", NULL-terminated */
};

/* What is being traced, and how its end is noticed. */
struct lat_tgt {
	struct lat_target t;	/* for BPF: up to 16 ids inline, or the mode */
	__u32 *pids, npids;	/* every target process (the COMMAND's too) */
	__u32 *tids, ntids;	/* every single target thread */
	char comm[64];		/* raw bytes from /proc; escape before use */
	pid_t child;		/* COMMAND we started, or 0 */
	int go_fd;		/* write end: closing it lets the child exec */
	int err_fd;		/* read end: exec errno, or EOF on success */
	int epfd;		/* the targets' pidfds: readable when one exits */
	__u32 alive;		/* targets not seen to exit yet */
	__u32 *proc_tids, nproc_tids;	/* threads without a pidfd (< 6.9): /proc */
	int exit_status;	/* of the child */
	/* beyond the short list (src/scope.c) */
	bool follow;		/* new processes of the roots are targets too */
	char *cg_path[LAT_MAX_TARGETS];	/* --cgroup, resolved */
	__u64 cg_id[LAT_MAX_TARGETS];
	int ncg;
	struct target_bpf *skel;	/* the fork follower, its bitmaps mapped */
	/* latbpf in a child pid namespace (a container): the ids as given
	 * are its, the kernel's differ; host_* are the kernel's */
	__u32 ns_inum;			/* that namespace's inode, 0 in the initial one */
	__u32 *host_pids, *host_tids;	/* npids, ntids of them */
	struct lat_nsid *nsids;		/* the namespace's tasks, by ns_tid */
	size_t nnsids;
	__u64 *bits[3];			/* by tid, by tgid: threads, children */
	size_t bits_len;
};

/* 0; -ESRCH (no such pid or tid) or -ENOENT (no such COMMAND), both said
 * on stderr; or another -errno */
int lat_tgt_init(struct lat_tgt *g, const struct lat_target_spec *o);
/* the thread group tid belongs to, from /proc/TID/status; 0 if none */
pid_t lat_tgid_of(pid_t tid);
int lat_tgt_start(struct lat_tgt *g);
bool lat_tgt_gone(struct lat_tgt *g);
void lat_tgt_cleanup(struct lat_tgt *g);

/* src/scope.c: --cgroup paths resolved (0, or said on stderr: -ENOENT or
 * -EMEDIUMTYPE, a usage error; -ENODEV, no cgroup2 on the host), then, before the families load, the shared target maps made
 * and the followed tasks' bits set (0 or -errno); cleanup frees both */
int lat_scope_init(struct lat_tgt *g, const struct lat_target_spec *o);
int lat_scope_load(struct lat_tgt *g, struct lat_run *run);
void lat_scope_cleanup(struct lat_tgt *g);

#endif

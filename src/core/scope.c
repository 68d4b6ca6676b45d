// SPDX-License-Identifier: GPL-2.0
/*
 * The target beyond a short list of ids (bpf/target.bpf.h): cgroup v2
 * subtrees, and the bitmap of target tids that bpf/target.bpf.c keeps at
 * every fork, for a COMMAND's process tree and --children.
 *
 * The maps are made here, once, and every family's object uses them
 * (lat_target_share), so one fork program serves all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include "core/escape.h"
#include "core/maps.h"
#include "core/proc.h"
#include "core/run.h"
#include "core/target.h"
#include "target.skel.h"

enum { TBITS, PBITS, FBITS };	/* g->bits: by tid, by tgid, by tgid */

/* One --cgroup path: as given, or relative to the cgroup2 root (the form
 * /proc/PID/cgroup shows). 0, or a message and -ENOENT, or -EMEDIUMTYPE
 * for a cgroup v1 path. */
static int resolve(struct lat_tgt *g, const char *arg, const char *root)
{
	char q[LAT_ARG_MAX], cand[2][8200];
	struct statfs sf;
	struct stat st;
	bool v1 = false;
	int i;

	lat_term_arg(q, sizeof(q), arg);
	if (g->ncg >= LAT_MAX_TARGETS) {
		fprintf(stderr, "latbpf: at most %d cgroups\n", LAT_MAX_TARGETS);
		return -ENOENT;
	}
	/* as given, then under the cgroup2 root ("/" is the root cgroup) */
	snprintf(cand[0], sizeof(cand[0]), "%s", arg);
	snprintf(cand[1], sizeof(cand[1]), "%s%s%s", root, arg[arg[0] == '/'] ? "/" : "",
		 arg + (arg[0] == '/'));
	for (i = 0; i < 2; i++) {
		if (stat(cand[i], &st) || statfs(cand[i], &sf))
			continue;
		if (sf.f_type == CGROUP2_SUPER_MAGIC && S_ISDIR(st.st_mode))
			break;
		v1 |= sf.f_type == CGROUP_SUPER_MAGIC;
	}
	if (i == 2 && v1) {
		fprintf(stderr, "latbpf: %s is a cgroup v1 hierarchy; give the cgroup v2 "
			"path, under %s (the 0:: line of /proc/PID/cgroup)\n", q, root);
		return -EMEDIUMTYPE;
	}
	if (i == 2) {
		fprintf(stderr, "latbpf: no such cgroup: %s (a directory under %s, or a "
			"path as the 0:: line of /proc/PID/cgroup shows it)\n", q, root);
		return -ENOENT;
	}
	/* a cgroup's id is its directory's inode number (64-bit kernfs) */
	g->cg_id[g->ncg] = (__u64)st.st_ino;
	if (!(g->cg_path[g->ncg] = strdup(cand[i])))
		return -ENOMEM;
	g->ncg++;
	return 0;
}

int lat_scope_init(struct lat_tgt *g, const struct lat_target_spec *o)
{
	char root[4096], *list, *save = NULL, *p;
	/* /sys/fs/cgroup on unified hosts, /sys/fs/cgroup/unified on hybrid ones */
	bool have_root = lat_cgroup_mount("cgroup2", NULL, false, root, sizeof(root));
	int err = 0;

	/* --cpus alone: the hiccup family watches those CPUs, no task is a
	 * target */
	if (CPU_COUNT(&o->watch) && !o->n_pids && !o->n_tids && !o->command &&
	    !o->n_cgroup_args)
		g->t.mode |= LAT_TARG_NONE;
	g->follow = o->children || o->command;
	if (g->follow) {
		g->t.mode |= LAT_TARG_MAP;
		g->t.n_tgids = g->t.n_tids = 0;	/* the bitmap has them */
	}
	if (!o->n_cgroup_args)
		return 0;
	if (!have_root) {
		fprintf(stderr, "latbpf: --cgroup needs cgroup v2, and no cgroup2 file "
			"system is mounted (mount -t cgroup2 none /sys/fs/cgroup/unified)\n");
		return -ENODEV;
	}
	for (__u32 i = 0; i < o->n_cgroup_args && !err; i++) {
		if (!(list = strdup(o->cgroups[i])))
			return -ENOMEM;
		for (p = strtok_r(list, ",", &save); p && !err; p = strtok_r(NULL, ",", &save))
			err = resolve(g, p, root);
		free(list);
	}
	if (!err)
		g->t.mode |= LAT_TARG_CGROUP;
	return err;
}

static long pid_max(void)
{
	long v = 32768;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1 || v <= 0)
			v = 32768;
		fclose(f);
	}
	return v > (1L << 22) ? 1L << 22 : v;	/* PID_MAX_LIMIT */
}

static void set_bit(struct lat_tgt *g, int which, __u32 id, bool on)
{
	__u64 bit = 1ULL << (id & 63), *w;

	if (!id || (size_t)(id >> 6) >= g->bits_len / 8)
		return;	/* 0: a task that vanished, or the idle tasks */
	w = &g->bits[which][id >> 6];
	if (on)
		__atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(w, ~bit, __ATOMIC_RELAXED);
}

static bool get_bit(const struct lat_tgt *g, int which, __u32 id)
{
	if ((size_t)(id >> 6) >= g->bits_len / 8)
		return false;
	return (__atomic_load_n(&g->bits[which][id >> 6], __ATOMIC_RELAXED) >> (id & 63)) & 1;
}

/* latbpf's pid namespace when it is not the initial one (whose inode is
 * fixed: PROC_PID_INIT_INO), else 0 */
static __u32 child_pid_ns(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == 0xEFFFFFFCU)
		return 0;
	return (__u32)st.st_ino;
}

static int by_ns_tid(const void *a, const void *b)
{
	const struct lat_nsid *x = a, *y = b;

	return (x->ns_tid > y->ns_tid) - (x->ns_tid < y->ns_tid);
}

/* The namespace's tasks now, from the iterator, sorted by ns_tid */
static int read_nsids(struct lat_tgt *g)
{
	struct bpf_link *link = bpf_program__attach_iter(g->skel->progs.lat_ns_ids, NULL);
	size_t cap = 0, got = 0;
	char *buf = NULL;
	ssize_t n;
	int fd, err = 0;

	if (!link)
		return -errno;
	if ((fd = bpf_iter_create(bpf_link__fd(link))) < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		if (cap - got < 4096) {
			char *m = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!m) {
				err = -ENOMEM;
				break;
			}
			buf = m;
		}
		if ((n = read(fd, buf + got, cap - got)) < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (!err) {
		free(g->nsids);
		g->nsids = (struct lat_nsid *)buf;
		g->nnsids = got / sizeof(struct lat_nsid);
		buf = NULL;
		qsort(g->nsids, g->nnsids, sizeof(*g->nsids), by_ns_tid);
	}
out:
	free(buf);
	bpf_link__destroy(link);
	return err;
}

/* The kernel's id of a task latbpf's namespace calls id (itself outside
 * a namespace); 0 if that namespace has no such task */
static __u32 host_of(const struct lat_tgt *g, __u32 id)
{
	struct lat_nsid key = { .ns_tid = id }, *r;

	if (!g->ns_inum)
		return id;
	r = bsearch(&key, g->nsids, g->nnsids, sizeof(key), by_ns_tid);
	return r ? r->tid : 0;
}

/* A process and its threads become targets; with follow, its new
 * processes too. Its own bits first: a thread it starts meanwhile is the
 * fork program's. */
static void add_process(struct lat_tgt *g, pid_t pid, bool follow)
{
	__u32 hp = host_of(g, (__u32)pid);
	char path[64];
	struct dirent *d;
	DIR *dir;

	if (!hp)
		return;
	set_bit(g, PBITS, hp, true);
	set_bit(g, FBITS, hp, follow);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(dir = opendir(path)))
		return;
	while ((d = readdir(dir))) {
		__u32 ht = d->d_name[0] != '.' ? host_of(g, (__u32)atoi(d->d_name)) : 0;

		if (ht)
			set_bit(g, TBITS, ht, true);
	}
	closedir(dir);
}

/* ppid from /proc/PID/stat: after the last ')' (comm may hold any byte) */
static pid_t ppid_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/* Processes started before the fork program was attached: every process
 * whose parent is followed, until no new one is found. */
static void add_descendants(struct lat_tgt *g)
{
	bool more = true;

	for (int round = 0; more && round < 64; round++) {
		struct dirent *d;
		DIR *dir = opendir("/proc");

		more = false;
		if (!dir)
			return;
		while ((d = readdir(dir))) {
			pid_t pid = atoi(d->d_name), pp;

			if (pid <= 0 || get_bit(g, FBITS, host_of(g, (__u32)pid)))
				continue;
			if ((pp = ppid_of(pid)) > 0 && get_bit(g, FBITS, host_of(g, (__u32)pp))) {
				add_process(g, pid, true);
				more = true;
			}
		}
		closedir(dir);
	}
}

/* A tid set from /proc may have exited and been reused before its bit was
 * set; a fork after the program's attach is decided there, so one look
 * now at each set tid's process settles the rest. */
static void drop_strangers_ns(struct lat_tgt *g)
{
	size_t words = g->bits_len / 8;
	__u64 *keep = calloc(words ? words : 1, sizeof(*keep));

	if (!keep || read_nsids(g)) {
		free(keep);
		return;
	}
	for (size_t i = 0; i < g->nnsids; i++) {
		const struct lat_nsid *r = &g->nsids[i];

		if ((size_t)(r->tid >> 6) < words && get_bit(g, PBITS, r->tgid))
			keep[r->tid >> 6] |= 1ULL << (r->tid & 63);
	}
	for (size_t w = 0; w < words; w++)
		for (__u64 v = g->bits[TBITS][w] & ~keep[w]; v; v &= v - 1)
			set_bit(g, TBITS, (__u32)(w * 64 + (size_t)__builtin_ctzll(v)), false);
	free(keep);
}

static void drop_strangers(struct lat_tgt *g)
{
	if (g->ns_inum) {
		drop_strangers_ns(g);
		return;
	}
	for (size_t w = 0; w < g->bits_len / 8; w++) {
		for (__u64 v = g->bits[TBITS][w]; v; v &= v - 1) {
			__u32 tid = (__u32)(w * 64 + (size_t)__builtin_ctzll(v));
			pid_t tgid = lat_tgid_of((pid_t)tid);

			if (tgid <= 0 || !get_bit(g, PBITS, (__u32)tgid))
				set_bit(g, TBITS, tid, false);
		}
	}
}

static int load(struct lat_tgt *g, bool map)
{
	struct target_bpf *s = target_bpf__open();
	struct bpf_map *bm[3];
	size_t words = (size_t)(pid_max() + 63) / 64;
	int err, i;

	if (!s)
		return -errno;
	g->skel = s;
	bm[TBITS] = s->maps.lat_tbits;
	bm[PBITS] = s->maps.lat_pbits;
	bm[FBITS] = s->maps.lat_fbits;
	if (map) {
		for (i = 0; i < 3; i++) {
			bpf_map__set_max_entries(bm[i], (__u32)words);
			bpf_map__set_map_flags(bm[i], bpf_map__map_flags(bm[i]) |
				BPF_F_MMAPABLE);
		}
	} else {
		bpf_program__set_autoload(s->progs.lat_fork, false);
	}
	bpf_program__set_autoload(s->progs.lat_ns_ids, g->ns_inum != 0);
	s->rodata->ns_inum = g->ns_inum;
	if (g->ncg) {
		__u32 n = 1, want = lat_env_entries("LATBPF_CGROUP_CACHE", 4096);

		while (n < want && n < (1U << 20))
			n <<= 1;	/* a power of two: slot = id & mask */
		g->t.cg_mask = n - 1;
		bpf_map__set_max_entries(s->maps.lat_cgroups, (__u32)g->ncg);
		bpf_map__set_max_entries(s->maps.lat_cgv, n);
	}
	if ((err = target_bpf__load(s)))
		return err;
	for (i = 0; i < g->ncg; i++) {
		__u8 one = 1;

		if (bpf_map_update_elem(bpf_map__fd(s->maps.lat_cgroups), &g->cg_id[i],
					&one, BPF_ANY))
			return -errno;
	}
	if (!map)
		return 0;
	g->bits_len = (words * 8 + 4095) & ~(size_t)4095;
	for (i = 0; i < 3; i++) {
		void *m = mmap(NULL, g->bits_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       bpf_map__fd(bm[i]), 0);

		if (m == MAP_FAILED)
			return -errno;
		g->bits[i] = m;
	}
	g->bits_len = words * 8;
	return 0;
}

/* The ids as given, in latbpf's namespace, to the kernel's: the short
 * list in .rodata; the bitmap translates as it goes */
static int translate(struct lat_tgt *g)
{
	int err = read_nsids(g);
	__u32 i;

	if (err)
		return err;
	g->host_pids = calloc(g->npids + 1, sizeof(__u32));
	g->host_tids = calloc(g->ntids + 1, sizeof(__u32));
	if (!g->host_pids || !g->host_tids)
		return -ENOMEM;
	for (i = 0; i < g->npids; i++)
		if (!(g->host_pids[i] = host_of(g, g->pids[i])))
			return -ESRCH;	/* exited since */
	for (i = 0; i < g->ntids; i++)
		if (!(g->host_tids[i] = host_of(g, g->tids[i])))
			return -ESRCH;
	for (i = 0; i < g->t.n_tgids; i++)
		g->t.tgids[i] = host_of(g, g->t.tgids[i]);
	for (i = 0; i < g->t.n_tids; i++)
		g->t.tids[i] = host_of(g, g->t.tids[i]);
	return 0;
}

int lat_scope_load(struct lat_tgt *g, struct lat_run *run)
{
	bool map = g->t.mode & LAT_TARG_MAP;
	int err;
	__u32 i;

	run->tbits_fd = run->cgroups_fd = run->cgv_fd = -1;
	g->ns_inum = g->npids || g->ntids ? child_pid_ns() : 0;
	if (!(g->t.mode & (LAT_TARG_MAP | LAT_TARG_CGROUP)) && !g->ns_inum)
		return 0;
	if ((err = load(g, map)))
		return err;
	if (g->ns_inum && (err = translate(g)))
		return err;
	run->target = g->t;
	run->tbits_fd = bpf_map__fd(g->skel->maps.lat_tbits);
	run->cgroups_fd = bpf_map__fd(g->skel->maps.lat_cgroups);
	run->cgv_fd = bpf_map__fd(g->skel->maps.lat_cgv);
	if (!map)
		return 0;
	/* the fork program first, then what exists: nothing falls between */
	if ((err = target_bpf__attach(g->skel)))
		return err;
	/* in a namespace the bitmap's tids are not latbpf's to look up */
	run->tbits = g->ns_inum ? NULL : g->bits[TBITS];
	run->tbits_words = g->bits_len / 8;
	for (i = 0; i < g->npids; i++)
		add_process(g, (pid_t)g->pids[i], g->follow);
	for (i = 0; i < g->ntids; i++)
		set_bit(g, TBITS, host_of(g, g->tids[i]), true);
	if (g->follow) {
		add_descendants(g);
		add_descendants(g);	/* those started during the first look */
	}
	drop_strangers(g);
	/* the --tid targets have no process bit: set them again */
	for (i = 0; i < g->ntids; i++)
		set_bit(g, TBITS, host_of(g, g->tids[i]), true);
	return 0;
}

int lat_target_share(const struct lat_run *run, struct bpf_object *obj)
{
	static const char *const names[] = { "lat_tbits", "lat_cgroups", "lat_cgv" };
	const int fds[] = { run->tbits_fd, run->cgroups_fd, run->cgv_fd };
	struct bpf_map *m;
	int err;

	for (int i = 0; i < 3; i++) {
		if (fds[i] < 0 || !(m = bpf_object__find_map_by_name(obj, names[i])))
			continue;
		if ((err = bpf_map__reuse_fd(m, fds[i])))
			return err;
	}
	return 0;
}

void lat_scope_cleanup(struct lat_tgt *g)
{
	for (int i = 0; i < 3; i++)
		if (g->bits[i])
			munmap(g->bits[i], (g->bits_len + 4095) & ~(size_t)4095);
	target_bpf__destroy(g->skel);
	g->skel = NULL;
	for (int i = 0; i < g->ncg; i++)
		free(g->cg_path[i]);
	g->ncg = 0;
	free(g->host_pids);
	free(g->host_tids);
	free(g->nsids);
	g->host_pids = g->host_tids = NULL;
	g->nsids = NULL;
}

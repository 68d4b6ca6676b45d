// SPDX-License-Identifier: GPL-2.0
/* latbpf's idle CPU cgroup (idlecg.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/idlecg.h"
#include "core/proc.h"

#define PREFIX "latbpf-idle."

/* The hierarchy that holds the cpu controller: a v1 one whose options
 * name cpu, else the cgroup2 one; mounted at its own top only (a bind of
 * a subtree is not the top latbpf needs). */
static bool cpu_mount(char *mnt, size_t len, bool *v2)
{
	*v2 = !lat_cgroup_mount("cgroup", "cpu", true, mnt, len);
	return !*v2 || lat_cgroup_mount("cgroup2", NULL, true, mnt, len);
}

/* latbpf's cgroup in that hierarchy, from /proc/self/cgroup */
static bool home_of(bool v2, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool found;

	if (!f)
		return false;
	found = lat_idlecg_home_in(f, v2, path, len);
	fclose(f);
	return found;
}

bool lat_idlecg_home_in(FILE *f, bool v2, char *path, size_t len)
{
	char line[4096];
	bool found = false;

	while (!found && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : NULL;

		if (!p)
			continue;
		*p = '\0';
		p[strcspn(p + 1, "\n") + 1] = '\0';
		if (v2 ? !strcmp(c + 1, "") && line[0] == '0' : lat_has_item(c + 1, "cpu"))
			found = snprintf(path, len, "%s", p + 1) < (int)len;
	}
	return found;
}

static int write_num(const char *dir, const char *file, long n)
{
	char path[600], num[32];
	int fd, len, err = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(num, sizeof(num), "%ld", n);
	if (write(fd, num, (size_t)len) != len)
		err = -errno;
	close(fd);
	return err;
}

/* whether pid is a latbpf that runs now */
static bool latbpf_alive(long pid)
{
	char path[64], comm[32];

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	return lat_read_line(path, comm, sizeof(comm)) && !strcmp(comm, "latbpf");
}

/* cgroups a latbpf that was killed left behind: empty, or rmdir refuses */
static void sweep(const char *mnt)
{
	char path[600];
	struct dirent *d;
	DIR *dir = opendir(mnt);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		long pid;

		if (strncmp(d->d_name, PREFIX, strlen(PREFIX)))
			continue;
		pid = atol(d->d_name + strlen(PREFIX));
		if (pid > 0 && pid != getpid() && !latbpf_alive(pid)) {
			if (snprintf(path, sizeof(path), "%s/%s", mnt, d->d_name) <
			    (int)sizeof(path))
				rmdir(path);
		}
	}
	closedir(dir);
}

/* the initial cgroup namespace's inode (PROC_CGROUP_INIT_INO) */
#define INIT_CGROUP_NS 0xEFFFFFFBU

bool lat_idlecg_make(struct lat_idlecg *g)
{
	char *mnt = g->root, home[512], ctl[600], sub[256];
	struct stat ns;
	int err;

	memset(g, 0, sizeof(*g));
	if (!stat("/proc/self/ns/cgroup", &ns) && ns.st_ino != INIT_CGROUP_NS) {
		g->why = "in a cgroup namespace: its top is not the host's";
		return false;
	}
	if (!cpu_mount(mnt, sizeof(g->root), &g->v2)) {
		g->why = "no cpu cgroup controller mounted";
		return false;
	}
	if (!home_of(g->v2, home, sizeof(home))) {
		g->why = "latbpf's own cgroup not found in /proc/self/cgroup";
		return false;
	}
	if (g->v2) {
		if (snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", mnt) >=
			    (int)sizeof(ctl) ||
		    !lat_read_line(ctl, sub, sizeof(sub)) || !lat_has_word(sub, "cpu")) {
			g->why = "the cgroup2 root has no cpu controller enabled";
			return false;
		}
	}
	if (snprintf(g->home, sizeof(g->home), "%s%s", mnt, strcmp(home, "/") ? home : "") >=
		    (int)sizeof(g->home) ||
	    snprintf(g->dir, sizeof(g->dir), "%s/" PREFIX "%d", mnt, (int)getpid()) >=
		    (int)sizeof(g->dir)) {
		g->why = "cgroup path too long";
		return false;
	}
	sweep(mnt);
	if (mkdir(g->dir, 0755) && errno != EEXIST) {
		g->why = errno == EROFS || errno == EACCES || errno == EPERM ?
				 "the cgroup file system is not writable" : "mkdir failed";
		return false;
	}
	err = write_num(g->dir, "cpu.idle", 1);
	if (err) {
		rmdir(g->dir);
		g->why = err == -ENOENT ? "the kernel has no cpu.idle (5.15, CONFIG_FAIR_GROUP_SCHED)" :
					  "cpu.idle not set";
		return false;
	}
	/* the guard's lift (core/away.c) runs the poll thread at SCHED_FIFO 1:
	 * with real-time group scheduling (v1's cpu.rt_runtime_us) a group
	 * gets none by default, so it gets 100 ms a second here, or the lift
	 * moves the thread out first; cgroup2 cannot give it any */
	snprintf(ctl, sizeof(ctl), "%s/cpu.rt_runtime_us", g->dir);
	if (g->v2)
		g->rt_ok = false;
	else if (access(ctl, F_OK))
		g->rt_ok = true;
	else
		g->rt_ok = !write_num(g->dir, "cpu.rt_runtime_us", 100000);
	g->on = true;
	return true;
}

int lat_idlecg_move(const struct lat_idlecg *g, int tid, bool idle)
{
	if (!g->on)
		return 0;
	/* v2: "0" is the writing process, every thread of it */
	return write_num(idle ? g->dir : g->home, g->v2 ? "cgroup.procs" : "tasks",
			 g->v2 ? 0 : tid);
}

int lat_idlecg_move_process(const struct lat_idlecg *g, bool idle)
{
	if (!g->on)
		return 0;
	return write_num(idle ? g->dir : g->home, "cgroup.procs", 0);
}

void lat_idlecg_remove(struct lat_idlecg *g)
{
	if (!g->on)
		return;
	/* home, or the top where home is gone (a cgroup2 scope systemd
	 * removed once latbpf, its only process, left it) */
	if (lat_idlecg_move_process(g, false))
		write_num(g->root, "cgroup.procs", 0);
	rmdir(g->dir);
	g->on = false;
}

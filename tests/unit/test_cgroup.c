// SPDX-License-Identifier: GPL-2.0
/*
 * Where the cgroup hierarchies are (src/core/proc.c, lat_cgroup_mount_in:
 * scope's --cgroup and the idle cgroup) and which cgroup latbpf is in
 * (src/core/idlecg.c, lat_idlecg_home_in), read from mountinfo and
 * /proc/PID/cgroup lines in the kernel's own formats (proc(5): mountinfo's
 * optional fields up to " - ", then type, source and super options;
 * cgroup's "id:controllers:path", cgroup2's id 0 with no controllers),
 * including the cases a container or a systemd host gives: a v1 hierarchy
 * that shares cpu with cpuacct, a cpuset before it whose name starts with
 * "cpu", a bind of a subtree, a mount point with an octal escape, a named
 * v1 hierarchy, and buffers too short.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "core/idlecg.h"
#include "core/proc.h"
#include "tap.h"

/* a systemd host with cpu on v1 beside cgroup2 (as this project's host) */
static const char host[] =
	"22 28 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"26 22 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
	"27 26 0:24 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate\n"
	"28 26 0:25 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,xattr,name=systemd\n"
	"31 26 0:28 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,cpuset\n"
	"32 26 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:15 master:3 - cgroup cgroup rw,cpu,cpuacct\n";

/* a container's view: its own subtree bound at the usual places, then a
 * host hierarchy at a path with a space (\040) */
static const char container[] =
	"600 500 0:29 /docker/abc /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpuacct,cpu\n"
	"601 500 0:24 /docker/abc /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
	"602 500 0:29 / /mnt/host\\040cpu rw - cgroup cgroup rw,cpu\n";

static bool mount_of(const char *text, const char *type, const char *ctl, bool own_root,
		     char *buf, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	bool found;

	if (!f)
		return false;
	buf[0] = '\0';
	found = lat_cgroup_mount_in(f, type, ctl, own_root, buf, len);
	fclose(f);
	return found;
}

static bool home(const char *text, bool v2, char *buf, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	bool found;

	if (!f)
		return false;
	buf[0] = '\0';
	found = lat_idlecg_home_in(f, v2, buf, len);
	fclose(f);
	return found;
}

int main(void)
{
	char b[256];

	/* lat_has_item: whole items of a comma list */
	ok(lat_has_item("rw,cpu,cpuacct", "cpu"), "has_item: cpu in rw,cpu,cpuacct");
	ok(lat_has_item("cpuacct,cpu", "cpu"), "has_item: cpu last");
	ok(lat_has_item("cpu", "cpu"), "has_item: cpu alone");
	ok(!lat_has_item("rw,cpuset", "cpu"), "has_item: not cpu in rw,cpuset");
	ok(!lat_has_item("rw,cpuacct", "cpu"), "has_item: not cpu in rw,cpuacct");
	ok(!lat_has_item("", "cpu") && !lat_has_item(NULL, "cpu"), "has_item: empty and NULL lists");
	ok(!lat_has_item("rw,xcpu", "cpu"), "has_item: not a suffix");

	/* the host: v1 cpu, not cpuset before it nor the named systemd one */
	ok(mount_of(host, "cgroup", "cpu", true, b, sizeof(b)) &&
	   !strcmp(b, "/sys/fs/cgroup/cpu,cpuacct"), "host: v1 cpu at %s", b);
	ok(mount_of(host, "cgroup", "cpuset", true, b, sizeof(b)) &&
	   !strcmp(b, "/sys/fs/cgroup/cpuset"), "host: v1 cpuset at %s", b);
	ok(mount_of(host, "cgroup2", NULL, true, b, sizeof(b)) &&
	   !strcmp(b, "/sys/fs/cgroup/unified"), "host: cgroup2 at %s (not a v1 line)", b);
	ok(!mount_of(host, "cgroup", "memory", true, b, sizeof(b)), "host: no v1 memory");
	ok(!mount_of(host, "cgroup", "cpu", true, b, 10), "host: a buffer too short finds none (%s)", b);
	ok(mount_of(host, "cgroup", "cpu", true, b, sizeof("/sys/fs/cgroup/cpu,cpuacct")) &&
	   !strcmp(b, "/sys/fs/cgroup/cpu,cpuacct"), "host: a buffer of exactly its size: %s", b);

	/* the container: the binds of a subtree are not a hierarchy's top;
	 * the host's one has an escaped path, which latbpf does not decode */
	ok(!mount_of(container, "cgroup", "cpu", true, b, sizeof(b)),
	   "container: no v1 cpu of its own top (%s)", b);
	ok(mount_of(container, "cgroup", "cpu", false, b, sizeof(b)) &&
	   !strcmp(b, "/sys/fs/cgroup/cpu"), "container: any v1 cpu: the bind at %s", b);
	ok(!mount_of(container, "cgroup2", NULL, true, b, sizeof(b)), "container: no cgroup2 top");
	ok(mount_of(container, "cgroup2", NULL, false, b, sizeof(b)) &&
	   !strcmp(b, "/sys/fs/cgroup"), "container: any cgroup2: %s", b);
	ok(!mount_of("", "cgroup2", NULL, false, b, sizeof(b)), "an empty mountinfo: none");
	ok(!mount_of("garbage without separator\n - \n", "cgroup2", NULL, false, b, sizeof(b)),
	   "a malformed line: none");

	/* /proc/PID/cgroup */
	static const char cg[] =
		"12:cpuset:/\n"
		"3:name=systemd:/user.slice/user-0.slice/session-3.scope\n"
		"4:cpu,cpuacct:/user.slice\n"
		"0::/user.slice/user-0.slice/session-3.scope\n";
	ok(home(cg, false, b, sizeof(b)) && !strcmp(b, "/user.slice"),
	   "cgroup v1: the cpu line (not cpuset's): %s", b);
	ok(home(cg, true, b, sizeof(b)) && !strcmp(b, "/user.slice/user-0.slice/session-3.scope"),
	   "cgroup2: the 0:: line: %s", b);
	ok(!home("12:cpuset:/\n3:name=systemd:/\n", false, b, sizeof(b)), "no cpu line: none");
	ok(!home("4:cpu,cpuacct:/user.slice\n", true, b, sizeof(b)), "no 0:: line: none");
	ok(home("0::/\n", true, b, sizeof(b)) && !strcmp(b, "/"), "cgroup2 at the top: %s", b);
	ok(home("0::/a b\n", true, b, sizeof(b)) && !strcmp(b, "/a b"),
	   "a path with a space is kept whole: %s", b);
	ok(!home("0::/long/path\n", true, b, 5), "a buffer too short: none");
	return done_testing();
}

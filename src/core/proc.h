/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the kernel's text files: /proc and sysfs. */
#ifndef LATBPF_CORE_PROC_H
#define LATBPF_CORE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* the first line of a (sysfs, proc) file, without its newline: false, and
 * "", when it cannot be read */
bool lat_read_line(const char *path, char *buf, size_t len);
/* PREEMPT_RT: /sys/kernel/realtime (1 on such a kernel), or the version
 * string scripts/mkcompile_h writes */
bool lat_kernel_is_rt(void);
/* No BPF local storage may be made in a tracepoint: PREEMPT_RT, where the
 * kernel's allocation takes sleeping locks with preemption off (6.1), or
 * LATBPF_RT_STORAGE=1, which tests the RT path on any kernel (README,
 * "Environment") */
bool lat_no_storage_in_tracepoints(void);
bool lat_has_word(const char *list, const char *word);
/* the same for a comma-separated list ("rw,cpu,cpuacct") */
bool lat_has_item(const char *list, const char *word);
/* The mount point of the first cgroup hierarchy in latbpf's mount
 * namespace of type "cgroup2", or "cgroup" (v1) whose options name
 * controller; own_root: one mounted at its hierarchy's top only (not a
 * bind of a subtree). false when there is none. */
bool lat_cgroup_mount(const char *type, const char *controller, bool own_root, char *buf,
		      size_t len);
/* the same from a mountinfo file open at f (tests/unit/test_cgroup.c) */
bool lat_cgroup_mount_in(FILE *f, const char *type, const char *controller, bool own_root,
			 char *buf, size_t len);

/* The value of the first "key: value" line of a /proc file (status, io,
 * fdinfo; cpuinfo's "key\t: value"; vmstat's "key value"), without the
 * blanks around it: false, and "", when the file or the key is not there */
bool lat_proc_field(const char *path, const char *key, char *buf, size_t len);
/* the same, its leading number ("1024 kB": 1024) */
bool lat_proc_u64(const char *path, const char *key, unsigned long long *v);
/* A /proc file read at every poll, kept open: each read starts again from
 * its offset 0, which makes the kernel write the file anew, without the
 * path walk of an open (an openat of /proc/self/status took up to 167 us
 * in the kernel here, where nothing preempts it: core/yield.h). */
int lat_proc_open(const char *path);
/* its whole text into buf (cut at len - 1): false, and "", when unread */
bool lat_proc_reread(int fd, char *buf, size_t len);
/* the leading number of the first "key: value" line of text */
bool lat_text_u64(const char *text, const char *key, unsigned long long *v);
/* every thread of this process as /proc/self/task lists it: fn(tid, ctx);
 * from the main thread only (one directory, kept open) */
void lat_proc_each_self_thread(void (*fn)(int tid, void *ctx), void *ctx);

#endif

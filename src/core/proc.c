// SPDX-License-Identifier: GPL-2.0
/* Reading the kernel's text files (proc.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "core/proc.h"

bool lat_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	buf[0] = '\0';
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return ok;
}

bool lat_kernel_is_rt(void)
{
	char v[256];

	if (lat_read_line("/sys/kernel/realtime", v, sizeof(v)) && !strcmp(v, "1"))
		return true;
	return lat_read_line("/proc/sys/kernel/version", v, sizeof(v)) && strstr(v, "PREEMPT_RT");
}

bool lat_no_storage_in_tracepoints(void)
{
	const char *knob = getenv("LATBPF_RT_STORAGE");

	return (knob && !strcmp(knob, "1")) || lat_kernel_is_rt();
}

/* Is `word` one of the space-separated words of `list`? */
bool lat_has_word(const char *list, const char *word)
{
	const char *s = list;
	size_t n = strlen(word);

	if (!n)
		return false;	/* strstr finds "" everywhere, and s would not move */
	while ((s = strstr(s, word))) {
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || !s[n]))
			return true;
		s += n;
	}
	return false;
}

bool lat_has_item(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = list; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, word, n) && (s[n] == ',' || !s[n]))
			return true;
	return false;
}

bool lat_cgroup_mount(const char *type, const char *controller, bool own_root, char *buf,
		      size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found;

	if (!f)
		return false;
	found = lat_cgroup_mount_in(f, type, controller, own_root, buf, len);
	fclose(f);
	return found;
}

bool lat_cgroup_mount_in(FILE *f, const char *type, const char *controller, bool own_root,
			 char *buf, size_t len)
{
	char line[4096], root[4096], at[4096], fs[64], opts[1024];
	bool found = false;

	while (!found && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (sep && sscanf(line, "%*s %*s %*s %4095s %4095s", root, at) == 2 &&
		    sscanf(sep + 3, "%63s %*s %1023s", fs, opts) == 2 && !strcmp(fs, type) &&
		    (!controller || lat_has_item(opts, controller)) &&
		    (!own_root || !strcmp(root, "/")) &&
		    !strchr(at, '\\'))	/* octal escapes: not ours */
			found = snprintf(buf, len, "%s", at) < (int)len;
	}
	return found;
}

/* the value after "key:" (cpuinfo writes "key\t: value"), blanks trimmed */
static bool field_of(const char *line, const char *key, size_t klen, char *buf, size_t len)
{
	const char *v = line + klen;
	size_t n;

	if (strncmp(line, key, klen) || (*v != ' ' && *v != '\t' && *v != ':'))
		return false;
	while (*v == ' ' || *v == '\t')
		v++;
	/* "key: value", or /proc/vmstat's "key value" (a line with no ':', so
	 * that "model" is not "model name\t: ...") */
	if (*v == ':')
		v++;
	else if (strchr(v, ':'))
		return false;
	while (*v == ' ' || *v == '\t')
		v++;
	n = strcspn(v, "\n");
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	snprintf(buf, len, "%.*s", (int)n, v);
	return true;
}

bool lat_proc_field(const char *path, const char *key, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0, klen = strlen(key);
	char *line = NULL;
	bool found = false;

	if (len)
		buf[0] = '\0';
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0)
		found = field_of(line, key, klen, buf, len);
	free(line);
	fclose(f);
	return found;
}

bool lat_proc_u64(const char *path, const char *key, unsigned long long *v)
{
	char buf[64], *end;

	if (!lat_proc_field(path, key, buf, sizeof(buf)))
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return end != buf && !errno;
}

int lat_proc_open(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

bool lat_proc_reread(int fd, char *buf, size_t len)
{
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0 || len < 2)
		return false;
	/* from offset 0 a seq_file is made again: the values of now */
	n = pread(fd, buf, len - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

bool lat_text_u64(const char *text, const char *key, unsigned long long *v)
{
	size_t klen = strlen(key), n;
	const char *line = text;
	char one[256], val[64], *end;

	while (line && *line) {
		/* one line at a time: field_of looks for ':' to its end */
		n = strcspn(line, "\n");
		snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), line);
		if (field_of(one, key, klen, val, sizeof(val))) {
			errno = 0;
			*v = strtoull(val, &end, 10);
			return end != val && !errno;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/* kept open and rewound (the main thread's, at each poll): an open is a
 * path walk in /proc, 20-170 us in the kernel here */
void lat_proc_each_self_thread(void (*fn)(int tid, void *ctx), void *ctx)
{
	static DIR *dir;
	struct dirent *d;

	if (!dir && !(dir = opendir("/proc/self/task")))
		return;
	rewinddir(dir);
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			fn(atoi(d->d_name), ctx);
}

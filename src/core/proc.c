// SPDX-License-Identifier: GPL-2.0
/* Reading the kernel's text files (proc.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void lat_proc_each_self_thread(void (*fn)(int tid, void *ctx), void *ctx)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			fn(atoi(d->d_name), ctx);
	closedir(dir);
}

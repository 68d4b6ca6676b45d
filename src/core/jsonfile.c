// SPDX-License-Identifier: GPL-2.0
/* A JSON file read back with jansson (jsonfile.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/escape.h"
#include "core/jsonfile.h"

int lat_jsonfile_refuse(const struct lat_jsonfile *j, size_t line, const char *why)
{
	char q[LAT_ARG_MAX];

	fprintf(stderr, "%s: %s:%zu: %s\n", j->prog, lat_term_arg(q, sizeof(q), j->path), line,
		why);
	return -EINVAL;
}

int lat_jsonfile_open(struct lat_jsonfile *j, const char *prog, const char *path,
		      const char *what)
{
	memset(j, 0, sizeof(*j));
	j->prog = prog;
	j->path = path;
	j->what = what;
	j->f = fopen(path, "re");
	return j->f ? 0 : lat_jsonfile_refuse(j, 0, strerror(errno));
}

/* jansson's own words, with the column: "not JSON (column 3: ...)" */
static int not_json(const struct lat_jsonfile *j, size_t line, const json_error_t *je)
{
	char why[200];

	snprintf(why, sizeof(why), "not JSON (column %d: %s)", je->column, je->text);
	return lat_jsonfile_refuse(j, line, why);
}

int lat_jsonfile_line(struct lat_jsonfile *j)
{
	errno = 0;
	j->len = getline(&j->buf, &j->cap, j->f);
	if (j->len <= 0) {
		j->len = 0;
		if (ferror(j->f))
			return lat_jsonfile_refuse(j, j->line + 1, strerror(errno ? errno : EIO));
		return 0;
	}
	j->line++;
	return 1;
}

int lat_jsonfile_record(struct lat_jsonfile *j, json_t **o)
{
	json_error_t je;

	*o = NULL;
	if (!j->len || j->buf[j->len - 1] != '\n') {
		char why[120];

		snprintf(why, sizeof(why), "cut short (no newline at its end): a truncated %s",
			 j->what);
		return lat_jsonfile_refuse(j, j->line, why);
	}
	*o = json_loadb(j->buf, (size_t)j->len, JSON_REJECT_DUPLICATES, &je);
	return *o ? 1 : not_json(j, j->line, &je);
}

int lat_jsonfile_next(struct lat_jsonfile *j, json_t **o)
{
	int n = lat_jsonfile_line(j);

	*o = NULL;
	return n <= 0 ? n : lat_jsonfile_record(j, o);
}

json_t *lat_jsonfile_whole(struct lat_jsonfile *j)
{
	json_error_t je;
	json_t *o = json_loadf(j->f, JSON_REJECT_DUPLICATES, &je);

	if (!o)
		not_json(j, je.line > 0 ? (size_t)je.line : 0, &je);
	return o;
}

void lat_jsonfile_close(struct lat_jsonfile *j)
{
	if (j->f)
		fclose(j->f);
	free(j->buf);
	j->f = NULL;
	j->buf = NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JSON file read back with jansson (DESIGN.md: every JSON reader uses
 * it): one document (latbpf bench --json), or one record a line (a run's
 * --json). The files come from anywhere: every complaint is one line,
 * "PROG: FILE:LINE: why", LINE 0 for the file as a whole.
 */
#ifndef LATBPF_CORE_JSONFILE_H
#define LATBPF_CORE_JSONFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>

struct lat_jsonfile {
	const char *prog;	/* "latbpf report": the messages' first word */
	const char *path;
	const char *what;	/* what a cut line is a truncated one of: "run" */
	FILE *f;
	char *buf;
	size_t cap;
	ssize_t len;		/* of the line in buf */
	size_t line;		/* the last line read (records: its number) */
};

/* 0, or -EINVAL after saying why it cannot be opened (LINE 0) */
int lat_jsonfile_open(struct lat_jsonfile *j, const char *prog, const char *path,
		      const char *what);
/* One record a line: the next one. 1 with *o (the caller's reference), 0 at
 * the end of the file, -EINVAL after saying why (a line cut short, a line
 * that is not JSON, a read error). It is these two in turn: the next line
 * (1, 0 at the end, -EINVAL), and that line's record (1, or -EINVAL), for a
 * reader that refuses some lines whatever they hold. */
int lat_jsonfile_next(struct lat_jsonfile *j, json_t **o);
int lat_jsonfile_line(struct lat_jsonfile *j);
int lat_jsonfile_record(struct lat_jsonfile *j, json_t **o);
/* The whole file as one JSON document: NULL after saying why */
json_t *lat_jsonfile_whole(struct lat_jsonfile *j);
/* "PROG: FILE:LINE: why" on stderr, the path escaped; returns -EINVAL */
int lat_jsonfile_refuse(const struct lat_jsonfile *j, size_t line, const char *why);
void lat_jsonfile_close(struct lat_jsonfile *j);

#endif

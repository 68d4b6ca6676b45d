/* SPDX-License-Identifier: GPL-2.0 */
/* Golden files for the unit tests: an output's bytes against the file's
 * (gzip'd) in tests/golden/, or written anew with GOLDEN_UPDATE=1. */
#ifndef LATBPF_TEST_GOLDEN_H
#define LATBPF_TEST_GOLDEN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "tap.h"

#define DIR "tests/golden/"

struct out {
	const char *name;
	char *buf;
	size_t len;
	FILE *f;
};

/* a file, gzip'd or not (zlib reads both) */
static char *slurp(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	char *b = NULL;
	size_t cap = 0;
	int n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 65536 > cap) {
			char *nb = realloc(b, cap = cap * 2 + 65536);

			if (!nb)
				break;
			b = nb;
		}
		n = gzread(f, b + *len, (unsigned)(cap - *len));
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	gzclose(f);
	return b;
}

static bool spill(const char *path, const char *buf, size_t len, const char *mode)
{
	gzFile f = gzopen(path, mode);
	bool ok = f && gzwrite(f, buf, (unsigned)len) == (int)len;

	return f && !gzclose(f) && ok;
}

/* equal to the golden file, or where they part (line, and both lines) */
static void judge(const struct out *o)
{
	char path[256];
	size_t glen, i, line = 1, at = 0;
	char *g;

	snprintf(path, sizeof(path), DIR "%s.gz", o->name);
	if (getenv("GOLDEN_UPDATE")) {
		ok(spill(path, o->buf, o->len, "wb9"), "%s written anew (%zu bytes)", o->name,
		   o->len);
		return;
	}
	g = slurp(path, &glen);
	for (i = 0; g && i < o->len && i < glen && o->buf[i] == g[i]; i++)
		if (g[i] == '\n') {
			line++;
			at = i + 1;
		}
	if (g && i == o->len && i == glen) {
		ok(1, "%s: byte-identical (%zu bytes)", o->name, o->len);
	} else {
		ok(0, "%s: differs from line %zu (%zu bytes, golden %zu)", o->name, line,
		   o->len, glen);
		if (g)
			printf("# golden: %.*s\n# now:    %.*s\n",
			       (int)strcspn(g + at, "\n"), g + at,
			       (int)strcspn(o->buf + at, "\n"), o->buf + at);
	}
	free(g);
}

#endif

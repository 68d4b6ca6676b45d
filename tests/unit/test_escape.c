// SPDX-License-Identifier: GPL-2.0
/* Hostile process names: prctl(PR_SET_NAME) takes any bytes. */
#include <stdlib.h>
#include <string.h>
#include "lat.h"
#include "tap.h"

static char *json(const char *s)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	lat_json_str(f, s);
	fclose(f);
	return buf;
}

int main(void)
{
	static const struct {
		const char *in, *out, *what;
	} cases[] = {
		{ "worker", "\"worker\"", "plain" },
		{ "a\"b", "\"a\\\"b\"", "quote" },
		{ "a\\b", "\"a\\\\b\"", "backslash" },
		{ "\x1b[2J\x1b]0;pwn\x07", "\"\\u001b[2J\\u001b]0;pwn\\u0007\"",
		  "terminal escapes" },
		{ "a\nb\tc\r", "\"a\\nb\\tc\\u000d\"", "newline, tab, CR" },
		{ "\x7f", "\"\\u007f\"", "DEL" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"", "valid UTF-8 kept" },
		{ "\xe2\x82\xac", "\"\xe2\x82\xac\"", "3-byte UTF-8 kept" },
		{ "\xf0\x9f\x90\xa7", "\"\xf0\x9f\x90\xa7\"", "4-byte UTF-8 kept" },
		{ "a\xff" "b", "\"a\\ufffdb\"", "invalid byte" },
		{ "\xc3", "\"\\ufffd\"", "truncated sequence" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "overlong encoding" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "UTF-16 surrogate" },
		{ "\xc2\x9b", "\"\\u009b\"", "C1 control (CSI)" },
	};
	char term[128];
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = json(cases[i].in);

		ok(!strcmp(got, cases[i].out), "json: %s", cases[i].what);
		if (strcmp(got, cases[i].out))
			printf("# got %s\n", got);
	}
	ok(!strcmp(json(NULL), "null"), "json: NULL is null");

	lat_term_str(term, sizeof(term), "\x1b[2J\xc2\x9b\xff x\\");
	for (i = 0; term[i]; i++)
		if ((unsigned char)term[i] < 0x20 || (unsigned char)term[i] >= 0x7f)
			bad++;
	ok(!bad, "terminal: only printable ASCII comes out");
	ok(!strcmp(term, "\\x1b[2J\\xc2\\x9b\\xff x\\"), "terminal: bytes shown as \\xNN (%s)",
	   term);
	lat_term_str(term, 8, "\x01\x02\x03\x04");
	ok(strlen(term) < 8 && !strcmp(term, "\\x01"), "terminal: never cut inside an escape");
	return done_testing();
}

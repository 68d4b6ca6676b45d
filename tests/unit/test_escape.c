// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile process names: prctl(PR_SET_NAME) takes any bytes. Table cases,
 * then 100,000 random byte strings (escapes, C1, every kind of invalid
 * UTF-8) through lat_json_str, checked by a strict JSON string reader of
 * its own (RFC 8259, well-formed UTF-8 after Unicode's table 3-7, and no
 * raw DEL or C1), whose decoding must be the input with each byte of an
 * ill-formed sequence as U+FFFD; and through lat_term_str, whose output must
 * be printable ASCII that reads back to the input. LATBPF_ESCAPE_JSON=FILE
 * also writes every case as a line {"hex": input, "json": output} for
 * node's JSON.parse (tests/integration/hostile.t).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "core/escape.h"
#include "families/hiccup.h"
#include "tap.h"

static char *json(const char *s)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	lat_json_str(f, s);
	fclose(f);
	return buf;
}

/* Length of the well-formed UTF-8 sequence at s, or 0: Unicode 15, table
 * 3-7, written as the table (escape.c computes it instead) */
static int wellformed(const unsigned char *s)
{
	static const struct {
		unsigned char lo, hi, lo2, hi2;
		int n;
	} t[] = {
		{ 0x01, 0x7f, 0, 0, 1 }, { 0xc2, 0xdf, 0x80, 0xbf, 2 }, { 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 }, { 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 }, { 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 }, { 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (s[0] < t[i].lo || s[0] > t[i].hi)
			continue;
		if (t[i].n == 1)
			return 1;
		if (s[1] < t[i].lo2 || s[1] > t[i].hi2)
			return 0;
		for (int k = 2; k < t[i].n; k++)
			if (s[k] < 0x80 || s[k] > 0xbf)
				return 0;
		return t[i].n;
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80)
		return o[0] = (char)cp, 1;
	if (cp < 0x800)
		return o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), 2;
	o[0] = (char)(0xe0 | cp >> 12);
	o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

/* what lat_json_str must mean: each ill-formed byte as U+FFFD */
static void expected(const char *in, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	int n;

	while (*s) {
		n = wellformed(s);
		if (!n) {
			o += put_utf8(out + o, 0xfffd);
			s++;
		} else {
			memcpy(out + o, s, (size_t)n);
			o += (size_t)n;
			s += n;
		}
	}
	out[o] = '\0';
}

/* A strict reader of one JSON string literal, the whole of js; decodes it
 * into out. Stricter than JSON: raw DEL and C1 are refused too, and so are
 * escaped surrogates (lat_json_str has no reason to write one). */
static bool json_read(const char *js, char *out)
{
	const unsigned char *s = (const unsigned char *)js;
	size_t o = 0;
	int n;

	if (*s++ != '"')
		return false;
	for (;;) {
		if (*s == '"')
			break;
		if (*s == '\\') {
			const char *esc = "\"\\/bfnrt", *rep = "\"\\/\b\f\n\r\t", *e;
			unsigned cp = 0;

			s++;
			if (*s == 'u') {
				for (int k = 1; k <= 4; k++) {
					char h[2] = { (char)s[k], 0 };

					if (!s[k] || !strchr("0123456789abcdefABCDEF", s[k]))
						return false;
					cp = cp * 16 + (unsigned)strtoul(h, NULL, 16);
				}
				if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
					return false;
				o += put_utf8(out + o, cp);
				s += 5;
				continue;
			}
			if (!*s || !(e = strchr(esc, *s)))
				return false;
			out[o++] = rep[e - esc];
			s++;
			continue;
		}
		if (*s < 0x20 || *s == 0x7f)
			return false;
		n = wellformed(s);
		if (!n || (n == 2 && s[0] == 0xc2 && s[1] < 0xa0))
			return false;
		memcpy(out + o, s, (size_t)n);
		o += (size_t)n;
		s += n;
	}
	out[o] = '\0';
	return s[1] == '\0';
}

/* lat_term_str's output read back: \xNN to the byte */
static bool term_read(const char *t, char *out)
{
	size_t o = 0;

	for (; *t; t++) {
		if ((unsigned char)*t < 0x20 || (unsigned char)*t > 0x7e)
			return false;
		if (t[0] == '\\' && t[1] == 'x' && t[2] && t[3] &&
		    strchr("0123456789abcdef", t[2]) && strchr("0123456789abcdef", t[3])) {
			char h[3] = { t[2], t[3], 0 };
			unsigned char b = (unsigned char)strtoul(h, NULL, 16);

			/* printable ASCII is never escaped */
			if (b >= 0x20 && b < 0x7f)
				return false;
			out[o++] = (char)b;
			t += 3;
			continue;
		}
		out[o++] = *t;
	}
	out[o] = '\0';
	return true;
}

/* Random names from the bytes that matter, whole sequences among them */
static void hostile(unsigned long long *rng, char *out)
{
	static const char *const pieces[] = {
		"\x1b", "\x1b[2J", "\x1b]0;x\x07", "\x9b", "\xc2\x9b", "\xc2\x85", "\x07", "\n",
		"\r", "\t", "\x7f", "\"", "\\", "/", "\xc3\xa9", "\xe2\x82\xac",
		"\xf0\x9f\x90\xa7", "\xe2\x80\xa8", "\xef\xbf\xbe", "\xf4\x8f\xbf\xbf", "\xef\xbb\xbf",
		"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80",
		"\xfe", "\xff", "\x80", "\xbf", "\xc2", "\xe2\x82", "\xf0\x9f\x90", "\xf5",
	};
	size_t o = 0, n;

	*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
	n = (size_t)(*rng >> 33) % 17;
	while (n--) {
		*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
		if ((*rng >> 40) % 2) {
			out[o++] = (char)(1 + (*rng >> 20) % 255);
		} else {
			const char *p = pieces[(*rng >> 20) % (sizeof(pieces) / sizeof(pieces[0]))];

			memcpy(out + o, p, strlen(p));
			o += strlen(p);
		}
	}
	out[o] = '\0';
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

	{
		static const char *const more[] = {
			"\xf8\x88\x80\x80\x80", "\xfe\xff", "\x80\xbf", "\xe0\x80\xaf",
			"\xf4\x90\x80\x80", "\xf0\x9f\x90", "\xe2\x80\xa8\xe2\x80\xa9", "\xef\xbb\xbf",
			"\xef\xbf\xbe", "\xf4\x8f\xbf\xbf", "\xc2\x85\xc2\x80\xc2\x9f\xc2\xa0",
			"\x1b[6n\x1bP+q\x1b\\", "%s%n",
		};
		char want[512], got[512];
		int bad_json = 0;

		for (i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
			expected(more[i], want);
			bad_json += !json_read(json(more[i]), got) || strcmp(got, want);
		}
		ok(!bad_json, "json: more invalid UTF-8 (5-byte, FE FF, lone continuation, overlong, "
		   "above U+10FFFF, truncated), C1 U+0085..9F, U+2028, BOM, DCS (%d wrong)", bad_json);
	}

	/* 100,000 random hostile names; both escapers, read back */
	{
		const char *dump = getenv("LATBPF_ESCAPE_JSON");
		FILE *df = dump ? fopen(dump, "w") : NULL;
		unsigned long long rng = 20261123;
		static char in[256], want[1024], got[1024], t[1100], back[1100];
		int n = 100000, bad_json = 0, bad_term = 0, cut = 0;

		if (dump && !df)
			ok(0, "LATBPF_ESCAPE_JSON: cannot write %s", dump);
		for (int k = 0; k < n; k++) {
			const char *js;

			hostile(&rng, in);
			js = json(in);
			expected(in, want);
			if (!json_read(js, got) || strcmp(got, want)) {
				if (bad_json++ < 5) {
					lat_term_str(t, sizeof(t), in);
					printf("# json of '%s' is %s\n", t, js);
				}
			}
			if (df) {
				fputs("{\"hex\": \"", df);
				for (const char *c = in; *c; c++)
					fprintf(df, "%02x", (unsigned char)*c);
				fprintf(df, "\", \"json\": %s}\n", js);
			}
			/* a short buffer too: cut, but only between escapes */
			size_t len = k % 4 ? sizeof(t) : 1 + (size_t)k % 23;

			lat_term_str(t, len, in);
			if (strlen(t) >= len || !term_read(t, back) ||
			    strncmp(back, in, strlen(back)) || (len == sizeof(t) && strcmp(back, in)))
				bad_term++;
			cut += strlen(back) < strlen(in);
		}
		ok(!bad_json, "json: %d random hostile names are strict JSON strings meaning the name, "
		   "ill-formed bytes as U+FFFD (%d not)", n, bad_json);
		ok(!bad_term && cut > 1000, "terminal: the same names as printable ASCII that reads "
		   "back to them, cut short only between escapes (%d not; %d cut)", bad_term, cut);
		if (df)
			ok(fclose(df) == 0, "LATBPF_ESCAPE_JSON: %d lines written to %s", n, dump);
	}

	{
		char q[LAT_ARG_MAX], big[400];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		ok(!strcmp(lat_term_arg(q, sizeof(q), "5\n\x1b[2J"), "5\\x0a\\x1b[2J"),
		   "an argument in a message: escaped (%s)", q);
		lat_term_arg(q, sizeof(q), big);
		ok(strlen(q) == sizeof(q) - 1 && !strcmp(q + strlen(q) - 3, "..."),
		   "an argument in a message: cut to %zu bytes with '...'", sizeof(q) - 1);
		big[sizeof(q) - 1] = '\0';
		ok(!strcmp(lat_term_arg(q, sizeof(q), big), big), "one that just fits is not cut");
		ok(!strcmp(lat_term_arg(q, sizeof(q), NULL), ""), "NULL is ''");
	}
	{
		const char *name = NULL;
		char want[64], got[64];

		/* a threaded IRQ's name comes from its comm: kernel bytes, escaped the same */
		ok(lat_hc_irq_thread("irq/9-\x1b]0;x\x07\xff", &name) == 9 && name &&
		   json_read(json(name), got) && (expected(name, want), !strcmp(got, want)) &&
		   (lat_term_str(term, sizeof(term), name), !strcmp(term, "\\x1b]0;x\\x07\\xff")),
		   "an IRQ thread's name: escaped in JSON and on the terminal (%s)", term);
	}
	return done_testing();
}

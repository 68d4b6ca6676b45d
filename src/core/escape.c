// SPDX-License-Identifier: GPL-2.0
/*
 * Strings from the kernel (comm, IRQ names) are chosen by whoever runs a
 * process: prctl(PR_SET_NAME) takes any bytes. Nothing from there reaches a
 * terminal or a JSON file unescaped.
 */
#include <stdio.h>
#include <string.h>
#include "core/escape.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if it is not one:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0], cp;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* A JSON string literal: quotes, backslashes and every control character
 * (C0, DEL, C1) escaped; invalid UTF-8 bytes become U+FFFD. */
void lat_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s) {
		n = utf8_len(s);
		if (n == 0) {
			fputs("\\ufffd", f);
			s++;
		} else if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s == '\n') {
			fputs("\\n", f), s++;
		} else if (*s == '\t') {
			fputs("\\t", f), s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
			fprintf(f, "\\u%04x", s[1]); /* C1 control U+0080..9F */
			s += 2;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

/* For a terminal: printable ASCII as is, every other byte as \xNN, so a
 * name can neither move the cursor nor change a column count. */
void lat_term_str(char *dst, size_t len, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;

	if (len == 0)
		return;
	for (; s && *s && o + 1 < len; s++) {
		if (*s >= 0x20 && *s < 0x7f) {
			dst[o++] = *s;
		} else {
			if (o + 5 > len)
				break;
			snprintf(dst + o, 5, "\\x%02x", *s);
			o += 4;
		}
	}
	dst[o] = '\0';
}

/*
 * A value the user typed, for a one-line message: escaped as lat_term_str
 * does (a newline or an escape sequence in an argument stays visible and
 * inert), cut with "..." when it does not fit. Returns dst, so it can sit in
 * a printf's arguments.
 */
const char *lat_term_arg(char *dst, size_t len, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t need = 0;

	if (len < 8) {
		if (len)
			dst[0] = '\0';
		return dst;
	}
	for (; s && *s; s++)
		need += *s >= 0x20 && *s < 0x7f ? 1 : 4;
	if (need < len) {
		lat_term_str(dst, len, str);
		return dst;
	}
	lat_term_str(dst, len - 3, str);
	strcat(dst, "...");
	return dst;
}

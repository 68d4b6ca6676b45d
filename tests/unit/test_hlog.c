// SPDX-License-Identifier: GPL-2.0
/* The .hlog writer (src/hlog.c), taken apart by a decoder written here:
 * base64 against RFC 4648 and a second encoder, the V2 header and the
 * ZigZag LEB128 counts against bytes computed by hand, zero runs, the empty
 * histogram, the overflow rule (no count is ever dropped), and the file
 * the log API writes. Java's and JS's own readers check the same output in
 * tests/integration/hlog_format.t. */
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "output/hlog_format.h"
#include "tap.h"

static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* A second base64 encoder, bit by bit, checked against RFC 4648 below */
static char *ref_b64(const unsigned char *in, size_t n)
{
	char *out = malloc(4 * n / 3 + 8), *o = out;
	unsigned acc = 0, bits = 0;

	for (size_t i = 0; i < n; i++) {
		acc = acc << 8 | in[i];
		for (bits += 8; bits >= 6; bits -= 6)
			*o++ = alpha[(acc >> (bits - 6)) & 63];
	}
	if (bits)
		*o++ = alpha[(acc << (6 - bits)) & 63];
	while ((o - out) % 4)
		*o++ = '=';
	*o = '\0';
	return out;
}

/* Decodes strict base64 (padded, alphabet only); -1 on anything else */
static long unb64(const char *s, unsigned char *out)
{
	size_t len = strlen(s), i, n = 0;
	unsigned acc = 0, bits = 0, pad = 0;

	if (len % 4)
		return -1;
	for (i = 0; i < len; i++) {
		const char *c = s[i] ? strchr(alpha, s[i]) : NULL;

		if (s[i] == '=' && i >= len - 2) {
			pad++;
			continue;
		}
		if (!c || pad)
			return -1;
		acc = acc << 6 | (unsigned)(c - alpha);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return (long)n;
}

static __u64 be(const unsigned char *p, int bytes)
{
	__u64 v = 0;

	while (bytes--)
		v = v << 8 | *p++;
	return v;
}

struct dec {
	unsigned char raw[16384];	/* the uncompressed V2 encoding */
	unsigned long raw_len;
	long comp_len;			/* bytes after base64 */
	__u64 highest, counts[1024], total;
	size_t n_counts;		/* slots the payload covers */
};

/* Everything lat_hlog_encode() says, read back by this file's own code;
 * false when the frame is malformed (the first one is described) */
static int said;
static bool decode(const char *b64, struct dec *d)
{
	static unsigned char comp[16384];
	const unsigned char *p, *end;
	double ratio;
	__u64 bits;

	memset(d, 0, sizeof(*d));
	d->comp_len = unb64(b64, comp);
	if (d->comp_len < 8 || be(comp, 4) != 0x1c849314 ||
	    be(comp + 4, 4) != (__u64)d->comp_len - 8) {
		if (!said++)
			printf("# bad base64 or compressed frame: %.60s\n", b64);
		return false;
	}
	d->raw_len = sizeof(d->raw);
	if (uncompress(d->raw, &d->raw_len, comp + 8, (uLong)d->comp_len - 8) != Z_OK ||
	    d->raw_len < 40 || be(d->raw, 4) != 0x1c849313 ||
	    be(d->raw + 4, 4) != d->raw_len - 40) {
		if (!said++)
			printf("# bad zlib data or V2 header\n");
		return false;
	}
	bits = be(d->raw + 32, 8);
	memcpy(&ratio, &bits, sizeof(ratio));
	if (be(d->raw + 8, 4) != 0 || be(d->raw + 12, 4) != 1 || be(d->raw + 16, 8) != 1 ||
	    ratio != 1.0) {
		if (!said++)
			printf("# header: offset, digits, lowest or ratio wrong\n");
		return false;
	}
	d->highest = be(d->raw + 24, 8);
	for (p = d->raw + 40, end = d->raw + d->raw_len; p < end;) {
		__u64 u = 0;
		__s64 v;
		int i;

		for (i = 0; i < 9 && p < end; i++) {
			__u64 b = *p++;

			u |= (i == 8 ? b : b & 0x7f) << (7 * i);
			if (i == 8 || !(b & 0x80))
				break;
		}
		v = (__s64)(u >> 1) ^ -(__s64)(u & 1);
		if (v < 0) {
			d->n_counts += (size_t)-v;
		} else if (d->n_counts < 1024) {
			d->counts[d->n_counts++] = (__u64)v;
			d->total += (__u64)v;
		}
		if (d->n_counts > 1024)
			return false;
	}
	return true;
}

static bool encode_decode(const struct lat_hist *h, struct dec *d, char **b64)
{
	char *s = NULL;
	bool ok = lat_hlog_encode(h, &s) == 0 && s && decode(s, d);

	if (b64)
		*b64 = s;
	else
		free(s);
	return ok;
}

static void test_base64(void)
{
	static const char *rfc[][2] = { { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" } };
	static unsigned char comp[16384];
	static struct lat_hist h;
	static struct dec d;
	unsigned char buf[16];
	int bad = 0, seen[3] = { 0 }, i;
	long n;

	for (i = 0; i < 7; i++) {
		char *s = ref_b64((const unsigned char *)rfc[i][0], strlen(rfc[i][0]));

		n = unb64(rfc[i][1], buf);

		bad += strcmp(s, rfc[i][1]) || n != (long)strlen(rfc[i][0]) ||
		       memcmp(buf, rfc[i][0], (size_t)n);
		free(s);
	}
	ok(!bad, "the test's base64 agrees with RFC 4648's vectors");
	ok(unb64("Zm9=v", buf) < 0 && unb64("Zm9", buf) < 0 && unb64("Zm 9", buf) < 0,
	   "the test's decoder rejects bad base64");

	/* growing histograms: compressed lengths of every residue mod 3 */
	memset(&h, 0, sizeof(h));
	for (i = 0, bad = 0; i < 60; i++) {
		char *s, *r;

		lat_hist_record(&h, (__u64)i * i * 7919);
		if (!encode_decode(&h, &d, &s)) {
			bad++;
			free(s);
			continue;
		}
		n = unb64(s, comp);
		r = ref_b64(comp, (size_t)n);
		seen[n % 3] = 1;
		bad += strcmp(r, s) != 0;
		free(r);
		free(s);
	}
	ok(!bad && seen[0] && seen[1] && seen[2],
	   "base64 round trip: the writer's text is the reference encoding of its bytes, "
	   "for lengths of every residue mod 3");
}

static void test_bytes(void)
{
	static const unsigned char header[40] = {
		0x1c, 0x84, 0x93, 0x13, 0, 0, 0, 16,	/* cookie, payload length */
		0, 0, 0, 0, 0, 0, 0, 1,			/* offset 0, 1 digit */
		0, 0, 0, 0, 0, 0, 0, 1,			/* lowest 1 */
		0, 0, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, /* highest 2^44-1 */
		0x3f, 0xf0, 0, 0, 0, 0, 0, 0,		/* 1.0 */
	};
	static const unsigned char payload[16] = {
		0x02,				/* 1 */
		0x80, 0x01,			/* 64: zigzag 128, two bytes */
		0x05,				/* 3 empty slots: -3 */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* 2^63-1: 9 bytes */
		0x00,				/* one empty slot: a zero, not -1 */
		0xd8, 0x04,			/* 300: zigzag 600 */
	};
	static struct lat_hist h;
	static struct dec d;

	memset(&h, 0, sizeof(h));
	h.slots[0] = 1;
	h.slots[1] = 64;
	h.slots[5] = 0x7fffffffffffffffULL;
	h.slots[7] = 300;
	h.count = 1 + 64 + 0x7fffffffffffffffULL + 300;
	h.max = 7;
	ok(encode_decode(&h, &d, NULL) && d.raw_len == 56 && !memcmp(d.raw, header, 40) &&
	   !memcmp(d.raw + 40, payload, 16),
	   "V2 header and ZigZag LEB128 counts are the hand-computed bytes");

	memset(&h, 0, sizeof(h));
	lat_hist_record(&h, LAT_HIST_MAX_VALUE);
	ok(encode_decode(&h, &d, NULL) && d.raw_len == 43 &&
	   !memcmp(d.raw + 40, "\x9d\x0a\x02", 3) && d.highest == LAT_HIST_MAX_VALUE,
	   "the highest trackable value: 655 empty slots (-655: 9d 0a), then 1 in slot 655");

	memset(&h, 0, sizeof(h));
	ok(encode_decode(&h, &d, NULL) && d.raw_len == 41 && d.raw[40] == 0 &&
	   d.highest == LAT_HIST_MAX_VALUE && !memcmp(d.raw, header, 4),
	   "the empty histogram: one zero count, payload length 1");
	ok(be(d.raw + 4, 4) == 1, "the empty histogram's payload length field is 1");
}

/* count equals the encoded counts, which hold every slot unchanged and the
 * overflow in the slot of `at` */
static bool same_counts(const struct lat_hist *h, const struct dec *d, __u64 at)
{
	__u64 want;

	if (d->total != h->count)
		return false;
	for (size_t i = 0; i < d->n_counts || i < LAT_HIST_SLOTS; i++) {
		want = i < LAT_HIST_SLOTS ? h->slots[i] : 0;
		if (h->overflow && i == at)
			want += h->overflow;
		if ((i < d->n_counts ? d->counts[i] : 0) != want)
			return false;
	}
	return true;
}

static void test_overflow(void)
{
	static struct lat_hist h;
	static struct dec d;

	memset(&h, 0, sizeof(h));
	lat_hist_record(&h, 5);
	lat_hist_record(&h, 1ULL << 46);
	lat_hist_record(&h, 1ULL << 50);
	/* slot of 2^50: bucket 46, ((46 + 1) << 4) + 16 - 16 */
	ok(encode_decode(&h, &d, NULL) && d.highest == 1ULL << 50 && d.n_counts == 753 &&
	   same_counts(&h, &d, 752),
	   "overflow: highest trackable raised to the max (2^50), both overflowed values in its slot 752");

	lat_hist_record(&h, ~0ULL);
	/* slot of 2^53-1: bucket 48, (49 << 4) + 31 - 16 */
	ok(encode_decode(&h, &d, NULL) && d.highest == (1ULL << 53) - 1 && d.n_counts == 800 &&
	   same_counts(&h, &d, 799),
	   "overflow of 2^64-1: capped at 2^53-1 (JS and Java can read it), slot 799, count kept");

	memset(&h, 0, sizeof(h));
	lat_hist_record(&h, LAT_HIST_MAX_VALUE + 1);
	ok(encode_decode(&h, &d, NULL) && d.highest == LAT_HIST_MAX_VALUE + 1 &&
	   d.n_counts == LAT_HIST_SLOTS + 1 && same_counts(&h, &d, LAT_HIST_SLOTS),
	   "overflow by one: 2^44 gets slot %d, the first past the table", LAT_HIST_SLOTS);

	/* inconsistent inputs (a racy copy) still lose nothing */
	memset(&h, 0, sizeof(h));
	h.slots[300] = 2;
	h.count = 2;
	h.max = 10;
	ok(encode_decode(&h, &d, NULL) && d.n_counts == 301 && same_counts(&h, &d, 0),
	   "a max below its highest slot: the counts up to that slot are written");
	h.overflow = 1;
	h.count = 3;
	ok(encode_decode(&h, &d, NULL) && same_counts(&h, &d, LAT_HIST_SLOTS),
	   "overflow with a max that is not above the table: counted in slot %d", LAT_HIST_SLOTS);
}

/* HdrHistogram_c's counts_index with clz, for any value: a second opinion */
static __u64 ref_slot(__u64 v)
{
	int bucket = 64 - __builtin_clzll(v | 31) - 5;

	return ((__u64)(bucket + 1) << 4) + (v >> bucket) - 16;
}

static __u64 rng = 0x2545f4914f6cdd1dULL;
static __u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_random(void)
{
	static struct lat_hist h;
	static struct dec d;
	int bad = 0, i, j;

	for (i = 0; i < 200; i++) {
		__u64 at;

		memset(&h, 0, sizeof(h));
		for (j = (int)(rnd() % 3000); j > 0; j--)
			lat_hist_record(&h, rnd() >> (rnd() % 64));
		at = ref_slot(h.max > (1ULL << 53) - 1 ? (1ULL << 53) - 1 : h.max);
		if (!encode_decode(&h, &d, NULL) || !same_counts(&h, &d, at))
			bad++;
	}
	ok(!bad, "200 random histograms: every slot, the overflow and the count decode unchanged");
}

static void test_file(void)
{
	char path[] = "/tmp/test_hlog.XXXXXX", buf[4096], *enc = NULL, want[4200];
	static struct lat_hist h;
	struct lat_hlog *l;
	FILE *f;
	size_t n;
	int fd;

	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	memset(&h, 0, sizeof(h));
	lat_hist_record(&h, 1500000);
	l = lat_hlog_open(path, 1700000000.5, "latbpf test\nnot a line");
	ok(l != NULL, "lat_hlog_open creates %s", path);
	if (!l)
		return;
	ok(lat_hlog_write(l, "a b,c\td=e\xe2\x80\xa8", 1.25, 0.5, &h) == 0, "lat_hlog_write");
	f = fopen(path, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	ok(f && !strstr(buf, "Tag="), "nothing of an interval reaches the file before its flush");
	ok(lat_hlog_flush(l) == 0 && lat_hlog_close(l) == 0, "flush and close return 0");
	n = 0;
	if (f) {
		rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	lat_hlog_encode(&h, &enc);
	snprintf(want, sizeof(want), "#latbpf test not a line\n"
		 "#[Histogram log format version 1.3]\n"
		 "#[StartTime: 1700000000.500 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"
		 "#[BaseTime: 1700000000.500 (seconds since epoch)]\n"
		 "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		 "\"Interval_Compressed_Histogram\"\n"
		 "Tag=a_b_c_d=e___,1.250,0.500,1.500,%s\n", enc ? enc : "");
	ok(!strcmp(buf, want), "the file: Java's header lines, then the interval line with a "
	   "sanitised tag, times in s, max in ms");
	if (strcmp(buf, want))
		printf("# got:\n%s# want:\n%s", buf, want);
	free(enc);
	unlink(path);

	errno = 0;
	ok(!lat_hlog_open("/nonexistent/dir/x.hlog", 0, "x") && errno == ENOENT,
	   "an unwritable path: NULL with errno ENOENT");
	errno = 0;
	ok(!lat_hlog_open("/dev/full", 0, "x") && errno == ENOSPC,
	   "a full disk: the header's write fails, NULL with errno ENOSPC");
	ok(lat_hlog_close(NULL) == 0, "lat_hlog_close(NULL) is 0");
}

int main(void)
{
	test_base64();
	test_bytes();
	test_overflow();
	test_random();
	test_file();
	return done_testing();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The .hlog format: HdrHistogram's interval log 1.3 and its V2 histogram
 * encoding, written from the format's definition (HdrHistogram's
 * AbstractHistogram encoding and HistogramLogWriter):
 *
 *   encoded:    int cookie 0x1c849313, int payload length, int normalizing
 *               index offset (0), int significant digits (1), long lowest
 *               discernible (1), long highest trackable, double
 *               integer-to-double ratio (1.0), all big-endian; then the
 *               counts of slots 0 .. slot(max) as ZigZag LEB128, a run of
 *               two or more empty slots as minus its length
 *   compressed: int cookie 0x1c849314, int length, zlib(encoded)
 *   line:       Tag=<tag>,<start s>,<length s>,<max / 1e6>,<base64>
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "hlog.h"

#define COOKIE 0x1c849313U		/* V2 | word size 0x10 */
#define COMPRESSED_COOKIE 0x1c849314U
#define HEADER 40

struct lat_hlog {
	FILE *f;
	char *buf;		/* this interval's lines, not yet written */
	size_t len, cap;
};

/* HdrHistogram's counts index for any value, past LAT_HIST_MAX_VALUE too */
static __u64 slot_of(__u64 v)
{
	__u64 bucket;

	if (v < 2 * LAT_HIST_SUB_HALF)
		return v;
	bucket = lat_log2(v) - LAT_HIST_SUB_BITS;
	return ((bucket + 1) << LAT_HIST_SUB_BITS) + (v >> bucket) - LAT_HIST_SUB_HALF;
}

static void put32(unsigned char *p, __u32 v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put64(unsigned char *p, __u64 v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (56 - 8 * i));
}

/* ZigZag, then LEB128 of at most 9 bytes: the 9th carries 8 bits */
static size_t put_zigzag(unsigned char *p, __s64 v)
{
	__u64 u = ((__u64)v << 1) ^ (__u64)(v >> 63);
	size_t n = 0;

	while (n < 8 && u >= 0x80) {
		p[n++] = (unsigned char)(u | 0x80);
		u >>= 7;
	}
	p[n++] = (unsigned char)u;
	return n;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(const unsigned char *in, size_t n)
{
	char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < n; i += 3, o += 4) {
		__u32 v = (__u32)in[i] << 16 | (__u32)in[i + 1] << 8 | in[i + 2];

		o[0] = b64[v >> 18];
		o[1] = b64[(v >> 12) & 63];
		o[2] = b64[(v >> 6) & 63];
		o[3] = b64[v & 63];
	}
	if (i < n) {
		__u32 v = (__u32)in[i] << 16 | (i + 1 < n ? (__u32)in[i + 1] << 8 : 0);

		o[0] = b64[v >> 18];
		o[1] = b64[(v >> 12) & 63];
		o[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		o[3] = '=';
		o += 4;
	}
	*o = '\0';
	return out;
}

/*
 * Values above LAT_HIST_MAX_VALUE are only counted (overflow): they go into
 * the slot of the max, with the highest trackable value raised to hold it,
 * so the encoded count is the histogram's count.
 */
static __u64 count_at(const struct lat_hist *h, __u64 i, __u64 last)
{
	return (i < LAT_HIST_SLOTS ? h->slots[i] : 0) + (i == last ? h->overflow : 0);
}

int lat_hlog_encode(const struct lat_hist *h, char **out)
{
	__u64 highest = LAT_HIST_MAX_VALUE, last = slot_of(h->max), i, c, z;
	size_t cap, n = HEADER;
	uLongf zlen;
	unsigned char *enc, *comp;
	double one = 1.0;
	__u64 bits;

	if (h->overflow && h->max > highest)
		highest = h->max;
	else if (last >= LAT_HIST_SLOTS)
		last = LAT_HIST_SLOTS - 1;
	cap = HEADER + 9 * (last + 1);
	enc = malloc(cap);
	if (!enc)
		return -ENOMEM;
	for (i = 0; i <= last;) {
		c = count_at(h, i++, last);
		if (c) {
			n += put_zigzag(enc + n, (__s64)c);
			continue;
		}
		for (z = 1; i <= last && !count_at(h, i, last); i++)
			z++;
		n += put_zigzag(enc + n, z > 1 ? -(__s64)z : 0);
	}
	put32(enc, COOKIE);
	put32(enc + 4, (__u32)(n - HEADER));
	put32(enc + 8, 0);
	put32(enc + 12, 1);
	put64(enc + 16, 1);
	put64(enc + 24, highest);
	memcpy(&bits, &one, sizeof(bits));
	put64(enc + 32, bits);

	zlen = compressBound(n);
	comp = malloc(8 + zlen);
	if (!comp) {
		free(enc);
		return -ENOMEM;
	}
	if (compress2(comp + 8, &zlen, enc, n, Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(enc);
		free(comp);
		return -EIO;
	}
	put32(comp, COMPRESSED_COOKIE);
	put32(comp + 4, (__u32)zlen);
	*out = base64(comp, 8 + zlen);
	free(enc);
	free(comp);
	return *out ? 0 : -ENOMEM;
}

struct lat_hlog *lat_hlog_open(const char *path, double start_epoch_s, const char *comment)
{
	struct lat_hlog *l = calloc(1, sizeof(*l));
	time_t t = (time_t)start_epoch_s;
	char date[64];
	struct tm tm;

	if (!l)
		return NULL;
	l->f = fopen(path, "w");
	if (!l->f) {
		free(l);
		return NULL;
	}
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
	fprintf(l->f, "#%s\n#[Histogram log format version 1.3]\n"
		"#[StartTime: %.3f (seconds since epoch), %s]\n"
		"#[BaseTime: %.3f (seconds since epoch)]\n"
		"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		"\"Interval_Compressed_Histogram\"\n",
		comment, start_epoch_s, date, start_epoch_s);
	if (fflush(l->f)) {
		int err = errno;

		fclose(l->f);
		free(l);
		errno = err;
		return NULL;
	}
	return l;
}

int lat_hlog_write(struct lat_hlog *l, const char *tag, double start_s, double length_s,
		   const struct lat_hist *h)
{
	char *hist, *p, safe[256];
	size_t need;
	int err, n;

	/* the readers split a line on commas and white space */
	snprintf(safe, sizeof(safe), "%s", tag);
	for (p = safe; *p; p++)
		if (*p == ',' || *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			*p = '_';
	err = lat_hlog_encode(h, &hist);
	if (err)
		return err;
	need = strlen(safe) + strlen(hist) + 96;
	if (l->len + need > l->cap) {
		p = realloc(l->buf, l->cap * 2 + need);
		if (!p) {
			free(hist);
			return -ENOMEM;
		}
		l->buf = p;
		l->cap = l->cap * 2 + need;
	}
	n = snprintf(l->buf + l->len, need, "Tag=%s,%.3f,%.3f,%.3f,%s\n", safe, start_s,
		     length_s, h->max / 1e6, hist);
	free(hist);
	l->len += (size_t)n;
	return 0;
}

int lat_hlog_flush(struct lat_hlog *l)
{
	if (l->len && fwrite(l->buf, 1, l->len, l->f) != l->len)
		return -(errno ? errno : EIO);
	l->len = 0;
	return fflush(l->f) ? -errno : 0;
}

int lat_hlog_close(struct lat_hlog *l)
{
	int err;

	if (!l)
		return 0;
	err = lat_hlog_flush(l);
	if (fclose(l->f) && !err)
		err = -errno;
	free(l->buf);
	free(l);
	return err;
}

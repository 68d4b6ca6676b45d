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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "output/hlog_format.h"

#define COOKIE 0x1c849313U		/* V2 | word size 0x10 */
#define COMPRESSED_COOKIE 0x1c849314U
#define HEADER 40
/*
 * Where overflowed values are put, at most: hdr-histogram-js computes in
 * doubles and silently drops counts above 2^53 - 1, and Java's reader
 * rejects a highest trackable value of 2^63 or more (a signed long). An
 * overflow that large is a broken clock (a negative delta), not a latency.
 */
#define OVERFLOW_CAP ((1ULL << 53) - 1)

struct lat_hlog {
	int fd;
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

/* big-endian, as Java's ByteBuffer */
static void put_be(unsigned char *p, __u64 v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
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

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3, o += 4) {
		__u32 v = (__u32)in[i] << 16 | (i + 1 < n ? (__u32)in[i + 1] << 8 : 0) |
			  (i + 2 < n ? in[i + 2] : 0);

		o[0] = b64[v >> 18];
		o[1] = b64[(v >> 12) & 63];
		o[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		o[3] = i + 2 < n ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

/*
 * Values above LAT_HIST_MAX_VALUE are only counted (overflow): they go into
 * the slot of the max (capped at OVERFLOW_CAP), with the highest trackable
 * value raised to hold it, so the encoded count is the histogram's count.
 */
static __u64 count_at(const struct lat_hist *h, __u64 i, __u64 last)
{
	return (i < LAT_HIST_SLOTS ? h->slots[i] : 0) + (i == last ? h->overflow : 0);
}

int lat_hlog_encode(const struct lat_hist *h, char **out)
{
	__u64 highest = LAT_HIST_MAX_VALUE, last, i, c, z;
	size_t cap, n = HEADER;
	uLongf zlen;
	unsigned char *enc, *comp;
	double one = 1.0;
	__u64 bits;

	if (h->overflow) {
		highest = h->max > OVERFLOW_CAP ? OVERFLOW_CAP : h->max;
		if (highest <= LAT_HIST_MAX_VALUE)
			highest = LAT_HIST_MAX_VALUE + 1;
		last = slot_of(highest);
	} else {
		last = slot_of(h->max < LAT_HIST_MAX_VALUE ? h->max : LAT_HIST_MAX_VALUE);
	}
	/* a max behind its own slots (a racy per-CPU copy) drops no count */
	for (i = last + 1; i < LAT_HIST_SLOTS; i++)
		if (h->slots[i])
			last = i;
	cap = HEADER + 9 * (last + 1);
	enc = malloc(cap);
	comp = malloc(8 + compressBound(cap));
	*out = NULL;
	if (!enc || !comp)
		goto out;
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
	put_be(enc, COOKIE, 4);
	put_be(enc + 4, n - HEADER, 4);
	put_be(enc + 8, 0, 4);
	put_be(enc + 12, 1, 4);
	put_be(enc + 16, 1, 8);
	put_be(enc + 24, highest, 8);
	memcpy(&bits, &one, sizeof(bits));
	put_be(enc + 32, bits, 8);
	zlen = compressBound(cap);
	if (compress2(comp + 8, &zlen, enc, n, Z_DEFAULT_COMPRESSION) == Z_OK) {
		put_be(comp, COMPRESSED_COOKIE, 4);
		put_be(comp + 4, zlen, 4);
		*out = base64(comp, 8 + zlen);
	}
out:
	free(enc);
	free(comp);
	return *out ? 0 : -ENOMEM;
}

/* Room for need more bytes of this interval's lines */
static int reserve(struct lat_hlog *l, size_t need)
{
	char *p;

	if (l->len + need <= l->cap)
		return 0;
	p = realloc(l->buf, 2 * l->cap + need);
	if (!p)
		return -ENOMEM;
	l->buf = p;
	l->cap = 2 * l->cap + need;
	return 0;
}

struct lat_hlog *lat_hlog_open(const char *path, double start_epoch_s, const char *comment)
{
	struct lat_hlog *l = calloc(1, sizeof(*l));
	time_t t = (time_t)start_epoch_s;
	char date[64];
	struct tm tm;
	size_t i;
	int err, n;

	if (!l)
		return NULL;
	comment = comment ? comment : "";
	l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	err = l->fd < 0 ? -errno : reserve(l, strlen(comment) + 512);
	if (!err) {
		/* Java's Date.toString(), in UTC */
		gmtime_r(&t, &tm);
		strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
		n = snprintf(l->buf, l->cap, "#%s\n#[Histogram log format version 1.3]\n"
			"#[StartTime: %.3f (seconds since epoch), %s]\n"
			"#[BaseTime: %.3f (seconds since epoch)]\n"
			"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
			"\"Interval_Compressed_Histogram\"\n",
			comment, start_epoch_s, date, start_epoch_s);
		l->len = n > 0 && (size_t)n < l->cap ? (size_t)n : 0;
		/* a line break would end the comment and start a bad line */
		for (i = 1; i <= strlen(comment) && l->len; i++)
			if (l->buf[i] == '\r' || l->buf[i] == '\n')
				l->buf[i] = ' ';
		err = l->len ? lat_hlog_flush(l) : -EINVAL;
	}
	if (!err)
		return l;
	if (l->fd >= 0)
		close(l->fd);
	free(l->buf);
	free(l);
	errno = -err;
	return NULL;
}

/*
 * The max column is the exact max in ms (ns / 1e6, the unit ratio Java's
 * HistogramLogWriter uses by default); Java writes the top of the max's
 * slot there, and its readers skip the column.
 */
int lat_hlog_write(struct lat_hlog *l, const char *tag, double start_s, double length_s,
		   const struct lat_hist *h)
{
	char *hist, safe[256];
	unsigned char *p;
	int err, n;

	/* Java's reader splits a line at spaces, commas, CR and LF, and ends
	 * it at U+0085, U+2028 and U+2029 too: printable ASCII only */
	snprintf(safe, sizeof(safe), "%s", tag);
	for (p = (unsigned char *)safe; *p; p++)
		if (*p <= ' ' || *p == ',' || *p >= 0x7f)
			*p = '_';
	err = lat_hlog_encode(h, &hist);
	if (!err)
		err = reserve(l, strlen(safe) + strlen(hist) + 96);
	if (!err) {
		n = snprintf(l->buf + l->len, l->cap - l->len, "Tag=%s,%.3f,%.3f,%.3f,%s\n",
			     safe, start_s, length_s, h->max / 1e6, hist);
		/* only absurd times overrun: the line is not kept */
		if (n > 0 && (size_t)n < l->cap - l->len)
			l->len += (size_t)n;
		else
			err = -ERANGE;
	}
	free(hist);
	return err;
}

/* One write(2) for an interval's lines: a SIGKILL lands between intervals
 * (or, after its first page, within that very call). A failed interval is
 * dropped, not retried into a second copy of its first lines. */
int lat_hlog_flush(struct lat_hlog *l)
{
	size_t off = 0;
	ssize_t n;
	int err = 0;

	while (off < l->len && !err) {
		n = write(l->fd, l->buf + off, l->len - off);
		if (n > 0)
			off += (size_t)n;
		else if (n == 0 || errno != EINTR)
			err = n ? -errno : -EIO;
	}
	l->len = 0;
	return err;
}

int lat_hlog_close(struct lat_hlog *l)
{
	int err;

	if (!l)
		return 0;
	err = lat_hlog_flush(l);
	if (close(l->fd) && !err)
		err = -errno;
	free(l->buf);
	free(l);
	return err;
}

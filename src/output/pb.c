// SPDX-License-Identifier: GPL-2.0
/* The protocol-buffers writer: see pb.h. Wire types: 0 varint, 1 64-bit,
 * 2 length-delimited (developers.google.com/protocol-buffers, encoding). */
#include <stdlib.h>
#include <string.h>
#include "output/pb.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

static bool room(struct lat_pb *p, size_t n)
{
	unsigned char *b;
	size_t cap;

	if (p->oom)
		return false;
	if (p->len + n <= p->cap)
		return true;
	cap = p->cap ? p->cap : 4096;
	while (cap < p->len + n)
		cap *= 2;
	b = realloc(p->b, cap);
	if (!b) {
		p->oom = true;
		return false;
	}
	p->b = b;
	p->cap = cap;
	return true;
}

static void raw_varint(struct lat_pb *p, __u64 v)
{
	if (!room(p, 10))
		return;
	while (v >= 0x80) {
		p->b[p->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p->b[p->len++] = (unsigned char)v;
}

static void tag(struct lat_pb *p, __u32 field, unsigned wt)
{
	raw_varint(p, (__u64)field << 3 | wt);
}

void lat_pb_free(struct lat_pb *p)
{
	free(p->b);
	memset(p, 0, sizeof(*p));
}

void lat_pb_reset(struct lat_pb *p)
{
	p->len = 0;
	p->depth = 0;
}

void lat_pb_varint(struct lat_pb *p, __u32 field, __u64 v)
{
	tag(p, field, WT_VARINT);
	raw_varint(p, v);
}

void lat_pb_int(struct lat_pb *p, __u32 field, __s64 v)
{
	lat_pb_varint(p, field, (__u64)v);
}

void lat_pb_double(struct lat_pb *p, __u32 field, double v)
{
	__u64 u;

	memcpy(&u, &v, sizeof(u));
	tag(p, field, WT_I64);
	if (!room(p, 8))
		return;
	for (int i = 0; i < 8; i++)
		p->b[p->len++] = (unsigned char)(u >> (8 * i));
}

void lat_pb_bytes(struct lat_pb *p, __u32 field, const void *v, size_t n)
{
	tag(p, field, WT_LEN);
	raw_varint(p, n);
	if (!room(p, n))
		return;
	memcpy(p->b + p->len, v, n);
	p->len += n;
}

void lat_pb_strn(struct lat_pb *p, __u32 field, const char *s, size_t n)
{
	lat_pb_bytes(p, field, s, strnlen(s, n));
}

void lat_pb_str(struct lat_pb *p, __u32 field, const char *s)
{
	lat_pb_bytes(p, field, s, strlen(s));
}

void lat_pb_begin(struct lat_pb *p, __u32 field)
{
	tag(p, field, WT_LEN);
	if (p->depth == LAT_PB_DEPTH || !room(p, 4)) {
		p->oom = true;
		return;
	}
	p->open[p->depth++] = p->len;
	p->len += 4;
}

/* the length as 4 varint bytes, the first three with their continuation
 * bit set whatever the value: a valid (redundant) varint */
void lat_pb_end(struct lat_pb *p)
{
	size_t at, n;

	if (p->oom || !p->depth)
		return;
	at = p->open[--p->depth];
	n = p->len - at - 4;
	if (n >= 1U << 28) {
		p->oom = true;
		return;
	}
	p->b[at] = (unsigned char)(0x80 | (n & 0x7f));
	p->b[at + 1] = (unsigned char)(0x80 | ((n >> 7) & 0x7f));
	p->b[at + 2] = (unsigned char)(0x80 | ((n >> 14) & 0x7f));
	p->b[at + 3] = (unsigned char)((n >> 21) & 0x7f);
}

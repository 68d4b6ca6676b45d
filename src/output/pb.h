/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small protocol-buffers writer: what the Perfetto sink needs and no
 * more (varints, 64-bit doubles, length-delimited bytes, nested messages).
 * A nested message's length is written, as Perfetto's own protozero does,
 * as a 4-byte varint patched when the message ends (so up to 256 MiB), so
 * nothing is encoded twice. Out of memory is remembered (oom) and the rest
 * of the calls do nothing.
 */
#ifndef LATBPF_PB_H
#define LATBPF_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define LAT_PB_DEPTH 8

struct lat_pb {
	unsigned char *b;
	size_t len, cap;
	size_t open[LAT_PB_DEPTH];	/* where each open message's length goes */
	int depth;
	bool oom;
};

void lat_pb_free(struct lat_pb *p);
/* the bytes written so far are taken (after a flush): the buffer is empty */
void lat_pb_reset(struct lat_pb *p);
/* uint32/64, int32/64 (negative: ten bytes, as protobuf says), bool, enum */
void lat_pb_varint(struct lat_pb *p, __u32 field, __u64 v);
void lat_pb_int(struct lat_pb *p, __u32 field, __s64 v);
void lat_pb_double(struct lat_pb *p, __u32 field, double v);
void lat_pb_bytes(struct lat_pb *p, __u32 field, const void *v, size_t n);
/* a string; NUL ends it, or n bytes (then at most n) */
void lat_pb_str(struct lat_pb *p, __u32 field, const char *s);
void lat_pb_strn(struct lat_pb *p, __u32 field, const char *s, size_t n);
void lat_pb_begin(struct lat_pb *p, __u32 field);
void lat_pb_end(struct lat_pb *p);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Scratch files in --dir for the file benchmarks (fault_major, fs_*):
 * made, unlinked at once, their pages dropped. */
#ifndef LATBPF_BENCH_FILE_H
#define LATBPF_BENCH_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct lat_bres;

/* An unlinked file of len bytes (a multiple of 1 MiB) in dir, its pages
 * dropped: fd, or -errno said in r's note (tmpfs is said too) */
int lat_bench_make_file(const char *dir, size_t len, struct lat_bres *r);
/* tmpfs: its pages cannot be dropped, and O_DIRECT reads memory */
bool lat_bench_is_tmpfs(int fd);

#endif

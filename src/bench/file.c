// SPDX-License-Identifier: GPL-2.0
/* Scratch files in --dir for the file benchmarks (file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "bench/file.h"
#include "bench/result.h"

#define TMPFS_MAGIC 0x01021994

bool lat_bench_is_tmpfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

/* A file of real (non-zero) blocks, unlinked at once: nothing is left
 * behind. Its pages are written back and dropped from the page cache. */
int lat_bench_make_file(const char *dir, size_t len, struct lat_bres *r)
{
	char path[4096], *buf;
	size_t done;
	int fd;

	snprintf(path, sizeof(path), "%s/latbpf-bench.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		snprintf(r->note, sizeof(r->note), "cannot create a file in %.150s: %s", dir,
			 strerror(errno));
		return -errno;
	}
	unlink(path);
	if (lat_bench_is_tmpfs(fd))
		snprintf(r->note, sizeof(r->note), "%.150s is tmpfs: its pages cannot be "
			 "dropped, so there are no major faults; use --dir", dir);
	buf = malloc(1 << 20);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	memset(buf, 0x5a, 1 << 20);
	for (done = 0; done < len; done += 1 << 20)
		if (write(fd, buf, 1 << 20) != 1 << 20) {
			snprintf(r->note, sizeof(r->note), "cannot write %zu MiB in %.150s: %s",
				 len >> 20, dir, strerror(errno));
			free(buf);
			close(fd);
			return -ENOSPC;
		}
	free(buf);
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
		close(fd);
		return -errno;
	}
	return fd;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mapkeys ID: how many keys the kernel's BPF map ID holds now, walked with
 * BPF_MAP_GET_NEXT_KEY (keys only: bpftool's dump formats every value,
 * 16 MiB of them for tests/integration/threads.t's per-thread table, which
 * took minutes under qemu's TCG). Prints the count; exit 1 on an error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

int main(int argc, char **argv)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	long long n = 0;
	char *key, *next;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: mapkeys MAP_ID\n");
		return 2;
	}
	fd = bpf_map_get_fd_by_id((__u32)strtoul(argv[1], NULL, 10));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "mapkeys: map %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	key = calloc(1, info.key_size);
	next = calloc(1, info.key_size);
	if (!key || !next)
		return 1;
	if (bpf_map_get_next_key(fd, NULL, next) == 0) {
		do {
			n++;
			memcpy(key, next, info.key_size);
		} while (bpf_map_get_next_key(fd, key, next) == 0);
	}
	if (errno != ENOENT) {
		fprintf(stderr, "mapkeys: map %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("%lld\n", n);
	return 0;
}

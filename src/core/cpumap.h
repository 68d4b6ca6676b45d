/* SPDX-License-Identifier: GPL-2.0 */
/* The values BPF keeps one per CPU (bpf/cpu.bpf.h: LAT_CPU_ARRAY), read
 * through a mapping of the map, so no read is a long system call. */
#ifndef LATBPF_CORE_CPUMAP_H
#define LATBPF_CORE_CPUMAP_H

#include <stddef.h>

struct bpf_map;

struct lat_cpu_array {
	const struct bpf_map *map;
	void *m;		/* the mapping, NULL until the first read */
	size_t len, stride;
	int ncpus;
	int map_err;		/* the mapping was refused: read with bpf() */
};

/* before the load: one value for each of ncpus CPUs */
void lat_cpu_array_size(struct bpf_map *map, int ncpus);
/* after it: a reader of map (nothing is mapped yet) */
void lat_cpu_array_init(struct lat_cpu_array *a, const struct bpf_map *map, int ncpus);
/* every CPU's value into dst, ncpus values of size bytes (the struct the
 * map's slot wraps), word by word as BPF writes them, with a yield point
 * between CPUs; 0 or -errno (the first read maps the map; where mapping
 * is refused, a lookup a CPU) */
int lat_cpu_array_read(struct lat_cpu_array *a, void *dst, size_t size);
/* the same without yield points: a read that must be quick (inside a
 * window a sequence word checks) */
int lat_cpu_array_copy(struct lat_cpu_array *a, void *dst, size_t size);
/* CPU cpu's value as BPF writes it (NULL: cpu out of range, or the map
 * could not be mapped); the first call maps the map */
const volatile void *lat_cpu_array_at(struct lat_cpu_array *a, int cpu);
void lat_cpu_array_free(struct lat_cpu_array *a);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Per-CPU values read through a mapping (cpumap.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/cpumap.h"
#include "core/yield.h"

void lat_cpu_array_size(struct bpf_map *map, int ncpus)
{
	bpf_map__set_max_entries(map, (__u32)ncpus);
}

void lat_cpu_array_init(struct lat_cpu_array *a, const struct bpf_map *map, int ncpus)
{
	memset(a, 0, sizeof(*a));
	a->map = map;
	a->ncpus = ncpus;
}

static int map_it(struct lat_cpu_array *a)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const char *knob;
	void *m;

	if (a->map_err)
		return a->map_err;
	if (!a->map || bpf_map__fd(a->map) < 0)
		return -EBADF;
	if (bpf_map__max_entries(a->map) < (__u32)a->ncpus)
		return -ERANGE;
	/* the kernel's array stride: the value size rounded up to 8 */
	a->stride = ((size_t)bpf_map__value_size(a->map) + 7) & ~(size_t)7;
	a->len = (a->stride * bpf_map__max_entries(a->map) + page - 1) & ~(page - 1);
	/* the test knob: as if a policy refused (README, "Environment") */
	if ((knob = getenv("LATBPF_CPU_LOOKUP")) && *knob == '1') {
		m = MAP_FAILED;
		errno = EPERM;
	} else {
		m = mmap(NULL, a->len, PROT_READ, MAP_SHARED, bpf_map__fd(a->map), 0);
	}
	if (m == MAP_FAILED) {
		/* a policy (an LSM) may refuse it: said once, not retried */
		a->map_err = -errno;
		fprintf(stderr, "latbpf: %s: cannot map it (%s): read with a lookup a CPU\n",
			bpf_map__name(a->map), strerror(-a->map_err));
		return a->map_err;
	}
	a->m = m;
	return 0;
}

/* without the mapping: each CPU's value looked up, its wrapper's first
 * size bytes kept */
static int lookup_each(struct lat_cpu_array *a, void *dst, size_t size, bool yield)
{
	char *v = malloc(a->stride);
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (__u32 c = 0; c < (__u32)a->ncpus && !err; c++) {
		if (c && yield)
			lat_yield_point();
		if (bpf_map_lookup_elem(bpf_map__fd(a->map), &c, v))
			err = -errno;
		else
			memcpy((char *)dst + c * size, v, size);
	}
	free(v);
	return err;
}

static int read_all(struct lat_cpu_array *a, void *dst, size_t size, bool yield)
{
	int err;

	if (!a->m && (err = map_it(a)) && (err == -EBADF || err == -ERANGE))
		return err;
	if (size > a->stride || size % 8)
		return -EINVAL;
	if (!a->m)
		return lookup_each(a, dst, size, yield);
	/* ordered with the reads around it, as a system call's copy was (a
	 * sequence word read before and after: hiccup's caches) */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (int c = 0; c < a->ncpus; c++) {
		const volatile __u64 *from = (const volatile __u64 *)((char *)a->m + c * a->stride);
		__u64 *to = (__u64 *)((char *)dst + c * size);

		if (c && yield)
			lat_yield_point();
		/* whole words, each as one load: a counter BPF moves meanwhile
		 * reads as before or after, never half of each */
		for (size_t w = 0; w < size / 8; w++)
			to[w] = from[w];
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return 0;
}

int lat_cpu_array_read(struct lat_cpu_array *a, void *dst, size_t size)
{
	return read_all(a, dst, size, true);
}

int lat_cpu_array_copy(struct lat_cpu_array *a, void *dst, size_t size)
{
	return read_all(a, dst, size, false);
}

const volatile void *lat_cpu_array_at(struct lat_cpu_array *a, int cpu)
{
	if (cpu < 0 || cpu >= a->ncpus || (!a->m && map_it(a)))
		return NULL;
	return (const volatile char *)a->m + (size_t)cpu * a->stride;
}

void lat_cpu_array_free(struct lat_cpu_array *a)
{
	if (a->m)
		munmap(a->m, a->len);
	a->m = NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A value of each CPU that the loader reads: an array indexed by the CPU,
 * which the loader maps into its memory (src/core/cpumap.h), not a per-CPU
 * array. A per-CPU array is read with one bpf() call that copies every
 * CPU's value through a kernel buffer it allocates each time, and a kernel
 * without preemption does not let a woken target run until that call
 * returns: 50-104 us for the sched family's two 21 KiB values in one run
 * of yield.t's target here, where a read of the mapped array is a copy in
 * user space the scheduler can cut. For the BPF side the two cost the
 * same: the CPU's number and an array lookup, inlined on x86-64 since 6.10
 * as the per-CPU lookup is; a helper call each before.
 *
 * Each value starts a cache line (the wrapper's alignment), so two CPUs
 * never write one line; the loader reads the map's own stride.
 */
#ifndef LATBPF_CPU_BPF_H
#define LATBPF_CPU_BPF_H

#define LAT_CPU_ARRAY(name, vtype)					\
	struct name##_slot {						\
		vtype v;						\
	} __attribute__((aligned(64)));					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(map_flags, BPF_F_MMAPABLE);			\
		__uint(max_entries, 1);	/* the loader's: its CPUs */	\
		__type(key, __u32);					\
		__type(value, struct name##_slot);			\
	} name SEC(".maps")

/* this CPU's value of a LAT_CPU_ARRAY (NULL: a CPU beyond the map, which
 * the loader sized to every possible CPU) */
static __always_inline void *lat_cpu_value(void *map)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(map, &cpu);
}

#endif

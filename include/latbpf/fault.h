/* SPDX-License-Identifier: GPL-2.0 */
/* Map value types of the fault family: bpf/fault.bpf.h and src/fault.c. */
#ifndef LATBPF_FAULT_H
#define LATBPF_FAULT_H

#include "latbpf/hist.h"

/* Per CPU (LAT_CPU_ARRAY, bpf/cpu.bpf.h): the CPU the fault or stall ended on. */
struct lat_fault_cpu {
	__u64 faults;		/* exceptions:page_fault_user of targets */
	__u64 read, write, instr;	/* by error code */
	__u64 filemap;		/* of those, through filemap_fault (page cache) */
	__u64 stalls;		/* = stall.count */
	struct lat_hist stall;	/* fault entry -> back on CPU, if it slept */
};
_Static_assert(sizeof(struct lat_fault_cpu) == 48 + sizeof(struct lat_hist),
	       "lat_fault_cpu layout is shared with BPF");

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* One clock read per event, shared by every family handling it: on a VM
 * bpf_ktime_get_ns() costs ~60 ns (tools/overhead.sh). */
#ifndef LATBPF_CLOCK_BPF_H
#define LATBPF_CLOCK_BPF_H

static __always_inline __u64 lat_clock(__u64 *now)
{
	if (!*now)
		*now = bpf_ktime_get_ns();
	return *now;
}

#endif

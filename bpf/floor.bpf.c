// SPDX-License-Identifier: GPL-2.0
/* The floor for any tracer of these events: empty programs on the
 * tracepoints latbpf uses. tools/overhead.sh measures against it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup)
{
	return 0;
}

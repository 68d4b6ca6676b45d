/* SPDX-License-Identifier: GPL-2.0 */
/* Map value types of the tcp family: bpf/tcp.bpf.c and src/tcp.c. */
#ifndef LATBPF_TCP_H
#define LATBPF_TCP_H

#include "latbpf/hist.h"

/* Per CPU (LAT_CPU_ARRAY, bpf/cpu.bpf.h). */
struct lat_tcp_cpu {
	__u64 retransmits;	/* tcp:tcp_retransmit_skb that went out (TcpRetransSegs) */
	__u64 retransmit_failed;	/* ... that failed to go out (err != 0) */
	__u64 sockets;		/* sockets tied to the target */
	__u64 untracked;	/* ... whose mark the kernel could not store */
	__u64 remotes_lost;	/* --per-remote samples of a remote the full hash had no room for */
	struct lat_hist rtt;	/* smoothed RTT at each tcp:tcp_probe, ns */
	struct lat_hist connect;	/* SYN_SENT -> ESTABLISHED, ns */
};
_Static_assert(sizeof(struct lat_tcp_cpu) == 40 + 2 * sizeof(struct lat_hist),
	       "lat_tcp_cpu layout is shared with BPF");

/* --per-remote: a hash keyed by the remote end, shared by every CPU. */
struct lat_tcp_remote_key {
	__u16 family;		/* AF_INET or AF_INET6 */
	__u16 port;		/* host order */
	__u32 gen;		/* the loader's generation (tcp_gen): drained a poll after */
	__u8 addr[16];		/* IPv4 in the first 4 bytes */
};
_Static_assert(sizeof(struct lat_tcp_remote_key) == 24, "shared with BPF");

struct lat_tcp_remote {
	struct lat_hist rtt;
	struct lat_hist connect;
	__u64 retransmits;
	__u64 _pad;
};
_Static_assert(sizeof(struct lat_tcp_remote) == 16 + 2 * sizeof(struct lat_hist),
	       "shared with BPF");

/* remotes the hash holds between two polls (it is drained at each) */
#define LAT_TCP_MAX_REMOTES 1024
/* PREEMPT_RT: the target's sockets whose marks a hash holds at once
 * (bpf/tcp.bpf.c, marks_in_hash) */
#define LAT_TCP_MAX_MARKS 16384

#endif

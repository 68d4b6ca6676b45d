// SPDX-License-Identifier: GPL-2.0
/*
 * tcp family: smoothed RTT, connect latency and retransmits of the target's
 * TCP sockets, from tracepoints only (tcprtt and tcpconnlat need kprobes or
 * fentry).
 *
 * A socket is the target's once the target uses it in process context:
 * connect (inet_sock_set_state to SYN_SENT), send (tcp_sendmsg_locked) or
 * receive (tcp_rcv_space_adjust runs in recvmsg). The mark lives in
 * socket-local storage, freed by the kernel with the socket. Later events
 * arrive in softirq context, where "current" means nothing: they are
 * attributed through the mark. System-wide, every TCP socket counts.
 *
 * On PREEMPT_RT the marks are in a preallocated hash by the socket's
 * cookie instead, deleted when it closes: the kernel allocates socket
 * storage with kmalloc (6.1: GFP_ATOMIC), which on RT may sleep on a
 * contended lock, and a tracepoint runs with preemption off ("BUG:
 * scheduling while atomic", then a stalled CPU, in the 6.1-rt guest). The
 * cookie, not the address: a close the kernel did not run this program for
 * (a softirq's, while the program ran on that CPU: tcp.missed) leaves an
 * entry that no later socket at that address can match. Not an LRU: one
 * evicts a live socket's mark without a word (its later RTTs and
 * retransmits then go unattributed), while a full hash refuses the new
 * mark, which is counted (untracked_sockets); what a missed close left
 * stays for the run, bounded by tcp.missed.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "latbpf/tcp.h"
#include "target.bpf.h"
#include "cpu.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT 2
#define TCP_CLOSE 7
#define IPPROTO_TCP 6

struct sk_mark {
	__u64 connect_ts;	/* SYN_SENT seen, 0 otherwise */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sk_mark);
} tcp_marks SEC(".maps");

/* PREEMPT_RT: marks_in_hash (the loader sets it, and sizes this map; 1
 * entry elsewhere) */
const volatile bool marks_in_hash = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_TCP_MAX_MARKS);
	__type(key, __u64);
	__type(value, struct sk_mark);
} tcp_marks_rt SEC(".maps");

LAT_CPU_ARRAY(tcp_cpu, struct lat_tcp_cpu);

const volatile bool per_remote = false;

/* --per-remote; the loader shrinks it to one entry when off. Shared by all
 * CPUs (atomic adds), so its memory does not grow with their number.
 * Drained: a remote is charged under the generation tcp_gen, which the
 * loader flips at each poll; at the next one it reads the other
 * generation's entries (nothing writes them since the flip) one last time
 * and deletes them, so the hash holds the remotes of one or two intervals,
 * never the run's. */
volatile __u32 tcp_gen = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_TCP_MAX_REMOTES);
	__type(key, struct lat_tcp_remote_key);
	__type(value, struct lat_tcp_remote);
} tcp_remotes SEC(".maps");

/* Written once by the loader (min = ~0): what new remotes start from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_tcp_remote);
} tcp_remote_zero SEC(".maps");

#define AF_INET 2
#define AF_INET6 10

/* The remote's entry, created from the template; NULL when off, or when
 * the hash is full: then the sample is counted lost on c (if any). */
static __always_inline struct lat_tcp_remote *remote_get(const struct sock *sk,
							 struct lat_tcp_cpu *c)
{
	struct lat_tcp_remote_key k = {};
	struct lat_tcp_remote *r;
	__u32 zkey = 0;
	void *zero;

	if (!per_remote)
		return NULL;
	k.family = BPF_CORE_READ(sk, __sk_common.skc_family);
	k.port = __builtin_bswap16(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (k.family == AF_INET)
		BPF_CORE_READ_INTO((__u32 *)k.addr, sk, __sk_common.skc_daddr);
	else if (k.family == AF_INET6)
		BPF_CORE_READ_INTO(&k.addr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
	else
		return NULL;
	k.gen = tcp_gen;
	r = bpf_map_lookup_elem(&tcp_remotes, &k);
	if (r)
		return r;
	zero = bpf_map_lookup_elem(&tcp_remote_zero, &zkey);
	if (!zero)
		return NULL;
	bpf_map_update_elem(&tcp_remotes, &k, zero, BPF_NOEXIST);
	r = bpf_map_lookup_elem(&tcp_remotes, &k);
	if (!r && c)
		c->remotes_lost++;
	return r;
}

static __always_inline struct lat_tcp_cpu *cpu_get(void)
{
	return lat_cpu_value(&tcp_cpu);
}

/* The socket's key in tcp_marks_rt: its cookie, or 0 where it has none
 * yet (then no mark: making a mark gives it one) */
static __always_inline __u64 mark_key(struct sock *sk)
{
	return sk->__sk_common.skc_cookie.counter;
}

/* The socket's mark, if it has one */
static __always_inline struct sk_mark *mark_of(struct sock *sk)
{
	__u64 k;

	if (!marks_in_hash)
		return bpf_sk_storage_get(&tcp_marks, sk, NULL, 0);
	k = mark_key(sk);
	return k ? bpf_map_lookup_elem(&tcp_marks_rt, &k) : NULL;
}

/* The socket's mark: created when the target uses it in process context. */
static __always_inline struct sk_mark *mark(struct sock *sk, bool in_target)
{
	struct sk_mark *m = mark_of(sk), zero = {};
	struct lat_tcp_cpu *c;
	__u64 k;

	if (m || !in_target)
		return m;
	if (marks_in_hash) {
		k = bpf_get_socket_cookie(sk);	/* made here if it had none */
		bpf_map_update_elem(&tcp_marks_rt, &k, &zero, BPF_NOEXIST);
		m = bpf_map_lookup_elem(&tcp_marks_rt, &k);
	} else {
		m = bpf_sk_storage_get(&tcp_marks, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	}
	if ((c = cpu_get())) {
		if (m)
			c->sockets++;
		else
			c->untracked++;	/* its events cannot be attributed: say so */
	}
	return m;
}

/* A send or receive of the target marks its socket. In the hash (PREEMPT_RT)
 * not one already closed (data read after a reset, or after the peer's FIN
 * took it through TIME_WAIT): no state change would delete that entry. Nor
 * system-wide, where only a connect needs its mark (its handshake's start):
 * every socket of the host would fill the hash. */
static __always_inline void mark_used(struct sock *sk)
{
	if (marks_in_hash && (!lat_filtering() || sk->__sk_common.skc_state == TCP_CLOSE))
		return;
	mark(sk, lat_current_is_target());
}

SEC("tp_btf/tcp_sendmsg_locked")
int BPF_PROG(tcp_send, struct sock *sk)
{
	mark_used(sk);
	return 0;
}

SEC("tp_btf/tcp_rcv_space_adjust")
int BPF_PROG(tcp_recv, struct sock *sk)
{
	mark_used(sk);
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tcp_state, struct sock *sk, int oldstate, int newstate)
{
	struct lat_tcp_remote *r;
	struct lat_tcp_cpu *c;
	struct sk_mark *m;
	__u64 d;

	if (sk->sk_protocol != IPPROTO_TCP)
		return 0;
	if (marks_in_hash && newstate == TCP_CLOSE) {	/* its mark goes with it */
		__u64 k = mark_key(sk);

		if (k)
			bpf_map_delete_elem(&tcp_marks_rt, &k);
		return 0;
	}
	if (newstate == TCP_SYN_SENT) {	/* connect(), in the caller's context */
		m = mark(sk, lat_current_is_target());
		if (m)
			m->connect_ts = bpf_ktime_get_ns();
		return 0;
	}
	if (oldstate != TCP_SYN_SENT || newstate != TCP_ESTABLISHED)
		return 0;
	m = mark_of(sk);
	if (!m || !m->connect_ts || !(c = cpu_get()))
		return 0;
	d = bpf_ktime_get_ns() - m->connect_ts;
	lat_hist_record(&c->connect, d);
	if ((r = remote_get(sk, c)))
		lat_hist_record_shared(&r->connect, d);
	m->connect_ts = 0;
	return 0;
}

SEC("tp_btf/tcp_probe")
int BPF_PROG(tcp_rtt, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct lat_tcp_remote *r;
	struct lat_tcp_cpu *c;
	__u32 srtt;

	if (lat_filtering() && !mark_of(sk))
		return 0;
	srtt = BPF_CORE_READ(tp, srtt_us) >> 3;	/* kept << 3, in us */
	if (!srtt)
		return 0;
	if ((c = cpu_get()))
		lat_hist_record(&c->rtt, (__u64)srtt * 1000);
	if ((r = remote_get(sk, c)))
		lat_hist_record_shared(&r->rtt, (__u64)srtt * 1000);
	return 0;
}

static __always_inline void retransmit(struct sock *sk, int err)
{
	struct lat_tcp_remote *r;
	struct lat_tcp_cpu *c;

	if (lat_filtering() && !mark_of(sk))
		return;
	if (!(c = cpu_get()))
		return;
	/* the kernel's TcpRetransSegs counts only those that went out */
	if (err) {
		c->retransmit_failed++;
	} else {
		c->retransmits++;
		if ((r = remote_get(sk, c)))
			__sync_fetch_and_add(&r->retransmits, 1);
	}
}

/* Recent kernels (6.18 here) pass the transmit error as a third argument
 * and fire for failed attempts too; where the prototype has no error, every
 * event counts as a retransmit. The loader picks the variant from the
 * tracepoint's BTF prototype. */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(tcp_retrans, struct sock *sk, struct sk_buff *skb, int err)
{
	retransmit(sk, err);
	return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(tcp_retrans_old, struct sock *sk)
{
	retransmit(sk, 0);
	return 0;
}

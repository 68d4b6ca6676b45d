// SPDX-License-Identifier: GPL-2.0
/* tcp family: loader side of bpf/tcp.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lat.h"
#include "latbpf/tcp.h"
#include "tcp.skel.h"

struct tcp {
	struct tcp_bpf *skel;
	const struct lat_run *run;
	struct lat_tcp_cpu *percpu;
	struct lat_tcp_cpu now, before;
	struct lat_hist iv_rtt, iv_connect;
};

/* Parameters of a tracepoint's BTF prototype, the context pointer included. */
static int tp_nargs(const char *tp)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t = NULL;
	char name[64];
	int id, n = -1;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) : -1;
	if (id > 0)
		t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (t)
		t = btf__type_by_id(btf, t->type);
	if (t && btf_is_func_proto(t))
		n = btf_vlen(t);
	btf__free(btf);
	return n;
}

static int tcp_open(const struct lat_run *run, void **priv)
{
	struct tcp *t = calloc(1, sizeof(*t));
	bool with_err = tp_nargs("tcp_retransmit_skb") >= 4;	/* ctx, sk, skb, err */
	int err;

	if (!t)
		return -ENOMEM;
	t->run = run;
	t->percpu = calloc(run->ncpus, sizeof(*t->percpu));
	t->skel = tcp_bpf__open();
	if (!t->percpu || !t->skel) {
		err = t->skel ? -ENOMEM : -errno;
		goto fail;
	}
	t->skel->rodata->lat_targ = run->target;
	bpf_program__set_autoload(t->skel->progs.tcp_retrans, with_err);
	bpf_program__set_autoload(t->skel->progs.tcp_retrans_old, !with_err);
	err = tcp_bpf__load(t->skel);
	if (err) {
		fprintf(stderr, "tcp: load failed: %s (needs tp_btf and socket storage "
			"in tracing programs: kernel >= 5.11)\n", strerror(-err));
		goto fail;
	}
	*priv = t;
	return 0;
fail:
	tcp_bpf__destroy(t->skel);
	free(t->percpu);
	free(t);
	return err;
}

static int tcp_attach(void *priv)
{
	struct tcp *t = priv;
	int err = tcp_bpf__attach(t->skel);

	if (err)
		fprintf(stderr, "tcp: attach failed: %s\n", strerror(-err));
	return err;
}

static const char *tcp_mode(void *priv)
{
	return "attached (tp_btf)";
}

static int tcp_poll(void *priv)
{
	struct tcp *t = priv;
	__u32 key = 0;
	int c;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.tcp_cpu), &key, t->percpu))
		return -errno;
	t->before = t->now;
	memset(&t->now, 0, sizeof(t->now));
	for (c = 0; c < t->run->ncpus; c++) {
		t->now.retransmits += t->percpu[c].retransmits;
		t->now.retransmit_failed += t->percpu[c].retransmit_failed;
		t->now.sockets += t->percpu[c].sockets;
		lat_hist_merge(&t->now.rtt, &t->percpu[c].rtt);
		lat_hist_merge(&t->now.connect, &t->percpu[c].connect);
	}
	lat_hist_delta(&t->iv_rtt, &t->now.rtt, &t->before.rtt);
	lat_hist_delta(&t->iv_connect, &t->now.connect, &t->before.connect);
	return 0;
}

static void tcp_report(void *priv, struct lat_emit *e)
{
	struct tcp *t = priv;

	e->ops->obj_begin(e, "tcp", "tcp: the target's TCP sockets");
	e->ops->hist(e, "rtt", "smoothed RTT (at each ACK processed, tcp:tcp_probe)",
		     &t->iv_rtt, &t->now.rtt);
	e->ops->hist(e, "connect", "connect latency (SYN_SENT -> ESTABLISHED)",
		     &t->iv_connect, &t->now.connect);
	e->ops->count(e, "retransmits", t->now.retransmits - t->before.retransmits,
		      t->now.retransmits);
	e->ops->count(e, "retransmit_failed",
		      t->now.retransmit_failed - t->before.retransmit_failed,
		      t->now.retransmit_failed);
	e->ops->count(e, "sockets", t->now.sockets - t->before.sockets, t->now.sockets);
	e->ops->obj_end(e);
}

static void tcp_destroy(void *priv)
{
	struct tcp *t = priv;

	if (!t)
		return;
	tcp_bpf__destroy(t->skel);
	free(t->percpu);
	free(t);
}

const struct lat_module_ops lat_tcp_ops = {
	.name = "tcp",
	.open = tcp_open,
	.attach = tcp_attach,
	.mode = tcp_mode,
	.poll = tcp_poll,
	.report = tcp_report,
	.destroy = tcp_destroy,
};

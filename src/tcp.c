// SPDX-License-Identifier: GPL-2.0
/* tcp family: loader side of bpf/tcp.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lat.h"
#include "latbpf/tcp.h"
#include "tcp.skel.h"

struct remote {
	struct lat_tcp_remote_key k;
	struct lat_tcp_remote now, before;
};

/* tcp's own options */
struct tcp_cfg {
	bool per_remote;
};
_Static_assert(sizeof(struct tcp_cfg) <= LAT_FAMILY_CFG, "fits lat_opts.cfg");

struct tcp {
	struct tcp_bpf *skel;
	struct tcp_cfg cfg;
	struct lat_table remotes;	/* of struct remote, by key */
	struct lat_tcp_remote rvalue;	/* one lookup */
	const struct lat_run *run;
	struct lat_tcp_cpu *percpu;
	struct lat_tcp_cpu now, before;
	__u64 missed, missed_before;	/* lat_prog_misses() */
	char mode[200];			/* what this kernel lacks */
	char mode_str[240];
};


static int set_per_remote(void *cfg, const char *arg)
{
	((struct tcp_cfg *)cfg)->per_remote = true;
	return 0;
}

static const struct lat_family_opt tcp_options[] = {
	{ "per-remote", NULL, "break tcp histograms down per remote address:port",
	  set_per_remote },
	{ NULL },
};

/*
 * Each tracepoint is loaded only where the kernel has it, and the mode says
 * what is missing and what that costs: 6.1 has no tcp:tcp_sendmsg_locked
 * (added in 6.2), so there a socket the target only ever sends on is not
 * its own until it receives or connects.
 */
static void optional(struct tcp *t, const struct btf *btf)
{
	static const struct {
		const char *tp, *cost;
	} tps[] = {
		{ "tcp_sendmsg_locked", "sockets the target only sends on are not followed" },
		{ "tcp_rcv_space_adjust", "sockets the target only receives on are not followed" },
		{ "inet_sock_set_state", "no connect latency; connecting sockets are not followed" },
		{ "tcp_probe", "no RTT" },
		{ "tcp_retransmit_skb", "no retransmits" },
	};
	struct bpf_program *p;
	size_t i, n = 0;

	t->mode[0] = '\0';
	for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		if (lat_btf_has_tracepoint(btf, tps[i].tp))
			continue;
		bpf_object__for_each_program(p, t->skel->obj)
			if (!strcmp(bpf_program__section_name(p) + strlen("tp_btf/"), tps[i].tp))
				bpf_program__set_autoload(p, false);
		n += snprintf(t->mode + n, n < sizeof(t->mode) ? sizeof(t->mode) - n : 0,
			      "; no tcp:%s: %s", tps[i].tp, tps[i].cost);
	}
}

static int tcp_open(const struct lat_run *run, const void *cfg, void **priv)
{
	struct tcp *t = calloc(1, sizeof(*t));
	bool with_err = lat_btf_tracepoint_nargs(run->btf, "tcp_retransmit_skb") >= 4;
	/* ctx, sk, skb, err */
	int err;

	if (!t)
		return -ENOMEM;
	t->run = run;
	t->cfg = *(const struct tcp_cfg *)cfg;
	t->remotes.item_size = sizeof(struct remote);
	t->remotes.key_size = sizeof(struct lat_tcp_remote_key);
	t->percpu = calloc(run->ncpus, sizeof(*t->percpu));
	t->skel = tcp_bpf__open();
	if (!t->percpu || !t->skel) {
		err = t->skel ? -ENOMEM : -errno;
		goto fail;
	}
	t->skel->rodata->lat_targ = run->target;
	t->skel->rodata->per_remote = t->cfg.per_remote;
	bpf_map__set_max_entries(t->skel->maps.tcp_remotes,
				 t->cfg.per_remote ?
				 lat_env_entries("LATBPF_TCP_REMOTES", LAT_TCP_MAX_REMOTES) : 1);
	bpf_program__set_autoload(t->skel->progs.tcp_retrans, with_err);
	bpf_program__set_autoload(t->skel->progs.tcp_retrans_old, !with_err);
	optional(t, run->btf);
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
	char why[200];
	int err;

	lat_libbpf_reset();
	err = tcp_bpf__load(t->skel);
	if (err) {
		fprintf(stderr, "tcp: load failed: %s: %s (needs tp_btf and socket storage "
			"in tracing programs: kernel >= 5.11)\n", strerror(-err),
			lat_libbpf_why(why, sizeof(why)));
		return err;
	}
	/* the template new remotes start from: every min above any value */
	memset(&t->rvalue, 0, sizeof(t->rvalue));
	t->rvalue.rtt.min = t->rvalue.connect.min = ~0ULL;
	err = lat_map_template(bpf_map__fd(t->skel->maps.tcp_remote_zero), &t->rvalue, "tcp");
	if (err)
		return err;
	err = tcp_bpf__attach(t->skel);
	if (err)
		fprintf(stderr, "tcp: attach failed: %s\n", strerror(-err));
	return err;
}

static const char *tcp_mode(void *priv)
{
	struct tcp *t = priv;

	snprintf(t->mode_str, sizeof(t->mode_str), "attached (tp_btf%s)", t->mode);
	return t->mode_str;
}

static int merge_remote(const void *key, void *value, void *ctx)
{
	struct tcp *t = ctx;
	bool fresh;
	struct remote *r = lat_table_get(&t->remotes, key, &fresh);

	if (!r)
		return -ENOMEM;
	memcpy(&r->now, value, sizeof(r->now));
	return 0;
}

static int poll_remotes(struct tcp *t)
{
	for (size_t i = 0; i < t->remotes.n; i++) {
		struct remote *r = lat_table_at(&t->remotes, i);

		r->before = r->now;
	}
	return lat_map_each(bpf_map__fd(t->skel->maps.tcp_remotes),
			    sizeof(struct lat_tcp_remote_key), &t->rvalue, merge_remote, t);
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
		t->now.untracked += t->percpu[c].untracked;
		t->now.remotes_lost += t->percpu[c].remotes_lost;
		lat_hist_merge(&t->now.rtt, &t->percpu[c].rtt);
		lat_hist_merge(&t->now.connect, &t->percpu[c].connect);
	}
	t->missed_before = t->missed;
	t->missed = lat_prog_misses(t->skel->obj);
	return t->cfg.per_remote ? poll_remotes(t) : 0;
}

static void publish_remotes(struct tcp *t, struct lat_snap *s)
{
	char addr[INET6_ADDRSTRLEN], name[INET6_ADDRSTRLEN + 16], tag[INET6_ADDRSTRLEN + 24];
	size_t i;

	lat_pub_flags(lat_pub_list(s, "remotes", "per remote address:port"), LAT_F_BREAKDOWN);
	for (i = 0; i < t->remotes.n; i++) {
		const struct remote *r = lat_table_at(&t->remotes, i);

		inet_ntop(r->k.family == 2 ? AF_INET : AF_INET6, r->k.addr, addr, sizeof(addr));
		snprintf(name, sizeof(name), r->k.family == 2 ? "%s:%u" : "[%s]:%u", addr,
			 r->k.port);
		snprintf(tag, sizeof(tag), "remote.%s", name);
		lat_pub_item(s, r->now.rtt.count != r->before.rtt.count ||
				r->now.connect.count != r->before.connect.count, true);
		lat_pub_label(s, "remote", name, tag);
		lat_pub_str(s, "remote", name);
		lat_pub_hist(s, "rtt", NULL, &r->now.rtt, &r->before.rtt);
		lat_pub_hist(s, "connect", NULL, &r->now.connect, &r->before.connect);
		lat_pub_count(s, "retransmits", r->now.retransmits - r->before.retransmits,
			      r->now.retransmits);
		lat_pub_end(s);
	}
	lat_pub_end(s);
}

static void tcp_publish(void *priv, struct lat_snap *s)
{
	struct tcp *t = priv;

	lat_pub_obj(s, "tcp", "tcp: the target's TCP sockets");
	lat_pub_hist(s, "rtt", "smoothed RTT (at each ACK processed, tcp:tcp_probe)",
		     &t->now.rtt, &t->before.rtt);
	lat_pub_hist(s, "connect", "connect latency (SYN_SENT -> ESTABLISHED)",
		     &t->now.connect, &t->before.connect);
	lat_pub_count(s, "retransmits", t->now.retransmits - t->before.retransmits,
		      t->now.retransmits);
	lat_pub_count(s, "retransmit_failed",
		      t->now.retransmit_failed - t->before.retransmit_failed,
		      t->now.retransmit_failed);
	lat_pub_count(s, "sockets", t->now.sockets - t->before.sockets, t->now.sockets);
	lat_pub_flags(lat_pub_count(s, "untracked_sockets",
				    t->now.untracked - t->before.untracked, t->now.untracked),
		      LAT_F_NONZERO | LAT_F_DROP);
	/* softirq TCP events that arrived inside one of these programs */
	lat_pub_flags(lat_pub_count(s, "missed", t->missed - t->missed_before, t->missed),
		      LAT_F_NONZERO | LAT_F_DROP);
	if (t->cfg.per_remote) {
		lat_pub_flags(lat_pub_count(s, "remotes_lost",
					    t->now.remotes_lost - t->before.remotes_lost,
					    t->now.remotes_lost), LAT_F_NONZERO | LAT_F_DROP);
		publish_remotes(t, s);
	}
	lat_pub_end(s);
}

static void tcp_destroy(void *priv)
{
	struct tcp *t = priv;

	if (!t)
		return;
	tcp_bpf__destroy(t->skel);
	free(t->percpu);
	free(t->remotes.items);
	free(t);
}

const struct lat_module_ops lat_tcp_ops = {
	.name = "tcp",
	.options = tcp_options,
	.open = tcp_open,
	.attach = tcp_attach,
	.mode = tcp_mode,
	.poll = tcp_poll,
	.publish = tcp_publish,
	.destroy = tcp_destroy,
};

// SPDX-License-Identifier: GPL-2.0
/* tcp family: loader side of bpf/tcp.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/btf.h"
#include "core/cpumap.h"
#include "core/hist.h"
#include "core/maps.h"
#include "core/proc.h"
#include "core/run.h"
#include "core/snap.h"
#include "families/family.h"
#include "families/skel.h"
#include "latbpf/tcp.h"
#include "tcp.skel.h"

/*
 * --per-remote, as the loader keeps it. The kernel's hash is drained at
 * every poll (bpf/tcp.bpf.c, tcp_gen); a remote's histograms live here,
 * packed (lat_hist_pack): a few hundred bytes where the kernel's value is
 * 10.6 KB. acc sums its drained entries, live is its entry of the current
 * generation as read at this poll, now = acc + live, before = the now of
 * the poll before. The key's gen is 0 here; family 0 is "(others)": the
 * remotes summed beyond the KEEP_REMOTES kept by name.
 */
enum { R_RTT, R_CONNECT, R_NR };

struct remote {
	struct lat_tcp_remote_key k;
	struct lat_hist_packed *acc[R_NR], *live[R_NR], *now[R_NR], *before[R_NR];
	__u64 retr_acc, retr_live, retr_now, retr_before;
	bool has_live;
};

/* remotes kept by name; the test knob LATBPF_TCP_KEEP lowers it (README,
 * "Environment") */
#define KEEP_REMOTES 1024

/* tcp's own options */
struct tcp_cfg {
	bool per_remote;
};
_Static_assert(sizeof(struct tcp_cfg) <= LAT_FAMILY_CFG, "fits LAT_FAMILY_CFG");

struct tcp {
	struct tcp_bpf *skel;
	struct lat_cpu_array cpus;	/* tcp_cpu, mapped */
	struct tcp_cfg cfg;
	struct lat_table remotes;	/* of struct remote, by key */
	struct lat_tcp_remote rvalue;	/* one lookup */
	struct lat_hist *scratch;	/* two histograms' room */
	struct lat_gen_drain gd;	/* of tcp_remotes: its old generation */
	__u64 folded, folded_before;	/* remotes summed into "(others)" */
	const struct lat_run *run;
	struct lat_tcp_cpu *percpu;
	struct lat_tcp_cpu now, before;
	__u64 missed, missed_before;	/* lat_prog_misses() */
	char mode[200];			/* what this kernel lacks */
	char marks_rt[96];		/* PREEMPT_RT's hash, said in the mode */
	char mode_str[400];
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

/* PREEMPT_RT's hash of marks: 16384, and 512 per CPU where that is more
 * (a host with more CPUs serves more connections at once); a full hash
 * refuses a new mark, counted in untracked_sockets. LATBPF_TCP_MARKS may
 * make it smaller. */
static __u32 marks_rt_entries(void)
{
	long cpus = libbpf_num_possible_cpus();
	__u32 n = cpus > 32 ? (__u32)cpus * 512 : LAT_TCP_MAX_MARKS;

	return lat_env_entries("LATBPF_TCP_MARKS", n);
}

static int tcp_open(const struct lat_family_ctx *fc, const void *cfg, void **priv)
{
	const struct lat_run *run = fc->run;
	struct tcp *t = calloc(1, sizeof(*t));
	bool with_err = lat_btf_tracepoint_nargs(fc->btf, "tcp_retransmit_skb") >= 4;
	/* ctx, sk, skb, err */
	int err;

	if (!t)
		return -ENOMEM;
	t->run = run;
	t->cfg = *(const struct tcp_cfg *)cfg;
	t->remotes.item_size = sizeof(struct remote);
	t->remotes.key_size = sizeof(struct lat_tcp_remote_key);
	t->gd.key_size = sizeof(struct lat_tcp_remote_key);
	t->percpu = calloc(run->ncpus, sizeof(*t->percpu));
	t->scratch = malloc(2 * sizeof(*t->scratch));
	t->skel = tcp_bpf__open();
	if (!t->percpu || !t->scratch || !t->skel) {
		err = t->skel ? -ENOMEM : -errno;
		goto fail;
	}
	t->skel->rodata->lat_targ = run->target;
	if ((err = lat_skel_share(run, t->skel->obj)))
		goto fail;
	t->skel->rodata->per_remote = t->cfg.per_remote;
	lat_cpu_array_size(t->skel->maps.tcp_cpu, run->ncpus);
	lat_cpu_array_init(&t->cpus, t->skel->maps.tcp_cpu, run->ncpus);
	bpf_map__set_max_entries(t->skel->maps.tcp_remotes,
				 t->cfg.per_remote ?
				 lat_env_entries("LATBPF_TCP_REMOTES", LAT_TCP_MAX_REMOTES) : 1);
	/* PREEMPT_RT: no socket storage made in a tracepoint (bpf/tcp.bpf.c) */
	t->skel->rodata->marks_in_hash = lat_no_storage_in_tracepoints();
	bpf_map__set_max_entries(t->skel->maps.tcp_marks_rt,
				 t->skel->rodata->marks_in_hash ? marks_rt_entries() : 1);
	if (t->skel->rodata->marks_in_hash)
		snprintf(t->marks_rt, sizeof(t->marks_rt),
			 "; sockets marked in a hash of %u, not socket storage (PREEMPT_RT)",
			 bpf_map__max_entries(t->skel->maps.tcp_marks_rt));
	bpf_program__set_autoload(t->skel->progs.tcp_retrans, with_err);
	bpf_program__set_autoload(t->skel->progs.tcp_retrans_old, !with_err);
	optional(t, fc->btf);
	*priv = t;
	return 0;
fail:
	tcp_bpf__destroy(t->skel);
	free(t->percpu);
	free(t->scratch);
	free(t);
	return err;
}

static int tcp_load(void *priv)
{
	struct tcp *t = priv;
	int err = lat_skel_load("tcp", t->skel->skeleton, " (needs tp_btf and socket storage "
				"in tracing programs: kernel >= 5.11)");

	if (err)
		return err;
	/* the template new remotes start from: every min above any value */
	memset(&t->rvalue, 0, sizeof(t->rvalue));
	t->rvalue.rtt.min = t->rvalue.connect.min = ~0ULL;
	return lat_map_template(bpf_map__fd(t->skel->maps.tcp_remote_zero), &t->rvalue, "tcp");
}

static int tcp_attach(void *priv)
{
	return lat_skel_attach("tcp", ((struct tcp *)priv)->skel->skeleton);
}

static const char *tcp_mode(void *priv)
{
	struct tcp *t = priv;

	snprintf(t->mode_str, sizeof(t->mode_str), "attached (tp_btf%s%s)", t->mode,
		 t->marks_rt);
	return t->mode_str;
}

/* One entry of the hash: an old generation's is added to acc and deleted
 * after the walk (nothing writes it since the flip, an interval ago); the
 * current one's is this poll's live part. */
static int take_remote(const void *key, void *value, void *ctx)
{
	struct lat_tcp_remote *v = value;
	const struct lat_hist *h[R_NR] = { &v->rtt, &v->connect };
	struct lat_tcp_remote_key k = *(const struct lat_tcp_remote_key *)key;
	struct tcp *t = ctx;
	int i, err, live = lat_gen_seen(&t->gd, &k, k.gen);
	struct remote *r;
	bool fresh;

	if (live < 0)
		return live;
	lat_hist_count_slots(&v->rtt);
	lat_hist_count_slots(&v->connect);
	k.gen = 0;
	if (!(r = lat_table_get(&t->remotes, &k, &fresh)))
		return -ENOMEM;
	for (i = 0; i < R_NR; i++) {
		if (live) {
			free(r->live[i]);
			r->live[i] = NULL;
		}
		if ((err = lat_hist_packed_add(live ? &r->live[i] : &r->acc[i], h[i],
					       t->scratch)))
			return err;
	}
	if (live) {
		r->retr_live = v->retransmits;
		r->has_live = true;
	} else {
		r->retr_acc += v->retransmits;
	}
	return 0;
}

/* *out = a + b, packed anew; either may be NULL */
static int packed_sum(struct tcp *t, struct lat_hist_packed **out,
		      const struct lat_hist_packed *a, const struct lat_hist_packed *b)
{
	const struct lat_hist_packed *in[2] = { a, b };
	int i, err = 0;

	*out = NULL;
	for (i = 0; !err && i < 2; i++) {
		if (!in[i])
			continue;
		lat_hist_unpack(&t->scratch[1], in[i]);
		err = lat_hist_packed_add(out, &t->scratch[1], t->scratch);
	}
	return err;
}

static void remote_free(struct remote *r)
{
	for (int i = 0; i < R_NR; i++) {
		free(r->acc[i]);
		free(r->live[i]);
		free(r->now[i]);
		free(r->before[i]);
	}
}

/* this poll's now from acc and live; the last now becomes before */
static int roll(struct tcp *t, struct remote *r)
{
	int i, err = 0;

	for (i = 0; i < R_NR; i++) {
		free(r->before[i]);
		r->before[i] = r->now[i];
		r->now[i] = NULL;
		if (!err)
			err = packed_sum(t, &r->now[i], r->acc[i], r->has_live ? r->live[i] : NULL);
		free(r->live[i]);
		r->live[i] = NULL;
	}
	r->retr_before = r->retr_now;
	r->retr_now = r->retr_acc + (r->has_live ? r->retr_live : 0);
	return err;
}

static __u64 samples(const struct remote *r)
{
	return (r->now[R_RTT] ? r->now[R_RTT]->h.count : 0) +
	       (r->now[R_CONNECT] ? r->now[R_CONNECT]->h.count : 0);
}

static __u64 fold_weight(const void *r)
{
	return samples(r);
}

/* a live one's entry would be read again at the next poll */
static bool foldable(const void *r)
{
	return !((const struct remote *)r)->has_live;
}

/*
 * Beyond KEEP_REMOTES by name, the remotes with the fewest samples are
 * summed into "(others)": now into its now and acc, before into its before,
 * so its interval holds theirs. Only remotes without a live entry: a live
 * one's entry would be read again at the next poll.
 */
static int fold(struct tcp *t)
{
	size_t keep = lat_env_entries("LATBPF_TCP_KEEP", KEEP_REMOTES), i, k;
	const struct lat_tcp_remote_key zero = { 0 };
	const void **by;
	struct remote *o;
	long nfold;
	bool fresh;
	int j, err = 0;

	/* "(others)", first in key order, is not counted */
	bool has_o = t->remotes.n && !((struct remote *)lat_table_at(&t->remotes, 0))->k.family;

	if (t->remotes.n - has_o <= keep)
		return 0;
	if (!(o = lat_table_get(&t->remotes, &zero, &fresh)))
		return -ENOMEM;
	if (fresh && (err = roll(t, o)))
		return err;
	if (t->remotes.n - 1 <= keep)
		return 0;
	/* "(others)" is first: the others, in key order, after it */
	nfold = lat_fold_pick(lat_table_at(&t->remotes, 1), t->remotes.n - 1,
			      sizeof(struct remote), keep, foldable, fold_weight, &by);
	if (nfold < 0)
		return (int)nfold;
	o = lat_table_at(&t->remotes, 0);
	for (i = 0; !err && i < (size_t)nfold; i++) {
		struct remote *r = (struct remote *)by[i];
		struct lat_hist_packed *sum;

		for (j = 0; !err && j < R_NR; j++) {
			struct lat_hist_packed **dst[3] = { &o->acc[j], &o->now[j], &o->before[j] };
			const struct lat_hist_packed *src[3] = { r->now[j], r->now[j], r->before[j] };

			for (k = 0; !err && k < 3; k++) {
				if (!src[k])
					continue;
				if (!(err = packed_sum(t, &sum, *dst[k], src[k]))) {
					free(*dst[k]);
					*dst[k] = sum;
				}
			}
		}
		o->retr_acc += r->retr_now;
		o->retr_now += r->retr_now;
		o->retr_before += r->retr_before;
		remote_free(r);
		r->k.family = 0xffff;	/* removed below */
		t->folded++;
	}
	free(by);
	for (i = k = 0; i < t->remotes.n; i++) {
		struct remote *r = lat_table_at(&t->remotes, i);

		if (r->k.family == 0xffff)
			continue;
		if (k != i)
			memcpy(lat_table_at(&t->remotes, k), r, sizeof(*r));
		k++;
	}
	t->remotes.n = k;
	return err;
}

static int poll_remotes(struct tcp *t)
{
	int fd = bpf_map__fd(t->skel->maps.tcp_remotes), err;
	size_t i;

	for (i = 0; i < t->remotes.n; i++)
		((struct remote *)lat_table_at(&t->remotes, i))->has_live = false;
	err = lat_map_each(fd, sizeof(struct lat_tcp_remote_key), &t->rvalue, take_remote, t);
	t->skel->bss->tcp_gen = lat_gen_flip(&t->gd, fd);
	for (i = 0; !err && i < t->remotes.n; i++)
		err = roll(t, lat_table_at(&t->remotes, i));
	t->folded_before = t->folded;
	return err ? err : fold(t);
}

static int tcp_poll(void *priv)
{
	struct tcp *t = priv;
	int c, err;

	if ((err = lat_cpu_array_read(&t->cpus, t->percpu, sizeof(*t->percpu))))
		return err;
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
		bool changed = r->retr_now != r->retr_before;

		if (!r->now[R_RTT] || !r->now[R_CONNECT])
			continue;
		if (!r->k.family) {
			snprintf(name, sizeof(name), "(others)");
		} else {
			inet_ntop(r->k.family == 2 ? AF_INET : AF_INET6, r->k.addr, addr,
				  sizeof(addr));
			snprintf(name, sizeof(name), r->k.family == 2 ? "%s:%u" : "[%s]:%u",
				 addr, r->k.port);
		}
		snprintf(tag, sizeof(tag), "remote.%s", name);
		for (int j = 0; j < R_NR; j++)
			changed |= r->now[j]->h.count != (r->before[j] ? r->before[j]->h.count : 0);
		lat_pub_item(s, changed, true);
		lat_pub_label(s, "remote", name, tag);
		lat_pub_str(s, "remote", name);
		lat_pub_hist_packed(s, "rtt", NULL, r->now[R_RTT], r->before[R_RTT]);
		lat_pub_hist_packed(s, "connect", NULL, r->now[R_CONNECT], r->before[R_CONNECT]);
		lat_pub_count(s, "retransmits", r->retr_now - r->retr_before, r->retr_now);
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
		/* not a loss: their samples are in "(others)" */
		lat_pub_flags(lat_pub_count(s, "remotes_folded", t->folded - t->folded_before,
					    t->folded), LAT_F_NONZERO);
		publish_remotes(t, s);
	}
	lat_pub_end(s);
}

static void tcp_destroy(void *priv)
{
	struct tcp *t = priv;

	if (!t)
		return;
	lat_cpu_array_free(&t->cpus);
	tcp_bpf__destroy(t->skel);
	for (size_t i = 0; i < t->remotes.n; i++)
		remote_free(lat_table_at(&t->remotes, i));
	free(t->remotes.items);
	lat_gen_free(&t->gd);
	free(t->scratch);
	free(t->percpu);
	free(t);
}

const struct lat_module_ops lat_tcp_ops = {
	.name = "tcp",
	.options = tcp_options,
	.open = tcp_open,
	.load = tcp_load,
	.attach = tcp_attach,
	.mode = tcp_mode,
	.poll = tcp_poll,
	.publish = tcp_publish,
	.destroy = tcp_destroy,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * record family: the flight recorder's loader side (--record). Loads
 * bpf/record.bpf.c only when asked for (its ops are opt_in: not in the
 * default --probes), marks the CPUs that matter (the target's pinned ones,
 * --cpus; the BPF side adds every CPU a target runs on), and drains the
 * ring into the run's flight recorder (core/flight.c) from a thread of its
 * own every DRAIN_MS: the records are submitted without a wakeup (one per
 * record would cost more than the record), and the ring holds RING_PER_CPU
 * per CPU, about 4,000 switches, so it takes 200,000 a second per CPU
 * between two drains; what it has no room for is counted (record.lost).
 * A ring per CPU (an array of rings) cost no less here (tools/overhead.sh,
 * docs/performance.md) and would lose the order across CPUs that a wakeup
 * on one and the switch on another need. Publishes the recorder's
 * counts (record: what it kept and lost) and the incidents the triggers
 * saved, with their breakdown (incidents).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "core/btf.h"
#include "core/clock.h"
#include "core/flight.h"
#include "core/maps.h"
#include "core/run.h"
#include "core/snap.h"
#include "families/family.h"
#include "families/skel.h"
#include "latbpf/record.h"
#include "record.skel.h"

#define DRAIN_MS 20
/* a record whose program began this long ago is in the ring: a drain
 * declares everything before it in */
#define LAG_NS 10000000ULL
#define RING_PER_CPU (256U << 10)
#define RING_MIN (1U << 20)
#define RING_MAX (16U << 20)

struct record {
	const struct lat_run *run;
	struct lat_flight *fl;
	struct record_bpf *skel;
	struct ring_buffer *rb;
	bool btf;
	char why[200];		/* why the tp_btf programs did not load */
	pthread_t thr;
	bool thr_on;
	int stop_fd;
	__u32 ring_bytes;
	__s64 pc_from_rq;	/* see bpf/record.bpf.c, rec_ctx() */
	__u64 lost, lost_before;	/* records the full ring refused */
	__u64 missed, missed_before;	/* program runs the kernel skipped */
	__u64 events_before, evicted_before, bad_before;
};

/* A per-CPU variable's place in the per-CPU area (BTF's .data..percpu),
 * plus member's offset in it when member is given; -1 when absent */
static long long percpu_off(const struct btf *btf, const char *var, const char *member)
{
	__s32 id = btf ? btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC) : -1;
	const struct btf_type *sec = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	const struct btf_var_secinfo *v;

	if (!sec)
		return -1;
	v = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, v++) {
		const struct btf_type *t = btf__type_by_id(btf, v->type), *st;
		const struct btf_member *m;

		if (!t || strcmp(btf__name_by_offset(btf, t->name_off), var))
			continue;
		if (!member)
			return v->offset;
		st = btf__type_by_id(btf, t->type);
		if (!st || !btf_is_struct(st))
			return -1;
		m = btf_members(st);
		for (int k = 0; k < btf_vlen(st); k++, m++)
			if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
				return v->offset + btf_member_bit_offset(st, (__u32)k) / 8;
		return -1;
	}
	return -1;
}

/* x86's per-CPU preempt count less the run queue's: __preempt_count, or
 * pcpu_hot.preempt_count on 6.2 to 6.14; 0 when not found */
static __s64 pc_from_rq(const struct btf *btf)
{
	long long rq = percpu_off(btf, "runqueues", NULL);
	long long pc = percpu_off(btf, "__preempt_count", NULL);

	if (pc < 0)
		pc = percpu_off(btf, "pcpu_hot", "preempt_count");
	return rq < 0 || pc < 0 || pc == rq ? 0 : pc - rq;
}

static int record_open(const struct lat_family_ctx *fc, const void *cfg, void **priv)
{
	const struct lat_run *run = fc->run;
	struct record *r;

	if (!run->flight)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->run = run;
	r->fl = run->flight;
	r->stop_fd = -1;
	r->pc_from_rq = pc_from_rq(fc->btf);
	*priv = r;
	return 0;
}

static __u32 ring_size(int ncpus)
{
	__u64 want = (__u64)RING_PER_CPU * (__u64)(ncpus > 0 ? ncpus : 1);
	__u32 n = RING_MIN;

	while (n < want && n < RING_MAX)
		n <<= 1;
	return n;
}

static int load(struct record *r, bool btf)
{
	const struct lat_target *t = &r->run->target;
	struct record_bpf *skel = record_bpf__open();
	struct bpf_program *p;
	int err;

	if (!skel)
		return -errno;
	skel->rodata->lat_targ = *t;
	/* no filter: every task is a target, every CPU matters */
	skel->rodata->rec_all = !t->n_tgids && !t->n_tids && !t->mode;
	skel->rodata->pc_from_rq = r->pc_from_rq;
	if ((err = lat_skel_share(r->run, skel->obj)))
		goto fail;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, !strncmp(bpf_program__section_name(p), "raw_tp/", 7) ?
					  !btf : btf);
	r->ring_bytes = ring_size(r->run->ncpus);
	bpf_map__set_max_entries(skel->maps.rec_ring, r->ring_bytes);
	err = record_bpf__load(skel);
	if (err)
		goto fail;
	r->skel = skel;
	r->btf = btf;
	return 0;
fail:
	record_bpf__destroy(skel);
	return err;
}

static void mark(__u32 tid, int cpu, void *ctx)
{
	struct record *r = ctx;

	if (cpu >= 0 && cpu < LAT_REC_MAX_CPUS && !r->skel->bss->rec_cpu[cpu])
		__atomic_store_n(&r->skel->bss->rec_cpu[cpu], 1, __ATOMIC_RELAXED);
}

/* the CPUs that matter before the target runs there: --cpus, and where
 * its threads are pinned (again at every poll: it may pin them later) */
static void mark_cpus(struct record *r)
{
	for (int c = 0; c < LAT_REC_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &r->run->watch))
			mark(0, c, r);
	lat_run_each_pinned(r->run, mark, r);
}

static int on_rec(void *ctx, void *data, size_t size)
{
	struct record *r = ctx;

	lat_flight_add(r->fl, data, size);
	return 0;
}

/* one drain: everything in the ring, then the recorder's clock moves on */
static void drain_once(struct record *r, __u64 upto)
{
	lat_flight_lock(r->fl);
	ring_buffer__consume(r->rb);
	lat_flight_tick(r->fl, upto);
	lat_flight_unlock(r->fl);
}

static void *drain(void *arg)
{
	struct record *r = arg;
	struct pollfd p = { .fd = r->stop_fd, .events = POLLIN };

	for (;;) {
		drain_once(r, lat_boot_ns() - LAG_NS);
		if (poll(&p, 1, DRAIN_MS) != 0 && (p.revents || errno != EINTR))
			break;
	}
	return NULL;
}

static void stop(struct record *r)
{
	__u64 one = 1;

	if (!r->thr_on)
		return;
	if (write(r->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(r->thr, NULL);
	else
		pthread_cancel(r->thr), pthread_join(r->thr, NULL);
	r->thr_on = false;
}

static int record_attach(void *priv)
{
	struct record *r = priv;
	char why[200];
	int err;

	lat_libbpf_reset();
	err = getenv("LATBPF_FORCE_RAW_TP") ? -ENOTSUP : load(r, true);
	if (err && err != -EPERM) {
		if (getenv("LATBPF_FORCE_RAW_TP"))
			snprintf(r->why, sizeof(r->why), "LATBPF_FORCE_RAW_TP is set");
		else
			snprintf(r->why, sizeof(r->why), "%s: %s", strerror(-err),
				 lat_libbpf_why(why, sizeof(why)));
		lat_libbpf_reset();
		err = load(r, false);
	}
	if (err) {
		fprintf(stderr, "record: load failed: %s: %s\n", strerror(-err),
			lat_libbpf_why(why, sizeof(why)));
		return err;
	}
	mark_cpus(r);
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.rec_ring), on_rec, r, NULL);
	if (!r->rb)
		return -errno;
	err = record_bpf__attach(r->skel);
	if (err) {
		fprintf(stderr, "record: attach failed: %s\n", strerror(-err));
		return err;
	}
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0)
		return -errno;
	err = -pthread_create(&r->thr, NULL, drain, r);
	if (err) {
		fprintf(stderr, "record: no thread: %s\n", strerror(-err));
		return err;
	}
	r->thr_on = true;
	return 0;
}

static const char *record_mode(void *priv)
{
	struct record *r = priv;
	static char m[300];

	if (r->btf)
		return "attached (tp_btf)";
	snprintf(m, sizeof(m), "attached (raw_tp; tp_btf: %s)", r->why);
	return m;
}

static int record_poll(void *priv)
{
	struct record *r = priv;
	__u64 lost = 0;

	mark_cpus(r);
	for (int c = 0; c < r->run->ncpus && c < LAT_REC_MAX_CPUS; c++)
		lost += __atomic_load_n(&r->skel->bss->rec_lost[c], __ATOMIC_RELAXED);
	r->lost_before = r->lost;
	r->lost = lost;
	r->missed_before = r->missed;
	r->missed = lat_prog_misses(r->skel->obj);
	return 0;
}

/* ---- publishing ---- */

static void pub_parts(struct lat_snap *s, const struct lat_breakdown *bd)
{
	lat_pub_flags(lat_pub_list(s, "parts", "what had the CPU"), LAT_F_BRIEF);
	lat_pub_rank(s, "ns", LAT_BD_PARTS + 1, 3);
	for (int i = 0; i < bd->nparts; i++) {
		const struct lat_part *p = &bd->part[i];
		bool named = p->kind <= LAT_PART_SOFTIRQ;

		lat_pub_item(s, true, true);
		lat_pub_str(s, "part", p->kind < LAT_PART_NR ? lat_part_names[p->kind] : "others");
		lat_pub_str(s, "name", named || p->kind == LAT_PART_NR ? p->name : NULL);
		if (named)
			lat_pub_num(s, "id", p->id);
		else
			lat_pub_null(s, "id");
		lat_pub_dur(s, "ns", p->ns, p->ns);
		lat_pub_end(s);
	}
	lat_pub_end(s);
}

/* One incident: the breakdown first, as the table's columns go (a narrow
 * one keeps the BRIEF ones), then who woke it, then when and where saved. */
static void pub_incident(struct lat_snap *s, const struct lat_flight *fl,
			 const struct lat_incident *in, long long boot_minus_mono)
{
	static const char *const ctx[] = { "task", "hardirq", "softirq", "nmi" };
	static const char *const keys[LAT_PART_NR] = {
		"tasks_ns", "irq_ns", "softirq_ns", "wakeup_ns", "unexplained_ns",
	};
	const struct lat_rec_delay *d = &in->d;
	const char *path = fl->o.trace_path;
	bool w = in->has_delay && d->kind == LAT_REC_D_WAKEUP;
	int k = d->waker_flags & LAT_REC_F_NMI ? 3 : d->waker_flags & LAT_REC_F_SOFTIRQ ? 2 :
		d->waker_flags & LAT_REC_F_HARDIRQ ? 1 : 0;

	lat_pub_flags(lat_pub_num(s, "incident", in->n), LAT_F_BRIEF);
	lat_pub_str(s, "trigger", in->trig >= 0 ? fl->o.trig[in->trig].text : "exit");
	if (in->has_delay) {
		lat_pub_flags(lat_pub_num(s, "cpu", d->h.cpu), LAT_F_BRIEF);
		lat_pub_flags(lat_pub_strf(s, "comm", "%.16s", d->comm), LAT_F_BRIEF);
		lat_pub_str(s, "kind", lat_rec_delay_names[d->kind]);
	} else {
		lat_pub_null(s, "cpu");
		lat_pub_null(s, "comm");
		lat_pub_null(s, "kind");
	}
	lat_pub_flags(lat_pub_dur(s, "delay_ns", in->bd.delay_ns, in->bd.delay_ns), LAT_F_BRIEF);
	for (int i = 0; i < LAT_PART_NR; i++)
		lat_pub_flags(lat_pub_dur(s, keys[i], in->bd.ns[i], in->bd.ns[i]), LAT_F_BRIEF);
	pub_parts(s, &in->bd);
	if (in->has_delay)
		lat_pub_num(s, "tid", d->h.pid);
	else
		lat_pub_null(s, "tid");
	if (w) {
		lat_pub_strf(s, "waker", "%.16s", d->waker_comm);
		lat_pub_num(s, "waker_tid", d->waker);
		lat_pub_str(s, "waker_context", ctx[k]);
	} else {
		lat_pub_null(s, "waker");
		lat_pub_null(s, "waker_tid");
		lat_pub_null(s, "waker_context");
	}
	lat_pub_num(s, "ts_ns", (long long)in->at - boot_minus_mono);
	if (!path)
		lat_pub_null(s, "file");
	else if (in->trig < 0)
		lat_pub_str(s, "file", path);
	else
		lat_pub_strf(s, "file", "%s.%u", path, in->n);
	lat_pub_dur(s, "value_ns", in->value_ns, in->value_ns);
	lat_pub_dur(s, "window_ns", in->to - in->from, in->to - in->from);
	lat_pub_bool(s, "truncated", in->truncated);
}

static void pub_incidents(struct record *r, struct lat_snap *s, long long boot_minus_mono)
{
	struct lat_flight *fl = r->fl;

	lat_pub_list(s, "incidents", "incidents: what delayed the target (--record)");
	for (size_t i = 0; i < fl->ninc; i++) {
		struct lat_incident *in = &fl->inc[i];

		if (!in->closed)
			continue;
		if (!in->published)
			in->published = s->interval ? (__u32)s->interval : ~0U;
		lat_pub_item(s, in->published == s->interval, true);
		pub_incident(s, fl, in, boot_minus_mono);
		lat_pub_end(s);
	}
	lat_pub_end(s);
}

static void pub_record(struct record *r, struct lat_snap *s)
{
	const struct lat_flight *fl = r->fl;
	__u32 cpus[LAT_REC_MAX_CPUS];
	int n = 0;

	lat_pub_obj(s, "record", "flight recorder: the recorded CPUs' events (--record)");
	lat_pub_num(s, "window_ns", (long long)fl->o.window_ns);
	lat_pub_num(s, "cpu_budget_bytes", LAT_FLIGHT_CPU_BUDGET);
	lat_pub_num(s, "ring_bytes", r->ring_bytes);
	for (int c = 0; c < r->run->ncpus && c < LAT_REC_MAX_CPUS; c++)
		if (r->skel->rodata->rec_all || r->skel->bss->rec_cpu[c])
			cpus[n++] = (__u32)c;
	lat_pub_ids(s, "cpus", cpus, n);
	lat_pub_count(s, "events", fl->events - r->events_before, fl->events);
	lat_pub_num(s, "kept_bytes", (long long)fl->bytes);
	lat_pub_flags(lat_pub_count(s, "lost", r->lost - r->lost_before, r->lost), LAT_F_DROP);
	lat_pub_flags(lat_pub_count(s, "evicted", fl->evicted - r->evicted_before, fl->evicted),
		      LAT_F_DROP);
	lat_pub_flags(lat_pub_count(s, "bad", fl->dropped_bad - r->bad_before, fl->dropped_bad),
		      LAT_F_DROP | LAT_F_NONZERO);
	lat_pub_flags(lat_pub_count(s, "missed", r->missed - r->missed_before, r->missed),
		      LAT_F_DROP | LAT_F_NONZERO);
	lat_pub_list(s, "triggers", "triggers");
	for (int i = 0; i < fl->o.ntrig; i++) {
		lat_pub_item(s, true, true);
		lat_pub_str(s, "trigger", fl->o.trig[i].text);
		lat_pub_num(s, "fired", (long long)fl->ts[i].fired);
		lat_pub_num(s, "skipped", (long long)fl->ts[i].skipped);
		lat_pub_end(s);
	}
	lat_pub_end(s);
	lat_pub_end(s);
	r->events_before = fl->events;
	r->evicted_before = fl->evicted;
	r->bad_before = fl->dropped_bad;
}

static void record_publish(void *priv, struct lat_snap *s)
{
	struct record *r = priv;
	long long off = (long long)(lat_boot_ns() - lat_now_ns());

	/* the run ends: the last records, then every incident closed */
	if (s->final && r->thr_on) {
		stop(r);
		drain_once(r, lat_boot_ns());
		lat_flight_lock(r->fl);
		lat_flight_finish(r->fl);
		lat_flight_unlock(r->fl);
	}
	lat_flight_lock(r->fl);
	lat_flight_snap(r->fl, s, lat_boot_ns());
	pub_record(r, s);
	pub_incidents(r, s, off);
	lat_flight_unlock(r->fl);
}

static void record_destroy(void *priv)
{
	struct record *r = priv;

	stop(r);
	ring_buffer__free(r->rb);
	record_bpf__destroy(r->skel);
	if (r->stop_fd >= 0)
		close(r->stop_fd);
	free(r);
}

const struct lat_module_ops lat_record_ops = {
	.name = "record",
	.opt_in = true,
	.open = record_open,
	.attach = record_attach,
	.mode = record_mode,
	.poll = record_poll,
	.publish = record_publish,
	.destroy = record_destroy,
};

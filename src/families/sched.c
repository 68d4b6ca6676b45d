// SPDX-License-Identifier: GPL-2.0
/* sched family: loader side of bpf/sched.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/btf.h"
#include "core/cpumap.h"
#include "core/hist.h"
#include "core/kallsyms.h"
#include "core/maps.h"
#include "core/run.h"
#include "core/snap.h"
#include "core/yield.h"
#include "families/family.h"
#include "families/schedcore.h"
#include "families/schedtime.h"
#include "latbpf/sched.h"
#include "sched.skel.h"

/* sched's own options */
struct sched_cfg {
	bool per_thread, per_cpu;
};
_Static_assert(sizeof(struct sched_cfg) <= LAT_FAMILY_CFG, "fits LAT_FAMILY_CFG");

static int set_per_thread(void *cfg, const char *arg)
{
	((struct sched_cfg *)cfg)->per_thread = true;
	return 0;
}

static int set_per_cpu(void *cfg, const char *arg)
{
	((struct sched_cfg *)cfg)->per_cpu = true;
	return 0;
}

static const struct lat_family_opt sched_options[] = {
	{ "per-thread", NULL, "break sched histograms and time's causes down\nper thread", set_per_thread },
	{ "per-cpu", NULL, "break sched histograms down per CPU", set_per_cpu },
	{ NULL },
};

/* A thread as the loader keeps it between polls: its histograms packed
 * (lat_hist_pack) into its set's blob, a few hundred bytes where the
 * kernel's value is 16 KB: thousands of threads stay a few MiB. */
struct thread_rec {
	__u32 tid, tgid;
	__u32 born;			/* which task of this tid (BPF's) */
	char comm[16];
	__u64 voluntary, involuntary;
	__u64 exited;			/* 0, or the poll that saw it exited */
	size_t off[LAT_SCHED_NR_HIST];	/* into blob */
};

/* Exited threads the loader keeps by name after their map entry is gone;
 * older ones are summed into "threads_exited", so a day of thread churn
 * takes what a minute does. */
#define MAX_EXITED 4096

struct thread_set {
	struct thread_rec *t;
	size_t n, cap;
	char *blob;
	size_t used, size;
};

struct sched {
	struct sched_bpf *skel;
	struct lat_cpu_array cpus;	/* sched_cpu, mapped */
	const struct lat_run *run;
	struct lat_schedcore *sc;	/* the shared scheduler object */
	struct sched_cfg cfg;
	bool btf;			/* tp_btf + task storage, else raw_tp */
	bool has_timer;			/* timer lateness can be measured */
	const char *no_timer;		/* else why not */
	__u64 timer_fn[LAT_TIMER_FNS];	/* bpf/timer.bpf.h's tl_fn */
	/* per CPU, cumulative: one lookup reads every CPU's value into
	 * cpu_now, after the last poll's moved to cpu_before */
	struct lat_sched_cpu *cpu_now, *cpu_before;
	struct lat_sched_cpu now, before, iv;	/* merged */
	struct thread_set th_now, th_before;
	struct lat_sched_thread scratch;
	__u64 polls;
	/* exited threads summed, beyond the MAX_EXITED kept by name */
	struct lat_hist *ex_now, *ex_before;	/* LAT_SCHED_NR_HIST each */
	__u64 ex_threads, ex_vol, ex_invol, ex_threads_b, ex_vol_b, ex_invol_b;
	struct lat_sc_losses loss_now, loss_before;
	__u64 tl_lost, tl_lost_before;	/* .bss tl_lost: armed timers not followed */
	const struct lat_sc_slots *time;	/* the time family's, when it runs */
	char mode[384];
};

static void sched_configure(struct sched_bpf *skel, void *priv, bool btf)
{
	struct sched *s = priv;

	skel->rodata->en_sched = true;
	skel->rodata->per_thread = s->cfg.per_thread;
	lat_cpu_array_size(skel->maps.sched_cpu, s->run->ncpus);
	/* --per-thread: the table preallocated (16 MiB). Allocated as used,
	 * a thread's entry came from the kernel's per-CPU cache of 16 KB
	 * objects, which holds one to three and is refilled later
	 * (kernel/bpf/memalloc.c): threads that start together found it
	 * empty, and its first sleep reached the family's totals and
	 * threads_dropped but not its own histogram (json.t in the 6.1
	 * guest: 1599 of 1600). */
	if (s->cfg.per_thread) {
		bpf_map__set_max_entries(skel->maps.sched_threads, LAT_SCHED_MAX_THREADS);
		bpf_map__set_map_flags(skel->maps.sched_threads,
				       bpf_map__map_flags(skel->maps.sched_threads) &
					       ~(__u32)BPF_F_NO_PREALLOC);
	}
	/* timer lateness (bpf/timer.bpf.h): the targets' armed timers */
	if (!s->has_timer)
		return;
	skel->rodata->en_timer = true;
	memcpy((void *)skel->rodata->tl_fn, s->timer_fn, sizeof(s->timer_fn));
	bpf_map__set_max_entries(skel->maps.tl_armed, LAT_SCHED_MAX_TIMERS);
	bpf_program__set_autoload(skel->progs.timer_start, btf);
	bpf_program__set_autoload(skel->progs.timer_expire, btf);
	bpf_program__set_autoload(skel->progs.timer_cancel, btf);
	bpf_program__set_autoload(skel->progs.timer_start_raw, !btf);
	bpf_program__set_autoload(skel->progs.timer_expire_raw, !btf);
	bpf_program__set_autoload(skel->progs.timer_cancel_raw, !btf);
}

/* The functions of a timed wait's hrtimer (bpf/timer.bpf.h): the sleeper
 * of nanosleep, futex, poll, select and epoll waits, a timerfd, a POSIX
 * timer, an itimer (alarm). Without the sleeper's, no timer lateness. */
static void timer_fns(struct sched *s, const struct btf *btf)
{
	static const char *const fn[LAT_TIMER_FNS] = {
		"hrtimer_wakeup", "timerfd_tmrproc", "posix_timer_fn", "it_real_fn"
	};

	if (!lat_btf_has_tracepoint(btf, "hrtimer_start") ||
	    !lat_btf_has_tracepoint(btf, "hrtimer_expire_entry"))
		s->no_timer = "no timer:hrtimer_* tracepoints";
	else if (lat_kallsyms_find(fn, s->timer_fn, LAT_TIMER_FNS) < 0 || !s->timer_fn[0])
		s->no_timer = "no hrtimer_wakeup in /proc/kallsyms";
	s->has_timer = !s->no_timer;
}

static int sched_open(const struct lat_family_ctx *fc, const void *cfg, void **priv)
{
	const struct lat_run *run = fc->run;
	struct sched *s = calloc(1, sizeof(*s));
	int err = -ENOMEM;

	if (!s)
		return -ENOMEM;
	s->run = run;
	s->sc = fc->sched;
	s->cfg = *(const struct sched_cfg *)cfg;
	timer_fns(s, fc->btf);
	s->cpu_now = calloc(run->ncpus, sizeof(*s->cpu_now));
	s->cpu_before = calloc(run->ncpus, sizeof(*s->cpu_before));
	if (!s->cpu_now || !s->cpu_before ||
	    (err = lat_schedcore_join(fc->sched, sched_configure, s))) {
		free(s->cpu_now);
		free(s->cpu_before);
		free(s);
		return err;
	}
	*priv = s;
	return 0;
}

static int sched_load(void *priv)
{
	struct sched *s = priv;
	int err = lat_schedcore_load(s->sc);

	s->skel = s->sc->skel;
	s->btf = s->sc->btf;
	if (s->skel)
		lat_cpu_array_init(&s->cpus, s->skel->maps.sched_cpu, s->run->ncpus);
	return err;
}

static int sched_attach(void *priv)
{
	return lat_schedcore_attach(((struct sched *)priv)->sc);
}

static const char *sched_mode(void *priv)
{
	struct sched *s = priv;

	char timer[96] = "";

	if (!s->has_timer)
		snprintf(timer, sizeof(timer), "; no timer_late: %s", s->no_timer);
	if (s->btf)
		snprintf(s->mode, sizeof(s->mode), "attached (tp_btf%s)", timer);
	else
		snprintf(s->mode, sizeof(s->mode), "attached (raw_tp%s; tp_btf: %s)", timer,
			 s->sc->why);
	return s->mode;
}

static void cpu_merge(struct lat_sched_cpu *dst, const struct lat_sched_cpu *src)
{
	dst->voluntary += src->voluntary;
	dst->involuntary += src->involuntary;
	dst->threads_dropped += src->threads_dropped;
	dst->unseen += src->unseen;
	for (int i = 0; i < LAT_SCHED_NR_HIST; i++)
		lat_hist_merge(&dst->h[i], &src->h[i]);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct thread_rec *x = a, *y = b;

	/* a tid reused: another thread, kept apart */
	return x->tid != y->tid ? (x->tid > y->tid) - (x->tid < y->tid) :
				  (x->born > y->born) - (x->born < y->born);
}

static void set_free(struct thread_set *ts)
{
	free(ts->t);
	free(ts->blob);
	memset(ts, 0, sizeof(*ts));
}

static const struct lat_hist_packed *set_hist(const struct thread_set *ts,
					      const struct thread_rec *t, int k)
{
	return (const struct lat_hist_packed *)(ts->blob + t->off[k]);
}

/* room for one more record and need bytes of histograms */
static int set_grow(struct thread_set *ts, size_t need)
{
	struct thread_rec *t;

	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? 2 * ts->cap : 64;

		if (!(t = realloc(ts->t, cap * sizeof(*t))))
			return -ENOMEM;
		ts->t = t;
		ts->cap = cap;
	}
	if (ts->used + need > ts->size) {
		size_t size = 2 * ts->size > ts->used + need ? 2 * ts->size : ts->used + need + 65536;
		char *b = realloc(ts->blob, size);

		if (!b)
			return -ENOMEM;
		ts->blob = b;
		ts->size = size;
	}
	return 0;
}

struct poll_ctx {
	struct thread_set *ts;
	__u64 poll;
};

/* record i of ts from the map's value v, its histograms packed anew */
static int fill_thread(struct thread_set *ts, size_t i, const struct lat_sched_thread *v,
		       __u64 poll)
{
	struct thread_rec *t;
	size_t need = 0, sz[LAT_SCHED_NR_HIST];
	int k;

	for (k = 0; k < LAT_SCHED_NR_HIST; k++)
		need += sz[k] = lat_hist_packed_size(&v->h[k]);
	if (set_grow(ts, need))
		return -ENOMEM;
	t = &ts->t[i];
	t->exited = v->exited ? poll : 0;
	t->tid = v->tid;
	t->tgid = v->tgid;
	t->born = v->born;
	memcpy(t->comm, v->comm, sizeof(t->comm));
	t->voluntary = v->voluntary;
	t->involuntary = v->involuntary;
	for (k = 0; k < LAT_SCHED_NR_HIST; k++) {
		t->off[k] = ts->used;
		lat_hist_pack((struct lat_hist_packed *)(ts->blob + ts->used), &v->h[k]);
		ts->used += sz[k];
	}
	return 0;
}

/* one map entry into the set being built: its record and packed histograms */
static int add_thread(const void *key, void *value, void *ctx)
{
	struct poll_ctx *pc = ctx;
	int err = fill_thread(pc->ts, pc->ts->n, value, pc->poll);

	if (!err)
		pc->ts->n++;
	return err;
}

/* a record of another set, with its histograms, into ts */
static int copy_thread(struct thread_set *ts, const struct thread_set *from,
		       const struct thread_rec *r)
{
	size_t need = 0;
	struct thread_rec *t;
	int k;

	for (k = 0; k < LAT_SCHED_NR_HIST; k++)
		need += lat_hist_packed_bytes(set_hist(from, r, k));
	if (set_grow(ts, need))
		return -ENOMEM;
	t = &ts->t[ts->n++];
	*t = *r;
	for (k = 0; k < LAT_SCHED_NR_HIST; k++) {
		size_t n = lat_hist_packed_bytes(set_hist(from, r, k));

		t->off[k] = ts->used;
		memcpy(ts->blob + ts->used, set_hist(from, r, k), n);
		ts->used += n;
	}
	return 0;
}

static int cmp_exited(const void *a, const void *b)
{
	const struct thread_rec *x = *(const struct thread_rec *const *)a;
	const struct thread_rec *y = *(const struct thread_rec *const *)b;

	return x->exited != y->exited ? (x->exited > y->exited) - (x->exited < y->exited) :
					cmp_tid(x, y);
}

/* Exited threads beyond those kept by name go into one sum. Their samples
 * were in earlier intervals under their own tid, so they go into the sum's
 * "before" too: the sum's interval shows only what is new. */
static int fold_exited(struct sched *s, const struct thread_set *from,
		       const struct thread_rec *const *r, size_t n)
{
	struct lat_hist *h = malloc(sizeof(*h));
	size_t i;
	int k;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (k = 0; k < LAT_SCHED_NR_HIST; k++) {
			lat_hist_unpack(h, set_hist(from, r[i], k));
			lat_hist_merge(&s->ex_now[k], h);
			lat_hist_merge(&s->ex_before[k], h);
		}
		s->ex_threads++;
		s->ex_vol += r[i]->voluntary;
		s->ex_invol += r[i]->involuntary;
	}
	s->ex_vol_b = s->ex_vol;
	s->ex_invol_b = s->ex_invol;
	free(h);
	return 0;
}

/*
 * The map's threads, then the exited ones kept from before (their entries
 * are gone): the newest MAX_EXITED by name, the older summed (fold_exited).
 * An exited thread's entry is read once more and deleted: nothing writes
 * it after its last switch, so the map holds live threads only.
 */
static int poll_threads(struct sched *s)
{
	int fd = bpf_map__fd(s->skel->maps.sched_threads), err;
	/* built in the buffers of the set before last, which this poll
	 * drops: a set of 64 KiB and more is mmap'd (trace.c's mallopt), and
	 * a fresh one each poll cost an mmap, its page faults and a munmap
	 * (up to 112 us, in the kernel, where a woken target waits). A poll
	 * that fails (out of memory, a map read refused) ends the run
	 * without the set before last: its final record is whole-run. */
	struct thread_set ts = s->th_before, *bs = &s->th_now;
	struct poll_ctx pc = { .ts = &ts, .poll = ++s->polls };
	const struct thread_rec **old = NULL;
	size_t i, n_map, n_old = 0, n_new = 0, fold = 0;
	/* the test knob LATBPF_THREADS_EXITED lowers it (README, "Environment") */
	size_t keep = lat_env_entries("LATBPF_THREADS_EXITED", MAX_EXITED);

	ts.n = ts.used = 0;
	memset(&s->th_before, 0, sizeof(s->th_before));
	if (s->ex_now) {
		memcpy(s->ex_before, s->ex_now, LAT_SCHED_NR_HIST * sizeof(*s->ex_now));
		s->ex_threads_b = s->ex_threads;
		s->ex_vol_b = s->ex_vol;
		s->ex_invol_b = s->ex_invol;
	}
	err = lat_map_each(fd, sizeof(__u32), &s->scratch, add_thread, &pc);
	n_map = ts.n;
	/* read again before it goes: one read of a value is not one moment
	 * either, and the counts of its last switch land before exited */
	for (i = 0; !err && i < n_map; i++) {
		__u32 tid = ts.t[i].tid;

		if (!ts.t[i].exited)
			continue;
		if (!bpf_map_lookup_elem(fd, &tid, &s->scratch) && s->scratch.exited)
			err = fill_thread(&ts, i, &s->scratch, pc.poll);
		bpf_map_delete_elem(fd, &tid);
		n_new++;
	}
	qsort(ts.t, n_map, sizeof(*ts.t), cmp_tid);
	if (!err && bs->n && !(old = malloc(bs->n * sizeof(*old))))
		err = -ENOMEM;
	for (i = 0; !err && i < bs->n; i++)
		if (bs->t[i].exited && !bsearch(&bs->t[i], ts.t, n_map, sizeof(*ts.t), cmp_tid))
			old[n_old++] = &bs->t[i];
	if (!err && n_old + n_new > keep) {
		fold = n_old + n_new - keep;
		fold = fold < n_old ? fold : n_old;
		/* oldest exit first */
		qsort(old, n_old, sizeof(*old), cmp_exited);
		if (!s->ex_now) {
			s->ex_now = calloc(2 * LAT_SCHED_NR_HIST, sizeof(*s->ex_now));
			s->ex_before = s->ex_now ? s->ex_now + LAT_SCHED_NR_HIST : NULL;
		}
		err = s->ex_now ? fold_exited(s, bs, old, fold) : -ENOMEM;
	}
	for (i = fold; !err && i < n_old; i++)
		err = copy_thread(&ts, bs, old[i]);
	free(old);
	if (err) {
		set_free(&ts);
		return err;
	}
	qsort(ts.t, ts.n, sizeof(*ts.t), cmp_tid);
	/* the buffers kept from a poll with many more threads than now give
	 * most of it back (a realloc down, once) */
	if (ts.size > 4 * ts.used + 262144) {
		char *b = realloc(ts.blob, ts.used + 65536);

		if (b) {
			ts.blob = b;
			ts.size = ts.used + 65536;
		}
	}
	s->th_before = s->th_now;
	s->th_now = ts;
	return 0;
}

/* With the time family on, the histograms are its causes' sums (each
 * episode is recorded once, bpf/time.bpf.h): per CPU the runnable ones,
 * which --per-cpu shows; the totals after the CPUs are merged. */
static int from_time(struct sched *s)
{
	int err = lat_sc_slots_read(s->sc, LAT_SC_READER_SCHED, &s->time);

	if (err)
		return err;
	for (int i = 0; i < s->run->ncpus; i++) {
		/* the switch counts too, kept there unless sched keeps its
		 * own state (bpf/sched.bpf.c's SCHED_OWN; zeros then) */
		s->cpu_now[i].voluntary += s->time->fixed[i].voluntary;
		s->cpu_now[i].involuntary += s->time->fixed[i].involuntary;
		s->cpu_now[i].unseen += s->time->fixed[i].unseen;
		s->cpu_now[i].h[LAT_SCHED_RUNQ] = s->time->cpu_runnable[i];
		memset(&s->cpu_now[i].h[LAT_SCHED_SLEEP], 0, sizeof(struct lat_hist));
		memset(&s->cpu_now[i].h[LAT_SCHED_BLOCKED], 0, sizeof(struct lat_hist));
	}
	return 0;
}

static int sched_poll(void *priv)
{
	struct sched *s = priv;
	struct lat_sched_cpu *c = s->cpu_before;
	int i, err;

	lat_schedcore_sweep(s->sc);
	s->cpu_before = s->cpu_now;
	s->cpu_now = c;
	/* every CPU's histograms (tens of KiB a CPU) from the mapping, then a
	 * yield point before the merge and before each CPU's (core/yield.h) */
	if ((err = lat_cpu_array_read(&s->cpus, s->cpu_now, sizeof(*s->cpu_now))))
		return err;
	lat_yield_point();
	s->before = s->now;
	memset(&s->now, 0, sizeof(s->now));
	if (lat_sc_time_on(s->sc) && (err = from_time(s)))
		return err;
	for (i = 0; i < s->run->ncpus; i++) {
		lat_yield_point();
		cpu_merge(&s->now, &s->cpu_now[i]);
	}
	if (lat_sc_time_on(s->sc))
		lat_sc_slots_states(s->time, &s->now.h[LAT_SCHED_RUNQ],
				    &s->now.h[LAT_SCHED_SLEEP], &s->now.h[LAT_SCHED_BLOCKED]);
	s->iv.voluntary = s->now.voluntary - s->before.voluntary;
	s->iv.involuntary = s->now.involuntary - s->before.involuntary;
	s->iv.unseen = s->now.unseen - s->before.unseen;
	s->loss_before = s->loss_now;
	lat_yield_point();
	lat_schedcore_losses(s->sc, &s->loss_now);
	s->tl_lost_before = s->tl_lost;
	s->tl_lost = __atomic_load_n(&s->skel->bss->tl_lost, __ATOMIC_RELAXED);
	return s->cfg.per_thread ? poll_threads(s) : 0;
}

static const char *const hist_key[LAT_SCHED_NR_HIST] = {
	"runq", "offcpu_sleep", "offcpu_blocked", "timer_late"
};
static const char *const hist_title[LAT_SCHED_NR_HIST] = {
	"run-queue latency (runnable -> on CPU)",
	"off-CPU, interruptible sleep (S), switched out -> woken",
	"off-CPU, blocked (D and other), switched out -> woken",
	"timer lateness (a timed wait's expiry -> its timer fired)",
};
/* published in this order: the timer's lateness beside the run-queue
 * wait that follows it */
static const int hist_order[LAT_SCHED_NR_HIST] = {
	LAT_SCHED_RUNQ, LAT_SCHED_TIMER, LAT_SCHED_SLEEP, LAT_SCHED_BLOCKED
};

/* histogram k, or null where the kernel has no timer tracepoints: an
 * empty histogram would say no timer fired late */
static void pub_hist(struct sched *s, struct lat_snap *snap, int k, const struct lat_hist *now,
		     const struct lat_hist *before)
{
	if (k == LAT_SCHED_TIMER && !s->has_timer)
		lat_pub_null(snap, hist_key[k]);
	else
		lat_pub_hist(snap, hist_key[k], hist_title[k], now, before);
}

static void publish_threads(struct sched *s, struct lat_snap *snap)
{
	const struct thread_set *now = &s->th_now, *bs = &s->th_before;
	const struct thread_rec *t, *b;
	char tid[16], tag[24];
	size_t i;
	int k;

	lat_pub_flags(lat_pub_list(snap, "threads", "per thread"), LAT_F_BREAKDOWN);
	for (i = 0; i < now->n; i++) {
		bool changed = false;

		t = &now->t[i];
		b = bsearch(t, bs->t, bs->n, sizeof(*t), cmp_tid);
		for (k = 0; k < LAT_SCHED_NR_HIST; k++)
			changed |= set_hist(now, t, k)->h.count !=
				   (b ? set_hist(bs, b, k)->h.count : 0);
		lat_pub_item(snap, changed, true);
		snprintf(tid, sizeof(tid), "%u", t->tid);
		snprintf(tag, sizeof(tag), "thread.%u", t->tid);
		lat_pub_label(snap, "tid", tid, tag);
		lat_pub_num(snap, "tid", t->tid);
		lat_pub_num(snap, "pid", t->tgid);
		lat_pub_str(snap, "comm", t->comm);
		for (int o = 0; o < LAT_SCHED_NR_HIST; o++) {
			k = hist_order[o];
			if (k == LAT_SCHED_TIMER && !s->has_timer)
				lat_pub_null(snap, hist_key[k]);
			else
				lat_pub_hist_packed(snap, hist_key[k], hist_title[k],
						    set_hist(now, t, k),
						    b ? set_hist(bs, b, k) : NULL);
		}
		lat_pub_count(snap, "voluntary", t->voluntary - (b ? b->voluntary : 0),
			      t->voluntary);
		lat_pub_count(snap, "involuntary", t->involuntary - (b ? b->involuntary : 0),
			      t->involuntary);
		lat_pub_end(snap);
	}
	lat_pub_end(snap);
}

static void publish_cpus(struct sched *s, struct lat_snap *snap)
{
	char cpu[16], tag[24];

	lat_pub_flags(lat_pub_list(snap, "cpus", "per CPU (where the thread got on CPU)"),
		      LAT_F_BREAKDOWN);
	for (int c = 0; c < s->run->ncpus; c++) {
		const struct lat_hist *now = &s->cpu_now[c].h[LAT_SCHED_RUNQ];
		const struct lat_hist *before = &s->cpu_before[c].h[LAT_SCHED_RUNQ];

		if (!now->count)
			continue;
		lat_pub_item(snap, now->count != before->count, true);
		snprintf(cpu, sizeof(cpu), "%d", c);
		snprintf(tag, sizeof(tag), "cpu%d", c);
		lat_pub_label(snap, "cpu", cpu, tag);
		lat_pub_num(snap, "cpu", c);
		lat_pub_hist(snap, "runq", hist_title[0], now, before);
		lat_pub_end(snap);
	}
	lat_pub_end(snap);
}

static void sched_publish(void *priv, struct lat_snap *snap)
{
	struct sched *s = priv;
	int k;

	lat_pub_obj(snap, "sched", "sched: where the target waited for a CPU, and slept");
	for (int o = 0; o < LAT_SCHED_NR_HIST; o++) {
		k = hist_order[o];
		pub_hist(s, snap, k, &s->now.h[k], &s->before.h[k]);
	}
	lat_pub_obj(snap, "switches", "context switches");
	lat_pub_count(snap, "voluntary", s->iv.voluntary, s->now.voluntary);
	lat_pub_count(snap, "involuntary", s->iv.involuntary, s->now.involuntary);
	lat_pub_count(snap, "unseen_wakeups", s->iv.unseen, s->now.unseen);
	lat_pub_end(snap);
	if (s->cfg.per_thread) {
		publish_threads(s, snap);
		if (s->ex_threads) {
			lat_pub_obj(snap, "threads_exited",
				    "exited threads beyond the newest 4096, summed");
			lat_pub_count(snap, "threads", s->ex_threads - s->ex_threads_b,
				      s->ex_threads);
			for (int o = 0; o < LAT_SCHED_NR_HIST; o++) {
				k = hist_order[o];
				pub_hist(s, snap, k, &s->ex_now[k], &s->ex_before[k]);
			}
			lat_pub_count(snap, "voluntary", s->ex_vol - s->ex_vol_b, s->ex_vol);
			lat_pub_count(snap, "involuntary", s->ex_invol - s->ex_invol_b,
				      s->ex_invol);
			lat_pub_end(snap);
		}
		lat_pub_flags(lat_pub_count(snap, "threads_dropped",
					    s->now.threads_dropped - s->before.threads_dropped,
					    s->now.threads_dropped),
			      LAT_F_NONZERO | LAT_F_DROP);
	}
	if (s->cfg.per_cpu)
		publish_cpus(s, snap);
	/* armed timers of the targets the table had no room for: their
	 * lateness is not measured */
	if (s->has_timer)
		lat_pub_flags(lat_pub_count(snap, "timers_lost", s->tl_lost - s->tl_lost_before,
					    s->tl_lost), LAT_F_NONZERO | LAT_F_DROP);
	lat_schedcore_publish_losses(s->sc, snap, &s->loss_now, &s->loss_before);
	lat_pub_end(snap);
}

static void sched_destroy(void *priv)
{
	struct sched *s = priv;

	if (!s)
		return;
	lat_cpu_array_free(&s->cpus);
	lat_schedcore_leave(s->sc);
	free(s->cpu_now);
	free(s->cpu_before);
	set_free(&s->th_now);
	set_free(&s->th_before);
	free(s->ex_now);
	free(s);
}

const struct lat_module_ops lat_sched_ops = {
	.name = "sched",
	.options = sched_options,
	.open = sched_open,
	.load = sched_load,
	.attach = sched_attach,
	.mode = sched_mode,
	.poll = sched_poll,
	.publish = sched_publish,
	.destroy = sched_destroy,
};

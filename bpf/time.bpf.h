/* SPDX-License-Identifier: GPL-2.0 */
/*
 * time family: where every nanosecond of every target thread went. At each
 * scheduler event of a target the state it leaves is closed as an episode
 * of one cause (include/latbpf/time.h) and the next one opened:
 *
 *   switch-out   running closed; runnable (preempted, or throttled: its
 *                cgroup's quota ran out), or sleeping (S) / blocked (D and
 *                the rest) in the system call its user-entry registers
 *                name, with the reason the kernel gives (in_iowait,
 *                in_memstall, in_user_fault)
 *   wakeup       the sleep closed, with its waker; runnable (woken)
 *   switch-in    runnable (or a sleep whose wakeup was not traced) closed;
 *                running
 *
 * Nothing else is needed: no syscall tracepoint, no kprobe. An episode's
 * length goes into its cause's histogram when it ends, and its time into
 * the cause's total; an episode still open at a poll has the part up to
 * then credited by the loader's iterator (time_iter below), which moves
 * the record's mark, so each nanosecond is credited once and the totals of
 * an interval add up to the threads' wall time in it.
 *
 * The scheduler tracepoints are bpf/sched.bpf.c's (one program each for
 * every family): it calls time_on_switch() and time_on_wakeup() when
 * en_time is set, with the per-task record it already has and that
 * record's timestamp as it was before the sched family moved it. When
 * time runs, its per-cause histograms are the sched family's too (the
 * loader sums runq, offcpu_sleep and offcpu_blocked from them), so an
 * episode is recorded once.
 */
#ifndef LATBPF_TIME_BPF_H
#define LATBPF_TIME_BPF_H

#include "latbpf/time.h"

const volatile bool en_time = false;
const volatile bool time_per_thread = false;
const volatile __u32 time_nslots = LAT_TIME_FIRST_DYN;	/* time_hist's entries */

/* The loader's t0 (CLOCK_MONOTONIC ns): the run's window opens there and
 * nothing before it is credited; 0: not open yet. */
volatile __u64 time_t0 = 0;
/* sleeping and blocked keys that took a slot: the next one's index */
__u32 time_nslot_used = 0;
/* the iterator: create the records of targets that have none (the first
 * run, at t0: threads asleep since before it start their account there) */
volatile __u32 time_iter_init = 0;
__u64 time_iter_live = 0;	/* the last run's target threads */
/* the poll's moment (the loader's, CLOCK_MONOTONIC): the iterator credits
 * open episodes up to it, so an interval's accounts end where its record
 * does; 0: up to the iterator's own now */
volatile __u64 time_iter_upto = 0;
/* the iterator may run: handlers take and publish a record's account word
 * with atomic exchanges (time_take, time_open). The loader sets it, waits
 * out every handler that may have read it clear (membarrier's RCU grace
 * period), runs the iterator, and clears it; without that wait (nohz_full
 * refuses membarrier) it stays set. Between iterations the words are
 * written with plain stores: an exchange is ~5-10 ns a transition, and a
 * switch has two. */
volatile __u32 time_iter_busy = 0;

/* A target task's account, in its sched record (bpf/sched.bpf.c) beside
 * the timestamp ts of its current state. */
struct time_task {
	__u32 mark;	/* credited up to ts + (mark << TIME_MARK_SHIFT) */
	__u16 key;	/* the cause of the state it is in since ts */
	__u16 flags;	/* TIME_F_*, above them a generation */
};
_Static_assert(sizeof(struct time_task) == 8, "fits the record's spare word");

/* 65.5 us steps: a mark reaches 78 hours past ts; an episode longer than
 * that has its later part credited when it ends */
#define TIME_MARK_SHIFT 16
#define TIME_F_PARTIAL 1	/* began before the run: no length, no sample */
#define TIME_F_KNOWN 2		/* key holds the state */
#define TIME_GEN 4		/* every transition adds this: the iterator's
				 * compare-and-swap of the mark fails on a
				 * record that moved under it */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_time_cpu);
} time_cpu SEC(".maps");

LAT_CPU_ARRAY(time_fixed, struct lat_time_fixed);

/* the sleeping and blocked keys' slots: the loader sets max_entries to
 * time_nslots - LAT_TIME_FIRST_DYN */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LAT_TIME_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct lat_time_slot);
} time_hist SEC(".maps");

/* a sleeping or blocked key's slot (LAT_TIME_OFF_INDEX), 0 until taken */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LAT_TIME_OFF_KEYS);
	__type(key, __u32);
	__type(value, __u32);
} time_key_slot SEC(".maps");

/* and back: each slot's key, for the loader */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LAT_TIME_MAX_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} time_slot_key SEC(".maps");

/* keys beyond the slots: shared, atomic, slower */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct lat_time_over);
} time_over SEC(".maps");

/* the template new time_over entries are copied from (min ~0: the loader's) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_time_over);
} time_over_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, struct lat_time_wk_cache);
} time_wk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, struct lat_time_waker_key);
	__type(value, struct lat_time_waker);
} time_wakers SEC(".maps");

/* Who woke each task: written at sched_waking in the waker's context (the
 * task running there, or the interrupt it is in), read at the wakeup that
 * ends the sleep, which may run elsewhere (a wakeup queued to an idle CPU
 * runs there, in its interrupt). A slot per tid & slot_mask, as the
 * records; tid says whose it is. */
struct time_waking {
	__u32 tid;	/* the wakee; 0: empty */
	__u16 who;	/* enum lat_time_who */
	__u16 _pad;
	__u32 id;	/* the waker's tid */
	__u32 tgid;
	char comm[16];
	__u64 sp;	/* lat_on_irq_stack()'s scratch */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the loader's: as task_slots */
	__type(key, __u32);
	__type(value, struct time_waking);
} time_waking_of SEC(".maps");

/* --per-thread */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* the loader's: preallocated
						 * with --per-thread, else 1 */
	__uint(max_entries, LAT_TIME_MAX_THREAD_ENTRIES);
	__type(key, struct lat_time_thread_key);
	__type(value, struct lat_time_thread);
} time_threads SEC(".maps");

/* never written: the zeroed value new time_threads entries come from */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_time_thread);
} time_thread_zero SEC(".maps");

static __always_inline struct lat_time_cpu *time_cpu_get(void)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&time_cpu, &k);
}

/* The slot of a sleeping or blocked key, taken on first use
 * (compare-and-swap: two CPUs taking one for the same key leave one slot
 * unused, which the loader skips); LAT_TIME_SLOT_OVER when none is left. */
static __always_inline __u32 time_slot_of(__u32 key)
{
	__u32 idx = LAT_TIME_OFF_INDEX(key), n, old, *e, *k;

	e = bpf_map_lookup_elem(&time_key_slot, &idx);
	if (!e)
		return LAT_TIME_SLOT_OVER;
	if (*e)
		return *e;
	n = __sync_fetch_and_add(&time_nslot_used, 1) + LAT_TIME_FIRST_DYN;
	if (n >= time_nslots) {
		old = __sync_val_compare_and_swap(e, 0, LAT_TIME_SLOT_OVER);
		return old ? old : LAT_TIME_SLOT_OVER;
	}
	k = bpf_map_lookup_elem(&time_slot_key, &n);
	if (k)
		*k = key;	/* before the slot is handed out (cmpxchg orders it) */
	old = __sync_val_compare_and_swap(e, 0, n);
	return old ? old : n;
}

static __always_inline struct lat_time_fixed *time_fixed_get(void)
{
	return lat_cpu_value(&time_fixed);
}

/* d ns of key credited (hist: and an episode of sample ns) past the slots */
static __always_inline void time_over_add(__u32 key, __u64 d, bool hist, __u64 sample)
{
	struct lat_time_cpu *c = time_cpu_get();
	struct lat_time_over *o = bpf_map_lookup_elem(&time_over, &key);
	__u32 z = 0;

	if (!o) {
		void *tmpl = bpf_map_lookup_elem(&time_over_zero, &z);

		if (tmpl)
			bpf_map_update_elem(&time_over, &key, tmpl, BPF_NOEXIST);
		o = bpf_map_lookup_elem(&time_over, &key);
	}
	if (!o) {
		if (c)
			c->over_lost++;
		return;
	}
	if (c)
		c->over++;
	__sync_fetch_and_add(&o->ns, d);
	if (hist)
		lat_hist_record_shared(&o->h, sample);
}

/* d ns and (hist) an episode of sample ns into a slot. iter: from the
 * iterator, which a handler on this CPU can interrupt, hence an atomic
 * add (handlers run with interrupts off). */
static __always_inline void time_slot_add(struct lat_time_slot *s, __u64 d, bool hist,
					  __u64 sample, bool iter)
{
	if (iter)
		__sync_fetch_and_add(&s->ns, d);
	else
		s->ns += d;
	if (hist)
		lat_hist_record(&s->h, sample);
}

/* Credits d ns to key on this CPU (hist: and records an episode of sample
 * ns); f: this CPU's fixed slots, looked up already, or NULL */
static __always_inline void time_add(__u32 key, __u64 d, bool hist, __u64 sample, bool iter,
				     struct lat_time_fixed *f)
{
	__u32 state = LAT_TIME_KEY_STATE(key), code = LAT_TIME_KEY_CODE(key), slot;
	struct lat_time_slot *s;

	if (state <= LAT_TIME_RUNNABLE) {
		if (!f && !(f = time_fixed_get()))
			return;
		if (state == LAT_TIME_RUNNING && iter)
			__sync_fetch_and_add(&f->running_ns, d);
		else if (state == LAT_TIME_RUNNING)
			f->running_ns += d;
		else
			time_slot_add(&f->runnable[code < LAT_TIME_NR_RUNNABLE ? code : 0], d,
				      hist, sample, iter);
		return;
	}
	slot = time_slot_of(key);
	if (slot == LAT_TIME_SLOT_OVER) {
		time_over_add(key, d, hist, sample);
		return;
	}
	slot -= LAT_TIME_FIRST_DYN;
	s = bpf_map_lookup_elem(&time_hist, &slot);
	if (s)
		time_slot_add(s, d, hist, sample, iter);
}

/* --per-thread: the entry of (t, key), created zeroed; NULL when the table
 * is full or holds an earlier task of this tid not yet read a last time */
static __always_inline struct lat_time_thread *time_thread_get(struct task_struct *t, __u32 key)
{
	struct lat_time_thread_key k = { .tid = t->pid, .key = key };
	__u32 born = (__u32)(t->start_time >> 10), z = 0;
	struct lat_time_thread *e = bpf_map_lookup_elem(&time_threads, &k);
	struct lat_time_cpu *c;
	void *zero;

	if (e && e->born == born)
		return e;
	if (!e && (zero = bpf_map_lookup_elem(&time_thread_zero, &z))) {
		bpf_map_update_elem(&time_threads, &k, zero, BPF_NOEXIST);
		e = bpf_map_lookup_elem(&time_threads, &k);
		if (e && !e->born) {
			e->born = born;
			e->tgid = t->tgid;
			__builtin_memcpy(e->comm, t->comm, sizeof(e->comm));	/* plain loads */
		}
		if (e && e->born == born)
			return e;
	}
	if ((c = time_cpu_get()))
		c->threads_lost++;
	return NULL;
}

static __always_inline void time_thread_add(struct task_struct *t, __u32 key, __u64 d,
					    bool hist, __u64 sample)
{
	struct lat_time_thread *e = time_thread_get(t, key);

	if (!e)
		return;
	__sync_fetch_and_add(&e->ns, d);	/* the iterator adds too */
	if (hist)
		lat_hist_record(&e->h, sample);
}

/* The mark of tm's episode, which its close is about to credit from. While
 * the iterator may run, taken with an exchange that also bumps the
 * generation and clears TIME_F_KNOWN: the iterator's compare-and-swap of
 * the word either landed before (its credit is in the mark taken) or
 * fails after, and it skips the record until time_open publishes the next
 * episode. A plain load otherwise: only a handler of the task writes it. */
static __always_inline __u32 time_take(struct time_task *tm)
{
	__u64 *w = (__u64 *)tm, cur, nw;
	struct time_task o;

	if (!time_iter_busy)
		return tm->mark;
	cur = *w;
	__builtin_memcpy(&o, &cur, sizeof(o));
	o.mark = 0;
	o.flags = ((o.flags & ~(TIME_GEN - 1)) + TIME_GEN) | (o.flags & TIME_F_PARTIAL);
	__builtin_memcpy(&nw, &o, sizeof(nw));
	cur = __sync_lock_test_and_set(w, nw);
	__builtin_memcpy(&o, &cur, sizeof(o));
	return o.mark;
}

/* Where an episode that began at ts is credited from: past what its mark
 * says was credited already, and not before the window's start t0 */
static __always_inline __u64 time_from(__u64 ts, __u32 mark, __u64 t0)
{
	__u64 from = ts + ((__u64)mark << TIME_MARK_SHIFT);

	return from > t0 ? from : t0;
}

/* Closes t's episode of key that began at ts (its account tm) at end: its
 * time since the last credit, and, when it ended by itself (hist) and its
 * start is known, its length as a sample. From end to now (end < now only
 * after a switch-in the kernel did not trace: time_on_switch) t ran. */
static __always_inline void time_close_at(struct task_struct *t, struct time_task *tm, __u64 ts,
					  __u64 end, __u64 now, bool hist,
					  struct lat_time_fixed *f)
{
	__u32 mark = time_take(tm), key = tm->key;
	__u64 t0 = time_t0, from, d;

	hist = hist && !(tm->flags & TIME_F_PARTIAL);
	if (!t0)
		return;		/* not open yet: no time, no samples */
	from = time_from(ts, mark, t0);
	d = end > from ? end - from : 0;
	time_add(key, d, hist, end - ts, false, f);
	if (time_per_thread)
		time_thread_add(t, key, d, hist, end - ts);
	if (end == now)
		return;
	from = end > from ? end : from;
	d = now > from ? now - from : 0;
	key = LAT_TIME_KEY(LAT_TIME_RUNNING, 0, 0);
	time_add(key, d, false, 0, false, f);
	if (time_per_thread)
		time_thread_add(t, key, d, false, 0);
}

static __always_inline void time_close(struct task_struct *t, struct time_task *tm, __u64 ts,
				       __u64 now, bool hist, struct lat_time_fixed *f)
{
	time_close_at(t, tm, ts, now, now, hist, f);
}

/* The account word of a new episode of key, after one whose flags were
 * flags: mark 0, the next generation, the state known */
_Static_assert(__builtin_offsetof(struct time_task, key) == 4 &&
	       __builtin_offsetof(struct time_task, flags) == 6, "time_word's layout");
static __always_inline __u64 time_word(__u16 flags, __u32 key)
{
	return ((__u64)((flags & ~(TIME_GEN - 1)) + TIME_GEN + TIME_F_KNOWN) << 48) |
	       ((__u64)key << 32);
}

/* A new episode of key from now; ts: the record's timestamp. The account
 * is one word, written after ts: while the iterator may run, with an
 * exchange, so an iterator that sees the new generation sees its timestamp
 * too; otherwise with one plain store. */
static __always_inline void time_open(struct time_task *tm, __u64 *ts, __u32 key, __u64 now)
{
	__u64 nw = time_word(tm->flags, key);

	*ts = now;
	if (time_iter_busy)
		__sync_lock_test_and_set((__u64 *)tm, nw);
	else
		*(__u64 *)tm = nw;
}

/* Why a task left its CPU runnable: its cgroup's CFS quota ran out. 6.18
 * throttles per task (p->throttled); before, its cfs_rq's throttle count
 * (bpf/compat.bpf.h). Only a fair task can be throttled. */
static __always_inline __u32 time_runnable_code(struct task_struct *t)
{
	return t->policy != 1 && t->policy != 2 && t->policy != 6 && lat_task_throttled(t) ?
		       LAT_TIME_THROTTLED : LAT_TIME_PREEMPTED;
}

/* The cause of a sleep that starts now: the system call the task is in,
 * from its user-entry registers, and what the kernel says beside it. */
static __always_inline __u32 time_sleep_key(struct task_struct *t, __u32 state, bool cast)
{
	return LAT_TIME_KEY((state & 1 /* TASK_INTERRUPTIBLE */) ? LAT_TIME_SLEEPING :
			    LAT_TIME_BLOCKED, lat_task_reason(t), lat_task_syscall_code(t, cast));
}

/*
 * The two transitions nearly every switch makes, written straight: a
 * running target leaves its CPU (not for the last time), a runnable one
 * takes it. Each does what time_on_switch()'s general path does for that
 * case (the running or runnable episode closed from its mark, the next one
 * opened with one store of the account word), taken only while the window
 * is open (t0) and the iterator cannot run (busy, read once by the
 * caller: a handler that saw it clear ends inside the grace period the
 * loader waits out). Everything else goes the general way, whose checks
 * for every case cost the switch about 20 ns more than these
 * (docs/performance.md, 2026-11-29).
 */
/* prev, running, leaves: true when done (and counted, count: for sched) */
static __always_inline bool time_out_fast(bool preempt, __u32 state, struct task_struct *prev,
					  struct time_task *tm, __u64 *tsp, __u64 ts, bool cast,
					  bool count, __u64 t0, __u64 now,
					  struct lat_time_fixed *f)
{
	__u64 w = *(__u64 *)tm, from, d;
	__u16 key = w >> 32, fl = w >> 48;
	bool queued = preempt || state == 0;

	if (!ts || (state & 0x80 /* TASK_DEAD */) || !(fl & TIME_F_KNOWN) ||
	    LAT_TIME_KEY_STATE(key) != LAT_TIME_RUNNING)
		return false;
	from = time_from(ts, (__u32)w, t0);
	d = now > from ? now - from : 0;
	f->running_ns += d;
	if (time_per_thread)
		time_thread_add(prev, key, d, false, 0);
	*tsp = now;
	*(__u64 *)tm = time_word(fl, queued ? LAT_TIME_KEY(LAT_TIME_RUNNABLE, 0,
							    time_runnable_code(prev)) :
					      time_sleep_key(prev, state, cast));
	if (count && queued)
		f->involuntary++;
	else if (count)
		f->voluntary++;
	return true;
}

/* next, runnable, takes the CPU: true when done */
static __always_inline bool time_in_fast(struct task_struct *next, struct time_task *tm,
					 __u64 *tsn, __u64 ts, __u64 t0, __u64 now,
					 struct lat_time_fixed *f)
{
	__u64 w = *(__u64 *)tm, from, d;
	__u16 key = w >> 32, fl = w >> 48;
	__u32 code = LAT_TIME_KEY_CODE(key);
	struct lat_time_slot *s;
	bool hist = !(fl & TIME_F_PARTIAL);

	if (!ts || !(fl & TIME_F_KNOWN) || LAT_TIME_KEY_STATE(key) != LAT_TIME_RUNNABLE)
		return false;
	from = time_from(ts, (__u32)w, t0);
	d = now > from ? now - from : 0;
	s = &f->runnable[code < LAT_TIME_NR_RUNNABLE ? code : 0];
	s->ns += d;
	if (hist)
		lat_hist_record(&s->h, now - ts);
	if (time_per_thread)
		time_thread_add(next, key, d, hist, now - ts);
	*tsn = now;
	*(__u64 *)tm = time_word(fl, LAT_TIME_KEY(LAT_TIME_RUNNING, 0, 0));
	return true;
}

/* tp, tn: the accounts of prev and next (NULL unless targets), beside
 * their records' timestamps *tsp, *tsn; ts_prev, ts_next: those as they
 * were before the sched family moved them (0: a record new at this event,
 * whose past is not known). count: the sched family's switch counts are
 * kept here (it keeps no state of its own); tprev: prev is a target. */
static __always_inline void time_on_switch(bool preempt, __u32 state,
					   struct task_struct *prev, struct task_struct *next,
					   struct time_task *sp, struct time_task *sn,
					   __u64 *tsp, __u64 *tsn, __u64 ts_prev, __u64 ts_next,
					   bool cast, bool count, bool tprev, __u64 *clock)
{
	struct lat_time_fixed *f = time_fixed_get();
	__u64 t0 = time_t0, now;
	__u32 unseen = 0, was;

	if (!f)
		return;
	if (t0 && !time_iter_busy) {
		now = lat_clock(clock);
		if (sp && time_out_fast(preempt, state, prev, sp, tsp, ts_prev, cast, count, t0,
					now, f)) {
			sp = NULL;
			tprev = false;	/* counted */
		}
		if (sn && time_in_fast(next, sn, tsn, ts_next, t0, now, f))
			sn = NULL;
		if (!sp && !sn && !tprev)
			return;
	}
	if (sp) {
		now = lat_clock(clock);
		/* what it leaves: running, or a state whose end was not
		 * traced (a wakeup the kernel did not report) */
		if (ts_prev && (sp->flags & TIME_F_KNOWN)) {
			__u64 end = now, ran;
			struct lat_time_cpu *c;

			was = LAT_TIME_KEY_STATE(sp->key);
			unseen += was >= LAT_TIME_SLEEPING;
			/* Leaving the CPU in another state than running: the
			 * kernel did not trace its switch-in (6.18 leaves out
			 * some switches, of the idle task's among them). That
			 * state ended where this run began, which the fair
			 * class timed; counted, so a reader knows the split
			 * is the kernel's clock, not a tracepoint's. */
			if (was != LAT_TIME_RUNNING) {
				ran = lat_task_last_run(prev, true);
				if (ran < now - ts_prev) {
					end = now - ran;
					if ((c = time_cpu_get()))
						c->untraced_in++;
				}
			}
			time_close_at(prev, sp, ts_prev, end, now, was != LAT_TIME_RUNNING, f);
		}
		if (state & 0x80 /* TASK_DEAD: its last switch */) {
			struct lat_time_cpu *c = time_cpu_get();
			struct lat_time_thread *h;

			if (c)
				c->exited++;
			/* its last switch: the loader reads its entries a last
			 * time and deletes them (xchg: the adds above land first) */
			if (time_per_thread && (h = time_thread_get(prev, LAT_TIME_THREAD_HEAD)))
				__sync_lock_test_and_set(&h->exited, 1);
			sp->flags = 0;	/* gone: its record is free */
		} else if (preempt || state == 0) {
			time_open(sp, tsp, LAT_TIME_KEY(LAT_TIME_RUNNABLE, 0,
							time_runnable_code(prev)), now);
		} else {
			time_open(sp, tsp, time_sleep_key(prev, state, cast), now);
		}
	}
	if (sn) {
		now = lat_clock(clock);
		if (ts_next && (sn->flags & TIME_F_KNOWN)) {
			was = LAT_TIME_KEY_STATE(sn->key);
			unseen += was >= LAT_TIME_SLEEPING;
			time_close(next, sn, ts_next, now, was != LAT_TIME_RUNNING, f);
		}
		time_open(sn, tsn, LAT_TIME_KEY(LAT_TIME_RUNNING, 0, 0), now);
	}
	/* what the sched family's on_switch() counts */
	if (count) {
		if (tprev && (preempt || state == 0))
			f->involuntary++;
		else if (tprev)
			f->voluntary++;
		f->unseen += unseen;
	}
}

/* At sched_waking of target p, in the waker's context: who wakes it, the
 * task running here or the interrupt it is in (bpf/compat.bpf.h) */
static __always_inline void time_on_waking(struct task_struct *p, __u32 mask)
{
	__u32 idx = p->pid & mask;
	struct time_waking *w = bpf_map_lookup_elem(&time_waking_of, &idx);
	struct task_struct *cur = bpf_get_current_task_btf();

	if (!w)
		return;
	w->id = 0;
	w->tgid = 0;
	if (lat_on_irq_stack(cur, &w->sp)) {
		w->who = LAT_TIME_WHO_IRQ;
	} else if (!cur->pid) {
		w->who = LAT_TIME_WHO_IDLE;
	} else {
		w->who = LAT_TIME_WHO_TASK;
		w->id = cur->pid;
		w->tgid = cur->tgid;
		__builtin_memcpy(w->comm, cur->comm, sizeof(w->comm));	/* plain loads */
	}
	w->tid = p->pid;
}

/* Moves a cache slot's counts into the shared hash; false when it is full
 * (the slot keeps them: counted once, never taken back) */
static __always_inline bool time_wk_spill(struct lat_time_wk_slot *sl)
{
	struct lat_time_waker *v = bpf_map_lookup_elem(&time_wakers, &sl->k);

	if (!v) {
		bpf_map_update_elem(&time_wakers, &sl->k, &sl->v, BPF_NOEXIST);
		return !!bpf_map_lookup_elem(&time_wakers, &sl->k);
	}
	__sync_fetch_and_add(&v->count, sl->v.count);
	__sync_fetch_and_add(&v->ns, sl->v.ns);
	return true;
}

/* A sleep of key, d ns, of task tid ended: its waker (as sched_waking saw
 * it) into this CPU's cache (include/latbpf/time.h: seq around every slot
 * change) */
static __always_inline void time_waker_add(__u32 tid, __u32 key, __u64 d, __u32 mask)
{
	__u32 cpu = bpf_get_smp_processor_id(), idx = tid & mask, who, id;
	struct lat_time_wk_cache *c = bpf_map_lookup_elem(&time_wk, &cpu);
	struct time_waking *w = bpf_map_lookup_elem(&time_waking_of, &idx);
	struct lat_time_wk_slot *sl;
	struct lat_time_cpu *tc;

	if (!c || !w || w->tid != tid)
		return;	/* a sleep whose waking was not seen (before the attach) */
	w->tid = 0;
	who = w->who;
	id = w->id;
	sl = &c->slot[lat_time_wk_slot_of(key, who, id) & (LAT_TIME_WK_SLOTS - 1)];
	if (sl->v.count && sl->k.key == key && sl->k.who == who && sl->k.id == id) {
		sl->v.count++;
		sl->v.ns += d;
		return;
	}
	__sync_fetch_and_add(&c->seq, 1);
	if (sl->v.count && !time_wk_spill(sl)) {
		__sync_fetch_and_add(&c->seq, 1);
		if ((tc = time_cpu_get()))
			tc->wakers_lost++;
		return;
	}
	sl->k.key = key;
	sl->k.who = who;
	sl->k._pad = 0;
	sl->k.id = id;
	sl->k.gen = 0;
	sl->v.count = 1;
	sl->v.ns = d;
	sl->v._pad = 0;
	sl->v.pid = w->tgid;
	if (who == LAT_TIME_WHO_TASK)
		__builtin_memcpy(sl->v.comm, w->comm, sizeof(sl->v.comm));
	else
		__builtin_memset(sl->v.comm, 0, sizeof(sl->v.comm));
	__sync_fetch_and_add(&c->seq, 1);
}

/* p woken; tm its account, *tsp its record's timestamp, ts that as it was
 * before the sched family moved it; fresh: a new task (sched_wakeup_new),
 * whose life starts here */
static __always_inline void time_on_wakeup(struct task_struct *p, struct time_task *tm,
					   __u64 *tsp, __u64 ts, bool fresh, __u32 mask,
					   __u64 *clock)
{
	__u64 now = lat_clock(clock);
	__u32 state = LAT_TIME_KEY_STATE(tm->key);

	if (fresh || !ts || !(tm->flags & TIME_F_KNOWN)) {
		/* new, or first seen now: its account starts here */
		struct lat_time_cpu *c;

		if (fresh && time_t0 && (c = time_cpu_get()))
			c->born++;
		tm->flags = 0;
		time_open(tm, tsp, LAT_TIME_KEY(LAT_TIME_RUNNABLE, 0, LAT_TIME_WOKEN), now);
		return;
	}
	/* running still (woken before it slept), or queued already */
	if (state == LAT_TIME_RUNNING || state == LAT_TIME_RUNNABLE) {
		*tsp = ts;	/* as it was: the sched family may have moved it */
		return;
	}
	time_close(p, tm, ts, now, true, NULL);
	if (time_t0)
		time_waker_add(p->pid, tm->key, now - ts, mask);
	time_open(tm, tsp, LAT_TIME_KEY(LAT_TIME_RUNNABLE, 0, LAT_TIME_WOKEN), now);
}

/*
 * The iterator's visit of target t, whose account tm is beside its record's
 * timestamp *tsp. On the first run (time_iter_init, at the run's start) a
 * task without an account gets one from what it is doing now, as of t0:
 * running, runnable, or asleep in its system call. Then each open
 * episode's time up to now is credited and the mark moved, with a
 * compare-and-swap of the whole account word: a handler that moved the
 * record meanwhile (a new generation) credits it itself.
 */
static __always_inline void time_iter_task(struct task_struct *t, struct time_task *tm,
					   __u64 *tsp)
{
	__u64 now = bpf_ktime_get_ns(), ts, from, upto, m, *w = (__u64 *)tm, old, nw;
	struct time_task o;
	__u32 state;

	if (time_iter_upto && time_iter_upto < now)
		now = time_iter_upto;

	lat_regs_calibrate(t);
	if (time_iter_init && !(tm->flags & TIME_F_KNOWN) && time_t0) {
		state = lat_task_state_btf(t);
		if (state & 0x80)	/* TASK_DEAD */
			return;
		if (state == 0)
			tm->key = t->on_cpu ? LAT_TIME_KEY(LAT_TIME_RUNNING, 0, 0) :
				  LAT_TIME_KEY(LAT_TIME_RUNNABLE, 0, LAT_TIME_PREEMPTED);
		else
			tm->key = time_sleep_key(t, state, false);
		tm->mark = 0;
		*tsp = time_t0;
		tm->flags = (tm->flags & ~(TIME_GEN - 1)) + TIME_GEN + TIME_F_KNOWN +
			    TIME_F_PARTIAL;
	}
	old = *w;
	__builtin_memcpy(&o, &old, sizeof(o));
	ts = *tsp;
	if (!(o.flags & TIME_F_KNOWN) || !ts || !time_t0)
		return;
	time_iter_live++;
	from = ts + ((__u64)o.mark << TIME_MARK_SHIFT);
	m = now > ts ? (now - ts) >> TIME_MARK_SHIFT : 0;
	if (m > 0xffffffffULL)
		m = 0xffffffffULL;	/* 78 hours: the rest when it ends */
	upto = ts + (m << TIME_MARK_SHIFT);
	if (from < time_t0)
		from = time_t0;
	if (upto <= from)
		return;
	o.mark = (__u32)m;
	__builtin_memcpy(&nw, &o, sizeof(nw));
	if (__sync_val_compare_and_swap(w, old, nw) != old)
		return;
	time_add(o.key, upto - from, false, 0, true, NULL);
	if (time_per_thread)
		time_thread_add(t, o.key, upto - from, false, 0);
}

#endif

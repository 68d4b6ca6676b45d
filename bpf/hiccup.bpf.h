/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hiccup family: per CPU, every interval a target thread wanted that CPU and
 * did not have it, and who had it instead.
 *
 *   preempted  target switched out runnable ........ until it runs again
 *   wakeup     target woken onto CPU c .............. until it runs
 *   irq, softirq, nmi   handler time on c while the target runs there
 *
 * While at least one target thread waits for CPU c (lat_hc_nwait() > 0), every task
 * that leaves c is charged its run time inside that window; interrupt time
 * inside the window is charged to the interrupt and taken off the task, so
 * nothing is counted twice. A softirq's time excludes the hard IRQs nested in
 * it.
 *
 * A task that leaves c without having been seen to come in (the kernel did
 * not trace a switch on c: on a 6.18 host every switch away from one
 * service's threads went untraced) did not run for all of the time since
 * the last traced switch: it is charged its own run since the kernel last
 * picked it (a fair task's se.sum_exec_runtime - se.prev_sum_exec_runtime,
 * the kernel's own account), and the rest of the stretch is "(untraced)".
 *
 * Concurrency: the state of CPU c is written by sched_switch and interrupt
 * handlers on c, and by sched_wakeup of a task placed on c, which runs under
 * c's run-queue lock; sched_switch on c holds that lock too. Only the count
 * of waiters is touched from elsewhere (a migrated waiter leaving): it is
 * three counters, begun and ended under c's lock (plain adds) and ended
 * from another CPU (an atomic add, rare), since an atomic on every wait
 * cost 11-13 ns of each switch and each wakeup (lock xadd, Xeon VM).
 * Task intruders are charged into c's own cache first (hc_cache, see
 * latbpf/hiccup.h), written by sched_switch on c only, with interrupts off;
 * interrupt intruders go straight to the hash.
 *
 * The scheduler tracepoints are shared with the sched family: bpf/sched.bpf.c
 * owns the one program per tracepoint and calls hiccup_on_switch() and
 * hiccup_on_wakeup() when en_hiccup is set, with the clock read once for
 * both (an attached program costs ~60 ns per event before it does anything:
 * tools/overhead.sh). The interrupt programs are this family's own.
 */
#ifndef LATBPF_HICCUP_BPF_H
#define LATBPF_HICCUP_BPF_H

#include "latbpf/hiccup.h"

const volatile bool en_hiccup = false;
const volatile __u64 threshold_ns = 1000000;

#define MAX_CPUS 1024	/* the loader sizes the arrays to the possible CPUs */

/* PREEMPT_RT (the loader reads it from the kernel's version string): there
 * softirqs and threaded handlers run in tasks, switched out mid-handler
 * (hc_intr_cut); elsewhere an interrupt open at a switch lost its exit to
 * the attach (its entry program attached first) and is dropped */
const volatile bool hc_rt = false;

/* --cpus: the watched CPUs, as if a target always waited there: every
 * task that runs on one (but the idle task) and every interrupt is
 * charged, each run recorded as LAT_HC_RAN. Off: no code. */
const volatile bool en_watch = false;
const volatile __u64 watch_cpus[MAX_CPUS / 64] = {};

/* The word's index masked, not only compared: where clang spills cpu and
 * loads it again for the access, 6.1's verifier does not carry the
 * compare's bound to the second load (it rejected hiccup_irq_exit with
 * --cpus once the histogram index was inlined, 2026-11-29). barrier_var:
 * else clang, knowing the compare, drops the mask. */
_Static_assert((MAX_CPUS / 64 & (MAX_CPUS / 64 - 1)) == 0, "a power of two");
static __always_inline bool hc_watched(__u32 cpu)
{
	__u64 w = cpu / 64;

	if (!en_watch || cpu >= MAX_CPUS)
		return false;
	barrier_var(w);
	return (watch_cpus[w & (MAX_CPUS / 64 - 1)] >> (cpu % 64)) & 1;
}

/* the generation of hc_intruders charged now (latbpf/hiccup.h): the
 * loader's, flipped at every poll */
volatile __u32 hc_gen = 0;

struct hc_task {
	__u64 since;
	__u32 late;	/* ns its own timer fired late, for the wakeup that
			 * timer causes (hiccup_on_timer; up to 4.29 s) */
	__u16 kind;	/* 0: not waiting; else 1 + enum lat_hc_kind */
	__u16 cpu;	/* the CPU it waits for (< MAX_CPUS) */
};


/* mapped by the loader too: its yield points read the waiters of its CPU
 * (src/core/yield.h) */
LAT_CPU_ARRAY(hc_state, struct lat_hc_state);

LAT_CPU_ARRAY(hc_cpu, struct lat_hc_cpu);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, LAT_HC_MAX_INTRUDERS);
	__type(key, struct lat_hc_intruder_key);
	__type(value, struct lat_hc_intruder);
} hc_intruders SEC(".maps");

LAT_CPU_ARRAY(hc_cache, struct lat_hc_cache);

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} hc_events SEC(".maps");

/* A charge that found the hash full: counted on its CPU (rare: only then
 * is hc_cpu looked up here). */
static __always_inline void hc_lost(__u32 cpu, __u64 n, __u64 ns)
{
	struct lat_hc_cpu *c = bpf_map_lookup_elem(&hc_cpu, &cpu);

	if (c) {
		c->intruders_lost += n;
		c->intruders_lost_ns += ns;
	}
}

/* The hash entry of (cpu, who, id), created zeroed; NULL when full. */
static __always_inline struct lat_hc_intruder *hc_entry(__u32 cpu, __u32 who, __u32 id)
{
	struct lat_hc_intruder_key k = { .cpu = cpu, .who = who, .id = id, .gen = hc_gen };
	struct lat_hc_intruder *v, zero = {};

	v = bpf_map_lookup_elem(&hc_intruders, &k);
	if (v)
		return v;
	bpf_map_update_elem(&hc_intruders, &k, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&hc_intruders, &k);
}

/* name: 16 bytes, or NULL (the loader names the intruder by its kind) */
static __always_inline void hc_top(struct lat_hc_state *s, __u32 who, __u32 id, __u64 ns,
				   const char *name)
{
	/* with its name: the intruder's cache slot or hash entry may be
	 * gone (moved, drained) by the time an event wants it */
	if (ns > s->top_ns) {
		s->top_ns = ns;
		s->top_who = who;
		s->top_id = id;
		if (name)
			__builtin_memcpy(s->top_name, name, sizeof(s->top_name));
		else
			__builtin_memset(s->top_name, 0, sizeof(s->top_name));
	}
}

/* Interrupt intruders (far rarer than switches, and nested in each other):
 * straight into the hash. name: a kernel string, or NULL. */
static __always_inline void hc_charge_intr(__u32 cpu, struct lat_hc_state *s, __u32 who,
					   __u32 id, __u64 ns, const char *name)
{
	struct lat_hc_intruder *v = hc_entry(cpu, who, id);

	if (!v) {
		hc_lost(cpu, 1, ns);
		return;
	}
	if (!v->count && name)
		bpf_probe_read_kernel_str(v->name, sizeof(v->name), name);
	v->count++;
	v->total_ns += ns;
	if (ns > v->max_ns)
		v->max_ns = ns;
	hc_top(s, who, id, ns, v->name);
}

/* Moves a slot's totals into the hash; false when it is full: the slot
 * keeps them (named time, once counted, is never taken back). */
static __always_inline bool hc_slot_move(__u32 cpu, struct lat_hc_slot *sl)
{
	struct lat_hc_intruder *v = hc_entry(cpu, sl->who, sl->id);

	if (!v)
		return false;
	__builtin_memcpy(v->name, sl->name, sizeof(v->name));	/* the newer name */
	v->count += sl->count;
	v->total_ns += sl->total_ns;
	if (sl->max_ns > v->max_ns)
		v->max_ns = sl->max_ns;
	return true;
}

#define PF_KTHREAD 0x00200000

/* Who a task intruder is: a threaded interrupt handler is a kernel thread
 * the kernel names irq/NN-name (kernel/irq/manage.c); the loader reads the
 * IRQ's number and name from that. Plain loads, only while a target waits. */
static __always_inline __u32 hc_task_who(struct task_struct *t)
{
	if ((t->flags & PF_KTHREAD) && t->comm[0] == 'i' && t->comm[1] == 'r' &&
	    t->comm[2] == 'q' && t->comm[3] == '/')
		return LAT_HC_IRQ_THREAD;
	return LAT_HC_TASK;
}

/* A task or migration intruder's charge (hc_charge_slot): at most five
 * arguments reach a BPF function, so they come as one */
enum { HC_NAME_NONE, HC_NAME_IDLE, HC_NAME_TASK };
struct hc_charge_arg {
	__u64 ns;
	__u32 cpu, who, id, how;	/* how: HC_NAME_*, how it is named */
	char name[16];			/* the task's for HC_NAME_TASK, else 0 */
};

/* Task and migration intruders, from sched_switch only: through this CPU's
 * cache (latbpf/hiccup.h). A global function: the verifier checks it once,
 * where inlined at sched_switch's six call sites it was checked in every
 * state that reached each (153,650 instructions processed, 106 ms of the
 * attach). */
__noinline int hc_charge_slot(struct lat_hc_state *s, struct hc_charge_arg *a)
{
	struct lat_hc_cache *c;
	struct lat_hc_slot *sl;
	__u32 cpu, who, id;
	__u64 ns;

	if (!s || !a)
		return 0;
	cpu = a->cpu;
	who = a->who;
	id = a->id;
	ns = a->ns;
	c = bpf_map_lookup_elem(&hc_cache, &cpu);
	if (!c)
		return 0;
	sl = &c->slot[lat_hc_slot_of(who, id) & (LAT_HC_CACHE - 1)];
	if (sl->count && sl->who == who && sl->id == id && a->how == HC_NAME_TASK) {
		/* a task renamed since its first charge (exec): the newer name,
		 * inside seq like any slot change; two loads when it is not */
		__u64 *n = (__u64 *)a->name, *o = (__u64 *)sl->name;

		if (o[0] != n[0] || o[1] != n[1]) {
			__sync_fetch_and_add(&c->seq, 1);
			o[0] = n[0];
			o[1] = n[1];
			__sync_fetch_and_add(&c->seq, 1);
		}
	} else if (!sl->count || sl->who != who || sl->id != id) {
		__sync_fetch_and_add(&c->seq, 1);
		if (sl->count && !hc_slot_move(cpu, sl)) {
			/* the hash is full: this charge is the one lost, and the
			 * slot's intruder stays named (the drain at the next
			 * poll makes room) */
			__sync_fetch_and_add(&c->seq, 1);
			hc_lost(cpu, 1, ns);
			/* zeroes but for a task: as NULL would */
			hc_top(s, who, id, ns, a->name);
			return 0;
		}
		sl->who = who;
		sl->id = id;
		sl->count = 0;
		sl->total_ns = 0;
		sl->max_ns = 0;
		if (a->how == HC_NAME_TASK) {
			__builtin_memcpy(sl->name, a->name, sizeof(sl->name));
		} else {
			__builtin_memset(sl->name, 0, sizeof(sl->name));
			/* the idle task: the CPU was idle, and the time is what it
			 * took to run the woken target (the loader's name too) */
			if (a->how == HC_NAME_IDLE)
				__builtin_memcpy(sl->name, LAT_HC_IDLE_NAME, sizeof(sl->name));
			else if (who == LAT_HC_UNTRACED)
				__builtin_memcpy(sl->name, "(untraced)", sizeof("(untraced)"));
		}
		__sync_fetch_and_add(&c->seq, 1);
	}
	sl->count++;
	sl->total_ns += ns;
	if (ns > sl->max_ns)
		sl->max_ns = ns;
	hc_top(s, who, id, ns, sl->name);
	return 0;
}

/* t: the task, for its name; NULL for none (pid 0: the idle task) */
static __always_inline void hc_charge(__u32 cpu, struct lat_hc_state *s, __u32 who,
				      __u32 id, __u64 ns, struct task_struct *t)
{
	struct hc_charge_arg a = { .ns = ns, .cpu = cpu, .who = who, .id = id };

	if (t && id) {
		__builtin_memcpy(a.name, t->comm, sizeof(a.name));	/* plain loads */
		a.how = HC_NAME_TASK;
	} else if (t) {
		a.how = HC_NAME_IDLE;
	}
	hc_charge_slot(s, &a);
}

static __always_inline void hc_window_open(struct lat_hc_state *s, __u64 now)
{
	s->wait_since = now;
	s->cur_start = now;
	s->top_ns = 0;
	s->irq_in_window = 0;
}

/* A waiter leaves CPU cpu's window (it runs, or its wait went stale);
 * held: the CPU whose run-queue lock the caller holds */
static __always_inline void hc_wait_end(__u32 cpu, __u32 held)
{
	struct lat_hc_state *s = bpf_map_lookup_elem(&hc_state, &cpu);

	if (!s || !lat_hc_nwait(s))
		return;
	if (cpu == held)
		s->nend++;
	else
		__sync_fetch_and_add(&s->nend_remote, 1);
}

static __always_inline void hc_wait_begin(struct hc_task *t, __u32 kind, __u32 cpu,
				       __u64 now)
{
	struct lat_hc_state *s;

	if (t->kind)	/* a wait whose end was never traced */
		hc_wait_end(t->cpu, cpu);
	t->since = now;
	t->kind = 1 + kind;
	t->cpu = cpu;
	s = bpf_map_lookup_elem(&hc_state, &cpu);
	if (!s)
		return;
	/* under cpu's run-queue lock: only a remote hc_wait_end() can race,
	 * on a counter of its own */
	if (lat_hc_nwait(s) == 0)
		hc_window_open(s, now);
	s->nbegin++;
}

/* pinned: the time was lost by a thread pinned to cpu */
static __always_inline void hc_record(__u32 cpu, __u64 kind, __u64 d, bool pinned)
{
	struct lat_hc_cpu *c = bpf_map_lookup_elem(&hc_cpu, &cpu);

	if (!c || kind >= LAT_HC_NR_KINDS)
		return;
	c->count[kind]++;
	c->stolen_ns[kind] += d;
	if (pinned)
		c->pinned_ns += d;
	/* as an offset: a select between two pointers can compile to a
	 * bitwise operation on a pointer, which the verifier refuses */
	lat_hist_record((struct lat_hist *)((char *)c + (LAT_HC_TASK_KIND(kind) ?
			__builtin_offsetof(struct lat_hc_cpu, task_hist) :
			__builtin_offsetof(struct lat_hc_cpu, intr_hist))), d);
}

/* An event of d ns on cpu, task t's, from the ring buffer, its common
 * fields set; NULL below the threshold or when the ring is full (counted).
 * late: how late t's own timer fired before the wait (the thread was late
 * by both: the threshold is for their sum) */
static __always_inline struct lat_hc_event *hc_event_new(__u32 cpu, __u32 kind, __u64 d,
							 __u64 late, __u64 now,
							 struct task_struct *t)
{
	struct lat_hc_event *e;
	struct lat_hc_cpu *c;

	if (d + late < threshold_ns)
		return NULL;
	e = bpf_ringbuf_reserve(&hc_events, sizeof(*e), 0);
	if (!e) {
		c = bpf_map_lookup_elem(&hc_cpu, &cpu);
		if (c)
			c->events_lost++;
		return NULL;
	}
	e->ts_ns = now;
	e->duration_ns = d;
	e->timer_late_ns = late;
	e->cpu = cpu;
	e->tid = t->pid;
	e->kind = kind;
	__builtin_memcpy(e->comm, t->comm, sizeof(e->comm));	/* plain loads */
	return e;
}

/* t waited d ns for CPU oc (w: its state) and now runs on cpu after
 * prev; late: its timer's lateness before the wait */
static __always_inline void hc_event(__u32 cpu, __u32 kind, __u64 d, __u64 late, __u64 now,
				     struct task_struct *t, struct task_struct *prev,
				     struct lat_hc_state *w, __u32 oc)
{
	struct lat_hc_event *e;

	if (!(e = hc_event_new(cpu, kind, d, late, now, t)))
		return;
	e->_pad = 0;
	if (w->top_ns) {
		/* the largest intruder charged in the wait's window */
		e->who = w->top_who;
		e->pid = w->top_id;
		e->who_ns = w->top_ns;
		__builtin_memcpy(e->name, w->top_name, sizeof(e->name));
	} else if (oc != cpu) {
		/* nothing left CPU oc while t waited there (what ran there
		 * still runs): it ran elsewhere, and the wait is charged to
		 * the migration, as in the CPU's intruders */
		e->who = LAT_HC_MIGRATION;
		e->pid = oc;
		e->who_ns = d;
		__builtin_memset(e->name, 0, sizeof(e->name));
	} else {
		/* prev was not charged (a target whose own switch-in the
		 * kernel did not trace): it had the CPU */
		e->who = hc_task_who(prev);
		e->pid = prev->pid;
		e->who_ns = d;
		__builtin_memcpy(e->name, prev->comm, sizeof(e->name));	/* plain loads */
	}
	bpf_ringbuf_submit(e, 0);
}

/* --cpus: task t ran d ns on the watched CPU cpu; it is its own intruder */
static __always_inline void hc_ran_event(__u32 cpu, __u64 d, __u64 now, struct task_struct *t,
					 __u32 who)
{
	struct lat_hc_event *e = hc_event_new(cpu, LAT_HC_RAN, d, 0, now, t);

	if (!e)
		return;
	e->who = who;
	e->pid = t->pid;
	e->_pad = 0;
	e->who_ns = d;
	__builtin_memcpy(e->name, t->comm, sizeof(e->name));	/* plain loads */
	bpf_ringbuf_submit(e, 0);
}

/* Of d ns since the last traced switch, the part prev ran: its run since
 * the kernel last picked it (lat_task_last_run: a fair task's own account,
 * a real-time one's time since it arrived); 0 for the idle task and where
 * the kernel keeps neither. A FIFO burner's 5 ms run, switched in
 * untraced, was all "(untraced)" when this read the fair class only
 * (watch.t, 2026-11-28). */
static __always_inline __u64 hc_own_run(struct task_struct *prev, __u64 d)
{
	__u64 own;

	if (!prev->pid)
		return 0;
	own = lat_task_last_run(prev, true);
	if (own == ~0ULL)
		return 0;
	return own < d ? own : d;
}

/* Interrupts: every entry is stamped, and the exit charges only while a
 * target runs here, or waits for this CPU (hc_intr_done): a wait that
 * begins inside the interrupt (a timer's wakeup of its sleeper, a
 * completion's of its reader) has the rest of it charged to the
 * interrupt, not to the task it interrupted (hc_intr_part). */
static __always_inline struct lat_hc_state *hc_intr_state(__u32 *cpu)
{
	*cpu = bpf_get_smp_processor_id();
	return bpf_map_lookup_elem(&hc_state, cpu);
}

/* Of an interrupt of d ns (nested ones off) that began at start and ends
 * now, the part inside the window: from the wakeup on, when the first
 * waiter came while it ran and no target was running here */
static __always_inline __u64 hc_intr_part(const struct lat_hc_state *s, __u64 start, __u64 now,
					  __u64 d)
{
	if (!s->cur_target && s->wait_since > start && now > s->wait_since &&
	    now - s->wait_since < d)
		return now - s->wait_since;
	return d;
}

static __always_inline void hc_intr_done(__u32 cpu, struct lat_hc_state *s, __u32 kind,
				      __u32 who, __u32 id, __u64 d, const char *name)
{
	bool watched = hc_watched(cpu);

	/* a target's own CPU, or a watched one: the interrupt is recorded;
	 * inside a window or on a watched CPU, taken off the task's run */
	if (s->cur_target || watched)
		hc_record(cpu, kind, d, s->cur_target &&
			  bpf_get_current_task_btf()->nr_cpus_allowed == 1);
	if ((!s->cur_target && lat_hc_nwait(s)) || watched)
		s->irq_in_window += d;
	if (s->cur_target || lat_hc_nwait(s) || watched)
		hc_charge_intr(cpu, s, who, id, d, name);
}

/* A target runs here while the last traced switch said none: the kernel
 * did not trace its switch-in (6.18 leaves out some, out of the idle task
 * above all; hiccup.t's spinner on a CPU with a busy loop beside it: 1-6
 * times in 2 s). The interrupt ending now came in on it, so it was the
 * target's, and this CPU's state says so until the next switch. Looked
 * at only where no target is said to run: a load of current and of its
 * pid on most CPUs. */
static __always_inline void hc_heal(struct lat_hc_state *s)
{
	struct task_struct *t;

	if (s->cur_target)
		return;
	t = bpf_get_current_task_btf();
	if (t->pid && lat_task_is_target(t, t->tgid, t->pid, true))
		s->cur_target = 1;
}

/* Closes the open hard interrupt (a device's handler or a system
 * interrupt) at now: its time less the NMIs inside (into an open
 * softirq's nested time), *d the part inside the window; whether it is
 * charged at all (hc_intr_done's own condition, tested first so that a
 * caller reads a handler's name only then) */
static __always_inline bool hc_hard_end(struct lat_hc_state *s, __u32 cpu, __u64 now, __u64 *d)
{
	__u64 t = now - s->hard_start;

	hc_heal(s);
	t = t > s->hard_nested ? t - s->hard_nested : 0;
	if (s->soft_start)
		s->soft_nested += t + s->hard_nested;
	*d = hc_intr_part(s, s->hard_start, now, t);
	s->hard_start = 0;
	return s->cur_target || lat_hc_nwait(s) || hc_watched(cpu);
}

/* The same for the open softirq: its time less the hard ones inside */
static __always_inline bool hc_soft_end(struct lat_hc_state *s, __u32 cpu, __u64 now, __u64 *d)
{
	__u64 t = now - s->soft_start;

	hc_heal(s);
	t = t > s->soft_nested ? t - s->soft_nested : 0;
	*d = hc_intr_part(s, s->soft_start, now, t);
	s->soft_start = 0;
	return s->cur_target || lat_hc_nwait(s) || hc_watched(cpu);
}

/*
 * PREEMPT_RT runs softirqs and threaded handlers in tasks, which can be
 * switched out in the middle: the time so far is the interrupt's, the rest
 * is its task's run (softirq_exit then finds nothing open). Without this a
 * task that ran meanwhile was charged twice, in its own run and inside the
 * interrupt's (the 6.1-rt guest: intruders 1.2 % over the waits). Never
 * open at a switch elsewhere. A global function: checked once by the
 * verifier, where inlined in sched_switch it added 30-40 ms to the attach.
 */
__noinline int hc_intr_cut(struct lat_hc_state *s, __u32 cpu, __u64 now)
{
	__u64 d;

	if (!s)
		return 0;
	if (s->hard_start && hc_hard_end(s, cpu, now, &d))
		hc_intr_done(cpu, s, LAT_HC_IRQ, LAT_HC_WHO_IRQ, s->hard_irq, d, NULL);
	if (s->soft_start && hc_soft_end(s, cpu, now, &d))
		hc_intr_done(cpu, s, LAT_HC_SOFTIRQ, LAT_HC_WHO_SOFTIRQ, s->soft_vec, d, NULL);
	return 0;
}

/* tp, tn: the hiccup records of prev and next (NULL unless targets); kept in
 * the sched object's per-task storage, one lookup for both families */
static __always_inline void hiccup_on_switch(bool preempt, struct task_struct *prev,
					     struct task_struct *next, struct hc_task *tp,
					     struct hc_task *tn, bool tnext, __u64 *clock)
{
	__u32 cpu = bpf_get_smp_processor_id(), oc;
	bool stale, watched = hc_watched(cpu);
	struct lat_hc_state *s, *w;
	struct lat_hc_cpu *c;
	struct hc_task *t;
	__u64 now, from, d, own;
	__u32 last, nwait;
	bool untraced;

	s = bpf_map_lookup_elem(&hc_state, &cpu);
	if (!s)
		return;
	/* before cur_target changes: the interrupt was prev's */
	if (s->soft_start || s->hard_start) {
		if (hc_rt) {
			hc_intr_cut(s, cpu, lat_clock(clock));
		} else {
			s->hard_start = 0;
			s->soft_start = 0;
		}
	}
	if (s->cur_target != tnext)	/* no store on the common path */
		s->cur_target = tnext;
	/* prev came in untraced when it is not the task the last traced
	 * switch here brought in (the line is this CPU's, already loaded) */
	last = s->cur_next;
	s->cur_next = next->pid + 1;
	nwait = lat_hc_nwait(s);
	/* opaque to the compiler, which would otherwise test (tp | tn), a
	 * bitwise operation on pointers that the verifier refuses */
	barrier_var(tp);
	barrier_var(tn);
	if (!nwait && !tp && !tn && !watched)
		return;
	untraced = last && last != prev->pid + 1;
	now = lat_clock(clock);

	/*
	 * A target leaving the CPU was running, so a wait recorded for it is
	 * stale: the kernel did not trace its switch-in (seen on 6.18, see
	 * sched.bpf.c). Close that wait, and do not charge the thread as an
	 * intruder of its own wait.
	 */
	t = tp;
	stale = t && t->kind;
	if (stale) {
		hc_wait_end(t->cpu, cpu);
		nwait = lat_hc_nwait(s);
		t->kind = 0;
		c = bpf_map_lookup_elem(&hc_cpu, &cpu);
		if (c)
			c->unseen++;
	}

	/* prev ran inside the window: its share, less interrupt time; of a
	 * stretch with an untraced switch in it, only its own run */
	if (nwait && !stale) {
		from = s->cur_start > s->wait_since ? s->cur_start : s->wait_since;
		d = now - from;
		d = d > s->irq_in_window ? d - s->irq_in_window : 0;
		/* on a watched CPU a task's whole run is charged below */
		if (d && untraced && !watched) {
			own = hc_own_run(prev, d);
			if (own)
				hc_charge(cpu, s, hc_task_who(prev), prev->pid, own, prev);
			if (d > own)
				hc_charge(cpu, s, LAT_HC_UNTRACED, 0, d - own, NULL);
		} else if (d && (!watched || !prev->pid)) {
			hc_charge(cpu, s, hc_task_who(prev), prev->pid, d, prev);
		}
	}
	/* a watched CPU: every run but the idle task's */
	if (watched && prev->pid && s->cur_start) {
		__u32 who = hc_task_who(prev);

		d = now - s->cur_start;
		d = d > s->irq_in_window ? d - s->irq_in_window : 0;
		if (untraced) {
			own = hc_own_run(prev, d);
			if (d > own)
				hc_charge(cpu, s, LAT_HC_UNTRACED, 0, d - own, NULL);
			d = own;
		}
		if (d || !untraced) {
			hc_charge(cpu, s, who, prev->pid, d, prev);
			hc_record(cpu, LAT_HC_RAN, d, false);
			hc_ran_event(cpu, d, now, prev, who);
		}
	}
	s->cur_start = now;
	s->irq_in_window = 0;

	/* a lateness its timer left for a wakeup that did not come (it was
	 * awake already) is not this wait's */
	if (t)
		t->late = 0;
	if (t && (preempt || lat_task_state_btf(prev) == 0))
		hc_wait_begin(t, LAT_HC_PREEMPTED, cpu, now);
	if (!tnext)
		return;
	t = tn;
	if (!t || !t->kind)
		return;
	d = now - t->since;
	oc = t->cpu;
	w = oc == cpu ? s : bpf_map_lookup_elem(&hc_state, &oc);
	if (w && oc != cpu)
		hc_charge(cpu, s, LAT_HC_MIGRATION, oc, d, NULL);
	hc_record(cpu, t->kind - 1, d, next->nr_cpus_allowed == 1);
	if (w)
		hc_event(cpu, t->kind - 1, d, t->late, now, next, prev, w, oc);
	hc_wait_end(oc, cpu);
	t->kind = 0;
	t->late = 0;
}

/* p is a target; t its hiccup record */
static __always_inline void hiccup_on_wakeup(struct task_struct *p, struct hc_task *t,
					     __u64 *clock)
{
	if (p->on_cpu)
		return;	/* on CPU still: woken before it left, no wait */
	hc_wait_begin(t, LAT_HC_WAKEUP, lat_task_cpu_btf(p), lat_clock(clock));
}

/*
 * A target's timer fired late ns after its expiry, on this CPU
 * (bpf/timer.bpf.h): counted here as the timer kind, and kept in the
 * thread's record t (NULL: not at hand) for the wakeup it causes next, so
 * that hiccup's event says both parts: the timer's lateness, then the wait
 * for the CPU. The wakeup follows at once, inside the timer's function; a
 * thread awake already has it cleared at its next switch-out.
 */
static __always_inline void hiccup_on_timer(struct hc_task *t, __u64 late, bool pinned)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lat_hc_cpu *c = bpf_map_lookup_elem(&hc_cpu, &cpu);

	if (c) {
		c->count[LAT_HC_TIMER]++;
		c->stolen_ns[LAT_HC_TIMER] += late;
		if (pinned)
			c->pinned_ns += late;
	}
	if (t)
		t->late = late < 0xffffffffULL ? late : 0xffffffffU;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(hiccup_irq_entry, int irq, struct irqaction *action)
{
	__u32 cpu;
	struct lat_hc_state *s = hc_intr_state(&cpu);

	if (s) {
		s->hard_start = bpf_ktime_get_ns();
		s->hard_irq = irq;
		s->hard_nested = 0;
	}
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(hiccup_irq_exit, int irq, struct irqaction *action)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lat_hc_state *s = bpf_map_lookup_elem(&hc_state, &cpu);
	__u64 d;

	if (s && s->hard_start && hc_hard_end(s, cpu, bpf_ktime_get_ns(), &d))
		hc_intr_done(cpu, s, LAT_HC_IRQ, LAT_HC_WHO_IRQ, irq, d,
			     BPF_CORE_READ(action, name));
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(hiccup_softirq_entry, unsigned int vec)
{
	__u32 cpu;
	struct lat_hc_state *s = hc_intr_state(&cpu);

	if (s) {
		s->soft_start = bpf_ktime_get_ns();
		s->soft_vec = vec;
		s->soft_nested = 0;
	}
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(hiccup_softirq_exit, unsigned int vec)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lat_hc_state *s = bpf_map_lookup_elem(&hc_state, &cpu);
	__u64 d;

	if (s && s->soft_start && hc_soft_end(s, cpu, bpf_ktime_get_ns(), &d))
		hc_intr_done(cpu, s, LAT_HC_SOFTIRQ, LAT_HC_WHO_SOFTIRQ, vec, d, NULL);
	return 0;
}

/*
 * x86's system interrupts, which have no irq_handler event: the local
 * timer (the tick, and every hrtimer: a sleeper's wakeup runs in it), the
 * scheduler's IPIs (reschedule, call_function_single: a remote wakeup),
 * call_function and irq_work. Each runs as a hard interrupt, so it shares
 * the hard interrupt's stamps: none nests in another or in a device's
 * handler. Unseen, their time was the interrupted task's: 8-16 us a timer
 * interrupt that wakes a target, the most of what a task on the waking
 * CPU was charged for it (yield.t, 2026-11-28). Named as the kernel's
 * events are; "pid" is the vector (docs/metrics.md).
 */
static __always_inline int hc_vec_entry(int vector)
{
	__u32 cpu;
	struct lat_hc_state *s = hc_intr_state(&cpu);

	if (!s)
		return 0;
	/* PREEMPT_RT's threaded handlers run with interrupts on: one that
	 * comes inside stays in the handler's time, whose stamp it keeps */
	if (hc_rt && s->hard_start) {
		s->vec_inside = 1;
		return 0;
	}
	s->hard_start = bpf_ktime_get_ns();
	s->hard_irq = vector;
	s->hard_nested = 0;
	return 0;
}

static __always_inline int hc_vec_exit(int vector, const char *name)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lat_hc_state *s = bpf_map_lookup_elem(&hc_state, &cpu);
	__u64 d;

	if (!s)
		return 0;
	if (s->vec_inside) {
		s->vec_inside = 0;
		return 0;
	}
	if (s->hard_start && hc_hard_end(s, cpu, bpf_ktime_get_ns(), &d))
		hc_intr_done(cpu, s, LAT_HC_SYSIRQ, LAT_HC_WHO_VECTOR, vector, d, name);
	return 0;
}

/* name: at most 15 characters (an intruder's name) */
#define HC_VECTOR(ev, name)							\
SEC("tp_btf/" #ev "_entry")							\
int BPF_PROG(hiccup_##ev##_entry, int vector) { return hc_vec_entry(vector); }	\
SEC("tp_btf/" #ev "_exit")							\
int BPF_PROG(hiccup_##ev##_exit, int vector) { return hc_vec_exit(vector, name); }

HC_VECTOR(local_timer, "local_timer")
HC_VECTOR(reschedule, "reschedule")
HC_VECTOR(call_function, "call_function")
HC_VECTOR(call_function_single, "call_fn_single")
HC_VECTOR(irq_work, "irq_work")

/* x86 only: the kernel reports each NMI handler's own duration. */
SEC("tp_btf/nmi_handler")
int BPF_PROG(hiccup_nmi, void *handler, s64 delta_ns, int handled)
{
	__u32 cpu;
	struct lat_hc_state *s = hc_intr_state(&cpu);

	if (!s || delta_ns <= 0)
		return 0;
	if (s->hard_start)
		s->hard_nested += delta_ns;
	else if (s->soft_start)
		s->soft_nested += delta_ns;
	hc_intr_done(cpu, s, LAT_HC_NMI, LAT_HC_WHO_NMI, 0, delta_ns, "NMI");
	return 0;
}

#endif

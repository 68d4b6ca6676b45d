// SPDX-License-Identifier: GPL-2.0
/*
 * sched family: run-queue latency, off-CPU time (S / D), switch counts.
 *
 * Per target thread one small state record says what the thread is doing
 * since when: waiting on a run queue (RUNQ), or switched out asleep (SLEEP,
 * BLOCKED). Transitions:
 *   sched_switch prev, still runnable  -> RUNQ since now   (involuntary)
 *   sched_switch prev, not runnable    -> SLEEP/BLOCKED    (voluntary)
 *   sched_wakeup(_new)                 -> record off-CPU time, RUNQ since now
 *   sched_switch next                  -> record run-queue time, on CPU
 *
 * The handlers are written once; tp_btf entry points (BTF pointers: direct
 * loads, task storage) are preferred, raw_tp twins (CO-RE reads, an LRU hash
 * keyed by tid) serve kernels without task storage for tracing programs.
 *
 * This object holds the one program per scheduler tracepoint for every
 * family that needs these events (sched, hiccup: bpf/hiccup.bpf.h), each
 * enabled by its own .rodata flag: a second program on the same tracepoint
 * would cost a second dispatch and a second clock read on every context
 * switch of the machine.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "latbpf/sched.h"
#include "latbpf/hist.h"
#include "target.bpf.h"
#include "cpu.bpf.h"
#include "compat.bpf.h"
#include "clock.bpf.h"
#include "hiccup.bpf.h"
#include "fault.bpf.h"
#include "time.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool en_sched = false;
const volatile bool per_thread = false;

enum { ST_ONCPU, ST_RUNQ, ST_SLEEP, ST_BLOCKED };

/* One record per target task for every family on these tracepoints, so a
 * switch costs one lookup per task, not one per family. */
struct task_st {
	__u64 ts;
	__u32 kind;
	__u32 tid;		/* in task_slots: the owner, 0 when free */
	struct hc_task hc;	/* the hiccup family's */
	struct fault_task ft;	/* the fault family's */
	struct time_task tm;	/* the time family's; and a cache line each:
				 * threads with adjacent tids run on different
				 * CPUs */
};
_Static_assert(sizeof(struct task_st) == 64, "one slot, one cache line");

/*
 * Where the records live (tp_btf): a slot per tid in an array, direct-mapped
 * (tid & slot_mask) and tagged with its owner; the loader sizes it to
 * pid_max, up to 65536 slots of 64 bytes. An array lookup is a few inlined
 * instructions, a task-storage lookup a helper call (~28 ns here:
 * tools/overhead.sh), and a switch with a wakeup needs three. A task claims a free slot on first
 * use (cmpxchg: two tids sharing a slot may race), adopting what its task
 * storage held, and frees it in its last switch (TASK_DEAD), or at its exit
 * when it is no longer a target (on_exit); a task whose
 * slot another live thread owns keeps its record in task storage. A new
 * task starts from a clean record (sched_wakeup_new), so a reused tid never
 * inherits anything.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set by the loader */
	__type(key, __u32);
	__type(value, struct task_st);
} task_slots SEC(".maps");

const volatile __u32 slot_mask = 0;
/* PREEMPT_RT (the loader's): no task storage is made here. The kernel
 * allocates it with kmalloc (6.1: GFP_ATOMIC; local storage took BPF's own
 * allocator only later), which on RT takes sleeping locks, and these
 * programs run with preemption off, in the scheduler under its raw locks.
 * A thread whose slot another live thread holds keeps its record in
 * task_st_hash instead (preallocated: raw locks only; the loader sizes it),
 * as on the raw_tp path: deleted at its last switch, adopted when it
 * claims its slot; a full table is counted (st_lost). */
const volatile bool no_storage_new = false;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_st);
} task_st SEC(".maps");

/* raw_tp fallback, and tp_btf's overflow on PREEMPT_RT (no_storage_new);
 * the loader shrinks it to 1 entry when unused. Not
 * an LRU: an eviction would drop a live task's state without a word, while
 * a full table refuses the insert, which is counted (st_lost). A task's
 * record goes at its last switch, so the table holds live targets only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct task_st);
} task_st_hash SEC(".maps");

LAT_CPU_ARRAY(sched_cpu, struct lat_sched_cpu);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* 16 KB values; preallocated
						 * with --per-thread (the loader) */
	__uint(max_entries, LAT_SCHED_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct lat_sched_thread);
} sched_threads SEC(".maps");

/* Never written: the zeroed value new --per-thread entries are copied from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_sched_thread);
} sched_zero SEC(".maps");

/* Events of a target that found no record (task storage could not be
 * created, the raw_tp table was full): rare, so one shared counter, which
 * the loader reads from .bss. */
__u64 st_lost = 0;

/* Field reads: direct loads through BTF pointers, CO-RE reads otherwise.
 * `btf` is a constant in every caller, so one branch is compiled. */
#define TREAD(btf, t, f) ((btf) ? (t)->f : BPF_CORE_READ(t, f))

#define TASK_DEAD 0x80	/* __state of a task's last switch, since 4.14 */

/* A record with nothing pending: on CPU, no wait, no fault. */
static __always_inline void st_clear(struct task_st *st)
{
	st->ts = 0;
	st->kind = ST_ONCPU;
	__builtin_memset(&st->hc, 0, sizeof(st->hc));
	__builtin_memset(&st->ft, 0, sizeof(st->ft));
	__builtin_memset(&st->tm, 0, sizeof(st->tm));
}

/* a record in task_st_hash (raw_tp; tp_btf on PREEMPT_RT), made if none */
static __always_inline struct task_st *st_hashed(__u32 tid)
{
	__u32 k = tid;	/* on the stack here only: not on tp_btf's common path */
	struct task_st zero = {}, *st = bpf_map_lookup_elem(&task_st_hash, &k);

	if (st)
		return st;
	bpf_map_update_elem(&task_st_hash, &k, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&task_st_hash, &k);
}

/* where a thread without its slot keeps its record, if it has one */
static __always_inline struct task_st *st_overflow(struct task_struct *t, __u32 tid)
{
	__u32 k = tid;

	if (no_storage_new)
		return bpf_map_lookup_elem(&task_st_hash, &k);
	return bpf_task_storage_get(&task_st, t, NULL, 0);
}

static __always_inline struct task_st *st_get(struct task_struct *t, __u32 tid,
					      bool btf)
{
	struct task_st *st, *old;
	__u32 idx = tid & slot_mask;

	if (!btf)
		return st_hashed(tid);
	st = bpf_map_lookup_elem(&task_slots, &idx);
	if (!st)
		return NULL;
	if (st->tid != tid && !st->tid && !__sync_val_compare_and_swap(&st->tid, 0, tid)) {
		/* claimed: take over what its overflow record held, if any */
		old = st_overflow(t, tid);
		if (old) {
			st->ts = old->ts;
			st->kind = old->kind;
			st->hc = old->hc;
			st->ft = old->ft;
			st->tm = old->tm;
			if (no_storage_new) {	/* one record a thread */
				__u32 k = tid;

				bpf_map_delete_elem(&task_st_hash, &k);
			}
		} else {
			st_clear(st);
		}
	}
	/* also when another event of this task claimed it just now */
	if (st->tid == tid)
		return st;
	/* another live thread owns the slot */
	if (no_storage_new)
		return st_hashed(tid);
	return bpf_task_storage_get(&task_st, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* A task's record if it has one: no claim, no new storage (the time
 * family's iterator, which must not make records for every task it sees) */
static __always_inline struct task_st *st_find(struct task_struct *t, __u32 tid)
{
	__u32 idx = tid & slot_mask;
	struct task_st *st = bpf_map_lookup_elem(&task_slots, &idx);

	if (st && st->tid == tid)
		return st;
	return st_overflow(t, tid);
}

/* st_get for an event of a target: a missing record is a lost event */
static __always_inline struct task_st *st_need(struct task_struct *t, __u32 tid,
					       bool btf)
{
	struct task_st *st = st_get(t, tid, btf);

	if (!st)
		__sync_fetch_and_add(&st_lost, 1);
	return st;
}

static __always_inline struct lat_sched_thread *
thread_get(struct task_struct *t, __u32 tid, __u32 tgid,
	   struct lat_sched_cpu *cpu)
{
	struct lat_sched_thread *th;
	__u32 zkey = 0, born = (__u32)(BPF_CORE_READ(t, start_time) >> 10);
	void *zero;

	th = bpf_map_lookup_elem(&sched_threads, &tid);
	if (th && th->born == born)
		return th;
	if (th) {
		/* an earlier task's entry, its tid reused before the loader
		 * read it a last time: not this task's to write (its own
		 * totals keep the sample) */
		cpu->threads_dropped++;
		return NULL;
	}
	zero = bpf_map_lookup_elem(&sched_zero, &zkey);
	if (!zero)
		return NULL;
	if (bpf_map_update_elem(&sched_threads, &tid, zero, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&sched_threads, &tid)) {
		cpu->threads_dropped++;
		return NULL;
	}
	th = bpf_map_lookup_elem(&sched_threads, &tid);
	if (th && th->tid == 0) {
		th->tid = tid;
		th->tgid = tgid;
		th->born = born;
		/* once per thread; a thread first seen switching in has a name
		 * before its first switch-out too */
		bpf_probe_read_kernel_str(th->comm, sizeof(th->comm), t->comm);
	}
	return th;
}

static __always_inline struct lat_sched_cpu *cpu_get(void)
{
	return lat_cpu_value(&sched_cpu);
}

/* cpu: this CPU's slot where the caller has it (a switch looks it up once
 * for both its tasks), else NULL */
static __always_inline void record(struct task_struct *t, __u32 tid, __u32 tgid,
				   int which, __u64 d, struct lat_sched_cpu *cpu)
{
	struct lat_sched_thread *th;

	if (!cpu && !(cpu = cpu_get()))
		return;
	if (which < 0 || which >= LAT_SCHED_NR_HIST)
		return;
	/* with the time family on, its per-cause histograms are these too
	 * (bpf/time.bpf.h): one record an episode */
	if (!en_time)
		lat_hist_record(&cpu->h[which], d);
	if (per_thread && (th = thread_get(t, tid, tgid, cpu)))
		lat_hist_record(&th->h[which], d);
}

static __always_inline void on_wakeup(struct task_struct *p, struct task_st *st,
				      bool btf, __u64 *clock)
{
	__u32 tid = TREAD(btf, p, pid), tgid = TREAD(btf, p, tgid);
	__u64 now;

	/* running still: woken after it set its sleep state, before it
	 * slept (a record just made has no timestamp: queued from now) */
	if (st->kind == ST_ONCPU && st->ts)
		return;
	now = lat_clock(clock);
	if (st->kind == ST_SLEEP || st->kind == ST_BLOCKED)
		record(p, tid, tgid,
		       st->kind == ST_SLEEP ? LAT_SCHED_SLEEP : LAT_SCHED_BLOCKED,
		       now - st->ts, NULL);
	if (st->kind != ST_RUNQ) {
		st->kind = ST_RUNQ;
		st->ts = now;
	}
}

/* sp, sn: the records of prev and next, NULL unless they are targets */
static __always_inline void on_switch(bool preempt, struct task_struct *prev,
				      struct task_struct *next, struct task_st *sp,
				      struct task_st *sn, bool btf, __u64 *clock)
{
	struct lat_sched_thread *th;
	struct lat_sched_cpu *cpu = NULL;	/* looked up once, for both */
	struct task_st *st = sp;
	__u32 tid, tgid, state;
	__u64 now = 0;

	if (st) {
		tid = TREAD(btf, prev, pid);
		tgid = TREAD(btf, prev, tgid);
		now = lat_clock(clock);
		cpu = cpu_get();
		if (!cpu)
			return;
		/* The kernel's own rule: preempted, or never left TASK_RUNNING
		 * (including a sleep undone by a pending signal), stays queued. */
		state = btf ? lat_task_state_btf(prev) : lat_task_state(prev);
		/* Still "away" while running: the kernel emitted neither the
		 * wakeup nor the switch-in of its last sleep (seen on 6.18 for
		 * about 1 in 1600 timer sleeps, by bpftrace too). */
		if (st->kind == ST_SLEEP || st->kind == ST_BLOCKED)
			cpu->unseen++;
		/* Preempted, and back without a traced switch-in (6.18 leaves
		 * out some switches, of the idle task's among them): its wait
		 * ended where the fair class says this run began. (A wakeup
		 * of a running task leaves it ST_ONCPU: on_wakeup.) */
		if (st->kind == ST_RUNQ) {
			__u64 ran = lat_task_last_run(prev, btf);

			if (ran < now - st->ts)
				record(prev, tid, tgid, LAT_SCHED_RUNQ, now - ran - st->ts, cpu);
		}
		th = per_thread ? thread_get(prev, tid, tgid, cpu) : NULL;
		/* at switch-out, so exec and prctl renames show up; through a
		 * BTF pointer plain loads, not a helper call on every switch */
		if (th && btf)
			__builtin_memcpy(th->comm, prev->comm, sizeof(th->comm));
		else if (th)
			bpf_probe_read_kernel_str(th->comm, sizeof(th->comm), prev->comm);
		if (preempt || state == 0) {
			st->kind = ST_RUNQ;
			cpu->involuntary++;
			if (th)
				th->involuntary++;
		} else {
			st->kind = (state & 1 /* TASK_INTERRUPTIBLE */) ?
					   ST_SLEEP : ST_BLOCKED;
			cpu->voluntary++;
			if (th)
				th->voluntary++;
		}
		st->ts = now;
		/* its last switch: the loader may read the entry a last time
		 * and delete it (xchg: the counts above land first) */
		if (th && (state & TASK_DEAD))
			__sync_lock_test_and_set(&th->exited, 1);
	}

	st = sn;
	if (!st)
		return;
	tid = TREAD(btf, next, pid);
	tgid = TREAD(btf, next, tgid);
	if (st->kind != ST_ONCPU && !now)
		now = lat_clock(clock);
	if (st->kind == ST_RUNQ) {
		record(next, tid, tgid, LAT_SCHED_RUNQ, now - st->ts, cpu);
	} else if (st->kind != ST_ONCPU) {
		/* Back without a wakeup event: the off-CPU time then includes
		 * the run-queue wait; record it, and count the gap. */
		record(next, tid, tgid, st->kind == ST_SLEEP ? LAT_SCHED_SLEEP :
			LAT_SCHED_BLOCKED, now - st->ts, cpu);
		if (cpu || (cpu = cpu_get()))
			cpu->unseen++;
	}
	st->kind = ST_ONCPU;
}

/* A target thread (never an idle task), decided once per event. Whole
 * system: every task with a pid, its tgid never read (the verifier folds
 * the filter's rodata, but a load clang hoisted above it stays: two dead
 * loads a task on every switch) */
#define TARGET(btf, t) (TREAD(btf, t, pid) && \
			(!lat_filtering() || \
			 lat_task_is_target(t, TREAD(btf, t, tgid), TREAD(btf, t, pid), btf)))

/* fresh: a new task (sched_wakeup_new), whose record starts clean */
/* Whether the sched family keeps its own state of each target: without the
 * time family, or for its per-thread histograms. With time on, time's
 * episodes are sched's too (its histograms their sums, its switch counts
 * kept in time's per-CPU slots), so an event is timed once. */
#define SCHED_OWN(btf) (en_sched && (!((btf) && en_time) || per_thread))

static __always_inline int wakeup(struct task_struct *p, bool btf, bool fresh)
{
	struct task_st *st;
	__u64 clock = 0, ts;

	if (!TARGET(btf, p) || !(st = st_need(p, TREAD(btf, p, pid), btf)))
		return 0;
	if (fresh)
		st_clear(st);
	ts = st->ts;
	if (SCHED_OWN(btf))
		on_wakeup(p, st, btf, &clock);
	if (btf && en_hiccup)
		hiccup_on_wakeup(p, &st->hc, &clock);
	if (btf && en_time)
		time_on_wakeup(p, &st->tm, &st->ts, ts, fresh, slot_mask, &clock);
	return 0;
}

/* cast: the time family's twin that reads saved registers without a
 * helper call (bpf/compat.bpf.h) */
static __always_inline int do_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next, bool btf, bool cast)
{
	bool tprev = TARGET(btf, prev), tnext = TARGET(btf, next);
	struct task_st *sp = NULL, *sn = NULL;
	__u64 clock = 0, ts_prev = 0, ts_next = 0;
	__u32 state = 0;

	if (tprev)
		sp = st_need(prev, TREAD(btf, prev, pid), btf);
	if (tnext)
		sn = st_need(next, TREAD(btf, next, pid), btf);
	if (btf && en_time && (tprev || tnext)) {
		ts_prev = sp ? sp->ts : 0;
		ts_next = sn ? sn->ts : 0;
		state = tprev ? lat_task_state_btf(prev) : 0;
	}
	if (SCHED_OWN(btf))
		on_switch(preempt, prev, next, sp, sn, btf, &clock);
	/* hiccup also runs with no target on this CPU: a waiting one's window */
	if (btf && en_hiccup)
		hiccup_on_switch(preempt, prev, next, sp ? &sp->hc : NULL,
				 sn ? &sn->hc : NULL, tnext, &clock);
	if (btf && en_fault)
		fault_on_switch(preempt, prev, sp ? &sp->ft : NULL, sn ? &sn->ft : NULL,
				&clock);
	/* with the time family carrying the episodes, sched's switch counts
	 * are kept in its per-CPU slots (include/latbpf/time.h) */
	if (btf && en_time && (tprev || tnext))
		time_on_switch(preempt, state, prev, next, sp ? &sp->tm : NULL,
			       sn ? &sn->tm : NULL, sp ? &sp->ts : NULL,
			       sn ? &sn->ts : NULL, ts_prev, ts_next, cast,
			       en_sched && !SCHED_OWN(btf), tprev, &clock);
	/* prev's last switch: its slot is free for the next owner of the tid
	 * (xchg: every write of the record above lands before the release) */
	if (btf && sp && sp->tid && (lat_task_state_btf(prev) & TASK_DEAD))
		__sync_lock_test_and_set(&sp->tid, 0);
	/* raw_tp, and tp_btf on PREEMPT_RT (a record in the table has no owner
	 * tid): a dead task's record goes, so the table holds live tasks */
	else if (sp && (!btf || (no_storage_new && !sp->tid)) &&
		 ((btf ? lat_task_state_btf(prev) : lat_task_state(prev)) & TASK_DEAD)) {
		__u32 tid = BPF_CORE_READ(prev, pid);

		bpf_map_delete_elem(&task_st_hash, &tid);
	}
	return 0;
}

/* A thread's exit when it is no longer a target (moved out of the target
 * cgroup): its last switch is not traced, so its slot would stay taken, by
 * a tid a later thread may get (inheriting a stale record: a sleep from
 * before its birth), and a record in task_st_hash (raw_tp, PREEMPT_RT)
 * would fill the table. Freed here, in its own context. A target's go at
 * its last switch (do_switch), after this; system-wide every thread is
 * one. */
/* Gives back the record of tid, a thread that is no longer a target: its
 * slot, its table entry; live (alive: its task storage too, which goes by
 * itself with a task that exits) */
static __always_inline void st_release(struct task_struct *t, __u32 tid, bool btf, bool alive)
{
	struct task_st *st;
	__u32 idx;

	if (btf) {
		idx = tid & slot_mask;
		st = bpf_map_lookup_elem(&task_slots, &idx);
		if (st && st->tid == tid) {
			__sync_val_compare_and_swap(&st->tid, tid, 0);
			return;
		}
		if (!no_storage_new) {
			if (alive)
				bpf_task_storage_delete(&task_st, t);
			return;
		}
	}
	bpf_map_delete_elem(&task_st_hash, &tid);
}

static __always_inline int on_exit(struct task_struct *t, bool btf)
{
	__u32 tid;

	if (!lat_filtering())
		return 0;
	tid = TREAD(btf, t, pid);
	if (!tid || TARGET(btf, t))
		return 0;
	st_release(t, tid, btf, false);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit, struct task_struct *p)
{
	return on_exit(p, true);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_exit_raw, struct task_struct *p)
{
	return on_exit(p, false);
}

/* Timer lateness, the sched family's too: its programs need the maps
 * and helpers above. */
#include "timer.bpf.h"

/* The fault family's own tracepoints (x86): see bpf/fault.bpf.h. */
SEC("tp_btf/page_fault_user")
int BPF_PROG(fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct task_st *st;

	if (!TARGET(true, t))
		return 0;
	st = st_need(t, t->pid, true);
	fault_on_entry(st ? &st->ft : NULL, regs, error_code);
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(fault_filemap)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (TARGET(true, t))
		fault_on_filemap();
	return 0;
}

/* The time family's iterator (src/families/time.c runs it at each poll):
 * every target thread's open episode credited up to now; on its first run
 * at the run's start, a record for each that has none (bpf/time.bpf.h).
 * Without the time family, under --cgroup, the shared object's sweep
 * (families/schedcore.c): the records of threads moved out, alone. */
SEC("iter/task")
int time_iter(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct task_st *st;

	if (!t)
		return 0;
	/* A thread that stopped being a target and lives on (moved out of
	 * the target cgroup): its record goes, as at an exit, so that if it
	 * comes back it starts afresh from its first event there, instead of
	 * one sleep or run across its time away (which its switches outside
	 * did not end). Away for less than a poll, that one episode stays. */
	if (!TARGET(true, t)) {
		if (lat_filtering() && t->pid && st_find(t, t->pid))
			st_release(t, t->pid, true, true);
		return 0;
	}
	if (!en_time)
		return 0;
	st = time_iter_init ? st_get(t, t->pid, true) : st_find(t, t->pid);
	if (st)
		time_iter_task(t, &st->tm, &st->ts);
	return 0;
}

/* The time family's (bpf/time.bpf.h): who wakes a target, in the waker's
 * context; the sleep itself ends at sched_wakeup, as for every family. */
SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	if (en_time && TARGET(true, p))
		time_on_waking(p, slot_mask);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	return wakeup(p, true, false);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	return wakeup(p, true, true);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return do_switch(preempt, prev, next, true, false);
}

/* The same, reading saved registers without a helper call: the time
 * family's, on kernels with bpf_rdonly_cast() (bpf/compat.bpf.h) */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_cast, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return do_switch(preempt, prev, next, true, true);
}

/* The raw_tp twins serve the sched family only: hiccup needs BTF pointers. */
SEC("raw_tp/sched_wakeup")
int BPF_PROG(sched_wakeup_raw, struct task_struct *p)
{
	return wakeup(p, false, false);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new_raw, struct task_struct *p)
{
	return wakeup(p, false, true);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(sched_switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return do_switch(preempt, prev, next, false, false);
}

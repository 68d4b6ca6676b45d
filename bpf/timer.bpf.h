/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timer lateness (sched family): how late a target thread's timed waits
 * fired. A thread that sleeps until T (nanosleep, clock_nanosleep, a poll,
 * select, epoll_wait or futex timeout, a timerfd, a POSIX timer, alarm)
 * arms an hrtimer in its own context; the hrtimer interrupt (or, for a soft
 * timer, the hrtimer softirq) runs it at some time `now` >= T. now - T is
 * the timer's lateness: interrupts held off, a CPU slow to leave a deep
 * idle state, a vCPU the hypervisor did not run. It ends where run-queue
 * latency begins (the wakeup the timer's function does), so the two add up
 * to how late the thread ran after T.
 *
 *   timer:hrtimer_start, by a target thread: the timer's address and
 *     _softexpires (T: what the thread asked for; `expires` is T plus the
 *     timer slack, 50 us for a normal thread, 0 for a real-time one, the
 *     latest the kernel promises), kept in tl_armed
 *   timer:hrtimer_expire_entry: `now`, read on the timer's own clock base
 *     (basenow: CLOCK_MONOTONIC, REALTIME, BOOTTIME or TAI as the timer
 *     was set up), the clock T is in, so now - T needs no conversion
 *
 * Which timers are a thread's waits: those whose function is one of a
 * wait's (tl_fn, from /proc/kallsyms: hrtimer_wakeup, the sleeper of
 * nanosleep, futex, poll, select, epoll and every schedule_hrtimeout;
 * timerfd_tmrproc; posix_timer_fn; it_real_fn), armed by the thread and
 * not restarted from their own callback. A target interrupted while the
 * tick, a periodic kernel timer or a driver's timer is armed is in
 * `current` without those being its waits; the preempt count that says
 * "interrupt" is a per-CPU variable the kernel cannot resolve without
 * KALLSYMS_ALL (6.18 here: "ldimm64 failed to find the address for kernel
 * symbol '__preempt_count'"), so the function says it instead, and costs
 * a timer that is nobody's wait one compare at expiry.
 *
 * An entry whose timer was re-armed since by someone else has another T
 * and is not matched. A wait that ends before its timer (data arrived, a
 * futex was woken, the thread exits) cancels it: timer:hrtimer_cancel
 * before T deletes the entry. (The expiry traces a cancel too, at T or
 * after: that one leaves it.) Not an LRU map: on 6.18 one lost 2 or 3 of
 * 1000 entries it had room for, the kernel evicting on updates (patches
 * "bpf: lru: Avoid unintended eviction when updating lru hash maps"); a
 * full table refuses an insert instead, counted in tl_lost.
 *
 * bpf/sched.bpf.c includes this after its maps: the histograms are the
 * sched family's (LAT_SCHED_TIMER, per CPU and, with --per-thread, per
 * thread), and with the hiccup family on, the lateness goes with the
 * wakeup it causes (hiccup_on_timer).
 */
#ifndef LATBPF_TIMER_BPF_H
#define LATBPF_TIMER_BPF_H

const volatile bool en_timer = false;
/* armed timers the table had no room for (the loader reads .bss) */
__u64 tl_lost = 0;
/* the functions of a wait's timer; 0: not in this kernel */
const volatile __u64 tl_fn[LAT_TIMER_FNS] = {};

/* a target's armed timer, by the timer's address */
struct tl_armed {
	__s64 soft;	/* _softexpires as armed: the timer's own clock */
	__u32 tid;
	__u32 born;	/* the task's start_time >> 10, as in lat_sched_thread */
	__u32 pinned;	/* the thread's affinity was one CPU */
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* set by the loader */
	__type(key, __u64);
	__type(value, struct tl_armed);
} tl_armed SEC(".maps");

/* whether timer is a wait's, by its function (BTF pointer when btf) */
static __always_inline bool tl_is_wait(struct hrtimer *timer, bool btf)
{
	__u64 fn;
	int i;

	if (!bpf_core_field_exists(timer->function))
		return false;
	fn = (__u64)TREAD(btf, timer, function);
	for (i = 0; i < LAT_TIMER_FNS; i++)
		if (fn && fn == tl_fn[i])
			return true;
	return false;
}

static __always_inline int timer_on_start(struct hrtimer *timer, bool btf)
{
	__u64 id = bpf_get_current_pid_tgid(), key = (__u64)timer;
	__u32 tid = (__u32)id, tgid = id >> 32;
	struct lat_sched_cpu *cpu;
	struct task_struct *t;
	struct tl_armed a = {};

	if (!en_timer || !tl_is_wait(timer, btf))
		return 0;
	if (!tid || !lat_task_is_target(NULL, tgid, tid, false))
		return 0;
	/* restarted by its own callback (a periodic POSIX timer whose
	 * signal is ignored): whoever it interrupted did not arm it */
	if ((btf ? (void *)timer->base->running :
		   (void *)BPF_CORE_READ(timer, base, running)) == (void *)timer)
		return 0;
	t = btf ? bpf_get_current_task_btf() : (struct task_struct *)bpf_get_current_task();
	a.soft = TREAD(btf, timer, _softexpires);
	a.tid = tid;
	a.born = (__u32)(TREAD(btf, t, start_time) >> 10);
	a.pinned = TREAD(btf, t, nr_cpus_allowed) == 1;
	if (bpf_map_update_elem(&tl_armed, &key, &a, BPF_ANY))
		__sync_fetch_and_add(&tl_lost, 1);
	/* the thread's entry, so its expiry (in interrupt context, where the
	 * task is not at hand) finds one */
	if (per_thread && (cpu = cpu_get()))
		thread_get(t, tid, tgid, cpu);
	return 0;
}

static __always_inline int timer_on_expire(struct hrtimer *timer, ktime_t *nowp, bool btf)
{
	__u64 key = (__u64)timer, late;
	struct lat_sched_thread *th;
	struct lat_sched_cpu *cpu;
	struct tl_armed *a, got;
	struct task_st *st;
	__s64 soft, now;
	__u32 idx;

	if (!en_timer || !tl_is_wait(timer, btf))
		return 0;
	a = bpf_map_lookup_elem(&tl_armed, &key);
	if (!a)
		return 0;
	soft = TREAD(btf, timer, _softexpires);
	got = *a;
	bpf_map_delete_elem(&tl_armed, &key);
	/* re-armed since by someone else */
	if (soft != got.soft || bpf_probe_read_kernel(&now, sizeof(now), nowp))
		return 0;
	/* the kernel runs a timer once basenow >= _softexpires */
	late = now > soft ? (__u64)(now - soft) : 0;
	if ((cpu = cpu_get()))
		lat_hist_record(&cpu->h[LAT_SCHED_TIMER], late);
	/* a thread's timers may fire on two CPUs at once: a rare lost
	 * increment, as one thread mostly waits on one timer at a time */
	if (per_thread && (th = bpf_map_lookup_elem(&sched_threads, &got.tid)) &&
	    th->born == got.born)
		lat_hist_record(&th->h[LAT_SCHED_TIMER], late);
	if (!btf || !en_hiccup)
		return 0;
	/* the thread's record, if it owns its slot (else the task is not at
	 * hand to find its task storage: the lateness is then counted on the
	 * CPU but goes with no wakeup) */
	idx = got.tid & slot_mask;
	st = bpf_map_lookup_elem(&task_slots, &idx);
	hiccup_on_timer(st && st->tid == got.tid ? &st->hc : NULL, late, got.pinned);
	return 0;
}

/* A cancel before the timer's time is a wait that ended first: its entry
 * goes. At or after it, the cancel is the expiry's own (__run_hrtimer
 * traces it before running the timer), and the entry waits for it. */
static __always_inline int timer_on_cancel(struct hrtimer *timer, bool btf)
{
	__u64 key = (__u64)timer;
	struct tl_armed *a;
	__s64 now;

	if (!en_timer || !tl_is_wait(timer, btf))
		return 0;
	a = bpf_map_lookup_elem(&tl_armed, &key);
	if (!a)
		return 0;
	/* the timer's clock: CLOCK_MONOTONIC plus its base's offset */
	now = (__s64)bpf_ktime_get_ns() +
	      (btf ? timer->base->offset : BPF_CORE_READ(timer, base, offset));
	if (now < a->soft)
		bpf_map_delete_elem(&tl_armed, &key);
	return 0;
}

SEC("tp_btf/hrtimer_start")
int BPF_PROG(timer_start, struct hrtimer *timer)
{
	return timer_on_start(timer, true);
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(timer_expire, struct hrtimer *timer, ktime_t *now)
{
	return timer_on_expire(timer, now, true);
}

SEC("tp_btf/hrtimer_cancel")
int BPF_PROG(timer_cancel, struct hrtimer *timer)
{
	return timer_on_cancel(timer, true);
}

SEC("raw_tp/hrtimer_start")
int BPF_PROG(timer_start_raw, struct hrtimer *timer)
{
	return timer_on_start(timer, false);
}

SEC("raw_tp/hrtimer_expire_entry")
int BPF_PROG(timer_expire_raw, struct hrtimer *timer, ktime_t *now)
{
	return timer_on_expire(timer, now, false);
}

SEC("raw_tp/hrtimer_cancel")
int BPF_PROG(timer_cancel_raw, struct hrtimer *timer)
{
	return timer_on_cancel(timer, false);
}

#endif

#!/usr/bin/env bash
# latbpf never delays its target (issue #29 item 1). A target of 8 threads,
# not pinned, each waking every 200 us to 2 ms, is traced with every family,
# --per-thread --per-cpu --json, at a 100 ms and then a 1 s interval. Two
# observers measure what latbpf's own threads cost the target:
#  - bpftrace (outside latbpf): every time a target thread woke on a CPU
#    where a latbpf thread was running, until latbpf left that CPU;
#  - latbpf's hiccup family: the intruder "latbpf (self)" of each CPU.
# Both: at most 0.05 % of the target's time in all, less the host's stalls
# of a vCPU (below, delay_by); the loader before it yielded: 0.16 % at 100
# ms; with an access() per intruder and the fdinfo of every map at each
# poll, 0.074 % on 2026-11-27, 0.015 % after, 0.002 % once the interrupts
# (the local timer's above all) were their own. bpftrace's, at most 2 ms
# for any one wait, rarely, and at most 100 us (both TODOs of the open
# issue: latbpf's system calls on a kernel without preemption, and this
# host's vCPU stalls, docs/performance.md, "The host's floor"). What
# latbpf decides is checked besides: at every wakeup
# of a target on latbpf's CPU the kernel had decided to preempt latbpf
# (need_resched); a control, an idle task that does no work, waits
# beside latbpf in the same run, its figures reported as the host's floor.
# The longest of each is reported: the hiccup family's is
# latbpf's run while any of the 8 threads waited for its CPU, which can be
# longer than one thread's wait. Then, with a CPU hog at normal priority on both CPUs,
# latbpf (at SCHED_IDLE) still writes every interval record, says which
# polls came late, and its count of the target's sleeps agrees with the
# target's own.
. "$(dirname "$0")/lib.sh"
need_root
for c in bpftrace jq; do
	command -v $c >/dev/null || cannot_run "$c missing (tools/install-deps.sh)"
done
[ "$(nproc)" -ge 2 ] || cannot_run "needs 2 CPUs"
SECS=${YIELD_SECS:-20}

# delay_by PID TIDS SECS CTL: "n sum_ns max_ns long stalls stall_ns picked
# over nr_set nr_unset nr_unknown cn csum_ns cmax_ns cover nr_guard" of
# the stretches in which a thread of TIDS (comma-separated) was woken onto a
# CPU that a thread of latbpf's process PID held, or in which latbpf's
# thread was given a CPU where such a thread waited already (picked: how
# often: EEVDF picks by eligibility and deadline, not weight, 9 times in
# 6 s here, each run 64-128 us, which a count of wakeups alone did not
# see), until that thread switched out, less the interrupts and softirqs
# the CPU ran meanwhile, x86's system interrupts among them (theirs, not
# latbpf's: the hiccup family charges them to themselves too; the local
# timer's, in which a sleeper's wakeup runs, was 8-16 us of each such
# stretch); long: those over 2 ms, over: over 100 us. The same of the
# control process CTL (c...). nr_*: at each wakeup onto a CPU that a
# latbpf thread at SCHED_IDLE held, whether that thread's need_resched was
# set (the kernel's decision to preempt it, taken before the event), not
# set, or could not be read (its task not seen yet); nr_guard: wakeups
# where latbpf's guard thread held the CPU.
# Then where each wait of latbpf's began, for "kover kmax umax": kover and
# kmax count and bound the waits over 100 us in latbpf's own kernel work
# (it was in a system call when the target woke, or took a page fault
# before it left; this kernel preempts neither); umax is the longest of
# the rest, which found latbpf in user space, where the kernel preempts it
# at the interrupt's return: such a wait is as long as this host takes to
# deliver that (a vCPU it stops, a reschedule IPI late), as the control's.
# Stalls: this host is a VM whose vCPUs its host stops now and then (its
# steal clock did not show them: docs/performance.md, "Another group's
# tasks"). A CPU that runs anything, latbpf too, takes the
# 1999 Hz profile timer's interrupt every 0.5 ms; a stretch in which that
# CPU went 2 ms or more without one (from the wakeup on) did not run at all
# for that long (else a system call of latbpf's would have kept interrupts
# off for 2 ms; its longest of any kind took 0.2 ms here). Such stretches
# are the host's, counted apart (stalls, stall_ns) and left out of the rest.
# Found 2026-11-27: of 8 waits over 1.5 ms, 3 had 0-3 samples in 3-10 ms.
delay_by() {
	local cond nrb
	nrb=$(need_resched_bit)
	cond=$(tr ',' '\n' <<<"$2" | sed 's/.*/args->pid == &/' | paste -sd'|' - | sed 's/|/ || /g')
	timeout -s INT "$(($3 + 30))" bpftrace -q -e "
		profile:hz:1999 {
			if (@woke[cpu]) {
				\$f = @last[cpu] > @woke[cpu] ? @last[cpu] : @woke[cpu];
				if (nsecs - \$f > @gap[cpu]) { @gap[cpu] = nsecs - \$f; }
			}
			@last[cpu] = nsecs;
		}
		/* latbpf in its own kernel work: a system call, a fault */
		tracepoint:raw_syscalls:sys_enter /@lat[tid]/ { @sc[tid] = args->id + 1; }
		tracepoint:raw_syscalls:sys_exit /@lat[tid]/ { delete(@sc[tid]); }
		tracepoint:exceptions:page_fault_user, tracepoint:exceptions:page_fault_kernel /@lat[tid]/ { @flt[cpu] = 1; }
		tracepoint:sched:sched_switch {
			/* whose task this is, for its flags at a wakeup */
			if (@lat[args->prev_pid]) { @task[args->prev_pid] = (uint64)curtask; }
			if ((@held[cpu] == 1 || @held[cpu] == 3) && @woke[cpu]) {
				\$e = nsecs - @woke[cpu];
				\$d = \$e > @intr[cpu] ? \$e - @intr[cpu] : 0;
				\$f = @last[cpu] > @woke[cpu] ? @last[cpu] : @woke[cpu];
				\$g = nsecs - \$f > @gap[cpu] ? nsecs - \$f : @gap[cpu];
				if (\$g >= 2000000) {
					@stalls = count(); @stall_ns = sum(\$d);
				} else {
					@n = count(); @sum = sum(\$d); @max = max(\$d);
					if (\$d > 2000000) { @long = count(); }
					if (\$d > 100000) { @over = count(); }
					if (@insc[cpu] || @flt[cpu]) {
						if (\$d > 100000) {
							@kover = count();
							/* which: the system call's number, -1 a fault */
							@kwhat[@insc[cpu] - 1] = max(\$d);
						}
						@kmax = max(\$d);
					} else {
						@umax = max(\$d);
					}
				}
			}
			/* the same for the control (the stalls left out alike) */
			if (@held[cpu] == 2 && @woke[cpu]) {
				\$e = nsecs - @woke[cpu];
				\$d = \$e > @intr[cpu] ? \$e - @intr[cpu] : 0;
				\$f = @last[cpu] > @woke[cpu] ? @last[cpu] : @woke[cpu];
				\$g = nsecs - \$f > @gap[cpu] ? nsecs - \$f : @gap[cpu];
				if (\$g < 2000000) {
					@cn = count(); @csum = sum(\$d); @cmax = max(\$d);
					if (\$d > 100000) { @cover = count(); }
				}
			}
			delete(@woke[cpu]);
			delete(@intr[cpu]);
			delete(@gap[cpu]);
			delete(@insc[cpu]);
			delete(@flt[cpu]);
			@held[cpu] = @lat[args->next_pid] ? @lat[args->next_pid] : (args->next_pid == $4 ? 2 : 0);
			@heldtid[cpu] = args->next_pid;
			/* the targets queued on each CPU: woken there, moved,
			 * switched out runnable (state 0, or preempted); off
			 * the queue when they run */
			if (@qc[args->prev_pid]) {
				@q[@qc[args->prev_pid] - 1] = @q[@qc[args->prev_pid] - 1] - 1;
				delete(@qc[args->prev_pid]);
			}
			if (@qc[args->next_pid]) {
				@q[@qc[args->next_pid] - 1] = @q[@qc[args->next_pid] - 1] - 1;
				delete(@qc[args->next_pid]);
			}
			if (@tgt[args->prev_pid] && (args->prev_state & 0xff) == 0) {
				@q[cpu] = @q[cpu] + 1;
				@qc[args->prev_pid] = cpu + 1;
			}
			/* latbpf picked while a target waits on this CPU
			 * (EEVDF: by eligibility and deadline, not weight):
			 * its run is a wait behind it too */
			if (@held[cpu] && @q[cpu] > 0) {
				@woke[cpu] = nsecs;
				@gap[cpu] = 0;
				@flt[cpu] = 0;
				if (@held[cpu] != 2) { @picked = count(); }
			}
		}
		tracepoint:sched:sched_migrate_task /@qc[args->pid]/ {
			@q[@qc[args->pid] - 1] = @q[@qc[args->pid] - 1] - 1;
			@q[args->dest_cpu] = @q[args->dest_cpu] + 1;
			@qc[args->pid] = args->dest_cpu + 1;
		}
		tracepoint:irq:softirq_entry { @sin[cpu] = nsecs; }
		tracepoint:irq:softirq_exit /@sin[cpu]/ {
			if (@woke[cpu]) {
				\$s = @sin[cpu] > @woke[cpu] ? @sin[cpu] : @woke[cpu];
				@intr[cpu] = @intr[cpu] + nsecs - \$s;
			}
			delete(@sin[cpu]);
		}
		tracepoint:irq:irq_handler_entry, tracepoint:irq_vectors:*_entry { @hin[cpu] = nsecs; }
		tracepoint:irq:irq_handler_exit, tracepoint:irq_vectors:*_exit /@hin[cpu]/ {
			/* inside a softirq: inside its span, counted at its exit */
			if (@woke[cpu] && !@sin[cpu]) {
				\$s = @hin[cpu] > @woke[cpu] ? @hin[cpu] : @woke[cpu];
				@intr[cpu] = @intr[cpu] + nsecs - \$s;
			}
			delete(@hin[cpu]);
		}
		/* latbpf's own thread woken while a target waits for its CPU:
		 * it was asleep in a nap, or about to sleep (its state set, its
		 * timer fired before schedule()), the switch that left it not
		 * traced (6.18 leaves out some of the idle task's). Until now
		 * that CPU ran nothing of latbpf's: the wait behind it starts
		 * here. Found 2026-12-02: 7 of 17 waits over 100 us in 4 runs
		 * had such a wakeup in them, 105-610 us after the target's,
		 * each 0-20 us before the CPU's first profile sample since
		 * (1999 Hz): the CPU took no interrupt meanwhile, its timers
		 * (latbpf's 1 us nap among them) late alike, as a halted vCPU
		 * its host wakes late; latbpf left 0-32 us after its wakeup */
		tracepoint:sched:sched_wakeup /@lat[args->pid] && @woke[args->target_cpu] &&
					       @heldtid[args->target_cpu] == args->pid/ {
			@napped = count(); @napped_ns = sum(nsecs - @woke[args->target_cpu]);
			@woke[args->target_cpu] = nsecs;
			@intr[args->target_cpu] = 0;
			@gap[args->target_cpu] = 0;
		}
		tracepoint:sched:sched_wakeup /$cond/ {
			if (@held[args->target_cpu] && !@woke[args->target_cpu]) {
				@woke[args->target_cpu] = nsecs;
				@gap[args->target_cpu] = 0;
				@flt[args->target_cpu] = 0;
				if (@sc[@heldtid[args->target_cpu]]) { @insc[args->target_cpu] = @sc[@heldtid[args->target_cpu]]; }
				/* latbpf's thread there: did the kernel decide to
				 * preempt it (need_resched set, before this event)?
				 * Not asked of the guard, which wakes for a few us
				 * when a poll is late, at the start's priority so
				 * that it runs on a host too busy for latbpf */
				if (@held[args->target_cpu] == 3) { @nr_guard = count(); }
				if (@held[args->target_cpu] == 1) {
					\$t = @heldtid[args->target_cpu];
					if (!@task[\$t]) { @nr_unknown = count(); }
					else if (((struct task_struct *)@task[\$t])->thread_info.flags & $nrb) { @nr_set = count(); }
					else { @nr_unset = count(); }
				}
			}
			if (!@qc[args->pid]) {
				@q[args->target_cpu] = @q[args->target_cpu] + 1;
				@qc[args->pid] = args->target_cpu + 1;
			}
		}
		interval:s:$3 { exit(); }
		BEGIN { $(for t in $(ls /proc/"$1"/task); do
				# 3: the guard, at the priority latbpf was started
				# with (src/core/away.c), the others at SCHED_IDLE
				echo "@lat[$t] = $([ "$(cat /proc/"$1"/task/"$t"/comm)" = latbpf-guard ] && echo 3 || echo 1);"
			done)
			$(tr ',' '\n' <<<"$2" | sed 's/.*/@tgt[&] = 1;/') }
		END { clear(@held); clear(@woke); clear(@lat); clear(@sin); clear(@hin); clear(@intr); clear(@last); clear(@gap);
		      clear(@q); clear(@qc); clear(@tgt); clear(@heldtid); clear(@task);
		      clear(@sc); clear(@flt); clear(@insc); }" 2>&1 |
		awk '/^@n:/ { n = $2 } /^@sum:/ { s = $2 } /^@max:/ { m = $2 } /^@long:/ { l = $2 }
		     /^@stalls:/ { st = $2 } /^@stall_ns:/ { sn = $2 } /^@picked:/ { p = $2 }
		     /^@over:/ { o = $2 } /^@nr_set:/ { ns = $2 } /^@nr_unset:/ { nu = $2 } /^@nr_unknown:/ { nk = $2 } /^@nr_guard:/ { ng = $2 }
		     /^@cn:/ { cn = $2 } /^@csum:/ { cs = $2 } /^@cmax:/ { cm = $2 } /^@cover:/ { co = $2 }
		     /^@kover:/ { ko = $2 } /^@kmax:/ { km = $2 } /^@umax:/ { um = $2 }
		     /^@napped:/ { na = $2 } /^@napped_ns:/ { nn = $2 }
		     /^@kwhat\[/ { gsub(/[^-0-9 ]/, ""); kw = kw (kw ? "," : "") $1 ":" $2 }
		     END { print n + 0, s + 0, m + 0, l + 0, st + 0, sn + 0, p + 0, o + 0, ns + 0, nu + 0, nk + 0,
			   cn + 0, cs + 0, cm + 0, co + 0, ng + 0, ko + 0, km + 0, um + 0, na + 0, nn + 0, kw ? kw : "-" }'
}

# need_resched_bit: TIF_NEED_RESCHED in thread_info.flags (x86-64): bit 4
# since 6.18's generic TIF layout (include/asm-generic/thread_info_tif.h),
# bit 3 before (arch/x86). Here a SCHED_FIFO wakeup over a SCHED_IDLE
# spinner, which always sets it, showed 0x10 in 2,956 of 2,956 (6.18,
# 2026-11-29). On a kernel between where the guess is wrong the bit read
# is never set, and the check that uses it fails: it cannot pass wrongly
# (bit 3 is TIF_MEMDIE there, bit 4 x86's TIF_NEED_RESCHED_LAZY before,
# which only the lazy model sets, and that is not preempting at once).
need_resched_bit() {
	local v
	v=$(uname -r | awk -F'[.-]' '{ print $1 * 1000 + $2 }')
	[ "$v" -ge 6018 ] && echo 16 || echo 8
}

# self_of JSON: "total_ns max_ns" of the intruder latbpf (self), all CPUs
# (its own fields: a small one need not rank among the top 20 intruders).
# Over the whole run, its last interval and final report included, where
# bpftrace watches SECS - 2 s from a little after the attach: 1.4-1.7
# times bpftrace's sum, 1.1-1.2 times with bpftrace kept on to the exit
# (docs/performance.md, "The two observers' totals")
self_of() {
	final "$1" '[.hiccup.cpus[]] |
		"\(map(.self_ns) | add // 0) \(map(.self_max_ns) | max // 0)"' | tr -d '"'
}

# covers NAME JSON INTERVAL: the interval records cover the run, each its
# real length; a poll that came late (latbpf yields, so a busy moment can
# hold it back) makes a longer record, which says so
covers() {
	local recs lensum dur unmarked ivs
	ivs=$(awk -v i="$3" 'BEGIN { if (i ~ /ms$/) { sub(/ms$/, "", i); i /= 1000 } else sub(/s$/, "", i); print i }')
	recs=$(jq -c 'select(.interval)' "$2" | wc -l)
	lensum=$(jq -s '[.[] | select(.interval) | .length_s] | add' "$2")
	dur=$(final "$2" .run.duration_s)
	unmarked=$(jq -c --argjson iv "$ivs" 'select(.interval and (.late | not) and
		.length_s > $iv * 1.1 + 0.011)' "$2" | wc -l)
	diag "$1: $recs interval records, $(jq -c 'select(.late)' "$2" | wc -l) late, lengths $lensum s of $dur s"
	check "$1: the interval records cover the run ($lensum of $dur s, +- 1 ms a record)" \
		awk -v a="$lensum" -v b="$dur" -v n="$recs" \
		'BEGIN { d = a - b; exit !(n > 0 && d <= n * 0.001 + 0.002 && -d <= n * 0.001 + 0.002) }'
	check "$1: every record longer than its interval says it came late ($unmarked do not)" \
		test "$unmarked" = 0
}

# The control: latwork idler, what latbpf's loader would be if it did no
# work (SCHED_IDLE, in an idle cgroup of its own as latbpf is, its own
# CPU time in 50 us stretches with a 1 us sleep after each), beside
# latbpf in the same run and watched by the same observer. What a target
# waits behind it is what this host gives any idle task: its vCPUs stop
# now and then for 0.1-9 ms (2026-11-29, docs/performance.md, "The
# host's floor"), and waits behind latbpf that long are no more latbpf's.
read -r CGV CGR < <(cpu_cgroup)
CTL_CG=$CGR/latbpf-test-ctl.$$
mkdir "$CTL_CG" && echo 1 >"$CTL_CG/cpu.idle" ||
	cannot_run "no idle cgroup for the control ($CTL_CG)"
# removed at the end (a control killed just now may take a moment to
# leave it)
rm_ctl_cg() {
	local i
	for ((i = 0; i < 20; i++)); do
		rmdir "$CTL_CG" 2>/dev/null || [ ! -d "$CTL_CG" ] && return
		sleep 0.1
	done
}
trap 'cleanup; rm_ctl_cg' EXIT

run_case() { # run_case NAME INTERVAL CTL_BURST CTL_PERIOD
	local name=$1 iv=$2 lp tids n sum max long stalls stall_ns picked stot smax target_ns cg cgv cgr in
	local over nr_set nr_unset nr_unknown cn csum cmax cover cpid wp nr_guard kover kmax umax napped napped_ns kwhat
	local c0 c1 cself lcpu
	# in a session of its own, as a service is: another autogroup than
	# latbpf's, where SCHED_IDLE alone did not yield (latbpf's threads
	# are in an idle cgroup for that: src/core/idlecg.h)
	WORK_PREFIX=setsid start_work "$name" threads --threads 8 --sleep 200us --sleep-max 2ms \
		--for $((SECS + 20))s
	kill -USR1 "$WORK_PID"
	wait_for "$T/$name.work" '^started=8' 10
	tids=$(ls /proc/"$WORK_PID"/task | grep -vx "$WORK_PID" | paste -sd, -)
	wp=$WORK_PID
	# about latbpf's CPU time in each case (1.5-3.4 % of a CPU at 100 ms,
	# 0.2-0.5 % at 1 s)
	WORK_PREFIX=setsid start_work "$name-ctl" idler --burst "$3" --period "$4" --for $((SECS + 10))s
	cpid=$WORK_PID
	echo "$cpid" >"$CTL_CG/$([ "$CGV" = 1 ] && echo tasks || echo cgroup.procs)"
	kill -USR1 "$cpid"
	WORK_PID=$wp
	# stopped once the observer is done, so that it watches latbpf's
	# polls, not its exit: the close of a tracepoint's last program
	# patches kernel text with IPIs to every CPU (a static key, a static
	# call), 60-320 us in latbpf's close() a tracepoint here, once a run,
	# as any BPF tool's detach (docs/performance.md, "Attach and detach");
	# --duration only bounds it
	c0=$(awk '{ print $1 }' /proc/"$cpid"/schedstat)	# the control's CPU ns
	LAT_TMO=$((SECS + 30)) start_latbpf "$name" --pid "$WORK_PID" --per-thread --per-cpu \
		--interval "$iv" --duration "$((SECS + 10))s" --no-tui --json "$T/$name.json"
	lp=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
	# its idle cgroup, read from the kernel's files while it runs (made
	# just after the attach; the rest of it: idlecg.t)
	read -r cgv cgr < <(cpu_cgroup)
	cg=$cgr/latbpf-idle.$lp
	in=no
	for _ in $(seq 20); do
		grep -qx "$lp" "$cg/$([ "$cgv" = 1 ] && echo tasks || echo cgroup.procs)" 2>/dev/null &&
			in=yes && break
		sleep 0.1
	done
	check "$name: latbpf's poll thread is in an idle cgroup ($cg: cpu.idle $(cat "$cg/cpu.idle" 2>/dev/null), $in)" \
		bash -c "[ \"\$(cat '$cg/cpu.idle')\" = 1 ] && [ $in = yes ]"
	read -r n sum max long stalls stall_ns picked over nr_set nr_unset nr_unknown cn csum cmax cover nr_guard \
		kover kmax umax napped napped_ns kwhat \
		< <(delay_by "$lp" "$tids" $((SECS - 2)) "$cpid")
	stop "$LAT_PID"
	ok $? "$name: latbpf exits 0"
	c1=$(awk '{ print $1 }' /proc/"$cpid"/schedstat)
	kill -TERM "$WORK_PID" "$cpid" 2>/dev/null
	read -r stot smax < <(self_of "$T/$name.json")
	# what the same meter charged the control, and latbpf's CPU ns
	cself=$(final "$T/$name.json" "[.hiccup.cpus[].top[]? | select(.kind == \"task\" and
		.pid == $cpid) | .total_ns] | add // 0")
	lcpu=$(final "$T/$name.json" '.self.cpu_pct / 100 * .run.duration_s * 1e9 | floor')
	target_ns=$(final "$T/$name.json" .run.duration_s | awk '{ printf "%.0f", 8 * $1 * 1e9 }')
	diag "$name: priority $(final "$T/$name.json" .run.latbpf_cpus.priority) | bpftrace: $n waits behind latbpf, $sum ns in all, max $max ns, $over over 100 us, $long over 2 ms; host stalls: $stalls, $stall_ns ns; latbpf asleep at the start of $napped (the CPU not yet running it: $napped_ns ns taken off); latbpf picked with a target queued $picked times | hiccup: latbpf (self) $stot ns, max $smax ns | cpu $(final "$T/$name.json" .self.cpu_pct) %"
	diag "$name: control (latwork idler $3 every $4): $cn waits behind it, $csum ns in all, max $cmax ns, $cover over 100 us; hiccup charged it $cself ns for its $((c1 - c0)) ns of CPU (latbpf: $stot ns for $lcpu ns) | need_resched at a wakeup behind latbpf: set $nr_set, not set $nr_unset, not read $nr_unknown; behind the guard thread $nr_guard"
	# Item 1's design: a target that wakes where latbpf runs preempts it
	# at once. The kernel's own word for that is need_resched on latbpf's
	# thread when the wakeup is traced (wakeup_preempt() runs first);
	# latbpf at a normal priority had it unset at most wakeups (EEVDF
	# lets the running task keep its slice)
	# A few in a thousand read unset on a noisy host (3 of 2,210 once,
	# 2026-11-29; 0 in eight other runs): not traced yet, and the
	# observer's picture of a CPU can be stale (6.18 leaves out some
	# switches); at a normal priority 172 of 600 were
	# (or one wakeup: the slow case reads 60-110, and CI's rehearsal on
	# 2026-12-01 had 1 unset of 74)
	check "$name: the kernel decided to preempt latbpf at a wakeup of a target on its CPU, 99 % of the time at least, or all but one (need_resched set at $nr_set, unset at $nr_unset; $nr_unknown not read)" \
		bash -c "{ [ $((nr_unset * 100)) -le $((nr_set + nr_unset)) ] || [ $nr_unset -le 1 ]; } && [ $nr_set -ge 20 ] && [ $((nr_unknown * 10)) -le $((nr_set + nr_unset)) ]"
	# The control's waits are the host's floor, reported beside latbpf's
	# (the diag above), not compared in a check: with a hundred waits a
	# case, one stall moves either mean past any margin (CI's rehearsal,
	# 2026-11-29: one 757 us wait made latbpf's 23 us against 6)
	check "$name: latbpf ran at SCHED_IDLE" test "$(final "$T/$name.json" .run.latbpf_cpus.priority)" = idle
	timing check "$name: bpftrace: latbpf held woken targets back at most 0.05 % of their time ($sum of $target_ns ns; longest $max ns)" \
		num_le "$((sum * 2000))" "$target_ns"
	# Rarely over 2 ms: 1 % of the waits at most. The 100 us goal is not
	# met (issue 29): on a quiet day the longest were 0.5-1.4 ms in 8 runs;
	# on 2026-11-26 this host gave single waits of 3.7-16 ms now and then,
	# with the build before the time family too (8.9 ms), bpftrace and the
	# hiccup family agreeing, and no system call of latbpf's over 0.6 ms:
	# not found yet. This VM's steal clock does not show its stalls, so a
	# vCPU the host stops while latbpf is current looks the same from
	# inside.
	# TAP's TODO: a goal of the open issue, failing where the host gives
	# such waits (CI's rehearsal on 2026-11-27: 4 of 207 at a 1 s
	# interval, up to 9.9 ms; none of 1229 at 100 ms); prove reports it
	# as a TODO, the figures stay in the log
	_todo="issue 29: single waits of milliseconds behind latbpf, cause not found"
	timing check "$name: bpftrace: ... over 2 ms at a time rarely (${long:-?} of $n waits, 1 % or 2 at most; longest $max ns)" \
		bash -c "[ $(( ${long:-0} * 100 )) -le $n ] || [ ${long:-9} -le 2 ]"
	# The goal itself: with the interrupts off latbpf's account (the
	# local timer's 8-16 us a wakeup among them), its longest were 45-153
	# us at 100 ms and 19-76 us at 1 s in 10 runs on 2026-11-28: a stretch
	# between yield points (50 us) and the step that ends it. With more
	# points (1dd3686) 30-92 us in 11 runs of 15 at 100 ms; the other four,
	# 175-1319 us, ended with latbpf preempted in user space; a control
	# process at SCHED_IDLE with the same 50 us sleeps (no BPF) got 19-68
	# us in 6 runs (docs/performance.md, "Gaps between yield points").
	# Found after: a wait that begins in one of latbpf's system calls ends
	# at its return, as this kernel does not preempt in it (`Dynamic
	# Preempt: none`): bpf() reads of per-CPU arrays up to 293 us (read
	# from memory since), write() of the JSON up to 151 us; the rest the
	# host's (docs/performance.md, "Another group's tasks"). And latbpf
	# given its CPU while a target was queued there ran to its stretch's
	# end, 62-120 us: it naps now when the hiccup family counts a waiter
	# there (docs/performance.md, "Per-CPU values read from memory").
	# With the opens, closes and mmaps a poll made gone and the observer
	# off latbpf's exit: under 100 us in 4 runs of 8 (2026-12-01, "System
	# calls latbpf did not need"); the others had host stalls, the
	# control waits of 0.7-6 ms. On the AMD host (2026-12-02, about 20
	# runs with the system call named, 4 of them with the profile timer
	# below at 9999 Hz): over 100 us in write 130-254, bpf 107-376,
	# read/pread64 110-710, getdents64 102-118, sched_getaffinity 241,
	# poll 146-267, close 183 and clock_nanosleep (latbpf's 1 us nap)
	# 133-2,813 us, the longest of all; 14-70 waits a
	# fast run began with latbpf asleep (above: taken off). A profile
	# timer at 9999 Hz, a stall being 300 us without its interrupt, left
	# the same figures (107-600 us in 4 runs), so neither is all a
	# stopped vCPU; a sched_getaffinity of 241 us is not latbpf's work
	_todo="issue 29: latbpf's system calls (this kernel does not preempt in them) hold a target up to 0.2 ms, and this host's vCPU stalls longer, which the control gets too (docs/performance.md, \"The host's floor\")"
	timing check "$name: bpftrace: no wait behind latbpf over 100 us (longest $max ns)" \
		num_le "${max:-0}" 100000
	# Which of them were latbpf's own: those that began in one of its
	# system calls or took a page fault of its before it left (the kernel
	# work it asks for, which this kernel does not cut); the rest found
	# it in user space, preempted at the interrupt's return, and last as
	# long as this host takes to deliver that (docs/performance.md,
	# "What a wait over 60 us behind latbpf found it doing")
	diag "$name: waits over 100 us in latbpf's system calls or faults: $kover (longest of those $kmax ns; system call:longest ns, -1 a fault: $kwhat); longest with latbpf in user space: $umax ns"
	_todo="issue 29: latbpf's own kernel work (system calls, page faults) and this host's stalls inside it"
	timing check "$name: bpftrace: no wait over 100 us that began in latbpf's own kernel work ($kover; longest $kmax ns)" \
		test "${kover:-1}" = 0
	_todo=
	# the hiccup family cannot tell a stopped vCPU from latbpf's run: the
	# stalls bpftrace found are taken off its figure. Those it finds are 2
	# ms and longer; a host that steals in shorter bursts (CI on
	# 2026-12-03, 5.2 % steal: 154 ms less 22 ms found, bpftrace's own
	# count 55 ms) charges latbpf's CPU time with them, and as much
	# any idle task's: so latbpf also passes where the meter charged it
	# no more per ns of its CPU than it charged the control per ns of the
	# control's (a quiet host, 12 s at 100 ms: 11 ms per CPU second, the
	# control 22; with --priority normal 75, the control 15. A control
	# out of the meter's top intruders counts 0: no allowance)
	timing check "$name: hiccup: latbpf (self), less the host's stalls, at most 0.05 % of the target's time ($stot - $stall_ns ns), or per ns of its CPU at most the control's ($stot for $lcpu ns, the control $cself for $((c1 - c0)) ns)" \
		bash -c "[ -n '$stot' ] && [ -n '$target_ns' ] && { [ $((${stot:-0} - ${stall_ns:-0})) -le $((${target_ns:-0} / 2000)) ] ||
			awk -v a=$stot -v la=$lcpu -v c=$cself -v lc=$((c1 - c0)) 'BEGIN { exit !(la > 0 && lc > 0 && a / la <= c / lc) }'; }"
	covers "$name" "$T/$name.json" "$iv"
}
run_case fast 100ms 3ms 100ms
run_case slow 1s 5ms 1s

# Busy: a hog at normal priority on each CPU; latbpf at SCHED_IDLE waits
# for its turn, and says so, but loses nothing
start_work hog0 --cpu 0 hog --for 30s
h0=$WORK_PID
start_work hog1 --cpu 1 hog --for 30s
h1=$WORK_PID
start_work busy sleep --sleep 2ms --count 2000 --threads 2
LAT_TMO=40 start_latbpf busy --pid "$WORK_PID" --probes sched --interval 100ms --no-tui \
	--json "$T/busy.json"
kill -USR1 "$h0" "$h1" "$WORK_PID"
wait_for "$T/busy.work" '^sleeps=' 30
stop "$LAT_PID"
ok $? "busy: latbpf exits 0"
kill -TERM "$h0" "$h1" 2>/dev/null
sleeps=$(sed -n 's/^sleeps=\([0-9]*\).*/\1/p' "$T/busy.work")
seen=$(final "$T/busy.json" .sched.offcpu_sleep.count)
recs=$(jq -c 'select(.interval)' "$T/busy.json" | wc -l)
nlate=$(jq -c 'select(.late)' "$T/busy.json" | wc -l)
counted=$(final "$T/busy.json" '.self.late_polls // 0')
drops=$(final "$T/busy.json" '[.drops[]] | add // 0')
# a sleep whose wakeup and switch-in the kernel both left out (6.18, about
# 1 in 1600 timer sleeps) is not seen, and counted at its next switch-out
unseen=$(final "$T/busy.json" '.sched.switches.unseen_wakeups // 0')
diag "busy: target slept $sleeps times, latbpf saw $seen; drops $drops; polls lifted by the guard $(final "$T/busy.json" '.self.guard_polls // 0')"
covers busy "$T/busy.json" 100ms
check "busy: interval records were written ($recs)" num_le 5 "$recs"
check "busy: the late ones are marked and counted alike ($nlate = $counted)" test "$nlate" = "$counted"
# what latbpf did not see is counted as dropped (a sleep at either end of
# each of the 2 threads may fall outside the run: 4; the 6.1 guest saw
# 3996 of 4000 with nothing dropped)
missed=$((sleeps - seen - 4 > 0 ? sleeps - seen - 4 : 0))
diag "busy: drops $(final "$T/busy.json" '.drops' | tr -d ' \n')"
check "busy: every sleep missed is counted in drops or in the wakeups the kernel did not emit ($missed missed, drops $drops, unseen $unseen)" \
	num_le "$missed" "$((drops + unseen))"
# +-1 % (sched_offcpu.t's rule: a thread also sleeps outside its loop)
check "busy: every sleep of the target counted ($seen of $sleeps +-1 %)" \
	between "$seen" $((sleeps - sleeps / 100)) $((sleeps + sleeps / 100 + 4))
done_testing

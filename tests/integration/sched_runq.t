#!/usr/bin/env bash
# Run-queue latency ground truth, cross-checked against libbpf-tools' runqlat
# on the same workload at the same time: a thread pinned to CPU 1 sleeps 1 ms
# 2000 times, first sharing the CPU with two equal-priority hogs, then alone,
# then alone with the per-CPU values read by lookups (LATBPF_CPU_LOOKUP: the
# loader's fallback where it may not map a BPF map).
. "$(dirname "$0")/lib.sh"
need_root
command -v runqlat >/dev/null || { cannot_run "runqlat missing (tools/install-deps.sh)"; }
N=2000

# proc_switches PID: "voluntary involuntary", summed over PID's threads
proc_switches() {
	awk '/^voluntary_ctxt_switches/ { v += $2 } /^nonvoluntary_ctxt_switches/ { n += $2 }
	     END { print v + 0, n + 0 }' /proc/"$1"/task/*/status 2>/dev/null
}

phase() { # phase NAME NHOGS [LOOKUP]
	local name=$1 nhogs=$2 rq hogs=() h
	# (--linger --hold: every thread stays, idle, until latbpf has stopped,
	# so that /proc still holds their switch counts when read after it)
	start_work "$name" --cpu 1 --linger --hold sleep --sleep 1ms --count $N || return 1
	LATBPF_CPU_LOOKUP=${3:-} start_latbpf "$name" --pid "$WORK_PID" --probes sched --no-tui --json "$T/$name.json" || return 1
	timeout -s INT 90 stdbuf -oL runqlat -p "$WORK_PID" >"$T/$name.rq" 2>&1 &
	rq=$!
	_pids+=("$rq")
	wait_for "$T/$name.rq" 'Tracing' 15 || return 1
	# the threads' switch counts now, latbpf attached and the process idle
	# (it waits for SIGUSR1): what it switched before (on PREEMPT_RT 60-75
	# voluntary ones in a guest) is not latbpf's to see
	proc_switches "$WORK_PID" >"$T/$name.sw0"
	for ((h = 0; h < nhogs; h++)); do
		timeout 60 "$LATWORK" --cpu 1 hog --for 30s &
		hogs+=($!)
		_pids+=($!)
	done
	sleep 0.3
	kill -USR1 "$WORK_PID"
	wait_for "$T/$name.work" '^sleeps=' 60
	stop "$LAT_PID"
	stop "$rq"
	# every thread's switch counts from the kernel, read after latbpf
	# stopped: the threads are idle by then (--hold, --linger), so these
	# hold every switch latbpf could have seen, and before its attach only
	# the few of the process's start
	proc_switches "$WORK_PID" >"$T/$name.sw"
	for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; done
	kill -TERM "$WORK_PID"
	wait 2>/dev/null
	return 0
}

for p in hogs idle lookup; do
	phase $p $([ $p = hogs ] && echo 2 || echo 0) $([ $p = lookup ] && echo 1)
	ok $? "$p: workload, latbpf and runqlat ran"
	sleeps=$(sed -n 's/^sleeps=\([0-9]*\).*/\1/p' "$T/$p.work")
	nvcsw=$(sed -n 's/.*nvcsw=\([0-9]*\).*/\1/p' "$T/$p.work")
	nivcsw=$(sed -n 's/.*nivcsw=\([0-9]*\).*/\1/p' "$T/$p.work")
	count=$(final "$T/$p.json" .sched.runq.count)
	p50=$(final "$T/$p.json" '.sched.runq.p50')
	p99=$(final "$T/$p.json" '.sched.runq.p99')
	vol=$(final "$T/$p.json" .sched.switches.voluntary)
	invol=$(final "$T/$p.json" .sched.switches.involuntary)
	read -r rq_count rq_lo rq_hi <<<"$(runqlat_summary "$T/$p.rq")"
	eval "${p}_p99=$p99 ${p}_p999=$(final "$T/$p.json" '.sched.runq["p99.9"]') ${p}_count=$count ${p}_rq=$rq_count"
	diag "$p: wakeups $sleeps nvcsw $nvcsw nivcsw $nivcsw | latbpf runq n=$count p50=$p50 p99=$p99 vol=$vol invol=$invol | runqlat n=$rq_count p50 in [$rq_lo, $rq_hi) ns"
	# one sample per wakeup and one per preemption (the thread waits in the
	# run queue again: on PREEMPT_RT ktimers/N and rcuc/N preempt it ~100
	# times), plus the few of the main thread
	check "$p: runq samples ($count) = wakeups ($sleeps) + preemptions ($nivcsw) within 10%" \
		between "$count" "$((sleeps * 9 / 10))" "$(((sleeps + nivcsw) * 11 / 10))"
	[ $p = lookup ] && check "lookup: latbpf says it reads sched_cpu with lookups" \
		grep -q '^latbpf: sched_cpu: cannot map it (Operation not permitted): read with a lookup a CPU$' "$T/$p.err"
	check "$p: runqlat's count ($rq_count) within 10% of latbpf's" \
		between "$rq_count" "$((count * 9 / 10))" "$((count * 11 / 10))"
	check "$p: p50 $p50 within one log2 bucket of runqlat's [$rq_lo, $rq_hi)" \
		between "$p50" "$((rq_lo / 2))" "$((rq_hi * 2))"
	# the kernel's own counters of all the process's threads (/proc), from
	# latbpf's attach to its stop (the process idle at both reads): not
	# the sleeper's getrusage alone, which on PREEMPT_RT moved 14-20
	# involuntary switches apart from latbpf's, the main thread's and
	# those after its count among them. -2: a switch of the attach's
	# moment that latbpf's programs did not see whole
	read -r v0 n0 <"$T/$p.sw0"
	read -r v1 n1 <"$T/$p.sw"
	check "$p: voluntary switches ($vol) = the threads' own count while attached ($((v1 - v0)); thread's nvcsw $nvcsw) - at most 2" \
		between "$vol" "$((v1 - v0 - 2))" "$((v1 - v0))"
	check "$p: involuntary switches ($invol) = the threads' own count while attached ($((n1 - n0)); thread's nivcsw $nivcsw) - at most 2" \
		between "$invol" "$((n1 - n0 - 2))" "$((n1 - n0))"
done
# Under EEVDF a 1 ms sleeper preempts the hogs on wakeup, so the median wait
# does not grow (it even shrinks: a busy CPU has no idle exit to pay); the
# hogs show in the tail, where the sleeper waits out a hog's slice.
# The tail is asserted at p99.9, where it is stable; p99 with the hogs is
# ~500 us alone but fell below 200 us in some full-suite runs (cause not yet
# found), so it is reported, not asserted.
diag "tail: p99 with hogs $hogs_p99 ns, idle $idle_p99 ns"
# the same tail in runqlat's histogram. latbpf's p99.9 is its sample of
# rank r = ceil(0.999 n), with n - r samples above it; in runqlat's m
# samples that is rank m - (n - r). The tools' counts differ by |n - m|
# (in the 6.1-rt guest, with 166 preemptions, runqlat counted 2157 waits
# and latbpf 2174), and a rank is only known to that many, plus 3: runqlat's
# buckets of the ranks that far either side bound it, one log2 bucket wide
d=$((hogs_count > hogs_rq ? hogs_count - hogs_rq : hogs_rq - hogs_count))
r=$(awk -v n="$hogs_count" 'BEGIN { r = n * 0.999; print (r == int(r) ? r : int(r) + 1) }')
c=$((hogs_rq - (hogs_count - r)))
read -r tlo _ <<<"$(runqlat_rank "$T/hogs.rq" $((c - 3 - d)))"
read -r _ thi <<<"$(runqlat_rank "$T/hogs.rq" $((c + 3 + d)))"
check "hogs: p99.9 ($hogs_p999 ns) within one log2 bucket of runqlat's ranks $((c - 3 - d))..$((c + 3 + d)) of $hogs_rq [$tlo, $thi)" \
	between "$hogs_p999" "$((tlo / 2))" "$((thi * 2))"
# How long the tail is with and without the hogs is the scheduler's and
# the machine's doing (EEVDF, 6.6+, lets the sleeper wait out a hog's slice
# now and then; the older CFS places a sleeper far enough back that it
# preempts at once): reported, and judged only against runqlat's above
diag "tail: p99.9 with hogs $hogs_p999 ns, idle $idle_p999 ns"
done_testing

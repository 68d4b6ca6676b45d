#!/usr/bin/env bash
# Off-CPU ground truth: a thread sleeps exactly 10 ms 100 times. Run with the
# tp_btf programs (task storage) and again with the raw_tp twins (LRU hash)
# that older kernels get, so both paths are held to the same answer.
. "$(dirname "$0")/lib.sh"
need_root
N=100
SLEEP=10000000
# upper bound: 10 ms + timer slack (50 us) + wakeup path (200 us) + the
# width of the slot holding 10 ms (2^19 ns)
HI=$((SLEEP + 50000 + 200000 + 524288))

for mode in tp_btf raw_tp; do
	[ $mode = raw_tp ] && export LATBPF_FORCE_RAW_TP=1
	start_work $mode --linger sleep --sleep 10ms --count $N
	start_latbpf $mode --pid "$WORK_PID" --probes sched --no-tui --json "$T/$mode.json"
	ok $? "$mode: latbpf attached"
	kill -USR1 "$WORK_PID"
	wait_for "$T/$mode.work" '^sleeps=' 20
	stop "$LAT_PID"
	ok $? "$mode: latbpf exits 0 on SIGINT"
	kill -TERM "$WORK_PID"
	unset LATBPF_FORCE_RAW_TP
	status=$(final "$T/$mode.json" .probes.sched)
	n=$(final "$T/$mode.json" .sched.offcpu_sleep.count)
	p50=$(final "$T/$mode.json" .sched.offcpu_sleep.p50)
	min=$(final "$T/$mode.json" .sched.offcpu_sleep.min)
	blocked=$(final "$T/$mode.json" .sched.offcpu_blocked.count)
	runq=$(final "$T/$mode.json" .sched.runq.count)
	diag "$mode: $status offcpu_sleep n=$n p50=$p50 min=$min blocked n=$blocked runq n=$runq"
	check "$mode: probes.sched says '$status'" test "$status" = "attached ($mode)"
	check "$mode: offcpu_sleep samples ($n) >= $N" num_le $N "$n"
	check "$mode: offcpu_sleep p50 $p50 in [10 ms, $HI]" between "$p50" $SLEEP $HI
	check "$mode: runq samples ($runq) >= $N (one per wakeup)" num_le $N "$runq"
	check "$mode: nanosleep is S, not D: blocked samples ($blocked) <= 3" num_le "$blocked" 3
done
done_testing

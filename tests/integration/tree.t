#!/usr/bin/env bash
# Process trees (#12): `latbpf -- sh -c 'A & B; wait'` counts both
# workloads and nothing else; `--pid P --children` counts a child P had
# before attach and one it starts after; a pid that a followed child freed,
# given to a stranger (ns_last_pid), is not counted. Ground truth: the
# workloads' own sleep counts.
. "$(dirname "$0")/lib.sh"
need_root
progs0=$(tracing_progs)
# sleeps JSON COMM: latbpf's count of the sleeps of the threads named COMM
sleeps() { final "$1" "[.sched.threads[] | select(.comm == \"$2\") | .offcpu_sleep.count] | add"; }
# slept NAME: the workload's own count, from $T/NAME.work
slept() { sed -n 's/^sleeps=\([0-9]*\).*/\1/p' "$T/$1.work"; }
# counted DESCRIPTION SEEN SLEPT JSON: every sleep, +-2 %: a process also
# sleeps outside its timed sleeps (the main thread's joins, its threads
# meeting on the mutex that collects their tids, and on an RT kernel its
# spinlocks), a few a run (603 for 600 on 6.1-rt); less the run's sleeps
# whose wakeup the kernel did not report
counted() {
	local u
	u=$(unseen_wakeups "$4")
	check "$1: its $3 sleeps ($2, +-2 %, less $u unseen wakeups)" \
		between "$2" $(($3 * 98 / 100 - u)) $(($3 * 102 / 100 + 2))
}

# 1. a COMMAND's tree, with a neighbour running the same workload
start_work noise --comm noise sleep --sleep 5ms --count 400
kill -USR1 "$WORK_PID"
noise=$WORK_PID
timeout -s INT 120 "$LATBPF" --probes sched --per-thread --no-tui --json "$T/c.json" -- \
	sh -c "'$LATWORK' --comm aaa sleep --sleep 5ms --count 200 >'$T/a.work' &
	       '$LATWORK' --comm bbb sleep --sleep 5ms --count 300 --threads 2 >'$T/b.work'; wait" \
	>"$T/c.out" 2>"$T/c.err"
ok $? "latbpf -- sh -c 'A & B; wait': exit 0"
J=$T/c.json
na=$(sleeps "$J" aaa) nb=$(sleeps "$J" bbb) sa=$(slept a) sb=$(slept b)
comms=$(final "$J" '[.sched.threads[].comm] | unique | join(",")')
procs=$(final "$J" '[.sched.threads[] | select(.comm != "sh") | .pid] | unique | length')
diag "A slept $sa, latbpf saw $na; B slept $sb, latbpf saw $nb; comms $comms; processes $procs"
counted "A, started in the background" "$na" "$sa" "$J"
counted "B, the shell's foreground child" "$nb" "$sb" "$J"
check "nothing else: the shell, A and B ($comms)" test "$comms" = "aaa,bbb,sh"
check "... two processes besides the shell ($procs)" test "$procs" = 2
check "the neighbour ($noise) is absent" \
	bash -c "! jq -e 'select(.final) | .sched.threads[] | select(.pid == $noise)' '$J' >/dev/null"
check "provenance: children followed" \
	bash -c "jq -e 'select(.final) | .run.target.children == true' '$J' >/dev/null"

# 2. --pid P --children: a child from before attach, one started after
# (P lives until told: latbpf ends when it exits; told by files, as a
# qemu guest's 9p /tmp has no FIFOs; the sleeps P polls with are its
# children too, named sleep)
timeout -s KILL 120 bash -c "
	'$LATWORK' --wait --comm early sleep --sleep 5ms --count 150 >'$T/early.work' &
	while [ ! -e '$T/go' ]; do sleep 0.05; done
	'$LATWORK' --wait --comm late sleep --sleep 5ms --count 250 >'$T/late.work'
	wait
	while [ ! -e '$T/end' ]; do sleep 0.05; done" &
P=$!
_pids+=("$P")
wait_for "$T/early.work" '^ready' 10
early=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$T/early.work")
start_latbpf p --pid "$P" --children --probes sched --per-thread --no-tui --json "$T/p.json"
ok $? "latbpf --pid $P --children attached"
kill -USR1 "$early"
touch "$T/go"
wait_for "$T/late.work" '^ready' 10
lp=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$T/late.work")
kill -USR1 "$lp"
wait_for "$T/late.work" '^sleeps=' 30
wait_for "$T/early.work" '^sleeps=' 30

# 3. the late child has exited; its pid goes to a stranger outside the tree
for ((i = 0; i < 150; i++)); do kill -0 "$lp" 2>/dev/null || break; sleep 0.1; done
stranger=
for ((i = 0; i < 50; i++)); do
	echo $((lp - 1)) >/proc/sys/kernel/ns_last_pid
	"$LATWORK" --wait --comm stranger sleep --sleep 5ms --count 100 >"$T/s.work" 2>&1 &
	s=$!
	if [ "$s" = "$lp" ]; then stranger=$s; _pids+=("$s"); break; fi
	kill "$s" 2>/dev/null; wait "$s" 2>/dev/null
done
if [ -n "$stranger" ]; then
	wait_for "$T/s.work" '^ready' 10
	kill -USR1 "$stranger"
	wait_for "$T/s.work" '^sleeps=' 20
fi
ok "$(kill -0 "$LAT_PID" 2>/dev/null; echo $?)" "latbpf still runs: P ($P) lives"
touch "$T/end"
for ((i = 0; i < 300; i++)); do kill -0 "$LAT_PID" 2>/dev/null || break; sleep 0.1; done
stop "$LAT_PID"
ok $? "latbpf ends by itself when P exits, exit 0"
grep -q "target exited" "$T/p.err"
ok $? "... saying the target exited"
J=$T/p.json
ne=$(sleeps "$J" early) nl=$(sleeps "$J" late) se=$(slept early) sl=$(slept late)
ns=$(final "$J" '[.sched.threads[] | select(.comm == "stranger")] | length')
diag "early $early slept $se, seen $ne; late (pid $lp) slept $sl, seen $nl; stranger ${stranger:-none} seen in $ns threads"
diag "threads (comm pid tid sleeps): $(final "$J" '[.sched.threads[] | "\(.comm) \(.pid) \(.tid) \(.offcpu_sleep.count)"] | join(", ")'); late's: $(sed -n 's/.*tids=//p' "$T/late.work")"
counted "the child from before attach" "$ne" "$se" "$J"
counted "the child started after attach" "$nl" "$sl" "$J"
check "a stranger got the late child's pid $lp (ns_last_pid)" test -n "$stranger"
check "... and is not counted ($ns threads)" test "$ns" = 0
check "nothing left in the kernel after exit" no_progs_above "$progs0"
done_testing

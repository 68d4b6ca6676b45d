#!/usr/bin/env bash
# latbpf's idle cgroup (src/core/idlecg.h). SCHED_IDLE yields only to
# tasks of latbpf's own group (the scheduler decides a wakeup's preemption
# between the groups' entities where they meet), so latbpf's threads also
# sit in a cgroup of their own, latbpf-idle.PID, at the top of the cpu
# controller's hierarchy, with cpu.idle 1. Ground truth is the kernel's
# cgroup files, read from outside latbpf: while latbpf runs, the cgroup is
# there with cpu.idle 1 and latbpf's poll thread in it (on cgroup v1 the
# guard thread, which must run at once when a poll is overdue, stays where
# latbpf started; on cgroup2 a process's threads share one cgroup, and the
# guard sleeps at SCHED_FIFO 1); the final JSON names it; at latbpf's end
# it is gone; one left by a latbpf that was killed goes with the next
# start; --priority normal makes none. The host's hierarchy: v1 where the
# cpu controller is mounted there (this project's VM), else cgroup2; where
# cgroup2's cpu controller is not enabled at its root (the 6.1 guests),
# latbpf must say so, and the test enables it for the rest of its run and
# puts it back.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || cannot_run "jq missing (tools/install-deps.sh)"

read -r V ROOT < <(cpu_cgroup)
[ -n "${ROOT:-}" ] || cannot_run "no cgroup hierarchy with a cpu controller is mounted"
FILE=tasks
[ "$V" = 2 ] && FILE=cgroup.procs
ENABLED=
if [ "$V" = 2 ] && ! grep -qw cpu "$ROOT/cgroup.subtree_control"; then
	grep -qw cpu "$ROOT/cgroup.controllers" || cannot_run "cgroup2 at $ROOT has no cpu controller"
	# as it is: latbpf cannot make one, and says why
	start_latbpf off --probes sched --interval 100ms --duration 1s --no-tui --json "$T/off.json"
	wait "$LAT_PID"
	off="$(final "$T/off.json" .run.latbpf_cpus.idle_cgroup) / $(final "$T/off.json" .run.latbpf_cpus.idle_cgroup_off)"
	check "cgroup2 without the cpu controller at its root: no idle cgroup, and why ($off)" \
		test "$off" = "null / the cgroup2 root has no cpu controller enabled"
	echo +cpu >"$ROOT/cgroup.subtree_control" ||
		cannot_run "cannot enable the cpu controller at $ROOT"
	ENABLED=1
fi
restore() { [ -n "$ENABLED" ] && echo -cpu >"$ROOT/cgroup.subtree_control" 2>/dev/null; }
trap 'cleanup; restore' EXIT
diag "cgroup v$V at $ROOT${ENABLED:+ (cpu enabled for this test)}"

# a cgroup as a killed latbpf leaves it: named for a pid that is gone
true &
dead=$!
wait "$dead"
mkdir -p "$ROOT/latbpf-idle.$dead"

start_work w sleep --sleep 5ms --count 100000
kill -USR1 "$WORK_PID"
start_latbpf a --pid "$WORK_PID" --probes sched --interval 100ms --no-tui --json "$T/a.json"
LP=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
CG=$ROOT/latbpf-idle.$LP
# (a poll the guard lifts leaves the cgroup for that poll: waited for)
in=no
for _ in $(seq 20); do
	grep -qx "$LP" "$CG/$FILE" 2>/dev/null && in=yes && break
	sleep 0.1
done
check "latbpf made $CG" test -d "$CG"
check "... with cpu.idle 1 ($(cat "$CG/cpu.idle" 2>/dev/null))" test "$(cat "$CG/cpu.idle" 2>/dev/null)" = 1
check "... and its poll thread $LP is in it ($in)" test "$in" = yes
# each thread: "tid policy cgroup-in-this-hierarchy"
threads() {
	local t tid
	for t in /proc/"$LP"/task/*; do
		tid=${t##*/}
		echo "$tid $(awk '{ print $41 }' "$t/stat" 2>/dev/null) $(grep -E "^$([ "$V" = 1 ] && echo '[0-9]+:([a-z_,]*,)?cpu(,[a-z_,]*)?:' || echo '0::')" "$t/cgroup" 2>/dev/null | cut -d: -f3)"
	done
}
# a thread's policy and cgroup are two reads: a poll the guard lifted
# (under TCG, often) is at SCHED_IDLE a moment before it is back in the
# cgroup, so the table is taken again, up to 2 s, until it is steady
for _ in $(seq 10); do
	threads >"$T/threads"
	idle_ok=$(awk -v d="/latbpf-idle.$LP" '$2 == 5 && $3 != d' "$T/threads" | wc -l)
	[ "$idle_ok" = 0 ] && break
	sleep 0.2
done
diag "latbpf's threads (tid, policy, cgroup): $(tr '\n' ';' <"$T/threads")"
home=$(grep -E "^$([ "$V" = 1 ] && echo '[0-9]+:([a-z_,]*,)?cpu(,[a-z_,]*)?:' || echo '0::')" /proc/self/cgroup | cut -d: -f3)
check "every thread at SCHED_IDLE is in it ($idle_ok not: $(tr '\n' ';' <"$T/threads"))" test "$idle_ok" = 0
if [ "$V" = 1 ]; then
	guard=$(awk '$2 == 0' "$T/threads")
	check "the guard thread keeps the policy and the cgroup latbpf started with ($guard; started in $home)" \
		bash -c "[ -n '$guard' ] && [ \"\$(echo '$guard' | awk '{ print \$3 }')\" = '$home' ]"
else
	# a process's threads share its cgroup: the guard, in the idle one,
	# sleeps at SCHED_FIFO 1 so that it runs when its timer fires
	guard=$(awk '$2 == 1' "$T/threads")
	check "the guard thread sleeps at SCHED_FIFO ($guard)" test -n "$guard"
fi
check "the cgroup a killed latbpf left is gone" test ! -e "$ROOT/latbpf-idle.$dead"
stop "$LAT_PID"
ok $? "latbpf exits 0"
check "at its end its cgroup is gone too" test ! -e "$CG"
named=$(final "$T/a.json" .run.latbpf_cpus.idle_cgroup)
check "the JSON names it ($named)" test "$named" = "$CG"

start_latbpf n --pid "$WORK_PID" --probes sched --interval 100ms --priority normal --no-tui \
	--json "$T/n.json"
LP=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
# once it polled: a yield comes before the first poll
wait_for "$T/n.json" '"interval"' 10
check "--priority normal: no idle cgroup" test ! -e "$ROOT/latbpf-idle.$LP"
stop "$LAT_PID"
ok $? "latbpf exits 0"
off="$(final "$T/n.json" .run.latbpf_cpus.idle_cgroup) / $(final "$T/n.json" .run.latbpf_cpus.idle_cgroup_off)"
check "... and the JSON says why ($off)" test "$off" = "null / not yielded"
kill -TERM "$WORK_PID" 2>/dev/null
done_testing

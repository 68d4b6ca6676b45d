#!/usr/bin/env bash
# --cgroup (#12): a cgroup v2 subtree made here, with a known sleeper in a
# child cgroup and a neighbour outside. Ground truth from the workloads
# themselves and from /proc: the sleeper's sleeps are all counted, the
# neighbour's none; a process moved in mid-run is counted from the move
# on (its voluntary switches after the move, from /proc); page faults of
# a process inside (another family, decided in the current task's
# context) are counted. Then the bad inputs: exit 2 and one line each.
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftool >/dev/null || cannot_run "bpftool missing (tools/install-deps.sh)"
MNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$MNT" ] || cannot_run "no cgroup2 file system mounted"
CG=$MNT/latbpf-test-$$
V1=$T/v1
trap 'cleanup_cg' EXIT
cleanup_cg() {
	local p
	for p in "${_pids[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	for ((p = 0; p < 30; p++)); do
		rmdir "$CG/sub" "$CG" 2>/dev/null
		[ -d "$CG" ] || break
		sleep 0.1
	done
	umount "$V1" 2>/dev/null
	rm -rf "$T"
}
mkdir -p "$CG/sub" || cannot_run "cannot make a cgroup under $MNT"
progs0=$(tracing_progs)
N=300
M=600

# (--linger --hold: its thread stays until latbpf has stopped, so the waits
# latbpf counts are all inside the switch counts the thread read at its end)
start_work in --comm insider --linger --hold sleep --sleep 5ms --count $N
inside=$WORK_PID
echo "$inside" >"$CG/sub/cgroup.procs"
start_work out --comm neighbour sleep --sleep 5ms --count $N
outside=$WORK_PID
start_work mover --comm mover sleep --sleep 5ms --count $M
mover=$WORK_PID
start_work touch --comm toucher --linger touch --count 2000
toucher=$WORK_PID
echo "$toucher" >"$CG/cgroup.procs"

# the cgroup as /proc/PID/cgroup shows it: relative to the cgroup2 root
rel=/${CG#"$MNT"/}
start_latbpf g --cgroup "$rel" --probes sched,fault --per-thread --no-tui --json "$T/g.json"
ok $? "latbpf --cgroup $rel attached"
kill -USR1 "$inside" "$outside" "$mover" "$toucher"
# the mover joins after a quarter of its sleeps (whatever the machine's
# speed: a qemu guest's timers differ); its thread's voluntary switches
# at the move are what latbpf must not count
vol() { awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/"$mover"/task/"$mtid"/status 2>/dev/null; }
for ((i = 0; i < 100; i++)); do
	mtid=$(ls /proc/"$mover"/task | grep -vx "$mover" | head -1)
	[ -n "$mtid" ] && break
	sleep 0.02
done
for ((i = 0; i < 500; i++)); do
	v0=$(vol)
	[ "${v0:-0}" -ge $((M / 4)) ] && break
	sleep 0.01
done
echo "$mover" >"$CG/cgroup.procs"
v1=$(vol)
wait_for "$T/in.work" '^sleeps=' 30
wait_for "$T/mover.work" '^sleeps=' 30
wait_for "$T/touch.work" '^touched=' 30
wait_for "$T/out.work" '^sleeps=' 30
stop "$LAT_PID"
ok $? "latbpf exits 0"
J=$T/g.json
vend=$(sed -n 's/.*nvcsw=\([0-9]*\).*/\1/p' "$T/mover.work")
itid=$(sed -n 's/.*tids=\([0-9,]*\)$/\1/p' "$T/in.work")
# the sleeper's switches by the kernel's count, read now that latbpf has
# stopped and the thread is idle (--hold): every switch latbpf could see
tsw=$(awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }' /proc/"$inside"/task/"$itid"/status 2>/dev/null)
nin=$(final "$J" ".sched.threads[] | select(.tid == $itid) | .offcpu_sleep.count")
rin=$(final "$J" ".sched.threads[] | select(.tid == $itid) | .runq.count")
nmv=$(final "$J" ".sched.threads[] | select(.tid == $mtid) | .offcpu_sleep.count")
pids=$(final "$J" '[.sched.threads[].pid] | unique | join(",")')
faults=$(final "$J" .fault.count)
diag "inside $inside (thread $itid): $nin sleeps, $rin runq; mover $mover (thread $mtid): voluntary $v0..$v1 at the move, $vend at the end, $nmv sleeps counted; pids seen $pids; faults $faults"
u=$(unseen_wakeups "$J")
check "the sleeper in the child cgroup: its $N sleeps ($nin, +-2 %, less $u unseen wakeups)" \
	between "$nin" $((N * 98 / 100 - u)) $((N + 1))
# one a switch-in (a wait before it) for each switch the kernel counts of
# the sleeper, + 1 for its first run: each sleep, each preemption, and on
# PREEMPT_RT its waits on sleeping locks. Its own count, /proc's after
# latbpf stopped, not its getrusage at the end of its sleeps: on
# PREEMPT_RT latbpf's counted 1-13 more than those (338 for 299 + 35
# once), what the thread did after it counted (its exit, before it held)
inv=$(sed -n 's/.*nivcsw=\([0-9]*\).*/\1/p' "$T/in.work")
vin=$(sed -n 's/.* nvcsw=\([0-9]*\).*/\1/p' "$T/in.work")
check "... and as many run-queue waits ($rin, the kernel's ${tsw:-?} switches of it + 1; ${vin:-?} + ${inv:-?} at the end of its sleeps)" \
	between "$rin" $((N * 98 / 100)) $((${tsw:-0} + 1))
check "the neighbour outside ($outside) is absent" \
	bash -c "! jq -e 'select(.final) | .sched.threads[] | select(.pid == $outside)' '$J' >/dev/null"
check "only the cgroup's processes are seen ($pids)" \
	bash -c "[ -n '$pids' ] && for p in \$(tr , ' ' <<<'$pids'); do case \$p in $inside|$mover|$toucher) ;; *) exit 1;; esac; done"
# every sleep after the move ends in a voluntary switch; one more at most
# for the sleep the move happened in
lo=$(( (vend - v1) * 98 / 100 ))
check "the mover, counted from the move on: $nmv sleeps of $((vend - v1))..$((vend - v0 + 1)) after it" \
	between "$nmv" "$lo" $((vend - v0 + 1))
check "... and not before it (< $M)" num_le "$nmv" $((M - M / 5))
check "faults of the toucher in the parent cgroup: 2000 touches ($faults in [2000, 2064])" \
	between "$faults" 2000 2064
check "provenance names the cgroup, resolved" \
	bash -c "[ \"\$(jq -r 'select(.final) | .run.target.cgroups | join(\",\")' '$J')\" = '$CG' ]"
check "the text names it too" grep -qF "target: cgroup $CG" "$T/g.err"
kill "$toucher" 2>/dev/null
check "nothing left in the kernel after exit" no_progs_above "$progs0"

# A process that leaves the cgroup before it exits gives back its threads'
# records at their exits (sched_process_exit), which latbpf's switches no
# longer see: the old code kept the slot taken by a dead tid (which a later
# thread with that tid would inherit) and, on PREEMPT_RT, the table's entry.
# One slot and a table of one (as on PREEMPT_RT): the leaver's two threads
# fill both; once it has exited, the kernel's maps hold none of its tids,
# and a second process's two threads find room: its sleeps all counted,
# none lost (the old code lost them all). The leaver sleeps far longer
# than the test needs (20 s) and is ended by a signal once it is out, so
# the move never races its own end on a slow guest (TCG)
start_work lv --comm leaver sleep --sleep 5ms --count 4000
leaver=$WORK_PID
echo "$leaver" >"$CG/sub/cgroup.procs"
LATBPF_RT_STORAGE=1 LATBPF_TASK_SLOTS=1 LATBPF_TASK_RECORDS=1 start_latbpf lv --cgroup "$rel" \
	--probes sched --per-thread --no-tui --json "$T/lv.json"
kill -USR1 "$leaver"
for ((i = 0; i < 100; i++)); do
	ltid=$(ls /proc/"$leaver"/task 2>/dev/null | grep -vx "$leaver" | head -1)
	[ -n "$ltid" ] && [ "$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/"$leaver"/task/"$ltid"/status 2>/dev/null)" -ge 20 ] 2>/dev/null && break
	sleep 0.02
done
echo "$leaver" >"$MNT/cgroup.procs"
lcg=$(grep "^0::" /proc/"$leaver"/cgroup 2>/dev/null)
kill -TERM "$leaver" 2>/dev/null
for ((i = 0; i < 200; i++)); do kill -0 "$leaver" 2>/dev/null || break; sleep 0.05; done
lat=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
slots=$(held_map "$lat" task_slots) table=$(held_map "$lat" task_st_hash)
stid=$(bpftool map dump id "${slots:-0}" -j 2>/dev/null | jq -r '.[0].formatted.value.tid // empty')
nrec=$(bpftool map dump id "${table:-0}" -j 2>/dev/null | jq 'if type == "array" then length else empty end')
check "the leaver moved out mid-run (${lcg:-gone}) and exited" \
	bash -c "[ '${lcg:-}' = '0::/' ] && ! kill -0 $leaver 2>/dev/null"
check "... its slot given back (owner tid ${stid:-none read}: 0, or a live thread's) and the table empty (${nrec:-none read})" \
	bash -c "[ -n '$stid' ] && { [ '$stid' = 0 ] || [ -d /proc/$stid ]; } && [ '${nrec:-x}' = 0 ]"
start_work af --comm after sleep --sleep 5ms --count 100
after=$WORK_PID
echo "$after" >"$CG/sub/cgroup.procs"
kill -USR1 "$after"
wait_for "$T/af.work" '^sleeps=' 30
stop "$LAT_PID"
naf=$(final "$T/lv.json" "[.sched.threads[] | select(.pid == $after) | .offcpu_sleep.count] | add // 0")
lost=$(final "$T/lv.json" '.drops["sched.task_records_lost"] // 0')
u=$(unseen_wakeups "$T/lv.json")
diag "leaver $leaver (worker $ltid) left for ${lcg:-?}; slot owner ${stid:-?}, table ${nrec:-?}; after $after: $naf sleeps, records lost $lost"
check "the next process's 100 sleeps in the freed records ($naf, +-2 %, less $u unseen), none lost ($lost)" \
	bash -c "[ $naf -ge $((98 - u)) ] && [ $naf -le 101 ] && [ '$lost' = 0 ]"

# A thread moved out of the target cgroup and back: the time family's
# iterator, at the first poll it is out, gives back its record, so on its
# return it starts afresh. The old code kept the record, and the sleep it
# was in when it left ended at its first wakeup back: one sleep of its
# whole time away (1.5 s, where every sleep of it is 5 ms), and an
# interval that credited more time than its threads had lived (3.98 s in
# an interval of 1 s with 2 threads). Ground truth: the workload's 5 ms
# sleeps, and each interval's own length, which no thread of it (its
# per-thread account) can have lived longer than
# Without the time family (--probes sched) the shared object's sweep does
# the same at each poll (families/schedcore.c); with the sweep off its
# longest sleep read 3.58 s
returner() { # returner NAME PROBES
	local ret nth rmax tmax over
	start_work "$1" --comm returner sleep --sleep 5ms --count 700
	ret=$WORK_PID
	echo "$ret" >"$CG/sub/cgroup.procs"
	start_latbpf "$1" --cgroup "$rel" --probes "$2" --per-thread --no-tui --json "$T/$1.json"
	kill -USR1 "$ret"
	sleep 0.5
	nth=$(ls /proc/"$ret"/task | wc -l)
	echo "$ret" >"$MNT/cgroup.procs"
	sleep 1.6	# a poll (1 s) at least while it is out
	echo "$ret" >"$CG/sub/cgroup.procs"
	wait_for "$T/$1.work" '^sleeps=' 30
	stop "$LAT_PID"
	rmax=$(final "$T/$1.json" '.sched.offcpu_sleep.max // 0')
	diag "returner, --probes $2: $(head -c 120 "$T/$1.work"); longest sleep: sched $rmax ns"
	check "--probes $2: a thread back in the cgroup after 1.6 s out: no sleep across its time away (its longest $rmax ns, < 200 ms; its sleeps are 5 ms)" \
		bash -c "[ $rmax -gt 0 ] && [ $rmax -lt 200000000 ]"
	[ "$2" = sched,time ] || return 0
	tmax=$(final "$T/$1.json" '[.time.causes[] | select(.cause == "clock_nanosleep") | .max] | max // 0')
	# (an interval's counts are read read_ns after its end: what ran
	# since is in them too; under TCG tens of ms)
	over=$(jq -s --argjson p "$ret" '[.[] | select(.interval and .time) | .length_s as $l | .time.read_ns as $r |
		.time.per_thread[]? | select(.pid == $p and .time.wall_ns > $l * 1e9 * 1.01 + 1e6 + ($r // 0))] | length' "$T/$1.json")
	diag "returner, --probes $2: longest sleep in time's causes $tmax ns; intervals over their threads' time: $over"
	check "... time's longest clock_nanosleep too ($tmax ns, < 200 ms)" \
		bash -c "[ $tmax -gt 0 ] && [ $tmax -lt 200000000 ]"
	check "... and no interval credits one of its $nth threads with more than the interval's length and its read's lateness ($over over)" \
		bash -c "[ '$over' = 0 ]"
}
returner rt sched,time
returner rs sched

# bad inputs: exit 2, one line, nothing attached
usage_error "a cgroup that does not exist" "no such cgroup" --cgroup "$CG/nope"
usage_error "a file, not a cgroup" "no such cgroup" --cgroup /etc/hostname
mkdir -p "$V1"
if mount -t cgroup -o none,name=latbpftest none "$V1" 2>/dev/null; then
	usage_error "a cgroup v1 hierarchy" "cgroup v1 hierarchy; give the cgroup v2 path" --cgroup "$V1"
	umount "$V1"
else
	check "a cgroup v1 hierarchy could be mounted to test with" false
fi
usage_error "--children without --pid" "give --pid" --children --cgroup "$CG"
check "nothing left in the kernel" no_progs_above "$progs0"
done_testing

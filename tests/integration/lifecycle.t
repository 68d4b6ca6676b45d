#!/usr/bin/env bash
# Every way a run ends leaves nothing in the kernel, and ends with the
# documented exit code: duration, SIGINT, SIGTERM, target exit, COMMAND exit;
# bad targets are usage errors (2), missing privileges environment errors (3).
. "$(dirname "$0")/lib.sh"
need_root
before=$(tracing_progs)
left() { # left DESCRIPTION: no tracing program more than before
	check "$1: no BPF program left ($before loaded before)" no_progs_above "$before"
}

timeout 30 "$LATBPF" --probes sched --duration 1500ms --no-tui --json "$T/d.json" >"$T/d.out" 2>&1
ok $? "--duration 1500ms: exit 0"
check "--duration 1500ms: 2 interval records (1 s, then the last 0.5 s) and a final one" \
	test "$(jq -s 'map(select(.interval)) | length' "$T/d.json"),$(jq -s 'map(select(.final)) | length' "$T/d.json")" = "2,1"
check "--duration: the intervals add up to the final record" \
	test "$(jq -s '[.[] | select(.interval) | .sched.runq.count] | add' "$T/d.json")" = "$(final "$T/d.json" .sched.runq.count)"
check "--duration: final record last, duration_s about 1.5" \
	bash -c "tail -1 '$T/d.json' | jq -e '.final and .run.duration_s >= 1.4 and .run.duration_s < 2.5' >/dev/null"
left "duration"

# the families sharing the scheduler tracepoints, alone and on the fallback
timeout 30 "$LATBPF" --probes hiccup --duration 1s --no-tui --json "$T/h.json" >/dev/null 2>&1
ok $? "--probes hiccup alone: exit 0"
check "--probes hiccup alone: hiccup attached, no sched data" \
	bash -c "jq -e 'select(.final) | .probes == {\"hiccup\": \"attached (tp_btf)\"} and (has(\"sched\") | not) and (.hiccup.cpus | type == \"array\")' '$T/h.json' >/dev/null"
left "hiccup alone"
# The event ring (LATBPF_HC_EVENTS=5): every event is in its interval's
# record, the final record lists the newest 5 and says how many there were,
# and an interval's events beyond 5 are counted as dropped
LATBPF_HC_EVENTS=5 timeout 30 "$LATBPF" --probes hiccup --threshold 5us --interval 200ms \
	--duration 2s --no-tui --json "$T/he.json" >/dev/null 2>&1 &
hp=$!
timeout 10 "$LATWORK" sleep --sleep 1ms --count 1500 --threads 4 >/dev/null 2>&1
wait $hp
ok $? "--probes hiccup, a ring of 5 events: exit 0"
seen=$(final "$T/he.json" .hiccup.events_seen)
listed=$(jq -s '[.[] | select(.interval) | .hiccup.events | length] | add' "$T/he.json")
dropped=$(final "$T/he.json" '.drops["hiccup.events_dropped"] // 0')
diag "ring of 5: $seen events seen, $listed in the interval records, $dropped dropped"
check "ring of 5: enough events listed to wrap it ($listed > 5)" num_le 6 "$listed"
check "ring of 5: every event seen is listed in its interval's record or dropped ($listed + $dropped = $seen)" \
	test "$((listed + dropped))" = "$seen"
check "ring of 5: the final record lists the newest 5" \
	bash -c "jq -s -e '(map(select(.interval) | .hiccup.events[]) | .[-5:]) == (map(select(.final))[0].hiccup.events)' '$T/he.json' >/dev/null"
check "ring of 5: an interval's events beyond 5 are counted ($dropped), each interval <= 5 listed" \
	bash -c "jq -s -e 'map(select(.interval) | .hiccup.events | length) | all(. <= 5)' '$T/he.json' >/dev/null"
# The kernel's ring of events (LATBPF_HC_RING=4096: a page, 56 events),
# emptied at each poll, overflows: the events that found it full are
# counted lost, and with --threshold 1ns every hiccup of the target is an
# event, so the hiccups counted per CPU are the events read plus those lost
# (each CPU says its own)
start_work hr --linger sleep --sleep 1ms --count 1500 --threads 4
LATBPF_HC_RING=4096 start_latbpf hr --pid "$WORK_PID" --probes hiccup --threshold 1ns -i 200ms \
	--no-tui --json "$T/hr.json"
kill -USR1 "$WORK_PID"
wait_for "$T/hr.work" '^sleeps=' 30
stop "$LAT_PID"
ok $? "--probes hiccup, a ring of one page: exit 0"
kill -TERM "$WORK_PID" 2>/dev/null
hseen=$(final "$T/hr.json" .hiccup.events_seen)
hlost=$(final "$T/hr.json" '[.hiccup.cpus[].events_lost // 0] | add')
dhlost=$(final "$T/hr.json" '.drops["hiccup.events_lost"] // 0')
hcount=$(final "$T/hr.json" '[.hiccup.cpus[].count] | add')
diag "ring of a page: $hcount hiccups, $hseen events read, $hlost lost (drops $dhlost)"
check "ring of a page: events lost ($hlost > 0), in the drops object too ($dhlost)" \
	bash -c "[ $hlost -gt 0 ] && [ $hlost = $dhlost ]"
check "... every hiccup is an event read or lost ($hseen + $hlost = $hcount)" \
	test "$((hseen + hlost))" = "$hcount"
# The intruder reads never consistent (LATBPF_HC_STALE): every poll is
# counted and keeps the last consistent list (here: none), never a torn one;
# the table loss of the shared object is hiccup's to say without sched
LATBPF_HC_STALE=1 timeout 30 "$LATBPF" --probes hiccup --duration 1500ms --no-tui --json "$T/hs.json" >/dev/null 2>&1
ok $? "--probes hiccup, inconsistent reads: exit 0"
polls=$(jq -s 'map(select(.interval)) | length' "$T/hs.json")
check "every poll's inconsistent read counted: hiccup.stale_polls = $polls polls" \
	bash -c "jq -e 'select(.final) | .drops[\"hiccup.stale_polls\"] == $polls and .hiccup.stale_polls == $polls and
		([.hiccup.cpus[].top[]] | length) == 0' '$T/hs.json' >/dev/null"
check "the interval records say it too (1 each)" \
	bash -c "jq -s -e 'map(select(.interval)) | all(.hiccup.stale_polls == 1)' '$T/hs.json' >/dev/null"
LATBPF_FORCE_RAW_TP=1 timeout 30 "$LATBPF" --duration 1s --no-tui --json "$T/r.json" >/dev/null 2>"$T/r.err"
ok $? "raw_tp fallback: exit 0"
check "raw_tp fallback: sched on the twins, hiccup refused with a reason" \
	bash -c "jq -e 'select(.final) | .probes.sched == \"attached (raw_tp; tp_btf: LATBPF_FORCE_RAW_TP is set)\" and (.probes.hiccup | startswith(\"unavailable\")) and .sched.runq.count > 0' '$T/r.json' >/dev/null"
check "raw_tp fallback: says why" grep -q 'hiccup: needs the tp_btf programs .*, which did not load: LATBPF_FORCE_RAW_TP is set' "$T/r.err"
left "raw_tp fallback"

for sig in INT TERM; do
	start_latbpf $sig --probes sched --no-tui
	sleep 0.5
	stop "$LAT_PID" $sig
	ok $? "SIG$sig: exit 0"
	check "SIG$sig: the whole-run summary was printed" grep -q '^=== whole run ===' "$T/$sig.out"
	left "SIG$sig"
done

start_work gone sleep --sleep 10ms --count 50
start_latbpf gone --pid "$WORK_PID" --probes sched --no-tui --json "$T/gone.json"
kill -USR1 "$WORK_PID"
for ((i = 0; i < 100; i++)); do kill -0 "$LAT_PID" 2>/dev/null || break; sleep 0.05; done
wait "$LAT_PID"
ok $? "target exit: latbpf ends by itself with exit 0"
check "target exit: said so" grep -q 'target exited' "$T/gone.err"
check "target exit: summary holds its 50 sleeps (less those whose wakeup the kernel did not report)" \
	between "$(final "$T/gone.json" .sched.offcpu_sleep.count)" $((50 - $(unseen_wakeups "$T/gone.json"))) 52
left "target exit"

timeout 30 "$LATBPF" --probes sched --no-tui --json "$T/cmd.json" -- \
	"$LATWORK" sleep --sleep 5ms --count 40 >"$T/cmd.out" 2>"$T/cmd.err"
ok $? "-- COMMAND: exit 0 when the command ends"
check "-- COMMAND: traced from its first instruction (40 sleeps seen)" \
	between "$(final "$T/cmd.json" .sched.offcpu_sleep.count)" $((40 - $(unseen_wakeups "$T/cmd.json"))) 45
check "-- COMMAND: its output passes through" grep -q '^sleeps=40 ' "$T/cmd.out"
left "command"

timeout 10 "$LATBPF" --no-tui -- /nonexistent/cmd >"$T/nx.out" 2>&1
check "-- missing command: exit 2" test $? -eq 2
check "-- missing command: clear message" grep -q "cannot run '/nonexistent/cmd'" "$T/nx.out"
left "missing command"

timeout 10 "$LATBPF" --pid 999999999 >"$T/np.out" 2>&1
check "--pid of no process: exit 2" test $? -eq 2
check "--pid of no process: 'no such process'" grep -q 'no such process: 999999999' "$T/np.out"
sleep 30 &
sp=$!
timeout 10 "$LATBPF" --tid 999999998 >"$T/nt.out" 2>&1
check "--tid of no thread: exit 2" test $? -eq 2
kill "$sp"

if command -v setpriv >/dev/null; then
	timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$LATBPF" --duration 1s --no-tui >"$T/np.out" 2>&1
	check "unprivileged: exit 3" test $? -eq 3
	check "unprivileged: says root or CAP_BPF is needed" grep -q 'CAP_BPF' "$T/np.out"
	left "unprivileged"
fi
done_testing

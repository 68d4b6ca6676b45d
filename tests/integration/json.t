#!/usr/bin/env bash
# --json: the NDJSON schema of DESIGN.md, provenance in every record, and
# exact accounting: the intervals add up to the whole run.
. "$(dirname "$0")/lib.sh"
need_root

start_work w --linger sleep --sleep 1ms --count 800 --threads 2
# 800 sleeps of 1 ms take about a second; a guest under TCG, beside
# another, once took more than 3 s (1599 of the 1600 sleeps seen)
DUR=3s
[ "${LATBPF_TCG:-0}" = 1 ] && DUR=10s
start_latbpf j --pid "$WORK_PID" --interval 500ms --duration $DUR --per-thread --no-tui --json "$T/j.json"
kill -USR1 "$WORK_PID"
wait "$LAT_PID"
ok $? "latbpf --duration $DUR exits 0"
check "the workload's sleeps all ended while latbpf ran" grep -q '^sleeps=' "$T/w.work"
kill -TERM "$WORK_PID"
J=$T/j.json

check "every line is one JSON object" bash -c "jq -e 'type == \"object\"' '$J' >/dev/null"
check "intervals numbered 1..k without gaps, then one final record" \
	bash -c "jq -s -e '(map(select(.interval)) | map(.interval)) as \$i | \$i == [range(1; (\$i|length)+1)] and (\$i|length) >= 5 and (last | .final) and (map(select(.final)) | length) == 1' '$J' >/dev/null"
check "provenance in every record" bash -c "jq -e '
	(.latbpf.version | type == \"string\") and (.latbpf.commit | type == \"string\") and
	(.host.kernel | type == \"string\") and (.host.cpu_model | type == \"string\") and
	(.host.cpus >= 1) and (.host.clocksource | type == \"string\") and (.host.tsc | type == \"object\") and
	(.run.argv[0] | endswith(\"latbpf\")) and (.run.start | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$\")) and
	(.run.interval_s == 0.5) and (.run.duration_s >= 0) and
	(.run.target.pids == [$WORK_PID]) and (.run.target.tids == []) and (.run.target.comm == \"latwork\") and
	(.probes.sched == \"attached (tp_btf)\") and (.probes | keys | sort == [\"block\",\"fault\",\"hiccup\",\"sched\",\"tcp\"]) and
	(.probes | to_entries | all(.value | test(\"^attached \\\\(|^unavailable: .\")))
	' '$J' >/dev/null"
check "self and drops right after the provenance, in every record (0s omitted)" bash -c "jq -e '
	(.drops | type == \"object\") and (.drops | to_entries | all(.value >= 0 and (.key | test(\"^[a-z]+\\\\.[a-z_]+$\")))) and
	(keys_unsorted | index(\"self\")) == (keys_unsorted | index(\"probes\")) + 1 and
	(keys_unsorted | index(\"drops\")) == (keys_unsorted | index(\"probes\")) + 2' '$J' >/dev/null"
check "histogram objects carry every field of H" bash -c "jq -e '.sched | [.runq, .timer_late, .offcpu_sleep, .offcpu_blocked] | all(
	has(\"count\") and has(\"min\") and has(\"max\") and has(\"sum\") and has(\"p50\") and has(\"p90\") and
	has(\"p99\") and has(\"p99.9\") and has(\"p99.99\") and has(\"buckets\"))' '$J' >/dev/null"
check "buckets are [low, high, count], ordered, low <= high, counts add up to count" \
	bash -c "jq -e '.sched.runq as \$h | (\$h.buckets | all(.[0] <= .[1] and .[2] > 0)) and
	([\$h.buckets[][2]] | add // 0) == \$h.count and (\$h.buckets | . == sort)' '$J' >/dev/null"
check "percentiles ordered and within [min, max]" bash -c "jq -e '.sched.runq | select(.count > 0) |
	.min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .[\"p99.9\"] and .[\"p99.9\"] <= .[\"p99.99\"] and .[\"p99.99\"] <= .max' '$J' >/dev/null"
sum=$(jq -s '[.[] | select(.interval) | .sched.runq.count] | add' "$J")
fin=$(final "$J" .sched.runq.count)
check "interval runq counts add up to the final one exactly ($sum = $fin)" test "$sum" = "$fin"
sumv=$(jq -s '[.[] | select(.interval) | .sched.switches.voluntary] | add' "$J")
check "interval switch counts add up too ($sumv = $(final "$J" .sched.switches.voluntary))" \
	test "$sumv" = "$(final "$J" .sched.switches.voluntary)"
tmax=$(jq -s '[.[] | select(.interval) | .sched.runq.max] | max' "$J")
check "the largest interval max is the run's exact max ($tmax)" test "$tmax" = "$(final "$J" .sched.runq.max)"
# Every sleep that left the CPU is either timed or counted as unseen: the
# kernel emits no wakeup for about 1 in 1600 of these sleeps (bpftrace sees
# the same). Which sleeps left the CPU is the kernel's count of the
# sleepers' voluntary switches (getrusage, from each thread's start): a
# sleep whose timer fired before the thread reached schedule() never
# leaves it (2 of 1600 in a 6.1 guest under TCG, where 1 ms is short).
unseen=$(final "$J" .sched.switches.unseen_wakeups)
# A voluntary switch is a sleep of either kind: a sleeper blocked in a
# page fault on its code (read over the guests' 9p) is one too, and the
# workload reads its count before the thread's way out, where it can
# block again (the guests: 1 to 4 D sleeps a thread in its life). So:
# every switch of the count is timed, interruptible or blocked, and no
# more interruptible sleeps than the count.
timed=$(final "$J" '[.sched.threads[] | select(.offcpu_sleep.count >= 790) | .offcpu_sleep.count] | add')
timed_d=$(final "$J" '[.sched.threads[] | select(.offcpu_sleep.count >= 790) | .offcpu_blocked.count // 0] | add')
vol=$(sed -n 's/.*nvcsw=\([0-9]*\).*/\1/p' "$T/w.work")
diag "sleeps: the family's $(final "$J" .sched.offcpu_sleep.count), by thread $(final "$J" '[.sched.threads[] | "\(.tid):\(.offcpu_sleep.count)+\(.offcpu_blocked.count // 0)D"] | join(" ")'); drops $(final "$J" .drops | tr -d " \n"); $(cat "$T/w.work")"
check "per-thread: the sleepers' ${vol:-?} voluntary switches (the kernel's count) <= $timed timed + $timed_d blocked + $unseen unseen" \
	num_le "${vol:-x}" "$((timed + timed_d + unseen))"
check "... and their interruptible sleeps ($timed + $unseen unseen) at most that count + 2" \
	num_le "$((timed + unseen))" "$((${vol:-0} + 2))"
check "the sleepers slept: ${vol:-?} voluntary switches for 1600 sleeps (>= 1500)" num_le 1500 "${vol:-0}"
# rare: 1 % at most (6 of 1600 seen once with a qemu guest busy beside)
check "unseen wakeups stay rare ($unseen <= 16)" num_le "$unseen" 16

# --per-thread with thread churn: 63 threads sleep 5 times and exit. The
# kernel's table keeps live threads only (an exited thread's entry is read
# a last time and deleted), and the loader keeps the newest exited threads
# by name (LATBPF_THREADS_EXITED=20 here, 4096 by default) and sums the
# older: every thread and every sample is still there, by name or summed.
start_work c --linger sleep --sleep 1ms --count 5 --threads 63
LATBPF_THREADS_EXITED=20 start_latbpf c --pid "$WORK_PID" --probes sched --per-thread \
	--interval 300ms --no-tui --json "$T/c.json"
kill -USR1 "$WORK_PID"
wait_for "$T/c.work" '^sleeps=' 20
sleep 1
# the table, from outside: bpftool on the sched_threads map latbpf holds
LP=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
mid=$(held_map "$LP" sched_threads)
left=$(bpftool map dump id "${mid:-0}" 2>/dev/null | grep -c '"key":')
stop "$LAT_PID"
ok $? "thread churn: latbpf exits 0"
kill -TERM "$WORK_PID"
C=$T/c.json
check "thread churn: the kernel's table holds the live threads only (${left:-?} entries, the main thread's)" \
	test "${left:-x}" = 1
named=$(final "$C" '.sched.threads | length')
summed=$(final "$C" '.sched.threads_exited.threads // 0')
check "thread churn: 20 exited threads by name + the main thread ($named), the other 43 summed ($summed)" \
	test "$named,$summed" = "21,43"
tr=$(final "$C" '([.sched.threads[].runq.count] | add) + .sched.threads_exited.runq.count')
check "thread churn: run-queue samples by thread + summed = the total ($tr = $(final "$C" .sched.runq.count))" \
	test "$tr" = "$(final "$C" .sched.runq.count)"
ts=$(final "$C" '([.sched.threads[].offcpu_sleep.count] | add) + .sched.threads_exited.offcpu_sleep.count')
check "thread churn: sleeps by thread + summed = the total ($ts = $(final "$C" .sched.offcpu_sleep.count))" \
	test "$ts" = "$(final "$C" .sched.offcpu_sleep.count)"
si=$(jq -s '[.[] | select(.interval) | .sched.threads_exited.runq.count // 0] | add' "$C")
check "thread churn: summing old threads adds no samples to any interval ($si)" test "$si" = 0
done_testing

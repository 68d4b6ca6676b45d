#!/usr/bin/env bash
# hiccup ground truth: who stole the target's CPU, when, for how long.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || { cannot_run "needs 2 CPUs"; }
# the interrupt case's ground truth beside /proc/softirqs
command -v bpftrace >/dev/null || cannot_run "bpftrace missing (tools/install-deps.sh)"
# the test's own commands (bash, grep, latbpf) run on CPU 0, off the
# target's CPU 1: each workload pins itself (latwork --cpu)
taskset -pc 0 $$ >/dev/null || cannot_run "taskset failed"

# Burner cases: the target spins on CPU 1; a SCHED_FIFO burner on CPU 1 wakes
# every PERIOD and spins BURST. Two shapes, so a pass is no accident.
burner_case() { # NAME PERIOD_MS BURST_MS
	local name=$1 period=$2 burst=$3 hog bp bursts J c1 c0
	# (spinning until killed: under qemu a 5 s spin ended before latbpf's
	# last poll, which then found no pinned target thread)
	start_work "$name" --cpu 1 hog --for 60s
	hog=$WORK_PID
	# the burner is forked, exec'd, pinned and made SCHED_FIFO before latbpf
	# attaches (latwork --wait): its start is not among the hiccups
	start_work "$name.burner" --cpu 1 --fifo --comm burner burner --period ${period}ms \
		--burst ${burst}ms --for 3s
	bp=$WORK_PID
	start_latbpf "$name" --pid "$hog" --probes hiccup --threshold 2ms --no-tui \
		--json "$T/$name.json"
	kill -USR1 "$hog"
	sleep 0.2
	kill -USR1 "$bp"
	wait_for "$T/$name.burner.work" '^bursts=' 30
	stop "$LAT_PID"
	kill -TERM "$hog" 2>/dev/null
	bursts=$(sed -n 's/^bursts=\([0-9]*\).*/\1/p' "$T/$name.burner.work")
	# the bursts the kernel let the burner spin without a switch (one was
	# not, once: 28 waits of half a burst for 29 bursts)
	whole=$(sed -n 's/^bursts=.* whole=\([0-9]*\).*/\1/p' "$T/$name.burner.work")
	J=$T/$name.json
	c1=".hiccup.cpus[] | select(.cpu == 1)"
	c0=".hiccup.cpus[] | select(.cpu == 0)"
	local pre p50 stolen top toppid pinned ev evok ev0 stolen0 width
	pre=$(final "$J" "$c1 | .preempted")
	p50=$(final "$J" "$c1 | .hist.p50")
	stolen=$(final "$J" "$c1 | .preempted_ns")
	top=$(final "$J" "$c1 | .top[0] | \"\(.kind) \(.name)\"")
	toppid=$(final "$J" "$c1 | .top[0].pid")
	pinned=$(final "$J" "$c1 | .pinned_tids | join(\",\")")
	ev=$(final "$J" '.hiccup.events | length')
	evok=$(final "$J" "[.hiccup.events[] | select(.cpu == 1 and .name == \"burner\" and .duration_ns >= 2000000)] | length")
	stolen0=$(final "$J" "[$c0 | .preempted_ns + .wakeup_ns] | add // 0")
	diag "$name: $bursts bursts of ${burst}ms | cpu1 preempted=$pre p50=$p50 stolen=$stolen top='$top' pid $toppid pinned=$pinned | events $ev ($evok from the burner) | cpu0 stolen $stolen0"
	# the slot holding BURST ms is 2^(floor(log2(BURST ms)) - 4) ns wide
	width=$(awk -v b=$((burst * 1000000)) 'BEGIN { printf "%d", 2 ^ (int(log(b) / log(2)) - 4) }')
	check "$name: CPU 1 is marked pinned, with the target's thread" test "$pinned" = "$hog"
	# others: kworkers, the test's own tools, the VM's noise; each is a real
	# preemption of the target, their number is not under the test's control
	# preemption, and on PREEMPT_RT also ktimers/1 and rcuc/1 at every tick
	# (~400 in this run under qemu); so the bursts are counted among the
	# hiccups of at least half a burst, from the histogram's buckets
	local half=$((burst * 500000)) long medlong longq
	longq="[$c1 | .hist.buckets[] | select(.[0] >= $half)]"
	long=$(final "$J" "$longq | map(.[2]) | add // 0")
	medlong=$(final "$J" "$longq | (map(.[2]) | add) as \$n |
		reduce .[] as \$b ({c: 0, m: null}; .c += \$b[2] |
			if .m == null and .c * 2 >= \$n then .m = \$b[1] else . end) | .m // 0")
	diag "$name: $long hiccups >= $((burst / 2)).$((burst % 2 * 5)) ms, their median $medlong ns; p50 of all $p50 ns"
	check "$name: preemption hiccups ($pre) >= bursts ($bursts)" num_le "$bursts" "$pre"
	# a wait that spans two bursts (others held the CPU between them: under
	# TCG, khugepaged for 8 ms, rcu_preempt) lasts a period at least
	local spans unseen
	spans=$(final "$J" "[$c1 | .hist.buckets[] | select(.[1] >= $((period * 1000000))) | .[2]] | add // 0")
	# and a switch back to the target that the kernel did not emit (6.18
	# leaves out one in thousands: record.t's trace shows them, bpftrace
	# too) ends no wait: the family counts those (unseen) and drops the
	# wait they hid (CI's host, twice: 28 for 29 whole bursts; here 2
	# unseen in one run of three)
	unseen=$(final "$J" "$c1 | .unseen // 0")
	check "$name: hiccups of half a burst or more ($long, $spans of them a period or more) >= the bursts spun whole (${whole:-?} of $bursts, half at least), less the switches the kernel did not emit on CPU 1 ($unseen)" \
		bash -c "[ '${whole:-0}' -ge $((bursts / 2)) ] && [ $((long + spans + unseen)) -ge '${whole:-x}' ]"
	# whether anything else holds the CPU for milliseconds is the machine's
	# speed: under qemu a softirq or a kernel thread does
	timing check "$name: ... and 2 more at most" num_le "$long" "$((bursts + 2))"
	check "$name: their median $medlong >= ${burst} ms - (slot $width + 10%)" \
		num_le "$((burst * 900000 - width))" "$medlong"
	# a kernel thread that runs on right after a burst lengthens that wait:
	# under qemu by a large part of a millisecond
	timing check "$name: ... and <= ${burst} ms + (slot $width + 10%)" \
		num_le "$medlong" "$((burst * 1100000 + width))"
	# The median of all is the host's: a burst where the other preemptions
	# are few, a kworker's where they are not (32 of 61 once on this host;
	# on PREEMPT_RT ktimers/1 and rcuc/1 at every tick). What latbpf must
	# do is report it as its own buckets say: the top of the slot where
	# half the count is reached
	local med
	med=$(final "$J" "($c1 | .hist.max) as \$max | [$c1 | .hist.buckets[]] | (map(.[2]) | add) as \$n |
		reduce .[] as \$b ({c: 0, m: null}; .c += \$b[2] |
			if .m == null and .c * 2 >= \$n then .m = \$b[1] else . end) | [.m // 0, \$max] | min")
	check "$name: p50 of all ($p50) is the median of its buckets, at most the exact max ($med)" test "$p50" = "$med"
	timing check "$name: stolen $stolen ns = $bursts x ${burst} ms +- 15%" \
		between "$stolen" "$((bursts * burst * 850000))" "$((bursts * burst * 1150000))"
	# the burner among the intruders, by name and pid; first of them
	# unless the machine's interrupts cost more (a TCG guest on a slow
	# host, 2026-11-29: the local timer's 85 ms against the bursts' 145)
	local bpid bns
	bpid=$(final "$J" "[$c1 | .top[] | select(.kind == \"task\" and .name == \"burner\")][0].pid // 0")
	bns=$(final "$J" "[$c1 | .top[] | select(.kind == \"task\" and .name == \"burner\")][0].total_ns // 0")
	check "$name: the burner is an intruder, with its pid ($bpid = $bp), $bns ns" test "$bpid" = "$bp"
	timing check "$name: ... the top one ('$top', pid $toppid)" test "$top,$toppid" = "task burner,$bp"
	timing check "$name: --threshold 2ms: one event per burst ($evok of $ev, $bursts bursts)" \
		between "$evok" "$((bursts - 1))" "$bursts"
	local short extra
	short=$(final "$J" '[.hiccup.events[] | select(.duration_ns < 2000000)] | length')
	extra=$(final "$J" '[.hiccup.events[] | select(.name != "burner") | "\(.name) \(.duration_ns)ns"] | join(", ")')
	check "$name: no event below the 2 ms threshold ($short)" test "$short" = 0
	timing check "$name: at most 2 events from other intruders (${extra:-none})" num_le "$((ev - evok))" 2
	check "$name: CPU 0 shows nothing comparable ($stolen0 ns)" num_le "$stolen0" "$((stolen / 20))"
}
burner_case burn100x5 100 5
# the second shape is for the timing bands, which a TCG guest skips: there
# its 26 s (an attach, jq) would judge nothing the first did not
[ "${LATBPF_TCG:-0}" = 1 ] || burner_case burn70x8 70 8

# Wakeup delay: the target sleeps 1 ms in a loop on CPU 1 beside an
# equal-priority hog: the delay between each wakeup and the target running
# is charged to the hog.
start_work wake --cpu 1 --linger sleep --sleep 1ms --count 1000
start_latbpf wake --pid "$WORK_PID" --probes hiccup --no-tui --json "$T/wake.json"
timeout 20 "$LATWORK" --cpu 1 --comm hog hog --for 4s &
hog=$!
_pids+=($hog)
sleep 0.2
kill -USR1 "$WORK_PID"
wait_for "$T/wake.work" '^sleeps=' 30
stop "$LAT_PID"
kill "$hog" "$WORK_PID" 2>/dev/null
c1=".hiccup.cpus[] | select(.cpu == 1)"
wk=$(final "$T/wake.json" "$c1 | .wakeup")
hogtop=$(final "$T/wake.json" "[$c1 | .top[] | select(.kind == \"task\" and .pid != 0)][0].name")
hogns=$(final "$T/wake.json" "[$c1 | .top[] | select(.name == \"hog\")][0].total_ns")
diag "wakeup: $wk wakeup hiccups on CPU 1; top task intruder '$hogtop' ($hogns ns)"
check "wakeup: one wakeup hiccup per sleep ($wk for 1000)" between "$wk" 990 1010
if preempt_rt; then
	# on RT a normal task's sleep timer fires in ktimers/1 (a SCHED_FIFO
	# thread running the timer softirqs), which wakes the target and runs on
	# first: it is charged too, and may outweigh the hog
	check "wakeup: charged to the hog or, on PREEMPT_RT, ktimers/1 ('$hogtop')" \
		test "$hogtop" = "hog" -o "$hogtop" = "ktimers/1"
else
	check "wakeup: charged to the hog ('$hogtop')" test "$hogtop" = "hog"
fi
check "wakeup: the hog's share is positive ($hogns ns)" num_le 1 "$hogns"

# Many intruders: 120 short normal-priority burners share CPU 1 with the
# spinning target. A CPU caches 64 intruders (latbpf/hiccup.h), so most of
# them are moved into the hash while charged; the run's totals must still add
# up: with one target, every ns it waited is charged to exactly one
# intruder (a task, or an interrupt inside the wait).
# The burners are all started (and waiting, latwork --wait) before latbpf
# attaches, then released at once: 120 forks and execs are not what is
# measured (under qemu they take seconds).
NB=120 BFOR=2s
# (80 under TCG, still past the 64 slots: 120 forks and execs, and their
# waits, took a minute and more of the guest's file; and 1 s of bursts,
# 20 each: 80 burners' 2 s, their wakeups under three latbpf, took 65 s of
# the 6.1-rt guest's)
[ "${LATBPF_TCG:-0}" = 1 ] && NB=80 BFOR=1s
# (its bound outlives the burners' start and three attaches: the 6.1-rt
# guest's hog was killed by a 90 s one before latbpf was attached)
WORK_TMO=500 start_work many --cpu 1 hog --for 60s
hog=$WORK_PID
for ((i = 0; i < NB; i++)); do
	# (released after three latbpf attach: over 90 s in the 6.1-rt guest
	# on a busy host, where a 90 s bound had killed some before)
	timeout -s KILL 300 "$LATWORK" --wait --cpu 1 --comm "b$i" burner --period 50ms \
		--burst 200us --for $BFOR >"$T/many-b$i.work" 2>&1 &
	_pids+=($!)
done
end=$((SECONDS + 280))
while [ $SECONDS -lt $end ]; do
	files_with '^ready' "$T"/many-b*.work
	[ "$MATCHED" -ge $NB ] && break
	sleep 0.2
done
bps=($(sed -n 's/^ready //p' "$T"/many-b*.work))
ok $((${#bps[@]} != NB)) "many: $NB burners ready (${#bps[@]})"
# three latbpf on the target, each window inside the one before: first the
# run the other two are judged against, then the one with a cut hash and
# the one with a short list of names, each stopped before the one before
start_latbpf many --pid "$hog" --probes hiccup --no-tui --json "$T/many.json"
ok $? "many: latbpf attached"
many=$LAT_PID
# a second latbpf on the same target, its intruder hash cut to 8 keys
# (LATBPF_HC_INTRUDERS): the charges it cannot take must be counted
LATBPF_HC_INTRUDERS=8 start_latbpf small --pid "$hog" --probes hiccup --no-tui \
	--json "$T/small.json"
ok $? "many, 8 keys: latbpf attached"
small=$LAT_PID
# a third, that keeps 16 intruders by name once drained (LATBPF_HC_KEEP) and
# polls every 200 ms: the rest are summed per CPU as "(others)"
LATBPF_HC_KEEP=16 start_latbpf keep --pid "$hog" --probes hiccup --no-tui --interval 200ms \
	--json "$T/keep.json"
ok $? "keep 16: latbpf attached"
keep=$LAT_PID
kill -USR1 "$hog"
kill -USR1 "${bps[@]}"
end=$((SECONDS + 120))
while [ $SECONDS -lt $end ]; do
	files_with '^bursts=' "$T"/many-b*.work
	[ "$MATCHED" -ge $NB ] && break
	sleep 0.2
done
stop "$keep"
stop "$small"
stop "$many"
kill -TERM "$hog" 2>/dev/null
J=$T/many.json
c1=".hiccup.cpus[] | select(.cpu == 1)"
nin=$(final "$J" "$c1 | .intruders")
inns=$(final "$J" "$c1 | .intruders_ns")
waits=$(final "$J" "$c1 | .preempted_ns + .wakeup_ns")
pre=$(final "$J" "$c1 | .preempted")
topb=$(final "$J" "[$c1 | .top[] | select(.name | test(\"^b[0-9]+$\"))] | length")
diag "many: cpu1 $nin intruders, $inns ns charged; $pre preemptions, waits $waits ns; $topb of the top listed are burners; the hog said: $(tr '\n' '|' <"$T/many.work"); $(cat "$T"/many-b*.work | grep -c '^bursts=') burners reported bursts"
# every burner is an intruder where the CPU is fast enough for all of them
# to run while the target waits; past the 64 cache slots is what is tested
check "many: more intruders ($nin) than a CPU's 64 cache slots" num_le 65 "$nin"
timing check "many: ... every one of the $NB burners among them ($nin)" num_le $NB "$nin"
check "many: the target waited ($pre preemptions, $waits ns)" num_le 20 "$pre"
# interrupts are charged too when they hit the target on CPU (irq_ns,
# softirq_ns, nmi_ns, sysirq_ns): under qemu's slow virtio, ten times the waits. An
# interrupt that began before a wait is charged whole: a few us each.
intr=$(final "$J" "$c1 | .irq_ns + .softirq_ns + .nmi_ns + .sysirq_ns")
check "many: charged $inns ns = waited $waits ns + interrupted on CPU $intr ns (+-1%)" \
	between "$inns" "$(((waits + intr) * 99 / 100))" "$(((waits + intr) * 101 / 100))"
timing check "many: the top intruders are the burners ($topb of 20)" num_le 15 "$topb"
lost=$(final "$J" "$c1 | .intruders_lost // 0")
check "many: nothing lost with the default hash ($lost; drops: $(final "$J" '.drops | tostring'))" \
	test "$lost,$(final "$J" '.drops["hiccup.intruders_lost"] // 0')" = "0,0"
# the 8-key run: what it charged plus what it lost is what the target
# waited and was interrupted, and the loss is in the drops object
S=$T/small.json
s_in=$(final "$S" "$c1 | .intruders_ns")
s_lost=$(final "$S" "$c1 | .intruders_lost // 0")
s_lostns=$(final "$S" "$c1 | .intruders_lost_ns // 0")
s_all=$(final "$S" "$c1 | .preempted_ns + .wakeup_ns + .irq_ns + .softirq_ns + .nmi_ns + .sysirq_ns")
s_drop=$(final "$S" '.drops["hiccup.intruders_lost"] // 0')
diag "many, 8 keys: cpu1 $(final "$S" "$c1 | .intruders") intruders, $s_in ns charged, $s_lost charges lost ($s_lostns ns), waited + interrupted $s_all ns; drops $s_drop"
check "many, 8 keys: charges lost to the full hash are counted ($s_lost)" num_le 1 "$s_lost"
check "many, 8 keys: ... in the drops object ($s_drop >= $s_lost)" num_le "$s_lost" "$s_drop"
check "many, 8 keys: charged $s_in + lost $s_lostns ns = waited + interrupted $s_all ns (+-1%)" \
	between "$((s_in + s_lostns))" "$((s_all * 99 / 100))" "$((s_all * 101 / 100))"
grep -q 'intruders_lost' "$T/small.out"
ok $? "many, 8 keys: the summary names the loss"
# The kernel's hash is drained every poll (latbpf/hiccup.h), so the
# intervals' intruder time adds up to the run's exactly
ivs=$(jq -s "[.[] | select(.interval) | $c1 | .intruders_ns] | add" "$J")
check "many: the intervals' intruders_ns add up to the run's ($ivs = $inns)" test "$ivs" = "$inns"
# keeping 16 by name: the others are summed, and nothing is lost or counted twice
K=$T/keep.json
k_in=$(final "$K" "$c1 | .intruders_ns")
k_all=$(final "$K" "$c1 | .preempted_ns + .wakeup_ns + .irq_ns + .softirq_ns + .nmi_ns + .sysirq_ns")
k_oth=$(final "$K" "[$c1 | .top[] | select(.kind == \"others\")] | .[0].total_ns // 0")
k_ivs=$(jq -s "[.[] | select(.interval) | $c1 | .intruders_ns] | add" "$K")
diag "keep 16: cpu1 $(final "$K" "$c1 | .intruders") intruders, $k_in ns charged ($k_oth as (others)), waited + interrupted $k_all ns"
check "keep 16: the intruders beyond 16 are summed as (others) ($k_oth ns)" num_le 1 "$k_oth"
check "keep 16: charged $k_in ns = waited + interrupted $k_all ns (+-1%)" \
	between "$k_in" "$((k_all * 99 / 100))" "$((k_all * 101 / 100))"
check "keep 16: the intervals add up to the run: nothing summed twice ($k_ivs = $k_in)" \
	test "$k_ivs" = "$k_in"
# each intruder counted once, though most were summed into (others) and
# came back at later polls: at most as many as the run around it that
# summed none, +2 for its distinct-key sketch (core/distinct.h: a key or
# two at this size; 1159 before the sketch, each summing counted again),
# and fewer only by the kernel threads that ran while that run alone was
# attached (126..132 against 130 in three runs on the host)
k_n=$(final "$K" "$c1 | .intruders")
check "keep 16: counts each intruder once: $k_n, against $nin by the run around it that summed none (-10 % -5, +2)" \
	between "$k_n" $((nin * 90 / 100 - 5)) $((nin + 2))

# Interrupts: the target spins on CPU 1; TCP traffic on CPU 0 in a network
# namespace whose lo steers receive processing (RPS) to CPU 1, so NET_RX
# softirqs run on the target's core while it is on CPU.
NS=latbpf-hiccup-$$
trap 'ip netns del $NS 2>/dev/null; cleanup' EXIT
ip netns add $NS && ip netns exec $NS sh -c 'ip link set lo up && echo 2 > /sys/class/net/lo/queues/rx-0/rps_cpus'
ok $? "netns $NS with RPS to CPU 1"
start_work irq --cpu 1 hog --for 60s
# the kernel's count of NET_RX softirqs run on CPU 1 (/proc/softirqs)
netrx_n() { awk '$1 == "NET_RX:" { print $3 }' /proc/softirqs; }
# and how many of them its tracepoint reported, seen by bpftrace around
# the whole run: under load 6.18 counts some that softirq_entry never
# reports (84 of 27,863 with a busy loop on each CPU here, bpftrace and
# latbpf seeing the same 27,779; 15 of 57,262 in a CI rehearsal)
timeout -s INT "$(tcg_bound 120)" bpftrace -q -e 'BEGIN { printf("ready\n"); }
	tracepoint:irq:softirq_entry /cpu == 1 && args->vec == 3/ { @n = count(); }' >"$T/irq.bt" 2>&1 &
bt=$!
_pids+=($bt)
wait_for "$T/irq.bt" '^ready' "$(tcg_bound 30)"
ok $? "bpftrace counts NET_RX's tracepoint on CPU 1"
na=$(netrx_n)
start_latbpf irq --pid "$WORK_PID" --probes hiccup --no-tui --json "$T/irq.json"
n0=$(netrx_n)
# ksoftirqd/1's run time from the kernel's own account (schedstat's first
# field), the ground truth its charge is held to
ksd=$(pgrep -x ksoftirqd/1)
ksd_ran() { local r; read -r r _ <"/proc/$ksd/schedstat" && echo "$r"; }
k0=$(ksd_ran)
kill -USR1 "$WORK_PID"
timeout 20 ip netns exec $NS "$LATWORK" --cpu 0 tcp --for 2s >"$T/irq.tcp"
k1=$(ksd_ran)
n1=$(netrx_n)
stop "$LAT_PID"
nb=$(netrx_n)
kill -INT $bt
wait $bt
kill -TERM "$WORK_PID" 2>/dev/null
ip netns del $NS
trap cleanup EXIT
traced=$(awk '/^@n:/ { print $2 }' "$T/irq.bt")
traced=${traced:-0}
# the kernel's count less its tracepoint's, around latbpf's run (bpftrace
# watched a little longer: a lower bound, so the check errs strict)
gap=$(( nb - na - traced > 0 ? nb - na - traced : 0 ))
check "irq: the tracepoint reported nearly all of the kernel's count ($traced of $((nb - na)), 1 % off at most)" \
	between "$traced" $(( (nb - na) * 99 / 100 )) $((nb - na + 10))
J=$T/irq.json
netrx=$(final "$J" "[$c1 | .top[] | select(.kind == \"softirq\" and .name == \"NET_RX\")][0].total_ns // 0")
soft=$(final "$J" "$c1 | .softirq_ns")
softsum=$(final "$J" "[$c1 | .top[] | select(.kind == \"softirq\") | .total_ns] | add // 0")
pre=$(final "$J" "$c1 | .preempted_ns + .wakeup_ns")
tasksum=$(final "$J" "[$c1 | .top[] | select(.kind == \"task\") | .total_ns] | add // 0")
diag "irq: $(cat "$T/irq.tcp") | cpu1 softirq_ns=$soft NET_RX=$netrx (all softirq intruders $softsum) | task hiccups $pre ns, task intruders $tasksum ns"
check "irq: NET_RX time charged on the target's core ($netrx ns)" num_le 100000 "$netrx"
# Every NET_RX run on CPU 1 was the target's (it spins there, running or
# waiting, the whole time): as many as the kernel counted while latbpf was
# attached, less those its tracepoint did not report (bpftrace's count,
# above), and no more than it counted around latbpf's whole run (-2: one
# open at the attach loses its entry). Which softirq is the largest is the
# host's: a 6.1 guest under TCG ran 72 ms of RCU against 50 ms of NET_RX.
netrx_c=$(final "$J" "[$c1 | .top[] | select(.kind == \"softirq\" and .name == \"NET_RX\")][0].count // 0")
diag "irq: NET_RX on CPU 1: /proc/softirqs $((nb - na)) around the run, the tracepoint ${traced:-?} (bpftrace)"
check "irq: NET_RX softirqs charged on CPU 1 ($netrx_c) = the kernel's count of them (/proc/softirqs: $((n1 - n0)) while attached, $((nb - na)) around the run; $gap never traced)" \
	between "$netrx_c" $((n1 - n0 - gap - 2)) $((nb - na))
diag "irq: cpu1 intruders: $(final "$J" "[$c1 | .top[0:8][] | \"\(.kind) \(.name) \(.total_ns)\"] | join(\", \")")"
check "irq: softirq time while on CPU ($soft ns) within the softirq intruders' total ($softsum ns)" \
	num_le "$soft" "$softsum"
# What is checked: the ~250 ms of NET_RX inside the target's runs do not
# leak into task intruders. Task intruders and task hiccups are the same
# windows seen from two sides and differ by what straddles a window's ends.
# Run after fuzz_cli.t the waits grow from ~1 ms to ~15 ms (measured: 13.5
# ms of task intruders for 14.5 ms of hiccups), and CI's run failed the old
# +10 % bound there (its figures were not kept), so the bound is +25 % and
# 1 ms, still far below NET_RX.
check "irq: task intruders ($tasksum ns) account for the task hiccups ($pre ns), +25 % + 1 ms" \
	num_le "$tasksum" "$((pre * 5 / 4 + 1000000))"
# An intruder is charged no more than it ran. On this 6.18 host the kernel
# traced no switch away from one service's threads (tokio-rt-worker, seen
# with bpftrace): ksoftirqd/1, the next task seen to leave CPU 1, was
# charged their time as its own, 4.8 ms for its 0.3 ms (CI's run). Such a
# stretch is "(untraced)" now; schedstat's run time bounds the charge (+10 %
# for the stretches before and after the two reads, + 0.1 ms).
ksc=$(final "$J" "[$c1 | .top[] | select(.kind == \"task\" and .name == \"ksoftirqd/1\") | .total_ns] | add // 0")
untr=$(final "$J" "[$c1 | .top[] | select(.kind == \"untraced\") | .total_ns] | add // 0")
diag "irq: ksoftirqd/1 charged $ksc ns, ran $((k1 - k0)) ns (schedstat); untraced stretches $untr ns"
check "irq: ksoftirqd/1 charged ($ksc ns) no more than it ran ($((k1 - k0)) ns, schedstat) + 10 % + 0.1 ms" \
	num_le "$ksc" "$(((k1 - k0) * 11 / 10 + 100000))"
if preempt_rt; then
	# PREEMPT_RT runs a softirq raised in an interrupt in ksoftirqd/1, a
	# thread that preempts the target: the NET_RX time is a preemption,
	# charged to NET_RX by name (the softirq inside the wait), and the target
	# is not interrupted on CPU
	check "irq: PREEMPT_RT: NET_RX ran in a thread, not on the target's time (on CPU $soft <= NET_RX $netrx / 10)" \
		num_le "$((soft * 10))" "$netrx"
	check "irq: PREEMPT_RT: NET_RX's time lies within the target's preemptions ($netrx <= $pre)" \
		num_le "$netrx" "$pre"
else
	# NET_RX also runs inside ksoftirqd while the target waits: that part is
	# charged to NET_RX too, but is not "interrupted" time
	check "irq: softirq time while on CPU ($soft ns) is at least 100 us" num_le 100000 "$soft"
	# NET_RX leaking into task preemption would be task hiccups that no
	# task intruder but ksoftirqd accounts for; other tasks that preempt
	# the target are the host's (the 6.1 guest under TCG: khugepaged 25 ms
	# and rcu_preempt 6 ms of 37.6 ms of task hiccups, NET_RX 66.9 ms)
	leak=$(( pre - (tasksum - ksc) > 0 ? pre - (tasksum - ksc) : 0 ))
	check "irq: not also counted as task preemption (task hiccups $pre less other tasks' $((tasksum - ksc)) = $leak < NET_RX $netrx / 2)" \
		num_le "$((leak * 2))" "$netrx"
fi
done_testing

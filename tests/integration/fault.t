#!/usr/bin/env bash
# fault ground truth: N fresh anonymous page touches are N write faults;
# mmap reads of a file dropped from the page cache are major faults
# (counted by the thread's own getrusage) whose stalls latbpf times, one
# for each time the thread slept (its voluntary switches, from the same
# getrusage), each inside the time the thread itself measured around the
# touch it slept in.
. "$(dirname "$0")/lib.sh"
need_root
btf_tracepoint page_fault_user ||
	{ cannot_run "no exceptions:page_fault_user tracepoint (x86 only)"; }
N=5000
start_work touch --linger touch --count $N
start_latbpf touch --pid "$WORK_PID" --probes fault --no-tui --json "$T/touch.json"
kill -USR1 "$WORK_PID"
wait_for "$T/touch.work" '^touched=' 20
stop "$LAT_PID"
kill -TERM "$WORK_PID"
n=$(final "$T/touch.json" .fault.count)
w=$(final "$T/touch.json" .fault.write)
diag "touch: $N pages -> $n faults, $w writes; probes.fault: $(final "$T/touch.json" .probes.fault)"
check "$N page touches: faults ($n) in [$N, $N + 64]" between "$n" $N $((N + 64))
check "... of which writes ($w) >= $N" num_le $N "$w"
check "... no stalls: anonymous zero pages need no I/O" \
	test "$(final "$T/touch.json" .fault.stalls.count)" -le 3

DATA=$(mktemp /var/tmp/latbpf-fault.XXXXXX)
dd if=/dev/urandom of="$DATA" bs=1M count=64 status=none && sync
start_work mm --linger mmapread --file "$DATA" --count 500
start_latbpf mm --pid "$WORK_PID" --probes fault,block --no-tui --json "$T/mm.json"
kill -USR1 "$WORK_PID"
wait_for "$T/mm.work" '^pages=' 60
stop "$LAT_PID"
kill -TERM "$WORK_PID"
rm -f "$DATA"
maj=$(sed -n 's/.*majflt=\([0-9]*\).*/\1/p' "$T/mm.work")
slept=$(sed -n 's/.*nvcsw=\([0-9]*\).*/\1/p' "$T/mm.work")
stalls=$(final "$T/mm.json" .fault.stalls.count)
fm=$(final "$T/mm.json" .fault.filemap)
sp50=$(final "$T/mm.json" .fault.stalls.p50)
dp50=$(final "$T/mm.json" '[.block.devices[] | select(.read.count > 0) | .read.latency.p50] | max')
diag "mmapread: majflt $maj, slept $slept times (getrusage) | stalls $stalls p50 $sp50 | filemap $fm | disk read p50 $dp50"
check "the kernel served major faults ($maj of 500)" num_le 450 "$maj"
# a major fault whose read completes before the thread reaches its wait
# never sleeps, so it is no stall (on a host whose disk is its host's page
# cache that happens: 359 sleeps in 500 major faults once, 497 in the runs
# beside); the reading loop sleeps nowhere else, so each of its sleeps is a
# stall, and 2 % less for one that misses the fault's instruction pointer.
# Up to 5 more: latbpf follows the process from before the loop to after
# it, where the first touch of code such as printf's can be a major fault
# too (the guests, whose / is 9p: 498 stalls for 497 sleeps in the loop)
check "one stall per sleep of the reading thread ($stalls, slept $slept)" \
	between "$stalls" $((slept - 2 - slept / 50)) $((slept + 5))
check "... not for more faults than there were (<= $maj + 5)" num_le "$stalls" "$((maj + 5))"
# how many reads sleep is the host's (a guest whose disk is its host's
# page cache, beside another guest, slept in 44 of 500 once): 20 are
# enough to judge the count above
check "... and the reads slept: stalls were timed ($slept >= 20)" num_le 20 "$slept"
if btf_tracepoint mm_filemap_fault; then
	check "file-backed faults through the page cache ($fm) >= major faults" num_le "$maj" "$fm"
else	# 6.1 has no filemap:mm_filemap_fault: not counted is not zero
	check "no filemap:mm_filemap_fault here: filemap is null ($fm), probes.fault says why" \
		bash -c "[ '$fm' = null ] && jq -e 'select(.final) | .probes.fault | test(\"no filemap:mm_filemap_fault\")' '$T/mm.json' >/dev/null"
fi
# The stalls against the reading thread's own clock around each touch it
# slept in (latwork: slept_ns, slept_p50): a stall runs from the fault's
# entry until the thread is back on CPU, inside the touch. The disk's read
# p50 is no bound: a fault may wait on a read already in flight
# (readahead), shorter than a whole one (CI: a stall p50 of 442 us for a
# disk read p50 of 590 us).
wn=$(sed -n 's/.*slept_touches=\([0-9]*\).*/\1/p' "$T/mm.work")
wns=$(sed -n 's/.*slept_ns=\([0-9]*\).*/\1/p' "$T/mm.work")
wp50=$(sed -n 's/.*slept_p50=\([0-9]*\).*/\1/p' "$T/mm.work")
ssum=$(final "$T/mm.json" .fault.stalls.sum)
smax=$(final "$T/mm.json" .fault.stalls.max)
extra=$(( ${stalls:-0} > ${wn:-0} ? ${stalls:-0} - ${wn:-0} : 0 ))
diag "the touches the thread slept in: $wn, $wns ns, p50 $wp50 ns; latbpf: $stalls stalls, $ssum ns, p50 $sp50, max $smax"
check "the stalls' time ($ssum ns) <= the slept touches' own ($wns ns; + $extra stalls outside the loop, $smax ns at most)" \
	num_le "${ssum:-x}" "$(( ${wns:-0} + extra * ${smax:-0} ))"
# the rest of a touch is the fault's work after the read and the way back
# to user space (23 us a touch of 115 here): the stalls hold most of it
check "... and more than half of it" num_le "$(( ${wns:-0} / 2 ))" "${ssum:-0}"
# each stall inside its touch: the median too, as its bucket's top (1/16
# above the value at most)
check "stall p50 ($sp50, its bucket's top) <= the slept touches' p50 ($wp50) + 1/16" \
	num_le "${sp50:-x}" "$(( ${wp50:-0} * 17 / 16 ))"
done_testing

#!/usr/bin/env bash
# Issue #13 reproduced: requests a target inserted into an I/O scheduler
# are merged into others and freed without completing while a neighbour's
# requests take their addresses. Nothing of the neighbour's is attributed
# to the target, and everything the target read is, request for request.
#
# A loop device with mq-deadline. The target, fio (one process, threads),
# reads the first 5 MiB two ways: batches of 16 reads of one 64 KiB range
# in random order, submitted at once (the scheduler merges them as it
# inserts them), and four threads reading every fourth block each, one read
# in flight per thread (the scheduler merges them while they wait). The
# neighbour, another fio in a cgroup whose I/O on the backing disk is
# throttled (the loop driver charges its backing I/O to the request's
# cgroup), holds every driver tag of the device with writes from 32 MiB on,
# so the target's reads wait in the scheduler, and merges batches of its
# own. Ground truth from outside latbpf: the device's /sys/block/DEV/stat
# (the target is its only reader) and the kernel's block_rq_insert /
# block_rq_merge events of the target's range in a private tracefs instance.
. "$(dirname "$0")/lib.sh"
need_root
for c in losetup fio jq; do
	command -v $c >/dev/null || cannot_run "$c missing (tools/install-deps.sh)"
done
TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events/block/block_rq_merge ] || cannot_run "no block_rq_merge event in $TRACEFS"

IMG= LOOP= CG= INST=
teardown() {
	local i
	if [ -n "$INST" ] && [ -d "$INST" ]; then
		echo 0 >"$INST/events/block/enable"
		rmdir "$INST"
	fi
	# a killed fio may still be waiting for its throttled writes: the
	# cgroup empties when they are done
	if [ -n "$CG" ]; then
		for ((i = 0; i < 150; i++)); do rmdir "$CG" 2>/dev/null && break; sleep 0.1; done
	fi
	[ -n "$LOOP" ] && timeout 30 losetup -d "$LOOP"
	[ -n "$IMG" ] && rm -f "$IMG"
}
trap 'cleanup; teardown' EXIT

IMG=$(mktemp /var/tmp/latbpf-merge.XXXXXX)
truncate -s 64M "$IMG"
LOOP=$(timeout 10 losetup -f --show --direct-io=on "$IMG") || { LOOP=; cannot_run "no loop device"; }
DEV=$(basename "$LOOP")
Q=/sys/block/$DEV/queue
# buffered backing writes would land in the page cache, past the throttle
[ "$(cat /sys/block/$DEV/loop/dio 2>/dev/null)" = 1 ] || cannot_run "$DEV: no direct I/O on $IMG's filesystem"
grep -qw mq-deadline $Q/scheduler || cannot_run "$DEV: no mq-deadline ($(cat $Q/scheduler))"
echo mq-deadline >$Q/scheduler
# the disk under /var/tmp (a partition is throttled as its disk)
bdev=$(stat -c '%Hd:%Ld' "$IMG")
sys=$(readlink -f /sys/dev/block/"$bdev" 2>/dev/null)
[ -n "$sys" ] || cannot_run "$IMG is not on a block device ($bdev): nothing to throttle"
[ -e "$sys/partition" ] && bdev=$(cat "$sys/../dev")
tags=$(cat /sys/block/$DEV/mq/0/nr_tags)
# the scheduler's requests hold the neighbour's tags + 64 + 16 and the
# target's 20 at a time (mq-deadline's default: 2 x tags, up to 256)
nreq=$(cat $Q/nr_requests)
[ "$nreq" -ge $((tags + 64 + 16 + 20)) ] || cannot_run "$DEV: $nreq scheduler requests, fewer than $tags tags + 100"
ok 0 "loop device $DEV (mq-deadline, $tags driver tags, direct I/O) on $IMG, disk $bdev"

# the neighbour's cgroup: 100 writes/s on the backing disk (cgroup v2 or v1).
# fio must replace each write as it completes: under qemu's TCG it managed
# about 200/s, and held at most 124 of 128 tags at 200 writes/s.
if grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	grep -qw io /sys/fs/cgroup/cgroup.subtree_control || echo +io >/sys/fs/cgroup/cgroup.subtree_control
	CG=/sys/fs/cgroup/latbpf-merge.$$
	mkdir "$CG" && echo "$bdev wiops=100" >"$CG/io.max" || cannot_run "cannot throttle $bdev in $CG"
else
	v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
	[ -n "$v1" ] || cannot_run "no cgroup io controller (v2 io, v1 blkio) to throttle the neighbour"
	CG=$v1/latbpf-merge.$$
	mkdir "$CG" && echo "$bdev 100" >"$CG/blkio.throttle.write_iops_device" ||
		cannot_run "cannot throttle $bdev in $CG"
fi

# the kernel's own count of the target's requests (all below 8 MiB):
# inserted into the scheduler, and merged into another request
majmin=$(cat /sys/block/$DEV/dev)
devt=$(((${majmin%:*} << 20) | ${majmin#*:}))
INST=$TRACEFS/instances/latbpf-merge.$$
mkdir "$INST" || cannot_run "no tracefs instance"
echo 1024 >"$INST/buffer_size_kb"
for e in block_rq_insert block_rq_merge; do
	echo "dev == $devt && sector < 16384" >"$INST/events/block/$e/filter" &&
		echo 1 >"$INST/events/block/$e/enable" || cannot_run "cannot trace $e"
done

# The neighbour, until stopped: 64 random writes more than the device's
# driver tags in flight in 32..48 MiB (the rest wait in the scheduler, whose
# 2 x tags requests leave room for the target's 20 at a time), and
# batches of 16 writes of one 64 KiB range at 48 MiB, in random order.
timeout -s KILL 120 bash -c 'echo $$ >"$1/cgroup.procs" && echo "ready $$" && exec "${@:2}"' _ "$CG" \
	fio --thread --direct=1 --filename="$LOOP" --bs=4k --ioengine=libaio --time_based --runtime=100 \
	--output-format=json --output="$T/neighbour.json" \
	--name=hold --rw=randwrite --iodepth=$((tags + 64)) --offset=32M --size=16M \
	--name=batches --rw=randwrite --iodepth=16 --iodepth_batch_submit=16 \
	--iodepth_batch_complete_min=16 --offset=48M --size=64k >"$T/neighbour.out" 2>&1 &
_pids+=($!)
wait_for "$T/neighbour.out" '^ready' 30 || cannot_run "neighbour did not start"
NB=$(sed -n 's/^ready //p' "$T/neighbour.out")
_pids+=("$NB")
inflight() { awk '{ print $1 + $2 }' /sys/block/$DEV/inflight; }
for ((i = 0; i < 300 && $(inflight) < tags; i++)); do sleep 0.1; done
busy=$(inflight)
check "the neighbour's writes hold every driver tag ($busy in flight of $tags)" test "$busy" -ge "$tags"

# The target, exec'd by a shell that waits for latbpf to attach (same pid):
# 256 reads in 16 random-order batches of one 64 KiB range, and 4 threads
# x 64 reads of blocks j, j+4, j+8, ... from 1 MiB; then 2 s without I/O,
# while the neighbour goes on writing into the addresses its requests had.
# The go is a signal, not a fifo in $T: under make test-kernels $T is on
# 9p, which refuses fifos, and a target that started at once read before
# latbpf attached and before the stat below (s0). Without its go within
# 30 s the shell exits 3 instead of starting.
(cd "$T" && exec timeout -s KILL 90 bash -c 'go=0; trap go=1 USR1; echo "ready $$"
	for ((i = 0; i < 600 && !go; i++)); do sleep 0.05; done; ((go)) || exit 3; exec "$@"' _ \
	fio --thread --direct=1 --filename="$LOOP" --bs=4k --exec_postrun='sleep 2' \
	--output-format=json --output="$T/target.json" \
	--name=batches --ioengine=libaio --iodepth=16 --iodepth_batch_submit=16 \
	--iodepth_batch_complete_min=16 --rw=randread --size=64k --io_size=1M \
	--name=threads --ioengine=psync --rw=read:12k --offset=1M --size=4M --io_size=256k \
	--offset_increment=4k --numjobs=4) >"$T/target.out" 2>&1 &
tw=$!
_pids+=($tw)
wait_for "$T/target.out" '^ready' 30 || cannot_run "target did not start"
TG=$(sed -n 's/^ready //p' "$T/target.out")
_pids+=("$TG")
start_latbpf t --pid "$TG" --probes block --no-tui --json "$T/t.json"
read -r -a s0 </sys/block/$DEV/stat
tc=$(cat /proc/"$TG"/comm 2>/dev/null)
check "the target is still waiting for its go, with latbpf attached ($tc)" test "$tc" = bash
kill -USR1 "$TG"
wait $tw
trc=$?
for ((i = 0; i < 300; i++)); do kill -0 "$LAT_PID" 2>/dev/null || break; sleep 0.1; done
stop "$LAT_PID"
lrc=$?
read -r -a s1 </sys/block/$DEV/stat
echo 0 >"$INST/events/block/enable"
kill -INT "$NB"	# fio stops once its writes in flight are done
for ((i = 0; i < 150; i++)); do kill -0 "$NB" 2>/dev/null || break; sleep 0.1; done
check "the target exited 0 ($trc), and latbpf with it ($lrc)" test "$trc,$lrc" = 0,0

# Ground truth. fio's --output has exec_postrun's notices before the JSON.
fio_sum() { sed -n '/^{/,$p' "$1" | jq "[.jobs[].$2] | add"; }
N=$(fio_sum "$T/target.json" read.total_ios)
nbytes=$(fio_sum "$T/target.json" read.io_bytes)
nw=$(fio_sum "$T/neighbour.json" write.total_ios)
reqs=$((s1[0] - s0[0])) rmerges=$((s1[1] - s0[1])) rsect=$((s1[2] - s0[2]))
wreqs=$((s1[4] - s0[4])) wmerges=$((s1[5] - s0[5]))
ins=$(grep -c ' block_rq_insert: ' "$INST/trace")
rqm=$(grep -c ' block_rq_merge: ' "$INST/trace")
overrun=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$INST"/per_cpu/cpu*/stats)
freed=$((ins - reqs))
diag "target (fio): $N reads, $nbytes bytes; neighbour (fio): $nw writes"
diag "$DEV's stat over the target's run: reads $reqs requests + $rmerges merges, $((rsect * 512)) bytes; writes $wreqs requests + $wmerges merges"
diag "the target's range, traced: $ins requests inserted, $rqm request merges (trace overrun $overrun)"
check "fio read 512 x 4 KiB ($N reads, $nbytes bytes)" test "$N,$nbytes" = 512,2097152
check "... and $DEV read as much ($((rsect * 512)) bytes): the target is its only reader" \
	test "$((rsect * 512))" = "$nbytes"
check "... in $reqs requests + $rmerges merges = $N" test "$((reqs + rmerges))" = "$N"
check "the scheduler merged the target's reads ($rmerges read merges)" test "$rmerges" -gt 0
check "... $freed requests it had inserted were merged into others, freed without completing ($ins inserted, $reqs completed)" \
	test "$freed" -gt 0 -a "$overrun" = 0
check "the neighbour's writes merged too ($wmerges write merges)" test "$wmerges" -gt 0

# what latbpf says
dev=".block.devices[] | select(.name == \"$DEV\")"
r=$(final "$T/t.json" "$dev | .read.count // 0")
rb=$(final "$T/t.json" "$dev | .read.size.sum // 0")
w=$(final "$T/t.json" "$dev | .write.count // 0")
o=$(final "$T/t.json" "$dev | .other.count // 0")
wq=$(final "$T/t.json" "$dev | .write.queue.max // 0")
lmax=$(final "$T/t.json" "[$dev | .[] | objects | .latency.max, .queue.max] | max // 0")
dur=$(final "$T/t.json" '.run.duration_s * 1e9 | floor')
stale=$(final "$T/t.json" '.block.stale_requests // 0')
diag "latbpf: the target's reads $r ($rb bytes), writes $w (queue max $wq ns), other $o; largest latency or queue $lmax ns in a run of $dur ns; block.stale_requests $stale"
check "the target's reads are its $reqs requests ($r)" test "$r" = "$reqs"
check "... of $nbytes bytes ($rb)" test "$rb" = "$nbytes"
check "none of the neighbour's writes is the target's ($w writes, $o other)" test "$w,$o" = 0,0
check "no latency or queue sample outlasts the run ($lmax <= $dur ns)" num_le "$lmax" "$dur"
check "block.stale_requests is a count ($stale)" is_num "$stale"
done_testing

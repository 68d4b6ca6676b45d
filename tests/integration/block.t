#!/usr/bin/env bash
# block ground truth on a loop device (a deterministic name): a target's N
# O_DIRECT reads and writes are attributed to it, a neighbour's are not, and
# libbpf-tools' biolatency, run at the same time, agrees on the device.
. "$(dirname "$0")/lib.sh"
need_root
command -v losetup >/dev/null || { cannot_run "losetup missing"; }
IMG=$(mktemp /var/tmp/latbpf-block.XXXXXX)
trap 'rm -f "$IMG"; cleanup' EXIT
# Written, not sparse: a read of a hole costs the backing disk nothing, and
# the loop driver's own reads of it (from its workers) are what phase 1
# must not attribute to the target. Out of the page cache after, though
# the loop device reads it directly.
dd if=/dev/zero of="$IMG" bs=1M count=64 conv=fsync status=none &&
	dd if="$IMG" iflag=nocache count=0 status=none || cannot_run "cannot write $IMG"
# the disk the image is on: its kernel counters are phase 1's ground truth
# (a filesystem with a device number of its own, btrfs one, is found by
# its mount's source)
BDEV=$(stat -c '%Hd:%Ld' "$IMG")
if [ ! -e "/sys/dev/block/$BDEV/stat" ]; then
	src=$(findmnt -no SOURCE -T "$IMG" 2>/dev/null | sed 's/\[.*//')
	[ -b "$src" ] && BDEV=$(lsblk -dno MAJ:MIN "$src" | tr -d ' ')
fi
bstat() { awk '{ print $1 }' "/sys/dev/block/$BDEV/stat" 2>/dev/null || echo -1; }
# What the kernel did not run the block programs for, from outside latbpf:
# the requests every disk completed (/sys/block/*/stat: reads, writes,
# discards, flushes), each one issue and one completion, less the runs of
# the issue and completion programs (bpftool; the kernel's BPF stats, on
# while latbpf --bpf-stats runs). This host's kernel skips BPF programs,
# bpftrace's too, for a few events that ftrace sees, in softirqs over its
# agent's threads, and counts no recursion miss (2026-12-02: up to 83 of
# 1,400 completions in a run). A request whose issue or completion went
# unseen so is one latbpf must declare (stale_requests, or in_flight at the
# end), and every loss it declares must be one of these.
blk_ios() { cat /sys/block/*/stat | awk '{ s += $1 + $5 + $12 + $16 } END { print s + 0 }'; }
blk_runs() {
	bpftool prog show -j | jq -r '[.[] | select(.name | test("^block_(issue|complete)")) | .run_cnt // 0] | add // 0'
}
# kernel_snap: before a phase's workload; unseen: after it, with latbpf
# still attached (the disks' window holds the programs')
kernel_snap() { k0=$(blk_ios); p0=$(blk_runs); }
unseen() { local p1 k1; p1=$(blk_runs); k1=$(blk_ios); skipped=$((2 * (k1 - k0) - (p1 - p0))); [ $skipped -ge 0 ] || skipped=0; }
# the requests a run declares it followed but could not credit
declared() { final "$1" '[.block.stale_requests, .block.in_flight] | map(. // 0) | add'; }
LOOP=$(losetup -f --show --direct-io=on "$IMG") || cannot_run "no loop device"
DEV=$(basename "$LOOP")
trap 'losetup -d "$LOOP"; rm -f "$IMG"; cleanup' EXIT
ok 0 "loop device $DEV on $IMG"
N=400
dev=".block.devices[] | select(.name == \"$DEV\")"

# Phase 1: the target reads and writes; a neighbour reads the same device.
start_work t1 --linger dio --file "$LOOP" --count $N
start_latbpf t1 --pid "$WORK_PID" --probes block --bpf-stats --no-tui --json "$T/t1.json"
b0=$(bstat)
kernel_snap
timeout 60 "$LATWORK" dio --file "$LOOP" --count 300 >"$T/neighbour" &
nb=$!
kill -USR1 "$WORK_PID"
wait_for "$T/t1.work" '^ios=' 60
wait $nb
"$LATWORK" dio --file "$LOOP" --count 1 >/dev/null	# not the target either
b1=$(bstat)
unseen
kill -TERM "$WORK_PID"
start_work t1w --linger dio --file "$LOOP" --count 100 --write
stop "$LAT_PID"
kill -TERM "$WORK_PID" 2>/dev/null
reads=$(final "$T/t1.json" "$dev | .read.count")
size=$(final "$T/t1.json" "$dev | .read.size.p50")
# requests latbpf gave the target on any other device: the target's own
# (a page fault of its binary or libraries that missed the page cache
# reads the disk in its context, as the kernel should), never the loop
# driver's reads of the image, one or more for each of the 701 reads
others=$(final "$T/t1.json" "[.block.devices[] | select(.name != \"$DEV\") | (.read.count // 0) + (.write.count // 0) + (.other.count // 0)] | add // 0")
diag "phase 1: target reads $reads of $N on $DEV (neighbour did $(cat "$T/neighbour")); size p50 $size; backing disk $BDEV read $((b1 - b0)) times meanwhile; other devices $(final "$T/t1.json" "[.block.devices[] | select(.name != \"$DEV\") | {name, r: .read.count, w: .write.count}] | tostring"); drops $(final "$T/t1.json" '.drops | tostring'), block's counts $(final "$T/t1.json" '.block | with_entries(select(.value | type == "number")) | tostring')"
dec=$(declared "$T/t1.json")
diag "phase 1: the kernel did not run the block programs for $skipped issues and completions; latbpf declares $dec requests it could not credit"
check "the target's $N reads are attributed to it ($reads, and $dec it declares unseen)" \
	bash -c "[ $reads -le $((N + 2)) ] && [ $((reads + dec)) -ge $N ]"
check "... every request it declares unseen is an event the kernel did not run its programs for ($dec <= $skipped)" \
	test "$dec" -le "$skipped"
check "its requests are 4 KiB ($size bytes; slot holds 4096)" between "$size" 4096 4351
dio=$(cat "/sys/block/$DEV/loop/dio" 2>/dev/null)
check "the loop driver read its backing disk $BDEV for them, directly ($((b1 - b0)) reads >= $N, the kernel's count; dio ${dio:-?})" \
	test "$b0" -ge 0 -a "$((b1 - b0))" -ge $N -a "$dio" = 1
check "... and none of those is the target's ($others requests on other devices, < $((N / 10)): its own page faults at most)" \
	test "$others" -lt $((N / 10))

# Phase 2: writes of a traced target
start_work t2 --linger dio --file "$LOOP" --count 100 --write
start_latbpf t2 --pid "$WORK_PID" --probes block --bpf-stats --no-tui --json "$T/t2.json"
kernel_snap
kill -USR1 "$WORK_PID"
wait_for "$T/t2.work" '^ios=' 60
unseen
stop "$LAT_PID"
kill -TERM "$WORK_PID"
w=$(final "$T/t2.json" "$dev | .write.count")
r=$(final "$T/t2.json" "$dev | .read.count // 0")
dec=$(declared "$T/t2.json")
check "100 O_DIRECT writes counted as writes ($w, and $dec declared unseen of $skipped the kernel did not show), no reads ($r)" \
	bash -c "[ $r = 0 ] && [ $w -le 100 ] && [ $((w + dec)) -ge 100 ] && [ $dec -le $skipped ]"

# Phase 2b: room for one (device, op) key (LATBPF_BLK_KEYS=1); two targets,
# one reads 50 times, one writes 50 times: the op that came second finds
# the table full, and its completions are counted lost
start_work rd --linger dio --file "$LOOP" --count 50
prd=$WORK_PID
start_work wr --linger dio --file "$LOOP" --count 50 --write
pwr=$WORK_PID
LATBPF_BLK_KEYS=1 start_latbpf one --pid "$prd,$pwr" --probes block --no-tui --json "$T/one.json"
kill -USR1 "$prd"
wait_for "$T/rd.work" '^ios=' 60
kill -USR1 "$pwr"
wait_for "$T/wr.work" '^ios=' 60
stop "$LAT_PID"
kill -TERM "$prd" "$pwr" 2>/dev/null
listed=$(final "$T/one.json" "[$dev | .read.count // 0, .write.count // 0] | add")
keys=$(final "$T/one.json" "[$dev | .read, .write | select(. != null)] | length")
lost=$(final "$T/one.json" '.block.stats_lost // 0')
dlost=$(final "$T/one.json" '.drops["block.stats_lost"] // 0')
# completions the kernel did not run the family's program for (one that
# came in an interrupt on a CPU inside that program already), in drops
# too: the only way a request may go unlisted and unlost
# (and requests it had no room to follow, which this case should not see)
missed=$(final "$T/one.json" '[.block.missed, .block.requests_lost, .block.stale_requests, .block.in_flight] | map(. // 0) | add')
diag "one key's room: 50 reads + 50 writes -> $listed listed under $keys key(s), $lost lost (drops $dlost), $missed missed, not followed or unseen: $(final "$T/one.json" '.block | {missed, requests_lost, stale_requests, in_flight} | tostring')"
check "room for one key: the reads are listed ($listed), the writes' key is not ($keys key)" \
	bash -c "[ $keys = 1 ] && [ $listed -le 50 ] && [ $((listed + missed)) -ge 50 ]"
check "... the 50 writes are counted lost ($lost, or missed: $missed), in the drops object too ($dlost)" \
	bash -c "[ $lost = $dlost ] && [ $lost -le 50 ] && [ $((lost + missed)) -ge 50 ]"
grep -q 'stats_lost' "$T/one.out"
ok $? "... and the summary names the loss"

# Phase 2c: room for one request in flight (LATBPF_BLK_INFLIGHT=1); four
# targets read at once, so a request often finds another one followed: it
# is counted lost, never followed in the place of another. Every read is
# either counted or lost.
wp=()
for k in 1 2 3 4; do
	start_work f$k --linger dio --file "$LOOP" --count 100
	wp+=("$WORK_PID")
done
LATBPF_BLK_INFLIGHT=1 start_latbpf fl --pid "$(IFS=,; echo "${wp[*]}")" --probes block --bpf-stats \
	--no-tui --json "$T/fl.json"
kernel_snap
# the block layer may merge two of the four readers' adjacent reads into
# one request (the loop device's read merges, /sys/block/DEV/stat field
# 2): CI's rehearsal on 2026-11-29 had 67 followed + 331 lost of 400
read -r r0 m0 _ < "/sys/block/$DEV/stat"
kill -USR1 "${wp[@]}"
for k in 1 2 3 4; do wait_for "$T/f$k.work" '^ios=' 60; done
unseen
stop "$LAT_PID"
kill -TERM "${wp[@]}" 2>/dev/null
read -r r1 m1 _ < "/sys/block/$DEV/stat"
merged=$((m1 - m0))
# the device's own count of the read requests it completed meanwhile
# (field 1; the four are its only readers then): each read is one of
# them or merged into one
reqs=$((r1 - r0))
ios=$(cat "$T"/f[1-4].work | sed -n 's/^ios=//p' | awk '{ s += $1 } END { print s + 0 }')
fr=$(final "$T/fl.json" "$dev | .read.count // 0")
fl=$(final "$T/fl.json" '.block.requests_lost // 0')
dfl=$(final "$T/fl.json" '.drops["block.requests_lost"] // 0')
fst=$(declared "$T/fl.json")
fmi=$(final "$T/fl.json" '.block.missed // 0')
diag "one request's room: 4 x 100 reads ($ios) -> $fr followed, $fl lost (drops $dfl), $fmi missed, $fst unseen (the kernel did not run the programs for $skipped), merged $merged; $DEV completed $reqs read requests"
check "the four targets made 400 reads ($ios)" test "$ios" = 400
check "... some found the table full: counted lost ($fl > 0), in the drops object too ($dfl)" \
	bash -c "[ $fl -gt 0 ] && [ $fl = $dfl ]"
# Every request followed, lost or missed: as many as the reads less those
# merged into another, or as the device says it completed where fewer.
# CI's rehearsal on 2026-12-01 had 108 + 291 + 0 merged of 400, and one on
# 2026-12-02 49 of phase 2b's 50 writes lost: one request unaccounted each
# time, when these checks did not print the family's missed completions
# (bpftrace saw every loop0 request inserted and issued in a reader's
# context in three reruns)
want=$((400 - merged < reqs ? 400 - merged : reqs))
check "... every request followed, lost, missed or unseen: $fr + $fl + $fmi + $fst >= $want (400 reads - $merged merged; $reqs requests), $fr <= 400" \
	bash -c "[ $((fr + fl + fmi + fst)) -ge $want ] && [ $fr -le 400 ]"
check "... no request was taken for another: each one unseen is an event the kernel did not run the programs for ($fst <= $skipped)" \
	test "$fst" -le "$skipped"

# Phase 3: biolatency on the same device at the same time
command -v biolatency >/dev/null || { ok 1 "biolatency is installed (tools/install-deps.sh): the cross-check needs it"; done_testing; }
start_work t3 --linger dio --file "$LOOP" --count 1000
start_latbpf t3 --pid "$WORK_PID" --probes block --no-tui --json "$T/t3.json"
timeout -s INT 90 stdbuf -oL biolatency -D >"$T/bio" 2>&1 &
bio=$!
_pids+=($bio)
wait_for "$T/bio" 'Tracing' 15
kill -USR1 "$WORK_PID"
wait_for "$T/t3.work" '^ios=' 60
stop "$LAT_PID"
stop "$bio"
kill -TERM "$WORK_PID"
read -r bcount blo bhi <<<"$(awk -v d="$DEV" '
	/^disk = / { on = ($3 == d) } on && /->/ { lo[n] = $1; hi[n] = $3; c[n] = $5; tot += $5; n++ }
	END { s = 0; for (i = 0; i < n; i++) { s += c[i]; if (s >= tot / 2) { print tot, lo[i] * 1000, (hi[i] + 1) * 1000; exit } } print tot, 0, 0 }' "$T/bio")"
count=$(final "$T/t3.json" "$dev | .read.count")
p50=$(final "$T/t3.json" "$dev | .read.latency.p50")
diag "phase 3: latbpf $count reads, p50 $p50 ns | biolatency $bcount, p50 in [$blo, $bhi) ns"
check "biolatency's count on $DEV ($bcount) within 5% of latbpf's ($count)" \
	between "$bcount" "$((count * 95 / 100))" "$((count * 105 / 100))"
check "p50 $p50 within one log2 bucket of biolatency's [$blo, $bhi)" \
	between "$p50" "$((blo / 2))" "$((bhi * 2))"
done_testing

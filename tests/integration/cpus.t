#!/usr/bin/env bash
# Every CPU in the per-CPU output, and what latbpf costs in memory with
# every family on, measured from outside: the kernel's own accounting of
# each map latbpf holds (memlock in /proc/PID/fdinfo, per map from bpftool)
# and the loader's RSS (/proc/PID/status), which must stay within its 20 MiB
# budget. make test-kernels runs this in a 64-CPU guest too.
. "$(dirname "$0")/lib.sh"
need_root
N=$(nproc)
# one sleeper pinned to each CPU: every CPU has run-queue samples
for ((c = 0; c < N; c++)); do
	timeout 60 "$LATWORK" --cpu "$c" sleep --sleep 2ms --count 1500 >/dev/null 2>&1 &
	_pids+=($!)
done
# under qemu's TCG with 64 CPUs attaching takes minutes, and every
# bpftool call seconds: the loader's memory is read first, the maps with
# one bpftool call, all within latbpf's run
LAT_ATTACH_TMO=600 LAT_TMO=900 start_latbpf all --probes sched,hiccup,fault,block,tcp \
	--per-thread --per-cpu --per-remote --interval 1s --no-tui --json "$T/all.json"
ok $? "latbpf attached"
sleep 3
pid=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$pid"/status)
hwm=$(awk '/^VmHWM:/ { print $2 }' /proc/"$pid"/status)
# where the loader's memory is: its mappings of 256 KiB or more resident
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 ? $6 : "[anon]"; split($1, a, "-") }
	/^Rss:/ && $2 >= 256 { printf "  rss %6d KiB %s\n", $2, name }' /proc/"$pid"/smaps |
	sort -k2 -nr | head -12 >"$T/rss"
# the maps: every fd of latbpf's that is a BPF map, with the kernel's
# memlock (the worst case before 6.4, what is allocated since)
maps=0 bytes=0 ids=
for fd in /proc/"$pid"/fdinfo/*; do
	read -r id m < <(awk '/^map_id:/ { i = $2 } /^memlock:/ { m = $2 } END { if (i) print i, m + 0 }' "$fd" 2>/dev/null)
	[ -n "$id" ] || continue
	maps=$((maps + 1)) bytes=$((bytes + m)) ids="$ids $id"
done
bpftool map show -j 2>/dev/null | jq -r --arg ids "$ids" '($ids | split(" ") | map(select(length > 0) | tonumber)) as $mine |
	[.[] | select(.id as $i | $mine | index($i))] | sort_by(-.bytes_memlock) | .[] |
	"\(.name) \(.type) \(.max_entries) x \(.bytes_value) B: \(.bytes_memlock) B"' |
	while read -r l; do diag "  map $l"; done
while read -r l; do diag "  $l"; done <"$T/rss"
stop "$LAT_PID"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
diag "  rss of $(final "$T/all.json" '.sched.threads | length') threads (--per-thread)"
diag "$N CPUs: $maps maps, $(mib "$bytes") MiB of kernel memory (memlock); loader RSS $((rss / 1024)) MiB, peak $((hwm / 1024)) MiB"
check "latbpf holds BPF maps ($maps)" test "$maps" -ge 10
check "loader peak RSS within the 20 MiB budget ($((hwm / 1024)) MiB)" test "$hwm" -le $((20 << 10))
cpus=$(final "$T/all.json" '[.sched.cpus[].cpu] | unique | length')
check "--per-cpu: run-queue latency for each of the $N CPUs ($cpus)" test "$cpus" = "$N"
hc=$(final "$T/all.json" '[.hiccup.cpus[].cpu] | unique | length')
check "hiccup: a row for each of the $N CPUs ($hc)" test "$hc" = "$N"
bad=$(final "$T/all.json" "[.sched.cpus[].cpu, .hiccup.cpus[].cpu | select(. < 0 or . >= $N)] | length")
check "no CPU number outside 0..$((N - 1)) ($bad)" test "$bad" = 0
done_testing

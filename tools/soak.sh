#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `sudo make soak`: latbpf over a long run, under a load that churns
# processes, threads and pids, with disk and loopback TCP beside it. Not part
# of `make test` or CI: it takes SOAK_MINUTES and shares the machine.
#
# Two latbpf at once for the whole run, every family, --per-thread and
# --per-cpu: one whole-system, one --pid of a process whose threads come and
# go. Every SOAK_SAMPLE_S, from outside: each one's RSS, CPU, kernel map
# memory (memlock of the maps it holds) and program count. At the end: exit
# status after SIGINT, nothing of theirs left in the kernel, interval records
# that add up to the final one, and the drops. Exits 1 when a check fails.
#
#   tools/soak.sh [BUILD_DIR [OUT_DIR]]    (default build, BUILD_DIR/soak)
#   SOAK_MINUTES=30 SOAK_SAMPLE_S=10       length, sample period (= latbpf -i)
#   SOAK_WARMUP_S=                         excluded from the flatness and CPU
#                                          verdicts (default: the first minute,
#                                          at least 2 samples)
#   SOAK_PROC_RATE=1000 SOAK_THREAD_RATE=200 SOAK_DIO_RATE=200 SOAK_TCP_RATE=1000
#                                          load: /bin/true per s, target threads
#                                          per s, O_DIRECT reads per s (and a
#                                          quarter as many writes), round trips per s
# Writes OUT_DIR/soak.csv (t_s,which,rss_kib,cpu_pct,map_kib,progs), soak.svg,
# summary.txt, and each latbpf's NDJSON (system.json, pid.json).
set -u
O=${1:-build}
B=$(cd "$O" && pwd) || exit 2
OUT=${2:-${SOAK_OUT:-$B/soak}}
MINUTES=${SOAK_MINUTES:-30}
SAMPLE=${SOAK_SAMPLE_S:-10}
PROC_RATE=${SOAK_PROC_RATE:-1000}
THREAD_RATE=${SOAK_THREAD_RATE:-200}
DIO_RATE=${SOAK_DIO_RATE:-200}
TCP_RATE=${SOAK_TCP_RATE:-1000}
FILE_MIB=64
export PATH="$PATH:/usr/sbin:/sbin"
LAT=$B/latbpf
WORK=$B/tools/latwork

die() { echo "soak: $1" >&2; exit "${2:-2}"; }
[ "$(id -u)" -eq 0 ] || die "needs root (sudo make soak)" 3
for c in bpftool jq node awk find; do
	command -v $c >/dev/null || die "$c missing (tools/install-deps.sh)" 3
done
[ -x "$LAT" ] && [ -x "$WORK" ] || die "build first: make"
# at most 30: the --pid target lingers 60 s after its load, until the end
[[ "$SAMPLE" =~ ^[1-9][0-9]*$ ]] && ((SAMPLE <= 30)) || die "SOAK_SAMPLE_S: whole seconds, 1 to 30"
DUR=$(awk -v m="$MINUTES" -v s="$SAMPLE" 'BEGIN { n = int(m * 60 / s); if (m + 0 > 0 && n >= 3) print n * s }')
[ -n "$DUR" ] || die "SOAK_MINUTES=$MINUTES: at least 3 samples of ${SAMPLE} s"
NSAMPLES=$((DUR / SAMPLE))
# warm-up: the first minute, at least 2 samples, and at least 2 samples after it
WARMUP=${SOAK_WARMUP_S:-$((SAMPLE * 2 > 60 ? SAMPLE * 2 : 60))}
((DUR - WARMUP < 2 * SAMPLE)) && WARMUP=$((SAMPLE * 2))
HZ=$(getconf CLK_TCK)
PID_MAX=$(cat /proc/sys/kernel/pid_max)

mkdir -p "$OUT" || exit 2
rm -f "$OUT"/{soak.csv,soak.svg,summary.txt,system.json,pid.json,system.err,pid.err,loads.txt}
W=$(mktemp -d /tmp/latbpf-soak.XXXXXX)
FILE=/var/tmp/latbpf-soak.$$
STARTED=()	# every process this script started, stopped by pid in cleanup
cleanup() {
	local p
	for p in "${STARTED[@]}"; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$W" "$FILE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }	# wall clock, ms
# wait_line FILE REGEX SECONDS: until a line of FILE matches
wait_line() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
# start NAME CMD...: CMD in the background, stdout in $W/NAME.out, pid in PID_NAME
start() {
	local name=$1
	shift
	"$@" >"$W/$name.out" 2>"$W/$name.err" &
	STARTED+=($!)
	eval "PID_$name=$!"
}

# O_DIRECT needs a file system that takes it (not tmpfs): /var/tmp, bounded,
# deleted at the end
dd if=/dev/zero of="$FILE" bs=1M count=$FILE_MIB oflag=direct status=none 2>"$W/dd.err" ||
	die "O_DIRECT writes to /var/tmp failed: $(cat "$W/dd.err")" 3
PORT=$("$(dirname "$0")/free-port.sh") || die "no free TCP port on 127.0.0.1" 1
start server "$WORK" tcpserver --port $PORT --for $((DUR + 120))s
wait_line "$W/server.out" '^listening' 10 || die "tcpserver: $(cat "$W/server.err")" 1
# the --pid target: its threads live ~1 ms each and fault, read the file and
# connect to the server; it lingers idle at the end, so its last interval
# ends quiet
start target "$WORK" --wait --linger --comm soak-target churn --rate "$THREAD_RATE" \
	--for ${DUR}s --file "$FILE" --port $PORT
wait_line "$W/target.out" '^ready' 10 || die "target did not start: $(cat "$W/target.err")" 1

help=$("$LAT" --help)
OPTS=(--no-tui -i ${SAMPLE}s)
[[ "$help" == *--per-thread* ]] && OPTS+=(--per-thread)
[[ "$help" == *--per-cpu* ]] && OPTS+=(--per-cpu)
"$LAT" "${OPTS[@]}" --json "$OUT/system.json" >/dev/null 2>"$OUT/system.err" &
LAT_system=$!
STARTED+=($!)
"$LAT" "${OPTS[@]}" --pid "$PID_target" --json "$OUT/pid.json" >/dev/null 2>"$OUT/pid.err" &
LAT_pid=$!
STARTED+=($!)
for w in system pid; do
	wait_line "$OUT/$w.err" '^latbpf: attached' 60 ||
		die "latbpf ($w) did not attach: $(cat "$OUT/$w.err")" 1
done

T0=$(ms)
kill -USR1 "$PID_target"
start spawn "$WORK" --linger churn --rate "$PROC_RATE" --for ${DUR}s --exec /bin/true
start dior "$WORK" --linger dio --file "$FILE" --count 1000000000000 --for ${DUR}s --rate "$DIO_RATE"
start diow "$WORK" --linger dio --write --file "$FILE" --count 1000000000000 --for ${DUR}s \
	--rate $(((DIO_RATE + 3) / 4))
start tcp "$WORK" --linger tcp --for ${DUR}s --rate "$TCP_RATE"
LOADS="target spawn dior diow tcp"
echo "soak: $((DUR / 60)) min $((DUR % 60)) s, a sample every $SAMPLE s (warm-up $WARMUP s); latbpf ${OPTS[*]}"
echo "soak: whole system (pid $LAT_system) and --pid $PID_target (pid $LAT_pid); pid_max $PID_MAX; output in $OUT"

# sample PID: "rss_kib cpu_ticks map_kib progs" from /proc, and every map
# and program id it holds into $W/ids.map, $W/ids.prog (for the leak check)
sample() {
	local p=$1 rss ticks kind
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	ticks=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }')
	for kind in map prog; do
		find "/proc/$p/fd" -lname "anon_inode:bpf-$kind" -printf "/proc/$p/fdinfo/%f\n" 2>/dev/null |
			xargs awk -v kind=$kind -v ids="$W/ids.$kind" '
				$1 == kind "_id:" { id[FILENAME] = $2 }
				$1 == "memlock:" { m[FILENAME] = $2 }
				END { for (f in id) { kib[id[f]] = m[f] / 1024; print id[f] >> ids }
				      for (i in kib) { n++; s += kib[i] }
				      printf "%.0f %d\n", s, n }'
	done | { read -r mkib _; read -r _ np; echo "${rss:-} ${ticks:-} ${mkib:-} ${np:-}"; }
}
# pid reuse: ns_last_pid read every second; a fall is a wrap
read -r last_pid </proc/sys/kernel/ns_last_pid
WRAPS=0 PIDS_USED=0
watch_pids() {
	local cur
	read -r cur </proc/sys/kernel/ns_last_pid
	((cur < last_pid)) && WRAPS=$((WRAPS + 1))
	PIDS_USED=$((PIDS_USED + (cur - last_pid + PID_MAX) % PID_MAX))
	last_pid=$cur
}
declare -A prev_ticks prev_t
for w in system pid; do
	eval "p=\$LAT_$w"
	read -r _ ticks _ _ < <(sample "$p")
	prev_ticks[$w]=$ticks prev_t[$w]=$T0
done
echo "t_s,which,rss_kib,cpu_pct,map_kib,progs" >"$OUT/soak.csv"
DIED=
for ((k = 1; k <= NSAMPLES && !${#DIED}; k++)); do
	while :; do
		now=$(($(ms) - T0))
		((now >= k * SAMPLE * 1000)) && break
		watch_pids
		rem=$((k * SAMPLE * 1000 - now))
		((rem > 1000)) && rem=1000
		sleep "$((rem / 1000)).$(printf %03d $((rem % 1000)))"
	done
	for w in system pid; do
		eval "p=\$LAT_$w"
		if ! kill -0 "$p" 2>/dev/null; then
			DIED="$DIED $w"
			continue
		fi
		t=$(ms)
		read -r rss ticks mkib np < <(sample "$p")
		cpu=$(awk -v d=$((ticks - prev_ticks[$w])) -v hz="$HZ" -v ms=$((t - prev_t[$w])) \
			'BEGIN { printf "%.2f", 100 * d / hz / (ms / 1000) }')
		prev_ticks[$w]=$ticks prev_t[$w]=$t
		echo "$(((t - T0) / 1000)),$w,$rss,$cpu,$mkib,$np" >>"$OUT/soak.csv"
	done
	[ -t 1 ] && printf '\r  %d/%d samples' $k $NSAMPLES
done
[ -t 1 ] && echo
watch_pids

# the loads stop by themselves at DUR, print what they did and linger:
# their CPU (with reaped children) is read before they are told to go
for l in $LOADS; do wait_line "$W/$l.out" '=' 20; done
: >"$OUT/loads.txt"
for l in $LOADS; do
	eval "p=\$PID_$l"
	c=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk -v hz="$HZ" -v s="$DUR" \
		'{ printf "%.1f", 100 * ($12 + $13 + $14 + $15) / hz / s }')
	echo "$l cpu_pct=${c:-?} $(tr '\n' ' ' <"$W/$l.out")" >>"$OUT/loads.txt"
done

# stop latbpf as a user would, right after an interval record that came
# after the loads stopped: the target is idle by then, so the final record's
# tail (what no interval record holds) is a few ms of the rest of the system
sleep 0.5
declare -A RC LINES
for w in system pid; do LINES[$w]=$(wc -l <"$OUT/$w.json"); done
for ((i = 0; i < (SAMPLE + 5) * 100; i++)); do
	[ "$(wc -l <"$OUT/system.json")" -gt "${LINES[system]}" ] &&
		[ "$(wc -l <"$OUT/pid.json")" -gt "${LINES[pid]}" ] && break
	sleep 0.01
done
for w in system pid; do
	eval "p=\$LAT_$w"
	kill -INT "$p" 2>/dev/null
done
for w in system pid; do
	eval "p=\$LAT_$w"
	for ((i = 0; i < 600; i++)); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$p" 2>/dev/null && { kill -KILL "$p"; RC[$w]="killed after 30 s"; }
	wait "$p"
	rc=$?
	RC[$w]=${RC[$w]:-$rc}
done
for l in $LOADS server; do eval "kill -TERM \$PID_$l" 2>/dev/null; done
wait 2>/dev/null
STARTED=()

# what latbpf held in the kernel must be gone (freeing is deferred: retry)
LEFT=
sort -u -o "$W/ids.map" "$W/ids.map" 2>/dev/null
sort -u -o "$W/ids.prog" "$W/ids.prog" 2>/dev/null
for ((i = 0; i < 50; i++)); do
	LEFT=$(for kind in map prog; do
		bpftool $kind show -j 2>/dev/null | jq -r '.[].id' | sort -u |
			comm -12 - "$W/ids.$kind" | sed "s/^/$kind /"
	done | tr '\n' ' ')
	[ -z "$LEFT" ] && break
	sleep 0.2
done
HELD="$(wc -l <"$W/ids.prog") programs and $(wc -l <"$W/ids.map") maps"

# interval records against the final one (tools/soak-sums.js: one pass,
# hundreds of MiB after 30 minutes)
check_sums() { node "$(dirname "$0")/soak-sums.js" "$OUT/$1.json"; }

FAILS=0
verdict() { # OK(0/1) TEXT
	if [ "$1" = 1 ]; then echo "  ok:   $2"; else echo "  FAIL: $2"; FAILS=$((FAILS + 1)); fi
}
# stats WHICH COLUMN: after warm-up: "first min max last median maxdev%"
# first min max last median drift: drift is how far the median of the last
# third of the samples after warm-up moved from the median of the first
# third, in % of the latter (a trend, not the sample-to-sample swing of
# tables that fill and drain every interval)
stats() {
	awk -F, -v w="$1" -v c="$2" -v wu="$WARMUP" '
	function med(a, lo, hi,   m, i, j, t, b) {
		m = 0; for (i = lo; i < hi; i++) b[m++] = a[i]
		for (i = 0; i < m; i++) for (j = i + 1; j < m; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		return m ? b[int((m - 1) / 2)] : 0 }
	NR > 1 && $2 == w && $1 >= wu && $c != "" { n += 0; o[n] = $c; v[n] = $c; n++ } END {
		if (!n) { print "- - - - - -"; exit }
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		printf "%s %s %s %s %s ", o[0], v[0], v[n - 1], o[n - 1], v[int((n - 1) / 2)]
		k = int(n / 3); k = k < 1 ? 1 : k
		a = med(o, 0, k); b = med(o, n - k, n)
		d = a > 0 ? 100 * (b > a ? b - a : a - b) / a : 100
		printf "%.1f\n", d }' "$OUT/soak.csv"
}

{
	echo "latbpf soak: $(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs, $(git -C "$(dirname "$0")" rev-parse --short=12 HEAD 2>/dev/null)"
	echo "length $DUR s, samples every $SAMPLE s, warm-up $WARMUP s; latbpf ${OPTS[*]}"
	echo
	echo "load (achieved over $DUR s; CPU % of one CPU, with reaped children):"
	awk -v s="$DUR" '{
		split("", kv); for (i = 2; i <= NF; i++) { split($i, a, "="); kv[a[1]] = a[2] }
		r = ""
		if ($1 == "spawn") r = sprintf("%.0f /bin/true processes/s", kv["spawned"] / s)
		if ($1 == "target") r = sprintf("%.0f threads/s in the --pid target (each: 16 faults, %.0f O_DIRECT reads/s, %.0f connects/s in all)", kv["threads"] / s, kv["ios"] / s, kv["connects"] / s)
		if ($1 == "dior") r = sprintf("%.0f O_DIRECT 4 KiB reads/s", kv["ios"] / s)
		if ($1 == "diow") r = sprintf("%.0f O_DIRECT 4 KiB writes/s", kv["ios"] / s)
		if ($1 == "tcp") r = sprintf("%.0f TCP round trips/s on 127.0.0.1", kv["roundtrips"] / s)
		printf "  %-7s %5s%%  %s\n", $1, kv["cpu_pct"], r }' "$OUT/loads.txt"
	echo "  pids: pid_max $PID_MAX, about $PIDS_USED allocated, $WRAPS wraps"
	echo
	echo "samples ($OUT/soak.csv), after warm-up: first min max last (median), drift: last third's median against the first third's"
	for w in system pid; do
		read -r rf rmin rmax rl _ rdev < <(stats $w 3)
		read -r mf mmin mmax ml _ mdev < <(stats $w 5)
		read -r _ cmin cmax _ cmed _ < <(stats $w 4)
		read -r _ pmin pmax _ _ _ < <(stats $w 6)
		printf '  %-6s rss_kib %s %s %s %s (%s%%)  map_kib %s %s %s %s (%s%%)  cpu_pct median %s max %s  progs %s..%s\n' \
			$w "$rf" "$rmin" "$rmax" "$rl" "$rdev" "$mf" "$mmin" "$mmax" "$ml" "$mdev" "$cmed" "$cmax" "$pmin" "$pmax"
		eval "rdev_$w=$rdev mdev_$w=$mdev cmed_$w=$cmed cmax_$w=$cmax"
	done
	echo
	echo "verdicts:"
	[ -n "$DIED" ] && verdict 0 "latbpf ran the whole length (died:$DIED)"
	for w in system pid; do
		eval "rdev=\$rdev_$w mdev=\$mdev_$w cmed=\$cmed_$w cmax=\$cmax_$w"
		verdict "$(awk "BEGIN { print ($rdev <= 5) }" 2>/dev/null || echo 0)" \
			"$w: RSS flat after warm-up: drift $rdev% <= 5%"
		verdict "$(awk "BEGIN { print ($mdev <= 5) }" 2>/dev/null || echo 0)" \
			"$w: map memory flat after warm-up: drift $mdev% <= 5%"
		verdict "$(awk "BEGIN { print ($cmed <= 1) }" 2>/dev/null || echo 0)" \
			"$w: CPU median $cmed% <= 1% of a CPU (max $cmax%)"
		verdict "$([ "${RC[$w]}" = 0 ] && echo 1 || echo 0)" "$w: exit status after SIGINT ${RC[$w]} (0)"
	done
	verdict "$([ -z "$LEFT" ] && echo 1 || echo 0)" \
		"no latbpf program or map left in the kernel (of $HELD it held)${LEFT:+: left: $LEFT}"
	for w in system pid; do
		if ! s=$(check_sums $w) || [ -z "$s" ]; then
			verdict 0 "$w: NDJSON unreadable ($OUT/$w.json)"
			continue
		fi
		verdict "$(jq -r 'if .finals == 1 and .numbered and .intervals >= 1 and (.bad | length) == 0 then 1 else 0 end' <<<"$s")" \
			"$w: $(jq -r '"\(.intervals) interval records add up to the final one: \(.keys) numbers, \(.exact) equal, \(.more) larger in the final by what came in its \(.tail_ms) ms after the last interval record\(if .more_top != "" then " (most: \(.more_top))" else "" end)\(if (.bad | length) > 0 then "; \(.bad | length) do not add up" else "" end)"' <<<"$s")"
		jq -r '.bad[:20][] | "          \(.)"' <<<"$s"
		echo "  interval records ($w): every $(jq -r '"\(.interval_s) s, the gaps between them off by at most \(.gap_max_ms) ms"' <<<"$s")"
		echo "  drops ($w, final record): $(jq -r '.drops | if length == 0 then "none" else to_entries | map("\(.key)=\(.value)") | join(" ") end' <<<"$s")"
	done
	echo
	if ((FAILS)); then echo "soak: $FAILS checks failed"; else echo "soak: all checks passed"; fi
} | tee "$OUT/summary.txt"
FAILS=$(grep -c '^  FAIL:' "$OUT/summary.txt")

awk -F, -v warmup="$WARMUP" -v title="latbpf soak, $(uname -r), $(nproc) CPUs, $(date -u +%F)" \
	-f "$(dirname "$0")/soak-plot.awk" "$OUT/soak.csv" >"$OUT/soak.svg"
echo "plot: $OUT/soak.svg"
((FAILS == 0))

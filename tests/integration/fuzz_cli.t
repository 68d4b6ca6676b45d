#!/usr/bin/env bash
# The command line, fuzzed through the real binary as root: 200 random
# command lines from latbpf's option grammar (tools/argfuzz; the same
# generator's 10,000 in-process parses are tests/unit/test_fuzz_opts.c),
# each with a run-ending --duration of at most 100 ms first and a timeout
# around it. Every exit is 0, 1, 2 or 3, never a signal or a hang; a usage
# or environment error (2, 3) is exactly one printable line starting
# "latbpf"; nothing on stdout or stderr is a control byte, C1 or invalid
# UTF-8; JSON on stdout parses; and afterwards no BPF program or map of
# latbpf's is left in the kernel, and neither latbpf nor a COMMAND it
# started is running. LATBPF_FUZZ_SEED reproduces a run, LATBPF_FUZZ_RUNS
# changes how many.
. "$(dirname "$0")/lib.sh"
need_root
for tool in bpftool jq perl timeout; do
	command -v $tool >/dev/null || cannot_run "$tool missing (tools/install-deps.sh)"
done
ARGFUZZ=$O/tools/argfuzz
[ -x "$ARGFUZZ" ] && [ -x "$LATWORK" ] || cannot_run "$ARGFUZZ or $LATWORK missing (make)"
SEED=${LATBPF_FUZZ_SEED:-20261123}
N=${LATBPF_FUZZ_RUNS:-200}
echo "# seed $SEED (LATBPF_FUZZ_SEED=$SEED reproduces), $N runs"
EXE=$(readlink -f "$LATBPF")
# bytes, not characters: in a UTF-8 locale bash's read can take the NUL
# after a truncated multibyte sequence as part of it
export LC_ALL=C

# "prog ID" and "map ID" for every BPF fd the given processes (default: all)
# hold: this bpftool shows no owner pids, so read what it would
held() {
	local p
	for p in "${@:-[0-9]*}"; do cat /proc/$p/fdinfo/* 2>/dev/null; done |
		awk '$1 == "prog_id:" { print "prog", $2 } $1 == "map_id:" { print "map", $2 }' | sort -u
}
ids_json() { # ids_json prog|map: the ids loaded now, as a JSON array
	bpftool -j "$1" show | jq -c 'map(.id)'
}
before_progs=$(ids_json prog)
before_maps=$(ids_json map)

# What latbpf loads: the names of the programs and maps a run of all
# families holds while it runs
start_latbpf ref --no-tui --duration 20s
ref=$(pgrep -P "$LAT_PID" -x latbpf)
held "$ref" >"$T/ref.held"
prog_names=$(bpftool -j prog show | jq -c --rawfile h "$T/ref.held" \
	'[.[] | select(("prog \(.id)") as $k | $h | split("\n") | index($k)) | .name] | unique')
map_names=$(bpftool -j map show | jq -c --rawfile h "$T/ref.held" \
	'[.[] | select(("map \(.id)") as $k | $h | split("\n") | index($k)) | .name] | unique')
stop "$LAT_PID"
check "a run holds latbpf's programs and maps while it runs: names of $(jq length <<<"$prog_names") programs, $(jq length <<<"$map_names") maps" \
	test "$(jq length <<<"$prog_names")" -ge 10 -a "$(jq length <<<"$map_names")" -ge 10

# leftovers: programs and maps with latbpf's names, loaded since this test
# began, that no process holds (a map also counts as held through a held
# program); a freed one goes within 5 s (RCU)
leftovers() {
	local h i
	for ((i = 0; i < 50; i++)); do
		held >"$T/held"
		bpftool -j prog show >"$T/progs.json"
		bpftool -j map show >"$T/maps.json"
		jq -r --argjson before "$before_progs" --argjson names "$prog_names" --rawfile h "$T/held" '
			.[] | select((.id as $i | $before | index($i)) == null and (.name as $n | $names | index($n)) != null
				and (("prog \(.id)") as $k | $h | split("\n") | index($k)) == null) | "prog \(.id) \(.name)"' \
			"$T/progs.json" >"$T/left"
		jq -r --argjson before "$before_maps" --argjson names "$map_names" --rawfile h "$T/held" \
			--slurpfile progs "$T/progs.json" '
			([$progs[0][] | select(("prog \(.id)") as $k | $h | split("\n") | index($k)) | .map_ids // [] | .[]]) as $via
			| .[] | select((.id as $i | $before | index($i)) == null and (.name as $n | $names | index($n)) != null
				and (("map \(.id)") as $k | $h | split("\n") | index($k)) == null
				and (.id as $i | $via | index($i)) == null) | "map \(.id) \(.name)"' \
			"$T/maps.json" >>"$T/left"
		[ -s "$T/left" ] || return 0
		sleep 0.1
	done
	diag "left in the kernel, held by no process: $(head -20 "$T/left" | tr '\n' ' ')"
	return 1
}
check "after the reference run: nothing of latbpf's left" leftovers

# a process and one of its threads for --pid/--tid to find
"$LATWORK" --comm fuzzlive sleep --sleep 1ms --count 300000 --threads 2 >/dev/null &
live=$!
_pids+=("$live")
for ((i = 0; i < 50; i++)); do
	[ "$(ls /proc/"$live"/task 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.1
done
tid=$(ls /proc/"$live"/task | grep -vx "$live" | head -1)
mkdir "$T/files"

# clean FILE: valid UTF-8 without control characters (C0 but tab and
# newline, DEL, C1): nothing that came from the arguments can drive a terminal
clean() {
	perl -0777 -ne 'utf8::decode($_) or exit 1; exit(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/ ? 1 : 0)' "$1"
}
show() { # the case and what it said, for the diagnostics
	local q e
	q=$(printf '%q ' "${args[@]}")
	e=$(printf '%q' "$(head -c 600 "$T/err")")
	diag "case $i: latbpf ${q:0:600}-> exit $rc; stderr ($lines lines): ${e:0:600}"
}

bad_rc=0 bad_usage=0 bad_rt=0 dirty=0 bad_json=0 shown=0
declare -A by_rc=()
t0=$(date +%s.%N)
i=0
while IFS= read -r -d '' cnt; do
	args=()
	for ((k = 0; k < cnt; k++)); do
		IFS= read -r -d '' a
		args+=("$a")
	done
	timeout -k 5 -s INT 15 "$LATBPF" "${args[@]}" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	by_rc[$rc]=$((${by_rc[$rc]:-0} + 1))
	fail=
	case $rc in
	0 | 1 | 2 | 3) ;;
	*) bad_rc=$((bad_rc + 1)); fail=1 ;;
	esac
	lines=$(wc -l <"$T/err")
	if [ "$rc" = 2 ] || [ "$rc" = 3 ]; then
		if [ "$lines" != 1 ] || [ "$(tail -c 1 "$T/err" | od -An -c | tr -d ' ')" != '\n' ] ||
			! grep -qE '^latbpf( bench)?: ' "$T/err"; then
			bad_usage=$((bad_usage + 1)); fail=1
		fi
	fi
	if [ "$rc" = 1 ] && ! tail -1 "$T/err" | grep -qE '^(latbpf( bench)?|sched|hiccup|fault|block|tcp): '; then
		bad_rt=$((bad_rt + 1)); fail=1
	fi
	if ! clean "$T/out" || ! clean "$T/err"; then
		dirty=$((dirty + 1)); fail=1
	fi
	if [ "$rc" = 0 ] && [ "$(head -c 1 "$T/out")" = '{' ] && ! jq -e . "$T/out" >/dev/null 2>&1; then
		bad_json=$((bad_json + 1)); fail=1
	fi
	if [ -n "$fail" ] && [ $((shown++)) -lt 10 ]; then
		show
	fi
	i=$((i + 1))
done < <("$ARGFUZZ" --seed "$SEED" --count "$N" --dir "$T/files" --latwork "$LATWORK" \
	--pid "$live" --tid "$tid")
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
summary=$(for r in "${!by_rc[@]}"; do echo "exit $r: ${by_rc[$r]}"; done | sort | paste -sd, -)
diag "$i runs in $secs s; $summary"

check "all $N command lines ran" test "$i" -eq "$N"
check "every exit is 0, 1, 2 or 3: no signal, no hang ($bad_rc others)" test "$bad_rc" -eq 0
check "every usage or environment error (exit 2, 3) is one line starting 'latbpf' ($bad_usage not)" \
	test "$bad_usage" -eq 0
check "every runtime failure (exit 1) ends with a line starting 'latbpf' or a family ($bad_rt not)" \
	test "$bad_rt" -eq 0
check "no control byte, C1 or invalid UTF-8 on any stdout or stderr ($dirty runs had)" test "$dirty" -eq 0
check "JSON on stdout parses ($bad_json runs did not)" test "$bad_json" -eq 0
check "runs that attach and runs that fail both common (exit 0: ${by_rc[0]:-0}, exit 2: ${by_rc[2]:-0})" \
	test "${by_rc[0]:-0}" -ge $((N / 5)) -a "${by_rc[2]:-0}" -ge $((N / 5))
check "no BPF program or map of latbpf's left in the kernel" leftovers
ours=0
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/exe" 2>/dev/null)" = "$EXE" ] && ours=$((ours + 1))
done
check "no latbpf left running ($ours)" test "$ours" -eq 0
cmds=$( (ps -C fuzzcmd -o pid=; ps -eo pid=,args= | awk '$2 == "sleep" && $3 == "4.321" { print $1 }') | wc -l)
check "no COMMAND latbpf started left running ($cmds)" test "$cmds" -eq 0
done_testing

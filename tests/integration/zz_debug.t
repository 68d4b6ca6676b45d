#!/usr/bin/env bash
. "$(dirname "$0")/lib.sh"
need_root
sleep 30 &
sp=$!
timeout -s INT 60 "$LATBPF" --pid $sp --probes all,time -v --duration 2s --no-tui --json "$T/d.json" >"$T/d.out" 2>"$T/d.err"
ok $? "latbpf ran"
while IFS= read -r l; do diag "$l"; done < <(grep -v "^\s*$" "$T/d.err" | grep -iE "time|sched|load|verif|error|fail|invalid|unknown|not supported|R[0-9]|^[0-9]+:" | tail -80)
kill $sp
done_testing

#!/usr/bin/env bash
# The live view on a real terminal (tmux, 110x45): redrawn in place, fitted
# to the window, both panels, hostile names escaped; q ends it with the
# whole-run summary and exit 0.
. "$(dirname "$0")/lib.sh"
need_root
command -v tmux >/dev/null || { cannot_run "tmux missing (tools/install-deps.sh)"; }
S=latbpf-tty-$$
EVIL=$'\e]0;pwned\a\e[2J'
tmux kill-session -t $S 2>/dev/null
tmux new-session -d -s $S -x 110 -y 45 \
	"$LATBPF --probes sched,hiccup --per-thread -- $LATWORK --comm '$EVIL' sleep --sleep 1ms --count 20000; echo rc=\$? >'$T/rc'; sleep 30"
_pids+=($(tmux display -p -t $S '#{pane_pid}'))
# the bytes latbpf writes, before the terminal cuts or wraps them
tmux pipe-pane -t $S -o "cat >>'$T/raw'"
sleep 3.5
tmux capture-pane -p -t $S >"$T/frame1"
sleep 1.2
tmux capture-pane -p -t $S >"$T/frame2"
check "frame: provenance on the first line" grep -q '^latbpf .* kernel ' "$T/frame1"
check "frame: interval counter advances" \
	test "$(grep -o '^interval [0-9]*' "$T/frame1")" != "$(grep -o '^interval [0-9]*' "$T/frame2")"
check "frame: sched panel with interval and whole-run rows" \
	bash -c "grep -q 'run-queue latency' '$T/frame1' && grep -q '^    interval ' '$T/frame1' && grep -q '^    whole run ' '$T/frame1'"
check "frame: bars drawn" grep -qE '^    \[.*\) +[0-9]+ #' "$T/frame1"
check "frame: redrawn in place (one provenance line, not scrolled)" test "$(grep -c '^latbpf ' "$T/frame2")" = 1
# capture-pane never shows more than the pane's width: judge what was written
wide=$(LC_ALL=C sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\r//g' "$T/raw" | LC_ALL=C awk 'length > 110' | wc -l)
lines=$(wc -l <"$T/raw")
check "frame: no line written wider than the window ($wide of $lines)" test "$wide" -eq 0 -a "$lines" -gt 40
check "frame: fits the height (the cut is announced)" grep -q 'more below: enlarge the window' "$T/frame1"
tmux resize-window -t $S -x 110 -y 120 2>/dev/null
sleep 1.2
tmux capture-pane -p -t $S >"$T/frame3"
check "frame: taller window shows the hiccup panel" grep -q '^hiccup: ' "$T/frame3"
check "frame: the hostile comm appears escaped" grep -qF '\x1b]0;pwned\x07\x1b[2J' "$T/frame3"
tmux send-keys -t $S q
for ((i = 0; i < 100; i++)); do [ -s "$T/rc" ] && break; sleep 0.05; done
check "q: latbpf exits 0" grep -qx 'rc=0' "$T/rc"
tmux capture-pane -p -S -400 -t $S >"$T/after"
check "q: the whole-run summary is printed on the normal screen" grep -q '^=== whole run ===' "$T/after"
tmux kill-session -t $S
done_testing

#!/usr/bin/env bash
# The live view on a real terminal (tmux), the bundled demo as its target:
#  - at 120x40 (UTF-8) and at 80x24 (ASCII) every family is on one screen
#    with its p99, the very p99 the JSON has for the interval shown; no line
#    is written wider than the window, none is cut for height;
#  - keys: 1 sched in full with its heat map, h the next histogram's, 2
#    hiccup, r/i whole run and interval, p pause (the screen holds), ?
#    help, 0 back; a resize redraws at once, without waiting for a tick;
#  - latbpf's own cost in the header, with the kernel's BPF statistics on
#    while it runs and as they were after it;
#  - q ends it with exit 0 and the whole-run summary on the normal screen.
. "$(dirname "$0")/lib.sh"
need_root
for tool in tmux jq perl bpftool; do
	command -v $tool >/dev/null || cannot_run "$tool missing (tools/install-deps.sh)"
done
[ -x "$O/tools/demo" ] || cannot_run "$O/tools/demo missing (make)"
S=latbpf-tty-$$
tmux -L "$S" kill-server 2>/dev/null
stats_before=$(cat /proc/sys/kernel/bpf_stats_enabled)

# lat_fmt_ns, for the JSON's figures as the screen prints them
fmt_ns() {
	awk -v ns="$1" 'BEGIN { split("1e9 s 1e6 ms 1e3 us", u, " ");
		for (i = 1; i <= 5; i += 2) if (ns >= u[i] + 0) { v = ns / u[i];
			printf(v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s", v, u[i + 1]); exit }
		printf("%dns", ns) }'
}
# the widest line of the live view's frames (on the alternate screen), in
# characters, latbpf's own escapes taken out
widest() {
	perl -CSD -0777 -ne 's/^.*?\e\[\?1049h//s; s/\e\[\?1049l.*$//s;
		s/\e\[[0-9;?]*[A-Za-z]//g; s/\r//g;
		for (split /\n/) { $w = length if length > $w } print $w + 0' "$1"
}
# "NAME count /s p50 p99" or "NAME count p50 p99": the p99 of a line
p99_of() { # p99_of FRAME NAME COLUMNS_BEFORE_P99
	perl -ne "if (/^\Q$2\E\s+(.*)/) { @f = split ' ', \$1; print \$f[$3]; exit }" "$1" | tr -d '*'
}
# the p99 a histogram had in interval N (- when it had no samples)
json_p99() { # json_p99 JSON N JQPATH
	local v
	v=$(jq -r "select(.interval == $2) | $3 | if .count == 0 then \"-\" else .p99 end" "$1" | head -1)
	if [ "$v" = - ] || [ -z "$v" ]; then echo "$v"; else fmt_ns "$v"; fi
}
FAMS=(sched hiccup fault block tcp)
# the first line of each family, and where its JSON is
declare -A LINE=([sched]="sched run-queue latency" [fault]="fault stalls"
	[tcp]="tcp smoothed RTT" [hiccup]="hiccup cpu1 hiccups")
declare -A JPATH=([sched]=.sched.runq [fault]=.fault.stalls [tcp]=.tcp.rtt
	[hiccup]='.hiccup.cpus[] | select(.cpu == 1) | .hist')

one_screen() { # one_screen FRAME JSON WIDTH P99_COLUMN LABEL
	local iv f got want
	iv=$(grep -o '^interval [0-9]*' "$1" | head -1 | cut -d' ' -f2)
	for f in "${FAMS[@]}"; do
		check "$5: $f on the screen" grep -q "^$f " "$1"
	done
	for f in sched hiccup fault tcp; do
		got=$(p99_of "$1" "${LINE[$f]}" "$4")
		want=$(json_p99 "$2" "$iv" "${JPATH[$f]}")
		check "$5: $f's p99 in interval $iv is the JSON's ($got, JSON $want)" \
			test -n "$got" -a "$got" = "$want"
	done
	local dev op
	read -r dev op < <(perl -ne 'if (/^block (\S+) (read|write) device latency /) { print "$1 $2\n"; exit }' "$1")
	check "$5: the block line is a device's ($dev $op)" test -n "$dev" -a -n "$op"
	got=$(p99_of "$1" "block $dev $op device latency" "$4")
	want=$(json_p99 "$2" "$iv" ".block.devices[] | select(.name == \"$dev\") | .$op.latency")
	check "$5: block's p99 in interval $iv is the JSON's ($got, JSON $want)" \
		test -n "$got" -a "$got" = "$want"
	# the newest events, of any CPU: at 80x24 one row is left for them,
	# and the demo's unpinned threads have hiccups on CPU 0 too (two
	# fresh-clone runs on 2026-11-27 failed when the newest was there)
	check "$5: the latest hiccups on the screen" grep -qE '^ +[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z +[0-9]+ +[0-9]+ ' "$1"
	check "$5: nothing cut for height" bash -c "! grep -q 'more below' '$1'"
	check "$5: nothing scrolled (the provenance on the first line)" bash -c "head -1 '$1' | grep -q '^latbpf '"
}

# view COLSxROWS LOCALE N FRAME LATBPF_ARGS...: the demo under latbpf in
# tmux, its screen captured once it shows interval N (the attach and the
# first ticks take what the host gives them: polled, up to 60 s)
view() {
	local size=$1 loc=$2 want=$3 frame=$4 i iv
	shift 4
	rm -f "$T/rc" "$T/raw"
	tmux -L "$S" new-session -d -s "$S" -x "${size%x*}" -y "${size#*x}" \
		"LC_ALL=$loc $LATBPF $* -- $O/tools/demo --seconds 40; echo rc=\$? >'$T/rc'; sleep 30"
	_pids+=($(tmux -L "$S" display -p -t "$S" '#{pane_pid}'))
	tmux -L "$S" pipe-pane -t "$S" -o "cat >>'$T/raw'"
	for ((i = 0; i < 600; i++)); do
		tmux -L "$S" capture-pane -p -J -t "$S" >"$frame"
		iv=$(grep -o '^interval [0-9]*' "$frame" | head -1 | cut -d' ' -f2)
		if [ "${iv:-0}" -ge "$want" ]; then
			# the frame may be caught while it is drawn (header first;
			# a fresh-clone run here lacked the bottom lines, and one on
			# 2026-11-27 the hiccup events, the last table): taken once
			# two captures 0.3 s apart agree, within the same interval
			local j
			for ((j = 0; j < 10; j++)); do
				sleep 0.3
				tmux -L "$S" capture-pane -p -J -t "$S" >"$frame.2"
				cmp -s "$frame" "$frame.2" && break
				mv "$frame.2" "$frame"
			done
			rm -f "$frame.2"
			return 0
		fi
		sleep 0.1
	done
	diag "view $size: no interval $want on the screen after 60 s: $(head -3 "$frame" | tr '\n' '|')"
}

# --- 120x40, UTF-8 ---
view 120x40 C.UTF-8 4 "$T/big" --json "$T/a.json"
one_screen "$T/big" "$T/a.json" 120 3 "120x40"
check "120x40: the histograms' strips are drawn (Unicode shades)" grep -qE '^sched run-queue latency .*[▁▂▃▄▅▆▇█]' "$T/big"
check "120x40: the per-CPU table's columns (cpu, pinned tids, lost, top intruders)" \
	grep -qE '^ +cpu .*pinned tids .*lost .*top intruders' "$T/big"
check "120x40: latbpf's own cost in the header (BPF statistics on)" \
	grep -qE '^latbpf itself: cpu [0-9.]+%  rss [0-9.]+[KMG]iB  maps [0-9.]+[KMG]iB  bpf [0-9.]+% of a CPU \([0-9]+ events/s x [0-9.]+[nu]s\)' "$T/big"
# bpftool shows run_time_ns only while the statistics are on: latbpf's
# programs by the names its JSON gives them (bpftool reads them from BTF too)
names=$(jq -r 'select(.interval) | .self.bpf // {} | keys[]' "$T/a.json" | sort -u | paste -sd' ')
on=$(timeout 20 bpftool prog show -j | jq -s --arg n " $names " \
	'[flatten[] | select(type == "object" and (.run_time_ns // 0) > 0 and ((.name // "") as $p | $n | contains(" " + $p + " ")))] | length')
check "120x40: the kernel's BPF statistics are on for latbpf's programs while it runs ($on of them ran; before: $stats_before)" \
	test "${on:-0}" -gt 0
# the header's own cost is the JSON's "self" of the interval shown, rounded
# as latbpf rounds (self.t holds "self" against bpftool and /proc)
iv=$(grep -o '^interval [0-9]*' "$T/big" | cut -d' ' -f2)
# (awk: C's doubles; bash's printf rounds long doubles, 0.095 to 0.09)
pct() { awk -v v="$1" 'BEGIN { printf("%.2f%%", sprintf("%.3f", v) + 0) }'; }
hcpu=$(grep -o '^latbpf itself: cpu [0-9.]*%' "$T/big" | awk '{ print $4 }')
jcpu=$(pct "$(jq -r "select(.interval == $iv) | .self.cpu_pct" "$T/a.json")")
hbpf=$(grep -o 'bpf [0-9.]*% of a CPU' "$T/big" | awk '{ print $2 }')
jbpf=$(pct "$(jq -r "select(.interval == $iv) | .self.bpf_cpu_pct" "$T/a.json")")
check "120x40: the header's cpu and bpf shares are the JSON's for interval $iv ($hcpu $hbpf, JSON $jcpu $jbpf)" \
	test -n "$hcpu" -a "$hcpu" = "$jcpu" -a "$hbpf" = "$jbpf"
check "120x40: drops said" grep -q '  drops: none  keys:' "$T/big"
w=$(widest "$T/raw")
check "120x40: no line written wider than the window (widest $w)" test "$w" -le 120 -a "$w" -gt 100

key() { # key K WAIT: send a key, capture what the screen says then
	tmux -L "$S" send-keys -t "$S" "$1"
	sleep "${2:-0.4}"
	tmux -L "$S" capture-pane -p -J -t "$S" >"$T/k"
}
key 1
check "key 1: sched in full, with its heat map" \
	bash -c "grep -q '^heat map: sched run-queue latency' '$T/k' && grep -q '^sched: where the target waited' '$T/k' && grep -qE '^ +[0-9.]+[mu]?s\\|' '$T/k'"
key h
# sched's histograms in order: run-queue, then the timer lateness where the
# kernel names the wait timers' functions (/proc/kallsyms), then off-CPU
next='off-CPU, interruptible sleep'
grep -qw hrtimer_wakeup /proc/kallsyms && next='timer lateness'
check "key h: the heat map of sched's next histogram ($next)" grep -q "^heat map: sched $next" "$T/k"
key 2
check "key 2: hiccup in full" grep -q '^hiccup: who had the target' "$T/k"
key 0
check "key 0: every family again" bash -c "grep -q '^histogram ' '$T/k' && grep -q '^tcp ' '$T/k'"
key r
check "key r: the whole run's figures" grep -qE '^interval [0-9]+, whole run ' "$T/k"
key i
check "key i: the interval's again" grep -qE '^interval [0-9]+, this interval ' "$T/k"
key '?'
check "key ?: help" grep -q '^keys *$' "$T/k"
key x
check "any key: help closed" grep -q '^histogram ' "$T/k"
key p
held=$(grep -o '^PAUSED at interval [0-9]*' "$T/k")
sleep 2.2
tmux -L "$S" capture-pane -p -J -t "$S" >"$T/k2"
check "key p: paused, the screen holds ($held, 2.2 s later $(grep -o '^PAUSED at interval [0-9]*' "$T/k2"))" \
	bash -c "[ -n '$held' ] && grep -qx '$held.*' <(grep '^PAUSED' '$T/k2')"
key 1
check "paused, other keys wait: the held screen stays" \
	bash -c "grep -qx '$held.*' <(grep '^PAUSED' '$T/k') && grep -q '^histogram ' '$T/k'"
# the next tick redraws: up to 5 s (latbpf runs at SCHED_IDLE: a busy
# host delays its ticks, which is why the demo runs 40 s, longer than these
# keys take, and q ends it: a CI run reached here after the demo's old 14 s)
key p 0.4
for ((i = 0; i < 25; i++)); do
	grep -qE '^interval [0-9]+, (this interval|whole run)(, sched)? ' "$T/k" && break
	sleep 0.2
	tmux -L "$S" capture-pane -p -J -t "$S" >"$T/k"
done
check "key p again: it goes on" grep -qE '^interval [0-9]+, (this interval|whole run)(, sched)? ' "$T/k"
tmux -L "$S" send-keys -t "$S" q
for ((i = 0; i < 100; i++)); do [ -s "$T/rc" ] && break; sleep 0.05; done
check "q: latbpf exits 0" grep -qx 'rc=0' "$T/rc"
tmux -L "$S" capture-pane -p -S -400 -t "$S" >"$T/after"
check "q: the whole-run summary is printed on the normal screen" grep -q '^=== whole run ===' "$T/after"
check "the BPF statistics are as they were before latbpf ($stats_before)" \
	grep -qx "$stats_before" /proc/sys/kernel/bpf_stats_enabled
tmux -L "$S" kill-server 2>/dev/null

# --- 80x24, ASCII, then a resize between two ticks ---
view 80x24 C 1 "$T/small" --interval 4s --json "$T/b.json"
cp "$T/raw" "$T/raw80"
one_screen "$T/small" "$T/b.json" 80 2 "80x24"
grep -qE '^ +[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z +[0-9]+ +[0-9]+ ' "$T/small" || diag "80x24 frame: $(cat "$T/small")"
check "80x24: columns dropped, not wrapped (no rate, no strip)" \
	bash -c "grep -qE '^histogram .* count +p50 +p99 +p99.9 +max\$' '$T/small'"
check "80x24: ASCII only in the C locale" bash -c "! LC_ALL=C grep -q '[^ -~]' '$T/small'"
w=$(widest "$T/raw80")
check "80x24: no line written wider than the window (widest $w)" test "$w" -le 80 -a "$w" -gt 60
iv=$(grep -o '^interval [0-9]*' "$T/small")
tmux -L "$S" resize-window -t "$S" -x 120 -y 40
sleep 0.6
tmux -L "$S" capture-pane -p -J -t "$S" >"$T/resized"
check "resize: redrawn at once for 120x40, still $iv (the next tick is seconds away)" \
	bash -c "grep -qx '$iv, .*' <(grep '^interval' '$T/resized') && grep -qE '^histogram .* count +/s ' '$T/resized'"
tmux -L "$S" send-keys -t "$S" q
for ((i = 0; i < 100; i++)); do [ -s "$T/rc" ] && break; sleep 0.05; done
check "q: latbpf exits 0" grep -qx 'rc=0' "$T/rc"
tmux -L "$S" kill-server 2>/dev/null
done_testing

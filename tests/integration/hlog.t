#!/usr/bin/env bash
# --hlog from real runs, read back by readers nobody here wrote:
# HdrHistogram's Java library (HistogramLogReader, Debian's
# libhdrhistogram-java) and npm's hdr-histogram-js. For every tag, the
# counts summed over the intervals equal the final JSON record's count
# exactly, and p50/p99/max agree with it within one slot; a log cut by
# SIGKILL decodes up to its last line; two runs' logs merge with
# HistogramLogProcessor.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/../hlog/readers.sh"

start_work w --linger sleep --sleep 1ms --count 1500 --threads 2
start_latbpf h --pid "$WORK_PID" --interval 500ms --duration 4s --per-thread --per-cpu \
	--no-tui --json "$T/h.json" --hlog "$T/h.hlog"
kill -USR1 "$WORK_PID"
wait "$LAT_PID"
ok $? "latbpf --hlog --json exits 0"
kill -TERM "$WORK_PID" 2>/dev/null

check "the log starts with the 1.3 header and the legend" bash -c "
	grep -q '^#\[Histogram log format version 1.3\]' '$T/h.hlog' &&
	grep -q '^#\[StartTime: ' '$T/h.hlog' && grep -q '^\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"' '$T/h.hlog'"
nlines=$(grep -c '^Tag=' "$T/h.hlog")
check "one line per histogram per interval ($nlines lines)" num_le 24 "$nlines"

# The JSON histogram a tag names (DESIGN.md: JSON path, items by their key)
# time's causes are named by their labels: state, cause, reason (its
# histogram's members are the item's own)
JQ_HIST='def cause($q): .causes[] | select(.state == $q[0] and (.cause // "") == ($q[1] // "") and
		(.reason // "") == ($q[2] // ""));
def hist($t): ($t | split(".")) as $p |
	if $p[0] == "sched" and $p[1] == "thread" then .sched.threads[] | select(.tid == ($p[2] | tonumber)) | .[$p[3]]
	elif $p[0] == "sched" and ($p[1] | test("^cpu[0-9]+$")) then .sched.cpus[] | select(.cpu == ($p[1][3:] | tonumber)) | .[$p[2]]
	elif $p[0] == "hiccup" then .hiccup.cpus[] | select(.cpu == ($p[1][3:] | tonumber)) | (if ($p | length) == 2 then .hist else .[$p[2]] end)
	elif $p[0] == "block" then .block.devices[] | select(.name == $p[1]) | .[$p[2]][$p[3]]
	elif $p[0] == "time" and $p[1] == "thread" then .time.per_thread[] | select(.tid == ($p[2] | tonumber)) | .time | cause($p[4:])
	elif $p[0] == "time" then .time | cause($p[1:])
	else getpath($p) end;'

# compare READER: every tag's count exact, p50/p99/max within one slot
compare() {
	local name=$1 out=$2 tag n count p50 p99 max bad=0 tags=0 jc jp50 jp99 jmax
	while read -r tag n count p50 p99 max; do
		[ "$tag" = lines ] && continue
		tags=$((tags + 1))
		read -r jc jp50 jp99 jmax < <(jq -r --arg t "$tag" "$JQ_HIST"' select(.final) | hist($t) | "\(.count) \(.p50) \(.p99) \(.max)"' "$T/h.json")
		if [ "$count" != "$jc" ]; then
			diag "$name: $tag: count $count in the log, $jc in the JSON"; bad=$((bad + 1)); continue
		fi
		for pair in "$p50 $jp50" "$p99 $jp99" "$max $jmax"; do
			# within one slot: a slot is at most 1/16 of its value wide
			awk -v a="${pair% *}" -v b="${pair#* }" 'BEGIN { d = a - b; if (d < 0) d = -d
				m = a > b ? a : b; exit !(d <= m / 16 + 1) }' ||
				{ diag "$name: $tag: $pair (log vs JSON) more than a slot apart"; bad=$((bad + 1)); }
		done
	done <"$out"
	check "$name: all $tags tags agree with the final JSON (count exact, p50/p99/max within a slot)" \
		test "$bad" -eq 0 -a "$tags" -ge 8
}

hlog_java "$T/h.hlog" >"$T/java.out" 2>"$T/java.err"
ok $? "HdrHistogram (Java) HistogramLogReader decodes the log ($(head -c 200 "$T/java.err"))"
check "Java: every line decoded ($(awk '/^lines/ { print $2 }' "$T/java.out") of $nlines)" \
	test "$(awk '/^lines/ { print $2 }' "$T/java.out")" = "$nlines"
compare Java "$T/java.out"
hlog_js "$T/h.hlog" >"$T/js.out" 2>"$T/js.err"
ok $? "hdr-histogram-js decodes the log ($(head -c 200 "$T/js.err"))"
check "JS: every line decoded ($(awk '/^lines/ { print $2 }' "$T/js.out") of $nlines)" \
	test "$(awk '/^lines/ { print $2 }' "$T/js.out")" = "$nlines"
compare JS "$T/js.out"
check "sched.runq is there, with the run's samples" grep -qE '^sched\.runq [0-9]+ [1-9]' "$T/java.out"
check "per thread and per CPU tags are named as DESIGN.md says" bash -c \
	"grep -qE '^sched\.thread\.[0-9]+\.runq ' '$T/java.out' && grep -qE '^sched\.cpu[0-9]+\.runq ' '$T/java.out' &&
	 grep -qE '^hiccup\.cpu[0-9]+ ' '$T/java.out'"

# SIGKILL mid-run: what is on disk is whole intervals, readable to the end
start_latbpf k --interval 500ms --probes sched,hiccup --no-tui --hlog "$T/k.hlog"
sleep 2.7
kill -KILL "$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")"
wait "$LAT_PID" 2>/dev/null
kl=$(grep -c '^Tag=' "$T/k.hlog")
check "a SIGKILLed run left whole lines ($kl), ending in a newline" bash -c \
	"[ $kl -ge 8 ] && [ \"\$(tail -c 1 '$T/k.hlog' | od -An -c | tr -d ' ')\" = '\\n' ]"
hlog_java "$T/k.hlog" >"$T/kj.out" 2>"$T/kj.err"
check "Java decodes all $kl lines of the killed run's log" \
	test "$(awk '/^lines/ { print $2 }' "$T/kj.out")" = "$kl"
hlog_js "$T/k.hlog" >"$T/kjs.out" 2>"$T/kjs.err"
check "JS decodes all $kl lines of the killed run's log" \
	test "$(awk '/^lines/ { print $2 }' "$T/kjs.out")" = "$kl"

# two runs, merged by HdrHistogram's own HistogramLogProcessor
start_latbpf m --interval 500ms --duration 1500ms --probes sched --no-tui --hlog "$T/m.hlog"
wait "$LAT_PID"
hlog_merge "$T/h.hlog" "$T/m.hlog" sched.runq >"$T/merge.out" 2>"$T/merge.err"
ok $? "HistogramLogProcessor merges two runs' logs ($(head -c 200 "$T/merge.err"))"
a=$(awk '$1 == "sched.runq" { print $3 }' "$T/java.out")
b=$(hlog_java "$T/m.hlog" 2>/dev/null | awk '$1 == "sched.runq" { print $3 }')
m=$(cat "$T/merge.out")
check "the merged sched.runq holds both runs' samples ($a + $b = $m)" test "$((a + b))" = "${m:-x}"
done_testing

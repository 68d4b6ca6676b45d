#!/usr/bin/env bash
# latbpf report: a saved --json run re-renders the very summary the live run
# printed; its --html page renders in a real browser (headless Chromium),
# shows every histogram of the run, and keeps hostile comms text; a file
# that is not a whole run is refused with its line and exit 2.
. "$(dirname "$0")/lib.sh"
need_root
for tool in jq chromium identify; do
	command -v $tool >/dev/null || cannot_run "$tool missing (tools/install-deps.sh)"
done
[ -x "$O/tools/demo" ] || cannot_run "$O/tools/demo missing (make)"

# (a) the demo's summary, live and from the file
timeout 60 "$LATBPF" --no-tui --duration 4s --json "$T/run.json" -- "$O/tools/demo" --seconds 6 \
	>"$T/live.txt" 2>"$T/live.err"
ok $? "latbpf --duration 4s --json on the demo exits 0"
timeout 30 "$LATBPF" report "$T/run.json" --html "$T/out.html" >"$T/rep.txt" 2>"$T/rep.err"
ok $? "latbpf report run.json --html out.html exits 0"
summary() { sed -n '/^=== whole run ===$/,$p' "$1"; }
check "the summary has events, intruders and heat maps (something to get wrong)" \
	bash -c "grep -qE '^ +[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z +1 ' '$T/live.txt' && grep -q ' top intruders\$' '$T/live.txt' && grep -q '^heat map: sched run-queue latency' '$T/live.txt'"
check "the report's summary equals the live run's, from === whole run === on" \
	bash -c "[ -s '$T/rep.txt' ] && diff <(sed -n '/^=== whole run ===\$/,\$p' '$T/live.txt') <(sed -n '/^=== whole run ===\$/,\$p' '$T/rep.txt') >&2"

# (b) the page in a real browser
shot() { # shot HTML PREFIX: screenshot, DOM and console of one page
	timeout 60 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--screenshot="$2.png" --window-size=1200,3000 "file://$1" >/dev/null 2>"$2.log"
	timeout 60 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--dump-dom "file://$1" >"$2.dom" 2>>"$2.log"
}
shot "$T/out.html" "$T/demo"
colours=$(timeout 30 identify -format %k "$T/demo.png" 2>/dev/null)
check "the screenshot is not blank (unique colours: ${colours:-none} > 100)" num_le 100 "${colours:-0}"
check "no console errors" bash -c "! grep -E 'Uncaught|CONSOLE.*(ERROR|error)|:ERROR:CONSOLE' '$T/demo.log' >&2"
check "nothing fetched: no script, link, img or url() in the page" \
	bash -c "! grep -Eiq '<script|<link|<img|url\\(|https?://' '$T/out.html'"
# every histogram of any record, named as the page names them: array items
# by their first member's value (device, cpu), or, time's causes, by their
# labels (state, cause, reason: sleeping.futex), then the path
jq -r 'def iname: if has("state") then [.state, .cause, .reason] | map(select(. != null)) | join(".")
		else to_entries[0].value | tostring end;
	def name(p): reduce range(0; p|length) as $i ({o: ., s: ""};
	(p[$i]) as $k | if ($k|type) == "number" then
		{o: .o[$k], s: (.s + "[" + (.o[$k] | iname) + "]")}
	else {o: .o[$k], s: (.s + (if .s == "" then "" else "." end) + $k)} end) | .s;
	. as $r | [paths(type == "object" and has("buckets"))] | .[] | select(.[0] != "layout") as $p | $r | name($p)' \
	"$T/run.json" | sort -u >"$T/paths"
n=$(wc -l <"$T/paths")
check "the run has histograms to show ($n paths, sched.runq among them)" grep -qx sched.runq "$T/paths"
missing=$(while read -r p; do grep -qF ">$p</h3>" "$T/demo.dom" || echo "$p"; done <"$T/paths")
check "every histogram path of the run is in the DOM${missing:+ (missing: $missing)}" test -z "$missing"
check "a chart and a heat map for sched.runq (polylines and rects in the DOM)" \
	bash -c "[ \$(grep -c '<polyline' '$T/demo.dom') -ge 4 ] && grep -q 'class=\"heat\"' '$T/demo.dom'"
check "provenance, hiccup tables and self on the page" \
	bash -c "grep -q 'whole run\\|latbpf 0\\|clocksource' '$T/demo.dom' && grep -q '>hiccup.events</h3>' '$T/demo.dom' && grep -q '>self</h3>' '$T/demo.dom'"

# (c) a hostile comm stays text (comm is 15 bytes: "<script>alert(1")
EVIL='<script>alert(1)</script>'
start_work target --cpu 1 --comm "$EVIL" sleep --sleep 1ms --count 2000
target=$WORK_PID
start_work burn --cpu 1 --fifo --comm "<b onclick='x'>\"&" burner --period 100ms --burst 3ms --for 2s
burn=$WORK_PID
start_latbpf evil --pid "$target" --duration 2s --no-tui --json "$T/evil.json"
kill -USR1 "$target" "$burn"
wait "$LAT_PID"
ok $? "latbpf on the hostile target exits 0"
check "the JSON carries the hostile comm" bash -c "jq -e 'select(.final) | .run.target.comm | startswith(\"<script>\")' '$T/evil.json' >/dev/null"
timeout 30 "$LATBPF" report "$T/evil.json" --html "$T/evil.html" >"$T/evil.txt" 2>&1
ok $? "latbpf report on it exits 0"
shot "$T/evil.html" "$T/evil"
check "no markup from a comm: no <script> or <b> element, in the file or the DOM" \
	bash -c "! grep -Eiq '<script|<b[ >]' '$T/evil.html' '$T/evil.dom'"
check "the comms are on the page as text" \
	bash -c "grep -qF '&lt;script&gt;alert(1' '$T/evil.dom' && grep -qF '&lt;b onclick=' '$T/evil.dom'"
check "no console errors" bash -c "! grep -E 'Uncaught|:ERROR:CONSOLE' '$T/evil.log' >&2"

# (d) not a whole run: exit 2, FILE:LINE: why
refused() { # refused FILE LINE: exit 2 and the line in one stderr line
	timeout 10 "$LATBPF" report "$1" >/dev/null 2>"$T/err"
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -q "^latbpf report: $1:$2: " "$T/err" || { echo "# rc=$rc: $(cat "$T/err")"; return 1; }
}
head -c $(($(stat -c %s "$T/run.json") / 2)) "$T/run.json" >"$T/half.json"
check "half a file (a cut line): exit 2 at its last line ($(wc -l <"$T/half.json") whole)" \
	refused "$T/half.json" $(($(wc -l <"$T/half.json") + 1))
head -n -1 "$T/run.json" >"$T/nofinal.json"
check "no final record: exit 2 at the last line" refused "$T/nofinal.json" "$(wc -l <"$T/nofinal.json")"
{ head -n 2 "$T/run.json"; echo 'this is not json'; tail -n 1 "$T/run.json"; } >"$T/garbage.json"
check "a garbage line: exit 2 at line 3" refused "$T/garbage.json" 3
{ head -n 1 "$T/run.json"; echo '{"hello": "world"}'; } >"$T/foreign.json"
check "a record that is not latbpf's: exit 2 at line 2" refused "$T/foreign.json" 2
check "a missing file: exit 2" refused "$T/nope.json" 0
# (e) a hostile file: the final record edited; no crash, nothing but
# latbpf's own bytes on the terminal
hostile() { # hostile NAME JQ_FILTER_ON_THE_FINAL_RECORD
	{ head -n -1 "$T/run.json"; tail -n 1 "$T/run.json" | jq -c "$2"; } >"$T/$1.json"
	timeout 20 "$LATBPF" report "$T/$1.json" >"$T/$1.out" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}
n=$(wc -l <"$T/run.json")
hostile esckey '.sched["\u001b]0;pwn\u0007"] = 1'
check "a key with an escape: exit 2 at the final line" refused "$T/esckey.json" "$n"
hostile esctitle '.layout.nodes["sched.runq"].title = "\u001b[2Jx"'
check "a layout title with an escape: exit 2 at the final line" refused "$T/esctitle.json" "$n"
hostile longkey '.sched[("k" * 2000)] = {"x": 1}'
check "a 2000-byte key: exit 2 at the final line" refused "$T/longkey.json" "$n"
hostile keep '.layout.nodes["hiccup.events"].keep = -1 | .layout.nodes["hiccup.events"].keep_short = -5'
hostile baseline '.baseline = {"results": [{"name": "\u001b[2J", "hist": 123, "cycles": "x"}], "tsc": {"flags": [1, 2]}}'
hostile decimals '.layout.nodes["self.cpu_pct"].decimals = 2000000000'
for h in keep baseline decimals; do
	check "$h: read without a crash (exit $(cat "$T/$h.rc"), 0 or 2) and no escape on stdout" \
		bash -c "rc=\$(cat '$T/$h.rc'); [ \$rc -eq 0 -o \$rc -eq 2 ] && ! grep -q \$'\\x1b' '$T/$h.out'"
done

timeout 10 "$LATBPF" report >/dev/null 2>"$T/err"
check "no file: usage, exit 2" bash -c "[ $? -eq 2 ] && grep -q 'Usage: latbpf report' '$T/err'"
timeout 10 "$LATBPF" report --bogus "$T/run.json" >/dev/null 2>"$T/err"
check "an unknown option: exit 2" bash -c "[ $? -eq 2 ] && grep -q 'Usage: latbpf report' '$T/err'"

echo "1..$_n"
[ "$_fail" -eq 0 ]

#!/usr/bin/env bash
# Hostile process names, from the kernel to every output. The target's comm
# holds CSI and OSC escapes and a BEL; three SCHED_FIFO burners on its CPU,
# its hiccup intruders, hold an 8-bit CSI, a C1 CSI in UTF-8, quotes,
# backslashes, CR/LF/tab, DEL and invalid UTF-8 (prctl(PR_SET_NAME) takes
# any bytes). Two latbpf watch them at once: one with --no-tui, one with the
# live view in tmux. Every JSON line parses with node's JSON.parse and holds
# each name, decoded, as the kernel has it (ill-formed bytes as U+FFFD); the
# --no-tui output and stderr are printable ASCII with the names as \xNN;
# the bytes written to the terminal hold no escape sequence but latbpf's
# own, and no C1. Then lat_json_str's 100,000 random hostile names
# (tests/unit/test_escape.c) through JSON.parse.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || cannot_run "needs 2 CPUs"
for tool in node tmux jq perl; do
	command -v $tool >/dev/null || cannot_run "$tool missing (tools/install-deps.sh)"
done
[ -x "$O/tests/test_escape.t" ] || cannot_run "$O/tests/test_escape.t missing (make)"
# the test's own commands (bash, latbpf, tmux) on CPU 0, off the target's
taskset -pc 0 $$ >/dev/null || cannot_run "taskset failed"
export LC_ALL=C

# comm is 15 bytes at most
EVIL_T=$'\e[2J\e]0;pwn\a'
EVIL=($'\x9b6n\xc2\x9bq"\\\n' $'caf\xc3\xa9\xff\xc3(\xed\xa0\x80\r' $'\a\x7f\x01x\ty\'z')
# each as JSON.parse must return it (JSON text), and as the terminal shows it
WANT_T='"\u001b[2J\u001b]0;pwn\u0007"'
WANT=('"\ufffd6n\u009bq\"\\\n"' '"caf\u00e9\ufffd\ufffd(\ufffd\ufffd\ufffd\r"' '"\u0007\u007f\u0001x\ty'"'"'z"')
TERM_T='\x1b[2J\x1b]0;pwn\x07'
TERMS=('\x9b6n\xc2\x9bq"\\x0a' 'caf\xc3\xa9\xff\xc3(\xed\xa0\x80\x0d' '\x07\x7f\x01x\x09y'"'"'z')

start_work target --cpu 1 --comm "$EVIL_T" sleep --sleep 1ms --count 2500
target=$WORK_PID
burners=()
for k in 0 1 2; do
	start_work "b$k" --cpu 1 --fifo --comm "${EVIL[$k]}" burner --period 100ms --burst 3ms --for 3s
	burners+=("$WORK_PID")
done
check "the workloads carry the names (/proc/PID/comm)" \
	test "$(head -c 15 /proc/"$target"/comm)" = "$EVIL_T" -a "$(head -c 15 /proc/"${burners[1]}"/comm)" = "${EVIL[1]}"

OPTS=(--pid "$target" --probes sched,hiccup --per-thread --threshold 1ms)
start_latbpf text "${OPTS[@]}" --no-tui --json "$T/text.json"
ok $? "--no-tui latbpf attached"
S=latbpf-hostile-$$
tmux -L "$S" new-session -d -s "$S" -x 200 -y 150 \
	"'$LATBPF' ${OPTS[*]} --json '$T/tui.json' 2>'$T/tui.err'; echo rc=\$? >'$T/tui.rc'; sleep 30"
_pids+=($(tmux -L "$S" display -p -t "$S" '#{pane_pid}'))
tmux -L "$S" pipe-pane -t "$S" -o "cat >>'$T/raw'"
wait_for "$T/tui.err" '^latbpf: attached' 15
ok $? "live-view latbpf attached"
kill -USR1 "$target" "${burners[@]}"
wait_for "$T/target.work" '^sleeps=' 30
sleep 1.2	# one more frame
tmux -L "$S" capture-pane -p -t "$S" >"$T/frame"
tmux -L "$S" send-keys -t "$S" q
for ((i = 0; i < 100; i++)); do [ -s "$T/tui.rc" ] && break; sleep 0.05; done
stop "$LAT_PID"
ok $? "--no-tui latbpf exits 0"
check "live-view latbpf exits 0 on q" grep -qx 'rc=0' "$T/tui.rc"
tmux -L "$S" kill-server 2>/dev/null

# JSON, read by node: strict UTF-8, JSON.parse on every line, no raw
# control or C1 character in the text, and every name found decoded
# shellcheck disable=SC2016
js='
const fs = require("fs");
const [file, ...want] = process.argv.slice(1);
const r = { lines: 0, bad: 0, utf8: true, raw: 0, found: [] };
let text = "";
try { text = new TextDecoder("utf-8", { fatal: true }).decode(fs.readFileSync(file)); }
catch (e) { r.utf8 = false; }
r.raw = (text.match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g) || []).length;
const names = new Set();
const walk = (v, k) => {
	if (typeof v === "string" && (k === "name" || k === "comm")) names.add(v);
	else if (v && typeof v === "object") for (const [kk, vv] of Object.entries(v)) walk(vv, kk);
};
for (const line of text.split("\n").filter(l => l.length)) {
	r.lines++;
	try { walk(JSON.parse(line)); } catch (e) { r.bad++; }
}
r.found = want.map(w => names.has(JSON.parse(w)));
console.log(JSON.stringify(r));
'
holds() { jq -e "$2" <<<"$1" >/dev/null; }	# holds JSON JQ-EXPR
for run in text tui; do
	res=$(node -e "$js" "$T/$run.json" "$WANT_T" "${WANT[@]}")
	diag "$run.json: $res"
	check "$run: every JSON line parses with JSON.parse, as strict UTF-8 ($res)" \
		holds "$res" '.utf8 and .bad == 0 and .lines >= 3 and .raw == 0'
	check "$run: the target's name and the three intruders' round-trip, decoded" \
		holds "$res" '.found == [true, true, true, true]'
	check "$run: escaped in the JSON text itself (\\u001b, not ESC)" grep -qF '\u001b[2J\u001b]0;pwn\u0007' "$T/$run.json"
done
pids=$(IFS=,; echo "${burners[*]}")
check "the three burners are among CPU 1's intruders ($pids)" \
	bash -c "jq -e 'select(.final) | [.hiccup.cpus[] | select(.cpu == 1) | .top[].pid] | contains([$pids])' '$T/text.json' >/dev/null"

# text: nothing but printable ASCII and newlines, the names as \xNN
ascii() { ! LC_ALL=C grep -q '[^ -~]' "$1"; }
check "--no-tui stdout: printable ASCII only ($(wc -l <"$T/text.out") lines)" ascii "$T/text.out"
check "--no-tui stderr: printable ASCII only" ascii "$T/text.err"
check "--no-tui: the target's name shown as \\xNN" grep -qF "$TERM_T" "$T/text.out"
for k in 0 1 2; do
	check "--no-tui: intruder $k's name shown as \\xNN (${TERMS[$k]})" grep -qF "${TERMS[$k]}" "$T/text.out"
done

# the terminal: every escape sequence is one of latbpf's own (tty.c), and
# nothing else is outside printable ASCII, CR and LF
# shellcheck disable=SC2016
pl='
my $n = () = /\e\[H/g;
s/\e\[(\?1049[hl]|\?25[hl]|H|K|J)//g;
if (/([^\x20-\x7e\r\n])/g) {
	my $at = pos() - 1;
	printf "byte 0x%02x at %d: %s\n", ord($1), $at, join(" ", map { sprintf "%02x", ord } split //, substr($_, $at > 20 ? $at - 20 : 0, 40));
	exit 1;
}
print "$n frames\n";
'
check "live view: frames were drawn and captured ($(LC_ALL=C grep -c $'\e\\[H' "$T/raw" 2>/dev/null) with a home)" \
	test "$(LC_ALL=C grep -c $'\e\\[H' "$T/raw")" -ge 2
res=$(perl -0777 -ne "$pl" "$T/raw")
check "live view: no escape sequence but latbpf's own, no C1, no BEL ($res)" \
	grep -q ' frames$' <<<"$res"
check "live view: the target's name shown as \\xNN" grep -qF "$TERM_T" "$T/frame"
seen=0
for k in 0 1 2; do grep -qF "${TERMS[$k]}" "$T/frame" && seen=$((seen + 1)); done
check "live view: the intruders' names shown as \\xNN ($seen of 3 on screen)" test "$seen" -ge 1

# lat_json_str on 100,000 random hostile names, through JSON.parse: each
# means its input, with every ill-formed byte as U+FFFD (node's decoder
# makes one U+FFFD of an ill-formed run: runs are compared as one)
LATBPF_ESCAPE_JSON=$T/esc.ndjson "$O/tests/test_escape.t" >"$T/esc.tap"
check "test_escape.t wrote its cases" test "$(wc -l <"$T/esc.ndjson")" -eq 100000
# shellcheck disable=SC2016
res=$(node -e '
const fs = require("fs");
let n = 0, bad = 0, first = "";
for (const line of fs.readFileSync(process.argv[1], "utf8").split("\n")) {
	if (!line) continue;
	n++;
	try {
		const c = JSON.parse(line);
		const want = new TextDecoder("utf-8", { ignoreBOM: true }).decode(Buffer.from(c.hex, "hex")).replace(/\ufffd+/g, "\ufffd");
		if (c.json.replace(/\ufffd+/g, "\ufffd") !== want) throw new Error("differs");
	} catch (e) { if (!bad++) first = line; }
}
console.log(n + " parsed, " + bad + " not" + (bad ? ": " + first : ""));
' "$T/esc.ndjson")
check "node: the 100,000 JSON strings parse and mean their names ($res)" \
	grep -qx '100000 parsed, 0 not' <<<"$res"
done_testing

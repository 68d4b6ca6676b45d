#!/usr/bin/env bash
# The command line, without root: --help equals the README's usage block,
# and bad values are usage errors (exit 2) with a message.
. "$(dirname "$0")/lib.sh"

"$LATBPF" --help >"$T/help" 2>&1
ok $? "--help exits 0"
sed -n '/^<!-- help/,/^<!-- \/help -->/p' README.md | sed '1,2d;$d' | sed '$d' >"$T/readme-help"
check "--help is the README's usage block" diff -u "$T/readme-help" "$T/help"
for opt in --pid --tid --probes --interval --duration --threshold --per-thread --per-cpu --per-remote \
	--json --hlog --prometheus --no-tui -v --version --help "bench"; do
	check "--help mentions $opt" grep -q -- "$opt" "$T/help"
done
"$LATBPF" --version >"$T/ver"
check "--version: 'latbpf VERSION (COMMIT)'" grep -qE '^latbpf [0-9]+\.[0-9]+\.[0-9]+ \(' "$T/ver"

while IFS='|' read -r args msg; do
	# shellcheck disable=SC2086
	timeout 10 "$LATBPF" $args >"$T/o" 2>&1
	rc=$?
	check "'latbpf $args': exit 2 ($rc)" test $rc -eq 2
	check "'latbpf $args': says '$msg'" grep -qF -- "$msg" "$T/o"
done <<'CASES'
--interval 5|missing unit in '5'
--interval 5ms|--interval must be at least 10ms
--duration soon|bad duration 'soon'
--pid abc|bad pid list 'abc'
--pid 0|bad pid list '0'
--tid 1,,2|bad tid list '1,,2'
--probes sched,disk|unknown probe family 'disk'
--frobnicate|unknown option '--frobnicate'
--json|option '--json' needs a value
sleep 1|a command goes after --
--pid 1 -- true|exclude each other
CASES
done_testing

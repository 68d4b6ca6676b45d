#!/usr/bin/env bash
# The man pages (man/*.8) against the binary, without root: each page's
# options are the same set as its command's --help (latbpf, latbpf bench,
# latbpf report), groff and man-db read the pages without a warning, their
# version is the binary's, and the environment knobs are the README's.
# Then the bash completion (completion/latbpf.bash) run by bash-completion
# itself: options, families, subcommands, benchmark names and pids from the
# binary it completes.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
for tool in man groff bash; do
	check "$tool is installed (tools/install-deps.sh)" command -v "$tool"
done
check "bash-completion is installed (tools/install-deps.sh)" \
	test -r /usr/share/bash-completion/bash_completion

# the options of a man page: the tags of its .TP entries ("\-p", "\-\-pid")
man_opts() {
	awk '/^\.TP/ { tag = 1; next } tag { print; tag = 0 }' "$1" | sed 's/\\-/-/g' |
		grep -oE -- '--?[a-zA-Z][a-zA-Z-]*' | grep -E -- '^(--..|-.$)' | sort -u
}
# the options of an option table in --help: "  -p, --pid PID", "      --json"
help_opts() {
	sed -nE 's/^ {1,6}(-[a-zA-Z], )?(--[a-z][a-z-]*).*/\1 \2/p' | tr -d ',' | tr ' ' '\n' |
		sed '/^$/d' | sort -u
}
compare() { # NAME MAN_LIST HELP_LIST
	local only_man only_help
	only_man=$(comm -23 "$2" "$3" | paste -sd' ')
	only_help=$(comm -13 "$2" "$3" | paste -sd' ')
	diag "$1: $(wc -l <"$2") options in the page, $(wc -l <"$3") in --help"
	check "$1: the man page and --help list the same options (page only: '${only_man}'; --help only: '${only_help}')" \
		test -z "$only_man$only_help" -a -s "$2"
}

"$LATBPF" --help | help_opts >"$T/help.trace"
man_opts man/latbpf.8 >"$T/man.trace"
compare "latbpf" "$T/man.trace" "$T/help.trace"
"$LATBPF" bench --help | help_opts >"$T/help.bench"
man_opts man/latbpf-bench.8 >"$T/man.bench"
compare "latbpf bench" "$T/man.bench" "$T/help.bench"
# report's --help has no table: its usage line
"$LATBPF" report --help | head -1 | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$T/help.report"
man_opts man/latbpf-report.8 >"$T/man.report"
compare "latbpf report" "$T/man.report" "$T/help.report"

# what lintian runs: man-db through groff with warnings on
for page in man/*.8; do
	LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 timeout 30 man --warnings -E UTF-8 -l -Tutf8 -Z \
		"$page" >"$T/man.out" 2>"$T/man.err"
	ok $? "man reads $page"
	check "$page: no groff warning ($(head -2 "$T/man.err" | tr '\n' ' '))" test ! -s "$T/man.err"
	check "$page: NAME, SYNOPSIS, DESCRIPTION, OPTIONS or EXAMPLES, SEE ALSO" bash -c \
		"grep -q '^\.SH NAME' $page && grep -q '^\.SH SYNOPSIS' $page && grep -q '^\.SH DESCRIPTION' $page && grep -q '^\.SH SEE ALSO' $page"
done
version=$("$LATBPF" --version | awk '{ print $2 }')
for page in man/*.8; do
	check "$page names latbpf $version" grep -q "^\.TH .*\"latbpf $version\"" "$page"
done
check "every page has an EXIT STATUS" bash -c 'for p in man/*.8; do grep -q "^\.SH EXIT STATUS" "$p" || exit 1; done'

# the environment knobs: the README's list is the man page's
sed -n '/^## Environment/,/^## /p' README.md | grep -oE '`LATBPF_[A-Z_]+' | tr -d '`' | sort -u >"$T/env.readme"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' man/latbpf.8 | grep -oE 'LATBPF_[A-Z_]+' | sort -u >"$T/env.man"
check "the README's environment knobs are latbpf(8)'s ($(comm -3 "$T/env.readme" "$T/env.man" | paste -sd' '))" \
	bash -c "[ -s '$T/env.readme' ] && cmp -s '$T/env.readme' '$T/env.man'"
# and the exit statuses are main.c's four
check "latbpf(8) has the four exit statuses" bash -c \
	"sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' man/latbpf.8 | grep -c '^\.B [0-3]$' | grep -qx 4"

# The completion, with bash-completion's own helpers, completing this build
mkdir -p "$T/bin"
ln -s "$PWD/$LATBPF" "$T/bin/latbpf"
cat >"$T/comp.sh" <<'EOF'
. /usr/share/bash-completion/bash_completion
. completion/latbpf.bash
# complete WORD...: what TAB offers for the last word, one per line
complete_() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_latbpf 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}"
}
EOF
comp() { PATH="$T/bin:$PATH" timeout 20 bash -c ". '$T/comp.sh'; complete_ latbpf $(printf '%q ' "$@")" 2>/dev/null; }
check "complete -p latbpf: _latbpf" bash -c ". /usr/share/bash-completion/bash_completion; . completion/latbpf.bash; complete -p latbpf | grep -q -- '-F _latbpf latbpf\$'"
out=$(comp --pro)
check "--pro<TAB>: --probes and --prometheus ($(echo $out))" test "$(echo $out)" = "--probes --prometheus"
out=$(comp --web)
check "--web<TAB>: --web-config ($(echo $out))" test "$(echo $out)" = "--web-config"
out=$(comp '')
check "<TAB> first: the subcommands ($(echo $out))" test "$(echo $out)" = "bench report"
# every option of --help is offered for a bare dash
comp - | sort -u >"$T/comp.opts"
check "-<TAB>: every option of --help ($(comm -23 "$T/help.trace" "$T/comp.opts" | paste -sd' ') missing)" \
	test -z "$(comm -23 "$T/help.trace" "$T/comp.opts")"
families=$("$LATBPF" --help | awk '/--probes LIST/ { getline; gsub(/ /, ""); print; exit }' | tr , ' ')
out=$(comp --probes '')
check "--probes <TAB>: the families and all ($(echo $out))" test "$(echo $out | tr ' ' '\n' | sort | paste -sd' ')" = "$(echo $families all | tr ' ' '\n' | sort | paste -sd' ')"
out=$(comp --probes sched,h)
check "--probes sched,h<TAB>: sched,hiccup ($(echo $out))" test "$out" = "sched,hiccup"
"$LATBPF" bench --list | awk '/^[a-z]/ { print $1 }' | sort >"$T/bench.names"
comp bench '' | sort >"$T/comp.bench"
check "bench <TAB>: every benchmark of --list ($(comm -23 "$T/bench.names" "$T/comp.bench" | paste -sd' ') missing)" \
	bash -c "[ -s '$T/bench.names' ] && [ -z \"\$(comm -23 '$T/bench.names' '$T/comp.bench')\" ]"
check "bench <TAB>: compare and the groups too" bash -c "grep -qx compare '$T/comp.bench' && grep -qx cpu '$T/comp.bench' && grep -qx fs '$T/comp.bench'"
out=$(comp bench ctx)
check "bench ctx<TAB>: ctxsw and its results ($(echo $out))" bash -c "echo '$out' | grep -qx ctxsw && echo '$out' | grep -qx ctxsw_thread"
comp bench --du >"$T/c" && check "bench --du<TAB>: --duration" grep -qx -- --duration "$T/c"
comp report --h >"$T/c" && check "report --h<TAB>: --html" grep -qx -- --html "$T/c"
sleep 30 &
sp=$!
_pids+=("$sp")
out=$(comp --pid "${sp:0:$((${#sp} - 1))}")
check "--pid <TAB>: a running pid ($sp among: $(echo $out | cut -c1-80))" bash -c "echo '$out' | grep -qx '$sp'"
out=$(comp --pid "1,$sp")
check "--pid 1,PID<TAB>: the list kept ($(echo $out))" test "$out" = "1,$sp"
out=$(comp --tid "$sp")
check "--tid <TAB>: a thread's id" bash -c "echo '$out' | grep -qx '$sp'"
out=$(comp -- ech)
check "-- ech<TAB>: a command (echo)" bash -c "echo '$out' | grep -qx echo"
kill "$sp" 2>/dev/null
done_testing

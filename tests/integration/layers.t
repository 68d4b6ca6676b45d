#!/usr/bin/env bash
# The layers of src/ (docs/internals.md, "Where the code lives"), read from
# the #include lines alone; no root, no BPF. Each file's includes name their
# folder; a folder includes only the layers below it:
#   core      -> core
#   families  -> core, families          (never output)
#   output    -> core, output            (never families)
#   bench     -> core, output, bench     (never the trace command)
#   cli       -> core, families, output, bench, cli
#   main.c    -> cli, bench, core
# and the modules (a .c with its .h) include each other in no circle.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1

# every "file folder/included.h" edge of src/
edges=$T/edges
for f in $(find src -name '*.[ch]' | sort); do
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		echo "${f#src/} $inc"
	done
done >"$edges"
check "src/ has #include lines to judge ($(wc -l <"$edges") of them)" test "$(wc -l <"$edges")" -gt 100

# a project header written without its folder (or with ../) cannot be judged
bare=$(awk '$2 !~ /^(core|families|output|cli|bench)\/[a-z_0-9]+\.h$/ &&
	    $2 !~ /^latbpf\// && $2 !~ /\.skel\.h$/ && $2 != "version.h"' "$edges")
check "every include of src/ names its folder (latbpf/, skeletons and version.h aside)" test -z "$bare"
[ -z "$bare" ] || diag "$bare"

allowed() { # FROM-FOLDER TO-FOLDER
	case "$1:$2" in
	core:core) return 0 ;;
	families:core | families:families) return 0 ;;
	output:core | output:output) return 0 ;;
	bench:core | bench:output | bench:bench) return 0 ;;
	cli:core | cli:families | cli:output | cli:bench | cli:cli) return 0 ;;
	main.c:cli | main.c:bench | main.c:core) return 0 ;;
	esac
	return 1
}
up=
while read -r from inc; do
	case $inc in latbpf/* | *.skel.h | version.h) continue ;; esac
	ff=${from%%/*}
	allowed "$ff" "${inc%%/*}" || up="$up$from -> $inc"$'\n'
done <"$edges"
check "no include runs up a layer or across families/output" test -z "$up"
[ -z "$up" ] || diag "$up"

# modules: src/x/y.c and src/x/y.h are one node x/y; tsort finds a circle
awk '$2 !~ /^latbpf\// && $2 !~ /\.skel\.h$/ && $2 != "version.h" {
	a = $1; sub(/\.[ch]$/, "", a); b = $2; sub(/\.h$/, "", b)
	if (a != b) print a, b }' "$edges" >"$T/graph"
tsort "$T/graph" >/dev/null 2>"$T/loop"
check "the modules of src/ include each other in no circle" test ! -s "$T/loop"
[ -s "$T/loop" ] && diag "$(cat "$T/loop")"

# the check itself: an arrow up and a circle are caught
printf 'core/x.c families/y.h\n' | while read -r from inc; do
	allowed "${from%%/*}" "${inc%%/*}"
done
ok $((! $?)) "the rule refuses core including families (a check that can fail)"
printf 'a b\nb a\n' | tsort >/dev/null 2>&1
ok $((! $?)) "tsort reports a circle of two (a check that can fail)"

done_testing

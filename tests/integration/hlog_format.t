#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The .hlog format itself, without root or BPF: tests/hlog/hlog_gen.c
# writes known histograms through src/hlog.c (7 tags x 4 intervals: 100k
# seeded random values, every power-of-two edge up to 2^44-1, overflow past
# 2^44, empty histograms, a single value, zeros, a tag with bad characters),
# and readers nobody here wrote read them back: HdrHistogram's Java library
# and npm's hdr-histogram-js (tests/hlog/readers.sh). Per tag, intervals and
# counts are exact and p50/p99/max within one slot of latbpf's own
# lat_hist_percentile(); the bytes are what Java's encoder writes; an
# overflow of 2^64-1 stays readable; a log cut mid-line reads to its last
# whole line; HistogramLogProcessor merges two logs.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/hlog/readers.sh"

for tool in gcc java node; do
	command -v "$tool" >/dev/null || cannot_run "$tool is missing (tools/install-deps.sh)"
done
[ -f "$HDR_JAR" ] || cannot_run "$HDR_JAR is missing (tools/install-deps.sh)"
[ -f "$HLOG_DIR/npm/node_modules/hdr-histogram-js/package.json" ] ||
	cannot_run "hdr-histogram-js is missing from tests/hlog/npm (tools/install-deps.sh)"

timeout 120 gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE \
	-I"$ROOT/include" -I"$ROOT/src" -I"$ROOT/src/core" -I"$ROOT/src/output" \
	"$ROOT/tests/hlog/hlog_gen.c" "$ROOT/src/output/hlog_format.c" \
	"$ROOT/src/core/hist.c" -lz -lm -o "$T/hlog_gen" 2>"$T/gcc.err"
ok $? "hlog_gen builds with src/output/hlog_format.c and src/core/hist.c ($(head -c 300 "$T/gcc.err"))"
timeout 60 "$T/hlog_gen" "$T/a.hlog" 1 >"$T/expect"
ok $? "hlog_gen writes a log of known histograms"
nlines=$(awk '$1 == "lines" { print $2 }' "$T/expect")

check "header: comment, format 1.3, StartTime, BaseTime, legend, as Java's HistogramLogWriter" \
	diff -u - <(head -5 "$T/a.hlog") <<'EOF'
#latbpf hlog_gen
#[Histogram log format version 1.3]
#[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]
#[BaseTime: 1700000000.123 (seconds since epoch)]
"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
EOF
# the tag: printable ASCII but space and comma; HISTF: base64 of the
# compressed V2 cookie 0x1c849314
check "every other line is Tag=<printable>,<start>,<length>,<max ms>,<base64>, $nlines of them" \
	test "$(tail -n +6 "$T/a.hlog" | LC_ALL=C awk -F, -v n='^[0-9]+[.][0-9][0-9][0-9]$' \
		'NF == 5 && $1 ~ /^Tag=[[:graph:]]+$/ && $2 ~ n && $3 ~ n && $4 ~ n &&
		 $5 ~ /^HISTF[A-Za-z0-9+\/]+=?=?$/' | wc -l)" \
	= "$nlines" -a "$(wc -l <"$T/a.hlog")" = "$((nlines + 5))"

# same EXPECTED OUT: every tag there, intervals and count exact, p50, p99
# and max within one slot (a slot is at most 1/16 of its value wide)
same() {
	local tag n count p50 p99 max bad=0 got gn gc g50 g99 gmax
	while read -r tag n count p50 p99 max; do
		got=$(awk -v t="$tag" '$1 == t' "$2")
		if [ "$tag" = lines ]; then
			[ "$got" = "lines $n" ] || { diag "'$got', want lines $n"; bad=1; }
			continue
		fi
		read -r _ gn gc g50 g99 gmax <<<"$got"
		if [ "$gn $gc" != "$n $count" ] || ! is_num "$g50" || ! is_num "$g99" || ! is_num "$gmax"; then
			diag "$tag: '$got', want $n intervals, count $count"; bad=1; continue
		fi
		awk -v a="$g50 $g99 $gmax" -v b="$p50 $p99 $max" 'BEGIN { split(a, x); split(b, y)
			for (i = 1; i <= 3; i++) { d = x[i] - y[i]; if (d < 0) d = -d
				m = x[i] > y[i] ? x[i] : y[i]; if (d > m / 16 + 1) exit 1 } }' ||
			{ diag "$tag: p50 p99 max '$g50 $g99 $gmax', want '$p50 $p99 $max' within a slot"; bad=1; }
	done <"$1"
	[ "$bad" -eq 0 ]
}

for r in java js; do
	"hlog_$r" "$T/a.hlog" >"$T/$r.out" 2>"$T/$r.err"
	ok $? "$r: the reader runs ($(head -c 300 "$T/$r.err"))"
	check "$r: all $nlines histograms decode, with no error" \
		test "$(awk '$1 == "lines" { print $2 }' "$T/$r.out")" = "$nlines" -a ! -s "$T/$r.err"
	check "$r: each tag's intervals and count exact, p50/p99/max within a slot of latbpf's" \
		same "$T/expect" "$T/$r.out"
done
check "the tag with a comma, spaces, CR/LF, a tab and U+0085 reads as 'bad_tag_x=y_z__w__'" \
	grep -q '^bad_tag_x=y_z__w__ 4 1 ' "$T/java.out"

timeout 120 java -cp "$HDR_JAR" "$HLOG_DIR/HlogBytes.java" "$T/a.hlog" >"$T/bytes.out" 2>&1
ok $? "every line's V2 bytes are what Java's encodeIntoByteBuffer writes ($(head -c 300 "$T/bytes.out"))"

# an overflow of 2^64-1 (a broken clock): readable by both, no count lost,
# its slot capped at 2^53-1, the largest value hdr-histogram-js holds
timeout 60 "$T/hlog_gen" "$T/x.hlog" 1 0xffffffffffffffff >"$T/x.expect"
for r in java js; do
	"hlog_$r" "$T/x.hlog" >"$T/x.$r" 2>"$T/x.$r.err"
	check "$r: overflow of 2^64-1: count 1005 exact, max read as 2^53-1 ($(grep overflow "$T/x.$r"))" \
		grep -q '^overflow 4 1005 1535 2047 9007199254740991$' "$T/x.$r"
	check "$r: overflow of 2^64-1: all $nlines lines decode" grep -qx "lines $nlines" "$T/x.$r"
done

# SIGKILL mid-write: cut the last line (rand's fourth interval) anywhere,
# and the readers read exactly the lines before it
size=$(stat -c %s "$T/a.hlog")
cut0=$((size - $(tail -n 1 "$T/a.hlog" | wc -c)))
head -c "$cut0" "$T/a.hlog" >"$T/whole.hlog"
for r in java js; do
	"hlog_$r" "$T/whole.hlog" >"$T/whole.$r" 2>/dev/null
done
check "the log without its last line: rand has 3 intervals, 75000 values, $((nlines - 1)) lines" \
	bash -c "grep -q '^rand 3 75000 ' '$T/whole.java' && grep -qx 'lines $((nlines - 1))' '$T/whole.java'"
# in the tag, after a number, in the max, in the base64 (a whole and a
# broken group of 4), and all but its last character
b64=$(tail -n 1 "$T/a.hlog" | grep -bo HISTF | cut -d: -f1)
for at in 3 14 25 $((b64 + 40)) $((b64 + 41)) $((size - 2 - cut0)); do
	head -c $((cut0 + at)) "$T/a.hlog" >"$T/cut.hlog"
	for r in java js; do
		"hlog_$r" "$T/cut.hlog" >"$T/cut.$r" 2>"$T/cut.$r.err"
		check "$r: cut $at bytes into the last line: the whole lines before it, nothing more" \
			cmp -s "$T/cut.$r" "$T/whole.$r"
	done
done

# two logs through HdrHistogram's HistogramLogProcessor as one stream (it
# reads one -i file, or standard input)
timeout 60 "$T/hlog_gen" "$T/b.hlog" 2 >"$T/b.expect"
for tag in rand overflow; do
	want=$(($(awk -v t=$tag '$1 == t { print $3 }' "$T/expect") + \
		$(awk -v t=$tag '$1 == t { print $3 }' "$T/b.expect")))
	got=$(hlog_merge "$T/a.hlog" "$T/b.hlog" $tag 2>"$T/merge.err")
	check "HistogramLogProcessor merges two logs: $tag count $got = $want ($(head -c 200 "$T/merge.err"))" \
		test "$got" = "$want"
done
done_testing

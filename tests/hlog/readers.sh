# SPDX-License-Identifier: GPL-2.0
# The .hlog readers the tests use, none of them latbpf's: HdrHistogram's
# Java library (Debian's libhdrhistogram-java) and npm's hdr-histogram-js
# (tools/install-deps.sh puts it in tests/hlog/npm). Each prints, per tag,
# "<tag> <intervals> <count> <p50> <p99> <max>" and "lines <n>".
HLOG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HDR_JAR=/usr/share/java/hdrhistogram.jar

hlog_java() { timeout 120 java -cp "$HDR_JAR" "$HLOG_DIR/HlogCheck.java" "$1"; }
hlog_js() { HLOG_NPM="$HLOG_DIR/npm" timeout 60 node "$HLOG_DIR/hlogcheck.js" "$1"; }
# hlog_merge A B TAG: the two logs through HistogramLogProcessor as one
# stream; prints the merged histogram's total count
hlog_merge() {
	local out
	out=$(mktemp -d)
	cat "$1" "$2" | timeout 120 java -cp "$HDR_JAR" org.HdrHistogram.HistogramLogProcessor \
		-tag "$3" -o "$out/merged" >/dev/null || { rm -rf "$out"; return 1; }
	sed -n 's/.*Total count *= *\([0-9]*\)\].*/\1/p' "$out/merged.hgrm"
	rm -rf "$out"
}

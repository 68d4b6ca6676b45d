#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every test: unit tests (pure C, no root) and integration tests (real BPF,
# real workloads, root). Each test file is bounded to 5 minutes. prove's
# summary is the last thing printed; when a test failed, the failed checks
# (their messages carry the figures) are repeated just above it, so that
# the tail of a CI log says what failed and by how much.
set -u
O=${1:-build}
export O
export PATH="$PATH:/usr/sbin:/sbin"
if [ "$(id -u)" -eq 0 ]; then
	mountpoint -q /sys/kernel/tracing 2>/dev/null ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
else
	echo "tests/run.sh: not root: the BPF integration tests will fail (sudo make test;" \
		"LATBPF_ALLOW_SKIP=1 makes them skips instead)" >&2
fi
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp "${TMPDIR:-/tmp}/latbpf-test.XXXXXX")
trap 'rm -f "$log"' EXIT
prove --failures --exec 'timeout -s KILL 300' --timer "$O"/tests/*.t tests/integration/*.t |
	tee "$log"
st=${PIPESTATUS[0]}
if [ "$st" != 0 ]; then
	echo
	echo "The failed checks again:"
	awk '/^\[[0-9:]+\] [^ ]+\.t \.+/ { f = $2 } /^not ok / { print f ": " $0 }' "$log"
	grep -E '^(Files=|Result:)' "$log"
fi
exit "$st"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every test: unit tests (pure C, no root) and integration tests (real BPF,
# real workloads, root). Each test file is bounded to 5 minutes. prove's
# summary is the last thing printed.
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
exec prove --exec 'timeout -s KILL 300' --timer "$O"/tests/*.t tests/integration/*.t

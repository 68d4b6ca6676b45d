#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make run`: latbpf starts the bundled demo target and traces it live
# (plain interval blocks when not on a terminal). Ends when the demo does.
set -eu
O=${1:-build}
SECONDS_=${DEMO_SECONDS:-20}
if [ "$(id -u)" -ne 0 ]; then
	echo "make run: loading BPF needs root: sudo make run" >&2
	exit 3
fi
mountpoint -q /sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
exec "$O/latbpf" -- "$O/tools/demo" --seconds "$SECONDS_"

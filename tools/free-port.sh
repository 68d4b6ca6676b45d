#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# free-port.sh: prints a TCP port on 127.0.0.1 that no socket uses, in any
# state, below the kernel's ephemeral range (a live connection's local port
# cannot be bound, SO_REUSEADDR or not, and a port below the range is never
# handed to a client); exit 1 after 100 tries. For the tests' servers
# (tests/integration/lib.sh: free_port) and tools/soak.sh.
lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[ "${lo:-0}" -gt 12000 ] || lo=32768
for ((i = 0; i < 100; i++)); do
	p=$((10000 + RANDOM % (lo - 10000)))
	ss -Htan "sport = :$p" | grep -q . || { echo "$p"; exit 0; }
done
exit 1

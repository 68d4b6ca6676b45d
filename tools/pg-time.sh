#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# PostgreSQL under pgbench, traced as issue 27's "Why" did it: a fresh
# PostgreSQL cluster (Debian's postgresql, the newest installed) on 127.0.0.1, pgbench's
# TPC-B-like load from CLIENTS clients over TCP for SECONDS, and
#   latbpf --pid POSTMASTER --children --per-thread
# around it. Prints where the client backends' wall time went (their causes
# summed over the backends pgbench was served by, each with its share), that
# those causes sum to the backends' wall time, and pgbench's own figures.
#   tools/pg-time.sh [BUILD_DIR]     (root; takes the machine for ~40 s)
#   env: CLIENTS (4) SECONDS_ (25) SCALE (10) PG (/usr/lib/postgresql/N/bin)
#        KEEP=1 keeps the work directory (the run's JSON, pgbench's output)
set -euo pipefail
O=${1:-build}
B=$(cd "$O" && pwd)
cd "$(dirname "$0")/.."
PG=${PG:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
CLIENTS=${CLIENTS:-4}
SECS=${SECONDS_:-25}
SCALE=${SCALE:-10}
[ "$(id -u)" -eq 0 ] || { echo "pg-time: needs root (latbpf)" >&2; exit 3; }
for c in "$PG/initdb" "$PG/pg_ctl" "$PG/pgbench" "$PG/psql" jq; do
	command -v "$c" >/dev/null || [ -x "$c" ] || { echo "pg-time: $c missing (tools/install-deps.sh)" >&2; exit 3; }
done
W=$(mktemp -d /tmp/latbpf-pg.XXXXXX)
chown postgres "$W"
PORT=$(tools/free-port.sh)
LAT=
stop() {
	[ -n "$LAT" ] && kill -INT "$LAT" 2>/dev/null && wait "$LAT" 2>/dev/null
	su postgres -c "$PG/pg_ctl -D $W/data -m immediate stop" >/dev/null 2>&1 || true
	[ "${KEEP:-0}" = 1 ] && echo "pg-time: kept $W" >&2 || rm -rf "$W"
}
trap stop EXIT
su postgres -c "$PG/initdb -D $W/data -A trust -U postgres" >"$W/initdb.log"
su postgres -c "$PG/pg_ctl -D $W/data -l $W/pg.log -w -o '-p $PORT -k $W -c listen_addresses=127.0.0.1' start" >/dev/null
su postgres -c "$PG/pgbench -i -s $SCALE -h 127.0.0.1 -p $PORT -U postgres postgres" >"$W/init.log" 2>&1
PM=$(head -1 "$W/data/postmaster.pid")
timeout -s INT $((SECS + 30)) "$B/latbpf" --pid "$PM" --children --probes all,time --per-thread --no-tui \
	--json "$W/run.json" >/dev/null 2>"$W/latbpf.err" &
LAT=$!
for ((i = 0; i < 300; i++)); do grep -q '^latbpf: attached' "$W/latbpf.err" && break; sleep 0.05; done
su postgres -c "$PG/pgbench -c $CLIENTS -j $CLIENTS -T $SECS -h 127.0.0.1 -p $PORT -U postgres postgres" \
	>"$W/pgbench.out" 2>&1 &
BENCH=$!
sleep 3
# the client backends serving pgbench, by the server's own account
su postgres -c "$PG/psql -h $W -p $PORT -U postgres -At -c \"select pid from pg_stat_activity
	where backend_type = 'client backend' and application_name = 'pgbench'\" postgres" >"$W/backends"
wait "$BENCH"
kill -INT "$LAT"
wait "$LAT" || true
LAT=
pids=$(paste -sd, "$W/backends")
echo "PostgreSQL $("$PG/postgres" -V | awk '{ print $3 }'), pgbench -c $CLIENTS -j $CLIENTS -T $SECS over TCP (scale $SCALE), latbpf --pid $PM --children"
grep -E '^(number of transactions actually processed|latency average|tps)' "$W/pgbench.out" | sed 's/^/  pgbench: /'
echo "  client backends (pg_stat_activity): $pids"
jq -r --arg pids "$pids" -f "$(dirname "$0")/pg-time.jq" "$W/run.json"

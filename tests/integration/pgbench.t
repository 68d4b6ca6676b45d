#!/usr/bin/env bash
# A real server nobody here wrote, as a new user would trace it: Debian's
# PostgreSQL under pgbench (4 clients, 25 s), latbpf --pid POSTMASTER
# --children with every family. Its figures must read right: every hiccup
# intruder, listed or in an event, has a name and a time; a CPU's lost
# share is a share (0..100 %) or, where no thread is pinned, not given;
# a wakeup onto an idle CPU is named for what it is.
. "$(dirname "$0")/lib.sh"
need_root
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/pgbench" ] && [ -x "$PGBIN/initdb" ] ||
	cannot_run "PostgreSQL missing (tools/install-deps.sh: postgresql)"
id postgres >/dev/null 2>&1 || cannot_run "no postgres user (tools/install-deps.sh: postgresql)"
SECS=${PGBENCH_SECONDS:-25}

# a throwaway cluster of the postgres user, on a unix socket in its
# directory only (no TCP)
D=$(mktemp -d /tmp/latbpf-pg.XXXXXX)
chown postgres: "$D"
pg() { timeout "$1" runuser -u postgres -- "${@:2}"; }
pgstop() { pg 60 "$PGBIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null 2>&1; rm -rf "$D"; }
trap 'pgstop; cleanup' EXIT
pg 300 "$PGBIN/initdb" -D "$D/data" -A trust -U postgres >"$T/initdb.log" 2>&1 ||
	cannot_run "initdb failed: $(tail -2 "$T/initdb.log")"
pg 120 "$PGBIN/pg_ctl" -D "$D/data" -l "$D/log" -w -t 100 \
	-o "-k $D -c listen_addresses='' -c shared_buffers=32MB" start >/dev/null ||
	cannot_run "postgres did not start: $(tail -2 "$D/log")"
PM=$(head -1 "$D/data/postmaster.pid")
pg 300 "$PGBIN/pgbench" -h "$D" -i -s 1 postgres >"$T/init.log" 2>&1
ok $? "pgbench -i: a database of scale 1 (postmaster $PM)"

start_latbpf pg --pid "$PM" --children --duration "${SECS}s" --no-tui --json "$T/pg.json"
pg $((SECS + 60)) "$PGBIN/pgbench" -h "$D" -c 4 -j 2 -T "$SECS" postgres >"$T/pgbench.out" 2>&1
for ((i = 0; i < 600; i++)); do
	kill -0 "$LAT_PID" 2>/dev/null || break
	sleep 0.1
done
stop "$LAT_PID"
rc=$?
J=$T/pg.json
tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$T/pgbench.out")
diag "pgbench: $(grep -E '^(number of transactions actually|latency average|tps)' "$T/pgbench.out" | tr '\n' ';')"
check "pgbench ran its transactions (${tx:-none})" num_le 1000 "${tx:-0}"
check "latbpf ran its ${SECS} s and exited 0 ($rc)" test "$rc" = 0
runq=$(final "$J" '.sched.runq.count')
check "the backends (children of the postmaster) were traced: $runq run-queue waits" \
	num_le "${tx:-1}" "$runq"

cpus='.hiccup.cpus[]'
diag "hiccup per CPU: $(final "$J" "[$cpus | \"cpu\(.cpu) pinned \(.pinned_tids | length) count \(.count) stolen \(.stolen_ns) lost \(.lost_pct) timer \(.timer) late \(.timer_ns)\"] | join(\"; \")")"
diag "top intruders: $(final "$J" "[$cpus | .cpu as \$c | .top[0:4][] | \"cpu\(\$c) \(.kind) '\(.name)' \(.count)x \(.total_ns)ns max \(.max_ns)\"] | join(\"; \")")"
diag "events: $(final "$J" '[.hiccup.events[] | "\(.comm) \(.hiccup) \(.duration_ns) timer \(.timer_late_ns) \(.kind) '"'"'\(.name)'"'"' \(.intruder_ns)"] | .[-8:] | join("; ")')"
diag "events by intruder kind: $(final "$J" '[.hiccup.events | group_by(.kind)[] | "\(.[0].kind) \(length)"] | join(", ")')"
ncpu=$(final "$J" "[$cpus] | length")
check "hiccups on the postmaster's CPUs ($ncpu CPUs)" num_le 1 "$ncpu"
badlost=$(final "$J" "[$cpus | select(.lost_pct != null and (.lost_pct < 0 or .lost_pct > 100)) | .cpu] | length")
nolost=$(final "$J" "[$cpus | select((.pinned_tids | length) == 0 and .watched == false and .lost_pct != null)] | length")
check "lost is a share, 0..100 %, where given ($badlost CPUs beyond)" test "$badlost" = 0
check "... and not given for CPUs no target thread is pinned to ($nolost given)" test "$nolost" = 0
ntop=$(final "$J" "[$cpus | .top[]] | length")
badtop=$(final "$J" "[$cpus | .top[] | select(.name == \"\" or .name == null or .total_ns == 0 or .max_ns == 0 or .count == 0)] | length")
check "every listed intruder has a name and a time ($badtop of $ntop without)" test "$badtop" = 0
nev=$(final "$J" '.hiccup.events | length')
badev=$(final "$J" '[.hiccup.events[] | select(.name == "" or .name == null or .intruder_ns == 0 or .duration_ns == 0)] | length')
check "every event's intruder has a name and a time ($badev of $nev without)" test "$badev" = 0
old=$(grep -c 'idle exit' "$J" "$T/pg.out" | awk -F: '{ s += $2 } END { print s + 0 }')
idle=$(final "$J" "[($cpus | .top[]), .hiccup.events[] | select(.kind == \"idle\") | .name] | unique | join(\",\")")
check "a wakeup onto an idle CPU is named for it ('${idle:-none}'), never '(idle exit)' ($old)" \
	test "$old" = 0 -a "${idle:-(CPU waking up)}" = "(CPU waking up)"
diag "summary's hiccup tables as printed:"
sed -n '/^=== whole run/,$p' "$T/pg.out" | grep -A30 -E '^hiccup' | head -60 | sed 's/^/  /' >&2
done_testing

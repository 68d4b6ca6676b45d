#!/usr/bin/env bash
# latbpf inside a pid namespace (#12, item 2), as in a container:
# `unshare --pid --fork --mount-proc`, latbpf and a known sleeper both
# inside, --pid with the sleeper's pid there (a small number the kernel
# does not use for it). Its sleeps are all counted; the JSON names the pid
# as given and the host's beside it, which the host's /proc confirms.
. "$(dirname "$0")/lib.sh"
need_root
command -v unshare >/dev/null || cannot_run "unshare missing (util-linux)"
progs0=$(tracing_progs)
N=300
# inside: the sleeper waits for SIGUSR1, latbpf attaches to it, then it runs
timeout -s KILL 180 unshare --pid --fork --mount-proc bash -c "
	'$LATWORK' --wait --comm nsworker sleep --sleep 5ms --count $N >'$T/w.work' 2>&1 &
	w=\$!
	for ((i = 0; i < 100; i++)); do grep -q '^ready' '$T/w.work' && break; sleep 0.05; done
	echo \"inside \$w\" >'$T/ids'
	'$LATBPF' --pid \$w --probes sched --per-thread --no-tui --json '$T/ns.json' \
		>'$T/ns.out' 2>'$T/ns.err' &
	l=\$!
	for ((i = 0; i < 2400; i++)); do grep -q '^latbpf: attached' '$T/ns.err' && break; sleep 0.05; done
	kill -USR1 \$w
	wait \$w
	kill -INT \$l
	wait \$l
	echo \"rc \$?\" >>'$T/ids'
" >"$T/unshare.out" 2>&1 &
_pids+=($!)
host=
for ((i = 0; i < 600; i++)); do
	host=$(pgrep -x nsworker | head -1)
	[ -n "$host" ] && break
	sleep 0.1
done
wait_for "$T/ids" '^rc ' 170
inside=$(awk '/^inside/ { print $2 }' "$T/ids")
rc=$(awk '/^rc/ { print $2 }' "$T/ids")
J=$T/ns.json
n=$(final "$J" '[.sched.threads[] | select(.comm == "nsworker") | .offcpu_sleep.count] | add // 0')
given=$(final "$J" '.run.target.pids | join(",")')
hp=$(final "$J" '.run.target.host_pids | join(",")')
diag "sleeper: pid $inside inside, $host on the host; latbpf (exit $rc) saw $n sleeps; target pids [$given], host_pids [$hp]; $(head -2 "$T/ns.err" | tr '\n' '|')"
check "latbpf inside the namespace exits 0" test "${rc:-x}" = 0
check "the pid inside ($inside) differs from the host's ($host)" \
	bash -c "[ -n '$inside' ] && [ -n '$host' ] && [ '$inside' != '$host' ]"
u=$(unseen_wakeups "$J")
check "every sleep of the sleeper counted ($n of $N, +-2 %, less $u unseen wakeups)" \
	between "$n" $((N * 98 / 100 - u)) $((N + 2))
check "the JSON gives the pid as given ($given)" test "$given" = "$inside"
check "... and the host's beside it ($hp = $host)" test "$hp" = "$host"
check "the text says both" grep -qE "target: pid $inside \(host $host\)" "$T/ns.err"
check "nothing left in the kernel" no_progs_above "$progs0"
done_testing

#!/usr/bin/env bash
# What this kernel has, against what latbpf says of it. The facts come from
# the kernel's own BTF (bpftool), not from latbpf: every family attaches
# where its tracepoints exist, and where one is missing the probe's status
# names it and what it costs (make test-kernels runs this on Debian's 6.1,
# which lacks filemap:mm_filemap_fault and tcp:tcp_sendmsg_locked).
# On PREEMPT_RT every interrupt handler runs in a kernel thread named
# irq/NN-name: hiccup must report those threads as IRQ intruders, with the
# IRQ number the thread's own name in /proc gives.
. "$(dirname "$0")/lib.sh"
need_root
btf_tracepoint sched_switch || cannot_run "no tracepoints in /sys/kernel/btf/vmlinux"
has() { btf_tracepoint "$1"; }
rt=0
preempt_rt && rt=1
diag "kernel $(uname -r), $(uname -v | cut -c1-60); PREEMPT_RT: $rt"

timeout 30 "$LATBPF" --probes sched,hiccup,fault,block,tcp --duration 2s --no-tui \
	--json "$T/all.json" -- "$LATWORK" sleep --sleep 1ms --count 100 >"$T/all.out" 2>"$T/all.err"
r=$?
ok $r "every family on this kernel: exit 0"
[ $r = 0 ] || diag "$(cat "$T/all.err")"
probe() { final "$T/all.json" ".probes.$1"; }
for f in sched hiccup block; do
	check "$f: $(probe $f)" test "$(probe $f)" = "attached (tp_btf)"
done
if ! has page_fault_user; then
	check "fault: no exceptions:page_fault_user (x86 only): $(probe fault)" \
		bash -c "[[ '$(probe fault)' == unavailable* ]]"
elif has mm_filemap_fault; then
	check "fault: $(probe fault)" test "$(probe fault)" = "attached (tp_btf)"
else
	check "fault without filemap:mm_filemap_fault says so: $(probe fault)" \
		test "$(probe fault)" = "attached (tp_btf; no filemap:mm_filemap_fault)"
fi
# tcp: each tracepoint the kernel lacks is named, none it has
tcp=$(probe tcp)
good=1
for tp in tcp_sendmsg_locked tcp_rcv_space_adjust inet_sock_set_state tcp_probe tcp_retransmit_skb; do
	if has "$tp"; then
		[[ $tcp != *"no tcp:$tp"* ]] || { good=0; diag "tcp says $tp is missing; BTF has it"; }
	else
		[[ $tcp == *"no tcp:$tp:"* ]] || { good=0; diag "BTF lacks $tp; tcp does not say so"; }
	fi
done
check "tcp: attached, naming exactly the tracepoints BTF lacks: $tcp" \
	bash -c '[ "$1" = 1 ] && [[ $2 == "attached (tp_btf"* ]]' _ "$good" "$tcp"
# PREEMPT_RT: no socket storage made in a tracepoint, and said
hash=0
[[ $tcp == *"sockets marked in a hash"* ]] && hash=1
check "tcp: its sockets marked in a hash exactly where the kernel is PREEMPT_RT (rt $rt, hash $hash)" \
	test "$hash" = "$rt"
if ! has tcp_sendmsg_locked; then
	# RTT without the send hook: a client that connects is followed
	port=$(free_port)
	timeout 20 "$LATWORK" tcpserver --port "$port" --for 8s >"$T/srv" 2>&1 &
	_pids+=($!)
	wait_for "$T/srv" '^listening' 5
	timeout 30 "$LATBPF" --probes tcp --duration 20s --no-tui --json "$T/tcp.json" -- \
		"$LATWORK" tcpclient --port "$port" --count 200 >/dev/null 2>&1
	n=$(final "$T/tcp.json" .tcp.rtt.count)
	c=$(final "$T/tcp.json" .tcp.connect.count)
	check "without tcp:tcp_sendmsg_locked, a client's connect ($c) and RTTs ($n) are still measured" \
		bash -c "[ '$c' = 1 ] && [ '${n:-0}' -ge 100 ]"
fi

# Who interrupts two spinning targets, one per CPU, while another process
# reads a file with O_DIRECT (its completions interrupt them)
F=$(mktemp /var/tmp/latbpf-kernel.XXXXXX)
dd if=/dev/zero of="$F" bs=1M count=32 status=none && sync
timeout 20 "$LATWORK" dio --file "$F" --count 3000 >"$T/dio.work" 2>&1 &
dio=$!
_pids+=($dio)
start_work h0 --cpu 0 hog --for 3s
h0=$WORK_PID
start_work h1 --cpu 1 hog --for 3s
h1=$WORK_PID
start_latbpf irq --pid "$h0" --pid "$h1" --probes hiccup --no-tui --json "$T/irq.json"
kill -USR1 "$h0" "$h1"
sleep 3.2
stop "$LAT_PID"
wait "$dio" 2>/dev/null
rm -f "$F"
# every intruder, with what /proc says of its pid now (threads persist)
jq -r 'select(.final) | .hiccup.cpus[].top[] | [.kind, (.irq // "-"), .pid, .name] | @tsv' \
	"$T/irq.json" >"$T/intruders"
tasks_named_irq=0 irq_threads=0 wrong=0
while IFS=$'\t' read -r kind irq pid name; do
	comm=$(cat "/proc/$pid/comm" 2>/dev/null)
	if [ "$kind" = task ] && [[ $comm == irq/* ]]; then
		tasks_named_irq=$((tasks_named_irq + 1))
		diag "task intruder $pid is the kernel's $comm"
	fi
	if [ "$irq" != - ]; then
		irq_threads=$((irq_threads + 1))
		[[ $comm == "irq/$irq-"* ]] || { wrong=$((wrong + 1)); diag "irq $irq thread $pid is '$comm'"; }
	fi
done <"$T/intruders"
diag "intruders: $(wc -l <"$T/intruders"), threaded IRQs among them: $irq_threads"
check "no interrupt thread reported as a plain task ($tasks_named_irq)" test "$tasks_named_irq" = 0
check "every threaded IRQ's number is its thread's ($wrong wrong)" test "$wrong" = 0
if [ "$rt" = 1 ]; then
	check "PREEMPT_RT: interrupts came as threaded IRQ intruders ($irq_threads)" \
		test "$irq_threads" -ge 1
fi
done_testing

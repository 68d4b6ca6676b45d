#!/usr/bin/env bash
# tcp ground truth, tracepoints only: the RTT of the target's socket agrees
# with the kernel's own (ss -ti), N connects are N connect samples, and
# retransmits forced inside network namespaces made here match the kernel's
# TcpRetransSegs of the client's namespace. The server is another process and
# is never counted.
. "$(dirname "$0")/lib.sh"
need_root
W=$(cd "$(dirname "$LATWORK")" && pwd)/latwork
PORT=$(free_port) || cannot_run "no free TCP port on 127.0.0.1"
# each server runs until its part kills it, bounded: 60 s, and under TCG
# 600 (the 6.1-rt guest took over 90 s for parts 1 and 2 once; the first
# server was gone when part 2b's first client connected)
SRV_FOR=$(tcg_bound 60)
SRV_TMO=$((SRV_FOR + 30))

# 1. RTT against ss, on loopback
# (serving until stopped after part 2: parts 1 and 2 take minutes under
# an emulator)
timeout $SRV_TMO "$W" --cpu 1 tcpserver --port $PORT --for ${SRV_FOR}s >"$T/srv" &
srv=$!
_pids+=($srv)
wait_for "$T/srv" '^listening' 10
# srtt is a moving average and loopback RTT has two regimes (client and
# server on one CPU or on two): both are pinned to CPU 1, and the kernel's
# value is read ten times during a 3 s run; its median is the reference
start_work rtt --linger --cpu 1 tcpclient --port $PORT --count 100000000 --for 3s
start_latbpf rtt --pid "$WORK_PID" --probes tcp --no-tui --json "$T/rtt.json"
kill -USR1 "$WORK_PID"
for i in 1 2 3 4 5 6 7 8 9 10; do
	sleep 0.25
	ss -tinH dst 127.0.0.1:$PORT | grep -o ' rtt:[0-9.]*' | head -1 | cut -d: -f2
done >"$T/ss"
wait_for "$T/rtt.work" '^roundtrips=' 30
ssrtt=$(sort -n "$T/ss" | sed -n 5p)
sslo=$(grep . "$T/ss" | sort -n | head -1) sshi=$(sort -n "$T/ss" | tail -1)
stop "$LAT_PID"
kill -TERM "$WORK_PID"
p50=$(final "$T/rtt.json" .tcp.rtt.p50)
n=$(final "$T/rtt.json" .tcp.rtt.count)
socks=$(final "$T/rtt.json" .tcp.sockets)
ns() { awk -v r="$1" 'BEGIN { printf "%d", r * 1e6 }'; }
ss_ns=$(ns "$ssrtt") lo_ns=$(ns "$sslo") hi_ns=$(ns "$sshi")
# the slot holding a value, plus 20 %
tol() { awk -v v="$1" 'BEGIN { w = 2 ^ (int(log(v) / log(2)) - 4); printf "%d", w + 0.2 * v }'; }
lo=$((lo_ns - $(tol "$lo_ns"))) hi=$((hi_ns + $(tol "$hi_ns")))
diag "rtt: $(cat "$T/rtt.work" | tail -1); latbpf n=$n p50=$p50 ns; ss rtt (ms) $(tr '\n' ' ' <"$T/ss")-> median $ssrtt; sockets $socks"
check "rtt: samples from the target's socket ($n >= 1000)" num_le 1000 "$n"
check "rtt: only the client's socket is the target's ($socks)" test "$socks" = 1
# both are samplings of the kernel's srtt, a moving average: latbpf's at
# every tcp_probe, ss's at ten instants. Where the RTT is steady ss's ten
# agree and the band is narrow; where the host is busy srtt swings (this
# project's CI saw it miss ss's median by more than a fifth) and the median
# of all samples stays within what ss saw. Under qemu an emulated
# loopback's swings 2x within a second (6.1 guest: ss 379 us at its
# instants, latbpf's median 197 us), so it is the machine's speed there
timing check "rtt: p50 $p50 ns within ss's $lo_ns..$hi_ns ns (median $ss_ns), + slot + 20% ($lo..$hi)" \
	between "$p50" "$lo" "$hi"

# 2. connects
# --for 20s: latwork's default of 1 s cut the loop short whenever a SYN
# waited for its 1 s retransmit (when the server served one connection at a
# time and part 1's held it); the count it prints is the ground truth either
# way
start_work con --linger tcpclient --port $PORT --count 200 --connects --for 20s
start_latbpf con --pid "$WORK_PID" --probes tcp --per-remote --no-tui --json "$T/con.json"
kill -USR1 "$WORK_PID"
wait_for "$T/con.work" '^connects=' 30
stop "$LAT_PID"
kill -TERM "$WORK_PID"
c=$(final "$T/con.json" .tcp.connect.count)
cp50=$(final "$T/con.json" .tcp.connect.p50)
miss=$(final "$T/con.json" '.tcp.missed // 0')
untr=$(final "$T/con.json" '.tcp.untracked_sockets // 0')
socks=$(final "$T/con.json" '.tcp.sockets')
ncon=$(sed -n 's/^connects=//p' "$T/con.work")
diag "connects: $ncon -> $c samples, p50 $cp50 ns; sockets $socks, untracked $untr; events the kernel did not run the programs for: $miss"
check "the client made its 200 connects ($ncon)" test "$ncon" = 200
# a softirq state change that lands inside the same program on that CPU is
# not traced, and the kernel counts it (tcp.missed); a socket whose mark
# could not be stored is counted too (tcp.untracked_sockets)
check "$ncon connects give as many connect samples ($c), less what was missed ($miss) or untracked ($untr)" \
	between "$c" $((ncon - miss - untr)) "$ncon"
# the handshake (SYN_SENT -> ESTABLISHED) happens inside each connect() call
# the client timed, so its median cannot exceed theirs (+ a slot's 6.25 %)
read -r cl_p50 cl_max < <(sed -n 's/^connect_ns p50=\([0-9]*\) max=\([0-9]*\)$/\1 \2/p' "$T/con.work")
diag "connect(): the client's own p50 $cl_p50 ns, max $cl_max ns; latbpf's handshake p50 $cp50 ns"
check "connect p50 ($cp50 ns) lies within the client's own connect() calls (p50 $cl_p50 ns + a slot)" \
	bash -c "[ '${cp50:-0}' -gt 0 ] && [ '$cp50' -le $(( ${cl_p50:-0} + ${cl_p50:-0} / 16 + 1 )) ]"
rc=$(final "$T/con.json" "[.tcp.remotes[] | select(.remote == \"127.0.0.1:$PORT\") | .connect.count] | add // 0")
nr=$(final "$T/con.json" '.tcp.remotes | length')
check "--per-remote: the connects under 127.0.0.1:$PORT ($rc = $c), one remote ($nr)" test "$rc,$nr" = "$c,1"

# rt_final NAME: from $T/NAME.json's final record, the connect samples (c),
# the closes the kernel did not run the program for (miss), the sockets
# refused a mark (untr) and marked (socks); and the probe's mode
rt_final() {
	local j=$T/$1.json
	c=$(final "$j" .tcp.connect.count)
	miss=$(final "$j" '.tcp.missed // 0')
	untr=$(final "$j" '.tcp.untracked_sockets // 0')
	socks=$(final "$j" '.tcp.sockets')
	mode=$(jq -r 'select(.probes) | .probes.tcp' "$j" | head -1)
}

# 2a. the marks as on PREEMPT_RT (LATBPF_RT_STORAGE=1): no socket storage
# made in a tracepoint, the target's sockets in a preallocated hash by
# socket cookie instead; each entry goes when its socket closes. The same 200
# connects, each socket marked; the hash holds the one the lingering client
# keeps open, and once the client has exited nothing, or only what the
# kernel did not run the close for (counted in tcp.missed). A second target
# that only sleeps keeps latbpf, and its hash, there after the client exits.
start_work rtm --linger tcpclient --port $PORT --count 200 --connects --for 20s
timeout $SRV_TMO sleep $SRV_FOR &
keeper=$!
_pids+=($keeper)
LATBPF_RT_STORAGE=1 start_latbpf rtm --pid "$WORK_PID,$keeper" --probes tcp --no-tui \
	--json "$T/rtm.json"
kill -USR1 "$WORK_PID"
wait_for "$T/rtm.work" '^connects=' 30
id=$(held_map "$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")" tcp_marks_rt)
marks() { bpftool map dump id "${id:-0}" -j 2>/dev/null | jq 'if type == "array" then length else empty end'; }
# the client's sockets that are not yet gone (TIME-WAIT keeps no socket of
# its own); under an emulator the server closes its ends seconds late, so
# wait for the one left open
live() { ss -tanH dst 127.0.0.1:$PORT | grep -vc TIME-WAIT; }
# (5 s, under TCG 60: a deadline, as each ss takes long there)
wait_s=5
[ "${LATBPF_TCG:-0}" = 1 ] && wait_s=60
until=$((SECONDS + wait_s))
while [ "$(live)" -gt 1 ] && [ $SECONDS -lt $until ]; do sleep 0.1; done
open1=$(marks) live1=$(live)
kill -TERM "$WORK_PID"
# then until the client has none (an entry left by a missed close stays)
until=$((SECONDS + wait_s))
while [ "$(live)" -gt 0 ] && [ $SECONDS -lt $until ]; do sleep 0.1; done
closed=$(marks) live2=$(live)
stop "$LAT_PID"
kill "$keeper" 2>/dev/null
ncon=$(sed -n 's/^connects=//p' "$T/rtm.work")
rt_final rtm
diag "RT marks: $ncon connects -> $c samples, sockets $socks, untracked $untr, missed $miss; hash map ${id:-none} holds ${open1:-?} while the client lingers with $live1 socket(s), ${closed:-?} after it exited; mode: $mode"
check "RT marks: the probe says where the marks are ($mode)" grep -q 'marked in a hash' <<<"$mode"
check "RT marks: $ncon connects, each socket marked ($socks), as many samples ($c) less missed ($miss)" \
	bash -c "[ '$ncon' = 200 ] && [ '$socks' = 200 ] && [ '$c' -ge $((200 - miss)) ] && [ '$c' -le 200 ]"
# every socket still open is there; a close the kernel did not run the
# program for (tcp.missed: under TCG the 6.1 guest held 21 for 1) is too
check "RT marks: the hash holds the one socket left open ($live1), and closes missed ($miss): ${open1:-none read}" \
	bash -c '[ "$2" = 1 ] && [ -n "$1" ] && [ "$1" -ge 1 ] && [ "$1" -le $((1 + $3)) ]' _ "$open1" "$live1" "$miss"
check "RT marks: none once the client's sockets are gone ($live2 left), but for closes missed ($miss): ${closed:-none read}" \
	bash -c '[ "$2" = 0 ] && [ -n "$1" ] && [ "$1" -le "$3" ]' _ "$closed" "$live2" "$miss"

# 2a'. a full hash of marks (LATBPF_TCP_MARKS=64): the client keeps its
# 200 connections open (--hold), so 64 are marked and the other 136 are
# refused and counted (untracked_sockets, among the drops), never a live
# mark evicted unsaid to make room (an LRU's way: the old code marked all
# 200 and counted nothing); only marked sockets give connect samples
start_work rtf --linger --hold tcpclient --port $PORT --count 200 --connects --for 20s
LATBPF_RT_STORAGE=1 LATBPF_TCP_MARKS=64 start_latbpf rtf --pid "$WORK_PID" --probes tcp \
	--no-tui --json "$T/rtf.json"
kill -USR1 "$WORK_PID"
wait_for "$T/rtf.work" '^connects=' 30
id=$(held_map "$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")" tcp_marks_rt)
full=$(marks) open200=$(ss -tnH state established dst 127.0.0.1:$PORT | wc -l)
stop "$LAT_PID"
kill -TERM "$WORK_PID"
ncon=$(sed -n 's/^connects=//p' "$T/rtf.work")
rt_final rtf
dun=$(final "$T/rtf.json" '.drops["tcp.untracked_sockets"] // 0')
diag "RT marks, a hash of 64: $ncon connects held open ($open200 established) -> sockets $socks, untracked $untr (drops $dun), $c samples, missed $miss; the hash holds ${full:-?}; mode: $mode"
check "full RT hash: the probe gives its size ($mode)" grep -q 'marked in a hash of 64,' <<<"$mode"
check "full RT hash: $ncon connects held open ($open200), 64 marked ($socks), the hash full (${full:-none read})" \
	bash -c "[ '$ncon' = 200 ] && [ '$open200' -ge 200 ] && [ '$socks' = 64 ] && [ '${full:-0}' = 64 ]"
check "full RT hash: the other 136 counted ($untr), as drops ($dun)" test "$untr,$dun" = "136,136"
check "full RT hash: connect samples of the 64 marked only ($c), less missed ($miss)" \
	between "${c:-0}" $((64 - miss)) 64

# 2b. --per-remote with room for one remote (LATBPF_TCP_REMOTES=1): two
# clients, 50 connects each, to 127.0.0.1 and to 127.0.0.2 (a second server).
# The remote that found the hash full loses its samples, counted.
timeout $SRV_TMO "$W" tcpserver --host 127.0.0.2 --port $PORT --for ${SRV_FOR}s >"$T/srv3" &
srv3=$!
_pids+=($srv3)
wait_for "$T/srv3" '^listening' 10
start_work c1 --linger tcpclient --port $PORT --count 50 --connects --for 20s
p1=$WORK_PID
start_work c2 --linger tcpclient --host 127.0.0.2 --port $PORT --count 50 --connects --for 20s
p2=$WORK_PID
LATBPF_TCP_REMOTES=1 start_latbpf one --pid "$p1,$p2" --probes tcp --per-remote --no-tui \
	--json "$T/one.json"
kill -USR1 "$p1" "$p2"
wait_for "$T/c1.work" '^connects=' 30
wait_for "$T/c2.work" '^connects=' 30
stop "$LAT_PID"
kill -TERM "$p1" "$p2" "$srv3" 2>/dev/null
n1=$(sed -n 's/^connects=//p' "$T/c1.work")
n2=$(sed -n 's/^connects=//p' "$T/c2.work")
c=$(final "$T/one.json" .tcp.connect.count)
rc=$(final "$T/one.json" '[.tcp.remotes[].connect.count] | add // 0')
nr=$(final "$T/one.json" '.tcp.remotes | length')
lost=$(final "$T/one.json" '.tcp.remotes_lost // 0')
dlost=$(final "$T/one.json" '.drops["tcp.remotes_lost"] // 0')
miss=$(final "$T/one.json" '.tcp.missed // 0')
diag "one remote's room: $n1 + $n2 connects -> $c samples, $rc under $nr remote(s), $lost per-remote samples lost (drops: $dlost), missed $miss"
check "room for one remote: both clients connected, to two remotes (${n1:-none} + ${n2:-none})" \
	bash -c "[ '${n1:-0}' -ge 10 ] && [ '${n2:-0}' -ge 10 ]"
check "room for one remote: one remote listed ($nr)" test "$nr" = 1
check "... the other's connects are counted lost: listed $rc + lost $lost >= connects $c" \
	num_le "$c" "$((rc + lost))"
check "... and in the drops object ($dlost = $lost)" test "$dlost" = "$lost"
check "... while the totals keep every connect ($c of $((n1 + n2)), less missed $miss)" \
	between "$c" "$((n1 + n2 - miss))" "$((n1 + n2))"
kill "$srv" 2>/dev/null

# 2c. --per-remote is drained: at each poll latbpf reads the remotes the
# kernel's hash no longer charges and deletes them, so the hash holds the
# remotes of the last interval or two, never the run's; the loader keeps
# LATBPF_TCP_KEEP=4 by name and sums the rest as "(others)". 12 clients, 20
# connects each, to 127.0.0.1 .. 127.0.0.12 (one server bound to 0.0.0.0),
# in two waves a second apart.
P2=$(free_port) || cannot_run "no second free TCP port"
timeout $SRV_TMO "$W" tcpserver --host 0.0.0.0 --port $P2 --for ${SRV_FOR}s >"$T/srv4" &
srv4=$!
_pids+=($srv4)
wait_for "$T/srv4" '^listening' 10
cl=()
for k in $(seq 1 12); do
	start_work w$k --linger tcpclient --host 127.0.0.$k --port $P2 --count 20 --connects --for 20s
	cl+=("$WORK_PID")
done
LATBPF_TCP_KEEP=4 start_latbpf many --pid "$(IFS=,; echo "${cl[*]}")" --probes tcp --per-remote \
	--no-tui -i 250ms --json "$T/many.json"
kill -USR1 "${cl[@]:0:6}"
for k in 1 2 3 4 5 6; do wait_for "$T/w$k.work" '^connects=' 30; done
sleep 1
kill -USR1 "${cl[@]:6}"
for k in 7 8 9 10 11 12; do wait_for "$T/w$k.work" '^connects=' 30; done
sleep 1
id=$(held_map "$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")" tcp_remotes)
bpftool map dump id "${id:-0}" -j >"$T/left.json" 2>/dev/null
left=$(jq length "$T/left.json")
[ "${left:-0}" = 0 ] || diag "left in the hash (map ${id:-none}): $(head -c 600 "$T/left.json")"
stop "$LAT_PID"
kill -TERM "${cl[@]}" "$srv4" 2>/dev/null
nc=$(cat "$T"/w*.work | sed -n 's/^connects=//p' | awk '{ s += $1 } END { print s + 0 }')
c=$(final "$T/many.json" .tcp.connect.count)
miss=$(final "$T/many.json" '.tcp.missed // 0')
named=$(final "$T/many.json" '[.tcp.remotes[] | select(.remote != "(others)")] | length')
oc=$(final "$T/many.json" '[.tcp.remotes[] | select(.remote == "(others)") | .connect.count] | add // 0')
rc=$(final "$T/many.json" '[.tcp.remotes[].connect.count] | add // 0')
folded=$(final "$T/many.json" '.tcp.remotes_folded // 0')
lost=$(final "$T/many.json" '.tcp.remotes_lost // 0')
ivs=$(jq -s '[.[] | select(.interval) | .tcp.remotes[]?.connect.count] | add // 0' "$T/many.json")
diag "12 remotes: $nc connects -> $c samples (missed $miss), $rc under remotes: $named by name + (others) $oc, $folded folded, $lost lost; the kernel's hash holds ${left:-?} after 1 s idle; intervals sum to $ivs"
check "the clients made their 240 connects ($nc)" test "$nc" = 240
check "... as many connect samples ($c), less what was missed ($miss)" between "$c" $((nc - miss)) "$nc"
check "the kernel's hash is drained: 0 entries after 1 s without connects (${left:-none read})" \
	test "${left:-x}" = 0
check "4 remotes by name ($named), the 8 others folded ($folded)" test "$named,$folded" = "4,8"
check "every sample under a remote: named + (others) = $rc = the total $c, none lost ($lost)" \
	test "$rc,$lost" = "$c,0"
check "(others) holds the 8 folded remotes' connects ($oc >= 8 x 20 less missed)" \
	between "$oc" $((160 - miss)) 160
check "the intervals' per-remote connects add up to the run's ($ivs = $c)" test "$ivs" = "$c"

# 3. retransmits: client in namespace A, server in B, joined by a veth; B's
# end goes down in the middle of the exchange until A retransmits
A=latbpf-ta$$ B=latbpf-tb$$
ip netns add $A && ip netns add $B && ip link add lva$$ type veth peer name lvb$$ &&
	ip link set lva$$ netns $A && ip link set lvb$$ netns $B &&
	ip -n $A addr add 10.211.0.1/24 dev lva$$ && ip -n $B addr add 10.211.0.2/24 dev lvb$$ &&
	ip -n $A link set lva$$ up && ip -n $B link set lvb$$ up
ok $? "namespaces $A and $B joined by a veth"
trap 'ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; cleanup' EXIT
retrans() { ip netns exec $A awk '/^Tcp:/ { if (!n++) for (i = 1; i <= NF; i++) h[i] = $i;
	else for (i = 1; i <= NF; i++) if (h[i] == "RetransSegs") print $i }' /proc/net/snmp; }
timeout $SRV_TMO ip netns exec $B "$W" tcpserver --host 10.211.0.2 --port $PORT --for ${SRV_FOR}s >"$T/srv2" &
srv=$!
_pids+=($!)
wait_for "$T/srv2" '^listening' 10
# the client runs until the test has seen its traffic resume after the
# outage (a slow machine, the guests under TCG, may take seconds to get
# there: a fixed --for once ended before the link went down)
timeout $SRV_TMO ip netns exec $A "$W" --wait tcpclient --host 10.211.0.2 --port $PORT \
	--count 100000000 --for ${SRV_FOR}s >"$T/rt.work" 2>&1 &
_pids+=($!)
wait_for "$T/rt.work" '^ready' 10
WORK_PID=$(sed -n 's/^ready //p' "$T/rt.work")
start_latbpf rt --pid "$WORK_PID" --probes tcp --no-tui --json "$T/rt.json"
r0=$(retrans)
kill -USR1 "$WORK_PID"
sent() { ip netns exec $A awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
	else print $c["OutSegs"] }' /proc/net/snmp; }
# sent_past N SECS: until A has sent 50 segments more than N
sent_past() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do [ "$(sent)" -gt $(($1 + 50)) ] && return 0; sleep 0.1; done
	return 1
}
s0=$(sent)
sent_past "$s0" 20
ok $? "traffic flows before the outage"
sleep 0.2
# down until A's kernel has retransmitted (20 s at most): a fixed 1.2 s
# outage once passed with no retransmit at all in a guest (the segment in
# flight then may have waited in a neighbour's queue, or none was in
# flight), and the check below would judge nothing
rd=$(retrans)
ip -n $B link set lvb$$ down
sleep 0.3
for ((i = 0; i < 200; i++)); do [ "$(retrans)" -gt "$rd" ] && break; sleep 0.1; done
diag "the link was down $((3 + i)) tenths of a second"
ip -n $B link set lvb$$ up
s1=$(sent)
sent_past "$s1" 30
ok $? "traffic flows again after it (a retransmit got through)"
r1=$(retrans)
stop "$LAT_PID"
kill -TERM "$WORK_PID"
kill "$srv" 2>/dev/null
got=$(final "$T/rt.json" .tcp.retransmits)
failed=$(final "$T/rt.json" .tcp.retransmit_failed)
diag "retransmits: kernel TcpRetransSegs delta in $A $((r1 - r0)), latbpf $got (+ $failed attempts that failed); segments sent $s0 -> $s1 -> $(sent)"
check "retransmits were forced (kernel counted $((r1 - r0)))" num_le 1 "$((r1 - r0))"
check "latbpf's retransmits ($got) = the kernel's delta ($((r1 - r0))) +- 1" \
	between "$got" "$((r1 - r0 - 1))" "$((r1 - r0 + 1))"
done_testing

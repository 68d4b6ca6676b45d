# SPDX-License-Identifier: GPL-2.0
# Shared by the integration tests: TAP output, starting latbpf and the
# workloads with bounded waits, and cleanup of everything started.
set -u
O=${O:-build}
LATBPF=$O/latbpf
LATWORK=$O/tools/latwork
export PATH="$PATH:/usr/sbin:/sbin"
# LATBPF_TEST_TMP: where the test's files go (/tmp; make test-kernels: the
# guest's own disk, not the 9p scratch directory that carries its output)
T=$(mktemp -d "${LATBPF_TEST_TMP:-/tmp}/latbpf-test.XXXXXX")
_n=0
_fail=0
_pids=()

cleanup() {
	local list
	# children first: timeout wrappers would orphan what they run. One
	# pkill for all: one per pid took many.t's 1000 over ten minutes
	# under TCG (each a scan of /proc)
	if [ "${#_pids[@]}" -gt 0 ]; then
		list=$(IFS=,; echo "${_pids[*]}")
		pkill -KILL -P "$list" 2>/dev/null
		kill -KILL "${_pids[@]}" 2>/dev/null
	fi
	wait 2>/dev/null
	# KEEP_T=1 leaves the files to read after a failure
	if [ -n "${KEEP_T:-}" ]; then echo "# kept $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT

# _todo: when set, the next checks are TAP TODOs (a goal of an open issue
# not met yet: prove shows them, a failure does not fail the file)
_todo=
ok() { # ok COND_EXIT_STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ -n "$_todo" ]; then
		if [ "$1" -eq 0 ]; then echo "ok $_n - $2 # TODO $_todo"; else echo "not ok $_n - $2 # TODO $_todo"; fi
		return 0
	fi
	if [ "$1" -eq 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _fail=$((_fail + 1)); fi
}
check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	"$@"; ok $? "$d"
}
# Numeric comparisons (floats allowed) that fail on anything not a number,
# so a missing value can never pass: num_le A B, between X LO HI. Integers
# are compared by bash itself, the rest by awk: in a TCG guest an awk is
# 0.23 s, and a test file has hundreds of checks.
is_num() { [[ "$1" =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]] || { diag "not a number: '$1'"; return 1; }; }
is_int() { [[ "$1" =~ ^-?[0-9]{1,18}$ ]]; }
num_le() {
	is_num "$1" && is_num "$2" || return 1
	# (10# reads leading zeros as decimal but takes no sign: the sign,
	# "-" or "", is put back as a factor of -1 or 1)
	if is_int "$1" && is_int "$2"; then (( 10#${1#-} * ${1%%[0-9]*}1 <= 10#${2#-} * ${2%%[0-9]*}1 )); return; fi
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'
}
between() { num_le "$2" "$1" && num_le "$1" "$3"; }
# unseen_wakeups JSON: the run's sleeps whose wakeup the kernel did not
# report (sched.switches.unseen_wakeups; about 1 in 1600 timer sleeps on
# 6.18, and 5 of 300 in many.t on 2026-12-02): not recorded, so a count
# of a target's sleeps may be short by as many
unseen_wakeups() {
	local v
	v=$(final "$1" '.sched.switches.unseen_wakeups // 0')
	is_num "$v" && echo "$v" || echo 0
}
# timing CHECK...: a check whose band depends on the machine's speed (a sleep
# that must end within a window, a latency under a bound). Under qemu's TCG
# (make test-kernels sets LATBPF_TCG=1) the guest runs 10-50x slower, so such
# a check is reported as skipped, by name, with this rule as the reason;
# every other check (counts, attribution, exit paths, leaks, schema) runs.
timing() {
	if [ "${LATBPF_TCG:-0}" = 1 ]; then
		_n=$((_n + 1))
		echo "ok $_n - $2 # SKIP timing band under TCG (tests/integration/lib.sh: timing)"
		return 0
	fi
	"$@"
}
diag() { local m="$*"; printf '# %s\n' "${m//$'\n'/$'\n'# }" >&2; }
# btf_tracepoint NAME: the kernel's BTF has tracepoint NAME, i.e. its
# typedef btf_trace_NAME, whose name only BTF's string table holds (read
# with strings: bpftool's dump of every type took 25 s of a TCG guest)
btf_tracepoint() {
	[ -s "$T/btf_trace" ] || strings -n 10 /sys/kernel/btf/vmlinux | grep '^btf_trace_' >"$T/btf_trace"
	grep -qx "btf_trace_$1" "$T/btf_trace"
}
# preempt_rt: true on a PREEMPT_RT kernel, where interrupts, softirqs and
# timers run in kernel threads (irq/NN-name, ksoftirqd/N, ktimers/N, rcuc/N)
# that preempt a target a generic kernel would only interrupt: the checks
# that differ there branch on it, and say what RT changes.
preempt_rt() { [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ] || uname -v | grep -q PREEMPT_RT; }
# preempt_full: a kernel that preempts a task inside the kernel too
# (PREEMPT_RT, or preemption full or lazy: CONFIG_PREEMPT, or
# PREEMPT_DYNAMIC's mode in debugfs), where a task can be preempted after
# it set its sleep state and before it reached schedule()
preempt_full() {
	local f=/sys/kernel/debug/sched/preempt m
	preempt_rt && return 0
	[ -e "$f" ] || mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	m=$(cat "$f" 2>/dev/null)	# (lockdown may refuse it)
	if [ -n "$m" ]; then grep -qE '\((full|lazy)\)' <<<"$m"; else uname -v | grep -qw PREEMPT; fi
}
# steal_ns CPU: the time CPU's hypervisor ran something else while it had
# work, in ns (/proc/stat, whole clock ticks). With
# PARAVIRT_TIME_ACCOUNTING the kernel's task runtimes leave it out, while
# a wall clock between two tracepoints keeps it; a stall of the vCPU also
# looks like a stall to anything that times itself. A check on those
# allows the delta over its run, plus one tick for the truncation.
steal_ns() { awk -v c="cpu$1" -v hz="$(getconf CLK_TCK)" '$1 == c { printf "%.0f\n", $9 * 1e9 / hz }' /proc/stat; }
steal_tick_ns() { echo $((1000000000 / $(getconf CLK_TCK))); }
done_testing() { echo "1..$_n"; [ "$_fail" -eq 0 ]; exit; }

# cannot_run REASON: a test that cannot run fails, it never passes by
# skipping (a green run must mean the checks ran), unless the caller says
# LATBPF_ALLOW_SKIP=1: then it is a skip, which prove shows as one
cannot_run() {
	if [ "${LATBPF_ALLOW_SKIP:-0}" = 1 ]; then
		echo "1..0 # SKIP cannot run: $* (LATBPF_ALLOW_SKIP=1)"
		exit 0
	fi
	echo "not ok 1 - cannot run: $*"
	echo "1..1"
	exit 1
}

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		cannot_run "needs root: loads BPF (sudo make test)"
	fi
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
}

# nap S: sleeps S seconds (a decimal) without a process: a timed read on a
# pipe of the test's own that nobody writes (not a FIFO in $T: under make
# test-kernels $T is on 9p, which refuses them). And `sleep S` is nap S in the
# tests (any other sleep is the command's): under qemu's TCG /bin/sleep
# costs 0.10 s of the guest's CPU, which the polling loops (a look, then a
# sleep of 50 ms) took from what they waited for: latbpf's attach and exit
# on the same CPU (2026-11-29: 100 looks in the 6.1 guest's hiccup.t).
exec {_nap_fd}<> <(:)
nap() {
	local s=${1%%.*} f=000000 now end left
	[[ $1 == *.* ]] && f=${1#*.}000000
	end=$((${EPOCHREALTIME//[!0-9]/} + 10#${s:-0} * 1000000 + 10#${f:0:6}))
	# again when a signal's trap ended the read early
	while now=${EPOCHREALTIME//[!0-9]/} && ((now < end)); do
		left=$((end - now))
		printf -v left '%d.%06d' $((left / 1000000)) $((left % 1000000))
		read -r -t "$left" -u "$_nap_fd" _
	done
	return 0
}
sleep() {
	if [[ $# == 1 && $1 =~ ^[0-9]*\.?[0-9]+$ ]]; then nap "$1"; else command sleep "$@"; fi
}

# has_line FILE REGEX: FILE has a whole line (ended by its newline: one
# being written is not yet one) that matches the extended REGEX (bash's
# =~, grep -E's syntax); bash's own reads, no process
has_line() {
	local l
	[ -r "$1" ] || return 1
	while IFS= read -r l; do
		[[ $l =~ $2 ]] && return 0
	done <"$1"
	return 1
}
# files_with REGEX FILE...: sets MATCHED to how many FILEs have such a line
files_with() {
	local re=$1 f
	shift
	MATCHED=0
	for f; do
		has_line "$f" "$re" && MATCHED=$((MATCHED + 1))
	done
	return 0
}

# wait_for FILE REGEX [SECONDS]: until a whole line matches the extended
# REGEX (has_line), or fail after SECONDS x 20 looks, or at twice SECONDS
# of wall time; under TCG, at six times SECONDS of wall time (a 30 s wait
# that failed there took 5 minutes). A look and its nap start no process:
# the loop takes no CPU from what it waits for.
wait_for() {
	local i end=$((SECONDS + ${3:-10} * (${LATBPF_TCG:-0} == 1 ? 6 : 2) + 1))
	local looks=$((${3:-10} * 20 * (${LATBPF_TCG:-0} == 1 ? 6 : 1)))
	for ((i = 0; i < looks && SECONDS < end; i++)); do
		has_line "$1" "$2" && return 0
		nap 0.05
	done
	diag "timed out waiting for /$2/ in $1: $(tail -3 "$1" 2>/dev/null)"
	return 1
}

# tcg_bound S: a bound of S seconds against a hang, 600 under qemu's TCG,
# where a slow day made bpftool's reads alone outlast 120 s (a bound only:
# the tests stop what they start)
tcg_bound() { if [ "${LATBPF_TCG:-0}" = 1 ] && [ "$1" -lt 600 ]; then echo 600; else echo "$1"; fi; }

# tcg_attach: how long latbpf may take to attach, in s: 15, and 120 under
# TCG, where the 6.1-rt guest's third latbpf beside 120 waiting processes
# took over 15
tcg_attach() { if [ "${LATBPF_TCG:-0}" = 1 ]; then echo 120; else echo 15; fi; }

# start_latbpf NAME ARGS...: runs latbpf in the background, stdout and
# stderr to $T/NAME.out and .err, and returns once its probes are attached
# (fails after LAT_ATTACH_TMO s, tcg_attach). Sets LAT_PID. LAT_TMO: its
# SIGINT (120 s; 600 under TCG).
start_latbpf() {
	local name=$1; shift
	# bounded even when latbpf does not end on SIGINT: KILL 30 s later (600
	# under TCG). timeout counts those from any signal it passes on, stop's
	# too: a 2x slower TCG host (2026-11-29) had latbpf's exit with 1,024
	# threads or 64 CPUs outlast 30 s, killed before its final record
	timeout -s INT -k "$(tcg_bound 30)" "${LAT_TMO:-$(tcg_bound 120)}" "$LATBPF" "$@" >"$T/$name.out" 2>"$T/$name.err" &
	LAT_PID=$!
	_pids+=("$LAT_PID")
	wait_for "$T/$name.err" '^latbpf: attached' "${LAT_ATTACH_TMO:-$(tcg_attach)}"
}
# stop PID [SIGNAL]: signal and wait (bounded); returns the exit status
stop() {
	local i
	kill -"${2:-INT}" "$1" 2>/dev/null
	for ((i = 0; i < 200; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	wait "$1"
}

# start_work NAME ARGS...: latwork --wait ARGS in the background; returns
# once it is ready. Sets WORK_PID. Output in $T/NAME.work. WORK_TMO: its
# bound, from its start (90 s; 600 under TCG)
start_work() {
	local name=$1; shift
	# WORK_PREFIX: a command to run it under (setsid: a session, and an
	# autogroup, of its own)
	timeout -s KILL "${WORK_TMO:-$(tcg_bound 90)}" ${WORK_PREFIX:-} "$LATWORK" --wait "$@" \
		>"$T/$name.work" 2>&1 &
	_pids+=($!)
	wait_for "$T/$name.work" '^ready' 10 || return 1
	# the workload's own pid, not timeout's
	WORK_PID=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$T/$name.work")
	_pids+=("$WORK_PID")
}

# sleeper_threads NAME K: latwork with K threads sleeping 5 ms (20 s at
# most, killed after use) in the background, once its threads exist; sets
# TP (the process: no timeout wrapper) and TIDS (its K threads, sorted)
sleeper_threads() {
	local i
	"$LATWORK" sleep --sleep 5ms --count 4000 --threads "$2" >"$T/$1.work" &
	TP=$!
	_pids+=("$TP")
	for ((i = 0; i < 50; i++)); do
		[ "$(ls /proc/"$TP"/task 2>/dev/null | wc -l)" -gt "$2" ] && break
		sleep 0.1
	done
	TIDS=$(ls /proc/"$TP"/task | grep -vx "$TP" | sort -n)
}

# start_prometheus CONFIG SECONDS: Debian's Prometheus scraping as CONFIG
# says, its API on 127.0.0.1:$PP, its storage in $T, killed after SECONDS
# at most; sets PROM_PID and API
start_prometheus() {
	timeout -s KILL "$2" prometheus --config.file="$1" --storage.tsdb.path="$T/tsdb" \
		--web.listen-address="127.0.0.1:$PP" --storage.tsdb.retention.time=1h >"$T/prom.log" 2>&1 &
	PROM_PID=$!
	_pids+=("$PROM_PID")
	API=http://127.0.0.1:$PP/api/v1
}
# query EXPR [TIME]: the first value of an instant query, or "" when none
query() {
	curl -s --max-time 5 "$API/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		jq -r '.data.result[0].value[1] // ""'
}
# prom_up JOB: up{job=JOB} once it is 1, or its last value after 30 s
prom_up() {
	local up="" i
	for ((i = 0; i < 60; i++)); do
		up=$(query "up{job=\"$1\"}")
		[ "$up" = 1 ] && break
		sleep 0.5
	done
	echo "$up"
}

# free_port: a TCP port nobody uses on 127.0.0.1 (tools/free-port.sh)
free_port() { "$(dirname "${BASH_SOURCE[0]}")/../../tools/free-port.sh"; }

# usage_error DESCRIPTION REGEX ARGS...: latbpf ARGS exits 2 with one
# line on stderr that matches REGEX (nothing attached: bounded by 1 s)
usage_error() {
	local d=$1 re=$2 rc
	shift 2
	timeout 30 "$LATBPF" "$@" --duration 1s --no-tui >"$T/usage.out" 2>"$T/usage.err"
	rc=$?
	diag "$d: exit $rc: $(head -3 "$T/usage.err")"
	check "$d: exit 2 and one line saying so" \
		bash -c "[ $rc = 2 ] && [ \$(wc -l <'$T/usage.err') = 1 ] && grep -qE '$re' '$T/usage.err'"
}

# cpu_cgroup: "V ROOT", the hierarchy latbpf's idle cgroup goes in
# (src/core/idlecg.h): v1 where the cpu controller is mounted there, else
# cgroup2; no output where neither is mounted at its own root
cpu_cgroup() {
	awk '{
		for (i = 1; i <= NF; i++) if ($i == "-") break
		if ($4 != "/") next
		if ($(i + 1) == "cgroup" && ("," $(i + 3) ",") ~ /,cpu,/) { v1 = $5 }
		else if ($(i + 1) == "cgroup2" && two == "") { two = $5 }
	} END { if (v1 != "") print 1, v1; else if (two != "") print 2, two }' /proc/self/mountinfo
}
# idle_cgroup_usable: whether latbpf can make its idle cgroup here (a
# hierarchy with the cpu controller; on cgroup2 enabled at its root)
idle_cgroup_usable() {
	local v r
	read -r v r < <(cpu_cgroup)
	[ -n "${r:-}" ] && { [ "$v" = 1 ] || grep -qw cpu "$r/cgroup.subtree_control"; }
}

# jq over the final record of a --json file
# (the NDJSON sink's final record is one line that opens with "final":
# grep finds it before jq parses it, not jq every interval's: 0.6 s a read
# of threads.t's file on the host; the whole file where no line does).
# The record is kept in $T/final/ for the next question about the same
# file, until the file changes: a grep is 0.4 s in a TCG guest, where a
# test asks a file dozens of questions.
final() {
	local c="$T/final/${1//\//%}"
	if [ ! -s "$c" ] || [ "$1" -nt "$c" ]; then
		mkdir -p "$T/final"
		# kept only once the record is there: a file still being
		# written is read whole, and again at the next question
		grep -a '^{"final":true' "$1" >"$c" 2>/dev/null || {
			rm -f "$c"
			cat "$1" 2>/dev/null | jq -r "select(.final == true) | $2"
			return
		}
	fi
	jq -r "select(.final == true) | $2" "$c"
}

# tracing BPF programs loaded now (for leftover checks)
tracing_progs() {
	bpftool prog show 2>/dev/null | grep -cE '^[0-9]+: (tracing|raw_tracepoint|tracepoint) '
}
# no_progs_above N: the kernel frees closed programs asynchronously (RCU),
# so allow it 3 s to get back to N
no_progs_above() {
	local i
	for ((i = 0; i < 30; i++)); do
		[ "$(tracing_progs)" -le "$1" ] && return 0
		sleep 0.1
	done
	diag "still loaded: $(bpftool prog show | grep -E '^[0-9]+: (tracing|raw_tracepoint|tracepoint) ')"
	return 1
}

# held_ids PID prog|map: the ids of the BPF programs or maps process PID
# holds, from its fdinfo (what bpftool would attribute to it): a map's or
# program's fd says map_id or prog_id there; a link's says link_id, and the
# prog_id of its program, which is not one held. Every fdinfo opens with
# its pos: line. One cat and one awk for all fds (a readlink and a sed per
# fd took 13 s on the host and minutes under TCG); cat, as mawk stops at a
# file it cannot open, and latbpf closes fds of its own while it runs (the
# 6.1-rt guest once read no program at all).
held_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null |
		awk -v k="$2_id:" '$1 == "pos:" { if (id != "" && !link) print id; id = ""; link = 0 }
			$1 == "link_id:" { link = 1 }
			$1 == k { id = $2 }
			END { if (id != "" && !link) print id }' | sort -un
}
# held_map PID NAME: the id of the map called NAME that process PID holds
# (one bpftool call: in a qemu guest each takes seconds)
held_map() {
	local ids
	ids=$(held_ids "$1" map | paste -sd, -)
	[ -n "$ids" ] || return 1
	bpftool map show -j | jq -e -r --arg n "$2" --arg ids "$ids" \
		'($ids | split(",") | map(tonumber)) as $i |
		 [.[] | select(.name == $n and (.id as $x | $i | index($x) != null)) | .id] | first // empty'
}

# runqlat's log2 histogram: prints "count p50_low p50_high" in ns
# runqlat_rank FILE RANK: the bounds (ns) of runqlat's log2 bucket that
# holds the RANK-th smallest sample: "lo hi", hi exclusive (a RANK past
# the count: the last bucket with samples; none at all: "0 0")
runqlat_rank() {
	awk -v r="$2" '/->/ { s += $5; if ($5 > 0) { lo = $1 * 1000; hi = ($3 + 1) * 1000 }
	                      if (s >= r && $5 > 0) { f = 1; exit } }
	     END { print lo + 0, hi + 0 }' "$1"
}
runqlat_summary() {
	awk '/->/ { lo[n] = $1; hi[n] = $3; c[n] = $5; tot += $5; n++ }
	     END { half = tot / 2; s = 0
	           for (i = 0; i < n; i++) { s += c[i]; if (s >= half) { print tot, lo[i] * 1000, (hi[i] + 1) * 1000; exit } }
	           print tot, 0, 0 }' "$1"
}

#!/usr/bin/env bash
# latbpf as the latbpf-exporter service runs it (systemd/), without systemd
# as init: started by systemd-socket-activate it serves the socket it was
# given, not the address it names; run as the unit says (an unprivileged
# user, the unit's capabilities and nothing else, no new privileges, the
# options of its EnvironmentFile) every family attaches and a scrape gets
# 200; SIGTERM, what systemd stops it with, ends it with exit 0 and none of
# its BPF programs or maps left in the kernel (bpftool); --pid of root's
# process and a COMMAND work so too; strace finds no
# system call outside the unit's SystemCallFilter, through a TLS scrape and
# a SIGHUP reload.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
need_root
for tool in systemd-socket-activate systemd-analyze setpriv capsh curl bpftool ss strace openssl htpasswd jq; do
	check "$tool is installed (tools/install-deps.sh)" command -v "$tool"
done
unit=systemd/latbpf-exporter.service.in
http() { timeout 10 curl -s --max-time 5 -o "${2:-/dev/null}" -w '%{http_code}' "${@:3}" "$1"; }
# until URL answers 200 (the first interval comes a second after attaching)
until_200() {
	local i c
	for ((i = 0; i < 100; i++)); do
		c=$(http "$@")
		[ "$c" = 200 ] && return 0
		sleep 0.2
	done
	diag "last answer of $1: $c"
	return 1
}
# ids: every BPF program and map of the kernel now
bpf_ids() { { bpftool prog show -j | jq -r '.[].id | "prog \(.)"'; bpftool map show -j | jq -r '.[].id | "map \(.)"'; } | sort; }
# gone PID_IDS_FILE: none of those ids is still in the kernel (the kernel
# frees closed programs after an RCU grace period: 3 s at most)
gone() {
	local i
	for ((i = 0; i < 30; i++)); do
		[ -z "$(comm -12 "$1" <(bpf_ids))" ] && return 0
		sleep 0.1
	done
	diag "still in the kernel: $(comm -12 "$1" <(bpf_ids) | paste -sd' ')"
	return 1
}
# term PID PARENT: SIGTERM to latbpf itself, as systemd sends it; the exit
# status, from the timeout wrapper (this shell's child) that passes it on
term() {
	kill -TERM "$1" 2>/dev/null
	stop "$2" CONT
}
held() { { held_ids "$1" prog | sed 's/^/prog /'; held_ids "$1" map | sed 's/^/map /'; } | sort; }

# 1. Socket activation: the socket systemd-socket-activate made, not the
# address --prometheus names. A COMMAND, which latbpf forks before it
# serves, must see neither the socket nor LISTEN_FDS.
SP=$(free_port)
XP=$(free_port)
timeout -s INT 90 systemd-socket-activate -l "127.0.0.1:$SP" "$LATBPF" --no-tui --probes sched \
	--interval 500ms --prometheus "127.0.0.1:$XP" -- \
	sh -c "tr '\\0' '\\n' </proc/\$\$/environ >'$T/child.env'; ls /proc/\$\$/fd >'$T/child.fds'; sleep 60" \
	>"$T/sa.out" 2>"$T/sa.err" &
SA_W=$!
_pids+=("$SA_W")
wait_for "$T/sa.err" "Listening on 127.0.0.1:$SP" 10
ok $? "systemd-socket-activate listens on 127.0.0.1:$SP"
# its first connection starts latbpf; a scrape before its first interval is a 503
until_200 "http://127.0.0.1:$SP/metrics" "$T/sa.metrics"
ok $? "curl of the socket it was given: 200"
SA=$(pgrep -f -n "^$LATBPF --no-tui --probes sched --interval 500ms --prometheus 127.0.0.1:$XP")
check "the body is latbpf's" grep -q '^latbpf_build_info{' "$T/sa.metrics"
check "latbpf says it serves the socket systemd passed" grep -q "the socket systemd passed" "$T/sa.err"
check "and did not bind the address it names (127.0.0.1:$XP)" test -z "$(ss -ltnH "sport = :$XP")"
wait_for "$T/child.fds" . 5
check "its COMMAND got no LISTEN_ variable ($(grep '^LISTEN_' "$T/child.env" | paste -sd' '))" \
	bash -c "[ -s '$T/child.env' ] && ! grep -q '^LISTEN_' '$T/child.env'"
check "nor the socket (its fds: $(paste -sd' ' "$T/child.fds"))" bash -c "[ -s '$T/child.fds' ] && ! grep -qx 3 '$T/child.fds'"
held "$SA" >"$T/sa.ids"
term "$SA" "$SA_W"
rc=$?
check "SIGTERM: exit 0 ($rc)" test "$rc" = 0
check "none of its BPF programs or maps left ($(wc -l <"$T/sa.ids") held)" gone "$T/sa.ids"

# 2. As the unit runs it: its user is not root, its capabilities are the
# unit's, its options the EnvironmentFile's
caps=$(sed -n 's/^AmbientCapabilities=//p' "$unit")
bound=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
check "the unit's ambient and bounding capabilities are the same set ($caps)" test -n "$caps" -a "$caps" = "$bound"
check "the unit runs latbpf as a dynamic user, with no new privileges" \
	bash -c "grep -qx 'DynamicUser=yes' $unit && grep -qx 'NoNewPrivileges=yes' $unit"
setcaps=$(echo "$caps" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
ARGS=$(. systemd/latbpf-exporter.default && echo "$ARGS")
check "the EnvironmentFile's ARGS has --prometheus ($ARGS)" grep -q -- '--prometheus' <<<"$ARGS"
EP=$(free_port)
args=$(sed -E "s/(--prometheus [^ ]*:)[0-9]+/\1$EP/" <<<"$ARGS")
# shellcheck disable=SC2086
timeout -s INT 120 setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
	--inh-caps="$setcaps" --ambient-caps="$setcaps" --bounding-set="-all,$setcaps" \
	"$LATBPF" --no-tui $args >"$T/svc.out" 2>"$T/svc.err" &
SVC_W=$!
_pids+=("$SVC_W")
wait_for "$T/svc.err" '^latbpf: attached' 20
ok $? "latbpf --no-tui $args, as nobody with $caps: attached"
SVC=$(pgrep -f -n "^$LATBPF --no-tui $args")
diag "$(grep '^probes:' "$T/svc.err")"
# every family a run has by default: all but time and record (asked for)
for fam in $("$LATBPF" --help | awk '/--probes LIST/ { getline; gsub(/ /, ""); print; exit }' | tr , ' '); do
	[ "$fam" = record ] || [ "$fam" = time ] && continue
	check "$fam attached without root" grep -qE "^probes:.* $fam=attached" "$T/svc.err"
done
check "it runs as uid 65534" bash -c "awk '/^Uid:/ { exit !(\$2 == 65534 && \$3 == 65534) }' /proc/$SVC/status"
capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$SVC/status")
have=$(capsh --decode="$capeff" 2>/dev/null | cut -d= -f2 | tr ',' '\n' | sort | paste -sd' ')
want=$(echo "$caps" | tr 'A-Z ' 'a-z\n' | sort | paste -sd' ')
check "with exactly the unit's capabilities ($have)" test -n "$have" -a "$have" = "$want"
until_200 "http://127.0.0.1:$EP/metrics" "$T/svc.metrics"
ok $? "a scrape of 127.0.0.1:$EP: 200"
check "every family is up in the scrape" bash -c "! grep -q '^latbpf_probe_up{.*} 0' '$T/svc.metrics' && grep -q '^latbpf_probe_up{' '$T/svc.metrics'"
held "$SVC" >"$T/svc.ids"
check "it holds BPF programs and maps ($(wc -l <"$T/svc.ids"))" test -s "$T/svc.ids"
term "$SVC" "$SVC_W"
rc=$?
check "SIGTERM, as systemd stops it: exit 0 ($rc)" test "$rc" = 0
check "none of its programs or maps left in the kernel" gone "$T/svc.ids"

# without root, --pid of root's process (pid 1) and a COMMAND: attached,
# exit 0, the target in the final record
for target in "--pid 1" "-- sleep 1"; do
	# shellcheck disable=SC2086
	timeout -s INT 60 setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
		--inh-caps="$setcaps" --ambient-caps="$setcaps" --bounding-set="-all,$setcaps" \
		"$LATBPF" --no-tui --probes sched --duration 2s --json - $target >"$T/np.json" 2>"$T/np.err"
	rc=$?
	pids=$(jq -r 'select(.final) | .run.target.pids | join(",")' "$T/np.json" 2>/dev/null)
	check "as nobody with $caps, $target: exit 0, sched attached, target pid $pids ($rc: $(head -1 "$T/np.err" | cut -c1-100))" \
		bash -c "[ $rc = 0 ] && [ -n '$pids' ] && grep -q '^probes: sched=attached' '$T/np.err'"
done

# 3. Its system calls against the unit's SystemCallFilter, through TLS,
# basic auth and a reload
filter=$(sed -n 's/^SystemCallFilter=//p' "$unit")
check "the unit has a SystemCallFilter ($filter)" test -n "$filter"
expand() {
	systemd-analyze syscall-filter "$1" 2>/dev/null | tail -n +2 | sed 's/^ *//; /^#/d; /^$/d' |
		while read -r x; do case $x in @*) expand "$x" ;; *) echo "$x" ;; esac; done
}
for f in $filter; do
	case $f in @*) expand "$f" ;; *) echo "$f" ;; esac
done | sort -u >"$T/allowed"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$T/tls.key" -out "$T/tls.crt" 2>/dev/null
chmod 0640 "$T/tls.key"
chgrp 65534 "$T/tls.key"
chmod 0755 "$T"
hash=$(htpasswd -nbBC 4 scraper s3cret | cut -d: -f2)
printf 'tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\nbasic_auth_users:\n  scraper: %s\n' \
	"$hash" >"$T/web.yml"
EP=$(free_port)
# shellcheck disable=SC2086
timeout -s INT 120 strace -f -qq -o "$T/strace" setpriv --reuid=65534 --regid=65534 --clear-groups \
	--no-new-privs --inh-caps="$setcaps" --ambient-caps="$setcaps" --bounding-set="-all,$setcaps" \
	"$LATBPF" --no-tui --prometheus "127.0.0.1:$EP" --web-config "$T/web.yml" >"$T/st.out" 2>"$T/st.err" &
ST=$!
_pids+=("$ST")
wait_for "$T/st.err" '^latbpf: attached' 30
ok $? "latbpf under strace, as the unit runs it, with TLS and a password: attached"
until_200 "https://127.0.0.1:$EP/metrics" /dev/null --cacert "$T/tls.crt" -u scraper:s3cret
ok $? "a TLS scrape with the password: 200"
LP=$(pgrep -f -n "^$LATBPF --no-tui --prometheus 127.0.0.1:$EP")
kill -HUP "$LP" 2>/dev/null
wait_for "$T/st.err" 'SIGHUP: reread' 10
ok $? "SIGHUP: the web config reread"
until_200 "https://127.0.0.1:$EP/metrics" /dev/null --cacert "$T/tls.crt" -u scraper:s3cret
ok $? "and a scrape after it: 200"
term "$LP" "$ST"
rc=$?
check "SIGTERM under strace: exit 0 ($rc)" test "$rc" = 0
# the calls from latbpf's exec on (setpriv's own are before it)
awk '/execve\("[^"]*latbpf"/ { on = 1 } on' "$T/strace" |
	sed -nE 's/^[0-9]+ +(<\.\.\. )?([a-z_0-9]+)[( ].*/\2/p' | sort -u >"$T/called"
outside=$(comm -23 "$T/called" "$T/allowed" | paste -sd' ')
diag "$(wc -l <"$T/called") distinct system calls: $(paste -sd' ' "$T/called")"
check "every system call is in the unit's SystemCallFilter (outside: '$outside')" \
	test -s "$T/called" -a -z "$outside"
done_testing

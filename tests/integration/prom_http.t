#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The --prometheus endpoint (src/output/http.c), without root and without latbpf:
# tests/httpserve publishes from a stand-in poll loop, curl checks the
# protocol, tests/httpfuzz abuses it; after that the server must be alive,
# answer at once, never have stalled its publisher, and not have grown.
# Two scrapers then measure what a scrape costs. Loopback only.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1

installed() { command -v "$1" >/dev/null; }
for tool in gcc curl timeout awk sort tail; do
	check "$tool is installed" installed "$tool"
done
CFLAGS_T="-std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -Iinclude -Isrc -Isrc/core -Isrc/output"
# shellcheck disable=SC2086
check "httpserve builds" timeout 120 gcc $CFLAGS_T tests/httpserve.c src/output/http.c \
	src/output/webconfig.c src/core/escape.c -o "$T/httpserve" -ldl -lyaml -lcrypt -lpthread
# shellcheck disable=SC2086
check "httpfuzz builds" timeout 120 gcc $CFLAGS_T tests/httpfuzz.c -o "$T/httpfuzz" -lpthread
if [ ! -x "$T/httpserve" ] || [ ! -x "$T/httpfuzz" ]; then
	done_testing
fi

# the first publish comes a second after it listens: time to see the 503
timeout -s INT 200 "$T/httpserve" --seconds 170 --hold-ms 1000 >"$T/serve.out" 2>"$T/serve.err" &
SRV=$!
_pids+=("$SRV")
wait_for "$T/serve.out" '^listening [0-9]+ pid [0-9]+$' 10
ok $? "httpserve listens"
read -r PORT HPID < <(sed -n 's/^listening \([0-9]*\) pid \([0-9]*\)$/\1 \2/p' "$T/serve.out")
[ -n "${HPID:-}" ] || done_testing
_pids+=("$HPID")
URL=http://127.0.0.1:$PORT

# code URL [CURL ARGS...]: the status code, 000 when there was none
code() {
	local url=$1; shift
	timeout 10 curl -sS --max-time 2 -o /dev/null -w '%{http_code}' "$@" "$url" 2>/dev/null
}
# stats: the line httpserve prints on SIGUSR1
stats() {
	local n
	n=$(grep -c '^stats ' "$T/serve.out")
	kill -USR1 "$HPID"
	for ((i = 0; i < 40; i++)); do
		[ "$(grep -c '^stats ' "$T/serve.out")" -gt "$n" ] && break
		sleep 0.05
	done
	grep '^stats ' "$T/serve.out" | tail -1
}
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

c=$(code "$URL/metrics")
check "GET /metrics before the first publish: 503 ($c)" test "$c" = 503
for ((i = 0; i < 50; i++)); do
	[ "$(code "$URL/metrics")" = 200 ] && break
	sleep 0.1
done

c=$(timeout 10 curl -sS --max-time 2 -D "$T/get.h" -o "$T/get.b" -w '%{http_code}' "$URL/metrics")
check "GET /metrics: 200 ($c)" test "$c" = 200
check "GET /metrics: Prometheus text content type" \
	grep -qix 'Content-Type: text/plain; version=0.0.4; charset=utf-8.' "$T/get.h"
check "GET /metrics: the published body" grep -q '^latbpf_demo_publishes_total [0-9]' "$T/get.b"

# HEAD over a raw socket, HTTP/1.0 so the server closes: no body may follow
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'HEAD /metrics HTTP/1.0\r\n\r\n' >&3
timeout 2 cat <&3 >"$T/head"
exec 3<&-
check "HEAD /metrics: 200" grep -q '^HTTP/1\.[01] 200' "$T/head"
check "HEAD /metrics: the content type" grep -qi '^Content-Type: text/plain; version=0.0.4' "$T/head"
check "HEAD /metrics: the body's Content-Length" grep -qiE '^Content-Length: [1-9][0-9]*' "$T/head"
# shellcheck disable=SC2016
check "HEAD /metrics: no body" awk 'BEGIN { RS = "\r\n\r\n" } NR > 1 && length($0) { exit 1 }' "$T/head"

c=$(code "$URL/other")
check "GET /other: 404 ($c)" test "$c" = 404
c=$(timeout 10 curl -sS --max-time 2 -X POST -d x -D "$T/post.h" -o /dev/null -w '%{http_code}' "$URL/metrics")
check "POST /metrics: 405 ($c)" test "$c" = 405
check "POST /metrics: Allow: GET, HEAD" grep -qix 'Allow: GET, HEAD.' "$T/post.h"

printf 'X-Big: %s\n' "$(head -c 102400 /dev/zero | tr '\0' a)" >"$T/big.h"
c=$(code "$URL/metrics" -H @"$T/big.h")
check "a 100 KiB header: a 4xx or closed ($c)" grep -qE '^(4[0-9][0-9]|000)$' <<<"$c"
check "a 100 KiB header: the server lives" kill -0 "$HPID"

# 8 connections per address: a 9th from 127.0.0.1 is refused, one from
# 127.0.0.2 (another address, still loopback) is served
fds=()
for ((i = 0; i < 8; i++)); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" && fds+=("$fd") && printf 'GET /me' >&"$fd"
done
sleep 0.2
c=$(code "$URL/metrics")
check "a 9th connection from one address: refused ($c)" test "$c" = 000
c=$(code "$URL/metrics" --interface 127.0.0.2)
check "meanwhile one from another address: 200 ($c)" test "$c" = 200
# an idle, half-sent request: the server closes it on its 5 s timeout (not
# before, less the second since it was sent; when after is the host's
# speed: what is judged is that the server, not this test's bound, ends it)
t0=$(date +%s%N)
timeout 20 cat <&"${fds[0]}" >/dev/null
rc=$?
t=$((($(date +%s%N) - t0) / 1000000))
for fd in "${fds[@]}"; do exec {fd}<&-; done
check "an idle half-sent request is closed by the server (cat saw its end: $rc), not before its 5 s timeout (${t} ms)" \
	bash -c "[ $rc = 0 ] && [ $t -ge 4000 ]"

# warm up (MHD's pools, malloc's arenas) before the RSS baseline
timeout 60 "$T/httpfuzz" --port "$PORT" --requests 1000 --seconds 20 >"$T/warm" 2>&1
rc=$?
ok $rc "httpfuzz warm-up: $(cat "$T/warm")"
warm=$(stats)
rss_warm=$(field rss_kb "$warm")

timeout 90 "$T/httpfuzz" --port "$PORT" --requests 10000 --seconds 60 >"$T/fuzz" 2>&1
ok $? "httpfuzz: 10000 requests in at most 60 s"
fuzz=$(cat "$T/fuzz")
diag "$fuzz"
check "httpfuzz sent all 10000" grep -q ' requests=10000 ' "$T/fuzz"
for k in valid malformed oversized slowloris halfopen pipelined garbage method; do
	n=$(field "$k" "$fuzz")
	check "httpfuzz: $k requests sent ($n)" num_le 1000 "${n:-x}"
done
for s in 200 400 404 405; do
	n=$(field "s$s" "$fuzz")
	check "httpfuzz: answers $s seen ($n)" num_le 1 "${n:-x}"
done
n=$(($(field s413 "$fuzz") + 0 + $(field s414 "$fuzz") + 0 + $(field s431 "$fuzz") + 0))
check "httpfuzz: oversized requests refused with 413/414/431 ($n)" num_le 100 "$n"
n=$(field valid_failed "$fuzz")
check "httpfuzz: valid requests amid the abuse answered 200 (failed: $n)" num_le "${n:-x}" 12

check "after the fuzz: the server lives" kill -0 "$HPID"
c=$(timeout 15 curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "$URL/metrics")
check "after the fuzz: GET /metrics 200 ($c)" test "$c" = 200

# two scrapers at 10 Hz for 20 s: one "code seconds" line per scrape
scraper() {
	local i next d
	next=$(date +%s%N)
	for ((i = 0; i < 200; i++)); do
		# curl prints a line (000 when there was no answer) unless killed
		timeout 5 curl -sS --max-time 2 -o /dev/null -w '%{http_code} %{time_total}\n' \
			"$URL/metrics" >>"$1" 2>/dev/null
		next=$((next + 100000000))
		d=$((next - $(date +%s%N)))
		[ "$d" -gt 0 ] && sleep "$(printf '0.%09d' "$d")"
	done
}
scraper "$T/scrape1" &
s1=$!
scraper "$T/scrape2" &
s2=$!
_pids+=("$s1" "$s2")
timeout 40 tail --pid="$s1" -f /dev/null
timeout 10 tail --pid="$s2" -f /dev/null
kill "$s1" "$s2" 2>/dev/null
wait "$s1" "$s2" 2>/dev/null
cat "$T/scrape1" "$T/scrape2" >"$T/scrapes"
n=$(wc -l <"$T/scrapes")
bad=$(awk '$1 != 200' "$T/scrapes" | wc -l)
check "2 scrapers x 200 scrapes: all done ($n)" test "$n" -eq 400
check "2 scrapers: every answer 200 (others: $bad)" test "$bad" -eq 0
read -r p50 p99 max < <(awk '{ print $2 * 1000 }' "$T/scrapes" | sort -n |
	awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < NR * 0.99) i++
	       printf "%.3f %.3f %.3f\n", v[int((NR + 1) / 2)], v[i], v[NR] }')
diag "scrape time (2 scrapers, 10 Hz, 20 s, n=$n): p50 ${p50:-?} ms, p99 ${p99:-?} ms, max ${max:-?} ms"
# (how fast is the host's speed: tools/scrape.sh measures a scrape against a
# 404 from the same server, in the same run)

end=$(stats)
diag "after warm-up: $warm"
diag "at the end:    $end"
rss_end=$(field rss_kb "$end")
# the publisher went on through it all (how late it ran is in the stats
# above, and the host's speed: no client may stop it, which is latbpf's)
check "the publisher kept publishing through the scrapers and the fuzzer ($(field publishes "$warm") -> $(field publishes "$end"))" \
	num_le "$(($(field publishes "$warm") + 1))" "$(field publishes "$end")"
check "VmRSS at the end within 2 MiB of after warm-up (${rss_warm:-?} -> ${rss_end:-?} kB)" \
	num_le "${rss_end:-x}" "$((${rss_warm:-0} + 2048))"
n=$(field ok "$end")
check "self stats: ok counts at least the fuzzer's 200s ($n)" num_le "$(field s200 "$fuzz")" "${n:-x}"
check "self stats: client errors counted ($(field client_errors "$end"))" num_le 1 "$(field client_errors "$end")"
check "self stats: dropped connections counted ($(field dropped "$end"))" num_le 1 "$(field dropped "$end")"

stop "$SRV"	# timeout passes SIGINT on to httpserve
rc=$?
check "httpserve exits 0 on SIGINT ($rc)" test $rc -eq 0
check "httpserve printed its last stats" grep -q '^stats when=end ' "$T/serve.out"
check "httpserve said nothing on stderr" test ! -s "$T/serve.err"

# Slow readers: 8 MiB bodies, 4 clients that ask and never read. Each keeps
# its body alive in MHD; the publisher must not notice, another scraper must
# get a whole body, and the server must drop them on its timeout.
# (the first server's files go first: the shell truncates them in the
# child, after the fork, and wait_for's first look once found the old
# "listening" line, and the read after it an empty file)
rm -f "$T/serve.out" "$T/serve.err"
timeout -s INT 60 "$T/httpserve" --seconds 40 --pad-kb 8192 >"$T/serve.out" 2>"$T/serve.err" &
SRV=$!
_pids+=("$SRV")
wait_for "$T/serve.out" '^listening [0-9]+ pid [0-9]+$' 10
read -r PORT HPID < <(sed -n 's/^listening \([0-9]*\) pid \([0-9]*\)$/\1 \2/p' "$T/serve.out")
_pids+=("${HPID:-}")
URL=http://127.0.0.1:$PORT
sleep 0.3
fds=()
for ((i = 0; i < 4; i++)); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" && fds+=("$fd") &&
		printf 'GET /metrics HTTP/1.1\r\nHost: l\r\n\r\n' >&"$fd"
done
sleep 2
read -r c size < <(timeout 10 curl -sS --max-time 5 -o /dev/null -w '%{http_code} %{size_download}\n' "$URL/metrics")
check "slow readers: another scrape gets 200 ($c)" test "${c:-}" = 200
check "slow readers: and the whole 8 MiB body (${size:-?} bytes)" num_le 8388608 "${size:-x}"
held=$(stats)
sleep 6
slow=$(stats)
for fd in "${fds[@]}"; do exec {fd}<&-; done
diag "slow readers: $slow"
check "slow readers: the publisher kept publishing while they held their bodies ($(field publishes "$held") -> $(field publishes "$slow"))" \
	num_le "$(($(field publishes "$held") + 1))" "$(field publishes "$slow")"
n=$(field dropped "$slow")
check "slow readers: dropped on the server's timeout ($n)" num_le 4 "${n:-x}"
stop "$SRV"
rc=$?
check "httpserve exits 0 on SIGINT ($rc)" test $rc -eq 0
check "httpserve said nothing on stderr" test ! -s "$T/serve.err"
done_testing

#!/usr/bin/env bash
# --prometheus behind --web-config (issue 30 item 5), with clients nobody
# here wrote: certificates made by openssl, the password hashed by Apache's
# htpasswd (bcrypt, cost 10), Debian's Prometheus scraping over https with
# tls_config and basic_auth (up == 1, and the _count it stored is latbpf's
# own count at that interval), curl for the answers: 401 with
# WWW-Authenticate without the password or with a wrong one, no answer over
# plain HTTP, a TLS 1.1-only client refused until the file allows TLS10
# (reread on SIGHUP), a client certificate required when the file says so.
# The HTTP fuzzer again, through socat's TLS and raw at the TLS port:
# latbpf stays up, its RSS flat. Every refused file: exit 2 and one line
# naming the file and the key.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
need_root
for tool in prometheus curl openssl htpasswd socat gcc jq; do
	check "$tool is installed (tools/install-deps.sh)" command -v "$tool"
done
timeout 60 gcc -O2 -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE \
	tests/httpfuzz.c -o "$T/httpfuzz" -lpthread
ok $? "the fuzzer builds"

# a CA; the server's certificate for 127.0.0.1; a scraper's client
# certificate from the CA, and one from nobody's
ssl() { timeout 30 openssl "$@" 2>>"$T/openssl.log"; }
ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=test-ca \
	-keyout "$T/ca.key" -out "$T/ca.crt"
ssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$T/tls.key" -out "$T/tls.csr"
ssl x509 -req -in "$T/tls.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" -CAcreateserial -days 2 \
	-copy_extensions copy -out "$T/tls.crt"
printf 'extendedKeyUsage=clientAuth\n' >"$T/client.ext"
ssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=scraper \
	-keyout "$T/client.key" -out "$T/client.csr"
ssl x509 -req -in "$T/client.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" -CAcreateserial -days 2 \
	-extfile "$T/client.ext" -out "$T/client.crt"
ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=rogue \
	-keyout "$T/rogue.key" -out "$T/rogue.crt"
chmod 0600 "$T"/*.key
check "openssl made the certificates" ssl verify -CAfile "$T/ca.crt" "$T/tls.crt" "$T/client.crt"
hash=$(htpasswd -nbBC 10 scraper s3cret | cut -d: -f2)
check "htpasswd made a bcrypt hash ($hash)" grep -qE '^\$2y\$10\$.{53}$' <<<"$hash"

conf() { # NAME EXTRA-TLS-LINES: a web config with TLS and the password
	printf 'tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n%bbasic_auth_users:\n  scraper: %s\n' \
		"$2" "$hash" >"$T/$1.yml"
}
conf tls ''
conf tls10 '  min_version: TLS10\n'
conf mtls '  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n'
cp "$T/tls.yml" "$T/web.yml"

LP=$(free_port)
PP=$(free_port)
start_work w --linger sleep --sleep 1ms --count 60000 --threads 2
LAT_TMO=170 start_latbpf p --pid "$WORK_PID" --interval 1s --duration 160s --no-tui \
	--json "$T/p.json" --prometheus "127.0.0.1:$LP" --web-config "$T/web.yml"
ok $? "latbpf serves TLS on 127.0.0.1:$LP"
kill -USR1 "$WORK_PID"
LATBPF_PROC=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
check "it says TLS and basic auth" grep -q 'GET /metrics over TLS with basic auth' "$T/p.err"
reload() { # FILE: the web config latbpf rereads on SIGHUP
	local n
	n=$(grep -c 'SIGHUP: ' "$T/p.err")
	cp "$T/$1.yml" "$T/web.yml"
	kill -HUP "$LATBPF_PROC"
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c 'SIGHUP: ' "$T/p.err")" -gt "$n" ] && break
		sleep 0.05
	done
	grep 'SIGHUP: ' "$T/p.err" | tail -1 | grep -q 'reread'
}
URL=https://127.0.0.1:$LP/metrics
code() { timeout 10 curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$@"; }

cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: latbpf
    scheme: https
    tls_config:
      ca_file: $T/ca.crt
      cert_file: $T/client.crt
      key_file: $T/client.key
    basic_auth:
      username: scraper
      password: s3cret
    static_configs:
      - targets: ['127.0.0.1:$LP']
EOF
start_prometheus "$T/prom.yml" 200
up=$(prom_up latbpf)
check "Prometheus scrapes it over https with basic auth: up == 1 ($up)" test "$up" = 1

c=$(timeout 10 curl -s --max-time 5 -D "$T/h401" -o /dev/null -w '%{http_code}' --cacert "$T/ca.crt" "$URL")
check "no password: 401 ($c)" test "$c" = 401
check "with WWW-Authenticate: Basic" grep -qiE '^WWW-Authenticate: Basic' "$T/h401"
c=$(code --cacert "$T/ca.crt" -u scraper:wrong "$URL")
check "a wrong password: 401 ($c)" test "$c" = 401
c=$(code --cacert "$T/ca.crt" -u nobody:s3cret "$URL")
check "an unknown user: 401 ($c)" test "$c" = 401
c=$(timeout 10 curl -s --max-time 5 -o "$T/m.txt" -w '%{http_code}' --cacert "$T/ca.crt" -u scraper:s3cret "$URL")
check "the password: 200 ($c)" test "$c" = 200
check "and the metrics" grep -q '^latbpf_sched_runq_seconds_count' "$T/m.txt"
timeout 10 curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$LP/metrics"
rc=$?
check "plain HTTP to the TLS port: no answer (curl exit $rc)" test "$rc" -ne 0
c=$(code --cacert "$T/ca.crt" -u scraper:s3cret --tls-max 1.2 "$URL")
check "TLS 1.2: 200 ($c)" test "$c" = 200
c=$(code --cacert "$T/ca.crt" -u scraper:s3cret --tlsv1.3 "$URL")
check "TLS 1.3: 200 ($c)" test "$c" = 200
# a client that speaks TLS 1.1 only (OpenSSL's security level 0 lets it)
tls11() { code --cacert "$T/ca.crt" -u scraper:s3cret --tlsv1.1 --tls-max 1.1 --ciphers 'DEFAULT:@SECLEVEL=0' "$URL"; }
c=$(tls11)
check "a TLS 1.1-only client: refused ($c)" test "$c" = 000

# Prometheus's _count at one instant, and latbpf's own count through the
# interval that scrape had (as prom.t does for the plain endpoint)
sleep 5
at=$(date +%s.%N)
k=$(query 'latbpf_interval' "$at")
pc=$(query 'latbpf_sched_runq_seconds_count' "$at")
diag "at $at: interval $k, _count $pc"

check "SIGHUP with min_version TLS10: reread" reload tls10
c=$(tls11)
check "the same TLS 1.1 client now: 200 ($c)" test "$c" = 200
check "SIGHUP with client certificates required: reread" reload mtls
c=$(code --cacert "$T/ca.crt" -u scraper:s3cret "$URL")
check "no client certificate: refused ($c)" test "$c" = 000
c=$(code --cacert "$T/ca.crt" -u scraper:s3cret --cert "$T/rogue.crt" --key "$T/rogue.key" "$URL")
check "a certificate from another CA: refused ($c)" test "$c" = 000
c=$(code --cacert "$T/ca.crt" -u scraper:s3cret --cert "$T/client.crt" --key "$T/client.key" "$URL")
check "the scraper's certificate and the password: 200 ($c)" test "$c" = 200
c=$(code --cacert "$T/ca.crt" --cert "$T/client.crt" --key "$T/client.key" "$URL")
check "the certificate without the password: 401 ($c)" test "$c" = 401
sleep 3
t=$(date +%s.%N)
check "Prometheus, which has the certificate, still scrapes: up == 1" test "$(query 'up{job="latbpf"}' "$t")" = 1
printf 'tls_server_config:\n  cert_fil: tls.crt\n' >"$T/junk.yml"
n=$(grep -c . "$T/p.err")
reload junk
check "SIGHUP with a bad file: refused" test $? -ne 0
check "one line names the file and the key" bash -c "tail -n +$((n + 1)) '$T/p.err' | grep -q 'web.yml: line 2: tls_server_config.cert_fil: unknown key'"
c=$(code --cacert "$T/ca.crt" -u scraper:s3cret --cert "$T/client.crt" --key "$T/client.key" "$URL")
check "and it serves as before: 200 ($c)" test "$c" = 200
kill -TERM "$PROM_PID" 2>/dev/null
wait "$PROM_PID" 2>/dev/null

# The fuzzer at the TLS endpoint (no client certificate needed again):
# through socat's TLS, a new TLS connection per fuzzer connection, and raw
check "SIGHUP back to TLS and the password" reload tls
FP=$(free_port)
timeout -s KILL 120 socat "TCP-LISTEN:$FP,bind=127.0.0.1,reuseaddr,fork" \
	"OPENSSL:127.0.0.1:$LP,cafile=$T/ca.crt,verify=0" 2>"$T/socat.err" &
_pids+=($!)
for ((i = 0; i < 50; i++)); do
	ss -ltnH "sport = :$FP" | grep -q . && break
	sleep 0.1
done
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$LATBPF_PROC/status"; }
# a first round lets the allocator and GnuTLS reach their high water
# (+0.5..0.9 MiB measured); after it a leak of 256 bytes a request would
# add 1 MiB
rssa=$(rss)
timeout 30 "$T/httpfuzz" --port "$FP" --requests 500 --seconds 10 >"$T/fuzz0.out" 2>&1
ok $? "a first round of the fuzzer through TLS ($(tail -1 "$T/fuzz0.out" | cut -c1-120))"
sleep 1
rss0=$(rss)
timeout 45 "$T/httpfuzz" --port "$FP" --requests 2000 --seconds 25 >"$T/fuzz1.out" 2>&1
ok $? "the fuzzer through TLS ran to its end ($(tail -1 "$T/fuzz1.out" | cut -c1-200))"
timeout 30 "$T/httpfuzz" --port "$LP" --requests 2000 --seconds 15 >"$T/fuzz2.out" 2>&1
ok $? "the fuzzer raw at the TLS port ran to its end ($(tail -1 "$T/fuzz2.out" | cut -c1-200))"
sleep 1
rss1=$(rss)
check "latbpf survived both" kill -0 "$LATBPF_PROC"
c=$(code --cacert "$T/ca.crt" -u scraper:s3cret "$URL")
check "and still answers a scrape over TLS: 200 ($c)" test "$c" = 200
diag "RSS: $rssa KiB before the fuzzers, $rss0 after the first round, $rss1 after the others"
check "RSS flat through 4,000 more: $rss0 -> $rss1 KiB (+1 MiB at most)" num_le "$rss1" "$((rss0 + 1024))"
stop "$LAT_PID"
ok $? "latbpf exits 0 on SIGINT"
kill -TERM "$WORK_PID" 2>/dev/null

lc=$(jq -s --argjson k "${k:-0}" '[.[] | select(.interval and .interval <= $k) | .sched.runq.count] | add' "$T/p.json")
check "Prometheus's _count over TLS ($pc) = latbpf's count through interval $k ($lc)" \
	bash -c "[ -n '$pc' ] && [ '$pc' = '$lc' ]"

# Refused files: exit 2, one line naming the file and the key
bad() { # NAME KEY-REGEX YAML
	printf '%b' "$3" >"$T/$1.yml"
	usage_error "--web-config $1" "web-config $T/$1.yml: .*$2" --prometheus 127.0.0.1:0 \
		--web-config "$T/$1.yml"
}
bad unknown 'tls_server_config\.cert_filse: unknown key' 'tls_server_config:\n  cert_filse: tls.crt\n  key_file: tls.key\n'
bad plain 'basic_auth_users\.scraper: not a bcrypt hash' 'basic_auth_users:\n  scraper: s3cret\n'
bad nokey 'tls_server_config\.key_file: cannot read' 'tls_server_config:\n  cert_file: tls.crt\n  key_file: missing.key\n'
bad dirkey 'tls_server_config\.key_file: .* is not a file' 'tls_server_config:\n  cert_file: tls.crt\n  key_file: /etc\n'
cp "$T/tls.key" "$T/open.key"
chmod 0644 "$T/open.key"
bad openkey 'tls_server_config\.key_file: .*open\.key is readable by others' 'tls_server_config:\n  cert_file: tls.crt\n  key_file: open.key\n'
bad mismatch 'tls_server_config\.cert_file, key_file: GnuTLS' 'tls_server_config:\n  cert_file: tls.crt\n  key_file: client.key\n'
usage_error "--web-config without --prometheus" 'web-config is for --prometheus' --web-config "$T/tls.yml"
done_testing

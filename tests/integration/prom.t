#!/usr/bin/env bash
# --prometheus, read by a real Prometheus (Debian's, temporary storage, on
# 127.0.0.1) scraping every second during a known workload: the target is
# up, promtool finds the exposition clean, histogram_quantile(0.99) lands
# within one exported bucket of latbpf's own p99, and _count equals
# latbpf's count at that scrape. Then the endpoint under abuse, on a
# whole-system run with every family on: 2 scrapers at 10 Hz for 30 s, and
# 10,000 malformed, oversized, slow and half-open requests
# (tests/httpfuzz.c), while the poll loop must keep its 1 s beat and the
# RSS stay flat.
. "$(dirname "$0")/lib.sh"
need_root
for tool in prometheus promtool curl gcc; do
	check "$tool is installed (tools/install-deps.sh)" command -v "$tool"
done

LP=$(free_port)
PP=$(free_port)
timeout 60 gcc -O2 -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE \
	tests/httpfuzz.c -o "$T/httpfuzz" -lpthread
ok $? "the fuzzer builds"

start_work w --linger sleep --sleep 1ms --count 40000 --threads 2
start_latbpf p --pid "$WORK_PID" --interval 1s --duration 60s --no-tui \
	--json "$T/p.json" --prometheus "127.0.0.1:$LP"
ok $? "latbpf serves on 127.0.0.1:$LP"
kill -USR1 "$WORK_PID"

cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: latbpf
    static_configs:
      - targets: ['127.0.0.1:$LP']
EOF
start_prometheus "$T/prom.yml" 100
up=$(prom_up latbpf)
check "Prometheus scrapes latbpf: up == 1 ($up)" test "$up" = 1

curl -s --max-time 5 "http://127.0.0.1:$LP/metrics" >"$T/metrics.txt"
promtool check metrics <"$T/metrics.txt" >"$T/lint.txt" 2>&1
ok $? "promtool check metrics: clean ($(head -3 "$T/lint.txt" | tr '\n' ' '))"
check "build_info, probe_up and drops are exported" bash -c "grep -q '^latbpf_build_info{' '$T/metrics.txt' &&
	grep -q '^latbpf_probe_up{family=\"sched\"} 1' '$T/metrics.txt' && grep -q '^# TYPE latbpf_drops_total counter' '$T/metrics.txt'"
check "HEAD /metrics: 200, no body" bash -c "[ \"\$(curl -s -I --max-time 2 -o /dev/null -w '%{http_code}' http://127.0.0.1:$LP/metrics)\" = 200 ]"
check "GET /other: 404" bash -c "[ \"\$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' http://127.0.0.1:$LP/other)\" = 404 ]"
check "POST /metrics: 405" bash -c "[ \"\$(curl -s --max-time 2 -X POST -o /dev/null -w '%{http_code}' http://127.0.0.1:$LP/metrics)\" = 405 ]"

# Ten scrapes in, one instant: the interval latbpf had published, its
# count, and Prometheus's p99 from the buckets, all from one scrape.
sleep 10
at=$(date +%s.%N)
k=$(query 'latbpf_interval' "$at")
pc=$(query 'latbpf_sched_runq_seconds_count' "$at")
pq=$(query 'histogram_quantile(0.99, latbpf_sched_runq_seconds_bucket)' "$at")
diag "at $at: interval $k, _count $pc, histogram_quantile(0.99) $pq s"

stop "$LAT_PID"
ok $? "latbpf exits 0 on SIGINT"
kill -TERM "$WORK_PID" 2>/dev/null
kill -TERM "$PROM_PID" 2>/dev/null
wait "$PROM_PID" 2>/dev/null

# Then the abuse, on a whole-system run with every family on: two scrapers
# at 10 Hz for 15 s (60 s, then 30 s before: CI's time; a curl's own time
# made 30 s take 43), then the fuzzer
LP2=$(free_port)
start_latbpf a --interval 1s --duration 118s --no-tui --json "$T/a.json" \
	--prometheus "127.0.0.1:$LP2"
ok $? "a whole-system run serves on 127.0.0.1:$LP2"
sleep 1.5
scrape() {
	local i
	for ((i = 0; i < 150; i++)); do
		curl -s --max-time 2 -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$LP2/metrics"
		sleep 0.1
	done
}
LATBPF_PROC=$(pgrep -P "$LAT_PID" -x latbpf || echo "$LAT_PID")
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$LATBPF_PROC/status"; }
rssa=$(rss)
scrape >"$T/s1" &
s1=$!
scrape >"$T/s2" &
s2=$!
wait "$s1" "$s2"
codes=$(cat "$T/s1" "$T/s2" | awk '$1 != 200' | wc -l)
n=$(cat "$T/s1" "$T/s2" | wc -l)
check "2 scrapers x 150: every scrape 200 ($codes of $n were not)" test "$codes" -eq 0 -a "$n" -eq 300
p99=$(cat "$T/s1" "$T/s2" | awk '{ print $2 * 1000 }' | sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99 + 0.999); print v[i] }')
p50=$(cat "$T/s1" "$T/s2" | awk '{ print $2 * 1000 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int(NR / 2) + 1] }')
diag "scrape time, 2 scrapers at 10 Hz for 15 s, every family on: p50 $p50 ms, p99 $p99 ms (curl time_total)"
# how fast a scrape is, is the host's speed: tools/scrape.sh measures it
# against a 404 from the same server in the same run; here every scrape
# must be answered, whole, within curl's bound

# the endpoint's limits may turn a scraper away while the fuzzer runs (all
# from one address), but latbpf must stay whole
rss0=$(rss)
timeout 70 "$T/httpfuzz" --port "$LP2" --requests 10000 --seconds 40 >"$T/fuzz.out" 2>&1
ok $? "the fuzzer ran to its end ($(tail -1 "$T/fuzz.out"))"
sleep 1
rss1=$(rss)
check "latbpf survived the fuzzer" kill -0 "$LATBPF_PROC"
sent=$(grep -oE 'requests=[0-9]+' "$T/fuzz.out" | head -1 | cut -d= -f2)
check "10,000 requests sent (${sent:-?})" num_le 10000 "${sent:-0}"
check "and still answers a scrape: 200" bash -c "[ \"\$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' http://127.0.0.1:$LP2/metrics)\" = 200 ]"
diag "RSS: $rssa KiB before the scrapers, $rss0 after them, $rss1 after the fuzzer"
# the allocator's high-water mark moves by a few hundred KiB between runs
# (+256..+624 measured); a leak of 100 bytes a request would add 1 MiB
check "RSS flat through the fuzzer: ${rss0} -> ${rss1} KiB (+1 MiB at most)" num_le "$rss1" "$((rss0 + 1024))"
stop "$LAT_PID"
ok $? "latbpf exits 0 on SIGINT after the abuse"
# the poll loop went on through it all: a record per interval, each saying
# how long it really was (latbpf yields to everything it watches, so on a
# busy host a poll may come late: how late is the host's business, that the
# record says so is latbpf's)
gaps=$(jq -s -c '[.[] | select(.interval)] | [range(1; length) as $i | {gap: (.[$i].run.duration_s - .[$i - 1].run.duration_s), len: .[$i].length_s, late: (.[$i].late // false)}]' "$T/a.json")
diag "interval records: $(jq length <<<"$gaps") gaps, the largest $(jq "map(.gap) | max" <<<"$gaps") s, $(jq 'map(select(.late)) | length' <<<"$gaps") said late"
check "each interval record's length_s is the gap since the last (+-10 ms)" \
	jq -e 'length > 30 and all(.len - .gap < 0.01 and .gap - .len < 0.01)' <<<"$gaps"

J=$T/p.json
# latbpf's own count and p99 as of interval k: its interval records summed
lc=$(jq -s --argjson k "${k:-0}" '[.[] | select(.interval and .interval <= $k) | .sched.runq.count] | add' "$J")
check "_count at that scrape ($pc) = latbpf's count through interval $k ($lc)" test "${pc:-x}" = "$lc"
lp99=$(jq -s --argjson k "${k:-0}" '[.[] | select(.interval and .interval <= $k) | .sched.runq.buckets[]] |
	group_by(.[0]) | map([.[0][0], .[0][1], (map(.[2]) | add)]) | sort_by(.[0]) as $b |
	($b | map(.[2]) | add) as $n | (($n * 0.99) | ceil) as $rank |
	reduce $b[] as $s ({seen: 0, v: null}; if .v == null and .seen + $s[2] >= $rank then .v = $s[1] else . end | .seen += $s[2]) | .v' "$J")
# which exported bucket (le: 2^k - 1 and 1.5 * 2^k - 1 ns) a value falls in
bucket() { awk -v v="$1" 'BEGIN { i = 0; for (k = 10; k <= 36; k++) for (h = 0; h < 2; h++) {
	e = 2 ^ k + h * 2 ^ (k - 1) - 1; if (v <= e) { print i; exit } i++ } print i }'; }
bl=$(bucket "$lp99")
bp=$(bucket "$(awk -v s="${pq:-nan}" 'BEGIN { printf "%.0f", s * 1e9 }')")
diag "latbpf p99 through interval $k: $lp99 ns (bucket $bl); Prometheus: bucket $bp"
check "histogram_quantile(0.99) within one exported bucket of latbpf's p99 ($bp vs $bl)" \
	between "$((bp - bl))" -1 1
done_testing

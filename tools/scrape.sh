#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `sudo tools/scrape.sh [BUILD_DIR]`: how long a Prometheus scrape of latbpf
# takes, as a ratio against a baseline measured in the same run: a 404 from
# the same server (the same HTTP stack, connection and curl, without the
# exposition). The tests judge that every scrape is answered, whole; how
# fast is the host's speed, so it is measured here, where a figure belongs:
# a whole-system run with every family on, two scrapers at 10 Hz, each
# scrape followed by a 404. Prints p50 and p99 of both and their ratio,
# and how many of latbpf's polls came late meanwhile (it yields to
# everything it watches). Run it under the machine lock.
#   tools/scrape.sh [BUILD_DIR]     N=300 (scrapes per scraper)
set -u
O=${1:-build}
N=${N:-300}
export PATH="$PATH:/usr/sbin:/sbin"
[ "$(id -u)" -eq 0 ] || { echo "scrape: needs root (it loads BPF)" >&2; exit 3; }
for c in curl jq; do
	command -v $c >/dev/null || { echo "scrape: $c missing (tools/install-deps.sh)" >&2; exit 3; }
done
W=$(mktemp -d /tmp/latbpf-scrape.XXXXXX)
LAT=
cleanup() {
	[ -n "$LAT" ] && kill -INT "$LAT" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
PORT=$("$(dirname "$0")/free-port.sh")
timeout -s INT $((N / 10 + 60)) "$O/latbpf" --no-tui --interval 1s --json "$W/run.json" \
	--prometheus "127.0.0.1:$PORT" >/dev/null 2>"$W/err" &
LAT=$!
for ((i = 0; i < 300; i++)); do grep -q '^latbpf: attached' "$W/err" && break; sleep 0.05; done
grep -q '^latbpf: attached' "$W/err" || { echo "scrape: latbpf did not attach: $(tail -1 "$W/err")" >&2; exit 1; }
sleep 1.5
scraper() { # OUT: "metrics SECONDS" and "404 SECONDS" lines
	local i
	for ((i = 0; i < N; i++)); do
		curl -s --max-time 5 -o /dev/null -w 'metrics %{time_total} %{http_code}\n' \
			"http://127.0.0.1:$PORT/metrics"
		curl -s --max-time 5 -o /dev/null -w '404 %{time_total} %{http_code}\n' \
			"http://127.0.0.1:$PORT/none"
		sleep 0.1
	done >"$1"
}
scraper "$W/s1" &
p1=$!
scraper "$W/s2"
wait "$p1"
kill -INT "$LAT"
wait "$LAT"
LAT=
pct() { # KIND P: that percentile of KIND's times, in ms
	awk -v k="$1" '$1 == k { print $2 * 1000 }' "$W/s1" "$W/s2" | sort -g |
		awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p); if (i < NR * p) i++; if (i < 1) i = 1; printf "%.3f", v[i] }'
}
bad=$(awk '($1 == "metrics" && $3 != 200) || ($1 == "404" && $3 != 404)' "$W/s1" "$W/s2" | wc -l)
m50=$(pct metrics 0.5) m99=$(pct metrics 0.99) b50=$(pct 404 0.5) b99=$(pct 404 0.99)
late=$(jq -s '[.[] | select(.late)] | length' "$W/run.json")
ivs=$(jq -s '[.[] | select(.interval)] | length' "$W/run.json")
echo "latbpf scrape, $(nproc) CPUs, $(uname -r): 2 scrapers x $N at 10 Hz, every family, whole system"
printf '  /metrics  p50 %8s ms  p99 %8s ms\n' "$m50" "$m99"
printf '  404       p50 %8s ms  p99 %8s ms\n' "$b50" "$b99"
awk -v a="$m50" -v b="$b50" -v c="$m99" -v d="$b99" \
	'BEGIN { printf "  ratio     p50 %8.2f     p99 %8.2f   (the exposition over the HTTP round trip)\n", a / b, c / d }'
echo "  answers not 200/404: $bad; latbpf's polls said late: $late of $ivs intervals"

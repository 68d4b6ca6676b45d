# SPDX-License-Identifier: GPL-2.0
# Where the client backends' wall time went, from latbpf's final record
# (--probes ...,time --per-thread): their causes summed over the threads
# whose pid is in $pids (comma-separated, pg_stat_activity's), each with
# its share of their wall time. Used by tools/pg-time.sh and pgbench.t.
#   jq -r --arg pids 123,456 -f tools/pg-time.jq run.json
select(.final == true) |
($pids | split(",") | map(tonumber)) as $p |
[.time.per_thread[] | select(.pid as $x | $p | index($x))] as $b |
($b | map(.time.wall_ns) | add) as $wall |
([$b[].time.causes[]] | group_by([.state, .cause, .reason]) |
 map({state: .[0].state, cause: (.[0].cause // ""), reason: (.[0].reason // ""),
      ns: (map(.ns) | add), count: (map(.count // 0) | add)}) |
 sort_by(-.ns)) as $c |
"  \($b | length) backends, wall time \($wall / 1e9 * 1000 | round / 1000) s; causes sum to \(($c | map(.ns) | add) / 1e9 * 1000 | round / 1000) s",
"",
"  state     cause             reason      time     share   episodes   mean",
($c[] | select(.ns / $wall >= 0.001) |
 "  \(.state | .+ "          " | .[:9]) \(.cause | .+ "                  " | .[:17]) \(.reason | .+ "        " | .[:7]) \((.ns / 1e9 * 1000 | round / 1000) | tostring | .+ " s" | "       " + . | .[-9:])  \((.ns / $wall * 1000 | round / 10) | tostring | .+ " %" | "      " + . | .[-7:])  \(.count | tostring | "        " + . | .[-9:])  \(if .count > 0 then ((.ns / .count / 1000 * 10 | round / 10) | tostring) + " us" else "" end)")

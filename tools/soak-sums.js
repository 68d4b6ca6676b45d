// SPDX-License-Identifier: GPL-2.0
// node tools/soak-sums.js FILE.json: do latbpf's interval records add up to
// its final record? One pass over the NDJSON (a 30-minute whole-system soak
// writes hundreds of MiB), one JSON object out:
//   {intervals, finals, numbered, interval_s, gap_max_ms, tail_ms, keys,
//    exact, more, more_top, bad: ["path: intervals X, final Y"], drops}
// Every additive number is compared: counts, sums, counters, drops; a
// histogram's or a CPU's max against the largest of the intervals'. Lists
// are keyed by what names an entry (tid, cpu, device, remote), not by
// position. The final record also holds what happened after the last
// interval record (the tail, tail_ms): a number may be larger there, never
// smaller, and a total only by what so short a time can hold.
'use strict';
const fs = require('fs');
const readline = require('readline');

// not additive: percentiles, min, rates, ids, names, lists of events or
// of the top few, and `intruders` (distinct intruders, per record); and the
// per-thread breakdown, whose exited threads move into threads_exited (their
// sum is checked against the totals by tests/integration/json.t)
const SKIP = new Set(['buckets', 'top', 'events', 'min', 'p50', 'p90', 'p99', 'p99.9',
	'p99.99', 'rate_per_s', 'lost_pct', 'threshold_ns', 'cpu', 'tid', 'pid', 'pinned_tids',
	'comm', 'name', 'remote', 'intruders', 'threads', 'threads_exited']);
const FAMILIES = ['drops', 'sched', 'hiccup', 'fault', 'block', 'tcp'];
const isMax = (k) => /\.max(_ns)?$/.test(k);
const isSum = (k) => /(\.sum|_ns)$/.test(k);

function flat(v, path, into) {
	if (Array.isArray(v)) {
		for (const e of v)
			if (e && typeof e === 'object') {
				const id = e.tid ?? e.cpu ?? e.name ?? e.remote;
				flat(e, `${path}[${id}]`, into);
			}
	} else if (v && typeof v === 'object') {
		for (const [k, x] of Object.entries(v))
			if (!SKIP.has(k))
				flat(x, `${path}.${k}`, into);
	} else if (typeof v === 'number') {
		const old = into.get(path);
		into.set(path, old === undefined ? v : isMax(path) ? Math.max(old, v) : old + v);
	}
}

async function main() {
	const iv = new Map(), fin = new Map();
	const r = { intervals: 0, finals: 0, numbered: true, interval_s: null, gap_max_ms: 0 };
	let last = null, end = null, drops = {}, pending = 0;
	const lines = readline.createInterface({ input: fs.createReadStream(process.argv[2]),
						 crlfDelay: Infinity });
	for await (const line of lines) {
		if (!line)
			continue;
		const rec = JSON.parse(line);
		const into = rec.final ? fin : iv;
		for (const f of FAMILIES)
			if (rec[f] !== undefined)
				flat(rec[f], `.${f}`, into);
		if (rec.final) {
			r.finals++;
			end = rec.run.duration_s;
			drops = rec.drops;
			continue;
		}
		r.intervals++;
		r.numbered &&= rec.interval === r.intervals;
		r.interval_s = rec.run.interval_s;
		// the last interval record may be short (latbpf's stretch after
		// the last tick): a gap counts once another record follows it
		r.gap_max_ms = Math.max(r.gap_max_ms, pending);
		if (last !== null)
			pending = Math.abs(rec.run.duration_s - last - r.interval_s) * 1000;
		last = rec.run.duration_s;
	}
	const tail = end !== null && last !== null ? end - last : 0;
	const keys = new Set([...iv.keys(), ...fin.keys()]);
	let exact = 0, more = [];
	r.bad = [];
	for (const k of [...keys].sort()) {
		const i = iv.get(k) ?? 0, f = fin.get(k) ?? 0, d = f - i;
		// A total may grow in the tail at five times its mean rate, plus 10.
		// One thread's or CPU's may grow more: latbpf's own last poll and
		// final record, for one, all fall in the tail.
		const ok = d >= 0 && (isMax(k) || isSum(k) || k.includes('[') ||
				      d <= i * tail / Math.max(last, 1e-3) * 5 + 10);
		if (!ok)
			r.bad.push(`${k}: intervals ${i}, final ${f}`);
		else if (d === 0)
			exact++;
		else if (!isMax(k) && !isSum(k))
			more.push([k, d]);
		else
			more.push([k, 0]);
	}
	more.sort((a, b) => b[1] - a[1]);
	Object.assign(r, { tail_ms: Math.round(tail * 1000), keys: keys.size, exact,
			   more: more.length,
			   more_top: more.slice(0, 3).filter((m) => m[1] > 0).map((m) => `${m[0]} +${m[1]}`).join(', '),
			   gap_max_ms: Math.round(r.gap_max_ms), drops });
	process.stdout.write(JSON.stringify(r) + '\n');
}

main().catch((e) => {
	process.stderr.write(`soak-sums: ${e.message}\n`);
	process.exit(1);
});

// SPDX-License-Identifier: GPL-2.0
// Reads a .hlog with npm's hdr-histogram-js (installed by
// tools/install-deps.sh into tests/hlog/npm) and prints, per tag,
// "<tag> <intervals> <count> <p50> <p99> <max>" of the tag's intervals
// added together, then "lines <n>". node tests/hlog/hlogcheck.js FILE
// A line that does not decode ends the log there, as in Java's reader, and
// is said on stderr: a log cut mid-line reads up to its last whole line.
"use strict";
const fs = require("fs");
const path = require("path");
const hdr = require(path.join(process.env.HLOG_NPM || path.join(__dirname, "npm"), "node_modules", "hdr-histogram-js"));

const reader = new hdr.HistogramLogReader(fs.readFileSync(process.argv[2], "utf8"));
const sums = new Map();
let lines = 0;
const next = () => {
	try {
		return reader.nextIntervalHistogram();
	} catch (e) {
		console.error(`hlogcheck.js: log ends in a line that does not decode: ${e.message}`);
		return null;
	}
};
for (let h; (h = next()) !== null; ) {
	const tag = h.tag || "(none)";
	lines++;
	if (!sums.has(tag)) {
		const a = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 2 ** 44 - 1,
				      numberOfSignificantValueDigits: 1, autoResize: true,
				      bitBucketSize: "packed", useWebAssembly: false });
		sums.set(tag, { h: a, n: 0 });
	}
	const s = sums.get(tag);
	s.h.add(h);
	s.n++;
}
for (const tag of [...sums.keys()].sort()) {
	const { h, n } = sums.get(tag);
	console.log(`${tag} ${n} ${h.totalCount} ${h.getValueAtPercentile(50)} ${h.getValueAtPercentile(99)} ${h.maxValue}`);
}
console.log(`lines ${lines}`);

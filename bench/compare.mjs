#!/usr/bin/env node
// Compare two benchmark runs: node bench/compare.mjs old.json new.json
//
// Each file is the output of `node bench/run.mjs --json FILE` (or scripts/bench.sh --json FILE),
// typically one per build: build A, run with --json a.json; build B, run with --json b.json.
// Prints, per row, both times and new/old (< 1 means the new build is faster), then the .wasm
// sizes and startup figures the same way. Rows present in only one file are listed as such.
// Exit code 0 always: this is a report, not a gate (the runs are noisy at the ±5 % level).

import fs from 'node:fs';

const [oldPath, newPath] = process.argv.slice(2);
if (!oldPath || !newPath) {
  console.error('usage: node bench/compare.mjs old.json new.json');
  process.exit(2);
}
const load = (p) => JSON.parse(fs.readFileSync(p, 'utf8'));
const a = load(oldPath);
const b = load(newPath);

const fmt = (ns) => {
  if (ns === undefined) return '-';
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
};
const ratio = (x, y) => (x && y ? `${(y / x).toFixed(2)}×` : '');
const mark = (x, y, better = 0.95, worse = 1.05) => {
  if (!x || !y) return '';
  const r = y / x;
  return r <= better ? 'faster' : r >= worse ? 'SLOWER' : '';
};

const lines = [];
lines.push(`old: ${oldPath} (${a.env?.git ?? '?'}, ${a.env?.date ?? '?'})`);
lines.push(`new: ${newPath} (${b.env?.git ?? '?'}, ${b.env?.date ?? '?'})`);
if (a.env?.node !== b.env?.node || a.env?.cpu !== b.env?.cpu) {
  lines.push(`note: different machines or Node versions (${a.env?.cpu} / ${a.env?.node} vs ${b.env?.cpu} / ${b.env?.node})`);
}
lines.push('');
const ids = [...new Set([...Object.keys(a.results ?? {}), ...Object.keys(b.results ?? {})])];
const w = Math.max(...ids.map((i) => i.length), 10);
lines.push(`${'row'.padEnd(w)}  ${'old'.padStart(10)}  ${'new'.padStart(10)}  ${'new/old'.padStart(8)}`);
for (const id of ids) {
  const x = a.results?.[id]?.ns;
  const y = b.results?.[id]?.ns;
  lines.push(`${id.padEnd(w)}  ${fmt(x).padStart(10)}  ${fmt(y).padStart(10)}  ${ratio(x, y).padStart(8)}  ${mark(x, y)}`);
}
lines.push('');
for (const k of ['raw', 'gzip', 'brotli']) {
  const x = a.size?.[k];
  const y = b.size?.[k];
  const d = x && y ? `${y - x >= 0 ? '+' : ''}${y - x} bytes` : '';
  lines.push(`${`wasm ${k}`.padEnd(w)}  ${String(x ?? '-').padStart(10)}  ${String(y ?? '-').padStart(10)}  ${ratio(x, y).padStart(8)}  ${d}`);
}
lines.push('');
for (const k of Object.keys({ ...a.startup, ...b.startup })) {
  const x = a.startup?.[k];
  const y = b.startup?.[k];
  lines.push(`${`startup ${k}`.padEnd(w)}  ${(x?.toFixed(2) ?? '-').padStart(10)}  ${(y?.toFixed(2) ?? '-').padStart(10)}  ${ratio(x, y).padStart(8)}`);
}
console.log(lines.join('\n'));

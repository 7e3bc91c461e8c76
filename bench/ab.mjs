#!/usr/bin/env node
// Two builds of the package in ONE Node process, timed interleaved: on a shared, noisy machine
// this compares builds far more steadily than two bench/run.mjs runs taken minutes apart.
//
//   node bench/ab.mjs OLD_PKG_DIR NEW_PKG_DIR [--rounds 21]
//
// Each row runs a batch on the old build, then on the new one, `rounds` times; the figure is the
// median per build and new/old. Rows: Schema.parse of the 0.5 KB and 15 KB orders, and
// new RepairLoop + next(valid 0.5 KB reply) + free with the order schema as a plain object, the
// same with the city schema, a transient next(), repairJson of the 2 KB and 50 KB broken orders,
// and new Schema + free of the order schema never seen before (a unique $comment: the
// meta-validation and the compile), seen before (the cache), and a seen city schema.
import { createRequire } from 'node:module';
import path from 'node:path';
import { CITY_REPLY, CITY_SCHEMA, ORDER_SCHEMA, PROMPT, orderText, brokenOrderText } from './fixtures.mjs';

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const rounds = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 21;
const dirs = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--rounds').slice(0, 2);
if (dirs.length !== 2) {
  console.error('usage: node bench/ab.mjs OLD_PKG_DIR NEW_PKG_DIR [--rounds 21]');
  process.exit(2);
}
const libs = dirs.map((d) => require(path.resolve(d, 'selfheal.js')));
const small = orderText(512);
const large = orderText(15000);
const brokenSmall = brokenOrderText(2 * 1024);
const brokenLarge = brokenOrderText(50 * 1024);
const schemas = libs.map((l) => new l.Schema(ORDER_SCHEMA));
const loop = (l) => {
  const x = new l.RepairLoop({ prompt: PROMPT, schema: ORDER_SCHEMA });
  const step = x.next({ kind: 'reply', text: small });
  x.free();
  if (step.type !== 'done') throw new Error(`ab: the loop answered ${step.type}`);
};
for (const s of schemas) {
  if (!s.parse(small).ok || !s.parse(large).ok) throw new Error('ab: a build rejected a valid order');
}
const cityLoop = (l) => {
  const x = new l.RepairLoop({ prompt: PROMPT, schema: CITY_SCHEMA, seed: 1 });
  const step = x.next({ kind: 'reply', text: CITY_REPLY });
  x.free();
  if (step.type !== 'done') throw new Error(`ab: the loop answered ${step.type}`);
};
const transient = libs.map((l) => {
  const x = new l.RepairLoop({ prompt: PROMPT, budget: { transient: 1e9 }, seed: 1 });
  return () => x.next({ kind: 'error', error: { status: 503 } }, 1_700_000_000_000);
});
for (const text of [brokenSmall, brokenLarge]) {
  const [a, b] = libs.map((l) => l.repairJson(text));
  if (!a || !b || a.text !== b.text || a.fixes.join() !== b.fixes.join()) throw new Error('ab: the builds repair differently');
}
let unique = 0;
const newSchema = (l, seen) => {
  const s = new l.Schema(seen ? ORDER_SCHEMA : { ...ORDER_SCHEMA, $comment: `ab ${unique++}` });
  s.free();
};
const time = (fn, n) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t) / n / 1e3;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`old: ${dirs[0]}\nnew: ${dirs[1]}\n${'row'.padEnd(12)} ${'old'.padStart(10)} ${'new'.padStart(10)}  new/old`);
for (const [name, fns, n] of [
  ['parse 0.5k', schemas.map((s) => () => s.parse(small)), 2000],
  ['parse 15k', schemas.map((s) => () => s.parse(large)), 100],
  ['loop order', libs.map((l) => () => loop(l)), 1000],
  ['loop city', libs.map((l) => () => cityLoop(l)), 5000],
  ['transient', transient, 10000],
  ['repair 2k', libs.map((l) => () => l.repairJson(brokenSmall)), 500],
  ['repair 50k', libs.map((l) => () => l.repairJson(brokenLarge)), 20],
  ['schema new', libs.map((l) => () => newSchema(l, false)), 50],
  ['schema seen', libs.map((l) => () => newSchema(l, true)), 2000],
  ['schema city', libs.map((l) => () => new l.Schema(CITY_SCHEMA).free()), 20000],
]) {
  fns.forEach((f) => time(f, n)); // warm-up
  const samples = fns.map(() => []);
  for (let r = 0; r < rounds; r++) fns.forEach((f, i) => samples[i].push(time(f, n)));
  const [a, b] = samples.map(median);
  console.log(`${name.padEnd(12)} ${`${a.toFixed(1)} µs`.padStart(10)} ${`${b.toFixed(1)} µs`.padStart(10)}  ${(b / a).toFixed(3)}`);
}

// The trap seat belt (issue 10 item 2): if the wasm instance ever traps, that call and every
// later one through the package throw one clear Error saying so (its `cause` the original
// RuntimeError), instead of `RuntimeError: unreachable` forever; freeing never throws.
//
// Nothing in the shipped build can be made to trap on purpose (that is the point of issue 10),
// so the test forces one from outside: a method called on a forged object whose wasm pointer
// lies beyond the instance's memory is a "memory access out of bounds" trap, in the shipped
// code, with no test-only export. Each case runs in its own Node process: a trapped instance
// stays trapped for the life of the process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = path.join(HERE, '../../pkg');

function run(source) {
  const out = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', source], {
    encoding: 'utf8',
    env: { ...process.env, PKG },
  });
  assert.equal(out.status, 0, `child failed:\n${out.stdout}\n${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop());
}

const SCENARIO = `
  const results = {};
  const describe = (e) => e === undefined ? null
    : { ctor: e.constructor.name, message: e.message, cause: e.cause?.constructor?.name ?? null };
  const attempt = (fn) => { try { fn(); return null; } catch (e) { return describe(e); } };
  const loop = new RepairLoop({ prompt: { system: 's', user: 'u' }, schema: { type: 'object' }, seed: 1 });
  results.before = loop.next({ kind: 'reply', text: '{}' }).type;
  const other = new CircuitBreaker();
  // Forge an object whose pointer lies far beyond the instance's memory: the method traps.
  results.trap = attempt(() => RepairLoop.prototype.next.call({ __wbg_ptr: 0xFFFFFF00 }, { kind: 'reply', text: '{}' }));
  results.afterClassify = attempt(() => classify({ status: 503 }));
  results.afterNew = attempt(() => new CircuitBreaker());
  results.afterParse = attempt(() => parseStructured({ type: 'object' }, '{}'));
  results.afterMethod = attempt(() => loop.next({ kind: 'reply', text: '{}' }));
  // Freeing never throws: free(), Symbol.dispose, and the FinalizationRegistry after a GC.
  results.free = attempt(() => { loop.free(); other[Symbol.dispose](); });
  for (let i = 0; i < 100; i++) void new Array(1000).fill(i);
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 50));
  globalThis.gc();
  console.log(JSON.stringify(results));
`;

function check(results) {
  assert.equal(results.before, 'done');
  assert.equal(results.trap.ctor, 'Error');
  assert.equal(results.trap.cause, 'RuntimeError');
  assert.match(results.trap.message, /^selfheal: the WebAssembly instance trapped \(RuntimeError: memory access out of bounds\) and cannot be used again/);
  assert.match(results.trap.message, /new process, isolate or page/);
  for (const key of ['afterClassify', 'afterNew', 'afterParse', 'afterMethod']) {
    assert.deepEqual(results[key], results.trap, `${key}: the same clear Error`);
  }
  assert.equal(results.free, null, 'freeing after a trap does nothing');
}

test('nodejs glue: a trap makes every later call throw one clear Error', () => {
  check(run(`
    import { createRequire } from 'node:module';
    const { RepairLoop, CircuitBreaker, classify, parseStructured } = createRequire(import.meta.url)(process.env.PKG + '/selfheal.js');
    ${SCENARIO}
  `));
});

test('web glue (initSync): the same seat belt', () => {
  check(run(`
    import { readFileSync } from 'node:fs';
    const { initSync, RepairLoop, CircuitBreaker, classify, parseStructured } = await import(process.env.PKG + '/web/selfheal.js');
    initSync({ module: readFileSync(process.env.PKG + '/web/selfheal_bg.wasm') });
    ${SCENARIO}
  `));
});

test('an instance that never trapped is untouched by the guard: errors pass through as they are', () => {
  const results = run(`
    import { createRequire } from 'node:module';
    const { RepairLoop } = createRequire(import.meta.url)(process.env.PKG + '/selfheal.js');
    const out = {};
    try { new RepairLoop({}); } catch (e) { out.first = e.constructor.name; }
    out.after = new RepairLoop({ prompt: { system: 's', user: 'u' }, seed: 1 }).next({ kind: 'reply', text: 'hi' }).type;
    console.log(JSON.stringify(out));
  `);
  assert.deepEqual(results, { first: 'TypeError', after: 'done' });
});

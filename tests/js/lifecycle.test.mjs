// Object lifetimes across the boundary: free(), freed objects, re-entrant
// calls from getters. Nothing here may trap the wasm instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { RepairLoop, CircuitBreaker, Schema, parseStructured, classify } from '../../pkg/selfheal.js';
import { NOW, baseOptions, reply, failure, throwsNaming, CITY_SCHEMA } from './helpers.mjs';

/** A freed object throws a JS Error (not a WebAssembly.RuntimeError trap). */
function throwsCleanly(fn, what) {
  let thrown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof Error, `${what}: expected an Error, got ${thrown}`);
  assert.ok(!(thrown instanceof WebAssembly.RuntimeError), `${what}: trapped: ${thrown.message}`);
  assert.ok(typeof thrown.message === 'string' && thrown.message.length > 0, `${what}: empty message`);
  return thrown;
}

function assertModuleHealthy() {
  assert.equal(classify({ status: 500 }).class, 'transient');
  const l = new RepairLoop(baseOptions());
  assert.equal(l.next(reply('{"city":"Paris"}'), NOW).type, 'done');
  l.free();
  assert.equal(parseStructured(CITY_SCHEMA, '{"city":"x"}').ok, true);
}

test('free() works on every class, and freed objects throw instead of trapping', () => {
  const loop = new RepairLoop(baseOptions());
  assert.equal(loop.next(failure({ status: 500 }), NOW).type, 'wait-for-backoff');
  assert.equal(loop.free(), undefined);
  throwsCleanly(() => loop.next(reply('{}'), NOW), 'RepairLoop.next');
  throwsCleanly(() => loop.report(), 'RepairLoop.report');
  throwsCleanly(() => loop.attempts, 'RepairLoop.attempts');
  throwsCleanly(() => loop.toJSON(), 'RepairLoop.toJSON');
  throwsCleanly(() => loop.abort(), 'RepairLoop.abort');
  throwsCleanly(() => JSON.stringify(loop), 'JSON.stringify(freed loop)');

  const schema = new Schema(CITY_SCHEMA);
  schema.free();
  throwsCleanly(() => schema.parse('{}'), 'Schema.parse');
  throwsCleanly(() => schema.validate({}), 'Schema.validate');
  throwsCleanly(() => schema.text, 'Schema.text');

  const breaker = new CircuitBreaker();
  breaker.free();
  throwsCleanly(() => breaker.state, 'CircuitBreaker.state');
  throwsCleanly(() => breaker.isOpen(NOW), 'CircuitBreaker.isOpen');
  throwsCleanly(() => breaker.recordFailure(NOW), 'CircuitBreaker.recordFailure');

  // A second free() throws too (wasm-bindgen's behaviour), cleanly.
  throwsCleanly(() => loop.free(), 'double free');
  assertModuleHealthy();
});

test('a freed Schema or CircuitBreaker passed as an argument is a TypeError naming it', () => {
  const schema = new Schema(CITY_SCHEMA);
  assert.equal(parseStructured(schema, '{}').ok, false);
  schema.free();
  // Not silently an empty schema that accepts anything.
  throwsNaming(() => parseStructured(schema, '{}'), TypeError, 'schema');
  throwsNaming(() => new RepairLoop({ ...baseOptions(), schema }), TypeError, 'options.schema');

  const breaker = new CircuitBreaker();
  breaker.free();
  throwsNaming(() => new RepairLoop(baseOptions(), breaker), TypeError, 'breaker');
  throwsNaming(() => RepairLoop.fromJSON(new RepairLoop(baseOptions()).toJSON(), breaker), TypeError, 'breaker');
  assertModuleHealthy();
});

test('a breaker freed while loops still share it: the loops keep working', () => {
  const breaker = new CircuitBreaker({ failureThreshold: 1 });
  const loop = new RepairLoop(baseOptions(), breaker);
  breaker.free();
  const i = loop.next(failure({ status: 500 }), NOW);
  assert.ok(['wait-for-backoff', 'degrade'].includes(i.type));
  assertModuleHealthy();
});

test('Symbol.dispose is free()', () => {
  if (!Symbol.dispose) return;
  const loop = new RepairLoop(baseOptions());
  loop[Symbol.dispose]();
  throwsCleanly(() => loop.report(), 'disposed');
});

test('re-entrant calls from getters do not corrupt or trap', () => {
  // A getter that drives the same loop while its outcome is being read.
  const loop = new RepairLoop(baseOptions({ schema: undefined }));
  const inner = [];
  const outer = loop.next({
    kind: 'reply',
    get text() {
      inner.push(loop.next(failure({ status: 500 }), NOW));
      return 'Paris';
    },
  }, NOW + 5000);
  assert.equal(inner[0].type, 'wait-for-backoff');
  assert.equal(outer.type, 'done');
  assert.equal(outer.attempts, 2);

  // A getter that frees the loop mid-call: a TypeError naming the field; no trap.
  const victim = new RepairLoop(baseOptions());
  throwsNaming(() => victim.next({ kind: 'reply', get text() { victim.free(); return '{}'; } }, NOW), TypeError, 'outcome.text');
  throwsCleanly(() => victim.next(reply('{}'), NOW), 'after free in getter');

  // A getter that reads the loop's own state.
  const l2 = new RepairLoop(baseOptions());
  const r = l2.next({ kind: 'reply', get text() { return JSON.stringify({ city: String(l2.report().calls) }); } }, NOW);
  assert.equal(r.type, 'done');
  assert.deepEqual(r.value, { city: '0' });

  // A breaker option getter that records failures on a shared breaker.
  const b = new CircuitBreaker({ failureThreshold: 1 });
  const l3 = new RepairLoop(baseOptions(), b);
  const g = l3.next({ kind: 'error', get error() { b.recordFailure(NOW); return { status: 500 }; } }, NOW);
  assert.equal(g.reason, 'circuit-open');
  assertModuleHealthy();
});

test('thousands of objects created and freed', () => {
  for (let k = 0; k < 2000; k++) {
    const b = new CircuitBreaker();
    const l = new RepairLoop(baseOptions({ seed: k }), b);
    l.next(failure({ status: 503 }), NOW);
    l.free();
    b.free();
  }
  assertModuleHealthy();
});

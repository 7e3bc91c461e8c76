// examples/fleet's isolate side (src/fleet.js) and coordinator state (src/state.js) in Node, with
// the Durable Object replaced by a stub that calls the same FleetState (through structuredClone,
// as RPC would). The workerd test of the whole example is tests/packaging/fleet.test.mjs.
//
// The claim under test: a loop driven through the fleet answers exactly as a loop holding the
// breaker and the budget itself would, at every step, and leaves the breaker and the budget in the
// same state; with the coordinator out of reach, exactly as a loop with a per-isolate breaker and
// budget would.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { CircuitBreaker, RepairLoop, RetryBudget } from '../../pkg/selfheal.js';
import { PKG, ROOT, scratch } from '../packaging/harness.mjs';
import { NOW, rng } from './helpers.mjs';

let Fleet, FleetState, protocol;

before(async () => {
  // The example imports "selfheal" by name: give its files a node_modules that holds pkg/.
  const dir = scratch('fleet-node');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PKG, join(dir, 'node_modules', 'selfheal'), 'dir');
  mkdirSync(join(dir, 'src'));
  for (const file of ['fleet.js', 'state.js', 'protocol.js']) {
    copyFileSync(join(ROOT, 'examples', 'fleet', 'src', file), join(dir, 'src', file));
  }
  const load = (file) => import(pathToFileURL(join(dir, 'src', file)).href);
  ({ Fleet } = await load('fleet.js'));
  ({ FleetState } = await load('state.js'));
  protocol = await load('protocol.js');
});

const SCHEMA = { type: 'object', required: ['city'], properties: { city: { type: 'string' } } };

/** env.FLEET for a Fleet: every RPC goes to `state` (or throws while `down()` says so). */
function fakeNamespace(state, down = () => false) {
  const rpc = (f) => async (arg) => {
    if (down()) throw new Error('coordinator unreachable (test)');
    return structuredClone(f(structuredClone(arg)));
  };
  const stub = {
    decide: rpc((ask) => ({ ...state.decide(ask), view: state.view() })),
    report: rpc((report) => (state.report(report), state.view())),
  };
  return { FLEET: { idFromName: (name) => name, get: () => stub } };
}

const OUTCOMES = [
  () => ({ kind: 'error', error: { status: 529, error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } }),
  () => ({ kind: 'error', error: { status: 503 } }),
  (r) => ({ kind: 'error', error: { status: 429, headers: { 'retry-after-ms': String(r.int(0, 3000)) } } }),
  () => ({ kind: 'error', error: { status: 401 } }),
  () => ({ kind: 'reply', text: '{"city": "Paris"}' }),
  () => ({ kind: 'reply', text: '```json\n{"city": "Paris",}\n```' }),
  () => ({ kind: 'reply', text: '{"city": 75}' }),
  () => ({ kind: 'reply', text: '' }),
];

function randomPolicy(r) {
  return {
    breaker: { failureThreshold: r.int(1, 6), resetTimeoutMs: r.pick([0, 500, 2000, 10_000]) },
    retryBudget: { ratio: r.pick([0, 0.1, 0.5, 1]), minPerSecond: r.pick([0, 0.2, 1]), windowMs: r.pick([10, 1000, 10_000]) },
    flushMs: 0,
  };
}

function randomLoopOptions(r, i) {
  return {
    prompt: { system: 'Reply with JSON only.', user: `Request ${i}` },
    schema: SCHEMA,
    seed: r.int(0, 2 ** 31),
    budget: { transient: r.int(0, 4), repairable: r.int(0, 2), deadlineMs: r.pick([null, 3000, 20_000]) },
    backoff: { baseMs: r.pick([10, 300, 1500]), jitter: r.pick(['additive', 'full', 'equal', 'none']), maxRetryAfterMs: r.pick([1000, 60_000]) },
  };
}

/**
 * One scenario: `loops` requests interleaved on one isolate, each fed random outcomes at strictly
 * increasing times (a success and a failure in the same millisecond have no order to keep), with
 * now and then a `rejected` verdict right after a `done`. Feeds the same outcomes to reference
 * loops that hold `breaker` and `budget` themselves, and compares every instruction.
 */
async function scenario(seed, { down = () => false } = {}) {
  const r = rng(seed);
  const policy = randomPolicy(r);
  const state = new FleetState(policy, null, NOW);
  const env = fakeNamespace(state, down);
  const fleet = new Fleet('https://api.example/v1/messages', policy);
  const sharedBreaker = new CircuitBreaker(policy.breaker);
  const sharedBudget = new RetryBudget(policy.retryBudget);
  const n = r.int(1, 8);
  const live = [];
  for (let i = 0; i < n; i++) {
    const options = randomLoopOptions(r, i);
    live.push({ call: fleet.start(options), ref: new RepairLoop(options, sharedBreaker, sharedBudget), done: false });
  }
  let now = NOW;
  let steps = 0;
  while (live.length > 0 && steps < 200) {
    steps += 1;
    now += r.pick([1, 1, 5, 50, 400, 1500, 4000]);
    const k = r.int(0, live.length - 1);
    const one = live[k];
    const outcome = one.done ? { kind: 'rejected', reason: 'the shop has no such city' } : r.pick(OUTCOMES)(r);
    const got = await fleet.next(env, one.call, outcome, now);
    const want = one.ref.next(outcome, now);
    assert.deepEqual(got, want, `seed ${seed}, step ${steps}: ${JSON.stringify(outcome)}`);
    one.done = got.type === 'done' && !one.done && r.next() < 0.3; // a verdict comes next, once
    if ((got.type === 'done' || got.type === 'degrade') && !one.done) {
      one.call.loop.free();
      one.ref.free();
      live.splice(k, 1);
    }
  }
  for (const { call, ref } of live) {
    call.loop.free();
    ref.free();
  }
  return { state, env, fleet, sharedBreaker, sharedBudget, policy, now };
}

test('through the fleet, every loop answers as one holding the breaker and the budget itself, and both end the same', async () => {
  let refused = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { state, env, fleet, sharedBreaker, sharedBudget } = await scenario(seed);
    await fleet.flush(env); // the outcomes that asked for nothing
    assert.deepEqual(state.snapshot(), { breaker: sharedBreaker.toJSON(), retryBudget: sharedBudget.toJSON() }, `seed ${seed}`);
    const { refused: by } = state.meta.stats;
    refused += by['circuit-open'] + by['retry-budget-exhausted'];
  }
  assert.ok(refused > 100, `the scenarios reach refusals (${refused})`);
});

test('with the coordinator out of reach, a loop answers as one with a per-isolate breaker and budget; the outcomes are reported later', async (t) => {
  const logged = [];
  t.mock.method(console, 'log', (line) => logged.push(line));
  let reachable = false;
  let reported = 0;
  for (let seed = 1001; seed <= 1100; seed++) {
    reachable = false;
    const { state, env, fleet, sharedBreaker, sharedBudget } = await scenario(seed, { down: () => !reachable });
    // The isolate's own copy (made from the policy) took the breaker's and the budget's place.
    assert.deepEqual(
      { breaker: fleet.copy.breaker.toJSON(), retryBudget: fleet.copy.budget.toJSON() },
      { breaker: sharedBreaker.toJSON(), retryBudget: sharedBudget.toJSON() },
      `seed ${seed}`,
    );
    reachable = true;
    const pending = structuredClone(fleet.pending);
    await fleet.flush(env);
    const sum = (tally) => tally.reduce((s, [, count]) => s + count, 0);
    assert.equal(state.meta.stats.firstCalls, sum(pending.firstCalls), `seed ${seed}: every first call reported`);
    assert.equal(state.meta.stats.resends, sum(pending.resends), `seed ${seed}: every resend reported`);
    reported += sum(pending.firstCalls);
  }
  assert.ok(reported > 100);
  assert.match(logged[0], /coordinator .* unreachable .*deciding locally/);
});

test('FleetState: a bad Ask or Report is a TypeError naming the field, and changes nothing', () => {
  const state = new FleetState({ breaker: {}, retryBudget: {} }, null, NOW);
  const before = JSON.stringify(state.toJSON());
  const ask = { now: NOW, callAt: NOW, firstCall: true, failure: true, events: protocol.emptyEvents() };
  assert.throws(() => state.decide({ ...ask, now: Number.NaN }), { name: 'TypeError', message: /ask\.now/ });
  assert.throws(() => state.decide({ ...ask, callAt: '1' }), { name: 'TypeError', message: /ask\.callAt/ });
  assert.throws(() => state.decide({ ...ask, events: { firstCalls: [[NOW, 0]] } }), { name: 'TypeError', message: /ask\.events\.firstCalls\[0\]/ });
  assert.throws(() => state.decide({ ...ask, events: { failures: 'x' } }), { name: 'TypeError', message: /ask\.events\.failures/ });
  assert.throws(() => state.report({ events: { successAt: Infinity } }), { name: 'TypeError', message: /report\.events\.successAt/ });
  assert.throws(() => state.report({ events: { resends: Array(protocol.MAX_TALLY + 1).fill([NOW, 1]) } }), { name: 'TypeError', message: /report\.events\.resends/ });
  assert.equal(JSON.stringify(state.toJSON()), before);
  assert.equal(state.decide(ask).go, true);
});

test('FleetState: the stored state comes back under the same policy, and not under another', () => {
  const policy = { breaker: { failureThreshold: 2 }, retryBudget: { ratio: 0.2 } };
  const state = new FleetState(policy, null, NOW);
  for (let i = 0; i < 3; i++) state.decide({ now: NOW + i, callAt: NOW + i, firstCall: true, failure: true });
  const stored = structuredClone(state.toJSON());
  const again = new FleetState(policy, stored, NOW + 10);
  assert.equal(again.reset, null);
  assert.deepEqual(again.toJSON(), state.toJSON());
  assert.equal(again.breaker.state, 'open');
  assert.deepEqual(again.meta.transitions, [{ from: 'closed', to: 'open', at: NOW + 1 }]);
  const other = new FleetState({ ...policy, breaker: { failureThreshold: 3 } }, stored, NOW + 10);
  assert.match(other.reset, /FLEET_POLICY changed/);
  assert.equal(other.breaker.state, 'closed');
  assert.equal(other.meta.version, 0);
});

test('FleetState: late reports keep the breaker\'s meaning (failures since the last success)', () => {
  const state = new FleetState({ breaker: { failureThreshold: 2, resetTimeoutMs: 1000 }, retryBudget: {} }, null, NOW);
  const events = (e) => ({ events: { ...protocol.emptyEvents(), ...e } });
  // Two failures open it; a success from before them, reported late, does not close it.
  state.report(events({ failures: [[NOW + 10, 1], [NOW + 20, 1]] }));
  assert.equal(state.breaker.state, 'open');
  state.report(events({ successAt: NOW + 5 }));
  assert.equal(state.breaker.state, 'open');
  assert.equal(state.meta.stats.ignored, 1);
  // A failure reported late counts as of the latest failure: the wait is not cut short.
  state.report(events({ failures: [[NOW, 1]] }));
  assert.equal(state.breaker.isOpen(NOW + 1019), true);
  assert.equal(state.breaker.isOpen(NOW + 1020), false);
  // A success after them closes it; a failure from before that success is not counted.
  state.report(events({ successAt: NOW + 2000 }));
  assert.equal(state.breaker.state, 'closed');
  state.report(events({ failures: [[NOW + 1500, 1]] }));
  assert.equal(state.breaker.failures, 0);
  assert.equal(state.meta.stats.ignored, 2);
});

test('FleetState: a failure from an isolate whose clock is behind does not shorten the wait, through decide() too', () => {
  const state = new FleetState({ breaker: { failureThreshold: 3, resetTimeoutMs: 60_000 }, retryBudget: {} }, null, NOW);
  for (let i = 0; i < 3; i++) state.decide({ now: NOW, callAt: NOW + 1000, firstCall: i === 0, failure: true });
  assert.equal(state.breaker.state, 'open');
  // An isolate 55 s behind asks for a resend after a failure of its own: refused, and every
  // isolate's view stays open until 60 s after the latest failure.
  const answer = state.decide({ now: NOW - 55_000, callAt: NOW - 54_000, firstCall: true, failure: true });
  assert.deepEqual([answer.go, answer.refused], [false, 'circuit-open']);
  const view = CircuitBreaker.fromJSON(state.view().breaker);
  assert.equal(view.isOpen(NOW + 10_000), true);
  assert.equal(view.isOpen(NOW + 59_999), true);
  assert.equal(view.isOpen(NOW + 60_000), false);
  view.free();
});

test('protocol: tallies merge equal times and stay bounded; events are read in time order', () => {
  const { tally, mergeEvents, emptyEvents, readEvents, readPolicy, MAX_TALLY } = protocol;
  const list = [];
  tally(list, 10);
  tally(list, 10);
  tally(list, 20);
  tally(list, 5); // out of order: merged into place
  assert.deepEqual(list, [[5, 1], [10, 2], [20, 1]]);
  const long = [];
  for (let t = 0; t < MAX_TALLY + 10; t++) tally(long, t);
  assert.equal(long.length, MAX_TALLY);
  assert.equal(long.reduce((s, [, n]) => s + n, 0), MAX_TALLY + 10, 'nothing dropped');
  assert.deepEqual(long[long.length - 1], [MAX_TALLY + 9, 11], 'the overflow folds into the last entry');

  const a = { ...emptyEvents(), firstCalls: [[10, 1]], successAt: 30 };
  const b = { ...emptyEvents(), firstCalls: [[5, 2], [10, 1]], failures: [[7, 1]], successAt: 20 };
  assert.deepEqual(mergeEvents(a, b), { firstCalls: [[5, 2], [10, 2]], failures: [[7, 1]], successAt: 30, resends: [] });

  assert.deepEqual(readEvents({ firstCalls: [[10, 2]], failures: [[10, 1]], successAt: 3, resends: [[1, 1]] }),
    [[1, 'resend', 1], [3, 'success', 1], [10, 'first-call', 2], [10, 'failure', 1]]);
  assert.deepEqual(readEvents(undefined), []);

  assert.deepEqual(readPolicy({}), { breaker: {}, retryBudget: {}, flushMs: 1000 });
  assert.deepEqual(readPolicy({ FLEET_POLICY: '{"breaker": {"failureThreshold": 5}, "flushMs": 50}' }),
    { breaker: { failureThreshold: 5 }, retryBudget: {}, flushMs: 50 });
  assert.throws(() => readPolicy({ FLEET_POLICY: { flushMs: -1 } }), { name: 'RangeError', message: /flushMs/ });
  assert.throws(() => readPolicy({ FLEET_POLICY: '[1' }), SyntaxError);
});

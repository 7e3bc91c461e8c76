// Reliability at the JS boundary (SPEC section 7), from Node:
//
// * every hostile value in every argument (and nested option) of every export
//   gives a result or a TypeError/RangeError naming the argument; nothing traps
//   the instance (a trap is a WebAssembly.RuntimeError) and the next call works;
// * resource bounds: deep schemas and values, 10 MB strings;
// * memory: 100,000 loops created, used and freed leave wasm memory where it was
//   after a warm-up; unfreed loops are reclaimed by FinalizationRegistry;
// * JSONTestSuite through the boundary: parseStructured and repairJson agree
//   with every y_/n_ verdict and nothing breaks on any file.
//
// Complements classify/structured/loop/lifecycle.test.mjs, which check the
// named-field messages one by one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { NOW, CITY_SCHEMA, baseOptions, reply, failure, revokedProxy, withField } from './helpers.mjs';

// Capture the wasm instance the package creates, to read its memory (the
// nodejs-target glue keeps it in a module-local variable and exports nothing
// of it). Each test file runs in its own process, so the patch stays here.
const RealInstance = WebAssembly.Instance;
let instance;
WebAssembly.Instance = new Proxy(RealInstance, {
  construct(target, args, newTarget) {
    const created = Reflect.construct(target, args, newTarget);
    instance ??= created;
    return created;
  },
});
const selfheal = await import('../../pkg/selfheal.js');
WebAssembly.Instance = RealInstance;
const { classify, repairJson, Schema, parseStructured, buildRepairPrompt, RepairLoop, CircuitBreaker,
  Supervisor, AgentBudget, FallbackChain, DegradationLadder, Metrics, estimateTokens, planCompaction, applySummary,
  RetryBudget } = selfheal;
const wasmMemory = () => instance.exports.memory.buffer.byteLength;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = path.join(HERE, '../../pkg/selfheal.js');

// ---------------------------------------------------------------- hostile values

function deepObject(depth, key = 'a') {
  const root = {};
  let o = root;
  for (let i = 0; i < depth; i++) { o[key] = {}; o = o[key]; }
  return root;
}

function hostileValues() {
  const cyclic = { type: 'object', kind: 'reply', text: '{}', prompt: { system: 's', user: 'u' } };
  cyclic.self = cyclic;
  cyclic.properties = { a: cyclic };
  cyclic.error = cyclic;
  const selfProxy = new Proxy({}, {
    get: (t, k, receiver) => (k === 'toJSON' || typeof k === 'symbol' ? undefined : receiver),
    ownKeys: () => ['a'],
    getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }),
  });
  const throwingGetters = new Proxy({}, { get() { throw new Error('get trap boom'); } });
  const allTrapsThrow = new Proxy({}, Object.fromEntries(
    ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'set', 'defineProperty', 'apply', 'construct']
      .map((t) => [t, () => { throw new Error(`${t} trap boom`); }])));
  const lone = '\uD800 \uDFFF x\uDBFF';
  return {
    undefined: undefined,
    null: null,
    true: true,
    NaN: NaN,
    Infinity: Infinity,
    '-Infinity': -Infinity,
    '-0': -0,
    '-1': -1,
    '1.5': 1.5,
    '2**53+2': 2 ** 53 + 2,
    'MAX_VALUE': Number.MAX_VALUE,
    symbol: Symbol('hostile'),
    bigint: 10n ** 30n,
    emptyString: '',
    loneSurrogates: lone,
    tenMegabytes: 'x'.repeat(10 * 1024 * 1024),
    tenMegabytesOfBrackets: '['.repeat(10 * 1024 * 1024),
    function: function hostile() {},
    array: [1, 2, 3],
    hugeSparseArray: Object.assign([], { length: 2 ** 32 - 1 }),
    cyclic,
    deep: deepObject(100_000),
    selfProxy,
    throwingGetters,
    allTrapsThrow,
    revoked: revokedProxy(),
    revokedArray: revokedProxy([]),
    nullProto: Object.create(null),
    throwingToJSON: { toJSON() { throw new Error('toJSON boom'); } },
    bigintToJSON: { toJSON() { return 1n; } },
    date: new Date(NaN),
    map: new Map([['a', 1]]),
    typedArray: new Uint8Array(16),
    boxedString: new String('{"city":"Paris"}'),
    wrongClass: new CircuitBreaker(),
    schemaInstance: new Schema(CITY_SCHEMA),
  };
}

// ---------------------------------------------------------------- the matrix

/** The module still works: classify, a schema, a loop. */
function assertHealthy(context) {
  assert.equal(classify({ status: 503 }).class, 'transient', `after ${context}`);
  assert.equal(repairJson('[1,]')?.text, '[1]', `after ${context}`);
  const l = new RepairLoop(baseOptions());
  assert.equal(l.next(reply('{"city":"Paris"}'), NOW).type, 'done', `after ${context}`);
  l.free();
}

/**
 * Calls `fn`; a result is fine, a throw must be a TypeError/RangeError whose
 * message names `field`. Returns a problem description or null.
 */
function check(fn, field, label) {
  try {
    fn();
    return null;
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) return `${label}: TRAPPED (${e.message})`;
    if (!(e instanceof TypeError || e instanceof RangeError)) {
      return `${label}: threw ${e?.constructor?.name ?? typeof e}: ${e?.message ?? String(e)}`;
    }
    if (!String(e.message).includes(field)) return `${label}: ${e.constructor.name} does not name ${field}: ${e.message}`;
    return null;
  }
}

const report = () => parseStructured(CITY_SCHEMA, '{"town": 1}').report;

/** [label, field the error must name, call with the hostile value `v`]. */
function entryPoints() {
  const loop = () => new RepairLoop(baseOptions());
  const state = () => { const l = loop(); l.next(failure({ status: 503 }), NOW); return l.toJSON(); };
  const breakerState = () => new CircuitBreaker().toJSON();
  const budget = () => new AgentBudget({ maxInputTokens: 100, maxOutputTokens: 100 });
  const chain = () => new FallbackChain({ primary: 'a', fallbacks: ['b'], timeoutMs: 100 });
  const ladder = () => new DegradationLadder({ task: 't', failedCapabilities: ['tools'] });
  const many = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'word '.repeat(20) }));
  const plan = () => planCompaction(many, { maxTokens: 50, keepRecent: 2 });
  const schema = new Schema(CITY_SCHEMA);
  const calls = [
    ['repairJson(text)', 'text', (v) => repairJson(v)],
    ['new Schema(schema)', 'schema', (v) => new Schema(v).free()],
    ['Schema.parse(raw)', 'raw', (v) => schema.parse(v)],
    ['Schema.parse(_, options)', 'options', (v) => schema.parse('{"city":"x"}', v)],
    ['Schema.validate(value)', 'value', (v) => schema.validate(v)],
    ['parseStructured(schema)', 'schema', (v) => parseStructured(v, '{}')],
    ['parseStructured(_, raw)', 'raw', (v) => parseStructured(CITY_SCHEMA, v)],
    ['parseStructured(_, _, options)', 'options', (v) => parseStructured(CITY_SCHEMA, '{}', v)],
    ['buildRepairPrompt(report)', 'report', (v) => buildRepairPrompt(v, CITY_SCHEMA, '{}')],
    ['buildRepairPrompt(_, schema)', 'schema', (v) => buildRepairPrompt(report(), v, '{}')],
    ['buildRepairPrompt(_, _, raw)', 'raw', (v) => buildRepairPrompt(report(), CITY_SCHEMA, v)],
    ['buildRepairPrompt(_, _, _, options)', 'options', (v) => buildRepairPrompt(report(), CITY_SCHEMA, '{}', v)],
    ['new RepairLoop(options)', 'options', (v) => new RepairLoop(v).free()],
    ['new RepairLoop(_, breaker)', 'breaker', (v) => new RepairLoop(baseOptions(), v).free()],
    ['RepairLoop.next(outcome)', 'outcome', (v) => loop().next(v, NOW)],
    ['RepairLoop.next(_, now)', 'now', (v) => loop().next(reply('{"city":"x"}'), v)],
    ['RepairLoop.next(error outcome, now)', 'now', (v) => loop().next(failure({ status: 503 }), v)],
    ['RepairLoop.abort(reason)', 'reason', (v) => loop().abort(v, NOW)],
    ['RepairLoop.abort(_, now)', 'now', (v) => loop().abort('stop', v)],
    ['RepairLoop.fromJSON(state)', 'state', (v) => RepairLoop.fromJSON(v).free()],
    ['RepairLoop.fromJSON(_, breaker)', 'breaker', (v) => RepairLoop.fromJSON(state(), v).free()],
    ['new CircuitBreaker(options)', 'options', (v) => new CircuitBreaker(v).free()],
    ['CircuitBreaker.isOpen(now)', 'now', (v) => new CircuitBreaker().isOpen(v)],
    ['CircuitBreaker.recordFailure(now)', 'now', (v) => new CircuitBreaker().recordFailure(v)],
    ['CircuitBreaker.fromJSON(state)', 'state', (v) => CircuitBreaker.fromJSON(v).free()],
    // The agent toolkit (SPEC section 6).
    ['new Supervisor(options)', 'options', (v) => new Supervisor(v, NOW).free()],
    ['new Supervisor(_, now)', 'now', (v) => new Supervisor({}, v).free()],
    ['Supervisor.observe(step)', 'step', (v) => new Supervisor({}, NOW).observe(v, NOW)],
    ['Supervisor.observe(_, now)', 'now', (v) => new Supervisor({}, NOW).observe({ tool: 'x' }, v)],
    ['Supervisor.verdict(text)', 'text', (v) => new Supervisor({}, NOW).verdict(v)],
    ['Supervisor.fromJSON(state)', 'state', (v) => Supervisor.fromJSON(v).free()],
    ['new AgentBudget(options)', 'options', (v) => new AgentBudget(v).free()],
    ['AgentBudget.record(usage)', 'usage', (v) => budget().record(v)],
    ['AgentBudget.maxTokensForNextCall(cap)', 'cap', (v) => budget().maxTokensForNextCall(v)],
    ['AgentBudget.hint(locale)', 'locale', (v) => budget().hint(v)],
    ['AgentBudget.fromJSON(state)', 'state', (v) => AgentBudget.fromJSON(v).free()],
    ['new FallbackChain(options)', 'options', (v) => new FallbackChain(v).free()],
    ['FallbackChain.start(now)', 'now', (v) => chain().start(v)],
    ['FallbackChain.next(result)', 'result', (v) => { const c = chain(); c.start(NOW); c.next(v, NOW); }],
    ['FallbackChain.fromJSON(state)', 'state', (v) => FallbackChain.fromJSON(v).free()],
    ['new DegradationLadder(options)', 'options', (v) => new DegradationLadder(v).free()],
    ['DegradationLadder.next(result)', 'result', (v) => { const l = ladder(); l.start(); l.next(v); }],
    ['DegradationLadder.fromJSON(state)', 'state', (v) => DegradationLadder.fromJSON(v).free()],
    ['estimateTokens(messages)', 'messages', (v) => estimateTokens(v)],
    ['planCompaction(messages)', 'messages', (v) => planCompaction(v, { maxTokens: 10 })],
    ['planCompaction(_, options)', 'options', (v) => planCompaction([{ role: 'user', content: 'hi' }], v)],
    ['applySummary(plan)', 'plan', (v) => applySummary(v, 'summary')],
    ['applySummary(_, summary)', 'summary', (v) => applySummary(plan(), v)],
    ['Metrics.record(event)', 'event', (v) => new Metrics().record(v)],
    ['Metrics.summary(windowMs)', 'windowMs', (v) => new Metrics().summary(v, NOW)],
    ['Metrics.summary(_, now)', 'now', (v) => new Metrics().summary(1000, v)],
    ['Metrics.alerts(now)', 'now', (v) => new Metrics().alerts(v)],
    // Policy beyond one call (SPEC section 10).
    ['classify(_, _, _, options)', 'options', (v) => classify({ status: 404 }, null, NOW, v)],
    ['new RepairLoop(_, _, retryBudget)', 'retryBudget', (v) => new RepairLoop(baseOptions(), null, v).free()],
    ['RepairLoop.fromJSON(_, _, retryBudget)', 'retryBudget', (v) => RepairLoop.fromJSON(state(), null, v).free()],
    ['new RetryBudget(options)', 'options', (v) => new RetryBudget(v).free()],
    ['RetryBudget.recordRequest(now)', 'now', (v) => new RetryBudget().recordRequest(v)],
    ['RetryBudget.tryRetry(now)', 'now', (v) => new RetryBudget().tryRetry(v)],
    ['RetryBudget.fromJSON(state)', 'state', (v) => RetryBudget.fromJSON(v).free()],
  ];
  // Hostile values one level down, where the readers go field by field.
  const nested = [
    ['options', (v) => new RepairLoop(v).free(), [
      'prompt', 'prompt.system', 'prompt.user', 'schema', 'mode', 'alternatePrompt', 'fallback',
      'fallback.queue', 'budget', 'budget.transient', 'budget.repairable', 'budget.semanticInvalid',
      'budget.costCeilingUsd', 'budget.deadlineMs', 'budget.maxPromptChars', 'backoff', 'backoff.baseMs',
      'backoff.maxMs', 'backoff.jitter', 'backoff.jitterMs', 'backoff.maxRetryAfterMs', 'localRepair',
      'locale', 'maxRawChars', 'seed',
    ], () => baseOptions({ fallback: { mode: 'human', queue: 'q' } })],
    ['outcome', (v) => loop().next(v, NOW), ['kind', 'text', 'stopReason', 'costUsd', 'usage', 'usage.inputTokens'],
      () => ({ kind: 'reply', text: '{"city":"x"}', usage: { inputTokens: 1, outputTokens: 1 } })],
    ['outcome', (v) => loop().next(v, NOW), ['error', 'error.status', 'error.headers', 'error.headers.retry-after', 'error.cause', 'costUsd'],
      () => ({ kind: 'error', error: { status: 503, headers: {}, cause: {} } })],
    ['outcome', (v) => loop().next(v, NOW), ['reason'], () => ({ kind: 'rejected', reason: 'no' })],
    ['report', (v) => buildRepairPrompt(v, CITY_SCHEMA, '{}'), ['kinds', 'issues', 'issues.0', 'issues.0.message', 'issues.0.path', 'issues.0.kind'],
      () => report()],
    ['options', (v) => parseStructured(CITY_SCHEMA, '{}', v), ['localRepair', 'stopReason'], () => ({})],
    ['options', (v) => buildRepairPrompt(report(), CITY_SCHEMA, '{}', v), ['maxRawChars', 'locale'], () => ({})],
    ['options', (v) => new CircuitBreaker(v).free(), ['failureThreshold', 'resetTimeoutMs'], () => ({})],
    ['state', (v) => RepairLoop.fromJSON(v).free(), ['version', 'options', 'options.budget.transient', 'options.seed', 'schema', 'state', 'state.rng', 'state.calls', 'state.costUsd', 'state.attempts'],
      () => state()],
    ['state', (v) => CircuitBreaker.fromJSON(v).free(), ['options', 'options.failureThreshold', 'state', 'failures', 'lastFailureAt'],
      () => breakerState()],
    ['options', (v) => classify({ status: 404 }, null, NOW, v),
      ['rules', 'rules.0', 'rules.0.status', 'rules.0.status.1', 'rules.0.code', 'rules.0.type', 'rules.0.message', 'rules.0.class', 'rules.0.cause'],
      () => ({ rules: [{ status: [400, 499], class: 'transient' }] })],
    ['options', (v) => new RepairLoop(v).free(), ['rules', 'rules.0', 'rules.0.status', 'rules.0.class'],
      () => baseOptions({ rules: [{ status: 404, class: 'transient' }] })],
    ['options', (v) => new RetryBudget(v).free(), ['ratio', 'minPerSecond', 'windowMs'], () => ({})],
    ['state', (v) => RetryBudget.fromJSON(v).free(), ['options', 'options.ratio', 'options.windowMs', 'buckets', 'buckets.0', 'buckets.0.slot', 'buckets.0.retries', 'latest'],
      () => new RetryBudget().toJSON()],
  ];
  return { calls, nested };
}

test('every hostile value at every argument: a result or a TypeError/RangeError naming it, never a trap', () => {
  const values = hostileValues();
  const { calls, nested } = entryPoints();
  const problems = [];
  let n = 0;
  for (const [label, field, call] of calls) {
    for (const [name, v] of Object.entries(values)) {
      const p = check(() => call(v), field, `${label} with ${name}`);
      if (p) problems.push(p);
      if (++n % 25 === 0) assertHealthy(label);
    }
  }
  for (const [root, call, paths, base] of nested) {
    for (const p of paths) {
      for (const [name, v] of Object.entries(values)) {
        const arg = withField(base(), p, v);
        const problem = check(() => call(arg), root, `${root}.${p} = ${name}`);
        if (problem) problems.push(problem);
        if (++n % 25 === 0) assertHealthy(`${root}.${p}`);
      }
    }
  }
  assertHealthy('the matrix');
  assert.deepEqual(problems, [], `${problems.length} of ${n} calls:\n${problems.join('\n')}`);
});

test('classify never throws on any hostile value in any argument', () => {
  const values = hostileValues();
  const problems = [];
  for (const [name, v] of Object.entries(values)) {
    for (const [label, call] of [
      ['error', () => classify(v)],
      ['validation', () => classify({ status: 500 }, v)],
      ['now', () => classify({ status: 429, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' } }, null, v)],
      ['error.*', () => classify({ status: v, statusCode: v, response: v, headers: v, error: v, cause: v, code: v, name: v, message: v, type: v })],
      ['headers.*', () => classify({ status: 429, headers: { 'retry-after': v, 'retry-after-ms': v, 'x-should-retry': v } })],
    ]) {
      try {
        const c = call();
        assert.ok(['transient', 'repairable', 'semantic-invalid', 'hard-fail'].includes(c.class), `${label}=${name}`);
        assert.ok(c.retryAfterMs === null || (Number.isFinite(c.retryAfterMs) && c.retryAfterMs >= 0), `${label}=${name}: ${c.retryAfterMs}`);
        assert.ok(c.reason.length > 0 && !/[\n\r\u2028\u2029]/.test(c.reason), `${label}=${name}: ${JSON.stringify(c.reason)}`);
      } catch (e) {
        problems.push(`classify ${label}=${name}: threw ${e?.constructor?.name}: ${e?.message}`);
      }
    }
  }
  assert.deepEqual(problems, []);
  assertHealthy('classify');
});

test('the same objects keep working after every hostile call they refused', () => {
  const values = Object.values(hostileValues());
  const l = new RepairLoop(baseOptions());
  const schema = new Schema(CITY_SCHEMA);
  const breaker = new CircuitBreaker();
  const retryBudget = new RetryBudget();
  for (const v of values) {
    for (const call of [
      () => retryBudget.recordRequest(v), () => retryBudget.tryRetry(v), () => new RepairLoop(baseOptions(), breaker, v),
      () => l.next(v, NOW), () => l.next({ kind: 'error', error: v, costUsd: v }, NOW), () => l.next(reply('{}'), v),
      () => schema.parse(v, v), () => schema.validate(v), () => breaker.isOpen(v), () => breaker.recordFailure(v),
    ]) {
      try { call(); } catch (e) { assert.ok(e instanceof TypeError || e instanceof RangeError, `${e?.constructor?.name}: ${e?.message}`); }
    }
  }
  // Still usable: every getter and method answers.
  assert.equal(typeof retryBudget.available, 'number');
  assert.equal(typeof retryBudget.tryRetry(NOW), 'boolean');
  assert.equal(typeof l.report().calls, 'number');
  assert.ok(Array.isArray(l.attempts));
  assert.equal(typeof JSON.stringify(l.toJSON()), 'string');
  assert.equal(typeof l.next(reply('{"city":"Paris"}'), NOW + 1e9).type, 'string');
  assert.equal(schema.parse('{"city":"x"}').ok, true);
  assert.ok(['closed', 'open', 'half-open'].includes(breaker.state));
  for (const o of [l, schema, breaker]) o.free();
});

// ---------------------------------------------------------------- resource bounds

test('deep schemas and values: a TypeError naming the field or a result, never a crash', () => {
  const nest = (key, n) => { let s = {}; for (let i = 0; i < n; i++) s = { [key]: s }; return s; };
  // V8's JSON.stringify throws RangeError (stack) on 10,000 levels: reported as a TypeError naming schema.
  for (const key of ['not', 'items', 'properties', 'allOf']) {
    const deep = key === 'allOf' ? (() => { let s = {}; for (let i = 0; i < 10_000; i++) s = { allOf: [s] }; return s; })() : nest(key, 10_000);
    assert.equal(check(() => new Schema(deep), 'schema', `10,000-deep ${key}`), null);
    assert.equal(check(() => new RepairLoop({ ...baseOptions(), schema: deep }), 'options.schema', `10,000-deep ${key} loop`), null);
    // As text it gets to serde_json, whose recursion limit (128) refuses it.
    const text = JSON.stringify(nest(key, 200));
    assert.equal(check(() => new Schema(text), 'schema', `200-deep ${key} text`), null);
  }
  // The deepest schemas serde_json accepts compile and validate (jsonschema recursion fits the wasm stack).
  for (const [key, n] of [['not', 126], ['items', 126], ['additionalProperties', 126]]) {
    const s = new Schema(nest(key, n));
    const r = s.parse('{"a": [[[1]]]}');
    assert.equal(typeof r.ok, 'boolean');
    s.free();
  }
  // A recursive schema against the deepest value serde_json accepts.
  const tree = new Schema({ type: 'array', items: { $ref: '#' } });
  assert.equal(tree.parse('['.repeat(127) + ']'.repeat(127)).ok, true);
  const bad = tree.parse('['.repeat(126) + '1' + ']'.repeat(126));
  assert.equal(bad.ok, false);
  // SPEC 4 (v0.2): a path is clipped to 200 code points, the ellipsis that marks the cut included.
  assert.equal(bad.report.issues[0].path, '/0'.repeat(126).slice(0, 199) + '…');
  // Deep values to validate: a TypeError naming value.
  assert.equal(check(() => tree.validate(JSON.parse('['.repeat(5000) + ']'.repeat(5000))), 'value', 'deep value'), null);
  // Deep state for fromJSON.
  const state = new RepairLoop(baseOptions()).toJSON();
  state.schema = nest('not', 10_000);
  assert.equal(check(() => RepairLoop.fromJSON(state), 'state', 'deep state'), null);
  assertHealthy('deep inputs');
});

test('100,000-deep replies and 10 MB strings through every text argument', () => {
  const deepReply = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
  const big = '{"city": "' + 'y'.repeat(10 * 1024 * 1024) + '"}';
  for (const text of [deepReply, big]) {
    assert.equal(typeof parseStructured(CITY_SCHEMA, text).ok, 'boolean');
    // repairJson refuses a text above its maxChars (4,000,000 by default, since the thirteenth
    // session) with a RangeError; raised, it is read.
    if (text.length > 4_000_000) assert.throws(() => repairJson(text), RangeError);
    const r = repairJson(text, { maxChars: text.length });
    assert.ok(r === null || typeof r.text === 'string');
    const p = buildRepairPrompt(report(), CITY_SCHEMA, text);
    assert.ok(p.user.length < 20_000);
    // Above maxReplyChars (4,000,000 by default) a reply is refused unread; raised, it is read.
    const l = new RepairLoop(baseOptions({ mode: 'reask' }));
    const step = l.next(reply(text), NOW);
    if (text.length > 4_000_000) {
      assert.deepEqual([step.type, step.reason, step.classified.cause], ['degrade', 'unrepairable', 'too-large']);
    } else {
      assert.ok(['done', 'send-repair-prompt'].includes(step.type));
    }
    l.free();
    const raised = new RepairLoop(baseOptions({ mode: 'reask', maxReplyChars: 12_000_000 }));
    assert.ok(['done', 'send-repair-prompt'].includes(raised.next(reply(text), NOW).type));
    raised.free();
  }
  // A 10 MB prompt and fallback: accepted; the reask prompt built on it is stopped by maxPromptChars.
  const huge = 'z'.repeat(10 * 1024 * 1024);
  const l = new RepairLoop(baseOptions({
    prompt: { system: huge, user: huge }, fallback: { mode: 'human', queue: huge }, mode: 'reask', budget: { maxPromptChars: 6000 },
  }));
  const i = l.next(reply('{"town": 1}'), NOW);
  assert.equal(i.type, 'degrade');
  assert.equal(i.reason, 'prompt-too-large');
  assert.equal(i.fallback.queue.length, huge.length);
  l.free();
  assertHealthy('10 MB strings');
});

test('numbers at the edges stay finite through the boundary', () => {
  // Huge but finite options: every delay and cost is a finite number (JSON cannot carry Infinity).
  const l = new RepairLoop(baseOptions({
    backoff: { baseMs: Number.MAX_VALUE, maxMs: Number.MAX_VALUE, jitter: 'additive', jitterMs: Number.MAX_VALUE, maxRetryAfterMs: Number.MAX_VALUE },
    budget: { transient: 3 },
  }));
  const w = l.next(failure({ status: 503 }, { costUsd: Number.MAX_VALUE }), NOW);
  assert.equal(w.type, 'wait-for-backoff');
  assert.ok(Number.isFinite(w.delayMs), `delayMs ${w.delayMs}`);
  const d = l.next(reply('{"city":"Paris"}', { costUsd: Number.MAX_VALUE }), NOW + 1);
  assert.equal(d.type, 'done');
  assert.ok(Number.isFinite(d.costUsd), `costUsd ${d.costUsd}`);
  // The state survives JSON and resumes.
  RepairLoop.fromJSON(JSON.parse(JSON.stringify(l.toJSON()))).free();
  // A server wait rounded up above maxRetryAfterMs degrades.
  const r = new RepairLoop(baseOptions({ backoff: { maxRetryAfterMs: 999.7 } }));
  assert.equal(r.next(failure({ status: 429, headers: { 'retry-after-ms': '999.5' } }), NOW).reason, 'retry-after-too-long');
});

// ---------------------------------------------------------------- memory

test('100,000 loops created, stepped and freed: wasm memory does not grow after a warm-up', () => {
  assert.ok(instance, 'the wasm instance was captured');
  const options = baseOptions();
  const run = (n) => {
    for (let k = 0; k < n; k++) {
      const l = new RepairLoop({ ...options, seed: k });
      l.next(k % 2 ? reply('{"city": "Paris"}') : failure({ status: 503 }), NOW);
      l.free();
    }
  };
  run(10_000);
  const warm = wasmMemory();
  run(100_000);
  const after = wasmMemory();
  assert.ok(after <= warm, `wasm memory grew from ${warm} to ${after} bytes`);
  assertHealthy('100,000 loops');
});

test('a recursive anyOf over a deep failing reply: wasm memory grows by the reply, not depth x branches x reply', () => {
  // jsonschema copied the failing value into every error of every anyOf/oneOf branch, at
  // every level: 120 levels x 5 branches x this 0.8 MB value grew memory by 515 MB (a 3.8 MB
  // one passed 4 GB and trapped). A fresh process: memory never shrinks, so this file's
  // instance has grown already.
  const script = `
    const Real = WebAssembly.Instance;
    let instance;
    WebAssembly.Instance = new Proxy(Real, { construct(t, a, n) { return (instance ??= Reflect.construct(t, a, n)); } });
    const m = require(${JSON.stringify(PKG)});
    const node = { anyOf: [
      { type: 'object', properties: { child: { $ref: '#/$defs/node' } }, required: ['child'] },
      { type: 'string', maxLength: 100 }, { type: 'null' }, { type: 'number' }, { type: 'boolean' } ] };
    let text = JSON.stringify('\u00e9'.repeat(400000));
    for (let i = 0; i < 120; i++) text = '{"child":' + text + '}';
    const before = instance.exports.memory.buffer.byteLength;
    const r = new m.Schema({ $defs: { node }, $ref: '#/$defs/node' }).parse(text);
    console.log(JSON.stringify({ grown: instance.exports.memory.buffer.byteLength - before, issues: r.report.issues }));`;
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(out.status, 0, out.stderr);
  const { grown, issues } = JSON.parse(out.stdout.trim());
  assert.ok(grown < 64 * 1024 * 1024, `wasm memory grew by ${grown} bytes`);
  assert.equal(issues.length, 1);
  assert.equal(issues[0].path, '');
  assert.ok(issues[0].message.startsWith('{"child":{"child":'), issues[0].message);
});

test('loops that are never freed are reclaimed by FinalizationRegistry once collected', () => {
  // A child process with --expose-gc: the glue registers every object with a
  // FinalizationRegistry (wasm-bindgen 0.2.130 does so by default), so dropped
  // loops give their wasm memory back after a GC, only later than free().
  const script = `
    const Real = WebAssembly.Instance;
    let instance;
    WebAssembly.Instance = new Proxy(Real, { construct(t, a, n) { return (instance ??= Reflect.construct(t, a, n)); } });
    const m = require(${JSON.stringify(PKG)});
    const options = { prompt: { system: 's', user: 'u' }, schema: { type: 'object' }, seed: 1 };
    const text = JSON.stringify({ a: 'x'.repeat(4000) });
    // Each loop keeps its done instruction (value and text, ~8 KB) until it is freed.
    const make = (n) => { for (let k = 0; k < n; k++) new m.RepairLoop(options).next({ kind: 'reply', text }, 1); };
    const settle = async () => { for (let i = 0; i < 5; i++) { global.gc(); await new Promise((r) => setTimeout(r, 20)); } };
    (async () => {
      make(5000); await settle();
      const sizes = [];
      for (let round = 0; round < 6; round++) { make(5000); await settle(); sizes.push(instance.exports.memory.buffer.byteLength); }
      console.log(JSON.stringify(sizes));
    })();`;
  const out = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(out.status, 0, out.stderr);
  const sizes = JSON.parse(out.stdout.trim());
  // 25,000 more unfreed loops of ~8 KB each would be ~200 MB more if nothing were reclaimed.
  assert.ok(sizes[5] - sizes[0] < 16 * 1024 * 1024, `wasm memory kept growing: ${sizes.join(', ')}`);
});

// ---------------------------------------------------------------- JSONTestSuite

test('JSONTestSuite through the boundary: y_ accepted unchanged, n_ refused, nothing breaks', () => {
  const dir = path.join(HERE, '../corpus/JSONTestSuite/test_parsing');
  assert.ok(existsSync(dir), `JSONTestSuite corpus missing at ${dir}`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  assert.ok(files.length > 300, `${files.length} files`);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const anything = new Schema('true');
  const problems = [];
  for (const f of files) {
    const bytes = readFileSync(path.join(dir, f));
    let text;
    let isUtf8 = true;
    try {
      text = utf8.decode(bytes);
    } catch {
      // Not UTF-8: a JS string cannot hold it as is. Such files must be n_ or i_;
      // decoded with U+FFFD they must still not break anything.
      if (!/^[ni]_/.test(f)) problems.push(`${f}: not UTF-8 but not n_ or i_`);
      text = new TextDecoder('utf-8').decode(bytes);
      isUtf8 = false;
    }
    let strict, repaired;
    try {
      strict = parseStructured(anything, text, { localRepair: false });
      parseStructured(CITY_SCHEMA, text);
      repaired = repairJson(text);
    } catch (e) {
      problems.push(`${f}: threw ${e?.constructor?.name}: ${e?.message}`);
      continue;
    }
    if (f.startsWith('y_')) {
      if (!strict.ok) problems.push(`${f}: refused: ${JSON.stringify(strict.report.issues[0])}`);
      else if (JSON.stringify(strict.value) !== JSON.stringify(JSON.parse(text))) {
        problems.push(`${f}: value ${JSON.stringify(strict.value)} != JSON.parse ${JSON.stringify(JSON.parse(text))}`);
      }
      if (repaired?.text !== text || repaired.fixes.length !== 0) problems.push(`${f}: repairJson changed valid JSON`);
    }
    if (f.startsWith('n_') && isUtf8 && strict.ok) problems.push(`${f}: accepted`);
    if (repaired !== null) {
      try { JSON.parse(repaired.text); } catch { problems.push(`${f}: repairJson gave non-JSON ${JSON.stringify(repaired.text)}`); }
    }
  }
  anything.free();
  assertHealthy('JSONTestSuite');
  assert.deepEqual(problems, [], problems.join('\n'));
});

// The fast paths of docs/PERFORMANCE.md give the same values as the paths they replace.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Schema, parseStructured, classify, RepairLoop, repairJson } from '../../pkg/selfheal.js';
import { NOW, PROMPT } from './helpers.mjs';

const ANY = new Schema({});

test('Schema.parse: a strict reply is JSON.parse of the reply itself, number for number', () => {
  const cases = [
    '-0', '[-0, 0, -0.0, 1e-400, 5e-324]', '9007199254740993', '[18446744073709551615, -9223372036854775809]',
    '123456789012345678901234567890', '0.1', '1.7976931348623157e308', '[1E2, 1.0, 2.50]',
    '{"a":1,"a":2,"b":{"c":[true,false,null]}}', '{"__proto__": {"x": 1}}', '{"2":0,"1":0,"b":0,"a":0}',
    '"\\ud83d\\ude00 ok"', '"caf\u00e9 \u2116 \ud83d\ude00"', ' {"pad": "ded"} \n',
  ];
  for (const text of cases) {
    const r = ANY.parse(text);
    assert.equal(r.ok, true, text);
    assert.deepEqual(Object.keys(r), ['ok', 'value', 'fixes']);
    assert.deepEqual(r.fixes, []);
    // deepEqual (strict) uses Object.is for numbers: -0 and 0 differ.
    assert.deepEqual(r.value, JSON.parse(text), text);
    assert.deepEqual(Object.keys(r.value ?? {}), Object.keys(JSON.parse(text) ?? {}), text);
  }
  assert.ok(Object.is(ANY.parse('-0').value, -0));
});

test('Schema.parse: repaired replies and failures are unchanged', () => {
  const fenced = ANY.parse('```json\n{a: -0, b: [1,2,],}\n```');
  assert.deepEqual(fenced, { ok: true, value: { a: -0, b: [1, 2] }, fixes: ['code-fence', 'unquoted-key', 'trailing-comma'] });
  assert.ok(Object.is(fenced.value.a, -0));
  const bad = new Schema({ type: 'object', required: ['x'] }).parse('{"y": 1}');
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.report.kinds, ['schema']);
  assert.equal(parseStructured({}, '', {}).report.kinds[0], 'empty');
});

test('Schema.parse: a lone surrogate crosses as U+FFFD, as before', () => {
  // JS strings may hold lone surrogates; Rust text cannot. The value must not depend on the path.
  const r = ANY.parse('"a\ud800b"');
  assert.equal(r.ok, true);
  assert.equal(r.value, 'a\ufffdb');
  const escaped = ANY.parse('{"k": "\ufffd", "lone": "x\udfff"}');
  assert.deepEqual(escaped.value, { k: '\ufffd', lone: 'x\ufffd' });
});

test('cached property names: getters, proxies and re-entrant reads still behave', () => {
  let reads = 0;
  const error = {
    get status() {
      reads++;
      // A re-entrant read while the outer read holds the name cache.
      classify({ status: 500 }, undefined, NOW);
      return 503;
    },
  };
  for (let i = 0; i < 3; i++) assert.equal(classify(error, undefined, NOW).class, 'transient');
  assert.ok(reads >= 3);
  const proxy = new Proxy({}, { get: (_t, k) => (k === 'status' ? 429 : undefined) });
  assert.equal(classify(proxy, undefined, NOW).cause, 'rate-limited');
  const loop = new RepairLoop({ prompt: PROMPT, schema: {}, seed: 1 });
  assert.equal(loop.next({ kind: 'reply', text: '{"a":1}' }, NOW).type, 'done');
  loop.free();
});

test('schemas found by text in JS (js/schema_keys.js): same text same schema, changed text recompiled', () => {
  const schema = { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } };
  assert.equal(new Schema(schema).parse('{"a": 1}').ok, true);
  // The same object, mutated: its new text must not find the old compiled form.
  schema.required = ['b'];
  const mutated = new Schema(schema);
  assert.equal(mutated.parse('{"a": 1}').ok, false);
  assert.equal(mutated.parse('{"b": 1}').ok, true);
  schema.required = ['a'];
  assert.equal(new Schema(schema).parse('{"a": 1}').ok, true);
  // Texts of the same length that differ are different schemas.
  assert.equal(new Schema({ required: ['x'] }).parse('{"y":0}').ok, false);
  assert.equal(new Schema({ required: ['y'] }).parse('{"y":0}').ok, true);
  // Past the 64 slots the oldest go, and come back compiled right.
  const many = Array.from({ length: 150 }, (_, i) => ({ required: [`k${i}`] }));
  for (let round = 0; round < 2; round++) {
    many.forEach((s, i) => {
      const compiled = new Schema(s);
      assert.equal(compiled.parse(`{"k${i}": 0}`).ok, true, `round ${round} schema ${i}`);
      assert.equal(compiled.parse(`{"k${i + 1}": 0}`).ok, false, `round ${round} schema ${i}`);
      compiled.free();
    });
  }
  // Invalid schemas and unserialisable values never take a slot.
  assert.throws(() => new Schema({ type: 'no-such-type' }), TypeError);
  assert.throws(() => new Schema({ type: 'no-such-type' }), TypeError);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => new Schema(cyclic), /schema is not JSON-serialisable/);
  assert.throws(() => new Schema({ toJSON: () => { throw new Error('nope'); } }), /schema is not JSON-serialisable: nope/);
  // A Schema passed where a schema is expected is still its own compiled form.
  const city = new Schema({ required: ['city'] });
  const loop = new RepairLoop({ prompt: PROMPT, schema: city, seed: 1 });
  assert.equal(loop.next({ kind: 'reply', text: '{"town": 1}' }, NOW).type, 'send-repair-prompt');
  loop.free();
});

test('schema lookup is re-entrant: a toJSON that builds another Schema', () => {
  let inner = null;
  const outer = { required: ['o'], toJSON() { inner = new Schema({ required: ['i'] }); return { required: ['o'] }; } };
  const s = new Schema(outer);
  assert.equal(s.parse('{"o": 1}').ok, true);
  assert.equal(inner.parse('{"i": 1}').ok, true);
  assert.equal(new Schema({ required: ['o'] }).parse('{"i": 1}').ok, false);
  assert.equal(new Schema({ required: ['i'] }).parse('{"o": 1}').ok, false);
});

test('done: value and text come from the reply string itself, as before', () => {
  const texts = ['{"a": -0, "b": 9007199254740993, "c": "caf\u00e9 \ud83d\ude00"}', ' [1, 2.50, 1e2] ', '"x\ud800y"'];
  for (const text of texts) {
    const loop = new RepairLoop({ prompt: PROMPT, schema: {}, seed: 1 });
    const done = loop.next({ kind: 'reply', text }, NOW);
    assert.equal(done.type, 'done');
    assert.deepEqual(Object.keys(done), ['type', 'value', 'text', 'source', 'fixes', 'attempts', 'costUsd']);
    const expected = JSON.parse(text.replace('\ud800', '\ufffd'));
    assert.deepEqual(done.value, expected, text);
    assert.equal(done.text, text.replace('\ud800', '\ufffd'));
    // A finished loop repeats its done, whatever it is fed next.
    const again = loop.next({ kind: 'reply', text: '{"other": true}' }, NOW);
    assert.deepEqual(again, done);
    loop.free();
  }
  // A getter that changes its answer is read once: value and text agree.
  let n = 0;
  const outcome = { kind: 'reply', get text() { n++; return `{"n": ${n}}`; } };
  const loop = new RepairLoop({ prompt: PROMPT, schema: {}, seed: 1 });
  const done = loop.next(outcome, NOW);
  assert.equal(n, 1);
  assert.deepEqual(done.value, JSON.parse(done.text));
  // Without a schema the value is the reply text itself, even when that text is JSON.
  for (const text of ['{"a": 1}', '42', 'plain words', '"quoted"']) {
    const raw = new RepairLoop({ prompt: PROMPT, seed: 1 }).next({ kind: 'reply', text }, NOW);
    assert.equal(raw.type, 'done');
    assert.equal(raw.value, text);
    assert.equal(raw.text, text);
  }
  // A repaired reply keeps the repaired text.
  const fixed = new RepairLoop({ prompt: PROMPT, schema: {}, seed: 1 }).next({ kind: 'reply', text: '{a: 1,}' }, NOW);
  assert.deepEqual(fixed.value, { a: 1 });
  assert.equal(fixed.text, repairJson('{a: 1,}').text);
  assert.deepEqual(fixed.fixes, ['unquoted-key', 'trailing-comma']);
});

test('repairJson: { text, fixes } from js/snippets/instructions.js, keys in the JSON order', () => {
  const r = repairJson('```json\n{a: 1, "b": [1, 2,],}\n```');
  assert.deepEqual(Object.keys(r), ['text', 'fixes']);
  assert.deepEqual(r, { text: '{"a": 1, "b": [1, 2]}', fixes: ['code-fence', 'unquoted-key', 'trailing-comma'] });
  assert.deepEqual(repairJson('{"a": 1}'), { text: '{"a": 1}', fixes: [] });
  assert.equal(repairJson('no json here'), null);
});

test('errors read in one crossing (js/gather.js): every place SPEC lists, hostile values absent', () => {
  const headers = new Headers({ 'Retry-After': '3' });
  const cases = [
    [{ status: '503 ' }, 'transient'],
    [{ statusCode: 429, headers: { 'retry-after': ['2', '9'] } }, 'transient'],
    [{ response: { status: 500, headers } }, 'transient'],
    [{ error: { error: { type: 'overloaded_error' } } }, 'transient'],
    [{ cause: { cause: { cause: { code: 'ECONNRESET' } } } }, 'transient'],
    [Object.assign(new Error('x'), { code: 'ETIMEDOUT' }), 'transient'],
    [{ get status() { throw new Error('boom'); }, statusCode: 503 }, 'transient'],
    [new Proxy({}, { get() { throw new Error('trap'); } }), classify(new Error('?'), undefined, NOW).class],
  ];
  cases.forEach(([error, cls], i) => assert.equal(classify(error, undefined, NOW).class, cls, `case ${i}`));
  // A thrown bare string is the message; lone surrogates cross as U+FFFD.
  assert.match(classify('socket hang up', undefined, NOW).reason, /socket hang up/);
  assert.match(classify({ message: 'bad \ud800 thing' }, undefined, NOW).reason, /bad \ufffd thing/);
  assert.equal(classify({ status: 429, headers: { 'retry-after': ['2', '9'] } }, undefined, NOW).retryAfterMs, 2000);
  assert.equal(classify({ status: 429, headers: new Map([['Retry-After', 4]]) }, undefined, NOW).retryAfterMs, 4000);
  assert.equal(classify({ status: 429, response: { headers } }, undefined, NOW).retryAfterMs, 3000);
  // The loop's one-call path for error outcomes decides as the field-by-field path does.
  for (const outcome of [
    { kind: 'error', error: { status: 503 } },
    { kind: 'error', error: { status: 503 }, costUsd: 0.5 },
    { kind: 'error', error: { status: 400 } },
  ]) {
    const a = new RepairLoop({ prompt: PROMPT, seed: 3 });
    const b = new RepairLoop({ prompt: PROMPT, seed: 3 });
    // The same outcome with a kind that throws on its first read only: the one-call path
    // gives up, and the field-by-field path reads it all again.
    let first = true;
    const slow = new Proxy(outcome, {
      get(target, key) {
        if (key === 'kind' && first) { first = false; throw new Error('not yet'); }
        return target[key];
      },
    });
    assert.deepEqual(a.next(outcome, NOW), b.next(slow, NOW));
    assert.deepEqual(a.report(), b.report());
  }
  // A reply's kind is read once, in the one call.
  let kindReads = 0;
  const counted = { get kind() { kindReads++; return 'reply'; }, text: '{"a":1}' };
  assert.equal(new RepairLoop({ prompt: PROMPT, schema: {}, seed: 3 }).next(counted, NOW).type, 'done');
  assert.equal(kindReads, 1);
  // Bad costs still name the field.
  const loop = new RepairLoop({ prompt: PROMPT, seed: 3 });
  assert.throws(() => loop.next({ kind: 'error', error: {}, costUsd: -1 }, NOW), /outcome\.costUsd must be >= 0/);
  assert.throws(() => loop.next({ kind: 'error', error: {}, costUsd: 'x' }, NOW), /outcome\.costUsd must be a number/);
  assert.throws(() => loop.next({ kind: 'error', get error() { throw new Error('no'); } }, NOW), /outcome\.error could not be read/);
});

test('wait-for-backoff and classify results built in JS (js/instructions.js): the JSON shapes, key for key', () => {
  const loop = new RepairLoop({ prompt: { system: 'sys \u00e9', user: 'usr \ud83d\ude00' }, seed: 7 });
  const wait = loop.next({ kind: 'error', error: { status: 429, headers: { 'retry-after': '2' } } }, NOW);
  assert.deepEqual(Object.keys(wait), ['type', 'delayMs', 'prompt', 'attempt', 'classified']);
  assert.deepEqual(Object.keys(wait.classified), ['class', 'cause', 'reason', 'signal', 'retryAfterMs']);
  assert.equal(wait.type, 'wait-for-backoff');
  assert.deepEqual(wait.prompt, { system: 'sys \u00e9', user: 'usr \ud83d\ude00' });
  assert.equal(wait.attempt, 2);
  assert.deepEqual(wait.classified, {
    class: 'transient', cause: 'rate-limited', reason: 'HTTP 429 (rate limited)', signal: 'status', retryAfterMs: 2000,
  });
  assert.ok(Number.isFinite(wait.delayMs) && wait.delayMs >= 2000, String(wait.delayMs));
  // The same seed gives the same delay; the object round-trips through JSON unchanged.
  const again = new RepairLoop({ prompt: { system: 'sys \u00e9', user: 'usr \ud83d\ude00' }, seed: 7 })
    .next({ kind: 'error', error: { status: 429, headers: { 'retry-after': '2' } } }, NOW);
  assert.deepEqual(again, wait);
  assert.deepEqual(JSON.parse(JSON.stringify(wait)), wait);
  // Each instruction is a fresh object: changing one changes nothing later.
  wait.prompt.user = 'changed';
  wait.classified.cause = 'changed';
  const next = loop.next({ kind: 'error', error: { status: 503 } }, NOW);
  assert.equal(next.prompt.user, 'usr \ud83d\ude00');
  assert.deepEqual(next.classified, {
    class: 'transient', cause: 'overloaded', reason: 'HTTP 503 (overloaded)', signal: 'status', retryAfterMs: null,
  });
  // classify() has the same shape, every class and signal name as SPEC spells them.
  const seen = [
    classify({ status: 503 }, undefined, NOW),
    classify({ status: 401 }, undefined, NOW),
    classify(null, { ok: false, kind: 'schema' }, NOW),
    classify(null, { ok: false, kind: 'semantic' }, NOW),
    classify({ headers: { 'x-should-retry': 'true' } }, undefined, NOW),
  ];
  for (const c of seen) assert.deepEqual(Object.keys(c), ['class', 'cause', 'reason', 'signal', 'retryAfterMs']);
  assert.deepEqual(seen.map((c) => c.class), ['transient', 'hard-fail', 'repairable', 'semantic-invalid', 'transient']);
  assert.deepEqual(seen.map((c) => c.signal), ['status', 'status', 'validation', 'validation', 'x-should-retry']);
  loop.free();
});

test('a Schema passed as a schema is found by its id, with no JSON text crossing', () => {
  const compiled = new Schema({ required: ['city'] });
  assert.ok(Number.isInteger(compiled.__selfhealSchemaId) && compiled.__selfhealSchemaId > 0);
  const other = new Schema({ required: ['town'] });
  assert.notEqual(other.__selfhealSchemaId, compiled.__selfhealSchemaId);
  const loop = new RepairLoop({ prompt: PROMPT, schema: compiled, seed: 1 });
  assert.equal(loop.next({ kind: 'reply', text: '{"town": 1}' }, NOW).type, 'send-repair-prompt');
  assert.equal(parseStructured(compiled, '{"city": 1}').ok, true);
  assert.equal(parseStructured(other, '{"city": 1}').ok, false);
  // A look-alike whose id is not a live Schema's is read the old way: by its `text`.
  const lookAlike = { constructor: { name: 'Schema' }, __selfhealSchemaId: 987654, text: '{"required":["x"]}' };
  assert.equal(parseStructured(lookAlike, '{"x": 1}').ok, true);
  assert.equal(parseStructured(lookAlike, '{"y": 1}').ok, false);
  // Freed, its id no longer resolves; a loop made before keeps its compiled form.
  compiled.free();
  assert.throws(() => new RepairLoop({ prompt: PROMPT, schema: compiled }), /options\.schema is a Schema that has been freed/);
  const second = loop.next({ kind: 'reply', text: '{"city": "Oslo"}' }, NOW);
  assert.equal(second.type, 'done');
  loop.free();
  other.free();
});

// The fast paths of docs/PERFORMANCE.md give the same values as the paths they replace.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Schema, parseStructured, classify, RepairLoop } from '../../pkg/selfheal.js';
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

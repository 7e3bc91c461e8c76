// SPEC section 9 through the boundary: Schema options (formats, resources), coerce in
// Schema.parse / parseStructured / LoopOptions, and the issue-11 examples as a user runs them.
// The rules themselves are tested natively (tests/candidates.rs, tests/coerce.rs,
// tests/json_schema_suite.rs); here: field names, defaults, errors, output shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { Schema, parseStructured, repairJson, RepairLoop } from '../../pkg/selfheal.js';
import { NOW, baseOptions, reply, throwsNaming, revokedProxy } from './helpers.mjs';

test('the issue-11 wrong-value examples now give the whole value', () => {
  assert.deepEqual(repairJson('{"a": "x"y", "b": {"c": 1}}'), {
    text: '{"a": "x\\"y", "b": {"c": 1}}',
    fixes: ['unescaped-quote'],
  });
  const schema = { type: 'object', properties: { name: { type: 'string' }, city: { type: 'string' } } };
  const parsed = parseStructured(schema,
    '{"name": "Ann", "note": "5" tall", "address": {"city": "Paris", "zip": "75001"}}');
  assert.deepEqual(parsed, {
    ok: true,
    value: { name: 'Ann', note: '5" tall', address: { city: 'Paris', zip: '75001' } },
    fixes: ['unescaped-quote'],
  });
});

test('the schema chooses among fenced blocks', () => {
  const reply = 'Code:\n```python\nx = [1, 2]\n```\nAnswer:\n```json\n{"name": "Ann"}\n```';
  const schema = { type: 'object', required: ['name'] };
  assert.deepEqual(parseStructured(schema, reply),
    { ok: true, value: { name: 'Ann' }, fixes: ['code-fence', 'surrounding-prose'] });
});

test('formats are asserted by default; formats: false makes them annotations', () => {
  const email = { type: 'string', format: 'email' };
  const asserted = new Schema(email);
  const r = asserted.parse('"nope"');
  assert.equal(r.ok, false);
  assert.deepEqual(r.report.kinds, ['schema']);
  assert.deepEqual(new Schema(email, { formats: true }).parse('"nope"').ok, false);
  assert.deepEqual(new Schema(email, { formats: false }).parse('"nope"'), { ok: true, value: 'nope', fixes: [] });
  assert.equal(parseStructured(email, '"a@b.co"').ok, true);
  // A Schema compiled with options keeps them wherever it is passed.
  const loose = new Schema(email, { formats: false });
  assert.equal(parseStructured(loose, '"nope"').ok, true);
  const loop = new RepairLoop({ ...baseOptions(), schema: loose, seed: 1 });
  assert.equal(loop.next(reply('"nope"'), NOW).type, 'done');
});

test('resources: documents for $ref by URI, nothing fetched', () => {
  const schema = { type: 'object', properties: { home: { $ref: 'https://example.com/address.json' } } };
  const e = throwsNaming(() => new Schema(schema), TypeError, 'schema');
  assert.match(e.message, /https:\/\/example\.com\/address\.json/);
  const address = { type: 'object', required: ['city'], properties: { city: { type: 'string' } } };
  const s = new Schema(schema, { resources: { 'https://example.com/address.json': address } });
  assert.deepEqual(s.parse('{"home": {"city": "Paris"}}'), { ok: true, value: { home: { city: 'Paris' } }, fixes: [] });
  const bad = s.parse('{"home": {}}');
  assert.equal(bad.ok, false);
  assert.equal(bad.report.issues[0].path, '/home');
});

test('Schema options: bad values are TypeErrors naming the field', () => {
  const schema = { type: 'string' };
  throwsNaming(() => new Schema(schema, 5), TypeError, 'options');
  throwsNaming(() => new Schema(schema, { formats: 'yes' }), TypeError, 'options.formats');
  throwsNaming(() => new Schema(schema, { resources: [] }), TypeError, 'options.resources');
  throwsNaming(() => new Schema(schema, { resources: 'x' }), TypeError, 'options.resources');
  throwsNaming(() => new Schema(schema, { resources: { 'https://x/a.json': 5 } }), TypeError, 'options.resources');
  throwsNaming(() => new Schema(schema, { resources: revokedProxy() }), TypeError, 'options.resources');
  throwsNaming(() => new Schema(schema, { get formats() { throw new Error('boom'); } }), TypeError, 'options.formats');
  // null / undefined options are the defaults.
  assert.equal(new Schema(schema, null).parse('"x"').ok, true);
  assert.equal(new Schema(schema, undefined).parse('"x"').ok, true);
});

test('coerce: off by default, on in Schema.parse, parseStructured and the loop', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' }, c: { enum: ['ONE', 'TWO'] } } };
  const raw = '{"n": "12,111", "c": "one"}';
  assert.equal(parseStructured(schema, raw).ok, false);
  const want = { ok: true, value: { n: 12111, c: 'ONE' }, fixes: ['coerce-number', 'coerce-enum'] };
  assert.deepEqual(parseStructured(schema, raw, { coerce: true }), want);
  assert.deepEqual(new Schema(schema).parse(raw, { coerce: true }), want);
  throwsNaming(() => parseStructured(schema, raw, { coerce: 1 }), TypeError, 'options.coerce');
  const loop = new RepairLoop({ ...baseOptions(), schema, coerce: true, seed: 1 });
  const done = loop.next(reply(raw), NOW);
  assert.equal(done.type, 'done');
  assert.deepEqual(done.value, { n: 12111, c: 'ONE' });
  assert.deepEqual(done.fixes, ['coerce-number', 'coerce-enum']);
  assert.equal(done.source, 'locally-repaired');
  throwsNaming(() => new RepairLoop({ ...baseOptions(), schema, coerce: 'yes' }), TypeError, 'options.coerce');
  // A loop saved with coerce resumes with it.
  const saved = new RepairLoop({ ...baseOptions(), schema, coerce: true, seed: 1 });
  const resumed = RepairLoop.fromJSON(JSON.parse(JSON.stringify(saved.toJSON())));
  assert.equal(resumed.next(reply(raw), NOW).type, 'done');
});

test('bare words only where the schema expects a string', () => {
  const schema = { type: 'object', properties: { city: { type: 'string' } } };
  assert.deepEqual(parseStructured(schema, '{city: Paris}'),
    { ok: true, value: { city: 'Paris' }, fixes: ['unquoted-key', 'unquoted-string'] });
  assert.equal(repairJson('{city: Paris}'), null);
  assert.equal(parseStructured({ type: 'object', properties: { city: { type: 'number' } } }, '{city: Paris}').ok, false);
});

// The wasm memory after `call` (its peak: it never shrinks), in MB, in a fresh process as
// scripts/limits.mjs measures it.
function peakMb(call) {
  const pkg = fileURLToPath(new URL('../../pkg/selfheal.js', import.meta.url));
  const source = `
    const Real = WebAssembly.Instance; let instance;
    WebAssembly.Instance = new Proxy(Real, { construct(t, a, n) { const c = Reflect.construct(t, a, n); instance ??= c; return c; } });
    const s = require(${JSON.stringify(pkg)});
    WebAssembly.Instance = Real;
    (${call})(s);
    console.log(instance.exports.memory.buffer.byteLength / 2 ** 20);`;
  const out = spawnSync(process.execPath, ['-e', source], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return Number(out.stdout.trim());
}

test('coerce: a large reply takes no more wasm memory than without coerce', () => {
  // Outside review, finding 3: 1.9 million 1s where one-property objects are expected. Each was
  // wrapped (719 MB), then, with the bounds, a copy of the reply was still made before
  // coercing it (+25 MB); now the reply is coerced in place and left as written when the
  // budget of added values ends.
  const run = (coerce) => `(s) => {
    const schema = { type: 'array', items: { type: 'object', properties: { v: { type: 'integer' } } } };
    const r = new s.Schema(schema).parse('[' + Array(1.9e6).fill(1) + ']', { coerce: ${coerce} });
    if (r.ok) throw new Error('coerced');
  }`;
  const without = peakMb(run(false));
  const coerced = peakMb(run(true));
  // The parse's own peak: the 1.9 million-item array is built once at its counted size (it
  // doubled, 197 MB, until the sixteenth session).
  assert.ok(without <= 112, `${without} MB without coerce`);
  // What coercion adds by design before its budget stops it: 100,000 wrapping objects (about
  // 15 MB) and the memory grown for them (wasm memory grows by an eighth, 14 MB here). A copy of
  // the reply's tree would be 91 MB more. Until the arrays were counted, those objects fitted in
  // the room a doubled array had given back, and this bound was 4 MB.
  assert.ok(coerced <= without + 32, `${coerced} MB with coerce, ${without} MB without`);
});

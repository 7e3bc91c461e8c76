// SPEC section 8 through the package boundary: one table of checks, run by Node
// (tests/js/stream.test.mjs), by workerd (tests/js/workerd_stream.test.mjs) and by headless
// Chromium and Firefox (tests/packaging/browsers.test.mjs does not run these; tests/web_stream.rs
// holds the wasm-bindgen side). No test framework here: each check throws on failure, so the
// same file runs in any runtime.

const PERSON = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'age', 'email'],
  properties: { name: { type: 'string' }, age: { type: 'integer', maximum: 200 }, email: { type: 'string' } },
};

function fail(message) {
  throw new Error(message);
}
function eq(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`);
}
function ok(cond, what) {
  if (!cond) fail(what);
}
function throws(fn, Kind, pattern, what) {
  try {
    fn();
  } catch (e) {
    ok(e instanceof Kind, `${what}: expected ${Kind.name}, got ${e?.constructor?.name}: ${e?.message}`);
    ok(pattern.test(e.message), `${what}: message ${JSON.stringify(e.message)} does not match ${pattern}`);
    return e;
  }
  fail(`${what}: did not throw`);
}

/** Push every chunk; the values (as JSON text, undefined as "undefined") after each push. */
function values(p, chunks) {
  return chunks.map((c) => {
    const u = p.push(c);
    return u.value === undefined ? 'undefined' : JSON.stringify(u.value);
  });
}

/** The checks, given the package's exports. Each returns nothing and throws on failure. */
export function streamChecks({ PartialJson, RepairLoop, parseStructured }) {
  return {
    'escapes split across chunks: \\u00 + e9, a string ending in a backslash'() {
      eq(values(new PartialJson(), ['"caf\\u00', 'e9 ok"']), ['"caf"', '"café ok"'], '\\u00|e9');
      eq(values(new PartialJson(), ['"caf\\', 'u', '00e', '9"']), ['"caf"', '"caf"', '"caf"', '"café"'], 'every split');
      eq(values(new PartialJson(), ['"a\\', '"b"']), ['"a"', '"a\\"b"'], 'backslash at the end of a chunk');
      eq(values(new PartialJson(), ['["x\\', 'n"]']), ['["x"]', '["x\\n"]'], '\\ + n');
    },
    'surrogate pairs split in two: as escapes and as raw UTF-16 halves'() {
      eq(values(new PartialJson(), ['["\\ud83d', '\\ude00"]']), ['[""]', '["😀"]'], 'escaped halves');
      eq(values(new PartialJson(), ['["\\ud8', '3d\\ud', 'e00"]']), ['[""]', '[""]', '["😀"]'], 'inside both escapes');
      const p = new PartialJson();
      eq(values(p, ['"a\ud83d', '\ude00b"']), ['"a"', '"a😀b"'], 'raw halves of one character');
      eq(p.text, '"a\ud83d\ude00b"', 'text is what was pushed');
      eq(p.finish(), { ok: true, value: 'a😀b', fixes: [] }, 'finish');
      eq(values(new PartialJson(), ['"é', '漢', '字"']), ['"é"', '"é漢"', '"é漢字"'], 'multi-byte characters');
    },
    'a chunk boundary inside a number or a literal: never emitted early'() {
      eq(values(new PartialJson(), ['{"n": 12', '5}']), ['{}', '{"n":125}'], '12|5');
      eq(values(new PartialJson(), ['[1', '.5e', '3, -', '0.25]']), ['[]', '[]', '[1500]', '[1500,-0.25]'], 'fraction and exponent');
      eq(values(new PartialJson(), ['[tr', 'ue, nu', 'll, fal', 'se]']), ['[]', '[true]', '[true,null]', '[true,null,false]'], 'literals');
      // A number at the very top level is complete only when something follows it.
      const p = new PartialJson();
      eq(values(p, ['4', '2']), ['undefined', 'undefined'], 'top-level number pending');
      eq(p.finish(), { ok: true, value: 42, fixes: [] }, 'finish reads it');
    },
    'fences and prose before the value'() {
      const fenced = new PartialJson(PERSON);
      const steps = ['```json\n{"na', 'me": "Ada", "age": 36, ', '"email": "a@b.c"}\n```'];
      eq(values(fenced, steps), ['{}', '{"name":"Ada","age":36}', '{"name":"Ada","age":36,"email":"a@b.c"}'], 'fence');
      const f = fenced.finish();
      ok(f.ok && f.fixes.includes('code-fence'), `fence: finish ${JSON.stringify(f)}`);
      const prose = new PartialJson();
      eq(values(prose, ['Here is the ', 'answer: {"a": [1, ', '2]}']), ['undefined', '{"a":[1]}', '{"a":[1,2]}'], 'prose');
      eq(prose.finish(), parseStructured(true, prose.text), 'finish = parseStructured');
      // A scalar first, then prose: shown, then taken back.
      eq(values(new PartialJson(), ['3 ', 'items: [1]']), ['3', '[1]'], 'a number that starts prose');
    },
    'closed pointers in order, done, one live value'() {
      const p = new PartialJson();
      const closed = [];
      let first;
      let u;
      for (const c of '{"a": [1, {"b~/": "c"}], "d": null}') {
        u = p.push(c);
        closed.push(...u.closed);
        first ??= u.value;
      }
      eq(closed, ['/a/0', '/a/1/b~0~1', '/a/1', '/a', '/d', ''], 'closed');
      ok(u.done, 'done');
      ok(u.value === first, 'the same object grows');
      eq(u.value, { a: [1, { 'b~/': 'c' }], d: null }, 'value');
    },
    '__proto__ is an own member, as JSON.parse makes it'() {
      const p = new PartialJson();
      const u = p.push('{"__proto__": {"x": 1}, "y": [');
      ok(Object.getPrototypeOf(u.value) === Object.prototype, 'prototype untouched');
      eq(Object.keys(u.value), ['__proto__', 'y'], 'own keys');
      eq(u.value.__proto__ === Object.prototype, false, 'own __proto__ member');
    },
    'maxChars: RangeError, nothing added; counted in code points'() {
      const p = new PartialJson(null, { maxChars: 5 });
      p.push('"ab');
      throws(() => p.push('cde'), RangeError, /maxChars \(5\)/, 'over');
      eq(p.text, '"ab', 'nothing added');
      eq(p.push('😀"').value, 'ab😀', 'a pair is one character');
      throws(() => new PartialJson(null, { maxChars: -1 }), RangeError, /options\.maxChars/, 'bad option');
      throws(() => new PartialJson(null, { maxChars: 'x' }), TypeError, /options\.maxChars/, 'bad type');
      throws(() => p.push(5), TypeError, /chunk/, 'not a string');
    },
    'violations are definitive, and only those'() {
      const p = new PartialJson(PERSON);
      for (const c of ['{"name": "Ada", "age": 1', '2', '0']) eq(p.push(c).violation, null, `no violation yet after ${c}`);
      const v = p.push('0, ').violation; // 1200 closed: above maximum
      eq(v?.path, '/age', 'maximum, once the number closed');
      eq(v?.kind, 'schema', 'kind');
      ok(p.push('"email": 1}').violation === v, 'sticky');
      // A forbidden key is a violation the moment its name closes.
      const q = new PartialJson(PERSON);
      eq(q.push('{"zz').violation, null, 'the key is not closed');
      eq(q.push('z"').violation?.path, '', 'additionalProperties');
      // required: only on a closed object.
      const r = new PartialJson(PERSON);
      eq(r.push('{"name": "Ada"').violation, null, 'open object');
      ok(r.push('}').violation?.message.includes('required'), 'required on close');
      // After prose the reply may hold several candidates: nothing is definitive.
      const s = new PartialJson(PERSON);
      eq(s.push('For example {"name": 5} and then {"name": "Ada", "age": 36, "email": "a@b.c"}').violation, null, 'after prose');
      ok(s.finish().ok, 'the second candidate is the value');
      // With coercion, "36" for an integer is no violation.
      const c = new PartialJson(PERSON, { coerce: true });
      eq(c.push('{"name": "Ada", "age": "36", "email": "a@b.c"}').violation, null, 'coerce');
      eq(c.finish().value?.age, 36, 'finish coerces like the stream');
    },
    'finish is parseStructured on the whole text'() {
      for (const text of ['{"name": "Ada", "age": 36, "email": "a"}', "{'name': 'Ada', age: 36, email: 'a',}", '{"name": "Ada"', '']) {
        const p = new PartialJson(PERSON);
        for (let i = 0; i < text.length; i += 3) p.push(text.slice(i, i + 3));
        for (const options of [undefined, { stopReason: 'aborted' }, { localRepair: false }]) {
          eq(p.finish(options), parseStructured(PERSON, text, options), `${JSON.stringify(text)} ${JSON.stringify(options)}`);
        }
      }
    },
    'RepairLoop.push: a violation is one fix prompt quoting the partial output'() {
      const loop = new RepairLoop({ prompt: { system: 's', user: 'u' }, schema: PERSON, seed: 1 });
      let u;
      for (const c of ['{"name": "Ada", ', '"age": 36, ', '"email": 4', '2, "no']) u = loop.push(c);
      eq(u.violation?.path, '/email', 'violation');
      eq(u.value, { name: 'Ada', age: 36, email: 42 }, 'value');
      const step = loop.next({ kind: 'reply', stopReason: 'aborted' }, 0);
      eq([step.type, step.strategy, step.classified.signal, step.classified.cause], ['send-repair-prompt', 'fix', 'stream', 'schema'], 'fix prompt');
      ok(step.prompt.user.includes('"email": 42, "no'), 'quotes what arrived');
      // The repair call streams on its own.
      for (const c of ['{"name": "Ada", "age": 36,', ' "email": "a@b.c"}']) u = loop.push(c);
      eq(u.done, true, 'done');
      const done = loop.next({ kind: 'reply', stopReason: 'end_turn' }, 1);
      eq([done.type, done.source, done.value], ['done', 'repaired', { name: 'Ada', age: 36, email: 'a@b.c' }], 'healed');
      throws(() => loop.push('x'), Error, /final instruction/, 'push after done');
    },
    'RepairLoop.push: a reply cut off is never completed locally'() {
      for (const stopReason of ['incomplete', 'aborted']) {
        const loop = new RepairLoop({ prompt: { system: 's', user: 'u' }, schema: PERSON, seed: 1 });
        loop.push('{"name": "Ada", "age": 36, "email": "a@b');
        const step = loop.next({ kind: 'reply', stopReason }, 0);
        eq([step.type, step.strategy, step.classified.cause], ['send-repair-prompt', 'reask', 'truncated'], stopReason);
      }
    },
    'RepairLoop.push: maxReplyChars is the limit; the reply is then too long'() {
      const loop = new RepairLoop({ prompt: { system: 's', user: 'u' }, schema: PERSON, seed: 1, maxReplyChars: 8 });
      loop.push('{"name":');
      throws(() => loop.push('"A"}'), RangeError, /maxReplyChars \(8\)/, 'over');
      const step = loop.next({ kind: 'reply' }, 0);
      eq([step.type, step.reason, step.classified.cause], ['degrade', 'unrepairable', 'too-large'], 'too long');
    },
    'RepairLoop.push without a schema: the value is the text'() {
      const loop = new RepairLoop({ prompt: { system: 's', user: 'u' }, seed: 1 });
      eq([loop.push('Hel').value, loop.push('lo').value], ['Hel', 'Hello'], 'text');
      const step = loop.next({ kind: 'reply', stopReason: 'stop' }, 0);
      eq([step.type, step.value], ['done', 'Hello'], 'done');
      const fresh = new RepairLoop({ prompt: { system: 's', user: 'u' }, seed: 1 });
      throws(() => fresh.next({ kind: 'reply' }, 0), TypeError, /outcome\.text/, 'text is required without pushes');
    },
    'values under a long key: no copy of the key per value (50,000 under 100,000 characters trapped)'() {
      const key = 'k'.repeat(100000);
      const text = `{"${key}": [${'1,'.repeat(50000)}1]}`;
      for (const stream of [new PartialJson(), new RepairLoop({ prompt: { system: 's', user: 'u' }, schema: { type: 'object' }, seed: 1 })]) {
        const u = stream.push(text);
        eq([u.done, u.closed.length, u.value[key].length], [true, 50003, 50001], 'whole');
        eq([u.closed[0].length, u.closed[0].slice(-3), u.closed[50002]], [100003, "k/0", ""], 'pointers');
      }
      // And chunked: each push costs its own length.
      const p = new PartialJson({ type: 'object', additionalProperties: { type: 'array', items: { type: 'integer' } } });
      let u;
      for (let i = 0; i < text.length; i += 4096) u = p.push(text.slice(i, i + 4096));
      eq([u.done, u.violation], [true, null], 'chunked');
    },
    'RepairLoop saved mid-stream: the restored loop goes on with what was pushed'() {
      // It once restored with nothing in flight and read only the later chunks.
      const make = () => new RepairLoop({ prompt: { system: 's', user: 'u' }, schema: PERSON, seed: 1 });
      const loop = make();
      eq(loop.push('{"name": "A').value, { name: 'A' }, 'before');
      const restored = RepairLoop.fromJSON(JSON.parse(JSON.stringify(loop)));
      const rest = ['da", "age": 36, ', '"email": "a@b.c"}'];
      let a, b;
      for (const c of rest) [a, b] = [loop.push(c), restored.push(c)];
      eq(b, a, 'the same update, value and closed pointers included');
      eq(b.value, { name: 'Ada', age: 36, email: 'a@b.c' }, 'the whole value');
      const [x, y] = [loop.next({ kind: 'reply' }, 1), restored.next({ kind: 'reply' }, 1)];
      eq([y.type, y.source, y.text], ['done', 'first-pass', '{"name": "Ada", "age": 36, "email": "a@b.c"}'], 'done');
      eq(y, x, 'the same step');
      // Without a schema too: the value is the text.
      const plain = new RepairLoop({ prompt: { system: 's', user: 'u' }, seed: 1 });
      plain.push('Hel');
      eq(RepairLoop.fromJSON(plain.toJSON()).push('lo').value, 'Hello', 'text');
    },
  };
}

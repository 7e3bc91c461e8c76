// JSON Schema `pattern` through the wasm build (crates/selfheal-pattern: the host's RegExp for
// patterns a backtracking engine runs in linear time, regex-lite for the rest it can express, a
// refusal otherwise):
//
// * the official suite's regex cases (tests/corpus/regex-suite/) give the suite's answers, the
//   same files and expectations as the native tests/pattern_suite.rs, so both builds agree;
// * the classic ReDoS patterns, on subjects built to make a backtracking engine explode, are
//   matched in linear time or refused by `new Schema`, never left to hang a call;
// * ECMA-262 meaning where regex-lite's syntax differs, on patterns each engine takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RepairLoop, Schema } from '../../pkg/selfheal.js';

const SUITE = fileURLToPath(new URL('../corpus/regex-suite/', import.meta.url));
const groups = (file) => JSON.parse(readFileSync(SUITE + file, 'utf8'));
/** The valid regexes refused for their backtracking (tests/pattern_suite.rs, REFUSED). */
const REFUSED = ['(?<=a+)b'];

test('the suite\'s pattern and patternProperties cases give the suite\'s answers', () => {
  let checked = 0;
  for (const file of ['pattern.json', 'patternProperties.json', 'optional-ecmascript-regex.json', 'optional-non-bmp-regex.json']) {
    for (const group of groups(file)) {
      if ('format' in group.schema) continue;
      const schema = new Schema(group.schema);
      for (const t of group.tests) {
        assert.equal(schema.validate(t.data) === null, t.valid, `${file}: ${group.description} / ${t.description}`);
        checked++;
      }
      schema.free();
    }
  }
  assert.ok(checked > 60, `only ${checked} cases`);
});

test('a string compiles as a pattern exactly when the suite calls it a valid regex (or it is refused for backtracking)', () => {
  let checked = 0;
  for (const file of ['optional-format-regex.json', 'optional-format-ecmascript-regex.json', 'optional-ecmascript-regex.json']) {
    for (const group of groups(file)) {
      if (group.schema.format !== 'regex') continue;
      for (const t of group.tests) {
        if (typeof t.data !== 'string') continue;
        const what = `${file}: ${group.description} / ${t.description}: ${JSON.stringify(t.data)}`;
        let error = null;
        try {
          new Schema({ pattern: t.data }).free();
        } catch (e) {
          error = e;
        }
        if (t.valid && REFUSED.includes(t.data)) assert.match(String(error?.message), /backtrack/, what);
        else if (t.valid) assert.equal(error, null, `${what}: ${error?.message}`);
        else assert.match(String(error?.message), /regex/, what);
        checked++;
      }
    }
  }
  assert.ok(checked >= 14, `only ${checked} cases`);
});

test('classic ReDoS patterns are matched in linear time or refused, never left to hang a call', () => {
  const a = 'a'.repeat(100_000);
  const cases = [
    ['^(a+)+$', a + '!'],
    ['(a|a)*b', a],
    ['(a|aa)+$', a + '!'],
    ['(.*a){20}', a],
    ['^(\\w+\\s?)*$', a + '!'],
    ['(x+x+)+y', 'x'.repeat(100_000)],
    ['\\d+x', '1'.repeat(100_000)],
    ['a*b', a],
    ['\\s+$', 'a' + ' '.repeat(100_000) + 'a'],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', a],
    ['^(\\w+)+\\1$', a],
    ['(\\p{L}+)+$', 'é'.repeat(100_000) + '!'],
    ['(?=(a+)+$)b', a + '!'],
  ];
  for (const [pattern, subject] of cases) {
    const start = performance.now();
    let schema;
    try {
      schema = new Schema({ type: 'string', pattern });
    } catch (e) {
      assert.match(e.message, /backtrack/, pattern);
      continue;
    }
    assert.equal(typeof schema.validate(subject), 'object', pattern);
    schema.free();
    // V8's backtracking engine needs from seconds to years for each of these; a linear engine
    // takes well under a second for 100,000 characters even on a loaded 2-core machine.
    assert.ok(performance.now() - start < 3000, `${pattern}: ${(performance.now() - start).toFixed(0)} ms`);
  }
});

test('a string too long for its pattern\'s time bound is an issue that says so, decided before matching', () => {
  // Each took from 20 s to minutes per match on 4 MB before the bound (crates/selfheal-pattern,
  // cost.rs): regex-lite steps every live state of [a-z]{1,64}x's automaton at every character,
  // and V8 tries 16^3 ways at every position for a{1,16}a{1,16}a{1,16}b, which the screen passes.
  const long = 'a'.repeat(3_000_000);
  const cases = [['[a-z]{1,64}x', 'x'], ['a{1,16}a{1,16}a{1,16}b', 'b'], ['[a-z]{1,16}[a-z]{1,16}x', 'x'], ['\\d+x', '1x']];
  for (const [pattern, ending] of cases) {
    const schema = new Schema({ type: 'string', pattern });
    const report = schema.validate(long);
    assert.equal(report?.issues.length, 1, pattern);
    const escaped = pattern.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
    assert.match(
      report.issues[0].message,
      new RegExp(`^could not be checked against pattern '${escaped}': the string is too long to match in bounded time \\(3000000 UTF-8 bytes; at most \\d+ for this pattern\\)$`),
    );
    // Within the bound, the same pattern is matched as before.
    assert.equal(schema.validate('a'.repeat(100_000) + ending), null, pattern);
    assert.doesNotMatch(schema.validate('a'.repeat(100_000)).issues[0].message, /could not be checked/, pattern);
    schema.free();
  }
});

test('a failing string is matched once by the yes/no check and once for the report, no more', () => {
  // [a-z]{1,4}x passes the screen and is cheap for V8: the host's RegExp takes it, so its calls
  // can be counted. jsonschema asked a failing keyword's is_valid again before building its
  // error, and parse() asked the schema's yes/no twice: 4 matches of each failing string.
  const test = RegExp.prototype.test;
  let calls = 0;
  RegExp.prototype.test = function (subject) {
    if (typeof subject === 'string' && subject.length === 5000) calls++;
    return test.call(this, subject);
  };
  try {
    const schema = new Schema({ type: 'object', properties: { s: { type: 'string', pattern: '[a-z]{1,4}x' } } });
    const long = 'a'.repeat(5000);
    assert.notEqual(schema.validate({ s: long }), null);
    assert.equal(calls, 2, 'validate');
    calls = 0;
    assert.equal(schema.parse(`{s: "${long}"}`).ok, false);
    assert.equal(calls, 2, 'parse of a repaired reply');
    schema.free();
  } finally {
    RegExp.prototype.test = test;
  }
});

test('ECMA-262 meaning on either engine', () => {
  const cases = [
    ['^\\s$', '\u00a0', true],
    ['^\\s$', '\u2028', true],
    ['^.$', '\u2028', false],
    ['^.$', '🐲', true],
    ['^[^]$', '\n', true],
    ['^\\w$', 'é', false],
    ['\\bfoo', 'éfoo', true],
    ['abc$', 'abc\n', false],
    ['^a\\-b$', 'a-b', true],
    ['^\\uD83D\\uDC32$', '🐲', true],
    ['^\\cC$', '\u0003', true],
    ['^[\\D\\s]+$', 'ab c', true],
    ['^(?=.*\\d)(?=.*[a-z]).{8,}$', 'abc12345', true],
    ['^(?=.*\\d)(?=.*[a-z]).{8,}$', 'abcdefgh', false],
    ['^(?<y>\\d{4})-\\k<y>$', '2020-2020', true],
    ['^\\p{Lu}+$', 'ÉCOLE', true],
    // The same meanings where regex-lite takes the pattern (two heavy repetitions: not screened).
    ['^\\s+\\S+$', '\u3000x', true],
    ['^.+.+$', 'a\u2028b', false],
    ['^\\w+\\W+$', 'aé', true],
  ];
  for (const [pattern, subject, expected] of cases) {
    const schema = new Schema({ type: 'string', pattern });
    assert.equal(schema.validate(subject) === null, expected, `${pattern} on ${JSON.stringify(subject)}`);
    schema.free();
  }
});

test('one call matches patterns within one budget: past it the value is not validated, and a stream is not cut for it', () => {
  // 62 host names, each just under its own bound for an unanchored pattern: 10.3 s of matching
  // before the budget (DESIGN.md, "Patterns", step 7). Each matches, at its very end.
  const pattern = '[a-z0-9-]{1,63}(\\.[a-z0-9-]{1,63})*\\.com';
  const schema = { type: 'array', items: { type: 'string', pattern } };
  const name = 'a'.repeat(62796) + '.com';
  const reply = JSON.stringify(Array(62).fill(name));
  const parsed = new Schema(schema).parse(reply);
  assert.equal(parsed.ok, false);
  assert.deepEqual(parsed.report.issues.map((i) => i.message), [
    'not validated: its strings take more pattern matching than one call may do (about 1 s)',
  ]);
  // Streamed in one chunk: the check of each string past the budget is unsure, not a violation.
  const loop = new RepairLoop({ prompt: { system: 's', user: 'u' }, schema, seed: 1 });
  assert.equal(loop.push(reply).violation, null);
  assert.equal(loop.next({ kind: 'reply' }).type, 'send-repair-prompt');
  loop.free();
  // Three of them are matched, and pass.
  assert.equal(new Schema(schema).parse(JSON.stringify([name, name, name])).ok, true);
});

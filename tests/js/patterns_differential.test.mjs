// JSON Schema `pattern` against V8's own `RegExp` (the ECMA-262 engine JSON Schema names), on
// random small patterns and subjects. The wasm build gives each pattern to the host's `RegExp`,
// to regex-lite after rewriting it with its ECMA-262 meaning (crates/selfheal-pattern/src/emit.rs),
// or to no engine at all (simple.rs), depending on its shape and estimated cost: whichever takes
// it, `Schema.validate` must agree with `new RegExp(pattern, 'u').test(subject)` on every subject,
// or refuse the pattern when `new Schema` is built (only for backtracking).
//
// SELFHEAL_PATTERN_CASES=n runs n patterns instead of the default (a longer hunt).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Schema } from '../../pkg/selfheal.js';
import { rng } from './helpers.mjs';

const CASES = Number(process.env.SELFHEAL_PATTERN_CASES ?? 3000);

// Characters where the engines' meanings differ: line terminators, ECMA's extra white space,
// non-ASCII letters and digits (\w and \d are ASCII), an astral character (one code point, two
// UTF-16 units), the characters of the syntax itself.
const ALPHABET = ['a', 'b', 'A', '1', '-', '_', ' ', '.', '\n', '\r', '\u2028', '\u00a0', '\ufeff', '\u3000', 'é', '৪', '🐲', '\t', 'k', 'K', '\u212a'];
const ATOMS = [
  'a', 'b', '1', '-', '_', ' ', 'é', '🐲', '.', '\\.', '\\d', '\\D', '\\s', '\\S', '\\w', '\\W', '\\n', '\\r', '\\t',
  '[ab]', '[^a]', '[a-c1]', '[\\s\\d]', '[^\\w]', '[.]', '[\\-a]', '[é🐲]', '[^]', '\\u00e9', '\\u{1F432}', '\\x41',
  'k', '\\k',
];
const ANCHORS = ['^', '$', '\\b', '\\B'];
const QUANTIFIERS = ['?', '*', '+', '{2}', '{1,3}', '{0,2}', '{2,}', '??', '*?', '+?', '{1,2}?', '{0,16}', '{1,20}'];

function pattern(g, depth = 0) {
  const terms = [];
  const count = 1 + g.int(0, 3);
  for (let i = 0; i < count; i++) {
    const r = g.next();
    let term;
    if (r < 0.08) term = g.pick(ANCHORS);
    else if (r < 0.2 && depth < 2) {
      const body = g.next() < 0.4 ? `${pattern(g, depth + 1)}|${pattern(g, depth + 1)}` : pattern(g, depth + 1);
      term = g.pick(['(', '(?:', '(?:', '(?=', '(?!']) + body + ')';
    } else term = g.pick(ATOMS);
    if (!ANCHORS.includes(term) && !term.startsWith('(?=') && !term.startsWith('(?!') && g.next() < 0.35) term += g.pick(QUANTIFIERS);
    terms.push(term);
  }
  if (depth === 0 && g.next() < 0.3) terms.unshift('^');
  if (depth === 0 && g.next() < 0.3) terms.push('$');
  return terms.join('');
}

function subject(g) {
  let s = '';
  const n = g.int(0, 9);
  for (let i = 0; i < n; i++) s += g.pick(ALPHABET);
  return s;
}

test('every pattern the wasm build takes answers as V8\'s RegExp does, whichever engine takes it', () => {
  let compared = 0;
  let refused = 0;
  for (let seed = 1; seed <= CASES; seed++) {
    const g = rng(seed);
    const source = pattern(g);
    let expected;
    try {
      expected = new RegExp(source, 'u');
    } catch {
      continue; // not ECMA-262 with the u flag: an invalid schema, tested elsewhere
    }
    let schema;
    try {
      schema = new Schema({ type: 'string', pattern: source });
    } catch (e) {
      assert.match(e.message, /backtrack|not supported/, `seed ${seed}: ${source}`);
      refused++;
      continue;
    }
    // Subjects the pattern should match too: V8's match of a random subject, and parts of it.
    const subjects = [];
    for (let i = 0; i < 12; i++) subjects.push(subject(g));
    for (const s of subjects.slice()) {
      const m = expected.exec(s);
      if (m) subjects.push(m[0], s + m[0], m[0] + s);
    }
    for (const s of subjects) {
      const want = expected.test(s);
      const got = schema.validate(s) === null;
      assert.equal(got, want, `seed ${seed}: /${source}/u on ${JSON.stringify(s)}: V8 says ${want}`);
      compared++;
    }
    schema.free();
  }
  if (process.env.SELFHEAL_PATTERN_CASES) console.log({ compared, refused });
  assert.ok(compared > CASES * 5, `only ${compared} comparisons`);
  assert.ok(refused < CASES / 4, `${refused} of ${CASES} patterns refused`);
});

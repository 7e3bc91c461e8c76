// Shared helpers for the Node tests (not a test file itself).
import assert from 'node:assert/strict';

export const NOW = 1_700_000_000_000;

export const PROMPT = Object.freeze({
  system: 'Reply with JSON only.',
  user: 'Give the capital of France as {"city": string}.',
});

export const CITY_SCHEMA = Object.freeze({
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city'],
  additionalProperties: false,
});

export function baseOptions(extra = {}) {
  return { prompt: { ...PROMPT }, schema: structuredClone(CITY_SCHEMA), seed: 7, ...extra };
}

export const reply = (text, extra = {}) => ({ kind: 'reply', text, ...extra });
export const failure = (error, extra = {}) => ({ kind: 'error', error, ...extra });

/** Assert `fn` throws a `kind` (TypeError or RangeError) whose message names `field`. */
export function throwsNaming(fn, kind, field) {
  let thrown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== undefined, `expected a ${kind.name} naming ${field}, nothing was thrown`);
  assert.ok(thrown instanceof kind, `expected a ${kind.name}, got ${thrown?.constructor?.name}: ${thrown?.message}`);
  assert.ok(!(thrown instanceof WebAssembly.RuntimeError), 'a wasm trap');
  assert.ok(String(thrown.message).includes(field), `message ${JSON.stringify(thrown.message)} does not name ${field}`);
  return thrown;
}

export function revokedProxy(target = {}) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** Options with a field set by a dotted path, for values JSON cannot carry. */
export function withField(base, path, value) {
  const o = structuredClone(base);
  const keys = path.split('.');
  let t = o;
  for (const k of keys.slice(0, -1)) {
    if (typeof t[k] !== 'object' || t[k] === null) t[k] = {};
    t = t[k];
  }
  t[keys[keys.length - 1]] = value;
  return o;
}

export const CLASSES = ['transient', 'repairable', 'semantic-invalid', 'hard-fail'];

export function assertClassified(c, cls, cause) {
  assert.equal(typeof c, 'object');
  assert.ok(CLASSES.includes(c.class), `class ${c.class}`);
  assert.equal(typeof c.reason, 'string');
  assert.ok(c.reason.length > 0 && !c.reason.includes('\n'));
  assert.equal(typeof c.signal, 'string');
  assert.ok(c.retryAfterMs === null || typeof c.retryAfterMs === 'number');
  if (cls !== undefined) assert.deepEqual([c.class, c.cause], [cls, cause], JSON.stringify(c));
}

/** A small seeded PRNG (mulberry32), so a failing scenario can be replayed by its seed. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

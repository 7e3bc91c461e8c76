// classify() from Node: SPEC section 3, with Node/undici-specific shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';

import { classify } from '../../pkg/selfheal.js';
import { NOW, assertClassified, revokedProxy } from './helpers.mjs';

class APIError extends Error {
  constructor(status, headers, message, body) {
    super(message);
    this.name = 'APIError';
    this.status = status;
    this.headers = headers;
    if (body !== undefined) this.error = body;
  }
}

test('status table on plain objects, statusCode and response.status', () => {
  const table = [
    [429, 'transient', 'rate-limited'], [529, 'transient', 'overloaded'], [503, 'transient', 'overloaded'],
    [408, 'transient', 'timeout'], [409, 'transient', 'conflict'], [500, 'transient', 'server-error'],
    [504, 'transient', 'server-error'], [501, 'hard-fail', 'unsupported'], [505, 'hard-fail', 'unsupported'],
    [401, 'hard-fail', 'auth'], [403, 'hard-fail', 'auth'], [404, 'hard-fail', 'not-found'],
    [413, 'hard-fail', 'too-large'], [400, 'hard-fail', 'bad-request'], [422, 'hard-fail', 'bad-request'],
  ];
  for (const [status, cls, cause] of table) {
    const c = classify({ status });
    assertClassified(c, cls, cause);
    assert.equal(c.signal, 'status');
    assert.equal(c.retryAfterMs, null);
    assertClassified(classify({ statusCode: status }), cls, cause);
    assertClassified(classify({ response: { status } }), cls, cause);
  }
  // The result is a plain JSON-compatible object.
  const c = classify({ status: 429 });
  assert.equal(Object.getPrototypeOf(c), Object.prototype);
  assert.deepEqual(JSON.parse(JSON.stringify(c)), c);
  assert.deepEqual(Object.keys(c).sort(), ['cause', 'class', 'reason', 'retryAfterMs', 'signal']);
});

test('undici-style fetch failures', () => {
  const cases = [
    [{ code: 'ECONNREFUSED' }, 'network'], [{ code: 'UND_ERR_SOCKET' }, 'network'],
    [{ code: 'ECONNRESET' }, 'network'], [{ code: 'ENOTFOUND' }, 'network'], [{ code: 'EAI_AGAIN' }, 'network'],
    [{ code: 'EPIPE' }, 'network'], [{ code: 'ECONNABORTED' }, 'network'],
    [{ code: 'ETIMEDOUT' }, 'timeout'], [{ code: 'UND_ERR_CONNECT_TIMEOUT' }, 'timeout'],
    [{ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'timeout'], [{ code: 'UND_ERR_BODY_TIMEOUT' }, 'timeout'],
  ];
  for (const [cause, expected] of cases) {
    const c = classify(new TypeError('fetch failed', { cause }));
    assertClassified(c, 'transient', expected);
    assert.equal(c.signal, 'code');
  }
  // cause as a real Error with a code, as undici builds it.
  const inner = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', errno: -111 });
  assertClassified(classify(new TypeError('fetch failed', { cause: inner })), 'transient', 'network');
  // Top-level code (a Node socket error thrown directly).
  assertClassified(classify(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })), 'transient', 'network');
  // The message alone.
  for (const m of ['fetch failed', 'Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed', 'Network connection lost.']) {
    const c = classify(new TypeError(m));
    assertClassified(c, 'transient', 'network');
    assert.equal(c.signal, 'message');
  }
  // Not a TypeError: an application error saying the same words is not a network fault.
  const app = new Error('fetch failed');
  app.name = 'MyAppError';
  assertClassified(classify(app), 'hard-fail', 'unknown');
});

test('a real fetch to a closed port, a real abort and a real timeout', async () => {
  // A port that was just free: connection refused, from Node's own fetch.
  const port = await new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
  let fetchError;
  try {
    await fetch(`http://127.0.0.1:${port}/`);
  } catch (e) {
    fetchError = e;
  }
  assert.ok(fetchError instanceof TypeError);
  assertClassified(classify(fetchError), 'transient', 'network');

  let abortError;
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.abort() });
  } catch (e) {
    abortError = e;
  }
  assert.equal(abortError.name, 'AbortError');
  assertClassified(classify(abortError), 'hard-fail', 'aborted');

  const signal = AbortSignal.timeout(1);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(signal.reason.name, 'TimeoutError');
  const c = classify(signal.reason);
  assertClassified(c, 'transient', 'timeout');
  assert.equal(c.signal, 'error-type');

  assertClassified(classify(new DOMException('x', 'AbortError')), 'hard-fail', 'aborted');
  assertClassified(classify({ name: 'TimeoutError' }), 'transient', 'timeout');
});

test('headers as Headers, Map and plain object, at error.headers and error.response.headers', () => {
  const make = {
    Headers: (k, v) => new Headers([[k, v]]),
    Map: (k, v) => new Map([[k, v]]),
    object: (k, v) => ({ [k]: v }),
  };
  for (const [flavour, mk] of Object.entries(make)) {
    for (const where of ['error', 'response']) {
      const at = (status, h) => (where === 'error' ? { status, headers: h } : { response: { status, headers: h } });
      const c = classify(at(429, mk('Retry-After', '7')));
      assertClassified(c, 'transient', 'rate-limited');
      assert.equal(c.retryAfterMs, 7000, `${flavour} at ${where}`);

      const no = classify(at(500, mk('x-should-retry', 'false')));
      assert.equal(no.class, 'hard-fail', `${flavour} at ${where}`);
      assert.equal(no.signal, 'x-should-retry');

      const yes = classify(at(400, mk('X-Should-Retry', 'true')));
      assert.equal(yes.class, 'transient', `${flavour} at ${where}`);
      assert.equal(yes.signal, 'x-should-retry');
    }
  }
  // Node's http IncomingMessage-style array values.
  assert.equal(classify({ status: 429, headers: { 'retry-after': ['3', '4'] } }).retryAfterMs, 3000);
  // A numeric header value.
  assert.equal(classify({ status: 429, headers: { 'retry-after-ms': 40 } }).retryAfterMs, 40);
});

test('SDK-like Error subclasses with own status and headers', () => {
  const c = classify(new APIError(529, new Headers({ 'retry-after': '3' }), 'Overloaded'));
  assertClassified(c, 'transient', 'overloaded');
  assert.equal(c.retryAfterMs, 3000);
  assert.match(c.reason, /Overloaded/);
  class RateLimitError extends APIError {}
  const r = classify(new RateLimitError(429, new Headers({ 'retry-after-ms': '1500' }), 'rate limited'));
  assertClassified(r, 'transient', 'rate-limited');
  assert.equal(r.retryAfterMs, 1500);
  assertClassified(classify(new APIError(401, new Headers(), 'invalid x-api-key')), 'hard-fail', 'auth');
});

test('Anthropic bodies and stream events', () => {
  const c = classify({ status: 529, error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
  assertClassified(c, 'transient', 'overloaded');
  const e = classify({ type: 'error', error: { type: 'overloaded_error' } });
  assertClassified(e, 'transient', 'overloaded');
  assert.equal(e.signal, 'error-type');
  const table = {
    rate_limit_error: ['transient', 'rate-limited'], api_error: ['transient', 'server-error'],
    authentication_error: ['hard-fail', 'auth'], permission_error: ['hard-fail', 'auth'],
    not_found_error: ['hard-fail', 'not-found'], request_too_large: ['hard-fail', 'too-large'],
    invalid_request_error: ['hard-fail', 'bad-request'],
  };
  for (const [type, [cls, cause]] of Object.entries(table)) {
    assertClassified(classify({ type: 'error', error: { type, message: 'm' } }), cls, cause);
  }
  assertClassified(
    classify({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } } }),
    'hard-fail', 'context-overflow');
  const sdk = new APIError(529, new Headers({ 'x-should-retry': 'true' }), 'Overloaded',
    { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  assert.equal(classify(sdk).signal, 'x-should-retry');
});

test('OpenAI bodies', () => {
  const quota = { status: 429, error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' }, code: 'insufficient_quota' };
  assertClassified(classify(quota), 'hard-fail', 'quota-exhausted');
  const rate = { status: 429, error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }, headers: { 'retry-after-ms': '250.5' } };
  const c = classify(rate);
  assertClassified(c, 'transient', 'rate-limited');
  assert.equal(c.retryAfterMs, 250.5);
  const overflow = { status: 400, error: { message: "This model's maximum context length is 8192 tokens", type: 'invalid_request_error', code: 'context_length_exceeded' }, code: 'context_length_exceeded' };
  assertClassified(classify(overflow), 'hard-fail', 'context-overflow');
});

test('retry-after-ms, retry-after seconds and HTTP-date with an explicit now', () => {
  const at = (headers, now = NOW) => classify({ status: 429, headers }, null, now).retryAfterMs;
  assert.equal(at({ 'retry-after-ms': '1234.5' }), 1234.5);
  assert.equal(at({ 'retry-after-ms': '10', 'retry-after': '5' }), 10);
  assert.equal(at({ 'retry-after': '2' }), 2000);
  assert.equal(at({ 'retry-after': '0.25' }), 250);
  const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
  const t = Date.parse(date);
  assert.equal(at({ 'retry-after': date }, t - 30_000), 30_000);
  assert.equal(at({ 'retry-after': date }, t + 5_000), 0);
  assert.equal(at({ 'retry-after': '-3' }), 0);
  assert.equal(at({ 'retry-after': 'soon' }), null);
  assert.equal(at({ 'retry-after': 'Infinity' }), null);
  assert.equal(at({ 'retry-after-ms': 'NaN', 'retry-after': '1' }), 1000);
  // now defaults to Date.now(): a date an hour ahead is about an hour.
  const ahead = new Date(Date.now() + 3_600_000).toUTCString();
  const ms = classify({ status: 503, headers: new Headers({ 'retry-after': ahead }) }).retryAfterMs;
  assert.ok(ms > 3_590_000 && ms <= 3_600_000, String(ms));
});

test('the validation argument', () => {
  const v = (kind) => classify(null, { ok: false, kind, detail: 'at /city' });
  for (const k of ['json', 'json-syntax', 'syntax']) assertClassified(v(k), 'repairable', 'json-syntax');
  assertClassified(v('schema'), 'repairable', 'schema');
  assertClassified(v('truncated'), 'repairable', 'truncated');
  assertClassified(v('tone'), 'semantic-invalid', 'semantic');
  assert.match(v('schema').reason, /at \/city/);
  assertClassified(classify(null, { ok: true }), 'hard-fail', 'unknown');
  assertClassified(classify(undefined), 'hard-fail', 'unknown');
  assertClassified(classify(), 'hard-fail', 'unknown');
});

test('hostile values: classify never throws and returns a classified result', () => {
  const cyclic = { status: 503, message: 'down' };
  cyclic.error = cyclic;
  cyclic.response = cyclic;
  cyclic.cause = cyclic;
  cyclic.headers = { 'retry-after': '1', self: cyclic };
  class ThrowingIterMap extends Map { [Symbol.iterator]() { throw new Error('iter'); } }
  const hugeHeaders = {};
  for (let i = 0; i < 100_000; i++) hugeHeaders[`x-${i}`] = String(i);
  const values = {
    getter: { get status() { throw new Error('getter boom'); }, message: 'fetch failed' },
    trapAll: new Proxy({}, { get() { throw new Error('trap'); } }),
    revoked: revokedProxy({ status: 429 }),
    traps: new Proxy({ status: 500 }, {
      get() { throw new Error('get'); }, has() { throw new Error('has'); }, ownKeys() { throw new Error('keys'); },
      getOwnPropertyDescriptor() { throw new Error('gopd'); }, getPrototypeOf() { throw new Error('proto'); },
    }),
    cyclic,
    symbol: Symbol('boom'),
    bigint: 10n ** 30n,
    string: 'something broke',
    number: 42,
    fn: function fetchFailed() {},
    statusSymbol: { status: Symbol('x'), code: 10n, message: Symbol('m') },
    headersGetter: { status: 429, headers: { get 'retry-after'() { throw new Error('nope'); } } },
    headersRevoked: { status: 429, headers: revokedProxy(new Headers()) },
    headerValueRevoked: { status: 429, headers: { 'retry-after': revokedProxy() } },
    mapValueRevoked: { status: 429, headers: new Map([['retry-after', revokedProxy([])]]) },
    mapThrowingIter: { status: 429, headers: new ThrowingIterMap([['retry-after', '1']]) },
    protoTrapHeaders: { status: 429, headers: new Proxy({}, { getPrototypeOf() { throw new Error('proto'); } }) },
    hugeHeaders: { status: 429, headers: hugeHeaders },
    hugeMessage: new TypeError('x'.repeat(5_000_000)),
    frozen: Object.freeze({ status: 500 }),
    nullProto: Object.assign(Object.create(null), { status: 500 }),
  };
  for (const [name, v] of Object.entries(values)) {
    let c;
    assert.doesNotThrow(() => { c = classify(v, revokedProxy(), NOW); }, name);
    assertClassified(c);
  }
  assertClassified(classify(values.getter), 'transient', 'network');
  assertClassified(classify(values.revoked), 'hard-fail', 'unknown');
  assertClassified(classify(values.symbol), 'hard-fail', 'unknown');
  assertClassified(classify(values.bigint), 'hard-fail', 'unknown');
  assertClassified(classify(values.nullProto), 'transient', 'server-error');
  const cy = classify(values.cyclic);
  assertClassified(cy, 'transient', 'overloaded');
  assert.equal(cy.retryAfterMs, 1000);
  for (const k of ['headersGetter', 'headersRevoked', 'headerValueRevoked', 'mapValueRevoked', 'mapThrowingIter', 'protoTrapHeaders']) {
    assertClassified(classify(values[k]), 'transient', 'rate-limited');
  }
  assert.ok(classify(values.hugeMessage).reason.length < 1000, 'the reason is kept short');
  // Hostile validation and now arguments.
  assertClassified(classify({ status: 500 }, { get ok() { throw new Error('x'); } }, Symbol('now')), 'transient', 'server-error');
  assertClassified(classify({ status: 500 }, null, NaN));
});

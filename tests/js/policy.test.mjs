// SPEC section 10 through the boundary, in Node on pkg/: the providers' documented error bodies
// as each SDK (or a host's own fetch) throws them, ClassifyRule in classify() and the loop,
// RetryBudget shared by loops, and the runtime network failures of issue 10. The native
// tests (tests/classify_providers.rs) cite the documentation of every body used here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import OpenAI from 'openai';

import { classify, RepairLoop, RetryBudget, CircuitBreaker } from '../../pkg/selfheal.js';
import { startMockLlm } from '../mock-llm/server.mjs';
import { NOW, PROMPT, CITY_SCHEMA, assertClassified, throwsNaming, revokedProxy } from './helpers.mjs';

const check = (error, cls, cause, signal) => {
  const c = classify(error, null, NOW);
  assertClassified(c, cls, cause);
  if (signal !== undefined) assert.equal(c.signal, signal, JSON.stringify(c));
  return c;
};

/** An error the openai SDK builds from a status and a body, exactly as it throws it. */
const openaiError = (status, body, headers = {}) =>
  OpenAI.APIError.generate(status, body, undefined, new Headers(headers));

// ---------------------------------------------------------------- Google

/** @google/genai: `new ApiError({message: JSON.stringify(body), status})`, name "ApiError". */
class ApiError extends Error {
  constructor({ message, status }) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}
const googleBody = (code, status, message) => ({ error: { code, message, status } });

test('Google Gemini (@google/genai ApiError) and Vertex AI (ClientError, GoogleApiError)', () => {
  const genai = (code, status, message) => new ApiError({ message: JSON.stringify(googleBody(code, status, message)), status: code });
  check(genai(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'), 'transient', 'rate-limited', 'status');
  check(genai(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'), 'transient', 'overloaded', 'status');
  // The status word is more precise than its 504: a timeout, read from the JSON in the message.
  check(genai(504, 'DEADLINE_EXCEEDED', 'The request timed out. Please try again.'), 'transient', 'timeout', 'error-type');
  check(genai(400, 'INVALID_ARGUMENT', 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).'),
    'hard-fail', 'context-overflow', 'status');
  // Vertex AI's ClientError carries no status: only its message, with the body quoted.
  const vertex = new Error(`got status: 429 Too Many Requests. ${JSON.stringify(googleBody(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded'))}`);
  vertex.name = 'ClientError';
  check(vertex, 'transient', 'rate-limited', 'status');
  // GoogleApiError: `code` the number, `status` the word.
  const gae = Object.assign(new Error('Quota exceeded'), { name: 'GoogleApiError', code: 429, status: 'RESOURCE_EXHAUSTED' });
  check(gae, 'transient', 'rate-limited', 'status');
  // A body on its own, no status anywhere (a stream's error): the word decides.
  check({ error: { message: 'm', status: 'UNAVAILABLE' } }, 'transient', 'overloaded', 'error-type');
  check({ error: { message: 'm', status: 'CANCELLED' } }, 'hard-fail', 'aborted', 'error-type');
});

// ---------------------------------------------------------------- AWS Bedrock

/** AWS SDK for JavaScript v3: a ServiceException subclass with name, $fault and $metadata. */
class ServiceException extends Error {
  constructor(name, message, httpStatusCode) {
    super(message);
    this.name = name;
    this.$fault = 'client';
    if (httpStatusCode !== undefined) this.$metadata = { httpStatusCode, requestId: 'r1', attempts: 1, totalRetryDelay: 0 };
  }
}

test('AWS Bedrock: the SDK v3 exceptions, in a stream, and over plain HTTP', () => {
  check(new ServiceException('ThrottlingException', 'Too many requests, please wait before trying again.', 429), 'transient', 'rate-limited', 'status');
  check(new ServiceException('ModelNotReadyException', 'Model is not ready for inference.', 429), 'transient', 'overloaded', 'error-type');
  check(new ServiceException('ModelTimeoutException', 'Model timeout', 408), 'transient', 'timeout', 'status');
  check(new ServiceException('ServiceQuotaExceededException', 'Your request exceeds the service quota for your account.', 400),
    'hard-fail', 'quota-exhausted', 'error-type');
  check(new ServiceException('ValidationException', 'Input is too long for requested model.', 400), 'hard-fail', 'context-overflow', 'status');
  // A stream's exception event: no $metadata.
  check(new ServiceException('ModelStreamErrorException', 'An error occurred while streaming the response.'), 'transient', 'server-error', 'error-type');
  check(new ServiceException('ServiceUnavailableException', 'Service unavailable'), 'transient', 'overloaded', 'error-type');
  // Plain fetch: the name in x-amzn-errortype.
  check({ status: 429, headers: new Headers({ 'x-amzn-ErrorType': 'ModelNotReadyException:http://internal.amazon.com/coral/com.amazon.bedrock/' }),
    message: 'Model is not ready' }, 'transient', 'overloaded', 'error-type');
});

// ---------------------------------------------------------------- Azure OpenAI, Groq, OpenRouter (openai SDK)

const AZURE_FILTERED = {
  error: {
    message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
    type: null, param: 'prompt', code: 'content_filter', status: 400,
    innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { hate: { filtered: true, severity: 'high' } } },
  },
};

test('Azure OpenAI content filter, through the openai SDK: hard-fail/content-filter', () => {
  const e = openaiError(400, AZURE_FILTERED);
  assert.equal(e.constructor.name, 'BadRequestError');
  check(e, 'hard-fail', 'content-filter', 'code');
  // And the loop does not resend it.
  const loop = new RepairLoop({ prompt: PROMPT, seed: 1 });
  const i = loop.next({ kind: 'error', error: e }, NOW);
  assert.equal(i.type, 'degrade');
  assert.equal(i.reason, 'hard-fail');
  assert.equal(i.classified.cause, 'content-filter');
});

test('Groq through the openai SDK: 498 capacity_exceeded is transient', () => {
  check(openaiError(498, { error: { message: 'Flex tier capacity exceeded. Please try again later.', type: 'capacity_exceeded', code: 'capacity_exceeded' } }),
    'transient', 'overloaded', 'code');
  check(openaiError(429, { error: { message: 'Rate limit reached for model `llama-3.3-70b-versatile`', type: 'tokens', code: 'rate_limit_exceeded' } },
    { 'retry-after': '2' }), 'transient', 'rate-limited', 'status');
});

test('OpenRouter: moderation, credits, and errors inside a 200', () => {
  const flagged = openaiError(403, { error: { code: 403, message: 'Your input was flagged for "harassment".',
    metadata: { reasons: ['harassment'], flagged_input: 'you are…', provider_name: 'OpenAI', model_slug: 'openai/gpt-4o' } } });
  check(flagged, 'hard-fail', 'content-filter', 'error-type');
  check(openaiError(402, { error: { code: 402, message: 'Insufficient credits.' } }), 'hard-fail', 'quota-exhausted', 'status');
  // A 200 whose body says 502 (the host passes the body it received).
  check({ error: { code: 502, message: 'Network connection lost.', metadata: { error_type: 'provider_unavailable' } } },
    'transient', 'server-error', 'status');
});

// ---------------------------------------------------------------- Mistral, Cohere

test('Mistral: the SDK error with its body as text', () => {
  const body = { object: 'error', message: 'Requests rate limit exceeded', type: 'rate_limit_error', param: null, code: '1300' };
  const sdk = Object.assign(new Error(`API error occurred: Status 429\nBody: ${JSON.stringify(body)}`),
    { name: 'SDKError', statusCode: 429, body: JSON.stringify(body) });
  check(sdk, 'transient', 'rate-limited', 'status');
  check({ ...body, type: 'server_error', message: 'Internal' }, 'transient', 'server-error', 'error-type');
  check(Object.assign(new Error('Payment Required'), { statusCode: 402 }), 'hard-fail', 'quota-exhausted', 'status');
});

/** cohere-ai: `class InvalidTokenError extends CohereError` with statusCode and body. */
class CohereError extends Error {
  constructor({ message, statusCode, body }) {
    super([message, `Status code: ${statusCode}`, `Body: ${JSON.stringify(body)}`].join('\n'));
    this.statusCode = statusCode;
    this.body = body;
  }
}
class InvalidTokenError extends CohereError {
  constructor(body) { super({ message: 'InvalidTokenError', statusCode: 498, body }); }
}
class GatewayTimeoutError extends CohereError {
  constructor(body) { super({ message: 'GatewayTimeoutError', statusCode: 504, body }); }
}

test('Cohere: the TypeScript SDK classes', () => {
  check(new InvalidTokenError({ message: 'invalid api token' }), 'hard-fail', 'auth', 'error-type');
  check(new GatewayTimeoutError({ message: 'gateway timeout' }), 'transient', 'timeout', 'error-type');
  check(new CohereError({ message: 'BadRequestError', statusCode: 400,
    body: { message: 'too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4292.' } }),
  'hard-fail', 'context-overflow', 'status');
  check(new CohereError({ message: 'ClientClosedRequestError', statusCode: 499, body: {} }), 'hard-fail', 'aborted', 'status');
});

// ---------------------------------------------------------------- the AI SDK and axios

test('the AI SDK APICallError: statusCode, responseHeaders, data', () => {
  const e = Object.assign(new Error('Deadline exceeded'), {
    name: 'AI_APICallError', statusCode: 504, isRetryable: true,
    responseHeaders: { 'retry-after': '3' },
    responseBody: JSON.stringify(googleBody(504, 'DEADLINE_EXCEEDED', 'Deadline exceeded')),
    data: googleBody(504, 'DEADLINE_EXCEEDED', 'Deadline exceeded'),
  });
  const c = check(e, 'transient', 'timeout', 'error-type');
  assert.equal(c.retryAfterMs, 3000);
});

test('axios: ERR_NETWORK, and a response with its body in response.data', () => {
  check(Object.assign(new Error('Network Error'), { name: 'AxiosError', code: 'ERR_NETWORK' }), 'transient', 'network', 'code');
  const e = Object.assign(new Error('Request failed with status code 400'), {
    name: 'AxiosError', code: 'ERR_BAD_REQUEST',
    response: { status: 400, headers: {}, data: AZURE_FILTERED },
  });
  check(e, 'hard-fail', 'content-filter', 'code');
});

// ---------------------------------------------------------------- runtimes and timeouts

test("Workers' 'Network connection lost.' is a network failure whatever the error's name", () => {
  check(Object.assign(new Error('Network connection lost.'), { retryable: true }), 'transient', 'network', 'message');
  check(new Error('Network connection lost.'), 'transient', 'network', 'message');
  check(Object.assign(new Error('Durable Object is overloaded.'), { overloaded: true }), 'hard-fail', 'overloaded', 'error-type');
});

test('a real AbortSignal.timeout() on a real fetch is transient/timeout', async () => {
  const server = createServer(() => {}); // never answers
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    const error = await fetch(`http://127.0.0.1:${server.address().port}/`, { signal: AbortSignal.timeout(30) }).then(
      () => assert.fail('answered'), (e) => e);
    assert.equal(error.name, 'TimeoutError');
    check(error, 'transient', 'timeout', 'error-type');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('the openai SDK aborted by AbortSignal.timeout(): APIUserAbortError caused by a TimeoutError is a timeout, and the loop resends', async () => {
  const mock = await startMockLlm({ script: { openai: ['hang', { kind: 'valid', value: { city: 'Paris' } }] }, idleTimeoutMs: 10_000 });
  try {
    const client = new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: 'test', maxRetries: 0 });
    const call = (signal) => client.chat.completions.create(
      { model: 'gpt-mock', messages: [{ role: 'user', content: PROMPT.user }] }, { signal });
    const error = await call(AbortSignal.timeout(50)).then(() => assert.fail('answered'), (e) => e);
    assert.equal(error.constructor.name, 'APIUserAbortError');
    assert.equal(error.cause?.name, 'TimeoutError');
    check(error, 'transient', 'timeout', 'error-type');

    const loop = new RepairLoop({ prompt: PROMPT, schema: CITY_SCHEMA, seed: 3, backoff: { baseMs: 1, jitter: 'none' } });
    const wait = loop.next({ kind: 'error', error }, NOW);
    assert.equal(wait.type, 'wait-for-backoff');
    const reply = await call(AbortSignal.timeout(5000));
    const done = loop.next({ kind: 'reply', text: reply.choices[0].message.content }, NOW + 10);
    assert.equal(done.type, 'done');
    assert.deepEqual(done.value, { city: 'Paris' });
    // A user's own abort is still an abort.
    const controller = new AbortController();
    controller.abort();
    const user = await call(controller.signal).then(() => assert.fail('answered'), (e) => e);
    check(user, 'hard-fail', 'aborted');
  } finally {
    await mock.close();
  }
});

test('x-should-retry: false keeps the status cause; retry-after is digits only', () => {
  check({ status: 429, headers: { 'x-should-retry': 'false' } }, 'hard-fail', 'rate-limited', 'x-should-retry');
  assert.equal(classify({ status: 429, headers: { 'retry-after': '1e3' } }, null, NOW).retryAfterMs, null);
  assert.equal(classify({ status: 429, headers: { 'retry-after': '7' } }, null, NOW).retryAfterMs, 7000);
  assert.equal(classify({ status: 429, headers: { 'retry-after-ms': '1e3' } }, null, NOW).retryAfterMs, 1000);
});

// ---------------------------------------------------------------- ClassifyRule

test('classify(…, { rules }): a 404 made transient, a 503 made hard-fail', () => {
  const rules = [{ status: 404, class: 'transient' }, { status: [500, 599], message: 'deployment', class: 'hard-fail', cause: 'not-found' }];
  const c = classify({ status: 404 }, null, NOW, { rules });
  assert.deepEqual([c.class, c.cause, c.signal], ['transient', 'not-found', 'rule']);
  assert.match(c.reason, /^rules\[0\]/);
  const d = classify({ status: 503, message: 'Deployment is gone' }, null, NOW, { rules });
  assert.deepEqual([d.class, d.cause, d.signal], ['hard-fail', 'not-found', 'rule']);
  // Unmatched: the built-in table.
  assert.equal(classify({ status: 503 }, null, NOW, { rules }).signal, 'status');
  // type matches a name; code exactly.
  assert.equal(classify(new ServiceException('ThrottlingException', 'x', 429), null, NOW,
    { rules: [{ type: 'ThrottlingException', class: 'hard-fail' }] }).class, 'hard-fail');
  assert.equal(classify({ code: 'E_BUSY' }, null, NOW, { rules: [{ code: 'E_BUSY', class: 'transient' }] }).class, 'transient');
  // No options, null, an empty list: the table.
  for (const o of [undefined, null, {}, { rules: [] }, { rules: null }]) assert.equal(classify({ status: 404 }, null, NOW, o).class, 'hard-fail');
});

test('bad rules throw TypeError/RangeError naming the rule index and field', () => {
  const bad = (rules) => () => classify({ status: 404 }, null, NOW, { rules });
  const ok = { status: 404, class: 'transient' };
  throwsNaming(bad([ok, ok, { status: 99, class: 'transient' }]), RangeError, 'options.rules[2].status');
  throwsNaming(bad([{ status: 404.5, class: 'transient' }]), RangeError, 'options.rules[0].status');
  throwsNaming(bad([{ status: [599, 500], class: 'transient' }]), RangeError, 'options.rules[0].status');
  throwsNaming(bad([{ status: [500], class: 'transient' }]), TypeError, 'options.rules[0].status');
  throwsNaming(bad([{ status: '404', class: 'transient' }]), TypeError, 'options.rules[0].status');
  throwsNaming(bad([ok, { status: 404 }]), TypeError, 'options.rules[1].class');
  throwsNaming(bad([{ status: 404, class: 'retry' }]), TypeError, 'options.rules[0].class');
  throwsNaming(bad([{ status: 404, class: 'transient', cause: 'gateway' }]), TypeError, 'options.rules[0].cause');
  throwsNaming(bad([{ code: 42, class: 'transient' }]), TypeError, 'options.rules[0].code');
  throwsNaming(bad([{ message: '', class: 'transient' }]), RangeError, 'options.rules[0].message');
  throwsNaming(bad([{ class: 'transient' }]), TypeError, 'options.rules[0]');
  throwsNaming(bad(['404']), TypeError, 'options.rules[0]');
  throwsNaming(bad({ 0: ok }), TypeError, 'options.rules');
  throwsNaming(bad(Array(257).fill(ok)), RangeError, 'options.rules');
  throwsNaming(bad([{ get status() { throw new Error('boom'); }, class: 'transient' }]), TypeError, 'options.rules[0].status');
  throwsNaming(() => classify({}, null, NOW, 'rules'), TypeError, 'options');
  throwsNaming(() => classify({}, null, NOW, { rules: revokedProxy([]) }), TypeError, 'options.rules');
  // The first three arguments still never throw.
  assertClassified(classify(revokedProxy(), revokedProxy(), 'now', { rules: [ok] }));
});

test('LoopOptions.rules: the loop waits out a 404 a rule calls transient; rules survive toJSON', () => {
  const loop = new RepairLoop({ prompt: PROMPT, schema: CITY_SCHEMA, seed: 2, backoff: { baseMs: 10, jitter: 'none' },
    rules: [{ status: 404, class: 'transient' }, { status: 503, class: 'hard-fail' }] });
  const wait = loop.next({ kind: 'error', error: { status: 404 } }, NOW);
  assert.equal(wait.type, 'wait-for-backoff');
  assert.equal(wait.classified.signal, 'rule');
  const back = RepairLoop.fromJSON(loop.toJSON());
  const stop = back.next({ kind: 'error', error: { status: 503 } }, NOW + 10);
  assert.equal(stop.type, 'degrade');
  assert.equal(stop.reason, 'hard-fail');
  throwsNaming(() => new RepairLoop({ prompt: PROMPT, rules: [{ status: 404, class: 'nope' }] }), TypeError, 'options.rules[0].class');
});

// ---------------------------------------------------------------- RetryBudget

test('RetryBudget: the reserve, the ratio, the window, and its state', () => {
  const b = new RetryBudget();
  assert.equal(b.available, 10);
  for (let i = 0; i < 100; i++) b.recordRequest(NOW + i);
  assert.equal(b.available, 20);
  let granted = 0;
  while (b.tryRetry(NOW + 100)) granted++;
  assert.equal(granted, 20);
  assert.equal(b.available, 0);
  const state = b.toJSON();
  assert.deepEqual(state.options, { ratio: 0.1, minPerSecond: 1, windowMs: 10000 });
  assert.deepEqual(JSON.parse(JSON.stringify(state)), state);
  const back = RetryBudget.fromJSON(state);
  assert.equal(back.tryRetry(NOW + 100), false);
  // Once the window has passed, only the reserve is left.
  assert.equal(back.tryRetry(NOW + 30_000), true);
  const small = new RetryBudget({ ratio: 1, minPerSecond: 0, windowMs: 1000 });
  assert.equal(small.tryRetry(NOW), false);
  small.recordRequest(NOW);
  assert.equal(small.tryRetry(NOW), true);
});

test('RetryBudget: bad options and states name the field', () => {
  throwsNaming(() => new RetryBudget({ ratio: -1 }), RangeError, 'options.ratio');
  throwsNaming(() => new RetryBudget({ minPerSecond: NaN }), RangeError, 'options.minPerSecond');
  throwsNaming(() => new RetryBudget({ windowMs: 5 }), RangeError, 'options.windowMs');
  throwsNaming(() => new RetryBudget({ windowMs: '10s' }), TypeError, 'options.windowMs');
  throwsNaming(() => new RetryBudget([]), TypeError, 'options');
  throwsNaming(() => new RetryBudget().tryRetry(Infinity), RangeError, 'now');
  throwsNaming(() => RetryBudget.fromJSON({ options: {}, buckets: [], latest: null }), TypeError, 'state');
  const state = new RetryBudget().toJSON();
  state.buckets[0].slot = 0.5;
  throwsNaming(() => RetryBudget.fromJSON(state), TypeError, 'state');
  throwsNaming(() => RetryBudget.fromJSON('{}'), TypeError, 'state');
  throwsNaming(() => new RepairLoop({ prompt: PROMPT }, null, {}), TypeError, 'retryBudget');
  throwsNaming(() => new RepairLoop({ prompt: PROMPT }, null, new CircuitBreaker()), TypeError, 'retryBudget');
});

test('loops sharing a RetryBudget: the first call is recorded, resends ask first, refused -> retry-budget-exhausted', () => {
  const budget = new RetryBudget({ ratio: 0.5, minPerSecond: 0, windowMs: 10_000 });
  const loops = [0, 1, 2, 3].map((seed) => new RepairLoop({ prompt: PROMPT, seed, backoff: { baseMs: 10, jitter: 'none' } }, null, budget));
  const outage = { kind: 'error', error: { status: 503 } };
  // Four first calls fail one after another: each loop's failure is judged with the first
  // calls recorded so far (0.5, 1, 1.5, 2 resends earned), so every second one may resend.
  const first = loops.map((l) => l.next(outage, NOW));
  assert.deepEqual(first.map((i) => i.type), ['degrade', 'wait-for-backoff', 'degrade', 'wait-for-backoff']);
  assert.equal(first[0].reason, 'retry-budget-exhausted');
  assert.equal(first[0].classified.cause, 'overloaded');
  assert.equal(budget.available, 0);
  // A loop restored with the same budget keeps using it.
  const restored = RepairLoop.fromJSON(loops[1].toJSON(), null, budget);
  assert.equal(restored.next(outage, NOW + 10).reason, 'retry-budget-exhausted');
  // Breaker first, budget second.
  const breaker = new CircuitBreaker({ failureThreshold: 1 });
  breaker.recordFailure(NOW);
  const fresh = new RetryBudget();
  const l = new RepairLoop({ prompt: PROMPT, seed: 9 }, breaker, fresh);
  assert.equal(l.next(outage, NOW).reason, 'circuit-open');
  assert.equal(fresh.available, 10);
});

test("the README's retry budget example prints what it says", async () => {
  const { readFileSync, writeFileSync, mkdtempSync } = await import('node:fs');
  const { join, dirname } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { fileURLToPath, pathToFileURL } = await import('node:url');
  const { execFileSync } = await import('node:child_process');
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf('<!-- example:retry-budget -->');
  assert.ok(at >= 0, 'README has no example:retry-budget');
  const code = /```js\n([\s\S]*?)\n```\n/.exec(readme.slice(at))[1];
  const expected = /\/\/ (\{.*\})\s*$/.exec(code.trim())[1];
  const file = join(mkdtempSync(join(tmpdir(), 'selfheal-readme-')), 'budget.mjs');
  writeFileSync(file, code.replace('from "selfheal"', `from ${JSON.stringify(pathToFileURL(join(root, 'pkg', 'selfheal.js')).href)}`));
  assert.equal(execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 30000 }).trim(), expected);
});

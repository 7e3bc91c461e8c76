// js/package/ai.mjs with the real `ai` package (7.x) and its mock language model (ai/test): the
// middleware on doGenerate and doStream, repairText for generateObject, repairToolCall for
// generateText. End-to-end runs with the official providers are in ai_providers.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { APICallError, generateObject, generateText, Output, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import * as z from "zod";

import * as selfheal from "../../pkg/selfheal.js";
import { createSelfhealAi, forClassify, SelfhealError } from "../../js/package/ai.mjs";

const { selfhealMiddleware, repairText, repairToolCall, degradeOf } = createSelfhealAi(selfheal);
const FAST = { backoff: { baseMs: 5, jitterMs: 0 }, seed: 1 };
const CITY = z.object({ city: z.string(), population: z.number().int().optional() });

/** An APICallError as @ai-sdk/anthropic throws it for an HTTP error. */
function httpError(status, { headers = {}, type = "overloaded_error", message = "Overloaded" } = {}) {
  return new APICallError({
    message, url: "https://api.anthropic.com/v1/messages", requestBodyValues: {}, statusCode: status,
    responseHeaders: { "content-type": "application/json", ...headers },
    responseBody: JSON.stringify({ type: "error", error: { type, message } }),
    isRetryable: status === 429 || status >= 500,
    data: { type: "error", error: { type, message } },
  });
}

const usage = (input = 10, output = 5) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const textResult = (text, raw = "end_turn") => ({
  content: [{ type: "text", text }], finishReason: { unified: raw === "max_tokens" ? "length" : "stop", raw }, usage: usage(), warnings: [],
});
const toolResult = (toolName, input, toolCallId = "call_1") => ({
  content: [{ type: "tool-call", toolCallId, toolName, input }], finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage(), warnings: [],
});

/** A mock model answering each doGenerate with the next script item (an Error is thrown). */
function scripted(script) {
  const times = [];
  const model = new MockLanguageModelV4({
    provider: "anthropic.messages",
    modelId: "claude-mock-1",
    doGenerate: async () => {
      times.push(performance.now());
      assert.ok(script.length > 0, "the model was called more often than the test expected");
      const next = script.shift();
      if (next instanceof Error) throw next;
      return next;
    },
  });
  return { model, times };
}

test("the middleware: 529, 529 (retry-after), then a fenced reply: Output.object succeeds with 3 calls", async () => {
  const { model, times } = scripted([
    httpError(529, { headers: { "retry-after": "0.08" } }),
    httpError(529),
    textResult('```json\n{"city": "Paris"}\n```'),
  ]);
  const steps = [];
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, onStep: (_, s) => steps.push(s) }) });
  const { output } = await generateText({ model: wrapped, maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "Where is the Eiffel Tower?" });
  assert.deepEqual(output, { city: "Paris" });
  assert.equal(model.doGenerateCalls.length, 3);
  assert.deepEqual(steps.map((s) => s.type), ["wait-for-backoff", "wait-for-backoff", "done"]);
  assert.equal(steps[0].delayMs, 80, "the server's retry-after replaces the backoff");
  assert.equal(steps[0].classified.cause, "overloaded");
  assert.ok(times[1] - times[0] >= 79, `waited ${times[1] - times[0]} ms for a retry-after of 80 ms`);
  assert.equal(steps[1].delayMs, 10, "selfheal's own backoff (5 ms · 2)");
  assert.equal(steps[2].source, "locally-repaired");
  assert.deepEqual(steps[2].fixes, ["code-fence"]);
});

test("the middleware reads the SDK's unified finish reason first: a raw word SPEC does not list is not a cut-off", async () => {
  // Cohere's raw COMPLETE under the unified "stop": complete; the raw word decides only when the
  // unified one says nothing (here "other": a word SPEC does not list reads as cut off).
  for (const [finishReason, calls] of [[{ unified: "stop", raw: "COMPLETE" }, 1], [{ unified: "other", raw: "COMPLETE" }, 2]]) {
    const { model } = scripted([
      { ...textResult('Here: {"city": "Paris"}'), finishReason },
      textResult('{"city": "Paris"}'),
    ].slice(0, calls));
    const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
    const { output } = await generateText({ model: wrapped, maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "Where?" });
    assert.deepEqual(output, { city: "Paris" });
    assert.equal(model.doGenerateCalls.length, calls, JSON.stringify(finishReason));
  }
});

test("the middleware reports the usage of every call it made, not the last one's", async () => {
  const { model } = scripted([
    { ...textResult('{"town": "Paris"}'), usage: usage(1000, 500) },
    { ...textResult('{"city": "Paris"}'), usage: usage(1200, 20) },
  ]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
  const result = await generateText({ model: wrapped, maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "Where?" });
  assert.deepEqual(result.output, { city: "Paris" });
  assert.equal(model.doGenerateCalls.length, 2);
  assert.equal(result.usage.inputTokens, 2200);
  assert.equal(result.usage.outputTokens, 520);
  assert.equal(result.totalUsage.inputTokens, 2200);
  assert.equal(result.totalUsage.outputTokens, 520);
});

test("Output.object with tools: a step that calls a tool goes to the SDK, which runs the tool (no repair prompt)", async () => {
  // Before: the SDK sends responseFormat JSON on every step of an agent, and the middleware took
  // a tool-calling step ("Let me look that up." + a call) for a broken answer and reasked.
  for (const text of ["Let me look that up.", null]) {
    const call = toolResult("lookup", '{"q": "eiffel"}');
    if (text !== null) call.content.unshift({ type: "text", text });
    const { model } = scripted([call, textResult('{"city": "Paris"}')]);
    const steps = [];
    let executed = 0;
    const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, onStep: (_, s) => steps.push(s.type) }) });
    const result = await generateText({
      model: wrapped, maxRetries: 0, stopWhen: stepCountIs(3), prompt: "Where is the Eiffel Tower?",
      tools: { lookup: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => (executed++, "Paris") }) },
      output: Output.object({ schema: CITY }),
    });
    assert.deepEqual(result.output, { city: "Paris" }, String(text));
    assert.equal(executed, 1, "the tool ran once");
    assert.equal(model.doGenerateCalls.length, 2, "no repair call");
    assert.deepEqual(steps, ["done", "done"]);
  }
});

test("the middleware leaves an unstructured reply alone and resends the same params", async () => {
  const { model } = scripted([httpError(500, { type: "api_error", message: "Internal server error" }), textResult("Hello there")]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
  const { text } = await generateText({ model: wrapped, maxRetries: 0, prompt: "Say hello" });
  assert.equal(text, "Hello there");
  assert.equal(model.doGenerateCalls.length, 2);
  assert.deepEqual(model.doGenerateCalls[1].prompt, model.doGenerateCalls[0].prompt);
});

test("per-class budgets: transient spent -> the provider's own error, with the degrade attached", async () => {
  const { model } = scripted([httpError(529), httpError(529)]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, budget: { transient: 1 } }) });
  const error = await generateText({ model: wrapped, maxRetries: 0, prompt: "x" }).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(APICallError.isInstance(error), "the error the provider threw, unchanged");
  assert.equal(error.statusCode, 529);
  assert.equal(degradeOf(error).reason, "transient-exhausted");
  assert.equal(degradeOf(error).attempts, 2);
  assert.equal(model.doGenerateCalls.length, 2);
});

test("hard-fail stops at once (401), and unknown errors are never retried", async () => {
  const { model } = scripted([httpError(401, { type: "authentication_error", message: "invalid x-api-key" })]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
  const e = await generateText({ model: wrapped, maxRetries: 0, prompt: "x" }).catch((err) => err);
  assert.equal(degradeOf(e).reason, "hard-fail");
  assert.equal(degradeOf(e).classified.cause, "auth");
  const odd = scripted([new Error("something odd")]);
  const wrapped2 = wrapLanguageModel({ model: odd.model, middleware: selfhealMiddleware(FAST) });
  const e2 = await generateText({ model: wrapped2, maxRetries: 0, prompt: "x" }).catch((err) => err);
  assert.equal(e2.message, "something odd");
  assert.equal(degradeOf(e2).classified.cause, "unknown");
  assert.equal(odd.model.doGenerateCalls.length, 1);
});

test("both retrying: the SDK's retry of a call selfheal gave up on warns once and sends nothing", async () => {
  const warnings = [];
  // retry-after-ms: 1 keeps the SDK's own retry delay short; it reads the same header.
  const fail = () => httpError(529, { headers: { "retry-after-ms": "1" } });
  const { model } = scripted([fail(), fail(), fail(), fail()]);
  const middleware = selfhealMiddleware({ ...FAST, budget: { transient: 1 }, warn: (m) => warnings.push(m) });
  const wrapped = wrapLanguageModel({ model, middleware });
  const e = await generateText({ model: wrapped, maxRetries: 2, prompt: "x" }).catch((err) => err);
  assert.ok(e, "it still fails");
  assert.equal(model.doGenerateCalls.length, 2, "selfheal's two calls; none from the SDK's retry loop");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /set maxRetries: 0/);
  // A second misconfigured call does not warn again.
  await generateText({ model: wrapped, maxRetries: 1, prompt: "y" }).catch(() => {});
  assert.equal(warnings.length, 1);
  assert.equal(model.doGenerateCalls.length, 4);
});

test("a CircuitBreaker: transient failures open it, and an open breaker makes no call", async () => {
  const breaker = new selfheal.CircuitBreaker({ failureThreshold: 2, resetTimeoutMs: 60_000 });
  try {
    const { model } = scripted([httpError(529), httpError(529)]);
    const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, breaker }) });
    const first = await generateText({ model: wrapped, maxRetries: 0, prompt: "x" }).catch((e) => e);
    assert.equal(degradeOf(first).reason, "circuit-open");
    assert.equal(breaker.state, "open");
    const second = await generateText({ model: wrapped, maxRetries: 0, prompt: "y" }).catch((e) => e);
    assert.ok(second instanceof SelfhealError);
    assert.equal(second.instruction.reason, "circuit-open");
    assert.equal(model.doGenerateCalls.length, 2, "no call while open");
  } finally {
    breaker.free();
  }
});

test("a RetryBudget goes to the loop: asked before every resend, refused -> retry-budget-exhausted", async () => {
  // One resend in reserve (1 per second over a 1 s window), nothing earned from first calls.
  const retryBudget = new selfheal.RetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 1000 });
  try {
    const { model } = scripted([httpError(503), httpError(503), textResult("never")]);
    const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, retryBudget }) });
    const e = await generateText({ model: wrapped, maxRetries: 0, prompt: "x" }).catch((err) => err);
    assert.equal(degradeOf(e).reason, "retry-budget-exhausted");
    assert.equal(model.doGenerateCalls.length, 2, "the first call and the one resend the budget allowed");
    assert.equal(retryBudget.available, 0);
    assert.throws(() => selfhealMiddleware({ retryBudget: {} }), TypeError, "not a selfheal RetryBudget");
  } finally {
    retryBudget.free();
  }
});

test("the retry budget counts each first call once (no double counting between the middleware and the loop)", async () => {
  // Half a resend per first call, no reserve: one first call earns no resend; counted twice, it would earn one.
  const retryBudget = new selfheal.RetryBudget({ ratio: 0.5, minPerSecond: 0, windowMs: 60_000 });
  try {
    const failing = scripted([httpError(503), textResult("never")]);
    const wrapped = wrapLanguageModel({ model: failing.model, middleware: selfhealMiddleware({ ...FAST, retryBudget }) });
    const e = await generateText({ model: wrapped, maxRetries: 0, prompt: "x" }).catch((err) => err);
    assert.equal(degradeOf(e).reason, "retry-budget-exhausted");
    assert.equal(failing.model.doGenerateCalls.length, 1);
    // An unstructured success is not fed to the loop: the middleware counts its first call, once.
    const ok = scripted([textResult("fine")]);
    const plain = wrapLanguageModel({ model: ok.model, middleware: selfhealMiddleware({ ...FAST, retryBudget }) });
    assert.equal((await generateText({ model: plain, maxRetries: 0, prompt: "x" })).text, "fine");
    assert.equal(retryBudget.available, 1, "two first calls x 0.5");
  } finally {
    retryBudget.free();
  }
});

test("the deadline: a retry-after that would end past it stops the call", async () => {
  const { model } = scripted([httpError(429, { headers: { "retry-after": "2" }, type: "rate_limit_error", message: "slow down" })]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, budget: { deadlineMs: 500 } }) });
  const started = performance.now();
  const e = await generateText({ model: wrapped, maxRetries: 0, prompt: "x" }).catch((err) => err);
  assert.equal(degradeOf(e).reason, "deadline-exceeded");
  assert.ok(performance.now() - started < 1900, "the 2 s wait was not made");
});

test("an abort during a wait ends it at once with the signal's reason", async () => {
  const { model } = scripted([httpError(429, { headers: { "retry-after": "5" }, type: "rate_limit_error" })]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("user left")), 30);
  const started = performance.now();
  const e = await generateText({ model: wrapped, maxRetries: 0, prompt: "x", abortSignal: controller.signal }).catch((err) => err);
  assert.ok(performance.now() - started < 4500, "the 5 s wait ended early");
  assert.match(String(e?.message ?? e), /user left|abort/i);
  assert.equal(model.doGenerateCalls.length, 1);
});

test("structured output: a schema mismatch is reasked in the conversation, carrying the issues", async () => {
  const { model } = scripted([textResult('{"city": 75}'), textResult('{"city": "Paris"}')]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
  const { output } = await generateText({ model: wrapped, maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "Where is the Louvre?" });
  assert.deepEqual(output, { city: "Paris" });
  const [first, second] = model.doGenerateCalls;
  assert.equal(second.prompt.length, first.prompt.length + 2, "the reply and a correction appended");
  assert.deepEqual(second.prompt.at(-2), { role: "assistant", content: [{ type: "text", text: '{"city": 75}' }] });
  const correction = second.prompt.at(-1).content[0].text;
  assert.match(correction, /^Your previous reply could not be used/);
  assert.match(correction, /- \/city: 75 is not of type "string"/);
  assert.deepEqual(second.responseFormat, first.responseFormat, "still asks for JSON with the schema");
});

test("structured: false leaves JSON replies to the SDK", async () => {
  const { model } = scripted([textResult('```json\n{"city": "Paris"}\n```')]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, structured: false }) });
  await assert.rejects(generateText({ model: wrapped, maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "x" }), /could not parse/);
});

/** A LanguageModelV4 stream result from parts; `failAfter` errors the stream after that many. */
function streamOf(parts, { failWith, failAfter = parts.length } = {}) {
  let i = 0;
  return {
    stream: new ReadableStream({
      pull(controller) {
        if (i === failAfter && failWith) return controller.error(failWith);
        if (i >= parts.length) return controller.close();
        controller.enqueue(parts[i++]);
      },
    }),
  };
}
const textParts = (text) => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  ...Array.from(text.matchAll(/.{1,4}/gs), ([d]) => ({ type: "text-delta", id: "t", delta: d })),
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage: usage() },
];

test("doStream: errors before the first output are retried; the stream then passes through", async () => {
  const script = [
    httpError(529),
    streamOf([{ type: "stream-start", warnings: [] }, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]),
    streamOf(textParts("Bonjour, Paris!")),
  ];
  const model = new MockLanguageModelV4({
    doStream: async () => {
      const next = script.shift();
      if (next instanceof Error) throw next;
      return next;
    },
  });
  const steps = [];
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, onStep: (_, s) => steps.push(s) }) });
  const result = streamText({ model: wrapped, maxRetries: 0, prompt: "x" });
  assert.equal(await result.text, "Bonjour, Paris!");
  assert.equal(model.doStreamCalls.length, 3);
  assert.deepEqual(steps.map((s) => [s.type, s.classified?.cause ?? null]), [
    ["wait-for-backoff", "overloaded"], ["wait-for-backoff", "overloaded"], ["done", null],
  ]);
});

test("doStream: an error after output has started is the caller's (not retried)", async () => {
  const boom = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
  const model = new MockLanguageModelV4({ doStream: async () => streamOf(textParts("Hello world"), { failWith: boom, failAfter: 3 }) });
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
  const result = streamText({ model: wrapped, maxRetries: 0, prompt: "x", onError: () => {} });
  await assert.rejects(result.text, (e) => e === boom, "the mid-stream error reaches the caller as it is");
  assert.equal(model.doStreamCalls.length, 1, "not retried: the caller had seen output");
});

test("repairText (generateObject): a .refine() violation is healed by exactly one reask quoting path and message", async () => {
  const span = z.object({ start: z.number(), end: z.number() }).refine((s) => s.end > s.start, { message: "end must be after start", path: ["end"] });
  const { model } = scripted([textResult('{"start": 5, "end": 1}'), textResult('{"start": 5, "end": 9}')]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware(FAST) });
  const prompt = "Give a time span as {start, end}.";
  const { object } = await generateObject({
    model: wrapped, maxRetries: 0, schema: span, prompt,
    repairText: repairText({ model: wrapped, schema: span, prompt }),
  });
  assert.deepEqual(object, { start: 5, end: 9 });
  assert.equal(model.doGenerateCalls.length, 2, "the first call and exactly one reask");
  const reask = model.doGenerateCalls[1].prompt.at(-1).content[0].text;
  assert.ok(reask.startsWith(prompt), "a reask starts with the previous prompt");
  assert.match(reask, /- \/end: end must be after start/);
});

test("repairText with the prompt: a JSON Schema failure is a reask of that prompt too, not a fix prompt", async () => {
  // Before: only the library's rejections were reasked; a missing field got the JSON repairer's
  // fix prompt, which forbids adding facts and drops the caller's prompt.
  const { model } = scripted([textResult('{"city": "Paris"}'), textResult('{"city": "Paris", "population": 2102650}')]);
  const schema = z.object({ city: z.string(), population: z.number() });
  const prompt = "Which city is the Eiffel Tower in, and how many people live there?";
  const { object } = await generateObject({
    model, maxRetries: 0, schema, prompt, system: "Answer in JSON.",
    repairText: repairText({ model, schema, prompt, system: "Answer in JSON." }),
  });
  assert.deepEqual(object, { city: "Paris", population: 2102650 });
  const [systemTurn, userTurn] = model.doGenerateCalls[1].prompt;
  assert.equal(systemTurn.content, "Answer in JSON.");
  const reask = userTurn.content[0].text;
  assert.ok(reask.startsWith(prompt), "a reask starts with the previous prompt");
  assert.match(reask, /population/);
});

test("repairText with output \"array\": the SDK's { elements } wrapper is repaired locally, and the library's refinement checked per element", async () => {
  // Before: the wrapper was parsed against the element schema, so even a trailing comma made
  // a repair call that could not help.
  const item = z.object({ sku: z.string(), qty: z.number() }).refine((i) => i.qty > 0, { message: "qty must be positive", path: ["qty"] });
  const { model } = scripted([
    textResult('{"elements": [{"sku": "mug", "qty": 2},]}'),
    textResult('{"elements": [{"sku": "mug", "qty": 0}]}'),
    textResult('{"elements": [{"sku": "mug", "qty": 1}]}'),
  ]);
  let { object } = await generateObject({
    model, maxRetries: 0, output: "array", schema: item, prompt: "Items?",
    repairText: repairText({ model, schema: item, output: "array", prompt: "Items?" }),
  });
  assert.deepEqual(object, [{ sku: "mug", qty: 2 }]);
  assert.equal(model.doGenerateCalls.length, 1, "repaired locally");
  ({ object } = await generateObject({
    model, maxRetries: 0, output: "array", schema: item, prompt: "Items?",
    repairText: repairText({ model, schema: item, output: "array", prompt: "Items?" }),
  }));
  assert.deepEqual(object, [{ sku: "mug", qty: 1 }]);
  assert.match(model.doGenerateCalls[2].prompt.at(-1).content[0].text, /- \/elements\/0\/qty: qty must be positive/);
  assert.throws(() => repairText({ schema: item, output: "enum" }), /options\.output must be "object" or "array"/);
});

test("repairText without the prompt: a self-contained fix prompt quoting the issues", async () => {
  const span = z.object({ start: z.number(), end: z.number() }).refine((s) => s.end > s.start, { message: "end must be after start", path: ["end"] });
  const { model } = scripted([textResult('{"start": 5, "end": 1}'), textResult('{"start": 1, "end": 5}')]);
  const { object } = await generateObject({
    model, maxRetries: 0, schema: span, prompt: "span?",
    repairText: repairText({ model, schema: span }),
  });
  assert.deepEqual(object, { start: 1, end: 5 });
  const fix = model.doGenerateCalls[1].prompt;
  assert.match(fix[0].content, /JSON repair tool/);
  assert.match(fix[1].content[0].text, /- \/end: end must be after start/);
  assert.match(fix[1].content[0].text, /<broken_output>\n\{"start": 5, "end": 1\}\n<\/broken_output>/);
});

test("repairText: local repair needs no call; with no model, a reply beyond local repair is null", async () => {
  const { model } = scripted([textResult("Sure! Here it is:\n```json\n{'city': 'Paris',}\n```")]);
  const { object } = await generateObject({ model, maxRetries: 0, schema: CITY, prompt: "x", repairText: repairText({ schema: CITY }) });
  assert.deepEqual(object, { city: "Paris" });
  assert.equal(model.doGenerateCalls.length, 1);
  const fn = repairText({ schema: CITY });
  assert.equal(await fn({ text: '{"city": 1}', error: new Error("x") }), null);
  assert.throws(() => repairText({}), /options\.schema is required/);
});

test("repairToolCall: broken arguments repaired locally, name and id kept", async () => {
  const { model } = scripted([toolResult("get_weather", '{"city": "Paris",'), textResult("Sunny.")]);
  const calls = [];
  const tools = { get_weather: tool({ description: "Weather in a city", inputSchema: z.object({ city: z.string() }), execute: async (input) => { calls.push(input); return "sunny"; } }) };
  const result = await generateText({ model, maxRetries: 0, tools, prompt: "Weather in Paris?", repairToolCall: repairToolCall({ model }) });
  assert.deepEqual(calls, [{ city: "Paris" }]);
  assert.equal(result.steps[0].toolCalls[0].toolCallId, "call_1");
  assert.equal(result.steps[0].toolCalls[0].toolName, "get_weather");
  assert.equal(model.doGenerateCalls.length, 1, "repaired locally, no reask");
});

test("repairToolCall: arguments that fail the schema get one reask quoting the issue, never replaying them", async () => {
  const { model } = scripted([
    toolResult("get_weather", '{"town": "Paris"}', "call_7"),
    toolResult("get_weather", '{"city": "Paris"}', "call_other"),
  ]);
  const tools = { get_weather: tool({ description: "Weather in a city", inputSchema: z.object({ city: z.string() }) }) };
  const result = await generateText({
    model, maxRetries: 0, tools, instructions: "You are a weather bot.", prompt: "Weather in Paris?",
    repairToolCall: repairToolCall({ model }),
  });
  const [call] = result.toolCalls;
  assert.deepEqual([call.toolName, call.toolCallId, call.input], ["get_weather", "call_7", { city: "Paris" }]);
  assert.equal(model.doGenerateCalls.length, 2);
  const reask = model.doGenerateCalls[1];
  assert.deepEqual(reask.toolChoice, { type: "tool", toolName: "get_weather" });
  const sent = JSON.stringify(reask.prompt);
  assert.ok(!sent.includes('\\"town\\"'), "the invalid input is not replayed");
  assert.match(reask.prompt.at(-1).content[0].text, /^Weather in Paris\?\n\nYour previous reply could not be used/);
  assert.match(reask.prompt.at(-1).content[0].text, /"city" is a required property/);
  assert.equal(reask.prompt[0].content, "You are a weather bot.");
});

test("repairToolCall: an unknown tool name is not repaired", async () => {
  const fn = repairToolCall({});
  const error = Object.assign(new Error("no such tool"), { name: "AI_NoSuchToolError" });
  assert.equal(await fn({ toolCall: { type: "tool-call", toolCallId: "c", toolName: "nope", input: "{}" }, tools: {}, inputSchema: async () => ({}), error, messages: [] }), null);
});

test("forClassify: APICallError's headers and body become what classify reads", () => {
  const view = forClassify(httpError(429, { headers: { "retry-after": "3" }, type: "rate_limit_error", message: "slow" }));
  assert.equal(view.status, 429);
  assert.equal(view.headers["retry-after"], "3");
  assert.equal(view.error.type, "rate_limit_error");
  const c = selfheal.classify(view, null, 0);
  assert.deepEqual([c.class, c.cause, c.retryAfterMs], ["transient", "rate-limited", 3000]);
  const plain = new Error("x");
  assert.equal(forClassify(plain), plain);
});

test("createSelfhealAi and the middleware check what they are given", () => {
  assert.throws(() => createSelfhealAi({}), TypeError);
  assert.throws(() => selfhealMiddleware({ budget: { transient: -1 } }), /transient/);
  assert.throws(() => selfhealMiddleware({ tracer: {} }), /Tracer/);
  const m = selfhealMiddleware();
  assert.equal(m.specificationVersion, "v4");
  assert.equal(typeof m.wrapGenerate, "function");
  assert.equal(typeof m.wrapStream, "function");
});

test("repairText: the repair call's responseFormat is the schema the SDK's own call sent (additionalProperties: false, as OpenAI's strict mode asks)", async () => {
  // Before: the repair call sent the library's input JSON Schema, whose objects leave
  // additionalProperties out; OpenAI's strict structured outputs refuse such a schema.
  const order = z.object({
    id: z.string(),
    lines: z.array(z.object({ sku: z.string(), qty: z.number() })),
    ship: z.union([z.object({ kind: z.literal("post"), zip: z.string() }), z.object({ kind: z.literal("pickup") })]),
    meta: z.record(z.string(), z.object({ note: z.string() })),
  });
  for (const output of ["object", "array"]) {
    const bad = output === "array" ? '{"elements": [{"id": 1}]}' : '{"id": 1}';
    const good = output === "array" ? '{"elements": []}' : '{"id": "a", "lines": [], "ship": {"kind": "pickup"}, "meta": {}}';
    const { model } = scripted([textResult(bad), textResult(good)]);
    await generateObject({
      model, maxRetries: 0, output, schema: order, prompt: "Order?",
      repairText: repairText({ model, schema: order, output, prompt: "Order?" }),
    });
    assert.equal(model.doGenerateCalls.length, 2, `${output}: one repair call`);
    const [sdk, repair] = model.doGenerateCalls.map((c) => c.responseFormat);
    assert.equal(repair.type, "json");
    assert.deepEqual(repair.schema, sdk.schema, `${output}: the repair call sends what generateObject sent`);
  }
});

/** A mock model answering each doStream with the next script item (an Error is thrown). */
function scriptedStreams(script) {
  return new MockLanguageModelV4({
    provider: "anthropic.messages",
    modelId: "claude-mock-1",
    doStream: async () => {
      assert.ok(script.length > 0, "the model was called more often than the test expected");
      const next = script.shift();
      if (next instanceof Error) throw next;
      return next;
    },
  });
}

test("structuredStreams \"buffer\": streamText with Output.object is healed: repaired locally, or reasked with the issues", async () => {
  // Before (and still with the default "pass"): a streamed JSON reply reached the caller as
  // sent, so a trailing comma made `output` throw.
  const middleware = selfhealMiddleware({ ...FAST, structuredStreams: "buffer" });
  let model = scriptedStreams([streamOf(textParts('Sure:\n```json\n{"city": "Paris",}\n```'))]);
  let result = streamText({ model: wrapLanguageModel({ model, middleware }), maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "x" });
  assert.deepEqual(await result.output, { city: "Paris" });
  assert.equal(model.doStreamCalls.length, 1, "repaired locally");

  const steps = [];
  model = scriptedStreams([streamOf(textParts('{"city": 75}')), streamOf(textParts('{"city": "Paris", "population": 2102650}'))]);
  const reasking = selfhealMiddleware({ ...FAST, structuredStreams: "buffer", onStep: (_, s) => steps.push(s.type) });
  result = streamText({ model: wrapLanguageModel({ model, middleware: reasking }), maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "Where is the Eiffel Tower?" });
  const partials = [];
  for await (const partial of result.partialOutputStream) partials.push(partial);
  assert.deepEqual(await result.output, { city: "Paris", population: 2102650 });
  assert.deepEqual(partials.at(-1), { city: "Paris", population: 2102650 }, "no partial of the rejected reply reached the caller");
  assert.ok(partials.every((p) => typeof p.city !== "number"));
  assert.deepEqual(steps, ["send-repair-prompt", "done"]);
  assert.equal(model.doStreamCalls.length, 2);
  const [, assistant, correction] = model.doStreamCalls[1].prompt;
  assert.equal(assistant.content[0].text, '{"city": 75}');
  assert.match(correction.content[0].text, /\/city: 75 is not of type "string"/);
  // The first stream was cut at `75}` (its finish part never read): its usage is estimated at
  // 4 characters a token, the prompt's 26 in (7) and the 12 received out (3).
  const total = await result.usage;
  assert.deepEqual([total.inputTokens, total.outputTokens], [7 + 10, 3 + 5], "the finish part reports the usage of both calls");
});

test("structuredStreams \"buffer\": a reply accepted as it came goes back to the SDK as one text block, not delta by delta", async () => {
  // The SDK parses the partial output anew at every delta: replaying a valid 52 KB reply in
  // 4-character deltas took 26 s, a repaired one (already one block) 0.1 s.
  const json = JSON.stringify({ city: "Paris", notes: "x".repeat(200) });
  const model = scriptedStreams([streamOf(textParts(json))]);
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ ...FAST, structuredStreams: "buffer" }) });
  const { stream } = await wrapped.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "x" }] }],
    responseFormat: { type: "json", schema: { type: "object", properties: { city: { type: "string" } } } },
  });
  const parts = [];
  for await (const part of stream) parts.push(part);
  assert.deepEqual(parts.filter((p) => p.type.startsWith("text")), [
    { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: json }, { type: "text-end", id: "t" },
  ]);
  assert.deepEqual(parts.map((p) => p.type), ["stream-start", "text-start", "text-delta", "text-end", "finish"]);
});

test("structuredStreams \"buffer\": an error part after text is retried (nothing had reached the caller); a tool call passes as sent; bad values are refused", async () => {
  const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
  const model = scriptedStreams([
    streamOf([...textParts('{"city": "Pa').slice(0, -1), overloaded]),
    streamOf(textParts('{"city": "Paris"}')),
  ]);
  const middleware = selfhealMiddleware({ ...FAST, structuredStreams: "buffer" });
  const result = streamText({ model: wrapLanguageModel({ model, middleware }), maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "x" });
  assert.deepEqual(await result.output, { city: "Paris" });
  assert.equal(await result.text, '{"city": "Paris"}');
  assert.equal(model.doStreamCalls.length, 2);

  const toolParts = [
    { type: "stream-start", warnings: [] },
    { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: '{"city": "Paris"}' },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage() },
  ];
  const tools = { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` }) };
  const agent = scriptedStreams([streamOf(toolParts), streamOf(textParts('{"city": "Paris"}'))]);
  const run = streamText({ model: wrapLanguageModel({ model: agent, middleware }), maxRetries: 0, tools, stopWhen: stepCountIs(3), output: Output.object({ schema: CITY }), prompt: "x" });
  assert.deepEqual(await run.output, { city: "Paris" });
  assert.deepEqual((await run.steps)[0].toolResults.map((r) => r.output), ["sunny in Paris"]);

  assert.throws(() => selfhealMiddleware({ structuredStreams: true }), /options\.structuredStreams must be "pass" or "buffer", got boolean/);
});

test("structuredStreams \"buffer\": a stream is cut at its first violation (the rest never read) and reasked with the partial reply and the issue", async () => {
  const bad = textParts('{"city": 75, "population": 2102650, "note": "' + "x".repeat(400) + '"}');
  let read = 0;
  const counted = streamOf(bad);
  const reader = counted.stream.getReader();
  const watched = { stream: new ReadableStream({ async pull(c) { const r = await reader.read(); if (r.done) c.close(); else { read += 1; c.enqueue(r.value); } }, cancel: (why) => reader.cancel(why) }) };
  const model = scriptedStreams([watched, streamOf(textParts('{"city": "Paris", "population": 2102650}'))]);
  const outcomes = [];
  const middleware = selfhealMiddleware({ ...FAST, structuredStreams: "buffer", onStep: (o) => outcomes.push(o) });
  const result = streamText({ model: wrapLanguageModel({ model, middleware }), maxRetries: 0, output: Output.object({ schema: CITY }), prompt: "Where?" });
  assert.deepEqual(await result.output, { city: "Paris", population: 2102650 });
  assert.ok(read < 10, `cut after ${read} of ${bad.length} parts`);
  assert.deepEqual(outcomes[0], { kind: "reply", stopReason: "aborted" }, "the pushed text is the reply");
  const [, assistant, correction] = model.doStreamCalls[1].prompt;
  assert.ok(assistant.content[0].text.startsWith('{"city": 75'), "the partial reply is the assistant's turn");
  assert.ok(assistant.content[0].text.length < 30);
  assert.match(correction.content[0].text, /\/city/);
});

test("structuredStreams \"buffer\" in an agent: a step whose text comes before its tool call is not cut; the tool runs", async () => {
  // Before: the text was pushed into the loop, broke the schema, and the stream was cut before
  // its tool call arrived, so the step was reasked and the tool never ran.
  const toolStep = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: '{"thought": "I will check the weather"}' },
    { type: "text-end", id: "t" },
    { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: '{"city": "Paris"}' },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage() },
  ];
  const model = scriptedStreams([streamOf(toolStep), streamOf(textParts('{"city": "Paris"}'))]);
  const tools = { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` }) };
  const middleware = selfhealMiddleware({ ...FAST, structuredStreams: "buffer" });
  const run = streamText({ model: wrapLanguageModel({ model, middleware }), maxRetries: 0, tools, stopWhen: stepCountIs(3), output: Output.object({ schema: CITY }), prompt: "x" });
  assert.deepEqual(await run.output, { city: "Paris" });
  assert.deepEqual((await run.steps)[0].toolResults.map((r) => r.output), ["sunny in Paris"]);
  assert.equal(model.doStreamCalls.length, 2);
});

test("repairText with an AI SDK jsonSchema() that has no validate: the JSON Schema checks the text and is what the repair call sends", async () => {
  // Before: without `validate` the Schema object itself was taken for the JSON Schema, so the
  // repair call sent { jsonSchema: ... } and nothing was checked.
  const { jsonSchema } = await import("ai");
  const schema = jsonSchema({ type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false });
  const { model } = scripted([textResult('{"a": "fixed"}')]);
  const repair = repairText({ model, schema, prompt: "a?" });
  assert.equal(await repair({ text: '{"zz": 1}' }), '{"a": "fixed"}');
  assert.equal(model.doGenerateCalls.length, 1, "the invalid text was refused and one repair call made");
  assert.deepEqual(model.doGenerateCalls[0].responseFormat.schema, schema.jsonSchema);
});

test("repairText: a library's schema with $defs (no draft-07 output) is closed there too, for OpenAI's strict mode", async () => {
  const node = { type: "object", properties: { name: { type: "string" }, next: { $ref: "#/$defs/node" } }, required: ["name"] };
  const linked = { "~standard": { version: 1, vendor: "test", validate: (v) => ({ value: v }), jsonSchema: { input: () => ({ $defs: { node }, $ref: "#/$defs/node" }) } } };
  const { model } = scripted([textResult('{"name": "a"}')]);
  await repairText({ model, schema: linked, prompt: "list?" })({ text: '{"name": 5}' });
  assert.equal(model.doGenerateCalls[0].responseFormat.schema.$defs.node.additionalProperties, false);
});

test("the middleware: a passed-through stream that fails mid-way counts against the breaker, not for it", async () => {
  // It recorded a success as soon as the first text part arrived: a provider that failed
  // mid-stream on every call never opened the breaker (and each call reset earlier failures).
  const breaker = new selfheal.CircuitBreaker({ failureThreshold: 2, resetTimeoutMs: 60_000 });
  const failing = new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "t" });
          controller.enqueue({ type: "text-delta", id: "t", delta: "Hel" });
          controller.enqueue({ type: "error", error: httpError(529) });
          controller.close();
        },
      }),
    }),
  });
  const model = wrapLanguageModel({ model: failing, middleware: selfhealMiddleware({ ...FAST, breaker }) });
  for (const expected of [1, 2]) {
    const result = streamText({ model, prompt: "hi", maxRetries: 0, onError: () => {} });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    assert.equal(text, "Hel");
    assert.equal(breaker.failures, expected);
  }
  assert.equal(breaker.state, "open");
  // A stream that ends well is a success.
  breaker.recordSuccess();
  const fine = new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "text-start", id: "t" });
          controller.enqueue({ type: "text-delta", id: "t", delta: "ok" });
          controller.enqueue({ type: "text-end", id: "t" });
          controller.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage: usage() });
          controller.close();
        },
      }),
    }),
  });
  breaker.recordFailure(Date.now());
  const ok = streamText({ model: wrapLanguageModel({ model: fine, middleware: selfhealMiddleware({ ...FAST, breaker }) }), prompt: "hi", maxRetries: 0 });
  assert.equal(await ok.text, "ok");
  assert.equal(breaker.failures, 0);
  breaker.free();
});

test("the middleware: an abort while the model answered sends no repair call", async () => {
  // A model that does not heed the signal answered after the abort with the wrong shape: a
  // repair call went out anyway, with the aborted signal, and the call resolved.
  const controller = new AbortController();
  let calls = 0;
  const slow = new MockLanguageModelV4({
    doGenerate: async () => {
      calls += 1;
      controller.abort();
      return textResult('{"city": 5}');
    },
  });
  const model = wrapLanguageModel({ model: slow, middleware: selfhealMiddleware(FAST) });
  await assert.rejects(
    generateText({ model, prompt: "x", maxRetries: 0, abortSignal: controller.signal, output: Output.object({ schema: CITY }) }),
    (e) => e.name === "AbortError",
  );
  assert.equal(calls, 1);
});

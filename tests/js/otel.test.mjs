// js/package/otel.mjs with the real @opentelemetry/api and the SDK's InMemorySpanExporter: one span per
// model call with the GenAI semantic-convention attributes and selfheal's own, an event per
// instruction; used by the AI SDK middleware.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { APICallError, generateText, Output, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import * as z from "zod";

import * as selfheal from "../../pkg/selfheal.js";
import { createSelfhealAi } from "../../js/package/ai.mjs";
import { isTracer, startModelCall } from "../../js/package/otel.mjs";

const { selfhealMiddleware } = createSelfhealAi(selfheal);

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("selfheal-test"), provider };
}

const overloaded = () => new APICallError({
  message: "Overloaded", url: "https://api.anthropic.com/v1/messages", requestBodyValues: {}, statusCode: 529,
  responseHeaders: { "retry-after-ms": "5" }, isRetryable: true, data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
});

test("the middleware: one span per call, GenAI attributes, selfheal.* attributes and an event per instruction", async () => {
  const { exporter, tracer } = tracing();
  const script = [overloaded(), {
    content: [{ type: "text", text: '```json\n{"city": "Paris"}\n```' }],
    finishReason: { unified: "stop", raw: "end_turn" },
    usage: { inputTokens: { total: 21 }, outputTokens: { total: 8 } },
    response: { modelId: "claude-mock-1-20260101" },
    warnings: [],
  }];
  const model = new MockLanguageModelV4({
    provider: "anthropic.messages",
    modelId: "claude-mock-1",
    doGenerate: async () => {
      const next = script.shift();
      if (next instanceof Error) throw next;
      return next;
    },
  });
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ tracer, seed: 1 }) });
  const { output } = await generateText({ model: wrapped, maxRetries: 0, output: Output.object({ schema: z.object({ city: z.string() }) }), prompt: "x" });
  assert.deepEqual(output, { city: "Paris" });

  const spans = exporter.getFinishedSpans();
  assert.equal(spans.length, 2, "one span per model call");
  const [failed, ok] = spans;
  for (const span of spans) {
    assert.equal(span.name, "chat claude-mock-1");
    assert.equal(span.kind, SpanKind.CLIENT);
    assert.equal(span.attributes["gen_ai.operation.name"], "chat");
    assert.equal(span.attributes["gen_ai.system"], "anthropic");
    assert.equal(span.attributes["gen_ai.request.model"], "claude-mock-1");
  }
  assert.equal(failed.attributes["selfheal.attempt"], 1);
  assert.equal(failed.attributes["error.type"], "overloaded");
  assert.equal(failed.attributes["selfheal.class"], "transient");
  assert.equal(failed.attributes["selfheal.cause"], "overloaded");
  assert.equal(failed.attributes["selfheal.instruction"], "wait-for-backoff");
  assert.equal(failed.status.code, SpanStatusCode.ERROR);
  const waitEvent = failed.events.find((e) => e.name === "selfheal.instruction");
  assert.deepEqual(waitEvent.attributes, {
    "selfheal.instruction": "wait-for-backoff", "selfheal.delay_ms": 5, "selfheal.attempt": 2,
    "selfheal.class": "transient", "selfheal.cause": "overloaded",
  });
  assert.ok(failed.events.some((e) => e.name === "exception"), "the provider's error recorded");

  assert.equal(ok.attributes["selfheal.attempt"], 2);
  assert.equal(ok.attributes["gen_ai.usage.input_tokens"], 21);
  assert.equal(ok.attributes["gen_ai.usage.output_tokens"], 8);
  assert.equal(ok.attributes["gen_ai.response.model"], "claude-mock-1-20260101");
  assert.equal(ok.attributes["selfheal.instruction"], "done");
  assert.deepEqual(ok.attributes["selfheal.fixes"], ["code-fence"]);
  assert.equal(ok.attributes["error.type"], undefined);
  assert.notEqual(ok.status.code, SpanStatusCode.ERROR);
  assert.deepEqual(ok.events.map((e) => [e.name, e.attributes["selfheal.source"]]), [["selfheal.instruction", "locally-repaired"]]);
});

test("a reply that fails validation: error.type is the failure, the repair prompt is the event", async () => {
  const { exporter, tracer } = tracing();
  const loop = new selfheal.RepairLoop({ prompt: { system: "s", user: "u" }, schema: { type: "object", required: ["a"] }, seed: 1 });
  try {
    const call = startModelCall(tracer, { system: "openai", model: "gpt-mock", attempt: 1 });
    call.reply({ usage: { inputTokens: 3, outputTokens: 2 } });
    call.instruction(loop.next({ kind: "reply", text: '{"b": 1}' }));
    const [span] = exporter.getFinishedSpans();
    assert.equal(span.attributes["error.type"], "schema");
    assert.equal(span.attributes["selfheal.class"], "repairable");
    assert.equal(span.attributes["selfheal.instruction"], "send-repair-prompt");
    assert.equal(span.events[0].attributes["selfheal.strategy"], "fix");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
  } finally {
    loop.free();
  }
});

test("a degrade event names the stop reason; calls after the end do nothing", () => {
  const { exporter, tracer } = tracing();
  const call = startModelCall(tracer, { model: "m" });
  call.error(Object.assign(new Error("denied"), { name: "AuthError" }));
  call.instruction({ type: "degrade", reason: "hard-fail", detail: "401", fallback: null, report: null,
    classified: { class: "hard-fail", cause: "auth", reason: "HTTP 401 (auth)", signal: "status", retryAfterMs: null }, attempts: 1, costUsd: 0 });
  call.reply({ usage: { inputTokens: 1, outputTokens: 1 } });
  call.end();
  const spans = exporter.getFinishedSpans();
  assert.equal(spans.length, 1, "ended once");
  assert.equal(spans[0].attributes["error.type"], "auth");
  assert.equal(spans[0].attributes["gen_ai.usage.input_tokens"], undefined, "nothing recorded after the end");
  assert.deepEqual(spans[0].events.find((e) => e.name === "selfheal.instruction").attributes,
    { "selfheal.instruction": "degrade", "selfheal.reason": "hard-fail", "selfheal.attempts": 1, "selfheal.class": "hard-fail", "selfheal.cause": "auth" });
});

test("a tracer that throws never breaks the call it observes; the API's no-op tracer works", () => {
  const broken = { startSpan() { throw new Error("exporter down"); } };
  const call = startModelCall(broken, { model: "m" });
  assert.equal(call.span, null);
  call.reply({});
  call.instruction({ type: "done", value: 1, text: "1", source: "first-pass", fixes: [], attempts: 1, costUsd: 0 });
  const noop = startModelCall(trace.getTracer("no-provider"), { model: "m" });
  noop.instruction({ type: "done", value: 1, text: "1", source: "first-pass", fixes: [], attempts: 1, costUsd: 0 });
  assert.ok(isTracer(trace.getTracer("x")));
  assert.equal(isTracer({}), false);
  assert.throws(() => startModelCall({}, {}), TypeError);
});

test("repairText's repair call: its span has the response model and usage", async () => {
  const { exporter, tracer } = tracing();
  const { repairText } = createSelfhealAi(selfheal);
  const model = new MockLanguageModelV4({
    provider: "anthropic.messages",
    modelId: "claude-mock-1",
    doGenerate: async () => ({
      content: [{ type: "text", text: '{"city": "Paris"}' }],
      finishReason: { unified: "stop", raw: "end_turn" },
      usage: { inputTokens: { total: 30 }, outputTokens: { total: 6 } },
      response: { modelId: "claude-mock-1-20260101" },
      warnings: [],
    }),
  });
  const repair = repairText({ model, schema: z.object({ city: z.string() }), tracer, seed: 1 });
  assert.equal(await repair({ text: '{"town": "Paris"}' }), '{"city": "Paris"}');
  const [span] = exporter.getFinishedSpans();
  assert.equal(span.attributes["gen_ai.response.model"], "claude-mock-1-20260101");
  assert.equal(span.attributes["gen_ai.usage.input_tokens"], 30);
  assert.equal(span.attributes["gen_ai.usage.output_tokens"], 6);
});

test("the middleware on a stream: the span has the usage and response model, and ends when the stream does", async () => {
  const { exporter, tracer } = tracing();
  const parts = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", modelId: "claude-mock-1-20260101" },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Bonjour" },
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage: { inputTokens: { total: 100 }, outputTokens: { total: 7 } } },
  ];
  const model = new MockLanguageModelV4({
    provider: "anthropic.messages",
    modelId: "claude-mock-1",
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    }),
  });
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ tracer, seed: 1 }) });
  const result = streamText({ model: wrapped, maxRetries: 0, prompt: "x" });
  assert.equal(await result.text, "Bonjour");
  const [span] = exporter.getFinishedSpans();
  assert.equal(span.attributes["gen_ai.usage.input_tokens"], 100);
  assert.equal(span.attributes["gen_ai.usage.output_tokens"], 7);
  assert.equal(span.attributes["gen_ai.response.model"], "claude-mock-1-20260101");
  assert.equal(span.attributes["selfheal.instruction"], "done");
});

test("the middleware with structuredStreams \"buffer\": one ended span per stream, the cut one with its estimated usage", async () => {
  const { exporter, tracer } = tracing();
  const streamOf = (text) => ({
    stream: new ReadableStream({
      start(controller) {
        controller.enqueue({ type: "stream-start", warnings: [] });
        controller.enqueue({ type: "response-metadata", modelId: "claude-mock-1-20260101" });
        controller.enqueue({ type: "text-start", id: "t" });
        for (const d of text.match(/.{1,4}/gs)) controller.enqueue({ type: "text-delta", id: "t", delta: d });
        controller.enqueue({ type: "text-end", id: "t" });
        controller.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "end_turn" }, usage: { inputTokens: { total: 100 }, outputTokens: { total: 7 } } });
        controller.close();
      },
    }),
  });
  const replies = ['{"city": 75}', '{"city": "Paris"}'];
  const model = new MockLanguageModelV4({ provider: "anthropic.messages", modelId: "claude-mock-1", doStream: async () => streamOf(replies.shift()) });
  const wrapped = wrapLanguageModel({ model, middleware: selfhealMiddleware({ tracer, seed: 1, structuredStreams: "buffer" }) });
  const result = streamText({ model: wrapped, maxRetries: 0, prompt: "Where?", output: Output.object({ schema: z.object({ city: z.string() }) }) });
  assert.deepEqual(await result.output, { city: "Paris" });
  const spans = exporter.getFinishedSpans();
  assert.deepEqual(spans.map((s) => s.attributes["selfheal.instruction"]), ["send-repair-prompt", "done"]);
  assert.deepEqual(spans.map((s) => s.attributes["gen_ai.usage.output_tokens"]), [3, 7], "the cut stream's usage is estimated");
  assert.equal(spans[1].attributes["gen_ai.response.model"], "claude-mock-1-20260101");
});

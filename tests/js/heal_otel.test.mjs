// heal({ tracer }) (SPEC section 11, issue 14 item 5): one span per model call with the GenAI
// semantic-convention attributes and selfheal.*, an event per instruction; the real
// @opentelemetry/api and the SDK's InMemorySpanExporter, the official Anthropic and OpenAI SDKs
// against the local mock LLM server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import * as z from "zod";

import { withMockLlm as withMock } from "../mock-llm/server.mjs";
import { heal, claudeCaller as claude, gptCaller as gpt } from "./heal_helpers.mjs";
import { PROMPT, CITY_SCHEMA } from "./helpers.mjs";

const FAST = { seed: 3, backoff: { baseMs: 10, jitterMs: 0 } };

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("selfheal-test") };
}

const events = (span) => span.events.filter((e) => e.name === "selfheal.instruction").map((e) => e.attributes["selfheal.instruction"]);

test("overloaded, a schema mismatch, then valid: three spans with gen_ai.* and selfheal.*, an event per instruction", async () => {
  await withMock(["overloaded", "schema-mismatch", "trailing-commas"], async (mock) => {
    const { exporter, tracer } = tracing();
    const result = await heal(claude(mock), { ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, tracer });
    assert.equal(result.type, "done");
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 3, "one span per call");
    for (const [i, span] of spans.entries()) {
      assert.equal(span.name, "chat claude-mock-1");
      assert.equal(span.kind, SpanKind.CLIENT);
      assert.equal(span.attributes["gen_ai.system"], "anthropic");
      assert.equal(span.attributes["gen_ai.request.model"], "claude-mock-1");
      assert.equal(span.attributes["selfheal.attempt"], i + 1);
    }
    const [overloaded, mismatch, ok] = spans;
    assert.equal(overloaded.attributes["error.type"], "overloaded");
    assert.equal(overloaded.attributes["selfheal.class"], "transient");
    assert.equal(overloaded.attributes["selfheal.cause"], "overloaded");
    assert.equal(overloaded.attributes["selfheal.instruction"], "wait-for-backoff");
    assert.equal(overloaded.status.code, SpanStatusCode.ERROR);
    assert.deepEqual(events(overloaded), ["wait-for-backoff"]);

    assert.equal(mismatch.attributes["error.type"], "schema");
    assert.equal(mismatch.attributes["selfheal.class"], "repairable");
    assert.equal(mismatch.attributes["selfheal.instruction"], "send-repair-prompt");
    assert.ok(mismatch.attributes["gen_ai.usage.input_tokens"] > 0, "usage from the reply");
    assert.deepEqual(events(mismatch), ["send-repair-prompt"]);

    assert.equal(ok.attributes["selfheal.instruction"], "done");
    assert.deepEqual(ok.attributes["selfheal.fixes"], ["trailing-comma"]);
    assert.ok(ok.attributes["gen_ai.usage.output_tokens"] > 0);
    assert.equal(ok.attributes["error.type"], undefined);
    assert.notEqual(ok.status.code, SpanStatusCode.ERROR);
    assert.deepEqual(events(ok), ["done"]);
  });
});

test("a Zod refinement: the first call's span has the provisional done and the reask it became", async () => {
  const range = z.object({ min: z.number(), max: z.number() }).refine((r) => r.max >= r.min, { message: "max below min", path: ["max"] });
  await withMock([{ kind: "valid", value: { min: 5, max: 1 } }, { kind: "valid", value: { min: 1, max: 5 } }], async (mock) => {
    const { exporter, tracer } = tracing();
    const result = await heal(claude(mock), { ...FAST, prompt: PROMPT, schema: range, tracer });
    assert.equal(result.type, "done");
    const [first, second] = exporter.getFinishedSpans();
    assert.deepEqual(events(first), ["done", "send-repair-prompt"]);
    assert.equal(first.attributes["selfheal.instruction"], "send-repair-prompt");
    assert.equal(first.attributes["selfheal.cause"], "rejected");
    assert.deepEqual(events(second), ["done"]);
  });
});

test("with models: each model's spans name its provider and model", async () => {
  await withMock({ anthropic: ["overloaded"], openai: ["valid"] }, async (mock) => {
    const { exporter, tracer } = tracing();
    const result = await heal({ ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, budget: { transient: 0 }, tracer, models: [claude(mock), gpt(mock)] });
    assert.equal(result.model, "gpt-mock-1");
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(spans.map((s) => [s.attributes["gen_ai.system"], s.attributes["gen_ai.request.model"], s.attributes["selfheal.instruction"]]), [
      ["anthropic", "claude-mock-1", "degrade"], ["openai", "gpt-mock-1", "done"],
    ]);
    const degrade = spans[0].events.find((e) => e.name === "selfheal.instruction");
    assert.equal(degrade.attributes["selfheal.reason"], "transient-exhausted");
  });
});

test("an abort mid-call ends the call's span with the aborted degrade; a no-op tracer and a wrong one", async () => {
  const { exporter, tracer } = tracing();
  const controller = new AbortController();
  const hanging = () => new Promise(() => {});
  setTimeout(() => controller.abort("user left"), 20);
  const result = await heal(hanging, { prompt: PROMPT, tracer, signal: controller.signal });
  assert.equal(result.reason, "aborted");
  const [span] = exporter.getFinishedSpans();
  assert.equal(span.name, "chat");
  assert.equal(span.attributes["selfheal.instruction"], "degrade");

  const noop = trace.getTracer("nothing-registered");
  const ok = await heal(async () => ({ text: '{"city": "Paris"}' }), { prompt: PROMPT, schema: CITY_SCHEMA, tracer: noop });
  assert.equal(ok.type, "done");
  await assert.rejects(heal(hanging, { prompt: PROMPT, tracer: {} }), /options\.tracer must be an @opentelemetry\/api Tracer/);
});

test("a call whose handling throws (a reply the loop refuses, a check that throws) still ends its span", async () => {
  const { exporter, tracer } = tracing();
  await assert.rejects(heal(async () => 42, { prompt: PROMPT, tracer }), /outcome\.text must be a string/);
  const boom = new Error("check failed");
  await assert.rejects(heal(async () => ({ text: '{"city": "Paris"}' }), {
    prompt: PROMPT, schema: CITY_SCHEMA, tracer, check: () => { throw boom; },
  }), (e) => e === boom);
  const spans = exporter.getFinishedSpans();
  assert.equal(spans.length, 2, "both calls' spans ended (exported)");
  assert.ok(spans.every((s) => s.name === "chat"));
});

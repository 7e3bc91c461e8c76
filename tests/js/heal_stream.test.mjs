// heal with streaming (SPEC section 8, issue 13 item 4): the official @anthropic-ai/sdk and openai
// clients against the local mock server. A stream cut mid-object is never accepted as complete;
// a streamed reply whose third field breaks the schema is cut at once (the server sees the client
// go before the rest is sent), and exactly one fix prompt follows and heals.
import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

import { heal, RepairLoop } from "../../pkg/index.cjs";
import { anthropicCaller, createHeal, openaiCaller, StreamViolation } from "../../pkg/heal.mjs";
import { startMockLlm } from "../mock-llm/server.mjs";

const PERSON = {
  type: "object",
  additionalProperties: false,
  required: ["name", "age", "email"],
  properties: { name: { type: "string" }, age: { type: "integer" }, email: { type: "string" } },
};
const GOOD = { name: "Ada", age: 36, email: "ada@example.org" };
// The third field is a number where the schema wants a string; a long tail follows it.
const BROKEN = `{"name": "Ada", "age": 36, "email": 42, "note": "${"all of this is never sent. ".repeat(40)}"}`;
const BASE = { prompt: { system: "Reply with JSON only.", user: "Who wrote the first program?" }, schema: PERSON, seed: 3 };

const callers = {
  anthropic: (mock) => anthropicCaller(new Anthropic({ baseURL: mock.anthropicBaseURL, apiKey: "test", maxRetries: 0, timeout: 5000 }), { model: "claude-mock-1", stream: true }),
  openai: (mock) => openaiCaller(new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "test", maxRetries: 0, timeout: 5000 }), { model: "gpt-mock-1", stream: true }),
};

async function withMock(script, fn) {
  const mock = await startMockLlm({ script, idleTimeoutMs: 10_000 });
  try {
    return await fn(mock);
  } finally {
    await mock.close();
  }
}

const until = async (cond, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return cond();
};

for (const [api, caller] of Object.entries(callers)) {
  test(`${api} SDK stream cut mid-object: never accepted as complete; one reask heals`, async () => {
    const cut = '{"name": "Ada", "age": 36, "email": "ada@exa';
    await withMock([{ kind: "stream-cut", text: cut }, { kind: "valid", value: GOOD }], async (mock) => {
      const steps = [];
      const partials = [];
      const result = await heal(caller(mock), {
        ...BASE,
        onPartial: (u) => steps.length === 0 && partials.push(structuredClone(u.value)),
        onStep: (o, s) => steps.push([o.kind, o.stopReason ?? null, s.type, s.strategy ?? null, s.classified?.cause ?? null]),
      });
      assert.deepEqual(steps[0], ["reply", "incomplete", "send-repair-prompt", "reask", "truncated"]);
      assert.ok(partials.length >= 2, "the partial value grew as deltas arrived");
      assert.deepEqual(partials.at(-1), { name: "Ada", age: 36, email: "ada@exa" }, "the prefix, never completed");
      assert.equal(result.type, "done");
      assert.equal(result.source, "repaired");
      assert.deepEqual(result.value, GOOD);
      assert.equal(mock.requests.length, 2);
    });
  });

  test(`${api} SDK stream whose third field breaks the schema: cut before the rest is sent, one fix prompt heals`, async () => {
    await withMock([{ kind: "text", text: BROKEN, chunkDelayMs: 15 }, { kind: "valid", value: GOOD }], async (mock) => {
      const steps = [];
      let violation = null;
      const result = await heal(caller(mock), {
        ...BASE,
        onPartial: (u) => (violation ??= u.violation),
        onStep: (o, s) => steps.push([o, s]),
      });
      assert.equal(violation?.path, "/email");
      // The loop saw the pushed text as a reply the host cut.
      const [first, fix] = steps[0];
      assert.deepEqual([first.kind, first.stopReason, first.text], ["reply", "aborted", undefined]);
      assert.equal(fix.type, "send-repair-prompt");
      assert.equal(fix.strategy, "fix");
      assert.equal(fix.classified.signal, "stream");
      assert.equal(fix.classified.cause, "schema");
      assert.match(fix.prompt.user, /"email": 42/, "the fix prompt quotes the partial output");
      assert.match(fix.prompt.user, /\/email/, "and names the issue");
      assert.doesNotMatch(fix.prompt.user, /never sent/, "what was not received is not quoted");
      // The server saw the client go before the rest of the reply was sent.
      const total = Math.ceil(Array.from(BROKEN).length / 16);
      assert.ok(await until(() => mock.requests[0].disconnected === true), "the request was aborted");
      assert.ok(mock.requests[0].chunksSent < total / 2, `sent ${mock.requests[0].chunksSent} of ${total} deltas`);
      // Exactly one fix prompt, and it healed.
      assert.equal(mock.requests.length, 2);
      assert.match(mock.requests[1].userText, /"email": 42/);
      assert.equal(steps.length, 2);
      assert.equal(result.type, "done");
      assert.equal(result.source, "repaired");
      assert.deepEqual(result.value, GOOD);
    });
  });
}

test("a stream cut at a violation still costs what the provider billed: the adapters answer the cut with the usage so far", async () => {
  // Before: the cut call's outcome had no cost, so costUsd and the cost ceiling left it out.
  const pricing = { inputUsdPerMTok: 1e6, outputUsdPerMTok: 1e6 }; // one dollar a token
  const promptTokens = Math.ceil([...BASE.prompt.system, ...BASE.prompt.user].length / 4);
  for (const [api, caller, inputTokens] of [
    // Anthropic says the prompt's tokens in message_start; OpenAI's usage chunk comes last, so
    // the adapter estimates (one token per 4 characters).
    ["anthropic", (mock) => anthropicCaller(new Anthropic({ baseURL: mock.anthropicBaseURL, apiKey: "test", maxRetries: 0 }), { model: "claude-mock-1", stream: true, pricing }), 500],
    ["openai", (mock) => openaiCaller(new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "test", maxRetries: 0 }), { model: "gpt-mock-1", stream: true, pricing }), promptTokens],
  ]) {
    await withMock([{ kind: "text", text: BROKEN, chunkDelayMs: 15, usage: { input: 500 } }, { kind: "valid", value: GOOD, usage: { input: 7, output: 3 } }], async (mock) => {
      const outcomes = [];
      const result = await heal(caller(mock), { ...BASE, onStep: (o) => outcomes.push(o) });
      assert.equal(result.type, "done", api);
      const [cut] = outcomes;
      assert.equal(cut.stopReason, "aborted", api);
      assert.equal(cut.usage.inputTokens, inputTokens, api);
      assert.ok(cut.usage.outputTokens >= 1, `${api}: the tokens streamed before the cut`);
      assert.equal(cut.costUsd, cut.usage.inputTokens + cut.usage.outputTokens, api);
      assert.equal(result.costUsd, cut.costUsd + 10, `${api}: the run's cost counts both calls`);
    });
  }
});

test("a callModel of one's own: context.push, context.streamSignal aborts with a StreamViolation", async () => {
  let reason;
  const result = await createHeal(RepairLoop)(async (prompt, { push, streamSignal: signal, attempt }) => {
    if (attempt === 1) {
      for (const chunk of ['{"name": ', "7, ", '"age": 1}']) {
        push(chunk);
        if (signal.aborted) {
          reason = signal.reason;
          throw reason;
        }
      }
      return { stopReason: "end_turn" };
    }
    push(JSON.stringify(GOOD));
    return { stopReason: "end_turn" }; // text left out: the pushed text is the reply
  }, BASE);
  assert.ok(reason instanceof StreamViolation);
  assert.equal(reason.name, "StreamViolation");
  assert.equal(reason.issue.path, "/name");
  assert.equal(result.type, "done");
  assert.equal(result.source, "repaired");
  assert.deepEqual(result.value, GOOD);
});

test("a streamed reply with no text delta at all is the empty reply, not a TypeError", async () => {
  // Before: nothing pushed and no text, so the loop was fed text undefined and heal rejected.
  const steps = [];
  const result = await heal(async () => ({ stopReason: "end_turn" }), { ...BASE, onStep: (o, s) => steps.push([o.text, s.type]) });
  assert.equal(result.type, "degrade");
  assert.equal(result.reason, "unrepairable");
  assert.deepEqual(result.report.kinds, ["empty"]);
  assert.deepEqual(steps, [["", "degrade"]]);
  // A reply that is not an object is still named as the host's mistake.
  await assert.rejects(heal(async () => 42, BASE), /outcome\.text must be a string/);
});

test("heal streaming past maxReplyChars: the call is cut and the reply degrades too large", async () => {
  const result = await heal(async (prompt, { push, streamSignal: signal }) => {
    push('{"name": "');
    try {
      push("x".repeat(100));
    } catch (e) {
      assert.ok(e instanceof RangeError);
      assert.ok(signal.aborted);
      throw e;
    }
    return { stopReason: "end_turn" };
  }, { ...BASE, maxReplyChars: 50 });
  assert.equal(result.type, "degrade");
  assert.equal(result.reason, "unrepairable");
  assert.equal(result.classified.cause, "too-large");
});

test("a push through a call's context after that call settled is refused, never the next call's reply", async () => {
  // Call 1's source kept emitting after the host returned: its late chunk became the start of
  // call 2's reply (done with call 1's {"a": 99}, fixes ["surrounding-prose"]).
  const schema = { type: "object", required: ["a"], properties: { a: { type: "number" } }, additionalProperties: false };
  let late;
  const partials = [];
  const result = await heal(async (prompt, ctx) => {
    if (ctx.attempt === 1) {
      ctx.push('{"a": 1');
      late = new Promise((resolve) => setTimeout(() => {
        try {
          ctx.push('{"a": 99}');
          resolve("accepted");
        } catch (e) {
          resolve(e.message);
        }
      }, 5));
      return { stopReason: "incomplete" };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    ctx.push('{"a": 7}');
    return { stopReason: "stop" };
  }, { prompt: { system: "s", user: "u" }, schema, onPartial: (u) => partials.push(JSON.stringify(u.value)) });
  assert.equal(await late, "selfheal: push() after its call ended: the chunk belongs to no reply");
  assert.deepEqual([result.type, result.value, result.fixes, result.attempts], ["done", { a: 7 }, [], 2]);
  assert.equal(partials.includes('{"a":99}'), false);
});

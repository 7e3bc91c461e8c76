// The official SDKs, for real: @anthropic-ai/sdk and openai talk HTTP to the
// scripted mock server (tests/mock-llm/server.mjs), and a host loop written
// the way a user would write it feeds what they return — or the error object
// they actually throw, as is — into RepairLoop and acts on each instruction
// with real timers. Nothing here builds an error by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

import { RepairLoop, classify } from "../../pkg/selfheal.js";
import { startMockLlm } from "../mock-llm/server.mjs";
import { PROMPT, CITY_SCHEMA } from "./helpers.mjs";

const VALUE = { city: "Paris", population: 2102650 };
const BACKOFF = { baseMs: 10, jitterMs: 5 };

// ---------- the host ----------

/** Wait at least `ms` (re-arms if a timer fires a hair early). */
async function sleepAtLeast(ms) {
  const until = performance.now() + ms;
  for (let left = ms; left > 0; left = until - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
  }
}

const clients = {
  anthropic(mock, { timeout = 2000 } = {}) {
    const client = new Anthropic({ baseURL: mock.anthropicBaseURL, apiKey: "test", maxRetries: 0, timeout });
    return {
      client,
      async call(prompt, { stream = false } = {}) {
        const body = {
          model: "claude-mock-1",
          max_tokens: 256,
          system: prompt.system,
          messages: [{ role: "user", content: prompt.user }],
        };
        if (!stream) {
          const msg = await client.messages.create(body);
          return {
            text: msg.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
            stopReason: msg.stop_reason,
            usage: { inputTokens: msg.usage.input_tokens, outputTokens: msg.usage.output_tokens },
          };
        }
        if (stream === "helper") {
          // The SDK's MessageStream helper.
          const msg = await client.messages.stream(body).finalMessage();
          return {
            text: msg.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
            stopReason: msg.stop_reason,
            usage: { inputTokens: msg.usage.input_tokens, outputTokens: msg.usage.output_tokens },
          };
        }
        let text = "";
        let stopReason;
        let inputTokens = 0;
        let outputTokens = 0;
        for await (const ev of await client.messages.create({ ...body, stream: true })) {
          if (ev.type === "message_start") inputTokens = ev.message.usage.input_tokens;
          if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
          if (ev.type === "message_delta") {
            stopReason = ev.delta.stop_reason;
            outputTokens = ev.usage.output_tokens;
          }
        }
        return { text, stopReason, usage: { inputTokens, outputTokens } };
      },
    };
  },
  openai(mock, { timeout = 2000 } = {}) {
    const client = new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "test", maxRetries: 0, timeout });
    return {
      client,
      async call(prompt, { stream = false } = {}) {
        const body = {
          model: "gpt-mock-1",
          messages: [
            { role: "system", content: prompt.system },
            { role: "user", content: prompt.user },
          ],
        };
        if (!stream) {
          const c = await client.chat.completions.create(body);
          return {
            text: c.choices[0].message.content ?? "",
            stopReason: c.choices[0].finish_reason,
            usage: { inputTokens: c.usage.prompt_tokens, outputTokens: c.usage.completion_tokens },
          };
        }
        let text = "";
        let stopReason;
        for await (const chunk of await client.chat.completions.create({ ...body, stream: true })) {
          const choice = chunk.choices[0];
          if (choice?.delta?.content) text += choice.delta.content;
          if (choice?.finish_reason) stopReason = choice.finish_reason;
        }
        return { text, stopReason };
      },
    };
  },
};

/**
 * Run one RepairLoop against the mock with the given script, as a host would.
 * Returns the trace of { outcome, instruction, waitedMs } and the final instruction.
 */
async function drive(provider, script, { stream = false, timeout, loop: loopOptions = {} } = {}) {
  const mock = await startMockLlm({ script, idleTimeoutMs: 10_000 });
  const { call } = clients[provider](mock, { timeout });
  const loop = new RepairLoop({ prompt: PROMPT, schema: CITY_SCHEMA, seed: 11, backoff: BACKOFF, ...loopOptions });
  const trace = [];
  try {
    let request = PROMPT;
    for (let guard = 0; guard < 12; guard++) {
      let outcome;
      try {
        outcome = { kind: "reply", ...(await call(request, { stream })) };
      } catch (error) {
        outcome = { kind: "error", error }; // the SDK's own error object, as thrown
      }
      const instruction = loop.next(outcome);
      const entry = { outcome, instruction };
      trace.push(entry);
      switch (instruction.type) {
        case "done":
        case "degrade":
          return { trace, final: instruction, requests: mock.requests, report: loop.report() };
        case "wait-for-backoff": {
          const t0 = performance.now();
          await sleepAtLeast(instruction.delayMs);
          entry.waitedMs = performance.now() - t0;
          request = instruction.prompt;
          break;
        }
        case "send-repair-prompt":
          request = instruction.prompt;
          break;
      }
    }
    throw new Error("the loop did not end");
  } finally {
    loop.free();
    await mock.close();
  }
}

function assertTransient(run, cause, providerLabel) {
  const [first, second] = run.trace;
  assert.equal(first.outcome.kind, "error", `${providerLabel}: expected the SDK to throw`);
  const c = first.instruction.classified ?? first.instruction;
  assert.equal(first.instruction.type, "wait-for-backoff",
    `${providerLabel}: ${errorChain(first.outcome.error)} -> ${JSON.stringify(c)}`);
  assert.deepEqual([c.class, c.cause], ["transient", cause], JSON.stringify(c));
  assert.ok(first.waitedMs >= first.instruction.delayMs, `waited ${first.waitedMs} < ${first.instruction.delayMs}`);
  assert.deepEqual(first.instruction.prompt, PROMPT, "a transient failure resends the same prompt");
  assert.equal(first.instruction.attempt, 2);
  // Then the valid reply: done, first-pass (a resend is not a repair).
  assert.equal(second.instruction.type, "done");
  assert.equal(second.instruction.source, "first-pass");
  assert.deepEqual(second.instruction.value, VALUE);
  assert.equal(second.instruction.attempts, 2);
  // The SDK made no retry of its own: one HTTP request per loop call.
  assert.equal(run.requests.length, 2);
  assert.equal(run.requests[1].userText, PROMPT.user);
  return c;
}

/** name: message <- cause name: message (code) ... */
function errorChain(e) {
  const parts = [];
  for (let x = e, i = 0; x && i < 6; x = x.cause, i++) {
    parts.push(`${x.constructor?.name}{name:${JSON.stringify(x.name)}, message:${JSON.stringify(x.message)}` +
      `${x.code !== undefined ? `, code:${JSON.stringify(x.code)}` : ""}${x.status !== undefined ? `, status:${x.status}` : ""}}`);
  }
  return parts.join(" <- cause ");
}

const PROVIDERS = ["anthropic", "openai"];

// The SDKs' connection errors (APIConnectionError, APIConnectionTimeoutError) carry no
// status, and the network code sits two causes deep; classify recognises them by class
// name and reads codes down the cause chain (docs/DESIGN.md).

// ---------- transient faults ----------

for (const provider of PROVIDERS) {
  test(`${provider}: 429 with retry-after-ms -> transient/rate-limited, waits the header's delay`, async () => {
    const run = await drive(provider, [{ kind: "rate-limited", retryAfterMs: 20 }, "valid"]);
    const c = assertTransient(run, "rate-limited", provider);
    assert.equal(c.retryAfterMs, 20);
    assert.equal(run.trace[0].instruction.delayMs, 20, "retry-after-ms replaces the computed backoff");
    assert.ok(run.trace[0].waitedMs >= 20);
    assert.equal(run.trace[0].outcome.error.status, 429);
    assert.ok(run.requests[1].at - run.requests[0].at >= 20, "the server saw the resend after the wait");
    if (provider === "anthropic") assert.equal(run.trace[0].outcome.error.constructor.name, "RateLimitError");
  });

  test(`${provider}: 429 with fractional retry-after seconds -> retryAfterMs from the header`, async () => {
    const run = await drive(provider, [{ kind: "rate-limited", retryAfter: "0.03" }, "valid"]);
    const c = assertTransient(run, "rate-limited", provider);
    assert.equal(c.retryAfterMs, 30);
    assert.equal(run.trace[0].instruction.delayMs, 30);
    assert.ok(run.trace[0].waitedMs >= 30);
  });

  test(`${provider}: overloaded -> transient/overloaded with the computed backoff`, async () => {
    const run = await drive(provider, ["overloaded", "valid"]);
    const c = assertTransient(run, "overloaded", provider);
    assert.equal(run.trace[0].outcome.error.status, provider === "anthropic" ? 529 : 503);
    assert.equal(c.retryAfterMs, null);
    const d = run.trace[0].instruction.delayMs;
    assert.ok(d >= 10 && d < 15, `backoff ${d} in [baseMs, baseMs + jitterMs)`);
  });

  test(`${provider}: 500 -> transient/server-error`, async () => {
    const run = await drive(provider, ["server-error", "valid"]);
    assertTransient(run, "server-error", provider);
    assert.equal(run.trace[0].outcome.error.status, 500);
  });

  test(`${provider}: dropped connection -> transient/network`, async () => {
    const run = await drive(provider, ["drop", "valid"]);
    const err = run.trace[0].outcome.error;
    // What the SDK really throws: APIConnectionError("Connection error.") <- TypeError("fetch failed") <- SocketError(UND_ERR_SOCKET)
    assert.equal(err.constructor.name, "APIConnectionError", errorChain(err));
    assert.equal(err.cause?.message, "fetch failed", errorChain(err));
    assertTransient(run, "network", provider);
  });

  test(`${provider}: client timeout (server never answers) -> transient/timeout`, async () => {
    const run = await drive(provider, ["hang", "valid"], { timeout: 150 });
    const err = run.trace[0].outcome.error;
    assert.equal(err.constructor.name, "APIConnectionTimeoutError", errorChain(err));
    assertTransient(run, "timeout", provider);
  });
}

test("anthropic stream: mid-stream overloaded_error event -> transient/overloaded, then a streamed reply", async () => {
  const run = await drive("anthropic", ["stream-overloaded", "valid"], { stream: true });
  const err = run.trace[0].outcome.error;
  assert.equal(err.status, undefined, "a stream error has no HTTP status (the response was 200)");
  assert.equal(err.error?.error?.type, "overloaded_error");
  const c = assertTransient(run, "overloaded", "anthropic stream");
  assert.equal(c.signal, "error-type");
  assert.equal(run.requests[0].stream, true);
  assert.equal(run.requests[1].stream, true);
});

test("anthropic MessageStream helper: mid-stream overloaded_error -> transient/overloaded", async () => {
  const run = await drive("anthropic", ["stream-overloaded", "valid"], { stream: "helper" });
  assertTransient(run, "overloaded", "anthropic MessageStream");
});

test("anthropic stream: a streamed reply cut at max_tokens -> reask, no local repair", async () => {
  const run = await drive("anthropic", ["truncated", "valid"], { stream: true });
  assert.equal(run.trace[0].outcome.stopReason, "max_tokens");
  const step = run.trace[0].instruction;
  assert.equal(step.type, "send-repair-prompt");
  assert.equal(step.strategy, "reask");
  assert.equal(step.classified.cause, "truncated");
  assert.equal(run.final.source, "repaired");
});

test("openai stream: a mid-stream error chunk {error:{type:'server_error'}} -> transient/server-error", async () => {
  const run = await drive("openai", ["stream-overloaded", "valid"], { stream: true });
  const err = run.trace[0].outcome.error;
  assert.equal(err.error?.type, "server_error", errorChain(err));
  assertTransient(run, "server-error", "openai stream");
});

// ---------- replies ----------

for (const provider of PROVIDERS) {
  test(`${provider}: valid reply -> done first-pass`, async () => {
    const run = await drive(provider, ["valid"]);
    assert.equal(run.trace.length, 1);
    assert.equal(run.final.type, "done");
    assert.equal(run.final.source, "first-pass");
    assert.deepEqual(run.final.fixes, []);
    assert.deepEqual(run.final.value, VALUE);
    assert.equal(run.final.attempts, 1);
    assert.equal(run.trace[0].outcome.stopReason, provider === "anthropic" ? "end_turn" : "stop");
    assert.ok(run.trace[0].outcome.usage.inputTokens > 0);
    const req = run.requests[0];
    assert.equal(req.method, "POST");
    assert.equal(req.path, provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions");
    assert.equal(req.userText, PROMPT.user);
    assert.equal(req.systemText, PROMPT.system);
    if (provider === "anthropic") {
      // The SDK sends the key as x-api-key or (newer versions) as a bearer token.
      assert.ok(req.headers["x-api-key"] === "test" || req.headers.authorization === "Bearer test", JSON.stringify(req.headers));
      assert.ok(req.headers["anthropic-version"]);
    } else {
      assert.equal(req.headers.authorization, "Bearer test");
    }
    assert.equal(req.headers["x-stainless-retry-count"], "0");
  });

  test(`${provider}: fenced JSON -> done locally-repaired ["code-fence"]`, async () => {
    const run = await drive(provider, ["fenced-json"]);
    assert.ok(run.trace[0].outcome.text.startsWith("```json\n"));
    assert.equal(run.final.type, "done");
    assert.equal(run.final.source, "locally-repaired");
    assert.deepEqual(run.final.fixes, ["code-fence"]);
    assert.deepEqual(run.final.value, VALUE);
    assert.equal(run.requests.length, 1, "no second call");
  });

  test(`${provider}: trailing commas -> done locally-repaired ["trailing-comma"]`, async () => {
    const run = await drive(provider, ["trailing-commas"]);
    assert.match(run.trace[0].outcome.text, /,\n\}/);
    assert.equal(run.final.type, "done");
    assert.equal(run.final.source, "locally-repaired");
    assert.deepEqual(run.final.fixes, ["trailing-comma"]);
    assert.deepEqual(run.final.value, VALUE);
    assert.equal(run.requests.length, 1);
  });

  test(`${provider}: schema mismatch -> fix prompt actually sent, then done repaired`, async () => {
    const run = await drive(provider, ["schema-mismatch", "valid"]);
    const [first, second] = run.trace;
    assert.equal(first.instruction.type, "send-repair-prompt");
    assert.equal(first.instruction.strategy, "fix");
    assert.equal(first.instruction.attempt, 2);
    assert.deepEqual([first.instruction.classified.class, first.instruction.classified.cause], ["repairable", "schema"]);
    assert.equal(second.instruction.type, "done");
    assert.equal(second.instruction.source, "repaired");
    assert.deepEqual(second.instruction.value, VALUE);
    assert.equal(second.instruction.attempts, 2);
    // The server received the repair prompt, word for word.
    assert.equal(run.requests.length, 2);
    const sent = run.requests[1];
    assert.equal(sent.userText, first.instruction.prompt.user);
    assert.equal(sent.systemText, first.instruction.prompt.system);
    assert.ok(sent.userText.includes("<broken_output>"));
    assert.ok(sent.userText.includes(first.outcome.text), "the broken reply is quoted");
    assert.ok(sent.userText.includes("/city"), "the issue path is named");
    assert.equal(run.report.repaired, 1);
  });

  test(`${provider}: cut off (${provider === "anthropic" ? "max_tokens" : "length"}) -> reask, no local repair`, async () => {
    const run = await drive(provider, ["truncated", "valid"]);
    const [first, second] = run.trace;
    assert.equal(first.outcome.stopReason, provider === "anthropic" ? "max_tokens" : "length");
    assert.equal(first.instruction.type, "send-repair-prompt");
    assert.equal(first.instruction.strategy, "reask");
    assert.deepEqual([first.instruction.classified.class, first.instruction.classified.cause], ["repairable", "truncated"]);
    assert.ok(first.instruction.prompt.user.startsWith(PROMPT.user), "reask starts with the previous prompt");
    assert.equal(run.requests[1].userText, first.instruction.prompt.user);
    assert.equal(second.instruction.type, "done");
    assert.equal(second.instruction.source, "repaired");
    assert.deepEqual(second.instruction.fixes, [], "the cut-off reply was not closed locally");
  });

  test(`${provider}: 401 -> degrade hard-fail at once`, async () => {
    const run = await drive(provider, ["unauthorized", "valid"], {
      loop: { fallback: { mode: "human", queue: "ops" } },
    });
    assert.equal(run.trace.length, 1);
    const err = run.trace[0].outcome.error;
    assert.equal(err.status, 401);
    assert.equal(err.constructor.name, "AuthenticationError");
    assert.equal(run.final.type, "degrade");
    assert.equal(run.final.reason, "hard-fail");
    assert.deepEqual([run.final.classified.class, run.final.classified.cause], ["hard-fail", "auth"]);
    assert.deepEqual(run.final.fallback, { mode: "human", queue: "ops" });
    assert.equal(run.requests.length, 1, "never resent");
  });
}

// ---------- budgets with real errors ----------

test("anthropic: overloaded past the transient budget -> degrade transient-exhausted", async () => {
  const run = await drive("anthropic", ["overloaded", "overloaded", "overloaded", "valid"], {
    loop: { budget: { transient: 2 } },
  });
  assert.equal(run.final.type, "degrade");
  assert.equal(run.final.reason, "transient-exhausted");
  assert.equal(run.final.attempts, 3);
  assert.equal(run.requests.length, 3);
  // Exponential backoff with additive jitter: ~10 ms then ~20 ms.
  const [d1, d2] = run.trace.slice(0, 2).map((e) => e.instruction.delayMs);
  assert.ok(d1 >= 10 && d1 < 15 && d2 >= 20 && d2 < 25, `${d1}, ${d2}`);
});

test("anthropic: 429 retry-after above maxRetryAfterMs -> degrade retry-after-too-long without waiting", async () => {
  const t0 = performance.now();
  const run = await drive("anthropic", [{ kind: "rate-limited", retryAfter: "120" }, "valid"]);
  assert.equal(run.final.reason, "retry-after-too-long");
  assert.equal(run.final.classified.retryAfterMs, 120_000);
  assert.ok(performance.now() - t0 < 2000);
});

test("classify reads the real SDK errors directly (status, headers, body)", async () => {
  const mock = await startMockLlm({
    script: { anthropic: [{ kind: "rate-limited", retryAfterMs: 20 }], openai: [{ kind: "rate-limited", retryAfterMs: 20 }] },
    idleTimeoutMs: 5000,
  });
  try {
    const a = clients.anthropic(mock);
    const o = clients.openai(mock);
    const ea = await a.call(PROMPT).then(() => null, (e) => e);
    const eo = await o.call(PROMPT).then(() => null, (e) => e);
    assert.ok(ea instanceof Anthropic.RateLimitError);
    assert.ok(eo instanceof OpenAI.RateLimitError);
    assert.ok(ea.headers instanceof Headers);
    const ca = classify(ea);
    const co = classify(eo);
    assert.deepEqual([ca.class, ca.cause, ca.signal, ca.retryAfterMs], ["transient", "rate-limited", "x-should-retry", 20]);
    assert.deepEqual([co.class, co.cause, co.signal, co.retryAfterMs], ["transient", "rate-limited", "status", 20]);
  } finally {
    await mock.close();
  }
});

// selfheal/heal (js/package/heal.mts, built to pkg/heal.mjs): the ready-made host loop (real timers, AbortSignal, check,
// onStep), driven against the mock LLM server with the official SDKs and with
// plain fetch.
import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

import { RepairLoop, CircuitBreaker } from "../../pkg/selfheal.js";
import { createHeal, heal as healWith, anthropicCaller, openaiCaller } from "../../pkg/heal.mjs";
import { startMockLlm, withMockLlm } from "../mock-llm/server.mjs";
import { PROMPT, CITY_SCHEMA } from "./helpers.mjs";

const heal = createHeal(RepairLoop);
const VALUE = { city: "Paris", population: 2102650 };
const BASE = { prompt: PROMPT, schema: CITY_SCHEMA, seed: 3, backoff: { baseMs: 10, jitterMs: 5 } };

const withMock = (script, fn) => withMockLlm(script, fn);

const anthropicClient = (mock, timeout = 2000) =>
  new Anthropic({ baseURL: mock.anthropicBaseURL, apiKey: "test", maxRetries: 0, timeout });
const openaiClient = (mock, timeout = 2000) =>
  new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "test", maxRetries: 0, timeout });

/** A callModel on plain fetch: HTTP errors are thrown with status, headers and the body. */
function fetchCaller(mock) {
  return async (prompt, { signal }) => {
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "test", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-mock-1", max_tokens: 256, system: prompt.system, messages: [{ role: "user", content: prompt.user }] }),
      signal,
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      throw Object.assign(new Error(body?.error?.message ?? `HTTP ${res.status}`), { status: res.status, headers: res.headers, error: body });
    }
    return {
      text: body.content.map((b) => b.text ?? "").join(""),
      stopReason: body.stop_reason,
      usage: { inputTokens: body.usage.input_tokens, outputTokens: body.usage.output_tokens },
    };
  };
}

/** Wrap a callModel to record the context heal passes it. */
function spy(callModel) {
  const calls = [];
  const fn = async (prompt, ctx) => {
    calls.push({ prompt, ...ctx });
    return callModel(prompt, ctx);
  };
  fn.calls = calls;
  return fn;
}

// ---------- with the SDKs ----------

test("anthropic SDK: overloaded, then a schema mismatch, then valid -> done repaired", async () => {
  await withMock(["overloaded", "schema-mismatch", "valid"], async (mock) => {
    const steps = [];
    const call = spy(anthropicCaller(anthropicClient(mock), { model: "claude-mock-1", max_tokens: 256 }));
    const result = await heal(call, { ...BASE, onStep: (outcome, step) => steps.push([outcome.kind, step.type]) });
    assert.equal(result.type, "done");
    assert.equal(result.source, "repaired");
    assert.deepEqual(result.value, VALUE);
    assert.equal(result.attempts, 3);
    assert.deepEqual(steps, [["error", "wait-for-backoff"], ["reply", "send-repair-prompt"], ["reply", "done"]]);
    assert.deepEqual(call.calls.map((c) => c.attempt), [1, 2, 3]);
    assert.equal(call.calls[0].instruction, null);
    assert.equal(call.calls[2].instruction.type, "send-repair-prompt");
    // The fix prompt went over the wire.
    assert.equal(mock.requests[2].userText, call.calls[2].prompt.user);
    assert.ok(mock.requests[2].userText.includes("<broken_output>"));
    assert.equal(mock.requests[2].systemText, call.calls[2].prompt.system);
  });
});

test("anthropic SDK stream: mid-stream overloaded_error, then a streamed reply -> done", async () => {
  await withMock(["stream-overloaded", "fenced-json"], async (mock) => {
    const call = anthropicCaller(anthropicClient(mock), { model: "claude-mock-1", stream: true });
    const result = await heal(call, BASE);
    assert.equal(result.type, "done");
    assert.equal(result.source, "locally-repaired");
    assert.deepEqual(result.fixes, ["code-fence"]);
    assert.deepEqual(mock.requests.map((r) => r.stream), [true, true]);
  });
});

test("openai SDK: 429 with retry-after-ms is waited for real, then fenced JSON -> locally-repaired", async () => {
  await withMock([{ kind: "rate-limited", retryAfterMs: 25 }, "fenced-json"], async (mock) => {
    let waited = null;
    let t0 = 0;
    const result = await heal(openaiCaller(openaiClient(mock), { model: "gpt-mock-1" }), {
      ...BASE,
      onStep: (_, step) => {
        if (step.type === "wait-for-backoff") {
          assert.equal(step.delayMs, 25);
          assert.equal(step.classified.cause, "rate-limited");
          t0 = performance.now();
        } else if (t0 && waited === null) waited = performance.now() - t0;
      },
    });
    assert.equal(result.type, "done");
    assert.equal(result.source, "locally-repaired");
    assert.ok(waited >= 25, `waited ${waited}`);
    assert.ok(mock.requests[1].at - mock.requests[0].at >= 25);
  });
});

test("openai SDK: cut off at length -> reask, then valid -> repaired", async () => {
  await withMock(["truncated", "valid"], async (mock) => {
    const result = await heal(openaiCaller(openaiClient(mock), { model: "gpt-mock-1" }), BASE);
    assert.equal(result.type, "done");
    assert.equal(result.source, "repaired");
    assert.ok(mock.requests[1].userText.startsWith(PROMPT.user));
    assert.ok(mock.requests[1].userText.length > PROMPT.user.length);
  });
});

test("a refusal is hard-fail content-filter, never resent: OpenAI's message.refusal (plain and streamed) and Anthropic's stop_reason", async () => {
  // Before: OpenAI's refusal (content null, finish_reason "stop") was an empty reply, degraded
  // unrepairable as if the model had answered nothing.
  const callers = [
    (mock) => openaiCaller(openaiClient(mock), { model: "gpt-mock-1" }),
    (mock) => openaiCaller(openaiClient(mock), { model: "gpt-mock-1", stream: true }),
    (mock) => anthropicCaller(anthropicClient(mock), { model: "claude-mock-1" }),
    (mock) => anthropicCaller(anthropicClient(mock), { model: "claude-mock-1", stream: true }),
  ];
  for (const [i, caller] of callers.entries()) {
    await withMock([{ kind: "refusal", text: "I can't help with that request." }], async (mock) => {
      const steps = [];
      const result = await heal(caller(mock), { ...BASE, onStep: (o) => steps.push(o.stopReason) });
      assert.equal(result.type, "degrade", `caller ${i}: ${JSON.stringify(result)}`);
      assert.equal(result.reason, "hard-fail");
      assert.equal(result.classified.cause, "content-filter");
      assert.deepEqual(steps, ["refusal"]);
      assert.equal(mock.requests.length, 1);
    });
  }
});

// ---------- issue 10: cut-off streams, error bodies with HTTP 200, the deadline ----------

const ITEMS_SCHEMA = { type: "object", properties: { items: { type: "array" } } };
const ITEMS = { items: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }, { id: 6 }] };
const CUT = '{"items": [{"id": 1}, {"id": 2}, {"id": 3';

test("anthropic SDK stream cut cleanly without message_stop -> incomplete -> reask, never completed locally", async () => {
  // Before: the SDK's iterator just stopped, stopReason was undefined, and local repair closed
  // the brackets: done, locally-repaired, three items where the model meant six.
  await withMock([{ kind: "stream-cut", text: CUT }, { kind: "valid", value: ITEMS }], async (mock) => {
    const steps = [];
    const call = anthropicCaller(anthropicClient(mock), { model: "claude-mock-1", stream: true });
    const result = await heal(call, { ...BASE, schema: ITEMS_SCHEMA, onStep: (o, s) => steps.push([o.stopReason ?? null, s.type, s.strategy ?? null]) });
    assert.deepEqual(steps[0], ["incomplete", "send-repair-prompt", "reask"]);
    assert.equal(result.type, "done");
    assert.equal(result.source, "repaired");
    assert.deepEqual(result.value, ITEMS);
  });
});

test("openai SDK stream: a streamed reply is read (not .choices of the Stream object) -> done", async () => {
  // Before: stream: true read `.choices` of the Stream object, got "", degraded unrepairable.
  await withMock(["valid"], async (mock) => {
    const result = await heal(openaiCaller(openaiClient(mock), { model: "gpt-mock-1", stream: true }), BASE);
    assert.equal(result.type, "done");
    assert.equal(result.source, "first-pass");
    assert.deepEqual(result.value, VALUE);
    assert.equal(mock.requests[0].stream, true);
    assert.equal(mock.requests[0].body.stream_options.include_usage, true);
  });
});

test("openai SDK stream: usage is read; cut at length -> reask; cut without finish_reason -> incomplete", async () => {
  await withMock(["truncated", { kind: "stream-cut", text: CUT }, { kind: "valid", value: ITEMS }], async (mock) => {
    const steps = [];
    const result = await heal(openaiCaller(openaiClient(mock), { model: "gpt-mock-1", stream: true, pricing: { inputUsdPerMTok: 1e6, outputUsdPerMTok: 0 } }), {
      ...BASE,
      schema: ITEMS_SCHEMA,
      budget: { repairable: 2 },
      onStep: (o, s) => steps.push([o.stopReason ?? null, s.type]),
    });
    assert.deepEqual(steps, [["length", "send-repair-prompt"], ["incomplete", "send-repair-prompt"], ["stop", "done"]]);
    assert.equal(result.type, "done");
    assert.ok(result.costUsd > 0, "usage from the include_usage chunk became cost");
  });
});

test("openai SDK: an error body sent with HTTP 200 (OpenRouter) is the 502 it says, waited out, then done", async () => {
  // Before: {"error": {"code": 502}} with HTTP 200 degraded unrepairable.
  for (const stream of [false, true]) {
    await withMock([{ kind: "error-200", code: 502 }, "valid"], async (mock) => {
      const steps = [];
      const result = await heal(openaiCaller(openaiClient(mock), { model: "gpt-mock-1", stream }), {
        ...BASE,
        onStep: (o, s) => steps.push(s.type === "wait-for-backoff" ? [s.type, s.classified.class, s.classified.cause, o.error.status] : [s.type]),
      });
      assert.deepEqual(steps, [["wait-for-backoff", "transient", "server-error", 502], ["done"]], `stream: ${stream}`);
      assert.equal(result.type, "done");
    });
  }
  // A code that is not an HTTP status is still an error, not an empty reply.
  await withMock([{ kind: "error-200", code: "model_overloaded", message: "busy" }], async (mock) => {
    const result = await heal(openaiCaller(openaiClient(mock), { model: "gpt-mock-1" }), BASE);
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "hard-fail");
    assert.equal(result.classified.reason.includes("busy"), true);
  });
});

test("the deadline aborts a call in flight: degrade deadline-exceeded at the deadline, the request cancelled", async () => {
  // Before: a 300 ms deadline returned after 1,511 ms, when the slow call ended.
  await withMock(["schema-mismatch", { kind: "valid", delayMs: 3000 }], async (mock) => {
    const call = spy(openaiCaller(openaiClient(mock, 10_000), { model: "gpt-mock-1" }));
    const steps = [];
    const t0 = performance.now();
    const result = await heal(call, { ...BASE, budget: { deadlineMs: 300 }, onStep: (o, s) => steps.push([o.kind, o.error?.name ?? null, s.type]) });
    const elapsed = performance.now() - t0;
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "deadline-exceeded");
    assert.ok(elapsed < 1500, `returned after ${elapsed} ms`);
    assert.deepEqual(steps, [["reply", null, "send-repair-prompt"], ["error", "TimeoutError", "degrade"]]);
    assert.equal(call.calls[1].signal.aborted, true, "the call's signal was aborted");
    assert.equal(call.calls[1].signal.reason.name, "TimeoutError");
  });
});

test("the deadline ends a call that ignores its signal too", async () => {
  let n = 0;
  const t0 = performance.now();
  const result = await heal(async () => {
    n += 1;
    if (n === 1) return { text: '{"city": 1}' };
    await new Promise((r) => setTimeout(r, 2000));
    return { text: JSON.stringify(VALUE) };
  }, { ...BASE, budget: { deadlineMs: 200 } });
  assert.equal(result.reason, "deadline-exceeded");
  assert.ok(performance.now() - t0 < 1500);
});

test("without a deadline, callModel gets the host's own signal", async () => {
  const ctrl = new AbortController();
  const call = spy(async () => ({ text: JSON.stringify(VALUE) }));
  await heal(call, { ...BASE, signal: ctrl.signal });
  assert.equal(call.calls[0].signal, ctrl.signal);
});

test("401 -> degrade hard-fail with the fallback, one request", async () => {
  await withMock(["unauthorized", "valid"], async (mock) => {
    const fallback = { mode: "template", templateId: "t1", text: "Sorry." };
    const result = await heal(anthropicCaller(anthropicClient(mock), { model: "m" }), { ...BASE, fallback });
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "hard-fail");
    assert.equal(result.classified.cause, "auth");
    assert.deepEqual(result.fallback, fallback);
    assert.equal(mock.requests.length, 1);
  });
});

test("pricing turns usage into cost: the cost ceiling stops the loop", async () => {
  await withMock(["schema-mismatch", "valid"], async (mock) => {
    const call = anthropicCaller(anthropicClient(mock), { model: "m", pricing: { inputUsdPerMTok: 3e6, outputUsdPerMTok: 15e6 } });
    const result = await heal(call, { ...BASE, budget: { costCeilingUsd: 1 } });
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "cost-ceiling");
    assert.ok(result.costUsd >= 1);
    assert.equal(mock.requests.length, 1);
  });
});

test("breaker: passed to the loop (an open breaker stops the resend)", async () => {
  await withMock(["server-error", "valid"], async (mock) => {
    const breaker = new CircuitBreaker({ failureThreshold: 1, resetTimeoutMs: 60_000 });
    try {
      const result = await heal(anthropicCaller(anthropicClient(mock), { model: "m" }), { ...BASE, breaker });
      assert.equal(result.type, "degrade");
      assert.equal(result.reason, "circuit-open");
      assert.equal(mock.requests.length, 1);
    } finally {
      breaker.free();
    }
  });
});

test("breaker: open before the first call, no call is made (as with models, and in selfheal/ai)", async () => {
  // Each request used to make its first call anyway, degrade only after it failed, and push the
  // breaker's last failure on: 20 requests, 20 calls to a provider known to be down.
  await withMock(["valid"], async (mock) => {
    const breaker = new CircuitBreaker({ failureThreshold: 1, resetTimeoutMs: 60_000 });
    try {
      breaker.recordFailure(Date.now());
      const fallback = { mode: "template", templateId: "t", text: "later" };
      const steps = [];
      const result = await heal(anthropicCaller(anthropicClient(mock), { model: "m" }), {
        ...BASE, breaker, fallback, onStep: (_o, step) => steps.push(step.type),
      });
      assert.deepEqual(
        [result.type, result.reason, result.attempts, result.costUsd, result.fallback],
        ["degrade", "circuit-open", 0, 0, fallback],
      );
      assert.match(result.detail, /no call was made/);
      assert.equal(mock.requests.length, 0);
      assert.deepEqual(steps, []);
      // Once it half-opens, the call goes out.
      const later = await heal(anthropicCaller(anthropicClient(mock), { model: "m" }), { ...BASE, breaker, now: () => Date.now() + 60_000 });
      assert.equal(later.type, "done");
      assert.equal(breaker.state, "closed");
    } finally {
      breaker.free();
    }
  });
});

// ---------- with plain fetch ----------

test("plain fetch: dropped connection, 500, cut-off reply, valid -> done repaired", async () => {
  await withMock(["drop", "server-error", "truncated", "valid"], async (mock) => {
    const seen = [];
    const result = await heal(fetchCaller(mock), {
      ...BASE,
      onStep: (_, step) => seen.push(step.classified ? `${step.type}:${step.classified.cause}` : step.type),
    });
    assert.deepEqual(seen, ["wait-for-backoff:network", "wait-for-backoff:server-error", "send-repair-prompt:truncated", "done"]);
    assert.equal(result.source, "repaired");
    assert.equal(result.attempts, 4);
  });
});

// ---------- check ----------

test("check: a rejection is fed back verbatim, the reask is sent, the next value is checked too", async () => {
  await withMock(["valid", { kind: "valid", value: { city: "Paris", population: 2102651 } }], async (mock) => {
    const checked = [];
    const result = await heal(fetchCaller(mock), {
      ...BASE,
      check: async (value, { signal }) => {
        assert.equal(signal, undefined);
        checked.push(value.population);
        return value.population === 2102650 ? { kind: "rejected", reason: "population must be odd (CRM rule 7)" } : null;
      },
    });
    assert.deepEqual(checked, [2102650, 2102651]);
    assert.equal(result.type, "done");
    assert.equal(result.source, "repaired");
    assert.equal(result.value.population, 2102651);
    assert.ok(mock.requests[1].userText.includes("population must be odd (CRM rule 7)"));
  });
});

test("check: invalid switches to the alternate prompt once; a second invalid degrades", async () => {
  await withMock(["valid", "valid"], async (mock) => {
    const alternatePrompt = { system: "You are a geography expert.", user: "Name the capital city of France as JSON." };
    const result = await heal(fetchCaller(mock), { ...BASE, alternatePrompt, check: () => ({ kind: "invalid", reason: "not a capital" }) });
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "semantic-invalid");
    assert.equal(mock.requests[1].userText, alternatePrompt.user);
    assert.equal(mock.requests[1].systemText, alternatePrompt.system);
  });
});

// ---------- abort ----------

test("abort during a wait: degrade aborted at once, long before the delay", async () => {
  await withMock([{ kind: "rate-limited", retryAfterMs: 5000 }, "valid"], async (mock) => {
    const ctrl = new AbortController();
    const t0 = performance.now();
    const steps = [];
    const result = await heal(anthropicCaller(anthropicClient(mock), { model: "m" }), {
      ...BASE,
      signal: ctrl.signal,
      onStep: (outcome, step) => {
        steps.push([outcome.kind, step.type]);
        if (step.type === "wait-for-backoff") setTimeout(() => ctrl.abort("user cancelled"), 30);
      },
    });
    const elapsed = performance.now() - t0;
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "aborted");
    assert.equal(result.detail, "user cancelled");
    assert.ok(elapsed < 1000, `elapsed ${elapsed} ms, the delay was 5000`);
    assert.deepEqual(steps, [["error", "wait-for-backoff"], ["aborted", "degrade"]]);
    assert.equal(mock.requests.length, 1, "nothing was resent");
  });
});

test("abort during a call: the signal reaches the SDK request, heal degrades aborted", async () => {
  for (const make of [
    (mock) => anthropicCaller(anthropicClient(mock, 5000), { model: "m" }),
    (mock) => openaiCaller(openaiClient(mock, 5000), { model: "m" }),
    (mock) => fetchCaller(mock),
  ]) {
    await withMock(["hang", "valid"], async (mock) => {
      const ctrl = new AbortController();
      const call = spy(make(mock));
      setTimeout(() => ctrl.abort(new Error("shutting down")), 40);
      const t0 = performance.now();
      const result = await heal(call, { ...BASE, signal: ctrl.signal });
      assert.ok(performance.now() - t0 < 1000, "the hanging request was cancelled");
      assert.equal(call.calls[0].signal, ctrl.signal);
      assert.equal(result.type, "degrade");
      assert.equal(result.reason, "aborted");
      assert.equal(result.detail, "shutting down");
      assert.equal(mock.requests.length, 1);
    });
  }
});

test("an already-aborted signal: no call at all", async () => {
  let called = 0;
  const result = await heal(async () => {
    called++;
    return { text: "{}" };
  }, { ...BASE, signal: AbortSignal.abort() });
  assert.equal(called, 0);
  assert.equal(result.reason, "aborted");
  assert.equal(result.attempts, 0);
  assert.equal(result.detail, "This operation was aborted");
});

test("a call that ignores the signal and resolves after the abort still ends in aborted", async () => {
  const ctrl = new AbortController();
  const result = await heal(async () => {
    ctrl.abort();
    return { text: JSON.stringify(VALUE) };
  }, { ...BASE, signal: ctrl.signal });
  assert.equal(result.reason, "aborted");
});

test("abort after done changes nothing", async () => {
  const ctrl = new AbortController();
  const result = await heal(async () => ({ text: JSON.stringify(VALUE) }), {
    ...BASE,
    signal: ctrl.signal,
    check: () => {
      ctrl.abort();
      return null;
    },
  });
  assert.equal(result.type, "done");
});

test("abort while a Standard Schema's validate or the host's check runs: degrade aborted at once, not the unchecked done", async () => {
  const pending = () => new Promise((resolve) => setTimeout(() => resolve({ kind: "rejected", reason: "late" }), 2000));
  const library = {
    "~standard": {
      version: 1, vendor: "test",
      validate: async (value) => (await pending(), { value }),
      jsonSchema: { input: () => CITY_SCHEMA },
    },
  };
  for (const [name, options] of [["validate", { schema: library }], ["check", { schema: CITY_SCHEMA, check: pending }]]) {
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new Error("user left")), 50);
    const steps = [];
    const started = Date.now();
    const result = await heal(async () => ({ text: JSON.stringify(VALUE) }), {
      ...BASE, ...options, signal: ctrl.signal, fallback: { mode: "human", queue: "q" },
      onStep: (outcome, step) => steps.push([outcome.kind, step.type]),
    });
    const elapsed = Date.now() - started;
    assert.equal(result.type, "degrade", `${name}: ${JSON.stringify(result)}`);
    assert.equal(result.reason, "aborted");
    assert.equal(result.detail, "user left");
    assert.deepEqual(result.fallback, { mode: "human", queue: "q" });
    assert.equal(result.classified.cause, "aborted");
    assert.equal(result.attempts, 1, "the run's one call");
    assert.deepEqual(steps, [["reply", "done"], ["aborted", "degrade"]]);
    assert.ok(elapsed < 1000, `${name}: answered at the abort, not when the work ended (${elapsed} ms)`);
  }
});

// ---------- the loop's lifetime and the API surface ----------

class TrackedLoop extends RepairLoop {
  static live = 0;
  static created = 0;
  constructor(...args) {
    super(...args);
    TrackedLoop.live++;
    TrackedLoop.created++;
  }
  free() {
    TrackedLoop.live--;
    super.free();
  }
}

test("the loop is always freed: done, degrade, a bad reply shape, a throwing check", async () => {
  const healT = createHeal(TrackedLoop);
  const before = TrackedLoop.created;
  await healT(async () => ({ text: JSON.stringify(VALUE) }), BASE);
  await healT(async () => { throw Object.assign(new Error("nope"), { status: 401 }); }, BASE);
  await assert.rejects(healT(async () => ({ txt: "typo" }), BASE), (e) => e instanceof TypeError && /outcome\.text/.test(e.message));
  await assert.rejects(healT(async () => ({ text: JSON.stringify(VALUE) }), { ...BASE, check: () => { throw new Error("checker down"); } }), /checker down/);
  await assert.rejects(healT(async () => ({ text: "x" }), { prompt: { system: "s" } }), TypeError, "bad options throw from the constructor");
  assert.equal(TrackedLoop.created - before, 4);
  assert.equal(TrackedLoop.live, 0);
});

test("host keys are not passed to RepairLoop; heal(callModel, { RepairLoop }) works too", async () => {
  let seen;
  class Spy extends RepairLoop {
    constructor(options, ...rest) {
      seen = { options, rest };
      super(options, ...rest);
    }
  }
  const ctrl = new AbortController();
  const result = await healWith(async () => ({ text: JSON.stringify(VALUE) }), {
    ...BASE, RepairLoop: Spy, signal: ctrl.signal, onStep() {}, check: () => null,
  });
  assert.equal(result.type, "done");
  assert.deepEqual(Object.keys(seen.options).sort(), ["backoff", "prompt", "schema", "seed"]);
  assert.deepEqual(seen.rest, [], "no breaker argument when none is given");
});

test("bad arguments throw TypeError naming them", async () => {
  assert.throws(() => createHeal(), /RepairLoop/);
  await assert.rejects(healWith(async () => ({ text: "x" }), BASE), /options\.RepairLoop/);
  await assert.rejects(heal("not a function", BASE), /callModel/);
  await assert.rejects(heal(async () => ({ text: "x" }), null), /options/);
  await assert.rejects(heal(async () => ({ text: "x" }), { ...BASE, signal: {} }), /signal/);
});

test("heal: now and sleep put the loop on a virtual clock (retry-after, deadline, abort)", async () => {
  const overloaded = () => Object.assign(new Error("Overloaded"), { status: 529, headers: { "retry-after": "30" } });
  let t = Date.UTC(2026, 0, 1);
  const slept = [];
  const clock = { now: () => t, sleep: async (ms) => { slept.push(ms); t += ms; } };
  const replies = [overloaded(), { text: JSON.stringify(VALUE) }];
  const started = performance.now();
  const done = await heal(async () => { const r = replies.shift(); if (r instanceof Error) throw r; return r; }, { ...BASE, ...clock });
  assert.equal(done.type, "done");
  assert.deepEqual(slept, [30_000], "the server's retry-after, waited on the virtual clock");
  assert.ok(performance.now() - started < 5_000, "no real 30 s wait");
  // The loop reads the virtual clock: a 20 s deadline is spent by the first 30 s wait.
  const late = await heal(async () => { throw overloaded(); }, { ...BASE, ...clock, budget: { deadlineMs: 20_000 } });
  assert.deepEqual([late.type, late.reason], ["degrade", "deadline-exceeded"]);
  // A sleep that settles after the signal aborted ends the run as an abort.
  const controller = new AbortController();
  const sleep = async () => controller.abort("stop");
  const aborted = await heal(async () => { throw overloaded(); }, { ...BASE, now: clock.now, sleep, signal: controller.signal });
  assert.deepEqual([aborted.type, aborted.reason], ["degrade", "aborted"]);
});

test("abort during a backoff ends the wait at once, also with a sleep of the host's that ignores the signal", async () => {
  // heal raced callModel and check against the signal, not options.sleep: a virtual clock's
  // sleep held the abort for the whole 3 s backoff.
  const ac = new AbortController();
  const started = Date.now();
  setTimeout(() => ac.abort("user cancelled"), 30);
  let calls = 0;
  const result = await heal(async () => {
    calls += 1;
    throw Object.assign(new Error("overloaded"), { status: 529 });
  }, {
    prompt: PROMPT, backoff: { baseMs: 3000, jitter: "none" }, signal: ac.signal,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  assert.deepEqual([result.type, result.reason, calls], ["degrade", "aborted", 1]);
  assert.ok(Date.now() - started < 1000, `answered ${Date.now() - started} ms after the start`);
});

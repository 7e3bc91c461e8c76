// heal({ models }) (SPEC section 10, issue 15 item 5; js/package/models.mts): model fallback
// with the official SDKs against the local mock LLM server, one deadline and one cost ceiling
// across the chain.
import { test } from "node:test";
import assert from "node:assert/strict";

import { CircuitBreaker, RetryBudget } from "../../pkg/selfheal.js";
import { withMockLlm as withMock } from "../mock-llm/server.mjs";
import { heal, claudeCaller as claude, gptCaller as gpt } from "./heal_helpers.mjs";
import { PROMPT, CITY_SCHEMA } from "./helpers.mjs";

const VALUE = { city: "Paris", population: 2102650 };
const FAST = { seed: 3, backoff: { baseMs: 10, jitterMs: 0 } };

test("two models: the first's breaker opens, heal reaches the second within one deadline, the result names both", async () => {
  await withMock({ anthropic: ["overloaded", "overloaded"], openai: ["valid", "valid"] }, async (mock) => {
    const breaker = new CircuitBreaker({ failureThreshold: 2, resetTimeoutMs: 60_000 });
    try {
      const models = [
        { callModel: claude(mock), provider: "anthropic", contextWindow: 200_000, breaker },
        { callModel: gpt(mock), contextWindow: 128_000 },
      ];
      const steps = [];
      const started = Date.now();
      const result = await heal({
        ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, budget: { deadlineMs: 3000 }, models,
        onStep: (outcome, step) => steps.push([outcome.kind, step.type, step.reason ?? null]),
      });
      const elapsed = Date.now() - started;
      assert.equal(result.type, "done", JSON.stringify(result));
      assert.deepEqual(result.value, VALUE);
      assert.equal(result.model, "gpt-mock-1", "the model that answered");
      assert.equal(result.fellBackFrom.length, 1);
      const [left] = result.fellBackFrom;
      assert.equal(left.model, "claude-mock-1");
      assert.equal(left.reason, "circuit-open");
      assert.equal(left.attempts, 2);
      assert.match(left.detail, /breaker/i);
      assert.equal(result.attempts, 3, "calls across the chain");
      assert.ok(elapsed < 3000, `within the deadline (${elapsed} ms)`);
      assert.deepEqual(steps, [
        ["error", "wait-for-backoff", null], ["error", "degrade", "circuit-open"], ["reply", "done", null],
      ]);
      assert.deepEqual(mock.requests.map((r) => [r.api, r.kind]), [["anthropic", "overloaded"], ["anthropic", "overloaded"], ["openai", "valid"]]);

      // The breaker is still open: the next run passes the first model over without a call.
      const again = await heal({ ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, models });
      assert.equal(again.model, "gpt-mock-1");
      assert.deepEqual(again.fellBackFrom.map((l) => [l.model, l.reason, l.attempts]), [["claude-mock-1", "circuit-open", 0]]);
      assert.equal(mock.requests.length, 4);
      assert.equal(mock.requests[3].api, "openai");
    } finally {
      breaker.free();
    }
  });
});

test("context: a model whose window the prompt does not fit is passed over; a provider's context-overflow moves on", async () => {
  const tooLong = { kind: "error", status: 400, type: "invalid_request_error", message: "prompt is too long: 250000 tokens > 200000 maximum" };
  await withMock({ anthropic: [tooLong], openai: ["valid"] }, async (mock) => {
    const result = await heal({
      ...FAST, prompt: PROMPT, schema: CITY_SCHEMA,
      models: [
        { callModel: claude(mock, { model: "claude-tiny" }), contextWindow: 20, maxOutputTokens: 8 },
        claude(mock),
        { callModel: gpt(mock), name: "backup" },
      ],
    });
    assert.equal(result.type, "done");
    assert.equal(result.model, "backup");
    assert.deepEqual(result.fellBackFrom.map((l) => [l.model, l.reason, l.attempts]), [
      ["claude-tiny", "context-window", 0], ["claude-mock-1", "context-overflow", 1],
    ]);
    assert.match(result.fellBackFrom[0].detail, /\+ 8 for the reply\) does not fit its context window of 20/);
    assert.equal(mock.requests.length, 2, "no call to the model the prompt does not fit");
  });
});

test("one deadline for the chain: the second model's first call is cut when the run's deadline passes", async () => {
  await withMock({ anthropic: [{ kind: "overloaded", delayMs: 100 }, "overloaded"], openai: ["hang"] }, async (mock) => {
    const started = Date.now();
    const result = await heal({
      ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, budget: { transient: 1, deadlineMs: 300 },
      models: [claude(mock), gpt(mock)],
    });
    const elapsed = Date.now() - started;
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "deadline-exceeded", JSON.stringify(result));
    assert.equal(result.model, "gpt-mock-1");
    assert.deepEqual(result.fellBackFrom.map((l) => [l.model, l.reason]), [["claude-mock-1", "transient-exhausted"]]);
    assert.ok(elapsed >= 380 && elapsed < 1500, `cut at the run's deadline, counted from the first outcome (${elapsed} ms)`);
  });
});

test("a streamed reply does not stretch the chain's deadline: no call is sent after it, the run ends deadline-exceeded", async () => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const started = Date.now();
  const sent = [];
  const down = async () => {
    throw Object.assign(new Error("overloaded"), { status: 529 });
  };
  const slow = async (prompt, { push }) => {
    sent.push(Date.now() - started);
    if (sent.length === 1) {
      // A slow stream whose value fails the schema only at its end: the model's loop is made at
      // the first push, its first outcome fed when the stream ends.
      for (const chunk of ['{"n":', ' "x"', "}"]) {
        await sleep(250);
        push(chunk);
      }
      return { stopReason: "end_turn" };
    }
    await sleep(400);
    return { text: '{"n": 1}' };
  };
  const result = await heal({
    prompt: PROMPT, schema: { type: "object", properties: { n: { type: "integer" } } },
    budget: { transient: 3, deadlineMs: 1000 }, backoff: { baseMs: 20, jitterMs: 0 }, seed: 3,
    models: [{ callModel: down, name: "A" }, { callModel: slow, name: "B" }],
  });
  const elapsed = Date.now() - started;
  assert.equal(result.type, "degrade");
  assert.equal(result.reason, "deadline-exceeded", JSON.stringify(result));
  assert.equal(result.model, "B");
  assert.ok(sent.every((at) => at < 1000), `every call to B sent before the deadline: ${sent}`);
  assert.ok(elapsed < 1300, `ended at the run's deadline (${elapsed} ms)`);
});

test("heal's now is the chain's clock too: a virtual deadline, breakers read on it", async () => {
  let t = 1_000;
  const down = async () => {
    t += 10;
    throw Object.assign(new Error("overloaded"), { status: 529 });
  };
  const up = async () => {
    t += 10;
    return { text: JSON.stringify(VALUE) };
  };
  // Open on the virtual clock, with a cool-down long past in real time: still open at t.
  const breaker = new CircuitBreaker({ failureThreshold: 1, resetTimeoutMs: 5_000 });
  breaker.recordFailure(t);
  const virtual = { now: () => t, sleep: async (ms) => { t += ms; } };
  const result = await heal({
    ...virtual, prompt: PROMPT, schema: CITY_SCHEMA, budget: { transient: 0, deadlineMs: 60_000 },
    models: [{ callModel: up, name: "tripped", breaker }, { callModel: down, name: "A" }, { callModel: up, name: "B" }],
  });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.equal(result.model, "B");
  assert.deepEqual(result.fellBackFrom.map((l) => [l.model, l.reason]), [["tripped", "circuit-open"], ["A", "transient-exhausted"]]);
});

test("streaming: with onPartial, a model that cannot stream is passed over; without it, it is called", async () => {
  const plain = Object.assign(async () => ({ text: JSON.stringify(VALUE) }), { model: "plain" });
  const streams = Object.assign(async (prompt, { push }) => (push(JSON.stringify(VALUE)), { stopReason: "end_turn" }), { model: "streams" });
  const models = [{ callModel: plain, streaming: false }, streams];
  const partials = [];
  let result = await heal({ prompt: PROMPT, schema: CITY_SCHEMA, models, onPartial: (u) => partials.push(u) });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.equal(result.model, "streams");
  assert.deepEqual(result.fellBackFrom.map((l) => [l.model, l.reason, l.attempts]), [["plain", "no-streaming", 0]]);
  assert.ok(partials.length > 0);
  result = await heal({ prompt: PROMPT, schema: CITY_SCHEMA, models });
  assert.equal(result.model, "plain");
  assert.deepEqual(result.fellBackFrom, []);
});

test("a RetryBudget goes to every model's loop: refused, the next model is tried", async () => {
  // One resend in reserve, nothing earned from first calls.
  const retryBudget = new RetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 1000 });
  try {
    await withMock({ anthropic: ["overloaded", "overloaded"], openai: ["valid"] }, async (mock) => {
      const result = await heal({ ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, retryBudget, models: [claude(mock), gpt(mock)] });
      assert.equal(result.type, "done");
      assert.deepEqual(result.fellBackFrom.map((l) => [l.model, l.reason, l.attempts]), [["claude-mock-1", "retry-budget-exhausted", 2]]);
      assert.equal(retryBudget.available, 0, "the one resend, counted once");
    });
  } finally {
    retryBudget.free();
  }
});

test("every model exhausted: the last degrade, naming the model, with the earlier ones", async () => {
  await withMock({ anthropic: ["overloaded"], openai: ["server-error"] }, async (mock) => {
    const result = await heal({
      ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, budget: { transient: 0 }, fallback: { mode: "human", queue: "q" },
      models: [claude(mock), gpt(mock)],
    });
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "transient-exhausted");
    assert.equal(result.model, "gpt-mock-1");
    assert.deepEqual(result.fellBackFrom.map((l) => l.model), ["claude-mock-1"]);
    assert.deepEqual(result.fallback, { mode: "human", queue: "q" });
    assert.equal(result.attempts, 2);
  });
});

test("a degrade the next model would meet too ends the run (a 401 is not a reason to switch)", async () => {
  await withMock({ anthropic: ["unauthorized"], openai: ["valid"] }, async (mock) => {
    const result = await heal({ ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, models: [claude(mock), gpt(mock)] });
    assert.equal(result.type, "degrade");
    assert.equal(result.reason, "hard-fail");
    assert.equal(result.model, "claude-mock-1");
    assert.deepEqual(result.fellBackFrom, []);
    assert.equal(mock.requests.length, 1);
  });
});

test("the cost ceiling is the chain's: a model costs what it spent, the next gets what is left", async () => {
  const seen = [];
  const costly = Object.assign(async () => { throw Object.assign(new Error("overloaded"), { status: 529 }); }, { model: "a" });
  const cheap = Object.assign(async (prompt) => { seen.push(prompt); return { text: JSON.stringify(VALUE), costUsd: 0.01 }; }, { model: "b" });
  const result = await heal({ ...FAST, prompt: PROMPT, schema: CITY_SCHEMA, budget: { transient: 0, costCeilingUsd: 1 }, models: [costly, cheap] });
  assert.equal(result.type, "done");
  assert.equal(result.model, "b");
  assert.equal(result.costUsd, 0.01);
  assert.equal(seen.length, 1);
});

test("no model can take the call: a degrade naming each, without a call", async () => {
  const never = Object.assign(async () => assert.fail("called"), { model: "small" });
  const result = await heal({ ...FAST, prompt: PROMPT, models: [{ callModel: never, contextWindow: 4 }] });
  assert.equal(result.type, "degrade");
  assert.equal(result.reason, "prompt-too-large");
  assert.equal(result.model, null);
  assert.equal(result.attempts, 0);
  assert.match(result.detail, /no model could take the call: small: the prompt/);
});

test("models: wrong shapes are TypeErrors naming the entry and field", async () => {
  const ok = async () => ({ text: "{}" });
  await assert.rejects(heal({ prompt: PROMPT, models: [] }), /options\.models must be a non-empty array/);
  await assert.rejects(heal({ prompt: PROMPT, models: [{}] }), /options\.models\[0\] must be a callModel/);
  await assert.rejects(heal({ prompt: PROMPT, models: [ok, { callModel: ok, contextWindow: -1 }] }), /options\.models\[1\]\.contextWindow/);
  await assert.rejects(heal(ok, { prompt: PROMPT, models: [ok] }), /either callModel or options\.models/);
  const breaker = new CircuitBreaker();
  try {
    await assert.rejects(heal({ prompt: PROMPT, models: [ok], breaker }), /give each model its own breaker/);
  } finally {
    breaker.free();
  }
});

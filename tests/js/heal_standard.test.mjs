// heal() with a Standard Schema (SPEC section 11, js/package/heal-schema.mts): the real zod,
// valibot and arktype packages, the built pkg/, and (for Zod) the official Anthropic SDK talking
// to the local mock LLM server.
import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import * as z from "zod";
import * as v from "valibot";
import { type } from "arktype";

import { RepairLoop } from "../../pkg/selfheal.js";
import { createHeal, anthropicCaller } from "../../pkg/heal.mjs";
import { startMockLlm } from "../mock-llm/server.mjs";

const heal = createHeal(RepairLoop);
const PROMPT = { system: "Reply with JSON only.", user: "Plan the meeting as {start, end, title}." };

const meeting = z
  .object({ start: z.number().int(), end: z.number().int(), title: z.string().transform((s) => s.trim().toUpperCase()) })
  .refine((m) => m.end > m.start, { message: "end must be after start", path: ["end"] });

/** A callModel answering each call with the next text, recording the prompts. */
function scripted(texts) {
  const prompts = [];
  const call = async (prompt) => {
    prompts.push(prompt);
    assert.ok(texts.length > 0, `call ${prompts.length}: the test has no reply left`);
    return { text: texts.shift() };
  };
  call.prompts = prompts;
  return call;
}

test("Zod: a .refine() the first reply violates is healed by exactly one reask quoting its message and path (Anthropic SDK, mock server)", async () => {
  const mock = await startMockLlm({
    script: [{ kind: "valid", value: { start: 10, end: 9, title: "  sync " } }, { kind: "valid", value: { start: 10, end: 11, title: "  sync " } }],
    idleTimeoutMs: 10_000,
  });
  try {
    const client = new Anthropic({ baseURL: mock.anthropicBaseURL, apiKey: "test", maxRetries: 0, timeout: 2000 });
    const steps = [];
    const result = await heal(anthropicCaller(client, { model: "claude-mock-1", max_tokens: 256 }), {
      prompt: PROMPT, schema: meeting, onStep: (outcome, step) => steps.push([outcome.kind, step.type, step.strategy ?? null]),
    });
    assert.equal(result.type, "done", JSON.stringify(result));
    assert.equal(result.attempts, 2, "two calls: the first and one reask");
    assert.equal(result.source, "repaired");
    assert.deepEqual(steps, [["reply", "done", null], ["rejected", "send-repair-prompt", "reask"], ["reply", "done", null]]);
    assert.equal(mock.requests.length, 2);
    const reask = mock.requests[1].userText;
    assert.ok(reask.startsWith(PROMPT.user), "a reask starts with the previous prompt");
    assert.match(reask, /- \/end: end must be after start/, "the refinement's path and message, verbatim");
    // The library's output, transforms applied; the text is what the model wrote.
    assert.deepEqual(result.value, { start: 10, end: 11, title: "SYNC" });
    assert.deepEqual(JSON.parse(result.text), { start: 10, end: 11, title: "  sync " });
  } finally {
    await mock.close();
  }
});

test("Zod: its JSON Schema drives parsing and the fix prompt (a type mismatch needs no library call to be found)", async () => {
  const call = scripted(['```json\n{"start": "ten", "end": 11, "title": "a"}\n```', '{"start": 10, "end": 11, "title": "a"}']);
  const result = await heal(call, { prompt: PROMPT, schema: meeting });
  assert.equal(result.type, "done");
  assert.match(call.prompts[1].user, /\/start/);
  assert.match(call.prompts[1].user, /<broken_output>/, "fix mode quotes the broken output");
  assert.match(call.prompts[1].user, /"required"/, "the prompt carries the JSON Schema Zod gave");
  assert.deepEqual(result.value, { start: 10, end: 11, title: "A" });
});

test("Zod: an async refinement, then the host's check on the library's output", async () => {
  const taken = new Set(["alice"]);
  const user = z.object({ name: z.string().transform((s) => s.toLowerCase()) })
    .refine(async (u) => !taken.has(u.name), { message: "name is taken", path: ["name"] });
  const checked = [];
  const call = scripted(['{"name": "ALICE"}', '{"name": "Bob"}']);
  const result = await heal(call, {
    prompt: PROMPT, schema: user, check: (value) => { checked.push(value); return null; },
  });
  assert.equal(result.type, "done");
  assert.match(call.prompts[1].user, /- \/name: name is taken/);
  assert.deepEqual(result.value, { name: "bob" });
  assert.deepEqual(checked, [{ name: "bob" }], "check runs once, on the output of the accepted value");
});

test("Zod: a refinement still violated after the one reask degrades repair-failed, quoting it", async () => {
  const call = scripted(['{"start": 3, "end": 1, "title": "x"}', '{"start": 3, "end": 2, "title": "x"}']);
  const result = await heal(call, { prompt: PROMPT, schema: meeting, fallback: { mode: "human", queue: "q" } });
  assert.equal(result.type, "degrade");
  assert.equal(result.reason, "repair-failed");
  assert.equal(result.attempts, 2);
  assert.match(result.detail, /end must be after start/);
});

test("Valibot (with @valibot/to-json-schema installed): parsed by its JSON Schema, a v.check() issue reasked", async () => {
  const range = v.pipe(
    v.object({ min: v.number(), max: v.number() }),
    v.check((r) => r.max >= r.min, "max must not be below min"),
  );
  const call = scripted(['{"min": 5, "max": 1}', '{"min": 1, "max": 5}']);
  const result = await heal(call, { prompt: PROMPT, schema: range });
  assert.equal(result.type, "done");
  assert.equal(result.attempts, 2);
  assert.match(call.prompts[1].user, /- \(root\): max must not be below min/);
  assert.deepEqual(result.value, { min: 1, max: 5 });
});

test("ArkType: Standard JSON Schema drives parsing; a morph's output is what heal returns", async () => {
  const order = type({ item: "string", count: "number.integer >= 1", code: "string.upper" });
  const call = scripted(['{"item": "pen", "count": 0, "code": "ab"}', '{"item": "pen", "count": 12, "code": "ab"}']);
  const result = await heal(call, { prompt: PROMPT, schema: order });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.match(call.prompts[1].user, /\/count/, "its JSON Schema (minimum 1) found the issue");
  assert.match(call.prompts[1].user, /<broken_output>/, "by parsing: a fix prompt");
  assert.deepEqual(result.value, { item: "pen", count: 12, code: "AB" });
});

test("ArkType: a pattern selfheal cannot compile (lookahead) is left to the library's validate, with one warning", async () => {
  // Before: heal threw "options.schema is not a valid JSON Schema ... needs a backtracking regex
  // engine" for ArkType's string.numeric.parse, a keyword users reach for.
  const order = type({ item: "string", count: "string.numeric.parse" });
  const warnings = [];
  const call = scripted(['{"item": "pen", "count": "twelve"}', '{"item": "pen", "count": "12"}']);
  const result = await heal(call, { prompt: PROMPT, schema: order, warn: (m) => warnings.push(m) });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.deepEqual(result.value, { item: "pen", count: 12 }, "the library's output (its morph)");
  assert.match(call.prompts[1].user, /\/count/, "the library's issue, reasked");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /pattern at \/properties\/count needs a backtracking regex engine/);
  // The schema given synchronously, where no validate runs, is still refused, naming the pattern.
  assert.throws(() => new RepairLoop({ prompt: PROMPT, schema: order }), /pattern/);
});

test("a Standard Schema without any JSON Schema: any JSON passes parsing, validate decides alone, one warning per schema", async () => {
  const even = {
    "~standard": {
      version: 1,
      vendor: "homemade",
      validate: (value) => (Number.isInteger(value?.n) && value.n % 2 === 0 ? { value: value.n } : { issues: [{ message: "n must be even", path: ["n"] }] }),
    },
  };
  const warnings = [];
  const warn = (message) => warnings.push(message);
  const call = scripted(['{"n": 3}', '{"n": 4}']);
  const first = await heal(call, { prompt: PROMPT, schema: even, warn });
  assert.equal(first.type, "done");
  assert.equal(first.value, 4, "the library's output");
  assert.match(call.prompts[1].user, /- \/n: n must be even/);
  const second = await heal(scripted(['{"n": 8}']), { prompt: PROMPT, schema: even, warn });
  assert.equal(second.value, 8);
  assert.equal(warnings.length, 1, "warned once for the schema");
  assert.match(warnings[0], /no JSON Schema for this homemade schema/);
  assert.match(warnings[0], /options\.converters\.homemade/);
});

// selfheal/lite from Node (pkg/lite/, built without JSON Schema validation): the same API as the
// full build, validation from the host (a Standard Schema's validate through heal's `check`),
// `validated: false` wherever a schema was given, and schemas jsonschema would refuse degrading
// clearly instead of trapping. Packaging by name is in tests/packaging/lite.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as z from "zod";

import { resolveSchema } from "../../pkg/standard.mjs";

const require = createRequire(import.meta.url);
const lite = require("../../pkg/lite/index.cjs");
const full = require("../../pkg/index.cjs");

const PROMPT = { system: "Reply with JSON only.", user: "Plan the meeting as {start, end, title}." };

test("the lite entry exports what the full entry exports", () => {
  assert.deepEqual(Object.keys(lite).sort(), Object.keys(full).sort());
  assert.notEqual(lite.RepairLoop, full.RepairLoop, "two builds, two instances");
});

test("another copy's Schema, breaker or retry budget is never taken for this module's (ids count per module)", () => {
  // Both builds number their instances from 1: before the module token, full's RepairLoop given
  // lite's Schema #1 validated against full's Schema #1, and used full's breaker #1.
  const fullSchema = new full.Schema({ type: "string" });
  const liteSchema = new lite.Schema({ type: "number" });
  assert.equal(fullSchema.__selfhealSchemaId, liteSchema.__selfhealSchemaId, "the same id in both");
  assert.notEqual(fullSchema.__selfhealModule, liteSchema.__selfhealModule);
  // Another copy's Schema is read by its text, so it means what it says.
  assert.equal(full.parseStructured(liteSchema, '"x"').ok, false);
  assert.equal(full.parseStructured(liteSchema, "5").ok, true);
  const loop = new full.RepairLoop({ prompt: PROMPT, schema: liteSchema, seed: 1 });
  assert.equal(loop.next({ kind: "reply", text: "5" }, 0).type, "done");
  loop.free();
  // A shared breaker or budget must be this module's: another copy's is a TypeError, not a stranger's state.
  const fullBreaker = new full.CircuitBreaker({ failureThreshold: 1 });
  const liteBreaker = new lite.CircuitBreaker({ failureThreshold: 1 });
  assert.equal(fullBreaker.__selfhealBreakerId, liteBreaker.__selfhealBreakerId);
  assert.throws(() => new full.RepairLoop({ prompt: PROMPT, seed: 1 }, liteBreaker), {
    name: "TypeError", message: /^selfheal: breaker must be a CircuitBreaker \(a live instance from this module\)/,
  });
  const liteBudget = new lite.RetryBudget();
  new full.RetryBudget().free();
  assert.throws(() => new full.RepairLoop({ prompt: PROMPT, seed: 1 }, undefined, liteBudget), {
    name: "TypeError", message: /^selfheal: retryBudget must be a RetryBudget/,
  });
  // This module's own instances are found as before.
  const own = new full.RepairLoop({ prompt: PROMPT, schema: fullSchema, seed: 1 }, fullBreaker);
  assert.equal(own.next({ kind: "reply", text: "5" }, 0).type, "send-repair-prompt");
  own.free();
  for (const x of [fullSchema, liteSchema, fullBreaker, liteBreaker, liteBudget]) x.free();
});

test("heal from selfheal/lite with a zod schema: the library's validate decides, fed back as rejected", async () => {
  const Meeting = z.object({ start: z.iso.datetime(), end: z.iso.datetime(), title: z.string().min(3) })
    .refine((m) => m.start < m.end, { message: "end must be after start", path: ["end"] });
  const resolved = await resolveSchema(Meeting);
  assert.equal(resolved.standard, true);
  const replies = [
    // Parses and (without a validator) would pass; zod refuses both title and order.
    '{"start": "2026-01-02T10:00:00Z", "end": "2026-01-02T09:00:00Z", "title": "x"}',
    '```json\n{"start": "2026-01-02T10:00:00Z", "end": "2026-01-02T11:00:00Z", "title": "Planning",}\n```',
  ];
  const sent = [];
  const steps = [];
  const result = await lite.heal(async (prompt) => {
    sent.push(prompt);
    return { text: replies.shift() };
  }, {
    prompt: PROMPT,
    schema: resolved.jsonSchema,
    seed: 1,
    budget: { repairable: 2 },
    onStep: (outcome, step) => steps.push([outcome.kind, step.type, step.validated]),
    check: async (value) => {
      const checked = await resolved.check(value);
      return checked.ok ? null : checked.outcome;
    },
  });
  assert.equal(result.type, "done");
  assert.deepEqual(result.value, { start: "2026-01-02T10:00:00Z", end: "2026-01-02T11:00:00Z", title: "Planning" });
  assert.equal(result.validated, false, "selfheal/lite says the schema was not checked by it");
  assert.deepEqual(steps, [
    ["reply", "done", false], ["rejected", "send-repair-prompt", undefined], ["reply", "done", false],
  ]);
  // The repair prompt quotes zod's issues with their paths.
  assert.match(sent[1].user, /\/title/);
  assert.match(sent[1].user, /end must be after start/);
});

test("a JSON Schema where only lite is loaded: syntax only, said once per done, never pretended", () => {
  const schema = { type: "object", required: ["city"], properties: { city: { type: "string" } } };
  const s = new lite.Schema(schema);
  assert.deepEqual(s.parse('{"town": 1}'), { ok: true, value: { town: 1 }, fixes: [], validated: false });
  assert.deepEqual(lite.parseStructured(schema, "[1,]"), { ok: true, value: [1], fixes: ["trailing-comma"], validated: false });
  assert.equal(lite.parseStructured(schema, "{'a'", { localRepair: false }).ok, false, "syntax is still checked");
  assert.throws(() => s.validate({}), { name: "Error", message: /^selfheal\/lite does not validate JSON Schema/ });
  // The full build: the same calls validate, and never carry the field.
  const f = new full.Schema(schema);
  assert.equal(f.parse('{"town": 1}').ok, false);
  assert.deepEqual(f.parse('{"city": "Paris"}'), { ok: true, value: { city: "Paris" }, fixes: [] });
  assert.notEqual(f.validate({}), null);
  // The loop: the fast path (the host's own string) and the JSON path both carry it, last.
  for (const text of ['{"town": 1}', '{"town": 1,}']) {
    const loop = new lite.RepairLoop({ prompt: PROMPT, schema, seed: 1 });
    const done = loop.next({ kind: "reply", text }, 0);
    assert.equal(done.type, "done");
    assert.equal(Object.keys(done).at(-1), "validated");
    assert.equal(done.validated, false);
    assert.deepEqual(loop.abort(undefined, 1), done, "repeated as given");
    loop.free();
  }
  const plain = new lite.RepairLoop({ prompt: PROMPT, seed: 1 });
  assert.equal("validated" in plain.next({ kind: "reply", text: "hello" }, 0), false, "no schema, nothing to say");
});

test("schemas jsonschema would refuse degrade clearly in lite: accepted as written, no trap", () => {
  const odd = [
    { type: 12 }, { pattern: "(" }, { pattern: "^(a+)+$" }, { $ref: "#/nowhere" }, { $ref: "https://example.com/x" },
    { format: "email" }, { minimum: "x" }, { properties: 3 }, { allOf: "no" }, false, true,
  ];
  for (const schema of odd) {
    const s = new lite.Schema(schema, { formats: true, resources: { "https://example.com/x": { type: "string" } } });
    assert.deepEqual(JSON.parse(s.text), schema);
    const parsed = s.parse('{"a": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "email": "not an email"}');
    assert.equal(parsed.ok, true, JSON.stringify(schema));
    assert.equal(parsed.validated, false);
    const loop = new lite.RepairLoop({ prompt: PROMPT, schema, seed: 1 });
    assert.equal(loop.next({ kind: "reply", text: "no json here" }, 0).type, "send-repair-prompt");
    loop.free();
    s.free();
  }
  // What is no schema at all is still refused, as a TypeError saying why.
  for (const bad of ["{nope", "[1,2]", 3]) {
    assert.throws(() => new lite.Schema(bad), TypeError);
  }
  // The instance still works afterwards.
  assert.deepEqual(lite.repairJson("{'a': 1,}"), { text: '{"a": 1}', fixes: ["single-quotes", "trailing-comma"] });
});

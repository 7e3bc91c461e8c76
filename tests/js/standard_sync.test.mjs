// A Standard Schema v1 object given straight to the synchronous constructors (`new Schema`,
// `parseStructured`, `new RepairLoop({ schema })`, `new PartialJson`): its JSON Schema is taken
// from Standard JSON Schema (`~standard.jsonSchema.input`, real zod 4 and arktype here); a library
// without it (real valibot) is a TypeError saying what to pass instead. Only the JSON Schema is
// used: the library's own validate runs in heal / selfheal/ai, or in the host's code.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as z from "zod";
import * as v from "valibot";
import { type } from "arktype";

import { PartialJson, RepairLoop, Schema, parseStructured } from "../../pkg/selfheal.js";
import { jsonSchemaOf, resolveSchema } from "../../js/package/standard.mjs";

const order = z.object({ id: z.string(), qty: z.number().int(), tags: z.array(z.string()) });
const PROMPT = { system: "Reply with JSON only.", user: "Give the order as {id, qty, tags}." };

test("new Schema(zodSchema) compiles the input JSON Schema zod gives and parses by it", () => {
  const s = new Schema(order);
  try {
    assert.deepEqual(JSON.parse(s.text), order["~standard"].jsonSchema.input({ target: "draft-2020-12" }));
    const ok = s.parse('```json\n{"id": "A1", "qty": 2, "tags": ["x",]}\n```');
    assert.equal(ok.ok, true);
    assert.deepEqual(ok.value, { id: "A1", qty: 2, tags: ["x"] });
    const bad = s.parse('{"id": "A1", "qty": 2.5, "tags": []}');
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.report.issues.map((i) => [i.kind, i.path]), [["schema", "/qty"]]);
  } finally {
    s.free();
  }
  const parsed = parseStructured(order, '{"id": 1, "qty": 2, "tags": []}');
  assert.equal(parsed.ok, false);
  assert.equal(parsed.report.issues[0].path, "/id");
});

test("new Schema(zodSchema, options): the options path reads the JSON Schema too, not the zod object's keys", () => {
  // Before, a schema given with options was JSON.stringified as it was: zod's own object, whose
  // keys made a schema that accepted nearly anything.
  const s = new Schema(order, { formats: false });
  try {
    assert.deepEqual(JSON.parse(s.text), order["~standard"].jsonSchema.input({ target: "draft-2020-12" }));
    assert.equal(s.parse('{"id": "A1", "qty": 2.5, "tags": []}').ok, false);
  } finally {
    s.free();
  }
  assert.throws(() => new Schema(v.object({ a: v.string() }), { formats: false }), {
    name: "TypeError", message: /^selfheal: schema is a Standard Schema \(vendor "valibot"\) without a synchronous JSON Schema/,
  });
});

test("an arktype Type (a function with ~standard) is a schema too", () => {
  const t = type({ name: "string", age: "number" });
  assert.equal(parseStructured(t, '{"name": "Ada", "age": 36}').ok, true);
  assert.equal(parseStructured(t, '{"name": "Ada"}').report.issues[0].kind, "schema");
});

test("new PartialJson(zodSchema) streams and finds the violation mid-stream", () => {
  const p = new PartialJson(order);
  try {
    let u = p.push('{"id": "A1", "qty": ');
    assert.equal(u.violation, null);
    assert.deepEqual(u.value, { id: "A1" });
    u = p.push('"two", "tags": [');
    assert.notEqual(u.violation, null, "a string where zod's JSON Schema says integer");
    assert.equal(u.violation.path, "/qty");
  } finally {
    p.free();
  }
  const clean = new PartialJson(order);
  try {
    const u = clean.push('{"id": "A1", "qty": 2, "tags": ["a"]}');
    assert.equal(u.done, true);
    assert.equal(u.violation, null);
    assert.equal(clean.finish().ok, true);
  } finally {
    clean.free();
  }
});

test("new RepairLoop({ prompt, schema: zodSchema }): one repair prompt, then done", () => {
  const loop = new RepairLoop({ prompt: PROMPT, schema: order, seed: 1 });
  try {
    const first = loop.next({ kind: "reply", text: '{"id": "A1", "qty": "2", "tags": []}' });
    assert.equal(first.type, "send-repair-prompt");
    assert.match(first.prompt.user, /qty/);
    const second = loop.next({ kind: "reply", text: '{"id": "A1", "qty": 2, "tags": []}' });
    assert.equal(second.type, "done");
    assert.deepEqual(second.value, { id: "A1", qty: 2, tags: [] });
  } finally {
    loop.free();
  }
});

test("only the JSON Schema is used: zod's refinement is the host's (or heal's) to run", () => {
  const even = z.object({ n: z.number() }).refine((o) => o.n % 2 === 0, { message: "n must be even", path: ["n"] });
  const parsed = parseStructured(even, '{"n": 3}');
  assert.equal(parsed.ok, true, "the refinement is not in the JSON Schema");
  const checked = even["~standard"].validate(parsed.value);
  assert.deepEqual(checked.issues.map((i) => i.message), ["n must be even"]);
});

test("valibot (no synchronous JSON Schema) is a TypeError saying what to pass instead", async () => {
  const schema = v.object({ a: v.string() });
  const message = 'selfheal: schema is a Standard Schema (vendor "valibot") without a synchronous JSON Schema ' +
    '(~standard.jsonSchema): pass (await jsonSchemaOf(schema)).jsonSchema from "selfheal/standard", or give it to heal, which does that';
  assert.throws(() => new Schema(schema), { name: "TypeError", message });
  assert.throws(() => new PartialJson(schema), { name: "TypeError", message });
  assert.throws(() => parseStructured(schema, "{}"), { name: "TypeError", message });
  assert.throws(() => new RepairLoop({ prompt: PROMPT, schema }), {
    name: "TypeError", message: message.replace("selfheal: schema", "selfheal: options.schema"),
  });
  // What the message says to do works.
  const { jsonSchema } = await jsonSchemaOf(schema);
  assert.equal(parseStructured(jsonSchema, '{"a": "x"}').ok, true);
  assert.equal(parseStructured(jsonSchema, '{"a": 1}').ok, false);
});

test("what jsonSchemaOf() or resolveSchema() returns, passed whole as a schema, is a TypeError naming .jsonSchema", async () => {
  // It compiled as a JSON Schema of unknown keywords: validation silently off ({"a": 1} passed).
  const schema = v.object({ a: v.string() });
  const message = "selfheal: schema is what jsonSchemaOf() or resolveSchema() returned, not a JSON Schema: pass its .jsonSchema";
  for (const wrapped of [await jsonSchemaOf(schema), await resolveSchema(schema), await resolveSchema({ type: "object" })]) {
    assert.throws(() => new Schema(wrapped), { name: "TypeError", message });
    assert.throws(() => parseStructured(wrapped, '{"a": 1}'), { name: "TypeError", message });
    assert.throws(() => new PartialJson(wrapped), { name: "TypeError", message });
    assert.throws(() => new RepairLoop({ prompt: PROMPT, schema: wrapped }), {
      name: "TypeError", message: message.replace("selfheal: schema", "selfheal: options.schema"),
    });
    // The mark does not show in its keys or its JSON; its .jsonSchema is the schema.
    assert.equal(Object.keys(wrapped).includes("jsonSchema"), true);
    assert.equal(JSON.stringify(wrapped).includes("selfheal"), false);
    assert.equal(parseStructured(wrapped.jsonSchema, '{"a": 1}').ok, wrapped.vendor === null);
  }
});

test("hostile ~standard: a throwing getter, a throwing input, a wrong version are TypeErrors", () => {
  const cases = [
    [{ get "~standard"() { throw new Error("boom"); } }, /schema is an object whose "~standard" threw: boom/],
    [new Proxy({}, { get(_, k) { if (k === "~standard") throw new Error("trap"); } }), /"~standard" threw: trap/],
    [{ "~standard": { version: 1, get validate() { throw new Error("x"); } } }, /"~standard" could not be read: x/],
    [{ "~standard": { version: 2, validate() {} } }, /not a Standard Schema v1/],
    [{ "~standard": null }, /not a Standard Schema v1/],
    [{ "~standard": { version: 1, vendor: "mine", validate() {}, jsonSchema: { input() { throw new Error("no"); } } } },
      /vendor "mine"\) whose ~standard.jsonSchema.input gave no JSON Schema \(target "draft-2020-12" threw: no; target "draft-07" threw: no\)/],
    [{ "~standard": { version: 1, validate() {}, jsonSchema: { input: () => [1] } } }, /gave an array/],
  ];
  for (const [schema, pattern] of cases) {
    assert.throws(() => new Schema(schema), (e) => e instanceof TypeError && pattern.test(e.message), String(pattern));
    assert.throws(() => new PartialJson(schema), TypeError);
  }
  // The module still works after them.
  assert.equal(parseStructured(order, '{"id": "a", "qty": 1, "tags": []}').ok, true);
});

test("a hand-made Standard JSON Schema: draft-07 when draft-2020-12 is refused; a boolean schema", () => {
  const asked = [];
  const handMade = {
    "~standard": {
      version: 1, vendor: "hand", validate: (value) => ({ value }),
      jsonSchema: {
        input({ target }) {
          asked.push(target);
          if (target !== "draft-07") throw new Error(`unsupported target ${target}`);
          return { $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: ["x"] };
        },
      },
    },
  };
  assert.equal(parseStructured(handMade, '{"x": 1}').ok, true);
  assert.equal(parseStructured(handMade, "{}").ok, false);
  assert.deepEqual(asked.slice(0, 2), ["draft-2020-12", "draft-07"]);
  const anything = { "~standard": { version: 1, vendor: "any", validate: (value) => ({ value }), jsonSchema: { input: () => true } } };
  assert.equal(parseStructured(anything, "[1, 2]").ok, true);
  assert.equal(parseStructured(anything, "[1, 2]").ok, true, "seen twice: found by its text");
});

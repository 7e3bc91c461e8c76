// js/package/standard.mjs: Standard Schema v1 objects from the real zod, valibot and arktype packages,
// driving a real RepairLoop from the built pkg/ through a small host loop of the test's own
// (heal() takes these modules over later).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as z from "zod";
import * as v from "valibot";
import { type } from "arktype";
import { toJsonSchema as valibotToJsonSchema } from "@valibot/to-json-schema";

import { RepairLoop, parseStructured } from "../../pkg/selfheal.js";
import {
  formatIssues, isStandardSchema, issuePointer, jsonSchemaOf, resolveSchema, validateStandard,
} from "../../js/package/standard.mjs";

const PROMPT = { system: "Reply with JSON only.", user: "Plan the meeting as {start, end, title}." };

/**
 * The host loop of a test: each reply in `replies` answers the next call the loop asks for; a
 * `done` value goes through the library's validate, whose rejection goes back to the loop.
 * Returns the final instruction, the library's output, every prompt sent and the loop's report.
 */
async function drive(schema, replies, extra = {}) {
  const resolved = await resolveSchema(schema, extra.convert);
  const loop = new RepairLoop({ prompt: PROMPT, schema: resolved.jsonSchema, seed: 1, ...extra.loop });
  const sent = [PROMPT];
  try {
    let step = loop.next({ kind: "reply", text: replies.shift() });
    for (;;) {
      if (step.type === "done") {
        const checked = await resolved.check(step.value);
        if (checked.ok) return { step, value: checked.value, sent, report: loop.report(), resolved };
        step = loop.next(checked.outcome);
        continue;
      }
      if (step.type === "degrade") return { step, value: undefined, sent, report: loop.report(), resolved };
      sent.push(step.prompt);
      assert.ok(replies.length > 0, `the loop asked for call ${step.attempt}, the test has no reply left`);
      step = loop.next({ kind: "reply", text: replies.shift() });
    }
  } finally {
    loop.free();
  }
}

const meeting = z
  .object({ start: z.number().int(), end: z.number().int(), title: z.string().transform((s) => s.trim().toUpperCase()) })
  .refine((m) => m.end > m.start, { message: "end must be after start", path: ["end"] });

test("isStandardSchema: zod, valibot and arktype schemas; JSON Schema and junk are not", () => {
  assert.ok(isStandardSchema(meeting));
  assert.ok(isStandardSchema(v.object({ a: v.string() })));
  assert.ok(isStandardSchema(type({ a: "string" })));
  for (const other of [null, undefined, 1, "x", { type: "object" }, { "~standard": { version: 2, validate() {} } },
    { "~standard": { version: 1 } }, { get "~standard"() { throw new Error("boom"); } }]) {
    assert.equal(isStandardSchema(other), false, String(other));
  }
});

test("Zod: a .refine() the first reply violates is healed by exactly one reask quoting its message and path", async () => {
  const { step, value, sent, report, resolved } = await drive(meeting, [
    '```json\n{"start": 10, "end": 9, "title": "  sync "}\n```',
    '{"start": 10, "end": 11, "title": "  sync "}',
  ]);
  assert.equal(resolved.source, "standard-json-schema");
  assert.equal(resolved.vendor, "zod");
  assert.equal(step.type, "done", JSON.stringify(step));
  assert.equal(step.attempts, 2, "two calls: the first and one reask");
  assert.equal(report.repaired, 1, "exactly one repair prompt");
  assert.equal(sent.length, 2);
  const reask = sent[1];
  assert.ok(reask.user.startsWith(PROMPT.user), "a reask starts with the previous prompt");
  assert.match(reask.user, /- \/end: end must be after start/, "the refinement's path and message, verbatim");
  // The library's output, transforms applied: what the caller gets.
  assert.deepEqual(value, { start: 10, end: 11, title: "SYNC" });
  // The JSON value the model wrote is the input side (before the transform).
  assert.deepEqual(step.value, { start: 10, end: 11, title: "  sync " });
});

test("Zod: the JSON Schema is the input side and drives parsing and the fix prompt", async () => {
  const { jsonSchema } = await jsonSchemaOf(meeting);
  assert.deepEqual(jsonSchema.required, ["start", "end", "title"]);
  assert.equal(jsonSchema.properties.title.type, "string", "input of the transform: a string");
  // A schema mismatch is found by parsing (no library call needed) and repaired with a fix prompt.
  const { step, sent, value } = await drive(meeting, ['{"start": "ten", "end": 11, "title": "a"}', '{"start": 10, "end": 11, "title": "a"}']);
  assert.equal(step.type, "done");
  assert.match(sent[1].user, /\/start/);
  assert.match(sent[1].user, /<broken_output>/, "fix mode quotes the broken output");
  assert.deepEqual(value, { start: 10, end: 11, title: "A" });
});

test("Zod: an async refinement works, and its issue goes back the same way", async () => {
  const taken = new Set(["alice"]);
  const user = z.object({ name: z.string() }).refine(async (u) => !taken.has(u.name), { message: "name is taken", path: ["name"] });
  const { step, sent, value } = await drive(user, ['{"name": "alice"}', '{"name": "bob"}']);
  assert.equal(step.type, "done");
  assert.match(sent[1].user, /- \/name: name is taken/);
  assert.deepEqual(value, { name: "bob" });
});

test("Zod without Standard JSON Schema (older 4.x): z.toJSONSchema is used", async () => {
  // The same schema with `~standard.jsonSchema` hidden, as Zod 4.0 and 4.1 present themselves.
  const props = meeting["~standard"];
  const older = new Proxy(meeting, {
    get(target, key, receiver) {
      if (key === "~standard") return { version: 1, vendor: "zod", validate: props.validate };
      return Reflect.get(target, key, receiver);
    },
  });
  const converted = await jsonSchemaOf(older);
  assert.equal(converted.source, "converter:zod");
  assert.deepEqual(converted.jsonSchema.required, ["start", "end", "title"]);
  const { value } = await drive(older, ['{"start": 1, "end": 0, "title": "x"}', '{"start": 1, "end": 2, "title": "x"}']);
  assert.deepEqual(value, { start: 1, end: 2, title: "X" });
});

const valibotSchema = v.object({ code: v.pipe(v.string(), v.minLength(3, "code needs 3 characters or more")), n: v.number() });

test("Valibot with @valibot/to-json-schema installed: its JSON Schema is found by name", async () => {
  const converted = await jsonSchemaOf(valibotSchema);
  assert.equal(converted.source, "converter:@valibot/to-json-schema");
  assert.equal(converted.note, null);
  assert.equal(converted.jsonSchema.properties.code.minLength, 3);
  // ... and passed explicitly it is used without importing anything.
  const given = await jsonSchemaOf(valibotSchema, {
    converters: { valibot: valibotToJsonSchema },
    importModule: () => assert.fail("nothing should be imported"),
  });
  assert.equal(given.source, "converter");
  // minLength is in the JSON Schema, so parsing itself catches it (a fix prompt, no reask).
  const { step, sent, value } = await drive(valibotSchema, ['{"code": "ab", "n": 1}', '{"code": "abc", "n": 1}']);
  assert.equal(step.type, "done");
  assert.match(sent[1].user, /<broken_output>/);
  assert.deepEqual(value, { code: "abc", n: 1 });
});

test("Valibot without its converter: any JSON passes parsing, the library's validate decides alone", async () => {
  const convert = { importModule: async (name) => { throw new Error(`Cannot find package '${name}'`); } };
  const converted = await jsonSchemaOf(valibotSchema, convert);
  assert.equal(converted.jsonSchema, true);
  assert.equal(converted.source, "none");
  assert.match(converted.note, /no JSON Schema for this valibot schema: any JSON value passes parsing and the library's validate decides alone/);
  assert.match(converted.note, /@valibot\/to-json-schema is not installed/);
  const { step, sent, value, report } = await drive(valibotSchema, ['{"code": "ab", "n": 1}', '{"code": "abc", "n": 1}'], { convert });
  assert.equal(step.type, "done");
  assert.equal(report.repaired, 1);
  assert.match(sent[1].user, /- \/code: code needs 3 characters or more/);
  assert.deepEqual(value, { code: "abc", n: 1 });
  // Still JSON: text that is not JSON is a json-syntax failure, as with any schema.
  const broken = await drive(valibotSchema, ["no json here at all", '{"code": "abc", "n": 2}'], { convert });
  assert.equal(broken.step.type, "done");
  assert.deepEqual(broken.value, { code: "abc", n: 2 });
});

test("ArkType: Standard JSON Schema, and its issues quoted with their paths", async () => {
  const schema = type({ id: "string", tags: "string[]", "score?": "0 <= number <= 1" });
  const converted = await jsonSchemaOf(schema);
  assert.equal(converted.source, "standard-json-schema");
  assert.equal(converted.vendor, "arktype");
  const checked = await validateStandard(schema, { id: "a", tags: ["x", 2] });
  assert.equal(checked.ok, false);
  assert.match(checked.reason, /^- \/tags\/1: /);
  assert.deepEqual(checked.outcome, { kind: "rejected", reason: checked.reason });
  // A narrow (a check JSON Schema cannot say) fails only in validate: one reask.
  const even = type({ n: "number" }).narrow((o, ctx) => o.n % 2 === 0 || ctx.mustBe("an even number"));
  const { step, sent, value } = await drive(even, ['{"n": 3}', '{"n": 4}']);
  assert.equal(step.type, "done");
  assert.match(sent[1].user, /- \(root\): must be an even number/);
  assert.deepEqual(value, { n: 4 });
});

test("a library with no JSON Schema at all says so, naming how to pass a converter", async () => {
  const custom = { "~standard": { version: 1, vendor: "acme", validate: (x) => ({ value: x }) } };
  const converted = await jsonSchemaOf(custom);
  assert.equal(converted.jsonSchema, true);
  assert.match(converted.note, /no converter known for vendor "acme" \(pass options\.converters\.acme\)/);
  const viaConverter = await jsonSchemaOf(custom, { converters: { acme: () => ({ type: "object" }) } });
  assert.deepEqual(viaConverter, { jsonSchema: { type: "object" }, source: "converter", vendor: "acme", note: null });
  // A converter that returns junk is reported, not used.
  const junk = await jsonSchemaOf(custom, { converters: { acme: () => 42 } });
  assert.equal(junk.jsonSchema, true);
  assert.match(junk.note, /converters\.acme threw: the converter returned number/);
});

test("formatIssues: JSON Pointer paths, (root), symbols and {key} segments, one line per issue", () => {
  const sym = Symbol("meta");
  assert.equal(issuePointer({ message: "m", path: ["a/b", "c~d", 0, { key: "e" }, sym] }), "/a~1b/c~0d/0/e/meta");
  assert.equal(issuePointer({ message: "m" }), "");
  assert.equal(
    formatIssues([{ message: "Required", path: ["x"] }, { message: "line one\nline two\r\nthree", path: [] }]),
    "- /x: Required\n- (root): line one line two three",
  );
});

test("validateStandard: a sync failure, an empty issue list and the output on success", async () => {
  const rejects = { "~standard": { version: 1, vendor: "t", validate: () => ({ issues: [] }) } };
  const empty = await validateStandard(rejects, 1);
  assert.equal(empty.ok, false);
  assert.equal(empty.reason, "- (root): the schema library rejected the value without an issue");
  const ok = await validateStandard(z.string().transform((s) => s.length), "abcd");
  assert.deepEqual(ok, { ok: true, value: 4 });
  await assert.rejects(validateStandard({ type: "string" }, "x"), TypeError);
});

test("resolveSchema passes a JSON Schema through unchanged, with a check that accepts", async () => {
  const schema = { type: "object", required: ["a"] };
  const resolved = await resolveSchema(schema);
  assert.equal(resolved.standard, false);
  assert.equal(resolved.jsonSchema, schema);
  assert.deepEqual(await resolved.check({ a: 1 }), { ok: true, value: { a: 1 } });
  // The converted schema is a plain JSON Schema that selfheal's own parser accepts.
  const zres = await resolveSchema(meeting);
  const parsed = parseStructured(zres.jsonSchema, '{"start": 1, "end": 2, "title": "t",}');
  assert.equal(parsed.ok, true);
  assert.deepEqual(parsed.fixes, ["trailing-comma"]);
});

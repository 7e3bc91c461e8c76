// The package entries' PartialJson with a Standard Schema (js/package/partial.mts, SPEC sections 8
// and 11): the library's own validate runs in finish(), and a library with no synchronous JSON
// Schema (real valibot) streams as any JSON, its validate deciding alone. The wasm class under it
// (pkg/selfheal.js) is unchanged: tests/js/standard_sync.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as z from "zod";
import * as v from "valibot";

import * as glue from "../../pkg/selfheal.js";

const require = createRequire(import.meta.url);
const { PartialJson } = require("../../pkg/index.cjs");

/** Push `text` in chunks of 5 and finish. */
function streamed(schema, text, options) {
  const p = new PartialJson(schema);
  try {
    for (let i = 0; i < text.length; i += 5) p.push(text.slice(i, i + 5));
    return p.finish(options);
  } finally {
    p.free();
  }
}

test("finish() runs the library's validate: a refinement's issue makes the result a schema failure", () => {
  // Before: finish() was parseStructured on the JSON Schema alone, so { n: 3 } passed.
  const even = z.object({ n: z.number() }).refine((o) => o.n % 2 === 0, { message: "n must be\neven", path: ["n"] });
  assert.deepEqual(streamed(even, '{"n": 3}'), {
    ok: false, report: { kinds: ["schema"], issues: [{ kind: "schema", path: "/n", message: "n must be even" }] },
  });
  assert.deepEqual(streamed(even, '```json\n{"n": 4,}\n```'), { ok: true, value: { n: 4 }, fixes: ["code-fence", "trailing-comma"] });
  // A JSON Schema failure stays the JSON Schema's report (validate runs on accepted values only).
  const failed = streamed(even, '{"n": "4"}');
  assert.equal(failed.ok, false);
  assert.deepEqual(failed.report.issues.map((i) => i.path), ["/n"]);
  const p = new PartialJson(even);
  assert.ok(p instanceof glue.PartialJson, "the entry's class is the wasm class, wrapped");
  assert.equal(p.constructor.name, "PartialJson");
  p.free();
});

test("valibot (no synchronous JSON Schema): the stream takes any JSON, and its validate decides alone", () => {
  // Before: a TypeError saying to pass `await jsonSchemaOf(schema)`.
  const person = v.object({ age: v.pipe(v.number(), v.minValue(18, "must be an adult")) });
  const young = streamed(person, '{"age": 12}');
  assert.equal(young.ok, false);
  assert.deepEqual(young.report.issues, [{ kind: "schema", path: "/age", message: "must be an adult" }]);
  assert.deepEqual(streamed(person, "Here: {'age': 30}"), { ok: true, value: { age: 30 }, fixes: ["surrounding-prose", "single-quotes"] });
  const p = new PartialJson(person);
  assert.equal(p.push('{"age": "x"').violation, null, "no JSON Schema: nothing to violate while streaming");
  p.free();
  // selfheal/lite (no JSON Schema validation at all): the library's validate is the check.
  const lite = new (require("../../pkg/lite/index.cjs").PartialJson)(person);
  lite.push('{"age": 12}');
  assert.deepEqual(lite.finish().report.issues.map((i) => i.message), ["must be an adult"]);
  lite.free();
});

test("an asynchronous validate is not awaited by finish(): the JSON Schema's verdict, marked validated: false", async () => {
  let ran = 0;
  const slow = z.object({ n: z.number() }).refine(async () => { ran += 1; return false; }, { message: "never" });
  assert.deepEqual(streamed(slow, '{"n": 1}'), { ok: true, value: { n: 1 }, fixes: [], validated: false });
  await new Promise((r) => setTimeout(r, 10));
  // zod's ~standard.validate tries a synchronous parse first, which calls the refinement too.
  assert.ok(ran >= 1, "started (and its verdict left to the host), with no unhandled rejection");
});

test("the library's issues are bounded as every report's are: 100 at most, the last the count; paths 200, messages 300 code points", () => {
  const issues = Array.from({ length: 250 }, (_, i) => ({ message: `bad\n${"m".repeat(400)}`, path: [`k${i}${"p".repeat(300)}`] }));
  const many = { "~standard": { version: 1, vendor: "test", validate: () => ({ issues }), jsonSchema: { input: () => ({}) } } };
  const parsed = streamed(many, "{}");
  assert.equal(parsed.ok, false);
  assert.equal(parsed.report.issues.length, 100);
  assert.deepEqual(parsed.report.issues.at(-1), { kind: "schema", path: "", message: "151 more issues not listed" });
  for (const issue of parsed.report.issues.slice(0, 99)) {
    assert.equal([...issue.path].length, 200);
    assert.ok(issue.path.endsWith("…") && issue.message.endsWith("…"));
    assert.equal([...issue.message].length, 300);
    assert.ok(!/\n/.test(issue.message));
  }
  // The same bounds as a report selfheal writes itself (schema::capped, text::one_line).
  const own = glue.parseStructured({ type: "array", items: { type: "string" } }, JSON.stringify(Array(250).fill(0)));
  assert.equal(own.report.issues.length, 100);
  assert.equal(own.report.issues.at(-1).message, "151 more issues not listed");
});

test("no JSON Schema to be had synchronously (a converter that throws, a lookahead pattern): the library's validate decides", async () => {
  // Before: TypeErrors, though heal takes these schemas.
  const when = z.object({ at: z.date() }); // zod's converter throws for z.date()
  assert.equal(streamed(when, '{"at": 5}').ok, false, "zod's validate wants a Date");
  const { type } = await import("arktype");
  const iso = type({ at: "string.date.iso" }); // a lookahead pattern
  const p = new PartialJson(iso);
  assert.equal(p.push('{"at": 12,').violation?.path, "/at", "the rest of its JSON Schema still checks the stream");
  p.free();
  const bad = streamed(iso, '{"at": "yesterday"}');
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.report.issues.map((i) => i.path), ["/at"]);
  assert.equal(streamed(iso, '{"at": "2026-12-02T00:00:00Z"}').ok, true);
  const throwing = { "~standard": { version: 1, validate: (v) => ({ value: v }), get jsonSchema() { throw new Error("y"); } } };
  assert.deepEqual(streamed(throwing, "[1]"), { ok: true, value: [1], fixes: [] });
});

test("hostile ~standard values are the wasm class's TypeErrors, as before", () => {
  for (const schema of [
    { get "~standard"() { throw new Error("boom"); } },
    { "~standard": { version: 1, get validate() { throw new Error("x"); } } },
  ]) {
    assert.throws(() => new PartialJson(schema), TypeError);
  }
  // Plain JSON Schemas and no schema work as before.
  assert.deepEqual(streamed({ type: "object" }, '{"a": 1}'), { ok: true, value: { a: 1 }, fixes: [] });
  assert.deepEqual(streamed(undefined, "[1, 2]"), { ok: true, value: [1, 2], fixes: [] });
});

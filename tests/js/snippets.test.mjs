// The wasm layer's private JS (js/snippets/) on its own, without wasm: each protocol the Rust side
// reads, as documented beside the snippet function.
import { test } from "node:test";
import assert from "node:assert/strict";

import { gatherError, randomFill, startOutcome } from "../../js/snippets/gather.js";
import { classified, done, parsedOk, repaired, waitForBackoff } from "../../js/snippets/instructions.js";
import { jsonText, schemaRemember, schemaSlot, schemaSource, standardJsonSchema } from "../../js/snippets/schema_keys.js";
import { partialAppend, partialApply, partialNew, partialText } from "../../js/snippets/instructions.js";

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const throwing = () => new Proxy({}, { get() { throw new Error("boom"); } });

test("gatherError: every string read is cut to 65,536 UTF-16 units (100 million characters took seconds)", () => {
  const long = "x".repeat(100_000_000);
  const info = JSON.parse(gatherError({ status: 400, message: long, error: { message: long }, headers: { "x-a": long }, name: long }));
  assert.deepEqual(info.messages.map((m) => m.length), [65536, 65536]);
  assert.equal(info.name.length, 65536);
  assert.equal(info.headers[0][1].length, 65536);
  assert.deepEqual(JSON.parse(gatherError("y".repeat(70_000))).messages[0].length, 65536);
  // A pair cut in two ends in U+FFFD.
  const cut = JSON.parse(gatherError({ message: "a".repeat(65535) + "😀" })).messages[0];
  assert.equal(cut.at(-1), "\uFFFD");
});

test("gatherError: the ErrorInfo record, empty fields left out, hostile reads absent", () => {
  assert.deepEqual(JSON.parse(gatherError({ status: 503 })), { present: true, className: "Object", status: 503 });
  assert.deepEqual(JSON.parse(gatherError(null)), {});
  assert.deepEqual(JSON.parse(gatherError("boom")), { present: true, messages: ["boom"] });
  const e = Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNRESET" } });
  const g = JSON.parse(gatherError(e));
  assert.equal(g.name, "TypeError");
  assert.deepEqual(g.codes, ["ECONNRESET"]);
  assert.deepEqual(g.messages, ["fetch failed"]);
  for (const hostile of [revoked(), throwing(), { get status() { throw new Error("x"); } }]) {
    const r = JSON.parse(gatherError(hostile));
    assert.equal(r.present, true);
    assert.equal(r.status, undefined);
  }
  // Lone surrogates become U+FFFD, as they would crossing into Rust as text.
  assert.deepEqual(JSON.parse(gatherError({ message: "a\uD800b" })).messages, ["a\uFFFDb"]);
});

test("gatherError: the status, codes and headers as the core's ErrorInfo holds them", () => {
  const status = (e) => JSON.parse(gatherError(e)).status;
  // The first place that holds a whole number in 100..=999 (a numeric string read as Rust's
  // `str::trim` and `parse::<f64>` read it), else a 4xx/5xx `code` of the error or its body.
  assert.equal(status({ status: " 503\u3000" }), 503);
  assert.equal(status({ status: "5.03e2" }), 503);
  assert.equal(status({ status: "RESOURCE_EXHAUSTED", statusCode: 429 }), 429);
  assert.equal(status({ status: 99, statusCode: 503.5, response: { status: "x" }, $metadata: { httpStatusCode: 500 } }), 500);
  for (const none of ["0x1f5", "", "\uFEFF503", "503\u0085x", "Infinity", 1000, -503]) {
    assert.equal(status({ status: none }), undefined, `status ${JSON.stringify(none)}`);
  }
  assert.equal(status({ status: "\u0085503" }), 503);
  assert.equal(status({ code: 600, error: { code: 429 } }), 429);
  assert.equal(status({ status: 700, code: 503 }), 700);
  assert.equal(status({ body: '{"error":{"code":503}}' }), 503);
  // Numbers in code and header places as text, written as Rust prints an f64.
  const g = JSON.parse(gatherError({
    code: 1e21, cause: { code: -0 }, error: { code: 1.5e-7 },
    headers: { "Retry-After": 2, "X-\u00C9": 1e300, "retry-after-ms": [12.5] },
  }));
  assert.deepEqual(g.codes, ["1000000000000000000000", "-0", "0.00000015"]); // Rust prints -0.0 as "-0"
  assert.deepEqual(g.headers, [["retry-after", "2"], ["x-\u00C9", `1${"0".repeat(300)}`], ["retry-after-ms", "12.5"]]);
});

test("startOutcome: a tagged record for every outcome, never a throw", () => {
  const start = (o) => JSON.parse(startOutcome(o));
  assert.deepEqual(start({ kind: "reply", text: "{}" }), { kind: "reply" });
  assert.deepEqual(start({ kind: "rejected", reason: "r" }), { kind: "rejected" });
  assert.deepEqual(start({ kind: "invalid", reason: "r" }), { kind: "invalid" });
  const [error, cost] = start({ kind: "error", error: { status: 429 }, costUsd: 0.5 }).error;
  assert.equal(cost, 0.5);
  assert.equal(error.status, 429);
  assert.deepEqual(start({ kind: "error", error: {} }).error[1], 0);
  for (const fields of [undefined, null, 3, "reply", {}, { kind: "retry" }, { kind: "error", costUsd: -1 },
    { kind: "error", costUsd: "1" }, { kind: "error", costUsd: NaN }, throwing(), revoked()].entries()) {
    assert.equal(start(fields[1]), "unread", `case ${fields[0]}`);
  }
});

test("randomFill: fills the whole view it is given, differently each time", () => {
  const a = new Uint8Array(4096);
  const b = new Uint8Array(4096);
  randomFill(a);
  randomFill(b);
  assert.ok(a.some((x) => x !== 0) && b.some((x) => x !== 0));
  assert.notDeepEqual(a, b);
  const view = new Uint8Array(new ArrayBuffer(64), 16, 32);
  randomFill(view);
  assert.deepEqual(new Uint8Array(view.buffer, 0, 16), new Uint8Array(16), "only the view is written");
  assert.deepEqual(new Uint8Array(view.buffer, 48, 16), new Uint8Array(16), "only the view is written");
});

test("jsonText: JSON.stringify within the limits, refusing at once what no reader takes", () => {
  for (const v of [{ a: [1, { b: null }] }, [], "s", 1, null, { toJSON: () => ({ x: 1 }) }, new Date(0)]) {
    assert.equal(jsonText(v), JSON.stringify(v));
  }
  assert.equal(jsonText(() => 1), undefined);
  const started = performance.now();
  assert.throws(() => jsonText({ a: Object.assign([], { length: 2 ** 32 - 1 }) }), RangeError);
  assert.ok(performance.now() - started < 100, "a huge sparse array is refused before any work");
  let deep = {};
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  assert.throws(() => jsonText(deep), /nested deeper than 128 levels/);
  const cyclic = { a: {} };
  cyclic.a.b = cyclic;
  assert.throws(() => jsonText(cyclic), RangeError);
  assert.throws(() => jsonText({ n: 1n }), TypeError); // what JSON.stringify throws
  assert.throws(() => jsonText(throwing()), /boom/);
});

test("schemaSlot / schemaSource / schemaRemember: a slot once remembered, the text on a miss, oldest slot reused", () => {
  const schema = { type: "object", title: `t${Math.random()}` };
  assert.equal(schemaSlot(schema), undefined, "not seen: no slot");
  assert.deepEqual(schemaSource(schema), { kind: "text", text: JSON.stringify(schema) });
  const slot = schemaRemember(JSON.stringify(schema));
  assert.equal(schemaSlot({ ...schema }), slot, "the same text is found by slot");
  for (const notObject of ["not an object", null, undefined, 1, true]) assert.equal(schemaSlot(notObject), undefined);
  assert.equal(schemaSlot(() => 1), undefined);
  assert.deepEqual(schemaSource(() => 1), { kind: "no-json" });
  // A `Schema` is never stringified: the Rust side finds a live one by its id, any other by `text`.
  class Schema {
    get __selfhealSchemaId() { return 7; }
    get text() { return '{"type":"string"}'; }
  }
  assert.equal(schemaSlot(new Schema()), undefined);
  assert.deepEqual(schemaSource(new Schema()), { kind: "text", text: '{"type":"string"}' });
  // Freed: the id and text getters throw (wasm-bindgen's pointer is 0).
  class Freed {
    constructor() { this.__wbg_ptr = 0; }
    get __selfhealSchemaId() { throw new Error("null pointer passed to rust"); }
    get text() { throw new Error("null pointer passed to rust"); }
  }
  Object.defineProperty(Freed, "name", { value: "Schema" });
  assert.deepEqual(schemaSource(new Freed()), { kind: "freed" });
  // Only named Schema, nothing of ours: read as any object.
  class Other {}
  Object.defineProperty(Other, "name", { value: "Schema" });
  assert.deepEqual(schemaSource(Object.assign(new Other(), { type: "number" })), { kind: "text", text: '{"type":"number"}' });
  // 64 slots: the 65th text takes the oldest slot, whose text is then a miss again.
  const first = { title: `first${Math.random()}` };
  const firstSlot = schemaRemember(JSON.stringify(first));
  for (let i = 0; i < 64; i++) schemaRemember(JSON.stringify({ title: `filler${i}${Math.random()}` }));
  assert.equal(schemaSlot(first), undefined);
  assert.ok(firstSlot >= 0 && firstSlot < 64);
  // What jsonText throws, both throw.
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => schemaSlot(cyclic), RangeError);
  assert.throws(() => schemaSource(cyclic), RangeError);
});

test("schemaSlot / schemaSource: a Standard Schema stands for its JSON Schema; an unusable ~standard is `invalid`", () => {
  const json = { type: "object", title: `std${Math.random()}` };
  const targets = [];
  const std = (input) => ({ "~standard": { version: 1, vendor: "v", validate: (value) => ({ value }), jsonSchema: { input } } });
  const refuses2020 = std(({ target }) => {
    targets.push(target);
    if (target === "draft-2020-12") throw new Error("no");
    return json;
  });
  assert.deepEqual(schemaSource(refuses2020), { kind: "text", text: JSON.stringify(json) }, "the JSON Schema's text");
  assert.deepEqual(targets, ["draft-2020-12", "draft-07"]);
  const slot = schemaRemember(JSON.stringify(json));
  assert.equal(schemaSlot(std(() => ({ ...json }))), slot, "found by text like a plain object");
  assert.deepEqual(schemaSource(std(() => false)), { kind: "text", text: "false" });
  const fn = Object.assign(() => 1, { "~standard": std(() => json)["~standard"] });
  assert.equal(schemaSlot(fn), slot, "a function with ~standard (an arktype Type)");
  const noSync = { "~standard": { version: 1, vendor: "valibot", validate() {} } };
  assert.equal(schemaSlot(noSync), undefined);
  const invalid = schemaSource(noSync);
  assert.equal(invalid.kind, "invalid");
  assert.match(invalid.message, /^is a Standard Schema \(vendor "valibot"\) without a synchronous JSON Schema/);
  assert.equal(schemaSource({ get "~standard"() { throw new Error("boom"); } }).kind, "invalid");
  assert.equal(schemaSource(throwing()).kind, "invalid", "a Proxy throwing on every read");
  assert.ok(standardJsonSchema(revoked()) instanceof TypeError);
  assert.ok(standardJsonSchema({ version: 1, validate() {}, jsonSchema: { input: () => null } }) instanceof TypeError);
});

test("instructions: the contract's object literals, key for key", () => {
  const c = classified("transient", "rate-limited", "429", "status", 2000);
  assert.deepEqual(Object.keys(c), ["class", "cause", "reason", "signal", "retryAfterMs"]);
  assert.equal(classified("hard-fail", "auth", "401", "status", undefined).retryAfterMs, null);
  const w = waitForBackoff(2000, "s", "u", 2, c);
  assert.deepEqual(w, { type: "wait-for-backoff", delayMs: 2000, prompt: { system: "s", user: "u" }, attempt: 2, classified: c });
  // Fixes arrive as a fresh array of names (the Rust side builds it) and are handed out as it is.
  assert.deepEqual(parsedOk({ a: 1 }, []), { ok: true, value: { a: 1 }, fixes: [] });
  assert.deepEqual(parsedOk(1, ["code-fence", "trailing-comma"]).fixes, ["code-fence", "trailing-comma"]);
  assert.deepEqual(repaired('{"a":1}', []), { text: '{"a":1}', fixes: [] });
  assert.deepEqual(Object.keys(repaired("[]", ["code-fence", "trailing-comma"])), ["text", "fixes"]);
  assert.deepEqual(repaired("[]", ["code-fence", "trailing-comma"]).fixes, ["code-fence", "trailing-comma"]);
  assert.deepEqual(Object.keys(done(1, "1", "first-pass", [], 1, 0)),
    ["type", "value", "text", "source", "fixes", "attempts", "costUsd"]);
  assert.deepEqual(done(1, "1", "repaired", ["code-fence"], 1, 0).fixes, ["code-fence"]);
});

test("partialApply: the flat edit protocol builds the value in place, and the closed pointers from its edits; text and violation kept", () => {
  const m = partialNew();
  const apply = (chunk, payload, done = false, violation = undefined) =>
    partialApply(m, chunk, payload === "" ? "" : JSON.stringify(payload), done, violation);
  let u = apply("x", "");
  assert.deepEqual(u, { value: undefined, done: false, closed: [], violation: null });
  // Begin object (top level: no key), Begin array "a", Scalar 1 and Begin string (elements: no
  // key), Append.
  u = apply("{", [0, 1, "a", 4, 1, 2, 3, "h"]);
  const root = u.value;
  assert.deepEqual(root, { a: [1, "h"] });
  assert.deepEqual(u.closed, ["/a/0"], "a Scalar closes its value");
  u = apply("i", [3, "i", 5, 5, 2, "s", 3, "t"]);
  assert.equal(u.value, root, "one live object");
  assert.deepEqual(u.closed, ["/a/1", "/a"], "each End closes the string or the container");
  assert.deepEqual(root, { a: [1, "hi"], s: "t" });
  // End the string, then the object; a key seen again replaces the member in place.
  u = apply("}", [5, 4, "a", true, 4, "__proto__", null, 5], true);
  assert.deepEqual(Object.keys(root), ["a", "s", "__proto__"]);
  assert.equal(root.a, true);
  assert.equal(Object.getPrototypeOf(root), Object.prototype);
  assert.deepEqual(u.closed, ["/s", "/a", "/__proto__", ""]);
  assert.equal(u.done, true);
  // The violation crosses once and stays.
  const issue = { kind: "schema", path: "", message: "m" };
  assert.equal(apply("", "", true, issue).violation, issue);
  assert.equal(apply("", "").violation, issue);
  // Reset: back to undefined; a top-level string grows by Append.
  u = apply("", [6, 2, 3, "ab", 3, "c"]);
  assert.equal(u.value, "abc");
  assert.deepEqual(apply("", [5]).closed, [""]);
  // Pointer segments are escaped (`~` -> `~0`, `/` -> `~1`); arrays in arrays count their own.
  u = apply("", [6, 0, 1, "a/b~", 1, 4, 7, 5, 1, 5, 5, 5]);
  assert.deepEqual(u.value, { "a/b~": [[7], []] });
  assert.deepEqual(u.closed, ["/a~1b~0/0/0", "/a~1b~0/0", "/a~1b~0/1", "/a~1b~0", ""]);
  assert.equal(partialText(m), "x{i}");
  assert.throws(() => apply("", [9]), /unknown op 9/);
  // partialAppend is partialApply with [3, text].
  apply("", [6, 2]);
  u = partialAppend(m, "d", "d", false, undefined);
  assert.deepEqual(u, { value: "d", done: false, closed: [], violation: issue });
  assert.equal(partialText(m), "x{i}d");
});

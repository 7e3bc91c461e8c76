#!/usr/bin/env node
// Issue 10's worst cases, measured on the release package in pkg/ (docs/PERFORMANCE.md, "Bounds"):
//
//   node scripts/limits.mjs            every case, each in a fresh Node process
//   node scripts/limits.mjs --json     the same as JSON
//   node scripts/limits.mjs NAME...    those cases only
//
// Each case runs in its own process, so "peak wasm memory" is the high-water mark of that case
// alone: the byteLength of the instance's WebAssembly.Memory after it ran (wasm memory never
// shrinks, so that is its peak), next to the memory right after loading the module. Times are
// the wall-clock time of the one call (the first, so including V8's lazy compilation of what it
// runs), the median of 3 runs in one process where a case is repeated.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PKG = process.env.SELFHEAL_PKG ?? path.join(ROOT, "pkg");

// A case: what it is, and the code that runs it (given `s` = the package and `mb` = memory in MB).
const CASES = {
  "load": ["the module loaded, nothing run", `return {};`],
  "valid-1mb": ["parseStructured: a valid 1 MB reply of small objects", `
    const reply = rows(1); const t = now(); const r = s.parseStructured(SCHEMA, reply);
    return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "valid-10mb": ["parseStructured: a valid 10 MB reply (maxReplyChars raised to 12,000,000)", `
    const reply = rows(10); const t = now(); const r = s.parseStructured(SCHEMA, reply, { maxReplyChars: 12e6 });
    return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "loop-1mb": ["RepairLoop.next: a valid 1 MB reply -> done, then free", `
    const reply = rows(1); const l = new s.RepairLoop({ prompt: P, schema: SCHEMA, seed: 1 });
    const t = now(); const step = l.next({ kind: "reply", text: reply }); const ms = now() - t; l.free();
    return { type: step.type, ms, chars: reply.length };`],
  "loop-10mb": ["RepairLoop.next: a valid 10 MB reply -> done (maxReplyChars 12,000,000), then free", `
    const reply = rows(10); const l = new s.RepairLoop({ prompt: P, schema: SCHEMA, seed: 1, maxReplyChars: 12e6 });
    const t = now(); const step = l.next({ kind: "reply", text: reply }); const ms = now() - t; l.free();
    return { type: step.type, ms, chars: reply.length };`],
  "repeat-1mb": ["ten valid 1 MB replies in a row: memory is reused, not grown per reply", `
    const reply = rows(1); const t = now(); for (let i = 0; i < 10; i++) s.parseStructured(SCHEMA, reply);
    return { ms: (now() - t) / 10, chars: reply.length };`],
  "defect-1": ["issue 10 defect 1: a 50,000-char key over 50,000 items (146 KB), loop.next", `
    const reply = JSON.stringify({ ["k".repeat(50000)]: Array(50000).fill(0) });
    const l = new s.RepairLoop({ prompt: P, schema: ARRAYS, seed: 1 });
    const t = now(); const step = l.next({ kind: "reply", text: reply }); const ms = now() - t; l.free();
    const after = s.parseStructured({ type: "object" }, "{}").ok && new s.CircuitBreaker().state;
    return { type: step.type, ms, issues: step.type === "send-repair-prompt" ? undefined : null,
             promptChars: step.prompt.system.length + step.prompt.user.length, chars: reply.length, after };`],
  "defect-1-reask": ["issue 10 defect 1: a 23 KB reply in reask mode (was a 38-million-character prompt)", `
    const reply = JSON.stringify({ ["k".repeat(11500)]: Array(3000).fill(0) });
    const l = new s.RepairLoop({ prompt: P, schema: ARRAYS, mode: "reask", seed: 1 });
    const t = now(); const step = l.next({ kind: "reply", text: reply }); const ms = now() - t; l.free();
    return { type: step.type, ms, promptChars: step.prompt.system.length + step.prompt.user.length, chars: reply.length };`],
  "valid-4mb": ["parseStructured: a valid 4 MB reply of small objects (the default maxReplyChars)", `
    const reply = rows(4); const t = now(); const r = s.parseStructured(SCHEMA, reply);
    return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "zeros-4m": ["parseStructured: a valid 4,000,000-char reply of 2,000,000 integers (the densest values)", `
    const reply = "[" + "0,".repeat(1999998) + "0]"; const t = now();
    const r = s.parseStructured({ type: "array", items: { type: "integer" } }, reply);
    return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "wide-4m": ["a 4,000,000-char reply of 2,000,000 integers where strings are expected (error path)", `
    const reply = "[" + "0,".repeat(1999998) + "0]"; const t = now();
    const r = s.parseStructured({ type: "array", items: { type: "string" } }, reply);
    return { ok: r.ok, ms: now() - t, issues: r.report.issues.length, chars: reply.length };`],
  "key-4m": ["a 4,000,000-char reply: one 2,000,000-char key over 1,000,000 failing items", `
    const reply = JSON.stringify({ ["k".repeat(1999990)]: Array(999990).fill(0) }); const t = now();
    const r = s.parseStructured(ARRAYS, reply);
    return { ok: r.ok, ms: now() - t, issues: r.report.issues.length, chars: reply.length };`],
  "over-limit": ["a 100,000,000-char reply: refused unread (maxReplyChars)", `
    const reply = "x".repeat(100e6); const l = new s.RepairLoop({ prompt: P, schema: SCHEMA, seed: 1 });
    const t = now(); const step = l.next({ kind: "reply", text: reply }); const ms = now() - t; l.free();
    return { type: step.type, reason: step.reason, ms, chars: reply.length };`],
  "ref-18": ["issue 10: the $ref graph, 18 doubling levels (was 3 s per parse): new Schema", `
    const t = now(); let error = null; try { new s.Schema(chain(18)); } catch (e) { error = e.message.slice(0, 60); }
    return { ms: now() - t, error };`],
  "ref-25": ["issue 10: the $ref graph, 25 doubling levels (was 130 s, then a trap): new Schema", `
    const t = now(); let error = null; try { new s.Schema(chain(25)); } catch (e) { error = e.message.slice(0, 60); }
    return { ms: now() - t, error };`],
  "ref-largest-accepted": ["the largest doubling chain still accepted (11 levels, 8,189 subschemas per value) against \"1\"", `
    const schema = new s.Schema(chain(11)); const t = now(); const r = schema.parse('"1"'); const r2 = schema.parse("1");
    return { ms: now() - t, ok: r.ok, failed: !r2.ok };`],
  "ref-work-limit": ["a value too large for its schema's work per value (10 doubling levels per item, 5,000 items): not validated", `
    const schema = new s.Schema({ ...chain(10, true), type: "array", items: { $ref: "#/$defs/d0" } });
    const reply = JSON.stringify(Array(5000).fill("a")); const t = now(); const r = schema.parse(reply);
    return { ms: now() - t, ok: r.ok, message: r.report?.issues[0]?.message.slice(0, 40) };`],
  "stream-tiny-4m": ["PartialJson.push: 4,000,000 chars of 1,000,000 tiny values ([[1],[1],...]) in 65,536-char chunks, then finish()", `
    const reply = TINY(); const p = new s.PartialJson(); let t = now(), maxPushMs = 0;
    for (let i = 0; i < reply.length; i += 65536) { const t0 = now(); p.push(reply.slice(i, i + 65536)); maxPushMs = Math.max(maxPushMs, now() - t0); }
    const pushMs = now() - t; t = now(); const r = p.finish();
    return { pushMs, maxPushMs, finishMs: now() - t, ok: r.ok, chars: reply.length };`],
  "loop-stream-tiny-4m": ["RepairLoop.push: the same 4,000,000 chars, then next({ kind: \"reply\" })", `
    const reply = TINY(); const l = new s.RepairLoop({ prompt: P, schema: { type: "array" }, seed: 1 }); let t = now(), maxPushMs = 0;
    for (let i = 0; i < reply.length; i += 65536) { const t0 = now(); l.push(reply.slice(i, i + 65536)); maxPushMs = Math.max(maxPushMs, now() - t0); }
    const pushMs = now() - t; t = now(); const step = l.next({ kind: "reply" });
    return { pushMs, maxPushMs, nextMs: now() - t, type: step.type, chars: reply.length };`],
  "stream-unions-4m": ["RepairLoop.push: 126 nested objects with one 31,660-char key each (3,989,792 chars) in 4,096-char chunks against a union of 24 record types, then next()", `
    const any = [{ type: "object", additionalProperties: { $ref: "#/$defs/v" } }];
    for (let i = 1; i < 24; i++) any.push({ anyOf: [{ type: "object", minProperties: i % 2 }] });
    let reply = ""; for (let i = 0; i < 126; i++) reply += '{"' + "k".repeat(31660) + '":'; reply += "{}" + "}".repeat(126);
    const l = new s.RepairLoop({ prompt: P, schema: { $defs: { v: { anyOf: any } }, $ref: "#/$defs/v" }, seed: 1 }); let t = now();
    for (let i = 0; i < reply.length; i += 4096) l.push(reply.slice(i, i + 4096));
    const pushMs = now() - t; t = now(); const step = l.next({ kind: "reply" });
    return { pushMs, nextMs: now() - t, type: step.type, chars: reply.length };`],
  "pattern-4m": ["parseStructured: a 3,900,000-char string against each of seven patterns that need an engine (each engine's worst subject); the time bound refuses what it cannot match in 200 ms", `
    const cases = [["[a-z]{1,64}x", "a"], ["a{1,16}a{1,16}a{1,16}b", "a"], ["[a-z]{1,16}[a-z]{1,16}x", "a"], ["[a-z]{1,16}x", "a"], ["\\\\d+x", "1"], ["(a|aa)+$", "a"], ["^(?=.*\\\\d)(?=.*[a-z]).{8,}$", "A"]];
    const out = {}; for (const [pattern, c] of cases) { const schema = new s.Schema({ type: "string", pattern }); const reply = JSON.stringify(c.repeat(3.9e6));
      const t = now(); const r = schema.parse(reply); out[pattern] = Math.round(now() - t) + " ms" + (r.report?.issues[0]?.message.includes("could not be checked") ? " (refused)" : ""); }
    return out;`],
  "pattern-many-4m": ["parseStructured: 3.9 MB of strings each just under their own match bound (63,000 chars against an unanchored host-name pattern); one call's matches share a budget", `
    const pattern = "[a-z0-9-]{1,63}(\\.[a-z0-9-]{1,63})*\\.com"; const long = "a".repeat(62800);
    const reply = JSON.stringify(Array(Math.floor(3.9e6 / 62803)).fill(long));
    const t = now(); const r = s.parseStructured({ type: "array", items: { type: "string", pattern } }, reply);
    return { ok: r.ok, ms: now() - t, chars: reply.length, issues: r.report?.issues.length, first: r.report?.issues[0]?.message.slice(0, 60) };`],
  "dependent-required-4m": ["dependentRequired with 1,000 entries over 3.9 MB of small objects: {} (valid), {\"z\":1} (valid), and {\"k7\":1} (each fails)", `
    const deps = {}; for (let i = 0; i < 1000; i++) deps["k" + i] = ["a"];
    const schema = new s.Schema({ type: "array", items: { type: "object", dependentRequired: deps } }); const out = {};
    for (const item of ["{}", '{"z":1}', '{"k7":1}']) { const reply = "[" + Array(Math.floor(3.9e6 / (item.length + 1))).fill(item).join(",") + "]";
      const t = now(); const r = schema.parse(reply); out[item] = Math.round(now() - t) + " ms" + (r.ok ? "" : " (" + r.report.issues.length + " issues)"); }
    return out;`],
  "properties-300-4m": ["properties with 300 entries over 3.9 MB of small objects: {}, {\"z\":1} and {\"p7\":1} (valid), {\"p7\":\"x\"} (each fails)", `
    return objects4m({ type: "object", properties: PROPS300 });`],
  "properties-300-closed-4m": ["the same with additionalProperties: false beside (another validator; {\"z\":1} fails too)", `
    return objects4m({ type: "object", properties: PROPS300, additionalProperties: false });`],
  "objects-4m": ["the same objects against {type: object} alone: what the two cases above cost without properties", `
    return objects4m({ type: "object" });`],
  "unique-nested": ["uniqueItems: 20,000 distinct arrays of 17 empty or one-item arrays (1.34 MB), which upstream's hash put in one bucket", `
    const items = []; for (let i = 0; i < 20000; i++) items.push("[" + [...i.toString(2).padStart(17, "0")].map((b) => b === "0" ? "[]" : "[[]]").join(",") + "]");
    const reply = "[" + items.join(",") + "]"; const schema = new s.Schema({ type: "array", uniqueItems: true });
    const t = now(); const r = schema.parse(reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "unique-u64": ["uniqueItems: 190,000 distinct integers 2^63 + i (3.8 MB), which upstream hashed by their nearest f64", `
    const items = []; for (let i = 0n; i < 190000n; i++) items.push(String(2n ** 63n + i));
    const reply = "[" + items.join(",") + "]"; const schema = new s.Schema({ type: "array", uniqueItems: true });
    const t = now(); const r = schema.parse(reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "unique-objects-4m": ["uniqueItems: 4 MB of distinct small objects, keys in two orders (the common shape, at the largest reply)", `
    const items = []; let size = 2; for (let i = 0; size < 4e6 - 40; i++) { const item = i % 2 ? '{"id":' + i + ',"name":"n' + i + '"}' : '{"name":"n' + i + '","id":' + i + "}"; items.push(item); size += item.length + 1; }
    const reply = "[" + items.join(",") + "]"; const schema = new s.Schema({ type: "array", uniqueItems: true });
    const t = now(); const r = schema.parse(reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "not-enum-4000": ["not: a blocklist of 4,000 words (items: {not: {enum: [...]}}) and 20,000 listed words (279 KB); each error copied the not subschema", `
    const words = [...Array(4000)].map((_, i) => "reserved" + i); const schema = { type: "array", items: { type: "string", not: { enum: words } } };
    const reply = JSON.stringify([...Array(20000)].map((_, i) => words[i % 4000]));
    const t = now(); const r = s.parseStructured(schema, reply); return { ok: r.ok, ms: now() - t, chars: reply.length, message: r.report?.issues[0]?.message.slice(0, 60) };`],
  "pattern-alternation": ["pattern: a 51 KB alternation ^(?:w0|w1|...)$ of 4,000 words and 20,000 strings outside it; each error copied the pattern", `
    const words = [...Array(4000)].map((_, i) => "reserved" + i); const schema = { type: "array", items: { type: "string", pattern: "^(?:" + words.join("|") + ")$" } };
    const reply = JSON.stringify([...Array(20000)].map((_, i) => "x" + i));
    const t = now(); const r = s.parseStructured(schema, reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "unevaluated-items-deep": ["unevaluatedItems: a closed recursive array (allOf [$ref base], unevaluatedItems: false) 126 deep around 30,000-char strings, one bad leaf (3.8 MB); each level's error held its items as text", `
    const schema = { $defs: { base: { type: ["array", "string"], items: { $ref: "#/$defs/node" } }, node: { allOf: [{ $ref: "#/$defs/base" }], unevaluatedItems: false } }, $ref: "#/$defs/node" };
    const str = JSON.stringify("x".repeat(30000)); const reply = ("[" + str + ",").repeat(126) + "1" + "]".repeat(126);
    const t = now(); const r = s.parseStructured(schema, reply); return { ok: r.ok, ms: now() - t, chars: reply.length, issues: r.report.issues.length };`],
  "enum-mixed-4m": ["parseStructured: 3.9 MB arrays whose items all equal the last option of an enum that is not all strings or integers: 1,000 codes and false, 1,000 objects, 250 floats", `
    const codes = [...Array(1000)].map((_, i) => "C" + String(i).padStart(3, "0"));
    const kinds = { codesAndFalse: [...codes, false], objects: codes.map((code) => ({ code })), floats: [...Array(250)].map((_, i) => i + 0.5) };
    const out = {}; for (const [kind, options] of Object.entries(kinds)) { const last = JSON.stringify(options.at(-1));
      const reply = '{"codes":[' + Array(Math.floor(3.9e6 / (last.length + 1))).fill(last).join(",") + "]}";
      const schema = { type: "object", properties: { codes: { type: "array", items: { enum: options } } }, required: ["codes"] };
      const t = now(); const r = s.parseStructured(schema, reply); out[kind] = Math.round(now() - t) + " ms" + (r.ok ? "" : " (not ok)"); }
    return out;`],
  "nested-arrays-4m": ["parseStructured: 4,000,000 chars of one-item arrays 120 deep ([[[…[1]…]]],…), the most room per character of text", `
    const one = "[".repeat(120) + "1" + "]".repeat(120); const reply = "[" + Array(Math.floor(4e6 / 242)).fill(one).join(",") + "]";
    const t = now(); const r = s.parseStructured({ type: "array" }, reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "nested-ndjson-4m": ["parseStructured with coerce: the same 120-deep one-item arrays as 16,528 NDJSON lines, against an array of arrays", `
    const one = "[".repeat(120) + "1" + "]".repeat(120); const reply = Array(Math.floor(4e6 / 242)).fill(one).join("\\n");
    const t = now(); const r = s.parseStructured({ type: "array", items: { type: "array" } }, reply, { coerce: true });
    return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "nested-objects-4m": ["parseStructured: 4,000,000 chars of one-key objects 120 deep ({\"a\":{\"a\":…{}…}},…)", `
    const one = '{"a":'.repeat(120) + "{}" + "}".repeat(120); const reply = "[" + Array(Math.floor(4e6 / 723)).fill(one).join(",") + "]";
    const t = now(); const r = s.parseStructured({ type: "array" }, reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "regex-names": ["format: regex on 60,000 named groups (552 KB; upstream checked each name against all before it)", `
    const reply = JSON.stringify([...Array(60000)].map((_, i) => "(?<g" + i.toString(36) + ">)").join("")); const schema = new s.Schema({ type: "string", format: "regex" });
    const t = now(); const r = schema.parse(reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "regex-largest-accepted": ["format: regex at every bound: 999 nested groups around 1,000 named groups, then 10,000 \\k references to the last name", `
    const names = [...Array(1000)].map((_, i) => "(?<g" + i + ">)").join(""); const refs = "\\\\k<g999>".repeat(10000);
    const reply = JSON.stringify("(?:".repeat(999) + names + ")".repeat(999) + refs); const schema = new s.Schema({ type: "string", format: "regex" });
    const t = now(); const r = schema.parse(reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
  "regex-nest-4m": ["format: regex on 3,900,000 characters of (, then as many ) (upstream kept two lists per open group)", `
    const reply = JSON.stringify("(".repeat(1.95e6) + ")".repeat(1.95e6)); const schema = new s.Schema({ type: "string", format: "regex" });
    const t = now(); const r = schema.parse(reply); return { ok: r.ok, ms: now() - t, chars: reply.length };`],
};

const PRELUDE = `
  const now = () => performance.now();
  const P = { system: "Reply with JSON.", user: "List the rows." };
  const SCHEMA = { type: "object", required: ["rows"], properties: { rows: { type: "array", items: {
    type: "object", required: ["id", "name", "ok"], properties: { id: { type: "integer" }, name: { type: "string" },
    ok: { type: "boolean" }, tags: { type: "array", items: { type: "string" } } } } } } };
  const ARRAYS = { type: "object", additionalProperties: { type: "array", items: { type: "string" } } };
  const rows = (mb) => { const out = []; let size = 10; for (let i = 0; size < mb * 1e6 - 80; i++) {
    const row = JSON.stringify({ id: i, name: "row " + i, ok: i % 2 === 0, tags: ["a", "b"] }); size += row.length + 1; out.push(row); }
    return '{"rows": [' + out.join(",") + "]}"; };
  const chain = (levels, noRef) => { const defs = {}; for (let i = 0; i < levels; i++) {
    const next = { $ref: "#/$defs/d" + (i + 1) }; defs["d" + i] = { allOf: [next, next] }; }
    defs["d" + levels] = { type: "string" }; return noRef ? { $defs: defs } : { $defs: defs, $ref: "#/$defs/d0" }; };
  const PROPS300 = {}; for (let i = 0; i < 300; i++) PROPS300["p" + i] = { type: "integer" };
  // Arrays of 3.9 MB of one small object repeated, against items: ITEMS; each timed, in this order.
  const objects4m = (ITEMS) => { const schema = new s.Schema({ type: "array", items: ITEMS }); const out = {};
    for (const item of ["{}", '{"z":1}', '{"p7":1}', '{"p7":"x"}']) { const reply = "[" + Array(Math.floor(3.9e6 / (item.length + 1))).fill(item).join(",") + "]";
      const t = now(); const r = schema.parse(reply); out[item] = Math.round(now() - t) + " ms" + (r.ok ? "" : " (" + r.report.issues.length + " issues)"); }
    return out; };
  const TINY = () => "[" + Array(999999).fill("[1]").join(",") + "]";
`;

function runCase(name) {
  const [, body] = CASES[name];
  const source = `
    const RealInstance = WebAssembly.Instance; let instance;
    WebAssembly.Instance = new Proxy(RealInstance, { construct(t, a, n) { const c = Reflect.construct(t, a, n); instance ??= c; return c; } });
    const s = require(${JSON.stringify(path.join(PKG, "selfheal.js"))});
    WebAssembly.Instance = RealInstance;
    const mb = () => +(instance.exports.memory.buffer.byteLength / 2 ** 20).toFixed(1);
    ${PRELUDE}
    const loaded = mb();
    const result = (() => { ${body} })();
    console.log(JSON.stringify({ loadedMb: loaded, peakMb: mb(), ...result }));
  `;
  const out = spawnSync(process.execPath, ["--max-old-space-size=4096", "-e", source], { encoding: "utf8", maxBuffer: 1 << 24 });
  if (out.status !== 0) return { error: (out.stderr || out.stdout).trim().split("\n").slice(-12).join(" ") };
  return JSON.parse(out.stdout.trim().split("\n").pop());
}

const json = process.argv.includes("--json");
const results = {};
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
for (const name of only.length ? only : Object.keys(CASES)) {
  results[name] = runCase(name);
  if (!json) console.log(`${name.padEnd(22)} ${CASES[name][0]}\n${" ".repeat(23)}${JSON.stringify(results[name])}`);
}
if (json) console.log(JSON.stringify(results, null, 2));

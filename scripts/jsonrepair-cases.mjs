// Extracts the input/expected pairs of jsonrepair's own test file (src/index.test.ts) into
// tests/corpus/jsonrepair/cases.json, the data tests/jsonrepair_cases.rs scores repair_json on.
//
//   node scripts/jsonrepair-cases.mjs path/to/jsonrepair/src/index.test.ts COMMIT > tests/corpus/jsonrepair/cases.json
//
// The test file is run, not parsed: its TypeScript is stripped with esbuild and its vitest calls
// (describe.each, test, expect(...).toBe/toEqual/toThrow) are replaced by recorders, so every
// expectation written with a computed string (concatenations, helpers) comes out as data. Each
// case is { "group", "input", "expected" }: `expected` is jsonrepair's output text, or null where
// jsonrepair throws (the input is not repairable).
import { readFileSync } from "node:fs";
import { transformSync } from "esbuild";

const [file, commit] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/jsonrepair-cases.mjs index.test.ts [commit]");
  process.exit(2);
}
let source = readFileSync(file, "utf8").replace(/^import .*$/gm, "");
source = transformSync(source, { loader: "ts", format: "esm" }).code;

const cases = [];
const seen = new Set();
let group = "";
const Input = class { constructor(text) { this.text = text; } };
function record(input, expected) {
  const key = JSON.stringify([input, expected]);
  if (seen.has(key)) return;
  seen.add(key);
  cases.push({ group, input, expected });
}
const jsonrepair = (text) => new Input(text);
function expect(actual) {
  return {
    toBe(expected) { if (actual instanceof Input) record(actual.text, expected); },
    toEqual(expected) { if (actual instanceof Input) record(actual.text, expected); },
    toThrow() {
      if (typeof actual !== "function") return;
      const realLog = console.log;
      let input;
      console.log = (o) => { if (o && o.output instanceof Input) input = o.output.text; };
      try { actual(); } finally { console.log = realLog; }
      if (input !== undefined) record(input, null);
    },
  };
}
function test(name, fn) {
  const outer = group;
  group = name;
  try { fn(); } catch { /* a test that uses the output as a string (JSON.parse of it) */ }
  group = outer;
}
function describe(name, fn) { fn(); }
// Both implementations (regular and streaming) run the same cases: record them once.
describe.each = (implementations) => (name, fn) => fn({ jsonrepair });
class JSONRepairError extends Error {}
const jsonrepairCore = () => ({ transform() {}, flush() {} });

new Function("describe", "test", "expect", "JSONRepairError", "jsonrepairCore", "jsonRepairRegular",
  source)(describe, test, expect, JSONRepairError, jsonrepairCore, jsonrepair);

process.stdout.write(JSON.stringify({
  source: "https://github.com/josdejong/jsonrepair/blob/" + (commit || "HEAD") + "/src/index.test.ts",
  license: "ISC, Copyright (c) 2020-2026 by Jos de Jong (LICENSE.md beside this file)",
  cases,
}, null, 1) + "\n");

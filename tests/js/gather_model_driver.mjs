// Run by tests/gather_model.rs (not a node:test file): reads a JSON array of thrown values as
// `JsThrown::layout` writes them (fuzz/src/js_error.rs), builds each as a real JS value, and
// prints the JSON array of what js/snippets/gather.js's `gatherError` returns for each.
import { readFileSync } from "node:fs";
import { gatherError } from "../../js/snippets/gather.js";

/** A layout as a JS value: objects without a prototype, `$num`, `$sym` and `$map` markers. */
function build(v) {
  if (Array.isArray(v)) return v.map(build);
  if (v === null || typeof v !== "object") return v;
  if ("$num" in v) return Number(v.$num);
  if ("$sym" in v) return Symbol("not a string or number");
  if ("$map" in v) return new Map(v.$map.map(build));
  const o = Object.create(null);
  for (const [k, x] of Object.entries(v)) o[k] = build(x);
  return o;
}

const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => gatherError(build(c)))));

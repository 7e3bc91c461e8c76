#!/usr/bin/env node
// The one change made to wasm-bindgen's JS glue: the trap seat belt (js/snippets/trap_guard.js, issue 10
// item 2). The glue's line that takes the instance's exports is made to take them through
// `__selfhealGuard`, and the guard's source is appended. scripts/build.sh runs this on both glues;
// tests/js/packaging.test.mjs applies the same function to a fresh wasm-bindgen run and expects
// the package's glue byte for byte, so nothing else is ever changed by hand.
//
//   node scripts/guard_glue.mjs <glue.js> <nodejs|web>     rewrites the file in place
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const GUARD = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "js", "snippets", "trap_guard.js");

/** Where each wasm-bindgen target takes the exports, and what it takes them through instead. */
const LINES = {
  nodejs: ["let wasm = wasmInstance.exports;", "let wasm = __selfhealGuard(wasmInstance.exports);"],
  web: ["    wasm = instance.exports;", "    wasm = __selfhealGuard(instance.exports);"],
};

/** The glue with the seat belt; throws if wasm-bindgen ever writes that line differently. */
export function guardGlue(source, target) {
  const [from, to] = LINES[target] ?? [];
  if (!from) throw new Error(`guard_glue: unknown target ${JSON.stringify(target)}`);
  if (source.split(from).length !== 2) {
    throw new Error(`guard_glue: expected exactly one ${JSON.stringify(from)} in the ${target} glue`);
  }
  return source.replace(from, to) + "\n" + readFileSync(GUARD, "utf8");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [file, target] = process.argv.slice(2);
  writeFileSync(file, guardGlue(readFileSync(file, "utf8"), target));
}

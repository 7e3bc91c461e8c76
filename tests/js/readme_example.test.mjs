// Runs the README's Node example exactly as written, with "selfheal" pointed at the built pkg/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function readmeExample(marker) {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const at = readme.indexOf(`<!-- example:${marker} -->`);
  assert.ok(at >= 0, `README has no example:${marker}`);
  const m = /```js\n([\s\S]*?)\n```\n/.exec(readme.slice(at));
  assert.ok(m, "example code block");
  return m[1];
}

/** Run a README example with "selfheal" pointed at the built pkg/; what it prints, trimmed. */
function run(code) {
  const pkg = pathToFileURL(join(root, "pkg", "index.cjs")).href; // the "node" entry: the glue plus heal
  const dir = mkdtempSync(join(tmpdir(), "selfheal-readme-"));
  const file = join(dir, "example.mjs");
  writeFileSync(file, code.replace('from "selfheal"', `from ${JSON.stringify(pkg)}`));
  return execFileSync(process.execPath, [file], { encoding: "utf8", timeout: 30000 }).trim();
}

test("the README's Node example runs and prints what it says", () => {
  const code = readmeExample("node");
  const expected = /\/\/ (\{"ok".*\})\s*$/.exec(code.trim())[1];
  assert.equal(run(code), expected);
});

test("the README's Streaming example runs and prints what it says", () => {
  const code = readmeExample("stream");
  const at = code.lastIndexOf("// Prints:\n");
  assert.ok(at > 0, "the example ends with what it prints");
  const expected = code.slice(at).split("\n").slice(1).map((l) => l.replace(/^\/\/ /, "")).join("\n");
  assert.equal(run(code), expected);
  assert.match(expected, /send-repair-prompt stream/, "the violation is one fix prompt");
});

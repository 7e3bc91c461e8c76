// Runs the README's "Use with" snippets exactly as written: each in its own Node process, in a
// folder whose node_modules has "selfheal" (the built pkg/) and this repository's packages, with
// the SDKs pointed at the local mock LLM server through their environment variables.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

import { startMockLlm } from "../mock-llm/server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
let dir;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "selfheal-use-with-"));
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (!name.startsWith(".")) symlinkSync(join(root, "node_modules", name), join(modules, name));
  }
  symlinkSync(join(root, "pkg"), join(modules, "selfheal"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The js block after `<!-- example:NAME -->`, and the output its closing comment lines promise. */
function snippet(name) {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const at = readme.indexOf(`<!-- example:${name} -->`);
  assert.ok(at >= 0, `README has no example:${name}`);
  const code = /```js\n([\s\S]*?)\n```\n/.exec(readme.slice(at))[1];
  const lines = code.split("\n");
  const expected = [];
  while (lines.length > 0 && lines[lines.length - 1].startsWith("// ")) expected.unshift(lines.pop().slice(3));
  assert.ok(expected.length > 0, `example:${name} ends with the output it prints`);
  return { code, expected };
}

async function runSnippet(name, script, env) {
  const mock = await startMockLlm({ script, idleTimeoutMs: 20_000 });
  try {
    const { code, expected } = snippet(name);
    const file = join(dir, `${name}.mjs`);
    writeFileSync(file, code);
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [file], {
      cwd: dir, timeout: 30_000, env: { ...process.env, ANTHROPIC_API_KEY: "test", OPENAI_API_KEY: "test", ...env(mock) },
    });
    assert.equal(stderr, "", "no warnings");
    assert.deepEqual(stdout.trimEnd().split("\n"), expected);
    return mock.requests;
  } finally {
    await mock.close();
  }
}

const sdkEnv = (mock) => ({ ANTHROPIC_BASE_URL: mock.anthropicBaseURL, OPENAI_BASE_URL: mock.openaiBaseURL });
const overloaded = { kind: "overloaded", headers: { "retry-after": "0.05" } };

test("Use with: Zod + heal (a refinement healed by one reask)", async () => {
  const requests = await runSnippet("use-zod", [
    { kind: "valid", value: { title: " Sync ", start: 10, end: 9 } },
    { kind: "valid", value: { title: " Sync ", start: 10, end: 11 } },
  ], sdkEnv);
  assert.equal(requests.length, 2);
  assert.match(requests[1].userText, /- \/end: end must be after start/);
});

test("Use with: the AI SDK middleware + Output.object with a Zod schema (529, then a fenced reply)", async () => {
  // @ai-sdk/anthropic's ANTHROPIC_BASE_URL includes the API version.
  const requests = await runSnippet("use-ai-sdk", [overloaded, "fenced-json"], (mock) => ({ ANTHROPIC_BASE_URL: `${mock.anthropicBaseURL}/v1` }));
  assert.deepEqual(requests.map((r) => r.kind), ["overloaded", "fenced-json"]);
  assert.ok(requests[1].at - requests[0].at >= 45, "retry-after honoured");
});

test("Use with: tool calls (broken arguments repaired against the tool's Zod schema)", async () => {
  const requests = await runSnippet("use-tools", [{ kind: "tool-call", name: "get_weather", arguments: "{city: 'Paris', 'unit': 'celsius',}" }], sdkEnv);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].body.tool_choice, "required");
});

test("Use with: OpenTelemetry (a span per call)", async () => {
  const requests = await runSnippet("use-otel", [overloaded, "valid"], sdkEnv);
  assert.equal(requests.length, 2);
});

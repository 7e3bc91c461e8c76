// The Cloudflare examples, run in workerd against the scripted mock LLM on 127.0.0.1:
//   examples/worker/          a Worker whose fetch handler wraps an LLM call with a RepairLoop
//   examples/durable-object/  a Durable Object that waits out a long backoff with a storage alarm
// Each example is bundled the way Wrangler does it (the `workerd` condition, the .wasm kept as a
// module) against selfheal installed from the packed tarball. Run with `make test-examples`.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startMockLlm } from "../mock-llm/server.mjs";
import { ROOT, WORKER_BUNDLE, bundle, installPackedPackage, scratch, taggedJson, workerdTest } from "./harness.mjs";

let nodeModules; // where "selfheal" is installed from the tarball

before(async () => {
  const { project } = await installPackedPackage();
  nodeModules = join(project, "node_modules");
});

/** Bundle `examples/<name>/src/index.js` into a scratch folder next to its test config. */
async function buildExample(name, testFiles) {
  const example = join(ROOT, "examples", name);
  const dir = scratch(name);
  mkdirSync(join(dir, "dist"));
  await bundle({
    absWorkingDir: example, entryPoints: [join(example, "src", "index.js")], outdir: join(dir, "dist"),
    nodePaths: [nodeModules], ...WORKER_BUNDLE,
  });
  for (const file of testFiles) copyFileSync(join(example, "test", file), join(dir, file));
  return join(dir, "config.capnp");
}

const ANSWER = { city: "Paris", country: "FR" };

test("Worker: a 429 is waited out in the handler, a fenced reply is repaired locally; a 401 degrades", async () => {
  const config = await buildExample("worker", ["config.capnp", "tester.js"]);
  const mock = await startMockLlm({
    script: [
      { kind: "rate-limited", retryAfter: 0, retryAfterMs: 10 },
      { kind: "fenced-json", value: ANSWER },
      "unauthorized",
    ],
    idleTimeoutMs: 60_000,
  });
  try {
    const { code, output } = await workerdTest(config, { env: { LLM_URL: mock.anthropicBaseURL } });
    assert.equal(code, 0, output);
    const [healed, degraded] = taggedJson(output, "RESULT");
    assert.deepEqual(healed, {
      status: 200,
      body: { ok: true, value: ANSWER, fixes: ["code-fence"], calls: 2, timeline: ["wait-for-backoff 10ms (rate-limited)", "done"] },
    });
    assert.equal(degraded.status, 503);
    assert.equal(degraded.body.ok, false);
    assert.equal(degraded.body.reason, "hard-fail");
    assert.deepEqual(degraded.body.fallback, { mode: "template", templateId: "location-unknown", text: "We could not determine the location." });
    // Real HTTP from the Worker to the mock: three Messages API calls, the key and prompt sent.
    assert.deepEqual(mock.requests.map((r) => [r.api, r.kind]), [
      ["anthropic", "rate-limited"], ["anthropic", "fenced-json"], ["anthropic", "unauthorized"],
    ]);
    assert.equal(mock.requests[0].headers["x-api-key"], "test-key");
    assert.deepEqual(taggedJson(output, "BAD"), [400, 400, 400, 400], "null, [], broken JSON, a number: 400s, no call");
    assert.equal(mock.requests[1].userText, "Where is the Eiffel Tower?");
    assert.ok(mock.requests[1].at - mock.requests[0].at >= 10, "the handler waited retry-after-ms");
  } finally {
    await mock.close();
  }
});

test("Durable Object: a long backoff is a storage alarm; the alarm restores the loop and finishes", async () => {
  const config = await buildExample("durable-object", ["config.capnp", "tester.js"]);
  const mock = await startMockLlm({
    script: [
      { kind: "rate-limited", retryAfterMs: 300 },
      { kind: "schema-mismatch", value: { city: "Paris" } },
      { kind: "fenced-json", value: ANSWER },
    ],
    idleTimeoutMs: 60_000,
  });
  try {
    const { code, output } = await workerdTest(config, { env: { LLM_URL: mock.anthropicBaseURL } });
    assert.equal(code, 0, output);
    const { started, final, polls } = taggedJson(output, "RESULT");
    // The request that started the call returned at once, with the wait scheduled as an alarm.
    assert.equal(started.status, 202);
    assert.equal(started.body.status, "waiting");
    assert.equal(started.body.delayMs, 300);
    assert.ok(!("loop" in started.body), "the loop state stays in storage");
    assert.ok(polls.includes("waiting"), "polled while the alarm was pending");
    // The alarm fired, restored the loop, called again, sent one repair prompt, and finished.
    assert.deepEqual(final.body.timeline, ["wait-for-backoff", "alarm", "send-repair-prompt", "done"]);
    assert.equal(final.body.status, "done");
    assert.deepEqual(final.body.value, ANSWER);
    assert.equal(final.body.calls, 3);
    assert.deepEqual(mock.requests.map((r) => r.kind), ["rate-limited", "schema-mismatch", "fenced-json"]);
    assert.ok(mock.requests[1].at - mock.requests[0].at >= 300, "the second call waited for the alarm");
    assert.match(mock.requests[2].userText, /failed validation/, "the third call is the repair prompt");
    assert.deepEqual(taggedJson(output, "BAD"), [
      { status: 400, body: { error: "question must be a non-empty string" } },
      { status: 404, body: { status: "unknown" } },
    ]);
  } finally {
    await mock.close();
  }
});

// Issue 10 in the Cloudflare Workers runtime (workerd), with the package's workerd entry
// (pkg/workerd.js: the .wasm imported as a module, initSync at load):
//
// * seeds (defect 6): a loop built at module scope, where Workers forbid random values, used to
//   seed the instance's shared seed stream from the clock (0 there), so every loop built later,
//   inside handlers, waited [1069, 1232, 1076, 1068, 1019] ms on every run in every isolate. Now
//   such a loop throws a clear Error (a loop with its own seed still works there), and loops
//   built in a handler draw from crypto: different delays per loop and per run;
// * heal's deadline (defect 7): a call in flight is cut at the deadline, in workerd's timers;
// * the trap seat belt (item 2): after a trap, one clear Error from every call;
// * the adapters (item 6) with the real SDKs bundled into a Worker, against the mock LLM on
//   127.0.0.1: a stream cut without its final event is "incomplete" and reasked, an HTTP-200
//   error body is the 502 it says.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PKG, ROOT, WORKER_BUNDLE, bundle, scratch, taggedJson, workerdTest } from "../packaging/harness.mjs";
import { startMockLlm } from "../mock-llm/server.mjs";

const WORKER = `
import { RepairLoop, classify } from "selfheal";
import { createHeal } from "selfheal-heal";

const prompt = { system: "s", user: "u" };
const attempt = (fn) => { try { return { ok: fn() }; } catch (e) { return { error: e.message, name: e.constructor.name }; } };
// Module scope: no random values here.
const unseeded = attempt(() => { new RepairLoop({ prompt }).free(); return "built"; });
const seeded = attempt(() => { const l = new RepairLoop({ prompt, seed: 5 }); const d = l.next({ kind: "error", error: { status: 503 } }, 0).delayMs; l.free(); return d; });

const delays = () => {
  const loop = new RepairLoop({ prompt, budget: { transient: 10 } });
  const out = [];
  for (let i = 0; i < 5; i++) out.push(loop.next({ kind: "error", error: { status: 503 } }, 0).delayMs);
  loop.free();
  return out;
};

export default {
  async test() {
    const heal = createHeal(RepairLoop);
    const t0 = Date.now();
    let calls = 0;
    let signal = null;
    const healed = await heal(async (p, ctx) => {
      calls += 1;
      if (calls === 1) return { text: "not json" };
      signal = ctx.signal;
      return new Promise(() => {}); // never answers
    }, { prompt, schema: { type: "object" }, mode: "reask", budget: { deadlineMs: 150 } });
    const result = {
      unseeded, seeded,
      a: delays(), b: delays(),
      heal: { type: healed.type, reason: healed.reason, elapsedMs: Date.now() - t0, aborted: signal?.aborted ?? null, why: signal?.reason?.name ?? null },
    };
    // Last: force a trap (a method on a forged object whose pointer lies beyond the memory).
    result.trap = attempt(() => RepairLoop.prototype.next.call({ __wbg_ptr: 0xFFFFFF00 }, { kind: "reply", text: "{}" }));
    result.afterTrap = attempt(() => classify({ status: 503 }));
    console.log("RESULT " + JSON.stringify(result));
  },
};
`;

const CONFIG = `
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "issue10", worker = .worker) ] );
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "selfheal_bg.wasm", wasm = embed "selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
);
`;

let config;

before(async () => {
  const dir = scratch("workerd-issue10");
  writeFileSync(join(dir, "entry.mjs"), WORKER);
  await bundle({
    absWorkingDir: dir,
    entryPoints: ["entry.mjs"],
    outfile: join(dir, "worker.js"),
    alias: { selfheal: join(PKG, "workerd.js"), "selfheal-heal": join(PKG, "heal.mjs") },
    ...WORKER_BUNDLE,
  });
  writeFileSync(join(dir, "config.capnp"), CONFIG);
  config = join(dir, "config.capnp");
});

async function runWorker() {
  const { code, output } = await workerdTest(config);
  assert.equal(code, 0, output);
  return taggedJson(output, "RESULT");
}

test("workerd: seeds, heal's deadline and the trap seat belt", async () => {
  const first = await runWorker();
  // A loop without a seed at module scope: one clear Error, not a silent fixed seed.
  assert.equal(first.unseeded.name, "Error");
  assert.match(first.unseeded.error, /no random source is available here/);
  assert.match(first.unseeded.error, /inside the handler, or pass options\.seed/);
  assert.equal(typeof first.seeded.ok, "number", "a loop with its own seed works at module scope");
  // Loops built in the handler draw properly: not the clock-seeded series, not each other's.
  assert.notDeepEqual(first.a, [1069, 1232, 1076, 1068, 1019]);
  assert.notDeepEqual(first.a, first.b);
  const second = await runWorker();
  assert.notDeepEqual(first.a, second.a, "another isolate draws other delays");
  // heal: the call in flight is cut at the deadline.
  assert.deepEqual({ ...first.heal, elapsedMs: undefined }, { type: "degrade", reason: "deadline-exceeded", elapsedMs: undefined, aborted: true, why: "TimeoutError" });
  assert.ok(first.heal.elapsedMs < 2000, `${first.heal.elapsedMs} ms`);
  // The trap seat belt in the web glue.
  assert.equal(first.trap.name, "Error");
  assert.match(first.trap.error, /^selfheal: the WebAssembly instance trapped/);
  assert.deepEqual(first.afterTrap, first.trap);
});

// ---------- the adapters, with the real SDKs, in workerd ----------

const ADAPTERS = `
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { RepairLoop } from "selfheal";
import { createHeal, anthropicCaller, openaiCaller } from "selfheal-heal";

const prompt = { system: "Reply with JSON.", user: "List the items." };
const schema = { type: "object", properties: { items: { type: "array" } } };

export default {
  async test(ctrl, env) {
    const heal = createHeal(RepairLoop);
    const anthropic = new Anthropic({ baseURL: env.MOCK_URL, apiKey: "test", maxRetries: 0 });
    const openai = new OpenAI({ baseURL: env.MOCK_URL + "/v1", apiKey: "test", maxRetries: 0 });
    const run = async (call) => {
      const steps = [];
      const r = await heal(call, { prompt, schema, seed: 1, backoff: { baseMs: 5, jitterMs: 1 },
        onStep: (o, s) => steps.push([o.stopReason ?? o.error?.status ?? null, s.type]) });
      return { type: r.type, source: r.source ?? null, value: r.value ?? null, steps };
    };
    const result = {
      anthropicStream: await run(anthropicCaller(anthropic, { model: "m", stream: true })),
      openaiStream: await run(openaiCaller(openai, { model: "m", stream: true })),
      openai200: await run(openaiCaller(openai, { model: "m" })),
    };
    console.log("RESULT " + JSON.stringify(result));
  },
};
`;

const ADAPTERS_CONFIG = `
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [
  (name = "adapters", worker = .worker),
  (name = "loopback", network = (allow = ["127.0.0.1/32"])),
] );
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "selfheal_bg.wasm", wasm = embed "selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  bindings = [ (name = "MOCK_URL", fromEnvironment = "MOCK_URL") ],
  globalOutbound = "loopback",
);
`;

test("workerd: the SDK adapters report a cut stream as incomplete and an HTTP-200 error body as its status", async () => {
  const dir = scratch("workerd-adapters");
  writeFileSync(join(dir, "entry.mjs"), ADAPTERS);
  await bundle({
    absWorkingDir: dir,
    entryPoints: ["entry.mjs"],
    outfile: join(dir, "worker.js"),
    nodePaths: [join(ROOT, "node_modules")],
    alias: { selfheal: join(PKG, "workerd.js"), "selfheal-heal": join(PKG, "heal.mjs") },
    ...WORKER_BUNDLE,
  });
  writeFileSync(join(dir, "config.capnp"), ADAPTERS_CONFIG);
  const items = { items: [1, 2, 3, 4, 5, 6] };
  const cut = '{"items": [1, 2, 3';
  const mock = await startMockLlm({
    script: {
      anthropic: [{ kind: "stream-cut", text: cut }, { kind: "valid", value: items }],
      openai: [{ kind: "stream-cut", text: cut }, { kind: "valid", value: items }, { kind: "error-200", code: 502 }, { kind: "valid", value: items }],
    },
    idleTimeoutMs: 60_000,
  });
  try {
    const { code, output } = await workerdTest(join(dir, "config.capnp"), { env: { MOCK_URL: mock.url } });
    assert.equal(code, 0, output);
    const r = taggedJson(output, "RESULT");
    for (const name of ["anthropicStream", "openaiStream"]) {
      assert.deepEqual(r[name].steps[0], ["incomplete", "send-repair-prompt"], name);
      assert.deepEqual([r[name].type, r[name].source, r[name].value], ["done", "repaired", items], name);
    }
    assert.deepEqual(r.openai200.steps, [[502, "wait-for-backoff"], ["stop", "done"]]);
    assert.deepEqual(r.openai200.value, items);
  } finally {
    await mock.close();
  }
});

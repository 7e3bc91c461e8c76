// examples/fleet in workerd: one FleetCoordinator Durable Object per provider endpoint holds the
// CircuitBreaker and the RetryBudget for three Worker isolates (app-1..3 in
// examples/fleet/test/config.capnp), against the mock LLM answering 529 overloaded.
//
// Each scenario runs `workerd test` twice on one storage folder (localDisk): the second process
// is the restart, and the coordinator must come back from disk with nothing lost. The tester
// (examples/fleet/test/tester.js) plays a plan of waves of concurrent requests and prints what
// the Workers answered and what the coordinator holds; the checks are here. The measured cost
// (round trips per request, their latency) is printed as a COST line. Run with `make test-examples`.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startMockLlm } from "../mock-llm/server.mjs";
import { ROOT, WORKER_BUNDLE, bundle, installPackedPackage, scratch, taggedJson, workerdTest } from "./harness.mjs";

const ANSWER = { city: "Paris", country: "FR" };
const REASONS = new Set(["circuit-open", "retry-budget-exhausted", "transient-exhausted"]);

let built; // { dist, tester, config }: the example bundled once against the packed package

before(async () => {
  const { project } = await installPackedPackage();
  const example = join(ROOT, "examples", "fleet");
  const dir = scratch("fleet-build");
  await bundle({
    absWorkingDir: example, entryPoints: [join(example, "src", "index.js")], outdir: join(dir, "dist"),
    nodePaths: [join(project, "node_modules")], ...WORKER_BUNDLE,
  });
  built = { dir, example };
});

/** A folder with the built example, the test config and an empty storage/ for the objects. */
function deployment() {
  const dir = scratch("fleet");
  mkdirSync(join(dir, "dist"));
  mkdirSync(join(dir, "storage"));
  for (const file of ["index.js", "selfheal_bg.wasm"]) copyFileSync(join(built.dir, "dist", file), join(dir, "dist", file));
  for (const file of ["config.capnp", "tester.js"]) copyFileSync(join(built.example, "test", file), join(dir, file));
  return join(dir, "config.capnp");
}

/** One workerd process playing `plan`; returns what the tester saw and the process output. */
async function run(config, { mock, policy, plan }) {
  const { code, output } = await workerdTest(config, {
    env: { LLM_URL: mock.anthropicBaseURL, FLEET_POLICY: JSON.stringify(policy), PHASE: JSON.stringify(plan) },
  });
  assert.equal(code, 0, output);
  return { seen: taggedJson(output, "RESULT"), output };
}

/** A mock LLM on `port` (0: any): 529 overloaded, except a valid reply to a "healthy" question. */
function mockLlm(port = 0) {
  return startMockLlm({
    port,
    whenEmpty: (request) => (request?.userText?.includes("healthy") ? { kind: "valid", value: ANSWER } : "overloaded"),
    maxRequests: 5000,
    idleTimeoutMs: 60_000,
  });
}

/** What a wave of answers adds up to. */
function sum(responses) {
  const reasons = {};
  let calls = 0;
  let resends = 0;
  let firstCalls = 0;
  const isolates = new Map(); // isolate -> { app, reasons }
  for (const { app, status, body } of responses) {
    const what = body.ok ? "done" : body.reason;
    reasons[what] = (reasons[what] ?? 0) + 1;
    assert.equal(status, body.ok ? 200 : 503, JSON.stringify(body));
    calls += body.calls;
    if (body.calls > 0) firstCalls += 1;
    resends += Math.max(0, body.calls - 1);
    const seen = isolates.get(body.isolate) ?? { app, reasons: new Set() };
    assert.equal(seen.app, app, "an isolate serves one app");
    seen.reasons.add(what);
    isolates.set(body.isolate, seen);
  }
  return { reasons, calls, resends, firstCalls, isolates, asks: responses.flatMap((r) => r.body.asks ?? []) };
}

const waves = (seen) => seen.filter((s) => s.wave).map((s) => s.wave);
const inspections = (seen) => seen.filter((s) => s.inspect).map((s) => s.inspect);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
/** The state a restart must keep (everything but the times it was loaded and read). */
const kept = ({ loadedAt: _l, inspectedAt: _i, ...state }) => state;

test("one breaker for the fleet: three isolates see it open once; after a restart it is still open", async () => {
  const policy = {
    breaker: { failureThreshold: 10, resetTimeoutMs: 60_000 },
    retryBudget: { ratio: 0.1, minPerSecond: 0.1, windowMs: 60_000 },
    flushMs: 200,
  };
  const config = deployment();
  let mock = await mockLlm();
  const port = mock.port;
  let first;
  try {
    first = await run(config, {
      mock, policy,
      plan: [
        { inspect: true },
        { wave: { perApp: 30, question: "healthy: where is the Eiffel Tower?" } },
        { sleep: 500 },
        { inspect: true },
        { wave: { perApp: 30, question: "where is the Eiffel Tower?" } },
        { sleep: 500 },
        { inspect: true },
        { wave: { perApp: 10, question: "where is the Colosseum?" } },
        { inspect: true },
      ],
    });
    const [healthy, outage, after] = waves(first.seen).map(sum);
    const [empty, calm, opened, still] = inspections(first.seen);
    assert.equal(empty.version, 0, "a new object");
    assert.equal(empty.breakerState, "closed");

    // Healthy traffic: 90 first calls from three isolates, no round trip on any request's path;
    // the first calls reach the coordinator in background reports.
    assert.deepEqual(healthy.reasons, { done: 90 });
    assert.equal(healthy.isolates.size, 3, "three isolates");
    assert.equal(healthy.calls, 90);
    assert.deepEqual(healthy.asks, [], "no request waited on the coordinator");
    assert.equal(calm.stats.asks, 0);
    assert.equal(calm.stats.firstCalls, 90, "every first call was reported");
    // At most one report per isolate every flushMs, plus the cold isolate's first ask.
    const spanMs = first.seen.find((s) => s.wave).ms + 500;
    const reportBound = 3 * (2 + Math.ceil(spanMs / policy.flushMs));
    assert.ok(calm.stats.reports <= reportBound, `${calm.stats.reports} reports for 90 requests in ${spanMs} ms`);

    // The outage: 90 concurrent requests, every call answered 529.
    for (const reason of Object.keys(outage.reasons)) assert.ok(REASONS.has(reason), `named reason: ${reason}`);
    assert.equal(outage.isolates.size, 3);
    for (const [isolate, { reasons }] of outage.isolates) {
      assert.ok(reasons.has("circuit-open"), `isolate ${isolate} saw the fleet's breaker open`);
    }
    assert.deepEqual(opened.transitions.map(({ from, to }) => `${from}->${to}`), ["closed->open"], "opened once");
    assert.equal(opened.breakerState, "open");
    // Once open for one, open for all: no resend after the failureThreshold-th failure fleet-wide.
    assert.ok(outage.resends <= policy.breaker.failureThreshold - 1, `${outage.resends} resends`);
    assert.equal(opened.stats.granted, outage.resends, "every resend was granted by the coordinator");
    // One round trip per failed call (each asked to resend), none per first call.
    assert.equal(opened.stats.asks - calm.stats.asks, outage.calls);
    assert.equal(outage.asks.length, outage.calls);

    // Later requests: every isolate knows the breaker is open; no call leaves.
    assert.deepEqual(after.reasons, { "circuit-open": 30 });
    assert.equal(after.calls, 0);
    assert.deepEqual(kept(still), kept(opened), "nothing changed: those requests made no call");
    assert.equal(mock.requests.length, healthy.calls + outage.calls + after.calls);

    // The restart: a new workerd process, the same storage folder and endpoint.
    await mock.close();
    mock = await mockLlm(port);
    const second = await run(config, {
      mock, policy,
      plan: [{ inspect: true }, { wave: { perApp: 30, question: "where is the Louvre?" } }, { sleep: 300 }, { inspect: true }],
    });
    const [restored, later] = inspections(second.seen);
    const [wave] = waves(second.seen).map(sum);
    assert.ok(restored.loadedAt > still.inspectedAt, "the object was loaded again");
    assert.deepEqual(kept(restored), kept(still), "breaker, budget, counters and transitions all came back");
    assert.deepEqual(wave.reasons, { "circuit-open": 90 }, "still open for every isolate");
    assert.equal(wave.isolates.size, 3);
    assert.equal(mock.requests.length, 0, "no call reached the provider after the restart");
    assert.deepEqual(later.transitions, restored.transitions, "it did not open again");
    const cold = second.seen.find((s) => s.wave).wave.filter((r) => r.body.admitted.asked).length;

    console.log("COST " + JSON.stringify({
      healthy: { requests: 90, isolates: 3, asks: calm.stats.asks, reports: calm.stats.reports, ms: spanMs },
      outage: {
        requests: 90, calls: outage.calls, resends: outage.resends, asks: outage.asks.length,
        askMs: { median: quantile(outage.asks, 0.5), p90: quantile(outage.asks, 0.9), max: Math.max(...outage.asks) },
      },
      afterRestart: { requests: 90, coldAsks: cold, calls: 0 },
    }));
  } finally {
    await mock.close();
  }
});

test("one retry budget for the fleet: resends stay within ratio x first calls + reserve across isolates and a restart", async () => {
  const budget = { ratio: 0.1, minPerSecond: 0.1, windowMs: 60_000 }; // the whole test is one window
  const policy = { breaker: { failureThreshold: 1_000_000, resetTimeoutMs: 60_000 }, retryBudget: budget, flushMs: 100 };
  const bound = (firstCalls) => budget.ratio * firstCalls + (budget.minPerSecond * budget.windowMs) / 1000;
  const config = deployment();
  let mock = await mockLlm();
  const port = mock.port;
  try {
    const first = await run(config, {
      mock, policy,
      plan: [{ wave: { perApp: 30, question: "where is the Eiffel Tower?" } }, { sleep: 300 }, { inspect: true }],
    });
    const [a] = waves(first.seen).map(sum);
    const [afterA] = inspections(first.seen);
    assert.equal(a.isolates.size, 3);
    for (const reason of Object.keys(a.reasons)) assert.ok(REASONS.has(reason), `named reason: ${reason}`);
    assert.ok(a.reasons["retry-budget-exhausted"] > 0, "the budget refused resends");
    assert.ok(a.resends <= bound(a.firstCalls), `${a.resends} resends for ${a.firstCalls} first calls`);
    assert.equal(afterA.stats.granted, a.resends);
    assert.equal(afterA.stats.firstCalls, a.firstCalls);
    // Three budgets of one isolate each would have allowed bound(30) apiece.
    const perIsolate = [...a.isolates.keys()].length * bound(30);
    assert.ok(a.resends < perIsolate);
    // For the restart below to prove anything, a budget forgotten there must be able to break the
    // bound: this run must have spent enough of it.
    assert.ok(a.resends + Math.floor(bound(90)) > bound(180), `only ${a.resends} resends before the restart`);

    await mock.close();
    mock = await mockLlm(port);
    const second = await run(config, {
      mock, policy,
      plan: [
        { inspect: true },
        { wave: { perApp: 30, question: "where is the Louvre?" } },
        { sleep: 300 },
        { inspect: true },
        { serial: { count: 20, question: "where is the Colosseum?" } },
      ],
    });
    const [restored, afterB] = inspections(second.seen);
    const [b] = waves(second.seen).map(sum);
    assert.deepEqual(kept(restored), kept(afterA), "the budget came back as it was");
    assert.equal(b.isolates.size, 3);
    for (const reason of Object.keys(b.reasons)) assert.ok(REASONS.has(reason), `named reason: ${reason}`);
    const resends = a.resends + b.resends;
    const firstCalls = a.firstCalls + b.firstCalls;
    assert.ok(resends <= bound(firstCalls), `${resends} resends for ${firstCalls} first calls, across the restart`);
    assert.equal(afterB.stats.granted, resends);

    // One request at a time: the round trip alone, without the queue of a burst. Every call
    // fails, so every call asks once; the budget still holds with these first calls counted.
    const c = sum(second.seen.find((s) => s.serial).serial);
    assert.equal(c.asks.length, c.calls, "one round trip per resend asked");
    assert.ok(resends + c.resends <= bound(firstCalls + c.firstCalls));
    assert.equal(mock.requests.length, b.calls + c.calls);
    console.log("COST " + JSON.stringify({
      budget: { firstCalls: firstCalls + c.firstCalls, resends: resends + c.resends, bound: bound(firstCalls + c.firstCalls) },
      serialAskMs: { median: quantile(c.asks, 0.5), p90: quantile(c.asks, 0.9), max: Math.max(...c.asks) },
    }));
  } finally {
    await mock.close();
  }
});

test("a coordinator out of reach: each isolate's own copy decides, as a per-isolate breaker and budget", async () => {
  const policy = {
    breaker: { failureThreshold: 5, resetTimeoutMs: 60_000 },
    retryBudget: { ratio: 0.1, minPerSecond: 0.1, windowMs: 60_000 },
    flushMs: 100,
  };
  const mock = await mockLlm();
  try {
    const { seen, output } = await run(deployment(), {
      mock, policy,
      plan: [
        { wave: { perApp: 30, question: "where is the Eiffel Tower?", apps: [4] } },
        { wave: { perApp: 10, question: "where is the Colosseum?", apps: [4] } },
      ],
    });
    const [outage, after] = waves(seen).map(sum);
    assert.match(output, /fleet: coordinator .* unreachable .*deciding locally/);
    for (const reason of Object.keys(outage.reasons)) assert.ok(REASONS.has(reason), `named reason: ${reason}`);
    assert.ok(outage.reasons["circuit-open"] > 0, "the isolate's own breaker opened");
    assert.ok(outage.resends <= policy.breaker.failureThreshold - 1, `${outage.resends} resends`);
    assert.deepEqual(outage.asks, [], "no answer from the coordinator");
    assert.deepEqual(after.reasons, { "circuit-open": 10 });
    assert.equal(after.calls, 0);
    assert.equal(mock.requests.length, outage.calls);
  } finally {
    await mock.close();
  }
});

// A Worker whose LLM calls share one circuit breaker and one retry budget with every other isolate
// calling the same provider endpoint, through a Durable Object (src/coordinator.js).
//
//   POST /       {"question": "..."}  ->  200 {"ok": true, "value", "calls", ...}
//                                          503 {"ok": false, "reason", "detail", "fallback", "calls", ...}
//   GET  /fleet  what the endpoint's coordinator holds (breaker, budget, counters, transitions)
//
// The host loop is examples/worker's, with the loop made by `fleet.start()`, `fleet.next()` in
// place of `loop.next()`, and a look at the fleet's breaker (`fleet.admit()`) before the first
// call. Cost: one round trip to the coordinator per resend the loop asks for; first calls,
// successes and failures that ask for nothing are reported in the background, at most one report
// per isolate every `flushMs` (README "Running a fleet"). GET /fleet is for operators: put it
// behind your own access check in production.
import { Schema } from "selfheal";
import { callModel } from "../../worker/src/anthropic.js";
import { endpointName, fleetFor } from "./fleet.js";

export { FleetCoordinator } from "./coordinator.js";

// Compiled once per isolate, at module scope (README, "In Cloudflare Workers").
const SCHEMA = new Schema({
  type: "object",
  required: ["city", "country"],
  properties: { city: { type: "string" }, country: { type: "string" } },
});
const FALLBACK = { mode: "template", templateId: "location-unknown", text: "We could not determine the location." };
const MAX_WAIT_MS = 10_000;
// One call may take this long; then its fetch is aborted with a TimeoutError (transient/timeout).
const CALL_TIMEOUT_MS = 20_000;

let isolate = null; // a name for this isolate, drawn in the first handler (random values only there)

export default {
  async fetch(request, env, ctx) {
    isolate ??= crypto.randomUUID();
    const fleet = fleetFor(env, endpointName(env.LLM_URL));
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/fleet") {
      return json(await fleet.stub(env).inspect());
    }
    if (request.method !== "POST" || url.pathname !== "/") return json({ error: "POST / {\"question\": string} or GET /fleet" }, 404);
    // `?? {}`: a JSON `null` body parses, and has no fields.
    const { question } = (await request.json().catch(() => null)) ?? {};
    if (typeof question !== "string" || question === "") return json({ error: "question must be a non-empty string" }, 400);
    try {
      return await answer(env, fleet, question);
    } finally {
      fleet.settle(env, ctx);
    }
  },
};

async function answer(env, fleet, question) {
  const admitted = await fleet.admit(env);
  const report = { isolate, admitted };
  if (admitted.open) {
    // The fleet's breaker is open: no call at all (the loop only checks before the calls it asks for).
    return json({ ok: false, reason: "circuit-open", detail: "the fleet's circuit breaker is open; no call was made",
                  fallback: FALLBACK, calls: 0, timeline: ["circuit-open"], ...report }, 503);
  }
  const prompt = { system: "Reply with JSON only: {\"city\": string, \"country\": string}.", user: question };
  const call = fleet.start({
    prompt,
    schema: SCHEMA,
    fallback: FALLBACK,
    budget: { deadlineMs: 30_000 },
    backoff: { baseMs: Number(env.BACKOFF_BASE_MS ?? 500), maxMs: MAX_WAIT_MS, maxRetryAfterMs: MAX_WAIT_MS },
  });
  const timeline = [];
  try {
    let next = prompt;
    for (;;) {
      const outcome = await callModel(env, next, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
      const step = await fleet.next(env, call, outcome);
      timeline.push(step.type === "degrade" ? step.reason : step.type);
      const end = { calls: step.attempts, timeline, asks: call.asks, ...report };
      switch (step.type) {
        case "done":
          return json({ ok: true, value: step.value, fixes: step.fixes, ...end });
        case "degrade":
          return json({ ok: false, reason: step.reason, detail: step.detail, fallback: step.fallback, ...end }, 503);
        case "wait-for-backoff":
          await scheduler.wait(step.delayMs);
          next = step.prompt;
          break;
        case "send-repair-prompt":
          next = step.prompt;
          break;
      }
    }
  } finally {
    call.loop.free();
  }
}

function json(body, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

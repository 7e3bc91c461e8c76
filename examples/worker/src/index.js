// A Cloudflare Worker that wraps an LLM call with selfheal.
//
//   POST /  {"question": "Where is the Eiffel Tower?"}
//   200     {"ok": true, "value": {...}, "fixes": [...], "calls": 2, "timeline": [...]}
//   503     {"ok": false, "reason": "...", "detail": "...", "fallback": {...}, "timeline": [...]}
//
// "selfheal" resolves to the package's workerd entry (the `workerd` export condition), which
// imports the .wasm as a module and instantiates it synchronously at load: Workers forbid
// compiling wasm from bytes at request time. `heal` (exported by every entry, bound to its
// RepairLoop) is the host loop: it makes each call, waits out each backoff with a timer, sends
// repair prompts and returns the final instruction. The loop is created inside the handler
// because a RepairLoop without a seed draws its jitter seed from crypto, and Workers allow
// random values only inside a handler.
import { heal } from "selfheal";
import { callModel } from "./anthropic.js";

const SCHEMA = {
  type: "object",
  required: ["city", "country"],
  properties: { city: { type: "string" }, country: { type: "string" } },
};

const FALLBACK = { mode: "template", templateId: "location-unknown", text: "We could not determine the location." };

// Waits happen inside the request, so keep them short: a server that asks for more than
// MAX_WAIT_MS degrades at once ("retry-after-too-long"), and the whole loop is time-boxed.
// For long backoffs, hand the loop to a Durable Object (examples/durable-object/).
const MAX_WAIT_MS = 10_000;
// One call may take this long; then its fetch is aborted with a TimeoutError, which classify()
// reads as transient/timeout: waited out and resent like a 503.
const CALL_TIMEOUT_MS = 20_000;

export default {
  async fetch(request, env) {
    if (request.method !== "POST") return json({ error: "POST a JSON body {\"question\": string}" }, 405);
    // `?? {}`: a JSON `null` body parses, and has no fields.
    const { question } = (await request.json().catch(() => null)) ?? {};
    if (typeof question !== "string" || question === "") return json({ error: "question must be a non-empty string" }, 400);

    const prompt = { system: "Reply with JSON only: {\"city\": string, \"country\": string}.", user: question };
    const timeline = [];
    const result = await heal(
      async (request, { signal }) => {
        // Each call is bounded on its own; heal's signal (set while budget.deadlineMs runs) too.
        const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
        const outcome = await callModel(env, request, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
        if (outcome.kind === "error") throw outcome.error; // heal feeds what a call throws to the loop
        return outcome;
      },
      {
        prompt,
        schema: SCHEMA,
        fallback: FALLBACK,
        budget: { deadlineMs: 30_000 },
        backoff: { maxMs: MAX_WAIT_MS, maxRetryAfterMs: MAX_WAIT_MS },
        onStep: (_outcome, step) =>
          timeline.push(step.type === "wait-for-backoff" ? `${step.type} ${step.delayMs}ms (${step.classified.cause})` : step.type),
      },
    );
    return result.type === "done"
      ? json({ ok: true, value: result.value, fixes: result.fixes, calls: result.attempts, timeline })
      : json({ ok: false, reason: result.reason, detail: result.detail, fallback: result.fallback, timeline }, 503);
  },
};

function json(body, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

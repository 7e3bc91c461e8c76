// A Cloudflare Worker that wraps an LLM call with selfheal.
//
//   POST /  {"question": "Where is the Eiffel Tower?"}
//   200     {"ok": true, "value": {...}, "fixes": [...], "calls": 2, "timeline": [...]}
//   503     {"ok": false, "reason": "...", "detail": "...", "fallback": {...}, "timeline": [...]}
//
// "selfheal" resolves to the package's workerd entry (the `workerd` export condition), which
// imports the .wasm as a module and instantiates it synchronously at load: Workers forbid
// compiling wasm from bytes at request time. Loops are created inside the handler because a
// RepairLoop without a seed draws its jitter seed from crypto, and Workers allow random values
// only inside a handler (built at global scope without a seed, it throws an Error saying so).
import { RepairLoop } from "selfheal";
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
    const { question } = await request.json().catch(() => ({}));
    if (typeof question !== "string" || question === "") return json({ error: "question must be a non-empty string" }, 400);

    const prompt = { system: "Reply with JSON only: {\"city\": string, \"country\": string}.", user: question };
    const loop = new RepairLoop({
      prompt,
      schema: SCHEMA,
      fallback: FALLBACK,
      budget: { deadlineMs: 30_000 },
      backoff: { maxMs: MAX_WAIT_MS, maxRetryAfterMs: MAX_WAIT_MS },
    });
    const timeline = [];
    try {
      let next = prompt;
      for (;;) {
        const outcome = await callModel(env, next, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
        const step = loop.next(outcome);
        timeline.push(step.type === "wait-for-backoff" ? `${step.type} ${step.delayMs}ms (${step.classified.cause})` : step.type);
        switch (step.type) {
          case "done":
            return json({ ok: true, value: step.value, fixes: step.fixes, calls: step.attempts, timeline });
          case "degrade":
            return json({ ok: false, reason: step.reason, detail: step.detail, fallback: step.fallback, timeline }, 503);
          case "wait-for-backoff":
            await scheduler.wait(step.delayMs); // Workers' timer; setTimeout works too
            next = step.prompt;
            break;
          case "send-repair-prompt":
            next = step.prompt;
            break;
        }
      }
    } finally {
      loop.free();
    }
  },
};

function json(body, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

// A Durable Object that makes an LLM call survive long backoffs without sleeping in a request.
//
//   POST /calls      {"question": "..."}  ->  202 {"id": "..."}   (the first call is made at once)
//   GET  /calls/:id                       ->  200 {"status": "waiting" | "done" | "degraded", ...}
//
// When the RepairLoop says wait-for-backoff, the object stores `loop.toJSON()` and the prompt to
// resend in its storage, sets a storage alarm for `now + delayMs`, and returns. The alarm handler
// restores the loop with `RepairLoop.fromJSON()`, makes the next call, and either finishes (the
// result is stored) or schedules the next alarm. Nothing waits in memory: the object may be
// evicted between alarms, and a retry-after of minutes costs nothing.
//
// Why not `heal`: heal waits in memory, inside one request. This object must return on every wait
// and resume from storage in another invocation, so it drives the loop's `next()` step by step
// (as examples/host-loop.mjs does on purpose, to show the step API).
import { DurableObject } from "cloudflare:workers";
import { RepairLoop } from "selfheal";
import { callModel } from "../../worker/src/anthropic.js";

const SCHEMA = {
  type: "object",
  required: ["city", "country"],
  properties: { city: { type: "string" }, country: { type: "string" } },
};
/** How long one model call may take. */
const CALL_TIMEOUT_MS = 20_000;
const FALLBACK = { mode: "template", templateId: "location-unknown", text: "We could not determine the location." };

export class HealingCall extends DurableObject {
  /** Start the job: create the loop (its jitter seed comes from crypto: inside a handler) and call. */
  async start(question) {
    const existing = await this.ctx.storage.get("job");
    if (existing) return publicView(existing);
    const prompt = { system: "Reply with JSON only: {\"city\": string, \"country\": string}.", user: question };
    const loop = new RepairLoop({
      prompt,
      schema: SCHEMA,
      fallback: FALLBACK,
      // Long waits are fine here: honour a retry-after of up to an hour, and up to 10 resends.
      backoff: { maxMs: 600_000, maxRetryAfterMs: 3_600_000 },
      budget: { transient: 10 },
    });
    return this.#run(loop, prompt, { status: "running", question, timeline: [] });
  }

  /** The job's state as stored: waiting (with `wakeAt`), done or degraded. */
  async status() {
    const job = await this.ctx.storage.get("job");
    return job ? publicView(job) : { status: "unknown" };
  }

  /** A storage alarm: the backoff is over. Restore the loop from storage and make the next call. */
  async alarm() {
    const job = await this.ctx.storage.get("job");
    if (job?.status !== "waiting") return;
    const loop = RepairLoop.fromJSON(job.loop);
    job.timeline.push("alarm");
    return this.#run(loop, job.next, job);
  }

  /** Call, feed the outcome, repeat until the loop says wait (store + alarm), done or degrade. */
  async #run(loop, request, job) {
    try {
      for (;;) {
        // Each call is bounded: a provider that never answers is a transient timeout, resent
        // after a backoff like a 503, instead of a request (or an alarm) that never ends.
        const step = loop.next(await callModel(this.env, request, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }));
        job.timeline.push(step.type);
        switch (step.type) {
          case "send-repair-prompt":
            request = step.prompt;
            continue;
          case "wait-for-backoff": {
            const wakeAt = Date.now() + step.delayMs;
            Object.assign(job, { status: "waiting", wakeAt, delayMs: step.delayMs, loop: loop.toJSON(), next: step.prompt });
            await this.ctx.storage.put("job", job);
            await this.ctx.storage.setAlarm(wakeAt);
            return publicView(job);
          }
          case "done":
            Object.assign(job, { status: "done", value: step.value, fixes: step.fixes, calls: step.attempts });
            break;
          case "degrade":
            Object.assign(job, { status: "degraded", reason: step.reason, detail: step.detail, fallback: step.fallback, calls: step.attempts });
            break;
        }
        delete job.loop;
        delete job.next;
        await this.ctx.storage.put("job", job);
        return publicView(job);
      }
    } finally {
      loop.free();
    }
  }
}

/** What the HTTP API shows of a job (not the loop state or the pending prompt). */
function publicView({ loop: _loop, next: _next, ...job }) {
  return job;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/calls") {
      // `?? {}`: a JSON `null` body parses, and has no fields.
      const { question } = (await request.json().catch(() => null)) ?? {};
      if (typeof question !== "string" || question === "") return json({ error: "question must be a non-empty string" }, 400);
      const id = env.CALLS.newUniqueId();
      const job = await env.CALLS.get(id).start(question);
      return json({ id: id.toString(), ...job }, 202);
    }
    const match = /^\/calls\/([0-9a-f]{64})$/.exec(url.pathname);
    if (request.method === "GET" && match) {
      let id;
      try {
        id = env.CALLS.idFromString(match[1]);
      } catch {
        return json({ status: "unknown" }, 404); // 64 hex digits, but no id of this namespace
      }
      return json(await env.CALLS.get(id).status());
    }
    return json({ error: "POST /calls or GET /calls/:id" }, 404);
  },
};

function json(body, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

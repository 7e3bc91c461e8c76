// A Cloudflare Worker that streams a healed structured reply to the browser as NDJSON.
//
//   POST /  {"question": "Tell me about the Eiffel Tower"}
//   200     application/x-ndjson, one event a line, as it happens:
//     {"type":"call","call":1}                                     a model call starts
//     {"type":"partial","call":1,"value":{"name":"Eiffel Tower"}}   the value so far
//     {"type":"violation","call":1,"issue":{...},"receivedChars":N} the reply can no longer be valid:
//                                                                   the model stream is cut here
//     {"type":"repair","call":2,"strategy":"fix","cause":"schema"}  one repair prompt is sent
//     {"type":"wait","call":2,"delayMs":..,"cause":"overloaded"}    a backoff is waited out
//     {"type":"done","value":{...},"calls":2,"source":"repaired","fixes":[]}
//     {"type":"degrade","reason":"...","detail":"...","fallback":{...}}
//
// The model is called with `stream: true`; each text delta goes to RepairLoop.push. The moment a
// value closes that breaks the schema, the Worker stops reading and aborts the upstream request
// (the rest of the reply is never generated, nor paid for), feeds the reply as cut off
// (stopReason "aborted") and sends the one fix prompt selfheal writes. Partial values go to the
// client through a TransformStream that turns events into NDJSON lines.
import { RepairLoop, Schema } from "selfheal";
import { streamModel } from "./anthropic-stream.js";

const LANDMARK = {
  type: "object",
  required: ["name", "city", "country", "heightM"],
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    city: { type: "string" },
    country: { type: "string", pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2" },
    heightM: { type: "number" },
  },
};

// Module scope: compiled once per isolate. (A RepairLoop is made per request: see examples/worker.)
const schema = new Schema(LANDMARK);
const FALLBACK = { mode: "template", templateId: "landmark-unknown", text: "We could not describe this landmark." };
const MAX_WAIT_MS = 10_000;
const CALL_TIMEOUT_MS = 20_000;
// A partial line carries the whole value so far, so it is sent only when a value closed, and at
// most once per PARTIAL_INTERVAL_MS (env, default 50): the bytes sent stay linear in the time the
// stream takes, not quadratic in its length.
const PARTIAL_INTERVAL_MS = 50;

export default {
  async fetch(request, env, ctx) {
    if (request.method !== "POST") return Response.json({ error: 'POST a JSON body {"question": string}' }, { status: 405 });
    // `?? {}`: a JSON `null` body parses, and has no fields.
    const { question } = (await request.json().catch(() => null)) ?? {};
    if (typeof question !== "string" || question === "") return Response.json({ error: "question must be a non-empty string" }, { status: 400 });

    const ndjson = new TransformStream({
      transform(event, controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify(event) + "\n"));
      },
    });
    const events = ndjson.writable.getWriter();
    const interval = Number(env.PARTIAL_INTERVAL_MS ?? PARTIAL_INTERVAL_MS);
    ctx.waitUntil(
      heal(env, question, (event) => events.write(event), interval)
        .catch((error) => events.write({ type: "error", message: String(error?.message ?? error) }))
        .finally(() => events.close()),
    );
    return new Response(ndjson.readable, { headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" } });
  },
};

/** The host loop, streaming: every call's text is pushed into the loop as it arrives. */
async function heal(env, question, send, interval) {
  const prompt = { system: "Reply with JSON only: {name, city, country (ISO 3166-1 alpha-2), heightM}.", user: question };
  const loop = new RepairLoop({
    prompt,
    schema,
    fallback: FALLBACK,
    budget: { deadlineMs: 30_000 },
    backoff: { maxMs: MAX_WAIT_MS, maxRetryAfterMs: MAX_WAIT_MS },
  });
  try {
    let next = prompt;
    for (let call = 1; ; ) {
      await send({ type: "call", call });
      const outcome = await streamCall(env, next, loop, call, send, interval);
      const step = loop.next(outcome);
      switch (step.type) {
        case "done":
          return send({ type: "done", value: step.value, calls: step.attempts, source: step.source, fixes: step.fixes });
        case "degrade":
          return send({ type: "degrade", reason: step.reason, detail: step.detail, fallback: step.fallback });
        case "wait-for-backoff":
          await send({ type: "wait", call: step.attempt, delayMs: step.delayMs, cause: step.classified.cause });
          await scheduler.wait(step.delayMs);
          break;
        case "send-repair-prompt":
          await send({ type: "repair", call: step.attempt, strategy: step.strategy, cause: step.classified.cause, signal: step.classified.signal });
          break;
      }
      next = step.prompt;
      call = step.attempt;
    }
  } finally {
    loop.free();
  }
}

/** One streamed model call, pushed into the loop; resolves with the Outcome for loop.next. */
async function streamCall(env, prompt, loop, call, send, interval) {
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(new DOMException("model call timed out", "TimeoutError")), CALL_TIMEOUT_MS);
  try {
    const reply = await streamModel(env, prompt, { signal: controller.signal });
    if (reply.error) return { kind: "error", error: reply.error };
    let received = 0;
    let sentAt = -Infinity;
    let update = null;
    try {
      for await (const chunk of reply.chunks) {
        received += chunk.length;
        update = loop.push(chunk);
        if (update.violation) {
          controller.abort(); // the rest of the reply is never generated
          await send({ type: "partial", call, value: update.value });
          await send({ type: "violation", call, issue: update.violation, receivedChars: received });
          return { kind: "reply", stopReason: "aborted" };
        }
        if (update.closed.length && Date.now() - sentAt >= interval) {
          sentAt = Date.now();
          await send({ type: "partial", call, value: update.value });
        }
      }
    } catch (error) {
      return { kind: "error", error }; // the connection dropped, or an error event mid-stream
    }
    // Only with a value: a stream with no text (a refusal) has none to show.
    if (update?.value !== undefined) await send({ type: "partial", call, value: update.value });
    // After pushes `text` is left out: the pushed text is the reply.
    return update ? { kind: "reply", stopReason: reply.stopReason } : { kind: "reply", text: "", stopReason: reply.stopReason };
  } finally {
    clearTimeout(timeout);
  }
}

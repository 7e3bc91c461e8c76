// A scripted mock model: each call returns the next scripted result, either a
// reply ({ text, stopReason?, costUsd? }) or a thrown error shaped like the
// errors real SDKs and fetch throw. A reply scripted with `chunkChars` is streamed
// (see `call`). No network, no API key.

import { chunks } from "../www/lib/scenario.js";

/** An error shaped like the Anthropic/OpenAI SDK's APIError. */
export function apiError(status, { headers = {}, type, message = `HTTP ${status}` } = {}) {
  const err = new Error(message);
  err.name = "APIError";
  err.status = status;
  err.headers = new Headers(headers);
  if (type) err.error = { type: "error", error: { type, message } };
  return err;
}

export class ScriptedModel {
  constructor(script) {
    this.script = [...script];
    this.calls = [];
    this.streams = [];
  }

  /**
   * Resolves with a reply or rejects with an error, as a real client would. A reply scripted
   * with `chunkChars` resolves with a stream instead (see `streamed`).
   */
  async call(prompt, { signal } = {}) {
    this.calls.push(prompt);
    const next = this.script.shift();
    if (next === undefined) throw new Error("the script ran out of replies");
    if (next instanceof Error) throw next;
    if (next.chunkChars) return this.streamed(next, signal);
    return next;
  }

  /**
   * A streamed reply: `{ chunks, stopReason, costUsd, sent, total }`. `chunks` yields the text
   * `chunkChars` characters at a time (after `delayMs` each) and stops early when the consumer
   * stops reading (`break`) or `signal` aborts, as a provider stops generating when the
   * connection closes. `stopReason` is known once the stream ended (the provider's final
   * event); `costUsd` and `sent` count only what was sent: an aborted stream is paid pro rata.
   * Each stream's figures are also kept in `this.streams`.
   */
  streamed({ text, chunkChars, delayMs = 0, stopReason = "end_turn", costUsd = 0 }, signal) {
    const parts = chunks(text, chunkChars);
    const total = parts.reduce((n, p) => n + p.length, 0);
    const reply = { chunks: null, stopReason: undefined, costUsd: 0, sent: 0, total };
    this.streams.push(reply);
    reply.chunks = (async function* () {
      for (const part of parts) {
        if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (signal?.aborted) return;
        reply.sent += part.length;
        reply.costUsd = total ? (costUsd * reply.sent) / total : 0;
        yield part;
      }
      reply.stopReason = stopReason;
    })();
    return reply;
  }
}

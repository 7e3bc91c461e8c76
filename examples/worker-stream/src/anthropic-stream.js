// One streamed call to an Anthropic-style Messages API over fetch (`stream: true`, server-sent
// events parsed by eventsource-parser). No retries here: the RepairLoop decides what comes next.
import { EventSourceParserStream } from "eventsource-parser/stream";

/**
 * Starts the call. Resolves with `{ error }` when it fails before any text streams (a network
 * error, an HTTP error status: the shape SDK errors have, which classify() reads), else with
 * `{ chunks, stopReason }`: `chunks` yields the text deltas as they arrive; once it has ended,
 * `stopReason` is the provider's (`message_delta.stop_reason`), or "incomplete" when the stream
 * ended without `message_stop` (the connection dropped: what arrived is cut off, never complete).
 * An `error` event in the stream (Anthropic sends `overloaded_error` that way) is thrown from
 * `chunks` with the provider's body as `error.error`. Stop reading and abort `signal` to cut it.
 *
 * @param {{ LLM_URL: string, LLM_API_KEY?: string, LLM_MODEL?: string }} env
 * @param {{ system: string, user: string }} prompt
 */
export async function streamModel(env, prompt, { maxTokens = 1024, signal } = {}) {
  let response;
  try {
    response = await fetch(`${env.LLM_URL.replace(/\/+$/, "")}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": env.LLM_API_KEY ?? "" },
      body: JSON.stringify({
        model: env.LLM_MODEL ?? "claude-sonnet-4-5",
        max_tokens: maxTokens,
        system: prompt.system,
        messages: [{ role: "user", content: prompt.user }],
        stream: true,
      }),
      signal,
    });
  } catch (error) {
    return { error };
  }
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    return { error: Object.assign(new Error(body?.error?.message ?? `HTTP ${response.status}`), { status: response.status, headers: response.headers, error: body }) };
  }
  const reply = { chunks: null, stopReason: "incomplete" };
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  reply.chunks = (async function* () {
    const reader = events.getReader();
    let stop = null;
    try {
      for (;;) {
        const { value: event, done } = await reader.read();
        if (done) break;
        const data = JSON.parse(event.data);
        if (data.type === "content_block_delta" && data.delta?.type === "text_delta") yield data.delta.text;
        else if (data.type === "message_delta") stop = data.delta?.stop_reason ?? stop;
        else if (data.type === "message_stop") reply.stopReason = stop ?? "end_turn";
        else if (data.type === "error") throw Object.assign(new Error(data.error?.message ?? "stream error"), { error: data });
      }
    } finally {
      reader.cancel().catch(() => {}); // stopped early: close the connection
    }
  })();
  return reply;
}

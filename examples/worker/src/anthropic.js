// One call to an Anthropic-style Messages API over fetch, turned into a selfheal Outcome.
// No retries here: the RepairLoop decides whether and when to call again.

/**
 * @param {{ LLM_URL: string, LLM_API_KEY?: string, LLM_MODEL?: string }} env  LLM_URL is the API base
 *   (as an SDK's baseURL: "https://api.anthropic.com", or an AI gateway, or a local mock)
 * @param {{ system: string, user: string }} prompt
 * @returns {Promise<import("selfheal").Outcome>}
 */
export async function callModel(env, prompt, { maxTokens = 1024, signal } = {}) {
  let response;
  try {
    response = await fetch(`${env.LLM_URL.replace(/\/+$/, "")}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        "x-api-key": env.LLM_API_KEY ?? "",
      },
      body: JSON.stringify({
        model: env.LLM_MODEL ?? "claude-sonnet-4-5",
        max_tokens: maxTokens,
        system: prompt.system,
        messages: [{ role: "user", content: prompt.user }],
      }),
      signal,
    });
  } catch (error) {
    // A network failure or a timeout: classify() reads it (in workerd a lost connection is a plain
    // Error "Network connection lost.", in browsers and Node a TypeError; a TimeoutError from
    // AbortSignal.timeout() is transient/timeout).
    return { kind: "error", error };
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    // The shape SDK errors have: status, headers (retry-after, retry-after-ms, x-should-retry)
    // and the provider's error body, which is what classify() reads.
    const error = Object.assign(new Error(body?.error?.message ?? `HTTP ${response.status}`), {
      status: response.status,
      headers: response.headers,
      error: body,
    });
    return { kind: "error", error };
  }
  const text = (body?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
  const usage = body?.usage ? { inputTokens: body.usage.input_tokens ?? 0, outputTokens: body.usage.output_tokens ?? 0 } : undefined;
  return { kind: "reply", text, stopReason: body?.stop_reason ?? undefined, ...(usage && { usage }) };
}

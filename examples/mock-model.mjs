// A scripted mock model: each call returns the next scripted result, either a
// reply ({ text, stopReason?, costUsd? }) or a thrown error shaped like the
// errors real SDKs and fetch throw. No network, no API key.

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
  }

  /** Resolves with a reply or rejects with an error, as a real client would. */
  async call(prompt) {
    this.calls.push(prompt);
    const next = this.script.shift();
    if (next === undefined) throw new Error("the script ran out of replies");
    if (next instanceof Error) throw next;
    return next;
  }
}

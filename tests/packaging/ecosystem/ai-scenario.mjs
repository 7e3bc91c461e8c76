// The scenario every runtime runs through selfheal/ai, with a LanguageModelV4 written by hand:
// no `ai` package is installed in the project that runs it (the AI SDK is an optional peer).
// 529, 529, then a fenced reply, on a structured (responseFormat json) call.
export async function runAiScenario(ai, standard) {
  const script = [
    { statusCode: 529, responseHeaders: { "retry-after-ms": "3" }, message: "Overloaded", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
    { statusCode: 529, responseHeaders: {}, message: "Overloaded", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
    { content: [{ type: "text", text: '```json\n{"city": "Paris",}\n```' }], finishReason: { unified: "stop", raw: "end_turn" }, usage: { inputTokens: { total: 5 }, outputTokens: { total: 7 } } },
  ];
  let calls = 0;
  const model = {
    specificationVersion: "v4", provider: "anthropic.messages", modelId: "claude-mock-1", supportedUrls: {},
    async doGenerate() {
      calls += 1;
      const next = script.shift();
      if (next.statusCode) throw Object.assign(new Error(next.message), next);
      return next;
    },
  };
  const steps = [];
  const middleware = ai.selfhealMiddleware({ seed: 1, backoff: { baseMs: 1, jitterMs: 0 }, onStep: (_, s) => steps.push([s.type, s.delayMs ?? null]) });
  const params = {
    prompt: [{ role: "user", content: [{ type: "text", text: "Where is the Eiffel Tower?" }] }],
    responseFormat: { type: "json", schema: { type: "object", required: ["city"], properties: { city: { type: "string" } } } },
  };
  const result = await middleware.wrapGenerate({ doGenerate: () => model.doGenerate(params), doStream: async () => { throw new Error("unused"); }, params, model });
  // selfheal/standard with a hand-made Standard Schema (no schema library installed either).
  const custom = { "~standard": { version: 1, vendor: "acme", validate: (v) => (v?.city ? { value: v } : { issues: [{ message: "city is missing", path: ["city"] }] }) } };
  const resolved = await standard.resolveSchema(custom);
  const rejected = await resolved.check({});
  return {
    calls, steps, structuredOutputText: result.structuredOutputText,
    standard: { source: resolved.source, reason: rejected.reason },
    middleware: Object.keys(middleware).sort(),
  };
}

// selfheal/ai, /standard and /otel in strict TypeScript (nodenext), with the real `ai`, zod and
// @opentelemetry/api types: the middleware, repairText and repairToolCall fit where the SDK
// asks for them.
import { generateObject, generateText, tool, wrapLanguageModel, type LanguageModelMiddleware } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { trace } from "@opentelemetry/api";
import * as z from "zod";
import { degradeOf, repairText, repairToolCall, selfhealMiddleware, SelfhealError, type Degrade } from "selfheal/ai";
import { resolveSchema, type ResolvedSchema } from "selfheal/standard";
import { startModelCall } from "selfheal/otel";
import { CircuitBreaker, RetryBudget } from "selfheal";

const breaker = new CircuitBreaker({ failureThreshold: 3 });
const middleware: LanguageModelMiddleware = selfhealMiddleware({
  budget: { transient: 3, deadlineMs: 30_000 }, backoff: { baseMs: 500 }, breaker,
  retryBudget: new RetryBudget({ ratio: 0.1 }), tracer: trace.getTracer("app"), warn: (m: string) => console.warn(m),
});
const model = wrapLanguageModel({ model: new MockLanguageModelV4(), middleware });
const City = z.object({ city: z.string() }).refine((c) => c.city.length > 1, { message: "too short", path: ["city"] });

export async function run(): Promise<string> {
  const { object } = await generateObject({ model, maxRetries: 0, schema: City, prompt: "p", repairText: repairText({ model, schema: City, prompt: "p" }) });
  const tools = { get_weather: tool({ inputSchema: z.object({ city: z.string() }) }) };
  const result = await generateText({ model, maxRetries: 0, tools, prompt: "p", repairToolCall: repairToolCall({ model }) });
  const resolved: ResolvedSchema<{ city: string }> = await resolveSchema(City);
  const checked = await resolved.check(object);
  const span = startModelCall(trace.getTracer("app"), { system: "anthropic", model: "m", attempt: 1 });
  span.end();
  try {
    await generateText({ model, maxRetries: 0, prompt: "p" });
  } catch (e) {
    const d: Degrade | null = degradeOf(e);
    if (e instanceof SelfhealError) return e.instruction.reason;
    return d?.reason ?? "";
  }
  return checked.ok ? checked.value.city + result.text : checked.reason;
}
// @ts-expect-error the middleware options are checked (budget.transient is a number)
selfhealMiddleware({ budget: { transient: "3" } });

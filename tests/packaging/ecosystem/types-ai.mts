// selfheal/ai, /standard and /otel in strict TypeScript (nodenext), with the real `ai`, zod and
// @opentelemetry/api types: the middleware, repairText and repairToolCall fit where the SDK
// asks for them.
import { generateObject, generateText, tool, wrapLanguageModel, type LanguageModelMiddleware } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { trace } from "@opentelemetry/api";
import * as z from "zod";
import { degradeOf, repairText, repairToolCall, selfhealMiddleware, SelfhealError, type Degrade } from "selfheal/ai";
import { jsonSchemaOf, resolveSchema, type ResolvedSchema } from "selfheal/standard";
import * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import { startModelCall } from "selfheal/otel";
import { CircuitBreaker, RepairLoop, RetryBudget, heal } from "selfheal";
import { anthropicCaller } from "selfheal/heal";

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

// heal's done value is typed from its options: a Standard Schema's output (transforms applied), the
// tool call with tools, unknown with a JSON Schema (it was unknown for all three).
declare const client: object;
const claude = anthropicCaller(client, { model: "m" });
const prompt = { system: "s", user: "u" };
export async function healed(): Promise<string[]> {
  const city = await heal(claude, { prompt, schema: z.object({ city: z.string().trim(), n: z.string().transform(Number) }) });
  const n: number = city.type === "done" ? city.value.n : 0;
  const called = await heal(claude, { prompt, tools: { lookup: { inputSchema: z.object({ q: z.string() }) } } });
  const name: string = called.type === "done" ? called.value.name : "";
  const id: string | undefined = called.type === "done" ? called.value.id : undefined;
  const plain = await heal(claude, { prompt, schema: { type: "object" } });
  // @ts-expect-error with a JSON Schema the value is unknown
  const field: string = plain.type === "done" ? plain.value.city : "";
  // @ts-expect-error a misspelt option is refused (it compiled once heal was generic: no schema at all)
  await heal(claude, { prompt, shema: z.object({ city: z.string() }) });
  return [String(n), name, id ?? "", field];
}

// The documented pairings: a vendor's own converter in `converters` (it takes its own schema type),
// and a resolved schema's jsonSchema as the loop's schema (it was unknown, and refused).
export async function paired(): Promise<string> {
  const converted = await jsonSchemaOf(v.object({ a: v.string() }), { converters: { valibot: toJsonSchema } });
  const loop = new RepairLoop({ prompt, schema: (await resolveSchema(City)).jsonSchema });
  loop.free();
  return converted.source;
}

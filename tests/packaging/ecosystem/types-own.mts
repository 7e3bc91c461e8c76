// selfheal/ai, /standard and /otel in strict TypeScript with skipLibCheck off and no peer
// installed: the package's own declarations stand alone.
import { createSelfhealAi, degradeOf, forClassify, repairText, repairToolCall, selfhealMiddleware, type SelfhealMiddleware } from "selfheal/ai";
import { formatIssues, isStandardSchema, jsonSchemaOf, type StandardSchemaV1 } from "selfheal/standard";
import { isTracer, startModelCall, type TracerLike } from "selfheal/otel";
import * as selfheal from "selfheal";

const schema: StandardSchemaV1<unknown, { a: string }> = {
  "~standard": { version: 1, vendor: "acme", validate: (v: unknown) => ({ value: { a: String(v) } }) },
};
const bound = createSelfhealAi(selfheal);
const middleware: SelfhealMiddleware = selfhealMiddleware({ seed: 1, budget: { transient: 2 } });
export const kinds = [middleware.specificationVersion, bound.selfhealMiddleware().specificationVersion] as const;
export const fns = [repairText({ schema }), repairToolCall({}), degradeOf(null), forClassify(new Error("x"))];
export const standard = [isStandardSchema(schema), formatIssues([{ message: "m", path: ["a", { key: 0 }] }]), jsonSchemaOf(schema)];
declare const tracer: TracerLike;
export const traced = isTracer(tracer) ? startModelCall(tracer, { model: "m" }) : null;

// heal with a Standard Schema, tools, models and a tracer (js/package/heal.mts and its modules).
import { anthropicCaller, type HealResult, type ModelEntry } from "selfheal/heal";
declare const client: object;
const claude = anthropicCaller(client, { model: "claude-sonnet-4-6" });
const entry: ModelEntry = { callModel: claude, contextWindow: 200_000, maxOutputTokens: 1024, tools: true };
const prompt = { system: "Reply with JSON only.", user: "u" };
export const chained: Promise<HealResult> = selfheal.heal({ prompt, models: [entry, claude], tracer, retryBudget: new selfheal.RetryBudget() });
export const withTools: Promise<HealResult> = selfheal.heal(claude, { prompt, tools: { lookup: { description: "d", inputSchema: schema } } });
export const withStandard = selfheal.heal(claude, { prompt, schema, warn: (m: string) => m.length }).then((r) => (r.type === "done" ? r.value : r.fellBackFrom));

// Types for selfheal/ai (js/ai.mjs): the AI SDK (`ai` 7.x) middleware, repairText and
// repairToolCall. The AI SDK shapes are declared structurally, as the SDK's LanguageModelV4
// middleware and callback types are written, so these types need no `ai` types to resolve:
// the values are assignable to `LanguageModelMiddleware`, `RepairTextFunction` and
// `ToolCallRepairFunction` where the SDK asks for them.
import type { CircuitBreaker, Instruction, LoopOptions, Outcome, RetryBudget, StopReason } from "./selfheal.js";
import type { StandardSchemaV1 } from "./standard.mjs";
import type { TracerLike } from "./otel.mjs";

/** The `degrade` instructions selfheal stops a call with ("retry-budget-exhausted" comes from a retry budget). */
export type Degrade = Omit<Extract<Instruction, { type: "degrade" }>, "reason"> & { reason: StopReason | "retry-budget-exhausted" };

/** selfheal's RetryBudget: each call's RepairLoop records the first call and asks it before every resend. */
export type RetryBudgetLike = RetryBudget;

/** What the middleware and the repair functions call: a LanguageModelV4 (e.g. wrapLanguageModel's result). */
export interface LanguageModelLike {
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: any): PromiseLike<any>;
}

type LoopSettings = Omit<LoopOptions, "prompt" | "schema">;
type StepListener = (outcome: Outcome | { kind: "reply" }, instruction: Instruction | Degrade) => void;

export interface SelfhealMiddlewareOptions extends LoopSettings {
  /** Default "reask" here (not the loop's "fix"): the call is resent with the correction appended
   *  to its own messages. With "reask", `maxPromptChars` defaults to none. */
  mode?: NonNullable<LoopSettings["mode"]>;
  /** Shared across calls: transient failures open it, an open breaker makes no call. */
  breaker?: CircuitBreaker;
  /** Passed to each call's RepairLoop: every first call recorded, every resend asked for (SPEC section 10). */
  retryBudget?: RetryBudget;
  /** An @opentelemetry/api Tracer: one span per model call (selfheal/otel). */
  tracer?: TracerLike;
  /** Repair JSON responses (responseFormat json: generateObject, Output.object). Default true. */
  structured?: boolean;
  /**
   * Streamed structured output (streamText with Output.object). "pass" (default): the stream
   * reaches the caller as the provider sends it, not repaired. "buffer": each stream is read
   * whole first and repaired (locally, else reasked) like a generated one, then sent on as one
   * text block: the output is healed, but partial output arrives only at the end.
   */
  structuredStreams?: "pass" | "buffer";
  onStep?: StepListener;
  /** Where the one-time "both retry" warning goes (default console.warn). */
  warn?: (message: string) => void;
  /** gen_ai.system for spans (default: the model's provider, up to the first dot). */
  system?: string;
}

/** A LanguageModelV4 middleware for `wrapLanguageModel({ model, middleware })`. */
export interface SelfhealMiddleware {
  readonly specificationVersion: "v4";
  wrapGenerate(options: { doGenerate: () => PromiseLike<any>; doStream: () => PromiseLike<any>; params: any; model: any }): Promise<any>;
  wrapStream(options: { doGenerate: () => PromiseLike<any>; doStream: () => PromiseLike<any>; params: any; model: any }): Promise<any>;
}

/** A schema as generateObject takes it: Standard Schema (Zod, Valibot, ArkType), AI SDK Schema or JSON Schema. */
export type AnySchema = StandardSchemaV1 | { readonly jsonSchema: unknown; validate?: unknown } | object | boolean | string;

export interface RepairTextOptions extends LoopSettings {
  /** Default "reask" when `prompt` is given (the caller's prompt with the correction appended),
   *  else "fix" (a repair prompt quoting the failed text). */
  mode?: NonNullable<LoopSettings["mode"]>;
  /** The schema given to generateObject (a Standard Schema's validate runs on the repaired value). */
  schema: AnySchema;
  /** The model for the repair call; without it only local repair is tried. */
  model?: LanguageModelLike;
  /** The prompt and system given to generateObject: a reask appends its correction to them. */
  prompt?: string;
  system?: string;
  /** The `output` given to generateObject: "array" reads `{ "elements": [...] }` of the schema. Default "object". */
  output?: "object" | "array";
  tracer?: TracerLike;
  onStep?: StepListener;
}
/** `repairText` for generateObject / streamObject. */
export type SelfhealRepairText = (options: { text: string; error: unknown }) => Promise<string | null>;

export interface RepairToolCallOptions extends LoopSettings {
  /** Default "reask" here (not the loop's "fix"): the conversation so far with the correction.
   *  With "reask", `maxPromptChars` defaults to none. */
  mode?: NonNullable<LoopSettings["mode"]>;
  /** The model for the reask; without it only local repair is tried. */
  model?: LanguageModelLike;
  tracer?: TracerLike;
  onStep?: StepListener;
}
export interface ToolCallLike {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: string;
}
/** `repairToolCall` for generateText / streamText. */
export type SelfhealRepairToolCall = <CALL extends ToolCallLike>(options: {
  toolCall: CALL;
  tools: Record<string, any>;
  inputSchema: (options: { toolName: string }) => PromiseLike<unknown>;
  error: unknown;
  messages: unknown[];
  instructions?: unknown;
  system?: unknown;
  abortSignal?: { readonly aborted: boolean } | undefined;
}) => Promise<CALL | null>;

export interface SelfhealAi {
  selfhealMiddleware(options?: SelfhealMiddlewareOptions): SelfhealMiddleware;
  repairText(options: RepairTextOptions): SelfhealRepairText;
  repairToolCall(options?: RepairToolCallOptions): SelfhealRepairToolCall;
  /** The degrade selfheal stopped with, for an error the middleware threw (null otherwise). */
  degradeOf(error: unknown): Degrade | null;
}

/** Thrown when selfheal stops a call that has no error of its own (an open breaker). */
export class SelfhealError extends Error {
  readonly instruction: Degrade;
  constructor(instruction: Degrade);
}

/** Bind the AI SDK parts to a selfheal build (what selfheal/ai does for each runtime's entry). */
export function createSelfhealAi(selfheal: {
  RepairLoop: new (options: LoopOptions, breaker?: CircuitBreaker) => unknown;
  parseStructured: (...args: any[]) => unknown;
  buildRepairPrompt: (...args: any[]) => unknown;
  classify: (...args: any[]) => { class: string };
}): SelfhealAi;
/** An AI SDK error as classify reads it (APICallError's responseHeaders and data brought out). */
export function forClassify(error: unknown): unknown;

export const selfhealMiddleware: SelfhealAi["selfhealMiddleware"];
export const repairText: SelfhealAi["repairText"];
export const repairToolCall: SelfhealAi["repairToolCall"];
export const degradeOf: SelfhealAi["degradeOf"];

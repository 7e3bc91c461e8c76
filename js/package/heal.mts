// heal(): selfheal's host loop, ready to use, with real timers and an AbortSignal.
//
// selfheal's RepairLoop does no I/O: it tells the host what to do next. This is the host: it
// makes each call through your `callModel`, feeds what happened into `loop.next`, waits
// (abortably) on `wait-for-backoff`, sends repair prompts, and returns the final instruction,
// `done` or `degrade`.
//
// Every entry of the package exports `heal` bound to its own RepairLoop (scripts/build.sh
// compiles this file with tsc to heal.mjs + heal.d.mts and writes the entries):
//
//   import { heal } from "selfheal";
//   import { anthropicCaller } from "selfheal/heal";
//
//   const client = new Anthropic({ maxRetries: 0 });   // selfheal is the only retry policy
//   const result = await heal(anthropicCaller(client, { model: "claude-sonnet-4-5", max_tokens: 1024 }), {
//     prompt: { system: "Reply with JSON only.", user: "Where is the Eiffel Tower?" },
//     schema: { type: "object", required: ["city"], properties: { city: { type: "string" } } },
//     fallback: { mode: "human", queue: "geo-review" },
//     signal: AbortSignal.timeout(30_000),
//   });
//   if (result.type === "done") use(result.value); else fallBackTo(result.fallback, result.reason);
//
// `selfheal/heal` keeps `createHeal(RepairLoop)` and `heal(callModel, { ...options, RepairLoop })`
// for code written before the entries exported `heal`.
//
// Decisions (where the SPEC says nothing about a host):
// * `callModel(prompt, { signal, attempt, instruction })` resolves
//   `{ text, stopReason?, costUsd?, usage? }` (usage as `{ inputTokens, outputTokens }`)
//   or throws; what it throws goes to `loop.next({ kind: "error", error })` as is.
//   `instruction` is the instruction that asked for the call (null for the first).
//   A resolved value of the wrong shape is a bug in callModel: `loop.next` throws
//   a TypeError naming the field, and heal rejects with it (after freeing the loop).
// * Abort: `signal` is passed to every callModel. Once it is aborted — before a
//   call, during a call (heal stops waiting for the call at once, whatever it then
//   throws or returns), or during a wait (the wait ends at once) — heal returns
//   `loop.abort(reason)`, a degrade with reason "aborted"; the reason text is the
//   signal's reason (a string, or an Error's message). An abort after `done`
//   changes nothing: done is final.
// * Deadline: `budget.deadlineMs` counts, as in the loop, from the first outcome
//   fed to it (the first call is the host's own and is not timed by the loop). A
//   call the loop asked for that is still in flight when the deadline passes is
//   cut: its `signal` (a signal of heal's own then, which also follows yours)
//   aborts with a `TimeoutError`, heal stops waiting for it, and feeds the loop
//   `{ kind: "error", error: <that TimeoutError> }`, which degrades
//   "deadline-exceeded" (or "transient-exhausted" when no resend is left).
// * `check(value, { signal })` (optional, may be async) runs after every `done`;
//   it returns null when the value is fine, or `{ kind: "rejected" | "invalid", reason }`,
//   which is fed to the loop at once (a repair prompt, an alternate prompt, or a degrade).
//   If check throws, heal rejects with that error.
// * `onStep(outcome, instruction)` (optional) sees every step, in order. For an
//   abort, `outcome` is `{ kind: "aborted", reason }` (never fed to `next`). A run
//   an open breaker stops before its first call has no step: nothing was called.
// * `breaker` (optional) is passed to `new RepairLoop(options, breaker)`; while it is open no call is
//   made, the first one included: heal degrades `circuit-open` with 0 attempts.
// * `now` and `sleep` (optional) replace the clock and the backoff waits (a virtual clock in
//   tests and simulations); a deadline still cuts a call in flight by a real timer.
// * The loop is always freed (`loop.free()`), also when heal rejects. The
//   instruction returned is a plain object and stays valid.
// * `retryBudget` (optional) is passed to every loop as its third argument.
// * `schema` may be a Standard Schema (heal-schema.mts), `tools` asks for a tool call
//   (tools.mts), `models` is a fallback chain (models.mts, called as `heal({ models, ... })`),
//   `tracer` an OpenTelemetry Tracer (a span per call, selfheal/otel): docs/ECOSYSTEM.md.

import type { CircuitBreaker, Instruction, LoopOptions, Outcome, PartialUpdate, Prompt, RetryBudget } from "./selfheal.js";
import { prepareSchema } from "./heal-schema.mjs";
import type { Accepted } from "./heal-schema.mjs";
import { estimateTokens, runChain, unsent } from "./models.mjs";
import type { ChainResult, ModelSpec } from "./models.mjs";
import { isTracer, startModelCall } from "./otel.mjs";
import { sleep } from "./sleep.mjs";
import { prepareTools } from "./tools.mjs";
import type { ToolCall, ToolDefinition, ToolSpec } from "./tools.mjs";
import type { ModelCall, TracerLike } from "./otel.mjs";
import { joinSignals, startStream, type CallStream, type StreamingLoop } from "./stream.mjs";

export type { ModelEntry, ModelLeft, ModelSpec } from "./models.mjs";
export type { ToolCall, ToolDefinition, ToolSpec } from "./tools.mjs";
export { joinSignals, StreamViolation } from "./stream.mjs";

/** The part of an AbortSignal heal uses. */
export interface SignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}
/**
 * The runtime's `AbortSignal` wherever its types are loaded (the DOM lib, `@types/node`, Workers
 * types), else {@link SignalLike}: the package's types compile in a project without either.
 */
export type Signal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : SignalLike;

export type Final = Extract<Instruction, { type: "done" } | { type: "degrade" }>;
/**
 * What heal resolves: the loop's final instruction. With `models`, also `model` (the name of
 * the model whose loop gave it, null if no model could be tried) and `fellBackFrom` (every other
 * model, in order, with why it was left); `attempts` and `costUsd` then count the whole chain.
 */
export type HealResult<Value = unknown> =
  (Exclude<Final, { type: "done" }> | (Extract<Final, { type: "done" }> & { value: Value })) & Partial<ChainResult>;
/** The done value with `tools`: the call the model made, its input checked against that tool's schema. */
export interface ToolCallValue {
  /** The provider's id for the call; absent when it gave none. */
  id?: string;
  name: string;
  input: unknown;
}
/** A Standard Schema's output type (transforms applied), else unknown. */
type OutputOf<S> = S extends { readonly "~standard": { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer Out } ? Out : unknown
  : unknown;
/**
 * What `value` is in a `done`, from the options: with `tools`, the tool call; with a Standard
 * Schema, the library's output (its validate ran on it); with a JSON Schema, unknown.
 */
export type HealValue<Options> = Options extends { tools: object } ? ToolCallValue
  : Options extends { schema: infer S } ? OutputOf<S> : unknown;
export interface ModelReply {
  /** May be left out after `context.push`: the pushed text is the reply. */
  text?: string;
  stopReason?: string;
  costUsd?: number;
  usage?: { inputTokens: number; outputTokens: number };
  /** The reply's (first) tool call, as the adapters report it; read when heal has `tools`. */
  toolCall?: ToolCall | null;
}
/**
 * `signal` is the host's `options.signal`, or, for a call the loop asked for while
 * `budget.deadlineMs` is set, heal's own signal: it follows the host's and aborts with a
 * `TimeoutError` when the deadline passes. The adapters (anthropicCaller, openaiCaller) set
 * `provider` and `model` on the function they return: spans and `models` read them.
 */
export type CallModel = ((
  prompt: Prompt,
  context: {
    signal?: Signal; attempt: number; instruction: Instruction | null;
    /** heal's `tools` as JSON Schema definitions: offer them, a call required. */
    tools?: ToolDefinition[];
    /**
     * Streaming (SPEC section 8): call with each text delta as it arrives. On the first
     * violation `streamSignal` aborts (its reason a `StreamViolation`), heal stops waiting for
     * the call and feeds the loop the pushed text as a reply cut off (one fix prompt follows).
     * A reply resolved after pushes may leave its `text` out: the pushed text is the reply.
     */
    push?: (chunk: string) => PartialUpdate;
    /**
     * Aborts when the streamed reply breaks the schema (or passes maxReplyChars): abort the
     * request with it too (the adapters do: `joinSignals(signal, streamSignal)`).
     */
    streamSignal?: Signal;
  },
) => Promise<ModelReply>) & { provider?: string; model?: string };
export interface Verdict { kind: "rejected" | "invalid"; reason: string }
/** A schema heal takes: JSON Schema (object or string), or a Standard Schema v1 object (Zod 4, Valibot, ArkType). */
export type StandardSchemaLike = { readonly "~standard": { readonly version: 1; readonly vendor: string; readonly validate: (value: unknown) => unknown } };
export interface HealOptions extends Omit<LoopOptions, "schema"> {
  /** JSON Schema, or a Standard Schema (its JSON Schema drives parsing; its validate has the last word). */
  schema?: LoopOptions["schema"] | StandardSchemaLike;
  signal?: Signal;
  onStep?: (outcome: Outcome | { kind: "aborted"; reason: string }, instruction: Instruction) => void;
  /** Every PartialUpdate of a streamed reply (the adapters with `stream: true`, or context.push). */
  onPartial?: (update: PartialUpdate) => void;
  check?: (value: unknown, context: { signal?: Signal }) => Verdict | null | Promise<Verdict | null>;
  breaker?: CircuitBreaker;
  /** The clock the loop reads (ms since the epoch); default `Date.now`. */
  now?: () => number;
  /** Waits out a `wait-for-backoff`; default a real timer that ends early when `signal` aborts. */
  sleep?: (ms: number, signal?: Signal) => Promise<void>;
  retryBudget?: RetryBudget;
  /** Models to try in order: on transient-exhausted, circuit-open, retry-budget-exhausted or context-overflow, the next. */
  models?: ModelSpec[];
  /** An @opentelemetry/api Tracer: one span per call, an event per instruction. */
  tracer?: TracerLike;
  /**
   * Tools the model must call one of: `{ [name]: { description?, inputSchema } }` (JSON Schema or
   * Standard Schema). The done value is then `{ id, name, input }`; the default mode is "reask".
   */
  tools?: Record<string, ToolSpec>;
  /** Told once per schema when a Standard Schema has no JSON Schema (default console.warn). */
  warn?: (message: string) => void;
}
export interface RepairLoopClass {
  new (options: LoopOptions, breaker?: CircuitBreaker, retryBudget?: RetryBudget): {
    next(outcome: Outcome, now?: number): Instruction;
    abort(reason?: string, now?: number): Instruction;
    push?(chunk: string): PartialUpdate;
    free(): void;
  };
}
/** `heal` as every entry of the package exports it: bound to that entry's RepairLoop. */
export interface Heal {
  <Options extends HealOptions>(callModel: CallModel, options: Options & Known<Options, HealOptions>): Promise<HealResult<HealValue<Options>>>;
  /** With `options.models` the models are the callers: no callModel argument. */
  <Options extends HealOptions & { models: ModelSpec[] }>(options: Options & Known<Options, HealOptions>): Promise<HealResult<HealValue<Options>>>;
}
/**
 * No keys but `Shape`'s: a generic parameter loses TypeScript's excess-property check for object
 * literals, so a misspelt option (`shema`, silently no validation) would compile without this.
 */
type Known<Options, Shape> = Record<Exclude<keyof Options, keyof Shape>, never>;

type Loop = InstanceType<RepairLoopClass>;
type Settled = { kind: "reply"; reply: unknown } | { kind: "error"; error: unknown } | { kind: "aborted" } | { kind: "cut"; reply?: unknown };
type CallContext = {
  attempt: number;
  instruction: Instruction | null;
  tools?: ToolDefinition[];
  push?: (chunk: string) => PartialUpdate;
  streamSignal?: AbortSignal;
};

const HOST_KEYS = new Set(["signal", "onStep", "onPartial", "check", "breaker", "retryBudget", "RepairLoop", "models", "tracer", "warn", "tools", "now", "sleep"]);

/** Bind heal() to a RepairLoop class (from whichever entry of the package you use). */
export function createHeal(RepairLoop: RepairLoopClass): Heal {
  if (typeof RepairLoop !== "function") {
    throw new TypeError("createHeal: RepairLoop must be the selfheal RepairLoop class");
  }
  return ((first: CallModel | HealOptions, options?: HealOptions) => runHeal(RepairLoop, first, options)) as Heal;
}

/**
 * Run the host loop once. `options` are the RepairLoop options plus
 * `{ RepairLoop, signal?, onStep?, check?, breaker?, retryBudget?, models?, tracer?, warn? }`.
 */
export async function heal<Options extends HealOptions & { RepairLoop: RepairLoopClass }>(
  callModel: CallModel | null, options: Options & Known<Options, HealOptions & { RepairLoop: RepairLoopClass }>,
): Promise<HealResult<HealValue<Options>>> {
  const RepairLoop = options?.RepairLoop;
  if (typeof RepairLoop !== "function") {
    throw new TypeError("heal: options.RepairLoop must be the selfheal RepairLoop class (or use createHeal(RepairLoop))");
  }
  return runHeal(RepairLoop, callModel, options) as Promise<HealResult<HealValue<Options>>>;
}

/** What runOne needs besides the loop options: the host's hooks, shared by every model of a chain. */
interface Host {
  signal: Signal | undefined;
  onStep: HealOptions["onStep"];
  onPartial: HealOptions["onPartial"];
  check: HealOptions["check"];
  accept: (value: unknown) => Promise<Accepted>;
  tracer: TracerLike | undefined;
  /** With tools: the definitions passed to callModel, and how a reply becomes the loop's text. */
  tools?: { definitions: ToolDefinition[]; replyText: (reply: ModelReply) => unknown };
  /** When the run's deadline clock started (the first outcome fed to a loop), shared by a chain. */
  clock: { startedAt: number | null };
  /** The clock (options.now, default Date.now) and the backoff wait (options.sleep, or a timer). */
  now: () => number;
  wait: (ms: number, signal: AbortSignal | undefined) => Promise<boolean>;
}

async function runHeal(RepairLoop: RepairLoopClass, first: CallModel | HealOptions | null | undefined, second: HealOptions | undefined): Promise<HealResult> {
  // heal(callModel, options), or heal(options) / heal(null, options) with options.models.
  const oneArgument = second === undefined && first !== null && typeof first === "object";
  const options = (oneArgument ? first : second) as HealOptions;
  const callModel = (oneArgument ? undefined : first) as CallModel | null | undefined;
  if (options === null || typeof options !== "object") throw new TypeError("heal: options must be an object");
  const { signal, onStep, onPartial, check, breaker, retryBudget, models, tracer, tools, warn = defaultWarn } = options;
  if (models === undefined && typeof callModel !== "function") throw new TypeError("heal: callModel must be a function");
  if (models !== undefined && callModel !== undefined && callModel !== null) {
    throw new TypeError("heal: give either callModel or options.models (heal({ models, ...options })), not both");
  }
  if (signal !== undefined && signal !== null && typeof signal.aborted !== "boolean") {
    throw new TypeError("heal: options.signal must be an AbortSignal");
  }
  if (tracer !== undefined && !isTracer(tracer)) throw new TypeError("heal: options.tracer must be an @opentelemetry/api Tracer");
  if (tools !== undefined && options.schema !== undefined) throw new TypeError("heal: give options.schema or options.tools, not both (with tools, each tool's inputSchema is the schema)");
  const toolset = tools === undefined ? null : await prepareTools(tools, warn);
  const prepared = toolset ?? await prepareSchema(options.schema, warn);
  const loopOptions: Record<string, unknown> = toolset ? { mode: "reask" } : {};
  for (const [k, v] of Object.entries(options)) if (!HOST_KEYS.has(k)) loopOptions[k] = v;
  if ("schema" in loopOptions || toolset) loopOptions.schema = prepared.loopSchema;
  const asOptions = loopOptions as unknown as LoopOptions;
  const now = options.now ?? Date.now;
  const wait = options.sleep ? hostSleep(options.sleep) : sleep;
  const host: Host = { signal, onStep, onPartial, check, accept: prepared.accept, tracer, clock: { startedAt: null }, now, wait };
  if (toolset) host.tools = { definitions: toolset.definitions, replyText: toolset.replyText };
  if (models === undefined) {
    return runOne({ RepairLoop, callModel: callModel as CallModel, loopOptions: asOptions, host, breaker, retryBudget });
  }
  if (breaker !== undefined) throw new TypeError("heal: with options.models, give each model its own breaker ({ callModel, breaker })");
  return runChain(models, {
    loopOptions: asOptions, clock: host.clock, needs: { tools: toolset !== null, streaming: onPartial !== undefined && onPartial !== null }, now,
    run: (entry, perModel) => runOne({
      RepairLoop, callModel: entry.callModel, loopOptions: perModel, host, breaker: entry.breaker, retryBudget,
      describe: { provider: entry.provider, model: entry.model },
    }),
  });
}

interface Run {
  RepairLoop: RepairLoopClass;
  callModel: CallModel;
  loopOptions: LoopOptions;
  host: Host;
  breaker: CircuitBreaker | undefined;
  retryBudget: RetryBudget | undefined;
  /** For spans: the provider and model (else what the callModel says of itself). */
  describe?: { provider?: string | undefined; model?: string | undefined };
}

/** One model's loop, driven to its final instruction. */
async function runOne(run: Run): Promise<Final> {
  const { RepairLoop, callModel, host } = run;
  const { signal, onStep, clock, now } = host;
  // The loop accepted its options, so a deadline here is a finite number >= 0 or null.
  const deadline = run.loopOptions.budget?.deadlineMs;
  const deadlineMs = typeof deadline === "number" ? deadline : null;
  // When a later model's loop was made, if its first outcome has not been fed yet: that outcome
  // is fed at this time, so the loop's deadline (counted from its first next()) is the run's. A
  // loop made by a streamed reply's first push gets its first outcome only once the stream ends.
  let madeAt: number | null = null;
  const create = (): Loop => {
    let options = run.loopOptions;
    if (clock.startedAt !== null && deadlineMs !== null) {
      // A later model of a chain: what is left of the run's deadline.
      madeAt = now();
      const left = Math.max(0, clock.startedAt + deadlineMs - madeAt);
      options = { ...options, budget: { ...options.budget, deadlineMs: left } };
    }
    const extra: [CircuitBreaker?, RetryBudget?] = run.retryBudget !== undefined ? [run.breaker, run.retryBudget] : run.breaker !== undefined ? [run.breaker] : [];
    return new RepairLoop(options, ...extra);
  };
  // The first loop of a run is made at once, so bad options throw before any call; a later
  // model's loop is made at its first outcome, so that its deadline is what the run has left.
  let loop: Loop | null = clock.startedAt === null ? create() : null;
  const next = (outcome: Outcome): Instruction => {
    if (loop === null) loop = create();
    const at = madeAt ?? now();
    madeAt = null;
    clock.startedAt ??= at;
    return loop.next(outcome, at);
  };
  // `pending`: a done the schema library or check had not yet accepted. The loop took it as
  // final (and would answer an abort with it), so the degrade is a fresh loop's, with the run's
  // calls and cost.
  const aborted = (pending?: Extract<Instruction, { type: "done" }>): Final => {
    const reason = abortReason(signal);
    let step: Final;
    if (pending === undefined) {
      if (loop === null) loop = create();
      step = loop.abort(reason, now()) as Final;
    } else {
      const fresh = new RepairLoop(run.loopOptions);
      try {
        step = { ...(fresh.abort(reason, now()) as Final), attempts: pending.attempts, costUsd: pending.costUsd };
      } finally {
        fresh.free?.();
      }
    }
    onStep?.({ kind: "aborted", reason }, step);
    return step;
  };
  const provider = run.describe?.provider ?? callModel.provider;
  const model = run.describe?.model ?? callModel.model;
  // The current call's span: ended by its instruction, or in `finally` when something threw (a
  // reply the loop refuses, a check that throws), so no span is left open.
  let span: ModelCall | null = null;
  try {
    let request: Prompt = run.loopOptions.prompt;
    let asking: Instruction | null = null;
    let attempt = 1;
    for (;;) {
      if (signal?.aborted) return aborted();
      // The breaker is asked before the first call too, as the loop asks it before every later
      // one (and a chain asks each model's): while it is open, no call is made.
      if (asking === null && run.breaker?.isOpen(now()) === true) {
        return unsent("circuit-open", "the circuit breaker is open: no call was made", run.loopOptions);
      }
      const until = clock.startedAt !== null && deadlineMs !== null ? clock.startedAt + deadlineMs : null;
      span = host.tracer ? startModelCall(host.tracer, { system: provider, model, attempt }) : null;
      // A later model's loop is made at its first push or outcome (see create).
      const streaming: StreamingLoop = { push: (chunk) => (loop ??= create()).push!(chunk) };
      const stream: CallStream | null = typeof (RepairLoop as { prototype?: { push?: unknown } }).prototype?.push === "function" ? startStream(streaming, host.onPartial) : null;
      const context: CallContext = { attempt, instruction: asking };
      if (host.tools) context.tools = host.tools.definitions;
      if (stream) Object.assign(context, { push: stream.push, streamSignal: stream.signal });
      const call = await callBefore(callModel, request, context, signal, until === null ? null : until - now(), deadlineMs, stream?.signal as AbortSignal | undefined);
      if (call.kind === "aborted" || signal?.aborted) {
        const step = aborted();
        span?.instruction(step);
        return step;
      }
      let outcome: Outcome;
      const streamed = stream?.outcome(call) ?? null;
      if (streamed !== null) {
        outcome = streamed;
        if (call.kind === "reply") span?.reply({ usage: (outcome as { usage?: { inputTokens: number; outputTokens: number } }).usage });
      } else if (call.kind === "reply") {
        outcome = replyOutcome(call.reply, host.tools?.replyText);
        span?.reply({ usage: (outcome as { usage?: { inputTokens: number; outputTokens: number } }).usage });
      } else {
        const error = (call as { error?: unknown }).error;
        outcome = { kind: "error", error };
        span?.error(error);
      }
      let step = next(outcome);
      onStep?.(outcome, step);
      if (step.type === "done") {
        const settled = await settle(step, host, next);
        if (settled === null) {
          const stopped = aborted(step);
          span?.instruction(stopped);
          return stopped;
        }
        // A done the schema library or check turned down: its event, then the verdict's.
        if (settled.type !== "done") span?.event(step);
        step = settled;
      }
      span?.instruction(step);
      switch (step.type) {
        case "done":
        case "degrade":
          return step;
        case "wait-for-backoff":
          if (!(await host.wait(step.delayMs, signal))) return aborted();
          break;
        case "send-repair-prompt":
          break;
        default:
          throw new Error(`heal: unknown instruction type ${JSON.stringify((step as { type: unknown }).type)}`);
      }
      request = step.prompt;
      asking = step;
      attempt = step.attempt;
    }
  } finally {
    (span as ModelCall | null)?.end();
    (loop as Loop | null)?.free?.();
  }
}

/**
 * A `done` goes through the schema library's validate (a Standard Schema), then the host's
 * `check`, on the library's output. The first verdict against it is fed to the loop (one per
 * done: a repair prompt, an alternate prompt or a degrade, never the same done again);
 * without one, the done is final, its value the library's output.
 */
async function settle(done: Extract<Instruction, { type: "done" }>, host: Host, next: (outcome: Outcome) => Instruction): Promise<Instruction | null> {
  const accepted = await unlessAborted(host.accept(done.value), host.signal);
  if (accepted === ABORTED) return null;
  let verdict: Outcome | null = accepted.ok ? null : accepted.outcome;
  const value = accepted.ok ? accepted.value : done.value;
  if (verdict === null && host.check) {
    const v = await unlessAborted(host.check(value, { signal: host.signal }), host.signal);
    if (v === ABORTED) return null;
    if (v) verdict = { kind: v.kind, reason: v.reason };
  }
  if (verdict === null) return value === done.value ? done : { ...done, value };
  const step = next(verdict);
  host.onStep?.(verdict, step);
  return step;
}

const ABORTED = Symbol("aborted");

/**
 * What `work` (a schema library's validate, the host's check) gave, or ABORTED as soon as
 * `signal` aborts while it is pending: heal answers an abort at once, whether or not the work
 * honours a signal (its late result is dropped; an error it throws after the abort too). A
 * result given at once stands, even if the work aborted the signal on its way.
 */
function unlessAborted<T>(work: T | Promise<T>, signal: Signal | undefined): Promise<T | typeof ABORTED> {
  if (!signal || !(work instanceof Promise)) return Promise.resolve(work);
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    const done = () => signal.removeEventListener("abort", onAbort);
    Promise.resolve(work).then((value) => (done(), resolve(value)), (error: unknown) => (done(), reject(error)));
  });
}

function defaultWarn(message: string): void {
  console.warn(message);
}

/**
 * How long a call cut at a violation may take to answer its cut with what it cost so far (the
 * adapters do, at once: their stream read ends with the abort).
 */
const CUT_GRACE_MS = 100;

/**
 * One call, settled as { kind: "reply", reply } | { kind: "error", error } | { kind: "aborted" }
 * | { kind: "cut", reply? }. Ends as soon as `signal` aborts, after `left` ms (if not null) with a
 * TimeoutError, whether or not callModel honours its signal (a late result is dropped), or when
 * `cut` aborts (a streamed reply broke its schema; heal's own signal, if the call has one,
 * aborts too): then with the reply callModel answers within CUT_GRACE_MS, if any (the
 * adapters answer a cut with the text so far and its usage: the tokens were billed).
 */
function callBefore(
  callModel: CallModel,
  request: Prompt,
  context: CallContext,
  signal: AbortSignal | undefined,
  left: number | null,
  deadlineMs: number | null,
  cut?: AbortSignal,
): Promise<Settled> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | null | undefined;
    let own: AbortController | null = null; // heal's own signal, only when there is a deadline to enforce
    const finish = (result: Settled) => {
      if (timer === null) return;
      clearTimeout(timer);
      timer = null;
      signal?.removeEventListener("abort", onAbort);
      cut?.removeEventListener("abort", onCut);
      resolve(result);
    };
    let cutting = false;
    const onCut = () => {
      own?.abort(cut?.reason);
      cutting = true;
      clearTimeout(timer ?? undefined);
      timer = setTimeout(() => finish({ kind: "cut" }), CUT_GRACE_MS);
    };
    if (cut?.aborted) return finish({ kind: "cut" });
    const onAbort = () => {
      own?.abort(signal?.reason);
      finish({ kind: "aborted" });
    };
    if (signal?.aborted) return finish({ kind: "aborted" });
    // The deadline passed before the call: none is sent.
    if (left !== null && left <= 0) return finish({ kind: "error", error: deadlineError(deadlineMs, "before the call was sent") });
    signal?.addEventListener("abort", onAbort, { once: true });
    cut?.addEventListener("abort", onCut, { once: true });
    if (left !== null) {
      const controller = new AbortController();
      own = controller;
      timer = setTimeout(() => {
        const error = deadlineError(deadlineMs);
        controller.abort(error);
        finish({ kind: "error", error });
      }, Math.max(0, left));
    }
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(callModel(request, { ...context, signal: own ? own.signal : signal }));
    } catch (error) {
      return finish({ kind: "error", error });
    }
    pending.then(
      (reply) => finish(cutting ? { kind: "cut", reply } : { kind: "reply", reply }),
      (error: unknown) => finish(cutting ? { kind: "cut" } : { kind: "error", error }),
    );
  });
}

/** What a call cut at the deadline failed with: a TimeoutError, transient/timeout for classify. */
function deadlineError(deadlineMs: number | null, when = "during the call"): Error {
  const message = `the loop's deadline (budget.deadlineMs ${deadlineMs} ms) passed ${when}`;
  if (typeof DOMException === "function") return new DOMException(message, "TimeoutError");
  return Object.assign(new Error(message), { name: "TimeoutError" });
}

function replyOutcome(reply: unknown, replyText?: (reply: ModelReply) => unknown): Outcome {
  if (reply === null || typeof reply !== "object") {
    // Let the loop name the problem (outcome.text must be a string).
    return { kind: "reply", text: reply } as unknown as Outcome;
  }
  const r = reply as Record<string, unknown>;
  const outcome: Record<string, unknown> = { kind: "reply", text: replyText ? replyText(r as unknown as ModelReply) : r.text };
  if (r.stopReason !== undefined && r.stopReason !== null) outcome.stopReason = r.stopReason;
  if (r.costUsd !== undefined && r.costUsd !== null) outcome.costUsd = r.costUsd;
  if (r.usage !== undefined && r.usage !== null) outcome.usage = r.usage;
  return outcome as unknown as Outcome;
}

function abortReason(signal: AbortSignal | undefined): string {
  const r: unknown = signal?.reason;
  if (typeof r === "string" && r.length > 0) return r;
  const message = (r as { message?: unknown } | null | undefined)?.message;
  if (r && typeof message === "string" && message.length > 0) return message;
  return "aborted";
}

/**
 * `options.sleep` as heal waits: true once it resolves, false as soon as `signal` aborts, whether
 * or not the host's sleep heeds it (a virtual clock's need not: the wait ends at once, as said).
 */
function hostSleep(sleep: NonNullable<HealOptions["sleep"]>) {
  return (ms: number, signal: AbortSignal | undefined): Promise<boolean> =>
    new Promise<boolean>((resolve, reject) => {
      if (signal?.aborted) return resolve(false);
      const onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
      sleep(ms, signal)
        .then(() => resolve(!signal?.aborted), (error: unknown) => (signal?.aborted ? resolve(false) : reject(error)))
        .finally(() => signal?.removeEventListener("abort", onAbort));
    });
}

// ---------- callModel adapters for the official SDKs ----------
// They take a client you constructed (so this file imports no SDK). Construct
// it with `maxRetries: 0`: selfheal's policy should be the only retry policy.
// `pricing` (optional) `{ inputUsdPerMTok, outputUsdPerMTok }` turns usage
// into `costUsd`, so `budget.costCeilingUsd` works. The clients and their replies are
// used structurally (this file imports no SDK), hence the `any` at that edge only.

export interface Pricing { inputUsdPerMTok?: number; outputUsdPerMTok?: number }
type Usage = { inputTokens: number; outputTokens: number };
/* eslint-disable @typescript-eslint/no-explicit-any */
type Sdk = any;

function costOf(pricing: Pricing | undefined, usage: Usage | undefined): number | undefined {
  if (!pricing || !usage) return undefined;
  return (usage.inputTokens * (pricing.inputUsdPerMTok ?? 0) + usage.outputTokens * (pricing.outputUsdPerMTok ?? 0)) / 1e6;
}

function withCost(reply: ModelReply, pricing: Pricing | undefined): ModelReply {
  const costUsd = costOf(pricing, reply.usage);
  return costUsd === undefined ? reply : { ...reply, costUsd };
}

/**
 * callModel for `@anthropic-ai/sdk`: `client.messages.create` with the prompt as
 * `system` + one user message. `stream: true` streams, pushing each text delta into the loop
 * (heal cuts the request at the first violation: SPEC section 8), and collects the text
 * (an `event: error` mid-stream is thrown by the SDK and classified as usual); a
 * stream that ends without its final `message_stop` event reports
 * `stopReason: "incomplete"`, so the loop never takes what arrived as complete.
 * @param {object} client an Anthropic client
 * @param {{ model: string, max_tokens?: number, stream?: boolean, pricing?: object }} params
 *   other fields are passed to messages.create as they are
 */
export function anthropicCaller(
  client: object,
  { pricing, max_tokens = 1024, stream = false, ...params }: { model: string; max_tokens?: number; stream?: boolean; pricing?: Pricing; [key: string]: unknown },
): CallModel {
  const sdk: Sdk = client;
  return named("anthropic", params.model, async (prompt, { signal, tools, push, streamSignal } = {} as Parameters<CallModel>[1]) => {
    const body: Record<string, unknown> = { ...params, max_tokens, messages: [{ role: "user", content: prompt.user }] };
    if (prompt.system) body.system = prompt.system;
    if (tools) Object.assign(body, anthropicTools(tools));
    const requestOptions = signal ? { signal } : undefined;
    if (!stream) {
      const message = await sdk.messages.create(body, requestOptions);
      throwIfErrorBody(message);
      return withCost({
        text: (message.content ?? []).filter((b: Sdk) => b.type === "text").map((b: Sdk) => b.text).join(""),
        stopReason: message.stop_reason ?? undefined,
        usage: { inputTokens: message.usage?.input_tokens ?? 0, outputTokens: message.usage?.output_tokens ?? 0 },
        toolCall: anthropicToolCall(message.content),
      }, pricing);
    }
    // Streamed tool calls are not read (yet): with tools, the text deltas are not the loop's value.
    if (tools) push = undefined;
    const cuttable = joinSignals(signal, streamSignal);
    const events = await sdk.messages.create({ ...body, stream: true }, cuttable ? { signal: cuttable } : undefined);
    let text = "";
    let stopReason: string | undefined;
    let finished = false;
    let inputTokens = 0;
    let outputTokens = 0;
    try {
      for await (const event of events) {
        if (event.type === "message_start") {
          inputTokens = event.message.usage?.input_tokens ?? 0;
          outputTokens = event.message.usage?.output_tokens ?? 0;
        } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          text += event.delta.text;
          push?.(event.delta.text);
        } else if (event.type === "message_delta") {
          stopReason = event.delta.stop_reason ?? stopReason;
          outputTokens = event.usage?.output_tokens ?? outputTokens;
        } else if (event.type === "message_stop") {
          finished = true;
        }
      }
    } catch (e) {
      if (!streamSignal?.aborted) throw e;
    }
    // Cut by heal (the SDK's iterator ends or throws): the output tokens so far are estimated.
    if (streamSignal?.aborted) return cutReply(text, { inputTokens, outputTokens: Math.max(outputTokens, estimateTokens({ user: text })) }, pricing);
    return withCost({ text, stopReason: finished ? stopReason : "incomplete", usage: { inputTokens, outputTokens } }, pricing);
  });
}

/**
 * callModel for `openai`: `client.chat.completions.create` with a system and a
 * user message; `finish_reason` becomes `stopReason` ("length" = cut off).
 * `stream: true` streams, pushing each text delta into the loop (heal cuts the request at the
 * first violation), and collects the text (usage is asked for with
 * `stream_options.include_usage`); a stream that ends without a `finish_reason`
 * reports `stopReason: "incomplete"`. An error body sent with HTTP 200, as
 * OpenRouter does (`{"error": {"code": 502, "message": ...}}`), whole or as a
 * stream chunk, is thrown as an Error whose `status` is that code, so `classify`
 * sees the 502 it is. A refusal (`message.refusal`, or streamed `refusal` deltas) reports
 * `stopReason: "refusal"`: hard-fail content-filter, not an empty reply to repair.
 * @param {object} client an OpenAI client
 * @param {{ model: string, stream?: boolean, pricing?: object }} params other fields go to create() as they are
 */
export function openaiCaller(
  client: object,
  { pricing, stream = false, ...params }: { model: string; stream?: boolean; pricing?: Pricing; [key: string]: unknown },
): CallModel {
  const sdk: Sdk = client;
  return named("openai", params.model, async (prompt, { signal, tools, push, streamSignal } = {} as Parameters<CallModel>[1]) => {
    const messages: { role: string; content: string }[] = [];
    if (prompt.system) messages.push({ role: "system", content: prompt.system });
    messages.push({ role: "user", content: prompt.user });
    const requestOptions = signal ? { signal } : undefined;
    if (!stream) {
      const completion = await sdk.chat.completions.create({ ...params, ...(tools ? openaiTools(tools) : {}), messages }, requestOptions);
      throwIfErrorBody(completion);
      const choice = completion.choices?.[0];
      const refusal = choice?.message?.refusal;
      return withCost({
        text: choice?.message?.content ?? (typeof refusal === "string" ? refusal : ""),
        stopReason: refused(refusal) ? "refusal" : choice?.finish_reason ?? undefined,
        usage: openaiUsage(completion.usage),
        toolCall: openaiToolCall(choice?.message?.tool_calls),
      }, pricing);
    }
    if (tools) push = undefined; // streamed tool calls are not read (yet), as above
    const chunks = await sdk.chat.completions.create(
      { ...params, messages, stream: true, stream_options: { include_usage: true, ...(params.stream_options as object | undefined) } },
      ((s) => (s ? { signal: s } : undefined))(joinSignals(signal, streamSignal)),
    );
    let text = "";
    let refusal = "";
    let stopReason: string | undefined;
    let usage: Usage | undefined;
    try {
      for await (const chunk of chunks) {
        throwIfErrorBody(chunk);
        const choice = chunk.choices?.[0];
        if (typeof choice?.delta?.content === "string") {
          text += choice.delta.content;
          push?.(choice.delta.content);
        }
        // A refusal streams as its own deltas: words, not the reply's JSON (never pushed).
        if (typeof choice?.delta?.refusal === "string") refusal += choice.delta.refusal;
        if (choice?.finish_reason) stopReason = choice.finish_reason;
        if (chunk.usage) usage = openaiUsage(chunk.usage);
      }
    } catch (e: Sdk) {
      // The SDK throws an `error` chunk as an APIError without a status: give it the body's code.
      if (!streamSignal?.aborted) throw e?.status == null && httpCode(e?.error) ? errorFromBody(e.error, e) : e;
    }
    // Cut by heal (the SDK's iterator ends or throws): the usage chunk comes last, so the tokens
    // so far are estimated.
    if (streamSignal?.aborted) return cutReply(text, usage ?? { inputTokens: estimateTokens(prompt), outputTokens: estimateTokens({ user: text }) }, pricing);
    if (refused(refusal)) return withCost({ text: text || refusal, stopReason: "refusal", usage }, pricing);
    return withCost({ text, stopReason: stopReason ?? "incomplete", usage }, pricing);
  });
}

/**
 * OpenAI's `message.refusal` (structured outputs): the model declined, with `finish_reason`
 * "stop" and no content. Reported as the stop reason "refusal" (SPEC section 4: refused, not
 * resent), not as an empty reply to repair.
 */
function refused(refusal: unknown): boolean {
  return typeof refusal === "string" && refusal.trim() !== "";
}

/**
 * What an adapter answers when heal cut its stream (a violation): the text so far and the usage
 * the provider bills for it (the prompt was read, the tokens so far generated), so the call's
 * cost counts towards costUsd and the cost ceiling. Where the provider has not said it yet,
 * tokens are estimated at one per 4 characters, as `models` estimates prompts.
 */
function cutReply(text: string, usage: Usage, pricing: Pricing | undefined): ModelReply {
  return withCost({ text, stopReason: "aborted", usage }, pricing);
}

/** A callModel that says which provider and model it calls (read by spans and `models`). */
function named(provider: string, model: unknown, call: CallModel): CallModel {
  return Object.assign(call, { provider, ...(typeof model === "string" ? { model } : {}) });
}

// Tools (js/package/tools.mts): heal's definitions in each SDK's shape, a call required; the
// reply's first tool call as { id, name, arguments } (Anthropic's input object stringified,
// OpenAI's arguments verbatim). Streamed replies are read for text only.
function anthropicTools(tools: ToolDefinition[]): Record<string, unknown> {
  return {
    tools: tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), input_schema: forProvider(t.inputSchema) })),
    tool_choice: { type: "any" },
  };
}

function openaiTools(tools: ToolDefinition[]): Record<string, unknown> {
  return {
    tools: tools.map((t) => ({ type: "function", function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: forProvider(t.inputSchema) } })),
    tool_choice: "required",
  };
}

/** A tool's JSON Schema as providers take it (no `$schema`; Anthropic needs an object type). */
function forProvider(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema;
  return rest.type === undefined ? { type: "object", ...rest } : rest;
}

function anthropicToolCall(content: Sdk): ToolCall | undefined {
  const block = (Array.isArray(content) ? content : []).find((b: Sdk) => b?.type === "tool_use");
  return block ? { id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) } : undefined;
}

function openaiToolCall(calls: Sdk): ToolCall | undefined {
  const call = (Array.isArray(calls) ? calls : []).find((c: Sdk) => c?.type === "function" || c?.function);
  return call ? { id: call.id, name: call.function?.name, arguments: call.function?.arguments ?? "" } : undefined;
}

function openaiUsage(usage: Sdk): Usage | undefined {
  return usage ? { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 } : undefined;
}

/** An HTTP status carried in an error body's `code` (OpenRouter: `{"error": {"code": 502}}`). */
function httpCode(error: Sdk): number | null {
  const code = typeof error?.code === "string" && /^\d{3}$/.test(error.code) ? Number(error.code) : error?.code;
  return Number.isInteger(code) && code >= 400 && code <= 599 ? code : null;
}

/** A body that says it is an error although it came with HTTP 200. */
function throwIfErrorBody(body: Sdk): void {
  if (body && typeof body === "object" && body.error && typeof body.error === "object" && !body.choices?.length && !body.content) {
    throw errorFromBody(body.error);
  }
}

/** The Error for an error body: `status` from its code, `error` the body, `code`/`type` as given. */
function errorFromBody(error: Sdk, cause?: unknown): Error {
  const message = typeof error.message === "string" && error.message ? error.message : "the provider returned an error body with HTTP 200";
  const e: Sdk = new Error(message, cause === undefined ? undefined : { cause });
  e.name = "ProviderError";
  const status = httpCode(error);
  if (status !== null) e.status = status;
  if (typeof error.code === "string") e.code = error.code;
  if (typeof error.type === "string") e.type = error.type;
  e.error = error;
  return e;
}

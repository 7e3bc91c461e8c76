// The whole TypeScript contract of the wasm exports (SPEC sections 2, 6, 8-10), declared once.
// src/wasm/dts.rs embeds it in the build (wasm-bindgen's typescript_custom_section) and every
// export is `skip_typescript`, so the generated .d.ts is exact (discriminated unions, no `any`)
// without being patched after the build. tests/dts_contract.rs checks its string unions against
// the serde names of the Rust enums.
// `Symbol.dispose` (the classes' `[Symbol.dispose]()`, for `using`), declared here too so that a
// project whose `lib` lacks ESNext.Disposable (ES2022's default) compiles with skipLibCheck off;
// where the lib has it, the two declarations merge.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}
// ---------- classification ----------
export type ErrorClass = "transient" | "repairable" | "semantic-invalid" | "hard-fail";
export type Cause =
  | "rate-limited" | "overloaded" | "server-error" | "timeout" | "network" | "conflict"
  | "quota-exhausted" | "auth" | "bad-request" | "not-found" | "too-large"
  | "context-overflow" | "unsupported" | "aborted" | "content-filter"
  | "json-syntax" | "schema" | "truncated" | "empty" | "rejected" | "semantic" | "unknown";
export interface Classified {
  class: ErrorClass;
  cause: Cause;
  /** One line, English, for people and logs. */
  reason: string;
  /** Which signal decided. */
  signal: "x-should-retry" | "status" | "error-type" | "code" | "message"
        | "validation" | "stop-reason" | "stream" | "rule" | "none";
  /** Server-requested wait in milliseconds, or null. */
  retryAfterMs: number | null;
}
export interface Validation { ok: boolean; kind?: string; detail?: string }
/**
 * A caller's rule, tried before the built-in table (after a failed validation); the first rule
 * whose every listed condition holds decides the class (signal "rule"), and the cause unless it
 * names none (then the built-in cause stays). At most 256 rules.
 */
export interface ClassifyRule {
  /** The HTTP status (or the status an error body carries), or an inclusive [low, high]. */
  status?: number | [number, number];
  /** Exactly one of the error's codes (code, cause.code, error.code, ...). */
  code?: string;
  /** Exactly one of the error's types, its status string, its name or its class name. */
  type?: string;
  /** A substring of one of the error's messages, case-insensitive. */
  message?: string;
  class: ErrorClass;
  cause?: Cause;
}
export interface ClassifyOptions { rules?: ClassifyRule[] }
/**
 * Classify anything a call threw or returned as an error. Never throws for the first three
 * arguments; bad options.rules throw a TypeError/RangeError naming the rule and field.
 */
export function classify(error: unknown, validation?: Validation | null, now?: number,
                         options?: ClassifyOptions): Classified;

// ---------- structured output ----------
export type FailureKind = "empty" | "json-syntax" | "schema" | "truncated";
/** `path` is a JSON Pointer; "" is the root. */
export interface FailureIssue { kind: FailureKind; path: string; message: string }
export interface FailureReport { kinds: FailureKind[]; issues: FailureIssue[] }
/** Names of the local repairs and coercions, in the order first applied. */
export type Fix =
  | "code-fence" | "surrounding-prose" | "trailing-comma" | "single-quotes" | "smart-quotes"
  | "unquoted-key" | "comment" | "python-literal" | "missing-comma" | "control-character"
  | "invalid-escape" | "unclosed-string" | "unclosed-bracket" | "missing-colon"
  | "missing-value" | "unescaped-quote" | "ellipsis" | "string-concatenation"
  | "function-wrapper" | "undefined-literal" | "special-whitespace" | "backtick-quotes"
  | "leading-zeros" | "number-format" | "invalid-number" | "regex-literal"
  | "newline-delimited" | "mismatched-bracket" | "redundant-bracket" | "escaped-json"
  | "string-encoded-json" | "unquoted-string" | "coerce-number" | "coerce-boolean"
  | "coerce-enum" | "coerce-array" | "coerce-object" | "coerce-null";
export type Parsed =
  | { ok: true; value: unknown; fixes: Fix[];
      /** false when the value was not checked against the schema: in selfheal/lite, which has
       *  no JSON Schema validator (syntax only), and from `PartialJson.finish()` when a Standard
       *  Schema's validate is async (not awaited there). Absent otherwise. */
      validated?: false }
  | { ok: false; report: FailureReport };
export interface ParseOptions {
  localRepair?: boolean;
  stopReason?: string;
  /** default 4000000: a longer reply (in code points) is a `truncated` failure, not read */
  maxReplyChars?: number;
  /** default false: align a value that fails the schema with it where the intent is plain. */
  coerce?: boolean;
}
export interface SchemaOptions {
  /** default true: `format` is asserted; false makes it an annotation only. */
  formats?: boolean;
  /** Documents `$ref` may name, by URI. Nothing is ever fetched. */
  resources?: Record<string, object | boolean>;
}
/**
 * Returns null when the text holds nothing JSON-like or cannot be repaired. A text longer than
 * `maxChars` code points (default 4,000,000, as a reply's `maxReplyChars`) is a RangeError.
 */
export function repairJson(text: string, options?: { maxChars?: number }): { text: string; fixes: Fix[] } | null;
export class Schema {
  free(): void;
  [Symbol.dispose](): void;
  /** Throws TypeError on an invalid schema, saying where. Compiled schemas are cached by text.
   *  selfheal/lite refuses only a schema that is not JSON, an object or a boolean: it has no
   *  JSON Schema compiler, so it neither checks the schema further nor asserts `format`.
   *  A Standard Schema v1 object (Zod 4, ArkType: anything with `~standard.jsonSchema`) is
   *  taken as the JSON Schema its `~standard.jsonSchema.input` gives (draft 2020-12, else
   *  draft-07); one without it (Valibot) is a TypeError: pass `(await jsonSchemaOf(schema)).jsonSchema`
   *  from "selfheal/standard", or use heal. Only that JSON Schema is used here: the library's own
   *  validate (refinements, transforms) runs only in heal, selfheal/ai and PartialJson.finish(); otherwise run
   *  `schema["~standard"].validate(value)` yourself and feed its issues as `rejected`. */
  constructor(schema: object | boolean | string, options?: SchemaOptions);
  /** The schema's canonical JSON text. */
  readonly text: string;
  /** Internal: how RepairLoop, parseStructured and buildRepairPrompt find a compiled schema. */
  readonly __selfhealSchemaId: number;
  /** Internal: tells this module's instances from another copy's of the package. */
  readonly __selfhealModule: object;
  parse(raw: string, options?: ParseOptions): Parsed;
  /** null = valid. selfheal/lite (no JSON Schema validator) throws an Error instead of
   *  answering without having looked. */
  validate(value: unknown): FailureReport | null;
}
/** `schema` as `new Schema` takes it (a Standard Schema with a synchronous JSON Schema too). */
export function parseStructured(schema: object | boolean | string | Schema, raw: string,
                                options?: ParseOptions): Parsed;
// ---------- streaming (SPEC section 8) ----------
export interface PartialUpdate {
  /**
   * undefined until a value starts; open containers hold what has arrived; an unfinished string
   * is its prefix; an unfinished number or literal is left out (never a guess). One live value:
   * later pushes grow it in place (structuredClone it to keep a snapshot).
   */
  value: unknown;
  /** The top-level value has closed. */
  done: boolean;
  /** JSON Pointers of the values that closed during this push, in order. */
  closed: string[];
  /** The first issue no continuation can fix; sticky once set. It is definitive for the value it
   *  was seen in: cut the stream there. A reply read on to its end is parsed whole by finish()
   *  and RepairLoop.next(), where a later value (a second fenced block) may still pass. */
  violation: FailureIssue | null;
}
export interface PartialJsonOptions {
  /** default 4000000: longest text, in code points; a push past it throws RangeError, adding nothing */
  maxChars?: number;
  /** default true: what finish() and the checks assume (as parseStructured's localRepair) */
  localRepair?: boolean;
  /** default false: as parseStructured's coerce (no type, enum or const check mid-stream) */
  coerce?: boolean;
}
export class PartialJson {
  free(): void;
  [Symbol.dispose](): void;
  /** `schema` as `new Schema` takes it. A Standard Schema's JSON Schema checks the stream (none
   *  to be had synchronously, as for Valibot: any JSON), and the package entries' PartialJson runs
   *  its own validate in `finish()`: its issues make a `schema` failure; an asynchronous validate
   *  is not awaited there (the result says `validated: false`). */
  constructor(schema?: object | boolean | string | Schema | null, options?: PartialJsonOptions);
  /** Amortised O(chunk): never re-reads earlier text. */
  push(chunk: string): PartialUpdate;
  /** = parseStructured(schema, text, options); localRepair and coerce default to the stream's. */
  finish(options?: ParseOptions): Parsed;
  /** Everything pushed, as pushed. */
  readonly text: string;
}
export type Locale = "en" | "ja" | "zh";
export interface Prompt { system: string; user: string }
export function buildRepairPrompt(report: FailureReport, schema: object | boolean | string | Schema, raw: string,
                                  options?: { maxRawChars?: number; locale?: Locale }): Prompt;

// ---------- the step-driven loop ----------
export interface Budget {
  /** default 6: resends after transient errors */
  transient: number;
  /** default 1: repair prompts */
  repairable: number;
  /** default 1: alternate-prompt switches (needs alternatePrompt) */
  semanticInvalid: number;
  /** default null: no ceiling */
  costCeilingUsd: number | null;
  /** default null: time box, counted from the first next() */
  deadlineMs: number | null;
  /** default 6000 in "fix" mode, null in "reask" mode */
  maxPromptChars: number | null;
}
export interface Backoff {
  /** default 1000 */
  baseMs: number;
  /** default 30000 */
  maxMs: number;
  /** default "additive" */
  jitter: "additive" | "full" | "equal" | "none";
  /** default 250 (used by "additive") */
  jitterMs: number;
  /** default 60000 */
  maxRetryAfterMs: number;
}
export type FallbackPlan =
  | { mode: "human"; queue: string }
  | { mode: "template"; templateId: string; text: string };
export interface LoopOptions {
  /** The request the host sends first (required). */
  prompt: Prompt;
  /** When absent, any non-empty reply text is the value. As `new Schema` takes it: a Standard
   *  Schema stands for its synchronous JSON Schema; its own validate is yours to run on `done`
   *  (`schema["~standard"].validate(value)`), feeding the issues as `{ kind: "rejected", reason }`
   *  (selfheal/standard's `validateStandard` builds that outcome), or use heal, which does it. */
  schema?: object | boolean | string | Schema;
  /** default "fix" */
  mode?: "fix" | "reask";
  /** Sent once on semantic-invalid. */
  alternatePrompt?: Prompt;
  /** Carried by every degrade instruction (null if absent). */
  fallback?: FallbackPlan;
  budget?: Partial<Budget>;
  backoff?: Partial<Backoff>;
  /** default true */
  localRepair?: boolean;
  /** default false: coerce replies to the schema where the intent is plain (SPEC 9). */
  coerce?: boolean;
  /** default "en": language of built prompts */
  locale?: Locale;
  /** default 2000: broken output quoted in a fix prompt, in code points */
  maxRawChars?: number;
  /** default 4000000: a longer reply (in code points) degrades "unrepairable" unread */
  maxReplyChars?: number;
  /** Jitter seed; default from the platform's random source. */
  seed?: number;
  /** Rules for error outcomes, tried before the built-in table (see classify). */
  rules?: ClassifyRule[];
}
export type Outcome =
  /** text may be left out after push(): the pushed text is the reply. */
  | { kind: "reply"; text?: string; stopReason?: string; costUsd?: number;
      usage?: { inputTokens: number; outputTokens: number } }
  | { kind: "error"; error: unknown; costUsd?: number }
  | { kind: "rejected"; reason: string }
  | { kind: "invalid"; reason: string };
export type StopReason =
  | "hard-fail" | "unrepairable" | "transient-exhausted" | "budget-exhausted"
  | "repair-failed" | "semantic-invalid" | "deadline-exceeded" | "prompt-too-large"
  | "cost-ceiling" | "retry-after-too-long" | "circuit-open" | "aborted"
  | "retry-budget-exhausted";
export type Instruction =
  /** Wait delayMs, then send prompt (the failed call's prompt) as call number attempt. */
  | { type: "wait-for-backoff"; delayMs: number; prompt: Prompt; attempt: number; classified: Classified }
  /** Send prompt now as call number attempt. */
  | { type: "send-repair-prompt"; prompt: Prompt; attempt: number;
      strategy: "fix" | "reask" | "alternate"; classified: Classified }
  /** Use value. Provisional: one rejected/invalid outcome may still follow. */
  | { type: "done"; value: unknown; text: string;
      source: "first-pass" | "locally-repaired" | "repaired"; fixes: Fix[];
      attempts: number; costUsd: number;
      /** selfheal/lite only, when the loop has a schema: false, the value was checked for
       *  syntax only (validate it yourself, or through heal with a Standard Schema, and feed a
       *  refusal as a rejected outcome). Absent from the full build. */
      validated?: false }
  /** Stop calling the model; use fallback. Final. */
  | { type: "degrade"; reason: StopReason; detail: string; fallback: FallbackPlan | null;
      report: FailureReport | null; classified: Classified | null;
      attempts: number; costUsd: number };
export interface Attempt { n: number; class: ErrorClass | null; cause: Cause | null;
                           reason: string; costUsd: number; at: number }
export interface LoopReport {
  calls: number; costUsd: number; repaired: number;
  byClass: Record<ErrorClass, number>; warnings: string[];
}
export class RepairLoop {
  free(): void;
  [Symbol.dispose](): void;
  /**
   * Throws TypeError/RangeError naming the field on bad options. With a retryBudget, the loop's
   * first call is recorded and every resend must get retryBudget.tryRetry(now) first.
   */
  constructor(options: LoopOptions, breaker?: CircuitBreaker | null, retryBudget?: RetryBudget | null);
  /** now defaults to Date.now(). */
  next(outcome: Outcome, now?: number): Instruction;
  /**
   * The streamed reply of the call in flight (the loop's schema, localRepair, coerce; maxChars is
   * maxReplyChars): a RangeError past it, adding nothing; an Error once the loop has finished.
   * On a violation, cut the stream and feed { kind: "reply", stopReason: "aborted" }.
   */
  push(chunk: string): PartialUpdate;
  /** degrade "aborted" (or the final instruction already given). */
  abort(reason?: string, now?: number): Instruction;
  readonly attempts: Attempt[];
  report(): LoopReport;
  /** The whole state, JSON-safe. */
  toJSON(): object;
  static fromJSON(state: object, breaker?: CircuitBreaker | null, retryBudget?: RetryBudget | null): RepairLoop;
}

// ---------- agent toolkit ----------
export type BreakerState = "closed" | "open" | "half-open";
export class CircuitBreaker {
  free(): void;
  [Symbol.dispose](): void;
  constructor(options?: { failureThreshold?: number; resetTimeoutMs?: number });
  /** open -> half-open once resetTimeoutMs passed since the last failure. */
  isOpen(now?: number): boolean;
  /** -> closed, failures 0 */
  recordSuccess(): void;
  /** failures >= threshold -> open (a failure in half-open re-opens) */
  recordFailure(now?: number): void;
  readonly state: BreakerState;
  readonly failures: number;
  /** Internal: how RepairLoop finds a shared breaker. */
  readonly __selfhealBreakerId: number;
  /** Internal: tells this module's instances from another copy's of the package. */
  readonly __selfhealModule: object;
  toJSON(): object;
  static fromJSON(state: object): CircuitBreaker;
}

export interface RetryBudgetOptions {
  /** default 0.1: resends allowed per first call in the window */
  ratio?: number;
  /** default 1: resends allowed per second of window whatever the traffic */
  minPerSecond?: number;
  /** default 10000: the sliding window (at least 10) */
  windowMs?: number;
}
/**
 * Resends allowed across any number of loops (Finagle / Envoy style): within the last windowMs,
 * resends + 1 <= ratio * first calls + minPerSecond * windowMs / 1000. Bounded memory.
 */
export class RetryBudget {
  free(): void;
  [Symbol.dispose](): void;
  constructor(options?: RetryBudgetOptions);
  /** A first call (a loop given this budget records its own). now defaults to Date.now(). */
  recordRequest(now?: number): void;
  /** A resend: true, and counted, when allowed. now defaults to Date.now(). */
  tryRetry(now?: number): boolean;
  /** Resends allowed now, as of the latest now the budget was given. */
  readonly available: number;
  /** Internal: how RepairLoop finds a shared budget. */
  readonly __selfhealRetryBudgetId: number;
  /** Internal: tells this module's instances from another copy's of the package. */
  readonly __selfhealModule: object;
  toJSON(): object;
  static fromJSON(state: object): RetryBudget;
}

export type InterventionStrategy =
  | "reset_with_summary" | "force_completion" | "compress_and_continue"
  | "break_loop" | "alternative_approach" | "guided_correction";
/** What the host must do after a step. */
export type Verdict =
  /** Let the agent take its next step. */
  | { action: "continue" }
  /** Step in with strategy; reason is one English sentence (for guided_correction, the reviewer's words). */
  | { action: "intervene"; reason: string; strategy: InterventionStrategy }
  /** Send prompt to a (cheap) model and feed its reply text to supervisor.verdict(). */
  | { action: "review"; prompt: Prompt };
export interface SupervisorOptions {
  /** default 30 */
  maxSteps?: number;
  /** default 300000 */
  maxDurationMs?: number;
  /** default 500000 */
  maxTokens?: number;
  /** default 5: recent steps loop detection looks at */
  loopWindow?: number;
  /** default 10: no review before this many steps */
  reviewAfterSteps?: number;
  /** default 5: review on every step count divisible by this */
  reviewEvery?: number;
}
/** One agent step as the host saw it. */
export interface AgentStep { tool?: string; tokens?: number; progress?: string }
export class Supervisor {
  free(): void;
  [Symbol.dispose](): void;
  /** now (default Date.now()) is the start of the run. */
  constructor(options?: SupervisorOptions, now?: number);
  /** Count a step, add its tokens, check steps, time, tokens, loops, oscillation, review. */
  observe(step: AgentStep, now?: number): Verdict;
  /** The reviewing model's reply ({"healthy": bool, "reason": string}); unparsable -> continue. */
  verdict(text: string): Verdict;
  /** Steps observed so far. */
  readonly steps: number;
  /** Tokens added up over all steps. */
  readonly tokens: number;
  toJSON(): object;
  static fromJSON(state: object): Supervisor;
}

export interface AgentBudgetOptions {
  maxInputTokens: number;
  maxOutputTokens: number;
  /** default 20 */
  maxIterations?: number;
}
export interface TokenUsage { inputTokens: number; outputTokens: number }
/** reason is "" when stop is false. */
export interface BudgetStatus { stop: boolean; reason: string }
export class AgentBudget {
  free(): void;
  [Symbol.dispose](): void;
  constructor(options: AgentBudgetOptions);
  /** One iteration (model call). */
  record(usage: TokenUsage): void;
  /** Iterations, then input, then output tokens; a budget is spent at used >= max. */
  exhausted(): BudgetStatus;
  /** Either token ratio > 0.8. */
  nearlyDone(): boolean;
  /** min(cap, output tokens left); 0 when the output budget is spent. */
  maxTokensForNextCall(cap: number): number;
  /** "" unless nearlyDone(): a sentence telling the agent to wrap up, no new branches. */
  hint(locale?: Locale): string;
  readonly iterations: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  toJSON(): object;
  static fromJSON(state: object): AgentBudget;
}

/** What the host must do next. */
export type ChainStep =
  /** Call tool (give up after timeoutMs), then feed { ok, error? } to next(). */
  | { type: "call"; tool: string; timeoutMs: number; fallback: boolean }
  /** Use toolUsed's result. Final. */
  | { type: "done"; toolUsed: string; usedFallback: boolean }
  /** Every tool failed or was skipped: use value (the defaultValue). Final. */
  | { type: "default"; value: unknown }
  /** Every tool failed or was skipped, no default; tried lists the tools called. Final. */
  | { type: "exhausted"; tried: string[] };
export interface FallbackChainOptions {
  primary: string;
  fallbacks: string[];
  /** Given (null included) -> "default" instead of "exhausted". Must be JSON-serialisable. */
  defaultValue?: unknown;
  timeoutMs: number;
  /** default 3 (per tool breaker) */
  failureThreshold?: number;
  /** default 60000 (per tool breaker) */
  resetTimeoutMs?: number;
}
/** `error`: what the tool threw. An error object is classified: a failure the request brought on
 *  (cause bad-request, too-large, context-overflow, content-filter) moves on to the next
 *  tool without counting against this one's breaker. */
export interface ChainResult { ok: boolean; error?: unknown }
/** A failed call of the current run; error is a one-line description of what was thrown. */
export interface ChainFailure { tool: string; error: string | null; at: number }
/** One run at a time: `start()` begins a run (abandoning one in progress), `next()` continues it.
 *  Requests one after another share a chain, and so its breakers; concurrent requests each need
 *  their own chain (for models called concurrently, heal({ models }) with one CircuitBreaker per
 *  model shares the breakers). */
export class FallbackChain {
  free(): void;
  [Symbol.dispose](): void;
  constructor(options: FallbackChainOptions);
  /** A fresh run: the primary, or the first tool whose breaker is not open. */
  start(now?: number): ChainStep;
  /** Feed the result of the call the last step asked for; final steps repeat. */
  next(result: ChainResult, now?: number): ChainStep;
  /** Tools called in the current run, in call order. */
  readonly tried: string[];
  readonly failures: ChainFailure[];
  toJSON(): object;
  static fromJSON(state: object): FallbackChain;
}

export type Level = "full" | "partial" | "minimal" | "unavailable";
export type LadderStep =
  /** Send prompt without tools, on model if not null; feed the result to next(). */
  | { type: "send"; level: "partial" | "minimal"; prompt: Prompt; useTools: false; model: string | null }
  /** Show text (reply + disclaimer, or the apology at "unavailable"). Final. */
  | { type: "final"; level: Level; text: string };
export interface DegradationLadderOptions {
  task: string;
  failedCapabilities: string[];
  /** Model for the "minimal" level. */
  lightModel?: string;
  /** default "en" */
  locale?: Locale;
}
export type LadderResult = { ok: true; text: string } | { ok: false; error?: unknown };
export class DegradationLadder {
  free(): void;
  [Symbol.dispose](): void;
  constructor(options: DegradationLadderOptions);
  /** "partial" first only if failedCapabilities includes "tools", else "minimal". */
  start(): LadderStep;
  /** success -> final with the level's disclaimer; all failed -> "unavailable" apology. */
  next(result: LadderResult): LadderStep;
  toJSON(): object;
  static fromJSON(state: object): DegradationLadder;
}

export interface Message { role: "user" | "assistant"; content: string | object[] }
/** Script-aware (CJK weighs more than Latin), never below ceil(0.25 * characters). */
export function estimateTokens(messages: Message[]): number;
export type Compaction =
  | { action: "none"; estimatedTokens: number }
  /** Send summaryPrompt (unless older is 0), then call applySummary(plan, replyText). */
  | { action: "summarize"; estimatedTokens: number; summaryPrompt: Prompt;
      older: number; keep: Message[] };
export interface CompactionOptions {
  maxTokens: number;
  /** default 6 */
  keepRecent?: number;
  /** default 1000 */
  maxToolResultChars?: number;
}
/** Nothing below 80% of maxTokens; above, trim tool results, keep the last keepRecent, summarise the rest. */
export function planCompaction(messages: Message[], options: CompactionOptions): Compaction;
/** [summary message, ack message, ...plan.keep], for a "summarize" plan; a "none" plan (nothing
 *  to apply) is a TypeError. The parameter is typed as SPEC writes it: narrow the plan first. */
export function applySummary(plan: Compaction, summary: string): Message[];

export interface HealingEvent { timestamp: number; taskId: string; errorCategory: string; severity: string;
                                strategy: string; success: boolean; durationMs: number; tokensUsed: number;
                                degraded: boolean }
export interface MetricsSummary {
  total: number; successRate: number; failureRate: number; avgDurationMs: number;
  totalTokensUsed: number; byCategory: Record<string, number>; degradedCount: number;
}
export interface Alert { level: "HIGH" | "MEDIUM"; message: string }
export class Metrics {
  free(): void;
  [Symbol.dispose](): void;
  constructor();
  record(event: HealingEvent): void;
  /** Events with now - windowMs < timestamp <= now; windowMs default 3600000. */
  summary(windowMs?: number, now?: number): MetricsSummary;
  /** Failure rate > 30% in 10 min -> HIGH; > 10 events in 10 min -> MEDIUM; 3 of one category in 1 min -> HIGH. */
  alerts(now?: number): Alert[];
  /** One {"type":"healing_event",...} line per event. */
  toJSONL(): string;
  toJSON(): object;
  static fromJSON(state: object): Metrics;
}

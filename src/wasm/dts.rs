//! The whole TypeScript contract (SPEC section 2), declared once.
//!
//! Every export is `skip_typescript` and declared here instead, so the
//! generated `.d.ts` is exact (discriminated unions, no `any`) without being
//! patched after the build.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_CONTRACT: &'static str = r#"
// ---------- classification ----------
export type ErrorClass = "transient" | "repairable" | "semantic-invalid" | "hard-fail";
export type Cause =
  | "rate-limited" | "overloaded" | "server-error" | "timeout" | "network" | "conflict"
  | "quota-exhausted" | "auth" | "bad-request" | "not-found" | "too-large"
  | "context-overflow" | "unsupported" | "aborted"
  | "json-syntax" | "schema" | "truncated" | "empty" | "rejected" | "semantic" | "unknown";
export interface Classified {
  class: ErrorClass;
  cause: Cause;
  /** One line, English, for people and logs. */
  reason: string;
  /** Which signal decided. */
  signal: "x-should-retry" | "status" | "error-type" | "code" | "message"
        | "validation" | "stop-reason" | "none";
  /** Server-requested wait in milliseconds, or null. */
  retryAfterMs: number | null;
}
export interface Validation { ok: boolean; kind?: string; detail?: string }
/** Classify anything a call threw or returned as an error. Never throws. */
export function classify(error: unknown, validation?: Validation | null, now?: number): Classified;

// ---------- structured output ----------
export type FailureKind = "empty" | "json-syntax" | "schema" | "truncated";
/** `path` is a JSON Pointer; "" is the root. */
export interface FailureIssue { kind: FailureKind; path: string; message: string }
export interface FailureReport { kinds: FailureKind[]; issues: FailureIssue[] }
/** Names of the local repairs, in the order first applied. */
export type Fix =
  | "code-fence" | "surrounding-prose" | "trailing-comma" | "single-quotes" | "smart-quotes"
  | "unquoted-key" | "comment" | "python-literal" | "missing-comma" | "control-character"
  | "invalid-escape" | "unclosed-string" | "unclosed-bracket";
export type Parsed =
  | { ok: true; value: unknown; fixes: Fix[] }
  | { ok: false; report: FailureReport };
export interface ParseOptions { localRepair?: boolean; stopReason?: string }
/** Returns null when the text holds nothing JSON-like or cannot be repaired. */
export function repairJson(text: string): { text: string; fixes: Fix[] } | null;
export class Schema {
  free(): void;
  [Symbol.dispose](): void;
  /** Throws TypeError on an invalid schema, saying where. Compiled schemas are cached by text. */
  constructor(schema: object | string);
  /** The schema's canonical JSON text. */
  readonly text: string;
  parse(raw: string, options?: ParseOptions): Parsed;
  /** null = valid. */
  validate(value: unknown): FailureReport | null;
}
export function parseStructured(schema: object | string | Schema, raw: string,
                                options?: ParseOptions): Parsed;
export type Locale = "en" | "ja" | "zh";
export interface Prompt { system: string; user: string }
export function buildRepairPrompt(report: FailureReport, schema: object | string | Schema, raw: string,
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
  /** When absent, any non-empty reply text is the value. */
  schema?: object | string | Schema;
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
  /** default "en": language of built prompts */
  locale?: Locale;
  /** default 2000: broken output quoted in a fix prompt, in code points */
  maxRawChars?: number;
  /** Jitter seed; default from the platform's random source. */
  seed?: number;
}
export type Outcome =
  | { kind: "reply"; text: string; stopReason?: string; costUsd?: number;
      usage?: { inputTokens: number; outputTokens: number } }
  | { kind: "error"; error: unknown; costUsd?: number }
  | { kind: "rejected"; reason: string }
  | { kind: "invalid"; reason: string };
export type StopReason =
  | "hard-fail" | "unrepairable" | "transient-exhausted" | "budget-exhausted"
  | "repair-failed" | "semantic-invalid" | "deadline-exceeded" | "prompt-too-large"
  | "cost-ceiling" | "retry-after-too-long" | "circuit-open" | "aborted";
export type Instruction =
  /** Wait delayMs, then send prompt (the failed call's prompt) as call number attempt. */
  | { type: "wait-for-backoff"; delayMs: number; prompt: Prompt; attempt: number; classified: Classified }
  /** Send prompt now as call number attempt. */
  | { type: "send-repair-prompt"; prompt: Prompt; attempt: number;
      strategy: "fix" | "reask" | "alternate"; classified: Classified }
  /** Use value. Provisional: one rejected/invalid outcome may still follow. */
  | { type: "done"; value: unknown; text: string;
      source: "first-pass" | "locally-repaired" | "repaired"; fixes: Fix[];
      attempts: number; costUsd: number }
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
  /** Throws TypeError/RangeError naming the field on bad options. */
  constructor(options: LoopOptions, breaker?: CircuitBreaker);
  /** now defaults to Date.now(). */
  next(outcome: Outcome, now?: number): Instruction;
  /** degrade "aborted" (or the final instruction already given). */
  abort(reason?: string, now?: number): Instruction;
  readonly attempts: Attempt[];
  report(): LoopReport;
  /** The whole state, JSON-safe. */
  toJSON(): object;
  static fromJSON(state: object, breaker?: CircuitBreaker): RepairLoop;
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
  toJSON(): object;
  static fromJSON(state: object): CircuitBreaker;
}
"#;

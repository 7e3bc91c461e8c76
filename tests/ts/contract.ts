// The package's TypeScript contract (SPEC section 2), checked by the compiler:
//   node_modules/.bin/tsc -p tests/ts --noEmit
// Every export is used in a type-correct way; `// @ts-expect-error` lines prove
// that wrong usages are rejected (tsc fails if any of them stops being an error).
import {
  CircuitBreaker,
  PartialJson,
  RepairLoop,
  Schema,
  buildRepairPrompt,
  classify,
  parseStructured,
  repairJson,
  type Attempt,
  type Backoff,
  type BreakerState,
  type Budget,
  type Cause,
  type Classified,
  type ErrorClass,
  type FailureIssue,
  type FailureKind,
  type FailureReport,
  type FallbackPlan,
  type Fix,
  type Instruction,
  type Locale,
  type LoopOptions,
  type LoopReport,
  type Outcome,
  type ParseOptions,
  type PartialUpdate,
  type Parsed,
  type Prompt,
  type StopReason,
  type Validation,
} from "../../pkg/selfheal.js";

function assertNever(x: never): never {
  throw new Error(`unexpected ${JSON.stringify(x)}`);
}

// ---------------------------------------------------------------- classify

export function classification(): string[] {
  const c: Classified = classify(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }));
  const withValidation: Classified = classify(null, { ok: false, kind: "schema", detail: "at /city" }, Date.now());
  const v: Validation = { ok: true };
  classify({ status: 429, headers: new Headers({ "retry-after": "2" }) }, v);
  classify(undefined, null);
  classify(Symbol("anything is accepted"));

  const cls: ErrorClass = c.class;
  const cause: Cause = withValidation.cause;
  const wait: number | null = c.retryAfterMs;
  const signal: Classified["signal"] = c.signal;

  // @ts-expect-error a class is one of four literals, not any string
  const wrong: "retry" = c.class;
  // @ts-expect-error retryAfterMs may be null
  const ms: number = c.retryAfterMs;
  // @ts-expect-error now is a number, not a Date
  classify({}, null, new Date());
  // @ts-expect-error validation needs ok
  classify({}, { kind: "schema" });

  let advice: string;
  switch (cls) {
    case "transient": advice = "wait and resend"; break;
    case "repairable": advice = "send a repair prompt"; break;
    case "semantic-invalid": advice = "switch prompts once"; break;
    case "hard-fail": advice = "stop"; break;
    default: return assertNever(cls);
  }
  return [advice, cause, signal, String(wait), String(wrong), String(ms)];
}

// ---------------------------------------------------------------- structured output

export function structured(raw: string): unknown {
  const schema = new Schema({ type: "object", required: ["city"] });
  const fromText = new Schema('{"type":"string"}');
  const text: string = schema.text;
  const options: ParseOptions = { localRepair: false, stopReason: "max_tokens" };

  const parsed: Parsed = schema.parse(raw, options);
  const viaObject: Parsed = parseStructured({ type: "object" }, raw);
  const viaString: Parsed = parseStructured(text, raw, { localRepair: true });
  const viaInstance: Parsed = parseStructured(fromText, raw);

  // @ts-expect-error report exists only when ok is false
  parsed.report;

  let result: unknown = null;
  for (const p of [parsed, viaObject, viaString, viaInstance]) {
    if (p.ok) {
      const fixes: Fix[] = p.fixes;
      result = p.value;
      // @ts-expect-error no report on a success
      p.report;
      void fixes;
    } else {
      const report: FailureReport = p.report;
      const kinds: FailureKind[] = report.kinds;
      const issue: FailureIssue | undefined = report.issues[0];
      const line = issue ? `${issue.path}: ${issue.message}` : kinds.join(",");
      // @ts-expect-error no value on a failure
      p.value;
      const prompt: Prompt = buildRepairPrompt(report, schema, raw, { maxRawChars: 500, locale: "ja" });
      buildRepairPrompt(report, { type: "object" }, raw);
      buildRepairPrompt(report, text, raw, {});
      // @ts-expect-error unknown locale
      buildRepairPrompt(report, schema, raw, { locale: "fr" });
      result = `${prompt.system}\n${prompt.user}\n${line}`;
    }
  }

  const invalid: FailureReport | null = schema.validate({ city: 1 });
  const repaired = repairJson("```json\n{\"a\": 1,}\n```");
  if (repaired !== null) {
    const fixes: Fix[] = repaired.fixes;
    result = [repaired.text, fixes, invalid];
  }
  // @ts-expect-error repairJson may return null
  repairJson("{").text;
  // @ts-expect-error text must be a string
  repairJson(null);
  // @ts-expect-error raw must be a string
  parseStructured({}, 1);
  // @ts-expect-error not a fix name
  const badFix: Fix = "magic";
  // @ts-expect-error a schema is an object or a string
  new Schema(5);

  schema.free();
  fromText[Symbol.dispose]();
  return [result, badFix];
}

// ---------------------------------------------------------------- the loop

const prompt: Prompt = { system: "Reply with JSON only.", user: "Give me {\"city\": string}." };

export const fullOptions: LoopOptions = {
  prompt,
  schema: { type: "object", required: ["city"] },
  mode: "reask",
  alternatePrompt: { system: "Be careful.", user: "Which city?" },
  fallback: { mode: "template", templateId: "sorry-v1", text: "Sorry." },
  budget: { transient: 3, repairable: 2, semanticInvalid: 1, costCeilingUsd: 0.5, deadlineMs: null, maxPromptChars: null },
  backoff: { baseMs: 500, maxMs: 10_000, jitter: "full", jitterMs: 100, maxRetryAfterMs: 30_000 },
  localRepair: true,
  locale: "zh",
  maxRawChars: 1000,
  seed: 42,
};

const budget: Budget = { transient: 6, repairable: 1, semanticInvalid: 1, costCeilingUsd: null, deadlineMs: null, maxPromptChars: 6000 };
const backoff: Backoff = { baseMs: 1000, maxMs: 30000, jitter: "additive", jitterMs: 250, maxRetryAfterMs: 60000 };
const locale: Locale = "en";
export const minimal: LoopOptions = { prompt, budget, backoff, locale, schema: new Schema({}) };

// @ts-expect-error prompt is required
export const noPrompt: LoopOptions = { schema: {} };
// @ts-expect-error not a jitter
export const badJitter: LoopOptions = { prompt, backoff: { jitter: "gaussian" } };
// @ts-expect-error not a mode
export const badMode: LoopOptions = { prompt, mode: "fast" };
// @ts-expect-error a human fallback needs a queue
export const badFallback: LoopOptions = { prompt, fallback: { mode: "human" } };
// @ts-expect-error budgets are numbers
export const badBudget: LoopOptions = { prompt, budget: { transient: "3" } };
// @ts-expect-error not an outcome kind
export const badOutcome: Outcome = { kind: "retry" };
// A reply may leave its text out after RepairLoop.push (SPEC section 8); it must be a string if given.
export const streamedReply: Outcome = { kind: "reply", stopReason: "aborted" };
// @ts-expect-error text is a string
export const numberText: Outcome = { kind: "reply", text: 5 };

function describeFallback(plan: FallbackPlan | null): string {
  if (plan === null) return "none";
  switch (plan.mode) {
    case "human": return `queue ${plan.queue}`;
    case "template": return `${plan.templateId}: ${plan.text}`;
    default: return assertNever(plan);
  }
}

/** What a host does with each instruction; the union is narrowed by `type`. */
export function handle(i: Instruction): string {
  switch (i.type) {
    case "wait-for-backoff": {
      const delay: number = i.delayMs;
      const next: Prompt = i.prompt;
      const c: Classified = i.classified;
      // @ts-expect-error no strategy on a wait
      i.strategy;
      return `wait ${delay} then send call ${i.attempt}: ${next.user} (${c.cause})`;
    }
    case "send-repair-prompt": {
      const strategy: "fix" | "reask" | "alternate" = i.strategy;
      // @ts-expect-error no delay on a repair prompt
      i.delayMs;
      return `${strategy} call ${i.attempt}: ${i.prompt.user}`;
    }
    case "done": {
      const source: "first-pass" | "locally-repaired" | "repaired" = i.source;
      const fixes: Fix[] = i.fixes;
      const value: unknown = i.value;
      // @ts-expect-error strategy is not on a done instruction
      i.strategy;
      // @ts-expect-error no fallback on done
      i.fallback;
      return `${source} after ${i.attempts} calls, $${i.costUsd}, ${fixes.length} fixes: ${i.text} ${String(value)}`;
    }
    case "degrade": {
      const reason: StopReason = i.reason;
      const report: FailureReport | null = i.report;
      const classified: Classified | null = i.classified;
      // @ts-expect-error not a stop reason
      const bad: StopReason = "timeout";
      // @ts-expect-error no value on degrade
      i.value;
      return `${reason}: ${i.detail} -> ${describeFallback(i.fallback)} ${report?.kinds.join() ?? ""} ${classified?.class ?? ""} ${bad}`;
    }
    default:
      return assertNever(i);
  }
}

/** A whole host loop against a fake model call. */
export async function run(call: (p: Prompt) => Promise<string>): Promise<unknown> {
  const breaker = new CircuitBreaker({ failureThreshold: 3, resetTimeoutMs: 60_000 });
  const loop = new RepairLoop(fullOptions, breaker);
  let outcome: Outcome;
  let current: Prompt = fullOptions.prompt;
  for (;;) {
    try {
      outcome = { kind: "reply", text: await call(current), stopReason: "end_turn", costUsd: 0.001, usage: { inputTokens: 10, outputTokens: 5 } };
    } catch (error) {
      outcome = { kind: "error", error, costUsd: 0 };
    }
    const i: Instruction = loop.next(outcome, Date.now());
    if (i.type === "done") {
      const verdict: Outcome = i.value === null ? { kind: "invalid", reason: "empty value" } : { kind: "rejected", reason: "downstream said no" };
      if (Math.random() < 0) loop.next(verdict);
      loop.free();
      return i.value;
    }
    if (i.type === "degrade") {
      loop.free();
      return i.fallback;
    }
    if (i.type === "wait-for-backoff") await new Promise((r) => setTimeout(r, i.delayMs));
    current = i.prompt;
  }
}

export function loopSurface(): unknown {
  const breaker = new CircuitBreaker();
  const loop = new RepairLoop({ prompt }, breaker);
  const also = new RepairLoop({ prompt });
  const first: Instruction = loop.next({ kind: "error", error: new Error("boom") });
  const second: Instruction = loop.next({ kind: "rejected", reason: "no" }, 1_700_000_000_000);
  loop.next({ kind: "invalid", reason: "wrong" });
  loop.next({ kind: "reply", text: "{}" });
  const stopped: Instruction = also.abort();
  also.abort("user left", Date.now());

  const attempts: Attempt[] = loop.attempts;
  const firstClass: ErrorClass | null = attempts[0]?.class ?? null;
  const report: LoopReport = loop.report();
  const transientCount: number = report.byClass.transient;
  const hardFails: number = report.byClass["hard-fail"];
  const state: object = loop.toJSON();
  const restored: RepairLoop = RepairLoop.fromJSON(JSON.parse(JSON.stringify(state)) as object, breaker);
  RepairLoop.fromJSON(state);

  const open: boolean = breaker.isOpen(Date.now());
  breaker.isOpen();
  breaker.recordFailure();
  breaker.recordFailure(Date.now());
  breaker.recordSuccess();
  const bs: BreakerState = breaker.state;
  const failures: number = breaker.failures;
  const copy: CircuitBreaker = CircuitBreaker.fromJSON(breaker.toJSON());

  // @ts-expect-error attempts is read-only
  loop.attempts = [];
  // @ts-expect-error state is read-only
  breaker.state = "open";
  // @ts-expect-error not a breaker state
  const badState: BreakerState = "broken";
  // @ts-expect-error byClass keys are the four classes
  report.byClass.network;
  // @ts-expect-error the breaker must be a CircuitBreaker
  new RepairLoop({ prompt }, {});
  // @ts-expect-error now is a number
  loop.next({ kind: "reply", text: "" }, "now");
  // @ts-expect-error outcome is required
  loop.next();
  // @ts-expect-error options are required
  new RepairLoop();

  restored.free();
  copy.free();
  also[Symbol.dispose]();
  return [first, second, stopped, firstClass, transientCount, hardFails, open, bs, failures, badState];
}

// Streaming (SPEC section 8): PartialJson and RepairLoop.push.
export function streaming(schema: Schema): [PartialUpdate, boolean, string, Instruction] {
  const p = new PartialJson(schema, { maxChars: 1000, coerce: true });
  const update: PartialUpdate = p.push('{"city": "Pa');
  const closed: string[] = update.closed;
  const issue: FailureIssue | null = update.violation;
  const parsed: Parsed = p.finish({ stopReason: "aborted" });
  new PartialJson().push("x");
  new PartialJson(null);
  new PartialJson({ type: "object" }).finish();
  // @ts-expect-error chunks are strings
  p.push(5);
  // @ts-expect-error text is read-only
  p.text = "";
  // @ts-expect-error maxChars is a number
  new PartialJson(null, { maxChars: "5" });
  const loop = new RepairLoop({ prompt: { system: "s", user: "u" }, schema });
  const pushed: PartialUpdate = loop.push("{");
  const step = loop.next({ kind: "reply", stopReason: "incomplete" });
  p.free();
  loop.free();
  return [pushed, update.done && closed.length > 0 && issue === null && parsed.ok, p.text, step];
}

// The agent toolkit's TypeScript contract (SPEC section 6), checked by the compiler:
//   node_modules/.bin/tsc -p tests/ts --noEmit
// Every toolkit export is used in a type-correct way; `// @ts-expect-error` lines
// prove that wrong usages are rejected (tsc fails if one stops being an error).
import {
  AgentBudget,
  CircuitBreaker,
  DegradationLadder,
  FallbackChain,
  Metrics,
  Supervisor,
  applySummary,
  estimateTokens,
  planCompaction,
  type AgentBudgetOptions,
  type AgentStep,
  type Alert,
  type BudgetStatus,
  type ChainFailure,
  type ChainResult,
  type ChainStep,
  type Compaction,
  type CompactionOptions,
  type DegradationLadderOptions,
  type FallbackChainOptions,
  type HealingEvent,
  type InterventionStrategy,
  type LadderResult,
  type LadderStep,
  type Level,
  type Message,
  type MetricsSummary,
  type Prompt,
  type SupervisorOptions,
  type TokenUsage,
  type Verdict,
} from "../../pkg/selfheal.js";

function assertNever(x: never): never {
  throw new Error(`unexpected ${JSON.stringify(x)}`);
}

// ---------------------------------------------------------------- Supervisor

export function supervise(sendReview: (p: Prompt) => string): string[] {
  const options: SupervisorOptions = { maxSteps: 30, maxDurationMs: 300_000, reviewEvery: 5 };
  const supervisor = new Supervisor(options, Date.now());
  const defaults = new Supervisor();
  const step: AgentStep = { tool: "search", tokens: 120, progress: "found the docs" };
  const log: string[] = [];

  let verdict: Verdict = supervisor.observe(step, Date.now());
  defaults.observe({});
  if (verdict.action === "review") verdict = supervisor.verdict(sendReview(verdict.prompt));
  switch (verdict.action) {
    case "continue":
      log.push("continue");
      break;
    case "intervene": {
      const strategy: InterventionStrategy = verdict.strategy;
      log.push(`${strategy}: ${verdict.reason}`);
      // @ts-expect-error an intervention has no prompt
      verdict.prompt;
      break;
    }
    case "review":
      log.push(verdict.prompt.user);
      break;
    default:
      return assertNever(verdict);
  }
  const steps: number = supervisor.steps + supervisor.tokens;
  const copy: Supervisor = Supervisor.fromJSON(supervisor.toJSON());

  // @ts-expect-error not a strategy
  const wrong: InterventionStrategy = "retry";
  // @ts-expect-error tokens is a number
  supervisor.observe({ tool: "search", tokens: "120" });
  // @ts-expect-error the step is required
  supervisor.observe();
  // @ts-expect-error verdict takes the reply text
  supervisor.verdict({ healthy: true });
  // @ts-expect-error steps is read-only
  supervisor.steps = 0;

  copy.free();
  defaults[Symbol.dispose]();
  return [...log, String(steps), wrong];
}

// ---------------------------------------------------------------- AgentBudget

export function budget(): [BudgetStatus, number, string, boolean] {
  const options: AgentBudgetOptions = { maxInputTokens: 200_000, maxOutputTokens: 20_000 };
  const b = new AgentBudget({ ...options, maxIterations: 10 });
  const usage: TokenUsage = { inputTokens: 1200, outputTokens: 300 };
  b.record(usage);
  const status: BudgetStatus = b.exhausted();
  const maxTokens: number = b.maxTokensForNextCall(4096);
  const hint: string = b.hint("ja") + b.hint();
  const nearly: boolean = b.nearlyDone();
  const figures: number = b.iterations + b.inputTokens + b.outputTokens;
  AgentBudget.fromJSON(b.toJSON()).free();

  // @ts-expect-error both token limits are required
  new AgentBudget({ maxInputTokens: 1000 });
  // @ts-expect-error usage needs outputTokens
  b.record({ inputTokens: 1 });
  // @ts-expect-error unknown locale
  b.hint("fr");
  // @ts-expect-error stop is a boolean
  const stop: string = status.stop;

  return [status, maxTokens + figures, hint + stop, nearly];
}

// ---------------------------------------------------------------- FallbackChain

export async function chain(callTool: (name: string, timeoutMs: number) => Promise<string>): Promise<unknown> {
  const options: FallbackChainOptions = {
    primary: "web_search",
    fallbacks: ["cached_search"],
    defaultValue: { results: [] },
    timeoutMs: 5000,
    failureThreshold: 3,
    resetTimeoutMs: 60_000,
  };
  const c = new FallbackChain(options);
  new FallbackChain({ primary: "a", fallbacks: [], timeoutMs: 100 }).free();
  let step: ChainStep = c.start(Date.now());
  let output: unknown = null;
  for (;;) {
    switch (step.type) {
      case "call": {
        const fallback: boolean = step.fallback;
        let result: ChainResult;
        try {
          output = await callTool(step.tool, step.timeoutMs);
          result = { ok: true };
        } catch (error) {
          result = { ok: false, error };
        }
        void fallback;
        step = c.next(result, Date.now());
        continue;
      }
      case "done": {
        const used: string = step.toolUsed;
        const fb: boolean = step.usedFallback;
        return [used, fb, output];
      }
      case "default":
        return step.value;
      case "exhausted": {
        const tried: string[] = step.tried;
        const failures: ChainFailure[] = c.failures;
        const first: string | null = failures[0]?.error ?? null;
        return [tried, c.tried, first];
      }
      default:
        return assertNever(step);
    }
  }
}

export function chainMisuse(c: FallbackChain): void {
  // @ts-expect-error timeoutMs is required
  new FallbackChain({ primary: "a", fallbacks: [] });
  // @ts-expect-error fallbacks is a list of names
  new FallbackChain({ primary: "a", fallbacks: "b", timeoutMs: 1 });
  // @ts-expect-error the result needs ok
  c.next({ error: "boom" });
  const s: ChainStep = c.start();
  if (s.type === "call") {
    // @ts-expect-error a call step has no value
    s.value;
  }
  FallbackChain.fromJSON(c.toJSON())[Symbol.dispose]();
}

// ---------------------------------------------------------------- DegradationLadder

export async function ladder(send: (p: Prompt, model: string | null) => Promise<string>): Promise<[Level, string]> {
  const options: DegradationLadderOptions = {
    task: "What is the weather in Paris?",
    failedCapabilities: ["tools"],
    lightModel: "claude-haiku",
    locale: "en",
  };
  const l = new DegradationLadder(options);
  let step: LadderStep = l.start();
  while (step.type === "send") {
    const level: "partial" | "minimal" = step.level;
    const tools: false = step.useTools;
    void level;
    void tools;
    let result: LadderResult;
    try {
      result = { ok: true, text: await send(step.prompt, step.model) };
    } catch (error) {
      result = { ok: false, error };
    }
    step = l.next(result);
  }
  const level: Level = step.level;
  DegradationLadder.fromJSON(l.toJSON()).free();

  // @ts-expect-error a success needs its text
  l.next({ ok: true });
  // @ts-expect-error "degraded" is not a level
  const bad: Level = "degraded";
  // @ts-expect-error failedCapabilities is required
  new DegradationLadder({ task: "x" });

  return [level, step.text + bad];
}

// ---------------------------------------------------------------- compaction

export function compaction(history: Message[], summarise: (p: Prompt) => string): Message[] {
  const messages: Message[] = [
    ...history,
    { role: "user", content: "Hello" },
    { role: "assistant", content: [{ type: "text", text: "Hi" }] },
  ];
  const tokens: number = estimateTokens(messages);
  const options: CompactionOptions = { maxTokens: 100_000, keepRecent: 6, maxToolResultChars: 1000 };
  const plan: Compaction = planCompaction(messages, options);
  planCompaction(messages, { maxTokens: tokens });

  // @ts-expect-error "system" is not a role here
  const sys: Message = { role: "system", content: "x" };
  // @ts-expect-error maxTokens is required
  planCompaction(messages, {});
  // @ts-expect-error the summary is text
  applySummary(plan, { text: "..." });

  switch (plan.action) {
    case "none": {
      const n: number = plan.estimatedTokens;
      // @ts-expect-error no keep on a "none" plan
      plan.keep;
      return n > 0 ? messages : [sys];
    }
    case "summarize": {
      const older: number = plan.older;
      const keep: Message[] = plan.keep;
      if (older === 0) return keep;
      return applySummary(plan, summarise(plan.summaryPrompt));
    }
    default:
      return assertNever(plan);
  }
}

// ---------------------------------------------------------------- Metrics

export function metrics(): [MetricsSummary, Alert[], string] {
  const m = new Metrics();
  const event: HealingEvent = {
    timestamp: Date.now(),
    taskId: "task-1",
    errorCategory: "transient",
    severity: "medium",
    strategy: "retry",
    success: true,
    durationMs: 1200,
    tokensUsed: 0,
    degraded: false,
  };
  m.record(event);
  const summary: MetricsSummary = m.summary();
  m.summary(600_000, Date.now());
  const byCategory: Record<string, number> = summary.byCategory;
  const alerts: Alert[] = m.alerts(Date.now());
  for (const a of alerts) {
    const level: "HIGH" | "MEDIUM" = a.level;
    void level;
  }
  const lines: string = m.toJSONL();
  Metrics.fromJSON(m.toJSON()).free();

  // @ts-expect-error an event needs every field
  m.record({ timestamp: 1, taskId: "t" });
  // @ts-expect-error not an alert level
  const low: Alert["level"] = "LOW";

  return [summary, alerts, lines + String(byCategory["transient"]) + low];
}

// ---------------------------------------------------------------- the breaker shared with RepairLoop

export function breaker(): CircuitBreaker {
  const b = CircuitBreaker.fromJSON(new CircuitBreaker({ failureThreshold: 3, resetTimeoutMs: 60_000 }).toJSON());
  b.recordFailure(Date.now());
  return b;
}

// An agent loop against a scripted mock model: Supervisor, AgentBudget,
// CircuitBreaker and heal wired together. No API key, no network.
//
//   node examples/agent.mjs        (after scripts/build.sh)
//
// Each agent step asks the model for one JSON action, {"tool", "args"} or
// {"final"}, through heal (so a 529 waits and resends, and a broken reply is
// repaired), whose loops share one CircuitBreaker with every other call.
// Every model reply is recorded in an AgentBudget, which caps max_tokens and
// adds a wrap-up hint when nearly done. Every tool step goes to the
// Supervisor, whose verdicts (a loop, a review by the model) are fed back to
// the agent as notes. Waits run on a virtual clock (heal's `now` and
// `sleep`), so a run is instant and always the same.
//
// The part between the "README" markers is the `## Agent toolkit` example in
// README.md, verbatim (tests/js/agent_example.test.mjs checks it and runs it).

import { AgentBudget, CircuitBreaker, Supervisor, heal } from "../pkg/index.cjs"; // "selfheal" for Node
import { pathToFileURL } from "node:url";
import { ScriptedModel, apiError } from "./mock-model.mjs";

// ---- README: agent loop ----
const STEP_SCHEMA = {
  oneOf: [
    { type: "object", required: ["tool", "args"], additionalProperties: false,
      properties: { tool: { type: "string" }, args: { type: "object" } } },
    { type: "object", required: ["final"], additionalProperties: false,
      properties: { final: { type: "string" } } },
  ],
};
const REVIEW_SCHEMA = {
  type: "object", required: ["healthy"],
  properties: { healthy: { type: "boolean" }, reason: { type: "string" } },
};
const SYSTEM = 'You are a research agent. Reply with one JSON object only: {"tool": name, "args": {...}} ' +
  'to call a tool (search {q}, read {path}), or {"final": answer} when you are done.';

export async function agentLoop({ task, model, tools, clock = Date.now, sleep, log = () => {} }) {
  const breaker = new CircuitBreaker({ failureThreshold: 3, resetTimeoutMs: 30_000 }); // shared by every call
  const budget = new AgentBudget({ maxInputTokens: 6200, maxOutputTokens: 600, maxIterations: 12 });
  const supervisor = new Supervisor({ maxSteps: 10, reviewAfterSteps: 3, reviewEvery: 4 }, clock());
  const notes = []; // tool results and supervisor advice, fed back to the model
  const seen = { verdicts: [], healing: [] };
  const saw = ({ action, strategy, reason }) =>
    seen.verdicts.push({ step: supervisor.steps, action, ...(strategy && { strategy, reason }) });

  // One model call, healed: heal runs a RepairLoop (waits and resends, repair prompts).
  function ask(prompt, schema, cap) {
    const callModel = async (request) => {
      const reply = await model.call({ ...request, maxTokens: budget.maxTokensForNextCall(cap) });
      budget.record(reply.usage); // one iteration per model reply
      return reply;
    };
    const onStep = (outcome, step) => {
      const entry = { step: supervisor.steps + 1, action: step.type };
      if (step.type === "wait-for-backoff") {
        seen.healing.push({ ...entry, cause: step.classified.cause, delayMs: step.delayMs, breakerFailures: breaker.failures });
        log(`  ${step.classified.reason}: wait ${step.delayMs} ms and resend`);
      } else if (step.type === "send-repair-prompt") {
        seen.healing.push({ ...entry, strategy: step.strategy, cause: step.classified.cause });
        log(`  broken reply (${step.classified.cause}): send a ${step.strategy} prompt`);
      } else if (step.type === "done" && step.source !== "first-pass") {
        seen.healing.push({ ...entry, action: step.source, fixes: step.fixes });
        log(`  reply ${step.source}${step.fixes.length ? ` (${step.fixes.join(", ")})` : ""}`);
      }
    };
    // "done", or "degrade" with a named reason.
    return heal(callModel, { prompt, schema, budget: { transient: 2 }, seed: 1, breaker, now: clock, sleep, onStep });
  }

  const finish = (answer, stopReason = null) => ({
    answer, stopReason, steps: supervisor.steps, verdicts: seen.verdicts, healing: seen.healing,
    budget: { iterations: budget.iterations, inputTokens: budget.inputTokens,
              outputTokens: budget.outputTokens, nearlyDone: budget.nearlyDone() },
    breaker: { state: breaker.state, failures: breaker.failures },
  });

  try {
    let wrapUp = false;
    for (;;) {
      const spent = budget.exhausted();
      if (spent.stop) return finish(null, spent.reason);
      const ending = wrapUp ? "Give your final answer now." : "";
      log(`step ${supervisor.steps + 1}: ask the model (max_tokens ${budget.maxTokensForNextCall(512)})`);
      if (budget.hint()) log("  the budget is nearly spent: the prompt tells the agent to wrap up");
      const user = [task, ...notes, budget.hint(), ending].filter(Boolean).join("\n\n");
      const before = budget.inputTokens + budget.outputTokens;
      const reply = await ask({ system: SYSTEM, user }, STEP_SCHEMA, 512);
      if (reply.type === "degrade") return finish(null, reply.reason);
      if ("final" in reply.value) return finish(reply.value.final);
      if (wrapUp) return finish(null, "the agent kept calling tools after it was told to finish");

      const { tool, args } = reply.value;
      const result = tools[tool] ? tools[tool](args) : `there is no tool named "${tool}"`;
      notes.push(`${tool}(${JSON.stringify(args)}) returned: ${result}`);
      log(`  ${tool}(${JSON.stringify(args)}) -> ${result}`);

      const tokens = budget.inputTokens + budget.outputTokens - before;
      let verdict = supervisor.observe({ tool, tokens, progress: result }, clock());
      saw(verdict);
      if (verdict.action === "review") {
        log("  supervisor: review; the model judges the run");
        const review = await ask(verdict.prompt, REVIEW_SCHEMA, 200);
        verdict = review.type === "done" ? supervisor.verdict(review.text) : { action: "continue" };
        saw(verdict);
      }
      log(`  supervisor: ${verdict.action}${verdict.strategy ? ` (${verdict.strategy}): ${verdict.reason}` : ""}`);
      if (verdict.action === "intervene") {
        notes.push(`Supervisor: ${verdict.reason}.` +
          (verdict.strategy === "break_loop" ? ` Do not call ${tool} again.` : ""));
        const stop = ["reset_with_summary", "force_completion", "compress_and_continue"];
        wrapUp ||= stop.includes(verdict.strategy);
      }
    }
  } finally {
    supervisor.free();
    budget.free();
    breaker.free();
  }
}
// ---- README: end ----

// ---------------------------------------------------------------- the scripted world

export const TASK = "Find the gzip size limit for the selfheal .wasm build and say whether the current build fits.";

export const TOOLS = {
  search: ({ q }) =>
    /limit/.test(q)
      ? "Makefile: MAX_GZIP_BYTES := 1048576 (the release .wasm must stay under 1 MB gzip)"
      : "README: the size check runs in `make test` (target `size`)",
  read: ({ path }) =>
    path === "test-artifacts/size.log"
      ? "size: pkg/selfheal_bg.wasm 2552716 bytes raw, 913167 bytes gzip (limit 1048576)"
      : `no such file: ${path}`,
};

const usage = (inputTokens, outputTokens) => ({ inputTokens, outputTokens });

export const FINAL_ANSWER =
  "The limit is 1 MB gzip (MAX_GZIP_BYTES = 1048576 bytes); the current build is 913167 bytes gzip, so it fits with about 13% to spare.";

/** What the model does, call by call. */
export function script() {
  return [
    // Step 1: overloaded once (the breaker counts it), then a clean tool call.
    apiError(529, { headers: { "retry-after-ms": "500" }, type: "overloaded_error", message: "Overloaded" }),
    { text: '{"tool": "search", "args": {"q": "selfheal wasm size"}}', usage: usage(700, 40) },
    // Step 2: prose, a Markdown fence and single quotes: repaired locally, no extra call.
    { text: "Let me search again.\n```json\n{'tool': 'search', 'args': {'q': 'selfheal gzip limit'}}\n```",
      usage: usage(800, 60) },
    // Step 3: args is a string, not an object: one fix prompt, then a valid reply.
    // It is the third search in a row: the supervisor breaks the loop.
    { text: '{"tool": "search", "args": "wasm gzip size limit"}', usage: usage(900, 45) },
    { text: '{"tool": "search", "args": {"q": "wasm gzip size limit"}}', usage: usage(950, 40) },
    // Step 4: a different tool. Step 4 is a review step: the model answers the review prompt.
    { text: '{"tool": "read", "args": {"path": "test-artifacts/size.log"}}', usage: usage(1050, 50) },
    { text: '{"healthy": false, "reason": "The agent already has the limit and the current size; it should stop researching and answer"}',
      usage: usage(600, 30) },
    // Step 5: the budget is nearly spent (the prompt carries the wrap-up hint): the final answer.
    { text: JSON.stringify({ final: FINAL_ANSWER }), usage: usage(1100, 120) },
  ];
}

/** Run the agent on the scripted model and a virtual clock; returns the outcome and figures. */
export async function runAgent({ log = () => {} } = {}) {
  const start = Date.UTC(2026, 0, 1);
  let t = start;
  const model = new ScriptedModel(script());
  const result = await agentLoop({
    task: TASK,
    model,
    tools: TOOLS,
    clock: () => t,
    sleep: async (ms) => { t += ms; },
    log,
  });
  return {
    ...result,
    modelCalls: model.calls.length,
    maxTokensPerCall: model.calls.map((c) => c.maxTokens),
    wrapUpHintInCall: model.calls.map((c, i) => (c.user.includes("Wrap up now") ? i + 1 : 0)).filter(Boolean),
    virtualMs: t - start,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`task: ${TASK}\n`);
  const r = await runAgent({ log: (line) => console.log(line) });
  console.log(`\nanswer: ${r.answer ?? `(none: ${r.stopReason})`}`);
  console.log(`verdicts: ${r.verdicts.map((v) => `step ${v.step} ${v.strategy ?? v.action}`).join(", ")}`);
  console.log(`healing: ${r.healing.map((h) => `step ${h.step} ${h.action}${h.cause ? ` (${h.cause})` : ""}`).join(", ")}`);
  console.log(`budget: ${r.budget.iterations} replies, ${r.budget.inputTokens} input + ${r.budget.outputTokens} output tokens` +
    `, nearly done: ${r.budget.nearlyDone}; max_tokens per call: ${r.maxTokensPerCall.join(", ")}`);
  console.log(`breaker: ${r.breaker.state}, ${r.breaker.failures} failures; ${r.modelCalls} model calls, ${r.virtualMs} ms of waiting`);
}

// Model fallback for heal (SPEC section 10, issue 15 item 5): `heal({ models: [...], ...options })`.
//
// The models are tried in order. Each gets a fresh RepairLoop (its own transient, repair and
// semantic budgets, its own breaker), while the run keeps one deadline (`budget.deadlineMs`,
// counted from the first outcome of the first loop, so a later model's loop gets what is left)
// and one cost ceiling (`budget.costCeilingUsd`, less what earlier models cost).
//
// A model is left for the next one when its loop degrades with
//   transient-exhausted, circuit-open, retry-budget-exhausted   (the provider is not answering)
//   hard-fail whose cause is context-overflow                   (the prompt is too long for it)
// and is passed over without a call when it cannot take the call:
//   circuit-open     its breaker is open now
//   context-window   the prompt, estimated at one token per 4 characters, plus `maxOutputTokens`,
//                    is more than its `contextWindow` (a model whose tokenizer counts more still
//                    answers context-overflow, which moves on too)
//   no-tools / no-streaming   the call needs tools (heal's `tools`) / streaming (heal's
//                    `onPartial`: partial values are asked for) and the entry says it has none.
// Any other final instruction (done, or a degrade the next model would meet too: an invalid
// reply beyond repair, a 401, the deadline, the cost ceiling, an abort) ends the run.
//
// The result is the final instruction plus `model` (the name of the model whose loop gave it;
// null when none could be tried) and `fellBackFrom` (every other model, in order, with the
// reason it was left, its `detail`, and the calls and cost it took); `attempts` and `costUsd`
// count the whole chain.

import type { CircuitBreaker, Instruction, LoopOptions, StopReason } from "./selfheal.js";
import type { CallModel } from "./heal.mjs";

type Final = Extract<Instruction, { type: "done" } | { type: "degrade" }>;
type Degrade = Extract<Instruction, { type: "degrade" }>;

/** One model of the chain: its caller, how results name it, and what it can take. */
export interface ModelEntry {
  callModel: CallModel;
  /** How the result names it (default: `model`, else the callModel's own `model`, else `models[i]`). */
  name?: string;
  /** gen_ai.system of its spans (default: the callModel's own `provider`). */
  provider?: string;
  /** The model id (gen_ai.request.model of its spans). */
  model?: string;
  /** Tokens the model takes, prompt and reply together. */
  contextWindow?: number;
  /** Tokens to keep free for the reply when the prompt is checked against `contextWindow` (default 0). */
  maxOutputTokens?: number;
  /** False: it cannot take tool definitions (default true). */
  tools?: boolean;
  /** False: it cannot stream (default true). */
  streaming?: boolean;
  /** This model's endpoint's breaker: open, the model is passed over; its failures open it. */
  breaker?: CircuitBreaker;
}
/** A model: its callModel alone, or an entry. */
export type ModelSpec = CallModel | ModelEntry;
export type LeftReason =
  | "transient-exhausted" | "circuit-open" | "retry-budget-exhausted" | "context-overflow"
  | "context-window" | "no-tools" | "no-streaming";
export interface ModelLeft {
  model: string;
  reason: LeftReason;
  detail: string;
  attempts: number;
  costUsd: number;
}
export interface ChainResult {
  /** The model whose loop gave the result (null: none could be tried). */
  model: string | null;
  fellBackFrom: ModelLeft[];
}
export interface ChainOptions {
  loopOptions: LoopOptions;
  clock: { startedAt: number | null };
  needs: { tools: boolean; streaming: boolean };
  /** heal's clock (`options.now`): breakers and the deadline are read on it, as the loops read them. */
  now: () => number;
  run: (entry: ModelEntry, loopOptions: LoopOptions) => Promise<Final>;
}

const MOVE_ON = new Set<string>(["transient-exhausted", "circuit-open", "retry-budget-exhausted"]);
const NOT_TRIED_STOP: Record<string, StopReason> = {
  "circuit-open": "circuit-open", "context-window": "prompt-too-large", "no-tools": "hard-fail", "no-streaming": "hard-fail",
};

/** Check and normalise `options.models` (a TypeError names the entry and field). */
export function modelEntries(models: unknown): (ModelEntry & { name: string })[] {
  if (!Array.isArray(models) || models.length === 0) throw new TypeError("heal: options.models must be a non-empty array");
  return models.map((spec: unknown, i) => {
    const entry = (typeof spec === "function" ? { callModel: spec } : spec) as ModelEntry;
    const at = `heal: options.models[${i}]`;
    if (entry === null || typeof entry !== "object" || typeof entry.callModel !== "function") {
      throw new TypeError(`${at} must be a callModel function or { callModel, ... }`);
    }
    for (const key of ["contextWindow", "maxOutputTokens"] as const) {
      const v = entry[key];
      if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new TypeError(`${at}.${key} must be a whole number of tokens >= 0`);
    }
    for (const key of ["name", "provider", "model"] as const) {
      if (entry[key] !== undefined && typeof entry[key] !== "string") throw new TypeError(`${at}.${key} must be a string`);
    }
    const name = entry.name ?? entry.model ?? entry.callModel.model ?? `models[${i}]`;
    return { ...entry, name, provider: entry.provider ?? entry.callModel.provider, model: entry.model ?? entry.callModel.model };
  });
}

/** Tokens of a prompt, estimated at one per 4 characters (code points), rounded up. */
export function estimateTokens(prompt: { system?: string; user?: string }): number {
  const chars = [...(prompt.system ?? "")].length + [...(prompt.user ?? "")].length;
  return Math.ceil(chars / 4);
}

function unfit(entry: ModelEntry, tokens: number, needs: ChainOptions["needs"]): { reason: LeftReason; detail: string } | null {
  if (entry.contextWindow !== undefined && tokens + (entry.maxOutputTokens ?? 0) > entry.contextWindow) {
    return {
      reason: "context-window",
      detail: `the prompt (about ${tokens} tokens${entry.maxOutputTokens ? ` + ${entry.maxOutputTokens} for the reply` : ""}) does not fit its context window of ${entry.contextWindow}`,
    };
  }
  if (needs.tools && entry.tools === false) return { reason: "no-tools", detail: "the call has tools and this model takes none" };
  if (needs.streaming && entry.streaming === false) return { reason: "no-streaming", detail: "the call streams and this model does not" };
  return null;
}

/** Why a final instruction leaves its model for the next, or null when it ends the run. */
function leaves(result: Final): LeftReason | null {
  if (result.type !== "degrade") return null;
  if (MOVE_ON.has(result.reason)) return result.reason as LeftReason;
  if (result.reason === "hard-fail" && result.classified?.cause === "context-overflow") return "context-overflow";
  return null;
}

/** A degrade before any call: no loop ran, so no report or classification. */
export function unsent(reason: StopReason, detail: string, loopOptions: LoopOptions): Degrade {
  return { type: "degrade", reason, detail, fallback: loopOptions.fallback ?? null, report: null, classified: null, attempts: 0, costUsd: 0 };
}

/** Run the chain: see the top of this file. */
export async function runChain(models: unknown, options: ChainOptions): Promise<Final & ChainResult> {
  const entries = modelEntries(models);
  const { loopOptions, clock, needs, now } = options;
  const tokens = estimateTokens(loopOptions.prompt ?? {});
  const ceiling = loopOptions.budget?.costCeilingUsd ?? null;
  const deadlineMs = loopOptions.budget?.deadlineMs ?? null;
  const left: ModelLeft[] = [];
  let spent = 0;
  let calls = 0;
  let last: { result: Final; name: string; index: number } | null = null;
  const finish = (result: Final, model: string | null, skip: number): Final & ChainResult => ({
    ...result, attempts: calls, costUsd: spent, model, fellBackFrom: left.filter((_, i) => i !== skip),
  });
  for (const entry of entries) {
    const misfit = unfit(entry, tokens, needs);
    const open = misfit === null && entry.breaker?.isOpen(now()) === true;
    if (misfit !== null || open) {
      const why = misfit ?? { reason: "circuit-open" as const, detail: "its circuit breaker is open: no call was made" };
      left.push({ model: entry.name, ...why, attempts: 0, costUsd: 0 });
      continue;
    }
    // The run's limits, before a call to the next model.
    if (ceiling !== null && last !== null && spent >= ceiling) {
      return finish(unsent("cost-ceiling", `the models before ${entry.name} spent ${spent} USD of the ${ceiling} USD ceiling`, loopOptions), null, -1);
    }
    if (deadlineMs !== null && clock.startedAt !== null && now() >= clock.startedAt + deadlineMs) {
      return finish(unsent("deadline-exceeded", `the deadline (budget.deadlineMs ${deadlineMs} ms) passed before ${entry.name} could be tried`, loopOptions), null, -1);
    }
    const perModel = ceiling === null || spent === 0 ? loopOptions : { ...loopOptions, budget: { ...loopOptions.budget, costCeilingUsd: ceiling - spent } };
    const result = await options.run(entry, perModel);
    spent += result.costUsd;
    calls += result.attempts;
    const reason = leaves(result);
    if (reason === null) return finish(result, entry.name, -1);
    last = { result, name: entry.name, index: left.length };
    left.push({ model: entry.name, reason, detail: (result as Degrade).detail, attempts: result.attempts, costUsd: result.costUsd });
  }
  if (last !== null) return finish(last.result, last.name, last.index);
  const why = left[left.length - 1];
  const detail = `no model could take the call: ${left.map((l) => `${l.model}: ${l.detail}`).join("; ")}`;
  return finish(unsent(NOT_TRIED_STOP[why?.reason ?? "context-window"] ?? "hard-fail", detail, loopOptions), null, -1);
}

// Types for selfheal/heal (js/heal.mjs): the host loop with real timers and an AbortSignal.
import type { Instruction, LoopOptions, Outcome, Prompt, CircuitBreaker } from "./selfheal.js";

export type Final = Extract<Instruction, { type: "done" } | { type: "degrade" }>;
export interface ModelReply {
  text: string;
  stopReason?: string;
  costUsd?: number;
  usage?: { inputTokens: number; outputTokens: number };
}
/**
 * `signal` is the host's `options.signal`, or, for a call the loop asked for while
 * `budget.deadlineMs` is set, heal's own signal: it follows the host's and aborts with a
 * `TimeoutError` when the deadline passes.
 */
export type CallModel = (
  prompt: Prompt,
  context: { signal?: AbortSignal; attempt: number; instruction: Instruction | null },
) => Promise<ModelReply>;
export interface Verdict { kind: "rejected" | "invalid"; reason: string }
export interface HealOptions extends LoopOptions {
  signal?: AbortSignal;
  onStep?: (outcome: Outcome | { kind: "aborted"; reason: string }, instruction: Instruction) => void;
  check?: (value: unknown, context: { signal?: AbortSignal }) => Verdict | null | Promise<Verdict | null>;
  breaker?: CircuitBreaker;
}
export interface RepairLoopClass {
  new (options: LoopOptions, breaker?: CircuitBreaker): {
    next(outcome: Outcome, now?: number): Instruction;
    abort(reason?: string, now?: number): Instruction;
    free(): void;
  };
}
export function createHeal(RepairLoop: RepairLoopClass): (callModel: CallModel, options: HealOptions) => Promise<Final>;
export function heal(callModel: CallModel, options: HealOptions & { RepairLoop: RepairLoopClass }): Promise<Final>;
export interface Pricing { inputUsdPerMTok?: number; outputUsdPerMTok?: number }
/** `stream: true` reads the stream; a stream without its final `message_stop` reports `stopReason: "incomplete"`. */
export function anthropicCaller(client: object, params: { model: string; max_tokens?: number; stream?: boolean; pricing?: Pricing; [key: string]: unknown }): CallModel;
/** `stream: true` reads the stream; a stream without its final `finish_reason` reports `stopReason: "incomplete"`. */
export function openaiCaller(client: object, params: { model: string; stream?: boolean; pricing?: Pricing; [key: string]: unknown }): CallModel;

// Types for selfheal/otel (js/otel.mjs). The tracer is declared structurally (the part of
// @opentelemetry/api's Tracer used here), so these types need no package installed.
import type { Classified, Instruction } from "./selfheal.js";

type AttributeValue = string | number | boolean | string[] | number[] | boolean[];
export interface SpanLike {
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string, attributes?: Record<string, AttributeValue>): unknown;
  recordException(exception: Error): unknown;
  end(): void;
}
/** An @opentelemetry/api Tracer (only startSpan is used). */
export interface TracerLike {
  startSpan(name: string, options?: { kind?: number; attributes?: Record<string, AttributeValue> }): SpanLike;
}
export interface ModelCall {
  /** The span (null when the tracer threw). */
  readonly span: SpanLike | null;
  reply(reply?: { usage?: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined; responseModel?: string | undefined }): void;
  error(error: unknown, classified?: Classified): void;
  /** Sets selfheal.*, adds the "selfheal.instruction" event, ends the span. */
  instruction(step: Instruction): void;
  /** Adds the "selfheal.instruction" event of a step without ending the span. */
  event(step: Instruction): void;
  end(): void;
}
export function isTracer(tracer: unknown): tracer is TracerLike;
export function startModelCall(
  tracer: TracerLike,
  call?: { system?: string | undefined; model?: string | undefined; attempt?: number | undefined; name?: string | undefined;
           attributes?: Record<string, AttributeValue> | undefined },
): ModelCall;

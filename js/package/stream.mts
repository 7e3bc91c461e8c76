// heal's streaming (SPEC section 8): the chunks of a streamed reply go into the loop as they
// arrive (`loop.push`), and the first violation no continuation can fix cuts the request at once
// (its AbortController), so the rest of a reply that will be rejected anyway is never paid for.
//
// For each call heal makes, `startStream(loop, onPartial)` gives:
//   push(chunk)  what callModel calls with each text delta (the adapters of selfheal/heal do with
//                `stream: true`; a callModel of your own gets it as `context.push`). It returns
//                the PartialUpdate; on a violation `signal` aborts with a `StreamViolation`
//                (name "StreamViolation", `issue` the FailureIssue). Once the call has settled
//                (`outcome` was asked), a push throws: the loop's stream is the next call's.
//   signal       aborts on a violation (callModel gets it as `context.streamSignal`; the adapters
//                abort their request with it).
//   outcome(settled)  the outcome to feed the loop once the call settled or was cut: after a
//                violation `{ kind: "reply", stopReason: "aborted" }` (the pushed text is the
//                reply: one fix prompt quoting it follows; after a push past maxReplyChars the
//                loop degrades it as too long to read); after pushes, a reply whose text may
//                be left out (the pushed text; "" for a reply of a stop reason alone when
//                nothing was pushed); null otherwise when nothing was pushed (heal feeds the
//                settled call as before).
import type { FailureIssue, Outcome, PartialUpdate } from "./selfheal.js";
import type { Signal } from "./heal.mjs";

/** What a RepairLoop offers for streaming. */
export interface StreamingLoop {
  push(chunk: string): PartialUpdate;
}

/** The reason a call's signal aborts with when its streamed reply broke the schema. */
export class StreamViolation extends Error {
  readonly issue: FailureIssue;
  constructor(issue: FailureIssue) {
    super(`selfheal: the streamed reply broke its schema at ${issue.path || "(root)"}: ${issue.message}`);
    this.name = "StreamViolation";
    this.issue = issue;
  }
}

export interface CallStream {
  push(chunk: string): PartialUpdate;
  /** An AbortSignal (typed as heal's `Signal`: the declarations need no DOM or Node types). */
  readonly signal: Signal;
  outcome(settled: { kind: "reply"; reply: unknown } | { kind: "error"; error: unknown } | { kind: "cut"; reply?: unknown }): Outcome | null;
}

export function startStream(loop: StreamingLoop, onPartial?: (update: PartialUpdate) => void): CallStream {
  const controller = new AbortController();
  let pushed = false;
  let cut = false;
  let ended = false;
  return {
    signal: controller.signal as Signal,
    push(chunk: string): PartialUpdate {
      if (cut) {
        // The request is being torn down; a late delta changes nothing.
        throw new StreamViolationLate();
      }
      if (ended) {
        // The call has settled: the loop's stream is the next call's now, and this chunk belongs
        // to no reply (it became the start of the next one).
        throw new Error("selfheal: push() after its call ended: the chunk belongs to no reply");
      }
      pushed = true;
      let update: PartialUpdate;
      try {
        update = loop.push(chunk);
      } catch (e) {
        // Past maxReplyChars (RangeError, nothing added): the reply is one too long to read, and
        // nothing more of it is worth receiving. The loop remembers it; cut the call.
        if (e instanceof RangeError) {
          cut = true;
          controller.abort(e);
        }
        throw e;
      }
      onPartial?.(update);
      if (update.violation) {
        cut = true;
        controller.abort(new StreamViolation(update.violation));
      }
      return update;
    },
    outcome(settled) {
      ended = true;
      if (cut) {
        // The pushed text is the reply, cut by the host; what the call cost, if it said.
        const r = (settled.kind === "cut" && settled.reply !== null && typeof settled.reply === "object" ? settled.reply : {}) as Record<string, unknown>;
        return costed({ kind: "reply", stopReason: "aborted" }, r);
      }
      if (settled.kind !== "reply") return null;
      const r = (settled.reply ?? {}) as Record<string, unknown>;
      // Nothing pushed, and a stop reason but no text and no tool call: a streamed reply with no
      // text delta at all (`push` each delta, return `{ stopReason }`) is the empty text it
      // pushed. Without a stop reason (`{ txt }`) it stays the host's mistake the loop names.
      const given = settled.reply as Record<string, unknown> | null | undefined;
      const empty = !pushed && given !== null && typeof given === "object" && given.text === undefined
        && typeof given.stopReason === "string" && (given.toolCall === undefined || given.toolCall === null);
      if (!pushed && !empty) return null;
      const outcome: Record<string, unknown> = { kind: "reply" };
      if (typeof r.text === "string") outcome.text = r.text;
      if (empty) outcome.text = "";
      if (r.stopReason !== undefined && r.stopReason !== null) outcome.stopReason = r.stopReason;
      return costed(outcome, r);
    },
  };
}

/** `outcome` with the reply's `costUsd` and `usage`, where it gives them. */
function costed(outcome: Record<string, unknown>, reply: Record<string, unknown>): Outcome {
  if (reply.costUsd !== undefined && reply.costUsd !== null) outcome.costUsd = reply.costUsd;
  if (reply.usage !== undefined && reply.usage !== null) outcome.usage = reply.usage;
  return outcome as unknown as Outcome;
}

/** Thrown by push() after the cut: the adapter's read loop ends with it. */
class StreamViolationLate extends Error {
  constructor() {
    super("selfheal: the stream was cut after a violation");
    this.name = "AbortError";
  }
}

/**
 * One signal that aborts when any of `signals` does (with its reason): the request signal of a
 * streamed call, from the host's signal and heal's `streamSignal`. undefined when none is given.
 */
export function joinSignals(...signals: (Signal | undefined)[]): Signal | undefined {
  const given = (signals as unknown as (AbortSignal | undefined)[]).filter((s): s is AbortSignal => s !== undefined && s !== null);
  if (given.length <= 1) return given[0] as Signal | undefined;
  const any = (AbortSignal as unknown as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (typeof any === "function") return any.call(AbortSignal, given) as Signal;
  const controller = new AbortController();
  for (const s of given) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => controller.abort(s.reason), { once: true });
  }
  return controller.signal as Signal;
}

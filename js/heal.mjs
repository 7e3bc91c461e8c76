// heal(): selfheal's host loop, ready to use, with real timers and an AbortSignal.
//
// selfheal's RepairLoop does no I/O: it tells the host what to do next. This
// helper is the host: it makes each call through your `callModel`, feeds what
// happened into `loop.next`, waits (abortably) on `wait-for-backoff`, sends
// repair prompts, and returns the final instruction — `done` or `degrade`.
//
// It does not import selfheal itself, so it works with any build of the
// package (nodejs, web after init(), workerd): hand it the RepairLoop class.
//
//   import { RepairLoop } from "selfheal";
//   import { createHeal, anthropicCaller } from "./js/heal.mjs";
//
//   const heal = createHeal(RepairLoop);
//   const client = new Anthropic({ maxRetries: 0 });   // selfheal is the only retry policy
//   const result = await heal(anthropicCaller(client, { model: "claude-sonnet-4-5", max_tokens: 1024 }), {
//     prompt: { system: "Reply with JSON only.", user: "Where is the Eiffel Tower?" },
//     schema: { type: "object", required: ["city"], properties: { city: { type: "string" } } },
//     fallback: { mode: "human", queue: "geo-review" },
//     signal: AbortSignal.timeout(30_000),
//   });
//   if (result.type === "done") use(result.value); else fallBackTo(result.fallback, result.reason);
//
// `heal(callModel, { ...options, RepairLoop })` is the same without the factory.
//
// Decisions (where the SPEC says nothing about a host):
// * `callModel(prompt, { signal, attempt, instruction })` resolves
//   `{ text, stopReason?, costUsd?, usage? }` (usage as `{ inputTokens, outputTokens }`)
//   or throws; what it throws goes to `loop.next({ kind: "error", error })` as is.
//   `instruction` is the instruction that asked for the call (null for the first).
//   A resolved value of the wrong shape is a bug in callModel: `loop.next` throws
//   a TypeError naming the field, and heal rejects with it (after freeing the loop).
// * Abort: `signal` is passed to every callModel. Once it is aborted — before a
//   call, during a call (whatever the call then throws or returns), or during a
//   wait (the wait ends at once) — heal returns `loop.abort(reason)`, a degrade
//   with reason "aborted"; the reason text is the signal's reason (a string, or
//   an Error's message). An abort after `done` changes nothing: done is final.
// * `check(value, { signal })` (optional, may be async) runs after every `done`;
//   it returns null when the value is fine, or `{ kind: "rejected" | "invalid", reason }`,
//   which is fed to the loop at once (a repair prompt, an alternate prompt, or a degrade).
//   If check throws, heal rejects with that error.
// * `onStep(outcome, instruction)` (optional) sees every step, in order. For an
//   abort, `outcome` is `{ kind: "aborted", reason }` (never fed to `next`).
// * `breaker` (optional) is passed to `new RepairLoop(options, breaker)`.
// * The loop is always freed (`loop.free()`), also when heal rejects. The
//   instruction returned is a plain object and stays valid.

const HOST_KEYS = new Set(["signal", "onStep", "check", "breaker", "RepairLoop"]);

/**
 * Bind heal() to a RepairLoop class (from whichever entry of the package you use).
 * @param {Function} RepairLoop the selfheal RepairLoop class
 * @returns {(callModel: Function, options: object) => Promise<object>}
 */
export function createHeal(RepairLoop) {
  if (typeof RepairLoop !== "function") {
    throw new TypeError("createHeal: RepairLoop must be the selfheal RepairLoop class");
  }
  return (callModel, options) => runHeal(RepairLoop, callModel, options);
}

/**
 * Run the host loop once. `options` are the RepairLoop options plus
 * `{ RepairLoop, signal?, onStep?, check?, breaker? }`.
 * @returns {Promise<object>} the final instruction: `done` or `degrade`
 */
export async function heal(callModel, options) {
  const RepairLoop = options?.RepairLoop;
  if (typeof RepairLoop !== "function") {
    throw new TypeError("heal: options.RepairLoop must be the selfheal RepairLoop class (or use createHeal(RepairLoop))");
  }
  return runHeal(RepairLoop, callModel, options);
}

async function runHeal(RepairLoop, callModel, options) {
  if (typeof callModel !== "function") throw new TypeError("heal: callModel must be a function");
  if (options === null || typeof options !== "object") throw new TypeError("heal: options must be an object");
  const { signal, onStep, check, breaker } = options;
  if (signal !== undefined && signal !== null && typeof signal.aborted !== "boolean") {
    throw new TypeError("heal: options.signal must be an AbortSignal");
  }
  const loopOptions = {};
  for (const [k, v] of Object.entries(options)) if (!HOST_KEYS.has(k)) loopOptions[k] = v;

  const loop = breaker === undefined ? new RepairLoop(loopOptions) : new RepairLoop(loopOptions, breaker);
  const aborted = () => {
    const reason = abortReason(signal);
    const step = loop.abort(reason);
    onStep?.({ kind: "aborted", reason }, step);
    return step;
  };
  try {
    let request = loopOptions.prompt;
    let asking = null;
    let attempt = 1;
    for (;;) {
      if (signal?.aborted) return aborted();
      let outcome;
      try {
        const reply = await callModel(request, { signal, attempt, instruction: asking });
        if (signal?.aborted) return aborted();
        outcome = replyOutcome(reply);
      } catch (error) {
        if (signal?.aborted) return aborted();
        outcome = { kind: "error", error };
      }
      let step = loop.next(outcome);
      onStep?.(outcome, step);
      if (step.type === "done" && check) {
        // One verdict per done: a rejection or invalid turns it into a repair
        // prompt or a degrade (never into the same done again).
        const verdict = await check(step.value, { signal });
        if (verdict) {
          const again = { kind: verdict.kind, reason: verdict.reason };
          step = loop.next(again);
          onStep?.(again, step);
        }
      }
      switch (step.type) {
        case "done":
        case "degrade":
          return step;
        case "wait-for-backoff":
          if (!(await sleep(step.delayMs, signal))) return aborted();
          break;
        case "send-repair-prompt":
          break;
        default:
          throw new Error(`heal: unknown instruction type ${JSON.stringify(step.type)}`);
      }
      request = step.prompt;
      asking = step;
      attempt = step.attempt;
    }
  } finally {
    loop.free?.();
  }
}

function replyOutcome(reply) {
  if (reply === null || typeof reply !== "object") {
    // Let the loop name the problem (outcome.text must be a string).
    return { kind: "reply", text: reply };
  }
  const outcome = { kind: "reply", text: reply.text };
  if (reply.stopReason !== undefined && reply.stopReason !== null) outcome.stopReason = reply.stopReason;
  if (reply.costUsd !== undefined && reply.costUsd !== null) outcome.costUsd = reply.costUsd;
  if (reply.usage !== undefined && reply.usage !== null) outcome.usage = reply.usage;
  return outcome;
}

function abortReason(signal) {
  const r = signal?.reason;
  if (typeof r === "string" && r.length > 0) return r;
  if (r && typeof r.message === "string" && r.message.length > 0) return r.message;
  return "aborted";
}

/**
 * Resolves true once at least `ms` have passed (a timer may fire up to a
 * millisecond early, so it re-arms for the rest: a server's retry-after is
 * never cut short), or false as soon as `signal` aborts.
 */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const until = performance.now() + ms;
    let timer;
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const tick = () => {
      const left = until - performance.now();
      if (left > 0) {
        timer = setTimeout(tick, Math.ceil(left));
        return;
      }
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    timer = setTimeout(tick, ms);
  });
}

// ---------- callModel adapters for the official SDKs ----------
// They take a client you constructed (so this file imports no SDK). Construct
// it with `maxRetries: 0`: selfheal's policy should be the only retry policy.
// `pricing` (optional) `{ inputUsdPerMTok, outputUsdPerMTok }` turns usage
// into `costUsd`, so `budget.costCeilingUsd` works.

function costOf(pricing, usage) {
  if (!pricing || !usage) return undefined;
  return (usage.inputTokens * (pricing.inputUsdPerMTok ?? 0) + usage.outputTokens * (pricing.outputUsdPerMTok ?? 0)) / 1e6;
}

function withCost(reply, pricing) {
  const costUsd = costOf(pricing, reply.usage);
  return costUsd === undefined ? reply : { ...reply, costUsd };
}

/**
 * callModel for `@anthropic-ai/sdk`: `client.messages.create` with the prompt as
 * `system` + one user message. `stream: true` streams and collects the text
 * (an `event: error` mid-stream is thrown by the SDK and classified as usual).
 * @param {object} client an Anthropic client
 * @param {{ model: string, max_tokens?: number, stream?: boolean, pricing?: object }} params
 *   other fields are passed to messages.create as they are
 */
export function anthropicCaller(client, { pricing, max_tokens = 1024, stream = false, ...params } = {}) {
  return async (prompt, { signal } = {}) => {
    const body = { ...params, max_tokens, messages: [{ role: "user", content: prompt.user }] };
    if (prompt.system) body.system = prompt.system;
    const requestOptions = signal ? { signal } : undefined;
    if (!stream) {
      const message = await client.messages.create(body, requestOptions);
      return withCost({
        text: message.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
        stopReason: message.stop_reason ?? undefined,
        usage: { inputTokens: message.usage?.input_tokens ?? 0, outputTokens: message.usage?.output_tokens ?? 0 },
      }, pricing);
    }
    const events = await client.messages.create({ ...body, stream: true }, requestOptions);
    let text = "";
    let stopReason;
    let inputTokens = 0;
    let outputTokens = 0;
    for await (const event of events) {
      if (event.type === "message_start") {
        inputTokens = event.message.usage?.input_tokens ?? 0;
        outputTokens = event.message.usage?.output_tokens ?? 0;
      } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        text += event.delta.text;
      } else if (event.type === "message_delta") {
        stopReason = event.delta.stop_reason ?? stopReason;
        outputTokens = event.usage?.output_tokens ?? outputTokens;
      }
    }
    return withCost({ text, stopReason, usage: { inputTokens, outputTokens } }, pricing);
  };
}

/**
 * callModel for `openai`: `client.chat.completions.create` with a system and a
 * user message; `finish_reason` becomes `stopReason` ("length" = cut off).
 * @param {object} client an OpenAI client
 * @param {{ model: string, pricing?: object }} params other fields go to create() as they are
 */
export function openaiCaller(client, { pricing, ...params } = {}) {
  return async (prompt, { signal } = {}) => {
    const messages = [];
    if (prompt.system) messages.push({ role: "system", content: prompt.system });
    messages.push({ role: "user", content: prompt.user });
    const completion = await client.chat.completions.create({ ...params, messages }, signal ? { signal } : undefined);
    const choice = completion.choices?.[0];
    const usage = completion.usage
      ? { inputTokens: completion.usage.prompt_tokens ?? 0, outputTokens: completion.usage.completion_tokens ?? 0 }
      : undefined;
    return withCost({ text: choice?.message?.content ?? "", stopReason: choice?.finish_reason ?? undefined, usage }, pricing);
  };
}

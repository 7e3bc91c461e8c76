// The bare host loop, on purpose: what `heal` (exported by every entry of the package) does for
// you, written out so that the step API is visible: call, feed the outcome to `loop.next()`, do
// what the instruction says. Use `heal` in your code; this file exists to be read. (Two other
// examples drive `next()` themselves for a reason: examples/durable-object resumes a stored loop
// across alarms, and examples/agent.mjs runs on a virtual clock, which heal does not take.)
//
// The host does every call and every wait; selfheal decides.
// `call(prompt)` resolves with { text, stopReason?, costUsd? } or throws.
// `check(value)` (optional) returns null when the value is fine, or
// { kind: "rejected" | "invalid", reason } when a downstream check refuses it.
// `sleep(ms)` and `clock()` are injectable so demos and tests can run fast.
//
// Streaming: `call(prompt, { signal })` may resolve with { chunks, stopReason, costUsd } instead,
// `chunks` an async iterable of text. Each chunk goes to `loop.push` (and to `onChunk(chunk,
// update)`); when selfheal reports a violation the host stops reading and aborts `signal`, so the
// rest of the reply is never generated, and feeds the reply as cut off (`stopReason: "aborted"`):
// one fix prompt follows. A stream that ends without a stop reason (no final event) is
// `"incomplete"`, never completed locally.

export async function runRepairLoop(loop, { prompt, call, check, sleep, clock, onStep, onChunk } = {}) {
  const now = clock ?? (() => Date.now());
  const wait = sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  let request = prompt;
  for (;;) {
    let outcome;
    const controller = new AbortController();
    try {
      const reply = await call(request, { signal: controller.signal });
      outcome = reply.chunks
        ? await pushStream(loop, reply, controller, onChunk)
        : { kind: "reply", text: reply.text, stopReason: reply.stopReason, costUsd: reply.costUsd };
    } catch (error) {
      outcome = { kind: "error", error };
    }
    let step = loop.next(outcome, now());
    onStep?.(outcome, step);
    if (step.type === "done" && check) {
      const verdict = check(step.value);
      if (verdict) {
        const outcome2 = { kind: verdict.kind, reason: verdict.reason };
        step = loop.next(outcome2, now());
        onStep?.(outcome2, step);
      }
    }
    switch (step.type) {
      case "done":
      case "degrade":
        return step;
      case "wait-for-backoff":
        await wait(step.delayMs);
        request = step.prompt;
        break;
      case "send-repair-prompt":
        request = step.prompt;
        break;
    }
  }
}

/** Push a streamed reply into the loop until it ends or breaks the schema; the Outcome to feed. */
async function pushStream(loop, reply, controller, onChunk) {
  let cut = false;
  let pushed = false;
  for await (const chunk of reply.chunks) {
    pushed = true;
    const update = loop.push(chunk);
    onChunk?.(chunk, update);
    if (update.violation) {
      cut = true;
      controller.abort(); // a fetch-based stream closes its connection; `break` ends an iterator
      break;
    }
  }
  // After pushes `text` is left out: the pushed text is the reply. A stream with no text at all
  // (a refusal, say) is the empty reply.
  const text = pushed ? {} : { text: "" };
  return { kind: "reply", ...text, stopReason: cut ? "aborted" : reply.stopReason ?? "incomplete", costUsd: reply.costUsd };
}

// selfheal demo: heal, the package's host loop, against a scripted mock model. No API key, no
// network.
//
//   make demo        (or: node examples/demo.mjs after scripts/build.sh)
//
// Each scenario prints a timeline: what the model call did, and what selfheal told the host to
// do next (heal's onStep). Waits run on a virtual clock at 1/20 speed (`runDemo({ speed })`): the
// timeline shows the time they stand for (the rate-limited scenario's t+2000ms takes 0.1 s).

import { pathToFileURL } from "node:url";
import { heal } from "../pkg/index.cjs"; // the "node" entry of the package: `import { heal } from "selfheal"`
import { ScriptedModel, apiError } from "./mock-model.mjs";
import { ORDER_SCHEMA, ORDER_PROMPT, GOOD_TEXT, STREAM_BAD_TEXT, STREAM_CHUNK_CHARS } from "../www/lib/scenario.js";

// The same order task the playground uses (www/lib/scenario.js): one source for both.
const orderSchema = ORDER_SCHEMA;
const prompt = ORDER_PROMPT;
const good = GOOD_TEXT;

const scenarios = [
  {
    title: "Rate limited (429, retry-after: 2), then a reply in a Markdown fence",
    script: [
      apiError(429, { headers: { "retry-after": "2" }, type: "rate_limit_error", message: "Rate limited" }),
      { text: "Here is the order:\n```json\n" + good + "\n```", costUsd: 0.0004 },
    ],
  },
  {
    title: "Schema mismatch, healed by one repair prompt",
    script: [
      { text: '{"orderId":"1042","items":[{"sku":"mug","qty":"two","price":12.5}],"total":55}', costUsd: 0.0004 },
      { text: good, costUsd: 0.0006 },
    ],
  },
  {
    title: "A downstream rejection, fed back verbatim",
    script: [
      { text: good.replace('"total":55', '"total":65'), costUsd: 0.0004 },
      { text: good, costUsd: 0.0005 },
    ],
    check: (value) =>
      value.total !== value.items.reduce((sum, i) => sum + i.qty * i.price, 0)
        ? { kind: "rejected", reason: `total ${value.total} does not equal the sum of the items` }
        : null,
  },
  {
    title: "Bad API key (401): degrade at once to the fallback",
    script: [apiError(401, { type: "authentication_error", message: "invalid x-api-key" })],
  },
  {
    title: "Streamed: the third field breaks the schema; cut at the violation, healed by one fix prompt",
    script: [
      { text: STREAM_BAD_TEXT, chunkChars: STREAM_CHUNK_CHARS, costUsd: 0.0012 },
      { text: good, chunkChars: STREAM_CHUNK_CHARS, costUsd: 0.0005 },
    ],
  },
];

// A streamed chunk arrives every CHUNK_MS of virtual time.
const CHUNK_MS = 40;

const START = Date.UTC(2026, 0, 1);

function describeOutcome(outcome, stream) {
  switch (outcome.kind) {
    case "reply": {
      if (stream) {
        const how = outcome.stopReason === "aborted" ? "cut by the host (stopReason \"aborted\")" : `ended (${outcome.stopReason})`;
        return `stream ${how} after ${stream.sent} of ${stream.total} characters`;
      }
      const text = outcome.text.replace(/\s+/g, " ");
      return `reply  ${JSON.stringify(text.length > 70 ? text.slice(0, 67) + "..." : text)}`;
    }
    case "error":
      return `error  ${outcome.error.status ? "HTTP " + outcome.error.status + " " : ""}${outcome.error.message}`;
    default:
      return `${outcome.kind}  ${JSON.stringify(outcome.reason)}`;
  }
}

function describeStep(step) {
  const c = step.classified;
  const why = c ? ` [${c.class}/${c.cause}, by ${c.signal}]` : "";
  switch (step.type) {
    case "wait-for-backoff":
      return `wait ${step.delayMs} ms, then resend the same prompt as call ${step.attempt}${why}`;
    case "send-repair-prompt": {
      // A fix prompt lists the issues; a reask prompt appends a correction to the previous prompt.
      const user = step.prompt.user;
      const lines = step.strategy === "reask"
        ? user.slice(user.lastIndexOf("\n\n", user.lastIndexOf("\n\n") - 1)).trim().split("\n").filter(Boolean)
        : user.split("\n").filter((l) => l.startsWith("- "));
      return `send a ${step.strategy} prompt as call ${step.attempt}${why}\n` +
        lines.map((l) => `${" ".repeat(24)}| ${l}`).join("\n");
    }
    case "done":
      return `done (${step.source}${step.fixes.length ? "; fixes: " + step.fixes.join(", ") : ""}) ` +
        `after ${step.attempts} call(s), $${step.costUsd.toFixed(4)}`;
    case "degrade":
      return `degrade: ${step.reason} — ${step.detail}${why}\n${" ".repeat(24)}| fallback: ${JSON.stringify(step.fallback)}`;
  }
}

/** What report() would say, from the steps heal showed (heal frees its loop when it returns). */
function tally(steps) {
  const byClass = { transient: 0, repairable: 0, "semantic-invalid": 0, "hard-fail": 0 };
  for (const step of steps) if (step.classified) byClass[step.classified.class] += 1;
  const repaired = steps.filter((s) => s.type === "send-repair-prompt").length;
  return { calls: steps.at(-1).attempts, repaired, byClass };
}

/** The end of a long line: "…" and its last `n` characters. */
const crop = (s, n) => (s.length > n ? "…" + s.slice(s.length - n + 1) : s);

export async function runDemo({ log = console.log, speed = 20 } = {}) {
  const results = [];
  for (const [i, scenario] of scenarios.entries()) {
    log(`\n${i + 1}. ${scenario.title}`);
    const model = new ScriptedModel(scenario.script);
    const steps = [];
    const pad = " ".repeat(20);
    let t = START;
    let call = 0;
    let stream = null; // the streamed reply of the call in flight, if it streams
    // callModel: a scripted reply, or a stream whose chunks go to heal's `push` (a violation
    // aborts `streamSignal`: stop reading, and the model stops generating).
    const callModel = async (p, { attempt, push, streamSignal }) => {
      call = attempt;
      const reply = await model.call(p, { signal: streamSignal });
      stream = reply.chunks ? reply : null;
      if (!stream) return reply;
      log(`   ${`t+${t - START}ms`.padEnd(10)} call ${call}  streaming, ${STREAM_CHUNK_CHARS} characters a chunk`);
      for await (const chunk of reply.chunks) {
        push(chunk);
        if (streamSignal.aborted) break;
      }
      // No text: the pushed text is the reply; "incomplete" if the final event never came.
      return { stopReason: reply.stopReason ?? "incomplete", costUsd: reply.costUsd };
    };
    const step = await heal(callModel, {
      prompt,
      schema: orderSchema,
      fallback: { mode: "human", queue: "orders-review" },
      seed: 7,
      check: scenario.check,
      // A virtual clock: waits are slept at 1/speed, and the timeline shows the time they stand for.
      now: () => t,
      sleep: async (ms) => { await new Promise((r) => setTimeout(r, ms / speed)); t += ms; },
      onPartial: (update) => {
        t += CHUNK_MS;
        const grew = update.closed.filter((p) => p.split("/").length <= 3); // members and items
        if (update.violation) {
          log(`${pad}! ${update.violation.path}: ${update.violation.message}  (violation: cut the stream)`);
        } else if (grew.length) {
          log(`${pad}+ ${grew.join(" ").padEnd(18)} ${crop(JSON.stringify(update.value), 72)}`);
        }
      },
      onStep: (outcome, next) => {
        steps.push(next);
        const when = `t+${t - START}ms`.padEnd(10);
        log(`   ${when} call ${call}  ${describeOutcome(outcome, stream)}`);
        log(`${pad}=> ${describeStep(next)}`);
      },
    });
    if (step.type === "done") log(`${pad}value: ${JSON.stringify(step.value)}`);
    const r = tally(steps);
    log(`${pad}report: ${r.calls} call(s), ${r.repaired} repair(s), by class ${JSON.stringify(r.byClass)}`);
    // What the cut saved: the rest of each stream cut at a violation, never generated nor paid for.
    const cut = model.streams.filter((s) => s.sent < s.total);
    if (cut.length) {
      const unpaid = cut.reduce((n, s) => n + s.total - s.sent, 0);
      const whole = cut.reduce((n, s) => n + s.total, 0);
      log(`${pad}saved: ${unpaid} of the ${whole} characters of the broken reply were never generated nor paid for ` +
        `(${Math.round((100 * unpaid) / whole)}%)`);
    }
    results.push(step);
  }
  return results;
}

// Run directly (pathToFileURL: a folder with a space in its name is %20 in the URL).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log("selfheal demo — heal, the host loop, against a scripted mock model (no API key needed)");
  await runDemo();
}

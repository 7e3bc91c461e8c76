// Panel 5: a scripted model streams its reply; each chunk goes to RepairLoop.push. The partial
// value grows, a violation cuts the stream (stopReason "aborted") and one fix prompt follows. The
// stream timeline draws each call on one axis of characters streamed (a model streams at a steady
// rate, so it is also time): what arrived, the moment of the violation and the abort, and, struck
// out, what the model would have gone on to write.

import { $, h, fill, chip, showError, describeThrown, pretty } from "../lib/dom.js";
import { renderTimeline } from "../lib/timeline.js";
import { ORDER_SCHEMA, ORDER_PROMPT, GOOD_TEXT, STREAM_BAD_TEXT, chunks } from "../lib/scenario.js";

// A model that puts a member the schema forbids (additionalProperties: false) second: the
// violation is definitive as soon as the key's name closes, before its long value streams.
const FORBIDDEN_KEY_TEXT =
  '{"orderId": "ORD-1042", "customer": {"name": "Ada Lovelace", "email": "ada@example.com", ' +
  '"address": "12 St James\'s Square, London SW1Y 4JH"}, "items": [{"sku": "mug", "qty": 2, "price": 12.5}, ' +
  '{"sku": "teapot", "qty": 1, "price": 30}], "total": 55}';

/** Each scenario: the replies the model streams, call by call. `final: false` ends a stream
 * without the provider's final event (the connection closed early). */
export const STREAM_SCENARIOS = {
  "bad-third-field": [{ text: STREAM_BAD_TEXT }, { text: GOOD_TEXT }],
  "forbidden-key": [{ text: FORBIDDEN_KEY_TEXT }, { text: GOOD_TEXT }],
  "cut-off": [{ text: GOOD_TEXT.slice(0, 70), final: false }, { text: GOOD_TEXT }],
  valid: [{ text: GOOD_TEXT }],
};

const FALLBACK = { mode: "template", templateId: "order-manual-review", text: "We could not read this order automatically." };
const COST_PER_CHAR = 0.000004; // what the scripted model charges, per character it generates

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const preview = (text, n = 90) => (text.length > n ? text.slice(0, n - 1) + "…" : text);

function positiveInt(id, min) {
  const value = Number($(id).value);
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${$(id).labels[0].textContent} must be an integer >= ${min}, got ${$(id).value || "nothing"}`);
  return value;
}

/** One row per call on a shared axis of characters streamed. */
function renderRibbon(el, calls) {
  const end = Math.max(1, ...calls.map((c) => c.at + c.total));
  const pct = (n) => `${(n / end) * 100}%`;
  fill(el,
    calls.map((c) => {
      const marks = [];
      if (c.cut) {
        marks.push(h("div", { class: "smark smark-violation", style: { left: pct(c.at + c.sent) }, "data-mark": "violation", "data-at": c.at + c.sent, title: `violation at ${c.cut.path || "/"}: ${c.cut.message}` },
          h("span", { class: "smark-label" }, `violation ${c.cut.path || "/"} · abort`)));
      } else if (c.stopReason === "incomplete") {
        marks.push(h("div", { class: "smark smark-cutoff", style: { left: pct(c.at + c.sent) }, "data-mark": "incomplete", "data-at": c.at + c.sent },
          h("span", { class: "smark-label" }, "ended without its final event")));
      } else if (c.done) {
        marks.push(h("div", { class: "smark smark-end", style: { left: pct(c.at + c.sent) }, "data-mark": "end", "data-at": c.at + c.sent },
          h("span", { class: "smark-label" }, c.stopReason)));
      }
      return h("div", { class: "srow", "data-call": c.call },
        h("span", { class: "srow-label" }, `call ${c.call}`),
        h("div", { class: "srow-track" },
          h("div", { class: "sseg sseg-rx", style: { left: pct(c.at), width: pct(c.sent) }, "data-chars": c.sent, title: `${c.sent} characters received` }),
          c.total > c.sent && c.cut
            ? h("div", { class: "sseg sseg-unsent", style: { left: pct(c.at + c.sent), width: pct(c.total - c.sent) }, "data-chars": c.total - c.sent, title: `${c.total - c.sent} characters never generated` })
            : null,
          c.ticks.map((n) => h("div", { class: "stick", style: { left: pct(c.at + n) } })),
          marks));
    }),
    h("div", { class: "ribbon-axis" }, h("span", {}, "0"),
      h("span", { class: "ribbon-legend" }, h("i", { class: "lg lg-rx" }), "received ", h("i", { class: "lg lg-unsent" }), "never generated"),
      h("span", {}, `${end.toLocaleString("en-US")} characters`)));
}

function renderStats(el, calls, report) {
  const received = calls.reduce((n, c) => n + c.sent, 0);
  const cut = calls.filter((c) => c.cut);
  const saved = cut.reduce((n, c) => n + c.total - c.sent, 0);
  const whole = cut.reduce((n, c) => n + c.total, 0);
  const stat = (label, value, key) => h("div", { class: "stat", "data-stat": key }, h("span", { class: "stat-value" }, value), h("span", { class: "stat-label" }, label));
  fill(el,
    stat("calls", String(report?.calls ?? calls.length), "calls"),
    stat("characters received", received.toLocaleString("en-US"), "received"),
    stat("never generated nor paid for", saved.toLocaleString("en-US"), "saved"),
    stat("of the broken reply saved", whole ? `${Math.round((100 * saved) / whole)}%` : "—", "saved-pct"));
}

function renderTexts(el, calls) {
  fill(el, calls.map((c) => {
    const received = c.text.slice(0, c.sent);
    const last = c.cut ? c.lastChunk.length : 0;
    return h("div", { class: "stream-call", "data-call": c.call },
      h("p", { class: "label" }, `call ${c.call}`),
      h("pre", { class: "code stream-text" },
        h("span", { class: "rx" }, received.slice(0, received.length - last)),
        last ? h("mark", { class: "bad", title: "the chunk that made the violation definitive" }, received.slice(received.length - last)) : null,
        c.cut && c.total > c.sent ? h("del", { class: "unsent", title: "never generated" }, c.text.slice(c.sent)) : null));
  }));
}

export function initStream(sh) {
  let runToken = 0;
  let scenario = "bad-third-field";

  const stop = () => {
    runToken += 1;
    $("s-stop").disabled = true;
    $("s-run").disabled = false;
  };

  const run = async () => {
    const token = ++runToken;
    showError($("s-error"), "");
    let size;
    let interval;
    try {
      size = positiveInt("s-chunk", 1);
      interval = positiveInt("s-interval", 0);
    } catch (e) {
      showError($("s-error"), describeThrown(e));
      return;
    }
    $("s-run").disabled = true;
    $("s-stop").disabled = false;
    document.body.dataset.stream = "running";
    const script = STREAM_SCENARIOS[scenario].map((s) => ({ ...s }));
    const loop = new sh.RepairLoop({ prompt: ORDER_PROMPT, schema: ORDER_SCHEMA, fallback: FALLBACK, seed: 7 });
    const calls = [];
    const events = [];
    const started = performance.now();
    let at = 0; // characters streamed before this call started
    let final = null;
    const draw = () => {
      renderRibbon($("s-ribbon"), calls);
      renderTexts($("s-texts"), calls);
      renderStats($("s-stats"), calls, final ? loop.report() : null);
      $("s-clock").textContent = `${Math.round(performance.now() - started).toLocaleString("en-US")} ms`;
    };
    try {
      fill($("s-timeline"));
      for (let n = 1; script.length && !final; n += 1) {
        const reply = script.shift();
        const c = { call: n, text: reply.text, total: reply.text.length, sent: 0, at, ticks: [], cut: null, lastChunk: "", stopReason: null, done: false };
        calls.push(c);
        $("s-call").textContent = `call ${n}`;
        fill($("s-closed"));
        fill($("s-value"));
        for (const chunk of chunks(reply.text, size)) {
          await sleep(interval);
          if (token !== runToken) return;
          const update = loop.push(chunk);
          c.sent += chunk.length;
          c.lastChunk = chunk;
          c.ticks.push(c.sent);
          $("s-value").textContent = update.value === undefined ? "" : pretty(update.value);
          for (const pointer of update.closed) $("s-closed").append(chip(pointer || "(root)", update.violation?.path === pointer ? "red" : "green", { "data-pointer": pointer }));
          if (update.violation) {
            c.cut = update.violation; // the host stops reading and aborts the request here
            $("s-closed").append(chip(`violation ${update.violation.path || "/"}`, "red", { "data-violation": update.violation.path }));
          }
          draw();
          if (c.cut) break;
        }
        c.stopReason = c.cut ? "aborted" : reply.final === false ? "incomplete" : "end_turn";
        const outcome = { kind: "reply", stopReason: c.stopReason, costUsd: c.sent * COST_PER_CHAR };
        const instr = loop.next(outcome);
        c.done = !c.cut;
        const elapsed = performance.now() - started;
        const title = c.cut
          ? `streamed, cut at ${c.sent} of ${c.total} characters (stopReason "aborted")`
          : c.stopReason === "incomplete"
            ? `streamed ${c.sent} characters, then the stream ended without its final event (stopReason "incomplete")`
            : `streamed ${c.sent} characters (stopReason "${c.stopReason}")`;
        events.push({ call: n, start: elapsed, at: elapsed, outcome: { kind: "reply", tone: c.cut ? "red" : "blue", title, detail: preview(c.text.slice(0, c.sent)) }, instr });
        renderTimeline($("s-timeline"), events);
        at += c.sent;
        if (instr.type === "done" || instr.type === "degrade") final = instr;
        draw();
      }
      if (!final) renderTimeline($("s-timeline"), events, { notes: ["The script ran out of replies."] });
    } catch (e) {
      showError($("s-error"), describeThrown(e));
    } finally {
      loop.free();
      if (token === runToken) {
        stop();
        document.body.dataset.stream = final ? final.type : "stopped";
      }
    }
  };

  const load = (name) => {
    scenario = name;
    for (const b of document.querySelectorAll("#panel-stream .preset")) b.setAttribute("aria-pressed", String(b.dataset.stream === name));
    run();
  };

  for (const b of document.querySelectorAll("#panel-stream .preset")) b.addEventListener("click", () => load(b.dataset.stream));
  $("s-run").addEventListener("click", run);
  $("s-stop").addEventListener("click", () => {
    stop();
    document.body.dataset.stream = "stopped";
  });
  // Streams once when the tab is first opened, so the panel is never empty.
  let shown = false;
  document.addEventListener("playground:tab", (event) => {
    if (event.detail === "stream" && !shown) {
      shown = true;
      load(scenario);
    }
  });
  if (!$("panel-stream").hidden) {
    shown = true;
    load(scenario);
  }
}

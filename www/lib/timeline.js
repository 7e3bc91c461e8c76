// Drawing a RepairLoop run: one entry per outcome with the instruction it produced,
// waits as bars to scale, an overview ribbon, and the final report.
//
// An event is { call, start, at, outcome: { kind, title, detail, tone }, instr }:
// `call` is the call number (null for a host verdict on a `done`), `start`/`at` are
// milliseconds since the run began (call sent / outcome fed to next()).

import { h, fill, chip, classTone, fmtMs, pretty } from "./dom.js";

export const fmtT = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`);

const INSTR_TONE = { "wait-for-backoff": "amber", "send-repair-prompt": "violet", done: "green", degrade: "red" };

function classifiedLine(c) {
  if (!c) return null;
  return h("span", { class: "classified" },
    chip(c.class, classTone(c.class), { "data-class": c.class }),
    h("code", { class: "cause", "data-cause": c.cause }, c.cause),
    h("span", { class: "muted" }, ` by ${c.signal}`));
}

function promptDetails(prompt, label = "Show the prompt") {
  return h("details", { class: "peek" },
    h("summary", {}, label),
    h("p", { class: "label" }, "system"), h("pre", { class: "code prompt-text small" }, prompt.system),
    h("p", { class: "label" }, "user"), h("pre", { class: "code prompt-text small" }, prompt.user));
}

/** The instruction part of an entry. */
function instruction(instr, maxDelay) {
  const tone = INSTR_TONE[instr.type];
  const head = h("div", { class: "tl-instr" },
    h("span", { class: "arrow", "aria-hidden": "true" }, "→"),
    chip(instr.type, tone, { "data-instr": instr.type }));
  switch (instr.type) {
    case "wait-for-backoff": {
      const pct = maxDelay > 0 ? (instr.delayMs / maxDelay) * 100 : 0;
      head.append(classifiedLine(instr.classified));
      return [
        head,
        h("div", { class: "wait" },
          h("div", { class: "wait-track" },
            h("div", { class: "wait-bar", "data-delay-ms": instr.delayMs, style: { width: `${pct}%` }, role: "img", "aria-label": `wait ${fmtMs(instr.delayMs)}` })),
          h("span", { class: "wait-label" }, fmtMs(instr.delayMs))),
        h("p", { class: "tl-note" }, `then resend the same prompt as call ${instr.attempt}`,
          instr.classified?.retryAfterMs != null ? h("span", { class: "muted" }, " · the server asked for this wait (retry-after)") : null),
      ];
    }
    case "send-repair-prompt":
      head.append(chip(instr.strategy, "neutral", { "data-strategy": instr.strategy }), classifiedLine(instr.classified));
      return [head, h("p", { class: "tl-note" }, `send a ${instr.strategy} prompt now as call ${instr.attempt}`), promptDetails(instr.prompt)];
    case "done":
      head.append(chip(instr.source, "neutral", { "data-source": instr.source }), ...instr.fixes.map((f) => chip(f, "green", { "data-fix": f })));
      return [head, h("p", { class: "tl-note" }, `use the value · ${instr.attempts} call${instr.attempts === 1 ? "" : "s"}, $${instr.costUsd.toFixed(4)}`),
        h("details", { class: "peek" }, h("summary", {}, "Show the value"), h("pre", { class: "code small" }, pretty(instr.value)))];
    case "degrade":
      head.append(h("code", { class: "stop-reason", "data-reason": instr.reason }, instr.reason), classifiedLine(instr.classified));
      return [head, h("p", { class: "tl-note" }, instr.detail),
        h("p", { class: "tl-note muted" }, "fallback: ", h("code", {}, JSON.stringify(instr.fallback)))];
    default:
      return head;
  }
}

/** Render events into an <ol>. Wait bars are scaled to the longest wait. */
export function renderTimeline(list, events, { notes = [] } = {}) {
  const maxDelay = Math.max(0, ...events.map((e) => (e.instr?.type === "wait-for-backoff" ? e.instr.delayMs : 0)));
  fill(list, events.map((e, i) =>
    h("li", { class: `tl-item tone-${INSTR_TONE[e.instr.type] ?? "neutral"}`, "data-index": i, "data-instr": e.instr.type },
      h("div", { class: "tl-time" }, h("span", {}, `t+${fmtT(e.at)}`)),
      h("div", { class: "tl-dot", "aria-hidden": "true" }),
      h("div", { class: "tl-content" },
        h("div", { class: "tl-outcome" },
          h("span", { class: "tl-call" }, e.call == null ? "host check" : `call ${e.call}`),
          chip(e.outcome.kind, e.outcome.tone, { "data-outcome": e.outcome.kind }),
          h("span", { class: "tl-title" }, e.outcome.title)),
        e.outcome.detail ? h("p", { class: "tl-detail" }, e.outcome.detail) : null,
        instruction(e.instr, maxDelay)))),
  notes.map((n) => h("li", { class: "tl-item tl-end" },
    h("div", { class: "tl-time" }), h("div", { class: "tl-dot", "aria-hidden": "true" }),
    h("div", { class: "tl-content" }, h("p", { class: "tl-note" }, n)))));
}

/** The overview: calls and waits on one time axis. */
export function renderRibbon(el, events, totalMs) {
  if (!events.length || totalMs <= 0) return fill(el);
  const pct = (ms) => `${(ms / totalMs) * 100}%`;
  const segments = [];
  for (const e of events) {
    if (e.call != null && e.at > e.start) {
      segments.push(h("div", { class: "seg seg-call", style: { left: pct(e.start), width: pct(e.at - e.start) }, title: `call ${e.call}: ${fmtT(e.at - e.start)}` }));
    }
    if (e.call != null) segments.push(h("div", { class: `seg-tick tone-${e.outcome.tone}`, style: { left: pct(e.at) }, title: `call ${e.call}: ${e.outcome.kind}` }));
    if (e.instr.type === "wait-for-backoff") {
      segments.push(h("div", { class: "seg seg-wait", style: { left: pct(e.at), width: pct(e.instr.delayMs) }, title: `wait ${fmtMs(e.instr.delayMs)}` }));
    }
  }
  fill(el,
    h("div", { class: "ribbon-track" }, segments),
    h("div", { class: "ribbon-axis" }, h("span", {}, "0"),
      h("span", { class: "ribbon-legend" }, h("i", { class: "lg lg-call" }), "call ", h("i", { class: "lg lg-wait" }), "wait"),
      h("span", {}, fmtT(totalMs))));
}

const CLASSES = ["transient", "repairable", "semantic-invalid", "hard-fail"];

/** The final report: counts, byClass, warnings and the final instruction. */
export function renderReport(el, { report, final, totalMs, attempts, timeLabel = "virtual time" }) {
  const stat = (label, value, key) => h("div", { class: "stat", "data-stat": key }, h("span", { class: "stat-value" }, value), h("span", { class: "stat-label" }, label));
  fill(el,
    h("div", { class: "stats" },
      stat("calls", String(report.calls), "calls"),
      stat("repaired", String(report.repaired), "repaired"),
      stat("cost", `$${report.costUsd.toFixed(4)}`, "cost"),
      stat(timeLabel, totalMs == null ? "—" : fmtT(totalMs), "elapsed")),
    h("p", { class: "label" }, "byClass"),
    h("ul", { class: "byclass" }, CLASSES.map((c) =>
      h("li", { "data-class": c, class: report.byClass[c] ? "" : "zero" },
        chip(c, classTone(c)), h("span", { class: "byclass-n" }, String(report.byClass[c] ?? 0))))),
    h("p", { class: "label" }, "warnings"),
    report.warnings.length
      ? h("ul", { class: "warnings" }, report.warnings.map((w) => h("li", {}, w)))
      : h("p", { class: "muted small warnings-none" }, "none"),
    final ? h("div", { class: `final final-${final.type}` },
      final.type === "done"
        ? [h("p", {}, h("strong", {}, "done"), ` (${final.source}) after ${final.attempts} call${final.attempts === 1 ? "" : "s"}`), h("pre", { class: "code small" }, pretty(final.value))]
        : final.type === "degrade"
          ? [h("p", {}, h("strong", {}, "degrade: "), h("code", {}, final.reason), ` after ${final.attempts} call${final.attempts === 1 ? "" : "s"}`), h("p", { class: "small" }, final.detail)]
          : h("p", {}, "The run did not reach a final instruction.")) : null,
    attempts?.length ? h("details", { class: "peek" }, h("summary", {}, "loop.attempts"),
      h("table", { class: "issues attempts" },
        h("thead", {}, h("tr", {}, ["n", "class", "cause", "reason", "at"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, attempts.map((a) => h("tr", {},
          h("td", {}, String(a.n)), h("td", {}, a.class ?? "—"), h("td", {}, a.cause ?? "—"),
          h("td", { class: "msg" }, a.reason), h("td", {}, `t+${fmtT(a.at)}`)))))) : null);
}

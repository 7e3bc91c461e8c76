// Panel 4: script outcomes, run a RepairLoop on a virtual clock, draw the timeline.

import { $, h, fill, showError, chip, describeThrown } from "../lib/dom.js";
import { renderTimeline, renderRibbon, renderReport, fmtT } from "../lib/timeline.js";
import { ORDER_SCHEMA, ORDER_PROMPT, ALTERNATE_PROMPT, GOOD_TEXT } from "../lib/scenario.js";

/** An error shaped like the Anthropic/OpenAI SDKs' APIError. */
function apiError(status, { headers = {}, type, message }) {
  const error = new Error(message);
  error.name = "APIError";
  error.status = status;
  error.headers = headers;
  if (type) error.error = { type: "error", error: { type, message } };
  return error;
}

const preview = (text, n = 90) => {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > n ? flat.slice(0, n - 1) + "…" : flat;
};

const reply = (text, extra = {}) => ({ kind: "reply", text, costUsd: 0.0004, ...extra });

/**
 * The outcomes a person can add. `make(param)` builds the Outcome for next();
 * `param` (when present) is one editable value shown on the step.
 */
export const STEP_TYPES = {
  "rate-limit": {
    label: "429 + retry-after", tone: "amber",
    param: { label: "retry-after (s)", value: "2", type: "number" },
    make: (p) => ({ kind: "error", error: apiError(429, { headers: { "retry-after": String(p) }, type: "rate_limit_error", message: "Rate limited" }) }),
    title: (p) => `HTTP 429 rate_limit_error, retry-after: ${p}`,
  },
  overloaded: {
    label: "529 overloaded", tone: "amber",
    make: () => ({ kind: "error", error: apiError(529, { type: "overloaded_error", message: "Overloaded" }) }),
    title: () => "HTTP 529 overloaded_error",
  },
  "server-error": {
    label: "500 server error", tone: "amber",
    make: () => ({ kind: "error", error: apiError(500, { type: "api_error", message: "Internal server error" }) }),
    title: () => "HTTP 500 api_error",
  },
  network: {
    label: "Network error", tone: "amber",
    make: () => ({ kind: "error", error: new TypeError("Failed to fetch") }),
    title: () => "TypeError: Failed to fetch",
  },
  fenced: {
    label: "Fenced reply", tone: "blue",
    make: () => reply("Here is the order:\n```json\n" + GOOD_TEXT + "\n```"),
    title: () => "JSON inside a Markdown fence",
  },
  broken: {
    label: "Broken JSON", tone: "blue",
    make: () => reply('{"orderId": "ORD-1042", "items": [mug x2, teapot x1], "total": 55}'),
    title: () => "JSON that local repair cannot fix",
  },
  mismatch: {
    label: "Schema mismatch", tone: "blue",
    make: () => reply('{"orderId": "1042", "items": [{"sku": "mug", "qty": "two", "price": 12.5}], "total": 55}'),
    title: () => "valid JSON, wrong shape",
  },
  truncated: {
    label: "Truncated reply", tone: "blue",
    make: () => reply(GOOD_TEXT.slice(0, 48), { stopReason: "max_tokens" }),
    title: () => "cut off, stopReason max_tokens",
  },
  valid: {
    label: "Valid reply", tone: "blue",
    make: () => reply(GOOD_TEXT),
    title: () => "valid JSON matching the schema",
  },
  rejected: {
    label: "Rejected, with reason", tone: "violet",
    param: { label: "reason", value: "total 55 must include 20% VAT (66)", type: "text" },
    make: (p) => ({ kind: "rejected", reason: String(p) }),
    title: (p) => `a downstream system refused the value: ${JSON.stringify(String(p))}`,
  },
  invalid: {
    label: "Invalid (content check)", tone: "orange",
    param: { label: "reason", value: "teapot is not in the catalogue", type: "text" },
    make: (p) => ({ kind: "invalid", reason: String(p) }),
    title: (p) => `the host's content check failed: ${JSON.stringify(String(p))}`,
  },
  unauthorized: {
    label: "401 bad key", tone: "red",
    make: () => ({ kind: "error", error: apiError(401, { type: "authentication_error", message: "invalid x-api-key" }) }),
    title: () => "HTTP 401 authentication_error",
  },
};

const SCENARIOS = {
  "rate-then-fenced": ["rate-limit", "fenced"],
  "mismatch-healed": ["mismatch", "valid"],
  rejected: ["valid", "rejected", "valid"],
  storm: ["overloaded", "overloaded", "server-error", "overloaded", "network", "valid"],
  auth: ["unauthorized"],
};

const FALLBACK = { mode: "template", templateId: "order-manual-review", text: "We could not read this order automatically; a colleague will check it." };
const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);

function num(id) {
  const el = $(id);
  const text = el.value.trim();
  if (text === "") return undefined;
  return Number(text);
}

/** LoopOptions from the form (without prompt and schema). */
export function readLoopOptions() {
  const budget = {};
  const set = (obj, key, value) => { if (value !== undefined) obj[key] = value; };
  set(budget, "transient", num("o-transient"));
  set(budget, "repairable", num("o-repairable"));
  set(budget, "semanticInvalid", num("o-semantic"));
  set(budget, "deadlineMs", num("o-deadline"));
  set(budget, "costCeilingUsd", num("o-cost"));
  set(budget, "maxPromptChars", num("o-maxprompt"));
  const backoff = { jitter: $("o-jitter").value };
  set(backoff, "baseMs", num("o-base"));
  set(backoff, "maxMs", num("o-max"));
  set(backoff, "jitterMs", num("o-jitterms"));
  set(backoff, "maxRetryAfterMs", num("o-maxretry"));
  const options = { budget, backoff, mode: $("o-mode").value, locale: $("o-locale").value, fallback: FALLBACK };
  set(options, "seed", num("o-seed"));
  if ($("o-alternate").checked) options.alternatePrompt = ALTERNATE_PROMPT;
  return options;
}

/** The Outcome kind a step type produces. */
const kindOf = (key) => (key === "rejected" || key === "invalid" ? key : STEP_TYPES[key].tone === "blue" ? "reply" : "error");

const isVerdict = (step) => step.type === "rejected" || step.type === "invalid";

/** Run the script through a RepairLoop on a virtual clock. Throws what the constructor throws. */
export function simulate(sh, options, script, latencyMs) {
  const loop = new sh.RepairLoop(options);
  try {
    const events = [];
    let t = 0;
    let call = 1;
    let last = null;
    let used = 0;
    for (const step of script) {
      if (last?.type === "degrade") break;
      if (last?.type === "done" && !isVerdict(step)) break;
      const type = STEP_TYPES[step.type];
      const verdictOnDone = last?.type === "done";
      const start = t;
      if (!verdictOnDone) t += latencyMs;
      const outcome = type.make(step.param);
      const instr = loop.next(outcome, T0 + t);
      events.push({
        call: verdictOnDone ? null : call,
        start,
        at: t,
        outcome: { kind: outcome.kind, tone: type.tone, title: type.title(step.param), detail: outcome.text != null ? preview(outcome.text) : null },
        instr,
      });
      used += 1;
      if (instr.type === "wait-for-backoff") {
        t += instr.delayMs;
        call = instr.attempt;
      } else if (instr.type === "send-repair-prompt") {
        call = instr.attempt;
      }
      last = instr;
    }
    const notes = [];
    if (!last) notes.push("Add outcomes to the script, then press Run.");
    else if (last.type === "wait-for-backoff" || last.type === "send-repair-prompt") {
      notes.push(`The script ran out: the loop is waiting for call ${call}. Add another outcome.`);
    } else if (used < script.length) {
      const rest = script.length - used;
      notes.push(`${rest} more step${rest === 1 ? " was" : "s were"} not reached: ${last.type} is final.`);
    }
    const attempts = loop.attempts.map((a) => ({ ...a, at: a.at - T0 }));
    return { events, notes, report: loop.report(), attempts, totalMs: t, final: last?.type === "done" || last?.type === "degrade" ? last : null, used };
  } finally {
    loop.free();
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function initLoop(sh) {
  let script = [];
  let runToken = 0;

  const markStale = () => $("l-output").classList.add("stale");

  const renderSteps = (used = null) => {
    const list = $("l-steps");
    if (!script.length) {
      fill(list, h("li", { class: "steps-empty" }, "No outcomes yet. Add one below, or pick a scenario."));
      return;
    }
    fill(list, script.map((step, i) => {
      const type = STEP_TYPES[step.type];
      const n = i + 1;
      const param = type.param
        ? h("label", { class: "step-param" }, h("span", { class: "visually-hidden" }, `Step ${n} `), h("span", { class: "step-param-label" }, type.param.label),
          h("input", {
            type: type.param.type, value: step.param, step: type.param.type === "number" ? "any" : null, min: type.param.type === "number" ? "0" : null,
            oninput: (e) => { step.param = e.target.value; markStale(); },
          }))
        : null;
      return h("li", { class: `step${used != null && i >= used ? " step-unused" : ""}`, "data-type": step.type },
        h("span", { class: "step-n", "aria-hidden": "true" }, String(n)),
        h("div", { class: "step-main" },
          h("span", { class: "step-label" }, chip(kindOf(step.type), type.tone), " ", type.label),
          param),
        h("div", { class: "step-actions" },
          h("button", { type: "button", class: "icon-btn", "aria-label": `Move step ${n} up`, disabled: i === 0, onclick: () => move(i, -1) }, "↑"),
          h("button", { type: "button", class: "icon-btn", "aria-label": `Move step ${n} down`, disabled: i === script.length - 1, onclick: () => move(i, 1) }, "↓"),
          h("button", { type: "button", class: "icon-btn icon-remove", "aria-label": `Remove step ${n}`, onclick: () => remove(i) }, "×")));
    }));
  };

  const changed = () => { renderSteps(); markStale(); };
  const move = (i, d) => { [script[i], script[i + d]] = [script[i + d], script[i]]; changed(); };
  const remove = (i) => { script.splice(i, 1); changed(); };
  const add = (type) => { script.push({ type, param: STEP_TYPES[type].param?.value }); changed(); };

  fill($("l-add"), Object.entries(STEP_TYPES).map(([key, type]) =>
    h("button", { type: "button", class: `add-btn tone-${type.tone}`, "data-add": key, onclick: () => add(key) }, h("span", { "aria-hidden": "true" }, "+ "), type.label)));

  const run = async () => {
    const token = ++runToken;
    const error = $("l-error");
    showError(error, "");
    $("l-output").classList.remove("stale");
    const latency = num("o-latency") ?? 0;
    let result;
    try {
      if (!(latency >= 0)) throw new RangeError(`call duration must be >= 0, got ${$("o-latency").value}`);
      result = simulate(sh, { ...readLoopOptions(), prompt: ORDER_PROMPT, schema: ORDER_SCHEMA }, script, latency);
    } catch (e) {
      showError(error, describeThrown(e));
      fill($("l-timeline"));
      fill($("l-ribbon"));
      $("l-clock").textContent = "";
      $("l-report-card").hidden = true;
      return;
    }
    renderSteps(result.used);
    $("l-clock").textContent = `virtual time ${fmtT(result.totalMs)}`;
    renderTimeline($("l-timeline"), result.events, { notes: result.notes });
    renderRibbon($("l-ribbon"), result.events, result.totalMs);
    renderReport($("l-report"), result);
    $("l-report-card").hidden = result.events.length === 0;
    if ($("l-animate").checked) await animate(token);
  };

  // Replay: reveal entries one by one; waits fill their bars at 10x speed (capped).
  const animate = async (token) => {
    const items = [...$("l-timeline").children];
    const report = $("l-report-card");
    const wasHidden = report.hidden;
    report.hidden = true;
    for (const item of items) item.classList.add("pending");
    for (const item of items) {
      if (token !== runToken) return;
      item.classList.remove("pending");
      item.scrollIntoView({ block: "nearest", behavior: "smooth" });
      const bar = item.querySelector(".wait-bar");
      if (bar) {
        const ms = Math.min(Number(bar.dataset.delayMs) / 10, 3000);
        const width = bar.style.width;
        bar.style.transition = "none";
        bar.style.width = "0";
        void bar.offsetWidth;
        bar.style.transition = `width ${ms}ms linear`;
        bar.style.width = width;
        await sleep(ms + 150);
      } else {
        await sleep(350);
      }
    }
    if (token === runToken) report.hidden = wasHidden;
  };

  const loadScenario = (name) => {
    script = SCENARIOS[name].map((type) => ({ type, param: STEP_TYPES[type].param?.value }));
    for (const b of document.querySelectorAll("#panel-loop .preset")) b.setAttribute("aria-pressed", String(b.dataset.scenario === name));
    renderSteps();
    run();
  };

  for (const b of document.querySelectorAll("#panel-loop .preset")) b.addEventListener("click", () => loadScenario(b.dataset.scenario));
  $("l-run").addEventListener("click", run);
  $("l-clear").addEventListener("click", () => { script = []; changed(); });
  $("loop-form").addEventListener("input", markStale);
  $("loop-form").addEventListener("change", markStale);
  $("loop-form").addEventListener("submit", (e) => { e.preventDefault(); run(); });
  // On a phone the options start folded, so the script and the timeline come first.
  if (matchMedia("(max-width: 640px)").matches) $("l-options").open = false;
  loadScenario("rate-then-fenced");

  return { readOptions: readLoopOptions };
}


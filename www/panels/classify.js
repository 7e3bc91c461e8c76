// Panel 1: build an error like an SDK or fetch would throw it, and classify() it.

import { $, h, fill, showError, chip, classTone, fmtMs, debounce } from "../lib/dom.js";

const PRESETS = {
  "rate-limit": {
    status: 429,
    headers: "retry-after: 2\nx-ratelimit-remaining-requests: 0",
    body: { error: { message: "Rate limit reached for requests. Please try again later.", type: "requests", code: "rate_limit_exceeded" } },
    name: "RateLimitError",
    message: "Rate limit reached for requests",
  },
  overloaded: {
    status: 529,
    headers: "request-id: req_011CXq3Hk9F2",
    body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    name: "InternalServerError",
    message: "Overloaded",
  },
  quota: {
    status: 429,
    headers: "",
    body: { error: { message: "You exceeded your current quota, please check your plan and billing details.", type: "insufficient_quota", param: null, code: "insufficient_quota" } },
    name: "RateLimitError",
    message: "You exceeded your current quota, please check your plan and billing details.",
  },
  "fetch-failed": { status: "", headers: "", body: null, name: "TypeError", message: "fetch failed" },
  unauthorized: {
    status: 401,
    headers: "",
    body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
    name: "AuthenticationError",
    message: "invalid x-api-key",
  },
  context: {
    status: 400,
    headers: "",
    body: { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } },
    name: "BadRequestError",
    message: "This model's maximum context length is 128000 tokens.",
  },
};

const SIGNALS = {
  "x-should-retry": "the x-should-retry header",
  status: "the HTTP status",
  "error-type": "the error type",
  code: "the error code",
  message: "the error message",
  validation: "the validation result",
  "stop-reason": "the stop reason",
  none: "nothing recognisable",
};

/** What a RepairLoop does with an outcome of this classification. */
function nextStep(c) {
  switch (c.class) {
    case "transient":
      return c.retryAfterMs != null
        ? `wait-for-backoff: wait ${fmtMs(c.retryAfterMs)} as the server asked, then resend the same prompt.`
        : "wait-for-backoff: wait an exponential backoff with jitter, then resend the same prompt.";
    case "repairable":
      return "send-repair-prompt: one precise repair prompt quoting the error.";
    case "semantic-invalid":
      return "send-repair-prompt with the alternate prompt, once.";
    default:
      return "degrade at once with the fallback. Never retried.";
  }
}

/** Parse "name: value" lines. Throws with the line number on a bad line. */
function parseHeaders(text) {
  const pairs = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!name || /\s/.test(name)) throw new Error(`Headers, line ${i + 1}: expected "name: value", got ${JSON.stringify(line)}`);
    pairs.push([name.toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return pairs;
}

function readForm() {
  const statusText = $("c-status").value.trim();
  const status = statusText === "" ? null : Number(statusText);
  if (status !== null && !Number.isInteger(status)) throw new Error(`HTTP status must be a whole number, got ${JSON.stringify(statusText)}`);
  const headers = parseHeaders($("c-headers").value);
  const bodyText = $("c-body").value.trim();
  let body = null;
  if (bodyText) {
    try {
      body = JSON.parse(bodyText);
    } catch (e) {
      throw new Error(`Response body is not valid JSON: ${e.message}`);
    }
  }
  return {
    status,
    headers,
    headersAs: $("c-headers-as").value,
    body,
    name: $("c-name").value.trim(),
    message: $("c-message").value,
    code: $("c-code").value.trim(),
  };
}

/** The error object, and the JS source that would build it. */
function buildError(f) {
  const error = f.name === "TypeError" ? new TypeError(f.message) : new Error(f.message);
  const lines = [];
  if (f.name && f.name !== "TypeError" && f.name !== "Error") {
    error.name = f.name;
    lines.push(`  name: ${JSON.stringify(f.name)},`);
  }
  if (f.status !== null) {
    error.status = f.status;
    lines.push(`  status: ${f.status},`);
  }
  if (f.headers.length) {
    const obj = Object.fromEntries(f.headers);
    const src = JSON.stringify(obj, null, 2).replace(/\n/g, "\n  ");
    if (f.headersAs === "Headers") {
      error.headers = new Headers(f.headers);
      lines.push(`  headers: new Headers(${src}),`);
    } else if (f.headersAs === "Map") {
      error.headers = new Map(f.headers);
      lines.push(`  headers: new Map(Object.entries(${src})),`);
    } else {
      error.headers = obj;
      lines.push(`  headers: ${src},`);
    }
  }
  if (f.body !== null) {
    error.error = f.body;
    lines.push(`  error: ${JSON.stringify(f.body, null, 2).replace(/\n/g, "\n  ")},`);
  }
  if (f.code) {
    error.code = f.code;
    lines.push(`  code: ${JSON.stringify(f.code)},`);
  }
  const ctor = `new ${f.name === "TypeError" ? "TypeError" : "Error"}(${JSON.stringify(f.message)})`;
  const source = lines.length ? `Object.assign(${ctor}, {\n${lines.join("\n")}\n})` : ctor;
  return { error, source };
}

function renderResult(c) {
  const tone = classTone(c.class);
  return [
    h("div", { class: `verdict verdict-${tone}` },
      h("div", { class: "verdict-main" },
        h("span", { class: `badge badge-${tone}`, "data-testid": "class" }, c.class),
        h("span", { class: "verdict-cause", "data-testid": "cause" }, c.cause)),
      h("p", { class: "verdict-next" }, h("span", { class: "arrow", "aria-hidden": "true" }, "→ "), nextStep(c))),
    h("dl", { class: "kv" },
      h("dt", {}, "class"), h("dd", { "data-field": "class" }, h("code", {}, c.class)),
      h("dt", {}, "cause"), h("dd", { "data-field": "cause" }, h("code", {}, c.cause)),
      h("dt", {}, "reason"), h("dd", { "data-field": "reason" }, c.reason),
      h("dt", {}, "signal"), h("dd", { "data-field": "signal" }, h("code", {}, c.signal), h("span", { class: "muted" }, ` decided by ${SIGNALS[c.signal] ?? c.signal}`)),
      h("dt", {}, "retryAfterMs"), h("dd", { "data-field": "retryAfterMs" },
        c.retryAfterMs == null ? h("code", { class: "muted" }, "null") : [h("code", {}, String(c.retryAfterMs)), " ", chip(fmtMs(c.retryAfterMs), "amber")])),
  ];
}

export function initClassify(sh) {
  const out = $("classify-result");
  const err = $("c-error");

  const update = () => {
    let form;
    try {
      form = readForm();
    } catch (e) {
      showError(err, e.message);
      out.classList.add("stale");
      return;
    }
    showError(err, "");
    out.classList.remove("stale");
    const { error, source } = buildError(form);
    $("c-js").textContent = source;
    // classify never throws, but a playground must never crash: show anything unexpected.
    try {
      fill(out, renderResult(sh.classify(error)));
    } catch (e) {
      showError(err, `classify threw: ${e?.message ?? e}`);
    }
  };

  const load = (name) => {
    const p = PRESETS[name];
    $("c-status").value = p.status ?? "";
    $("c-headers").value = p.headers;
    $("c-body").value = p.body ? JSON.stringify(p.body, null, 2) : "";
    $("c-name").value = p.name;
    $("c-message").value = p.message;
    $("c-code").value = p.code ?? "";
    for (const b of document.querySelectorAll("#panel-classify .preset")) b.setAttribute("aria-pressed", String(b.dataset.preset === name));
    update();
  };

  for (const b of document.querySelectorAll("#panel-classify .preset")) b.addEventListener("click", () => load(b.dataset.preset));
  const typed = debounce(() => {
    for (const b of document.querySelectorAll("#panel-classify .preset")) b.setAttribute("aria-pressed", "false");
    update();
  });
  $("classify-form").addEventListener("input", typed);
  $("classify-form").addEventListener("change", typed);
  $("classify-form").addEventListener("submit", (e) => e.preventDefault());
  load("rate-limit");
}

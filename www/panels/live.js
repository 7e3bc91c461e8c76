// Panel 5: the host loop against a real OpenAI-compatible or Anthropic endpoint,
// with fetch() from the page and real waits. The key never leaves this page except
// in the request to the base URL the person typed.

import { $, showError, describeThrown, pretty, fmtMs } from "../lib/dom.js";
import { renderTimeline, renderReport, fmtT } from "../lib/timeline.js";
import { ORDER_SCHEMA, ORDER_PROMPT } from "../lib/scenario.js";

const PROVIDERS = {
  openai: { base: "https://api.openai.com/v1", model: "gpt-4o-mini", key: "sk-…" },
  anthropic: { base: "https://api.anthropic.com", model: "claude-haiku-4-5", key: "sk-ant-…" },
};

/** An Error shaped like the SDKs' APIError, from a non-2xx Response. */
async function httpError(res) {
  const text = await res.text().catch(() => "");
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text || null;
  }
  const detail = body?.error?.message ?? (typeof body === "string" ? body.slice(0, 200) : res.statusText);
  const error = new Error(`${res.status} ${detail}`.trim());
  error.name = "APIError";
  error.status = res.status;
  error.headers = res.headers;
  if (body !== null) error.error = body;
  return error;
}

/** One model call. Resolves { text, stopReason, usage? } or throws what fetch or the API gave. */
async function callModel({ provider, base, model, key, maxTokens }, prompt, signal) {
  const root = base.replace(/\/+$/, "");
  let url;
  let init;
  if (provider === "anthropic") {
    url = `${root}/v1/messages`;
    init = {
      headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01", "anthropic-dangerous-direct-browser-access": "true" },
      body: { model, max_tokens: maxTokens, system: prompt.system, messages: [{ role: "user", content: prompt.user }] },
    };
  } else {
    url = `${root}/chat/completions`;
    init = {
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: { model, max_tokens: maxTokens, messages: [{ role: "system", content: prompt.system }, { role: "user", content: prompt.user }] },
    };
  }
  const res = await fetch(url, { method: "POST", headers: init.headers, body: JSON.stringify(init.body), signal });
  if (!res.ok) throw await httpError(res);
  const data = await res.json();
  if (provider === "anthropic") {
    const text = Array.isArray(data?.content) ? data.content.filter((b) => b?.type === "text").map((b) => b.text).join("") : null;
    if (typeof text !== "string") throw new Error("unexpected response: no content blocks");
    const usage = data.usage ? { inputTokens: data.usage.input_tokens ?? 0, outputTokens: data.usage.output_tokens ?? 0 } : undefined;
    return { text, stopReason: data.stop_reason ?? undefined, usage };
  }
  const choice = data?.choices?.[0];
  if (typeof choice?.message?.content !== "string") throw new Error("unexpected response: no choices[0].message.content");
  const usage = data.usage ? { inputTokens: data.usage.prompt_tokens ?? 0, outputTokens: data.usage.completion_tokens ?? 0 } : undefined;
  return { text: choice.message.content, stopReason: choice.finish_reason ?? undefined, usage };
}

const preview = (text, n = 90) => {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > n ? flat.slice(0, n - 1) + "…" : flat;
};

function describe(outcome) {
  if (outcome.kind === "reply") {
    return { kind: "reply", tone: "blue", title: `reply${outcome.stopReason ? `, stop: ${outcome.stopReason}` : ""}`, detail: preview(outcome.text) };
  }
  const e = outcome.error;
  const type = e?.error?.error?.type ?? e?.error?.type;
  const title = e?.status ? `HTTP ${e.status}${type && type !== "error" ? ` ${type}` : ""}` : `${e?.name ?? "Error"}: ${e?.message ?? e}`;
  const message = String(e?.message ?? "");
  return { kind: "error", tone: "amber", title, detail: e?.status ? (message.length > 160 ? message.slice(0, 159) + "…" : message) : null };
}

function abortableSleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export function initLive(sh, loopPanel) {
  $("v-system").value = ORDER_PROMPT.system;
  $("v-user").value = ORDER_PROMPT.user;
  $("v-schema").value = pretty(ORDER_SCHEMA);
  let controller = null;

  $("v-provider").addEventListener("change", () => {
    const next = PROVIDERS[$("v-provider").value];
    const isDefault = (field, key) => Object.values(PROVIDERS).some((p) => p[key] === $(field).value.trim()) || !$(field).value.trim();
    if (isDefault("v-base", "base")) $("v-base").value = next.base;
    if (isDefault("v-model", "model")) $("v-model").value = next.model;
    $("v-key").placeholder = next.key;
  });

  const error = $("v-error");
  const clock = $("v-clock");

  const run = async () => {
    showError(error, "");
    const cfg = {
      provider: $("v-provider").value,
      base: $("v-base").value.trim(),
      model: $("v-model").value.trim(),
      key: $("v-key").value,
      maxTokens: Number($("v-maxtokens").value || 512),
    };
    try {
      const u = new URL(cfg.base);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("use http: or https:");
    } catch (e) {
      showError(error, `Base URL is not a valid URL: ${e.message}`);
      return;
    }
    if (!cfg.model) return showError(error, "Type a model name.");
    if (!(Number.isInteger(cfg.maxTokens) && cfg.maxTokens > 0)) return showError(error, "max tokens must be a whole number above 0.");
    const prompt = { system: $("v-system").value, user: $("v-user").value };
    let loop;
    try {
      loop = new sh.RepairLoop({ ...loopPanel.readOptions(), prompt, schema: $("v-schema").value });
    } catch (e) {
      showError(error, describeThrown(e));
      return;
    }

    controller = new AbortController();
    const { signal } = controller;
    $("v-run").disabled = true;
    $("v-stop").disabled = false;
    $("v-report-card").hidden = true;
    const events = [];
    const t0 = Date.now();
    const draw = () => renderTimeline($("v-timeline"), events);
    draw();
    let request = prompt;
    let call = 1;
    let final = null;
    try {
      for (;;) {
        const start = Date.now() - t0;
        clock.textContent = `call ${call} in flight…`;
        let outcome;
        try {
          outcome = { kind: "reply", ...(await callModel(cfg, request, signal)) };
          if (outcome.usage === undefined) delete outcome.usage;
          if (outcome.stopReason === undefined) delete outcome.stopReason;
        } catch (e) {
          if (signal.aborted) break;
          outcome = { kind: "error", error: e };
        }
        const instr = loop.next(outcome);
        events.push({ call, start, at: Date.now() - t0, outcome: describe(outcome), instr });
        draw();
        if (instr.type === "done" || instr.type === "degrade") {
          final = instr;
          break;
        }
        if (instr.type === "wait-for-backoff") {
          clock.textContent = `waiting ${fmtMs(instr.delayMs)}…`;
          await abortableSleep(instr.delayMs, signal);
          if (signal.aborted) break;
        }
        request = instr.prompt;
        call = instr.attempt;
      }
      if (!final) {
        final = loop.abort("stopped from the playground");
        events.push({ call: null, start: Date.now() - t0, at: Date.now() - t0, outcome: { kind: "stopped", tone: "neutral", title: "you pressed Stop" }, instr: final });
        draw();
      }
      const totalMs = Date.now() - t0;
      clock.textContent = `real time ${fmtT(totalMs)}`;
      renderReport($("v-report"), { report: loop.report(), final, totalMs, timeLabel: "real time", attempts: loop.attempts.map((a) => ({ ...a, at: a.at - t0 })) });
      $("v-report-card").hidden = false;
    } catch (e) {
      showError(error, describeThrown(e));
      clock.textContent = "";
    } finally {
      loop.free();
      controller = null;
      $("v-run").disabled = false;
      $("v-stop").disabled = true;
    }
  };

  $("live-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (!controller) run();
  });
  $("v-stop").addEventListener("click", () => controller?.abort());
}

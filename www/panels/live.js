// Panel 5: the host loop against a real OpenAI-compatible or Anthropic endpoint,
// with fetch() from the page and real waits. The key never leaves this page except
// in the request to the base URL the person typed.

import { $, showError, describeThrown, pretty, fmtMs } from "../lib/dom.js";
import { createParser } from "../vendor/eventsource-parser/index.js";
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

/**
 * The body of a streamed call (server-sent events), each text delta given to `onText(text)`;
 * when it returns true (a violation) the stream is cut: reading stops and the request is aborted.
 * Resolves { stopReason, usage?, cut }: the provider's stop reason from its final event,
 * "aborted" when cut here, "incomplete" when the stream ended without its final event. An error
 * event in the stream (Anthropic's overloaded_error, OpenAI's {"error": ...}) is thrown with its
 * body as `error.error`, which classify() reads.
 */
async function readStream(provider, res, onText, abortCall) {
  let stop = null;
  let final = false;
  let usage;
  let cut = false;
  let failure = null;
  const parser = createParser({
    onEvent({ event, data }) {
      if (cut || failure) return;
      if (data === "[DONE]") {
        final = true;
        return;
      }
      let msg;
      try {
        msg = JSON.parse(data);
      } catch {
        return;
      }
      let text = null;
      if (provider === "anthropic") {
        if (msg.type === "content_block_delta" && msg.delta?.type === "text_delta") text = msg.delta.text;
        else if (msg.type === "message_delta") {
          stop = msg.delta?.stop_reason ?? stop;
          if (msg.usage?.output_tokens != null) usage = { inputTokens: 0, outputTokens: msg.usage.output_tokens };
        } else if (msg.type === "message_stop") final = true;
        else if (event === "error" || msg.type === "error") failure = msg;
      } else if (msg.error) failure = msg;
      else {
        const choice = msg.choices?.[0];
        if (typeof choice?.delta?.content === "string") text = choice.delta.content;
        if (choice?.finish_reason) stop = choice.finish_reason;
        if (msg.usage) usage = { inputTokens: msg.usage.prompt_tokens ?? 0, outputTokens: msg.usage.completion_tokens ?? 0 };
      }
      if (text && onText(text)) cut = true;
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(value);
    if (cut || failure) {
      reader.cancel().catch(() => {});
      abortCall(); // the rest of the reply is never generated
      break;
    }
  }
  if (failure) {
    const e = failure.error ?? failure;
    throw Object.assign(new Error(e.message ?? "error event in the stream"), { name: "APIError", error: failure });
  }
  const stopReason = cut ? "aborted" : provider === "anthropic" ? (final ? stop ?? "end_turn" : "incomplete") : stop ?? (final ? "stop" : "incomplete");
  return { stopReason, usage, cut };
}

/**
 * One model call. Resolves { text, stopReason, usage? } or throws what fetch or the API gave.
 * With `onText`, the reply is streamed: each delta goes to onText, and the result has no text.
 */
async function callModel({ provider, base, model, key, maxTokens }, prompt, signal, onText) {
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
  // This call's own controller: Stop (the run's signal) aborts it, and so does a cut stream.
  const call = new AbortController();
  const abortCall = () => call.abort();
  signal.addEventListener("abort", abortCall, { once: true });
  if (onText) {
    init.body.stream = true;
    if (provider !== "anthropic") init.body.stream_options = { include_usage: true };
  }
  const res = await fetch(url, { method: "POST", headers: init.headers, body: JSON.stringify(init.body), signal: call.signal });
  if (!res.ok) throw await httpError(res);
  if (onText) return readStream(provider, res, onText, abortCall);
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

function describe(outcome, streamed) {
  if (outcome.kind === "reply") {
    const how = streamed == null ? "reply" : outcome.stopReason === "aborted" ? `streamed, cut at the violation after ${streamed.length} characters` : "streamed reply";
    return { kind: "reply", tone: outcome.stopReason === "aborted" ? "red" : "blue", title: `${how}${outcome.stopReason ? `, stop: ${outcome.stopReason}` : ""}`, detail: preview(outcome.text ?? streamed) };
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
    const stream = $("v-stream").checked;
    $("v-partial-card").hidden = true;
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
        let streamed = null; // the text pushed into the loop, when the reply streams
        const onText = stream
          ? (text) => {
            streamed += text;
            const update = loop.push(text);
            $("v-partial").textContent = update.value === undefined ? "" : pretty(update.value);
            $("v-partial-state").textContent = update.violation
              ? `call ${call}: violation at ${update.violation.path || "/"}: ${update.violation.message} (stream cut)`
              : `call ${call}: ${streamed.length.toLocaleString("en-US")} characters`;
            return update.violation !== null;
          }
          : undefined;
        if (stream) {
          streamed = "";
          $("v-partial-card").hidden = false;
          $("v-partial").textContent = "";
        }
        try {
          const { cut, ...reply } = await callModel(cfg, request, signal, onText);
          outcome = { kind: "reply", ...reply };
          if (outcome.usage === undefined) delete outcome.usage;
          if (outcome.stopReason === undefined) delete outcome.stopReason;
        } catch (e) {
          if (signal.aborted) break;
          outcome = { kind: "error", error: e };
        }
        const instr = loop.next(outcome);
        events.push({ call, start, at: Date.now() - t0, outcome: describe(outcome, streamed), instr });
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

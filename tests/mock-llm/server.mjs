#!/usr/bin/env node
// A scripted mock LLM server: the Anthropic Messages API and the OpenAI Chat
// Completions API, with the faults real providers produce, for driving the
// official SDKs (or plain fetch) through selfheal's RepairLoop without a key.
//
//   import { startMockLlm } from "./tests/mock-llm/server.mjs";
//   const mock = await startMockLlm({ script: ["overloaded", "fenced-json"] });
//   const anthropic = new Anthropic({ baseURL: mock.anthropicBaseURL, apiKey: "test", maxRetries: 0 });
//   const openai = new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "test", maxRetries: 0 });
//   ...
//   mock.requests   // every request seen (see "The request record" below)
//   await mock.close();
//
// Routes: POST /v1/messages (Anthropic; `stream: true` answers with SSE) and
// POST /v1/chat/completions (OpenAI; `stream: true` answers with SSE chunks).
// Anything else is a 404 in the provider's error shape and consumes no step.
//
// The script. Either an array of steps shared by both APIs (one step is
// consumed per request, in order) or `{ anthropic: [...], openai: [...] }`
// with one queue per API. A step is a kind name ("overloaded"), an object
// `{ kind, ...params }`, or a function `(request) => step` for replies that
// depend on what was sent. `mock.setScript(script)` replaces the script;
// when a queue runs dry the server answers `whenEmpty` (default: a 400
// invalid_request_error "mock-llm: the script has no step left", which a
// RepairLoop treats as hard-fail, so a test that over-calls stops at once).
//
// Step kinds (params in brackets; every step also takes `headers` to add or,
// with a null value, remove response headers, and `delayMs` to wait first):
//   valid              200, JSON.stringify(value)                 [value]
//   text               200, the text as given                     [text, stopReason]
//   fenced-json        200, value in a ```json fence              [value]
//   trailing-commas    200, pretty JSON with trailing commas      [value]
//   schema-mismatch    200, valid JSON of the wrong shape         [value]
//   truncated          200, half of the JSON, stop_reason "max_tokens" /
//                      finish_reason "length"                     [value, text]
//   rate-limited       429 rate_limit_error, `retry-after` seconds and
//                      `retry-after-ms` if given                  [retryAfter, retryAfterMs]
//   overloaded         Anthropic: 529 overloaded_error; OpenAI (which answers
//                      overload with 503): 503 "The engine is currently overloaded"
//   server-error       500 api_error / server_error
//   unauthorized       401 authentication_error / invalid_api_key
//   error              any status and body                        [status, type, message, code]
//   drop               read the request, then destroy the socket (no response)
//   stream-overloaded  streaming request: 200 SSE with message_start,
//                      content_block_start and one delta, then `event: error`
//                      {type:"error", error:{type:"overloaded_error", message:"Overloaded"}}
//                      (OpenAI: a chunk, then `data: {"error": {...}}`);
//                      a non-streaming request gets the plain `overloaded` error
//   hang               never answer (until the client gives up or close())
//   tool-call          200, one tool call (non-streaming only)    [name, input, arguments, id]
//                      Anthropic: a tool_use block with `input` (an object; `arguments`
//                      is parsed when no input is given), stop_reason "tool_use"; OpenAI:
//                      message.tool_calls with `arguments` verbatim (so it may be broken
//                      JSON) or JSON.stringify(input), finish_reason "tool_calls"
//   stream-cut         streaming request: 200 SSE with the start events and text deltas of
//                      `text` (default: the first half of JSON.stringify(value)), then the
//                      response ends cleanly without message_delta/message_stop (OpenAI:
//                      without the finish_reason chunk and [DONE]); a non-streaming request
//                      gets the same text as a complete reply          [value, text]
//   error-200          HTTP 200 whose body is an error, as OpenRouter sends it:
//                      {"error": {"code": 502, "message": ...}} (a streaming request gets it
//                      as the first SSE data)                          [code, message]
//   refusal            200, the model declines: Anthropic stop_reason "refusal" with the text;
//                      OpenAI message.refusal (content null; streamed as `refusal` deltas),
//                      finish_reason "stop"                                      [text]
// A streamed reply (`stream: true` on valid, text, fenced-json, trailing-commas, schema-mismatch,
// truncated, stream-cut) is sent in deltas of 16 code points; `chunkDelayMs` waits that long
// before each delta (a slow stream, so a client's abort is seen mid-way). The request record then
// has `chunksSent` (deltas written) and `disconnected` (the client went away before the end).
// OpenAI's strict structured outputs are checked as the real API checks them: a request whose
// `response_format` is a `json_schema` with `strict: true` and an object schema that does not
// set `additionalProperties: false`, or does not list every property in `required`, gets
// OpenAI's 400 invalid_request_error (param "response_format") and consumes no step.
// Every response carries `request-id` (Anthropic) or `x-request-id` (OpenAI);
// Anthropic errors on 429 and 5xx carry `x-should-retry: true`, as the real API does.
// The request record: { n, method, path, query, headers (lower-case), body
// (parsed JSON, or the raw text), api ("anthropic" | "openai" | null), stream,
// kind (the step kind served, or "not-found" / "bad-body" / "invalid-schema" / "exhausted"),
// step, userText (every user turn's text), systemText, at (Date.now()) }.
//
// Bounds: it listens on 127.0.0.1 only, serves at most `maxRequests`
// (default 1000) requests and then closes itself, and closes itself after
// `idleTimeoutMs` (default 30000) without a request. `close()` ends it at once
// (open connections included); `closed` resolves with the reason when it ends.
//
// As a CLI (prints the URLs, logs each request, stops by itself):
//   node tests/mock-llm/server.mjs [--port 8787] [--script '["rate-limited","valid"]']
//        [--script-file steps.json] [--when-empty valid] [--max-requests 100] [--idle-timeout 60000]
import http from "node:http";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const STEP_KINDS = Object.freeze([
  "valid", "text", "fenced-json", "trailing-commas", "schema-mismatch", "truncated",
  "rate-limited", "overloaded", "server-error", "unauthorized", "error",
  "drop", "stream-overloaded", "hang", "tool-call",
  "stream-cut", "error-200", "refusal",
]);

/** The value replies carry when a step gives none (matches tests/js/helpers.mjs CITY_SCHEMA). */
export const DEFAULT_VALUE = Object.freeze({ city: "Paris", population: 2102650 });
/** A value of the wrong shape for that schema: `city` is a number, `population` a string. */
export const DEFAULT_MISMATCH = Object.freeze({ city: 75, population: "about two million" });

const HOST = "127.0.0.1";
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rid = (prefix) => prefix + randomBytes(12).toString("hex");
const tokens = (s) => Math.max(1, Math.ceil(String(s ?? "").length / 4));

/** Pretty JSON with a comma before every closing bracket of a non-empty container. */
export function withTrailingCommas(value) {
  return JSON.stringify(value, null, 2).replace(/\n(\s*)([}\]])/g, ",\n$1$2");
}

/** The text of every user turn (Anthropic or OpenAI message shapes), joined by newlines. */
export function userTextOf(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const parts = [];
  for (const m of messages) {
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") parts.push(m.content);
    else if (Array.isArray(m.content)) {
      for (const block of m.content) if (typeof block?.text === "string") parts.push(block.text);
    }
  }
  return parts.join("\n");
}

/** The system text: Anthropic `system` (string or blocks) or OpenAI system/developer messages. */
export function systemTextOf(body) {
  if (typeof body?.system === "string") return body.system;
  if (Array.isArray(body?.system)) return body.system.map((b) => b?.text ?? "").join("\n");
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return messages
    .filter((m) => m?.role === "system" || m?.role === "developer")
    .map((m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((b) => b?.text ?? "").join("")))
    .join("\n");
}

// ---------- provider shapes ----------

const ERRORS = {
  "rate-limited": {
    status: 429,
    anthropic: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later." },
    openai: { message: "Rate limit reached for requests. Please try again later.", type: "requests", code: "rate_limit_exceeded" },
  },
  overloaded: {
    status: 529,
    anthropic: { type: "overloaded_error", message: "Overloaded" },
    openaiStatus: 503,
    openai: { message: "The engine is currently overloaded, please try again later.", type: "server_error", code: null },
  },
  "server-error": {
    status: 500,
    anthropic: { type: "api_error", message: "Internal server error" },
    openai: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", code: null },
  },
  unauthorized: {
    status: 401,
    anthropic: { type: "authentication_error", message: "invalid x-api-key" },
    openai: { message: "Incorrect API key provided: test. You can find your API key at https://platform.openai.com/account/api-keys.", type: "invalid_request_error", code: "invalid_api_key" },
  },
};

const ANTHROPIC_TYPE_FOR_STATUS = {
  400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
  404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
  500: "api_error", 529: "overloaded_error",
};

function anthropicErrorBody(type, message) {
  return { type: "error", error: { type, message } };
}
function openaiErrorBody(message, type, code, param = null) {
  return { error: { message, type, param, code } };
}

/**
 * Why OpenAI's strict mode refuses a `response_format`, or null: every object schema must set
 * `additionalProperties: false` and list all its properties in `required` (OpenAI's
 * "Supported schemas"). `context` is the path, written as the API writes it.
 */
export function strictSchemaError(format) {
  if (format?.type !== "json_schema" || format.json_schema?.strict !== true) return null;
  const name = format.json_schema.name ?? "response";
  const problem = (schema, context) => {
    if (schema === null || typeof schema !== "object") return null;
    if (Array.isArray(schema)) {
      for (const [i, s] of schema.entries()) {
        const p = problem(s, [...context, String(i)]);
        if (p) return p;
      }
      return null;
    }
    const isObject = schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object"));
    const where = `In context=(${context.map((c) => `'${c}'`).join(", ")}${context.length === 1 ? "," : ""})`;
    if (isObject && schema.additionalProperties !== false) {
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const keys = Object.keys(schema.properties ?? {});
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = keys.find((k) => !required.includes(k));
    if (isObject && missing !== undefined) {
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
    for (const key of ["properties", "$defs", "definitions"]) {
      for (const [k, s] of Object.entries(schema[key] ?? {})) {
        const p = problem(s, [...context, key, k]);
        if (p) return p;
      }
    }
    for (const key of ["items", "anyOf", "allOf", "oneOf"]) {
      const p = problem(schema[key], [...context, key]);
      if (p) return p;
    }
    return null;
  };
  const p = problem(format.json_schema.schema, []);
  return p === null ? null : `Invalid schema for response_format '${name}': ${p}`;
}

/** Reply text and stop flag for the content kinds. */
function replyContent(step) {
  const value = step.value !== undefined ? step.value : step.kind === "schema-mismatch" ? DEFAULT_MISMATCH : DEFAULT_VALUE;
  switch (step.kind) {
    case "valid":
    case "schema-mismatch":
      return { text: step.text ?? JSON.stringify(value), cut: false };
    case "text":
      return { text: String(step.text ?? ""), cut: false };
    case "fenced-json":
      return { text: step.text ?? "```json\n" + JSON.stringify(value, null, 2) + "\n```", cut: false };
    case "trailing-commas":
      return { text: step.text ?? withTrailingCommas(value), cut: false };
    case "truncated": {
      const full = JSON.stringify(value);
      return { text: step.text ?? full.slice(0, Math.max(1, Math.floor(full.length / 2))), cut: true };
    }
    case "refusal":
      return { text: String(step.text ?? "I'm sorry, but I can't help with that."), cut: false, refusal: true };
    case "stream-cut": {
      const full = JSON.stringify(value);
      return { text: step.text ?? full.slice(0, Math.max(1, Math.floor(full.length / 2))), cut: false, unfinished: true };
    }
    default:
      return null;
  }
}

function anthropicStop(step, cut) {
  if (step.stopReason !== undefined) return step.stopReason;
  if (step.kind === "refusal") return "refusal";
  return cut ? "max_tokens" : "end_turn";
}
function openaiStop(step, cut) {
  if (step.stopReason !== undefined) return step.stopReason;
  return cut ? "length" : "stop";
}

function normaliseStep(step, request) {
  let s = typeof step === "function" ? step(request) : step;
  if (typeof s === "string") s = { kind: s };
  if (!s || typeof s !== "object" || !STEP_KINDS.includes(s.kind)) {
    const shown = typeof step === "function" ? `${JSON.stringify(s) ?? String(s)} (returned by a step function)` : JSON.stringify(step) ?? String(step);
    throw new TypeError(`mock-llm: unknown step ${shown}; kinds: ${STEP_KINDS.join(", ")}`);
  }
  return s;
}

function checkSteps(steps, where) {
  if (!Array.isArray(steps)) throw new TypeError(`mock-llm: ${where} must be an array of steps`);
  for (const step of steps) if (typeof step !== "function") normaliseStep(step, null);
  return [...steps];
}

function checkScript(script) {
  if (Array.isArray(script)) return { shared: checkSteps(script, "script") };
  if (script && typeof script === "object") {
    const { anthropic = [], openai = [], ...rest } = script;
    const extra = Object.keys(rest);
    if (extra.length) throw new TypeError(`mock-llm: unknown script key ${JSON.stringify(extra[0])} (use anthropic / openai)`);
    return { anthropic: checkSteps(anthropic, "script.anthropic"), openai: checkSteps(openai, "script.openai") };
  }
  throw new TypeError("mock-llm: script must be an array of steps or { anthropic: [...], openai: [...] }");
}

/**
 * Start the mock server on 127.0.0.1.
 * @returns {Promise<{ url: string, port: number, anthropicBaseURL: string, openaiBaseURL: string,
 *   requests: object[], setScript(script): void, remaining(): object, closed: Promise<string>,
 *   close(): Promise<void> }>}
 */
/** Run `fn(mock)` against a server started with `script`, closing it afterwards whatever happens. */
export async function withMockLlm(script, fn, options = {}) {
  const mock = await startMockLlm({ idleTimeoutMs: 10_000, ...options, script });
  try {
    return await fn(mock);
  } finally {
    await mock.close();
  }
}

export async function startMockLlm({
  script = [],
  port = 0,
  maxRequests = 1000,
  idleTimeoutMs = 30_000,
  whenEmpty = null,
  onRequest = null,
} = {}) {
  let queues = checkScript(script);
  if (whenEmpty != null && typeof whenEmpty !== "function") normaliseStep(whenEmpty, null);
  if (!(maxRequests >= 1)) throw new RangeError("mock-llm: maxRequests must be >= 1");
  const requests = [];
  const sockets = new Set();
  const hanging = new Set();
  let served = 0;
  let closing = null;
  let resolveClosed;
  const closed = new Promise((resolve) => (resolveClosed = resolve));

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      // A bug in the mock itself: answer 500 in the plain form and keep going.
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`mock-llm internal error: ${err?.stack ?? err}`);
      } else res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  let idleTimer = null;
  const armIdle = () => {
    clearTimeout(idleTimer);
    if (idleTimeoutMs > 0 && idleTimeoutMs !== Infinity) {
      idleTimer = setTimeout(() => shutdown(`idle for ${idleTimeoutMs} ms`), idleTimeoutMs);
    }
  };

  function shutdown(reason) {
    if (closing) return closing;
    clearTimeout(idleTimer);
    closing = new Promise((resolve) => {
      server.close(() => resolve());
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections?.();
      for (const s of sockets) s.destroy();
    }).then(() => resolveClosed(reason));
    return closing;
  }

  function nextStep(api, request) {
    const queue = queues.shared ?? queues[api];
    if (queue.length > 0) return normaliseStep(queue.shift(), request);
    if (whenEmpty != null) return normaliseStep(whenEmpty, request);
    return {
      kind: "error",
      status: 400,
      type: "invalid_request_error",
      message: "mock-llm: the script has no step left for this request",
      exhausted: true,
    };
  }

  async function readBody(req) {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new Error("request body too large");
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
  }

  async function handle(req, res) {
    if (closing || served >= maxRequests) {
      req.socket.destroy();
      return;
    }
    armIdle();
    served += 1;
    const n = served;
    const url = new URL(req.url, `http://${HOST}`);
    const path = url.pathname;
    const api = path === "/v1/messages" ? "anthropic" : path === "/v1/chat/completions" ? "openai" : null;
    let raw = "";
    try {
      raw = await readBody(req);
    } catch {
      res.destroy();
      return;
    }
    let body = null;
    let bodyError = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch (e) {
        bodyError = e.message;
        body = raw;
      }
    }
    const record = {
      n,
      method: req.method,
      path,
      query: url.search,
      headers: { ...req.headers },
      body,
      api,
      stream: body?.stream === true,
      kind: null,
      userText: userTextOf(body),
      systemText: systemTextOf(body),
      at: Date.now(),
    };
    requests.push(record);

    // After the last allowed request: stop once its response has gone out.
    const finish = () => {
      if (served < maxRequests) return;
      const stop = () => shutdown(`served ${maxRequests} requests`);
      if (res.writableFinished || res.destroyed) stop();
      else {
        res.once("finish", stop);
        res.once("close", stop);
      }
    };

    if (!api || req.method !== "POST") {
      record.kind = "not-found";
      onRequest?.(record);
      const openaiShaped = path.startsWith("/v1/chat") || path.startsWith("/chat");
      sendJson(res, 404, openaiShaped
        ? openaiErrorBody(`Invalid URL (${req.method} ${path})`, "invalid_request_error", null)
        : anthropicErrorBody("not_found_error", `Not Found: ${req.method} ${path}`),
      headersFor(openaiShaped ? "openai" : "anthropic", {}));
      return finish();
    }
    if (bodyError !== null || !body || typeof body !== "object") {
      record.kind = "bad-body";
      onRequest?.(record);
      const message = `mock-llm: the request body is not a JSON object${bodyError ? ` (${bodyError})` : ""}`;
      sendJson(res, 400, api === "anthropic"
        ? anthropicErrorBody("invalid_request_error", message)
        : openaiErrorBody(message, "invalid_request_error", null), headersFor(api, {}));
      return finish();
    }

    const invalidSchema = api === "openai" ? strictSchemaError(body.response_format) : null;
    if (invalidSchema !== null) {
      record.kind = "invalid-schema";
      onRequest?.(record);
      sendJson(res, 400, openaiErrorBody(invalidSchema, "invalid_request_error", null, "response_format"), headersFor(api, {}));
      return finish();
    }

    const step = nextStep(api, record);
    record.kind = step.exhausted ? "exhausted" : step.kind;
    record.step = step;
    onRequest?.(record);
    if (step.delayMs > 0) await sleep(step.delayMs);
    if (closing) {
      res.destroy();
      return;
    }
    respond(api, step, record, req, res);
    if (step.kind !== "hang") finish();
  }

  function headersFor(api, step, extra = {}) {
    const h = api === "anthropic"
      ? { "request-id": rid("req_mock_") }
      : { "x-request-id": rid("req_mock_"), "openai-processing-ms": "1", "openai-version": "2020-10-01" };
    Object.assign(h, extra);
    for (const [k, v] of Object.entries(step.headers ?? {})) {
      if (v === null || v === undefined) delete h[k.toLowerCase()];
      else h[k.toLowerCase()] = String(v);
    }
    return h;
  }

  function sendJson(res, status, payload, headers) {
    const text = JSON.stringify(payload);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }

  function sendError(api, step, res, kindOverride) {
    const kind = kindOverride ?? step.kind;
    const preset = ERRORS[kind];
    let status;
    let extra = {};
    let payload;
    if (preset) {
      status = api === "openai" ? (preset.openaiStatus ?? preset.status) : preset.status;
      const a = preset.anthropic;
      const o = preset.openai;
      payload = api === "anthropic"
        ? anthropicErrorBody(step.type ?? a.type, step.message ?? a.message)
        : openaiErrorBody(step.message ?? o.message, step.type ?? o.type, step.code !== undefined ? step.code : o.code);
    } else {
      status = step.status ?? 500;
      const type = step.type ?? (api === "anthropic" ? ANTHROPIC_TYPE_FOR_STATUS[status] ?? "api_error" : status >= 500 ? "server_error" : "invalid_request_error");
      const message = step.message ?? http.STATUS_CODES[status] ?? "Error";
      payload = api === "anthropic" ? anthropicErrorBody(type, message) : openaiErrorBody(message, type, step.code ?? null);
    }
    if (kind === "rate-limited") {
      const ms = step.retryAfterMs;
      const secs = step.retryAfter !== undefined ? step.retryAfter : ms != null ? Math.max(1, Math.ceil(ms / 1000)) : 1;
      if (secs !== null) extra["retry-after"] = String(secs);
      if (ms != null) extra["retry-after-ms"] = String(ms);
      if (api === "anthropic") {
        extra["anthropic-ratelimit-requests-limit"] = "50";
        extra["anthropic-ratelimit-requests-remaining"] = "0";
      } else {
        extra["x-ratelimit-limit-requests"] = "500";
        extra["x-ratelimit-remaining-requests"] = "0";
      }
    }
    // Anthropic says whether a retry may help on rate limits and server-side faults.
    if (api === "anthropic" && (status === 429 || status >= 500) && !step.exhausted) {
      extra["x-should-retry"] = "true";
    }
    sendJson(res, status, payload, headersFor(api, step, extra));
  }

  function respond(api, step, record, req, res) {
    switch (step.kind) {
      case "drop":
        req.socket.destroy();
        return;
      case "hang":
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      case "error-200": {
        const payload = {
          error: { code: step.code ?? 502, message: step.message ?? "Provider returned error", metadata: { provider_name: "mock-upstream" } },
        };
        if (!record.stream) return sendJson(res, 200, payload, headersFor(api, step));
        res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headersFor(api, step) });
        sse(res, null, payload);
        res.end();
        return;
      }
      case "stream-overloaded":
        if (!record.stream) return sendError(api, step, res, "overloaded");
        return api === "anthropic" ? anthropicStream(step, record, res, true) : openaiStream(step, record, res, true);
      case "rate-limited":
      case "overloaded":
      case "server-error":
      case "unauthorized":
      case "error":
        return sendError(api, step, res);
      case "tool-call":
        return toolCallReply(api, step, record, res);
      default: {
        if (record.stream) {
          return api === "anthropic" ? anthropicStream(step, record, res, false) : openaiStream(step, record, res, false);
        }
        const { text, cut } = replyContent(step);
        const model = step.model ?? record.body.model ?? "mock-model";
        const input = step.usage?.input ?? tokens(record.systemText + record.userText);
        const output = step.usage?.output ?? tokens(text);
        if (api === "anthropic") {
          return sendJson(res, 200, {
            id: rid("msg_mock_"),
            type: "message",
            role: "assistant",
            model,
            content: [{ type: "text", text }],
            stop_reason: anthropicStop(step, cut),
            stop_sequence: null,
            usage: { input_tokens: input, output_tokens: output },
          }, headersFor(api, step));
        }
        return sendJson(res, 200, {
          id: rid("chatcmpl-mock"),
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [{
            index: 0, logprobs: null, finish_reason: openaiStop(step, cut),
            message: step.kind === "refusal" ? { role: "assistant", content: null, refusal: text } : { role: "assistant", content: text, refusal: null },
          }],
          usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
        }, headersFor(api, step));
      }
    }
  }

  function toolCallReply(api, step, record, res) {
    if (record.stream) {
      return sendError(api, { status: 400, message: "mock-llm: tool-call steps are answered without streaming" }, res, "error");
    }
    const name = step.name ?? "get_weather";
    const model = step.model ?? record.body.model ?? "mock-model";
    const args = step.arguments ?? JSON.stringify(step.input ?? {});
    const input = tokens(record.systemText + record.userText);
    const output = tokens(args);
    if (api === "anthropic") {
      return sendJson(res, 200, {
        id: rid("msg_mock_"), type: "message", role: "assistant", model,
        content: [{ type: "tool_use", id: step.id ?? rid("toolu_mock_"), name, input: step.input ?? JSON.parse(args) }],
        stop_reason: "tool_use", stop_sequence: null, usage: { input_tokens: input, output_tokens: output },
      }, headersFor(api, step));
    }
    return sendJson(res, 200, {
      id: rid("chatcmpl-mock"), object: "chat.completion", created: Math.floor(Date.now() / 1000), model,
      choices: [{
        index: 0,
        message: { role: "assistant", content: null, refusal: null,
          tool_calls: [{ id: step.id ?? rid("call_mock_"), type: "function", function: { name, arguments: args } }] },
        logprobs: null, finish_reason: "tool_calls",
      }],
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    }, headersFor(api, step));
  }

  function sse(res, event, data) {
    if (event) res.write(`event: ${event}\n`);
    res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  }

  function chunks(text, size = 16) {
    const cps = Array.from(text);
    const out = [];
    for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""));
    return out.length ? out : [""];
  }

  /**
   * Before each streamed text delta: wait `chunkDelayMs` (a slow stream), and tell whether the
   * client has gone (it aborted): then `record.disconnected` is true and nothing more is sent.
   */
  async function clientGone(step, record, res) {
    if (step.chunkDelayMs > 0) await sleep(step.chunkDelayMs);
    if (res.destroyed || res.socket?.destroyed) record.disconnected = true;
    return record.disconnected === true;
  }

  function watchDisconnect(record, res) {
    record.chunksSent = 0;
    record.disconnected = false;
    res.on("close", () => {
      if (!res.writableFinished) record.disconnected = true;
    });
  }

  async function anthropicStream(step, record, res, failMidway) {
    const { text, cut } = failMidway
      ? { text: step.text ?? '{"city": "Pa', cut: false }
      : replyContent(step);
    const model = step.model ?? record.body.model ?? "mock-model";
    const input = step.usage?.input ?? tokens(record.systemText + record.userText);
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...headersFor("anthropic", step),
    });
    sse(res, "message_start", {
      type: "message_start",
      message: {
        id: rid("msg_mock_"), type: "message", role: "assistant", model, content: [],
        stop_reason: null, stop_sequence: null, usage: { input_tokens: input, output_tokens: 1 },
      },
    });
    watchDisconnect(record, res);
    sse(res, "content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    sse(res, "ping", { type: "ping" });
    const parts = chunks(text);
    if (failMidway) {
      sse(res, "content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: parts[0] } });
      sse(res, "error", anthropicErrorBody(step.type ?? "overloaded_error", step.message ?? "Overloaded"));
      res.end();
      return;
    }
    for (const part of parts) {
      if (await clientGone(step, record, res)) return;
      sse(res, "content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: part } });
      record.chunksSent++;
    }
    if (step.kind === "stream-cut") {
      res.end(); // cleanly, without content_block_stop, message_delta or message_stop
      return;
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index: 0 });
    sse(res, "message_delta", {
      type: "message_delta",
      delta: { stop_reason: anthropicStop(step, cut), stop_sequence: null },
      usage: { output_tokens: step.usage?.output ?? tokens(text) },
    });
    sse(res, "message_stop", { type: "message_stop" });
    res.end();
  }

  async function openaiStream(step, record, res, failMidway) {
    const { text, cut } = failMidway
      ? { text: step.text ?? '{"city": "Pa', cut: false }
      : replyContent(step);
    const model = step.model ?? record.body.model ?? "mock-model";
    const id = rid("chatcmpl-mock");
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta, finish_reason = null, extra = {}) => ({
      id, object: "chat.completion.chunk", created, model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...extra,
    });
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...headersFor("openai", step),
    });
    watchDisconnect(record, res);
    sse(res, null, chunk({ role: "assistant", content: "", refusal: null }));
    const parts = chunks(text);
    if (failMidway) {
      sse(res, null, chunk({ content: parts[0] }));
      sse(res, null, openaiErrorBody(step.message ?? "The server is overloaded, please try again later.", step.type ?? "server_error", step.code ?? null));
      res.end();
      return;
    }
    for (const part of parts) {
      if (await clientGone(step, record, res)) return;
      sse(res, null, chunk(step.kind === "refusal" ? { refusal: part } : { content: part }));
      record.chunksSent++;
    }
    if (step.kind === "stream-cut") {
      res.end(); // cleanly, without the finish_reason chunk or [DONE]
      return;
    }
    sse(res, null, chunk({}, openaiStop(step, cut)));
    if (record.body.stream_options?.include_usage) {
      const input = step.usage?.input ?? tokens(record.systemText + record.userText);
      const output = step.usage?.output ?? tokens(text);
      sse(res, null, { id, object: "chat.completion.chunk", created, model, choices: [],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } });
    }
    sse(res, null, "[DONE]");
    res.end();
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  armIdle();
  const actualPort = server.address().port;
  const url = `http://${HOST}:${actualPort}`;
  return {
    url,
    port: actualPort,
    /** baseURL for `new Anthropic({ baseURL })` (the SDK adds /v1/messages). */
    anthropicBaseURL: url,
    /** baseURL for `new OpenAI({ baseURL })` (the SDK adds /chat/completions). */
    openaiBaseURL: `${url}/v1`,
    requests,
    /** Replace the script (an array, or { anthropic, openai }). */
    setScript(next) {
      queues = checkScript(next);
    },
    /** Steps not consumed yet: { shared } or { anthropic, openai } (copies). */
    remaining() {
      return Object.fromEntries(Object.entries(queues).map(([k, v]) => [k, [...v]]));
    },
    /** Resolves with the reason once the server has stopped (close(), idle, request limit). */
    closed,
    get isClosed() {
      return closing !== null;
    },
    close() {
      return shutdown("closed");
    },
  };
}

// ---------- CLI ----------

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case "--port": out.port = Number(value()); break;
      case "--script": out.script = JSON.parse(value()); break;
      case "--script-file": out.script = JSON.parse(readFileSync(value(), "utf8")); break;
      case "--when-empty": {
        const v = value();
        out.whenEmpty = v.startsWith("{") ? JSON.parse(v) : v;
        break;
      }
      case "--max-requests": out.maxRequests = Number(value()); break;
      case "--idle-timeout": out.idleTimeoutMs = Number(value()); break;
      case "-h":
      case "--help":
        out.help = true;
        break;
      default:
        throw new Error(`unknown argument ${a}`);
    }
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`mock-llm: ${e.message}`);
    process.exit(2);
  }
  if (args.help) {
    console.log(`usage: node tests/mock-llm/server.mjs [--port N] [--script JSON | --script-file FILE]
       [--when-empty KIND|JSON] [--max-requests N] [--idle-timeout MS]
kinds: ${STEP_KINDS.join(", ")}
default: --port 8787, --when-empty valid, --max-requests 1000, --idle-timeout 300000`);
    process.exit(0);
  }
  const mock = await startMockLlm({
    port: args.port ?? 8787,
    script: args.script ?? [],
    whenEmpty: args.whenEmpty ?? "valid",
    maxRequests: args.maxRequests ?? 1000,
    idleTimeoutMs: args.idleTimeoutMs ?? 300_000,
    onRequest: (r) => console.log(`#${r.n} ${r.method} ${r.path}${r.stream ? " (stream)" : ""} -> ${r.kind ?? "?"}`),
  });
  console.log(`mock-llm listening on ${mock.url}
  Anthropic: new Anthropic({ baseURL: "${mock.anthropicBaseURL}", apiKey: "test", maxRetries: 0 })
  OpenAI:    new OpenAI({ baseURL: "${mock.openaiBaseURL}", apiKey: "test", maxRetries: 0 })`);
  process.on("SIGINT", () => mock.close());
  process.on("SIGTERM", () => mock.close());
  const reason = await mock.closed;
  console.log(`mock-llm stopped: ${reason}`);
}

// The mock LLM server itself (tests/mock-llm/server.mjs), with plain fetch:
// each fault's status, headers and body shape per API, the stream events, the
// request log, the script forms, and that it stays bounded and stops by itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

import { startMockLlm, withTrailingCommas, DEFAULT_VALUE, DEFAULT_MISMATCH, STEP_KINDS } from "../mock-llm/server.mjs";

const SERVER = fileURLToPath(new URL("../mock-llm/server.mjs", import.meta.url));

const ANTHROPIC_BODY = {
  model: "claude-mock-1",
  max_tokens: 64,
  system: "Reply with JSON only.",
  messages: [{ role: "user", content: [{ type: "text", text: "Capital of France?" }] }],
};
const OPENAI_BODY = {
  model: "gpt-mock-1",
  messages: [
    { role: "system", content: "Reply with JSON only." },
    { role: "user", content: "Capital of France?" },
  ],
};

async function withMock(options, fn) {
  const mock = await startMockLlm({ idleTimeoutMs: 5000, ...options });
  try {
    return await fn(mock);
  } finally {
    await mock.close();
  }
}

function post(mock, api, extra = {}, init = {}) {
  const [path, body] = api === "anthropic" ? ["/v1/messages", ANTHROPIC_BODY] : ["/v1/chat/completions", OPENAI_BODY];
  return fetch(mock.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(init.headers ?? {}) },
    body: JSON.stringify({ ...body, ...extra }),
    ...init,
  });
}

/** Parse an SSE body into [{ event, data }] (data parsed as JSON when it is). */
function parseSse(text) {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      let event = null;
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      const raw = data.join("\n");
      let parsed = raw;
      try {
        parsed = JSON.parse(raw);
      } catch {}
      return { event, data: parsed };
    });
}

const keys = (o) => Object.keys(o).sort();

// ---------- replies ----------

test("anthropic: a valid reply has the Messages API shape", async () => {
  await withMock({ script: ["valid"] }, async (mock) => {
    const res = await post(mock, "anthropic");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type"), /^application\/json/);
    assert.match(res.headers.get("request-id"), /^req_mock_/);
    const msg = await res.json();
    assert.deepEqual(keys(msg), ["content", "id", "model", "role", "stop_reason", "stop_sequence", "type", "usage"]);
    assert.match(msg.id, /^msg_/);
    assert.equal(msg.type, "message");
    assert.equal(msg.role, "assistant");
    assert.equal(msg.model, "claude-mock-1");
    assert.deepEqual(msg.content, [{ type: "text", text: JSON.stringify(DEFAULT_VALUE) }]);
    assert.equal(msg.stop_reason, "end_turn");
    assert.equal(msg.stop_sequence, null);
    assert.deepEqual(keys(msg.usage), ["input_tokens", "output_tokens"]);
    assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0);
  });
});

test("openai: a valid reply has the Chat Completions shape", async () => {
  await withMock({ script: ["valid"] }, async (mock) => {
    const res = await post(mock, "openai");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("x-request-id"), /^req_mock_/);
    const c = await res.json();
    assert.deepEqual(keys(c), ["choices", "created", "id", "model", "object", "usage"]);
    assert.match(c.id, /^chatcmpl-/);
    assert.equal(c.object, "chat.completion");
    assert.ok(Number.isInteger(c.created));
    assert.equal(c.model, "gpt-mock-1");
    assert.equal(c.choices.length, 1);
    assert.equal(c.choices[0].index, 0);
    assert.equal(c.choices[0].finish_reason, "stop");
    assert.equal(c.choices[0].message.role, "assistant");
    assert.equal(c.choices[0].message.content, JSON.stringify(DEFAULT_VALUE));
    const u = c.usage;
    assert.deepEqual(keys(u), ["completion_tokens", "prompt_tokens", "total_tokens"]);
    assert.equal(u.total_tokens, u.prompt_tokens + u.completion_tokens);
  });
});

test("content faults: fenced JSON, trailing commas, schema mismatch, truncated, text", async () => {
  const script = [
    "fenced-json", "trailing-commas", "schema-mismatch", "truncated",
    { kind: "text", text: "no JSON here", stopReason: "stop_sequence" },
    { kind: "valid", value: { city: "Lyon" } },
  ];
  for (const api of ["anthropic", "openai"]) {
    await withMock({ script }, async (mock) => {
      const got = [];
      for (let i = 0; i < script.length; i++) {
        const body = await (await post(mock, api)).json();
        got.push(api === "anthropic"
          ? [body.content[0].text, body.stop_reason]
          : [body.choices[0].message.content, body.choices[0].finish_reason]);
      }
      const [fenced, commas, mismatch, cut, text, lyon] = got;
      const stop = api === "anthropic" ? "end_turn" : "stop";
      assert.deepEqual(fenced, ["```json\n" + JSON.stringify(DEFAULT_VALUE, null, 2) + "\n```", stop]);
      assert.throws(() => JSON.parse(commas[0]));
      assert.equal(commas[0], '{\n  "city": "Paris",\n  "population": 2102650,\n}');
      assert.deepEqual(JSON.parse(mismatch[0]), DEFAULT_MISMATCH);
      assert.equal(cut[1], api === "anthropic" ? "max_tokens" : "length");
      assert.ok(JSON.stringify(DEFAULT_VALUE).startsWith(cut[0]) && cut[0].length < JSON.stringify(DEFAULT_VALUE).length);
      assert.deepEqual(text, ["no JSON here", "stop_sequence"]);
      assert.deepEqual(JSON.parse(lyon[0]), { city: "Lyon" });
      assert.deepEqual(mock.requests.map((r) => r.kind), script.map((s) => (typeof s === "string" ? s : s.kind)));
    });
  }
});

test("withTrailingCommas: a comma before every closing bracket of a non-empty container", () => {
  assert.equal(withTrailingCommas({ a: [1, 2], b: {}, c: [] }), '{\n  "a": [\n    1,\n    2,\n  ],\n  "b": {},\n  "c": [],\n}');
});

// ---------- error faults ----------

test("anthropic error faults: status, headers and {type:'error', error:{type, message}}", async () => {
  const script = [{ kind: "rate-limited", retryAfterMs: 20 }, "rate-limited", "overloaded", "server-error", "unauthorized",
    { kind: "error", status: 413 }, { kind: "error", status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" }];
  await withMock({ script }, async (mock) => {
    const rows = [];
    for (let i = 0; i < script.length; i++) {
      const res = await post(mock, "anthropic");
      const body = await res.json();
      assert.deepEqual(keys(body), ["error", "type"]);
      assert.equal(body.type, "error");
      assert.deepEqual(keys(body.error), ["message", "type"]);
      assert.match(res.headers.get("content-type"), /^application\/json/);
      assert.match(res.headers.get("request-id"), /^req_mock_/);
      rows.push([res.status, body.error.type, res.headers.get("retry-after"), res.headers.get("retry-after-ms"), res.headers.get("x-should-retry")]);
      if (i === 2) assert.equal(body.error.message, "Overloaded");
      if (i === 6) assert.equal(body.error.message, "prompt is too long: 210000 tokens > 200000 maximum");
    }
    assert.deepEqual(rows, [
      [429, "rate_limit_error", "1", "20", "true"],
      [429, "rate_limit_error", "1", null, "true"],
      [529, "overloaded_error", null, null, "true"],
      [500, "api_error", null, null, "true"],
      [401, "authentication_error", null, null, null],
      [413, "request_too_large", null, null, null],
      [400, "invalid_request_error", null, null, null],
    ]);
  });
});

test("openai error faults: status, headers and {error:{message, type, param:null, code}}", async () => {
  const script = [{ kind: "rate-limited", retryAfterMs: 20, retryAfter: null }, "overloaded", "server-error", "unauthorized",
    { kind: "error", status: 429, type: "insufficient_quota", code: "insufficient_quota", message: "You exceeded your current quota" }];
  await withMock({ script }, async (mock) => {
    const rows = [];
    for (let i = 0; i < script.length; i++) {
      const res = await post(mock, "openai");
      const body = await res.json();
      assert.deepEqual(keys(body), ["error"]);
      assert.deepEqual(keys(body.error), ["code", "message", "param", "type"]);
      assert.equal(body.error.param, null);
      assert.equal(typeof body.error.message, "string");
      assert.match(res.headers.get("x-request-id"), /^req_mock_/);
      assert.equal(res.headers.get("x-should-retry"), null);
      rows.push([res.status, body.error.type, body.error.code, res.headers.get("retry-after"), res.headers.get("retry-after-ms")]);
    }
    assert.deepEqual(rows, [
      [429, "requests", "rate_limit_exceeded", null, "20"],
      [503, "server_error", null, null, null],
      [500, "server_error", null, null, null],
      [401, "invalid_request_error", "invalid_api_key", null, null],
      [429, "insufficient_quota", "insufficient_quota", null, null],
    ]);
  });
});

test("step headers add, override and remove response headers", async () => {
  await withMock({ script: [{ kind: "overloaded", headers: { "x-should-retry": null, "X-Extra": "1" } }, { kind: "valid", headers: { "retry-after": "3" } }] }, async (mock) => {
    const a = await post(mock, "anthropic");
    assert.equal(a.status, 529);
    assert.equal(a.headers.get("x-should-retry"), null);
    assert.equal(a.headers.get("x-extra"), "1");
    const b = await post(mock, "anthropic");
    assert.equal(b.headers.get("retry-after"), "3");
  });
});

test("drop: the socket is destroyed without a response (fetch fails)", async () => {
  await withMock({ script: ["drop", "valid"] }, async (mock) => {
    const err = await post(mock, "openai").then(() => null, (e) => e);
    assert.ok(err instanceof TypeError, String(err));
    assert.equal(err.message, "fetch failed");
    assert.equal(err.cause?.code, "UND_ERR_SOCKET");
    assert.equal(mock.requests[0].kind, "drop");
    assert.equal((await post(mock, "openai")).status, 200, "the server keeps serving");
  });
});

test("hang and delayMs: the answer waits; the client's own timeout fires", async () => {
  await withMock({ script: [{ kind: "valid", delayMs: 40 }, "hang"] }, async (mock) => {
    const t0 = performance.now();
    assert.equal((await post(mock, "anthropic")).status, 200);
    assert.ok(performance.now() - t0 >= 35);
    const err = await post(mock, "anthropic", {}, { signal: AbortSignal.timeout(50) }).then(() => null, (e) => e);
    assert.equal(err?.name, "TimeoutError");
  });
});

// ---------- streams ----------

test("anthropic stream: message_start .. message_stop, deltas add up to the text", async () => {
  await withMock({ script: ["valid", "truncated"] }, async (mock) => {
    const res = await post(mock, "anthropic", { stream: true });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type"), /^text\/event-stream/);
    const events = parseSse(await res.text());
    const names = events.map((e) => e.event);
    assert.equal(names[0], "message_start");
    assert.equal(names[1], "content_block_start");
    assert.deepEqual(names.slice(-3), ["content_block_stop", "message_delta", "message_stop"]);
    for (const e of events) assert.equal(e.data.type, e.event, "data.type matches the event name");
    const start = events[0].data.message;
    assert.deepEqual([start.type, start.role, start.content, start.stop_reason], ["message", "assistant", [], null]);
    const text = events.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta.text).join("");
    assert.equal(text, JSON.stringify(DEFAULT_VALUE));
    assert.ok(events.filter((e) => e.event === "content_block_delta").length > 1, "the text comes in several deltas");
    assert.equal(events.at(-2).data.delta.stop_reason, "end_turn");
    assert.ok(events.at(-2).data.usage.output_tokens > 0);

    const cut = parseSse(await (await post(mock, "anthropic", { stream: true })).text());
    assert.equal(cut.find((e) => e.event === "message_delta").data.delta.stop_reason, "max_tokens");
    assert.equal(mock.requests[0].stream, true);
  });
});

test("anthropic stream-overloaded: a 200 stream that ends with event: error overloaded_error", async () => {
  await withMock({ script: ["stream-overloaded", "stream-overloaded"] }, async (mock) => {
    const res = await post(mock, "anthropic", { stream: true });
    assert.equal(res.status, 200);
    const events = parseSse(await res.text());
    assert.deepEqual(events.map((e) => e.event), ["message_start", "content_block_start", "ping", "content_block_delta", "error"]);
    assert.deepEqual(events.at(-1).data, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    // A non-streaming request gets the plain overloaded error instead.
    const plain = await post(mock, "anthropic");
    assert.equal(plain.status, 529);
    assert.equal((await plain.json()).error.type, "overloaded_error");
  });
});

test("openai stream: chunks, finish_reason, usage when asked, [DONE]; stream-overloaded sends an error chunk", async () => {
  await withMock({ script: ["valid", "stream-overloaded"] }, async (mock) => {
    const res = await post(mock, "openai", { stream: true, stream_options: { include_usage: true } });
    assert.equal(res.status, 200);
    const events = parseSse(await res.text());
    assert.equal(events.at(-1).data, "[DONE]");
    const chunks = events.slice(0, -1).map((e) => e.data);
    for (const c of chunks) assert.equal(c.object, "chat.completion.chunk");
    assert.equal(chunks[0].choices[0].delta.role, "assistant");
    const text = chunks.flatMap((c) => c.choices).map((ch) => ch.delta.content ?? "").join("");
    assert.equal(text, JSON.stringify(DEFAULT_VALUE));
    assert.equal(chunks.flatMap((c) => c.choices).find((ch) => ch.finish_reason)?.finish_reason, "stop");
    assert.ok(chunks.at(-1).usage.total_tokens > 0);

    const bad = parseSse(await (await post(mock, "openai", { stream: true })).text());
    assert.deepEqual(keys(bad.at(-1).data), ["error"]);
    assert.equal(bad.at(-1).data.error.type, "server_error");
    assert.ok(!bad.some((e) => e.data === "[DONE]"));
  });
});

// ---------- the request log and the script ----------

test("the request log records method, path, headers, body and the prompt text", async () => {
  await withMock({ script: ["valid", "valid"] }, async (mock) => {
    await post(mock, "anthropic", {}, { headers: { "x-api-key": "test", "anthropic-version": "2023-06-01" } });
    await post(mock, "openai", {}, { headers: { authorization: "Bearer test" } });
    const [a, o] = mock.requests;
    assert.deepEqual([a.n, a.method, a.path, a.api, a.kind, a.stream], [1, "POST", "/v1/messages", "anthropic", "valid", false]);
    assert.equal(a.headers["x-api-key"], "test");
    assert.equal(a.headers["anthropic-version"], "2023-06-01");
    assert.deepEqual(a.body, ANTHROPIC_BODY);
    assert.equal(a.userText, "Capital of France?");
    assert.equal(a.systemText, "Reply with JSON only.");
    assert.deepEqual([o.n, o.path, o.api], [2, "/v1/chat/completions", "openai"]);
    assert.equal(o.headers.authorization, "Bearer test");
    assert.equal(o.userText, "Capital of France?");
    assert.equal(o.systemText, "Reply with JSON only.");
    assert.ok(typeof a.at === "number" && o.at >= a.at);
  });
});

test("scripts: shared array, per-API queues, function steps, setScript, remaining, exhaustion", async () => {
  await withMock({ script: { anthropic: ["overloaded", "valid"], openai: ["server-error"] } }, async (mock) => {
    assert.equal((await post(mock, "openai")).status, 500);
    assert.equal((await post(mock, "anthropic")).status, 529);
    assert.deepEqual(mock.remaining(), { anthropic: ["valid"], openai: [] });
    // The openai queue is empty: a 400 that says so (a RepairLoop stops on it).
    const dry = await post(mock, "openai");
    assert.equal(dry.status, 400);
    assert.match((await dry.json()).error.message, /no step left/);
    assert.equal(mock.requests.at(-1).kind, "exhausted");
    assert.equal((await post(mock, "anthropic")).status, 200);

    mock.setScript([(req) => ({ kind: "text", text: `echo: ${req.userText}` }), "valid"]);
    const echo = await (await post(mock, "openai")).json();
    assert.equal(echo.choices[0].message.content, "echo: Capital of France?");
    assert.equal((await post(mock, "anthropic")).status, 200, "one shared queue for both APIs");
    assert.deepEqual(mock.remaining(), { shared: [] });
  });
  await withMock({ script: [], whenEmpty: "fenced-json" }, async (mock) => {
    const body = await (await post(mock, "anthropic")).json();
    assert.ok(body.content[0].text.startsWith("```json"));
  });
});

test("bad scripts throw at once, naming the problem", async () => {
  await assert.rejects(startMockLlm({ script: ["nope"] }), /unknown step "nope"/);
  await assert.rejects(startMockLlm({ script: [{ kind: "valid" }, 42] }), /unknown step 42/);
  await assert.rejects(startMockLlm({ script: { gemini: [] } }), /unknown script key "gemini"/);
  await assert.rejects(startMockLlm({ script: "valid" }), TypeError);
  await assert.rejects(startMockLlm({ whenEmpty: "sometimes" }), /unknown step/);
  assert.ok(STEP_KINDS.includes("stream-overloaded"));
});

test("unknown routes and methods get a 404 in the provider's shape and consume no step", async () => {
  await withMock({ script: ["valid"] }, async (mock) => {
    const a = await fetch(mock.url + "/v1/complete", { method: "POST", body: "{}" });
    assert.equal(a.status, 404);
    assert.equal((await a.json()).error.type, "not_found_error");
    const o = await fetch(mock.url + "/v1/chat/completion", { method: "POST", body: "{}" });
    assert.equal(o.status, 404);
    assert.deepEqual(keys((await o.json()).error), ["code", "message", "param", "type"]);
    const g = await fetch(mock.url + "/v1/messages");
    assert.equal(g.status, 404);
    await g.arrayBuffer();
    const bad = await fetch(mock.url + "/v1/messages", { method: "POST", body: "{not json" });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.type, "invalid_request_error");
    assert.deepEqual(mock.requests.map((r) => r.kind), ["not-found", "not-found", "not-found", "bad-body"]);
    assert.deepEqual(mock.remaining(), { shared: ["valid"] });
  });
});

test("openai strict structured outputs: a schema OpenAI would refuse gets its 400 and consumes no step", async () => {
  const format = (schema, strict = true) => ({ type: "json_schema", json_schema: { name: "response", strict, schema } });
  const closed = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
  const open = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
  const partial = { ...closed, properties: { a: { type: "string" }, b: { type: "number" } } };
  const nested = { ...closed, properties: { a: { type: "array", items: open } } };
  await withMock({ script: ["valid", "valid", "valid"] }, async (mock) => {
    const post = async (response_format) => {
      const r = await fetch(mock.openaiBaseURL + "/chat/completions", { method: "POST", body: JSON.stringify({ ...OPENAI_BODY, response_format }) });
      return { status: r.status, body: await r.json() };
    };
    const refused = await post(format(open));
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body.error, {
      message: "Invalid schema for response_format 'response': In context=(), 'additionalProperties' is required to be supplied and to be false.",
      type: "invalid_request_error", param: "response_format", code: null,
    });
    assert.match((await post(format(partial))).body.error.message, /In context=\(\), 'required' is required .* Missing 'b'\./);
    assert.match((await post(format(nested))).body.error.message, /In context=\('properties', 'a', 'items'\), 'additionalProperties'/);
    assert.equal((await post(format(closed))).status, 200);
    assert.equal((await post(format(open, false))).status, 200, "not strict: not checked");
    assert.equal((await post({ type: "json_object" })).status, 200);
    assert.deepEqual(mock.requests.map((r) => r.kind), ["invalid-schema", "invalid-schema", "invalid-schema", "valid", "valid", "valid"]);
  });
});

// ---------- bounds ----------

test("it listens on 127.0.0.1 only", async () => {
  await withMock({}, async (mock) => {
    assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(mock.anthropicBaseURL, mock.url);
    assert.equal(mock.openaiBaseURL, `${mock.url}/v1`);
    assert.ok(mock.port > 0);
  });
});

test("maxRequests: the server closes itself after the last allowed response", async () => {
  const mock = await startMockLlm({ script: ["valid", "valid", "valid"], maxRequests: 2, idleTimeoutMs: 5000 });
  assert.equal((await post(mock, "anthropic")).status, 200);
  const last = await post(mock, "anthropic");
  assert.equal(last.status, 200);
  assert.equal((await last.json()).type, "message", "the last response arrives whole");
  assert.equal(await mock.closed, "served 2 requests");
  assert.equal(mock.isClosed, true);
  const err = await post(mock, "anthropic").then(() => null, (e) => e);
  assert.ok(err instanceof TypeError, "no more answers");
  // Nothing listens any more: a fresh TCP connection is refused.
  const refused = await new Promise((resolve) => {
    const socket = connect(mock.port, "127.0.0.1");
    socket.on("connect", () => { socket.destroy(); resolve(null); });
    socket.on("error", (e) => resolve(e.code));
  });
  assert.equal(refused, "ECONNREFUSED");
});

test("idleTimeoutMs: the server closes itself when nobody calls", async () => {
  const mock = await startMockLlm({ idleTimeoutMs: 60 });
  const t0 = performance.now();
  assert.equal(await mock.closed, "idle for 60 ms");
  assert.ok(performance.now() - t0 < 1000);
});

test("close() ends open (hanging) requests at once and is idempotent", async () => {
  const mock = await startMockLlm({ script: ["hang"], idleTimeoutMs: 5000 });
  const pending = post(mock, "anthropic").then(() => null, (e) => e);
  while (mock.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  const t0 = performance.now();
  await Promise.all([mock.close(), mock.close()]);
  const err = await pending;
  assert.ok(err instanceof TypeError, "the hanging request fails instead of waiting");
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(await mock.closed, "closed");
});

test("CLI: prints its URL, serves, and stops by itself after --max-requests", async () => {
  const child = spawn(process.execPath, [SERVER, "--port", "0", "--script", '["overloaded"]', "--max-requests", "2", "--idle-timeout", "5000"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const killer = setTimeout(() => child.kill(), 8000);
  try {
    while (!/listening on (http:\/\/127\.0\.0\.1:\d+)/.test(out)) {
      if (child.exitCode !== null) throw new Error(`CLI exited early: ${out}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)[1];
    const first = await fetch(url + "/v1/messages", { method: "POST", body: JSON.stringify(ANTHROPIC_BODY) });
    assert.equal(first.status, 529);
    await first.arrayBuffer();
    const second = await fetch(url + "/v1/messages", { method: "POST", body: JSON.stringify(ANTHROPIC_BODY) });
    assert.equal(second.status, 200, "--when-empty defaults to valid in the CLI");
    await second.arrayBuffer();
    assert.equal(await exited, 0);
    assert.match(out, /#1 POST \/v1\/messages -> overloaded/);
    assert.match(out, /mock-llm stopped: served 2 requests/);
  } finally {
    clearTimeout(killer);
    if (child.exitCode === null) child.kill();
  }
});

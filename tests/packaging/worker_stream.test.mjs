// examples/worker-stream in workerd: a Worker that streams a healed structured reply to the client
// as NDJSON, fed by a streamed model call. The upstream is a mock Messages API in this file that
// streams server-sent events a few characters at a time and records how much it wrote before the
// Worker closed the connection. The client is examples/worker-stream/test/tester.js, reading the
// NDJSON as it arrives. Run with `make test-examples`.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { ROOT, WORKER_BUNDLE, bundle, installPackedPackage, scratch, taggedJson, workerdTest } from "./harness.mjs";

const EIFFEL = { name: "Eiffel Tower", city: "Paris", country: "FR", heightM: 330 };
// The third field breaks the schema ("France" never matches ^[A-Z]{2}$ once it closed); the
// summary after it is what the cut saves.
const EIFFEL_BAD =
  '{"name": "Eiffel Tower", "city": "Paris", "country": "France", "heightM": 330, ' +
  '"summary": "A wrought-iron lattice tower on the Champ de Mars, built for the 1889 World\'s Fair and the tallest structure in the world until 1930."}';
const COLOSSEUM = { name: "Colosseum", city: "Rome", country: "IT", heightM: 48 };

let nodeModules;
before(async () => {
  const { project } = await installPackedPackage();
  nodeModules = join(project, "node_modules");
});

/**
 * A streaming Messages API on 127.0.0.1. Each POST takes the next step of `script`:
 * { text, chunkChars = 8, delayMs = 15, final = true } streamed as Anthropic's events (without
 * message_delta/message_stop when `final` is false: a stream cut short), or { status, type }
 * answered as an error. `requests` records each call: its body, the characters written, whether
 * the client closed the connection before the end, and when each chunk was written.
 */
async function startStreamingModel(script) {
  const requests = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const part of req) raw += part;
    const body = JSON.parse(raw);
    const step = script.shift() ?? { status: 500, type: "api_error" };
    const record = { body, user: body.messages?.[0]?.content ?? "", stream: body.stream === true, written: 0, total: step.text?.length ?? 0, closedEarly: false, writes: [] };
    requests.push(record);
    if (step.status) {
      res.writeHead(step.status, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ type: "error", error: { type: step.type, message: step.type } }));
    }
    let ended = false;
    res.on("close", () => { if (!ended) record.closedEarly = true; });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("message_start", { message: { id: "msg_1", type: "message", role: "assistant", content: [], model: body.model, stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } });
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    const size = step.chunkChars ?? 8;
    for (let i = 0; i < step.text.length; i += size) {
      await new Promise((r) => setTimeout(r, step.delayMs ?? 15));
      if (record.closedEarly) return;
      const text = step.text.slice(i, i + size);
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
      record.written += text.length;
      record.writes.push(Date.now());
    }
    if (step.final === false) {
      ended = true;
      return void res.end(); // the stream ends without message_delta and message_stop
    }
    event("content_block_stop", { index: 0 });
    event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 40 } });
    event("message_stop", {});
    ended = true;
    res.end();
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(ok); }),
  };
}

async function buildWorkerStream() {
  const example = join(ROOT, "examples", "worker-stream");
  const dir = scratch("worker-stream");
  mkdirSync(join(dir, "dist"));
  await bundle({
    absWorkingDir: example, entryPoints: [join(example, "src", "index.js")], outdir: join(dir, "dist"),
    nodePaths: [nodeModules, join(ROOT, "node_modules")], ...WORKER_BUNDLE,
  });
  for (const file of ["config.capnp", "tester.js"]) copyFileSync(join(example, "test", file), join(dir, file));
  return join(dir, "config.capnp");
}

test("Worker stream: partial values as NDJSON; a violation cuts the model stream, one fix prompt heals it; a stream without its final event is asked again", async (t) => {
  const config = await buildWorkerStream();
  const model = await startStreamingModel([
    { text: EIFFEL_BAD },
    { text: JSON.stringify(EIFFEL) },
    { text: JSON.stringify(COLOSSEUM).slice(0, 30), final: false },
    { text: "```json\n" + JSON.stringify(COLOSSEUM) + "\n```" },
  ]);
  try {
    const { code, output } = await workerdTest(config, { env: { LLM_URL: model.url } });
    assert.equal(code, 0, output);
    const results = taggedJson(output, "RESULT");
    for (const r of results) {
      assert.equal(r.status, 200);
      assert.equal(r.contentType, "application/x-ndjson; charset=utf-8");
      r.arrived = r.events.map(({ at }) => at); // when the client read each line
      r.events = r.events.map(({ at, ...event }) => event);
    }
    const [eiffel, colosseum] = results;

    // 1. The third field breaks the schema: cut at the violation, one fix prompt, healed.
    const types = eiffel.events.map((e) => e.type);
    assert.deepEqual(types.filter((t) => t !== "partial"), ["call", "violation", "repair", "call", "done"]);
    const violation = eiffel.events.find((e) => e.type === "violation");
    assert.equal(violation.issue.path, "/country");
    assert.equal(violation.issue.kind, "schema");
    assert.match(violation.issue.message, /\^\[A-Z\]\{2\}\$/);
    const partials1 = eiffel.events.filter((e) => e.type === "partial" && e.call === 1).map((e) => e.value);
    assert.deepEqual(partials1.slice(0, 2), [{ name: "Eiffel Tower" }, { name: "Eiffel Tower", city: "Paris" }], "the value grows as members close");
    assert.deepEqual(partials1.at(-1), { name: "Eiffel Tower", city: "Paris", country: "France" }, "the last partial holds the bad member");
    assert.deepEqual(eiffel.events.find((e) => e.type === "repair"), { type: "repair", call: 2, strategy: "fix", cause: "schema", signal: "stream" });
    assert.deepEqual(eiffel.events.at(-1), { type: "done", value: EIFFEL, calls: 2, source: "repaired", fixes: [] });

    // The Worker closed the model's connection at the violation: the rest was never written.
    const [bad, fix, cut, again] = model.requests;
    assert.ok(bad.stream && fix.stream, "the calls stream");
    assert.ok(bad.closedEarly, "the Worker aborted the first call");
    const closesAt = EIFFEL_BAD.indexOf('"France"') + '"France"'.length;
    assert.equal(violation.receivedChars, Math.ceil(closesAt / 8) * 8, "read up to the chunk that closed the bad value");
    assert.ok(bad.written < EIFFEL_BAD.length - 40, `the model wrote ${bad.written} of ${EIFFEL_BAD.length} characters`);
    t.diagnostic(`the model wrote ${bad.written} of ${EIFFEL_BAD.length} characters before the Worker cut the stream`);
    assert.match(fix.user, /<broken_output>\n\{"name": "Eiffel Tower", "city": "Paris", "country": "France"/, "the fix prompt quotes what arrived");
    assert.match(fix.user, /- \/country: "France" does not match/);
    // The client got partial lines while the model was still writing (streamed, not buffered).
    const firstPartial = eiffel.arrived[eiffel.events.findIndex((e) => e.type === "partial")];
    assert.ok(firstPartial < bad.writes.at(-1), `the first partial reached the client (${firstPartial}) before the model's last write (${bad.writes.at(-1)})`);

    // 2. The stream ends without its final event: never completed locally, a reask follows.
    const ctypes = colosseum.events.map((e) => e.type).filter((t) => t !== "partial");
    assert.deepEqual(ctypes, ["call", "repair", "call", "done"]);
    assert.deepEqual(colosseum.events.find((e) => e.type === "repair"), { type: "repair", call: 2, strategy: "reask", cause: "truncated", signal: "stop-reason" });
    assert.deepEqual(colosseum.events.at(-1), { type: "done", value: COLOSSEUM, calls: 2, source: "repaired", fixes: ["code-fence"] });
    assert.equal(cut.closedEarly, false);
    assert.equal(model.requests.length, 4);
    assert.match(again.user, /cut off/i, "the reask says the reply was cut off");
  } finally {
    await model.close();
  }
});

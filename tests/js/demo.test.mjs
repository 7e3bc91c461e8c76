// examples/demo.mjs (`make demo`): the five scenarios end as they say, and the streamed one is cut
// at the violation, healed by one fix prompt, with the characters it saved counted by the model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { runDemo } from "../../examples/demo.mjs";
import { STREAM_BAD_TEXT, STREAM_CHUNK_CHARS, GOOD_TEXT } from "../../www/lib/scenario.js";

const DEMO = fileURLToPath(new URL("../../examples/demo.mjs", import.meta.url));

test("runDemo: every scenario ends with its instruction; the streamed one is cut and healed", async () => {
  const lines = [];
  const steps = await runDemo({ log: (l) => lines.push(l), speed: 1e6 });
  assert.deepEqual(steps.map((s) => [s.type, s.source ?? s.reason]), [
    ["done", "locally-repaired"], ["done", "repaired"], ["done", "repaired"], ["degrade", "hard-fail"], ["done", "repaired"],
  ]);
  const streamed = steps[4];
  assert.equal(streamed.attempts, 2, "one fix prompt, no more");
  assert.equal(streamed.text, GOOD_TEXT);

  const log = lines.join("\n");
  const part = log.slice(log.indexOf("\n5. Streamed"));
  // The violation is definitive when the string "55.00 EUR" closes: the chunk holding its
  // closing quote is the last one read.
  const closesAt = STREAM_BAD_TEXT.indexOf('"55.00 EUR"') + '"55.00 EUR"'.length;
  const sent = Math.ceil(closesAt / STREAM_CHUNK_CHARS) * STREAM_CHUNK_CHARS;
  const total = STREAM_BAD_TEXT.length;
  assert.match(part, /! \/total: "55\.00 EUR" is not of type "number" {2}\(violation: cut the stream\)/);
  assert.ok(part.includes(`stream cut by the host (stopReason "aborted") after ${sent} of ${total} characters`), part);
  assert.match(part, /send a fix prompt as call 2 \[repairable\/schema, by stream\]/);
  assert.ok(part.includes(`stream ended (end_turn) after ${GOOD_TEXT.length} of ${GOOD_TEXT.length} characters`), part);
  assert.ok(part.includes(`saved: ${total - sent} of the ${total} characters of the broken reply were never generated nor paid for`), part);
  // The partial value grows: each line shows more of the order than the one before.
  const growth = part.split("\n").filter((l) => /^ {20}\+ /.test(l)).slice(0, 3);
  assert.deepEqual(growth.map((l) => l.trim().split(/\s+/)[1]), ["/orderId", "/items/0", "/items/1"]);
});

test("node examples/demo.mjs runs with no key and no network, and prints the streamed scenario", () => {
  const out = execFileSync(process.execPath, [DEMO], { encoding: "utf8", timeout: 60000, env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } });
  assert.match(out, /^selfheal demo/);
  for (const n of [1, 2, 3, 4, 5]) assert.match(out, new RegExp(`^${n}\\. `, "m"));
  assert.match(out, /saved: \d+ of the \d+ characters of the broken reply were never generated nor paid for/);
});

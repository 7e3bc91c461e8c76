// examples/host-loop.mjs, the bare `next()` loop shown on purpose: it is exercised here so that
// the example a reader copies keeps working (heal is the loop to use; tests/js/heal*.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";

import { RepairLoop } from "../../pkg/selfheal.js";
import { runRepairLoop } from "../../examples/host-loop.mjs";

const prompt = { system: "Reply with JSON only.", user: "Where is the Eiffel Tower?" };
const schema = { type: "object", required: ["city"], properties: { city: { type: "string" } } };

async function* chunks(...parts) {
  yield* parts;
}

test("host-loop: a stream that breaks the schema is cut and fixed; one with no text is the empty reply", async () => {
  let loop = new RepairLoop({ prompt, schema, seed: 1 });
  const replies = [{ chunks: chunks('{"city": ', "75, ", '"more": 1}') }, { text: '{"city": "Paris"}' }];
  const signals = [];
  const done = await runRepairLoop(loop, { prompt, call: async (_, { signal }) => (signals.push(signal), replies.shift()), sleep: async () => {} });
  assert.equal(done.type, "done");
  assert.deepEqual(done.value, { city: "Paris" });
  assert.equal(signals[0].aborted, true, "the first stream was cut at the violation");
  loop.free();
  // Before: a stream with no chunk (a refusal, say) left `text` out with nothing pushed, and
  // next() threw "outcome.text must be a string".
  loop = new RepairLoop({ prompt, schema, seed: 1, budget: { repairable: 0 } });
  const empty = await runRepairLoop(loop, { prompt, call: async () => ({ chunks: chunks(), stopReason: "end_turn" }), sleep: async () => {} });
  assert.equal(empty.type, "degrade");
  assert.match(empty.detail, /empty/);
  loop.free();
});

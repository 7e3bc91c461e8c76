// A Worker that compiles its Schema at module scope (the pattern docs/PERFORMANCE.md recommends)
// starts in workerd and answers. Workers refuse random values at module scope; jsonschema's hash
// maps seed themselves through getrandom on the first compile, which used to trap the Worker
// (src/wasm/random.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTestWorker, scratch, taggedJson } from '../packaging/harness.mjs';

test('workerd: new Schema at module scope, loops inside the handler', async () => {
  const dir = scratch('workerd-module-scope');
  writeFileSync(join(dir, 'worker.mjs'), `
    import { RepairLoop, Schema } from "selfheal";
    const SCHEMA = new Schema({ type: "object", required: ["city"], properties: { city: { type: "string", pattern: "^[A-Z]" } } });
    export default {
      async test() {
        const loop = new RepairLoop({ prompt: { system: "s", user: "u" }, schema: SCHEMA });
        const step = loop.next({ kind: "reply", text: '{"city": "Paris"}' });
        console.log("RESULT " + JSON.stringify({ type: step.type, value: step.value }));
      },
    };
  `);
  const { code, output } = await runTestWorker(dir);
  assert.equal(code, 0, output);
  assert.deepEqual(taggedJson(output, 'RESULT'), { type: 'done', value: { city: 'Paris' } });
});

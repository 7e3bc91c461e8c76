// SPEC section 8 in workerd: the streaming checks of tests/js/stream_cases.mjs (escapes and
// surrogate pairs split across chunks, a chunk boundary inside a number, fences and prose,
// maxChars, violations definitive only, RepairLoop.push) run inside a Worker on the "workerd"
// entry of the package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTestWorker, scratch, taggedJson } from '../packaging/harness.mjs';

const CASES = fileURLToPath(new URL('./stream_cases.mjs', import.meta.url));

test('workerd: the streaming checks pass inside a Worker', async () => {
  const dir = scratch('workerd-stream');
  writeFileSync(join(dir, 'worker.mjs'), `
    import * as selfheal from "selfheal";
    import { streamChecks } from ${JSON.stringify(CASES)};
    export default {
      async test() {
        const results = {};
        for (const [name, check] of Object.entries(streamChecks(selfheal))) {
          try { check(); results[name] = "ok"; } catch (e) { results[name] = String(e && e.stack || e); }
        }
        console.log("RESULT " + JSON.stringify(results));
      },
    };
  `);
  const { code, output } = await runTestWorker(dir);
  assert.equal(code, 0, output);
  const results = taggedJson(output, 'RESULT');
  assert.ok(Object.keys(results).length >= 10, output);
  for (const [name, result] of Object.entries(results)) assert.equal(result, 'ok', `${name}: ${result}`);
});

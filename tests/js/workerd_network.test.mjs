// Issue 10, defect 2, in the real Cloudflare Workers runtime (workerd, from npm): a fetch to an
// unreachable address throws a plain Error "Network connection lost." (not a TypeError), which
// classify() must call transient/network, and a RepairLoop in a Worker must wait and resend it
// until the network answers. The Worker imports pkg/workerd.js (the package's "workerd" entry)
// bundled the way Wrangler bundles it; `workerd test` runs its test() handler.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PKG, WORKER_BUNDLE, bundle, scratch, taggedJson, workerdTest } from '../packaging/harness.mjs';

const WORKER = `
import { classify, RepairLoop } from ${JSON.stringify(join(PKG, 'workerd.js'))};

// Nothing listens on port 9 of the loopback address: workerd's fetch fails there.
const UNREACHABLE = 'http://127.0.0.1:9/v1/messages';

export default {
  async test(ctrl, env) {
    const thrown = await fetch(UNREACHABLE, { method: 'POST', body: '{}' }).then(() => null, (e) => e);
    console.log('THROWN ' + JSON.stringify({
      name: thrown?.name, constructor: thrown?.constructor?.name, message: thrown?.message,
      retryable: thrown?.retryable, classified: classify(thrown),
    }));

    // The host loop of examples/worker, against a provider the network reaches from the third call.
    const loop = new RepairLoop({
      prompt: { system: 'Reply with JSON.', user: 'Where is the Eiffel Tower?' },
      schema: { type: 'object', required: ['city'] },
      backoff: { baseMs: 5, jitter: 'none' },
    });
    const timeline = [];
    let calls = 0;
    let instruction;
    for (let guard = 0; guard < 10; guard++) {
      calls++;
      const url = calls <= 2 ? UNREACHABLE : env.PROVIDER_URL;
      let outcome;
      try {
        const response = await fetch(url, { method: 'POST', body: '{}' });
        outcome = { kind: 'reply', text: await response.text() };
      } catch (error) {
        outcome = { kind: 'error', error };
      }
      instruction = loop.next(outcome);
      timeline.push(instruction.type + (instruction.classified ? ' ' + instruction.classified.cause : ''));
      if (instruction.type !== 'wait-for-backoff') break;
      await new Promise((resolve) => setTimeout(resolve, instruction.delayMs));
    }
    console.log('LOOP ' + JSON.stringify({ timeline, calls, value: instruction.value, attempts: instruction.attempts }));
  },
};
`;

const CONFIG = `
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "network-test", worker = .worker),
    (name = "loopback", network = (allow = ["local"])),
  ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "selfheal_bg.wasm", wasm = embed "selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  bindings = [ (name = "PROVIDER_URL", fromEnvironment = "PROVIDER_URL") ],
  globalOutbound = "loopback",
);
`;

let provider;
let config;

before(async () => {
  provider = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"city": "Paris"}'));
  });
  await new Promise((ok) => provider.listen(0, '127.0.0.1', ok));
  const dir = scratch('workerd-network');
  writeFileSync(join(dir, 'entry.mjs'), WORKER);
  await bundle({ absWorkingDir: dir, entryPoints: [join(dir, 'entry.mjs')], outfile: join(dir, 'worker.js'), ...WORKER_BUNDLE });
  writeFileSync(join(dir, 'config.capnp'), CONFIG);
  config = join(dir, 'config.capnp');
});

after(() => new Promise((ok) => provider.close(ok)));

test('workerd: a failed fetch is transient/network, and a loop in the Worker retries it until it answers', async () => {
  const { code, output } = await workerdTest(config, {
    env: { PROVIDER_URL: `http://127.0.0.1:${provider.address().port}/v1/messages` },
  });
  assert.equal(code, 0, output);
  const thrown = taggedJson(output, 'THROWN');
  // What workerd really throws (TOOLCHAIN.md): a plain Error, not a TypeError.
  assert.equal(thrown.name, 'Error');
  assert.equal(thrown.message, 'Network connection lost.');
  assert.equal(thrown.classified.class, 'transient');
  assert.equal(thrown.classified.cause, 'network');
  const loop = taggedJson(output, 'LOOP');
  assert.deepEqual(loop.timeline, ['wait-for-backoff network', 'wait-for-backoff network', 'done']);
  assert.deepEqual(loop.value, { city: 'Paris' });
  assert.equal(loop.attempts, 3);
});

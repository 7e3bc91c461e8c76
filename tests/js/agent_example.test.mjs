// examples/agent.mjs and the README's `## Agent toolkit` loop: the concrete outcome of the
// scripted run, and the README block run as written (with "selfheal" pointed at pkg/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';

import { runAgent, agentLoop, script, TASK, TOOLS, FINAL_ANSWER } from '../../examples/agent.mjs';
import { ScriptedModel } from '../../examples/mock-model.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const EXPECTED_VERDICTS = [
  { step: 1, action: 'continue' },
  { step: 2, action: 'continue' },
  { step: 3, action: 'intervene', strategy: 'break_loop', reason: 'the tool "search" was called 3 times in a row' },
  { step: 4, action: 'review' },
  {
    step: 4, action: 'intervene', strategy: 'guided_correction',
    reason: 'The agent already has the limit and the current size; it should stop researching and answer',
  },
];

test('runAgent: final answer, verdicts, healing, budget and breaker figures', async () => {
  const lines = [];
  const r = await runAgent({ log: (l) => lines.push(l) });

  assert.equal(r.answer, FINAL_ANSWER);
  assert.equal(r.stopReason, null);
  assert.equal(r.steps, 4, 'four tool steps, then the final answer');
  assert.deepEqual(r.verdicts, EXPECTED_VERDICTS);
  assert.deepEqual(r.healing, [
    { step: 1, action: 'wait-for-backoff', cause: 'overloaded', delayMs: 500, breakerFailures: 1 },
    { step: 2, action: 'locally-repaired', fixes: ['code-fence', 'surrounding-prose', 'single-quotes'] },
    { step: 3, action: 'send-repair-prompt', strategy: 'fix', cause: 'schema' },
    { step: 3, action: 'repaired', fixes: [] },
  ]);
  // 7 replies recorded (the 529 had no usage); 6100 of 6200 input tokens is above 80%.
  assert.deepEqual(r.budget, { iterations: 7, inputTokens: 6100, outputTokens: 385, nearlyDone: true });
  // The 529 opened nothing (1 of 3) and the next success closed the shared breaker again.
  assert.deepEqual(r.breaker, { state: 'closed', failures: 0 });
  assert.equal(r.modelCalls, 8);
  // max_tokens = min(512, output tokens left); the review call is capped at 200.
  assert.deepEqual(r.maxTokensPerCall, [512, 512, 512, 500, 455, 415, 200, 335]);
  assert.deepEqual(r.wrapUpHintInCall, [8], 'only the last prompt carries the wrap-up hint');
  assert.equal(r.virtualMs, 500);

  const log = lines.join('\n');
  assert.match(log, /wait 500 ms and resend/);
  assert.match(log, /send a fix prompt/);
  assert.match(log, /supervisor: intervene \(break_loop\)/);
  assert.match(log, /supervisor: review/);
});

test('the agent stops with a named reason when the model stays overloaded', async () => {
  const overloaded = () => Object.assign(new Error('Overloaded'), { status: 529, headers: { 'retry-after-ms': '10' } });
  const model = new ScriptedModel([overloaded(), overloaded(), overloaded()]);
  let t = 0;
  const r = await agentLoop({ task: TASK, model, tools: TOOLS, clock: () => t, sleep: async (ms) => { t += ms; } });
  assert.equal(r.answer, null);
  assert.equal(r.stopReason, 'transient-exhausted', 'budget.transient is 2: three calls in all');
  assert.deepEqual(r.breaker, { state: 'open', failures: 3 }, 'the third failure opened the shared breaker');
  assert.deepEqual(r.budget, { iterations: 0, inputTokens: 0, outputTokens: 0, nearlyDone: false });
  assert.equal(model.calls.length, 3);
});

test('running examples/agent.mjs directly prints the log and the answer', () => {
  const out = execFileSync(process.execPath, [join(root, 'examples', 'agent.mjs')], { encoding: 'utf8', timeout: 30000 });
  assert.match(out, /^task: /);
  assert.ok(out.includes(`answer: ${FINAL_ANSWER}`), out);
  assert.match(out, /breaker: closed, 0 failures; 8 model calls/);
});

function readmeBlock() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf('<!-- example:agent -->');
  assert.ok(at >= 0, 'README has no example:agent');
  const m = /```js\n([\s\S]*?)\n```\n/.exec(readme.slice(at));
  assert.ok(m, 'example code block');
  return m[1];
}

test("the README's agent loop is the example's, verbatim", () => {
  const block = readmeBlock();
  const importLine = 'import { AgentBudget, CircuitBreaker, Supervisor, heal } from "selfheal";\n\n';
  assert.ok(block.startsWith(importLine), 'the block starts with the import');
  const example = readFileSync(join(root, 'examples', 'agent.mjs'), 'utf8');
  const m = /\/\/ ---- README: agent loop ----\n([\s\S]*?)\n\/\/ ---- README: end ----/.exec(example);
  assert.ok(m, 'markers in examples/agent.mjs');
  assert.equal(block.slice(importLine.length), m[1]);
});

test("the README's agent loop runs as written and gives the same outcome", async () => {
  const pkg = pathToFileURL(join(root, 'pkg', 'index.cjs')).href;
  const dir = mkdtempSync(join(tmpdir(), 'selfheal-agent-'));
  const file = join(dir, 'agent-loop.mjs');
  writeFileSync(file, readmeBlock().replace('from "selfheal"', `from ${JSON.stringify(pkg)}`));
  const { agentLoop: readmeLoop } = await import(pathToFileURL(file).href);

  let t = Date.UTC(2026, 0, 1);
  const model = new ScriptedModel(script());
  const r = await readmeLoop({ task: TASK, model, tools: TOOLS, clock: () => t, sleep: async (ms) => { t += ms; } });
  const expected = await runAgent();
  for (const key of ['answer', 'stopReason', 'steps', 'verdicts', 'healing', 'budget', 'breaker']) {
    assert.deepEqual(r[key], expected[key], key);
  }
  assert.equal(model.calls.length, expected.modelCalls);
});

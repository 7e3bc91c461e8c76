// The shipped TypeScript declarations: exact, no `any`, matching the runtime exports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

import * as selfheal from '../../pkg/selfheal.js';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pkg');
const dts = readFileSync(join(pkg, 'selfheal.d.ts'), 'utf8');

/** The declarations with comments and string literals blanked out. */
function code(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/.*$/gm, ' ')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/'(?:[^'\\\n]|\\.)*'/g, "''");
}

test('selfheal.d.ts has no `any` outside comments', () => {
  const lines = code(dts).split('\n');
  const hits = lines.map((l, i) => [i + 1, l]).filter(([, l]) => /\bany\b/.test(l));
  assert.deepEqual(hits, [], 'lines with any');
});

test('package.json points at the declarations', () => {
  const meta = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  assert.equal(meta.types, 'selfheal.d.ts');
  assert.ok(meta.files.includes('selfheal.d.ts'));
});

test('every runtime export is declared, and every declared value exists at runtime', () => {
  const src = code(dts);
  const declared = new Set(
    [...src.matchAll(/export\s+(?:declare\s+)?(?:function|class|const)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]),
  );
  const runtime = Object.keys(selfheal).filter((k) => k !== 'default' && !k.startsWith('__'));
  for (const name of runtime) assert.ok(declared.has(name), `${name} is exported but not declared`);
  for (const name of declared) assert.ok(name in selfheal, `${name} is declared but not exported`);
  for (const name of ['classify', 'repairJson', 'parseStructured', 'buildRepairPrompt', 'Schema', 'RepairLoop', 'CircuitBreaker']) {
    assert.ok(declared.has(name), name);
  }
  for (const t of ['ErrorClass', 'Cause', 'Classified', 'Validation', 'FailureKind', 'FailureIssue', 'FailureReport',
    'Parsed', 'Locale', 'Prompt', 'Budget', 'Backoff', 'FallbackPlan', 'LoopOptions', 'Outcome', 'StopReason',
    'Instruction', 'Attempt']) {
    assert.match(src, new RegExp(`export\\s+(?:type|interface)\\s+${t}\\b`), t);
  }
});

test('the declared string unions match SPEC section 2', () => {
  const union = (name) => {
    const m = new RegExp(`export type ${name}\\s*=([^;]*);`).exec(dts);
    assert.ok(m, name);
    return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]).sort();
  };
  assert.deepEqual(union('ErrorClass'), ['hard-fail', 'repairable', 'semantic-invalid', 'transient']);
  assert.deepEqual(union('FailureKind'), ['empty', 'json-syntax', 'schema', 'truncated']);
  assert.deepEqual(union('Locale'), ['en', 'ja', 'zh']);
  assert.deepEqual(union('Cause'), ['aborted', 'auth', 'bad-request', 'conflict', 'content-filter', 'context-overflow', 'empty',
    'json-syntax', 'network', 'not-found', 'overloaded', 'quota-exhausted', 'rate-limited', 'rejected', 'schema',
    'semantic', 'server-error', 'timeout', 'too-large', 'truncated', 'unknown', 'unsupported'].sort());
  assert.deepEqual(union('StopReason'), ['aborted', 'budget-exhausted', 'circuit-open', 'cost-ceiling',
    'deadline-exceeded', 'hard-fail', 'prompt-too-large', 'repair-failed', 'retry-after-too-long',
    'retry-budget-exhausted', 'semantic-invalid', 'transient-exhausted', 'unrepairable'].sort());
});

// RepairLoop and CircuitBreaker from Node: options, outcomes, a scripted run,
// toJSON/fromJSON, determinism, the default seed, SPEC section 5 rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { RepairLoop, CircuitBreaker, Schema } from '../../pkg/selfheal.js';
import { NOW, PROMPT, CITY_SCHEMA, baseOptions, reply, failure, throwsNaming, revokedProxy, withField, assertClassified } from './helpers.mjs';

const P = PROMPT;

test('bad options throw TypeError/RangeError naming the field', () => {
  const base = baseOptions();
  const cases = [
    [undefined, TypeError, 'options'],
    [null, TypeError, 'options'],
    [[], TypeError, 'options'],
    ['{}', TypeError, 'options'],
    [{ schema: CITY_SCHEMA }, TypeError, 'options.prompt'],
    [{ prompt: { system: 's' } }, TypeError, 'options.prompt.user'],
    [{ prompt: { user: 'u', system: 1 } }, TypeError, 'options.prompt.system'],
    [{ prompt: 'hello' }, TypeError, 'options.prompt'],
    [withField(base, 'budget.transient', -1), RangeError, 'options.budget.transient'],
    [withField(base, 'budget.transient', 1.5), RangeError, 'options.budget.transient'],
    [withField(base, 'budget.transient', NaN), RangeError, 'options.budget.transient'],
    [withField(base, 'budget.transient', '3'), TypeError, 'options.budget.transient'],
    [withField(base, 'budget.transient', 2 ** 40), RangeError, 'options.budget.transient'],
    [withField(base, 'budget.repairable', Infinity), RangeError, 'options.budget.repairable'],
    [withField(base, 'budget.semanticInvalid', -0.5), RangeError, 'options.budget.semanticInvalid'],
    [withField(base, 'budget.costCeilingUsd', NaN), RangeError, 'options.budget.costCeilingUsd'],
    [withField(base, 'budget.costCeilingUsd', '1'), TypeError, 'options.budget.costCeilingUsd'],
    [withField(base, 'budget.deadlineMs', -5), RangeError, 'options.budget.deadlineMs'],
    [withField(base, 'budget.deadlineMs', Infinity), RangeError, 'options.budget.deadlineMs'],
    [withField(base, 'budget.maxPromptChars', 10.5), RangeError, 'options.budget.maxPromptChars'],
    [withField(base, 'budget', 'big'), TypeError, 'options.budget'],
    [withField(base, 'budget', [1]), TypeError, 'options.budget'],
    [withField(base, 'mode', 'fast'), TypeError, 'options.mode'],
    [withField(base, 'mode', 1), TypeError, 'options.mode'],
    [withField(base, 'backoff.jitter', 'gaussian'), TypeError, 'options.backoff.jitter'],
    [withField(base, 'backoff.jitter', true), TypeError, 'options.backoff.jitter'],
    [withField(base, 'backoff.baseMs', NaN), RangeError, 'options.backoff.baseMs'],
    [withField(base, 'backoff.maxMs', -1), RangeError, 'options.backoff.maxMs'],
    [withField(base, 'backoff.jitterMs', -1), RangeError, 'options.backoff.jitterMs'],
    [withField(base, 'backoff.maxRetryAfterMs', '1'), TypeError, 'options.backoff.maxRetryAfterMs'],
    [withField(base, 'fallback', { mode: 'email' }), TypeError, 'options.fallback.mode'],
    [withField(base, 'fallback', { mode: 'human' }), TypeError, 'options.fallback.queue'],
    [withField(base, 'fallback', { mode: 'template', templateId: 't' }), TypeError, 'options.fallback.text'],
    [withField(base, 'fallback', { queue: 'q' }), TypeError, 'options.fallback.mode'],
    [withField(base, 'fallback', 'human'), TypeError, 'options.fallback'],
    [withField(base, 'alternatePrompt', { user: 'u' }), TypeError, 'options.alternatePrompt.system'],
    [withField(base, 'schema', { type: 12 }), TypeError, 'options.schema'],
    [withField(base, 'schema', 12), TypeError, 'options.schema'],
    [withField(base, 'locale', 'fr'), TypeError, 'options.locale'],
    [withField(base, 'seed', NaN), RangeError, 'options.seed'],
    [withField(base, 'seed', '1'), TypeError, 'options.seed'],
    [withField(base, 'seed', 1n), TypeError, 'options.seed'],
    [withField(base, 'localRepair', 'yes'), TypeError, 'options.localRepair'],
    [withField(base, 'maxRawChars', -1), RangeError, 'options.maxRawChars'],
  ];
  for (const [options, kind, field] of cases) {
    throwsNaming(() => new RepairLoop(options), kind, field);
  }
  // Values JSON cannot carry.
  const cyclic = { type: 'object', properties: {} };
  cyclic.properties.self = cyclic;
  throwsNaming(() => new RepairLoop({ ...base, schema: cyclic }), TypeError, 'options.schema');
  throwsNaming(() => new RepairLoop(revokedProxy()), TypeError, 'options.prompt');
  throwsNaming(() => new RepairLoop({ ...base, budget: revokedProxy() }), TypeError, 'options.budget');
  throwsNaming(() => new RepairLoop({ ...base, get backoff() { throw new Error('boom'); } }), TypeError, 'options.backoff');
  throwsNaming(() => new RepairLoop(base, {}), TypeError, 'breaker');
  throwsNaming(() => new RepairLoop(base, 1), TypeError, 'breaker');
  throwsNaming(() => new RepairLoop(base, new Schema({})), TypeError, 'breaker');
  // Optional fields given as undefined/null are defaults.
  const ok = new RepairLoop({ ...base, mode: undefined, budget: null, backoff: undefined, fallback: null, locale: undefined });
  assert.equal(ok.next(reply('{"city":"Paris"}'), NOW).type, 'done');
  // The module stays usable.
  assert.equal(new RepairLoop(base).next(reply('{"city":"Paris"}'), NOW).type, 'done');
});

test('bad outcomes throw, and the same loop keeps working', () => {
  const loop = new RepairLoop(baseOptions());
  const cases = [
    [undefined, TypeError, 'outcome'],
    ['reply', TypeError, 'outcome'],
    [{}, TypeError, 'outcome.kind'],
    [{ kind: 'retry' }, TypeError, 'outcome.kind'],
    [{ kind: 'reply' }, TypeError, 'outcome.text'],
    [{ kind: 'reply', text: 5 }, TypeError, 'outcome.text'],
    [{ kind: 'reply', text: '{}', costUsd: NaN }, RangeError, 'outcome.costUsd'],
    [{ kind: 'reply', text: '{}', costUsd: -1 }, RangeError, 'outcome.costUsd'],
    [{ kind: 'reply', text: '{}', costUsd: '0.1' }, TypeError, 'outcome.costUsd'],
    [{ kind: 'reply', text: '{}', stopReason: 1 }, TypeError, 'outcome.stopReason'],
    [{ kind: 'reply', text: '{}', usage: { inputTokens: 1.5, outputTokens: 1 } }, RangeError, 'outcome.usage.inputTokens'],
    [{ kind: 'reply', text: '{}', usage: { inputTokens: 1 } }, TypeError, 'outcome.usage.outputTokens'],
    [{ kind: 'reply', text: '{}', usage: revokedProxy() }, TypeError, 'outcome.usage'],
    [{ kind: 'error', error: {}, costUsd: Infinity }, RangeError, 'outcome.costUsd'],
    [{ kind: 'rejected' }, TypeError, 'outcome.reason'],
    [{ kind: 'invalid', reason: 3 }, TypeError, 'outcome.reason'],
    [{ get kind() { throw new Error('boom'); } }, TypeError, 'outcome.kind'],
    [revokedProxy(), TypeError, 'outcome'],
  ];
  for (const [outcome, kind, field] of cases) {
    throwsNaming(() => loop.next(outcome, NOW), kind, field);
  }
  throwsNaming(() => loop.next(reply('{}'), 'now'), TypeError, 'now');
  throwsNaming(() => loop.next(reply('{}'), NaN), RangeError, 'now');
  throwsNaming(() => loop.next(reply('{}'), Infinity), RangeError, 'now');
  throwsNaming(() => loop.abort(1), TypeError, 'reason');
  // Nothing was recorded by the bad calls.
  assert.deepEqual(loop.attempts, []);
  assert.equal(loop.report().calls, 0);
  const i = loop.next(failure({ status: 500 }), NOW);
  assert.equal(i.type, 'wait-for-backoff');
  assert.equal(i.attempt, 2);
  const done = loop.next(reply('{"city":"Paris"}'), NOW + 5000);
  assert.equal(done.type, 'done');
  assert.equal(done.attempts, 2);
});

test('a full scripted loop', () => {
  const fallback = { mode: 'template', templateId: 'sorry-v1', text: 'We could not answer right now.' };
  const loop = new RepairLoop(baseOptions({ fallback }));
  // 1. 429 with retry-after (a real Headers instance).
  const rate = Object.assign(new Error('rate limited'), { status: 429, headers: new Headers({ 'retry-after': '2' }) });
  let i = loop.next(failure(rate, { costUsd: 0.001 }), NOW);
  assert.equal(i.type, 'wait-for-backoff');
  assert.equal(i.delayMs, 2000);
  assert.equal(i.attempt, 2);
  assert.deepEqual(i.prompt, PROMPT);
  assertClassified(i.classified, 'transient', 'rate-limited');
  assert.equal(i.classified.retryAfterMs, 2000);
  // 2. A schema mismatch: a fix prompt quoting the broken output.
  i = loop.next(reply('{"city": 75}', { costUsd: 0.002 }), NOW + 2000);
  assert.equal(i.type, 'send-repair-prompt');
  assert.equal(i.strategy, 'fix');
  assert.equal(i.attempt, 3);
  assertClassified(i.classified, 'repairable', 'schema');
  assert.ok(i.prompt.user.includes('<broken_output>\n{"city": 75}') || i.prompt.user.includes('{"city": 75}'));
  assert.ok(i.prompt.user.includes('/city'));
  // 3. The repaired reply.
  i = loop.next(reply('{"city":"Paris","population":2100000}', { costUsd: 0.003, usage: { inputTokens: 100, outputTokens: 10 } }), NOW + 3000);
  assert.equal(i.type, 'done');
  assert.equal(i.source, 'repaired');
  assert.deepEqual(i.value, { city: 'Paris', population: 2100000 });
  assert.equal(i.attempts, 3);
  assert.ok(Math.abs(i.costUsd - 0.006) < 1e-12);
  assert.deepEqual(i.fixes, []);
  // Final: the same instruction again.
  assert.deepEqual(loop.next(failure({ status: 500 }), NOW + 4000), i);

  const report = loop.report();
  assert.equal(report.calls, 3);
  assert.equal(report.repaired, 1);
  assert.deepEqual(report.byClass, { transient: 1, repairable: 1, 'semantic-invalid': 0, 'hard-fail': 0 });
  assert.deepEqual(report.warnings, []);
  const attempts = loop.attempts;
  assert.deepEqual(attempts.map((a) => a.n), [1, 2, 3]);
  assert.deepEqual(attempts.map((a) => a.class), ['transient', 'repairable', null]);
  assert.deepEqual(attempts.map((a) => a.at), [NOW, NOW + 2000, NOW + 3000]);

  // A fenced reply: done locally-repaired.
  const l2 = new RepairLoop(baseOptions());
  const d = l2.next(reply('Here you go:\n```json\n{"city": "Paris",}\n```'), NOW);
  assert.equal(d.type, 'done');
  assert.equal(d.source, 'locally-repaired');
  assert.ok(d.fixes.includes('code-fence'), JSON.stringify(d.fixes));
  assert.deepEqual(d.value, { city: 'Paris' });
  assert.deepEqual(JSON.parse(d.text), { city: 'Paris' });

  // 401: degrade hard-fail with the fallback.
  const l3 = new RepairLoop(baseOptions({ fallback }));
  const g = l3.next(failure(Object.assign(new Error('invalid x-api-key'), { status: 401 })), NOW);
  assert.equal(g.type, 'degrade');
  assert.equal(g.reason, 'hard-fail');
  assert.deepEqual(g.fallback, fallback);
  assertClassified(g.classified, 'hard-fail', 'auth');
  assert.equal(g.report, null);
  assert.equal(g.attempts, 1);
  // Without a fallback it is null, and the instruction is a plain object.
  const l4 = new RepairLoop(baseOptions());
  const g4 = l4.next(failure({ status: 403 }), NOW);
  assert.equal(g4.fallback, null);
  assert.deepEqual(JSON.parse(JSON.stringify(g4)), g4);
});

test('a done whose value holds numbers a double cannot hold exactly still resumes from toJSON', () => {
  // Before: fromJSON compared the state's value (JS doubles) with its text parsed exactly, and
  // refused a loop that had accepted a large id, -0 or a 17-plus-digit decimal.
  const text = '{"id": 12345678901234567890, "n": -0, "x": 1.0000000000000001, "list": [9007199254740993]}';
  const a = new RepairLoop(baseOptions({ schema: { type: 'object' } }));
  const done = a.next(reply(text), NOW);
  assert.equal(done.type, 'done');
  for (const state of [a.toJSON(), JSON.parse(JSON.stringify(a.toJSON()))]) {
    const b = RepairLoop.fromJSON(state);
    assert.deepEqual(b.toJSON(), a.toJSON());
    assert.deepEqual(b.next(reply('{}'), NOW + 1), done, 'the same done, sticky');
  }
  // A state whose value does not match its text is still refused.
  const forged = a.toJSON();
  forged.state.finalInstruction.value = { id: 1 };
  throwsNaming(() => RepairLoop.fromJSON(forged), TypeError, 'finalInstruction');
});

test("a loop on a Schema compiled with options resumes with them (formats: false, resources)", () => {
  // Before: the snapshot kept the schema without its options; the restored loop asserted
  // formats again, and one with resources could not be restored at all.
  const email = { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] };
  const item = { $ref: 'https://example.com/item' };
  const cases = [
    [new Schema(email, { formats: false }), '{"email": "not-an-email"}'],
    [new Schema(item, { resources: { 'https://example.com/item': { type: 'object', required: ['a'] } } }), '{"b": 1}'],
  ];
  for (const [schema, text] of cases) {
    const a = new RepairLoop(baseOptions({ schema }));
    const state = JSON.parse(JSON.stringify(a.toJSON()));
    assert.ok(state.schemaOptions, 'the options are in the snapshot');
    const b = RepairLoop.fromJSON(state);
    assert.deepEqual(b.toJSON(), a.toJSON());
    assert.deepEqual(b.next(reply(text), NOW), a.next(reply(text), NOW));
  }
  // The defaults add nothing to the snapshot (and 0.1 snapshots, without the field, resume).
  assert.equal('schemaOptions' in new RepairLoop(baseOptions({ schema: new Schema(email) })).toJSON(), false);
  const bad = new RepairLoop(baseOptions({ schema: cases[1][0] })).toJSON();
  bad.schemaOptions.resources = 3;
  throwsNaming(() => RepairLoop.fromJSON(bad), TypeError, 'state.schemaOptions.resources');
});

test('toJSON -> JSON.stringify -> JSON.parse -> fromJSON resumes identically', () => {
  const script = [
    failure({ status: 500 }),
    failure(new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } })),
    reply('not json at all'),
    reply('{"city": false}'),
    { kind: 'rejected', reason: 'Paris is spelled wrong' },
    reply('{"city":"Paris"}'),
    { kind: 'invalid', reason: 'not the capital' },
    reply('{"city":"Paris"}'),
  ];
  const options = baseOptions({
    backoff: { jitter: 'full' },
    budget: { repairable: 3 },
    alternatePrompt: { system: 'Be careful.', user: 'Which city is the capital of France?' },
  });
  // Cut at every point of the script.
  for (let cut = 0; cut <= script.length; cut++) {
    const a = new RepairLoop(options);
    for (let k = 0; k < cut; k++) a.next(script[k], NOW + k * 100_000);
    const state = JSON.parse(JSON.stringify(a.toJSON()));
    const b = RepairLoop.fromJSON(state);
    assert.deepEqual(b.toJSON(), a.toJSON());
    for (let k = cut; k < script.length; k++) {
      const now = NOW + k * 100_000;
      assert.deepEqual(b.next(script[k], now), a.next(script[k], now), `cut ${cut}, step ${k}`);
    }
    assert.deepEqual(b.report(), a.report());
    assert.deepEqual(b.attempts, a.attempts);
  }
  // The state is JSON-safe (no undefined, no Map, survives a string round trip).
  const s = new RepairLoop(options).toJSON();
  assert.deepEqual(JSON.parse(JSON.stringify(s)), s);

  throwsNaming(() => RepairLoop.fromJSON({}), TypeError, 'state');
  throwsNaming(() => RepairLoop.fromJSON(null), TypeError, 'state');
  throwsNaming(() => RepairLoop.fromJSON('x'), TypeError, 'state');
  throwsNaming(() => RepairLoop.fromJSON({ ...s, version: 99 }), RangeError, 'state.version');
  throwsNaming(() => RepairLoop.fromJSON(revokedProxy()), TypeError, 'state');
  throwsNaming(() => RepairLoop.fromJSON(s, {}), TypeError, 'breaker');
  const bad = structuredClone(s);
  bad.options.backoff.baseMs = -1;
  throwsNaming(() => RepairLoop.fromJSON(bad), RangeError, 'backoff.baseMs');
});

test('loops saved by 0.1 resume through fromJSON, field for field, and finish', () => {
  // tests/corpus/snapshots-0.1 (tests/restore.rs drives the same loops natively): the JS
  // boundary reads a state with the options' deserializer, so the old format is checked here too.
  const saved = (name) => JSON.parse(readFileSync(new URL(`../corpus/snapshots-0.1/${name}`, import.meta.url), 'utf8'));
  const mid = saved('mid-loop.json');
  const resumed = RepairLoop.fromJSON(mid);
  assert.deepEqual(resumed.toJSON().state, mid.state);
  const fin = resumed.next(reply('{"city": "Paris"}'), 4_000);
  assert.equal(fin.type, 'done');
  assert.deepEqual([fin.value, fin.source, fin.attempts], [{ city: 'Paris' }, 'repaired', 3]);
  assert.deepEqual([resumed.report().calls, resumed.report().repaired], [3, 1]);

  const provisional = saved('provisional-done.json');
  const done = RepairLoop.fromJSON(provisional);
  assert.deepEqual(done.toJSON().state, provisional.state);
  const verdict = done.next({ kind: 'rejected', reason: 'Paris is not allowed here' }, 2_000);
  assert.equal(verdict.type, 'send-repair-prompt', 'the one verdict reopens the done');
});

test('determinism: same seed, same delays; no seed works', () => {
  const delays = (seed, jitter) => {
    const opts = baseOptions({ seed, backoff: { jitter }, budget: { transient: 6 } });
    if (seed === undefined) delete opts.seed;
    const l = new RepairLoop(opts);
    const out = [];
    for (let k = 0; k < 6; k++) out.push(l.next(failure({ status: 503 }), NOW + k * 100_000).delayMs);
    return out;
  };
  for (const jitter of ['additive', 'full', 'equal', 'none']) {
    assert.deepEqual(delays(42, jitter), delays(42, jitter), jitter);
  }
  assert.notDeepEqual(delays(1, 'full'), delays(2, 'full'));
  assert.deepEqual(delays(1, 'none'), [1000, 2000, 4000, 8000, 16000, 30000]);
  // Ranges per SPEC: additive adds U[0, 250); full is U[0, capped]; equal is capped/2 + U[0, capped/2].
  for (let seed = 0; seed < 30; seed++) {
    const a = delays(seed, 'additive');
    const caps = [1000, 2000, 4000, 8000, 16000, 30000];
    a.forEach((d, k) => assert.ok(d >= caps[k] && d < caps[k] + 250, `additive ${seed}/${k}: ${d}`));
    delays(seed, 'full').forEach((d, k) => assert.ok(d >= 0 && d <= caps[k], `full ${d}`));
    delays(seed, 'equal').forEach((d, k) => assert.ok(d >= caps[k] / 2 && d <= caps[k], `equal ${d}`));
    delays(seed, 'none').forEach((d) => assert.ok(Number.isInteger(d)));
  }
  // Seeds: negative and fractional numbers are accepted.
  assert.deepEqual(delays(-5, 'full'), delays(-5, 'full'));
  assert.deepEqual(delays(0.5, 'full'), delays(0.5, 'full'));
  // No seed: the platform's random source. Works, stays in range, and differs between loops.
  const runs = Array.from({ length: 5 }, () => delays(undefined, 'full'));
  for (const r of runs) r.forEach((d) => assert.ok(Number.isFinite(d) && d >= 0 && d <= 30000));
  assert.ok(runs.some((r) => JSON.stringify(r) !== JSON.stringify(runs[0])), 'default seeds differ');
});

test('SPEC 5: reply rules (first-pass, no schema, empty, truncated)', () => {
  let l = new RepairLoop(baseOptions());
  assert.deepEqual(l.next(reply('{"city":"Paris"}', { costUsd: 0.01 }), NOW), {
    type: 'done', value: { city: 'Paris' }, text: '{"city":"Paris"}', source: 'first-pass', fixes: [], attempts: 1, costUsd: 0.01,
  });
  l = new RepairLoop({ prompt: P });
  const any = l.next(reply('Paris.'), NOW);
  assert.equal(any.type, 'done');
  assert.equal(any.value, 'Paris.');
  l = new RepairLoop({ prompt: P });
  assert.equal(l.next(reply(''), NOW).reason, 'unrepairable');
  l = new RepairLoop(baseOptions());
  const e = l.next(reply(' \n\t'), NOW);
  assert.equal(e.reason, 'unrepairable');
  assert.deepEqual(e.report.kinds, ['empty']);
  l = new RepairLoop(baseOptions());
  const t = l.next(reply('{"city":"Pa', { stopReason: 'max_tokens' }), NOW);
  assert.equal(t.type, 'send-repair-prompt');
  assert.equal(t.strategy, 'reask');
  assertClassified(t.classified, 'repairable', 'truncated');
  assert.ok(t.prompt.user.startsWith(P.user));
  assert.equal(t.prompt.system, P.system);
});

test('SPEC 5: rejected and invalid verdicts', () => {
  let l = new RepairLoop(baseOptions());
  assert.equal(l.next(reply('{"city":"Lyon"}'), NOW).type, 'done');
  const reason = 'the city must be the capital, not Lyon';
  let i = l.next({ kind: 'rejected', reason }, NOW + 1);
  assert.equal(i.type, 'send-repair-prompt');
  assert.equal(i.strategy, 'reask');
  assert.equal(i.attempt, 2);
  assertClassified(i.classified, 'repairable', 'rejected');
  assert.ok(i.prompt.user.startsWith(P.user));
  assert.ok(i.prompt.user.includes(reason));
  i = l.next(reply('{"city":"Paris"}'), NOW + 2);
  assert.equal(i.source, 'repaired');
  assert.equal(l.next({ kind: 'rejected', reason: 'no' }, NOW + 3).reason, 'repair-failed');

  const alternatePrompt = { system: 'Answer carefully.', user: 'Which city is the capital of France?' };
  l = new RepairLoop(baseOptions({ alternatePrompt }));
  i = l.next({ kind: 'invalid', reason: 'wrong city' }, NOW);
  assert.equal(i.strategy, 'alternate');
  assert.deepEqual(i.prompt, alternatePrompt);
  assertClassified(i.classified, 'semantic-invalid', 'semantic');
  i = l.next({ kind: 'invalid', reason: 'still wrong' }, NOW + 1);
  assert.equal(i.reason, 'semantic-invalid');
  assert.ok(l.report().warnings.some((w) => w.includes('review the approach')));
  assert.equal(l.report().repaired, 1);

  l = new RepairLoop(baseOptions());
  assert.equal(l.next({ kind: 'invalid', reason: 'wrong' }, NOW).reason, 'semantic-invalid');
  l = new RepairLoop(baseOptions({ alternatePrompt, budget: { semanticInvalid: 0 } }));
  assert.equal(l.next({ kind: 'invalid', reason: 'wrong' }, NOW).reason, 'semantic-invalid');
});

test('SPEC 5: repair budgets and modes', () => {
  let l = new RepairLoop(baseOptions({ budget: { repairable: 0 } }));
  assert.equal(l.next(reply('{oops'), NOW).reason, 'budget-exhausted');
  l = new RepairLoop(baseOptions());
  assert.equal(l.next(reply('{"city": 1}'), NOW).strategy, 'fix');
  const f = l.next(reply('{"city": 2}'), NOW + 1);
  assert.equal(f.reason, 'repair-failed');
  assert.deepEqual(f.report.kinds, ['schema']);
  l = new RepairLoop(baseOptions({ mode: 'reask' }));
  const r = l.next(reply('{"city": 1}'), NOW);
  assert.equal(r.strategy, 'reask');
  assert.ok(r.prompt.user.startsWith(P.user));
  assert.ok(r.prompt.user.includes('/city'));
  // 3+ repairable failures warn, even when the loop ends in done.
  l = new RepairLoop(baseOptions({ budget: { repairable: 3 } }));
  for (let k = 0; k < 3; k++) assert.equal(l.next(reply('{"city": 1}'), NOW + k).type, 'send-repair-prompt');
  assert.equal(l.next(reply('{"city":"Paris"}'), NOW + 5).type, 'done');
  assert.ok(l.report().warnings.some((w) => w.includes('structural problem')));
});

test('SPEC 5: transient budget, backoff, retry-after, limits, breaker, abort', () => {
  // Transient budget spent; calls never exceed 1 + transient + repairable + semanticInvalid.
  let l = new RepairLoop(baseOptions({ budget: { transient: 2, repairable: 1, semanticInvalid: 0 }, backoff: { jitter: 'none' } }));
  assert.equal(l.next(failure({ status: 502 }), NOW).delayMs, 1000);
  assert.equal(l.next(failure({ status: 502 }), NOW + 10_000).delayMs, 2000);
  assert.equal(l.next(reply('{bad'), NOW + 20_000).type, 'send-repair-prompt');
  const x = l.next(failure({ status: 502 }), NOW + 30_000);
  assert.equal(x.reason, 'transient-exhausted');
  assert.equal(x.attempts, 4);
  assert.equal(l.report().calls, 4);

  // retry-after replaces the delay; too long degrades.
  l = new RepairLoop(baseOptions());
  assert.equal(l.next(failure({ status: 429, headers: { 'retry-after-ms': '12.2' } }), NOW).delayMs, 13);
  l = new RepairLoop(baseOptions());
  assert.equal(l.next(failure({ status: 429, headers: { 'retry-after': '120' } }), NOW).reason, 'retry-after-too-long');
  l = new RepairLoop(baseOptions({ backoff: { maxRetryAfterMs: 200_000 } }));
  assert.equal(l.next(failure({ status: 429, headers: { 'retry-after': '120' } }), NOW).delayMs, 120_000);

  // Cost ceiling.
  l = new RepairLoop(baseOptions({ budget: { costCeilingUsd: 0.05 } }));
  assert.equal(l.next(reply('{bad', { costUsd: 0.06 }), NOW).reason, 'cost-ceiling');
  // Deadline: the wait would end after it.
  l = new RepairLoop(baseOptions({ budget: { deadlineMs: 1500 }, backoff: { jitter: 'none' } }));
  assert.equal(l.next(failure({ status: 500 }), NOW).type, 'wait-for-backoff');
  assert.equal(l.next(failure({ status: 500 }), NOW + 1000).reason, 'deadline-exceeded');
  // A valid reply to a loop-issued call after the deadline.
  l = new RepairLoop(baseOptions({ budget: { deadlineMs: 5000 } }));
  assert.equal(l.next(reply('{bad'), NOW).type, 'send-repair-prompt');
  assert.equal(l.next(reply('{"city":"Paris"}'), NOW + 6000).reason, 'deadline-exceeded');
  // The first reply is always evaluated.
  l = new RepairLoop(baseOptions({ budget: { deadlineMs: 0 } }));
  assert.equal(l.next(reply('{"city":"Paris"}'), NOW).type, 'done');
  // Prompt too large (fix mode default 6000; here 50).
  l = new RepairLoop(baseOptions({ budget: { maxPromptChars: 50 } }));
  assert.equal(l.next(reply('{bad'), NOW).reason, 'prompt-too-large');
  l = new RepairLoop(baseOptions({ maxRawChars: 100_000 }));
  assert.equal(l.next(reply('{"city": 5, "note": "' + 'x'.repeat(10_000) + '"}'), NOW).reason, 'prompt-too-large');

  // Abort, and sticky finals.
  l = new RepairLoop(baseOptions({ fallback: { mode: 'human', queue: 'q' } }));
  const a = l.abort('user left', NOW);
  assert.equal(a.reason, 'aborted');
  assert.equal(a.detail, 'user left');
  assert.deepEqual(a.fallback, { mode: 'human', queue: 'q' });
  assert.deepEqual(l.next(reply('{"city":"Paris"}'), NOW + 1), a);
  assert.deepEqual(l.abort(), a);
  l = new RepairLoop(baseOptions());
  assert.equal(l.abort().reason, 'aborted');
});

test('a CircuitBreaker shared by two loops opens and causes circuit-open', () => {
  const breaker = new CircuitBreaker({ failureThreshold: 2, resetTimeoutMs: 60_000 });
  assert.equal(breaker.state, 'closed');
  const a = new RepairLoop(baseOptions(), breaker);
  const b = new RepairLoop(baseOptions(), breaker);
  assert.equal(a.next(failure({ status: 503 }), NOW).type, 'wait-for-backoff');
  assert.equal(breaker.failures, 1);
  const ib = b.next(failure({ status: 503 }), NOW + 1);
  assert.equal(ib.type, 'degrade');
  assert.equal(ib.reason, 'circuit-open');
  assert.equal(breaker.state, 'open');
  assert.equal(a.next(failure({ status: 503 }), NOW + 2000).reason, 'circuit-open');
  // A repair prompt is a call too: an open breaker stops it.
  const c = new RepairLoop(baseOptions(), breaker);
  assert.equal(c.next(reply('{bad'), NOW + 3000).reason, 'circuit-open');
  // After resetTimeoutMs: half-open; a done closes it.
  assert.equal(breaker.isOpen(NOW + 70_000), false);
  assert.equal(breaker.state, 'half-open');
  const d = new RepairLoop(baseOptions(), breaker);
  assert.equal(d.next(reply('{"city":"Paris"}'), NOW + 70_001).type, 'done');
  assert.equal(breaker.state, 'closed');
  assert.equal(breaker.failures, 0);
  // fromJSON with the breaker keeps sharing it.
  const e = RepairLoop.fromJSON(new RepairLoop(baseOptions()).toJSON(), breaker);
  breaker.recordFailure(NOW + 80_000);
  breaker.recordFailure(NOW + 80_001);
  assert.equal(e.next(failure({ status: 500 }), NOW + 80_002).reason, 'circuit-open');
  // Breaker state round trip and bad arguments.
  const restored = CircuitBreaker.fromJSON(JSON.parse(JSON.stringify(breaker.toJSON())));
  assert.equal(restored.state, 'open');
  assert.equal(restored.failures, breaker.failures);
  throwsNaming(() => new CircuitBreaker({ failureThreshold: 0 }), RangeError, 'options.failureThreshold');
  throwsNaming(() => new CircuitBreaker({ failureThreshold: '3' }), TypeError, 'options.failureThreshold');
  throwsNaming(() => new CircuitBreaker({ resetTimeoutMs: NaN }), RangeError, 'options.resetTimeoutMs');
  throwsNaming(() => new CircuitBreaker('x'), TypeError, 'options');
  throwsNaming(() => breaker.isOpen('x'), TypeError, 'now');
  throwsNaming(() => breaker.recordFailure(NaN), RangeError, 'now');
  throwsNaming(() => CircuitBreaker.fromJSON({}), TypeError, 'state');
  assert.equal(typeof new CircuitBreaker().isOpen(), 'boolean');
});

test('no global state: many loops side by side, interleaved', () => {
  const loops = Array.from({ length: 100 }, (_, k) => new RepairLoop(baseOptions({ seed: k % 3 })));
  const first = loops.map((l, k) => l.next(k % 2 ? failure({ status: 500 }) : reply('{"city": 1}'), NOW));
  const second = loops.map((l) => l.next(reply('{"city":"Paris"}'), NOW + 60_000));
  for (let k = 0; k < loops.length; k++) {
    assert.equal(first[k].type, k % 2 ? 'wait-for-backoff' : 'send-repair-prompt');
    assert.equal(second[k].type, 'done');
    assert.equal(second[k].source, k % 2 ? 'first-pass' : 'repaired');
    // Same seed (k % 3) and outcome (k % 2): loop k and loop k - 6 agree exactly.
    if (k >= 6) assert.deepEqual(first[k], first[k - 6]);
  }
});

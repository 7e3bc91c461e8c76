// The loop every selfheal/lite packaging target runs (Node ESM, Node CommonJS, an esbuild page, a
// Vite app, a plain <script type="module"> page, a workerd worker). It receives the module that
// `selfheal/lite` resolved to and returns plain JSON, compared across runtimes. Seeded, with an
// explicit `now`: every runtime must produce identical instructions.
//
// The lite build validates no JSON Schema: a reply of the wrong shape is `done` with
// `validated: false`, the host's own check refuses it as a `rejected` outcome, and the loop
// asks again quoting the schema.

export const SCHEMA = {
  type: "object",
  required: ["city"],
  properties: { city: { type: "string" } },
};

/** The host's own check (what a Standard Schema's validate or Ajv would say). */
const check = (value) => (typeof value?.city === "string" ? null : "/city: a string is required");

export function runScenario(selfheal) {
  const { RepairLoop, Schema } = selfheal;
  const now = 1_700_000_000_000;
  const steps = [];
  let loop = new RepairLoop({
    prompt: { system: "Reply with JSON only.", user: "What is the capital of France?" },
    schema: SCHEMA,
    seed: 42,
  });
  const schema = new Schema(SCHEMA);
  try {
    // 1. Rate limited with retry-after: wait, then resend the same prompt.
    const rateLimited = Object.assign(new Error("Too Many Requests"), { status: 429, headers: { "retry-after": "2" } });
    steps.push(loop.next({ kind: "error", error: rateLimited }, now));
    const state = JSON.parse(JSON.stringify(loop.toJSON()));
    loop.free();
    loop = RepairLoop.fromJSON(state);
    // 2. Valid JSON of the wrong shape: done, but not validated; the host's check refuses it.
    const first = loop.next({ kind: "reply", text: '{"town": "Paris"}' }, now + 2_100);
    steps.push(first);
    const problem = check(first.value);
    // 3. The refusal fed back: one repair prompt.
    steps.push(loop.next({ kind: "rejected", reason: problem }, now + 2_200));
    // 4. A fenced reply with a trailing comma: repaired locally, done, passes the host's check.
    const last = loop.next({ kind: "reply", text: '```json\n{"city": "Paris",}\n```' }, now + 3_000);
    steps.push(last);
    let validate;
    try {
      validate = schema.validate({});
    } catch (e) {
      validate = `${e.constructor.name}: ${e.message}`;
    }
    return {
      build: selfheal.initSync.length === 1 ? "web" : "node", // see tests/packaging/scenario.mjs
      steps,
      check: check(last.value),
      attempts: loop.attempts,
      parsed: schema.parse('{"town": 1}'),
      validate,
      // A schema the full build refuses (`type: 12`) has no compiler here to refuse it.
      odd: new Schema({ type: 12 }).text,
      repaired: selfheal.repairJson("{'a': True,}"),
      heal: typeof selfheal.heal,
    };
  } finally {
    loop.free();
    schema.free();
  }
}

// The one small loop every packaging target runs (Node ESM, Node CommonJS, a bundled browser
// page, a plain <script type="module"> page, a workerd worker). It receives the module that
// `selfheal` resolved to in that runtime and returns plain JSON, which the test compares across
// runtimes. Seeded and with explicit `now`, so every runtime must produce identical instructions.

export const SCHEMA = {
  type: "object",
  required: ["city"],
  properties: { city: { type: "string" } },
};

export function runScenario(selfheal) {
  const { RepairLoop } = selfheal;
  const now = 1_700_000_000_000;
  const steps = [];
  let loop = new RepairLoop({
    prompt: { system: "Reply with JSON only.", user: "What is the capital of France?" },
    schema: SCHEMA,
    seed: 42,
  });
  try {
    // 1. Rate limited with retry-after: wait, then resend the same prompt.
    const rateLimited = Object.assign(new Error("Too Many Requests"), { status: 429, headers: { "retry-after": "2" } });
    steps.push(loop.next({ kind: "error", error: rateLimited }, now));
    // The state survives a round trip through JSON (what a Durable Object stores across an alarm).
    const state = JSON.parse(JSON.stringify(loop.toJSON()));
    loop.free();
    loop = RepairLoop.fromJSON(state);
    // 2. Valid JSON of the wrong shape: one repair prompt.
    steps.push(loop.next({ kind: "reply", text: '{"town": "Paris"}' }, now + 2_100));
    // 3. A fenced reply with a trailing comma: repaired locally, done.
    steps.push(loop.next({ kind: "reply", text: '```json\n{"city": "Paris",}\n```' }, now + 3_000));
    return {
      // Which build the "selfheal" specifier resolved to: the web build's initSync is
      // wasm-bindgen's, which takes the module; the Node build's takes nothing (it is ready).
      build: selfheal.initSync.length === 1 ? "web" : "node",
      steps,
      attempts: loop.attempts,
      repaired: selfheal.repairJson("{'a': True,}"),
      // Every entry exports the host loop bound to its own RepairLoop.
      heal: typeof selfheal.heal,
      // Every entry's PartialJson runs a Standard Schema's own validate in finish() (this one
      // has no JSON Schema: the stream takes any JSON).
      partial: finishWithValidate(selfheal.PartialJson),
    };
  } finally {
    loop.free();
  }
}

function finishWithValidate(PartialJson) {
  const even = {
    "~standard": {
      version: 1,
      vendor: "scenario",
      validate: (v) => (v.n % 2 === 0 ? { value: v } : { issues: [{ message: "n must be even", path: ["n"] }] }),
    },
  };
  const p = new PartialJson(even);
  try {
    p.push('{"n": ');
    p.push("3}");
    return p.finish();
  } finally {
    p.free();
  }
}

// Tool calls in heal (issue 14 item 4, js/package/tools.mts): the official Anthropic and OpenAI
// SDKs against the local mock LLM server; arguments validated and repaired against the tool's
// schema, a reask that never replays the invalid tool input.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as z from "zod";

import { withMockLlm as withMock } from "../mock-llm/server.mjs";
import { heal, claudeCaller as claude, gptCaller as gpt } from "./heal_helpers.mjs";

const PROMPT = { system: "You look the weather up with the tool.", user: "What is the weather in Paris?" };
const WEATHER = {
  type: "object",
  required: ["city", "unit"],
  additionalProperties: false,
  properties: { city: { type: "string" }, unit: { enum: ["celsius", "fahrenheit"] } },
};
const TOOLS = { get_weather: { description: "Current weather of a city", inputSchema: WEATHER } };

test("OpenAI: broken tool-call arguments are repaired locally against the tool's schema (one request, id kept)", async () => {
  const broken = "{city: 'Paris', \"unit\": \"celsius\",}";
  await withMock([{ kind: "tool-call", name: "get_weather", arguments: broken, id: "call_42" }], async (mock) => {
    const result = await heal(gpt(mock), { prompt: PROMPT, tools: TOOLS });
    assert.equal(result.type, "done", JSON.stringify(result));
    assert.deepEqual(result.value, { id: "call_42", name: "get_weather", input: { city: "Paris", unit: "celsius" } });
    assert.equal(result.source, "locally-repaired");
    assert.ok(result.fixes.length > 0);
    assert.equal(mock.requests.length, 1);
    const sent = mock.requests[0].body;
    assert.equal(sent.tool_choice, "required");
    assert.deepEqual(sent.tools, [{ type: "function", function: { name: "get_weather", description: "Current weather of a city", parameters: WEATHER } }]);
  });
});

test("Anthropic: a tool input that fails its schema gets one reask quoting the issue, never replaying the input", async () => {
  await withMock([
    { kind: "tool-call", name: "get_weather", input: { city: "Paris", unit: "kelvin" }, id: "toolu_1" },
    { kind: "tool-call", name: "get_weather", input: { city: "Paris", unit: "celsius" }, id: "toolu_2" },
  ], async (mock) => {
    const steps = [];
    const result = await heal(claude(mock), { prompt: PROMPT, tools: TOOLS, onStep: (o, s) => steps.push([o.kind, s.type, s.strategy ?? null]) });
    assert.equal(result.type, "done", JSON.stringify(result));
    assert.deepEqual(result.value, { id: "toolu_2", name: "get_weather", input: { city: "Paris", unit: "celsius" } });
    assert.deepEqual(steps, [["reply", "send-repair-prompt", "reask"], ["reply", "done", null]]);
    assert.equal(mock.requests.length, 2);
    const [first, second] = mock.requests.map((r) => r.body);
    assert.deepEqual(first.tool_choice, { type: "any" });
    assert.deepEqual(first.tools[0].input_schema, WEATHER);
    // The reask: one user turn of text; no assistant turn, no tool_use or tool_result block.
    assert.equal(second.messages.length, 1);
    assert.equal(second.messages[0].role, "user");
    assert.equal(typeof second.messages[0].content, "string");
    assert.ok(second.messages[0].content.startsWith(PROMPT.user));
    assert.match(second.messages[0].content, /\/input\/unit/);
    assert.deepEqual(second.tools, first.tools, "the tools offered again");
  });
});

test("a Zod tool schema: its refinement is quoted under /input, the input returned is its output", async () => {
  const booking = z.object({ from: z.string().date(), to: z.string().date(), guests: z.number().int().transform((n) => ({ count: n })) })
    .refine((b) => b.to > b.from, { message: "to must be after from", path: ["to"] });
  await withMock([
    { kind: "tool-call", name: "book", input: { from: "2026-05-03", to: "2026-05-01", guests: 2 } },
    { kind: "tool-call", name: "book", input: { from: "2026-05-01", to: "2026-05-03", guests: 2 } },
  ], async (mock) => {
    const result = await heal(claude(mock), { prompt: PROMPT, tools: { book: { inputSchema: booking }, get_weather: TOOLS.get_weather } });
    assert.equal(result.type, "done", JSON.stringify(result));
    assert.equal(result.value.name, "book");
    assert.deepEqual(result.value.input, { from: "2026-05-01", to: "2026-05-03", guests: { count: 2 } });
    assert.match(mock.requests[1].userText, /- \/input\/to: to must be after from/);
    assert.equal(mock.requests[0].body.tools.length, 2);
    assert.equal(mock.requests[0].body.tools[0].input_schema.type, "object");
    assert.equal(mock.requests[0].body.tools[0].input_schema.$schema, undefined);
  });
});

test("a call to a tool that was not offered is reasked, naming the tools", async () => {
  await withMock([
    { kind: "tool-call", name: "get_wether", input: { city: "Paris", unit: "celsius" } },
    { kind: "tool-call", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
  ], async (mock) => {
    const result = await heal(gpt(mock), { prompt: PROMPT, tools: TOOLS });
    assert.equal(result.type, "done");
    assert.equal(result.value.name, "get_weather");
    assert.match(mock.requests[1].userText, /\/name/);
  });
});

test("a recursive tool schema (Zod writes its self-reference as $ref \"#\") validates against itself", async () => {
  // Before: `#` resolved to the call schema { name, input }, so every valid tree was refused.
  const Node = z.object({ name: z.string(), get children() { return z.array(Node).optional(); } });
  const call = (args) => async () => ({ text: "", toolCall: { id: "c1", name: "tree", arguments: args } });
  let result = await heal(call('{"name": "root", "children": [{"name": "leaf", "children": []}]}'), {
    prompt: PROMPT, budget: { repairable: 0 }, tools: { tree: { inputSchema: Node } },
  });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.deepEqual(result.value.input, { name: "root", children: [{ name: "leaf", children: [] }] });
  result = await heal(call('{"name": "root", "children": [{"children": []}]}'), {
    prompt: PROMPT, budget: { repairable: 0 }, tools: { tree: { inputSchema: Node } },
  });
  assert.equal(result.type, "degrade");
  assert.match(JSON.stringify(result.report), /\/input\/children\/0/);
});

test("a tool call's arguments cannot change which tool the provider reported", async () => {
  const tools = { ...TOOLS, delete_account: { inputSchema: { type: "object" } } };
  const reported = (args) => ({ text: "", toolCall: { id: "call_1", name: "get_weather", arguments: args } });
  const valid = '{"city": "Paris", "unit": "celsius"}';
  // Strict JSON once spliced in: a duplicate "name" after the arguments.
  let result = await heal(async () => reported(`${valid}, "name": "delete_account"`), { prompt: PROMPT, tools });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.deepEqual(result.value, { id: "call_1", name: "get_weather", input: { city: "Paris", unit: "celsius" } });
  // Not strict once spliced in: the closer before `, "name": …` is read as one too many, so the
  // arguments and the reported name are one object in which the reported name, last, wins; its
  // input fails the tool's schema, and the call is asked again.
  const replies = [reported(`{}, "name": "delete_account"}`), reported(valid)];
  const prompts = [];
  result = await heal(async (prompt) => (prompts.push(prompt.user), replies.shift()), { prompt: PROMPT, tools });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.equal(result.value.name, "get_weather");
  assert.equal(prompts.length, 2);
  assert.match(prompts[1], /\/input: "city" is a required property/);
  // Arguments that close the call early and then name another tool: the reported name, last,
  // still wins.
  result = await heal(async () => reported(`${valid}}, "name": "delete_account"`), { prompt: PROMPT, tools });
  assert.equal(result.type, "done", JSON.stringify(result));
  assert.deepEqual(result.value, { id: "call_1", name: "get_weather", input: { city: "Paris", unit: "celsius" } });
});

test("tools: with models, a model that takes no tools is passed over; wrong shapes are TypeErrors", async () => {
  await withMock([{ kind: "tool-call", name: "lookup", input: { q: "x" } }], async (mock) => {
    const never = Object.assign(async () => assert.fail("called"), { model: "plain" });
    const result = await heal({ prompt: PROMPT, tools: { lookup: { inputSchema: { type: "object" } } }, models: [{ callModel: never, tools: false }, gpt(mock)] });
    assert.equal(result.type, "done", JSON.stringify(result));
    assert.deepEqual(result.fellBackFrom.map((l) => [l.model, l.reason]), [["plain", "no-tools"]]);
  });
  const call = async () => ({ text: "" });
  await assert.rejects(heal(call, { prompt: PROMPT, tools: TOOLS, schema: WEATHER }), /options\.schema or options\.tools, not both/);
  await assert.rejects(heal(call, { prompt: PROMPT, tools: {} }), /options\.tools must be an object of tools by name/);
  await assert.rejects(heal(call, { prompt: PROMPT, tools: { t: { inputSchema: 3 } } }), /options\.tools\.t\.inputSchema/);
});

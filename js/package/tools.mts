// Tool calls in heal (issue 14 item 4): `heal(callModel, { prompt, tools: { name: { description?,
// inputSchema } } })`.
//
// heal hands the tool definitions (JSON Schema of each input) to callModel in its context; the
// adapters (anthropicCaller, openaiCaller) send them in their SDK's shape with the choice
// "required" (Anthropic `tool_choice: { type: "any" }`, OpenAI `tool_choice: "required"`), and
// report the tool call of a reply as `toolCall: { id, name, arguments }` (arguments as text,
// verbatim: OpenAI's may be broken JSON; Anthropic's is its `input`, stringified).
//
// What the loop checks is the call as `{"name": …, "input": <arguments as written>}` against one
// schema: `name` one of the tools, `input` that tool's input schema (`allOf` of `if name … then
// input …`). So local repair mends broken arguments, an issue is quoted with its path
// (`/input/unit: …`), and the loop's reask (the default mode with tools) asks again in text: the
// prompt sent is system + user, never a replay of the invalid tool input, which Anthropic and
// Bedrock reject. A tool whose schema is a Standard Schema (Zod, Valibot, ArkType) has its
// library's validate run on the accepted input, its issues quoted under `/input`.
//
// The `done` value is `{ id, name, input }`: `input` the library's output for a Standard Schema.

import { isStandardSchema } from "./standard.mjs";
import { prepareSchema } from "./heal-schema.mjs";
import type { Accepted } from "./heal-schema.mjs";

/** A tool heal offers the model: its input schema (JSON Schema or Standard Schema). */
export interface ToolSpec {
  description?: string;
  inputSchema: object;
}
/** What callModel receives in `context.tools`: each tool's input as JSON Schema. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}
/** A tool call as an adapter reports it. */
export interface ToolCall {
  id?: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
}

export interface PreparedTools {
  definitions: ToolDefinition[];
  loopSchema: Record<string, unknown>;
  /** The reply text the loop parses: the tool call as `{"name", "input"}`, else the text. */
  replyText(reply: { text?: unknown; toolCall?: ToolCall | null }): unknown;
  /** The library validate of the called tool's input; the value becomes `{ id, name, input }`. */
  accept(value: unknown): Promise<Accepted>;
}

/** Check `options.tools`, convert each input schema, and build the loop's schema. */
export async function prepareTools(tools: unknown, warn: (message: string) => void): Promise<PreparedTools> {
  if (tools === null || typeof tools !== "object" || Array.isArray(tools) || Object.keys(tools).length === 0) {
    throw new TypeError("heal: options.tools must be an object of tools by name: { [name]: { description?, inputSchema } }");
  }
  const definitions: ToolDefinition[] = [];
  const checks = new Map<string, (input: unknown) => Promise<Accepted>>();
  const branches: object[] = [];
  for (const [name, spec] of Object.entries(tools as Record<string, ToolSpec>)) {
    const schema = spec?.inputSchema;
    if (schema === null || typeof schema !== "object") throw new TypeError(`heal: options.tools.${name}.inputSchema must be a JSON Schema or a Standard Schema`);
    if (spec.description !== undefined && typeof spec.description !== "string") throw new TypeError(`heal: options.tools.${name}.description must be a string`);
    const prepared = await prepareSchema(schema, warn);
    const json = prepared.loopSchema === true ? {} : (prepared.loopSchema as Record<string, unknown>);
    definitions.push({ name, ...(spec.description ? { description: spec.description } : {}), inputSchema: json });
    checks.set(name, isStandardSchema(schema) ? prepared.accept : async (value) => ({ ok: true, value }));
    branches.push({ if: { properties: { name: { const: name } } }, then: { properties: { input: embedded(json, name) } } });
  }
  const loopSchema = {
    type: "object",
    required: ["name", "input"],
    additionalProperties: false,
    properties: { name: { enum: definitions.map((d) => d.name) }, input: {} },
    allOf: branches,
  };
  let lastId: string | undefined;
  let lastName: string | undefined;
  return {
    definitions,
    loopSchema,
    replyText(reply) {
      const call = reply?.toolCall;
      lastId = typeof call?.id === "string" ? call.id : undefined;
      lastName = undefined;
      if (call === null || typeof call !== "object" || typeof call.name !== "string") return reply?.text;
      lastName = call.name;
      const args = typeof call.arguments === "string" && call.arguments.trim() !== "" ? call.arguments : "{}";
      // The arguments are the model's text, spliced in as data: the name the provider reported
      // comes last (of duplicate keys the last wins), and accept refuses any other name, so
      // arguments such as `{…}, "name": "other_tool"` cannot change which tool was called.
      return `{"input": ${args}, "name": ${JSON.stringify(call.name)}}`;
    },
    async accept(value) {
      const { name, input } = value as { name: string; input: unknown };
      if (lastName !== undefined && name !== lastName) {
        return { ok: false, outcome: { kind: "rejected", reason: `- /input: the arguments of ${JSON.stringify(lastName)} must be one JSON object` } };
      }
      const check = checks.get(name);
      const checked = check ? await check(input) : { ok: true as const, value: input };
      if (!checked.ok) {
        // The library's issues, re-quoted under /input (where the loop's own issues point).
        const reason = checked.outcome.reason.replace(/^- (\(root\)|\/)/gm, (_, p: string) => (p === "(root)" ? "- /input" : "- /input/"));
        return { ok: false, outcome: { kind: "rejected", reason } };
      }
      return { ok: true, value: { ...(lastId !== undefined ? { id: lastId } : {}), name, input: checked.value } };
    },
  };
}

/**
 * A tool's input schema nested under the call schema: `$schema` dropped (only a root may say
 * it), and an `$id` of its own (unless it has one), so its references resolve against it:
 * `#/$defs/…`, and `#` itself, which Zod writes for a schema that contains itself (without the
 * `$id`, `#` was the call schema `{ name, input }`).
 */
function embedded(schema: Record<string, unknown>, name: string): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema;
  if (typeof rest.$id === "string") return rest;
  return { $id: `urn:selfheal:tool:${encodeURIComponent(name)}`, ...rest };
}

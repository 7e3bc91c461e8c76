// selfheal for the AI SDK (`ai` 7.x, LanguageModelV4), SPEC section 11:
//
//   selfhealMiddleware(options)  for wrapLanguageModel: selfheal's classification, per-class
//                                budgets, backoff, retry-after, deadline, circuit breaker and
//                                retry budget on doGenerate and doStream; structured output
//                                (responseFormat json) repaired locally, then reasked; a
//                                streamed one too with structuredStreams: "buffer"
//   repairText(options)          generateObject's `repairText`: local repair and schema-aligned
//                                parsing first, then one repair call carrying the issues
//   repairToolCall(options)      `repairToolCall` of generateText / streamText: arguments
//                                repaired against the tool's input schema, else one reask
//                                quoting the issues; the tool name and call id are kept
//
// selfheal must be the only retry policy: call the SDK with `maxRetries: 0`. The middleware
// warns once when it sees the SDK retry a call it gave up on, and makes no call for that retry.
//
// This module takes selfheal by injection (`createSelfhealAi({ RepairLoop, parseStructured,
// buildRepairPrompt })`), so it works with any entry of the package; `selfheal/ai` binds it to
// the entry a runtime resolves. It imports nothing from `ai`: it implements the
// LanguageModelV4 middleware and callback shapes as the SDK's own .d.ts files declare them.
import { formatIssues, isStandardSchema, issuePointer, resolveSchema } from "./standard.mjs";
import { isTracer, startModelCall } from "./otel.mjs";
import { sleep } from "./sleep.mjs";

/** Parts of a stream that carry no model output yet (metadata, a provider's custom events, the
 * start of a block): held back until the first output, so a retry before it loses nothing. */
const PRELUDE_PARTS = new Set(["stream-start", "response-metadata", "raw", "ping", "custom", "text-start", "reasoning-start"]);

/** AI SDK finish reasons (unified) as the stop reasons SPEC section 4 knows. */
const UNIFIED_STOP = new Map([
  ["stop", "stop"], ["length", "length"], ["content-filter", "content_filter"], ["tool-calls", "tool_calls"], ["interrupted", "incomplete"],
]);

/** The mark of an AI SDK Schema (provider-utils' `schemaSymbol`). */
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

/** Host keys of selfhealMiddleware's options; everything else goes to the RepairLoop. */
const MIDDLEWARE_KEYS = new Set(["breaker", "retryBudget", "tracer", "structured", "structuredStreams", "onStep", "warn", "system"]);

/** The error selfheal throws when it stops a call that has no error of its own to throw. */
export class SelfhealError extends Error {
  constructor(instruction) {
    super(`selfheal: ${instruction.reason}: ${instruction.detail}`);
    this.name = "SelfhealError";
    /** The `degrade` instruction that stopped the call. */
    this.instruction = instruction;
  }
}

/**
 * Bind the AI SDK parts to a selfheal build.
 * @param {{ RepairLoop: Function, parseStructured: Function, buildRepairPrompt: Function }} selfheal
 */
export function createSelfhealAi(selfheal) {
  const { RepairLoop, parseStructured, buildRepairPrompt, classify } = selfheal ?? {};
  if (typeof RepairLoop !== "function" || typeof parseStructured !== "function" || typeof buildRepairPrompt !== "function" || typeof classify !== "function") {
    throw new TypeError("createSelfhealAi: pass the selfheal module (RepairLoop, parseStructured, buildRepairPrompt, classify)");
  }
  /** The degrade instruction behind each error the middleware gave up on. */
  const degrades = new WeakMap();

  /**
   * The `degrade` instruction with which selfheal gave up on the call that threw `error`
   * (null for an error selfheal did not stop on).
   */
  function degradeOf(error) {
    return error !== null && typeof error === "object" ? (degrades.get(error) ?? null) : null;
  }

  function selfhealMiddleware(options = {}) {
    if (options === null || typeof options !== "object") throw new TypeError("selfhealMiddleware: options must be an object");
    const { breaker, retryBudget, tracer, structured = true, structuredStreams = "pass", onStep, warn = defaultWarn, system } = options;
    if (structuredStreams !== "pass" && structuredStreams !== "buffer") {
      throw new TypeError(`selfhealMiddleware: options.structuredStreams must be "pass" or "buffer", got ${typeof structuredStreams === "string" ? JSON.stringify(structuredStreams) : typeof structuredStreams}`);
    }
    const loopOptions = {};
    for (const [k, v] of Object.entries(options)) if (!MIDDLEWARE_KEYS.has(k)) loopOptions[k] = v;
    if (tracer !== undefined && !isTracer(tracer)) throw new TypeError("selfhealMiddleware: options.tracer must be an @opentelemetry/api Tracer");
    // The breaker and the retry budget go to each call's loop, which records the first call and
    // asks the budget before every resend (SPEC section 10): nothing is counted here as well.
    const shared = [breaker ?? null, retryBudget ?? null];
    // Fail on bad loop options (a breaker or budget that is not selfheal's included) now, not at the first call.
    new RepairLoop(loopFor(loopOptions, null), ...shared).free();

    // Prompts of the calls selfheal gave up on, with what it threw. The SDK reuses the prompt
    // array when its own retry loop calls again, so a second call with one of them is the
    // SDK retrying: warn once, and answer it with the same error without calling the provider.
    const givenUp = new WeakMap();
    let warned = false;

    async function run(kind, firstCall, params, model) {
      const previous = params?.prompt && givenUp.get(params.prompt);
      if (previous) {
        if (!warned) {
          warned = true;
          warn("selfheal: the AI SDK is retrying a call selfheal already gave up on; set maxRetries: 0 on the SDK call so that selfheal is the only retry policy (no request was sent for this retry)");
        }
        throw previous;
      }
      const responseFormat = params?.responseFormat;
      // A streamed JSON response is repaired only when it is held back whole ("buffer"): the
      // deltas of a passed-through stream have already reached the caller.
      const buffered = kind === "stream" && structuredStreams === "buffer";
      const repairing = structured && (kind === "generate" || buffered) && responseFormat?.type === "json";
      // A call that offers tools is judged whole: its text may come before the tool call, and
      // a step that calls a tool goes to the SDK as it is (below).
      const pushing = !(Array.isArray(params?.tools) && params.tools.length > 0);
      const open = (doStream, sent) => (repairing ? collectStream(doStream, pushing ? loop : null, sent.prompt) : openStream(doStream));
      const loop = new RepairLoop(loopFor(loopOptions, repairing ? (responseFormat.schema ?? true) : null), ...shared);
      const signal = params?.abortSignal;
      const spanBase = { system: system ?? providerName(model), model: model?.modelId };
      let callParams = params;
      let call = kind === "generate" ? firstCall : () => open(firstCall, params);
      let attempt = 1;
      let loopUser = "";
      let lastError = null;
      let used; // the usage of every call this run made, added up (the SDK reports the result's)
      // A reply as it goes back to the SDK, reporting the usage of every call: a collected stream
      // replayed, a generated result or a passed-through stream as it is; with `text` (the JSON
      // selfheal accepted) in place of the model's.
      const answer = (result, text) => {
        const r = withUsage(result, used);
        if (kind === "stream" && repairing) return replayed(r, text);
        return text === undefined ? r : withStructuredText(r, text);
      };
      const giveUp = (step, error) => {
        const thrown = error ?? new SelfhealError(step);
        degrades.set(thrown, step);
        if (params?.prompt && typeof params.prompt === "object") givenUp.set(params.prompt, thrown);
        return thrown;
      };
      try {
        if (breaker && breaker.isOpen(Date.now())) {
          throw giveUp(syntheticDegrade("circuit-open", "the circuit breaker is open; no call was made", 0, null));
        }
        for (;;) {
          const span = tracer ? startModelCall(tracer, { ...spanBase, attempt }) : null;
          let result;
          let outcome;
          try {
            result = await call();
          } catch (error) {
            if (signal?.aborted) {
              span?.error(error);
              span?.end();
              throw error;
            }
            lastError = error;
            span?.error(error);
            outcome = { kind: "error", error: forClassify(error) };
          }
          if (result !== undefined) {
            used = addUsage(used, result.usage);
            span?.reply({ usage: usageOf(result.usage), responseModel: result.response?.modelId });
            // A step that calls a tool is not the structured answer yet (the SDK sends
            // responseFormat on every step of an agent): the SDK runs the tool, as it would
            // without selfheal.
            if (!repairing || callsTool(result)) {
              // Not fed to the loop, so the loop has not counted this first call: count it here.
              if (attempt === 1) retryBudget?.recordRequest(Date.now());
              const done = syntheticDone(attempt);
              onStep?.({ kind: "reply" }, done);
              // A passed-through stream is judged when it ends: its span then has the usage and
              // the model, and the breaker hears of an error part as a failure (a provider that
              // fails mid-stream every time would otherwise count as answering).
              if (kind === "stream" && !repairing) {
                return followedStream(result, (error, { usage, responseModel }) => {
                  if (error !== null && classify(forClassify(error)).class === "transient") breaker?.recordFailure(Date.now());
                  else breaker?.recordSuccess();
                  if (error !== null) span?.error(error);
                  span?.reply({ usage: usageOf(usage), responseModel });
                  span?.instruction(done);
                });
              }
              breaker?.recordSuccess();
              span?.instruction(done);
              return answer(result);
            }
            // Cut at its first violation: the pushed text is the reply (SPEC section 8).
            outcome = result.cut ? { kind: "reply", stopReason: "aborted" } : replyOutcome(result);
          }
          const step = loop.next(outcome);
          onStep?.(outcome, step);
          span?.instruction(step);
          switch (step.type) {
            case "done":
              return answer(result, step.source === "first-pass" ? undefined : step.text);
            case "degrade":
              // A reply that stayed invalid: the SDK reports it.
              if (result !== undefined) return answer(result);
              throw giveUp(step, lastError);
            case "wait-for-backoff":
            case "send-repair-prompt": {
              if (step.type === "wait-for-backoff") {
                if (!(await sleep(step.delayMs, signal))) throw abortError(signal);
              } else {
                // Aborted while the last call ran (a model that does not heed the signal): no
                // repair call is sent for it.
                if (signal?.aborted) throw abortError(signal);
                callParams = repairedParams(callParams, step, loopUser, result);
                loopUser = step.prompt.user;
              }
              const sending = callParams;
              call = kind === "generate"
                ? (sending === params ? firstCall : () => model.doGenerate(sending))
                : () => open(sending === params ? firstCall : () => model.doStream(sending), sending);
              attempt = step.attempt;
              break;
            }
            default:
              throw new Error(`selfheal: unknown instruction ${JSON.stringify(step.type)}`);
          }
        }
      } finally {
        loop.free();
      }
    }

    return {
      specificationVersion: "v4",
      wrapGenerate: ({ doGenerate, params, model }) => run("generate", doGenerate, params, model),
      wrapStream: ({ doStream, params, model }) => run("stream", doStream, params, model),
    };
  }

  /**
   * The host loop of repairText and repairToolCall. The reply the SDK could not use is call 1;
   * every `done` value goes through `check` (the schema library's validate), whose rejection
   * goes back to the loop; every call the loop asks for goes through `send(prompt)`, which
   * resolves `{ outcome, usage, responseModel }` or throws. Resolves the accepted `done`, or null.
   */
  async function driveRepair({ loop, raw, check, send, rewrite, model, tracer, onStep, signal }) {
    let outcome = { kind: "reply", text: raw };
    let step = loop.next(outcome);
    for (;;) {
      onStep?.(outcome, step);
      if (step.type === "done") {
        const checked = await check(step.value);
        if (checked.ok) return step;
        outcome = checked.outcome;
        step = loop.next(outcome);
        onStep?.(outcome, step);
        if (step.type === "send-repair-prompt" && rewrite) step = rewrite(step, checked.issues, raw);
      }
      if (step.type === "degrade" || model === undefined) return null;
      if (step.type === "wait-for-backoff" && !(await sleep(step.delayMs, signal))) return null;
      const span = tracer ? startModelCall(tracer, { system: providerName(model), model: model.modelId, attempt: step.attempt }) : null;
      try {
        const sent = await send(step.prompt);
        span?.reply({ usage: sent.usage, responseModel: sent.responseModel });
        outcome = sent.outcome;
        raw = outcome.text;
      } catch (error) {
        span?.error(error);
        // A call the middleware already gave up on is final here too; so is an abort.
        if (degradeOf(error) || signal?.aborted) {
          span?.end();
          return null;
        }
        outcome = { kind: "error", error: forClassify(error) };
      }
      step = loop.next(outcome);
      span?.instruction(step);
    }
  }

  /**
   * `repairText` for generateObject / streamObject: local repair and schema-aligned parsing of
   * the text the SDK could not use, the schema library's own validate (a Standard Schema), and
   * when that is not enough one repair call through `model` carrying the issues, within the
   * loop's budgets. Resolves the JSON text to parse, or null (the SDK then throws its error).
   */
  function repairText(options = {}) {
    if (options === null || typeof options !== "object") throw new TypeError("repairText: options must be an object");
    const { model, schema, prompt, system, tracer, onStep, output = "object", ...loopOptions } = options;
    if (schema === undefined) throw new TypeError("repairText: options.schema is required (the schema given to generateObject)");
    if (output !== "object" && output !== "array") {
      throw new TypeError('repairText: options.output must be "object" or "array" (the output given to generateObject)');
    }
    if (model !== undefined && !isLanguageModel(model)) throw new TypeError("repairText: options.model must be a LanguageModelV4");
    const base = basePrompt(system, prompt);
    // With output "array" the SDK asks for, and reads, `{ "elements": [...] }` of the schema.
    const resolving = resolveAnySchema(schema).then((r) => {
      const request = requestSchemaOf(schema, r);
      return output === "array" ? { ...asElements(r), request: elementsOf(request, "http://json-schema.org/draft-07/schema#") } : { ...r, request };
    });
    resolving.catch(() => {}); // reported by the first repair that awaits it
    return async ({ text }) => {
      const resolved = await resolving;
      const responseFormat = { type: "json", ...(resolved.request === true ? {} : { schema: resolved.request }) };
      // With the caller's prompt, every repair is a reask of it (as documented); without it, a
      // self-contained fix prompt (rewrite below).
      const loop = new RepairLoop({ mode: base === null ? "fix" : "reask", ...loopOptions, prompt: base ?? { system: "", user: "" }, schema: resolved.jsonSchema });
      try {
        const done = await driveRepair({
          loop, raw: String(text ?? ""), check: resolved.check, model, tracer, onStep,
          send: async (p) => {
            const result = await model.doGenerate({ prompt: v4Prompt(p), responseFormat });
            return { outcome: replyOutcome(result), usage: usageOf(result.usage), responseModel: result.response?.modelId };
          },
          // Without the original prompt there is no conversation to append a correction to: a
          // self-contained fix prompt quoting the same issues instead (the loop still decided
          // that a call may be made).
          rewrite: base === null
            ? (step, issues, raw) => ({ ...step, prompt: buildRepairPrompt(reportOf(issues), resolved.jsonSchema === true ? {} : resolved.jsonSchema, raw) })
            : null,
        });
        return done === null ? null : done.text;
      } finally {
        loop.free();
      }
    };
  }

  /**
   * `repairToolCall` for generateText / streamText: the call's arguments are parsed and
   * repaired locally against the tool's input schema (and its Standard Schema validate); when
   * that fails, one reask through `model` (the instructions and the last user turn, the issues
   * appended, the tool forced), never replaying the invalid input. Resolves the tool call with
   * its name and id unchanged and repaired `input`, or null.
   */
  function repairToolCall(options = {}) {
    if (options === null || typeof options !== "object") throw new TypeError("repairToolCall: options must be an object");
    const { model, tracer, onStep, ...loopOptions } = options;
    if (model !== undefined && !isLanguageModel(model)) throw new TypeError("repairToolCall: options.model must be a LanguageModelV4");
    return async ({ toolCall, tools, inputSchema, error, messages, instructions, system, abortSignal }) => {
      if (error?.name === "AI_NoSuchToolError" || toolCall === null || typeof toolCall !== "object") return null;
      const tool = tools?.[toolCall.toolName];
      if (!tool) return null;
      const declared = isStandardSchema(tool.inputSchema) ? await resolveSchema(tool.inputSchema) : null;
      const jsonSchema = declared && declared.jsonSchema !== true ? declared.jsonSchema : await inputSchema({ toolName: toolCall.toolName });
      const check = declared ? declared.check : async (value) => ({ ok: true, value });
      const base = { system: instructionsText(instructions ?? system), user: lastUserText(messages) };
      const loop = new RepairLoop({ mode: "reask", ...loopOptions, prompt: base, schema: jsonSchema });
      try {
        const done = await driveRepair({
          loop, raw: typeof toolCall.input === "string" ? toolCall.input : JSON.stringify(toolCall.input ?? null),
          check, model, tracer, onStep, signal: abortSignal,
          send: async (p) => {
            const result = await model.doGenerate({
              prompt: v4Prompt(p),
              tools: [{ type: "function", name: toolCall.toolName, description: tool.description, inputSchema: jsonSchema }],
              toolChoice: { type: "tool", toolName: toolCall.toolName },
              ...(abortSignal ? { abortSignal } : {}),
            });
            const again = (result.content ?? []).find((part) => part?.type === "tool-call" && part.toolName === toolCall.toolName);
            const text = again ? (typeof again.input === "string" ? again.input : JSON.stringify(again.input)) : textOf(result);
            return { outcome: { kind: "reply", text }, usage: usageOf(result.usage), responseModel: result.response?.modelId };
          },
        });
        return done === null ? null : { ...toolCall, input: done.text };
      } finally {
        loop.free();
      }
    };
  }

  return { selfhealMiddleware, repairText, repairToolCall, degradeOf };
}

// ---------- helpers (no selfheal state) ----------

function loopFor(loopOptions, schema) {
  const o = { mode: "reask", ...loopOptions, prompt: { system: "", user: "" } };
  if (schema !== null) o.schema = schema;
  else delete o.schema;
  return o;
}

function defaultWarn(message) {
  console.warn(message);
}

function isLanguageModel(model) {
  return model !== null && typeof model === "object" && typeof model.doGenerate === "function";
}

/** "anthropic.messages" -> "anthropic", as gen_ai.system names providers. */
function providerName(model) {
  const p = typeof model?.provider === "string" ? model.provider : "";
  return p.split(".")[0] || undefined;
}

/**
 * What classify reads, from an AI SDK error: APICallError keeps the status in `statusCode`
 * (which classify reads) but the headers in `responseHeaders` and the provider's error body
 * in `data`, where classify does not look. Anything else goes to classify as it is.
 */
export function forClassify(error) {
  if (error === null || typeof error !== "object") return error;
  const hasHeaders = error.responseHeaders && typeof error.responseHeaders === "object" && error.headers === undefined;
  const data = error.data;
  if (!hasHeaders && (data === undefined || data === null)) return error;
  const view = {
    name: error.name,
    message: error.message,
    status: error.status ?? error.statusCode,
    headers: hasHeaders ? error.responseHeaders : error.headers,
    code: error.code,
    type: error.type,
    cause: error.cause,
  };
  // Anthropic: { type: "error", error: { type, message } }; OpenAI: { error: { message, type, code } }.
  const inner = data && typeof data === "object" ? (data.error ?? data) : undefined;
  if (inner && typeof inner === "object") view.error = inner;
  return view;
}

function usageOf(usage) {
  if (!usage) return undefined;
  const input = typeof usage.inputTokens === "object" ? usage.inputTokens?.total : usage.inputTokens;
  const output = typeof usage.outputTokens === "object" ? usage.outputTokens?.total : usage.outputTokens;
  return { inputTokens: input, outputTokens: output };
}

function textOf(result) {
  if (typeof result?.structuredOutputText === "string") return result.structuredOutputText;
  return (result?.content ?? []).filter((p) => p?.type === "text").map((p) => p.text).join("");
}

/**
 * The SDK's unified finish reason, as SPEC section 4 names it; the provider's raw one only when
 * the unified one says nothing SPEC knows (`other`, `unknown`): a raw word SPEC does not list
 * (Cohere's `COMPLETE` under a unified `stop`) would otherwise read as cut off.
 */
function stopReasonOf(result) {
  const f = result?.finishReason;
  const unified = UNIFIED_STOP.get(typeof f === "string" ? f : f?.unified);
  if (unified !== undefined) return unified;
  if (typeof f?.raw === "string" && f.raw.length > 0) return f.raw;
  return undefined;
}

function replyOutcome(result) {
  const outcome = { kind: "reply", text: textOf(result) };
  const stopReason = stopReasonOf(result);
  if (stopReason !== undefined) outcome.stopReason = stopReason;
  const usage = usageOf(result?.usage);
  if (Number.isFinite(usage?.inputTokens) && Number.isFinite(usage?.outputTokens)) outcome.usage = usage;
  return outcome;
}

/**
 * The stream result, followed: `settle(error, { usage, responseModel })` is called once, when the
 * stream ends (error null), is cancelled (null), fails a read or carries an error part (that
 * error), with the usage (`finish`) and the model that answered (`response-metadata`) seen so far.
 * The parts reach the caller unchanged.
 */
function followedStream(result, settle) {
  const reader = result.stream.getReader();
  let usage;
  let responseModel;
  let settled = false;
  const end = (error) => {
    if (settled) return;
    settled = true;
    settle(error, { usage, responseModel });
  };
  const stream = new ReadableStream({
    async pull(controller) {
      let read;
      try {
        read = await reader.read();
      } catch (error) {
        end(error);
        controller.error(error);
        return;
      }
      const { done, value } = read;
      if (done) {
        end(null);
        controller.close();
        return;
      }
      if (value?.type === "response-metadata" && value.modelId) responseModel = value.modelId;
      if (value?.type === "finish") usage = value.usage;
      if (value?.type === "error") end(value.error);
      controller.enqueue(value);
    },
    cancel(reason) {
      end(null);
      return reader.cancel(reason);
    },
  });
  return { ...result, stream };
}

/** The SDK's `{ elements }` wrapper of an element schema (Output.array, generateObject's
 * `output: "array"`), with `$schema` written as the SDK's request writes it, or left out. */
function elementsOf(element, $schema) {
  const { $schema: _dropped, definitions, $defs, ...items } = element === true ? {} : element;
  return {
    ...($schema !== undefined ? { $schema } : {}),
    ...(definitions !== undefined ? { definitions } : {}),
    ...($defs !== undefined ? { $defs } : {}),
    type: "object",
    properties: { elements: { type: "array", items } },
    required: ["elements"],
    additionalProperties: false,
  };
}

/**
 * The JSON Schema the SDK's own call sends for `schema` (provider-utils' `asSchema`): a
 * Standard Schema's draft-07 input schema with `additionalProperties: false` on every object
 * that does not say what its extra keys may be, which OpenAI's strict mode asks for. The
 * repair call sends it too, so a provider that took the first call takes the repair; the loop
 * itself checks against the library's own schema (`resolved.jsonSchema`), which is no stricter
 * than what the library's validate accepts. A library without Standard JSON Schema (Zod before
 * 4.2) gives the schema selfheal converted (draft 2020-12), its objects closed the same way. An
 * AI SDK `jsonSchema()` or a plain JSON Schema is sent as it is, as the SDK sends it.
 */
function requestSchemaOf(schema, resolved) {
  if (!resolved.standard) return resolved.jsonSchema;
  let json = resolved.jsonSchema;
  try {
    const converted = schema["~standard"].jsonSchema?.input({ target: "draft-07" });
    if (converted !== null && typeof converted === "object") json = converted;
  } catch {
    // The library could not write draft-07: the schema it gave for the loop.
  }
  return closedObjects(json);
}

/** provider-utils' addAdditionalPropertiesToJsonSchema, without changing its argument: the
 * same places visited (properties, items, anyOf, allOf, oneOf, definitions), and `$defs`, where
 * a library without draft-07 output (Zod before 4.2, converted by its own toJSONSchema) keeps
 * its definitions. */
function closedObjects(s) {
  if (s === null || typeof s !== "object" || Array.isArray(s)) return s;
  const out = { ...s };
  if (out.type === "object" || (Array.isArray(out.type) && out.type.includes("object"))) {
    const extra = out.additionalProperties;
    out.additionalProperties = extra != null && typeof extra !== "boolean" ? closedObjects(extra) : false;
    if (out.properties != null) out.properties = mapValues(out.properties, closedObjects);
  }
  if (out.items != null) out.items = Array.isArray(out.items) ? out.items.map(closedObjects) : closedObjects(out.items);
  for (const key of ["anyOf", "allOf", "oneOf"]) if (Array.isArray(out[key])) out[key] = out[key].map(closedObjects);
  for (const key of ["definitions", "$defs"]) if (out[key] != null) out[key] = mapValues(out[key], closedObjects);
  return out;
}

function mapValues(object, f) {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, f(v)]));
}

/**
 * A resolved schema as generateObject's array output has it: `{ "elements": [<schema>...] }`,
 * the element schema's definitions hoisted to the root (as the SDK writes it, so `#/$defs/…`
 * still resolves), and the library's check run on each element, its issues under
 * `/elements/<i>`.
 */
function asElements(resolved) {
  const jsonSchema = elementsOf(resolved.jsonSchema);
  const check = async (value) => {
    const elements = Array.isArray(value?.elements) ? value.elements : [];
    const out = [];
    const issues = [];
    for (const [i, el] of elements.entries()) {
      const r = await resolved.check(el);
      if (r.ok) out.push(r.value);
      else issues.push(...r.issues.map((issue) => ({ ...issue, path: ["elements", i, ...(Array.isArray(issue?.path) ? Array.from(issue.path) : [])] })));
    }
    if (issues.length === 0) return { ok: true, value: { elements: out } };
    const reason = formatIssues(issues);
    return { ok: false, issues, reason, outcome: { kind: "rejected", reason } };
  };
  return { ...resolved, jsonSchema, check };
}

/** A model result that calls a tool (a `tool-call` part, or the unified finish reason says so). */
function callsTool(result) {
  const parts = Array.isArray(result?.content) ? result.content : [];
  const finish = result?.finishReason;
  return parts.some((p) => p?.type === "tool-call") || (typeof finish === "string" ? finish : finish?.unified) === "tool-calls";
}

/**
 * Usage of two calls added field by field: the SDK's nested `{ total, noCache, ... }` shape or
 * flat numbers alike; a field one of them lacks is the other's.
 */
function addUsage(a, b) {
  if (a === undefined || a === null) return b;
  if (b === undefined || b === null) return a;
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (typeof a !== "object" || typeof b !== "object") return b;
  const sum = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key !== "__proto__") sum[key] = addUsage(a[key], b[key]);
  }
  return sum;
}

/** The result of the last call, reporting the usage of every call the run made. */
function withUsage(result, used) {
  return used === undefined || used === result.usage ? result : { ...result, usage: used };
}

/** The result with the JSON selfheal accepted as the text the SDK parses (content unchanged). */
function withStructuredText(result, text) {
  return { ...result, structuredOutputText: text };
}

/**
 * The call after a repair instruction. "reask": the conversation so far, the reply that failed
 * as the assistant's turn, and the loop's correction as a new user turn. "fix" / "alternate":
 * the loop's self-contained prompt in place of the conversation.
 */
function repairedParams(params, step, loopUser, result) {
  if (step.strategy === "reask") {
    const correction = step.prompt.user.slice(loopUser.length).replace(/^\s+/, "");
    const reply = textOf(result);
    const prompt = [...params.prompt];
    if (reply.length > 0) prompt.push({ role: "assistant", content: [{ type: "text", text: reply }] });
    prompt.push({ role: "user", content: [{ type: "text", text: correction }] });
    return { ...params, prompt };
  }
  return { ...params, prompt: v4Prompt(step.prompt) };
}

function v4Prompt({ system, user }) {
  const prompt = [];
  if (system) prompt.push({ role: "system", content: system });
  prompt.push({ role: "user", content: [{ type: "text", text: user }] });
  return prompt;
}

function basePrompt(system, prompt) {
  if (prompt === undefined && system === undefined) return null;
  if (prompt !== undefined && typeof prompt !== "string") throw new TypeError("repairText: options.prompt must be a string (the prompt given to generateObject)");
  if (system !== undefined && typeof system !== "string") throw new TypeError("repairText: options.system must be a string");
  return { system: system ?? "", user: prompt ?? "" };
}

function instructionsText(instructions) {
  if (typeof instructions === "string") return instructions;
  if (Array.isArray(instructions)) return instructions.map(instructionsText).join("\n");
  if (instructions && typeof instructions.content === "string") return instructions.content;
  return "";
}

/** The text of the last user turn of AI SDK ModelMessages (text parts only). */
function lastUserText(messages) {
  const list = Array.isArray(messages) ? messages : [];
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i];
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) return m.content.filter((p) => p?.type === "text").map((p) => p.text).join("\n");
  }
  return "";
}

/** A Standard Schema, an AI SDK Schema (`jsonSchema()`, `zodSchema()`) or a JSON Schema. */
async function resolveAnySchema(schema) {
  if (isStandardSchema(schema)) return resolveSchema(schema);
  // An AI SDK Schema (`jsonSchema()`, `zodSchema()`): marked by the SDK's symbol; `validate`
  // is optional (without it the JSON Schema alone decides).
  if (schema && typeof schema === "object" && "jsonSchema" in schema && (schema[AI_SDK_SCHEMA] === true || typeof schema.validate === "function")) {
    const jsonSchema = await schema.jsonSchema;
    return {
      standard: false, jsonSchema, source: "ai-sdk-schema", vendor: null, note: null,
      check: async (value) => {
        if (typeof schema.validate !== "function") return { ok: true, value };
        const r = await schema.validate(value);
        if (r?.success) return { ok: true, value: r.value };
        const reason = `- (root): ${String(r?.error?.message ?? "invalid").replace(/\s+/g, " ")}`;
        return { ok: false, issues: [{ message: r?.error?.message ?? "invalid" }], reason, outcome: { kind: "rejected", reason } };
      },
    };
  }
  return resolveSchema(schema);
}

function reportOf(issues) {
  return {
    kinds: ["schema"],
    issues: issues.map((issue) => ({ kind: "schema", path: issuePointer(issue), message: String(issue?.message ?? "invalid") })),
  };
}

function syntheticDone(attempts) {
  return { type: "done", value: null, text: "", source: "first-pass", fixes: [], attempts, costUsd: 0 };
}

function syntheticDegrade(reason, detail, attempts, classified) {
  return { type: "degrade", reason, detail, fallback: null, report: null, classified: classified ?? null, attempts, costUsd: 0 };
}

/**
 * Open a stream and read it up to its first part of model output. An error before that (the
 * call threw, the stream errored, or an `error` part arrived) is thrown, so the call can be
 * retried; from the first output on, every part, errors included, goes to the caller as is.
 */
async function openStream(doStream) {
  const result = await doStream();
  const reader = result.stream.getReader();
  const held = [];
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      if (value?.type === "error") throw value.error;
      held.push(value);
      const empty = (value?.type === "text-delta" || value?.type === "reasoning-delta") && value.delta === "";
      if (!PRELUDE_PARTS.has(value?.type) && !empty) break;
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  const stream = new ReadableStream({
    async pull(controller) {
      if (held.length > 0) {
        controller.enqueue(held.shift());
        return;
      }
      if (ended) {
        controller.close();
        return;
      }
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { ...result, stream };
}

/**
 * The usage of a stream cut before its finish part, which the provider never sent: estimated at
 * 4 characters a token, as heal's adapters estimate a cut reply (the prompt's text parts in, the
 * text received out).
 */
function estimatedUsage(prompt, text) {
  let chars = 0;
  for (const message of Array.isArray(prompt) ? prompt : []) {
    const content = message?.content;
    if (typeof content === "string") chars += content.length;
    else if (Array.isArray(content)) for (const part of content) if (typeof part?.text === "string") chars += part.text.length;
  }
  const output = Math.ceil(text.length / 4);
  return {
    inputTokens: { total: Math.ceil(chars / 4), noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/**
 * A stream read whole (structuredStreams "buffer"), as a generate result the loop can judge:
 * its text, finish reason, usage and model, and every part kept for [`replayed`]. Each text
 * delta goes to `loop.push` (unless `loop` is null); at the first violation no continuation can
 * fix (or past maxReplyChars) the stream is cancelled, which ends the request, and the result
 * is `cut`, its usage estimated. An error part, or a read that fails, throws: nothing has
 * reached the caller, so it may be retried.
 */
async function collectStream(doStream, loop, prompt) {
  const result = await doStream();
  const reader = result.stream.getReader();
  const parts = [];
  let cut = false;
  try {
    while (!cut) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value?.type === "error") throw value.error;
      parts.push(value);
      if (loop === null || value?.type !== "text-delta" || typeof value.delta !== "string" || value.delta === "") continue;
      try {
        cut = loop.push(value.delta).violation !== null;
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        cut = true; // nothing was added; the loop degrades the reply as too long
      }
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  if (cut) reader.cancel().catch(() => {});
  const { stream: _read, ...rest } = result;
  const text = parts.filter((p) => p?.type === "text-delta").map((p) => p.delta).join("");
  const finish = parts.findLast((p) => p?.type === "finish");
  const meta = parts.find((p) => p?.type === "response-metadata");
  return {
    ...rest,
    parts,
    cut,
    content: [...(text.length > 0 ? [{ type: "text", text }] : []), ...parts.filter((p) => p?.type === "tool-call")],
    finishReason: finish?.finishReason ?? { unified: "other", raw: "aborted" },
    usage: finish?.usage ?? estimatedUsage(prompt, text),
    response: { ...rest.response, ...(meta?.modelId !== undefined ? { modelId: meta.modelId } : {}) },
  };
}

/**
 * A collected stream sent on to the SDK: its parts as they came, the finish part carrying
 * `usage` (the run's sum; one is added to a cut stream), and the text parts replaced by one text
 * block (where the first text block began) holding `text`, the JSON selfheal accepted, or else
 * the text as it came. One block, not the deltas again: the SDK parses the partial output anew
 * at every delta, so a 52 KB reply replayed in 4-character deltas took 26 s (an outside review,
 * 2026-12-02), and the caller of a buffered stream gets nothing before the end anyway.
 */
function replayed(collected, accepted) {
  const { parts: received, cut: _cut, content, finishReason, usage, ...rest } = collected;
  const text = accepted ?? content.find((c) => c.type === "text")?.text;
  const parts = received.some((p) => p?.type === "finish") ? received : [...received, { type: "finish", finishReason }];
  const out = [];
  let placed = text === undefined;
  const place = (id) => {
    placed = true;
    out.push({ type: "text-start", id }, { type: "text-delta", id, delta: text }, { type: "text-end", id });
  };
  for (const part of parts) {
    const type = part?.type;
    if (text !== undefined && (type === "text-start" || type === "text-delta" || type === "text-end")) {
      if (!placed) place(part.id ?? "0");
    } else if (type === "finish") {
      if (!placed) place("0");
      out.push({ ...part, usage });
    } else out.push(part);
  }
  if (!placed) place("0");
  return {
    ...rest,
    stream: new ReadableStream({
      start(controller) {
        for (const part of out) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}

function abortError(signal) {
  const reason = signal?.reason;
  if (reason instanceof Error) return reason;
  const e = new Error(typeof reason === "string" ? reason : "This operation was aborted");
  e.name = "AbortError";
  return e;
}

// OpenTelemetry for selfheal's host loops (heal and the AI SDK middleware), SPEC section 11:
// one span per model call with the GenAI semantic-convention attributes, `selfheal.*`
// attributes for what selfheal made of the call, and one event per instruction.
//
// It takes an `@opentelemetry/api` Tracer and imports nothing: the API is an optional peer of
// the package, and the two numbers used below are that API's stable enum values.
//
//   const call = startModelCall(tracer, { system: "anthropic", model: "claude-x", attempt: 1 });
//   try { reply = await send(); call.reply({ usage }); } catch (e) { call.error(e); }
//   call.instruction(loop.next(outcome));   // sets selfheal.* and adds the event, then ends the span
//
// Attributes (OpenTelemetry GenAI semantic conventions, and this package's own):
//   gen_ai.operation.name   "chat"
//   gen_ai.system           the provider ("anthropic", "openai", or as given)
//   gen_ai.request.model    the model id
//   gen_ai.response.model   when the reply names one
//   gen_ai.usage.input_tokens / gen_ai.usage.output_tokens   when the reply carries usage
//   error.type              for a failed call: the classified cause ("overloaded"), else the
//                           error's name; for a reply that failed validation: the failure kind
//   selfheal.attempt        the 1-based number of the call
//   selfheal.class / selfheal.cause   the classification of what happened (failed calls only)
//   selfheal.instruction    the instruction the call led to ("wait-for-backoff", "done", ...)
//   selfheal.fixes          local repairs applied to the reply (string array), on `done`
// Event per instruction: "selfheal.instruction" with selfheal.instruction, and as they apply
// selfheal.delay_ms, selfheal.attempt (of the call it asks for), selfheal.strategy,
// selfheal.reason (the stop reason of a degrade), selfheal.source (of a done).

const SPAN_KIND_CLIENT = 2; // SpanKind.CLIENT
const STATUS_ERROR = 2; // SpanStatusCode.ERROR

/** True when `tracer` looks like an @opentelemetry/api Tracer. */
export function isTracer(tracer) {
  return tracer !== null && typeof tracer === "object" && typeof tracer.startSpan === "function";
}

/**
 * Start the span of one model call. Returns a handle; the span ends at `instruction()` (or at
 * `end()` for a call whose outcome is never fed to a loop). Every method is safe to call once
 * the span has ended (it does nothing), and nothing here throws into the host loop: a tracer
 * that throws is ignored.
 * @param {object} tracer an @opentelemetry/api Tracer
 * @param {{ system?: string, model?: string, attempt?: number, name?: string,
 *   attributes?: Record<string, string | number | boolean | string[]> }} call
 */
export function startModelCall(tracer, { system, model, attempt, name, attributes } = {}) {
  if (!isTracer(tracer)) throw new TypeError("startModelCall: tracer must be an @opentelemetry/api Tracer");
  const attrs = { "gen_ai.operation.name": "chat" };
  if (system) attrs["gen_ai.system"] = String(system);
  if (model) attrs["gen_ai.request.model"] = String(model);
  if (Number.isFinite(attempt)) attrs["selfheal.attempt"] = attempt;
  Object.assign(attrs, attributes);
  let span = null;
  try {
    span = tracer.startSpan(name ?? (model ? `chat ${model}` : "chat"), { kind: SPAN_KIND_CLIENT, attributes: attrs });
  } catch {
    span = null;
  }
  let ended = false;
  const safe = (fn) => {
    if (ended || span === null) return;
    try {
      fn(span);
    } catch {
      // A broken exporter or tracer must not break the call it observes.
    }
  };
  const end = () => {
    safe((s) => s.end());
    ended = true;
  };
  return {
    /** The underlying span (null if the tracer threw). */
    span,
    /** A reply came back: usage as `{ inputTokens, outputTokens }`, the model that answered. */
    reply({ usage, responseModel } = {}) {
      safe((s) => {
        const input = usage?.inputTokens;
        const output = usage?.outputTokens;
        if (Number.isFinite(input)) s.setAttribute("gen_ai.usage.input_tokens", input);
        if (Number.isFinite(output)) s.setAttribute("gen_ai.usage.output_tokens", output);
        if (responseModel) s.setAttribute("gen_ai.response.model", String(responseModel));
      });
    },
    /** The call threw; `classified` (selfheal's classify result) when known. */
    error(error, classified) {
      safe((s) => {
        const type = classified?.cause ?? (typeof error?.name === "string" ? error.name : "Error");
        s.setAttribute("error.type", type);
        if (classified) {
          s.setAttribute("selfheal.class", classified.class);
          s.setAttribute("selfheal.cause", classified.cause);
        }
        s.setStatus({ code: STATUS_ERROR, message: oneLine(classified?.reason ?? error?.message ?? String(error)) });
        if (error instanceof Error) s.recordException(error);
      });
    },
    /**
     * What selfheal made of the call: sets the selfheal.* attributes, adds the
     * "selfheal.instruction" event, and ends the span.
     */
    instruction(step) {
      safe((s) => {
        s.setAttribute("selfheal.instruction", step.type);
        const classified = step.classified;
        if (classified && step.type !== "done") {
          // A failed call, or a reply that failed parsing, the schema or a check.
          s.setAttribute("selfheal.class", classified.class);
          s.setAttribute("selfheal.cause", classified.cause);
          s.setAttribute("error.type", classified.cause);
          s.setStatus({ code: STATUS_ERROR, message: oneLine(classified.reason) });
        }
        if (step.type === "done") s.setAttribute("selfheal.fixes", [...(step.fixes ?? [])]);
        s.addEvent("selfheal.instruction", eventAttributes(step));
      });
      end();
    },
    /**
     * Add the "selfheal.instruction" event of an instruction that did not end the call's part
     * (heal: a `done` that the schema library or the host's check then rejected).
     */
    event(step) {
      safe((s) => s.addEvent("selfheal.instruction", eventAttributes(step)));
    },
    /** End the span without an instruction (e.g. the call was the last one of a run). */
    end,
  };
}

function eventAttributes(step) {
  const a = { "selfheal.instruction": step.type };
  if (step.type === "wait-for-backoff") {
    a["selfheal.delay_ms"] = step.delayMs;
    a["selfheal.attempt"] = step.attempt;
  } else if (step.type === "send-repair-prompt") {
    a["selfheal.attempt"] = step.attempt;
    a["selfheal.strategy"] = step.strategy;
  } else if (step.type === "done") {
    a["selfheal.source"] = step.source;
    a["selfheal.attempts"] = step.attempts;
  } else if (step.type === "degrade") {
    a["selfheal.reason"] = step.reason;
    a["selfheal.attempts"] = step.attempts;
  }
  if (step.classified) {
    a["selfheal.class"] = step.classified.class;
    a["selfheal.cause"] = step.classified.cause;
  }
  return a;
}

function oneLine(text) {
  return String(text).replace(/\s+/g, " ").trim().slice(0, 300);
}

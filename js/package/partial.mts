// `PartialJson` with a Standard Schema (SPEC sections 8 and 11): every entry exports the wasm
// class wrapped by `checkedPartialJson`, so that "wherever a schema is accepted in JS (heal,
// PartialJson, ...), a Standard Schema v1 object works".
//
// * Its JSON Schema, where its library gives one synchronously (Standard JSON Schema: Zod 4.2+,
//   ArkType), checks the stream (`jsonSchemaSync`: a pattern that needs backtracking is left to
//   validate). Where none can be had (Valibot: its converter is an async import; a converter
//   that throws, as Zod's for `z.date()`), the stream takes any JSON value (`true`), as SPEC
//   says, instead of the TypeError the wasm class gives such a schema.
// * `finish()` runs the library's own validate on the accepted value (refinements included). Its
//   issues make the result a failure of kind `schema`, each issue `{ path: JSON Pointer, message }`
//   bounded as every report's are (at most 100 issues, the last counting the rest; paths 200 and
//   messages 300 code points, on one line: src/structured/schema.rs). `value` stays the parsed
//   JSON (the library's output is what its validate returns, for the host to take). `finish()`
//   is synchronous: when the library's validate is asynchronous (a Promise), the result is the
//   JSON Schema's verdict marked `validated: false`, and the host awaits validate itself.
import { isStandardSchema, issuePointer, jsonSchemaSync } from "./standard.mjs";
import type { StandardIssue } from "./standard.mjs";

/** What the wasm class offers (its glue class). */
interface PartialJsonClass {
  new (...args: any[]): { finish(options?: unknown): Parsed; free(): void };
}
type Issue = { kind: "schema"; path: string; message: string };
type Parsed =
  | { ok: true; value: unknown; fixes: string[]; validated?: false }
  | { ok: false; report: { kinds: string[]; issues: Issue[] } };

/** The bounds of src/structured/mod.rs (MAX_ISSUES, MAX_PATH_CHARS, MAX_MESSAGE_CHARS). */
const MAX_ISSUES = 100;
const MAX_PATH_CHARS = 200;
const MAX_MESSAGE_CHARS = 300;

export function checkedPartialJson<C extends PartialJsonClass>(Glue: C): C {
  // The same name in stack traces and `constructor.name`.
  const Checked = class PartialJson extends Glue {
    #standard: object | null;
    constructor(...args: any[]) {
      const [schema, options] = args;
      const standard = standardOf(schema);
      super(standard === null ? schema : streamSchema(standard), options);
      this.#standard = standard;
    }
    finish(options?: unknown): Parsed {
      const parsed = super.finish(options);
      return parsed.ok && this.#standard !== null ? checked(this.#standard, parsed) : parsed;
    }
  };
  return Checked as C;
}

/** The JSON Schema a Standard Schema's stream is checked by, converted once per schema object (so
 * the wasm class, which keeps compiled schemas by object, compiles it once too). */
const converted = new WeakMap<object, object | boolean>();
function streamSchema(standard: object): object | boolean {
  let json = converted.get(standard);
  if (json === undefined) {
    json = jsonSchemaSync(standard) ?? true;
    converted.set(standard, json);
  }
  return json;
}

/** `schema` when it is a Standard Schema v1; null otherwise, or when reading it throws (the wasm
 * class then reads it again and names what threw, as a TypeError). */
function standardOf(schema: unknown): object | null {
  try {
    return isStandardSchema(schema) ? (schema as object) : null;
  } catch {
    return null;
  }
}

function checked(schema: object, parsed: Extract<Parsed, { ok: true }>): Parsed {
  const result = (schema as { "~standard": { validate(v: unknown): unknown } })["~standard"].validate(parsed.value);
  if (result !== null && typeof result === "object" && typeof (result as PromiseLike<unknown>).then === "function") {
    // Not awaited here: said in the result, and a rejection is not left unhandled.
    Promise.resolve(result).catch(() => {});
    return { ...parsed, validated: false };
  }
  const issues = (result as { issues?: ArrayLike<StandardIssue> } | null)?.issues;
  if (!issues) return parsed;
  const list = Array.from(issues);
  const all: Issue[] = (list.length > 0 ? list : [{ message: "the schema library rejected the value without an issue" }]).map((issue) => ({
    kind: "schema",
    path: oneLine(issuePointer(issue), MAX_PATH_CHARS),
    message: oneLine(String(issue?.message ?? "invalid"), MAX_MESSAGE_CHARS),
  }));
  if (all.length > MAX_ISSUES) {
    const more = all.length - (MAX_ISSUES - 1);
    all.splice(MAX_ISSUES - 1, all.length, { kind: "schema", path: "", message: `${more} more issues not listed` });
  }
  return { ok: false, report: { kinds: ["schema"], issues: all } };
}

/** `s` on one line, trimmed, at most `max` code points, the `…` of a cut included (text.rs). */
function oneLine(s: string, max: number): string {
  const chars = Array.from(s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ").trim());
  if (chars.length <= max) return chars.join("");
  return chars.slice(0, max - 1).join("").trimEnd() + "…";
}

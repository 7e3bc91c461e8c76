// Standard Schema v1 support (SPEC section 11): a Zod 4, Valibot or ArkType schema wherever
// selfheal takes a schema in JS.
//
// A Standard Schema object (`schema["~standard"]`) gives selfheal two things:
//
// * a JSON Schema, which drives parsing, the stream reader and the repair prompt. Taken, in
//   order, from Standard JSON Schema (`~standard.jsonSchema.input`, @standard-schema/spec 1.1:
//   Zod 4.2+ and ArkType have it), else from the library's own converter (Zod 4
//   `z.toJSONSchema`, Valibot's `@valibot/to-json-schema`), passed in `converters` or, when not
//   passed, imported by name if it is installed. The *input* side is asked for: the model
//   writes what the library's validate reads, before any transform. When none of these works,
//   `jsonSchema` is `true` (any JSON value passes parsing) and `note` says why: the library's
//   validate then decides alone;
// * its own `validate` (sync or async: refinements, transforms, custom checks), run on a value
//   that parsing accepted. Failure becomes a `rejected` outcome whose reason quotes every issue
//   as `path: message` (path as a JSON Pointer, `(root)` for the root; the message verbatim,
//   line breaks turned into spaces so each issue stays on one line); success gives the
//   library's output (transforms applied), which is what the caller should hand back.
//
// The module imports nothing from selfheal and nothing from a schema library: it works with
// any entry of the package and any library that implements the standard.
//
//   import { resolveSchema } from "selfheal/standard";
//   const s = await resolveSchema(zodSchema);
//   const loop = new RepairLoop({ prompt, schema: s.jsonSchema });
//   ... on `done`: const checked = await s.check(step.value);
//       checked.ok ? use(checked.value) : loop.next(checked.outcome);   // a reask with the issues

/** The JSON Schema draft asked for first; the second is tried if a library refuses the first. */
const TARGETS = ["draft-2020-12", "draft-07"];

/** Where each vendor's own converter lives, for libraries without Standard JSON Schema. */
const CONVERTER_MODULES = {
  zod: { module: "zod", export: "toJSONSchema", call: (fn, schema) => fn(schema, { io: "input", unrepresentable: "any" }) },
  valibot: { module: "@valibot/to-json-schema", export: "toJsonSchema", call: (fn, schema) => fn(schema, { errorMode: "ignore" }) },
};

/** True when `value` implements Standard Schema v1 (`~standard` with version 1 and validate). */
export function isStandardSchema(value) {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  let props;
  try {
    props = value["~standard"];
  } catch {
    return false;
  }
  return props !== null && typeof props === "object" && props.version === 1 && typeof props.validate === "function";
}

/**
 * The JSON Schema of a Standard Schema's input, and where it came from.
 * @param {object} schema a Standard Schema v1 object
 * @param {{ converters?: Record<string, Function>, importModule?: (name: string) => Promise<object> }} [options]
 *   converters: `{ [vendor]: (schema) => jsonSchema }`, used before anything is imported;
 *   importModule: how a vendor's converter package is loaded (default: a dynamic import by name,
 *   which fails quietly where the package is not installed or the runtime cannot import)
 * @returns {Promise<{ jsonSchema: object | true, source: string, vendor: string, note: string | null }>}
 */
export async function jsonSchemaOf(schema, options = {}) {
  if (!isStandardSchema(schema)) throw new TypeError("jsonSchemaOf: schema must be a Standard Schema v1 object (with \"~standard\")");
  const props = schema["~standard"];
  const vendor = typeof props.vendor === "string" ? props.vendor : "unknown";
  const tried = [];

  const converter = props.jsonSchema;
  if (converter !== null && typeof converter === "object" && typeof converter.input === "function") {
    for (const target of TARGETS) {
      try {
        return found(converter.input({ target }), "standard-json-schema", vendor);
      } catch (e) {
        tried.push(`~standard.jsonSchema.input({ target: "${target}" }) threw: ${messageOf(e)}`);
      }
    }
  }

  const given = options.converters?.[vendor];
  if (typeof given === "function") {
    try {
      return found(await given(schema), "converter", vendor);
    } catch (e) {
      tried.push(`converters.${vendor} threw: ${messageOf(e)}`);
    }
  }

  const known = CONVERTER_MODULES[vendor];
  if (known) {
    const importModule = options.importModule ?? importByName;
    let mod = null;
    try {
      mod = await importModule(known.module);
    } catch (e) {
      tried.push(`${known.module} is not installed (${messageOf(e)})`);
    }
    const fn = mod?.[known.export] ?? mod?.default?.[known.export];
    if (mod && typeof fn !== "function") tried.push(`${known.module} has no ${known.export}`);
    if (typeof fn === "function") {
      try {
        return found(await known.call(fn, schema), `converter:${known.module}`, vendor);
      } catch (e) {
        tried.push(`${known.module} ${known.export} threw: ${messageOf(e)}`);
      }
    }
  } else if (typeof given !== "function") {
    tried.push(`no converter known for vendor "${vendor}" (pass options.converters.${vendor})`);
  }

  return wrapper({
    jsonSchema: true,
    source: "none",
    vendor,
    note: `no JSON Schema for this ${vendor} schema: any JSON value passes parsing and the library's validate decides alone (${tried.join("; ")})`,
  });
}

function found(jsonSchema, source, vendor) {
  if (jsonSchema === true || (jsonSchema !== null && typeof jsonSchema === "object" && !Array.isArray(jsonSchema))) {
    return wrapper({ jsonSchema, source, vendor, note: null });
  }
  throw new TypeError(`the converter returned ${jsonSchema === null ? "null" : typeof jsonSchema}, not a JSON Schema object`);
}

// A variable specifier: bundlers leave it alone instead of failing on a package that is not
// installed, and runtimes without the package (or without dynamic import) reject, which is caught.
async function importByName(name) {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ name);
}

function messageOf(e) {
  const m = e !== null && typeof e === "object" && typeof e.message === "string" ? e.message : String(e);
  return m.replace(/\s+/g, " ").trim();
}

/** One path segment: a key, or `{ key }` (Standard Schema allows both). */
function segmentKey(segment) {
  const key = segment !== null && typeof segment === "object" ? segment.key : segment;
  return typeof key === "symbol" ? (key.description ?? "") : String(key);
}

/** An issue's path as a JSON Pointer ("" for the root), the form selfheal's schema issues use. */
export function issuePointer(issue) {
  // Copied first: a library's path may be an Array subclass with its own map/join (ArkType's is).
  const path = Array.isArray(issue?.path) ? Array.from(issue.path) : [];
  return path.map((s) => "/" + segmentKey(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/**
 * The reason a `rejected` outcome carries: one line per issue, `- path: message`, the path a
 * JSON Pointer (`(root)` for the root), the message as the library wrote it (line breaks become
 * spaces, so an issue cannot pose as another line of the prompt).
 * @param {ReadonlyArray<{ message: string, path?: ReadonlyArray<unknown> }>} issues
 */
export function formatIssues(issues) {
  const lines = [];
  for (const issue of issues) {
    const path = issuePointer(issue) || "(root)";
    const message = String(issue?.message ?? "invalid").replace(/\r\n|[\r\n\u2028\u2029]/g, " ");
    lines.push(`- ${path}: ${message}`);
  }
  return lines.join("\n");
}

/**
 * Run the library's own validate (sync or async) on a value parsing accepted.
 * @returns {Promise<{ ok: true, value: unknown } | { ok: false, issues: object[], reason: string,
 *   outcome: { kind: "rejected", reason: string } }>}
 *   `value` is the library's output (transforms applied); `outcome` is ready for `loop.next`.
 */
export async function validateStandard(schema, value) {
  if (!isStandardSchema(schema)) throw new TypeError("validateStandard: schema must be a Standard Schema v1 object");
  const result = await schema["~standard"].validate(value);
  const issues = result?.issues;
  if (issues) {
    const list = Array.from(issues);
    const reason = formatIssues(list.length > 0 ? list : [{ message: "the schema library rejected the value without an issue" }]);
    return { ok: false, issues: list, reason, outcome: { kind: "rejected", reason } };
  }
  return { ok: true, value: result.value };
}

/**
 * Everything a host loop needs from a schema given in JS: a Standard Schema is converted, any
 * other schema (a JSON Schema object or string, a selfheal `Schema`) passes through unchanged.
 * @returns {Promise<{ standard: boolean, jsonSchema: unknown, source: string, vendor: string | null,
 *   note: string | null, check(value: unknown): Promise<{ ok: true, value: unknown } |
 *   { ok: false, issues: object[], reason: string, outcome: { kind: "rejected", reason: string } }> }>}
 */
export async function resolveSchema(schema, options = {}) {
  if (!isStandardSchema(schema)) {
    return wrapper({
      standard: false, jsonSchema: schema, source: "json-schema", vendor: null, note: null,
      check: async (value) => ({ ok: true, value }),
    });
  }
  const converted = await jsonSchemaOf(schema, options);
  // The library's validate runs on every value here, so a pattern selfheal cannot compile is
  // left to it rather than refusing the schema (ArkType writes lookaheads for
  // `string.numeric.parse` and `string.date.iso`).
  const dropped = [];
  const jsonSchema = withoutBacktracking(converted.jsonSchema, "", dropped);
  const note = dropped.length === 0 ? converted.note : [converted.note,
    `the pattern at ${dropped.join(", ")} needs a backtracking regex engine (lookaround or backreferences), which selfheal's linear-time matcher is not: parsing does not check it, the library's validate does`,
  ].filter((n) => n !== null).join("; ");
  return wrapper({ standard: true, ...converted, jsonSchema, note, check: (value) => validateStandard(schema, value) });
}

/**
 * `result`, marked (not enumerable) as a wrapper around a JSON Schema: passed where a schema goes
 * instead of its `.jsonSchema`, it is a TypeError saying so (js/snippets/schema_keys.js reads the
 * mark), not a JSON Schema of unknown keywords that accepts anything.
 */
function wrapper(result) {
  return Object.defineProperty(result, Symbol.for("selfheal.schemaWrapper"), { value: true });
}

/** Lookaround, backreferences: what selfheal's pattern engine refuses to compile. */
const BACKTRACKING = /\(\?<?[=!]|\\[1-9]|\\k</;
/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/**
 * A Standard Schema's JSON Schema taken synchronously, as the synchronous constructors take it
 * (Standard JSON Schema's `input`, draft 2020-12 then draft-07), with the patterns selfheal's
 * linear-time matcher cannot compile left out (the library's validate checks them); null when
 * none can be had (no `~standard.jsonSchema`, every target throws, or reading it throws).
 * @returns {object | boolean | null}
 */
export function jsonSchemaSync(schema) {
  let converter;
  try {
    converter = schema?.["~standard"]?.jsonSchema;
  } catch {
    return null;
  }
  if (converter === null || typeof converter !== "object" || typeof converter.input !== "function") return null;
  for (const target of TARGETS) {
    try {
      const json = converter.input({ target });
      if (typeof json === "boolean") return json;
      if (json !== null && typeof json === "object" && !Array.isArray(json)) return withoutBacktracking(json, "", []);
    } catch {
      // the next target
    }
  }
  return null;
}

/** `schema` without the `pattern`s that need backtracking; their places (JSON Pointers) go to `dropped`. */
function withoutBacktracking(schema, path, dropped) {
  if (Array.isArray(schema)) return schema.map((s, i) => withoutBacktracking(s, `${path}/${i}`, dropped));
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "pattern" && typeof value === "string" && BACKTRACKING.test(value)) {
      dropped.push(path === "" ? "(root)" : path);
    } else {
      const at = `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      const kept = DATA_KEYWORDS.has(key) ? value : withoutBacktracking(value, at, dropped);
      // Defined, not assigned: a property named "__proto__" stays a property.
      Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

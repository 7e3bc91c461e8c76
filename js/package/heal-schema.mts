// heal's schema step (SPEC section 11): a Standard Schema v1 object (Zod 4, Valibot, ArkType)
// given as `options.schema` works as a JSON Schema does.
//
// * Its JSON Schema (selfheal/standard's resolveSchema: Standard JSON Schema, else the
//   library's converter) becomes `LoopOptions.schema`: it drives parsing, local repair and the
//   repair prompts. Where none can be had, the schema is `true` (any JSON value passes parsing,
//   as the SPEC says) and `warn` is called once per schema object with the reason.
// * On every `done`, the library's own validate (sync or async: refinements, transforms) runs on
//   the accepted value. Its issues go back to the loop as one `rejected` outcome quoting each
//   issue as `path: message` (a reask); success replaces `done.value` with the library's output
//   (transforms applied).
//
// The conversion is made once per schema object (a WeakMap), so a hot path that heals with the
// same Zod schema pays for z.toJSONSchema once.

import { isStandardSchema, resolveSchema } from "./standard.mjs";
import type { ResolvedSchema } from "./standard.mjs";

export type Accepted = { ok: true; value: unknown } | { ok: false; outcome: { kind: "rejected"; reason: string } };
export interface PreparedSchema {
  /** What goes into `LoopOptions.schema` (absent: no schema). */
  loopSchema: unknown;
  /** True when the schema is a Standard Schema (so `accept` runs the library's validate). */
  standard: boolean;
  /** The library's validate on a value the loop accepted. */
  accept(value: unknown): Promise<Accepted>;
}

const resolved = new WeakMap<object, Promise<ResolvedSchema>>();
const warned = new WeakSet<object>();

/** The schema as heal hands it to the loop, and the check its `done` values go through. */
export async function prepareSchema(schema: unknown, warn: (message: string) => void): Promise<PreparedSchema> {
  if (!isStandardSchema(schema)) {
    return { loopSchema: schema, standard: false, accept: async (value) => ({ ok: true, value }) };
  }
  let pending = resolved.get(schema);
  if (pending === undefined) {
    pending = resolveSchema(schema);
    resolved.set(schema, pending);
    // A failed conversion is not cached: the next call tries again.
    pending.catch(() => resolved.delete(schema));
  }
  const r = await pending;
  if (r.note !== null && !warned.has(schema)) {
    warned.add(schema);
    warn(`selfheal heal: ${r.note}`);
  }
  return {
    loopSchema: r.jsonSchema,
    standard: true,
    accept: async (value) => {
      const checked = await r.check(value);
      return checked.ok ? { ok: true, value: checked.value } : { ok: false, outcome: checked.outcome };
    },
  };
}

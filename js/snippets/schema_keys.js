// Finds a schema object's compiled form by its JSON text without copying the text into wasm.
//
// `new Schema(obj)` and `new RepairLoop({ schema: obj })` memoise compiled schemas by text
// (docs/DESIGN.md: by text, not identity, so a mutated object is never validated against its
// old form). Copying a 2 KB text into wasm memory and hashing it there cost more than the
// JSON.stringify itself; the lookup happens here instead. Entries are found by the text's
// length, then compared with `===` (a memory compare): a Map keyed by the text itself would
// hash every fresh 2 KB string, which cost a third as much as stringifying it. The compiled
// schemas live in Rust (SLOTS in src/wasm/structured_js.rs) under the same slot numbers.
// Bounded like Rust's SchemaCache: oldest first out.
//
// Shipped as a wasm-bindgen snippet; scripts/build.sh makes a CommonJS copy for the nodejs glue.

const MAX_SLOTS = 64;
const byLength = new Map(); // text length -> entries { text, slot } of that length
const entries = []; // every entry, oldest first
let pending = null; // the text of the last miss, until schemaRemember() or the next lookup

/**
 * Where `schema`'s compiled form is, in one call:
 * - `undefined`: not an object; the caller handles strings, booleans and type errors;
 * - a number >= 0: the slot of its compiled form (its JSON text was seen);
 * - a number < 0: minus the id of the live selfheal `Schema` it is;
 * - `null`: it looks like a `Schema` without a readable id (freed?); the caller checks;
 * - a string: its JSON text, seen for the first time (schemaRemember() keeps it);
 * - `false`: JSON.stringify gave nothing (a function).
 * Throws what JSON.stringify throws (cycles, BigInt, a throwing toJSON or getter).
 */
export function schemaLookup(schema) {
  pending = null;
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) {
    return undefined;
  }
  let isSchema = false;
  try {
    isSchema = schema.constructor.name === 'Schema';
  } catch {
    // a throwing getter or trap: not a Schema; JSON.stringify decides
  }
  if (isSchema) {
    let id;
    try {
      id = schema.__selfhealSchemaId;
    } catch {
      // freed, or not ours
    }
    return typeof id === 'number' && id > 0 ? -id : null;
  }
  const text = JSON.stringify(schema);
  if (typeof text !== 'string') return false;
  const same = byLength.get(text.length);
  if (same !== undefined) {
    for (let i = 0; i < same.length; i++) {
      if (same[i].text === text) return same[i].slot;
    }
  }
  pending = text;
  return text;
}

/** Keep the last missed text under a slot (reusing the oldest one when full); -1 if none. */
export function schemaRemember() {
  if (pending === null) return -1;
  let slot = entries.length;
  if (entries.length >= MAX_SLOTS) {
    const oldest = entries.shift();
    const same = byLength.get(oldest.text.length);
    same.splice(same.indexOf(oldest), 1);
    if (same.length === 0) byLength.delete(oldest.text.length);
    slot = oldest.slot;
  }
  const entry = { text: pending, slot };
  pending = null;
  entries.push(entry);
  const same = byLength.get(entry.text.length);
  if (same === undefined) byLength.set(entry.text.length, [entry]);
  else same.push(entry);
  return slot;
}

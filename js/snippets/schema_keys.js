// JSON text of JS values, bounded (`jsonText`), and a schema object's compiled form found by that
// text without copying the text into wasm (`schemaSlot`, `schemaSource`, `schemaRemember`).
//
// `new Schema(obj)` and `new RepairLoop({ schema: obj })` memoise compiled schemas by text
// (docs/DESIGN.md: by text, not identity, so a mutated object is never validated against its
// old form). Copying a 2 KB text into wasm memory and hashing it there cost more than the
// JSON.stringify itself; the lookup happens here instead. Entries are found by the text's
// length, then compared with `===` (a memory compare): a Map keyed by the text itself would
// hash every fresh 2 KB string, which cost a third as much as stringifying it. The compiled
// schemas live in Rust (SLOTS in src/wasm/structured_js.rs) under the same slot numbers.
// Bounded like Rust's SchemaCache: oldest first out. No state is kept between two calls.
//
// Protocol (src/wasm/structured_js.rs reads it; tests/js/snippets.test.mjs tests it):
//
//   schemaSlot(schema) -> number | undefined
//       the slot of the compiled form of the JSON text an object stands for, when that text was
//       remembered; undefined otherwise (unseen, not an object, a `Schema`, no usable text).
//       The one call a schema object seen before costs. Throws what jsonText throws.
//       (A live `Schema` is found by the Rust side itself, by its `__selfhealSchemaId`.)
//   schemaSource(schema) -> a tagged record, what an object stands for (`SchemaSource` in Rust):
//       { kind: "text", text }         the JSON text of the schema: a plain object's own, a
//                                      Standard Schema's JSON Schema, a `Schema`'s `text`
//       { kind: "freed" }              a `Schema` that has been freed
//       { kind: "no-json" }            JSON.stringify gives nothing for it (a function)
//       { kind: "invalid", message }   a `~standard` that is not a usable Standard Schema v1;
//                                      `message` is the rest of the sentence after the field's name
//       Throws what jsonText throws.
//   schemaRemember(text) -> number
//       keeps a text schemaSource gave (once its compiled form has a slot on the Rust side) and
//       returns its slot, reusing the oldest slot when all are taken.
//
// Shipped as a wasm-bindgen snippet; scripts/build.sh makes a CommonJS copy for the nodejs glue.

const MAX_SLOTS = 64;
const MAX_ITEMS = 1_000_000; // MAX_ITEMS in src/wasm/de.rs: one limit family for every reader
const MAX_DEPTH = 128; // MAX_DEPTH there; serde_json refuses deeper JSON anyway
const byLength = new Map(); // text length -> entries { text, slot } of that length
const entries = []; // every entry, oldest first

/**
 * Throws a RangeError before `JSON.stringify` would spend its time on a value no reader takes: an
 * array longer than MAX_ITEMS (a sparse `Object.assign([], { length: 2 ** 32 - 1 })` costs V8
 * nothing to refuse but keeps SpiderMonkey busy for most of a minute) or nesting deeper than
 * MAX_DEPTH (a cycle included). Recursion is bounded by MAX_DEPTH, so no input overflows the JS
 * stack. Visits what JSON.stringify visits (enumerable keys, array items), an object with a
 * `toJSON` as it is (asking for `toJSON` on every object cost a fifth of the walk). A recursive
 * `for...in` walk costs about a quarter of an explicit-stack walk with `Object.keys` (0.6 against
 * 2.2 µs for the 2 KB order schema, whose stringify takes 6 µs).
 */
function bounded(v, depth) {
  if (depth > MAX_DEPTH) throw new RangeError(`nested deeper than ${MAX_DEPTH} levels (or cyclic)`);
  if (Array.isArray(v)) {
    if (v.length > MAX_ITEMS) throw new RangeError(`an array has ${v.length} items, above ${MAX_ITEMS}`);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === 'object' && x !== null) bounded(x, depth + 1);
    }
  } else {
    for (const k in v) {
      const x = v[k];
      if (typeof x === 'object' && x !== null) bounded(x, depth + 1);
    }
  }
}

/** `JSON.stringify(value)` within the limits above; throws what either throws. */
export function jsonText(value) {
  if (value !== null && typeof value === 'object') bounded(value, 1);
  return JSON.stringify(value);
}

/** Whether `schema` is named like a selfheal `Schema` (its class's name, read without trusting it). */
function namedSchema(schema) {
  try {
    return schema.constructor.name === 'Schema';
  } catch {
    return false; // a throwing getter or trap: not a Schema; JSON.stringify decides
  }
}

/** `obj[key]`, or undefined when reading it throws. */
function readOr(obj, key) {
  try {
    return obj[key];
  } catch {
    return undefined;
  }
}

/**
 * The mark selfheal/standard puts on what jsonSchemaOf() and resolveSchema() return (not
 * enumerable): given where a schema goes, such a wrapper would compile as a JSON Schema of
 * unknown keywords that accepts anything.
 */
const WRAPPER = Symbol.for('selfheal.schemaWrapper');

/**
 * The JSON text of the schema `schema` (an object) stands for: its own, or for a Standard Schema
 * v1 (`~standard` with version 1 and a validate function) the JSON Schema its library gives
 * synchronously (standardJsonSchema). `false` when JSON.stringify gives nothing (a function); a
 * TypeError (returned, not thrown) for an unusable `~standard` or a selfheal/standard wrapper.
 * Plain objects pay two property reads for this (`~standard` and the mark, undefined). Throws
 * what jsonText throws.
 */
function objectText(schema) {
  let standard;
  try {
    standard = schema['~standard'];
    if (standard === undefined && schema[WRAPPER] === true) {
      return new TypeError('is what jsonSchemaOf() or resolveSchema() returned, not a JSON Schema: pass its .jsonSchema');
    }
  } catch (e) {
    return new TypeError(`is an object whose "~standard" threw: ${messageOf(e)}`);
  }
  if (standard === undefined) {
    const text = jsonText(schema);
    return typeof text === 'string' ? text : false;
  }
  const json = standardJsonSchema(standard);
  if (json instanceof TypeError) return json;
  return typeof json === 'boolean' ? String(json) : jsonText(json);
}

/** See the protocol above. */
export function schemaSlot(schema) {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function') || namedSchema(schema)) {
    return undefined;
  }
  const text = objectText(schema);
  if (typeof text !== 'string') return undefined;
  const same = byLength.get(text.length);
  if (same !== undefined) {
    for (let i = 0; i < same.length; i++) {
      if (same[i].text === text) return same[i].slot;
    }
  }
  return undefined;
}

/**
 * See the protocol above. A `Schema` (known by its class name) that the Rust side did not find by
 * its id (another module's, or a look-alike) stands for its `text`; without one it is freed when
 * it has wasm-bindgen's pointer (0 once freed, when `text` throws), else it is read as any object.
 */
export function schemaSource(schema) {
  if (namedSchema(schema)) {
    const text = readOr(schema, 'text');
    if (typeof text === 'string') return { kind: 'text', text };
    if (typeof readOr(schema, '__wbg_ptr') === 'number') return { kind: 'freed' };
  }
  const text = objectText(schema);
  if (typeof text === 'string') return { kind: 'text', text };
  if (text === false) return { kind: 'no-json' };
  return { kind: 'invalid', message: text.message };
}

/** The JSON Schema draft asked for first, then the one tried if a library refuses it (as in
 * js/package/standard.mjs). */
const TARGETS = ['draft-2020-12', 'draft-07'];

/**
 * A Standard Schema's JSON Schema (an object or a boolean), taken synchronously from Standard
 * JSON Schema: `standard.jsonSchema.input({ target })`, the input side (what the model writes,
 * before the library's transforms). Returns a `TypeError` (not thrown) saying what to do instead
 * when `standard` is not Standard Schema v1, has no `jsonSchema.input`, or every target throws
 * or gives no schema. Every read is caught: a throwing getter is such a TypeError, not a throw.
 */
export function standardJsonSchema(standard) {
  let vendor = 'unknown';
  try {
    if (standard === null || typeof standard !== 'object' || standard.version !== 1 || typeof standard.validate !== 'function') {
      return new TypeError('has a "~standard" property but is not a Standard Schema v1 (version 1 with a validate function)');
    }
    if (typeof standard.vendor === 'string') vendor = standard.vendor;
    const converter = standard.jsonSchema;
    if (converter === null || typeof converter !== 'object' || typeof converter.input !== 'function') {
      return new TypeError(
        `is a Standard Schema (vendor ${JSON.stringify(vendor)}) without a synchronous JSON Schema (~standard.jsonSchema): ` +
          'pass (await jsonSchemaOf(schema)).jsonSchema from "selfheal/standard", or give it to heal, which does that',
      );
    }
    const tried = [];
    for (const target of TARGETS) {
      try {
        const json = converter.input({ target });
        if (typeof json === 'boolean' || (json !== null && typeof json === 'object' && !Array.isArray(json))) return json;
        tried.push(`target "${target}" gave ${json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json}`);
      } catch (e) {
        tried.push(`target "${target}" threw: ${messageOf(e)}`);
      }
    }
    return new TypeError(
      `is a Standard Schema (vendor ${JSON.stringify(vendor)}) whose ~standard.jsonSchema.input gave no JSON Schema ` +
        `(${tried.join('; ')}): pass (await jsonSchemaOf(schema)).jsonSchema from "selfheal/standard", or give it to heal, which does that`,
    );
  } catch (e) {
    return new TypeError(`is a Standard Schema (vendor ${JSON.stringify(vendor)}) whose "~standard" could not be read: ${messageOf(e)}`);
  }
}

/** A thrown value's message on one line, read without trusting it. */
function messageOf(e) {
  let m;
  try {
    m = e !== null && typeof e === 'object' && typeof e.message === 'string' ? e.message : String(e);
  } catch {
    m = 'a value that cannot be shown';
  }
  return m.replace(/\s+/g, ' ').trim();
}

/** See the protocol above. */
export function schemaRemember(text) {
  let slot = entries.length;
  if (entries.length >= MAX_SLOTS) {
    const oldest = entries.shift();
    const same = byLength.get(oldest.text.length);
    same.splice(same.indexOf(oldest), 1);
    if (same.length === 0) byLength.delete(oldest.text.length);
    slot = oldest.slot;
  }
  const entry = { text, slot };
  entries.push(entry);
  const same = byLength.get(text.length);
  if (same === undefined) byLength.set(text.length, [entry]);
  else same.push(entry);
  return slot;
}

// Builds the results the loop and Schema.parse give most often as object literals from their
// parts, so they cross without JSON text: serialising in Rust, decoding the text and JSON.parse cost more than
// the policy itself on the transient path (docs/PERFORMANCE.md). The shapes and key orders are
// exactly what the JSON path gives (tests/js/fast_paths.test.mjs compares them).
//
// Shipped as a wasm-bindgen snippet; scripts/build.sh makes a CommonJS copy for the nodejs glue.

/** `classify()`'s result: `{ class, cause, reason, signal, retryAfterMs }`. */
export function classified(cls, cause, reason, signal, retryAfterMs) {
  return { class: cls, cause, reason, signal, retryAfterMs: retryAfterMs ?? null };
}

/** `{ type: "wait-for-backoff", delayMs, prompt: { system, user }, attempt, classified }`. */
export function waitForBackoff(delayMs, system, user, attempt, classifiedValue) {
  return { type: 'wait-for-backoff', delayMs, prompt: { system, user }, attempt, classified: classifiedValue };
}

/** A successful parse: `{ ok: true, value, fixes }`; `fixes` an array of fix names (a fresh one). */
export function parsedOk(value, fixes) {
  return { ok: true, value, fixes };
}

/** `repairJson`'s result: `{ text, fixes }`. */
export function repaired(text, fixes) {
  return { text, fixes };
}

/** `{ type: "done", value, text, source, fixes, attempts, costUsd }`. */
export function done(value, text, source, fixes, attempts, costUsd) {
  return { type: 'done', value, text, source, fixes, attempts, costUsd };
}

// ---------- the partial value of a stream ----------
// (Kept in this file, not a file of its own: every snippet file is one more module a browser test
// page loads, and headless Chromium's page never started once the snippets were seven files; see
// docs/DESIGN.md, "Tests and CI".)
//
// The partial value of a streamed reply, kept in JS (PartialJson.push and RepairLoop.push, SPEC
// section 8). Rust reads each chunk once and sends only what changed (the `Edit`s of
// src/structured/stream/builder.rs); this file applies them to a value it keeps, so no push ever
// serialises or copies the whole value (that would make a stream quadratic again).
//
// Protocol (src/wasm/classes/partial_json.rs writes it):
//
//   partialNew() -> mirror         an opaque record: { value, text, stack, inString, slot, strVal,
//                                  violation }
//   partialApply(mirror, chunk, payload, done, violation) -> PartialUpdate
//     chunk      the JS string pushed, appended to mirror.text as it is
//     payload    "" when nothing changed; else the JSON text of one flat array
//                  [n, closed_1, ..., closed_n, <edits>]
//                where each edit is an op code and its arguments:
//                  0 key        Begin object      (key: the member's name, or null for the top
//                  1 key        Begin array        level or an array element)
//                  2 key        Begin string
//                  3 text       Append text to the string at the cursor
//                  4 key value  Scalar (a complete number, boolean or null) in the next slot
//                  5            End: the value at the cursor is complete
//                  6            Reset: the value goes back to undefined
//     done       the top-level value has closed
//     violation  the FailureIssue the first time there is one, else undefined (it is sticky here)
//     returns    { value, done, closed, violation } (violation null until there is one)
//   partialAppend(mirror, chunk, text, done, violation) -> PartialUpdate
//                the most common push (inside a string, nothing closed): partialApply with the
//                payload [0, 3, text], without JSON text
//   partialText(mirror) -> string  everything pushed
//
// The value is one live object: later pushes grow it in place (structuredClone it to keep a
// snapshot). A member named "__proto__" is an own property, as JSON.parse makes it.

export function partialNew() {
  return { value: undefined, text: '', stack: [], inString: false, slot: null, strVal: '', violation: null };
}

export function partialText(m) {
  return m.text;
}

function put(obj, key, v) {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value: v, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = v;
  }
}

/** Sets `v` in the next slot; returns the slot as [parent, key] (null: the top level). */
function setNext(m, key, v) {
  const { stack } = m;
  if (stack.length === 0) {
    m.value = v;
    return null;
  }
  const top = stack[stack.length - 1];
  if (Array.isArray(top)) {
    top.push(v);
    return [top, top.length - 1];
  }
  put(top, key, v);
  return [top, key];
}

function appendText(m, text) {
  m.strVal += text;
  if (m.slot === null) m.value = m.strVal;
  else put(m.slot[0], m.slot[1], m.strVal);
}

export function partialAppend(m, chunk, text, done, violation) {
  m.text += chunk;
  if (violation !== undefined) m.violation = violation;
  appendText(m, text);
  return { value: m.value, done, closed: [], violation: m.violation };
}

export function partialApply(m, chunk, payload, done, violation) {
  m.text += chunk;
  if (violation !== undefined) m.violation = violation;
  if (payload === '') return { value: m.value, done, closed: [], violation: m.violation };
  const a = JSON.parse(payload);
  const n = a[0];
  const closed = a.slice(1, n + 1);
  const { stack } = m;
  for (let i = n + 1; i < a.length; ) {
    const op = a[i];
    if (op === 3) {
      appendText(m, a[i + 1]);
      i += 2;
    } else if (op === 0 || op === 1) {
      const v = op === 0 ? {} : [];
      setNext(m, a[i + 1], v);
      stack.push(v);
      i += 2;
    } else if (op === 2) {
      m.slot = setNext(m, a[i + 1], '');
      m.strVal = '';
      m.inString = true;
      i += 2;
    } else if (op === 4) {
      setNext(m, a[i + 1], a[i + 2]);
      i += 3;
    } else if (op === 5) {
      if (m.inString) {
        m.inString = false;
        m.slot = null;
        m.strVal = '';
      } else {
        stack.pop();
      }
      i += 1;
    } else if (op === 6) {
      m.value = undefined;
      stack.length = 0;
      m.inString = false;
      m.slot = null;
      m.strVal = '';
      i += 1;
    } else {
      throw new Error(`selfheal: partialApply: unknown op ${op}`);
    }
  }
  return { value: m.value, done, closed, violation: m.violation };
}

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
// Protocol (src/wasm/mirror.rs writes it):
//
//   partialNew() -> mirror         an opaque record: { value, text, stack, ptrs, inString, parent,
//                                  key, slotPtr, strVal, violation }
//   partialApply(mirror, chunk, payload, done, violation) -> PartialUpdate
//     chunk      the JS string pushed, appended to mirror.text as it is
//     payload    "" when nothing changed; else the JSON text of one flat array of edits, each an
//                op code and its arguments. `[key]` is there only when the open container is an
//                object (the member's name); at the top level and in an array there is none.
//                  0 [key]        Begin object
//                  1 [key]        Begin array
//                  2 [key]        Begin string
//                  3 text         Append text to the string at the cursor
//                  4 [key] value  Scalar (a complete number, boolean or null) in the next slot
//                  5              End: the value at the cursor is complete
//                  6              Reset: the value goes back to undefined
//     done       the top-level value has closed
//     violation  the FailureIssue the first time there is one, else undefined (it is sticky here)
//     returns    { value, done, closed, violation } (violation null until there is one)
//   partialAppend(mirror, chunk, text, done, violation) -> PartialUpdate
//                the most common push (inside a string, nothing closed): partialApply with the
//                payload [3, text], without JSON text
//   partialText(mirror) -> string  everything pushed
//
// `closed` is not sent: every Scalar and every End closes one value, so the JSON Pointers are
// built here, in edit order, as src/structured/stream/builder.rs builds them (that is the
// reference; tests/js/stream_cases.mjs compares). Sending them doubled the payload and was most
// of the time of a reply of many tiny values (docs/PERFORMANCE.md, "Streaming").
//
// The value is one live object: later pushes grow it in place (structuredClone it to keep a
// snapshot). A member named "__proto__" is an own property, as JSON.parse makes it.

export function partialNew() {
  return {
    value: undefined, text: '', stack: [], ptrs: [], inString: false, parent: null, key: null,
    slotPtr: '', strVal: '', violation: null,
  };
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

/** A JSON Pointer segment: `~` -> `~0`, `/` -> `~1`. */
function segment(key) {
  return key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
}

/** In `setNext`: the value is the edit's next argument (a Scalar's). */
const ARGUMENT = Symbol('argument');

/**
 * Sets `v` in the next slot, reading the member's key from `a[i]` when the open container is an
 * object (and then `v` from the next argument, when it is ARGUMENT). The slot is left in
 * `m.parent`/`m.key` (the top level: parent null) and its pointer in `m.slotPtr`. Returns the
 * index after the arguments read.
 */
function setNext(m, a, i, v) {
  const { stack } = m;
  const depth = stack.length;
  if (depth === 0) {
    if (v === ARGUMENT) v = a[i++];
    m.value = v;
    m.parent = null;
    m.slotPtr = '';
    return i;
  }
  const top = stack[depth - 1];
  if (Array.isArray(top)) {
    if (v === ARGUMENT) v = a[i++];
    m.parent = top;
    m.key = top.length;
    m.slotPtr = m.ptrs[depth - 1] + '/' + top.length;
    top.push(v);
    return i;
  }
  const key = a[i++];
  if (v === ARGUMENT) v = a[i++];
  put(top, key, v);
  m.parent = top;
  m.key = key;
  m.slotPtr = m.ptrs[depth - 1] + '/' + segment(key);
  return i;
}

function appendText(m, text) {
  m.strVal += text;
  if (m.parent === null) m.value = m.strVal;
  else put(m.parent, m.key, m.strVal);
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
  const closed = [];
  const { stack, ptrs } = m;
  for (let i = 0; i < a.length; ) {
    const op = a[i++];
    if (op === 3) {
      appendText(m, a[i++]);
    } else if (op === 0 || op === 1) {
      const v = op === 0 ? {} : [];
      i = setNext(m, a, i, v);
      stack.push(v);
      ptrs.push(m.slotPtr);
    } else if (op === 2) {
      i = setNext(m, a, i, '');
      m.strVal = '';
      m.inString = true;
    } else if (op === 4) {
      i = setNext(m, a, i, ARGUMENT);
      closed.push(m.slotPtr);
    } else if (op === 5) {
      if (m.inString) {
        m.inString = false;
        closed.push(m.slotPtr);
      } else {
        stack.pop();
        closed.push(ptrs.pop());
      }
      m.strVal = '';
    } else if (op === 6) {
      m.value = undefined;
      stack.length = 0;
      ptrs.length = 0;
      m.inString = false;
      m.parent = null;
      m.strVal = '';
    } else {
      throw new Error(`selfheal: partialApply: unknown op ${op}`);
    }
  }
  return { value: m.value, done, closed, violation: m.violation };
}

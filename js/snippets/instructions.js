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

/** A successful parse: `{ ok: true, value, fixes }`; `fixes` arrives comma-joined. */
export function parsedOk(value, fixes) {
  return { ok: true, value, fixes: fixes === '' ? [] : fixes.split(',') };
}

/** `{ type: "done", value, text, source, fixes, attempts, costUsd }`; `fixes` comma-joined. */
export function done(value, text, source, fixes, attempts, costUsd) {
  return {
    type: 'done', value, text, source, fixes: fixes === '' ? [] : fixes.split(','), attempts, costUsd,
  };
}

// Builds the instructions the loop gives most often as object literals from their parts, so they
// cross without JSON text: serialising in Rust, decoding the text and JSON.parse cost more than
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

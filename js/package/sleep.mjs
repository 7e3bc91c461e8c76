// The backoff wait of heal (js/package/heal.mts) and selfheal/ai (js/package/ai.mjs): one timer
// that a signal can cut short. Plain JavaScript with its types beside it (sleep.d.mts), so that
// tsc (heal), esbuild (ai.node.cjs) and Node (the tests, importing js/package/ai.mjs) read the
// same file.

/**
 * Resolves true once at least `ms` have passed (a timer may fire up to a millisecond early, so
 * it re-arms for the rest: a server's retry-after is never cut short), or false as soon as
 * `signal` aborts.
 */
export function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const until = performance.now() + ms;
    let timer;
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const tick = () => {
      const left = until - performance.now();
      if (left > 0) {
        timer = setTimeout(tick, Math.ceil(left));
        return;
      }
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    timer = setTimeout(tick, ms);
  });
}

//! The host's `RegExp` (wasm32-unknown-unknown only): `new RegExp(source, "u")` and `test`,
//! both imported with `catch`, so a throw comes back as an `Err` instead of unwinding through
//! wasm frames (selfheal's boundary rule: DESIGN.md "The JS boundary").

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = RegExp)]
    #[derive(Clone)]
    type JsRegExp;

    #[wasm_bindgen(constructor, js_class = "RegExp", catch)]
    fn new(pattern: &str, flags: &str) -> Result<JsRegExp, JsValue>;

    #[wasm_bindgen(method, js_class = "RegExp", catch)]
    fn test(this: &JsRegExp, subject: &str) -> Result<bool, JsValue>;
}

/// A compiled `RegExp`, owned by this wasm instance.
#[derive(Clone)]
pub(crate) struct HostRegex(JsRegExp);

// SAFETY: without the `atomics` target feature (lib.rs refuses to build with it) a wasm32
// instance has one thread, so a JS object handle is never touched from two threads. jsonschema's
// validators require `Send + Sync` of their engines.
unsafe impl Send for HostRegex {}
unsafe impl Sync for HostRegex {}

impl HostRegex {
    /// `u`: JSON Schema patterns have Unicode semantics. No `g`/`y`, so `test` ignores `lastIndex`.
    pub(crate) fn new(source: &str) -> Option<HostRegex> {
        JsRegExp::new(source, "u").ok().map(HostRegex)
    }

    /// `None` when the engine threw (V8 throws a RangeError when its backtracking stack runs out).
    pub(crate) fn test(&self, subject: &str) -> Option<bool> {
        self.0.test(subject).ok()
    }
}

impl std::fmt::Debug for HostRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RegExp")
    }
}

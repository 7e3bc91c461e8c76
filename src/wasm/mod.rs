//! The JavaScript boundary: the only module that names wasm-bindgen or js-sys.
//!
//! It converts and nothing else. Inputs are read defensively (see `read`),
//! outputs are plain JSON-compatible objects. Objects keep their Rust state
//! in a `RefCell` and every method takes `&self`: user code that runs while
//! inputs are read (getters, proxies) can never find a borrow held, and a
//! thrown error leaves the object usable.

mod alloc;
mod classes;
pub mod de;
mod dts;
mod error;
mod mirror;
mod random;
mod read;
mod registry;
mod rules_js;
pub mod structured_js;

pub use classes::agent_budget::JsAgentBudget;
pub use classes::breaker::JsCircuitBreaker;
pub use classes::compaction::{apply_summary, estimate_tokens, plan_compaction};
pub use classes::fallback_chain::JsFallbackChain;
pub use classes::ladder::JsDegradationLadder;
pub use classes::metrics::JsMetrics;
pub use classes::partial_json::JsPartialJson;
pub use classes::repair_loop::JsRepairLoop;
pub use classes::retry_budget::JsRetryBudget;
pub use classes::supervisor::JsSupervisor;

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::classify::{classify_with_rules, ClassifyRule};

/// Every serialised output crosses as JSON text and `JSON.parse`: exact for arbitrary JSON
/// (numbers above 2^53 included: what JS itself would parse), plain objects with own keys (a
/// `"__proto__"` key included), and one serializer, so each output type's `Serialize` is
/// instantiated once (docs/PERFORMANCE.md, "Round 4").
pub(crate) fn to_js_json<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(v)
        .map_err(|e| js_sys::Error::new(&format!("selfheal: internal serialisation error: {e}")))?;
    js_sys::JSON::parse(&text)
}

#[wasm_bindgen(module = "/js/snippets/instructions.js")]
extern "C" {
    // Object literals from our own primitives: nothing user-defined runs, nothing can throw.
    #[wasm_bindgen(js_name = classified)]
    fn classified_js(
        class: &JsValue,
        cause: &JsValue,
        reason: &str,
        signal: &JsValue,
        retry_after_ms: Option<f64>,
    ) -> JsValue;
    #[wasm_bindgen(js_name = waitForBackoff)]
    fn wait_for_backoff_js(
        delay_ms: f64,
        system: &str,
        user: &str,
        attempt: u32,
        classified: &JsValue,
    ) -> JsValue;
    #[wasm_bindgen(js_name = parsedOk)]
    fn parsed_ok_js(value: &JsValue, fixes: Vec<JsValue>) -> JsValue;
    #[wasm_bindgen(js_name = repaired)]
    fn repaired_js(text: &str, fixes: Vec<JsValue>) -> JsValue;
    #[wasm_bindgen(js_name = done)]
    fn done_js(
        value: &JsValue,
        text: &JsValue,
        source: &JsValue,
        fixes: Vec<JsValue>,
        attempts: u32,
        cost_usd: f64,
    ) -> JsValue;
}

/// The fixes' names as JS strings (made once each, `read::interned`), for a JS array.
fn fix_names(fixes: &[crate::structured::Fix]) -> Vec<JsValue> {
    fixes
        .iter()
        .map(|fix| read::interned(fix.as_str()))
        .collect()
}

/// `{ ok: true, value, fixes }` for a JS value parsed on the JS side.
pub(crate) fn parsed_ok_to_js(value: &JsValue, fixes: &[crate::structured::Fix]) -> JsValue {
    parsed_ok_js(value, fix_names(fixes))
}

/// `repairJson`'s `{ text, fixes }`, built by js/snippets/instructions.js: the text crosses once,
/// not escaped into JSON text and parsed again (1.6x slower at 2 KB and 50 KB, "Round 4").
/// Destructured without `..`: a new `Repaired` field breaks the build here.
pub(crate) fn repaired_to_js(repaired: &crate::structured::Repaired) -> JsValue {
    let crate::structured::Repaired { text, fixes } = repaired;
    repaired_js(text, fix_names(fixes))
}

/// A `done` instruction around a JS value parsed on the JS side and the JS string it came from.
pub(crate) fn done_to_js(
    value: &JsValue,
    text: &JsValue,
    source: crate::repair_loop::Source,
    fixes: &[crate::structured::Fix],
    attempts: u32,
    cost_usd: f64,
) -> JsValue {
    done_js(
        value,
        text,
        &variant_js(&source),
        fix_names(fixes),
        attempts,
        cost_usd,
    )
}

/// The name serde gives a unit enum variant (`"rate-limited"`), as an interned JS string: read
/// by `name_of`'s serializer, which `as_str` instantiates anyway (not `serde_json::to_value`, a
/// second serializer per enum, and a `String` per call).
fn variant_js<T: Serialize>(v: &T) -> JsValue {
    crate::wire::name_of(v).map_or(JsValue::NULL, read::interned)
}

/// A classification as JS, built by js/snippets/instructions.js. Destructured without `..`: a field
/// added to `Classified` must be added here too, or this stops compiling.
pub(crate) fn classified_to_js(c: &crate::classify::Classified) -> JsValue {
    let crate::classify::Classified {
        class,
        cause,
        reason,
        signal,
        retry_after_ms,
    } = c;
    classified_js(
        &variant_js(class),
        &variant_js(cause),
        reason,
        &variant_js(signal),
        *retry_after_ms,
    )
}

/// A `wait-for-backoff` instruction as JS, built by js/snippets/instructions.js.
pub(crate) fn wait_for_backoff_to_js(
    delay_ms: f64,
    prompt: &crate::prompt::Prompt,
    attempt: u32,
    classified: &crate::classify::Classified,
) -> JsValue {
    // Without `..`, as above: a new `Prompt` field breaks the build here, not the output.
    let crate::prompt::Prompt { system, user } = prompt;
    wait_for_backoff_js(
        delay_ms,
        system,
        user,
        attempt,
        &classified_to_js(classified),
    )
}

/// `classify(error, validation?, now?, options?)`: never throws for the first three, whatever
/// they are; bad `options.rules` are a `TypeError`/`RangeError` naming the rule and field.
#[wasm_bindgen(js_name = classify, skip_typescript)]
pub fn classify_js(
    error: JsValue,
    validation: JsValue,
    now: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let rules = if read::is_nullish(&options) {
        Vec::new()
    } else {
        rules_js::opt_rules(&options, "options")?
    };
    Ok(classify_with(&error, &validation, &now, &rules))
}

/// `classify(error, validation, now)` without options, for Rust callers (tests/web.rs).
pub fn classify(error: JsValue, validation: JsValue, now: JsValue) -> JsValue {
    classify_with(&error, &validation, &now, &[])
}

fn classify_with(
    error: &JsValue,
    validation: &JsValue,
    now: &JsValue,
    rules: &[ClassifyRule],
) -> JsValue {
    let info = read::error_info(error);
    let validation = read::validation(validation);
    let now = now
        .as_f64()
        .filter(|n| n.is_finite())
        .unwrap_or_else(js_sys::Date::now);
    classified_to_js(&classify_with_rules(&info, validation.as_ref(), now, rules))
}

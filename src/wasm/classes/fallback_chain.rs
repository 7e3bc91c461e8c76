//! `FallbackChain` (SPEC section 6): a primary tool, fallbacks in order, a breaker per tool;
//! and the one-line description of a tool's error that it and `DegradationLadder` keep.

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::{construct, State};
use crate::classify::{classify, ErrorInfo};
use crate::toolkit::{ChainResult, FallbackChain};
use crate::wasm::{de, read, to_js_json};

/// Code points kept of an error description in a failure.
const MAX_ERROR_CHARS: usize = 500;

#[wasm_bindgen]
extern "C" {
    /// `String(v)`, imported with catch (a `toString` or `Symbol.toPrimitive` may throw).
    #[wasm_bindgen(catch, js_name = String)]
    fn js_string(v: &JsValue) -> Result<JsValue, JsValue>;
}

/// `{ ok, error? }` as the host reports a call: `ok` is required; `error` is anything.
#[derive(Deserialize)]
struct Reported {
    ok: bool,
}

/// `result.ok` of `next`'s argument (which must be an object).
pub(crate) fn reported_ok(v: &JsValue) -> Result<bool, JsValue> {
    let Reported { ok } = de::from_js(v, "result")?;
    Ok(ok)
}

/// `result.error`, described as one line.
pub(crate) fn reported_error(v: &JsValue) -> Result<Option<String>, JsValue> {
    Ok(described(&read::field(v, "error", "result")?).0)
}

/// One line describing whatever a tool threw or returned as its error (its
/// [`ErrorInfo::summary`], else `String(error)`), and for an error object what it gathers to.
fn described(v: &JsValue) -> (Option<String>, Option<ErrorInfo>) {
    if read::is_nullish(v) {
        return (None, None);
    }
    let string = || js_string(v).ok().and_then(|s| s.as_string());
    let mut info = None;
    let out = if let Some(s) = v.as_string() {
        s
    } else if read::is_object(v) {
        let out = info.insert(read::error_info(v)).summary();
        if out.is_empty() {
            string()
                .filter(|s| !s.starts_with("[object "))
                .or_else(|| read::json_text(v, "error").ok())
                .unwrap_or_else(|| read::type_name(v).to_string())
        } else {
            out
        }
    } else {
        string().unwrap_or_else(|| read::type_name(v).to_string())
    };
    (Some(crate::text::one_line(&out, MAX_ERROR_CHARS)), info)
}

#[wasm_bindgen(js_name = FallbackChain, skip_typescript)]
pub struct JsFallbackChain {
    inner: State<FallbackChain>,
}

#[wasm_bindgen(js_class = FallbackChain)]
impl JsFallbackChain {
    /// `new FallbackChain({ primary, fallbacks, defaultValue?, timeoutMs, failureThreshold?, resetTimeoutMs? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsFallbackChain, JsValue> {
        Ok(JsFallbackChain {
            inner: construct(&options, FallbackChain::new)?,
        })
    }

    /// Begin a run: the first tool whose breaker is not open.
    pub fn start(&self, now: JsValue) -> Result<JsValue, JsValue> {
        let now = read::now_arg(&now)?;
        to_js_json(&self.inner.with(|c| c.start(now))?)
    }

    /// Feed `{ ok, error? }` of the call the last step asked for; an error object is classified
    /// (a failure the request brought on does not count against the tool).
    pub fn next(&self, result: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let ok = reported_ok(&result)?;
        let (error, info) = described(&read::field(&result, "error", "result")?);
        let now = read::now_arg(&now)?;
        let cause = info.map(|info| classify(&info, None, now).cause);
        to_js_json(
            &self
                .inner
                .with(|c| c.next(ChainResult { ok, error, cause }, now))?,
        )
    }

    /// Tools called in the current run, in call order.
    #[wasm_bindgen(getter)]
    pub fn tried(&self) -> Result<JsValue, JsValue> {
        to_js_json(&self.inner.with(|c| c.tried().to_vec())?)
    }

    /// Failed calls of the current run: `{ tool, error, at }`.
    #[wasm_bindgen(getter)]
    pub fn failures(&self) -> Result<JsValue, JsValue> {
        to_js_json(&self.inner.with(|c| c.failures().to_vec())?)
    }
}

super::state_json!(JsFallbackChain, "FallbackChain", FallbackChain);

//! `DegradationLadder` (SPEC section 6): partial → minimal → unavailable.

use wasm_bindgen::prelude::*;

use super::fallback_chain::{reported_error, reported_ok};
use super::{construct, State};
use crate::error::OptionError;
use crate::toolkit::{DegradationLadder, LadderResult};
use crate::wasm::{de, read, to_js_json};

/// `{ ok: true, text }` or `{ ok: false, error? }`.
fn ladder_result(v: &JsValue) -> Result<LadderResult, JsValue> {
    if !reported_ok(v)? {
        return Ok(LadderResult {
            ok: false,
            text: String::new(),
            error: reported_error(v)?,
        });
    }
    match de::from_js::<Option<String>>(&read::field(v, "text", "result")?, "result.text")? {
        Some(text) => Ok(LadderResult::ok(text)),
        None => Err(OptionError::type_("result.text", "is required and must be a string").into()),
    }
}

#[wasm_bindgen(js_name = DegradationLadder, skip_typescript)]
pub struct JsDegradationLadder {
    inner: State<DegradationLadder>,
}

#[wasm_bindgen(js_class = DegradationLadder)]
impl JsDegradationLadder {
    /// `new DegradationLadder({ task, failedCapabilities, lightModel?, locale? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsDegradationLadder, JsValue> {
        Ok(JsDegradationLadder {
            inner: construct(&options, DegradationLadder::new)?,
        })
    }

    /// The first step ("partial" only if tools failed); again restarts.
    pub fn start(&self) -> Result<JsValue, JsValue> {
        to_js_json(&self.inner.with(|l| l.start())?)
    }

    /// Feed `{ ok: true, text }` or `{ ok: false, error? }`.
    pub fn next(&self, result: JsValue) -> Result<JsValue, JsValue> {
        let result = ladder_result(&result)?;
        to_js_json(&self.inner.with(|l| l.next(result))?)
    }
}

super::state_json!(JsDegradationLadder, "DegradationLadder", DegradationLadder);

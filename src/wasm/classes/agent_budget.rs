//! `AgentBudget` (SPEC section 6): iteration and token budgets with a "nearly done" signal.

use wasm_bindgen::prelude::*;

use super::{construct, State};
use crate::prompt::Locale;
use crate::toolkit::{AgentBudget, Usage};
use crate::wasm::{de, to_js_json};

#[wasm_bindgen(js_name = AgentBudget, skip_typescript)]
pub struct JsAgentBudget {
    inner: State<AgentBudget>,
}

#[wasm_bindgen(js_class = AgentBudget)]
impl JsAgentBudget {
    /// `new AgentBudget({ maxInputTokens, maxOutputTokens, maxIterations? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsAgentBudget, JsValue> {
        Ok(JsAgentBudget {
            inner: construct(&options, AgentBudget::new)?,
        })
    }

    /// One iteration (model call) and its usage.
    pub fn record(&self, usage: JsValue) -> Result<(), JsValue> {
        let usage: Usage = de::from_js(&usage, "usage")?;
        self.inner.with(|b| b.record(usage))
    }

    /// `{ stop, reason }`: iterations, then input, then output tokens.
    pub fn exhausted(&self) -> Result<JsValue, JsValue> {
        to_js_json(&self.inner.with(|b| b.exhausted())?)
    }

    /// Either token ratio above 0.8.
    #[wasm_bindgen(js_name = nearlyDone)]
    pub fn nearly_done(&self) -> Result<bool, JsValue> {
        self.inner.with(|b| b.nearly_done())
    }

    /// `min(cap, output tokens left)`.
    #[wasm_bindgen(js_name = maxTokensForNextCall)]
    pub fn max_tokens_for_next_call(&self, cap: JsValue) -> Result<f64, JsValue> {
        let cap: u64 = de::from_js(&cap, "cap")?;
        self.inner.with(|b| b.max_tokens_for_next_call(cap) as f64)
    }

    /// `""` unless nearly done; then the wrap-up sentence in `locale` (default "en").
    pub fn hint(&self, locale: JsValue) -> Result<String, JsValue> {
        let locale: Option<Locale> = de::from_js(&locale, "locale")?;
        self.inner.with(|b| b.hint(locale.unwrap_or_default()))
    }

    /// Iterations recorded.
    #[wasm_bindgen(getter)]
    pub fn iterations(&self) -> Result<f64, JsValue> {
        self.inner.with(|b| f64::from(b.iterations()))
    }

    /// Input tokens used in total.
    #[wasm_bindgen(getter, js_name = inputTokens)]
    pub fn input_tokens(&self) -> Result<f64, JsValue> {
        self.inner.with(|b| b.input_tokens() as f64)
    }

    /// Output tokens used in total.
    #[wasm_bindgen(getter, js_name = outputTokens)]
    pub fn output_tokens(&self) -> Result<f64, JsValue> {
        self.inner.with(|b| b.output_tokens() as f64)
    }
}

super::state_json!(JsAgentBudget, "AgentBudget", AgentBudget);

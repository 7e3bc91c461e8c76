//! `Supervisor` (SPEC section 6): watches an agent run step by step.

use wasm_bindgen::prelude::*;

use super::{under_options, State};
use crate::toolkit::{Step, Supervisor, SupervisorOptions};
use crate::wasm::{de, read, to_js_json};

#[wasm_bindgen(js_name = Supervisor, skip_typescript)]
pub struct JsSupervisor {
    inner: State<Supervisor>,
}

#[wasm_bindgen(js_class = Supervisor)]
impl JsSupervisor {
    /// `new Supervisor(options?, now?)`: `now` is the start of the run.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, now: JsValue) -> Result<JsSupervisor, JsValue> {
        let options: SupervisorOptions = de::optional(&options, "options")?;
        let now = read::now_arg(&now)?;
        let inner = Supervisor::new(options, now).map_err(under_options)?;
        Ok(JsSupervisor {
            inner: State::new(inner),
        })
    }

    /// Count one step and check the limits.
    pub fn observe(&self, step: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let step: Step = de::from_js(&step, "step")?;
        let now = read::now_arg(&now)?;
        to_js_json(&self.inner.with(|s| s.observe(step, now))?)
    }

    /// The reviewing model's reply text as a verdict.
    pub fn verdict(&self, text: JsValue) -> Result<JsValue, JsValue> {
        // Longer than any reply: not copied in (the core would not read it either).
        if read::certainly_longer(&text, crate::structured::DEFAULT_MAX_REPLY_CHARS).is_some() {
            return to_js_json(&crate::toolkit::Verdict::Continue);
        }
        let text: String = de::from_js(&text, "text")?;
        to_js_json(&self.inner.with(|s| s.verdict(&text))?)
    }

    /// Steps observed so far.
    #[wasm_bindgen(getter)]
    pub fn steps(&self) -> Result<f64, JsValue> {
        self.inner.with(|s| f64::from(s.steps()))
    }

    /// Tokens added up over all steps.
    #[wasm_bindgen(getter)]
    pub fn tokens(&self) -> Result<f64, JsValue> {
        self.inner.with(|s| s.tokens() as f64)
    }
}

super::state_json!(JsSupervisor, "Supervisor", Supervisor);

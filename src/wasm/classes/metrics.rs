//! `Metrics` (SPEC section 6): healing events, a windowed summary, alerts and JSONL.

use wasm_bindgen::prelude::*;

use super::State;
use crate::error::OptionError;
use crate::toolkit::{metrics::DEFAULT_SUMMARY_WINDOW_MS, HealingEvent, Metrics};
use crate::wasm::{de, read, to_js_json};

#[wasm_bindgen(js_name = Metrics, skip_typescript)]
pub struct JsMetrics {
    inner: State<Metrics>,
}

#[wasm_bindgen(js_class = Metrics)]
impl JsMetrics {
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> JsMetrics {
        JsMetrics {
            inner: State::new(Metrics::new()),
        }
    }

    /// Add one healing event.
    pub fn record(&self, event: JsValue) -> Result<(), JsValue> {
        let event: HealingEvent = de::from_js(&event, "event")?;
        event.check().map_err(|e| e.under("event"))?;
        self.inner.with(|m| m.record(event))
    }

    /// Figures over the events in the last `windowMs` (default one hour) before `now`.
    pub fn summary(&self, window_ms: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let window_ms = de::from_js::<Option<f64>>(&window_ms, "windowMs")?
            .unwrap_or(DEFAULT_SUMMARY_WINDOW_MS);
        if window_ms < 0.0 {
            return Err(
                OptionError::range("windowMs", &format!("must be >= 0, got {window_ms}")).into(),
            );
        }
        let now = read::now_arg(&now)?;
        to_js_json(&self.inner.with(|m| m.summary(window_ms, now))?)
    }

    /// Alerts at `now`.
    pub fn alerts(&self, now: JsValue) -> Result<JsValue, JsValue> {
        let now = read::now_arg(&now)?;
        to_js_json(&self.inner.with(|m| m.alerts(now))?)
    }

    /// One `{"type":"healing_event",...}` line per event.
    #[wasm_bindgen(js_name = toJSONL)]
    pub fn to_jsonl(&self) -> Result<String, JsValue> {
        self.inner.with(|m| m.to_jsonl())
    }
}

super::state_json!(
    JsMetrics,
    "Metrics",
    Metrics,
    wrap: |m| JsMetrics { inner: State::new(m) }
);

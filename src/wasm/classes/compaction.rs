//! `estimateTokens`, `planCompaction`, `applySummary` (SPEC section 6).

use wasm_bindgen::prelude::*;

use super::under_options;
use crate::toolkit::{
    apply_summary as apply_summary_core, estimate_tokens as estimate_tokens_core,
    plan_compaction as plan_compaction_core, Compaction, CompactionOptions, Message,
};
use crate::wasm::{de, to_js_json};

/// `estimateTokens(messages)`: script-aware, never below `ceil(0.25 · characters)`.
#[wasm_bindgen(js_name = estimateTokens, skip_typescript)]
pub fn estimate_tokens(messages: JsValue) -> Result<f64, JsValue> {
    let messages: Vec<Message> = de::from_js(&messages, "messages")?;
    Ok(estimate_tokens_core(&messages) as f64)
}

/// `planCompaction(messages, { maxTokens, keepRecent?, maxToolResultChars? })`.
#[wasm_bindgen(js_name = planCompaction, skip_typescript)]
pub fn plan_compaction(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let messages: Vec<Message> = de::from_js(&messages, "messages")?;
    let options: CompactionOptions = de::from_js(&options, "options")?;
    let plan = plan_compaction_core(&messages, &options).map_err(under_options)?;
    to_js_json(&plan)
}

/// `applySummary(plan, summary)`: `[summary message, ack message, ...plan.keep]`.
#[wasm_bindgen(js_name = applySummary, skip_typescript)]
pub fn apply_summary(plan: JsValue, summary: JsValue) -> Result<JsValue, JsValue> {
    let plan: Compaction = super::read_state(&plan, "plan", "planCompaction() returned")?;
    let summary: String = de::from_js(&summary, "summary")?;
    let messages = apply_summary_core(&plan, &summary)?;
    to_js_json(&messages)
}

//! `ClassifyRule[]` (SPEC section 10) from JavaScript: `classify(…, { rules })` and
//! `LoopOptions.rules`, read by serde through `de` (a bad rule is a `TypeError` or `RangeError`
//! naming its index and field, `options.rules[2].status`), then checked by the core.

use wasm_bindgen::JsValue;

use super::de;
use super::error::Read;
use crate::classify::rules::{check_all, ClassifyRule, MAX_RULES};
use crate::error::OptionError;

/// `options.rules` (`parent` names `options`), checked: empty when absent or null.
pub fn opt_rules(options: &JsValue, parent: &str) -> Read<Vec<ClassifyRule>> {
    #[derive(serde::Deserialize)]
    struct Given {
        rules: Option<Vec<ClassifyRule>>,
    }
    // Longer lists are refused before any rule is read.
    let limits = de::Limits {
        items: MAX_RULES as u32,
        ..de::Limits::DEFAULT
    };
    let given: Given = de::read_js(options, parent, limits, de::Keys::Declared)?;
    let rules = given.rules.unwrap_or_default();
    check_all(&rules).map_err(|e| OptionError::from(e).under(parent))?;
    Ok(rules)
}

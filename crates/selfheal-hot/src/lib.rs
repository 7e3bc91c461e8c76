//! selfheal's hot paths, in their own crate so that they keep opt-level 3 while selfheal
//! itself is built for size (Cargo.toml, `[profile.release.package.selfheal-hot]`;
//! docs/PERFORMANCE.md, "Round 3"; docs/DESIGN.md, "Two crates, two opt-levels"): the repair
//! scanner ([`repair`]) and the fix names ([`fix`]), the parser of `Value`, [`classify`] and
//! [`text`] (the path of every error outcome), and the reading of the records
//! js/snippets/gather.js writes ([`gather`]). selfheal re-exports them under their old paths
//! (`selfheal::classify`, `selfheal::text`, `selfheal::structured::{repair, fix}`).
//!
//! Release builds do not share generic code between crates: a generic function is compiled in
//! the crate that instantiates it, at that crate's opt-level. So serde_json's parser of
//! [`Value`] is instantiated here, behind the non-generic [`parse_value`], and selfheal calls
//! that instead of `serde_json::from_str::<Value>`.

pub mod classify;
pub mod fix;
pub mod gather;
pub mod repair;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod wire_name;

use serde_json::Value;

/// `serde_json::from_str::<Value>`, compiled at this crate's opt-level.
pub fn parse_value(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(text)
}

/// `serde_json::to_string(&Value)`, compiled at this crate's opt-level.
pub fn value_to_string(value: &Value) -> String {
    value.to_string()
}

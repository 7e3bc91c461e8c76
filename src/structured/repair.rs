// TEMPORARY STUB (the real scanner is being written): overwrite freely.
use serde::{Deserialize, Serialize};
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fix { CodeFence, SurroundingProse, TrailingComma, SingleQuotes, SmartQuotes, UnquotedKey, Comment, PythonLiteral, MissingComma, ControlCharacter, InvalidEscape, UnclosedString, UnclosedBracket }
impl Fix { pub fn as_str(self) -> &'static str { "stub" } }
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired { pub text: String, pub fixes: Vec<Fix> }
pub const MAX_DEPTH: usize = 128;
pub fn repair_json(text: &str) -> Option<Repaired> {
    let t = text.trim();
    let t = t.strip_prefix("```json").and_then(|t| t.strip_suffix("```")).map(|t| (t.trim(), true)).unwrap_or((t, false));
    serde_json::from_str::<serde_json::Value>(t.0).ok().map(|_| Repaired { text: t.0.to_string(), fixes: if t.1 { vec![Fix::CodeFence] } else { vec![] } })
}

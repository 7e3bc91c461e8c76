//! The records js/snippets/gather.js writes about a thrown value and an outcome (SPEC section 3),
//! read from its JSON text. Here rather than in the wasm layer (src/wasm/read.rs calls the
//! gatherer) because they are on the path of every error outcome: this crate is compiled for
//! speed, and a generic function is compiled where it is instantiated.

use crate::classify::ErrorInfo;

/// `outcome.kind`, by its serde names.
#[derive(Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    Reply,
    Error,
    Rejected,
    Invalid,
}

/// How reading an outcome starts (one crossing), as js/snippets/gather.js `startOutcome` sends
/// it: serde's externally tagged form, which reads the gathered error without buffering it.
// The error variant is large, but an `OutcomeStart` lives for one `match` on the stack and is
// never stored: boxing it would add an allocation to every error outcome for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeStart {
    /// `{kind: "error", error, costUsd?}` with a valid cost, read whole.
    Error(ErrorInfo, f64),
    /// "reply", "rejected" or "invalid": the kind, read once; the rest is read field by field.
    Kind(OutcomeKind),
    /// Anything else: read it all field by field (with its errors for bad fields).
    Unread,
}

/// `gatherError`'s text as the `ErrorInfo` it is; `None` if it is not one (not reachable by
/// design: the gatherer writes only `ErrorInfo`'s fields).
pub fn error_info(text: &str) -> Option<ErrorInfo> {
    serde_json::from_str(text).ok()
}

/// `startOutcome`'s text; anything unreadable is "read the fields".
pub fn outcome_start(text: &str) -> OutcomeStart {
    serde_json::from_str(text).unwrap_or(OutcomeStart::Unread)
}

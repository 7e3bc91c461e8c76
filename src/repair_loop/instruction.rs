//! What crosses the loop's boundary: the [`Outcome`] the host feeds in and the [`Instruction`]
//! it gets back, with the wire enums they carry. Serde attributes here are the JS names.

use serde::Serialize;
use serde_json::Value;

use crate::classify::{Classified, ErrorInfo};
use crate::prompt::Prompt;
use crate::structured::{FailureReport, False, Fix};
use crate::toolkit::Usage;

use super::FallbackPlan;

selfheal_hot::wire_enum! {
/// Which kind of repair prompt a `send-repair-prompt` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Fix,
    Reask,
    Alternate,
}
}

/// What happened to the call the host made.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Reply {
        text: String,
        stop_reason: Option<String>,
        cost_usd: f64,
        usage: Option<Usage>,
    },
    /// A reply the host did not read because it is certainly longer than `maxReplyChars`:
    /// `length` is its length in UTF-16 code units, as JavaScript measures it without reading
    /// the text (at least the number of code points; the refusal's message names the unit).
    ReplyTooLong {
        length: usize,
        stop_reason: Option<String>,
        cost_usd: f64,
    },
    /// A reply whose text is what [`RepairLoop::push`](super::RepairLoop::push) received for
    /// this call (SPEC section 8: `next({ kind: "reply" })` without `text` after pushes).
    StreamedReply {
        stop_reason: Option<String>,
        cost_usd: f64,
        usage: Option<Usage>,
    },
    /// Whatever the call threw or returned as an error, as read by the host layer.
    Error { error: ErrorInfo, cost_usd: f64 },
    /// A downstream system refused the most recent value, with a reason.
    Rejected { reason: String },
    /// The host's own content check failed on the most recent value.
    Invalid { reason: String },
}

selfheal_hot::wire_enum! {
/// How the accepted value came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    FirstPass,
    LocallyRepaired,
    Repaired,
}
}

selfheal_hot::wire_enum! {
/// Why the loop gave up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    HardFail,
    Unrepairable,
    TransientExhausted,
    BudgetExhausted,
    RepairFailed,
    SemanticInvalid,
    DeadlineExceeded,
    PromptTooLarge,
    CostCeiling,
    RetryAfterTooLong,
    CircuitOpen,
    Aborted,
    /// The shared [`RetryBudget`](crate::toolkit::RetryBudget) allowed no resend.
    RetryBudgetExhausted,
}
}

crate::wire::tagged_enum! {
    #[tag("type", "$selfheal::tagged:type")]
    /// What the host must do next.
    #[must_use]
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "kebab-case", rename_all_fields = "camelCase")]
    pub enum Instruction {
        /// Wait `delay_ms`, then send `prompt` (the prompt of the failed call) as call number `attempt`,
        /// and feed its outcome to `next()`.
        WaitForBackoff {
            delay_ms: f64,
            prompt: Prompt,
            attempt: u32,
            classified: Classified,
        },
        /// Send `prompt` now as call number `attempt` and feed its outcome to `next()`.
        SendRepairPrompt {
            prompt: Prompt,
            attempt: u32,
            strategy: Strategy,
            classified: Classified,
        },
        /// Use `value`. Provisional: feed one `rejected`/`invalid` if a later check refuses it.
        Done {
            value: Value,
            text: String,
            source: Source,
            fixes: Vec<Fix>,
            attempts: u32,
            cost_usd: f64,
            /// `Some(False)` when the loop has a schema this build does not validate
            /// (selfheal/lite): the value was checked for syntax only. Absent otherwise.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            validated: Option<False>,
        },
        /// Stop calling the model; go to `fallback` (if any). Final.
        Degrade {
            reason: StopReason,
            detail: String,
            fallback: Option<FallbackPlan>,
            report: Option<FailureReport>,
            classified: Option<Classified>,
            attempts: u32,
            cost_usd: f64,
        },
    }
}

impl Instruction {
    pub fn is_final(&self) -> bool {
        matches!(self, Instruction::Done { .. } | Instruction::Degrade { .. })
    }
}

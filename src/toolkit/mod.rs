//! Agent toolkit parts (SPEC section 6). Each is a small sans-IO object in
//! the style of [`RepairLoop`](crate::RepairLoop): time comes in as a `now`
//! parameter (ms), nothing reads a clock or a global, anything that needs a
//! model call comes back as a prompt for the host, and the whole state
//! round-trips through serde (`toJSON` / `fromJSON`). Options structs carry
//! the SPEC defaults and a `check()` whose errors name the JS field.
//!
//! * [`CircuitBreaker`]: closed / open / half-open.
//! * [`Supervisor`]: step, time and token limits, loop and oscillation
//!   detection, periodic model review.
//! * [`AgentBudget`]: iteration and token budgets, "nearly done" hint.
//! * [`FallbackChain`]: primary tool, fallbacks, a breaker per tool.
//! * [`DegradationLadder`]: partial → minimal → unavailable.
//! * [`estimate_tokens`], [`plan_compaction`], [`apply_summary`]: context compaction.
//! * [`Metrics`]: healing events, summary, alerts, JSONL.
//! * [`RetryBudget`]: resends as a fraction of first calls, shared by many loops.

#![warn(missing_docs)]

/// Counts in a state stop here (`Number.MAX_SAFE_INTEGER`), so they survive JSON and JS numbers
/// and a state `toJSON()` gave can always be read back.
const MAX_COUNT: u64 = 9_007_199_254_740_991;

pub mod breaker;
pub mod budget;
pub mod compaction;
pub mod fallback;
pub mod ladder;
pub mod metrics;
pub mod retry_budget;
pub mod supervisor;

pub use breaker::{BreakerOptions, BreakerState, CircuitBreaker};
pub use budget::{AgentBudget, AgentBudgetOptions, BudgetStatus, Usage};
pub use compaction::{
    apply_summary, estimate_tokens, plan_compaction, Compaction, CompactionOptions, Message,
    MessageContent, Role,
};
pub use fallback::{ChainFailure, ChainResult, ChainStep, FallbackChain, FallbackOptions};
pub use ladder::{DegradationLadder, LadderOptions, LadderResult, LadderStep, Level};
pub use metrics::{Alert, AlertLevel, HealingEvent, Metrics, MetricsSummary};
pub use retry_budget::{RetryBudget, RetryBudgetOptions};
pub use supervisor::{InterventionStrategy, Step, Supervisor, SupervisorOptions, Verdict};

/// The largest time from 1970 a JS `Date` holds, in ms: restored times beyond it are refused.
pub(crate) const MAX_DATE_MS: f64 = 8.64e15;

/// Neutralise `<name>` / `</name>` in quoted text (see [`crate::text::neutralise_tags`]).
fn neutralise(s: &str, name: &str) -> String {
    crate::text::neutralise_tags(s, &[name])
}

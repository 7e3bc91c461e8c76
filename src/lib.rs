//! # selfheal
//!
//! The policy brain of an LLM call that must not fail silently and must not
//! retry blindly. selfheal contains no networking code, reads no clock and
//! draws no randomness of its own: the host makes every call, passes the
//! current time in, and seeds the jitter. The same inputs always give the
//! same instructions.
//!
//! The host loop, natively (the JavaScript one is the same shape):
//!
//! ```
//! use selfheal::{ErrorInfo, Instruction, LoopConfig, Outcome, Prompt, RepairLoop, SchemaCache};
//!
//! let mut cache = SchemaCache::default();
//! let schema = cache.get_or_compile(r#"{"type":"object","required":["city"]}"#).unwrap();
//! let prompt = Prompt { system: "Reply with JSON.".into(), user: "Where is the Eiffel Tower?".into() };
//! let mut repair = RepairLoop::new(LoopConfig::new(prompt, 42), Some(schema)).unwrap();
//!
//! // The host sent `prompt`; the provider answered 429 with `retry-after: 2`.
//! let rate_limited = ErrorInfo {
//!     present: true,
//!     status: Some(429),
//!     headers: vec![("retry-after".into(), "2".into())],
//!     ..ErrorInfo::default()
//! };
//! let now = 1_700_000_000_000.0;
//! match repair.next(Outcome::Error { error: rate_limited, cost_usd: 0.0 }, now, None) {
//!     Instruction::WaitForBackoff { delay_ms, attempt, .. } => {
//!         assert_eq!((delay_ms, attempt), (2000.0, 2));
//!     }
//!     other => panic!("{other:?}"),
//! }
//! // After the wait the host resent the prompt and got a fenced reply.
//! let reply = Outcome::Reply {
//!     text: "```json\n{\"city\": \"Paris\"}\n```".into(),
//!     stop_reason: None,
//!     cost_usd: 0.001,
//!     usage: None,
//! };
//! match repair.next(reply, now + 2000.0, None) {
//!     Instruction::Done { value, fixes, attempts, .. } => {
//!         assert_eq!(value["city"], "Paris");
//!         assert_eq!(fixes.len(), 1);
//!         assert_eq!(attempts, 2);
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! Modules: [`classify`] (error → class), [`structured`] (parse, repair,
//! validate), [`prompt`] (repair prompts), [`repair_loop`] (the loop),
//! [`backoff`] (delays and the PRNG), [`toolkit`] (circuit breaker). The
//! `wasm` module is the only one that knows about JavaScript.

pub mod backoff;
// classify and text live in crates/selfheal-hot (compiled for speed: the path of every outcome).
pub use selfheal_hot::classify;
pub mod error;
pub mod options;
pub mod prompt;
pub mod repair_loop;
pub mod structured;
pub use selfheal_hot::text;
pub mod toolkit;
pub mod wire;

/// The JavaScript boundary. Public only so `tests/web.rs` can call the exported
/// functions from Rust; it is not a Rust API.
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

pub use backoff::{Backoff, Jitter, Rng};
pub use classify::{
    classify, classify_with_rules, Cause, Classified, ClassifyRule, ErrorClass, ErrorInfo, Signal,
    StatusMatch, Validation,
};
pub use prompt::{build_fix_prompt, build_reask_prompt, Correction, Locale, Prompt};
pub use repair_loop::{
    Attempt, Budget, FallbackPlan, Instruction, LoopConfig, LoopOptions, LoopReport, Mode,
    OptionError, Outcome, PushError, RepairLoop, Snapshot, Source, StopReason, Strategy, Usage,
};
pub use structured::{
    parse, repair_json, CompiledSchema, FailureIssue, FailureKind, FailureReport, Fix,
    ParseOptions, Parsed, SchemaCache, SchemaError, SchemaOptions,
};
pub use toolkit::{
    apply_summary, estimate_tokens, plan_compaction, AgentBudget, AgentBudgetOptions, Alert,
    AlertLevel, BreakerOptions, BreakerState, BudgetStatus, ChainFailure, ChainResult, ChainStep,
    CircuitBreaker, Compaction, CompactionOptions, DegradationLadder, FallbackChain,
    FallbackOptions, HealingEvent, InterventionStrategy, LadderOptions, LadderResult, LadderStep,
    Level, Message, MessageContent, Metrics, MetricsSummary, RetryBudget, RetryBudgetOptions, Role,
    Step, Supervisor, SupervisorOptions, Verdict,
};

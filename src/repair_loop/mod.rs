//! `RepairLoop`: outcomes in, instructions out (SPEC section 5).
//!
//! The host sends `options.prompt` itself, then feeds each [`Outcome`] into
//! [`RepairLoop::next`] with the current time, and does what the returned
//! [`Instruction`] says. The loop never reads a clock and never draws
//! randomness of its own: jitter comes from a seeded PRNG whose state is part
//! of the loop, so the same options, seed, outcomes and times always give the
//! same instructions, also after a `to_snapshot`/`from_snapshot` round trip.
//!
//! Theory of operation, per outcome:
//!
//! | outcome            | class            | budget left                         | budget spent / absent       |
//! |--------------------|------------------|-------------------------------------|-----------------------------|
//! | reply, valid       | —                | `done`                              |                             |
//! | reply, empty       | hard-fail        | degrade `unrepairable`              |                             |
//! | reply, broken      | repairable       | `send-repair-prompt` fix/reask      | `repair-failed` (`budget-exhausted` if 0 from the start) |
//! | rejected           | repairable       | `send-repair-prompt` reask          | as above                    |
//! | invalid            | semantic-invalid | `send-repair-prompt` alternate      | degrade `semantic-invalid`  |
//! | error, transient   | transient        | `wait-for-backoff`                  | `transient-exhausted`       |
//! | error, hard-fail   | hard-fail        | degrade `hard-fail`                 |                             |
//!
//! Before any instruction that asks for a call, in this order: cost ceiling,
//! deadline, prompt size, open breaker, retry budget ([`RepairLoop::next_with`]).
//! `done` and `degrade` are final and
//! sticky, except that one `rejected`/`invalid` right after a `done` reopens it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::backoff::{u64_string, Rng};
use crate::classify::{classify_with_rules, Cause, Classified, ErrorClass, ErrorInfo, Signal};
use crate::prompt::{build_fix_prompt, build_reask_prompt, Correction, Prompt};
use crate::structured::stream::{PartialUpdate, StreamOptions, StreamSchema};
use crate::structured::{
    self, stop_category, CompiledSchema, FailureIssue, FailureKind, FailureReport, Fix,
    ParseOptions, Parsed, SchemaCache, StopCategory,
};
use crate::text::one_line;
use crate::toolkit::{CircuitBreaker, RetryBudget};
use stream::InFlight;

/// Which kind of repair prompt a `send-repair-prompt` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Fix,
    Reask,
    Alternate,
}

mod config;
mod stream;

pub use crate::error::OptionError;
pub use crate::toolkit::Usage;
pub use config::{
    BackoffOptions, Budget, BudgetOptions, FallbackPlan, LoopConfig, LoopOptions, Mode,
};
pub use stream::PushError;

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
    /// `length` is its length as the host measured it (UTF-16 code units in JavaScript, at
    /// least the number of code points). Treated as a `Reply` of that length.
    ReplyTooLong {
        length: usize,
        stop_reason: Option<String>,
        cost_usd: f64,
    },
    /// A reply whose text is what [`RepairLoop::push`] received for this call (SPEC section 8:
    /// `next({ kind: "reply" })` without `text` after pushes).
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

/// How the accepted value came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    FirstPass,
    LocallyRepaired,
    Repaired,
}

/// Why the loop gave up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The shared [`RetryBudget`] allowed no resend.
    RetryBudgetExhausted,
}

/// What the host must do next.
#[must_use]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
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

impl Instruction {
    pub fn is_final(&self) -> bool {
        matches!(self, Instruction::Done { .. } | Instruction::Degrade { .. })
    }
}

/// One call the host made, as the loop saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub n: u32,
    pub class: Option<ErrorClass>,
    pub cause: Option<Cause>,
    pub reason: String,
    pub cost_usd: f64,
    pub at: f64,
}

/// Failed outcomes per class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByClass {
    pub transient: u32,
    pub repairable: u32,
    #[serde(rename = "semantic-invalid")]
    pub semantic_invalid: u32,
    #[serde(rename = "hard-fail")]
    pub hard_fail: u32,
}

impl ByClass {
    fn bump(&mut self, class: ErrorClass) {
        let slot = match class {
            ErrorClass::Transient => &mut self.transient,
            ErrorClass::Repairable => &mut self.repairable,
            ErrorClass::SemanticInvalid => &mut self.semantic_invalid,
            ErrorClass::HardFail => &mut self.hard_fail,
        };
        *slot = slot.saturating_add(1);
    }
}

/// `report()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopReport {
    pub calls: u32,
    pub cost_usd: f64,
    pub repaired: u32,
    pub by_class: ByClass,
    pub warnings: Vec<String>,
}

/// The mutable part of a loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoopState {
    #[serde(with = "u64_string")]
    rng: u64,
    started_at: Option<f64>,
    /// Calls whose outcome has arrived (the first one included).
    calls: u32,
    /// True while a call is out and its outcome not yet fed.
    awaiting: bool,
    transient_used: u32,
    repair_used: u32,
    semantic_used: u32,
    consecutive_transient: u32,
    cost_usd: f64,
    /// The prompt of the most recent call.
    current_prompt: Prompt,
    repairs_sent: u32,
    repairable_failures: u32,
    semantic_failures: u32,
    by_class: ByClass,
    attempts: Vec<Attempt>,
    last_report: Option<FailureReport>,
    final_instruction: Option<Instruction>,
    /// The final instruction is a `done` that one verdict may still reopen.
    provisional: bool,
}

/// The whole loop as JSON-safe data (`toJSON`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub version: u32,
    pub options: LoopConfig,
    /// Required, `null` for a loop without a schema: a state whose schema was removed must not
    /// resume as a loop that accepts any text.
    #[serde(deserialize_with = "required_nullable")]
    pub schema: Option<Value>,
    state: LoopState,
}

/// An `Option` field that must be present (as `null` when empty).
fn required_nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Option::<Value>::deserialize(d)
}

const SNAPSHOT_VERSION: u32 = 1;

/// The step-driven loop. See the module docs for the rules.
#[derive(Debug, Clone)]
pub struct RepairLoop {
    config: LoopConfig,
    schema: Option<Arc<CompiledSchema>>,
    state: LoopState,
    /// Set by [`RepairLoop::next_with`] for one step: the retry budget would refuse a resend.
    resend_refused: bool,
    /// The schema read for streaming, made at the first push and kept for every call.
    stream_schema: Option<Arc<StreamSchema>>,
    /// The streamed reply of the call in flight (not part of a snapshot: a restored loop has
    /// no call in flight).
    in_flight: Option<InFlight>,
}

impl RepairLoop {
    pub fn new(
        config: LoopConfig,
        schema: Option<Arc<CompiledSchema>>,
    ) -> Result<RepairLoop, OptionError> {
        config.check()?;
        let state = LoopState {
            rng: Rng::new(config.seed).state(),
            started_at: None,
            calls: 0,
            awaiting: true,
            transient_used: 0,
            repair_used: 0,
            semantic_used: 0,
            consecutive_transient: 0,
            cost_usd: 0.0,
            current_prompt: config.prompt.clone(),
            repairs_sent: 0,
            repairable_failures: 0,
            semantic_failures: 0,
            by_class: ByClass::default(),
            attempts: Vec::new(),
            last_report: None,
            final_instruction: None,
            provisional: false,
        };
        Ok(RepairLoop {
            config,
            schema,
            state,
            resend_refused: false,
            stream_schema: None,
            in_flight: None,
        })
    }

    // ---- getters ----

    pub fn config(&self) -> &LoopConfig {
        &self.config
    }

    /// Whether replies are parsed as JSON (against a schema); without one, a `done` holds the
    /// reply text itself as a string value.
    pub fn has_schema(&self) -> bool {
        self.schema.is_some()
    }

    /// Whether a final instruction has been given (`next` now repeats it).
    pub fn is_finished(&self) -> bool {
        self.state.final_instruction.is_some()
    }

    pub fn attempts(&self) -> &[Attempt] {
        &self.state.attempts
    }

    pub fn report(&self) -> LoopReport {
        let s = &self.state;
        let mut warnings = Vec::new();
        if s.repairable_failures >= 3 {
            warnings.push(format!(
                "structural problem in prompt or validator: {} repairable failures",
                s.repairable_failures
            ));
        }
        if s.semantic_failures >= 1 {
            warnings.push(format!(
                "review the approach: {} semantic-invalid outcome{}",
                s.semantic_failures,
                if s.semantic_failures == 1 { "" } else { "s" }
            ));
        }
        LoopReport {
            calls: s.calls,
            cost_usd: s.cost_usd,
            repaired: s.repairs_sent,
            by_class: s.by_class,
            warnings,
        }
    }

    // ---- snapshot ----

    pub fn to_snapshot(&self) -> Snapshot {
        let mut state = self.state.clone();
        state.final_instruction = self.final_instruction();
        Snapshot {
            version: SNAPSHOT_VERSION,
            options: self.config.clone(),
            schema: self.schema.as_ref().map(|s| s.value().clone()),
            state,
        }
    }

    pub fn from_snapshot(
        snapshot: Snapshot,
        cache: &mut SchemaCache,
    ) -> Result<RepairLoop, OptionError> {
        if snapshot.version != SNAPSHOT_VERSION {
            return Err(OptionError::range(
                "state.version",
                "is not a version this build can resume",
            ));
        }
        // A snapshot comes from outside (`fromJSON`): its errors name the field under `state`.
        snapshot.options.check().map_err(|e| OptionError {
            field: format!("state.options.{}", e.field),
            ..e
        })?;
        let schema = snapshot
            .schema
            .map(|v| cache.get_or_compile_value(v))
            .transpose()
            .map_err(|e| OptionError::type_("state.schema", &format!("is not usable: {e}")))?;
        let mut restored = RepairLoop {
            config: snapshot.options,
            schema,
            state: snapshot.state,
            resend_refused: false,
            stream_schema: None,
            in_flight: None,
        };
        restored.check_state()?;
        if let Some(fin) = restored.state.final_instruction.take() {
            restored.store_final(&fin);
        }
        Ok(restored)
    }

    /// What a restored state must hold to be one this loop could have reached (issue 10):
    /// costs and times that are numbers the loop writes, a final instruction that is the one
    /// the loop gave (its value the reply's, checked against the schema, its counts the
    /// state's), and a schema whenever the state shows there was one.
    fn check_state(&self) -> Result<(), OptionError> {
        let s = &self.state;
        let bad = |field: &str, message: &str| {
            Err(OptionError::type_(&format!("state.state.{field}"), message))
        };
        if !(s.cost_usd.is_finite() && s.cost_usd >= 0.0) {
            return bad("costUsd", "must be a finite number >= 0");
        }
        if s.started_at.is_some_and(|t| !t.is_finite()) {
            return bad("startedAt", "must be a finite number or null");
        }
        for (i, a) in s.attempts.iter().enumerate() {
            if !(a.cost_usd.is_finite() && a.cost_usd >= 0.0) {
                return bad(
                    &format!("attempts[{i}].costUsd"),
                    "must be a finite number >= 0",
                );
            }
            if !a.at.is_finite() {
                return bad(&format!("attempts[{i}].at"), "must be a finite number");
            }
        }
        if self.schema.is_none() {
            let schema_kinds =
                |r: &FailureReport| r.has(FailureKind::Schema) || r.has(FailureKind::JsonSyntax);
            let parsed_json = s.last_report.as_ref().is_some_and(schema_kinds)
                || s.attempts
                    .iter()
                    .any(|a| matches!(a.cause, Some(Cause::Schema | Cause::JsonSyntax)))
                || matches!(&s.final_instruction, Some(Instruction::Done { value, .. }) if !value.is_string())
                || matches!(&s.final_instruction, Some(Instruction::Degrade { report: Some(r), .. }) if schema_kinds(r));
            if parsed_json {
                return Err(OptionError::type_(
                    "state.schema",
                    "is null, but the state was made by a loop with a schema: restore it with its schema",
                ));
            }
        }
        let Some(fin) = &s.final_instruction else {
            return Ok(());
        };
        let (attempts, cost_usd) = match fin {
            Instruction::Done {
                attempts, cost_usd, ..
            }
            | Instruction::Degrade {
                attempts, cost_usd, ..
            } => (*attempts, *cost_usd),
            _ => return bad("finalInstruction", "must be a done or a degrade"),
        };
        if attempts != s.calls || cost_usd.to_bits() != s.cost_usd.to_bits() {
            return bad(
                "finalInstruction",
                "does not match the state (its attempts and costUsd must be the state's calls and costUsd)",
            );
        }
        if let Instruction::Done { value, text, .. } = fin {
            let same = match &self.schema {
                None => value.as_str() == Some(text.as_str()),
                Some(schema) => {
                    serde_json::from_str::<Value>(text).ok().as_ref() == Some(value)
                        && schema.validate(value).is_none()
                }
            };
            if !same {
                return bad(
                    "finalInstruction",
                    "is not a done this loop could give: its value must be its text parsed, and pass the schema",
                );
            }
        }
        Ok(())
    }

    /// Whether chunks have been pushed for the call in flight.
    pub fn is_streaming(&self) -> bool {
        self.in_flight.is_some()
    }

    // ---- inputs ----

    /// One more chunk of the reply of the call in flight (SPEC section 8): the partial value's
    /// growth, the values that closed, and the first violation no continuation can fix (the
    /// host should then cut the stream and feed `next` a reply with stop reason `aborted`).
    /// Refused when the loop has finished, or, with nothing added, when the reply would exceed
    /// `maxReplyChars` (the loop remembers it: the reply is then one too long to read).
    pub fn push(&mut self, chunk: &str) -> Result<PartialUpdate, PushError> {
        if self.state.final_instruction.is_some() {
            return Err(PushError::Finished);
        }
        if self.in_flight.is_none() {
            if self.stream_schema.is_none() {
                self.stream_schema = self
                    .schema
                    .as_ref()
                    .map(|s| Arc::new(StreamSchema::new(Arc::clone(s))));
            }
            let options = StreamOptions {
                max_chars: self.config.max_reply_chars as usize,
                local_repair: self.config.local_repair,
                coerce: self.config.coerce,
            };
            self.in_flight = Some(InFlight::new(self.stream_schema.clone(), options));
        }
        match self.in_flight.as_mut() {
            Some(in_flight) => in_flight.push(chunk),
            None => Err(PushError::Finished),
        }
    }

    /// Feed what happened to the most recent call; get what to do next.
    pub fn next(
        &mut self,
        outcome: Outcome,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        // Whatever the outcome, the call in flight has ended.
        let streamed = self.in_flight.take();
        if self.state.final_instruction.is_some() {
            let reopens = self.state.provisional
                && matches!(outcome, Outcome::Rejected { .. } | Outcome::Invalid { .. });
            if !reopens {
                // Only a verdict right after the `done` may reopen it; anything
                // else the host feeds first closes that window.
                self.state.provisional = false;
                if let Some(fin) = self.final_instruction() {
                    return fin;
                }
            }
            self.state.final_instruction = None;
            self.state.provisional = false;
        }
        if self.state.started_at.is_none() {
            self.state.started_at = Some(now);
        }
        let instruction = match outcome {
            Outcome::Reply {
                text,
                stop_reason,
                cost_usd,
                usage: _,
            } => {
                // A violation seen while streaming counts if the reply is what was pushed.
                let violation = streamed
                    .filter(|s| s.text() == text)
                    .and_then(|s| s.violation().cloned());
                self.on_reply(text, stop_reason, cost_usd, now, breaker, violation)
            }
            Outcome::StreamedReply {
                stop_reason,
                cost_usd,
                usage: _,
            } => match streamed {
                Some(s) => match s.too_long {
                    Some(length) => match self.reply_arrived(cost_usd, now) {
                        Some(late) => late,
                        None => self.on_too_long(length),
                    },
                    None => {
                        let violation = s.violation().cloned();
                        let text = s.into_text();
                        self.on_reply(text, stop_reason, cost_usd, now, breaker, violation)
                    }
                },
                None => self.on_reply(String::new(), stop_reason, cost_usd, now, breaker, None),
            },
            Outcome::ReplyTooLong {
                length,
                stop_reason: _,
                cost_usd,
            } => match self.reply_arrived(cost_usd, now) {
                Some(late) => late,
                None => self.on_too_long(length),
            },
            Outcome::Error { error, cost_usd } => self.on_error(&error, cost_usd, now, breaker),
            Outcome::Rejected { reason } => self.on_rejected(reason, now, breaker),
            Outcome::Invalid { reason } => self.on_invalid(reason, now, breaker),
        };
        self.state.awaiting = !instruction.is_final();
        if instruction.is_final() {
            self.state.provisional = matches!(instruction, Instruction::Done { .. });
            self.store_final(&instruction);
        }
        instruction
    }

    /// [`next`](RepairLoop::next) with a [`RetryBudget`] shared by many loops: the loop's first
    /// call is recorded when its outcome arrives, and every instruction that asks for a resend
    /// (`wait-for-backoff`, `send-repair-prompt`) must first get `try_retry(now)`; refused, the
    /// loop degrades `retry-budget-exhausted` (the last check before a call, after the breaker).
    pub fn next_with(
        &mut self,
        outcome: Outcome,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
        retry_budget: Option<&mut RetryBudget>,
    ) -> Instruction {
        let Some(budget) = retry_budget else {
            return self.next(outcome, now, breaker);
        };
        if self.state.calls == 0 && !self.is_finished() {
            budget.record_request(now);
        }
        // Asked before the step, counted after it: only an instruction that asks for a call
        // spends a resend, and nothing else touches the budget in between.
        self.resend_refused = !budget.can_retry(now);
        let instruction = self.next(outcome, now, breaker);
        self.resend_refused = false;
        if matches!(
            instruction,
            Instruction::WaitForBackoff { .. } | Instruction::SendRepairPrompt { .. }
        ) {
            budget.try_retry(now);
        }
        instruction
    }

    /// Keep the final instruction to repeat it. A `done` is kept without its value, which is
    /// its text parsed again when needed: the value of a large reply is a tree many times the
    /// size of its text (docs/PERFORMANCE.md), and keeping a second copy for the life of the
    /// loop doubled the memory a large reply takes.
    fn store_final(&mut self, instruction: &Instruction) {
        let stored = match instruction {
            Instruction::Done {
                value: _,
                text,
                source,
                fixes,
                attempts,
                cost_usd,
            } => Instruction::Done {
                value: Value::Null,
                text: text.clone(),
                source: *source,
                fixes: fixes.clone(),
                attempts: *attempts,
                cost_usd: *cost_usd,
            },
            other => other.clone(),
        };
        self.state.final_instruction = Some(stored);
    }

    /// The final instruction given, whole: a `done`'s value is its text parsed again (the
    /// text itself without a schema), exactly the value it held.
    fn final_instruction(&self) -> Option<Instruction> {
        let fin = self.state.final_instruction.as_ref()?;
        let Instruction::Done {
            value: _,
            text,
            source,
            fixes,
            attempts,
            cost_usd,
        } = fin
        else {
            return Some(fin.clone());
        };
        let value = match self.schema {
            Some(_) => serde_json::from_str(text).unwrap_or(Value::Null),
            None => Value::String(text.clone()),
        };
        Some(Instruction::Done {
            value,
            text: text.clone(),
            source: *source,
            fixes: fixes.clone(),
            attempts: *attempts,
            cost_usd: *cost_usd,
        })
    }

    /// Stop now: degrade `aborted` (or the final instruction already given).
    pub fn abort(&mut self, reason: Option<&str>, now: f64) -> Instruction {
        if let Some(fin) = self.final_instruction() {
            self.state.provisional = false;
            return fin;
        }
        if self.state.started_at.is_none() {
            self.state.started_at = Some(now);
        }
        let detail = reason
            .filter(|r| !r.is_empty())
            .unwrap_or("aborted by the host")
            .to_string();
        // The host's reason goes into `detail` as given; `classified.reason` is one short line.
        let line = one_line(&detail, 300);
        let line = if line.is_empty() {
            "aborted by the host".to_string()
        } else {
            line
        };
        let classified = Classified::new(ErrorClass::HardFail, Cause::Aborted, Signal::None, line);
        let instruction = self.degrade(StopReason::Aborted, detail, Some(classified));
        self.state.awaiting = false;
        self.state.provisional = false;
        self.store_final(&instruction);
        instruction
    }

    // ---- outcome handlers ----

    fn on_reply(
        &mut self,
        mut text: String,
        stop_reason: Option<String>,
        cost_usd: f64,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
        violation: Option<FailureIssue>,
    ) -> Instruction {
        if let Some(late) = self.reply_arrived(cost_usd, now) {
            return late;
        }
        let max_reply = self.config.max_reply_chars as usize;
        if let Some(chars) = structured::reply_too_long(&text, max_reply) {
            return self.on_too_long(chars);
        }
        if stop_category(stop_reason.as_deref()) == StopCategory::Refused {
            return self.on_refused(stop_reason.as_deref().unwrap_or(""));
        }
        if let Some(issue) = violation {
            // Definitive (SPEC 8): the whole reply would fail the same way, cut off or not; the
            // fix prompt quotes what arrived and this issue.
            let report = FailureReport {
                kinds: vec![issue.kind],
                issues: vec![issue],
            };
            return self.on_broken_reply(report, &text, now, breaker, true);
        }
        let options = ParseOptions {
            local_repair: self.config.local_repair,
            stop_reason,
            coerce: self.config.coerce,
            max_reply_chars: max_reply,
        };
        let parsed = match &self.schema {
            Some(schema) => structured::parse(&text, Some(schema), &options),
            None if text.trim().is_empty() => structured::parse(&text, None, &options),
            // Without a schema the value is the text, which must be all there (SPEC 4, v0.2).
            None if structured::is_cut_off(options.stop_reason.as_deref()) => {
                Parsed::err(structured::cut_off_report(options.stop_reason.as_deref()))
            }
            None => {
                let accepted = std::mem::take(&mut text);
                Parsed::ok(Value::String(accepted.clone()), Vec::new(), accepted)
            }
        };
        match parsed {
            Parsed::Ok {
                value,
                fixes,
                text: accepted,
                ..
            } => {
                if let Some(b) = breaker {
                    b.record_success();
                }
                self.mark_last_attempt(None, None, "accepted");
                let source = if self.state.repairs_sent > 0 {
                    crate::repair_loop::Source::Repaired
                } else if !fixes.is_empty() {
                    Source::LocallyRepaired
                } else {
                    Source::FirstPass
                };
                Instruction::Done {
                    value,
                    text: accepted,
                    source,
                    fixes,
                    attempts: self.state.calls,
                    cost_usd: self.state.cost_usd,
                }
            }
            Parsed::Err { report, .. } => self.on_broken_reply(report, &text, now, breaker, false),
        }
    }

    /// A reply arrived: count the call; a loop-issued call answered after the deadline ends
    /// the loop whatever the reply holds.
    fn reply_arrived(&mut self, cost_usd: f64, now: f64) -> Option<Instruction> {
        let loop_issued = self.state.calls > 0;
        self.record_call(cost_usd, now);
        self.state.consecutive_transient = 0;
        self.state.last_report = None;
        if loop_issued && self.deadline_passed(now) {
            self.fail_last_attempt(None, "the reply arrived after the deadline");
            return Some(self.degrade(
                StopReason::DeadlineExceeded,
                "the reply arrived after the deadline".into(),
                None,
            ));
        }
        None
    }

    /// A reply longer than `maxReplyChars` (SPEC section 4, v0.2): refused unread. Not resent:
    /// a model that wrote that much once is likely to again, and a repair prompt cannot quote it.
    fn on_too_long(&mut self, chars: usize) -> Instruction {
        let max = self.config.max_reply_chars;
        let detail = format!(
            "the reply has {chars} characters, above maxReplyChars ({max}); it was not read"
        );
        let classified = Classified::new(
            ErrorClass::HardFail,
            Cause::TooLarge,
            Signal::Validation,
            detail.clone(),
        );
        self.fail(&classified);
        self.degrade(StopReason::Unrepairable, detail, Some(classified))
    }

    /// The provider refused or filtered the reply (SPEC section 4, v0.2): hard-fail, cause
    /// content-filter, not resent. The stop reason is the signal; the loop stops with
    /// `hard-fail`, as for any other hard-fail outcome, and the reply is not parsed.
    fn on_refused(&mut self, stop_reason: &str) -> Instruction {
        let detail = format!(
            "the provider stopped the reply (stop reason {}): a refusal or a content filter, not an answer",
            one_line(stop_reason, 40)
        );
        let classified = Classified::new(
            ErrorClass::HardFail,
            Cause::ContentFilter,
            Signal::StopReason,
            detail.clone(),
        );
        self.fail(&classified);
        self.degrade(StopReason::HardFail, detail, Some(classified))
    }

    fn on_broken_reply(
        &mut self,
        report: FailureReport,
        raw: &str,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
        streamed: bool,
    ) -> Instruction {
        let first_issue = report
            .issues
            .first()
            .map(|i| i.message.as_str())
            .unwrap_or("");
        let (cause, signal) = match report.primary() {
            Some(FailureKind::Empty) => (Cause::Empty, Signal::Validation),
            Some(FailureKind::Truncated) => (Cause::Truncated, Signal::StopReason),
            Some(FailureKind::JsonSyntax) => (Cause::JsonSyntax, Signal::Validation),
            _ => (Cause::Schema, Signal::Validation),
        };
        let signal = if streamed { Signal::Stream } else { signal };
        if cause == Cause::Empty {
            let classified = Classified::new(
                ErrorClass::HardFail,
                Cause::Empty,
                signal,
                "the reply is empty",
            );
            self.fail(&classified);
            self.state.last_report = Some(report);
            return self.degrade(
                StopReason::Unrepairable,
                "the reply is empty".into(),
                Some(classified),
            );
        }
        let reason = format!(
            "{}: {}",
            describe_kinds(&report),
            one_line(first_issue, 300)
        );
        let classified = Classified::new(ErrorClass::Repairable, cause, signal, reason);
        self.fail(&classified);

        let mut strategy = if cause == Cause::Truncated {
            Strategy::Reask
        } else {
            self.strategy_for_mode()
        };
        if self.schema.is_none() {
            strategy = Strategy::Reask;
        }
        let locale = self.config.locale;
        let max_raw = self.config.max_raw_chars as usize;
        let schema = self.schema.clone();
        self.state.last_report = Some(report.clone());
        self.repair(
            |previous| match (strategy, schema) {
                (Strategy::Fix, Some(schema)) => {
                    build_fix_prompt(&report, schema.value(), raw, max_raw, locale)
                }
                _ => build_reask_prompt(previous, Correction::Report(&report), locale),
            },
            strategy,
            classified,
            now,
            breaker,
        )
    }

    fn on_error(
        &mut self,
        error: &ErrorInfo,
        cost_usd: f64,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        self.record_call(cost_usd, now);
        self.state.last_report = None;
        let classified = classify_with_rules(error, None, now, &self.config.rules);
        self.fail(&classified);
        match classified.class {
            ErrorClass::Transient => self.on_transient(classified, now, breaker),
            _ => {
                let detail = classified.reason.clone();
                self.degrade(StopReason::HardFail, detail, Some(classified))
            }
        }
    }

    fn on_transient(
        &mut self,
        classified: Classified,
        now: f64,
        mut breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        if let Some(b) = breaker.as_deref_mut() {
            b.record_failure(now);
        }
        self.state.consecutive_transient = self.state.consecutive_transient.saturating_add(1);
        if self.state.transient_used >= self.config.budget.transient {
            let detail = format!(
                "transient budget of {} resends spent; last: {}",
                self.config.budget.transient, classified.reason
            );
            return self.degrade(StopReason::TransientExhausted, detail, Some(classified));
        }
        // The wait is whole milliseconds, rounded up: it is the rounded wait that must
        // stay within maxRetryAfterMs (999.5 ms waits 1000 ms, too long for a limit of 999.7).
        let delay_ms = match classified.retry_after_ms.map(f64::ceil) {
            Some(wait) if wait > self.config.backoff.max_retry_after_ms => {
                let detail = format!(
                    "the server asked to wait {wait} ms, above maxRetryAfterMs {} ms",
                    self.config.backoff.max_retry_after_ms
                );
                return self.degrade(StopReason::RetryAfterTooLong, detail, Some(classified));
            }
            Some(wait) => wait,
            None => {
                let mut rng = Rng::new(self.state.rng);
                let d = self
                    .config
                    .backoff
                    .delay(self.state.consecutive_transient, &mut rng);
                self.state.rng = rng.state();
                d
            }
        };
        if let Some(stop) = self.pre_call_check(now + delay_ms, None, breaker, &classified) {
            return stop;
        }
        self.state.transient_used += 1;
        Instruction::WaitForBackoff {
            delay_ms,
            prompt: self.state.current_prompt.clone(),
            attempt: self.state.calls.saturating_add(1),
            classified,
        }
    }

    fn on_rejected(
        &mut self,
        reason: String,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        self.record_verdict(now);
        let classified = Classified::new(
            ErrorClass::Repairable,
            Cause::Rejected,
            Signal::Validation,
            format!("rejected: {}", one_line(&reason, 300)),
        );
        self.fail(&classified);
        self.state.last_report = None;
        let locale = self.config.locale;
        self.repair(
            |previous| build_reask_prompt(previous, Correction::Rejected(&reason), locale),
            Strategy::Reask,
            classified,
            now,
            breaker,
        )
    }

    fn on_invalid(
        &mut self,
        reason: String,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        self.record_verdict(now);
        let classified = Classified::new(
            ErrorClass::SemanticInvalid,
            Cause::Semantic,
            Signal::Validation,
            format!("invalid: {}", one_line(&reason, 300)),
        );
        self.fail(&classified);
        self.state.last_report = None;
        let Some(alternate) = self.config.alternate_prompt.clone() else {
            let detail = format!("{}; no alternatePrompt to switch to", classified.reason);
            return self.degrade(StopReason::SemanticInvalid, detail, Some(classified));
        };
        if self.state.semantic_used >= self.config.budget.semantic_invalid {
            let detail = format!("{}; alternate prompt budget spent", classified.reason);
            return self.degrade(StopReason::SemanticInvalid, detail, Some(classified));
        }
        if let Some(stop) = self.pre_call_check(now, None, breaker, &classified) {
            return stop;
        }
        self.state.semantic_used += 1;
        // Counters without a budget check can hold anything a snapshot (`fromJSON`) gave.
        self.state.repairs_sent = self.state.repairs_sent.saturating_add(1);
        self.state.current_prompt = alternate.clone();
        Instruction::SendRepairPrompt {
            prompt: alternate,
            attempt: self.state.calls.saturating_add(1),
            strategy: Strategy::Alternate,
            classified,
        }
    }

    // ---- shared steps ----

    fn strategy_for_mode(&self) -> Strategy {
        match self.config.mode {
            Mode::Fix => Strategy::Fix,
            Mode::Reask => Strategy::Reask,
        }
    }

    /// Send a repair prompt if the repair budget and the limits allow.
    fn repair(
        &mut self,
        build: impl FnOnce(&Prompt) -> Prompt,
        strategy: Strategy,
        classified: Classified,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        let budget = self.config.budget.repairable;
        if budget == 0 {
            let detail = format!("{}; the repair budget is 0", classified.reason);
            return self.degrade(StopReason::BudgetExhausted, detail, Some(classified));
        }
        if self.state.repair_used >= budget {
            let detail = format!(
                "{}; {} repair prompt(s) did not fix it",
                classified.reason, self.state.repair_used
            );
            return self.degrade(StopReason::RepairFailed, detail, Some(classified));
        }
        let prompt = build(&self.state.current_prompt);
        if let Some(stop) = self.pre_call_check(now, Some(&prompt), breaker, &classified) {
            return stop;
        }
        self.state.repair_used += 1;
        self.state.repairs_sent = self.state.repairs_sent.saturating_add(1);
        self.state.current_prompt = prompt.clone();
        Instruction::SendRepairPrompt {
            prompt,
            attempt: self.state.calls.saturating_add(1),
            strategy,
            classified,
        }
    }

    /// The checks before any instruction that asks for a call, in SPEC order.
    /// `call_at` is when the call would be made (after any wait).
    fn pre_call_check(
        &mut self,
        call_at: f64,
        built: Option<&Prompt>,
        breaker: Option<&mut CircuitBreaker>,
        classified: &Classified,
    ) -> Option<Instruction> {
        if let Some(ceiling) = self.config.budget.cost_ceiling_usd {
            if self.state.cost_usd >= ceiling {
                let detail = format!("spent ${} of the ${} ceiling", self.state.cost_usd, ceiling);
                return Some(self.degrade(
                    StopReason::CostCeiling,
                    detail,
                    Some(classified.clone()),
                ));
            }
        }
        if let Some(end) = self.deadline_at() {
            if call_at > end {
                let detail = format!(
                    "the next call would start after the deadline ({} ms)",
                    self.config.budget.deadline_ms.unwrap_or(0.0)
                );
                return Some(self.degrade(
                    StopReason::DeadlineExceeded,
                    detail,
                    Some(classified.clone()),
                ));
            }
        }
        if let (Some(limit), Some(prompt)) = (self.config.budget.max_prompt_chars, built) {
            let size = prompt.chars();
            if size > limit as usize {
                let detail = format!(
                    "the repair prompt has {size} characters, above maxPromptChars {limit}"
                );
                return Some(self.degrade(
                    StopReason::PromptTooLarge,
                    detail,
                    Some(classified.clone()),
                ));
            }
        }
        if let Some(b) = breaker {
            let at = call_at.min(f64::MAX);
            if b.is_open(at) {
                let detail = "the circuit breaker is open".to_string();
                return Some(self.degrade(
                    StopReason::CircuitOpen,
                    detail,
                    Some(classified.clone()),
                ));
            }
        }
        if self.resend_refused {
            let detail = "the retry budget allows no resend now".to_string();
            return Some(self.degrade(
                StopReason::RetryBudgetExhausted,
                detail,
                Some(classified.clone()),
            ));
        }
        None
    }

    fn deadline_at(&self) -> Option<f64> {
        Some(self.state.started_at? + self.config.budget.deadline_ms?)
    }

    fn deadline_passed(&self, now: f64) -> bool {
        self.deadline_at().is_some_and(|end| now > end)
    }

    fn degrade(
        &self,
        reason: StopReason,
        detail: String,
        classified: Option<Classified>,
    ) -> Instruction {
        Instruction::Degrade {
            reason,
            detail,
            fallback: self.config.fallback.clone(),
            report: self.state.last_report.clone(),
            classified,
            attempts: self.state.calls,
            cost_usd: self.state.cost_usd,
        }
    }

    /// A call's outcome arrived.
    fn record_call(&mut self, cost_usd: f64, now: f64) {
        self.state.calls = self.state.calls.saturating_add(1);
        self.state.awaiting = false;
        if cost_usd.is_finite() && cost_usd > 0.0 {
            // Saturate: an infinite total would serialise as `null` and break `fromJSON`.
            self.state.cost_usd = (self.state.cost_usd + cost_usd).min(f64::MAX);
        }
        self.state.attempts.push(Attempt {
            n: self.state.calls,
            class: None,
            cause: None,
            reason: String::new(),
            cost_usd: if cost_usd.is_finite() {
                cost_usd.max(0.0)
            } else {
                0.0
            },
            at: now,
        });
    }

    /// A `rejected`/`invalid` verdict: the outcome of the call in flight if one
    /// is, else a verdict on the reply that produced the last `done`.
    fn record_verdict(&mut self, now: f64) {
        if self.state.awaiting {
            self.record_call(0.0, now);
        }
    }

    fn fail(&mut self, classified: &Classified) {
        self.state.by_class.bump(classified.class);
        match classified.class {
            ErrorClass::Repairable => {
                self.state.repairable_failures = self.state.repairable_failures.saturating_add(1)
            }
            ErrorClass::SemanticInvalid => {
                self.state.semantic_failures = self.state.semantic_failures.saturating_add(1)
            }
            _ => {}
        }
        if classified.class != ErrorClass::Transient {
            self.state.consecutive_transient = 0;
        }
        self.mark_last_attempt(
            Some(classified.class),
            Some(classified.cause),
            &classified.reason,
        );
    }

    fn fail_last_attempt(&mut self, class: Option<ErrorClass>, reason: &str) {
        self.mark_last_attempt(class, None, reason);
    }

    fn mark_last_attempt(&mut self, class: Option<ErrorClass>, cause: Option<Cause>, reason: &str) {
        if let Some(a) = self.state.attempts.last_mut() {
            a.class = class;
            a.cause = cause;
            a.reason = reason.to_string();
        }
    }
}

fn describe_kinds(report: &FailureReport) -> String {
    let kinds: Vec<&str> = report.kinds.iter().map(|k| k.as_str()).collect();
    kinds.join(", ")
}

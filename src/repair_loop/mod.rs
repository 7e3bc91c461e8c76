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

use serde_json::Value;

use crate::backoff::Rng;
use crate::classify::{classify_with_rules, Cause, Classified, ErrorClass, ErrorInfo, Signal};
use crate::prompt::{build_fix_prompt_within, build_reask_prompt, Correction, Prompt};
use crate::structured::stream::{PartialUpdate, StreamOptions, StreamSchema};
use crate::structured::{
    self, stop_category, CompiledSchema, FailureIssue, FailureKind, FailureReport, ParseOptions,
    Parsed, ReplyLength, StopCategory,
};
use crate::text::one_line;
use crate::toolkit::{CircuitBreaker, RetryBudget};

mod config;
mod instruction;
mod state;
mod stream;

pub use crate::backoff::BackoffOptions;
pub use crate::error::OptionError;
pub use crate::toolkit::Usage;
pub use config::{Budget, BudgetOptions, FallbackPlan, LoopConfig, LoopOptions, Mode, Seed};
pub use instruction::{Instruction, Outcome, Source, StopReason, Strategy};
pub use state::{Attempt, ByClass, LoopReport, Snapshot};
use state::{LoopState, Phase};
use stream::InFlight;
pub use stream::PushError;

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
        let state = LoopState::new(Rng::new(config.seed).state(), config.prompt.clone());
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
        self.state.phase != Phase::Calling
    }

    pub fn attempts(&self) -> &[Attempt] {
        &self.state.attempts
    }

    /// Whether chunks have been pushed for the call in flight.
    pub fn is_streaming(&self) -> bool {
        self.in_flight.is_some()
    }

    /// The reply of the call in flight as pushed so far, while a stream is in progress.
    pub fn pushed(&self) -> Option<&str> {
        self.in_flight.as_ref().map(|f| f.text())
    }

    // ---- inputs ----

    /// One more chunk of the reply of the call in flight (SPEC section 8): the partial value's
    /// growth, the values that closed, and the first violation no continuation can fix (the
    /// host should then cut the stream and feed `next` a reply with stop reason `aborted`).
    /// Refused when the loop has finished, or, with nothing added, when the reply would exceed
    /// `maxReplyChars` (the loop remembers it: the reply is then one too long to read).
    pub fn push(&mut self, chunk: &str) -> Result<PartialUpdate, PushError> {
        if self.is_finished() {
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
                // The host mirrors the value and builds them (src/wasm/mirror.rs).
                closed_pointers: false,
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
        // Only a verdict right after a `done` reopens it (and judges that reply, so no call is
        // in flight); anything else the host feeds first closes that window.
        let reopens = matches!(self.state.phase, Phase::Provisional(_))
            && matches!(outcome, Outcome::Rejected { .. } | Outcome::Invalid { .. });
        if reopens {
            self.state.phase = Phase::Calling;
        } else if let Some(fin) = self.close() {
            return fin;
        }
        let in_flight = !reopens;
        if self.state.started_at.is_none() {
            self.state.started_at = Some(now);
        }
        let mut instruction = match outcome {
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
                    Some(chars) => match self.reply_arrived(cost_usd, now) {
                        Some(late) => late,
                        None => self.on_too_long(ReplyLength::Chars(chars)),
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
                None => self.on_too_long(ReplyLength::Utf16Units(length)),
            },
            Outcome::Error { error, cost_usd } => self.on_error(&error, cost_usd, now, breaker),
            Outcome::Rejected { reason } => {
                let classified = self.verdict(in_flight, now, Cause::Rejected, "rejected", &reason);
                self.on_rejected(&reason, classified, now, breaker)
            }
            Outcome::Invalid { reason } => {
                let classified = self.verdict(in_flight, now, Cause::Semantic, "invalid", &reason);
                self.on_invalid(classified, now, breaker)
            }
        };
        if instruction.is_final() {
            self.finish(&mut instruction, true);
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
        if self.state.calls() == 0 && !self.is_finished() {
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

    /// Stop now: degrade `aborted` (or the final instruction already given).
    pub fn abort(&mut self, reason: Option<&str>, now: f64) -> Instruction {
        if let Some(fin) = self.close() {
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
        let mut instruction = self.degrade(StopReason::Aborted, detail, Some(classified));
        self.finish(&mut instruction, false);
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
            return self.on_too_long(ReplyLength::Chars(chars));
        }
        if stop_category(stop_reason.as_deref()) == StopCategory::Refused {
            return self.on_refused(stop_reason.as_deref().unwrap_or(""));
        }
        // A violation seen while streaming (SPEC 8) is definitive for the value it was seen in;
        // the fix prompt then quotes what arrived and that issue. A reply cut off there is never
        // read further. A reply that arrived whole is parsed first, as any reply is: it may hold
        // another value the schema accepts (SPEC 9's candidates: a second fenced block), and
        // paying for a repair call to replace a reply that passes would be waste.
        let cut_off = structured::is_cut_off(stop_reason.as_deref());
        let stream_failure = |issue: FailureIssue| FailureReport {
            kinds: vec![issue.kind],
            issues: vec![issue],
        };
        let violation = match violation {
            Some(issue) if cut_off => {
                return self.on_broken_reply(stream_failure(issue), &text, now, breaker, true);
            }
            other => other,
        };
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
        if let (Some(issue), Parsed::Err { .. }) = (violation, &parsed) {
            return self.on_broken_reply(stream_failure(issue), &text, now, breaker, true);
        }
        match parsed {
            Parsed::Ok {
                value,
                fixes,
                text: accepted,
                validated,
                ..
            } => {
                if let Some(b) = breaker {
                    b.record_success();
                }
                self.mark_last_attempt(None, None, "accepted");
                let source = if self.state.repairs_sent() > 0 {
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
                    attempts: self.state.calls(),
                    cost_usd: self.state.cost_usd,
                    validated,
                }
            }
            Parsed::Err { report, .. } => self.on_broken_reply(report, &text, now, breaker, false),
        }
    }

    /// A reply arrived: count the call; a loop-issued call answered after the deadline ends
    /// the loop whatever the reply holds.
    fn reply_arrived(&mut self, cost_usd: f64, now: f64) -> Option<Instruction> {
        let loop_issued = self.state.calls() > 0;
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
    fn on_too_long(&mut self, length: ReplyLength) -> Instruction {
        let detail = structured::too_long_detail(length, self.config.max_reply_chars as usize);
        self.refuse_reply(
            Cause::TooLarge,
            Signal::Validation,
            StopReason::Unrepairable,
            detail,
        )
    }

    /// The provider refused or filtered the reply (SPEC section 4, v0.2): hard-fail, cause
    /// content-filter, not resent. The stop reason is the signal; the loop stops with
    /// `hard-fail`, as for any other hard-fail outcome, and the reply is not parsed.
    fn on_refused(&mut self, stop_reason: &str) -> Instruction {
        let detail = format!(
            "the provider stopped the reply (stop reason {}): a refusal or a content filter, not an answer",
            one_line(stop_reason, 40)
        );
        self.refuse_reply(
            Cause::ContentFilter,
            Signal::StopReason,
            StopReason::HardFail,
            detail,
        )
    }

    /// A reply the loop will not read and will not resend: a hard-fail, then `stop`.
    fn refuse_reply(
        &mut self,
        cause: Cause,
        signal: Signal,
        stop: StopReason,
        detail: String,
    ) -> Instruction {
        let classified = Classified::new(ErrorClass::HardFail, cause, signal, detail.clone());
        self.fail(&classified);
        self.degrade(stop, detail, Some(classified))
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
        let max_prompt = self.config.budget.max_prompt_chars;
        let schema = self.schema.clone();
        self.state.last_report = Some(report.clone());
        self.repair(
            |previous| match (strategy, schema) {
                (Strategy::Fix, Some(schema)) => build_fix_prompt_within(
                    &report,
                    schema.value(),
                    raw,
                    max_raw,
                    locale,
                    max_prompt,
                ),
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
        if self.state.spent.transient >= self.config.budget.transient {
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
        self.state.spent.transient += 1;
        Instruction::WaitForBackoff {
            delay_ms,
            prompt: self.state.current_prompt.clone(),
            attempt: self.state.calls().saturating_add(1),
            classified,
        }
    }

    fn on_rejected(
        &mut self,
        reason: &str,
        classified: Classified,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        let locale = self.config.locale;
        self.repair(
            |previous| build_reask_prompt(previous, Correction::Rejected(reason), locale),
            Strategy::Reask,
            classified,
            now,
            breaker,
        )
    }

    fn on_invalid(
        &mut self,
        classified: Classified,
        now: f64,
        breaker: Option<&mut CircuitBreaker>,
    ) -> Instruction {
        let Some(alternate) = self.config.alternate_prompt.clone() else {
            let detail = format!("{}; no alternatePrompt to switch to", classified.reason);
            return self.degrade(StopReason::SemanticInvalid, detail, Some(classified));
        };
        if self.state.spent.semantic_invalid >= self.config.budget.semantic_invalid {
            let detail = format!("{}; alternate prompt budget spent", classified.reason);
            return self.degrade(StopReason::SemanticInvalid, detail, Some(classified));
        }
        if let Some(stop) = self.pre_call_check(now, None, breaker, &classified) {
            return stop;
        }
        self.state.spent.semantic_invalid += 1;
        self.state.current_prompt = alternate.clone();
        Instruction::SendRepairPrompt {
            prompt: alternate,
            attempt: self.state.calls().saturating_add(1),
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
        if self.state.spent.repairable >= budget {
            let detail = format!(
                "{}; {} repair prompt(s) did not fix it",
                classified.reason, self.state.spent.repairable
            );
            return self.degrade(StopReason::RepairFailed, detail, Some(classified));
        }
        let prompt = build(&self.state.current_prompt);
        if let Some(stop) = self.pre_call_check(now, Some(&prompt), breaker, &classified) {
            return stop;
        }
        self.state.spent.repairable += 1;
        self.state.current_prompt = prompt.clone();
        Instruction::SendRepairPrompt {
            prompt,
            attempt: self.state.calls().saturating_add(1),
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
            // Asked about the time of the call without moving it: a breaker shared with other
            // loops stays open for them until its reset timeout has really passed.
            let at = call_at.min(f64::MAX);
            if b.open_at(at) {
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
            attempts: self.state.calls(),
            cost_usd: self.state.cost_usd,
        }
    }

    /// A call's outcome arrived.
    fn record_call(&mut self, cost_usd: f64, now: f64) {
        if cost_usd.is_finite() && cost_usd > 0.0 {
            // Saturate: an infinite total would serialise as `null` and break `fromJSON`.
            self.state.cost_usd = (self.state.cost_usd + cost_usd).min(f64::MAX);
        }
        self.state.attempts.push(Attempt {
            n: self.state.calls().saturating_add(1),
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

    /// A `rejected` (repairable) or `invalid` (semantic-invalid) verdict: the outcome of the
    /// call in flight if one is, else a verdict on the reply that produced the last `done`.
    fn verdict(
        &mut self,
        in_flight: bool,
        now: f64,
        cause: Cause,
        label: &str,
        reason: &str,
    ) -> Classified {
        if in_flight {
            self.record_call(0.0, now);
        }
        let class = match cause {
            Cause::Semantic => ErrorClass::SemanticInvalid,
            _ => ErrorClass::Repairable,
        };
        let line = format!("{label}: {}", one_line(reason, 300));
        let classified = Classified::new(class, cause, Signal::Validation, line);
        self.fail(&classified);
        self.state.last_report = None;
        classified
    }

    fn fail(&mut self, classified: &Classified) {
        self.state.failures.bump(classified.class);
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

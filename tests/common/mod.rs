//! Scenario helpers shared by the native test suites.
//!
//! Outcomes are built with tiny constructors (`reply`, `http`, `err_code`,
//! ...) refined by [`OutcomeExt`] (`http(429).header("retry-after", "2")`),
//! and a loop is driven through one helper, [`drive`], on a fake clock: every
//! step is an outcome and the `now` at which the host feeds it.

#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use std::sync::Arc;

use selfheal::{
    Backoff, CircuitBreaker, Classified, CompiledSchema, ErrorInfo, Instruction, Jitter,
    LoopConfig, Mode, Outcome, Prompt, RepairLoop, SchemaCache, StopReason, Strategy,
};
use serde::Serialize;

pub const SEED: u64 = 42;

/// A reply must be an object with a string `city`.
pub const CITY_SCHEMA: &str =
    r#"{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}}"#;
pub const CITY: &str = r#"{"city": "Paris"}"#;
pub const FENCED_CITY: &str = "```json\n{\"city\": \"Paris\"}\n```";
/// Valid JSON that fails `CITY_SCHEMA` (so no local repair can change it).
pub const WRONG_SHAPE: &str = r#"{"town": "Paris"}"#;

// ---------- prompts and configs ----------

pub fn prompt() -> Prompt {
    Prompt {
        system: "Reply with one JSON object.".into(),
        user: "Which city is the Eiffel Tower in?".into(),
    }
}

pub fn alternate() -> Prompt {
    Prompt {
        system: "You are a careful geographer. Reply with one JSON object.".into(),
        user: "Name the city that contains the Eiffel Tower, as {\"city\": ...}.".into(),
    }
}

/// SPEC defaults, fix mode, a fixed seed.
pub fn config() -> LoopConfig {
    LoopConfig::new(prompt(), SEED)
}

/// Reask mode with its own default budget (no `maxPromptChars`).
pub fn reask_config() -> LoopConfig {
    let mut c = config();
    c.mode = Mode::Reask;
    c.budget = selfheal::Budget::default_for(Mode::Reask);
    c
}

/// Backoff without jitter: delays are exactly `min(base·2^(k-1), max)`.
pub fn plain_backoff(base_ms: f64, max_ms: f64) -> Backoff {
    Backoff {
        base_ms,
        max_ms,
        jitter: Jitter::None,
        ..Backoff::default()
    }
}

pub fn compile(schema: &str) -> Arc<CompiledSchema> {
    SchemaCache::default()
        .get_or_compile(schema)
        .expect("test schema compiles")
}

pub fn new_loop(config: LoopConfig, schema: Option<&str>) -> RepairLoop {
    RepairLoop::new(config, schema.map(compile)).expect("valid options")
}

/// A loop expecting `{"city": string}`.
pub fn city_loop(config: LoopConfig) -> RepairLoop {
    new_loop(config, Some(CITY_SCHEMA))
}

// ---------- outcomes ----------

pub fn reply(text: &str) -> Outcome {
    Outcome::Reply {
        text: text.into(),
        stop_reason: None,
        cost_usd: 0.0,
        usage: None,
    }
}

/// An error that was thrown but says nothing the table reads.
pub fn error() -> Outcome {
    Outcome::Error {
        error: ErrorInfo {
            present: true,
            ..ErrorInfo::default()
        },
        cost_usd: 0.0,
    }
}

pub fn http(status: u16) -> Outcome {
    error().status(status)
}

pub fn err_code(code: &str) -> Outcome {
    error().code(code)
}

pub fn err_type(error_type: &str) -> Outcome {
    error().typ(error_type)
}

pub fn err_named(name: &str) -> Outcome {
    error().name(name)
}

pub fn err_message(message: &str) -> Outcome {
    error().message(message)
}

pub fn rejected(reason: &str) -> Outcome {
    Outcome::Rejected {
        reason: reason.into(),
    }
}

pub fn invalid(reason: &str) -> Outcome {
    Outcome::Invalid {
        reason: reason.into(),
    }
}

/// Refinements of an outcome; each one applies only to the variant it names.
pub trait OutcomeExt: Sized {
    fn status(self, status: u16) -> Self;
    fn header(self, name: &str, value: &str) -> Self;
    fn code(self, code: &str) -> Self;
    fn typ(self, error_type: &str) -> Self;
    fn message(self, message: &str) -> Self;
    fn name(self, name: &str) -> Self;
    fn cost(self, usd: f64) -> Self;
    fn stop(self, stop_reason: &str) -> Self;
    /// The error as `classify` sees it.
    fn info(&self) -> ErrorInfo;
}

fn edit_error(o: Outcome, f: impl FnOnce(&mut ErrorInfo)) -> Outcome {
    match o {
        Outcome::Error {
            mut error,
            cost_usd,
        } => {
            f(&mut error);
            Outcome::Error { error, cost_usd }
        }
        other => panic!("not an error outcome: {other:?}"),
    }
}

impl OutcomeExt for Outcome {
    fn status(self, status: u16) -> Self {
        edit_error(self, |e| e.status = Some(status))
    }
    fn header(self, name: &str, value: &str) -> Self {
        edit_error(self, |e| e.headers.push((name.into(), value.into())))
    }
    fn code(self, code: &str) -> Self {
        edit_error(self, |e| e.codes.push(code.into()))
    }
    fn typ(self, error_type: &str) -> Self {
        edit_error(self, |e| e.types.push(error_type.into()))
    }
    fn message(self, message: &str) -> Self {
        edit_error(self, |e| e.messages.push(message.into()))
    }
    fn name(self, name: &str) -> Self {
        edit_error(self, |e| e.name = Some(name.into()))
    }
    fn cost(self, usd: f64) -> Self {
        match self {
            Outcome::Reply {
                text,
                stop_reason,
                usage,
                ..
            } => Outcome::Reply {
                text,
                stop_reason,
                cost_usd: usd,
                usage,
            },
            Outcome::Error { error, .. } => Outcome::Error {
                error,
                cost_usd: usd,
            },
            other => panic!("this outcome carries no cost: {other:?}"),
        }
    }
    fn stop(self, stop_reason: &str) -> Self {
        match self {
            Outcome::Reply {
                text,
                cost_usd,
                usage,
                ..
            } => Outcome::Reply {
                text,
                stop_reason: Some(stop_reason.into()),
                cost_usd,
                usage,
            },
            other => panic!("not a reply: {other:?}"),
        }
    }
    fn info(&self) -> ErrorInfo {
        match self {
            Outcome::Error { error, .. } => error.clone(),
            other => panic!("not an error outcome: {other:?}"),
        }
    }
}

// ---------- driving ----------

/// Feed each `(outcome, now)` in order; the instructions the loop returned.
pub fn drive(repair: &mut RepairLoop, steps: &[(Outcome, f64)]) -> Vec<Instruction> {
    steps
        .iter()
        .map(|(o, now)| repair.next(o.clone(), *now, None))
        .collect()
}

/// [`drive`] with a circuit breaker handed to every step.
pub fn drive_with(
    repair: &mut RepairLoop,
    breaker: &mut CircuitBreaker,
    steps: &[(Outcome, f64)],
) -> Vec<Instruction> {
    steps
        .iter()
        .map(|(o, now)| repair.next(o.clone(), *now, Some(&mut *breaker)))
        .collect()
}

// ---------- reading instructions ----------

/// The contract's string for a serde enum (`Source::FirstPass` → "first-pass").
pub fn name_of<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        other => panic!("not a unit variant: {other:?}"),
    }
}

/// A one-line picture of an instruction, for asserting a whole run at once:
/// `wait #2`, `fix #3`, `done first-pass/1`, `degrade hard-fail/1`
/// (`#n` is the call asked for, `/n` the calls made).
pub fn shape(i: &Instruction) -> String {
    match i {
        Instruction::WaitForBackoff { attempt, .. } => format!("wait #{attempt}"),
        Instruction::SendRepairPrompt {
            strategy, attempt, ..
        } => {
            format!("{} #{attempt}", name_of(strategy))
        }
        Instruction::Done {
            source, attempts, ..
        } => format!("done {}/{attempts}", name_of(source)),
        Instruction::Degrade {
            reason, attempts, ..
        } => {
            format!("degrade {}/{attempts}", name_of(reason))
        }
    }
}

pub fn shapes(instructions: &[Instruction]) -> Vec<String> {
    instructions.iter().map(shape).collect()
}

pub fn delay(i: &Instruction) -> f64 {
    match i {
        Instruction::WaitForBackoff { delay_ms, .. } => *delay_ms,
        other => panic!("expected wait-for-backoff, got {other:?}"),
    }
}

pub fn delays(instructions: &[Instruction]) -> Vec<f64> {
    instructions
        .iter()
        .filter(|i| matches!(i, Instruction::WaitForBackoff { .. }))
        .map(delay)
        .collect()
}

/// The prompt a wait or repair instruction asks the host to send.
pub fn sent_prompt(i: &Instruction) -> &Prompt {
    match i {
        Instruction::WaitForBackoff { prompt, .. }
        | Instruction::SendRepairPrompt { prompt, .. } => prompt,
        other => panic!("expected an instruction that asks for a call, got {other:?}"),
    }
}

pub fn strategy(i: &Instruction) -> Strategy {
    match i {
        Instruction::SendRepairPrompt { strategy, .. } => *strategy,
        other => panic!("expected send-repair-prompt, got {other:?}"),
    }
}

pub fn classified(i: &Instruction) -> &Classified {
    match i {
        Instruction::WaitForBackoff { classified, .. }
        | Instruction::SendRepairPrompt { classified, .. } => classified,
        Instruction::Degrade {
            classified: Some(c),
            ..
        } => c,
        other => panic!("no classification in {other:?}"),
    }
}

pub fn stop_reason(i: &Instruction) -> StopReason {
    match i {
        Instruction::Degrade { reason, .. } => *reason,
        other => panic!("expected degrade, got {other:?}"),
    }
}

pub fn detail(i: &Instruction) -> &str {
    match i {
        Instruction::Degrade { detail, .. } => detail,
        other => panic!("expected degrade, got {other:?}"),
    }
}

pub fn last(instructions: &[Instruction]) -> &Instruction {
    instructions.last().expect("at least one instruction")
}

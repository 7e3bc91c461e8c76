//! The loop's mutable state, its reports, and its snapshot (`toJSON` / `fromJSON`).
//!
//! In memory the state holds each quantity once: where the loop is ([`Phase`]), the resends
//! spent per budget ([`Spent`]), the failures per class ([`ByClass`]) and one [`Attempt`] per
//! call (their number is the number of calls). The snapshot keeps the 0.1 format
//! ([`SavedState`]), whose overlapping fields (`calls`, `repairsSent`, `repairableFailures`,
//! `semanticFailures`, `awaiting`, `provisional`) are written from those quantities and, when
//! read, either checked against them or left unread (DESIGN.md, "The snapshot format").

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::backoff::u64_string;
use crate::classify::{Cause, ErrorClass};
use crate::prompt::Prompt;
use crate::structured::stream::PartialUpdate;
use crate::structured::{
    CompiledSchema, FailureKind, FailureReport, GivenSchemaOptions, SchemaCache, SchemaOptions,
};

use super::{Instruction, LoopConfig, OptionError, RepairLoop};

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
    pub(super) fn bump(&mut self, class: ErrorClass) {
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

/// Where the loop is between two steps.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Phase {
    /// A call is out (the host's first call included): the next outcome is its outcome.
    Calling,
    /// A `done` was given: one `rejected`/`invalid` fed right after it reopens the loop;
    /// anything else makes it [`Phase::Final`].
    Provisional(Instruction),
    /// `next` repeats this instruction.
    Final(Instruction),
}

/// Resends spent, one counter per budget (`options.budget`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Spent {
    /// `wait-for-backoff` instructions.
    pub transient: u32,
    /// `send-repair-prompt` fix and reask instructions.
    pub repairable: u32,
    /// `send-repair-prompt` alternate instructions.
    pub semantic_invalid: u32,
}

/// The mutable part of a loop.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LoopState {
    pub rng: u64,
    pub started_at: Option<f64>,
    pub phase: Phase,
    pub spent: Spent,
    /// Transient failures in a row: the exponent of the next backoff.
    pub consecutive_transient: u32,
    pub cost_usd: f64,
    /// The prompt of the most recent call.
    pub current_prompt: Prompt,
    pub failures: ByClass,
    /// One per call whose outcome arrived.
    pub attempts: Vec<Attempt>,
    pub last_report: Option<FailureReport>,
}

impl LoopState {
    pub fn new(rng: u64, prompt: Prompt) -> LoopState {
        LoopState {
            rng,
            started_at: None,
            phase: Phase::Calling,
            spent: Spent::default(),
            consecutive_transient: 0,
            cost_usd: 0.0,
            current_prompt: prompt,
            failures: ByClass::default(),
            attempts: Vec::new(),
            last_report: None,
        }
    }

    /// Calls whose outcome has arrived.
    pub fn calls(&self) -> u32 {
        u32::try_from(self.attempts.len()).unwrap_or(u32::MAX)
    }

    /// Repair prompts sent, alternate prompts included.
    pub fn repairs_sent(&self) -> u32 {
        self.spent
            .repairable
            .saturating_add(self.spent.semantic_invalid)
    }
}

/// The state as a snapshot holds it: the 0.1 format, kept so that a loop saved by any
/// version resumes in any other (a rolling deploy reads and writes the same stored loops).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SavedState {
    #[serde(with = "u64_string")]
    rng: u64,
    started_at: Option<f64>,
    /// Written as the number of attempts; not read (the attempts are the calls).
    calls: u32,
    /// Written as "no final instruction"; not read (the final instruction says it).
    awaiting: bool,
    transient_used: u32,
    repair_used: u32,
    semantic_used: u32,
    consecutive_transient: u32,
    cost_usd: f64,
    current_prompt: Prompt,
    /// Written as `repairUsed + semanticUsed`; not read.
    repairs_sent: u32,
    /// Written as `byClass.repairable` and `byClass["semantic-invalid"]`; not read.
    repairable_failures: u32,
    semantic_failures: u32,
    by_class: ByClass,
    attempts: Vec<Attempt>,
    last_report: Option<FailureReport>,
    /// A `done` with its value, as `next` gave it.
    final_instruction: Option<Instruction>,
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
    /// How the schema was compiled, when not with the defaults (`new Schema(s, { formats:
    /// false, resources })`); absent in 0.1 snapshots and for the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_options: Option<GivenSchemaOptions>,
    state: SavedState,
    /// The reply of the call in flight as pushed so far (`push`), while a stream is in progress;
    /// absent otherwise (and in 0.1 snapshots). A restored loop reads it again, so the stream
    /// goes on where it was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    in_flight: Option<String>,
    /// A push of that stream was refused for length: the length the reply would have had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    in_flight_too_long: Option<u64>,
}

/// An `Option` field that must be present (as `null` when empty), read as one JSON value
/// ([`crate::wire::any_json`]: from JS, one `JSON.stringify` rather than a read per node).
fn required_nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    crate::wire::any_json(d).map(|v| Some(v).filter(|v| !v.is_null()))
}

const SNAPSHOT_VERSION: u32 = 1;

impl RepairLoop {
    pub fn report(&self) -> LoopReport {
        let s = &self.state;
        let mut warnings = Vec::new();
        let repairable = s.failures.repairable;
        if repairable >= 3 {
            warnings.push(format!(
                "structural problem in prompt or validator: {repairable} repairable failures"
            ));
        }
        let semantic = s.failures.semantic_invalid;
        if semantic >= 1 {
            warnings.push(format!(
                "review the approach: {semantic} semantic-invalid outcome{}",
                if semantic == 1 { "" } else { "s" }
            ));
        }
        LoopReport {
            calls: s.calls(),
            cost_usd: s.cost_usd,
            repaired: s.repairs_sent(),
            by_class: s.failures,
            warnings,
        }
    }

    pub fn to_snapshot(&self) -> Snapshot {
        let s = &self.state;
        let state = SavedState {
            rng: s.rng,
            started_at: s.started_at,
            calls: s.calls(),
            awaiting: s.phase == Phase::Calling,
            transient_used: s.spent.transient,
            repair_used: s.spent.repairable,
            semantic_used: s.spent.semantic_invalid,
            consecutive_transient: s.consecutive_transient,
            cost_usd: s.cost_usd,
            current_prompt: s.current_prompt.clone(),
            repairs_sent: s.repairs_sent(),
            repairable_failures: s.failures.repairable,
            semantic_failures: s.failures.semantic_invalid,
            by_class: s.failures,
            attempts: s.attempts.clone(),
            last_report: s.last_report.clone(),
            final_instruction: self.final_instruction(),
            provisional: matches!(s.phase, Phase::Provisional(_)),
        };
        Snapshot {
            version: SNAPSHOT_VERSION,
            options: self.config.clone(),
            schema: self.schema.as_ref().map(|s| s.value().clone()),
            schema_options: self.schema.as_ref().and_then(|s| s.given_options()),
            state,
            in_flight: self.in_flight.as_ref().map(|f| f.text().to_string()),
            in_flight_too_long: self
                .in_flight
                .as_ref()
                .and_then(|f| f.too_long)
                .map(|n| n as u64),
        }
    }

    pub fn from_snapshot(
        snapshot: Snapshot,
        cache: &mut SchemaCache,
    ) -> Result<RepairLoop, OptionError> {
        RepairLoop::resume(snapshot, cache).map(|(restored, _)| restored)
    }

    /// [`RepairLoop::from_snapshot`], and, when a stream was in progress, the update of reading
    /// its text again: everything pushed before the save as one push, for a host that mirrors
    /// the partial value ([`RepairLoop::pushed`] is that text).
    pub fn resume(
        snapshot: Snapshot,
        cache: &mut SchemaCache,
    ) -> Result<(RepairLoop, Option<PartialUpdate>), OptionError> {
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
        let schema_options = match snapshot.schema_options {
            None => SchemaOptions::default(),
            Some(given) => given
                .check()
                .map_err(|e| OptionError {
                    field: format!("state.schemaOptions.{}", e.field),
                    ..e
                })?
                .unwrap_or_default(),
        };
        let schema = snapshot
            .schema
            .map(|v| cache.get_or_compile_with(v, schema_options))
            .transpose()
            .map_err(|e| OptionError::type_("state.schema", &format!("is not usable: {e}")))?;
        let saved = snapshot.state;
        check_saved(&saved, schema.as_deref())?;
        check_counts(&saved, &snapshot.options.budget)?;
        let phase = match saved.final_instruction {
            None => Phase::Calling,
            Some(done @ Instruction::Done { .. }) if saved.provisional => {
                Phase::Provisional(without_value(done))
            }
            Some(fin) => Phase::Final(without_value(fin)),
        };
        let state = LoopState {
            rng: saved.rng,
            started_at: saved.started_at,
            phase,
            spent: Spent {
                transient: saved.transient_used,
                repairable: saved.repair_used,
                semantic_invalid: saved.semantic_used,
            },
            consecutive_transient: saved.consecutive_transient,
            cost_usd: saved.cost_usd,
            current_prompt: saved.current_prompt,
            failures: saved.by_class,
            attempts: saved.attempts,
            last_report: saved.last_report,
        };
        let mut restored = RepairLoop {
            config: snapshot.options,
            schema,
            state,
            resend_refused: false,
            stream_schema: None,
            in_flight: None,
        };
        let update = match snapshot.in_flight {
            Some(text) => Some(restored.resume_stream(&text, snapshot.in_flight_too_long)?),
            None => None,
        };
        Ok((restored, update))
    }

    /// Reads a saved stream's text again (one push), so the call in flight goes on.
    fn resume_stream(
        &mut self,
        text: &str,
        too_long: Option<u64>,
    ) -> Result<PartialUpdate, OptionError> {
        if self.is_finished() {
            return Err(OptionError::type_(
                "state.inFlight",
                "is a reply in flight, but the loop has given its final instruction",
            ));
        }
        let update = self.push(text).map_err(|e| {
            OptionError::range("state.inFlight", &format!("could not be read again: {e}"))
        })?;
        if let Some(in_flight) = self.in_flight.as_mut() {
            in_flight.too_long = too_long.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        }
        Ok(update)
    }

    /// Give `instruction` again on every later step; a `done` stays open to one verdict.
    pub(super) fn finish(&mut self, instruction: &mut Instruction, provisional: bool) {
        let kept = copy_without_value(instruction);
        self.state.phase = match kept {
            Instruction::Done { .. } if provisional => Phase::Provisional(kept),
            _ => Phase::Final(kept),
        };
    }

    /// The final instruction given, if any, no longer open to a verdict.
    pub(super) fn close(&mut self) -> Option<Instruction> {
        match std::mem::replace(&mut self.state.phase, Phase::Calling) {
            Phase::Calling => None,
            Phase::Provisional(fin) | Phase::Final(fin) => {
                let whole = self.with_value(&fin);
                self.state.phase = Phase::Final(fin);
                Some(whole)
            }
        }
    }

    /// The final instruction given, whole.
    pub(super) fn final_instruction(&self) -> Option<Instruction> {
        match &self.state.phase {
            Phase::Calling => None,
            Phase::Provisional(fin) | Phase::Final(fin) => Some(self.with_value(fin)),
        }
    }

    /// A kept instruction whole: a `done`'s value is its text parsed again (the text itself
    /// without a schema), exactly the value it held.
    fn with_value(&self, kept: &Instruction) -> Instruction {
        let has_schema = self.schema.is_some();
        set_value(kept.clone(), |text| match has_schema {
            true => selfheal_hot::parse_value(text).unwrap_or(Value::Null),
            false => Value::String(text.to_string()),
        })
    }
}

/// `a` and `b` are the same JSON, numbers compared as the doubles JavaScript holds: a state
/// that went through JS (`toJSON()`, then `fromJSON`) holds `12345678901234567890`, `-0` or
/// `1.0000000000000001` as the nearest double, while the text parses to the exact number. The
/// value resumed is the text parsed again (`with_value`), exact.
fn same_numbers_as_f64(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_numbers_as_f64(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, x)| y.get(k).is_some_and(|y| same_numbers_as_f64(x, y)))
        }
        _ => a == b,
    }
}

/// A final instruction as the loop keeps it: a `done` without its value, which is its text
/// parsed again when needed. The value of a large reply is a tree many times the size of its
/// text (docs/PERFORMANCE.md), and a second copy for the life of the loop doubled the memory a
/// large reply takes.
fn without_value(instruction: Instruction) -> Instruction {
    set_value(instruction, |_| Value::Null)
}

/// [`without_value`] of a copy of `instruction`, which keeps its value: the value is moved out
/// while the rest is cloned, then put back, so the tree is never copied (the clone of the tree
/// showed as 7 % of `new RepairLoop` + `next` on a 0.5 KB reply).
fn copy_without_value(instruction: &mut Instruction) -> Instruction {
    let Instruction::Done { value, .. } = instruction else {
        return instruction.clone();
    };
    let value = std::mem::take(value);
    let kept = instruction.clone();
    if let Instruction::Done { value: slot, .. } = instruction {
        *slot = value;
    }
    kept
}

/// A `done` with the value made from its text; any other instruction as it is.
fn set_value(mut instruction: Instruction, value: impl FnOnce(&str) -> Value) -> Instruction {
    if let Instruction::Done {
        value: done_value,
        text,
        ..
    } = &mut instruction
    {
        *done_value = value(text);
    }
    instruction
}

/// The counts a loop keeps agree with each other and with its budget, as they do in every state a
/// loop reaches: resends spent within the budget, no more calls than the first and the resends,
/// a cost no less than its calls', a start time once there were calls (an outside snapshot
/// audit: a state rewound to `transientUsed: 0` sent attempts 4 and 5 on a budget of 2, a
/// `costUsd` of 0 got round the ceiling, a `startedAt` of `null` or 1e300 turned the deadline
/// off).
fn check_counts(s: &SavedState, budget: &super::config::Budget) -> Result<(), OptionError> {
    let bad = |field: &str, message: &str| {
        Err(OptionError::range(&format!("state.state.{field}"), message))
    };
    for (field, used, limit) in [
        ("transientUsed", s.transient_used, budget.transient),
        ("repairUsed", s.repair_used, budget.repairable),
        ("semanticUsed", s.semantic_used, budget.semantic_invalid),
    ] {
        if used > limit {
            return bad(field, "is more than the budget in options.budget allows");
        }
    }
    if s.consecutive_transient > s.transient_used.saturating_add(1) {
        return bad(
            "consecutiveTransient",
            "is more than one past transientUsed",
        );
    }
    let resends =
        u64::from(s.transient_used) + u64::from(s.repair_used) + u64::from(s.semantic_used);
    if s.attempts.len() as u64 > resends + 1 {
        return bad(
            "attempts",
            "holds more calls than the first one and the resends spent",
        );
    }
    // Summed as the loop sums them: saturating at the largest finite number.
    let spent = s
        .attempts
        .iter()
        .fold(0.0, |sum: f64, a| (sum + a.cost_usd).min(f64::MAX));
    if s.cost_usd < spent * (1.0 - 1e-9) {
        return bad("costUsd", "is less than the calls in attempts cost");
    }
    match s.started_at {
        Some(t) if !(-crate::toolkit::MAX_DATE_MS..=crate::toolkit::MAX_DATE_MS).contains(&t) => {
            bad(
                "startedAt",
                "must be a time a Date can hold (within 8.64e15 ms of 1970)",
            )
        }
        None if !s.attempts.is_empty() => bad("startedAt", "is null, but calls were made"),
        _ => Ok(()),
    }
}

/// What a restored state must hold to be one a loop could have reached (issue 10): costs and
/// times that are numbers the loop writes, a final instruction that is the one the loop gave
/// (its value the reply's, checked against the schema, its counts the state's), and a schema
/// whenever the state shows there was one.
fn check_saved(s: &SavedState, schema: Option<&CompiledSchema>) -> Result<(), OptionError> {
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
    if schema.is_none() {
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
    let calls = u32::try_from(s.attempts.len()).unwrap_or(u32::MAX);
    if attempts != calls || cost_usd.to_bits() != s.cost_usd.to_bits() {
        return bad(
            "finalInstruction",
            "does not match the state (its attempts must be the number of calls, its costUsd the state's)",
        );
    }
    if let Instruction::Done { value, text, .. } = fin {
        let same = match schema {
            None => value.as_str() == Some(text.as_str()),
            Some(schema) => {
                selfheal_hot::parse_value(text)
                    .is_ok_and(|parsed| same_numbers_as_f64(&parsed, value))
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

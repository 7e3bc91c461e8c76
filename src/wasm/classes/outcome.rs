//! `RepairLoop.next`'s argument in and its instruction out: the loop's two hot conversions.
//!
//! In: an `{kind: "error"}` outcome is gathered whole by js/snippets/gather.js (one crossing);
//! other kinds are read by serde, the reply's text once (it is both the text and the source of a
//! `done` value). Out: `wait-for-backoff` and a `done` for the host's own unrepaired reply are
//! built as object literals by js/snippets/instructions.js; everything else crosses as JSON.

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use crate::error::OptionError;
use crate::repair_loop::{Instruction, Outcome};
use crate::toolkit::Usage;
use crate::wasm::error::Read;
use crate::wasm::read::{OutcomeKind, OutcomeStart};
use crate::wasm::structured_js::json_parse_js;
use crate::wasm::{de, read, to_js_json};

/// What a `reply` carries besides its text; `costUsd` is also an `error`'s.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Extras {
    stop_reason: Option<String>,
    cost_usd: Option<f64>,
    usage: Option<Usage>,
}

/// What an `error` carries besides the error (gathered apart).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ErrorExtras {
    cost_usd: Option<f64>,
}

/// The `kind` of an outcome read field by field.
#[derive(Deserialize)]
struct Kind {
    kind: OutcomeKind,
}

/// The `reason` of `rejected` and `invalid`.
#[derive(Deserialize)]
struct Verdict {
    reason: String,
}

/// `costUsd`: absent is 0; a cost is never negative.
fn cost(cost_usd: Option<f64>) -> Read<f64> {
    match cost_usd {
        Some(n) if n < 0.0 => Err(OptionError::range(
            "outcome.costUsd",
            &format!("must be >= 0, got {n}"),
        )),
        n => Ok(n.unwrap_or(0.0)),
    }
}

/// The outcome, and for a reply the JS string its text was read from (see [`instruction_to_js`]).
/// `streaming`: chunks were pushed for this call, so a reply may leave its text out.
pub(crate) fn outcome_arg(
    v: &JsValue,
    max_reply: usize,
    streaming: bool,
) -> Read<(Outcome, Option<JsValue>)> {
    let kind = match read::outcome_start(v) {
        OutcomeStart::Error(error, cost_usd) => {
            return Ok((Outcome::Error { error, cost_usd }, None))
        }
        OutcomeStart::Kind(kind) => kind,
        OutcomeStart::Unread => de::read::<Kind>(v, "outcome")?.kind,
    };
    let outcome = match kind {
        OutcomeKind::Reply => return reply_arg(v, max_reply, streaming),
        OutcomeKind::Error => {
            let error = read::field(v, "error", "outcome")?;
            let ErrorExtras { cost_usd } = de::read(v, "outcome")?;
            Outcome::Error {
                error: read::error_info(&error),
                cost_usd: cost(cost_usd)?,
            }
        }
        OutcomeKind::Rejected => Outcome::Rejected {
            reason: de::read::<Verdict>(v, "outcome")?.reason,
        },
        OutcomeKind::Invalid => Outcome::Invalid {
            reason: de::read::<Verdict>(v, "outcome")?.reason,
        },
    };
    Ok((outcome, None))
}

/// A `reply`: its text read once, as the text and the source of the `done` value.
fn reply_arg(v: &JsValue, max_reply: usize, streaming: bool) -> Read<(Outcome, Option<JsValue>)> {
    let text_js = read::field(v, "text", "outcome")?;
    if streaming && read::is_nullish(&text_js) {
        // The pushed text is the reply (SPEC section 8).
        let e: Extras = de::read(v, "outcome")?;
        let outcome = Outcome::StreamedReply {
            stop_reason: e.stop_reason,
            cost_usd: cost(e.cost_usd)?,
            usage: e.usage,
        };
        return Ok((outcome, None));
    }
    // Refused before it is copied into wasm memory (which never shrinks).
    if let Some(length) = read::certainly_longer(&text_js, max_reply) {
        let e: Extras = de::read(v, "outcome")?;
        let outcome = Outcome::ReplyTooLong {
            length,
            stop_reason: e.stop_reason,
            cost_usd: cost(e.cost_usd)?,
        };
        return Ok((outcome, None));
    }
    // Only a text that is not a string goes through serde, for its error.
    let text = text_js
        .as_string()
        .map_or_else(|| de::read(&text_js, "outcome.text"), Ok)?;
    let e: Extras = de::read(v, "outcome")?;
    let outcome = Outcome::Reply {
        text,
        stop_reason: e.stop_reason,
        cost_usd: cost(e.cost_usd)?,
        usage: e.usage,
    };
    Ok((outcome, Some(text_js)))
}

/// An instruction as JS. A `done` that holds the reply exactly as the host passed it (strict
/// JSON checked against the loop's schema, nothing repaired; `reply_js` is given only then)
/// takes its `value` from `JSON.parse` of the host's own string and its `text` as that string,
/// instead of serialising the value and copying the text out of wasm memory: the same values
/// (see `parsed_to_js` in structured_js.rs), for less time (docs/PERFORMANCE.md).
pub(crate) fn instruction_to_js(
    instruction: &Instruction,
    reply_js: Option<&JsValue>,
) -> Result<JsValue, JsValue> {
    if let Instruction::WaitForBackoff {
        delay_ms,
        prompt,
        attempt,
        classified,
    } = instruction
    {
        return Ok(crate::wasm::wait_for_backoff_to_js(
            *delay_ms, prompt, *attempt, classified,
        ));
    }
    // Every field named (the value comes from `reply_js`): a new `Done` field breaks the build.
    let (
        Instruction::Done {
            value: _,
            text,
            source,
            fixes,
            attempts,
            cost_usd,
            validated,
        },
        Some(reply_js),
    ) = (instruction, reply_js)
    else {
        return to_js_json(instruction);
    };
    // `text` is the reply read from `reply_js` when nothing was repaired; U+FFFD may stand
    // for a lone surrogate of the JS string, which JSON.parse would keep.
    if !fixes.is_empty() || text.contains('\u{FFFD}') {
        return to_js_json(instruction);
    }
    let Ok(value) = json_parse_js(reply_js) else {
        return to_js_json(instruction);
    };
    let done = crate::wasm::done_to_js(&value, reply_js, *source, fixes, *attempts, *cost_usd);
    // selfheal/lite: the value was not validated against the loop's schema (the JSON path
    // writes the same key last). Setting a data property on our own fresh object cannot throw.
    if validated.is_some() {
        js_sys::Reflect::set(&done, &read::interned("validated"), &JsValue::FALSE)?;
    }
    Ok(done)
}

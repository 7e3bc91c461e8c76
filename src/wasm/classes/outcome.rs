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
        read::OutcomeStart::Error(error, cost_usd) => {
            return Ok((Outcome::Error { error, cost_usd }, None))
        }
        read::OutcomeStart::Kind(kind) => kind,
        read::OutcomeStart::Unread => {
            if !read::is_object(v) {
                return Err(OptionError::type_(
                    "outcome",
                    &format!("must be an object with a kind, got {}", read::type_name(v)),
                ));
            }
            read::req_string(v, "kind", "outcome")?
        }
    };
    let extras = || de::read_js::<Extras>(v, "outcome", de::Limits::DEFAULT, de::Keys::Declared);
    let verdict = || -> Read<String> {
        de::read_js::<Verdict>(v, "outcome", de::Limits::DEFAULT, de::Keys::Declared)
            .map(|r| r.reason)
    };
    let outcome = match kind.as_str() {
        "reply" => {
            // Read once: the string is both the text and the source of the `done` value.
            let text_js = read::field(v, "text", "outcome.text")?;
            if streaming && read::is_nullish(&text_js) {
                // The pushed text is the reply (SPEC section 8).
                let e = extras()?;
                let outcome = Outcome::StreamedReply {
                    stop_reason: e.stop_reason,
                    cost_usd: cost(e.cost_usd)?,
                    usage: e.usage,
                };
                return Ok((outcome, None));
            }
            // Refused before it is copied into wasm memory (which never shrinks).
            if let Some(length) = read::certainly_longer(&text_js, max_reply) {
                let e = extras()?;
                let outcome = Outcome::ReplyTooLong {
                    length,
                    stop_reason: e.stop_reason,
                    cost_usd: cost(e.cost_usd)?,
                };
                return Ok((outcome, None));
            }
            let text = text_js
                .as_string()
                .ok_or_else(|| match read::is_nullish(&text_js) {
                    true => OptionError::type_("outcome.text", "is required and must be a string"),
                    false => OptionError::type_(
                        "outcome.text",
                        &format!("must be a string, got {}", read::type_name(&text_js)),
                    ),
                })?;
            let e = extras()?;
            let outcome = Outcome::Reply {
                text,
                stop_reason: e.stop_reason,
                cost_usd: cost(e.cost_usd)?,
                usage: e.usage,
            };
            return Ok((outcome, Some(text_js)));
        }
        "error" => {
            let error = read::field(v, "error", "outcome.error")?;
            Outcome::Error {
                error: read::error_info(&error),
                cost_usd: cost(
                    de::read_js::<ErrorExtras>(
                        v,
                        "outcome",
                        de::Limits::DEFAULT,
                        de::Keys::Declared,
                    )?
                    .cost_usd,
                )?,
            }
        }
        "rejected" => Outcome::Rejected { reason: verdict()? },
        "invalid" => Outcome::Invalid { reason: verdict()? },
        k => {
            return Err(OptionError::type_(
                "outcome.kind",
                &format!("must be \"reply\", \"error\", \"rejected\" or \"invalid\", got {k:?}"),
            ))
        }
    };
    Ok((outcome, None))
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
    Ok(crate::wasm::done_to_js(
        &value, reply_js, *source, fixes, *attempts, *cost_usd,
    ))
}

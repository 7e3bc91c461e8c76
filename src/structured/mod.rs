//! Structured output: strict parsing, local repair and schema validation.
//!
//! The order is fixed by SPEC sections 4 and 9: empty text is its own failure;
//! strict parsing comes first; local repair runs only when strict parsing
//! fails and the reply was not cut off (closing the brackets of a truncated
//! reply would hide lost data). Then every JSON value in the reply is a
//! candidate and the first that passes the schema wins (`align.rs`); a
//! repaired value must still pass the schema. `coerce` (`coerce.rs`) aligns a
//! value that fails the schema with it where the intent is plain.

mod align;
mod coerce;
pub mod schema;
mod schema_doc;
pub mod stream;
mod subschema;
pub mod work;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::text::one_line;

// The repair scanner and the fix names live in crates/selfheal-hot, compiled for speed.
pub use selfheal_hot::{fix, repair};

pub use fix::Fix;
pub use repair::{repair_json, Repaired};
pub use schema::{CompiledSchema, GivenSchemaOptions, SchemaCache, SchemaError, SchemaOptions};

selfheal_hot::wire_enum! {
/// What kind of failure a reply had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    Empty,
    JsonSyntax,
    Schema,
    Truncated,
}
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        // The serde name: the derive's rename is the one place it is written.
        crate::wire::name_of(&self).unwrap_or_default()
    }
}

/// One problem, at a JSON Pointer path ("" is the root).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureIssue {
    pub kind: FailureKind,
    pub path: String,
    pub message: String,
}

/// Every problem found, and the distinct kinds among them (most decisive first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureReport {
    pub kinds: Vec<FailureKind>,
    pub issues: Vec<FailureIssue>,
}

impl FailureReport {
    pub(crate) fn single(kind: FailureKind, message: impl Into<String>) -> FailureReport {
        FailureReport {
            kinds: vec![kind],
            issues: vec![FailureIssue {
                kind,
                path: String::new(),
                message: message.into(),
            }],
        }
    }

    /// The kind that decides how the loop repairs: truncated, then syntax, then schema.
    pub fn primary(&self) -> Option<FailureKind> {
        [
            FailureKind::Empty,
            FailureKind::Truncated,
            FailureKind::JsonSyntax,
            FailureKind::Schema,
        ]
        .into_iter()
        .find(|k| self.kinds.contains(k))
    }

    pub fn has(&self, kind: FailureKind) -> bool {
        self.kinds.contains(&kind)
    }

    pub(crate) fn merge(mut self, other: FailureReport) -> FailureReport {
        for k in other.kinds {
            if !self.kinds.contains(&k) {
                self.kinds.push(k);
            }
        }
        self.issues.extend(other.issues);
        schema::cap_issues(&mut self.issues);
        self
    }
}

/// The outcome of parsing one reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Parsed {
    Ok {
        ok: True,
        value: Value,
        fixes: Vec<Fix>,
        #[serde(skip)]
        text: String,
        /// `Some(False)` when a schema was given and this build does not validate
        /// (selfheal/lite): the value was checked for syntax only. Absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        validated: Option<False>,
    },
    Err {
        ok: False,
        report: FailureReport,
    },
}

/// `true` as a type, so `Parsed` serialises with a literal `ok` discriminant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct True;
/// `false` as a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct False;

macro_rules! bool_literal {
    ($ty:ident, $v:expr) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bool($v)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                if bool::deserialize(d)? == $v {
                    Ok($ty)
                } else {
                    Err(serde::de::Error::custom(concat!(
                        "expected ",
                        stringify!($v)
                    )))
                }
            }
        }
    };
}
bool_literal!(True, true);
bool_literal!(False, false);

impl Parsed {
    pub fn ok(value: Value, fixes: Vec<Fix>, text: String) -> Parsed {
        Parsed::Ok {
            ok: True,
            value,
            fixes,
            text,
            validated: None,
        }
    }

    pub fn err(report: FailureReport) -> Parsed {
        Parsed::Err { ok: False, report }
    }

    pub fn is_ok(&self) -> bool {
        matches!(self, Parsed::Ok { .. })
    }
}

/// Options of one parse (the JS `ParseOptions`: every field may be left out).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ParseOptions {
    /// Try `repair_json` when strict parsing fails (SPEC default: true).
    pub local_repair: bool,
    /// The provider's stop reason, if the host has it.
    pub stop_reason: Option<String>,
    /// Align a value that fails the schema with it where the intent is plain (SPEC section 9,
    /// default false; `coerce.rs` lists the coercions).
    pub coerce: bool,
    /// A longer reply (in code points) is refused unread (SPEC default: 4,000,000).
    pub max_reply_chars: usize,
}

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions::new()
    }
}

impl ParseOptions {
    pub fn new() -> ParseOptions {
        ParseOptions {
            local_repair: true,
            stop_reason: None,
            coerce: false,
            max_reply_chars: DEFAULT_MAX_REPLY_CHARS,
        }
    }
}

/// SPEC default of `maxReplyChars`.
pub const DEFAULT_MAX_REPLY_CHARS: usize = 4_000_000;
/// A failure report holds at most this many issues, then one saying how many more there were.
pub const MAX_ISSUES: usize = 100;
/// An issue's `path` is clipped to this many code points, on one line.
pub const MAX_PATH_CHARS: usize = 200;
/// An issue's `message` is clipped to this many code points, on one line.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// What a provider's stop reason says about the reply (SPEC section 4, v0.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCategory {
    /// The model finished: absent, `end_turn`, `stop`, `tool_use`, ...
    Complete,
    /// The reply is not all there: `max_tokens`, `length`, `pause_turn`, `incomplete`,
    /// `aborted`, ... and any value not listed. Never completed locally; repaired by reask.
    CutOff,
    /// The provider refused or filtered the reply: `refusal`, `content_filter`, `SAFETY`, ...
    /// Not an answer; the loop does not resend (hard-fail, cause content-filter).
    Refused,
}

/// The stop reasons SPEC lists as complete. An empty string counts as absent.
pub const COMPLETE_STOP_REASONS: [&str; 9] = [
    "end_turn",
    "stop_sequence",
    "stop",
    "tool_use",
    "tool_calls",
    "function_call",
    "STOP",
    "completed",
    "",
];
/// The stop reasons SPEC lists as cut off (any value not listed anywhere counts as cut off too).
pub const CUT_OFF_STOP_REASONS: [&str; 8] = [
    "max_tokens",
    "length",
    "MAX_TOKENS",
    "max_output_tokens",
    "model_context_window_exceeded",
    "pause_turn",
    "incomplete",
    "aborted",
];
/// The stop reasons SPEC lists as refused.
pub const REFUSED_STOP_REASONS: [&str; 7] = [
    "refusal",
    "content_filter",
    "SAFETY",
    "RECITATION",
    "PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
];

/// The category of a stop reason: listed values as SPEC lists them, anything else cut off.
pub fn stop_category(stop_reason: Option<&str>) -> StopCategory {
    match stop_reason {
        None => StopCategory::Complete,
        Some(r) if COMPLETE_STOP_REASONS.contains(&r) => StopCategory::Complete,
        Some(r) if REFUSED_STOP_REASONS.contains(&r) => StopCategory::Refused,
        Some(_) => StopCategory::CutOff,
    }
}

/// Whether the reply must not be taken as complete: cut off, refused, or an unknown stop reason.
pub fn is_cut_off(stop_reason: Option<&str>) -> bool {
    stop_category(stop_reason) != StopCategory::Complete
}

/// A strict reply that is a number with no text after its last digit: cut off there, more
/// digits (or a fraction, an exponent) could have followed.
fn ends_in_number(raw: &str, value: &Value) -> bool {
    value.is_number() && raw.ends_with(|c: char| c.is_ascii_digit())
}

/// `Some(length in code points)` when `raw` is longer than `max` code points. Counts only when
/// the byte length leaves it open (a code point is 1 to 4 bytes).
pub fn reply_too_long(raw: &str, max: usize) -> Option<usize> {
    if raw.len() <= max {
        return None;
    }
    let n = raw.chars().count();
    (n > max).then_some(n)
}

/// How long a reply refused for its size is, in the unit it was measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyLength {
    /// Counted: code points, the unit of `maxReplyChars`.
    Chars(usize),
    /// Measured by JavaScript without reading the text: UTF-16 code units, more than twice
    /// `maxReplyChars` (a code point is one or two units).
    Utf16Units(usize),
}

/// Why a reply was refused for its size: nothing of it was read.
pub fn too_long_detail(length: ReplyLength, max: usize) -> String {
    let length = match length {
        ReplyLength::Chars(n) => format!("has {n} characters"),
        ReplyLength::Utf16Units(n) => format!("is {n} UTF-16 code units long"),
    };
    format!("the reply {length}, above maxReplyChars ({max}); it was not read")
}

/// The report for a reply refused for its size (see [`too_long_detail`]).
pub fn too_long_report(length: ReplyLength, max: usize) -> FailureReport {
    FailureReport::single(FailureKind::Truncated, too_long_detail(length, max))
}

/// Parse one reply against an optional schema (SPEC section 4). A value accepted against a
/// schema this build does not validate (selfheal/lite) says `validated: false`.
pub fn parse(raw: &str, schema: Option<&CompiledSchema>, options: &ParseOptions) -> Parsed {
    // Every validation of the reply, its candidates and their coercions, is one call's pattern
    // matching (DESIGN.md, "Patterns").
    let mut parsed = schema::engine::one_call(|| parse_checked(raw, schema, options));
    if let Parsed::Ok { validated, .. } = &mut parsed {
        if schema.is_some_and(|s| !s.validates()) {
            *validated = Some(False);
        }
    }
    parsed
}

fn parse_checked(raw: &str, schema: Option<&CompiledSchema>, options: &ParseOptions) -> Parsed {
    if let Some(chars) = reply_too_long(raw, options.max_reply_chars) {
        return Parsed::err(too_long_report(
            ReplyLength::Chars(chars),
            options.max_reply_chars,
        ));
    }
    if raw.trim().is_empty() {
        return Parsed::err(FailureReport::single(
            FailureKind::Empty,
            "the reply is empty",
        ));
    }
    let stop = options.stop_reason.as_deref();
    let truncated = is_cut_off(stop);
    let syntax_error = match selfheal_hot::parse_value(raw) {
        Ok(value) => {
            return match (schema, schema.and_then(|s| s.validate(&value))) {
                // A number at the very end of a cut-off text may be the start of a longer one
                // ("12" of "125"): not complete, so not accepted (SPEC section 8's rule).
                (_, None) if truncated && ends_in_number(raw, &value) => {
                    Parsed::err(truncated_report(stop, None))
                }
                (_, None) => Parsed::ok(value, Vec::new(), raw.to_string()),
                (_, Some(report)) if truncated => {
                    Parsed::err(truncated_report(stop, None).merge(report))
                }
                // Coercion, or a JSON string holding the object the schema wants.
                (Some(schema), Some(report)) => {
                    align::strict_failed(value, raw, schema, options, report)
                }
                (None, Some(report)) => Parsed::err(report),
            };
        }
        Err(e) => e,
    };
    if truncated {
        return Parsed::err(truncated_report(stop, Some(&syntax_error)));
    }
    let syntax = FailureReport::single(FailureKind::JsonSyntax, syntax_message(&syntax_error));
    if !options.local_repair {
        return Parsed::err(syntax);
    }
    // Every candidate value in the reply, the first that passes the schema (align.rs).
    align::choose(raw, schema, options.coerce, syntax)
}

/// The report of a reply whose stop reason says it is not all there (without a schema too).
pub fn cut_off_report(stop_reason: Option<&str>) -> FailureReport {
    truncated_report(stop_reason, None)
}

fn truncated_report(stop: Option<&str>, syntax_error: Option<&serde_json::Error>) -> FailureReport {
    let what = match (stop_category(stop), stop) {
        (StopCategory::Refused, Some(r)) => format!(
            "the provider stopped the reply ({}): it is not an answer",
            one_line(r, 40)
        ),
        // The two a host gives for a stream (SPEC section 8).
        (_, Some("aborted")) => "the reply was cut off: the host aborted the stream".to_string(),
        (_, Some("incomplete")) => {
            "the reply was cut off: the stream ended without its final event".to_string()
        }
        (_, Some(r)) if CUT_OFF_STOP_REASONS.contains(&r) => {
            "the reply was cut off at the output limit".to_string()
        }
        (_, Some(r)) => format!(
            "the reply did not finish (stop reason {:?})",
            one_line(r, 40)
        ),
        (_, None) => "the reply did not finish".to_string(),
    };
    let message = match syntax_error {
        Some(e) => format!("{what} ({})", syntax_message(e)),
        None => what,
    };
    FailureReport::single(FailureKind::Truncated, message)
}

pub(crate) fn syntax_message(e: &serde_json::Error) -> String {
    format!("invalid JSON: {e}")
}

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
pub mod fix;
pub mod repair;
pub mod schema;
mod schema_doc;
pub mod stream;
mod subschema;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use fix::Fix;
pub use repair::{repair_json, Repaired};
pub use schema::{CompiledSchema, SchemaCache, SchemaError, SchemaOptions};

/// What kind of failure a reply had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    Empty,
    JsonSyntax,
    Schema,
    Truncated,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Empty => "empty",
            FailureKind::JsonSyntax => "json-syntax",
            FailureKind::Schema => "schema",
            FailureKind::Truncated => "truncated",
        }
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
        }
    }

    pub fn err(report: FailureReport) -> Parsed {
        Parsed::Err { ok: False, report }
    }

    pub fn is_ok(&self) -> bool {
        matches!(self, Parsed::Ok { .. })
    }
}

/// Options of one parse.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Try `repair_json` when strict parsing fails (SPEC default: true).
    pub local_repair: bool,
    /// The provider's stop reason, if the host has it.
    pub stop_reason: Option<String>,
    /// Align a value that fails the schema with it where the intent is plain (SPEC section 9,
    /// default false; `coerce.rs` lists the coercions).
    pub coerce: bool,
}

impl ParseOptions {
    pub fn new() -> ParseOptions {
        ParseOptions {
            local_repair: true,
            stop_reason: None,
            coerce: false,
        }
    }
}

/// Stop reasons that mean the reply hit the output limit.
pub fn is_cut_off(stop_reason: Option<&str>) -> bool {
    matches!(stop_reason, Some("max_tokens" | "length" | "MAX_TOKENS"))
}

/// Parse one reply against an optional schema (SPEC section 4).
pub fn parse(raw: &str, schema: Option<&CompiledSchema>, options: &ParseOptions) -> Parsed {
    if raw.trim().is_empty() {
        return Parsed::err(FailureReport::single(
            FailureKind::Empty,
            "the reply is empty",
        ));
    }
    let truncated = is_cut_off(options.stop_reason.as_deref());
    let syntax_error = match serde_json::from_str::<Value>(raw) {
        Ok(value) => {
            return match (schema, schema.and_then(|s| s.validate(&value))) {
                (_, None) => Parsed::ok(value, Vec::new(), raw.to_string()),
                (_, Some(report)) if truncated => Parsed::err(truncated_report(None).merge(report)),
                // Coercion, or a JSON string holding the object the schema wants.
                (Some(schema), Some(report)) => {
                    align::strict_failed(value, raw, schema, options.coerce, report)
                }
                (None, Some(report)) => Parsed::err(report),
            };
        }
        Err(e) => e,
    };
    if truncated {
        return Parsed::err(truncated_report(Some(&syntax_error)));
    }
    let syntax = FailureReport::single(FailureKind::JsonSyntax, syntax_message(&syntax_error));
    if !options.local_repair {
        return Parsed::err(syntax);
    }
    // Every candidate value in the reply, the first that passes the schema (align.rs).
    align::choose(raw, schema, options.coerce, syntax)
}

fn truncated_report(syntax_error: Option<&serde_json::Error>) -> FailureReport {
    let message = match syntax_error {
        Some(e) => format!(
            "the reply was cut off at the output limit ({})",
            syntax_message(e)
        ),
        None => "the reply was cut off at the output limit".to_string(),
    };
    FailureReport::single(FailureKind::Truncated, message)
}

pub(crate) fn syntax_message(e: &serde_json::Error) -> String {
    format!("invalid JSON: {e}")
}

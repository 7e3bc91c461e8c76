//! The records js/snippets/gather.js writes about a thrown value and an outcome (SPEC section 3),
//! read from its JSON text. Here rather than in the wasm layer (src/wasm/read.rs calls the
//! gatherer) because they are on the path of every error outcome: this crate is compiled for
//! speed.

use crate::classify::ErrorInfo;

/// A string or a finite number, as js/snippets/gather.js keeps them. By hand, not `untagged`:
/// that buffers each value and builds an error for every number it first tries as a string,
/// on the path of every error outcome.
enum Scalar {
    Text(String),
    Number(f64),
}

impl<'de> serde::Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Text(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v as f64))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v as f64))
            }
        }
        d.deserialize_any(V)
    }
}

impl Scalar {
    fn into_string(self) -> String {
        match self {
            Scalar::Text(s) => s,
            Scalar::Number(n) => n.to_string(),
        }
    }

    fn status(&self) -> Option<u16> {
        let n = match self {
            Scalar::Number(n) => *n,
            Scalar::Text(s) => s.trim().parse::<f64>().ok()?,
        };
        (n.fract() == 0.0 && (100.0..=999.0).contains(&n)).then_some(n as u16)
    }
}

/// What js/snippets/gather.js reads (`gatherError`), by name. Each list holds its places in the order
/// the gatherer reads them; see `ErrorInfo` for what each place is. The gatherer leaves out
/// empty, false and null fields: they are the defaults here.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Gathered {
    present: bool,
    name: Option<String>,
    class_name: Option<String>,
    /// `status`, `statusCode`, `response.status`, `$metadata.httpStatusCode`.
    status: Vec<Scalar>,
    /// 4xx/5xx numbers in `code` / `error.code` places: the status when there is no other.
    body_status: Vec<f64>,
    status_texts: Vec<String>,
    types: Vec<String>,
    codes: Vec<Scalar>,
    messages: Vec<String>,
    cause_names: Vec<String>,
    retryable: bool,
    overloaded: bool,
    flagged: bool,
    headers: Vec<(String, Scalar)>,
}

impl From<Gathered> for ErrorInfo {
    fn from(g: Gathered) -> ErrorInfo {
        // Without `..`: a field added to the record must be placed here.
        let Gathered {
            present,
            name,
            class_name,
            status,
            body_status,
            status_texts,
            types,
            codes,
            messages,
            cause_names,
            retryable,
            overloaded,
            flagged,
            headers,
        } = g;
        let body_status = || {
            body_status
                .iter()
                .map(|n| Scalar::Number(*n))
                .find_map(|s| s.status().filter(|s| (400..=599).contains(s)))
        };
        ErrorInfo {
            present,
            name,
            class_name,
            status: status.iter().find_map(Scalar::status).or_else(body_status),
            headers: headers
                .into_iter()
                .map(|(name, value)| (name.to_ascii_lowercase(), value.into_string()))
                .collect(),
            types,
            codes: codes.into_iter().map(Scalar::into_string).collect(),
            messages,
            status_texts,
            cause_names,
            retryable,
            overloaded,
            flagged,
        }
    }
}

/// How `next(outcome)` starts, as js/snippets/gather.js `startOutcome` reports it.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Start {
    #[serde(rename = "as")]
    tag: StartTag,
    #[serde(default)]
    cost_usd: f64,
    #[serde(default)]
    error: Gathered,
    kind: Option<OutcomeKind>,
}

/// `outcome.kind`, by its serde names.
#[derive(Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    Reply,
    Error,
    Rejected,
    Invalid,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum StartTag {
    Error,
    Kind,
    Fields,
}

/// How reading an outcome starts (one crossing).
// Made once per outcome and taken apart at once: a Box would allocate on the path of every
// error outcome for nothing.
#[allow(clippy::large_enum_variant)]
pub enum OutcomeStart {
    /// `{kind: "error", error, costUsd?}` with a valid cost, read whole.
    Error(ErrorInfo, f64),
    /// "reply", "rejected" or "invalid": the kind, read once; the rest is read field by field.
    Kind(OutcomeKind),
    /// Anything else: read it all field by field (with its errors for bad fields).
    Unread,
}

/// `gatherError`'s text as an [`ErrorInfo`]; `None` if it is not the record (not reachable by
/// design: the gatherer catches everything and only emits what this reads).
pub fn error_info(text: &str) -> Option<ErrorInfo> {
    serde_json::from_str::<Gathered>(text).ok().map(Into::into)
}

/// `startOutcome`'s text as an [`OutcomeStart`] (anything unreadable: [`OutcomeStart::Unread`]).
pub fn outcome_start(text: &str) -> OutcomeStart {
    let start = serde_json::from_str::<Start>(text).ok();
    match start {
        Some(Start {
            tag: StartTag::Error,
            cost_usd,
            error,
            ..
        }) => OutcomeStart::Error(error.into(), cost_usd),
        Some(Start {
            tag: StartTag::Kind,
            kind: Some(kind),
            ..
        }) => OutcomeStart::Kind(kind),
        _ => OutcomeStart::Unread,
    }
}

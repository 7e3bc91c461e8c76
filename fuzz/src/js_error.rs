//! What JavaScript throws at `classify`, as `arbitrary` values, and what js/snippets/gather.js
//! reads of them: the fuzz targets' stand-in for the gatherer (`JsThrown::to_error_info`), and
//! the place of every field on the thrown object (`JsThrown::layout`). tests/gather_model.rs
//! builds each layout as a real JS object in Node, gathers it with the shipped snippet and holds
//! the `ErrorInfo` it sends to `to_error_info`'s, so the model cannot drift from the reader.
//!
//! Shared by the fuzz crate (`pub use` in lib.rs) and that native test (`#[path]`).

use arbitrary::Arbitrary;
use selfheal::{ErrorInfo, Validation};
use serde_json::{json, Map, Value};

/// `list[i % len]`.
pub fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list.get(usize::from(i) % list.len().max(1))
        .copied()
        .unwrap_or("")
}

/// A string field: one of the words the decision table knows, or anything.
#[derive(Arbitrary, Debug, Clone)]
pub enum Word {
    Known(u8),
    Free(String),
}

impl Word {
    pub fn resolve(&self, known: &[&str]) -> String {
        match self {
            Word::Known(i) => pick(known, *i).to_string(),
            Word::Free(s) => s.clone(),
        }
    }
}

/// What a JS property can hold where the reader wants a number or a string.
#[derive(Arbitrary, Debug, Clone)]
pub enum Scalar {
    Number(f64),
    Text(Word),
    /// Something else (an object, a symbol, a getter that threw): read as absent.
    Other,
}

pub const NAMES: [&str; 14] = [
    "Error",
    "TypeError",
    "AbortError",
    "TimeoutError",
    "APIConnectionError",
    "APIConnectionTimeoutError",
    "APIUserAbortError",
    "RateLimitError",
    "MyAppError",
    "ThrottlingException",
    "ModelNotReadyException",
    "InvalidTokenError",
    "CanceledError",
    "ApiError",
];
/// Google-style status words (`status`, `error.status`).
pub const STATUS_TEXTS: [&str; 6] = [
    "RESOURCE_EXHAUSTED",
    "UNAVAILABLE",
    "DEADLINE_EXCEEDED",
    "INVALID_ARGUMENT",
    "CANCELLED",
    "",
];
pub const STATUSES: [&str; 22] = [
    "429", "529", "503", "500", "502", "408", "409", "501", "505", "401", "403", "404", "413",
    "400", "422", "418", "200", "99", "1000", "429.5", " 503 ", "-1",
];
pub const HEADER_NAMES: [&str; 7] = [
    "retry-after",
    "retry-after-ms",
    "x-should-retry",
    "Retry-After",
    "RETRY-AFTER-MS",
    "x-request-id",
    "x-amzn-errortype",
];
pub const HEADER_VALUES: [&str; 16] = [
    "2",
    "0.5",
    "1500",
    "-3",
    "1e3",
    "1e400",
    "inf",
    "NaN",
    "0x10",
    "true",
    "false",
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "Fri, 31 Dec 9999 23:59:59 GMT",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "",
    " 7 ",
];
pub const TYPES: [&str; 12] = [
    "error",
    "overloaded_error",
    "rate_limit_error",
    "api_error",
    "server_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
    "request_too_large",
    "invalid_request_error",
    "insufficient_quota",
    "",
];
pub const CODES: [&str; 17] = [
    "ETIMEDOUT",
    "UND_ERR_CONNECT_TIMEOUT",
    "UND_ERR_HEADERS_TIMEOUT",
    "UND_ERR_BODY_TIMEOUT",
    "ECONNRESET",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "EPIPE",
    "ECONNABORTED",
    "UND_ERR_SOCKET",
    "insufficient_quota",
    "context_length_exceeded",
    // Appended (committed seeds pick words by index): axios, Azure, Groq.
    "ERR_NETWORK",
    "ERR_CANCELED",
    "content_filter",
    "capacity_exceeded",
];
pub const MESSAGES: [&str; 9] = [
    "fetch failed",
    "Failed to fetch",
    "NetworkError when attempting to fetch resource.",
    "Load failed",
    "Network connection lost.",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "This model's maximum context length is 8192 tokens",
    "line one\nline two\r\u{2028}line three\u{2029}\u{85}",
    "",
];
pub const VALIDATION_KINDS: [&str; 6] = [
    "json",
    "json-syntax",
    "syntax",
    "schema",
    "truncated",
    "semantic",
];

/// A JS value thrown at `classify`, as the wasm layer would see it: `null`,
/// a bare string, or an object with the fields SPEC section 3 reads, each of
/// which may be absent or of the wrong type.
#[derive(Arbitrary, Debug, Clone)]
pub enum JsThrown {
    Nullish,
    BareString(String),
    Object(Box<JsErrorObject>),
}

/// The places js/snippets/gather.js reads, each where [`JsThrown::layout`] puts it on the object.
#[derive(Arbitrary, Debug, Clone, Default)]
pub struct JsErrorObject {
    /// `name`, `constructor.name` (absent: the object has no prototype).
    pub name: Option<Word>,
    pub constructor_name: Option<Word>,
    /// `status` (a string is a status word too), `statusCode`, `response.status`, the AWS SDK's
    /// `$metadata.httpStatusCode`: the first that is a status.
    pub status: Option<Scalar>,
    pub status_code: Option<Scalar>,
    pub response_status: Option<Scalar>,
    pub aws_status: Option<Scalar>,
    /// `headers`, as a `Map` (one value per name, the first name's place); the reader caps the count.
    pub headers: Vec<(Word, Scalar)>,
    /// Google-style status words at `error.status` and `error.error.status`.
    pub error_status: Option<Word>,
    pub error_error_status: Option<Word>,
    /// `error.type`, `error.error.type`, `type`.
    pub error_type: Option<Word>,
    pub error_error_type: Option<Word>,
    pub type_: Option<Word>,
    /// `code`, `cause.code`, `error.code`, `error.error.code`; a 4xx/5xx number among the
    /// first, third and fourth is the status when no other place gives one.
    pub code: Option<Scalar>,
    pub cause_code: Option<Scalar>,
    pub error_code: Option<Scalar>,
    pub error_error_code: Option<Scalar>,
    /// `cause.cause.code`, `cause.cause.cause.code`, …: the reader goes three levels down.
    pub deeper_codes: Vec<Scalar>,
    /// `message`, `error.message`, `error.error.message`.
    pub message: Option<Word>,
    pub error_message: Option<Word>,
    pub error_error_message: Option<Word>,
    /// `body.code`: an error body kept on the error (Cohere's SDK), read after SPEC's places.
    pub body_code: Option<f64>,
    /// `cause.name`, `cause.cause.name`, `reason.name`.
    pub cause_names: Vec<Word>,
    /// The Workers flags (`retryable: true`, `overloaded: true`), OpenRouter's moderation
    /// metadata (`metadata.flagged_input`).
    pub retryable: bool,
    pub overloaded: bool,
    pub flagged: bool,
}

/// `statusOf` in js/snippets/gather.js: a whole number in 100..=999, from a number or a numeric string.
fn status_of(s: &Scalar) -> Option<u16> {
    let n = match s {
        Scalar::Number(n) => *n,
        Scalar::Text(w) => w.resolve(&STATUSES).trim().parse::<f64>().ok()?,
        Scalar::Other => return None,
    };
    (n.fract() == 0.0 && (100.0..=999.0).contains(&n)).then_some(n as u16)
}

/// `isHttpStatus` in js/snippets/gather.js: a whole number in 400..=599 (a number only).
fn http_status(s: Option<&Scalar>) -> Option<u16> {
    match s {
        Some(Scalar::Number(n)) if n.fract() == 0.0 && (400.0..=599.0).contains(n) => {
            Some(*n as u16)
        }
        _ => None,
    }
}

/// `text` in js/snippets/gather.js: a string, or a finite number as Rust prints it (JS prints the
/// same digits, but where two 17-digit texts are equally near the number: the same number then).
fn scalar_string(s: &Scalar, known: &[&str]) -> Option<String> {
    match s {
        Scalar::Number(n) if n.is_finite() => Some(n.to_string()),
        Scalar::Number(_) | Scalar::Other => None,
        Scalar::Text(w) => Some(w.resolve(known)),
    }
}

impl JsErrorObject {
    /// The headers as a JS `Map` holds them: one entry per name, at its first place, with its
    /// last value.
    fn header_entries(&self) -> Vec<(String, &Scalar)> {
        let mut entries: Vec<(String, &Scalar)> = Vec::new();
        for (k, v) in &self.headers {
            let k = k.resolve(&HEADER_NAMES);
            match entries.iter_mut().find(|(name, _)| *name == k) {
                Some(entry) => entry.1 = v,
                None => entries.push((k, v)),
            }
        }
        entries
    }
}

impl JsThrown {
    /// What js/snippets/gather.js `gatherError` makes of this value.
    pub fn to_error_info(&self) -> ErrorInfo {
        let o = match self {
            JsThrown::Nullish => return ErrorInfo::default(),
            JsThrown::BareString(s) => {
                return ErrorInfo {
                    present: true,
                    messages: vec![s.clone()],
                    ..ErrorInfo::default()
                }
            }
            JsThrown::Object(o) => o,
        };
        let words = |w: &[&Option<Word>], known: &[&str]| -> Vec<String> {
            w.iter()
                .filter_map(|w| w.as_ref().map(|w| w.resolve(known)))
                .collect()
        };
        let mut codes: Vec<String> = [&o.code, &o.cause_code, &o.error_code, &o.error_error_code]
            .iter()
            .filter_map(|c| c.as_ref().and_then(|c| scalar_string(c, &CODES)))
            .collect();
        codes.extend(
            o.deeper_codes
                .iter()
                .take(3)
                .filter_map(|c| scalar_string(c, &CODES)),
        );
        let body_code = o.body_code.map(Scalar::Number);
        codes.extend(body_code.as_ref().and_then(|c| scalar_string(c, &[])));
        let mut status_texts = match &o.status {
            Some(Scalar::Text(w)) => vec![w.resolve(&STATUSES)],
            _ => Vec::new(),
        };
        status_texts.extend(words(
            &[&o.error_status, &o.error_error_status],
            &STATUS_TEXTS,
        ));
        ErrorInfo {
            present: true,
            name: o.name.as_ref().map(|w| w.resolve(&NAMES)),
            class_name: o.constructor_name.as_ref().map(|w| w.resolve(&NAMES)),
            status: [&o.status, &o.status_code, &o.response_status, &o.aws_status]
                .iter()
                .find_map(|s| s.as_ref().and_then(status_of))
                .or_else(|| {
                    [&o.code, &o.error_code, &o.error_error_code, &body_code]
                        .iter()
                        .find_map(|c| http_status(c.as_ref()))
                }),
            headers: o
                .header_entries()
                .into_iter()
                .take(256)
                .filter_map(|(k, v)| {
                    scalar_string(v, &HEADER_VALUES).map(|v| (k.to_ascii_lowercase(), v))
                })
                .collect(),
            types: words(&[&o.error_type, &o.error_error_type, &o.type_], &TYPES),
            codes,
            messages: words(
                &[&o.message, &o.error_message, &o.error_error_message],
                &MESSAGES,
            ),
            status_texts,
            cause_names: o
                .cause_names
                .iter()
                .take(3)
                .map(|w| w.resolve(&NAMES))
                .collect(),
            retryable: o.retryable,
            overloaded: o.overloaded,
            flagged: o.flagged,
        }
    }

    /// The thrown value as JSON for tests/js/gather_model_driver.mjs, which builds it: objects
    /// without a prototype (own properties only), `{"$num": "NaN"}` for a number JSON cannot
    /// hold (NaN, ±Infinity, -0), `{"$sym": 0}` for a symbol (a value the reader drops), `{"$map":
    /// [[name, value], …]}` for a `Map`.
    pub fn layout(&self) -> Value {
        let o = match self {
            JsThrown::Nullish => return Value::Null,
            JsThrown::BareString(s) => return json!(s),
            JsThrown::Object(o) => o,
        };
        // The objects the places are on: the error, `error.error`, `error.error.error`, `cause`.
        const ERROR: usize = 0;
        const INNER: usize = 1;
        const INNER2: usize = 2;
        const CAUSE: usize = 3;
        let mut objects: [Map<String, Value>; 4] = Default::default();
        let words: [(usize, &str, &Option<Word>, &[&str]); 9] = [
            (ERROR, "name", &o.name, &NAMES),
            (ERROR, "type", &o.type_, &TYPES),
            (ERROR, "message", &o.message, &MESSAGES),
            (INNER, "status", &o.error_status, &STATUS_TEXTS),
            (INNER, "type", &o.error_type, &TYPES),
            (INNER, "message", &o.error_message, &MESSAGES),
            (INNER2, "status", &o.error_error_status, &STATUS_TEXTS),
            (INNER2, "type", &o.error_error_type, &TYPES),
            (INNER2, "message", &o.error_error_message, &MESSAGES),
        ];
        let scalars: [(usize, &str, &Option<Scalar>, &[&str]); 6] = [
            (ERROR, "status", &o.status, &STATUSES),
            (ERROR, "statusCode", &o.status_code, &STATUSES),
            (ERROR, "code", &o.code, &CODES),
            (INNER, "code", &o.error_code, &CODES),
            (INNER2, "code", &o.error_error_code, &CODES),
            (CAUSE, "code", &o.cause_code, &CODES),
        ];
        let places = words
            .iter()
            .map(|&(at, key, w, known)| (at, key, w.as_ref().map(|w| json!(w.resolve(known)))))
            .chain(
                scalars
                    .iter()
                    .map(|&(at, key, s, known)| (at, key, s.as_ref().map(|s| s.layout(known)))),
            );
        for (at, key, value) in places {
            if let (Some(object), Some(value)) = (objects.get_mut(at), value) {
                object.insert(key.into(), value);
            }
        }
        let [mut error, inner, inner2, mut cause] = objects;
        let word = |w: &Word, known: &[&str]| json!(w.resolve(known));
        let put = |obj: &mut Map<String, Value>, key: &str, v: Option<Value>| {
            if let Some(v) = v {
                obj.insert(key.to_string(), v);
            }
        };
        // Places one level down, each on an object of its own.
        let nested = [
            (
                "constructor",
                "name",
                o.constructor_name.as_ref().map(|w| word(w, &NAMES)),
            ),
            (
                "response",
                "status",
                o.response_status.as_ref().map(|s| s.layout(&STATUSES)),
            ),
            (
                "$metadata",
                "httpStatusCode",
                o.aws_status.as_ref().map(|s| s.layout(&STATUSES)),
            ),
            (
                "body",
                "code",
                o.body_code.map(|n| Scalar::Number(n).layout(&[])),
            ),
        ];
        for (outer, key, value) in nested {
            put(&mut error, outer, value.map(|v| json!({ key: v })));
        }
        if !o.headers.is_empty() {
            let pairs: Vec<Value> = o
                .headers
                .iter()
                .map(|(k, v)| json!([word(k, &HEADER_NAMES), v.layout(&HEADER_VALUES)]))
                .collect();
            error.insert("headers".into(), json!({ "$map": pairs }));
        }
        if o.retryable {
            error.insert("retryable".into(), json!(true));
        }
        if o.overloaded {
            error.insert("overloaded".into(), json!(true));
        }
        if o.flagged {
            error.insert("metadata".into(), json!({ "flagged_input": "flagged" }));
        }
        // The cause chain: cause.name and cause.code, then one level per deeper code, the
        // second cause name on the first of them; the third name is `reason.name`.
        let mut names = o.cause_names.iter().map(|w| word(w, &NAMES));
        put(&mut cause, "name", names.next());
        let second = names.next();
        put(
            &mut error,
            "reason",
            names.next().map(|n| json!({ "name": n })),
        );
        let mut levels: Vec<Map<String, Value>> = o
            .deeper_codes
            .iter()
            .map(|c| Map::from_iter([("code".to_string(), c.layout(&CODES))]))
            .collect();
        if let Some(name) = second {
            if levels.is_empty() {
                levels.push(Map::new());
            }
            if let Some(first) = levels.first_mut() {
                first.insert("name".into(), name);
            }
        }
        let deeper = levels.into_iter().rev().fold(None, |below, mut level| {
            put(&mut level, "cause", below);
            Some(Value::Object(level))
        });
        put(&mut cause, "cause", deeper);
        for (key, obj) in [("cause", cause), ("error", inner)] {
            if !obj.is_empty() {
                error.insert(key.into(), Value::Object(obj));
            }
        }
        if !inner2.is_empty() {
            let inner = error
                .entry("error")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = inner {
                inner.insert("error".into(), Value::Object(inner2));
            }
        }
        Value::Object(error)
    }
}

impl Scalar {
    /// The value for [`JsThrown::layout`].
    fn layout(&self, known: &[&str]) -> Value {
        match self {
            Scalar::Number(n) if n.is_finite() && !(*n == 0.0 && n.is_sign_negative()) => json!(n),
            Scalar::Number(n) if n.is_nan() => json!({ "$num": "NaN" }),
            Scalar::Number(n) if n.is_infinite() => {
                json!({ "$num": if *n > 0.0 { "Infinity" } else { "-Infinity" } })
            }
            Scalar::Number(_) => json!({ "$num": "-0" }),
            Scalar::Text(w) => json!(w.resolve(known)),
            Scalar::Other => json!({ "$sym": 0 }),
        }
    }
}

/// `classify`'s second argument.
#[derive(Arbitrary, Debug, Clone)]
pub struct JsValidation {
    pub ok: bool,
    pub kind: Option<Word>,
    pub detail: Option<String>,
}

impl JsValidation {
    pub fn to_validation(&self) -> Validation {
        Validation {
            ok: self.ok,
            kind: self.kind.as_ref().map(|k| k.resolve(&VALIDATION_KINDS)),
            detail: self.detail.clone(),
        }
    }
}

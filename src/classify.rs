//! `classify`: the decision table of SPEC section 3, first match wins.
//!
//! The core never sees a JavaScript value. The wasm layer reads the thrown
//! value into an [`ErrorInfo`] (a plain description of the fields the table
//! looks at) and this module decides. Reading is the host layer's job; the
//! policy lives here so it can be tested natively and read without any glue.

use serde::{Deserialize, Serialize};

/// The four classes, each with its own budget in the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorClass {
    /// Wait and resend the same prompt (429, 529, 5xx, network, timeouts).
    Transient,
    /// The reply was broken in shape (bad JSON, schema mismatch, cut off, rejected): send one repair prompt.
    Repairable,
    /// The shape was fine but the content was wrong: switch to the alternate prompt once.
    SemanticInvalid,
    /// Stop at once: retrying cannot help (auth, bad request, anything unrecognised).
    HardFail,
}

impl ErrorClass {
    pub const ALL: [ErrorClass; 4] = [
        ErrorClass::Transient,
        ErrorClass::Repairable,
        ErrorClass::SemanticInvalid,
        ErrorClass::HardFail,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Transient => "transient",
            ErrorClass::Repairable => "repairable",
            ErrorClass::SemanticInvalid => "semantic-invalid",
            ErrorClass::HardFail => "hard-fail",
        }
    }
}

/// Why, more precisely than the class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    RateLimited,
    Overloaded,
    ServerError,
    Timeout,
    Network,
    Conflict,
    QuotaExhausted,
    Auth,
    BadRequest,
    NotFound,
    TooLarge,
    ContextOverflow,
    Unsupported,
    Aborted,
    /// The provider refused or filtered the reply (a content filter, a refusal stop reason).
    ContentFilter,
    JsonSyntax,
    Schema,
    Truncated,
    Empty,
    Rejected,
    Semantic,
    Unknown,
}

/// Which signal of the error decided the classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Signal {
    XShouldRetry,
    Status,
    ErrorType,
    Code,
    Message,
    Validation,
    StopReason,
    None,
}

/// The result of classification, as it crosses the boundary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Classified {
    pub class: ErrorClass,
    pub cause: Cause,
    /// One line, English, for people and logs.
    pub reason: String,
    pub signal: Signal,
    /// The wait the server asked for, in milliseconds.
    pub retry_after_ms: Option<f64>,
}

impl Classified {
    pub fn new(class: ErrorClass, cause: Cause, signal: Signal, reason: impl Into<String>) -> Self {
        Classified {
            class,
            cause,
            reason: reason.into(),
            signal,
            retry_after_ms: None,
        }
    }
}

/// The host's own verdict on a value (`classify`'s second argument).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validation {
    pub ok: bool,
    pub kind: Option<String>,
    pub detail: Option<String>,
}

/// What the decision table reads from a thrown or returned error.
///
/// Every field is optional: a field the host layer could not read (absent,
/// a getter that threw, a revoked `Proxy`) is simply `None`. Candidates are
/// kept in the order SPEC section 3 lists their paths.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ErrorInfo {
    /// False when the error itself was `null`/`undefined`.
    pub present: bool,
    /// `error.name` (own or inherited, as JS reads it).
    pub name: Option<String>,
    /// `error.constructor.name`: SDKs name their error classes even where `name` stays "Error".
    pub class_name: Option<String>,
    /// From `status`, `statusCode`, `response.status`, first found.
    pub status: Option<u16>,
    /// Header names lower-cased; from `headers` or `response.headers`.
    pub headers: Vec<(String, String)>,
    /// From `error.type`, `error.error.type`, `type`, in that order.
    pub types: Vec<String>,
    /// From `code`, `cause.code`, `error.code`, `error.error.code`, in that order.
    pub codes: Vec<String>,
    /// From `message`, `error.message`, `error.error.message`, in that order.
    pub messages: Vec<String>,
}

impl ErrorInfo {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    }

    /// The first error type that says something. Anthropic bodies wrap the real
    /// type as `{type: "error", error: {type: "overloaded_error"}}`, so the
    /// envelope word `"error"` is skipped in favour of the inner one.
    pub fn error_type(&self) -> Option<&str> {
        self.types
            .iter()
            .map(String::as_str)
            .find(|t| !t.is_empty() && *t != "error")
    }

    pub fn code(&self) -> Option<&str> {
        self.codes
            .iter()
            .map(String::as_str)
            .find(|c| !c.is_empty())
    }

    pub fn message(&self) -> Option<&str> {
        self.messages
            .iter()
            .map(String::as_str)
            .find(|m| !m.is_empty())
    }

    fn has_code_or_type(&self, word: &str) -> bool {
        self.codes
            .iter()
            .chain(self.types.iter())
            .any(|c| c == word)
    }
}

const CONTEXT_OVERFLOW_MARKERS: [&str; 3] = [
    "context_length_exceeded",
    "prompt is too long",
    "maximum context length",
];

const TIMEOUT_CODES: [&str; 4] = [
    "ETIMEDOUT",
    "UND_ERR_CONNECT_TIMEOUT",
    "UND_ERR_HEADERS_TIMEOUT",
    "UND_ERR_BODY_TIMEOUT",
];

const NETWORK_CODES: [&str; 7] = [
    "ECONNRESET",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "EPIPE",
    "ECONNABORTED",
    "UND_ERR_SOCKET",
];

/// The messages fetch implementations put on the `TypeError` they throw for a
/// network failure (undici, Chromium, Firefox, Safari, Workers).
const FETCH_NETWORK_MESSAGES: [&str; 5] = [
    "fetch failed",
    "Failed to fetch",
    "NetworkError when attempting to fetch resource.",
    "Load failed",
    "Network connection lost.",
];

/// Error types without a status (rule 6), as data.
const TYPE_TABLE: [(&str, ErrorClass, Cause); 8] = [
    ("overloaded_error", ErrorClass::Transient, Cause::Overloaded),
    (
        "rate_limit_error",
        ErrorClass::Transient,
        Cause::RateLimited,
    ),
    ("api_error", ErrorClass::Transient, Cause::ServerError),
    // OpenAI's name for the same thing (a mid-stream error chunk has no status).
    ("server_error", ErrorClass::Transient, Cause::ServerError),
    ("authentication_error", ErrorClass::HardFail, Cause::Auth),
    ("permission_error", ErrorClass::HardFail, Cause::Auth),
    ("not_found_error", ErrorClass::HardFail, Cause::NotFound),
    ("request_too_large", ErrorClass::HardFail, Cause::TooLarge),
];

/// Classify an error (and/or a failed validation) at time `now` (ms since the epoch).
pub fn classify(error: &ErrorInfo, validation: Option<&Validation>, now: f64) -> Classified {
    let mut c = decide(error, validation);
    c.retry_after_ms = retry_after_ms(error, now);
    c
}

fn decide(e: &ErrorInfo, validation: Option<&Validation>) -> Classified {
    use Cause::*;
    use ErrorClass::*;

    // 1. A failed validation.
    if let Some(v) = validation.filter(|v| !v.ok) {
        let kind = v.kind.as_deref().unwrap_or("");
        let detail = v.detail.as_deref().filter(|d| !d.is_empty());
        let (class, cause, what) = match kind {
            "json" | "json-syntax" | "syntax" => {
                (Repairable, JsonSyntax, "the reply is not valid JSON")
            }
            "schema" => (Repairable, Schema, "the reply does not match the schema"),
            "truncated" => (Repairable, Truncated, "the reply was cut off"),
            _ => (
                SemanticInvalid,
                Semantic,
                "the reply failed a content check",
            ),
        };
        let reason = match detail {
            Some(d) => format!("{what}: {}", one_line(d)),
            None => what.to_string(),
        };
        return Classified::new(class, cause, Signal::Validation, reason);
    }

    // 2. Nothing to go on.
    if !e.present {
        return Classified::new(HardFail, Unknown, Signal::None, "no error was given");
    }

    // 3. Abort and timeout by name.
    match e.name.as_deref() {
        Some("AbortError") => {
            return Classified::new(
                HardFail,
                Aborted,
                Signal::ErrorType,
                "the request was aborted",
            )
        }
        Some("TimeoutError") => {
            return Classified::new(
                Transient,
                Timeout,
                Signal::ErrorType,
                "the request timed out",
            )
        }
        _ => {}
    }
    // 3b. The official SDKs' connection errors carry no status and hide the network
    // code behind causes (or have none: a client timeout). Recognised by class.
    if let Some((class, cause, what)) = sdk_connection_error(e) {
        return Classified::new(class, cause, Signal::ErrorType, what);
    }

    // 4. The server says whether to retry.
    if let Some(v) = e.header("x-should-retry") {
        if v.eq_ignore_ascii_case("true") {
            return Classified::new(
                Transient,
                cause_for_status(e.status).unwrap_or(ServerError),
                Signal::XShouldRetry,
                "the server asked for a retry (x-should-retry: true)",
            );
        }
        if v.eq_ignore_ascii_case("false") {
            return Classified::new(
                HardFail,
                hard_cause_for_status(e.status),
                Signal::XShouldRetry,
                "the server said not to retry (x-should-retry: false)",
            );
        }
    }

    // 5. HTTP status. Only 4xx and 5xx are rows of the table; any other status
    // (a 200 carrying a stream error event, say) decides nothing and falls through.
    if let Some(c) = e.status.and_then(|status| by_status(e, status)) {
        return c;
    }

    // 6. Error type without a status (an error event inside a stream).
    if let Some(t) = e.error_type() {
        if let Some((_, class, cause)) = TYPE_TABLE.iter().find(|(name, _, _)| *name == t) {
            return Classified::new(*class, *cause, Signal::ErrorType, format!("error type {t}"));
        }
        if t == "invalid_request_error" {
            let cause = if says_context_overflow(e) {
                ContextOverflow
            } else {
                BadRequest
            };
            return Classified::new(
                HardFail,
                cause,
                Signal::ErrorType,
                format!("error type {t}"),
            );
        }
    }

    // 7. Network codes.
    for code in &e.codes {
        if TIMEOUT_CODES.contains(&code.as_str()) {
            return Classified::new(
                Transient,
                Timeout,
                Signal::Code,
                format!("network timeout ({code})"),
            );
        }
        if NETWORK_CODES.contains(&code.as_str()) {
            return Classified::new(
                Transient,
                Network,
                Signal::Code,
                format!("network error ({code})"),
            );
        }
    }

    // 8. fetch's TypeError. A named error other than TypeError does not count:
    // an application error that happens to say "fetch failed" is not a network fault.
    let fetch_shaped = matches!(e.name.as_deref(), None | Some("TypeError"));
    if fetch_shaped {
        if let Some(m) = e.messages.first() {
            if FETCH_NETWORK_MESSAGES.contains(&m.trim()) {
                return Classified::new(
                    Transient,
                    Network,
                    Signal::Message,
                    format!("network error ({})", m.trim()),
                );
            }
        }
    }

    // 9. Unrecognised means stop.
    let what = e
        .message()
        .map(|m| format!("unrecognised error: {}", one_line(m)))
        .unwrap_or_else(|| "unrecognised error".to_string());
    Classified::new(HardFail, Unknown, Signal::None, what)
}

/// `@anthropic-ai/sdk` and `openai` error classes thrown when no HTTP response arrived.
const SDK_CONNECTION_ERRORS: [(&str, ErrorClass, Cause, &str); 3] = [
    (
        "APIConnectionTimeoutError",
        ErrorClass::Transient,
        Cause::Timeout,
        "the SDK's request timed out",
    ),
    (
        "APIConnectionError",
        ErrorClass::Transient,
        Cause::Network,
        "the SDK could not connect",
    ),
    (
        "APIUserAbortError",
        ErrorClass::HardFail,
        Cause::Aborted,
        "the request was aborted",
    ),
];

fn sdk_connection_error(e: &ErrorInfo) -> Option<(ErrorClass, Cause, &'static str)> {
    if e.status.is_some() {
        return None;
    }
    let names = [e.name.as_deref(), e.class_name.as_deref()];
    SDK_CONNECTION_ERRORS
        .iter()
        .find(|(n, ..)| names.contains(&Some(*n)))
        .map(|(_, class, cause, what)| (*class, *cause, *what))
}

fn by_status(e: &ErrorInfo, status: u16) -> Option<Classified> {
    use Cause::*;
    use ErrorClass::*;
    let (class, cause) = match status {
        429 if e.has_code_or_type("insufficient_quota") => (HardFail, QuotaExhausted),
        429 => (Transient, RateLimited),
        529 | 503 => (Transient, Overloaded),
        408 => (Transient, Timeout),
        409 => (Transient, Conflict),
        501 | 505 => (HardFail, Unsupported),
        500..=599 => (Transient, ServerError),
        401 | 403 => (HardFail, Auth),
        404 => (HardFail, NotFound),
        413 => (HardFail, TooLarge),
        400 | 422 if says_context_overflow(e) => (HardFail, ContextOverflow),
        400..=499 => (HardFail, BadRequest),
        _ => return None,
    };
    let mut reason = format!("HTTP {status} ({})", cause_words(cause));
    if let Some(m) = e.message() {
        reason.push_str(": ");
        reason.push_str(&one_line(m));
    }
    Some(Classified::new(class, cause, Signal::Status, reason))
}

fn cause_for_status(status: Option<u16>) -> Option<Cause> {
    match status? {
        429 => Some(Cause::RateLimited),
        503 | 529 => Some(Cause::Overloaded),
        408 => Some(Cause::Timeout),
        409 => Some(Cause::Conflict),
        500..=599 => Some(Cause::ServerError),
        _ => None,
    }
}

fn hard_cause_for_status(status: Option<u16>) -> Cause {
    match status {
        Some(401 | 403) => Cause::Auth,
        Some(404) => Cause::NotFound,
        Some(413) => Cause::TooLarge,
        Some(501 | 505) => Cause::Unsupported,
        Some(400..=499) => Cause::BadRequest,
        _ => Cause::Unknown,
    }
}

fn says_context_overflow(e: &ErrorInfo) -> bool {
    e.messages
        .iter()
        .chain(e.types.iter())
        .chain(e.codes.iter())
        .any(|s| {
            let lower = s.to_ascii_lowercase();
            CONTEXT_OVERFLOW_MARKERS.iter().any(|m| lower.contains(m))
        })
}

fn cause_words(cause: Cause) -> &'static str {
    match cause {
        Cause::RateLimited => "rate limited",
        Cause::Overloaded => "overloaded",
        Cause::ServerError => "server error",
        Cause::Timeout => "timeout",
        Cause::Conflict => "conflict",
        Cause::QuotaExhausted => "quota exhausted",
        Cause::Auth => "authentication or permission",
        Cause::NotFound => "not found",
        Cause::TooLarge => "request too large",
        Cause::ContextOverflow => "context too long",
        Cause::Unsupported => "unsupported",
        Cause::ContentFilter => "content filtered",
        _ => "bad request",
    }
}

/// Logs want one line; keep it short too (see [`crate::text::one_line`]).
pub(crate) fn one_line(s: &str) -> String {
    crate::text::one_line(s, 300)
}

/// `retry-after-ms`, else `retry-after` seconds, else `retry-after` as an HTTP-date minus `now`.
pub fn retry_after_ms(e: &ErrorInfo, now: f64) -> Option<f64> {
    if let Some(ms) = e.header("retry-after-ms").and_then(parse_number) {
        return Some(ms.max(0.0));
    }
    let value = e.header("retry-after")?;
    if let Some(secs) = parse_number(value) {
        return Some((secs * 1000.0).max(0.0)).filter(|v| v.is_finite());
    }
    let when = httpdate::parse_http_date(value).ok()?;
    let at = match when.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_millis() as f64,
        Err(_) => 0.0,
    };
    if !now.is_finite() {
        return None;
    }
    Some((at - now).max(0.0))
}

/// A plain decimal number (fractions allowed); no hex, no "inf", no trailing junk.
fn parse_number(s: &str) -> Option<f64> {
    let s = s.trim();
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    if !plain {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

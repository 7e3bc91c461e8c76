//! `classify`: the decision table of SPEC section 3, first match wins.
//!
//! The core never sees a JavaScript value. The wasm layer reads the thrown
//! value into an [`ErrorInfo`] (a plain description of the fields the table
//! looks at) and this module decides. Reading is the host layer's job; the
//! policy lives here so it can be tested natively and read without any glue.
//!
//! The table, in order (SPEC section 3 numbers its rules 1 to 9; the
//! lettered steps are this crate's additions, docs/DESIGN.md says why):
//!
//! | step | looks at                                   | decides                                   |
//! |------|--------------------------------------------|-------------------------------------------|
//! | 1    | a failed validation                        | repairable / semantic-invalid             |
//! | R    | the caller's [`ClassifyRule`]s             | the rule's class (signal `rule`)          |
//! | 2    | nothing given                              | hard-fail / unknown                       |
//! | 3    | the name: an abort caused by a timeout, `AbortError`, `TimeoutError` | [`providers::WEB_PLATFORM`] |
//! | 3b   | the official SDKs' connection error classes | transient or aborted                     |
//! | 4    | `x-should-retry`                           | transient / hard-fail (the status's cause) |
//! | 4b   | a provider's own words: body status strings, exception names, codes, flags ([`providers::PROVIDERS`]) | that provider's meaning |
//! | 5    | the HTTP status (or the status an error body carries) | the status table                |
//! | 6    | the error type without a status            | [`TYPE_TABLE`]                            |
//! | 7    | network codes                              | transient / timeout or network            |
//! | 8    | fetch's failure messages, the runtimes' network failures | transient / network         |
//! | 9    | anything else                              | hard-fail / unknown                       |

use serde::{Deserialize, Serialize};

pub mod providers;
pub mod rules;

pub use rules::{ClassifyRule, RuleError, StatusMatch};

crate::wire_enum! {
/// The four classes, each with its own budget in the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
}

impl ErrorClass {
    pub const ALL: [ErrorClass; 4] = [
        ErrorClass::Transient,
        ErrorClass::Repairable,
        ErrorClass::SemanticInvalid,
        ErrorClass::HardFail,
    ];

    pub fn as_str(self) -> &'static str {
        // The serde name: the derive's rename is the one place it is written.
        crate::wire_name::name_of(&self).unwrap_or_default()
    }
}

crate::wire_enum! {
/// Why, more precisely than the class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
    /// The provider's content filter refused the prompt or the reply: the same prompt would be
    /// filtered again (Azure OpenAI `content_filter`, OpenRouter moderation, refused stop reasons).
    ContentFilter,
    JsonSyntax,
    Schema,
    Truncated,
    Empty,
    Rejected,
    Semantic,
    Unknown,
}
}

crate::wire_enum! {
/// Which signal of the error decided the classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Signal {
    XShouldRetry,
    Status,
    ErrorType,
    Code,
    Message,
    Validation,
    StopReason,
    /// A streamed reply broke its schema before it ended (`RepairLoop::push`, SPEC section 8).
    Stream,
    /// One of the caller's [`ClassifyRule`]s matched.
    Rule,
    None,
}
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
/// a getter that threw, a revoked `Proxy`) is simply `None` or empty. Candidates
/// are kept in the order SPEC section 3 lists their paths, then the places this
/// crate reads beyond it (docs/DESIGN.md "classify"; js/snippets/gather.js says exactly where
/// each one comes from). The gatherer sends it as JSON by these serde names, its empty fields
/// left out.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ErrorInfo {
    /// False when the error itself was `null`/`undefined`.
    pub present: bool,
    /// `error.name` (own or inherited, as JS reads it).
    pub name: Option<String>,
    /// `error.constructor.name`: SDKs name their error classes even where `name` stays "Error".
    pub class_name: Option<String>,
    /// From `status`, `statusCode`, `response.status`, first found; else the AWS SDK's
    /// `$metadata.httpStatusCode`; else the numeric `code` of an error body
    /// (`{error: {code: 429}}`, as Google and OpenRouter send it).
    pub status: Option<u16>,
    /// Header names lower-cased; from `headers` or `response.headers` (or the AI SDK's
    /// `responseHeaders`).
    pub headers: Vec<(String, String)>,
    /// From `error.type`, `error.error.type`, `type`, in that order; then the types in an
    /// error body (`body`, `data`, `response.data`, a JSON body quoted in the message) and
    /// AWS's `__type`.
    pub types: Vec<String>,
    /// From `code`, `cause.code`, `error.code`, `error.error.code`, in that order; then deeper
    /// causes and the codes in an error body.
    pub codes: Vec<String>,
    /// From `message`, `error.message`, `error.error.message`, in that order; then the
    /// messages in an error body.
    pub messages: Vec<String>,
    /// Google-style status words: `status` when it is a string (`"RESOURCE_EXHAUSTED"`),
    /// `error.status`, `error.error.status` and the `status` of an error body.
    pub status_texts: Vec<String>,
    /// The names of what the error wraps: `cause.name`, `cause.cause.name`, `reason.name`
    /// (an SDK's abort error whose cause is `AbortSignal.timeout()`'s `TimeoutError`).
    pub cause_names: Vec<String>,
    /// `retryable === true`: the Workers runtime marks errors it suggests retrying.
    pub retryable: bool,
    /// `overloaded === true`: the Workers runtime marks errors that must not be retried.
    pub overloaded: bool,
    /// The error body says the input was flagged by moderation (OpenRouter's
    /// `metadata.flagged_input` / `metadata.reasons`).
    pub flagged: bool,
}

impl ErrorInfo {
    /// One line for a failure list (`FallbackChain`, `DegradationLadder`): the name, the status
    /// and a code that is a word, then the first message; empty when none of them is known.
    pub fn summary(&self) -> String {
        let mut tags = Vec::new();
        if let Some(status) = self.status {
            tags.push(format!("status {status}"));
        }
        // Numeric codes (DOMException.code, errno) say less than the name beside them.
        let word =
            |c: &&String| !c.is_empty() && !c.bytes().all(|b| b.is_ascii_digit() || b == b'-');
        tags.extend(self.codes.iter().find(word).cloned());
        let mut parts: Vec<String> = self
            .name
            .iter()
            .filter(|n| !n.is_empty())
            .cloned()
            .collect();
        if !tags.is_empty() {
            parts.push(format!("({})", tags.join(", ")));
        }
        let mut out = parts.join(" ");
        if let Some(msg) = self.messages.iter().find(|m| !m.is_empty()) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(msg);
        }
        out
    }

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

    /// The name or class name is `word` (`"ThrottlingException"`, `"APIUserAbortError"`).
    fn is_named(&self, word: &str) -> bool {
        self.name.as_deref() == Some(word) || self.class_name.as_deref() == Some(word)
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

/// Node's socket errors, undici's, and axios' `ERR_NETWORK` (its `AxiosError` for a request
/// that got no response: "Network Error").
const NETWORK_CODES: [&str; 8] = [
    "ECONNRESET",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "EPIPE",
    "ECONNABORTED",
    "UND_ERR_SOCKET",
    "ERR_NETWORK",
];

/// Error types without a status (rule 6), as data.
pub const TYPE_TABLE: [(&str, ErrorClass, Cause); 8] = [
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
    classify_with_rules(error, validation, now, &[])
}

/// [`classify`] with the caller's rules, checked after a failed validation (rule 1) and
/// before everything else; the first rule that matches decides the class (signal `rule`).
/// The rules must have passed [`ClassifyRule::check`].
pub fn classify_with_rules(
    error: &ErrorInfo,
    validation: Option<&Validation>,
    now: f64,
    rules: &[ClassifyRule],
) -> Classified {
    let mut c = match validation.filter(|v| !v.ok) {
        Some(v) => failed_validation(v),
        None => match rules::first_match(rules, error) {
            Some((index, rule)) => rule.apply(index, decide(error)),
            None => decide(error),
        },
    };
    c.retry_after_ms = retry_after_ms(error, now);
    c
}

/// Rule 1: a failed validation.
fn failed_validation(v: &Validation) -> Classified {
    use Cause::*;
    use ErrorClass::*;
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
    Classified::new(class, cause, Signal::Validation, reason)
}

/// Rules 2 to 9, for an error (no failed validation).
fn decide(e: &ErrorInfo) -> Classified {
    use Cause::*;
    use ErrorClass::*;

    // 2. Nothing to go on.
    if !e.present {
        return Classified::new(HardFail, Unknown, Signal::None, "no error was given");
    }

    // 3. Abort and timeout by name. An abort whose reason is a timeout is a timeout: the SDKs
    // throw their abort error with the `TimeoutError` of `AbortSignal.timeout()` as its cause.
    if is_abort(e) && e.cause_names.iter().any(|n| n == "TimeoutError") {
        return Classified::new(
            Transient,
            Timeout,
            Signal::ErrorType,
            "the request timed out (an abort caused by a TimeoutError)",
        );
    }
    if let Some(c) = providers::by_name(e) {
        return c;
    }
    // 3b. The official SDKs' connection errors carry no status and hide the network
    // code behind causes (or have none: a client timeout). Recognised by class.
    if let Some((class, cause, what)) = sdk_connection_error(e) {
        return Classified::new(class, cause, Signal::ErrorType, what);
    }

    // 4. The server says whether to retry. Either way the cause stays what the status
    // says (a 429 the server asks not to retry is still rate-limited).
    if let Some(v) = e.header("x-should-retry") {
        let status_cause = e.status.and_then(|s| status_decision(e, s)).map(|(_, c)| c);
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
                status_cause.unwrap_or(Unknown),
                Signal::XShouldRetry,
                "the server said not to retry (x-should-retry: false)",
            );
        }
    }

    // 4b. A provider's own words: more precise than the status they come with. Where the
    // word means just what the status means, the status decides (step 5, signal `status`).
    if let Some(c) = providers::by_words(e) {
        let status_says = e.status.and_then(|s| status_decision(e, s));
        if status_says != Some((c.class, c.cause)) {
            return c;
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
            return Classified::new(
                HardFail,
                refine_bad_request(e, BadRequest),
                Signal::ErrorType,
                format!("error type {t}"),
            );
        }
    }

    // 7. Network codes.
    let tables = [
        (&TIMEOUT_CODES[..], Timeout, "network timeout"),
        (&NETWORK_CODES[..], Network, "network error"),
    ];
    for code in &e.codes {
        for (codes, cause, what) in tables {
            if codes.contains(&code.as_str()) {
                let reason = format!("{what} ({code})");
                return Classified::new(Transient, cause, Signal::Code, reason);
            }
        }
    }

    // 8. fetch's network failures: the browsers' and undici's `TypeError` messages, and the
    // runtimes' own (Workers' `Network connection lost.`, whatever the error's name).
    if let Some(c) = providers::by_message(e) {
        return c;
    }

    // 9. Unrecognised means stop.
    let what = e
        .message()
        .map(|m| format!("unrecognised error: {}", one_line(m)))
        .unwrap_or_else(|| "unrecognised error".to_string());
    Classified::new(HardFail, Unknown, Signal::None, what)
}

/// An error that says the call was aborted: the DOM's `AbortError`, the SDKs'
/// `APIUserAbortError`, Node's `ABORT_ERR`, axios' `ERR_CANCELED`.
fn is_abort(e: &ErrorInfo) -> bool {
    e.is_named("AbortError")
        || e.is_named("APIUserAbortError")
        || e.is_named("CanceledError")
        || e.codes
            .iter()
            .any(|c| c == "ABORT_ERR" || c == "ERR_CANCELED")
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
    SDK_CONNECTION_ERRORS
        .iter()
        .find(|(n, ..)| e.is_named(n))
        .map(|(_, class, cause, what)| (*class, *cause, *what))
}

/// Rule 5's table: the class and cause a 4xx or 5xx status means for this error.
fn status_decision(e: &ErrorInfo, status: u16) -> Option<(ErrorClass, Cause)> {
    use Cause::*;
    use ErrorClass::*;
    Some(match status {
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
        // Documented by OpenRouter ("insufficient credits"), Mistral and Cohere.
        402 => (HardFail, QuotaExhausted),
        // A request the client cancelled: Google's CANCELLED, Cohere's and Groq's 499.
        499 => (HardFail, Aborted),
        400 | 422 if says_context_overflow(e) => (HardFail, ContextOverflow),
        400..=499 => (HardFail, BadRequest),
        _ => return None,
    })
}

/// The cause of a status with a transient meaning (`x-should-retry: true` keeps it).
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

fn by_status(e: &ErrorInfo, status: u16) -> Option<Classified> {
    let (class, cause) = status_decision(e, status)?;
    let mut reason = format!("HTTP {status} ({})", cause_words(cause));
    if let Some(m) = e.message() {
        reason.push_str(": ");
        reason.push_str(&one_line(m));
    }
    Some(Classified::new(class, cause, Signal::Status, reason))
}

/// A bad request that says the context is too long is a context overflow.
fn refine_bad_request(e: &ErrorInfo, cause: Cause) -> Cause {
    if cause == Cause::BadRequest && says_context_overflow(e) {
        Cause::ContextOverflow
    } else {
        cause
    }
}

/// The message, type or code says the prompt does not fit the model's context (SPEC's
/// markers, then each provider's own wording).
fn says_context_overflow(e: &ErrorInfo) -> bool {
    e.messages
        .iter()
        .chain(e.types.iter())
        .chain(e.codes.iter())
        .any(|s| {
            let lower = s.to_ascii_lowercase();
            CONTEXT_OVERFLOW_MARKERS
                .iter()
                .chain(providers::context_overflow_markers())
                .any(|m| lower.contains(&m.to_ascii_lowercase()))
        })
}

fn cause_words(cause: Cause) -> &'static str {
    match cause {
        Cause::RateLimited => "rate limited",
        Cause::Overloaded => "overloaded",
        Cause::ServerError => "server error",
        Cause::Timeout => "timeout",
        Cause::Network => "network error",
        Cause::Conflict => "conflict",
        Cause::QuotaExhausted => "quota exhausted",
        Cause::Auth => "authentication or permission",
        Cause::NotFound => "not found",
        Cause::TooLarge => "request too large",
        Cause::ContextOverflow => "context too long",
        Cause::Unsupported => "unsupported",
        Cause::Aborted => "aborted",
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
    // Negative values (and -0, which `f64::max` may keep) are 0.
    let at_least_zero = |v: f64| if v > 0.0 { v } else { 0.0 };
    if let Some(ms) = e.header("retry-after-ms").and_then(parse_number) {
        return Some(at_least_zero(ms));
    }
    let value = e.header("retry-after")?;
    if let Some(secs) = parse_delta_seconds(value) {
        return Some(at_least_zero(secs * 1000.0)).filter(|v| v.is_finite());
    }
    let when = httpdate::parse_http_date(value).ok()?;
    let at = match when.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_millis() as f64,
        Err(_) => 0.0,
    };
    if !now.is_finite() {
        return None;
    }
    Some(at_least_zero(at - now))
}

/// A plain decimal number (fractions and exponents allowed); no hex, no "inf", no junk.
/// `retry-after-ms` is not an HTTP header of the standard: SPEC reads it as any number.
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

/// `retry-after` as seconds: HTTP's delta-seconds is digits only (RFC 9110 10.2.3), so
/// "1e3" is not a thousand seconds. SPEC allows a fraction ("1.5") and a negative value
/// (then 0): `-`? digits, then optionally `.` and digits.
fn parse_delta_seconds(s: &str) -> Option<f64> {
    let s = s.trim();
    let unsigned = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (unsigned, None),
    };
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !fraction.is_none_or(digits) {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

//! Provider recognition as data: one table per provider, each entry a word the provider
//! documents for an error (a body status string, an exception name, a code, an HTTP status it
//! gives its own meaning) and what that word means here.
//!
//! [`classify`](super::classify) reads the tables at three steps of its order:
//!
//! * rule 3, [`by_name`]: the DOM exception names (`AbortError`, `TimeoutError`);
//! * step 4b, [`by_words`]: the providers' own words (status strings, exception names, codes,
//!   flags), before the HTTP status: they are more precise than the status they come with
//!   (Azure's `content_filter` arrives as a 400, Bedrock's `ModelNotReadyException` as a 429,
//!   Google's `DEADLINE_EXCEEDED` as a 504). Where a word means just what its status means,
//!   the status decides (signal `status`); without a status, the word does;
//! * rule 8, [`by_message`]: the network failures fetch implementations and runtimes report
//!   only in a message (and Workers' `retryable` flag), after the network codes of rule 7.
//!
//! Entries only say what SPEC's own table does not already say: a Mistral body's
//! `rate_limit_error` is rule 6's, a Groq 429 is rule 5's, and the statuses providers document
//! with a meaning of their own (402, 499) are rows of rule 5. Every entry is tested natively and
//! through the wasm boundary against the documented body it comes from (tests/classify_providers.rs,
//! tests/web_policy.rs, tests/js/policy.test.mjs); the README lists the providers.

use super::{
    cause_words, one_line, refine_bad_request, Cause, Classified, ErrorClass, ErrorInfo, Signal,
};

/// What an entry looks for in an [`ErrorInfo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// `name` exactly (rule 3): `AbortError`, `TimeoutError`.
    Name(&'static str),
    /// A Google-style status string in the body (`"RESOURCE_EXHAUSTED"`): `status`,
    /// `error.status`.
    StatusText(&'static str),
    /// An exception, error class or error type name: `name`, `constructor.name`, `type`,
    /// AWS's `__type` (`…#ThrottlingException`) and `x-amzn-errortype` header
    /// (`ThrottlingException:http://…`).
    Exception(&'static str),
    /// An error code (or type): `code`, `error.code`, …
    Code(&'static str),
    /// The body says moderation flagged the input (OpenRouter's `metadata.flagged_input`).
    Flagged,
    /// `overloaded === true` (the Workers runtime: do not retry).
    Overloaded,
    /// fetch's failure message, on a `TypeError` or a nameless error (rule 8).
    FetchMessage(&'static str),
    /// A runtime's network failure message, whatever the error's name (rule 8).
    Message(&'static str),
    /// `retryable === true` (the Workers runtime: may be retried), rule 8.
    Retryable,
}

impl Word {
    fn signal(self) -> Signal {
        match self {
            Word::Code(_) => Signal::Code,
            Word::FetchMessage(_) | Word::Message(_) => Signal::Message,
            Word::Name(_)
            | Word::StatusText(_)
            | Word::Exception(_)
            | Word::Flagged
            | Word::Overloaded
            | Word::Retryable => Signal::ErrorType,
        }
    }

    fn describe(self) -> String {
        match self {
            Word::Name(w) | Word::StatusText(w) | Word::Exception(w) | Word::Code(w) => w.into(),
            Word::Flagged => "input flagged by moderation".into(),
            Word::Overloaded => "overloaded: true".into(),
            Word::Retryable => "retryable: true".into(),
            Word::FetchMessage(m) | Word::Message(m) => format!("{m:?}"),
        }
    }

    fn matches(self, e: &ErrorInfo) -> bool {
        match self {
            Word::Name(w) => e.name.as_deref() == Some(w),
            Word::StatusText(w) => e.status_texts.iter().any(|s| s == w),
            Word::Exception(w) => {
                e.is_named(w)
                    || e.types
                        .iter()
                        .any(|t| t == w || (is_aws_qualified(t) && aws_name(t) == w))
                    || e.header("x-amzn-errortype")
                        .is_some_and(|h| aws_name(h) == w)
            }
            Word::Code(w) => e.has_code_or_type(w),
            Word::Flagged => e.flagged,
            Word::Overloaded => e.overloaded,
            Word::FetchMessage(m) => {
                matches!(e.name.as_deref(), None | Some("TypeError"))
                    && e.messages.first().is_some_and(|x| x.trim() == m)
            }
            Word::Message(m) => e.messages.iter().any(|x| x.trim() == m),
            Word::Retryable => e.retryable,
        }
    }
}

/// `__type` and `x-amzn-errortype` values carry a namespace (`…#Name`) or a suffix (`Name:…`).
fn is_aws_qualified(s: &str) -> bool {
    s.bytes().any(|b| b == b'#' || b == b':')
}

/// `ThrottlingException` from AWS's `com.amazon.coral…#ThrottlingException` (`__type`) and
/// `ThrottlingException:http://internal.amazon.com/…` (`x-amzn-errortype`).
fn aws_name(s: &str) -> &str {
    let s = s.rsplit_once('#').map_or(s, |(_, n)| n);
    s.split_once(':').map_or(s, |(n, _)| n).trim()
}

/// One word and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub word: Word,
    pub class: ErrorClass,
    pub cause: Cause,
}

/// A provider's table.
#[derive(Debug)]
pub struct Provider {
    /// For the reason line and the README: "AWS Bedrock".
    pub name: &'static str,
    /// Where the entries come from.
    pub docs: &'static [&'static str],
    pub entries: &'static [Entry],
    /// Its wording for "the prompt does not fit the context", next to SPEC's markers (rule 5).
    pub context_overflow: &'static [&'static str],
}

const fn entry(word: Word, class: ErrorClass, cause: Cause) -> Entry {
    Entry { word, class, cause }
}

use Cause::*;
use ErrorClass::{HardFail, Transient};
use Word::*;

/// Browsers (Chromium, Firefox, Safari) and undici: fetch's `TypeError` messages and the DOM
/// exception names of an aborted or timed-out request.
pub const WEB_PLATFORM: Provider = Provider {
    name: "fetch",
    docs: &[
        "https://developer.mozilla.org/en-US/docs/Web/API/Window/fetch#exceptions",
        "https://developer.mozilla.org/en-US/docs/Web/API/AbortSignal/timeout_static",
        "https://developer.mozilla.org/en-US/docs/Web/API/DOMException#error_names",
    ],
    entries: &[
        entry(Name("AbortError"), HardFail, Aborted),
        // AbortSignal.timeout() rejects with a DOMException named TimeoutError.
        entry(Name("TimeoutError"), Transient, Timeout),
        entry(FetchMessage("Failed to fetch"), Transient, Network), // Chromium
        entry(
            FetchMessage("NetworkError when attempting to fetch resource."),
            Transient,
            Network,
        ), // Firefox
        entry(FetchMessage("Load failed"), Transient, Network),     // Safari
        entry(FetchMessage("fetch failed"), Transient, Network),    // undici (Node)
    ],
    context_overflow: &[],
};

/// The Cloudflare Workers runtime (workerd): a failed `fetch` throws a plain `Error`
/// "Network connection lost." with `retryable: true`; `overloaded: true` means do not retry.
pub const WORKERS: Provider = Provider {
    name: "Cloudflare Workers",
    docs: &[
        "https://developers.cloudflare.com/durable-objects/best-practices/error-handling/",
        "https://developers.cloudflare.com/workers/observability/errors/",
    ],
    entries: &[
        entry(Word::Overloaded, HardFail, Cause::Overloaded),
        entry(Message("Network connection lost."), Transient, Network),
        entry(Retryable, Transient, Network),
    ],
    context_overflow: &[],
};

/// Google Gemini API and Vertex AI: `{"error": {"code": 429, "message": "…", "status":
/// "RESOURCE_EXHAUSTED"}}`, the google.rpc status words.
pub const GOOGLE: Provider = Provider {
    name: "Google Gemini / Vertex AI",
    docs: &[
        "https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes",
        "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429",
        "https://cloud.google.com/apis/design/errors#handling_errors",
    ],
    entries: &[
        entry(StatusText("RESOURCE_EXHAUSTED"), Transient, RateLimited),
        entry(StatusText("UNAVAILABLE"), Transient, Cause::Overloaded),
        entry(StatusText("DEADLINE_EXCEEDED"), Transient, Timeout),
        entry(StatusText("INTERNAL"), Transient, ServerError),
        entry(StatusText("ABORTED"), Transient, Conflict),
        entry(StatusText("CANCELLED"), HardFail, Aborted),
        entry(StatusText("UNAUTHENTICATED"), HardFail, Auth),
        entry(StatusText("PERMISSION_DENIED"), HardFail, Auth),
        entry(StatusText("NOT_FOUND"), HardFail, NotFound),
        entry(StatusText("UNIMPLEMENTED"), HardFail, Unsupported),
        entry(StatusText("INVALID_ARGUMENT"), HardFail, BadRequest),
        entry(StatusText("FAILED_PRECONDITION"), HardFail, BadRequest),
        entry(StatusText("OUT_OF_RANGE"), HardFail, BadRequest),
    ],
    // "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."
    context_overflow: &["exceeds the maximum number of tokens allowed"],
};

/// AWS Bedrock runtime (InvokeModel, Converse and their streams): exception names, from the
/// AWS SDK (`name`), `x-amzn-errortype` or a stream's exception event.
pub const BEDROCK: Provider = Provider {
    name: "AWS Bedrock",
    docs: &[
        "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html#API_runtime_InvokeModel_Errors",
        "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html",
        "https://docs.aws.amazon.com/bedrock/latest/userguide/troubleshooting-api-error-codes.html",
    ],
    entries: &[
        entry(Exception("ThrottlingException"), Transient, RateLimited),
        // "The model specified in the request is not ready to serve inference requests."
        entry(Exception("ModelNotReadyException"), Transient, Cause::Overloaded),
        entry(Exception("ServiceUnavailableException"), Transient, Cause::Overloaded),
        entry(Exception("ModelTimeoutException"), Transient, Timeout),
        entry(Exception("InternalServerException"), Transient, ServerError),
        // "An error occurred while streaming the response. Retry your request."
        entry(Exception("ModelStreamErrorException"), Transient, ServerError),
        entry(Exception("ServiceQuotaExceededException"), HardFail, QuotaExhausted),
        entry(Exception("AccessDeniedException"), HardFail, Auth),
        entry(Exception("ResourceNotFoundException"), HardFail, NotFound),
        entry(Exception("ValidationException"), HardFail, BadRequest),
    ],
    context_overflow: &["input is too long", "too many input tokens"],
};

/// Azure OpenAI: a prompt its content filter blocks is a 400 with code `content_filter`
/// (inner code `ResponsibleAIPolicyViolation`). The same prompt will be filtered again.
pub const AZURE_OPENAI: Provider = Provider {
    name: "Azure OpenAI",
    docs: &["https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter"],
    entries: &[
        entry(Code("content_filter"), HardFail, ContentFilter),
        entry(
            Code("ResponsibleAIPolicyViolation"),
            HardFail,
            ContentFilter,
        ),
    ],
    context_overflow: &[],
};

/// Mistral: `{"object": "error", "message", "type", "param", "code"}`. Its types are rule 6's
/// (`rate_limit_error`, `authentication_error`, `server_error`, `invalid_request_error`) and its
/// statuses rule 5's (402 included): nothing of its own to add.
pub const MISTRAL: Provider = Provider {
    name: "Mistral",
    docs: &["https://docs.mistral.ai/resources/error-glossary"],
    entries: &[],
    context_overflow: &[],
};

/// Groq (OpenAI-compatible bodies): the flex tier answers 498 `capacity_exceeded` when it is
/// full ("try again later"); a rate limit is `rate_limit_exceeded`, also inside a stream.
pub const GROQ: Provider = Provider {
    name: "Groq",
    docs: &[
        "https://console.groq.com/docs/errors",
        "https://console.groq.com/docs/flex-processing",
    ],
    entries: &[
        entry(Code("capacity_exceeded"), Transient, Cause::Overloaded),
        entry(Code("rate_limit_exceeded"), Transient, RateLimited),
    ],
    context_overflow: &[],
};

/// Cohere: the TypeScript SDK's error classes (status in `statusCode`, body in `body`).
/// Its 498 is an invalid token, unlike Groq's, so 498 is recognised by class only.
pub const COHERE: Provider = Provider {
    name: "Cohere",
    docs: &[
        "https://docs.cohere.com/reference/errors",
        "https://github.com/cohere-ai/cohere-typescript/tree/main/src/api/errors",
    ],
    entries: &[
        entry(Exception("InvalidTokenError"), HardFail, Auth),
        entry(Exception("ClientClosedRequestError"), HardFail, Aborted),
        entry(Exception("GatewayTimeoutError"), Transient, Timeout),
        entry(Exception("TooManyRequestsError"), Transient, RateLimited),
    ],
    // "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4292."
    context_overflow: &["total number of tokens in the prompt cannot exceed"],
};

/// OpenRouter: `{"error": {"code": 403, "message", "metadata": {"reasons", "flagged_input"}}}`;
/// mid-response errors come with HTTP 200 and the status in `error.code` (read as the status).
pub const OPENROUTER: Provider = Provider {
    name: "OpenRouter",
    docs: &["https://openrouter.ai/docs/api-reference/errors"],
    entries: &[entry(Flagged, HardFail, ContentFilter)],
    context_overflow: &[],
};

/// Every table, in the order they are tried.
pub const PROVIDERS: [&Provider; 9] = [
    &WEB_PLATFORM,
    &WORKERS,
    &GOOGLE,
    &BEDROCK,
    &AZURE_OPENAI,
    &MISTRAL,
    &GROQ,
    &COHERE,
    &OPENROUTER,
];

/// Every provider's context-overflow wording.
pub(super) fn context_overflow_markers() -> impl Iterator<Item = &'static &'static str> {
    PROVIDERS.iter().flat_map(|p| p.context_overflow.iter())
}

/// The first entry, across all tables in order, whose word passes `stage` and matches.
fn first(e: &ErrorInfo, stage: impl Fn(Word) -> bool) -> Option<(&'static Provider, Entry)> {
    PROVIDERS.iter().find_map(|p| {
        p.entries
            .iter()
            .find(|x| stage(x.word) && x.word.matches(e))
            .map(|x| (*p, *x))
    })
}

fn classified(e: &ErrorInfo, provider: &Provider, x: Entry) -> Classified {
    let cause = refine_bad_request(e, x.cause);
    let mut reason = format!(
        "{}: {} ({})",
        provider.name,
        x.word.describe(),
        cause_words(cause)
    );
    if let Some(m) = e
        .message()
        .filter(|_| !matches!(x.word, Word::FetchMessage(_) | Word::Message(_)))
    {
        reason.push_str(": ");
        reason.push_str(&one_line(m));
    }
    Classified::new(x.class, cause, x.word.signal(), one_line(&reason))
}

/// Rule 3: DOM exception names.
pub(super) fn by_name(e: &ErrorInfo) -> Option<Classified> {
    let (p, x) = first(e, |w| matches!(w, Word::Name(_)))?;
    Some(classified(e, p, x))
}

/// Step 4b: the providers' own words.
pub(super) fn by_words(e: &ErrorInfo) -> Option<Classified> {
    let (p, x) = first(e, |w| {
        matches!(
            w,
            Word::StatusText(_)
                | Word::Exception(_)
                | Word::Code(_)
                | Word::Flagged
                | Word::Overloaded
        )
    })?;
    Some(classified(e, p, x))
}

/// Rule 8: network failures told only by a message (or Workers' `retryable` flag).
pub(super) fn by_message(e: &ErrorInfo) -> Option<Classified> {
    let (p, x) = first(e, |w| {
        matches!(
            w,
            Word::FetchMessage(_) | Word::Message(_) | Word::Retryable
        )
    })?;
    Some(classified(e, p, x))
}

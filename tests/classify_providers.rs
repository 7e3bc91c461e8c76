//! SPEC section 10: provider recognition (crates/selfheal-hot/src/classify/providers.rs), one test per provider,
//! each built from that provider's documented error body (the doc is cited above each test).
//!
//! The bodies are JSON as the provider sends it; [`thrown`] reads them the way js/snippets/gather.js
//! reads a thrown value (the same places, in the same order). The boundary tests
//! (tests/web_policy.rs in Chromium, tests/js/policy.test.mjs in Node) feed the same bodies,
//! wrapped as each SDK throws them, through the real reader.

#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use selfheal::classify::providers::{Word, PROVIDERS};
use selfheal::{classify, Cause, Cause::*, ErrorClass, ErrorClass::*, ErrorInfo, Signal};
use serde_json::{json, Value};

const NOW: f64 = 1_700_000_000_000.0;

/// What js/snippets/gather.js reads from a thrown value that is (or wraps) this JSON.
fn thrown(v: &Value) -> ErrorInfo {
    let at = |path: &[&str]| -> Option<&Value> { path.iter().try_fold(v, |x, k| x.get(k)) };
    let text = |path: &[&str]| at(path).and_then(Value::as_str).map(String::from);
    let scalar = |path: &[&str]| match at(path) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let http = |x: Option<&Value>| {
        x.and_then(Value::as_f64)
            .filter(|n| n.fract() == 0.0 && (400.0..=599.0).contains(n))
            .map(|n| n as u16)
    };
    let status = [
        &["status"][..],
        &["statusCode"],
        &["response", "status"],
        &["$metadata", "httpStatusCode"],
    ]
    .iter()
    .find_map(|p| match at(p) {
        Some(Value::Number(n)) => n.as_u64().map(|n| n as u16),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
    .or_else(|| {
        [
            &["code"][..],
            &["error", "code"],
            &["error", "error", "code"],
        ]
        .iter()
        .find_map(|p| http(at(p)))
    });
    let flagged = [
        &["metadata"][..],
        &["error", "metadata"],
        &["error", "error", "metadata"],
    ]
    .iter()
    .any(|p| {
        at(p).is_some_and(|m| {
            m.get("flagged_input").is_some_and(Value::is_string)
                || m.get("reasons").is_some_and(Value::is_array)
        })
    });
    let headers = at(&["headers"])
        .and_then(Value::as_object)
        .map(|h| {
            h.iter()
                .filter_map(|(k, v)| Some((k.to_ascii_lowercase(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    ErrorInfo {
        present: true,
        name: text(&["name"]),
        class_name: text(&["className"]),
        status,
        headers,
        types: [
            &["error", "type"][..],
            &["error", "error", "type"],
            &["type"],
            &["__type"],
        ]
        .iter()
        .filter_map(|p| text(p))
        .collect(),
        codes: [
            &["code"][..],
            &["cause", "code"],
            &["error", "code"],
            &["error", "error", "code"],
        ]
        .iter()
        .filter_map(|p| scalar(p))
        .collect(),
        messages: [
            &["message"][..],
            &["error", "message"],
            &["error", "error", "message"],
        ]
        .iter()
        .filter_map(|p| text(p))
        .collect(),
        status_texts: [
            &["status"][..],
            &["error", "status"],
            &["error", "error", "status"],
        ]
        .iter()
        .filter_map(|p| text(p))
        .collect(),
        cause_names: [
            &["cause", "name"][..],
            &["cause", "cause", "name"],
            &["reason", "name"],
        ]
        .iter()
        .filter_map(|p| text(p))
        .collect(),
        retryable: at(&["retryable"]) == Some(&Value::Bool(true)),
        overloaded: at(&["overloaded"]) == Some(&Value::Bool(true)),
        flagged,
    }
}

#[track_caller]
fn assert_body(body: Value, class: ErrorClass, cause: Cause, signal: Signal) {
    let c = classify(&thrown(&body), None, NOW);
    assert_eq!(
        (c.class, c.cause, c.signal),
        (class, cause, signal),
        "{body}\n{c:?}"
    );
    assert!(!c.reason.is_empty() && !c.reason.contains('\n'), "{c:?}");
}

/// `body` with `extra` fields merged in at the top (an SDK error carrying the body).
fn with(mut body: Value, extra: Value) -> Value {
    if let (Some(b), Some(x)) = (body.as_object_mut(), extra.as_object()) {
        for (k, v) in x {
            b.insert(k.clone(), v.clone());
        }
    }
    body
}

// ---------------------------------------------------------------- Google

/// https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes (status words and HTTP
/// codes), https://cloud.google.com/apis/design/errors (the body: `{"error": {"code",
/// "message", "status"}}`).
fn google(code: u16, status: &str, message: &str) -> Value {
    json!({ "error": { "code": code, "message": message, "status": status } })
}

#[test]
fn google_gemini_and_vertex_status_words() {
    // With its HTTP status in the body's `code`: a word that means what its status means
    // leaves the decision to the status.
    assert_body(
        google(
            429,
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).",
        ),
        Transient,
        RateLimited,
        Signal::Status,
    );
    assert_body(
        google(
            503,
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
        ),
        Transient,
        Overloaded,
        Signal::Status,
    );
    // More precise than its status: 504 is a server error to rule 5, a timeout to Google.
    assert_body(
        google(
            504,
            "DEADLINE_EXCEEDED",
            "The request timed out. Please try again.",
        ),
        Transient,
        Timeout,
        Signal::ErrorType,
    );
    assert_body(
        google(500, "INTERNAL", "An internal error has occurred."),
        Transient,
        ServerError,
        Signal::Status,
    );
    assert_body(
        google(
            403,
            "PERMISSION_DENIED",
            "Your API key doesn't have the required permissions.",
        ),
        HardFail,
        Auth,
        Signal::Status,
    );
    assert_body(
        google(404, "NOT_FOUND", "models/gemini-9 is not found"),
        HardFail,
        NotFound,
        Signal::Status,
    );
    assert_body(
        google(
            400,
            "INVALID_ARGUMENT",
            "Request contains an invalid argument.",
        ),
        HardFail,
        BadRequest,
        Signal::Status,
    );
    assert_body(
        google(400, "FAILED_PRECONDITION", "Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio."),
        HardFail,
        BadRequest,
        Signal::Status,
    );
    // Gemini's wording for a prompt over the context window.
    assert_body(
        google(400, "INVALID_ARGUMENT", "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."),
        HardFail,
        ContextOverflow,
        Signal::Status,
    );
    // Without any status (an error inside a stream, or a body passed on its own), the word decides.
    for (word, class, cause) in [
        ("RESOURCE_EXHAUSTED", Transient, RateLimited),
        ("UNAVAILABLE", Transient, Overloaded),
        ("DEADLINE_EXCEEDED", Transient, Timeout),
        ("INTERNAL", Transient, ServerError),
        ("ABORTED", Transient, Conflict),
        ("CANCELLED", HardFail, Aborted),
        ("UNAUTHENTICATED", HardFail, Auth),
        ("PERMISSION_DENIED", HardFail, Auth),
        ("NOT_FOUND", HardFail, NotFound),
        ("UNIMPLEMENTED", HardFail, Unsupported),
        ("INVALID_ARGUMENT", HardFail, BadRequest),
        ("OUT_OF_RANGE", HardFail, BadRequest),
    ] {
        let body = json!({ "error": { "message": "m", "status": word } });
        assert_body(body, class, cause, Signal::ErrorType);
    }
    // Vertex AI's GoogleApiError: `code` is the HTTP status, `status` the word.
    assert_body(
        json!({ "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model" }),
        Transient,
        RateLimited,
        Signal::Status,
    );
}

// ---------------------------------------------------------------- AWS Bedrock

/// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html#API_runtime_InvokeModel_Errors
/// and .../API_runtime_ResponseStream.html: the exception names and their HTTP statuses. The
/// AWS SDK for JavaScript v3 throws them with `name` and `$metadata.httpStatusCode`; over
/// plain HTTP the name is in `x-amzn-errortype` and the body is `{"message": "..."}`.
fn aws(name: &str, status: Option<u16>, message: &str) -> Value {
    let mut v = json!({ "name": name, "message": message, "$fault": "client" });
    if let Some(s) = status {
        v["$metadata"] = json!({ "httpStatusCode": s, "attempts": 1 });
    }
    v
}

#[test]
fn aws_bedrock_exceptions() {
    let table: &[(&str, u16, ErrorClass, Cause, Signal)] = &[
        (
            "ThrottlingException",
            429,
            Transient,
            RateLimited,
            Signal::Status,
        ),
        (
            "ModelNotReadyException",
            429,
            Transient,
            Overloaded,
            Signal::ErrorType,
        ),
        (
            "ServiceUnavailableException",
            503,
            Transient,
            Overloaded,
            Signal::Status,
        ),
        (
            "ModelTimeoutException",
            408,
            Transient,
            Timeout,
            Signal::Status,
        ),
        (
            "InternalServerException",
            500,
            Transient,
            ServerError,
            Signal::Status,
        ),
        (
            "ModelStreamErrorException",
            424,
            Transient,
            ServerError,
            Signal::ErrorType,
        ),
        (
            "ServiceQuotaExceededException",
            400,
            HardFail,
            QuotaExhausted,
            Signal::ErrorType,
        ),
        ("AccessDeniedException", 403, HardFail, Auth, Signal::Status),
        (
            "ResourceNotFoundException",
            404,
            HardFail,
            NotFound,
            Signal::Status,
        ),
        (
            "ValidationException",
            400,
            HardFail,
            BadRequest,
            Signal::Status,
        ),
    ];
    for &(name, status, class, cause, signal) in table {
        assert_body(
            aws(name, Some(status), "Bedrock said no."),
            class,
            cause,
            signal,
        );
        // Inside a response stream there is no HTTP status: the name decides.
        let c = classify(&thrown(&aws(name, None, "m")), None, NOW);
        assert_eq!(
            (c.class, c.cause, c.signal),
            (class, cause, Signal::ErrorType),
            "{name}: {c:?}"
        );
    }
    assert_body(
        aws(
            "ValidationException",
            Some(400),
            "Input is too long for requested model.",
        ),
        HardFail,
        ContextOverflow,
        Signal::Status,
    );
    // Plain HTTP: the name in the `x-amzn-errortype` header, `{"message"}` as the body.
    assert_body(
        json!({
            "status": 429,
            "headers": { "x-amzn-ErrorType": "ModelNotReadyException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
            "message": "Model is not ready for inference. Wait and try your request again."
        }),
        Transient,
        Overloaded,
        Signal::ErrorType,
    );
    // AWS JSON protocol `__type`.
    assert_body(
        json!({ "__type": "com.amazon.coral.availability#ThrottlingException", "message": "Too many requests" }),
        Transient,
        RateLimited,
        Signal::ErrorType,
    );
}

// ---------------------------------------------------------------- Azure OpenAI

/// https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter: a
/// filtered prompt is HTTP 400 with this body.
fn azure_filtered() -> Value {
    json!({
        "error": {
            "message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
            "type": null,
            "param": "prompt",
            "code": "content_filter",
            "status": 400,
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": {
                    "hate": { "filtered": true, "severity": "high" },
                    "self_harm": { "filtered": false, "severity": "safe" },
                    "sexual": { "filtered": false, "severity": "safe" },
                    "violence": { "filtered": false, "severity": "safe" }
                }
            }
        }
    })
}

#[test]
fn azure_openai_content_filter_is_hard_fail_content_filter() {
    // As the openai SDK throws it: status 400, `code` copied from the body, the body at `error`.
    let sdk = with(
        azure_filtered(),
        json!({ "status": 400, "code": "content_filter", "name": "Error" }),
    );
    assert_body(sdk, HardFail, ContentFilter, Signal::Code);
    // The body on its own (a host that read the response itself).
    assert_body(azure_filtered(), HardFail, ContentFilter, Signal::Code);
    // The same 400 without the filter's code is an ordinary bad request.
    assert_body(
        json!({ "status": 400, "error": { "message": "Invalid 'temperature'", "code": "decimal_above_max_value" } }),
        HardFail,
        BadRequest,
        Signal::Status,
    );
}

// ---------------------------------------------------------------- Mistral

/// https://docs.mistral.ai/resources/error-glossary: `{"object": "error", "message", "type",
/// "param", "code"}`; types `invalid_request_error`, `authentication_error`,
/// `rate_limit_error`, `server_error`; 402 Payment Required.
fn mistral(type_: &str, code: &str, message: &str) -> Value {
    json!({ "object": "error", "message": message, "type": type_, "param": null, "code": code })
}

#[test]
fn mistral_bodies() {
    // A body without a status (a stream's error event): its type decides (rule 6).
    assert_body(
        mistral("rate_limit_error", "1300", "Requests rate limit exceeded"),
        Transient,
        RateLimited,
        Signal::ErrorType,
    );
    assert_body(
        mistral("server_error", "3000", "Internal server error"),
        Transient,
        ServerError,
        Signal::ErrorType,
    );
    assert_body(
        mistral("authentication_error", "1000", "Unauthorized"),
        HardFail,
        Auth,
        Signal::ErrorType,
    );
    assert_body(
        mistral(
            "invalid_request_error",
            "unknown_model",
            "Invalid model: mistral-9",
        ),
        HardFail,
        BadRequest,
        Signal::ErrorType,
    );
    // The TypeScript SDK's error: `statusCode` and the body.
    assert_body(
        with(
            mistral("invalid_request_error", "3505", "No credits"),
            json!({ "statusCode": 402 }),
        ),
        HardFail,
        QuotaExhausted,
        Signal::Status,
    );
    assert_body(
        with(
            mistral("rate_limit_error", "1300", "Requests rate limit exceeded"),
            json!({ "statusCode": 429 }),
        ),
        Transient,
        RateLimited,
        Signal::Status,
    );
}

// ---------------------------------------------------------------- Groq

/// https://console.groq.com/docs/errors (`{"error": {"message", "type", "code"}}`) and
/// https://console.groq.com/docs/flex-processing ("requests will fail quickly with status 498
/// and error capacity_exceeded").
fn groq(status: Option<u16>, type_: &str, code: &str, message: &str) -> Value {
    let mut v = json!({ "error": { "message": message, "type": type_, "code": code } });
    if let Some(s) = status {
        v["status"] = json!(s);
    }
    v
}

#[test]
fn groq_bodies() {
    // 498 is Groq's own status: rule 5 would call it a bad request.
    assert_body(
        groq(
            Some(498),
            "capacity_exceeded",
            "capacity_exceeded",
            "Flex tier capacity exceeded. Please try again later.",
        ),
        Transient,
        Overloaded,
        Signal::Code,
    );
    assert_body(
        groq(Some(429), "tokens", "rate_limit_exceeded", "Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_1` on tokens per minute (TPM): Limit 6000, Used 5800, Requested 400. Please try again in 2s."),
        Transient,
        RateLimited,
        Signal::Status,
    );
    // The same inside a stream (no status): the code decides.
    assert_body(
        groq(None, "tokens", "rate_limit_exceeded", "Rate limit reached"),
        Transient,
        RateLimited,
        Signal::Code,
    );
    assert_body(
        groq(
            Some(401),
            "invalid_request_error",
            "invalid_api_key",
            "Invalid API Key",
        ),
        HardFail,
        Auth,
        Signal::Status,
    );
    // A bare 498 from anyone else (Cohere's 498 is an invalid token) stays a hard failure.
    assert_body(
        json!({ "status": 498, "message": "invalid token" }),
        HardFail,
        BadRequest,
        Signal::Status,
    );
}

// ---------------------------------------------------------------- Cohere

/// https://docs.cohere.com/reference/errors (400 "too many tokens: …", 402, 429, 499, 500) and
/// the TypeScript SDK's classes (cohere-ai/cohere-typescript src/api/errors: InvalidTokenError
/// 498, ClientClosedRequestError 499, GatewayTimeoutError 504, …) with `statusCode` and `body`.
fn cohere(class: &str, status: u16, message: &str) -> Value {
    json!({ "className": class, "name": "Error", "statusCode": status, "body": { "message": message },
            "message": format!("{class}\nStatus code: {status}\nBody: {{\"message\": {message:?}}}") })
}

#[test]
fn cohere_sdk_errors() {
    assert_body(
        cohere("InvalidTokenError", 498, "invalid api token"),
        HardFail,
        Auth,
        Signal::ErrorType,
    );
    assert_body(
        cohere("ClientClosedRequestError", 499, "request cancelled"),
        HardFail,
        Aborted,
        Signal::Status,
    );
    assert_body(
        cohere("GatewayTimeoutError", 504, "gateway timeout"),
        Transient,
        Timeout,
        Signal::ErrorType,
    );
    assert_body(
        cohere(
            "TooManyRequestsError",
            429,
            "You are using a Trial key, which is limited to 10 API calls / minute.",
        ),
        Transient,
        RateLimited,
        Signal::Status,
    );
    assert_body(
        cohere("ServiceUnavailableError", 503, "service unavailable"),
        Transient,
        Overloaded,
        Signal::Status,
    );
    assert_body(
        cohere("CohereError", 402, "Please add a payment method"),
        HardFail,
        QuotaExhausted,
        Signal::Status,
    );
    assert_body(
        cohere("BadRequestError", 400, "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4292. Try using a shorter prompt, or enabling prompt truncating."),
        HardFail,
        ContextOverflow,
        Signal::Status,
    );
    // The class alone, without a status.
    let mut bare = cohere("GatewayTimeoutError", 504, "m");
    bare.as_object_mut().unwrap().remove("statusCode");
    assert_body(bare, Transient, Timeout, Signal::ErrorType);
}

// ---------------------------------------------------------------- OpenRouter

/// https://openrouter.ai/docs/api-reference/errors: `{"error": {"code", "message",
/// "metadata"}}`; 402 insufficient credits, 403 "your input was flagged" with
/// `ModerationErrorMetadata {reasons, flagged_input}`, mid-response errors with HTTP 200 and
/// the status only in `error.code`.
#[test]
fn openrouter_bodies() {
    assert_body(
        json!({ "error": { "code": 403, "message": "meta-llama/llama-3-8b-instruct requires moderation on OpenRouter. Your input was flagged for \"harassment\". No credits were charged.",
                           "metadata": { "reasons": ["harassment"], "flagged_input": "you are…", "provider_name": "OpenAI", "model_slug": "meta-llama/llama-3-8b-instruct" } } }),
        HardFail,
        ContentFilter,
        Signal::ErrorType,
    );
    assert_body(
        json!({ "error": { "code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/credits" } }),
        HardFail,
        QuotaExhausted,
        Signal::Status,
    );
    // HTTP 200 with the error in the body: `error.code` is the status.
    assert_body(
        json!({ "error": { "code": 502, "message": "Network connection lost.", "metadata": { "error_type": "provider_unavailable" } } }),
        Transient,
        ServerError,
        Signal::Status,
    );
    assert_body(
        json!({ "error": { "code": 503, "message": "No allowed providers are available for the selected model." } }),
        Transient,
        Overloaded,
        Signal::Status,
    );
    assert_body(
        json!({ "error": { "code": 408, "message": "Request timed out" } }),
        Transient,
        Timeout,
        Signal::Status,
    );
    assert_body(
        json!({ "error": { "code": 429, "message": "Rate limit exceeded" } }),
        Transient,
        RateLimited,
        Signal::Status,
    );
    // As the openai SDK throws it (status, and `code` copied from the body).
    assert_body(
        json!({ "status": 403, "code": 403, "error": { "code": 403, "message": "flagged", "metadata": { "reasons": ["violence"], "flagged_input": "…" } } }),
        HardFail,
        ContentFilter,
        Signal::ErrorType,
    );
}

// ---------------------------------------------------------------- browsers and Workers

/// MDN fetch() "Exceptions" (TypeError on a network error; Chromium "Failed to fetch",
/// Firefox "NetworkError when attempting to fetch resource.", Safari "Load failed") and
/// AbortSignal.timeout() ("TimeoutError" DOMException).
#[test]
fn browser_fetch_failures_and_timeout_signal() {
    // undici (Node) says "fetch failed"; its cause's code, when there is one, decides first (rule 7).
    for m in [
        "Failed to fetch",
        "NetworkError when attempting to fetch resource.",
        "Load failed",
        "fetch failed",
    ] {
        assert_body(
            json!({ "name": "TypeError", "message": m }),
            Transient,
            Network,
            Signal::Message,
        );
    }
    assert_body(
        json!({ "name": "TimeoutError", "message": "signal timed out" }),
        Transient,
        Timeout,
        Signal::ErrorType,
    );
    assert_body(
        json!({ "name": "AbortError", "message": "signal is aborted without reason" }),
        HardFail,
        Aborted,
        Signal::ErrorType,
    );
}

/// developers.cloudflare.com/durable-objects/best-practices/error-handling/ (`.retryable`,
/// `.overloaded`) and workerd's fetch failure (a plain Error, "Network connection lost.").
#[test]
fn workers_runtime_errors() {
    assert_body(
        json!({ "name": "Error", "message": "Network connection lost.", "retryable": true }),
        Transient,
        Network,
        Signal::Message,
    );
    assert_body(
        json!({ "name": "Error", "message": "Durable Object reset because its code was updated.", "retryable": true }),
        Transient,
        Network,
        Signal::ErrorType,
    );
    assert_body(
        json!({ "name": "Error", "message": "Durable Object is overloaded. Too many requests queued.", "overloaded": true }),
        HardFail,
        Overloaded,
        Signal::ErrorType,
    );
}

// ---------------------------------------------------------------- the tables themselves

#[test]
fn every_table_cites_its_docs_and_every_word_is_tested_somewhere() {
    let source = include_str!("classify_providers.rs");
    for p in PROVIDERS {
        assert!(!p.docs.is_empty(), "{} cites no documentation", p.name);
        for d in p.docs {
            assert!(d.starts_with("https://"), "{}: {d}", p.name);
        }
        for e in p.entries {
            let word = match e.word {
                Word::Name(w)
                | Word::StatusText(w)
                | Word::Exception(w)
                | Word::Code(w)
                | Word::FetchMessage(w)
                | Word::Message(w) => w,
                Word::Flagged => "flagged_input",
                Word::Overloaded => "\"overloaded\": true",
                Word::Retryable => "\"retryable\": true",
            };
            assert!(source.contains(word), "{}: {word} has no test here", p.name);
        }
    }
}

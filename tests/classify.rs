//! SPEC section 3: the decision table of `classify`, row by row and in order,
//! then `retryAfterMs`.

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
mod common;

use common::*;
use selfheal::{
    classify, Cause, Cause::*, Classified, ErrorClass, ErrorClass::*, ErrorInfo, Outcome, Signal,
    Validation,
};

/// Wed, 21 Oct 2015 07:28:00 GMT
const DATE: &str = "Wed, 21 Oct 2015 07:28:00 GMT";
const DATE_MS: f64 = 1_445_412_480_000.0;
const NOW: f64 = DATE_MS - 30_000.0;

fn of(error: Outcome) -> Classified {
    classify(&error.info(), None, NOW)
}

fn with_validation(error: &ErrorInfo, kind: &str) -> Classified {
    let v = Validation {
        ok: false,
        kind: Some(kind.into()),
        detail: Some("at /city".into()),
    };
    classify(error, Some(&v), NOW)
}

#[track_caller]
fn assert_class(c: &Classified, class: ErrorClass, cause: Cause, signal: Signal) {
    assert_eq!(
        (c.class, c.cause, c.signal),
        (class, cause, signal),
        "{c:?}"
    );
    assert!(
        !c.reason.is_empty() && !c.reason.contains('\n'),
        "reason must be one line: {c:?}"
    );
}

fn absent() -> ErrorInfo {
    ErrorInfo::default()
}

// ---------- rule 1: a failed validation ----------

#[test]
fn rule1_failed_validation_kinds() {
    for kind in ["json", "json-syntax", "syntax"] {
        assert_class(
            &with_validation(&absent(), kind),
            Repairable,
            JsonSyntax,
            Signal::Validation,
        );
    }
    assert_class(
        &with_validation(&absent(), "schema"),
        Repairable,
        Schema,
        Signal::Validation,
    );
    assert_class(
        &with_validation(&absent(), "truncated"),
        Repairable,
        Truncated,
        Signal::Validation,
    );
    for kind in ["semantic", "business-rule", "", "JSON"] {
        assert_class(
            &with_validation(&absent(), kind),
            SemanticInvalid,
            Semantic,
            Signal::Validation,
        );
    }
    let no_kind = Validation {
        ok: false,
        kind: None,
        detail: None,
    };
    assert_class(
        &classify(&absent(), Some(&no_kind), NOW),
        SemanticInvalid,
        Semantic,
        Signal::Validation,
    );
}

#[test]
fn rule1_validation_beats_any_error() {
    let loud = http(503)
        .name("AbortError")
        .header("x-should-retry", "true")
        .code("ECONNRESET")
        .info();
    assert_class(
        &with_validation(&loud, "schema"),
        Repairable,
        Schema,
        Signal::Validation,
    );
    assert_class(
        &with_validation(&loud, "off-topic"),
        SemanticInvalid,
        Semantic,
        Signal::Validation,
    );
}

#[test]
fn rule1_validation_detail_is_in_the_one_line_reason() {
    let v = Validation {
        ok: false,
        kind: Some("schema".into()),
        detail: Some("city\nis missing".into()),
    };
    let c = classify(&absent(), Some(&v), NOW);
    assert!(c.reason.contains("city is missing"), "{}", c.reason);
    assert!(!c.reason.contains('\n'));
}

#[test]
fn passed_validation_is_ignored() {
    let ok = Validation {
        ok: true,
        kind: Some("schema".into()),
        detail: None,
    };
    assert_class(
        &classify(&http(503).info(), Some(&ok), NOW),
        Transient,
        Overloaded,
        Signal::Status,
    );
    assert_class(
        &classify(&absent(), Some(&ok), NOW),
        HardFail,
        Unknown,
        Signal::None,
    );
}

// ---------- rule 2: nothing given ----------

#[test]
fn rule2_no_error_and_no_failed_validation_is_hard_fail_unknown() {
    assert_class(
        &classify(&absent(), None, NOW),
        HardFail,
        Unknown,
        Signal::None,
    );
}

// ---------- rule 3: by name ----------

#[test]
fn rule3_abort_error_by_name_beats_headers_and_status() {
    let e = http(503)
        .name("AbortError")
        .header("x-should-retry", "true");
    assert_class(&of(e), HardFail, Aborted, Signal::ErrorType);
}

#[test]
fn rule3_timeout_error_by_name_beats_headers_and_status() {
    let e = http(401)
        .name("TimeoutError")
        .header("x-should-retry", "false");
    assert_class(&of(e), Transient, Timeout, Signal::ErrorType);
}

// ---------- rule 4: x-should-retry ----------

#[test]
fn rule4_x_should_retry_true_beats_a_hard_status() {
    for status in [400, 401, 404, 501] {
        assert_class(
            &of(http(status).header("x-should-retry", "true")),
            Transient,
            ServerError,
            Signal::XShouldRetry,
        );
    }
    // The cause still says what the status meant when it has a transient meaning.
    assert_class(
        &of(http(429).header("x-should-retry", "true")),
        Transient,
        RateLimited,
        Signal::XShouldRetry,
    );
    // No status at all.
    assert_class(
        &of(error().header("x-should-retry", "true")),
        Transient,
        ServerError,
        Signal::XShouldRetry,
    );
}

#[test]
fn rule4_x_should_retry_false_beats_a_transient_status() {
    for status in [429, 500, 503, 529] {
        let c = of(http(status).header("x-should-retry", "false"));
        assert_eq!(
            (c.class, c.signal),
            (HardFail, Signal::XShouldRetry),
            "{status}: {c:?}"
        );
    }
    assert_class(
        &of(http(401).header("x-should-retry", "false")),
        HardFail,
        Auth,
        Signal::XShouldRetry,
    );
}

#[test]
fn rule4_header_name_and_value_are_case_insensitive() {
    assert_class(
        &of(http(400).header("X-Should-Retry", "TRUE")),
        Transient,
        ServerError,
        Signal::XShouldRetry,
    );
    // `false` keeps the status's own cause (issue 10: a 429 said `bad-request`).
    assert_class(
        &of(http(503).header("X-SHOULD-RETRY", " False ")),
        HardFail,
        Overloaded,
        Signal::XShouldRetry,
    );
}

#[test]
fn rule4_other_values_say_nothing() {
    assert_class(
        &of(http(503).header("x-should-retry", "maybe")),
        Transient,
        Overloaded,
        Signal::Status,
    );
}

// ---------- rule 5: status ----------

#[test]
fn rule5_status_table_in_order() {
    let table: &[(u16, ErrorClass, Cause)] = &[
        (429, Transient, RateLimited),
        (529, Transient, Overloaded),
        (503, Transient, Overloaded),
        (408, Transient, Timeout),
        (409, Transient, Conflict),
        (501, HardFail, Unsupported),
        (505, HardFail, Unsupported),
        (500, Transient, ServerError),
        (502, Transient, ServerError),
        (504, Transient, ServerError),
        (520, Transient, ServerError),
        (599, Transient, ServerError),
        (401, HardFail, Auth),
        (403, HardFail, Auth),
        (404, HardFail, NotFound),
        (413, HardFail, TooLarge),
        (400, HardFail, BadRequest),
        (422, HardFail, BadRequest),
        // Statuses the providers document with a meaning of their own (providers.rs):
        // 402 "insufficient credits" (OpenRouter, Mistral, Cohere), 499 a cancelled request.
        (402, HardFail, QuotaExhausted),
        (499, HardFail, Aborted),
        (418, HardFail, BadRequest),
        (498, HardFail, BadRequest),
    ];
    for &(status, class, cause) in table {
        let c = of(http(status));
        assert_eq!(
            (c.class, c.cause, c.signal),
            (class, cause, Signal::Status),
            "HTTP {status}: {c:?}"
        );
        assert!(c.reason.contains(&status.to_string()), "{c:?}");
    }
}

#[test]
fn rule5_429_insufficient_quota_as_code_or_type_is_quota_exhausted() {
    assert_class(
        &of(http(429).code("insufficient_quota")),
        HardFail,
        QuotaExhausted,
        Signal::Status,
    );
    assert_class(
        &of(http(429).typ("insufficient_quota")),
        HardFail,
        QuotaExhausted,
        Signal::Status,
    );
    // In a later candidate position (e.g. error.error.code) too.
    assert_class(
        &of(http(429).code("").code("insufficient_quota")),
        HardFail,
        QuotaExhausted,
        Signal::Status,
    );
    // Only the code or type counts, and only on 429.
    assert_class(
        &of(http(429).message("insufficient_quota")),
        Transient,
        RateLimited,
        Signal::Status,
    );
    assert_class(
        &of(http(429).code("rate_limit_exceeded")),
        Transient,
        RateLimited,
        Signal::Status,
    );
    assert_class(
        &of(http(503).code("insufficient_quota")),
        Transient,
        Overloaded,
        Signal::Status,
    );
}

#[test]
fn rule5_context_overflow_via_each_marker() {
    let overflows = [
        http(400).code("context_length_exceeded"),
        http(400).typ("context_length_exceeded"),
        http(400).message("prompt is too long: 210000 tokens > 200000 maximum"),
        http(422).message("This model's maximum context length is 8192 tokens."),
        http(400).message("Prompt is too long"),
        http(422).code("context_length_exceeded"),
    ];
    for e in overflows {
        assert_class(&of(e.clone()), HardFail, ContextOverflow, Signal::Status);
    }
    // Other 4xx keep their own row even when the text mentions the context.
    assert_class(
        &of(http(413).message("prompt is too long")),
        HardFail,
        TooLarge,
        Signal::Status,
    );
    assert_class(
        &of(http(404).code("context_length_exceeded")),
        HardFail,
        NotFound,
        Signal::Status,
    );
    assert_class(
        &of(http(400).message("missing field `model`")),
        HardFail,
        BadRequest,
        Signal::Status,
    );
}

#[test]
fn rule5_status_beats_error_type_code_and_message() {
    assert_class(
        &of(http(400).typ("overloaded_error")),
        HardFail,
        BadRequest,
        Signal::Status,
    );
    assert_class(
        &of(http(401).code("ECONNRESET")),
        HardFail,
        Auth,
        Signal::Status,
    );
    assert_class(
        &of(http(500).typ("authentication_error")),
        Transient,
        ServerError,
        Signal::Status,
    );
    assert_class(
        &of(http(403).name("TypeError").message("fetch failed")),
        HardFail,
        Auth,
        Signal::Status,
    );
}

#[test]
fn statuses_outside_4xx_and_5xx_are_not_rows_of_the_table() {
    // A 200 carrying an error event inside a stream: the type decides.
    assert_class(
        &of(http(200).typ("error").typ("overloaded_error")),
        Transient,
        Overloaded,
        Signal::ErrorType,
    );
    assert_class(
        &of(http(302).code("ECONNRESET")),
        Transient,
        Network,
        Signal::Code,
    );
    assert_class(&of(http(200)), HardFail, Unknown, Signal::None);
}

// ---------- rule 6: error type without status ----------

#[test]
fn rule6_error_types_without_status() {
    let table: &[(&str, ErrorClass, Cause)] = &[
        ("overloaded_error", Transient, Overloaded),
        ("rate_limit_error", Transient, RateLimited),
        ("api_error", Transient, ServerError),
        ("authentication_error", HardFail, Auth),
        ("permission_error", HardFail, Auth),
        ("not_found_error", HardFail, NotFound),
        ("request_too_large", HardFail, TooLarge),
        ("invalid_request_error", HardFail, BadRequest),
    ];
    for &(t, class, cause) in table {
        let c = of(err_type(t));
        assert_eq!(
            (c.class, c.cause, c.signal),
            (class, cause, Signal::ErrorType),
            "{t}: {c:?}"
        );
    }
}

#[test]
fn rule6_anthropic_envelope_skips_the_word_error() {
    // {type: "error", error: {type: "overloaded_error"}}
    assert_class(
        &of(err_type("error").typ("overloaded_error")),
        Transient,
        Overloaded,
        Signal::ErrorType,
    );
    assert_class(
        &of(err_type("error").typ("authentication_error")),
        HardFail,
        Auth,
        Signal::ErrorType,
    );
}

#[test]
fn rule6_invalid_request_saying_the_context_is_too_long_is_context_overflow() {
    let e = err_type("invalid_request_error")
        .message("prompt is too long: 210000 tokens > 200000 maximum");
    assert_class(&of(e), HardFail, ContextOverflow, Signal::ErrorType);
}

#[test]
fn rule6_type_beats_code_and_message() {
    assert_class(
        &of(err_type("rate_limit_error").code("ECONNRESET")),
        Transient,
        RateLimited,
        Signal::ErrorType,
    );
    assert_class(
        &of(err_type("permission_error").message("fetch failed")),
        HardFail,
        Auth,
        Signal::ErrorType,
    );
}

#[test]
fn rule6_unknown_types_fall_through() {
    assert_class(
        &of(err_type("weird_error").code("EPIPE")),
        Transient,
        Network,
        Signal::Code,
    );
    assert_class(
        &of(err_type("weird_error")),
        HardFail,
        Unknown,
        Signal::None,
    );
}

// ---------- rule 7: network codes ----------

#[test]
fn rule7_network_codes() {
    for code in [
        "ETIMEDOUT",
        "UND_ERR_CONNECT_TIMEOUT",
        "UND_ERR_HEADERS_TIMEOUT",
        "UND_ERR_BODY_TIMEOUT",
    ] {
        assert_class(&of(err_code(code)), Transient, Timeout, Signal::Code);
    }
    for code in [
        "ECONNRESET",
        "ENOTFOUND",
        "EAI_AGAIN",
        "ECONNREFUSED",
        "EPIPE",
        "ECONNABORTED",
        "UND_ERR_SOCKET",
    ] {
        assert_class(&of(err_code(code)), Transient, Network, Signal::Code);
    }
}

#[test]
fn rule7_code_found_in_a_later_position_and_beats_the_message() {
    // e.g. `cause.code` of undici's "fetch failed" TypeError.
    let e = err_named("TypeError")
        .message("fetch failed")
        .code("")
        .code("UND_ERR_CONNECT_TIMEOUT");
    assert_class(&of(e), Transient, Timeout, Signal::Code);
    assert_class(&of(err_code("EACCES")), HardFail, Unknown, Signal::None);
}

// ---------- rule 8: fetch's TypeError ----------

#[test]
fn rule8_fetch_type_error_messages() {
    for m in [
        "fetch failed",
        "Failed to fetch",
        "NetworkError when attempting to fetch resource.",
        "Load failed",
        "Network connection lost.",
    ] {
        assert_class(
            &of(err_named("TypeError").message(m)),
            Transient,
            Network,
            Signal::Message,
        );
        // A plain object with only the message counts too (no name to contradict it).
        assert_class(&of(err_message(m)), Transient, Network, Signal::Message);
    }
}

#[test]
fn rule8_other_errors_with_those_words_are_not_network_faults() {
    assert_class(
        &of(err_named("Error").message("fetch failed")),
        HardFail,
        Unknown,
        Signal::None,
    );
    assert_class(
        &of(err_named("TypeError").message("x is not a function")),
        HardFail,
        Unknown,
        Signal::None,
    );
    assert_class(
        &of(err_named("TypeError").message("fetch failed badly")),
        HardFail,
        Unknown,
        Signal::None,
    );
}

// ---------- rule 9 ----------

#[test]
fn rule9_anything_else_is_hard_fail_unknown_and_says_what_it_was() {
    let c = of(err_named("RangeError").message("Invalid array length\nat foo"));
    assert_class(&c, HardFail, Unknown, Signal::None);
    assert!(c.reason.contains("Invalid array length"), "{}", c.reason);
    assert_class(&of(error()), HardFail, Unknown, Signal::None);
}

// ---------- retryAfterMs ----------

fn retry_after(e: Outcome) -> Option<f64> {
    of(e).retry_after_ms
}

#[test]
fn retry_after_ms_header_in_milliseconds_may_be_fractional() {
    assert_eq!(
        retry_after(http(429).header("retry-after-ms", "1500")),
        Some(1500.0)
    );
    assert_eq!(
        retry_after(http(429).header("retry-after-ms", "1500.25")),
        Some(1500.25)
    );
}

#[test]
fn retry_after_ms_wins_over_retry_after() {
    let e = http(429)
        .header("retry-after", "10")
        .header("retry-after-ms", "250");
    assert_eq!(retry_after(e), Some(250.0));
}

#[test]
fn unparsable_retry_after_ms_falls_back_to_retry_after() {
    let e = http(429)
        .header("retry-after-ms", "soon")
        .header("retry-after", "3");
    assert_eq!(retry_after(e), Some(3000.0));
}

#[test]
fn retry_after_seconds_may_be_fractional() {
    assert_eq!(
        retry_after(http(429).header("retry-after", "2")),
        Some(2000.0)
    );
    assert_eq!(
        retry_after(http(503).header("retry-after", "1.5")),
        Some(1500.0)
    );
    assert_eq!(retry_after(http(503).header("retry-after", "0")), Some(0.0));
}

#[test]
fn retry_after_http_date_minus_now() {
    assert_eq!(
        retry_after(http(503).header("retry-after", DATE)),
        Some(30_000.0)
    );
    let c = classify(
        &http(503).header("retry-after", DATE).info(),
        None,
        DATE_MS - 1234.0,
    );
    assert_eq!(c.retry_after_ms, Some(1234.0));
}

#[test]
fn negative_retry_after_becomes_zero() {
    assert_eq!(
        retry_after(http(429).header("retry-after", "-5")),
        Some(0.0)
    );
    assert_eq!(
        retry_after(http(429).header("retry-after-ms", "-1")),
        Some(0.0)
    );
    // A date in the past.
    let c = classify(
        &http(503).header("retry-after", DATE).info(),
        None,
        DATE_MS + 60_000.0,
    );
    assert_eq!(c.retry_after_ms, Some(0.0));
    // -0 is 0, not a negative zero (which JS tells apart with Object.is, and prints as "-0.0"
    // when the classification is serialised).
    for (name, value) in [("retry-after", "-0"), ("retry-after-ms", "-0.0")] {
        let ms = retry_after(http(429).header(name, value));
        assert_eq!(ms.map(f64::is_sign_positive), Some(true), "{name}: {value}");
    }
}

#[test]
fn unparsable_or_non_finite_retry_after_is_null() {
    for v in [
        "soon",
        "",
        "NaN",
        "inf",
        "Infinity",
        "1e999",
        "0x10",
        "2 seconds",
        "Wed, 99 Foo 2015",
    ] {
        assert_eq!(
            retry_after(http(429).header("retry-after", v)),
            None,
            "retry-after: {v:?}"
        );
        assert_eq!(
            retry_after(http(429).header("retry-after-ms", v)),
            None,
            "retry-after-ms: {v:?}"
        );
    }
    assert_eq!(retry_after(http(429)), None);
}

#[test]
fn retry_after_header_names_are_case_insensitive() {
    assert_eq!(
        retry_after(http(429).header("Retry-After", "2")),
        Some(2000.0)
    );
    assert_eq!(
        retry_after(http(429).header("RETRY-AFTER-MS", "750")),
        Some(750.0)
    );
}

#[test]
fn classified_serialises_with_the_contract_names() {
    let c = of(http(429).header("retry-after", "2"));
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["class"], "transient");
    assert_eq!(json["cause"], "rate-limited");
    assert_eq!(json["signal"], "status");
    assert_eq!(json["retryAfterMs"], 2000.0);
    let none = serde_json::to_value(of(http(401))).unwrap();
    assert!(none["retryAfterMs"].is_null());
    assert_eq!(
        serde_json::to_value(of(http(503).header("x-should-retry", "true"))).unwrap()["signal"],
        "x-should-retry"
    );
}

// ---------- extensions for the official SDKs (docs/DESIGN.md) ----------

fn sdk_error(name: &str, class_name: &str, message: &str) -> ErrorInfo {
    ErrorInfo {
        present: true,
        name: Some(name.into()),
        class_name: Some(class_name.into()),
        messages: vec![message.into()],
        ..ErrorInfo::default()
    }
}

#[test]
fn sdk_connection_error_is_transient_network_by_name_or_class() {
    for e in [
        sdk_error(
            "APIConnectionError",
            "APIConnectionError",
            "Connection error.",
        ),
        // openai leaves `name` as "Error"; the class name still says what it is.
        sdk_error("Error", "APIConnectionError", "Connection error."),
    ] {
        let c = classify(&e, None, 0.0);
        assert_eq!(
            (c.class, c.cause, c.signal),
            (ErrorClass::Transient, Cause::Network, Signal::ErrorType)
        );
    }
}

#[test]
fn sdk_timeout_is_transient_timeout_even_with_an_abort_cause() {
    let mut e = sdk_error("Error", "APIConnectionTimeoutError", "Request timed out.");
    e.codes.push("ABORT_ERR".into());
    let c = classify(&e, None, 0.0);
    assert_eq!((c.class, c.cause), (ErrorClass::Transient, Cause::Timeout));
}

#[test]
fn sdk_user_abort_is_hard_fail_aborted() {
    let c = classify(
        &sdk_error("Error", "APIUserAbortError", "Request was aborted."),
        None,
        0.0,
    );
    assert_eq!((c.class, c.cause), (ErrorClass::HardFail, Cause::Aborted));
}

#[test]
fn sdk_class_names_do_not_override_a_status() {
    let mut e = sdk_error("APIConnectionError", "APIConnectionError", "x");
    e.status = Some(401);
    let c = classify(&e, None, 0.0);
    assert_eq!((c.class, c.cause), (ErrorClass::HardFail, Cause::Auth));
}

#[test]
fn openai_server_error_type_without_status_is_transient() {
    let e = ErrorInfo {
        present: true,
        types: vec!["server_error".into()],
        ..ErrorInfo::default()
    };
    let c = classify(&e, None, 0.0);
    assert_eq!(
        (c.class, c.cause, c.signal),
        (ErrorClass::Transient, Cause::ServerError, Signal::ErrorType)
    );
}

// ---------- issue 10: runtime network failures, aborts by timeout, x-should-retry ----------

#[test]
fn workers_network_connection_lost_is_transient_network_whatever_the_name() {
    // workerd throws a plain `Error` (not a TypeError) with `retryable: true` for a fetch to an
    // unreachable address (tests/js/workerd_network.test.mjs runs the real one).
    for name in [
        Some("Error"),
        Some("TypeError"),
        None,
        Some("MyWrapperError"),
    ] {
        let mut e = err_message("Network connection lost.").info();
        e.name = name.map(String::from);
        assert_class(
            &classify(&e, None, NOW),
            Transient,
            Network,
            Signal::Message,
        );
    }
    // The flag alone says so too.
    let mut flagged = err_named("Error").message("internal error").info();
    flagged.retryable = true;
    assert_class(
        &classify(&flagged, None, NOW),
        Transient,
        Network,
        Signal::ErrorType,
    );
}

#[test]
fn workers_overloaded_flag_is_never_retried() {
    // Cloudflare: "JavaScript Errors with the property .overloaded set to True should not be
    // retried" (developers.cloudflare.com/durable-objects/best-practices/error-handling/).
    let mut e = err_named("Error")
        .message("Durable Object is overloaded.")
        .info();
    e.overloaded = true;
    e.retryable = true;
    assert_class(
        &classify(&e, None, NOW),
        HardFail,
        Overloaded,
        Signal::ErrorType,
    );
}

#[test]
fn axios_err_network_is_transient_network() {
    // axios: `new AxiosError("Network Error", "ERR_NETWORK")` for a request that got no response.
    assert_class(
        &of(err_named("AxiosError")
            .message("Network Error")
            .code("ERR_NETWORK")),
        Transient,
        Network,
        Signal::Code,
    );
}

fn caused_by(mut e: ErrorInfo, cause_name: &str) -> ErrorInfo {
    e.cause_names.push(cause_name.into());
    e
}

#[test]
fn an_abort_caused_by_a_timeout_is_transient_timeout() {
    // The SDKs throw APIUserAbortError whose `cause` is the signal's reason: with
    // `signal: AbortSignal.timeout(ms)` that is a DOMException named TimeoutError.
    let sdk = caused_by(
        sdk_error("Error", "APIUserAbortError", "Request was aborted."),
        "TimeoutError",
    );
    assert_class(
        &classify(&sdk, None, NOW),
        Transient,
        Timeout,
        Signal::ErrorType,
    );
    let dom = caused_by(
        err_named("AbortError").message("aborted").info(),
        "TimeoutError",
    );
    assert_class(
        &classify(&dom, None, NOW),
        Transient,
        Timeout,
        Signal::ErrorType,
    );
    // axios' CanceledError for a signal that timed out.
    let axios = caused_by(
        err_named("CanceledError").code("ERR_CANCELED").info(),
        "TimeoutError",
    );
    assert_class(
        &classify(&axios, None, NOW),
        Transient,
        Timeout,
        Signal::ErrorType,
    );
    // A user's own abort stays an abort, whatever else it wraps.
    let user = caused_by(
        sdk_error("Error", "APIUserAbortError", "Request was aborted."),
        "AbortError",
    );
    assert_class(
        &classify(&user, None, NOW),
        HardFail,
        Aborted,
        Signal::ErrorType,
    );
    // A TimeoutError cause on an error that is not an abort does not make it a timeout.
    let other = caused_by(
        err_named("RangeError").message("bad").info(),
        "TimeoutError",
    );
    assert_class(
        &classify(&other, None, NOW),
        HardFail,
        Unknown,
        Signal::None,
    );
}

#[test]
fn x_should_retry_false_keeps_the_status_cause() {
    for (status, cause) in [
        (429, RateLimited),
        (503, Overloaded),
        (529, Overloaded),
        (500, ServerError),
        (408, Timeout),
        (409, Conflict),
        (404, NotFound),
        (413, TooLarge),
    ] {
        assert_class(
            &of(http(status).header("x-should-retry", "false")),
            HardFail,
            cause,
            Signal::XShouldRetry,
        );
    }
    assert_class(
        &of(http(400)
            .message("prompt is too long: 210000 tokens > 200000 maximum")
            .header("x-should-retry", "false")),
        HardFail,
        ContextOverflow,
        Signal::XShouldRetry,
    );
}

#[test]
fn retry_after_seconds_are_digits_only() {
    // RFC 9110 delta-seconds is 1*DIGIT: "1e3" is not a thousand seconds.
    for v in ["1e3", "1E3", "+5", "1.", ".5", "0x10", "1_000", "5 ", "--1"] {
        assert_eq!(
            retry_after(http(429).header("retry-after", v)),
            // "5 " is trimmed to "5".
            if v == "5 " { Some(5000.0) } else { None },
            "retry-after: {v:?}"
        );
    }
    assert_eq!(
        retry_after(http(429).header("retry-after", "120")),
        Some(120_000.0)
    );
    assert_eq!(
        retry_after(http(429).header("retry-after", "0.25")),
        Some(250.0)
    );
    // retry-after-ms is not HTTP's header: SPEC reads it as a number, exponent included.
    assert_eq!(
        retry_after(http(429).header("retry-after-ms", "1e3")),
        Some(1000.0)
    );
}

/// The gatherer (js/snippets/gather.js) sends `ErrorInfo` by its serde names: every key it writes
/// is a field, and every field is written (the record is the protocol, written once).
#[test]
fn the_gatherer_writes_every_error_info_field_by_its_serde_name() {
    use serde_json::{json, Map, Value};
    let js = include_str!("../js/snippets/gather.js");
    let mut keys: Vec<&str> = js
        .split("add('")
        .skip(1)
        .filter_map(|s| s.split('\'').next())
        .collect();
    keys.push("present"); // written first, without `add`
    let sample = |k: &str| match k {
        "present" | "retryable" | "overloaded" | "flagged" => json!(true),
        "status" => json!(503),
        "name" | "className" => json!("X"),
        "headers" => json!([["retry-after", "2"]]),
        _ => json!(["x"]),
    };
    let mut all = Map::new();
    for k in &keys {
        let one: ErrorInfo = serde_json::from_value(json!({ *k: sample(k) })).unwrap();
        assert_ne!(one, ErrorInfo::default(), "{k} is not an ErrorInfo field");
        all.insert(k.to_string(), sample(k));
    }
    // Destructured without `..`: a new field does not compile here until the gatherer sends it.
    let ErrorInfo {
        present,
        name,
        class_name,
        status,
        headers,
        types,
        codes,
        messages,
        status_texts,
        cause_names,
        retryable,
        overloaded,
        flagged,
    } = serde_json::from_value(Value::Object(all)).unwrap();
    assert!(present && retryable && overloaded && flagged);
    assert_eq!(status, Some(503));
    assert!(name.is_some() && class_name.is_some() && !headers.is_empty());
    for list in [types, codes, messages, status_texts, cause_names] {
        assert_eq!(list, ["x"]);
    }
}

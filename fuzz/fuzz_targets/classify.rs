//! `classify` on an `arbitrary` stand-in for whatever JavaScript throws
//! (mapped to `ErrorInfo` the way src/wasm/read.rs reads it), an optional
//! host validation, and any `now`.
//!
//! Invariants: no panic; `retryAfterMs` is None or finite and >= 0; the
//! reason is non-empty, one line and short; the cause belongs to the class;
//! the same input gives the same result; the result serialises to JSON.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use selfheal::{classify, Cause, Classified, ErrorClass};
use selfheal_fuzz::{is_one_line, JsThrown, JsValidation};

#[derive(Arbitrary, Debug)]
struct Input {
    error: JsThrown,
    validation: Option<JsValidation>,
    now: f64,
}

fn cause_fits(class: ErrorClass, cause: Cause) -> bool {
    use Cause::*;
    let transient = matches!(
        cause,
        RateLimited | Overloaded | ServerError | Timeout | Network | Conflict
    );
    match class {
        ErrorClass::Transient => transient,
        ErrorClass::Repairable => matches!(cause, JsonSyntax | Schema | Truncated),
        ErrorClass::SemanticInvalid => cause == Semantic,
        // `x-should-retry: false` keeps a transient status's cause; Workers' `overloaded`.
        ErrorClass::HardFail => {
            transient
                || matches!(
                    cause,
                    QuotaExhausted
                        | Auth
                        | BadRequest
                        | NotFound
                        | TooLarge
                        | ContextOverflow
                        | Unsupported
                        | Aborted
                        | ContentFilter
                        | Unknown
                )
        }
    }
}

fuzz_target!(|input: Input| {
    let info = input.error.to_error_info();
    let validation = input.validation.as_ref().map(JsValidation::to_validation);
    let c = classify(&info, validation.as_ref(), input.now);
    if let Some(ms) = c.retry_after_ms {
        assert!(ms.is_finite() && ms >= 0.0, "retryAfterMs {ms}");
    }
    assert!(!c.reason.is_empty(), "an empty reason");
    assert!(is_one_line(&c.reason), "not one line: {:?}", c.reason);
    assert!(
        c.reason.chars().count() <= 400,
        "a long reason: {} chars",
        c.reason.chars().count()
    );
    assert!(
        cause_fits(c.class, c.cause),
        "{:?} with {:?}",
        c.class,
        c.cause
    );
    assert_eq!(
        classify(&info, validation.as_ref(), input.now),
        c,
        "deterministic"
    );
    let json = serde_json::to_string(&c).expect("serialises");
    let back: Classified = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, c, "survives JSON: {json}");
});

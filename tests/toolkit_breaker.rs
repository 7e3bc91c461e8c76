//! CircuitBreaker (SPEC section 6): closed → open at the threshold, open →
//! half-open after resetTimeoutMs since the last failure, success closes,
//! a failure while half-open re-opens.

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
use selfheal::{BreakerOptions, BreakerState, CircuitBreaker};
use serde_json::json;

const T0: f64 = 1_000_000.0;

fn breaker(threshold: u32, reset_ms: f64) -> CircuitBreaker {
    CircuitBreaker::try_new(BreakerOptions {
        failure_threshold: threshold,
        reset_timeout_ms: reset_ms,
    })
    .unwrap()
}

#[test]
fn defaults_are_3_failures_and_60_seconds() {
    let o = BreakerOptions::default();
    assert_eq!((o.failure_threshold, o.reset_timeout_ms), (3, 60000.0));
    let b = CircuitBreaker::default();
    assert_eq!(b.state(), BreakerState::Closed);
    assert_eq!(b.failures(), 0);
}

#[test]
fn opens_when_failures_reach_the_threshold() {
    let mut b = breaker(3, 1000.0);
    b.record_failure(T0);
    b.record_failure(T0 + 1.0);
    assert_eq!(b.state(), BreakerState::Closed);
    assert!(!b.is_open(T0 + 2.0));
    b.record_failure(T0 + 2.0);
    assert_eq!(b.state(), BreakerState::Open);
    assert_eq!(b.failures(), 3);
    assert!(b.is_open(T0 + 3.0));
}

#[test]
fn half_open_once_the_reset_timeout_passed_since_the_last_failure() {
    let mut b = breaker(1, 1000.0);
    b.record_failure(T0);
    assert!(b.is_open(T0 + 999.0));
    assert_eq!(b.state(), BreakerState::Open);
    // Counted from the last failure, inclusive.
    assert!(!b.is_open(T0 + 1000.0));
    assert_eq!(b.state(), BreakerState::HalfOpen);
}

#[test]
fn the_reset_timeout_counts_from_the_last_failure_not_the_first() {
    let mut b = breaker(1, 1000.0);
    b.record_failure(T0);
    b.record_failure(T0 + 800.0);
    assert!(b.is_open(T0 + 1000.0));
    assert!(!b.is_open(T0 + 1800.0));
}

#[test]
fn success_closes_and_clears_failures() {
    let mut b = breaker(2, 1000.0);
    b.record_failure(T0);
    b.record_failure(T0);
    assert!(b.is_open(T0));
    b.record_success();
    assert_eq!(b.state(), BreakerState::Closed);
    assert_eq!(b.failures(), 0);
    // One failure after the success is below the threshold again.
    b.record_failure(T0 + 1.0);
    assert!(!b.is_open(T0 + 1.0));
}

#[test]
fn a_failure_while_half_open_reopens_at_once() {
    let mut b = breaker(5, 1000.0);
    for _ in 0..5 {
        b.record_failure(T0);
    }
    assert!(!b.is_open(T0 + 1000.0));
    assert_eq!(b.state(), BreakerState::HalfOpen);
    b.record_failure(T0 + 1000.0);
    assert_eq!(b.state(), BreakerState::Open);
    assert!(b.is_open(T0 + 1999.0));
    assert!(!b.is_open(T0 + 2000.0));
}

#[test]
fn a_late_failure_report_does_not_shorten_an_open_breakers_wait() {
    // A failure stamped by a clock 50 s behind, or reported late, counts as of the last failure.
    let mut b = breaker(1, 60_000.0);
    b.record_failure(T0);
    b.record_failure(T0 - 50_000.0);
    assert_eq!(b.last_failure_at(), Some(T0));
    assert!(b.is_open(T0 + 15_000.0));
    assert!(b.is_open(T0 + 59_999.0));
    assert!(!b.is_open(T0 + 60_000.0));
}

#[test]
fn a_failed_trial_stamped_before_the_breaker_half_opened_still_reopens_it_for_a_whole_reset() {
    // Half-open at T0 + 1000; the trial's failure comes stamped by a clock 2 min behind.
    let mut b = breaker(1, 1000.0);
    b.record_failure(T0);
    assert!(!b.is_open(T0 + 1000.0));
    b.record_failure(T0 + 1000.0 - 120_000.0);
    assert_eq!(b.state(), BreakerState::Open);
    assert_eq!(b.last_failure_at(), Some(T0 + 1000.0));
    assert!(b.is_open(T0 + 1999.0));
    assert!(!b.is_open(T0 + 2000.0));
}

#[test]
fn a_success_forgets_the_last_failure_so_a_stamp_far_ahead_does_not_outlive_it() {
    // A failure stamped an hour ahead (a wrong clock), then a success: the next failure opens the
    // breaker for resetTimeoutMs from its own time, not from that stamp.
    let mut b = breaker(1, 60_000.0);
    b.record_failure(T0 + 3_600_000.0);
    b.record_success();
    assert_eq!(b.last_failure_at(), None);
    b.record_failure(T0 + 600_000.0);
    assert!(b.is_open(T0 + 659_999.0));
    assert!(!b.is_open(T0 + 660_000.0));
}

#[test]
fn a_success_while_half_open_closes() {
    let mut b = breaker(1, 10.0);
    b.record_failure(T0);
    assert!(!b.is_open(T0 + 10.0));
    b.record_success();
    assert_eq!(b.state(), BreakerState::Closed);
}

#[test]
fn nan_now_keeps_an_open_breaker_open() {
    let mut b = breaker(1, 10.0);
    b.record_failure(T0);
    assert!(b.is_open(f64::NAN));
}

#[test]
fn state_strings_are_the_spec_ones() {
    assert_eq!(
        serde_json::to_value(BreakerState::Closed).unwrap(),
        "closed"
    );
    assert_eq!(serde_json::to_value(BreakerState::Open).unwrap(), "open");
    assert_eq!(
        serde_json::to_value(BreakerState::HalfOpen).unwrap(),
        "half-open"
    );
    assert_eq!(BreakerState::HalfOpen.as_str(), "half-open");
}

#[test]
fn option_checks_name_the_field() {
    let e = CircuitBreaker::try_new(BreakerOptions {
        failure_threshold: 0,
        reset_timeout_ms: 1.0,
    })
    .unwrap_err();
    assert_eq!(e.field, "failureThreshold");
    assert!(e.is_range);
    for bad in [f64::NAN, -1.0, f64::INFINITY] {
        let e = BreakerOptions {
            failure_threshold: 1,
            reset_timeout_ms: bad,
        }
        .check()
        .unwrap_err();
        assert_eq!(e.field, "resetTimeoutMs");
        assert!(e.is_range);
    }
    assert!(BreakerOptions {
        failure_threshold: 1,
        reset_timeout_ms: 0.0
    }
    .check()
    .is_ok());
}

#[test]
fn options_read_from_json_with_defaults() {
    let o: BreakerOptions = serde_json::from_value(json!({"failureThreshold": 5})).unwrap();
    assert_eq!((o.failure_threshold, o.reset_timeout_ms), (5, 60000.0));
}

#[test]
fn state_round_trips_through_json_and_resumes_identically() {
    let mut b = breaker(2, 1000.0);
    b.record_failure(T0);
    b.record_failure(T0 + 5.0);
    let text = serde_json::to_string(&b).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        json!({
            "options": {"failureThreshold": 2, "resetTimeoutMs": 1000.0},
            "state": "open",
            "failures": 2,
            "lastFailureAt": T0 + 5.0
        })
    );
    let mut resumed: CircuitBreaker = serde_json::from_str(&text).unwrap();
    resumed.check().unwrap();
    assert_eq!(resumed, b);
    for now in [T0 + 500.0, T0 + 1005.0] {
        assert_eq!(resumed.is_open(now), b.is_open(now));
        assert_eq!(resumed.state(), b.state());
    }
    resumed.record_failure(T0 + 1010.0);
    b.record_failure(T0 + 1010.0);
    assert_eq!(resumed, b);
}

#[test]
fn a_restored_state_must_be_one_a_breaker_reaches() {
    // An outside review (thirteenth session): a closed breaker whose last failure was in the
    // year 10^290 opened for ever at the first real failures.
    let state = |v: serde_json::Value| {
        let b: CircuitBreaker = serde_json::from_value(v).unwrap();
        b.check().map_err(|e| e.field)
    };
    let opts = json!({ "failureThreshold": 3, "resetTimeoutMs": 60000.0 });
    let ok = [
        json!({ "options": opts, "state": "closed", "failures": 2, "lastFailureAt": T0 }),
        json!({ "options": opts, "state": "open", "failures": 3, "lastFailureAt": T0 }),
        json!({ "options": opts, "state": "half-open", "failures": 1, "lastFailureAt": T0 }),
        json!({ "options": opts, "state": "closed", "failures": 0, "lastFailureAt": null }),
    ];
    for s in ok {
        assert_eq!(state(s.clone()), Ok(()), "{s}");
    }
    let refused = [
        (
            json!({ "options": opts, "state": "closed", "failures": 0, "lastFailureAt": 1e300 }),
            "lastFailureAt",
        ),
        (
            json!({ "options": opts, "state": "closed", "failures": 100, "lastFailureAt": T0 }),
            "failures",
        ),
        (
            json!({ "options": opts, "state": "open", "failures": 0, "lastFailureAt": T0 }),
            "state",
        ),
        (
            json!({ "options": opts, "state": "open", "failures": 3, "lastFailureAt": null }),
            "state",
        ),
        (
            json!({ "options": opts, "state": "half-open", "failures": 1, "lastFailureAt": null }),
            "state",
        ),
    ];
    for (s, field) in refused {
        assert_eq!(state(s.clone()), Err(field.to_string()), "{s}");
    }
}

#[test]
fn a_last_failure_more_than_an_hour_ahead_is_a_wrong_clock() {
    // Stamped a day ahead by some clock: the next failures count from their own time, so the
    // breaker half-opens a reset after them, not a day later.
    let mut b = breaker(1, 60_000.0);
    b.record_failure(T0 + 86_400_000.0);
    b.record_success();
    let mut b2: CircuitBreaker = serde_json::from_value(json!({
        "options": { "failureThreshold": 2, "resetTimeoutMs": 60000.0 },
        "state": "closed", "failures": 1, "lastFailureAt": T0 + 86_400_000.0
    }))
    .unwrap();
    b2.record_failure(T0);
    assert_eq!(b2.last_failure_at(), Some(T0));
    assert!(b2.is_open(T0 + 59_999.0));
    assert!(!b2.is_open(T0 + 60_000.0));
    // Less than an hour ahead still holds, as a late report must not shorten a wait.
    let mut b3 = breaker(1, 60_000.0);
    b3.record_failure(T0 + 30_000.0);
    b3.record_failure(T0);
    assert_eq!(b3.last_failure_at(), Some(T0 + 30_000.0));
}

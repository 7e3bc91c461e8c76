//! SPEC section 10: `RetryBudget`, alone and consulted by `RepairLoop::next_with`.

#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
mod common;

use common::*;
use proptest::prelude::*;
use selfheal::toolkit::retry_budget::SLICES;
use selfheal::{
    CircuitBreaker, Instruction, RepairLoop, RetryBudget, RetryBudgetOptions, SchemaCache,
    StopReason,
};

const T0: f64 = 1_700_000_000_000.0;

fn budget(ratio: f64, min_per_second: f64, window_ms: f64) -> RetryBudget {
    RetryBudget::try_new(RetryBudgetOptions {
        ratio,
        min_per_second,
        window_ms,
    })
    .unwrap()
}

/// Resends granted in a row at `now`.
fn drain(b: &mut RetryBudget, now: f64) -> u64 {
    let mut n = 0;
    while b.try_retry(now) {
        n += 1;
        assert!(n < 1_000_000, "the budget never ran out");
    }
    n
}

#[test]
fn defaults_are_finagles_shape_with_spec_numbers() {
    let o = RetryBudgetOptions::default();
    assert_eq!(
        (o.ratio, o.min_per_second, o.window_ms),
        (0.1, 1.0, 10_000.0)
    );
    assert_eq!(o.reserve(), 10.0);
}

#[test]
fn with_no_traffic_only_the_reserve_is_available() {
    let mut b = RetryBudget::default();
    assert_eq!(b.available(), 10);
    assert_eq!(drain(&mut b, T0), 10);
    assert_eq!(b.available(), 0);
    assert!(!b.try_retry(T0));
}

#[test]
fn first_calls_buy_resends_at_the_ratio() {
    let mut b = RetryBudget::default();
    for i in 0..100 {
        b.record_request(T0 + f64::from(i));
    }
    // 0.1 × 100 + 1/s × 10 s.
    assert_eq!(b.available_at(T0 + 100.0), 20);
    assert_eq!(drain(&mut b, T0 + 100.0), 20);
    // Three more first calls: 0.3 more, not yet a whole resend.
    for _ in 0..3 {
        b.record_request(T0 + 101.0);
    }
    assert!(!b.try_retry(T0 + 101.0));
    for _ in 0..7 {
        b.record_request(T0 + 102.0);
    }
    assert!(
        b.try_retry(T0 + 102.0),
        "ten more first calls buy one resend"
    );
}

#[test]
fn the_window_slides() {
    let mut b = budget(0.5, 0.0, 1_000.0);
    for _ in 0..10 {
        b.record_request(T0);
    }
    assert_eq!(drain(&mut b, T0), 5);
    // Within the window nothing comes back.
    assert_eq!(b.available_at(T0 + 800.0), 0);
    // Once both the first calls and the resends have left the window, the budget is empty
    // again: nothing earned, nothing owed.
    assert_eq!(b.available_at(T0 + 1_200.0), 0);
    for _ in 0..4 {
        b.record_request(T0 + 1_200.0);
    }
    assert_eq!(b.available_at(T0 + 1_200.0), 2);
    // Resends are remembered a little longer than first calls (conservative: module docs).
    let mut c = budget(1.0, 0.0, 1_000.0);
    c.record_request(T0);
    assert!(c.try_retry(T0 + 50.0));
    c.record_request(T0 + 950.0);
    assert!(
        !c.try_retry(T0 + 1_020.0),
        "the resend at +50 is still within (t - window, t]"
    );
}

#[test]
fn time_never_goes_back() {
    let mut b = budget(1.0, 0.0, 1_000.0);
    b.record_request(T0 + 5_000.0);
    // An earlier `now` counts as the latest one seen.
    assert!(b.try_retry(T0));
    assert_eq!(b.latest(), Some(T0 + 5_000.0));
    assert!(!b.try_retry(T0 - 1e9));
    // NaN and huge values cannot break it either.
    assert!(!b.try_retry(f64::NAN));
    b.record_request(f64::INFINITY);
    b.record_request(1e300);
    assert!(b.try_retry(1e300));
    assert!(b.check().is_ok());
}

#[test]
fn a_refused_resend_changes_nothing() {
    // A host that mirrors a loop (which asks `can_retry`) must end with the loop's state:
    // found by the fleet coordinator (examples/fleet).
    let mut b = budget(0.0, 0.0, 1_000.0);
    b.record_request(T0);
    let before = b.clone();
    assert!(!b.try_retry(T0 + 500.0));
    assert_eq!(b, before, "a refusal moved the window");
    assert_eq!(b.latest(), Some(T0));
}

#[test]
fn bad_options_name_their_field() {
    for (o, field) in [
        (
            RetryBudgetOptions {
                ratio: -0.1,
                ..Default::default()
            },
            "ratio",
        ),
        (
            RetryBudgetOptions {
                ratio: f64::NAN,
                ..Default::default()
            },
            "ratio",
        ),
        (
            RetryBudgetOptions {
                min_per_second: f64::INFINITY,
                ..Default::default()
            },
            "minPerSecond",
        ),
        (
            RetryBudgetOptions {
                window_ms: 9.0,
                ..Default::default()
            },
            "windowMs",
        ),
        (
            RetryBudgetOptions {
                window_ms: f64::NAN,
                ..Default::default()
            },
            "windowMs",
        ),
    ] {
        let e = RetryBudget::try_new(o).unwrap_err();
        assert_eq!((e.field.as_str(), e.is_range), (field, true), "{o:?}");
    }
}

#[test]
fn state_round_trips_and_a_forged_state_is_refused() {
    let mut b = budget(0.2, 0.5, 4_000.0);
    for i in 0..37 {
        b.record_request(T0 + f64::from(i) * 97.0);
    }
    drain(&mut b, T0 + 3_000.0);
    let json = serde_json::to_value(&b).unwrap();
    assert_eq!(
        json["options"],
        serde_json::json!({ "ratio": 0.2, "minPerSecond": 0.5, "windowMs": 4000.0 })
    );
    assert_eq!(json["buckets"].as_array().unwrap().len(), SLICES + 1);
    let mut back: RetryBudget = serde_json::from_value(json.clone()).unwrap();
    assert!(back.check().is_ok());
    assert_eq!(back, b);
    for t in [3_000.0, 3_500.0, 6_000.0, 9_000.0] {
        b.record_request(T0 + t);
        back.record_request(T0 + t);
        assert_eq!(back.try_retry(T0 + t), b.try_retry(T0 + t));
    }

    let forge = |path: &str, v: serde_json::Value| {
        let mut s = json.clone();
        *s.pointer_mut(path).unwrap() = v;
        s
    };
    let refused_by_check = [
        forge("/options/ratio", serde_json::json!(-1)),
        forge("/options/windowMs", serde_json::json!(0)),
        forge("/buckets/0/slot", serde_json::json!(0.5)),
        forge(
            "/buckets/0/requests",
            serde_json::json!(9_007_199_254_740_992u64),
        ),
        // An outside review (thirteenth session): a `latest` past a Date's range froze the
        // window and made every later state unreadable; one bucket copied into every place
        // multiplied the allowance.
        forge("/latest", serde_json::json!(1e308)),
        forge("/latest", serde_json::json!(-8.7e15)),
        forge("/buckets", {
            let busy = json["buckets"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["requests"].as_u64() > Some(0))
                .unwrap()
                .clone();
            serde_json::json!(vec![busy; SLICES + 1])
        }),
    ];
    for s in refused_by_check {
        let b: RetryBudget = serde_json::from_value(s.clone()).unwrap();
        assert!(b.check().is_err(), "{s}");
    }
    // The ring has a fixed size: more or fewer buckets do not even deserialise.
    let mut longer = json.clone();
    longer["buckets"]
        .as_array_mut()
        .unwrap()
        .push(json["buckets"][0].clone());
    assert!(serde_json::from_value::<RetryBudget>(longer).is_err());
    assert!(
        serde_json::from_value::<RetryBudget>(forge("/buckets", serde_json::json!([]))).is_err()
    );
}

#[test]
fn memory_is_bounded_whatever_the_traffic() {
    let mut b = RetryBudget::default();
    let empty = serde_json::to_string(&b).unwrap().len();
    for i in 0..200_000 {
        b.record_request(T0 + f64::from(i));
        let _ = b.try_retry(T0 + f64::from(i));
    }
    let json = serde_json::to_value(&b).unwrap();
    assert_eq!(json["buckets"].as_array().unwrap().len(), SLICES + 1);
    assert!(serde_json::to_string(&b).unwrap().len() < empty + 400);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whenever a resend is granted at `t`, the resends granted in `(t - window, t]` are within
    /// `ratio × first calls in (t - window, t] + reserve` (exactly, not only per bucket).
    #[test]
    fn granted_resends_stay_within_the_bound_at_every_grant(
        ratio in prop_oneof![Just(0.1), 0.0f64..2.0],
        min_per_second in prop_oneof![Just(1.0), Just(0.0), 0.0f64..5.0],
        window_ms in prop_oneof![Just(10_000.0), 10.0f64..20_000.0],
        steps in prop::collection::vec((0u32..3_000, any::<bool>()), 1..400),
    ) {
        let mut b = budget(ratio, min_per_second, window_ms);
        let reserve = min_per_second * window_ms / 1000.0;
        let mut now = T0;
        let mut requests: Vec<f64> = Vec::new();
        let mut retries: Vec<f64> = Vec::new();
        for (dt, is_request) in steps {
            now += f64::from(dt);
            if is_request {
                b.record_request(now);
                requests.push(now);
            } else if b.try_retry(now) {
                retries.push(now);
                let within = |xs: &[f64]| xs.iter().filter(|&&x| x > now - window_ms && x <= now).count() as f64;
                prop_assert!(
                    within(&retries) <= ratio * within(&requests) + reserve + 1e-6,
                    "at {}: {} resends, {} first calls", now - T0, within(&retries), within(&requests)
                );
            }
        }
    }
}

// ---------------------------------------------------------------- in the loop

fn fast_loop() -> RepairLoop {
    let mut c = config();
    c.backoff = plain_backoff(100.0, 1_000.0);
    city_loop(c)
}

#[test]
fn the_loop_records_its_first_call_and_spends_a_resend_per_call_it_asks_for() {
    let mut b = budget(1.0, 0.0, 10_000.0);
    let mut l = fast_loop();
    // First call fails: recorded (1 first call), so one resend is allowed.
    let i = l.next_with(http(503), T0, None, Some(&mut b));
    assert!(matches!(i, Instruction::WaitForBackoff { .. }), "{i:?}");
    assert_eq!(b.available(), 0);
    // The resend fails too: no resend left.
    let i = l.next_with(http(503), T0 + 100.0, None, Some(&mut b));
    assert_eq!(shape(&i), "degrade retry-budget-exhausted/2");
    assert_eq!(stop_reason(&i), StopReason::RetryBudgetExhausted);
    assert_eq!(classified(&i).cause, selfheal::Cause::Overloaded);
    // The refused resend was not counted, and a final instruction repeats without touching it.
    let again = l.next_with(http(503), T0 + 200.0, None, Some(&mut b));
    assert_eq!(again, i);
    assert_eq!(l.report().calls, 2);
}

#[test]
// A schema failure decides here: needs the validator (not in selfheal/lite).
#[cfg(feature = "validate")]
fn repair_prompts_ask_the_budget_too_and_done_spends_nothing() {
    let mut b = budget(0.0, 0.0, 10_000.0);
    let mut l = fast_loop();
    let i = l.next_with(reply(WRONG_SHAPE), T0, None, Some(&mut b));
    assert_eq!(shape(&i), "degrade retry-budget-exhausted/1");
    assert!(
        l.report().repaired == 0,
        "a refused repair prompt was not sent"
    );

    let mut b = budget(1.0, 0.0, 10_000.0);
    let mut l = fast_loop();
    let out = [
        l.next_with(reply(WRONG_SHAPE), T0, None, Some(&mut b)),
        l.next_with(reply(CITY), T0 + 10.0, None, Some(&mut b)),
    ];
    assert_eq!(shapes(&out), ["fix #2", "done repaired/2"]);
    assert_eq!(
        b.available_at(T0 + 10.0),
        0,
        "one resend spent, the first call recorded once"
    );
}

#[test]
fn the_breaker_is_asked_before_the_budget() {
    let mut b = budget(1.0, 0.0, 10_000.0);
    let mut breaker = CircuitBreaker::default();
    for _ in 0..3 {
        breaker.record_failure(T0);
    }
    let mut l = fast_loop();
    let i = l.next_with(http(503), T0, Some(&mut breaker), Some(&mut b));
    assert_eq!(shape(&i), "degrade circuit-open/1");
    assert_eq!(
        b.available_at(T0),
        1,
        "nothing spent on a call the breaker refused"
    );
}

#[test]
fn a_loop_restored_from_a_snapshot_does_not_record_its_first_call_twice() {
    let mut b = budget(1.0, 0.0, 10_000.0);
    let mut l = fast_loop();
    let _ = l.next_with(http(503), T0, None, Some(&mut b));
    let snapshot = l.to_snapshot();
    let mut back = RepairLoop::from_snapshot(snapshot, &mut SchemaCache::default()).unwrap();
    let i = back.next_with(http(503), T0 + 100.0, None, Some(&mut b));
    assert_eq!(shape(&i), "degrade retry-budget-exhausted/2");
}

#[test]
fn without_a_budget_next_with_is_next() {
    let mut a = fast_loop();
    let mut b = fast_loop();
    for (k, o) in [http(503), http(429), reply(CITY)].into_iter().enumerate() {
        let now = T0 + 1_000.0 * k as f64;
        assert_eq!(
            a.next_with(o.clone(), now, None, None),
            b.next(o, now, None)
        );
    }
}

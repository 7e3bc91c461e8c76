//! FallbackChain (SPEC section 6): primary, then fallbacks in order, a
//! circuit breaker per tool, default or exhausted when every tool failed.

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
use selfheal::{BreakerState, ChainResult, ChainStep, FallbackChain, FallbackOptions};
use serde_json::json;

const T0: f64 = 1_000_000.0;

fn options() -> FallbackOptions {
    FallbackOptions::new("primary", &["backup", "cache"], 5000.0)
}

fn call(tool: &str, fallback: bool) -> ChainStep {
    ChainStep::Call {
        tool: tool.into(),
        timeout_ms: 5000.0,
        fallback,
    }
}

fn fail() -> ChainResult {
    ChainResult::failed("boom")
}

#[test]
fn options_defaults_and_json_names() {
    let o: FallbackOptions = serde_json::from_value(json!({
        "primary": "a", "fallbacks": ["b"], "timeoutMs": 100
    }))
    .unwrap();
    assert_eq!(o.failure_threshold, 3);
    assert_eq!(o.reset_timeout_ms, 60000.0);
    assert_eq!(o.default_value, None);
    // A present null is a given default.
    let o: FallbackOptions = serde_json::from_value(json!({
        "primary": "a", "fallbacks": [], "timeoutMs": 100, "defaultValue": null
    }))
    .unwrap();
    assert_eq!(o.default_value, Some(serde_json::Value::Null));
}

#[test]
fn start_calls_the_primary_and_success_is_done() {
    let mut c = FallbackChain::new(options()).unwrap();
    let s = c.start(T0);
    assert_eq!(s, call("primary", false));
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!({"type": "call", "tool": "primary", "timeoutMs": 5000.0, "fallback": false})
    );
    let d = c.next(ChainResult::ok(), T0 + 1.0);
    assert_eq!(
        serde_json::to_value(&d).unwrap(),
        json!({"type": "done", "toolUsed": "primary", "usedFallback": false})
    );
}

#[test]
fn a_failure_moves_to_the_next_tool_in_order() {
    let mut c = FallbackChain::new(options()).unwrap();
    let _ = c.start(T0);
    assert_eq!(c.next(fail(), T0 + 1.0), call("backup", true));
    assert_eq!(c.next(fail(), T0 + 2.0), call("cache", true));
    assert_eq!(
        c.next(ChainResult::ok(), T0 + 3.0),
        ChainStep::Done {
            tool_used: "cache".into(),
            used_fallback: true
        }
    );
    assert_eq!(c.tried(), &["primary", "backup", "cache"]);
    assert_eq!(c.failures().len(), 2);
    assert_eq!(c.failures()[0].error.as_deref(), Some("boom"));
}

#[test]
fn results_go_to_that_tools_breaker() {
    let mut c = FallbackChain::new(options()).unwrap();
    let _ = c.start(T0);
    let _ = c.next(fail(), T0);
    let _ = c.next(ChainResult::ok(), T0);
    assert_eq!(c.breaker_of("primary").unwrap().failures(), 1);
    assert_eq!(c.breaker_of("backup").unwrap().failures(), 0);
    assert_eq!(c.breaker_of("cache").unwrap().failures(), 0);
}

#[test]
fn every_tool_failed_with_a_default_gives_the_default() {
    let mut o = options();
    o.default_value = Some(json!({"answer": "unknown"}));
    let mut c = FallbackChain::new(o).unwrap();
    let _ = c.start(T0);
    let _ = c.next(fail(), T0);
    let _ = c.next(fail(), T0);
    let s = c.next(fail(), T0);
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!({"type": "default", "value": {"answer": "unknown"}})
    );
}

#[test]
fn a_null_default_is_still_a_default() {
    let mut o = FallbackOptions::new("a", &[], 10.0);
    o.default_value = Some(serde_json::Value::Null);
    let mut c = FallbackChain::new(o).unwrap();
    let _ = c.start(T0);
    assert_eq!(
        serde_json::to_value(c.next(fail(), T0)).unwrap(),
        json!({"type": "default", "value": null})
    );
}

#[test]
fn every_tool_failed_without_a_default_is_exhausted_with_the_tried_list() {
    let mut c = FallbackChain::new(options()).unwrap();
    let _ = c.start(T0);
    let _ = c.next(fail(), T0);
    let _ = c.next(fail(), T0);
    let s = c.next(fail(), T0);
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!({"type": "exhausted", "tried": ["primary", "backup", "cache"]})
    );
}

#[test]
fn final_steps_are_sticky() {
    let mut c = FallbackChain::new(options()).unwrap();
    let _ = c.start(T0);
    let done = c.next(ChainResult::ok(), T0);
    let before = c.clone();
    assert_eq!(c.next(fail(), T0 + 1.0), done);
    assert_eq!(c.next(ChainResult::ok(), T0 + 2.0), done);
    // Nothing was recorded on any breaker.
    assert_eq!(c, before);

    let mut c = FallbackChain::new(FallbackOptions::new("a", &[], 10.0)).unwrap();
    let _ = c.start(T0);
    let ex = c.next(fail(), T0);
    assert!(ex.is_final());
    assert_eq!(c.next(ChainResult::ok(), T0), ex);
}

#[test]
fn an_open_breaker_skips_its_tool_and_closes_again_after_the_reset_timeout() {
    let mut o = options();
    o.failure_threshold = 2;
    o.reset_timeout_ms = 1000.0;
    let mut c = FallbackChain::new(o).unwrap();
    // Two runs where the primary fails open its breaker.
    for i in 0..2 {
        let t = T0 + i as f64;
        assert_eq!(c.start(t), call("primary", false));
        assert_eq!(c.next(fail(), t), call("backup", true));
        let _ = c.next(ChainResult::ok(), t);
    }
    assert_eq!(c.breaker_of("primary").unwrap().state(), BreakerState::Open);
    // Next run: straight to the first fallback whose breaker is closed.
    assert_eq!(c.start(T0 + 500.0), call("backup", true));
    assert_eq!(
        c.next(ChainResult::ok(), T0 + 500.0),
        ChainStep::Done {
            tool_used: "backup".into(),
            used_fallback: true
        }
    );
    assert_eq!(c.tried(), &["backup"]);
    // After the reset timeout the primary is tried again (half-open) ...
    assert_eq!(c.start(T0 + 1001.0), call("primary", false));
    assert_eq!(
        c.breaker_of("primary").unwrap().state(),
        BreakerState::HalfOpen
    );
    // ... and one failure re-opens it.
    assert_eq!(c.next(fail(), T0 + 1001.0), call("backup", true));
    assert_eq!(c.breaker_of("primary").unwrap().state(), BreakerState::Open);
    assert_eq!(c.start(T0 + 1500.0), call("backup", true));
}

#[test]
fn an_open_breaker_later_in_the_chain_is_skipped_too() {
    let mut o = options();
    o.failure_threshold = 1;
    let mut c = FallbackChain::new(o).unwrap();
    let _ = c.start(T0);
    let _ = c.next(fail(), T0);
    let _ = c.next(fail(), T0); // backup opens
    let _ = c.next(ChainResult::ok(), T0); // cache works
                                           // primary and backup both open: the run starts at cache.
    assert_eq!(c.start(T0 + 1.0), call("cache", true));
    // cache fails: nothing left.
    assert_eq!(
        c.next(fail(), T0 + 1.0),
        ChainStep::Exhausted {
            tried: vec!["cache".into()]
        }
    );
}

#[test]
fn every_breaker_open_at_start_gives_default_or_exhausted_without_a_call() {
    let mut o = FallbackOptions::new("a", &["b"], 10.0);
    o.failure_threshold = 1;
    let mut c = FallbackChain::new(o.clone()).unwrap();
    let _ = c.start(T0);
    let _ = c.next(fail(), T0);
    let _ = c.next(fail(), T0);
    assert_eq!(c.start(T0 + 1.0), ChainStep::Exhausted { tried: vec![] });

    o.default_value = Some(json!(0));
    let mut c = FallbackChain::new(o).unwrap();
    let _ = c.start(T0);
    let _ = c.next(fail(), T0);
    let _ = c.next(fail(), T0);
    assert_eq!(c.start(T0 + 1.0), ChainStep::Default { value: json!(0) });
}

#[test]
fn next_before_start_acts_as_start() {
    let mut c = FallbackChain::new(options()).unwrap();
    assert_eq!(c.next(fail(), T0), call("primary", false));
    assert_eq!(c.breaker_of("primary").unwrap().failures(), 0);
}

#[test]
fn a_tool_listed_twice_shares_one_breaker() {
    let mut o = FallbackOptions::new("a", &["b", "a"], 10.0);
    o.failure_threshold = 2;
    let mut c = FallbackChain::new(o).unwrap();
    let _ = c.start(T0);
    let _ = c.next(fail(), T0);
    assert_eq!(
        c.next(fail(), T0),
        ChainStep::Call {
            tool: "a".into(),
            timeout_ms: 10.0,
            fallback: true
        }
    );
    assert_eq!(c.breaker_of("a").unwrap().failures(), 1);
    // Its second failure opens the shared breaker.
    let _ = c.next(fail(), T0);
    assert_eq!(c.breaker_of("a").unwrap().state(), BreakerState::Open);
}

#[test]
fn option_checks_name_the_field() {
    let cases: Vec<(FallbackOptions, &str)> = vec![
        (FallbackOptions::new("", &[], 10.0), "primary"),
        (FallbackOptions::new("a", &["b", ""], 10.0), "fallbacks[1]"),
        (FallbackOptions::new("a", &[], 0.0), "timeoutMs"),
        (FallbackOptions::new("a", &[], f64::NAN), "timeoutMs"),
        (FallbackOptions::new("a", &[], f64::INFINITY), "timeoutMs"),
        (
            FallbackOptions {
                failure_threshold: 0,
                ..FallbackOptions::new("a", &[], 10.0)
            },
            "failureThreshold",
        ),
        (
            FallbackOptions {
                reset_timeout_ms: -1.0,
                ..FallbackOptions::new("a", &[], 10.0)
            },
            "resetTimeoutMs",
        ),
    ];
    for (o, field) in cases {
        let e = FallbackChain::new(o).unwrap_err();
        assert_eq!(e.field, field);
        assert!(e.is_range);
    }
}

#[test]
fn breakers_are_keyed_by_tool_name_in_the_state() {
    let c = FallbackChain::new(options()).unwrap();
    let v = serde_json::to_value(&c).unwrap();
    let breakers = v["breakers"].as_object().unwrap();
    let mut keys: Vec<&str> = breakers.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["backup", "cache", "primary"]);
    assert_eq!(breakers["primary"]["state"], "closed");
}

#[test]
fn state_round_trips_through_json_and_resumes_identically() {
    let mut o = options();
    o.failure_threshold = 1;
    o.default_value = Some(serde_json::Value::Null);
    let mut a = FallbackChain::new(o).unwrap();
    let _ = a.start(T0);
    let _ = a.next(fail(), T0 + 1.0);
    let text = serde_json::to_string(&a).unwrap();
    let mut b: FallbackChain = serde_json::from_str(&text).unwrap();
    b.check().unwrap();
    assert_eq!(a, b);
    // The null default survives the trip.
    assert_eq!(b.options().default_value, Some(serde_json::Value::Null));
    let script = [
        (fail(), T0 + 2.0),
        (fail(), T0 + 3.0),
        (ChainResult::ok(), T0 + 4.0),
    ];
    for (r, now) in script {
        assert_eq!(a.next(r.clone(), now), b.next(r, now));
    }
    assert_eq!(a.start(T0 + 10.0), b.start(T0 + 10.0));
    assert_eq!(a.start(T0 + 70_000.0), b.start(T0 + 70_000.0));
    assert_eq!(a, b);
}

#[test]
fn a_failure_the_request_brought_on_moves_on_without_counting_against_the_tool() {
    // Three oversized prompts used to open every tool's breaker: for 60 s, every request was
    // `exhausted` without a call.
    use selfheal::Cause;
    let mut o = options();
    o.failure_threshold = 1;
    let mut c = FallbackChain::new(o).unwrap();
    for cause in [
        Cause::ContextOverflow,
        Cause::BadRequest,
        Cause::TooLarge,
        Cause::ContentFilter,
    ] {
        let result = |cause| ChainResult {
            cause: Some(cause),
            ..ChainResult::failed("400")
        };
        assert_eq!(c.start(T0), call("primary", false));
        assert_eq!(c.next(result(cause), T0), call("backup", true), "{cause:?}");
        assert_eq!(c.next(result(cause), T0), call("cache", true), "{cause:?}");
        assert_eq!(c.failures().len(), 2, "still kept for the host: {cause:?}");
        for tool in ["primary", "backup"] {
            assert_eq!(c.breaker_of(tool).unwrap().failures(), 0, "{cause:?}");
        }
    }
    // The tool's own trouble counts: open at once with a threshold of 1.
    // An abort too: it is how a host enforces the step's timeoutMs.
    for cause in [
        Some(Cause::ServerError),
        Some(Cause::Auth),
        Some(Cause::Aborted),
        Some(Cause::Unknown),
        None,
    ] {
        let mut o = options();
        o.failure_threshold = 1;
        let mut c = FallbackChain::new(o).unwrap();
        let _ = c.start(T0);
        let result = ChainResult {
            cause,
            ..ChainResult::failed("boom")
        };
        let _ = c.next(result, T0);
        assert_eq!(
            c.breaker_of("primary").unwrap().state(),
            BreakerState::Open,
            "{cause:?}"
        );
    }
}

#[test]
fn a_restored_chain_calls_only_the_tool_at_its_position() {
    // An outside review (thirteenth session): `position: 50` on three tools gave `done` with
    // tool "", and a null position with a call out repeated the call for ever.
    let mut chain = FallbackChain::new(options()).unwrap();
    assert_eq!(chain.start(T0), call("primary", false));
    let json = serde_json::to_value(&chain).unwrap();
    let restored = |v: serde_json::Value| {
        serde_json::from_value::<FallbackChain>(v)
            .unwrap()
            .check()
            .map_err(|e| e.field)
    };
    assert_eq!(restored(json.clone()), Ok(()));
    for position in [json!(50), json!(1), json!(null)] {
        let mut s = json.clone();
        s["position"] = position;
        assert_eq!(restored(s.clone()), Err("position".to_string()), "{s}");
    }
    // No call out, no position.
    let _ = chain.next(ChainResult::ok(), T0 + 1.0);
    let done = serde_json::to_value(&chain).unwrap();
    assert_eq!(restored(done.clone()), Ok(()));
    let mut s = done;
    s["position"] = json!(0);
    assert_eq!(restored(s), Err("position".to_string()));
    // A breaker's error says whose.
    let mut s = json;
    s["breakers"]["backup"]["failures"] = json!(99);
    assert_eq!(restored(s), Err("breakers.backup.failures".to_string()));
}

//! AgentBudget (SPEC section 6): iterations, then input, then output;
//! "nearly done" above 80% of either token budget; the next call's cap; the
//! wrap-up hint.

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
use selfheal::{AgentBudget, AgentBudgetOptions, BudgetStatus, Locale, Usage};
use serde_json::json;

fn usage(input_tokens: u64, output_tokens: u64) -> Usage {
    Usage {
        input_tokens,
        output_tokens,
    }
}

fn budget(max_in: u64, max_out: u64, max_iter: u32) -> AgentBudget {
    AgentBudget::new(AgentBudgetOptions {
        max_input_tokens: max_in,
        max_output_tokens: max_out,
        max_iterations: max_iter,
    })
    .unwrap()
}

#[test]
fn max_iterations_defaults_to_20() {
    let o: AgentBudgetOptions =
        serde_json::from_value(json!({"maxInputTokens": 1000, "maxOutputTokens": 500})).unwrap();
    assert_eq!(o.max_iterations, 20);
    assert_eq!(AgentBudgetOptions::new(1, 1).max_iterations, 20);
}

#[test]
fn the_token_limits_are_required() {
    assert!(serde_json::from_value::<AgentBudgetOptions>(json!({"maxInputTokens": 1000})).is_err());
    assert!(
        serde_json::from_value::<AgentBudgetOptions>(json!({"maxOutputTokens": 1000})).is_err()
    );
}

#[test]
fn not_exhausted_means_stop_false_and_an_empty_reason() {
    let mut b = budget(1000, 1000, 3);
    b.record(usage(10, 10));
    assert_eq!(
        b.exhausted(),
        BudgetStatus {
            stop: false,
            reason: String::new()
        }
    );
    assert_eq!(
        serde_json::to_value(b.exhausted()).unwrap(),
        json!({"stop": false, "reason": ""})
    );
}

#[test]
fn each_record_is_one_iteration_and_the_iteration_budget_stops_at_its_limit() {
    let mut b = budget(1000, 1000, 2);
    b.record(usage(1, 1));
    assert!(!b.exhausted().stop);
    b.record(usage(1, 1));
    assert_eq!(b.iterations(), 2);
    let s = b.exhausted();
    assert!(s.stop);
    assert!(
        s.reason.contains("iteration") && s.reason.contains("2 of 2"),
        "{}",
        s.reason
    );
}

#[test]
fn input_then_output_budgets_stop_when_reached() {
    let mut b = budget(100, 50, 20);
    b.record(usage(99, 49));
    assert!(!b.exhausted().stop);
    b.record(usage(1, 0));
    let s = b.exhausted();
    assert!(s.stop);
    assert!(
        s.reason.contains("input") && s.reason.contains("100 of 100"),
        "{}",
        s.reason
    );

    let mut b = budget(100, 50, 20);
    b.record(usage(10, 60));
    let s = b.exhausted();
    assert!(s.stop);
    assert!(
        s.reason.contains("output") && s.reason.contains("60 of 50"),
        "{}",
        s.reason
    );
}

#[test]
fn the_order_is_iterations_then_input_then_output() {
    let mut b = budget(10, 10, 1);
    b.record(usage(20, 20));
    assert!(b.exhausted().reason.contains("iteration"));

    let mut b = budget(10, 10, 5);
    b.record(usage(20, 20));
    assert!(b.exhausted().reason.contains("input"));
}

#[test]
fn nearly_done_is_either_ratio_above_80_percent() {
    let mut b = budget(1000, 100, 20);
    b.record(usage(800, 80));
    // Exactly 80% is not above it.
    assert!(!b.nearly_done());
    b.record(usage(1, 0));
    assert!(b.nearly_done());

    let mut b = budget(1000, 100, 20);
    b.record(usage(0, 81));
    assert!(b.nearly_done());
}

#[test]
fn max_tokens_for_next_call_is_the_cap_or_what_is_left() {
    let mut b = budget(1000, 100, 20);
    assert_eq!(b.max_tokens_for_next_call(4096), 100);
    assert_eq!(b.max_tokens_for_next_call(30), 30);
    b.record(usage(0, 70));
    assert_eq!(b.max_tokens_for_next_call(4096), 30);
    b.record(usage(0, 70));
    // Overspent: never negative.
    assert_eq!(b.max_tokens_for_next_call(4096), 0);
}

#[test]
fn hint_is_empty_until_nearly_done_then_asks_to_wrap_up() {
    let mut b = budget(1000, 100, 20);
    for locale in [Locale::En, Locale::Ja, Locale::Zh] {
        assert_eq!(b.hint(locale), "");
    }
    b.record(usage(900, 0));
    let en = b.hint(Locale::En);
    assert!(en.contains("Wrap up"), "{en}");
    assert!(
        en.contains("new branches") && en.contains("new tools"),
        "{en}"
    );
    let ja = b.hint(Locale::Ja);
    let zh = b.hint(Locale::Zh);
    assert!(ja.contains("ツール") && ja.contains("まとめ"), "{ja}");
    assert!(zh.contains("工具") && zh.contains("收尾"), "{zh}");
    assert_ne!(ja, zh);
}

#[test]
fn option_checks_name_the_field() {
    for (o, field) in [
        (AgentBudgetOptions::new(0, 1), "maxInputTokens"),
        (AgentBudgetOptions::new(1, 0), "maxOutputTokens"),
        (
            AgentBudgetOptions {
                max_iterations: 0,
                ..AgentBudgetOptions::new(1, 1)
            },
            "maxIterations",
        ),
    ] {
        let e = AgentBudget::new(o).unwrap_err();
        assert_eq!(e.field, field);
        assert!(e.is_range);
    }
}

#[test]
fn usage_saturates_instead_of_overflowing() {
    let mut b = budget(10, 10, 20);
    b.record(usage(u64::MAX, u64::MAX));
    b.record(usage(u64::MAX, u64::MAX));
    // Held at Number.MAX_SAFE_INTEGER since 0.2 (the test below), no longer u64::MAX.
    assert_eq!(b.input_tokens(), (1 << 53) - 1);
    assert!(b.nearly_done());
    assert_eq!(b.max_tokens_for_next_call(100), 0);
}

#[test]
fn state_round_trips_through_json_and_resumes_identically() {
    let mut a = budget(1000, 200, 4);
    a.record(usage(300, 50));
    a.record(usage(200, 60));
    let text = serde_json::to_string(&a).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        json!({
            "options": {"maxInputTokens": 1000, "maxOutputTokens": 200, "maxIterations": 4},
            "iterations": 2, "inputTokens": 500, "outputTokens": 110
        })
    );
    let mut b: AgentBudget = serde_json::from_str(&text).unwrap();
    b.check().unwrap();
    assert_eq!(a, b);
    for u in [usage(100, 20), usage(300, 30), usage(0, 0)] {
        a.record(u);
        b.record(u);
        assert_eq!(a.exhausted(), b.exhausted());
        assert_eq!(a.nearly_done(), b.nearly_done());
        assert_eq!(
            a.max_tokens_for_next_call(64),
            b.max_tokens_for_next_call(64)
        );
        assert_eq!(a.hint(Locale::En), b.hint(Locale::En));
    }
    assert_eq!(a, b);
}

#[test]
fn token_sums_stop_at_max_safe_integer_so_the_state_reads_back_in_js() {
    // Each call's usage is at most 2^53 - 1 from JS; their sum is held there too (a JS number
    // past it is not exact, and fromJSON reads whole numbers up to it), and the budget is spent.
    const MAX_SAFE: u64 = (1 << 53) - 1;
    let mut b = budget(MAX_SAFE, MAX_SAFE, 20);
    b.record(usage(MAX_SAFE, 1));
    b.record(usage(MAX_SAFE, u64::MAX));
    assert_eq!((b.input_tokens(), b.output_tokens()), (MAX_SAFE, MAX_SAFE));
    assert!(b.exhausted().stop);
    let state = serde_json::to_value(&b).unwrap();
    assert_eq!(state["inputTokens"], json!(MAX_SAFE));
    let back: AgentBudget = serde_json::from_value(state).unwrap();
    assert_eq!(back, b);
}

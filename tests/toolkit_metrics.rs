//! Metrics (SPEC section 6): windowed summary, alerts, JSONL, bounded memory.

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
use selfheal::toolkit::metrics::{DEFAULT_SUMMARY_WINDOW_MS, MAX_EVENTS};
use selfheal::{Alert, AlertLevel, HealingEvent, Metrics};
use serde_json::json;

const NOW: f64 = 1_700_000_000_000.0;
const MIN: f64 = 60_000.0;

fn event(at: f64, category: &str, success: bool) -> HealingEvent {
    HealingEvent {
        timestamp: at,
        task_id: "task-1".into(),
        error_category: category.into(),
        severity: "medium".into(),
        strategy: "retry".into(),
        success,
        duration_ms: 100.0,
        tokens_used: 10,
        degraded: false,
    }
}

fn metrics(events: impl IntoIterator<Item = HealingEvent>) -> Metrics {
    let mut m = Metrics::new();
    for e in events {
        m.record(e);
    }
    m
}

fn levels(alerts: &[Alert]) -> Vec<AlertLevel> {
    alerts.iter().map(|a| a.level).collect()
}

#[test]
fn an_empty_summary_is_all_zero() {
    let s = Metrics::new().summary(DEFAULT_SUMMARY_WINDOW_MS, NOW);
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!({
            "total": 0, "successRate": 0.0, "failureRate": 0.0, "avgDurationMs": 0.0,
            "totalTokensUsed": 0, "byCategory": {}, "degradedCount": 0
        })
    );
    assert_eq!(DEFAULT_SUMMARY_WINDOW_MS, 3_600_000.0);
}

#[test]
fn summary_figures() {
    let mut a = event(NOW - 1000.0, "transient", true);
    a.duration_ms = 100.0;
    a.tokens_used = 50;
    let mut b = event(NOW - 2000.0, "transient", false);
    b.duration_ms = 300.0;
    b.tokens_used = 70;
    b.degraded = true;
    let mut c = event(NOW - 3000.0, "repairable", true);
    c.duration_ms = 200.0;
    c.tokens_used = 0;
    let s = metrics([a, b, c]).summary(DEFAULT_SUMMARY_WINDOW_MS, NOW);
    assert_eq!(s.total, 3);
    assert!((s.success_rate - 2.0 / 3.0).abs() < 1e-12);
    assert!((s.failure_rate - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(s.avg_duration_ms, 200.0);
    assert_eq!(s.total_tokens_used, 120);
    assert_eq!(s.degraded_count, 1);
    assert_eq!(
        serde_json::to_value(&s.by_category).unwrap(),
        json!({"repairable": 1, "transient": 2})
    );
}

#[test]
fn the_window_excludes_its_start_and_includes_now() {
    let m = metrics([
        event(NOW - 1000.0, "a", true), // exactly at the start: out
        event(NOW - 999.0, "a", true),  // in
        event(NOW, "a", true),          // in
        event(NOW + 1.0, "a", true),    // future: out
    ]);
    assert_eq!(m.summary(1000.0, NOW).total, 2);
    assert_eq!(m.summary(f64::NAN, NOW).total, 0);
    assert_eq!(m.summary(-5.0, NOW).total, 0);
}

#[test]
fn no_alerts_when_quiet() {
    let m = metrics([
        event(NOW - 1000.0, "a", true),
        event(NOW - 5.0 * MIN, "b", true),
    ]);
    assert!(m.alerts(NOW).is_empty());
    assert!(Metrics::new().alerts(NOW).is_empty());
}

#[test]
fn failure_rate_over_30_percent_in_10_minutes_is_high() {
    // 3 of 10 failed: exactly 30% is not over it. Spread over 10 minutes so
    // no category has 3 events in one minute.
    let spread = |i: usize, ok: bool| event(NOW - (i as f64) * MIN - 1.0, &format!("c{i}"), ok);
    let m = metrics((0..10).map(|i| spread(i, i >= 3)));
    assert!(m.alerts(NOW).is_empty());
    // 4 of 10.
    let m = metrics((0..10).map(|i| spread(i, i >= 4)));
    let alerts = m.alerts(NOW);
    assert_eq!(levels(&alerts), vec![AlertLevel::High]);
    assert!(alerts[0].message.contains("40%"), "{}", alerts[0].message);
    assert!(
        alerts[0].message.contains("4 of 10"),
        "{}",
        alerts[0].message
    );
    // Failures older than 10 minutes do not count.
    let m = metrics([
        event(NOW - 11.0 * MIN, "x", false),
        event(NOW - 1.0, "y", true),
    ]);
    assert!(m.alerts(NOW).is_empty());
}

#[test]
fn more_than_10_events_in_10_minutes_is_medium() {
    let spread = |i: usize| event(NOW - (i as f64) * 50_000.0 - 1.0, &format!("c{i}"), true);
    let m = metrics((0..10).map(spread));
    assert!(m.alerts(NOW).is_empty());
    let m = metrics((0..11).map(spread));
    let alerts = m.alerts(NOW);
    assert_eq!(levels(&alerts), vec![AlertLevel::Medium]);
    assert!(alerts[0].message.contains("11"), "{}", alerts[0].message);
}

#[test]
fn three_events_of_one_category_within_a_minute_is_a_high_cascade() {
    // Successes too: any event counts.
    let m = metrics([
        event(NOW - 50_000.0, "overloaded", true),
        event(NOW - 20_000.0, "overloaded", true),
        event(NOW - 1_000.0, "overloaded", true),
        event(NOW - 1_000.0, "other", true),
    ]);
    let alerts = m.alerts(NOW);
    assert_eq!(levels(&alerts), vec![AlertLevel::High]);
    assert!(
        alerts[0].message.contains("overloaded"),
        "{}",
        alerts[0].message
    );
    assert!(alerts[0].message.contains('3'), "{}", alerts[0].message);
    // Two, or three spread over more than a minute: no cascade.
    let m = metrics([event(NOW - 1.0, "a", true), event(NOW - 2.0, "a", true)]);
    assert!(m.alerts(NOW).is_empty());
    let m = metrics([
        event(NOW - 61_000.0, "a", true),
        event(NOW - 2.0, "a", true),
        event(NOW - 1.0, "a", true),
    ]);
    assert!(m.alerts(NOW).is_empty());
}

#[test]
fn alerts_come_in_order_rate_volume_cascade() {
    let m = metrics((0..12).map(|i| event(NOW - i as f64, "timeout", i % 2 == 0)));
    assert_eq!(
        levels(&m.alerts(NOW)),
        vec![AlertLevel::High, AlertLevel::Medium, AlertLevel::High]
    );
    assert_eq!(
        serde_json::to_value(&m.alerts(NOW)[1]).unwrap()["level"],
        "MEDIUM"
    );
}

#[test]
fn to_jsonl_writes_one_typed_line_per_event() {
    let m = metrics([event(NOW - 2.0, "a", true), event(NOW - 1.0, "b", false)]);
    let text = m.to_jsonl();
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(text.matches('\n').count(), 2);
    assert!(
        lines[0].starts_with(r#"{"type":"healing_event","#),
        "{}",
        lines[0]
    );
    // Each line as JSON.stringify writes the event: whole numbers without `.0` (before:
    // `"timestamp":1699999999999.0`, `"durationMs":100.0`).
    assert_eq!(
        lines[1],
        r#"{"type":"healing_event","timestamp":1699999999999,"taskId":"task-1","errorCategory":"b","severity":"medium","strategy":"retry","success":false,"durationMs":100,"tokensUsed":10,"degraded":false}"#
    );
    assert_eq!(Metrics::new().to_jsonl(), "");
}

#[test]
fn to_jsonl_writes_fractions_and_negative_zero_as_javascript_does() {
    let mut e = event(1.5, "a", true);
    e.duration_ms = -0.0;
    let mut big = event(9_007_199_254_740_992.0, "a", true);
    big.duration_ms = 1e20;
    let text = metrics([e, big]).to_jsonl();
    assert!(
        text.contains(r#""timestamp":1.5,"#) && text.contains(r#""durationMs":0,"#),
        "{text}"
    );
    // Whole numbers in digits up to 1e21, as JS writes them (serde_json: `9007199254740992.0`,
    // `1e20`).
    assert!(
        text.contains(r#""timestamp":9007199254740992,"#)
            && text.contains(r#""durationMs":100000000000000000000,"#),
        "{text}"
    );
}

#[test]
fn memory_is_bounded_by_dropping_the_oldest() {
    let mut m = Metrics::new();
    for i in 0..(MAX_EVENTS + 5) {
        m.record(event(i as f64, "a", true));
    }
    assert_eq!(m.events().len(), MAX_EVENTS);
    assert_eq!(m.dropped(), 5);
    assert_eq!(m.events().next().unwrap().timestamp, 5.0);
}

#[test]
fn events_read_from_json_with_the_spec_field_names() {
    let e: HealingEvent = serde_json::from_value(json!({
        "timestamp": 1.0, "taskId": "t", "errorCategory": "c", "severity": "s",
        "strategy": "x", "success": true, "durationMs": 2.0, "tokensUsed": 3, "degraded": true
    }))
    .unwrap();
    assert_eq!(e.task_id, "t");
    assert!(e.degraded);
}

#[test]
fn state_round_trips_through_json_and_resumes_identically() {
    let mut a = metrics((0..6).map(|i| event(NOW - i as f64 * 1000.0, "c", i % 3 == 0)));
    let text = serde_json::to_string(&a).unwrap();
    let mut b: Metrics = serde_json::from_str(&text).unwrap();
    assert_eq!(a, b);
    for m in [&mut a, &mut b] {
        m.record(event(NOW + 1.0, "d", false));
    }
    assert_eq!(
        a.summary(DEFAULT_SUMMARY_WINDOW_MS, NOW + 2.0),
        b.summary(DEFAULT_SUMMARY_WINDOW_MS, NOW + 2.0)
    );
    assert_eq!(a.alerts(NOW + 2.0), b.alerts(NOW + 2.0));
    assert_eq!(a.to_jsonl(), b.to_jsonl());
    assert_eq!(a, b);
}

#[test]
fn a_restored_log_holds_only_what_record_takes() {
    // An outside review (thirteenth session): 20,000 events and a duration of -5 were restored.
    let mut m = Metrics::new();
    m.record(event(1.0, "parse", true));
    let json = serde_json::to_value(&m).unwrap();
    let check = |v: serde_json::Value| {
        serde_json::from_value::<Metrics>(v)
            .unwrap()
            .check()
            .map_err(|e| e.field)
    };
    assert_eq!(check(json.clone()), Ok(()));
    let mut s = json.clone();
    s["events"][0]["durationMs"] = json!(-5);
    assert_eq!(check(s), Err("events[0].durationMs".to_string()));
    let mut s = json.clone();
    s["events"] = json!(vec![json["events"][0].clone(); MAX_EVENTS + 1]);
    assert_eq!(check(s), Err("events".to_string()));
}

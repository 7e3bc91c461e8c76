//! DegradationLadder (SPEC section 6): partial (only when tools failed) →
//! minimal → unavailable; success appends the level's disclaimer.

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
use selfheal::toolkit::ladder::{apology, disclaimer};
use selfheal::{DegradationLadder, LadderOptions, LadderResult, LadderStep, Level, Locale};
use serde_json::json;

const TASK: &str = "What is the capital of Australia?";

fn ladder(failed: &[&str], light: Option<&str>, locale: Locale) -> DegradationLadder {
    DegradationLadder::new(LadderOptions {
        light_model: light.map(str::to_string),
        locale,
        ..LadderOptions::new(TASK, failed)
    })
    .unwrap()
}

fn level_of(step: &LadderStep) -> Level {
    match step {
        LadderStep::Send { level, .. } | LadderStep::Final { level, .. } => *level,
    }
}

#[test]
fn tools_failed_starts_at_partial_without_tools() {
    let mut l = ladder(&["tools"], Some("light-1"), Locale::En);
    let s = l.start();
    let LadderStep::Send {
        level,
        prompt,
        use_tools,
        model,
    } = &s
    else {
        panic!("{s:?}")
    };
    assert_eq!(*level, Level::Partial);
    assert!(!use_tools);
    assert_eq!(*model, None);
    assert_eq!(prompt.user, TASK);
    assert!(
        prompt.system.contains("Tools are unavailable"),
        "{}",
        prompt.system
    );
    assert!(prompt.system.contains("own knowledge"), "{}", prompt.system);
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["type"], "send");
    assert_eq!(v["level"], "partial");
    assert_eq!(v["useTools"], false);
    assert_eq!(v["model"], serde_json::Value::Null);
    assert_eq!(v["prompt"]["user"], TASK);
}

#[test]
fn other_failures_start_at_minimal_on_the_light_model() {
    let mut l = ladder(&["search"], Some("light-1"), Locale::En);
    let s = l.start();
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["type"], "send");
    assert_eq!(v["level"], "minimal");
    assert_eq!(v["useTools"], false);
    assert_eq!(v["model"], "light-1");
    let LadderStep::Send { prompt, .. } = s else {
        unreachable!()
    };
    assert!(prompt.system.contains("brief"), "{}", prompt.system);
    assert_eq!(prompt.user, TASK);

    let mut l = ladder(&[], None, Locale::En);
    let v = serde_json::to_value(l.start()).unwrap();
    assert_eq!(v["level"], "minimal");
    assert_eq!(v["model"], serde_json::Value::Null);
}

#[test]
fn success_is_final_with_the_levels_disclaimer_appended() {
    let mut l = ladder(&["tools"], None, Locale::En);
    let _ = l.start();
    let f = l.next(LadderResult::ok("Canberra."));
    assert_eq!(
        f,
        LadderStep::Final {
            level: Level::Partial,
            text: format!("Canberra.\n\n{}", disclaimer(Level::Partial, Locale::En)),
        }
    );
    assert!(disclaimer(Level::Partial, Locale::En).contains("without tools"));

    let mut l = ladder(&[], None, Locale::En);
    let _ = l.start();
    let f = l.next(LadderResult::ok("Canberra."));
    assert_eq!(
        serde_json::to_value(&f).unwrap(),
        json!({
            "type": "final",
            "level": "minimal",
            "text": format!("Canberra.\n\n{}", disclaimer(Level::Minimal, Locale::En)),
        })
    );
}

#[test]
fn a_failure_at_partial_steps_down_to_minimal() {
    let mut l = ladder(&["tools", "search"], Some("light-1"), Locale::En);
    let _ = l.start();
    let s = l.next(LadderResult::failed("503"));
    assert_eq!(level_of(&s), Level::Minimal);
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["model"], "light-1");
    assert_eq!(v["useTools"], false);
}

#[test]
fn a_failure_at_minimal_ends_unavailable_with_the_apology() {
    let mut l = ladder(&["tools"], None, Locale::En);
    let _ = l.start();
    let _ = l.next(LadderResult::failed("503"));
    let f = l.next(LadderResult::failed("503"));
    assert_eq!(
        f,
        LadderStep::Final {
            level: Level::Unavailable,
            text: apology(Locale::En).to_string(),
        }
    );
    assert!(apology(Locale::En).starts_with("Sorry"));
}

#[test]
fn an_empty_reply_counts_as_a_failure() {
    let mut l = ladder(&["tools"], None, Locale::En);
    let _ = l.start();
    assert_eq!(level_of(&l.next(LadderResult::ok("  \n"))), Level::Minimal);
}

#[test]
fn final_steps_are_sticky() {
    let mut l = ladder(&[], None, Locale::En);
    let _ = l.start();
    let f = l.next(LadderResult::ok("x"));
    assert_eq!(l.next(LadderResult::failed("later")), f);
    assert_eq!(l.next(LadderResult::ok("other")), f);
}

#[test]
fn next_before_start_acts_as_start() {
    let mut l = ladder(&["tools"], None, Locale::En);
    assert_eq!(
        level_of(&l.next(LadderResult::ok("ignored"))),
        Level::Partial
    );
}

#[test]
fn texts_exist_in_ja_and_zh() {
    let mut seen = Vec::new();
    for locale in [Locale::En, Locale::Ja, Locale::Zh] {
        let mut l = ladder(&["tools"], None, locale);
        let LadderStep::Send {
            prompt: partial, ..
        } = l.start()
        else {
            panic!()
        };
        let LadderStep::Send {
            prompt: minimal, ..
        } = l.next(LadderResult::failed("x"))
        else {
            panic!()
        };
        let LadderStep::Final { text, .. } = l.next(LadderResult::failed("x")) else {
            panic!()
        };
        assert_eq!(text, apology(locale));
        seen.push((partial.system, minimal.system, text));
    }
    for (p, m, a) in &seen[1..] {
        assert!(p.contains("ツール") || p.contains("工具"), "{p}");
        assert!(!m.is_empty() && !a.is_empty());
        assert!(!a.is_ascii());
    }
    assert_ne!(seen[1], seen[2]);
    assert_ne!(seen[0], seen[1]);
    for level in [Level::Partial, Level::Minimal] {
        assert!(!disclaimer(level, Locale::Ja).is_ascii());
        assert!(!disclaimer(level, Locale::Zh).is_ascii());
    }
}

#[test]
fn options_read_from_json() {
    let o: LadderOptions = serde_json::from_value(json!({
        "task": "t", "failedCapabilities": ["tools"], "lightModel": "m", "locale": "ja"
    }))
    .unwrap();
    assert_eq!(o.light_model.as_deref(), Some("m"));
    assert_eq!(o.locale, Locale::Ja);
    let o: LadderOptions =
        serde_json::from_value(json!({"task": "t", "failedCapabilities": []})).unwrap();
    assert_eq!((o.light_model, o.locale), (None, Locale::En));
}

#[test]
fn option_checks_name_the_field() {
    let e = DegradationLadder::new(LadderOptions::new("  ", &["tools"])).unwrap_err();
    assert_eq!((e.field.as_str(), e.is_range), ("task", true));
    let e = DegradationLadder::new(LadderOptions {
        light_model: Some(String::new()),
        ..LadderOptions::new("t", &[])
    })
    .unwrap_err();
    assert_eq!((e.field.as_str(), e.is_range), ("lightModel", true));
}

#[test]
fn state_round_trips_through_json_and_resumes_identically() {
    let mut a = ladder(&["tools"], Some("light-1"), Locale::Zh);
    let _ = a.start();
    let text = serde_json::to_string(&a).unwrap();
    let mut b: DegradationLadder = serde_json::from_str(&text).unwrap();
    b.check().unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a.next(LadderResult::failed("x")),
        b.next(LadderResult::failed("x"))
    );
    let text = serde_json::to_string(&a).unwrap();
    let mut c: DegradationLadder = serde_json::from_str(&text).unwrap();
    assert_eq!(
        a.next(LadderResult::ok("答")),
        c.next(LadderResult::ok("答"))
    );
    assert_eq!(a, c);
}

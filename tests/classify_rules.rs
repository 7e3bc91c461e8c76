//! SPEC section 10: the caller's `ClassifyRule`s, in `classify` and in the loop.

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
use selfheal::classify::rules::{check_all, MAX_RULES};
use selfheal::{
    classify_with_rules, Cause, Cause::*, Classified, ClassifyRule, ErrorClass, ErrorClass::*,
    Instruction, Outcome, RepairLoop, SchemaCache, Signal, StatusMatch, StopReason, Validation,
};

const NOW: f64 = 1_700_000_000_000.0;

fn rule(class: ErrorClass) -> ClassifyRule {
    ClassifyRule {
        status: None,
        code: None,
        type_: None,
        message: None,
        class,
        cause: None,
    }
}

fn status_rule(status: u16, class: ErrorClass) -> ClassifyRule {
    ClassifyRule {
        status: Some(StatusMatch::One(status)),
        ..rule(class)
    }
}

fn with_rules(error: Outcome, rules: &[ClassifyRule]) -> Classified {
    check_all(rules).expect("valid rules");
    classify_with_rules(&error.info(), None, NOW, rules)
}

#[track_caller]
fn assert_rule(c: &Classified, class: ErrorClass, cause: Cause) {
    assert_eq!(
        (c.class, c.cause, c.signal),
        (class, cause, Signal::Rule),
        "{c:?}"
    );
    assert!(c.reason.starts_with("rules["), "{c:?}");
    assert!(!c.reason.contains('\n'));
}

#[test]
fn a_rule_makes_a_404_transient() {
    // "This 404 is transient for my gateway" (it answers 404 while a deployment warms up).
    let rules = [status_rule(404, Transient)];
    let c = with_rules(http(404).message("deployment not ready"), &rules);
    // No cause in the rule: the built-in cause stays.
    assert_rule(&c, Transient, NotFound);
    assert!(c.reason.contains("HTTP 404"), "{c:?}");
    // Without the rule it stops at once.
    let builtin = with_rules(http(404), &[]);
    assert_eq!((builtin.class, builtin.signal), (HardFail, Signal::Status));
    // Other statuses are untouched.
    assert_eq!(with_rules(http(401), &rules).signal, Signal::Status);
}

#[test]
fn a_rule_makes_a_503_hard_fail() {
    let rules = [ClassifyRule {
        cause: Some(Unsupported),
        ..status_rule(503, HardFail)
    }];
    let c = with_rules(http(503).header("retry-after", "5"), &rules);
    assert_rule(&c, HardFail, Unsupported);
    // retryAfterMs is still reported.
    assert_eq!(c.retry_after_ms, Some(5000.0));
}

#[test]
fn every_listed_condition_must_hold_and_the_first_match_wins() {
    let rules = [
        ClassifyRule {
            status: Some(StatusMatch::Range(500, 599)),
            message: Some("GATEWAY".into()),
            ..rule(HardFail)
        },
        ClassifyRule {
            code: Some("E_BUSY".into()),
            ..rule(Transient)
        },
        ClassifyRule {
            status: Some(StatusMatch::Range(500, 599)),
            cause: Some(Overloaded),
            ..rule(Transient)
        },
    ];
    // Status in range and message (case-insensitive substring): rule 0.
    let c = with_rules(http(502).message("bad gateway upstream"), &rules);
    assert_rule(&c, HardFail, ServerError);
    assert!(c.reason.starts_with("rules[0]"), "{c:?}");
    // Status in range, no such message: rule 0 fails, rule 2 matches.
    let c = with_rules(http(500).message("boom"), &rules);
    assert_rule(&c, Transient, Overloaded);
    assert!(c.reason.starts_with("rules[2]"), "{c:?}");
    // A code exactly (no status): rule 1; the built-in cause was unknown.
    let c = with_rules(err_code("E_BUSY"), &rules);
    assert_rule(&c, Transient, Unknown);
    // A code is matched exactly, not by substring or case.
    assert_eq!(with_rules(err_code("e_busy"), &rules).signal, Signal::None);
}

#[test]
fn type_matches_types_status_words_names_and_class_names() {
    let rules = [ClassifyRule {
        type_: Some("ThrottlingException".into()),
        ..rule(HardFail)
    }];
    assert_rule(
        &with_rules(err_named("ThrottlingException"), &rules),
        HardFail,
        RateLimited,
    );
    assert_rule(
        &with_rules(err_type("ThrottlingException"), &rules),
        HardFail,
        RateLimited,
    );
    let mut class_named = err_named("Error").info();
    class_named.class_name = Some("ThrottlingException".into());
    let c = classify_with_rules(&class_named, None, NOW, &rules);
    assert_rule(&c, HardFail, RateLimited);
    let mut google = error().info();
    google.status_texts.push("RESOURCE_EXHAUSTED".into());
    let gr = [ClassifyRule {
        type_: Some("RESOURCE_EXHAUSTED".into()),
        cause: Some(QuotaExhausted),
        ..rule(HardFail)
    }];
    assert_rule(
        &classify_with_rules(&google, None, NOW, &gr),
        HardFail,
        QuotaExhausted,
    );
}

#[test]
fn rules_beat_every_built_in_rule_but_not_a_failed_validation() {
    let rules = [ClassifyRule {
        message: Some("overloaded".into()),
        ..rule(HardFail)
    }];
    // Beats x-should-retry, names and codes.
    let loud = http(529)
        .header("x-should-retry", "true")
        .code("ECONNRESET")
        .message("Overloaded");
    assert_rule(&with_rules(loud.clone(), &rules), HardFail, Overloaded);
    // A failed validation is the host's verdict on a reply: rule 1 still decides.
    let v = Validation {
        ok: false,
        kind: Some("schema".into()),
        detail: None,
    };
    let c = classify_with_rules(&loud.info(), Some(&v), NOW, &rules);
    assert_eq!((c.class, c.signal), (Repairable, Signal::Validation));
    // Nothing thrown: nothing for a rule to match.
    let c = classify_with_rules(&selfheal::ErrorInfo::default(), None, NOW, &rules);
    assert_eq!(
        (c.class, c.cause, c.signal),
        (HardFail, Unknown, Signal::None)
    );
}

#[test]
fn a_message_is_looked_for_in_its_first_characters_only() {
    let rules = [ClassifyRule {
        message: Some("needle".into()),
        ..rule(Transient)
    }];
    let near = format!("{}needle", "x".repeat(100));
    assert_eq!(with_rules(err_message(&near), &rules).signal, Signal::Rule);
    let far = format!(
        "{}needle",
        "x".repeat(selfheal::classify::rules::MESSAGE_WINDOW)
    );
    assert_eq!(with_rules(err_message(&far), &rules).signal, Signal::None);
}

#[test]
fn bad_rules_name_their_index_and_field() {
    let cases: Vec<(Vec<ClassifyRule>, &str, bool)> = vec![
        (
            vec![status_rule(404, Transient), rule(HardFail)],
            "rules[1]",
            false,
        ),
        (vec![status_rule(99, Transient)], "rules[0].status", true),
        (vec![status_rule(1000, Transient)], "rules[0].status", true),
        (
            vec![
                status_rule(404, Transient),
                status_rule(404, Transient),
                ClassifyRule {
                    status: Some(StatusMatch::Range(599, 500)),
                    ..rule(Transient)
                },
            ],
            "rules[2].status",
            true,
        ),
        (
            vec![ClassifyRule {
                code: Some(String::new()),
                ..rule(Transient)
            }],
            "rules[0].code",
            true,
        ),
        (
            vec![ClassifyRule {
                message: Some("x".repeat(1001)),
                ..rule(Transient)
            }],
            "rules[0].message",
            true,
        ),
        (
            vec![status_rule(404, Transient); MAX_RULES + 1],
            "rules",
            true,
        ),
    ];
    for (rules, field, range) in cases {
        let e = check_all(&rules).expect_err(field);
        assert_eq!((e.field.as_str(), e.is_range), (field, range), "{e}");
    }
}

#[test]
fn rules_round_trip_through_serde_with_the_js_names() {
    let rules = vec![
        ClassifyRule {
            status: Some(StatusMatch::Range(500, 504)),
            type_: Some("x".into()),
            ..rule(HardFail)
        },
        ClassifyRule {
            cause: Some(ContentFilter),
            ..status_rule(404, Transient)
        },
    ];
    let json = serde_json::to_value(&rules).unwrap();
    assert_eq!(
        json,
        serde_json::json!([
            { "status": [500, 504], "type": "x", "class": "hard-fail" },
            { "status": 404, "class": "transient", "cause": "content-filter" }
        ])
    );
    let back: Vec<ClassifyRule> = serde_json::from_value(json).unwrap();
    assert_eq!(back, rules);
}

// ---------------------------------------------------------------- in the loop

fn loop_with(rules: Vec<ClassifyRule>) -> RepairLoop {
    let mut c = config();
    c.backoff = plain_backoff(100.0, 1000.0);
    c.rules = rules;
    city_loop(c)
}

#[test]
fn the_loop_waits_out_a_404_a_rule_calls_transient_and_stops_on_a_503_it_calls_hard_fail() {
    let mut l = loop_with(vec![
        status_rule(404, Transient),
        status_rule(503, HardFail),
    ]);
    let out = drive(
        &mut l,
        &[(http(404), 0.0), (http(404), 100.0), (reply(CITY), 300.0)],
    );
    assert_eq!(shapes(&out), ["wait #2", "wait #3", "done first-pass/3"]);
    assert_eq!(classified(&out[0]).signal, Signal::Rule);

    let mut l = loop_with(vec![
        status_rule(404, Transient),
        status_rule(503, HardFail),
    ]);
    let out = drive(&mut l, &[(http(503), 0.0)]);
    assert_eq!(shapes(&out), ["degrade hard-fail/1"]);
    assert_eq!(classified(&out[0]).signal, Signal::Rule);
    assert_eq!(classified(&out[0]).cause, Overloaded);
}

#[test]
fn rules_survive_a_snapshot_and_bad_rules_in_one_are_refused() {
    let mut l = loop_with(vec![status_rule(404, Transient)]);
    let first = l.next(http(404), 0.0, None);
    assert!(matches!(first, Instruction::WaitForBackoff { .. }));
    let snapshot = serde_json::to_value(l.to_snapshot()).unwrap();
    assert_eq!(
        snapshot["options"]["rules"],
        serde_json::json!([{ "status": 404, "class": "transient" }])
    );
    let mut back = RepairLoop::from_snapshot(
        serde_json::from_value(snapshot.clone()).unwrap(),
        &mut SchemaCache::default(),
    )
    .unwrap();
    assert!(matches!(
        back.next(http(404), 100.0, None),
        Instruction::WaitForBackoff { .. }
    ));

    let mut forged = snapshot;
    forged["options"]["rules"] = serde_json::json!([{ "status": 12, "class": "transient" }]);
    let err = RepairLoop::from_snapshot(
        serde_json::from_value(forged).unwrap(),
        &mut SchemaCache::default(),
    )
    .unwrap_err();
    assert_eq!(err.field, "state.options.rules[0].status");
    assert!(err.is_range);
}

#[test]
fn a_loop_without_rules_snapshots_as_before() {
    let l = loop_with(Vec::new());
    let snapshot = serde_json::to_value(l.to_snapshot()).unwrap();
    assert!(snapshot["options"].get("rules").is_none());
    let stop = StopReason::HardFail;
    assert_eq!(name_of(&stop), "hard-fail");
}

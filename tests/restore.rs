//! Issue 10, defect 7: restored states are checked. A `fromJSON` state with a negative cost
//! slipped under the cost ceiling; a forged final instruction and a removed schema were
//! accepted silently. Each is now a clear error naming the field.

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
use selfheal::{Instruction, OptionError, Outcome, RepairLoop, SchemaCache, Snapshot};
use serde_json::{json, Value};

fn snapshot_of(l: &RepairLoop) -> Value {
    serde_json::to_value(l.to_snapshot()).unwrap()
}

fn restore(v: Value) -> Result<RepairLoop, OptionError> {
    let snapshot: Snapshot =
        serde_json::from_value(v).map_err(|e| OptionError::type_("state", &e.to_string()))?;
    RepairLoop::from_snapshot(snapshot, &mut SchemaCache::default())
}

#[track_caller]
fn refused(v: Value, field: &str) -> String {
    match restore(v) {
        Err(e) => {
            assert!(e.field.starts_with(field), "{} / {}", e.field, e.message);
            e.message
        }
        Ok(_) => panic!("restored a state that should be refused ({field})"),
    }
}

fn done_loop() -> RepairLoop {
    let mut l = city_loop(config());
    let _ = drive(&mut l, &[(reply(CITY).cost(0.25), 0.0)]);
    l
}

#[test]
fn an_honest_state_restores_at_every_step() {
    let mut l = city_loop(config());
    restore(snapshot_of(&l)).unwrap();
    for (outcome, now) in [
        (http(503), 0.0),
        (reply(WRONG_SHAPE).cost(0.1), 1500.0),
        (reply(CITY).cost(0.1), 3000.0),
    ] {
        let _ = l.next(outcome, now, None);
        restore(snapshot_of(&l)).unwrap();
    }
    restore(snapshot_of(&new_loop(config(), None))).unwrap();
}

#[test]
fn a_negative_or_non_finite_cost_is_refused() {
    // Before: a cost of -1000 slipped under any ceiling.
    let mut s = snapshot_of(&city_loop(config()));
    s["state"]["costUsd"] = json!(-1000.0);
    assert!(refused(s, "state.state.costUsd").contains(">= 0"));
    let mut s = snapshot_of(&done_loop());
    s["state"]["attempts"][0]["costUsd"] = json!(-1);
    refused(s, "state.state.attempts[0].costUsd");
}

#[test]
fn a_forged_done_is_refused() {
    // A value the model never gave, one that fails the schema, counts that are not the state's.
    for (path, forged) in [
        ("value", json!({"admin": true, "city": "Paris"})),
        ("value", json!({"city": 42})),
        ("text", json!("{\"city\": \"Lyon\"}")),
        ("attempts", json!(0)),
        ("costUsd", json!(0.0)),
    ] {
        let mut s = snapshot_of(&done_loop());
        s["state"]["finalInstruction"][path] = forged;
        let message = refused(s, "state.state.finalInstruction");
        assert!(
            message.contains("done") || message.contains("match"),
            "{message}"
        );
    }
}

#[test]
fn a_forged_degrade_is_refused_too() {
    let mut l = city_loop(config());
    let _ = drive(&mut l, &[(http(401), 0.0)]);
    let mut s = snapshot_of(&l);
    s["state"]["finalInstruction"]["attempts"] = json!(7);
    refused(s, "state.state.finalInstruction");
}

#[test]
fn a_removed_schema_is_refused() {
    // The key removed: never a loop that accepts any text.
    let mut s = snapshot_of(&city_loop(config()));
    s.as_object_mut().unwrap().remove("schema");
    assert!(refused(s, "state").contains("schema"));
    // Set to null while the state shows the loop parsed JSON against it.
    let mut l = city_loop(config());
    let _ = drive(&mut l, &[(reply(WRONG_SHAPE), 0.0)]);
    let mut s = snapshot_of(&l);
    s["schema"] = Value::Null;
    refused(s, "state.schema");
    let mut s = snapshot_of(&done_loop());
    s["schema"] = Value::Null;
    refused(s, "state.schema");
}

#[test]
// A schema failure decides here: needs the validator (not in selfheal/lite).
#[cfg(feature = "validate")]
fn a_schema_swapped_for_one_the_done_value_fails_is_refused() {
    let mut s = snapshot_of(&done_loop());
    s["schema"] = json!({"type": "object", "required": ["country"]});
    refused(s, "state.state.finalInstruction");
}

// ---- loops saved by 0.1 (issue 12: the state moved to `Phase` and one counter per quantity;
// the snapshot format stayed, and a loop saved by 0.1 must resume) ----

fn saved_by_0_1(name: &str) -> Value {
    let path = format!(
        "{}/tests/corpus/snapshots-0.1/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The loop the 0.1 snapshots were taken from, driven to the same point by this build.
fn same_loop_unsaved(outcomes: &[(Outcome, f64)]) -> RepairLoop {
    let mut c = config();
    c.alternate_prompt = Some(alternate());
    let mut l = city_loop(c);
    for (outcome, now) in outcomes {
        let _ = l.next(outcome.clone(), *now, None);
    }
    l
}

#[test]
#[cfg(feature = "validate")] // its reply is refused by the schema, which lite does not check
fn a_loop_saved_by_0_1_mid_repair_resumes_and_finishes() {
    let saved = saved_by_0_1("mid-loop.json");
    let mut resumed = restore(saved.clone()).unwrap();
    // Saved again, its state is what 0.1 wrote, field for field.
    assert_eq!(snapshot_of(&resumed)["state"], saved["state"]);
    let mut unsaved = same_loop_unsaved(&[
        (http(503).cost(0.01), 1_000.0),
        (reply(WRONG_SHAPE).cost(0.02), 2_500.0),
    ]);
    // This build drives the same loop to the same state; only the repair prompt's wording
    // has changed since 0.1 (the issues are quoted as data since issue 10).
    let mut state = snapshot_of(&unsaved)["state"].clone();
    state["currentPrompt"] = saved["state"]["currentPrompt"].clone();
    assert_eq!(state, saved["state"]);
    let fin = resumed.next(reply(CITY).cost(0.04), 4_000.0, None);
    assert_eq!(fin, unsaved.next(reply(CITY).cost(0.04), 4_000.0, None));
    let Instruction::Done {
        source, attempts, ..
    } = fin
    else {
        panic!("not done: {fin:?}");
    };
    assert_eq!((source, attempts), (selfheal::Source::Repaired, 3));
    let report = resumed.report();
    assert_eq!((report.calls, report.repaired), (3, 1));
    assert_eq!(
        (report.by_class.transient, report.by_class.repairable),
        (1, 1)
    );
    assert_eq!(resumed.report(), unsaved.report());
}

#[test]
fn a_done_saved_by_0_1_still_takes_its_one_verdict() {
    let saved = saved_by_0_1("provisional-done.json");
    let mut resumed = restore(saved.clone()).unwrap();
    assert_eq!(snapshot_of(&resumed)["state"], saved["state"]);
    let mut unsaved = same_loop_unsaved(&[(reply(CITY).cost(0.03), 1_000.0)]);
    for (outcome, now) in [
        (rejected("Paris is not allowed here"), 2_000.0),
        (reply(r#"{"city": "Lyon"}"#).cost(0.01), 3_000.0),
        (reply(CITY), 4_000.0),
    ] {
        let step = resumed.next(outcome.clone(), now, None);
        assert_eq!(step, unsaved.next(outcome, now, None));
    }
    let fin = resumed.next(reply(CITY), 5_000.0, None);
    let Instruction::Done {
        value, attempts, ..
    } = fin
    else {
        panic!("not done: {fin:?}");
    };
    // The verdict judged the saved reply (no call of its own); the reask made the second.
    assert_eq!((value, attempts), (json!({"city": "Lyon"}), 2));
    assert!(resumed.is_finished());
}

#[test]
fn counts_that_disagree_with_each_other_or_the_budget_are_refused() {
    // An outside snapshot audit (thirteenth session): a state rewound to `transientUsed: 0` sent
    // attempts 4 and 5 on a budget of 2, a `costUsd` of 0 got round the cost ceiling, a
    // `startedAt` of null or 1e300 turned the deadline off.
    let mut l = city_loop(config());
    let _ = l.next(http(503).cost(0.04), 0.0, None);
    let _ = l.next(http(503).cost(0.04), 2000.0, None);
    let v = snapshot_of(&l);
    restore(v.clone()).unwrap();
    let forged = |path: &str, value: Value| {
        let mut s = v.clone();
        *s.pointer_mut(path).unwrap() = value;
        s
    };
    let transient = v["options"]["budget"]["transient"].as_u64().unwrap();
    refused(
        forged("/state/transientUsed", json!(0)),
        "state.state.consecutiveTransient",
    );
    let mut rewound = forged("/state/transientUsed", json!(0));
    rewound["state"]["consecutiveTransient"] = json!(0);
    refused(rewound, "state.state.attempts");
    refused(
        forged("/state/transientUsed", json!(transient + 1)),
        "state.state.transientUsed",
    );
    refused(
        forged("/state/repairUsed", json!(9)),
        "state.state.repairUsed",
    );
    refused(
        forged("/state/consecutiveTransient", json!(4_000_000_000u64)),
        "state.state.consecutiveTransient",
    );
    refused(forged("/state/costUsd", json!(0)), "state.state.costUsd");
    refused(
        forged("/state/startedAt", json!(null)),
        "state.state.startedAt",
    );
    refused(
        forged("/state/startedAt", json!(1e300)),
        "state.state.startedAt",
    );
    // A fresh loop has no calls and no start time.
    restore(snapshot_of(&city_loop(config()))).unwrap();
}

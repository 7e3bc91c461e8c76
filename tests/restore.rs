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
use selfheal::{OptionError, RepairLoop, SchemaCache, Snapshot};
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

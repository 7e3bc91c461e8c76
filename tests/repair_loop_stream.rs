//! SPEC section 8 in the loop: `RepairLoop::push` for the call in flight, a reply outcome
//! whose text is what was pushed, cut-off stop reasons, and a violation seen mid-stream
//! turned into one fix prompt (signal `stream`).

#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
// Lite (no `validate` feature) leaves out the tests of schema violations and what only they use.
#![cfg_attr(not(feature = "validate"), allow(unused_imports, dead_code))]
mod common;

use common::*;
use selfheal::structured::stream::apply;
use selfheal::{
    Cause, ErrorClass, FailureKind, Instruction, Outcome, PushError, RepairLoop, Signal, Strategy,
};
use serde_json::json;

/// Three fields; the third must be a string, and nothing else may appear.
const PERSON: &str = r#"{"type":"object","additionalProperties":false,"required":["name","age","email"],
  "properties":{"name":{"type":"string"},"age":{"type":"integer"},"email":{"type":"string"}}}"#;

fn person_loop() -> RepairLoop {
    new_loop(config(), Some(PERSON))
}

fn streamed(stop: Option<&str>) -> Outcome {
    Outcome::StreamedReply {
        stop_reason: stop.map(str::to_string),
        cost_usd: 0.001,
        usage: None,
    }
}

/// Push `chunks` in order, mirroring the value; stop at the first violation (as a host cuts).
fn push_all(l: &mut RepairLoop, chunks: &[&str]) -> (Option<serde_json::Value>, usize, bool) {
    let (mut value, mut cursor) = (None, Vec::new());
    for (i, chunk) in chunks.iter().enumerate() {
        let update = l.push(chunk).expect("within maxReplyChars");
        apply(&mut value, &mut cursor, &update.edits);
        if update.violation.is_some() {
            return (value, i + 1, true);
        }
    }
    (value, chunks.len(), false)
}

fn chunks_of(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

#[test]
fn a_streamed_reply_without_text_is_the_pushed_text() {
    let mut l = person_loop();
    let text = r#"{"name": "Ada", "age": 36, "email": "ada@example.org"}"#;
    let chunks = chunks_of(text, 7);
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let (value, _, violated) = push_all(&mut l, &refs);
    assert!(!violated);
    assert_eq!(
        value,
        Some(json!({"name": "Ada", "age": 36, "email": "ada@example.org"}))
    );
    let out = l.next(streamed(Some("end_turn")), 0.0, None);
    assert_eq!(shape(&out), "done first-pass/1");
    let Instruction::Done { value, text: t, .. } = &out else {
        unreachable!()
    };
    assert_eq!(value["email"], "ada@example.org");
    assert_eq!(t, text);
    assert_eq!(l.report().cost_usd, 0.001);
}

#[test]
#[cfg(feature = "validate")] // a schema violation: lite checks syntax only
fn a_violation_mid_stream_is_one_fix_prompt_quoting_the_partial_output() {
    let mut l = person_loop();
    let chunks = [
        "{\"name\": \"Ada\", ",
        "\"age\": 36, ",
        "\"email\": 4",
        "2, \"no",
        "te\": \"the rest is never paid for\"}",
    ];
    let (value, pushed, violated) = push_all(&mut l, &chunks);
    assert!(violated, "the third field's number closes at the comma");
    assert_eq!(pushed, 4);
    assert_eq!(value, Some(json!({"name": "Ada", "age": 36, "email": 42})));
    // The host cut the stream: the reply is what was pushed, stop reason "aborted".
    let out = l.next(streamed(Some("aborted")), 0.0, None);
    assert_eq!(shape(&out), "fix #2");
    assert_eq!(strategy(&out), Strategy::Fix);
    let c = classified(&out);
    assert_eq!(c.class, ErrorClass::Repairable);
    assert_eq!(c.cause, Cause::Schema);
    assert_eq!(c.signal, Signal::Stream);
    assert!(
        c.reason.contains("/email") || c.reason.contains("string"),
        "{c:?}"
    );
    let user = &sent_prompt(&out).user;
    assert!(
        user.contains("\"email\": 42, \"no"),
        "quotes the partial output: {user}"
    );
    assert!(!user.contains("never paid for"), "only what was pushed");
    assert!(user.contains("/email"), "names the issue's path: {user}");
    // One fix prompt heals.
    let out = l.next(
        reply(r#"{"name": "Ada", "age": 36, "email": "ada@example.org"}"#),
        1.0,
        None,
    );
    assert_eq!(shape(&out), "done repaired/2");
}

#[test]
fn a_reply_cut_mid_object_is_never_accepted() {
    for stop in ["incomplete", "aborted"] {
        let mut l = person_loop();
        let (_, _, violated) = push_all(&mut l, &["{\"name\": \"Ada\", \"age\": 3"]);
        assert!(!violated);
        let out = l.next(streamed(Some(stop)), 0.0, None);
        assert_eq!(shape(&out), "reask #2", "{stop}");
        let c = classified(&out);
        assert_eq!(c.cause, Cause::Truncated);
        assert_eq!(c.signal, Signal::StopReason);
    }
}

#[test]
#[cfg(feature = "validate")] // a schema violation: lite checks syntax only
fn text_given_with_the_outcome_wins_and_uses_the_stream_only_if_it_is_the_same() {
    // The same text: the violation seen while streaming decides (signal stream).
    let mut l = person_loop();
    let text = r#"{"name": "Ada", "age": "36", "email": "a"}"#;
    let (_, _, violated) = push_all(&mut l, &[text]);
    assert!(violated);
    let out = l.next(reply(text), 0.0, None);
    assert_eq!(classified(&out).signal, Signal::Stream);
    // Another text: the pushes are dropped; that text is parsed as any reply.
    let mut l = person_loop();
    let _ = push_all(&mut l, &[text]);
    let out = l.next(
        reply(r#"{"name": "Ada", "age": 36, "email": "a"}"#),
        0.0,
        None,
    );
    assert_eq!(shape(&out), "done first-pass/1");
}

#[test]
#[cfg(feature = "validate")] // a schema violation: lite checks syntax only
fn a_reply_read_to_its_end_is_parsed_whole_though_a_value_in_it_violated() {
    // The host kept reading after the violation: the whole reply holds a value the schema
    // accepts, as the same text given whole would. It was a paid fix prompt.
    let schema =
        r#"{"type":"object","required":["answer"],"properties":{"answer":{"type":"integer"}}}"#;
    for text in [
        "```json\n{\"answer\": \"42\"}\n```\nOops, as an integer:\n```json\n{\"answer\": 42}\n```",
        r#"{"answer": "42"} {"answer": 42}"#,
        r#"{"answer": "x", "answer": 42}"#,
    ] {
        let mut l = new_loop(config(), Some(schema));
        let (_, _, violated) = push_all(&mut l, &[text]);
        assert!(violated, "{text}");
        let out = l.next(streamed(Some("end_turn")), 0.0, None);
        let Instruction::Done { value, .. } = &out else {
            panic!("{text}: expected done, got {}", shape(&out))
        };
        assert_eq!(value, &json!({"answer": 42}), "{text}");
        // Cut off at the violation, the same text is never read further.
        let mut l = new_loop(config(), Some(schema));
        let _ = push_all(&mut l, &[text]);
        let out = l.next(streamed(Some("aborted")), 0.0, None);
        assert_eq!(classified(&out).signal, Signal::Stream, "{text}");
    }
}

#[test]
fn pushing_past_max_reply_chars_refuses_the_chunk_and_the_reply_is_too_long() {
    let mut c = config();
    c.max_reply_chars = 10;
    let mut l = new_loop(c, Some(PERSON));
    assert!(l.push("{\"name\":").unwrap().violation.is_none());
    let err = l.push("\"Ada\"}").unwrap_err();
    assert_eq!(
        err,
        PushError::TooLong {
            max_chars: 10,
            chars: 14
        }
    );
    // Nothing added: the text is still the first chunk.
    let out = l.next(streamed(None), 0.0, None);
    assert_eq!(shape(&out), "degrade unrepairable/1");
    assert_eq!(classified(&out).cause, Cause::TooLarge);
}

#[test]
fn push_after_the_final_instruction_is_refused() {
    let mut l = city_loop(config());
    let _ = l.next(reply(CITY), 0.0, None);
    assert_eq!(l.push("{").unwrap_err(), PushError::Finished);
}

#[test]
fn each_call_streams_on_its_own_and_an_error_ends_the_stream() {
    let mut l = person_loop();
    let _ = l.push("{\"name\": \"Ada\"");
    assert!(l.is_streaming());
    let out = l.next(http(503), 0.0, None);
    assert_eq!(shape(&out), "wait #2");
    assert!(!l.is_streaming());
    // The resend streams from the start: the first call's text is not part of it.
    let (value, _, _) = push_all(
        &mut l,
        &[r#"{"name": "Bo", "age": 7, "email": "b@example.org"}"#],
    );
    assert_eq!(value.unwrap()["name"], "Bo");
    let out = l.next(streamed(None), 1000.0, None);
    assert_eq!(shape(&out), "done first-pass/2");
}

#[test]
fn without_a_schema_the_partial_value_is_the_text() {
    let mut l = new_loop(config(), None);
    let (mut value, mut cursor) = (None, Vec::new());
    for chunk in ["Hello", "", ", wor", "ld"] {
        let update = l.push(chunk).unwrap();
        assert!(update.violation.is_none() && !update.done);
        apply(&mut value, &mut cursor, &update.edits);
    }
    assert_eq!(value, Some(json!("Hello, world")));
    let out = l.next(streamed(Some("end_turn")), 0.0, None);
    let Instruction::Done { value, .. } = &out else {
        panic!("{out:?}")
    };
    assert_eq!(value, &json!("Hello, world"));
    // Cut off without a schema: not accepted either.
    let mut l = new_loop(config(), None);
    assert!(l.push("Hello, wor").unwrap().violation.is_none());
    let out = l.next(streamed(Some("incomplete")), 0.0, None);
    assert_eq!(shape(&out), "reask #2");
}

#[test]
fn a_streamed_json_syntax_violation_with_local_repair_off() {
    let mut c = config();
    c.local_repair = false;
    let mut l = new_loop(c, Some(PERSON));
    let (_, _, violated) = push_all(&mut l, &["```json\n{"]);
    assert!(violated);
    let out = l.next(streamed(Some("aborted")), 0.0, None);
    let c = classified(&out);
    assert_eq!((c.cause, c.signal), (Cause::JsonSyntax, Signal::Stream));
    let Instruction::SendRepairPrompt { .. } = out else {
        panic!()
    };
    let _ = FailureKind::JsonSyntax;
}

#[test]
#[cfg(feature = "validate")] // a schema violation: lite checks syntax only
fn coerce_is_the_loops_a_string_number_is_no_violation_then() {
    let mut c = config();
    c.coerce = true;
    let mut l = new_loop(c, Some(PERSON));
    let (_, _, violated) = push_all(
        &mut l,
        &[r#"{"name": "Ada", "age": "36", "email": "a@b.c"}"#],
    );
    assert!(!violated);
    let out = l.next(streamed(None), 0.0, None);
    let Instruction::Done { value, .. } = &out else {
        panic!("{out:?}")
    };
    assert_eq!(value["age"], 36);
}

/// A snapshot taken through JSON, as a host stores it.
fn through_json(l: &RepairLoop) -> RepairLoop {
    let text = serde_json::to_string(&l.to_snapshot()).unwrap();
    RepairLoop::from_snapshot(
        serde_json::from_str(&text).unwrap(),
        &mut selfheal::SchemaCache::default(),
    )
    .unwrap()
}

#[test]
fn a_snapshot_mid_stream_resumes_the_call_in_flight() {
    // It once had no call in flight: a loop saved after `{"name": "A` and given the rest saw only
    // `da", …}`, judged it broken and asked for a paid repair (an outside review, thirteenth
    // session). The pushed text is now part of the snapshot, read again on restore.
    let mut l = person_loop();
    let _ = l.push("{\"name\": \"A");
    let text = serde_json::to_string(&l.to_snapshot()).unwrap();
    let (mut restored, update) = RepairLoop::resume(
        serde_json::from_str(&text).unwrap(),
        &mut selfheal::SchemaCache::default(),
    )
    .unwrap();
    assert!(restored.is_streaming());
    assert_eq!(restored.pushed(), Some("{\"name\": \"A"));
    let (mut value, mut cursor) = (None, Vec::new());
    apply(&mut value, &mut cursor, &update.unwrap().edits);
    assert_eq!(value, Some(json!({"name": "A"})));
    let rest = r#"da", "age": 36, "email": "ada@example.org"}"#;
    for l in [&mut l, &mut restored] {
        let update = l.push(rest).unwrap();
        apply(&mut value, &mut cursor, &update.edits);
    }
    let a = l.next(streamed(Some("end_turn")), 0.0, None);
    let b = restored.next(streamed(Some("end_turn")), 0.0, None);
    assert_eq!(shape(&b), "done first-pass/1");
    assert_eq!(a, b);
    // Between calls there is nothing in flight, and nothing is written.
    let v = serde_json::to_value(restored.to_snapshot()).unwrap();
    assert!(v.get("inFlight").is_none(), "{v}");
}

#[test]
fn a_snapshot_after_a_push_refused_for_length_still_reads_as_too_long() {
    let mut c = config();
    c.max_reply_chars = 10;
    let mut l = new_loop(c, Some(PERSON));
    let _ = l.push("{\"name\":").unwrap();
    let _ = l.push("\"Ada\"}").unwrap_err();
    let v = serde_json::to_value(l.to_snapshot()).unwrap();
    assert_eq!(
        (&v["inFlight"], &v["inFlightTooLong"]),
        (&json!("{\"name\":"), &json!(14))
    );
    let out = through_json(&l).next(streamed(None), 0.0, None);
    assert_eq!(shape(&out), "degrade unrepairable/1");
    assert_eq!(classified(&out).cause, Cause::TooLarge);
}

#[test]
fn a_saved_stream_that_cannot_be_resumed_is_refused() {
    let mut l = person_loop();
    let _ = l.push("{");
    let mut v = serde_json::to_value(l.to_snapshot()).unwrap();
    // Longer than the loop's maxReplyChars.
    v["inFlight"] = json!("x".repeat(5_000_000));
    let err = RepairLoop::from_snapshot(
        serde_json::from_value(v.clone()).unwrap(),
        &mut selfheal::SchemaCache::default(),
    )
    .unwrap_err();
    assert_eq!(err.field, "state.inFlight");
    // A loop that has finished has no call in flight.
    let mut done = city_loop(config());
    let _ = done.next(reply(CITY), 0.0, None);
    let mut w = serde_json::to_value(done.to_snapshot()).unwrap();
    w["inFlight"] = json!("{");
    let err = RepairLoop::from_snapshot(
        serde_json::from_value(w).unwrap(),
        &mut selfheal::SchemaCache::default(),
    )
    .unwrap_err();
    assert_eq!(err.field, "state.inFlight");
}

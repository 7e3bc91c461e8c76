//! selfheal/lite: the crate without the `validate` feature (`cargo test --no-default-features
//! --test lite`). Everything but JSON Schema validation works, and nothing pretends to have
//! validated: a value accepted against a schema says `validated: false` (docs/DESIGN.md,
//! "selfheal/lite"). The last test runs in the full build and checks the opposite.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use serde_json::{json, Value};

use selfheal::{CompiledSchema, Instruction, LoopConfig, Outcome, Prompt, RepairLoop, SchemaCache};

fn prompt() -> Prompt {
    Prompt {
        system: "Reply with JSON.".into(),
        user: "Where is the Eiffel Tower?".into(),
    }
}

fn city_schema() -> Value {
    json!({
        "type": "object",
        "required": ["city"],
        "properties": { "city": { "type": "string", "minLength": 2 } },
        "additionalProperties": false
    })
}

fn reply(text: &str) -> Outcome {
    Outcome::Reply {
        text: text.into(),
        stop_reason: None,
        cost_usd: 0.0,
        usage: None,
    }
}

fn looped(schema: Option<Value>) -> RepairLoop {
    let mut cache = SchemaCache::default();
    let schema = schema.map(|s| cache.get_or_compile_value(s).unwrap());
    RepairLoop::new(LoopConfig::new(prompt(), 7), schema).unwrap()
}

/// The instruction as the JS side sees it (serde's output is what `to_js_json` sends).
fn wire(i: &Instruction) -> Value {
    serde_json::to_value(i).unwrap()
}

#[cfg(not(feature = "validate"))]
mod lite {
    use super::*;
    use selfheal::structured::stream::{PartialJson, StreamOptions, StreamSchema};
    use selfheal::{parse, FailureKind, ParseOptions, Parsed, Snapshot};
    use std::sync::Arc;

    #[test]
    fn a_schema_compiles_without_a_validator_and_says_so() {
        let compiled = CompiledSchema::from_value(city_schema()).unwrap();
        assert!(!compiled.validates());
        // No validator: nothing is checked, so nothing is reported (the JS Schema.validate
        // throws instead of answering `null`: tests/js/lite.test.mjs).
        assert_eq!(compiled.validate(&json!({ "town": 1 })), None);
        // No compiler: a schema jsonschema would refuse is taken as it is, never a panic...
        for odd in [
            json!({ "type": 12 }),
            json!({ "pattern": "(" }),
            json!({ "$ref": "#/nowhere" }),
            json!({ "format": "email", "minimum": "x" }),
            json!(false),
        ] {
            let compiled = CompiledSchema::from_value(odd.clone()).unwrap();
            assert_eq!(compiled.value(), &odd);
        }
        // ...but a document that is no schema at all is still refused, saying why.
        let e = CompiledSchema::from_value(json!([1, 2])).unwrap_err();
        assert_eq!(e.message, "a schema must be a JSON object or a boolean");
        let e = CompiledSchema::from_text("{nope").unwrap_err();
        assert!(e.message.starts_with("not valid JSON"), "{e}");
    }

    #[test]
    fn parsing_against_a_schema_checks_syntax_only_and_says_validated_false() {
        let compiled = CompiledSchema::from_value(city_schema()).unwrap();
        let opts = ParseOptions::new();
        // A value the schema refuses is accepted, marked as not validated.
        let parsed = parse(r#"{"town": 1}"#, Some(&compiled), &opts);
        let Parsed::Ok {
            value, validated, ..
        } = &parsed
        else {
            panic!("{parsed:?}")
        };
        assert_eq!(value, &json!({ "town": 1 }));
        assert!(validated.is_some());
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            json!({ "ok": true, "value": { "town": 1 }, "fixes": [], "validated": false })
        );
        // Local repair works as in the full build.
        let parsed = parse("```json\n{'city': 'Paris',}\n```", Some(&compiled), &opts);
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            json!({ "ok": true, "value": { "city": "Paris" },
                    "fixes": ["code-fence", "single-quotes", "trailing-comma"], "validated": false })
        );
        // Syntax failures, cut-off and empty replies are still failures.
        let Parsed::Err { report, .. } = parse("", Some(&compiled), &opts) else {
            panic!()
        };
        assert_eq!(report.kinds, [FailureKind::Empty]);
        let no_repair = ParseOptions {
            local_repair: false,
            ..ParseOptions::new()
        };
        let Parsed::Err { report, .. } = parse("{'city': 1}", Some(&compiled), &no_repair) else {
            panic!()
        };
        assert_eq!(report.kinds, [FailureKind::JsonSyntax]);
        let cut = ParseOptions {
            stop_reason: Some("max_tokens".into()),
            ..ParseOptions::new()
        };
        let Parsed::Err { report, .. } = parse(r#"{"city": "Pa"#, Some(&compiled), &cut) else {
            panic!()
        };
        assert_eq!(report.kinds, [FailureKind::Truncated]);
        // Without a schema nothing is claimed either way.
        let parsed = parse(r#"{"town": 1}"#, None, &opts);
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            json!({ "ok": true, "value": { "town": 1 }, "fixes": [] })
        );
    }

    #[test]
    fn the_loop_says_validated_false_once_in_its_done_and_keeps_saying_it() {
        let mut repair = looped(Some(city_schema()));
        let done = repair.next(reply(r#"{"town": 1}"#), 0.0, None);
        let w = wire(&done);
        assert_eq!(w["type"], "done");
        assert_eq!(w["validated"], false);
        assert_eq!(w["value"], json!({ "town": 1 }));
        // The stored final instruction keeps it: repeated by abort, and across toJSON/fromJSON.
        assert_eq!(wire(&repair.abort(None, 1.0)), w);
        let state = serde_json::to_string(&repair.to_snapshot()).unwrap();
        let snapshot: Snapshot = serde_json::from_str(&state).unwrap();
        let mut restored =
            RepairLoop::from_snapshot(snapshot, &mut SchemaCache::default()).unwrap();
        assert_eq!(wire(&restored.abort(None, 2.0)), w);
        // Without a schema the value is the text: nothing to validate, nothing said.
        let mut plain = looped(None);
        let w = wire(&plain.next(reply("hello"), 0.0, None));
        assert_eq!(w["type"], "done");
        assert!(w.get("validated").is_none(), "{w}");
    }

    #[test]
    fn validation_comes_from_the_host_as_rejected_and_the_prompt_still_quotes_the_schema() {
        let mut repair = looped(Some(city_schema()));
        assert_eq!(
            wire(&repair.next(reply(r#"{"town": 1}"#), 0.0, None))["type"],
            "done"
        );
        // The host's own check refuses the value: one repair prompt (budget.repairable = 1).
        let again = repair.next(
            Outcome::Rejected {
                reason: "/city: is required".into(),
            },
            1.0,
            None,
        );
        let Instruction::SendRepairPrompt { prompt, .. } = &again else {
            panic!("{again:?}")
        };
        assert!(
            prompt.user.contains("/city: is required"),
            "{}",
            prompt.user
        );
        let done = repair.next(reply(r#"{"city": "Paris"}"#), 2.0, None);
        let w = wire(&done);
        assert_eq!(
            (w["type"].clone(), w["source"].clone()),
            (json!("done"), json!("repaired"))
        );
        assert_eq!(w["validated"], false);

        // A broken reply gets the fix prompt, which quotes the schema as the full build does.
        let mut repair = looped(Some(city_schema()));
        let fix = repair.next(reply("the city is"), 0.0, None);
        let Instruction::SendRepairPrompt { prompt, .. } = &fix else {
            panic!("{fix:?}")
        };
        assert!(
            prompt.user.contains(r#""required""#) && prompt.user.contains(r#""city""#),
            "{}",
            prompt.user
        );
    }

    #[test]
    fn a_stream_with_a_schema_checks_syntax_only() {
        let compiled = Arc::new(CompiledSchema::from_value(city_schema()).unwrap());
        let schema = Arc::new(StreamSchema::new(compiled.clone()));
        let mut stream = PartialJson::new(Some(schema), StreamOptions::default());
        // A type the schema refuses is no violation here (the full build reports `/city`).
        let update = stream.push(r#"{"city": 12, "more": tr"#).unwrap();
        assert_eq!(update.violation, None);
        let update = stream.push("ue}").unwrap();
        assert!(update.done && update.violation.is_none());
        assert_eq!(stream.value(), Some(json!({ "city": 12, "more": true })));
        let parsed = stream.finish(&ParseOptions::new());
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            json!({ "ok": true, "value": { "city": 12, "more": true }, "fixes": [], "validated": false })
        );
        // Syntax a continuation cannot fix is still reported, with local repair off.
        let strict = StreamOptions {
            local_repair: false,
            ..StreamOptions::default()
        };
        let mut stream = PartialJson::new(Some(Arc::new(StreamSchema::new(compiled))), strict);
        let update = stream.push("{'city'").unwrap();
        assert_eq!(
            update.violation.map(|v| v.kind),
            Some(FailureKind::JsonSyntax)
        );
    }
}

#[cfg(feature = "validate")]
#[test]
fn the_full_build_validates_and_never_says_validated() {
    let compiled = CompiledSchema::from_value(city_schema()).unwrap();
    assert!(compiled.validates());
    assert!(compiled.validate(&json!({ "town": 1 })).is_some());
    let mut repair = looped(Some(city_schema()));
    let w = wire(&repair.next(reply(r#"{"city": "Paris"}"#), 0.0, None));
    assert_eq!(w["type"], "done");
    assert!(w.get("validated").is_none(), "{w}");
}

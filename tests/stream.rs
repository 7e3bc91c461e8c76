//! Streaming replies (SPEC section 8): the partial value, closed pointers,
//! `done`, definitive violations, `maxChars`, and `finish` = `parse`.
//!
//! Scenarios first, each one rule; then property tests over random documents
//! and random chunkings; then an ignored timing run (`cargo test --release
//! --test stream -- --ignored --nocapture`).
// Needs the JSON Schema validator: not built in selfheal/lite (`--no-default-features`).
#![cfg(feature = "validate")]
#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use std::sync::Arc;

use serde_json::{json, Value};

use selfheal::structured::stream::{
    apply, Edit, Kind, PartialJson, PartialUpdate, StreamError, StreamOptions, StreamSchema,
};
use selfheal::{parse, CompiledSchema, FailureKind, Fix, ParseOptions, Parsed};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn schema(value: Value) -> Arc<StreamSchema> {
    Arc::new(StreamSchema::new(Arc::new(
        CompiledSchema::from_value(value).expect("a valid schema"),
    )))
}

/// A stream and a mirror of its value built only from the edits.
struct Run {
    stream: PartialJson,
    mirror: Option<Value>,
    cursor: Vec<Option<String>>,
    closed: Vec<String>,
    updates: Vec<PartialUpdate>,
}

impl Run {
    fn new(schema: Option<Arc<StreamSchema>>) -> Run {
        Run::with(schema, StreamOptions::default())
    }

    fn with(schema: Option<Arc<StreamSchema>>, options: StreamOptions) -> Run {
        Run {
            stream: PartialJson::new(schema, options),
            mirror: None,
            cursor: Vec::new(),
            closed: Vec::new(),
            updates: Vec::new(),
        }
    }

    /// Pushes one chunk; the mirror must equal the stream's own value after it.
    fn push(&mut self, chunk: &str) -> &PartialUpdate {
        let update = self.stream.push(chunk).expect("within maxChars");
        apply(&mut self.mirror, &mut self.cursor, &update.edits);
        assert_eq!(
            self.mirror,
            self.stream.value(),
            "edits replayed = value, after {chunk:?}"
        );
        self.closed.extend(update.closed.iter().cloned());
        self.updates.push(update);
        self.updates.last().expect("just pushed")
    }

    fn value(&mut self) -> Option<Value> {
        self.stream.value()
    }

    fn violation(&self) -> Option<(String, Option<&'static str>, FailureKind)> {
        self.stream
            .violation()
            .map(|v| (v.issue.path.clone(), v.keyword, v.issue.kind))
    }
}

/// Streams `text` one character at a time.
fn by_char(schema: Option<Arc<StreamSchema>>, text: &str) -> Run {
    let mut run = Run::new(schema);
    let mut buf = [0u8; 4];
    for ch in text.chars() {
        run.push(ch.encode_utf8(&mut buf));
    }
    run
}

fn schema_issue(
    path: &str,
    keyword: &'static str,
) -> Option<(String, Option<&'static str>, FailureKind)> {
    Some((path.to_owned(), Some(keyword), FailureKind::Schema))
}

// ---------------------------------------------------------------------------
// The partial value
// ---------------------------------------------------------------------------

#[test]
fn the_value_grows_as_text_arrives() {
    let mut run = Run::new(None);
    run.push("Sure:\n```json\n");
    assert_eq!(run.value(), None, "undefined until a value starts");
    run.push("{\"name\": \"Ad");
    assert_eq!(
        run.value(),
        Some(json!({"name": "Ad"})),
        "an unfinished string is its prefix"
    );
    run.push("a\", \"tags\": [\"x\", ");
    assert_eq!(run.value(), Some(json!({"name": "Ada", "tags": ["x"]})));
    run.push("{\"k\": tr");
    assert_eq!(
        run.value(),
        Some(json!({"name": "Ada", "tags": ["x", {}]})),
        "an unfinished literal is left out"
    );
    run.push("ue}]}\n```\nHope that helps!");
    assert_eq!(
        run.value(),
        Some(json!({"name": "Ada", "tags": ["x", {"k": true}]}))
    );
    assert!(run.stream.done());
}

#[test]
fn a_number_is_shown_only_once_complete() {
    let mut run = Run::new(None);
    run.push("{\"n\": 12");
    assert_eq!(run.value(), Some(json!({})), "12 may become 125");
    run.push("5");
    assert_eq!(run.value(), Some(json!({})));
    run.push(", \"f\": -0.5e");
    assert_eq!(run.value(), Some(json!({"n": 125})));
    run.push("3}");
    assert_eq!(run.value(), Some(json!({"n": 125, "f": -500.0})));
    assert_eq!(run.closed, ["/n", "/f", ""]);
}

#[test]
fn escapes_split_across_chunks() {
    let mut run = Run::new(None);
    run.push("[\"caf\\u00");
    assert_eq!(run.value(), Some(json!(["caf"])));
    run.push("e9\", \"\\");
    assert_eq!(
        run.value(),
        Some(json!(["café", ""])),
        "a string ending in a backslash"
    );
    run.push("\"q\\\\\", \"\\uD83D");
    assert_eq!(run.value(), Some(json!(["café", "\"q\\", ""])));
    run.push("\\uDE");
    assert_eq!(
        run.value(),
        Some(json!(["café", "\"q\\", ""])),
        "half a surrogate pair"
    );
    run.push("00!\"]");
    assert_eq!(run.value(), Some(json!(["café", "\"q\\", "😀!"])));
    assert!(run.stream.done());
}

#[test]
fn every_split_of_escapes_and_multibyte_text_gives_the_same_value() {
    let text = r#"{"é😀": "\u00e9\ud83d\ude00 \"\\\/\b\f\n\r\t ü 😀", "a\u0041": [1.5e3, -0, true, null]}"#;
    let expected: Value = serde_json::from_str(text).unwrap();
    let chars: Vec<char> = text.chars().collect();
    for i in 0..=chars.len() {
        for j in i..=chars.len() {
            let parts: Vec<String> = [&chars[..i], &chars[i..j], &chars[j..]]
                .iter()
                .map(|p| p.iter().collect())
                .collect();
            let mut run = Run::new(None);
            for p in &parts {
                run.push(p);
            }
            assert_eq!(run.value().as_ref(), Some(&expected), "{parts:?}");
            assert!(run.stream.done());
        }
    }
}

#[test]
fn closed_pointers_in_order() {
    let mut run = Run::new(None);
    run.push(r#"{"a": [1, {"b/c": "x", "~": {}}], "c": null}"#);
    assert_eq!(
        run.closed,
        ["/a/0", "/a/1/b~1c", "/a/1/~0", "/a/1", "/a", "/c", ""]
    );
    assert!(run.updates[0].done);
}

#[test]
fn edits_describe_only_what_changed() {
    let mut run = Run::new(None);
    let first = run.push("{\"a\": \"xy").edits.clone();
    assert_eq!(
        first,
        [
            Edit::Begin {
                key: None,
                kind: Kind::Object
            },
            Edit::Begin {
                key: Some("a".into()),
                kind: Kind::String
            },
            Edit::Append { text: "xy".into() },
        ]
    );
    let second = run.push("z\", \"n\": 1, \"b\": [tr").edits.clone();
    assert_eq!(
        second,
        [
            Edit::Append { text: "z".into() },
            Edit::End,
            Edit::Scalar {
                key: Some("n".into()),
                value: json!(1)
            },
            Edit::Begin {
                key: Some("b".into()),
                kind: Kind::Array
            },
        ]
    );
    let third = run.push("ue]}").edits.clone();
    assert_eq!(
        third,
        [
            Edit::Scalar {
                key: None,
                value: json!(true)
            },
            Edit::End,
            Edit::End,
        ]
    );
    assert_eq!(
        serde_json::to_string(&second).unwrap(),
        r#"[{"op":"append","text":"z"},{"op":"end"},{"op":"scalar","key":"n","value":1},{"op":"begin","key":"b","kind":"array"}]"#
    );
}

#[test]
fn a_repeated_key_replaces_its_member_in_place() {
    let mut run = by_char(None, r#"{"a": 1, "b": 2, "a": [3]}"#);
    let text = run.stream.text().to_owned();
    assert_eq!(run.value(), serde_json::from_str(&text).ok());
    assert_eq!(run.value().unwrap().to_string(), r#"{"a":[3],"b":2}"#);
}

#[test]
fn tolerant_lexical_rules_match_the_repair_scanner() {
    for text in [
        "```json\n{\n  id: 'x', // note\n  ok: True, none: None, list: [1, 2,],\n}\n```",
        "Here you go: {'text': 'it's fine', 'b': \"say \\\"hi\\\"\"}",
        "{“a”: “b”, ‘c’: ‘it’s’}",
        "[1 2 {\"a\": 1} \"x\"]",
        "{\"a\": \"tab\there\", \"b\": \"C:\\dir\", /* gone */ \"c\": [,1,,2]}",
        "{'k': 'v' /* c */, 'w': 'x' // end\n}",
        "{'a': 'b' ,'c': 'd'}",
    ] {
        let expected = parse(text, None, &ParseOptions::new());
        let expected = match expected {
            selfheal::Parsed::Ok { value, .. } => value,
            other => panic!("{text:?}: {other:?}"),
        };
        let mut run = by_char(None, text);
        assert_eq!(run.value().as_ref(), Some(&expected), "{text:?}");
        assert!(run.stream.done(), "{text:?}");
        assert_eq!(run.stream.violation(), None, "{text:?}");
    }
}

#[test]
fn an_apostrophe_decision_waits_for_the_next_chunk() {
    let mut run = Run::new(None);
    run.push("{'a': 'it'");
    assert_eq!(run.value(), Some(json!({"a": "it"})));
    run.push("s'}");
    assert_eq!(run.value(), Some(json!({"a": "it's"})));
    let mut run = Run::new(None);
    run.push("{'a': 'it'  ");
    run.push("  /");
    run.push("/ a comment\n}");
    assert_eq!(run.value(), Some(json!({"a": "it"})));
    assert!(run.stream.done());
}

#[test]
fn a_scalar_at_the_start_that_was_prose_is_taken_back() {
    let mut run = Run::new(None);
    run.push("3 ");
    assert_eq!(run.value(), Some(json!(3)));
    let update = run.push("items: [1, 2]").clone();
    assert!(update.edits.contains(&Edit::Reset));
    assert_eq!(run.value(), Some(json!([1, 2])));
    assert!(update.done);
    // A fenced scalar stays: the fence ends it.
    let mut run = by_char(None, "```json\n42\n```\n");
    assert_eq!(run.value(), Some(json!(42)));
}

#[test]
fn unreadable_text_stops_the_reader_without_a_violation() {
    // A bare word: the final parse may still repair (or reject) it; nothing is guessed.
    let strict = schema(json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
    let mut run = by_char(Some(strict), "{\"a\": 1, \"b\": hello, \"a\": \"x\"}");
    assert_eq!(run.value(), Some(json!({"a": 1})));
    assert_eq!(run.violation(), None);
    assert!(!run.stream.done());
}

// ---------------------------------------------------------------------------
// maxChars and finish
// ---------------------------------------------------------------------------

#[test]
fn max_chars_refuses_a_push_and_loses_nothing() {
    let options = StreamOptions {
        max_chars: 10,
        ..StreamOptions::default()
    };
    let mut run = Run::with(None, options);
    run.push("[\"é😀\", ");
    let before = (run.stream.text().to_owned(), run.value());
    let refused = run.stream.push("\"abcdef\"]");
    assert_eq!(
        refused,
        Err(StreamError::TooLong {
            max_chars: 10,
            chars: 16
        })
    );
    assert_eq!((run.stream.text().to_owned(), run.value()), before);
    run.push("1] ");
    assert_eq!(run.value(), Some(json!(["é😀", 1])));
    assert_eq!(run.stream.text().chars().count(), 10);
    assert!(run.stream.push("x").is_err());
    assert_eq!(StreamOptions::default().max_chars, 4_000_000);
}

#[test]
fn finish_is_parse_of_the_whole_text() {
    let order = schema(json!({"type": "object", "required": ["id"]}));
    for text in [
        "```json\n{\"id\": 1,}\n```",
        "{\"id\": 1",
        "{}",
        "",
        "nope",
        "{\"id\": 1}",
    ] {
        let mut run = Run::new(Some(order.clone()));
        run.push(text);
        for options in [
            ParseOptions::new(),
            ParseOptions {
                local_repair: false,
                ..ParseOptions::new()
            },
            ParseOptions {
                stop_reason: Some("max_tokens".into()),
                ..ParseOptions::new()
            },
        ] {
            assert_eq!(
                run.stream.finish(&options),
                parse(text, Some(order.compiled()), &options),
                "{text:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Strict mode (local repair off)
// ---------------------------------------------------------------------------

#[test]
fn without_local_repair_the_first_non_json_byte_is_a_syntax_violation() {
    let strict = StreamOptions {
        local_repair: false,
        ..StreamOptions::default()
    };
    for (text, message) in [
        (
            "```json\n{}",
            "invalid JSON: text before the value at line 1 column 1",
        ),
        (
            "{\"a\": 1,}",
            "invalid JSON: a trailing comma at line 1 column 9",
        ),
        (
            "{\"a\": [1,\n 2 3]}",
            "invalid JSON: a missing ',' at line 2 column 4",
        ),
        ("{a: 1}", "invalid JSON: an unquoted key at line 1 column 2"),
        (
            "[True]",
            "invalid JSON: a Python literal at line 1 column 6",
        ),
        (
            "[\"\\x\"]",
            "invalid JSON: an invalid escape at line 1 column 4",
        ),
        (
            "[\"\\uD800\"]",
            "invalid JSON: a lone surrogate at line 1 column 9",
        ),
        ("[01]", "invalid JSON: an invalid number at line 1 column 4"),
        (
            "[1] x",
            "invalid JSON: text after the value at line 1 column 5",
        ),
        (
            "[\"a\nb\"]",
            "invalid JSON: a control character in a string at line 1 column 4",
        ),
    ] {
        let mut run = Run::with(None, strict.clone());
        let mut buf = [0u8; 4];
        for ch in text.chars() {
            run.push(ch.encode_utf8(&mut buf));
        }
        let v = run.stream.violation().unwrap_or_else(|| panic!("{text:?}"));
        assert_eq!(
            (
                v.issue.kind,
                v.issue.path.as_str(),
                v.issue.message.as_str()
            ),
            (FailureKind::JsonSyntax, "", message)
        );
        assert!(!parse(
            text,
            None,
            &ParseOptions {
                local_repair: false,
                ..ParseOptions::new()
            }
        )
        .is_ok());
    }
    let mut run = Run::with(None, strict);
    run.push(" {\"a\": [1, 2.5e3, \"\\u00e9\"]} \n");
    assert_eq!(run.stream.violation(), None);
}

#[test]
fn nesting_deeper_than_serde_json_allows_is_a_syntax_violation() {
    let mut run = Run::new(None);
    run.push(&"[".repeat(127));
    assert_eq!(run.violation(), None);
    run.push("[");
    assert_eq!(run.violation().map(|v| v.2), Some(FailureKind::JsonSyntax));
    assert!(!parse(&"[".repeat(128), None, &ParseOptions::new()).is_ok());
    // After prose the final parse may look elsewhere: nothing is reported.
    let mut run = Run::new(None);
    run.push(&format!("x {}", "[".repeat(200)));
    assert_eq!(run.violation(), None);
}

// ---------------------------------------------------------------------------
// Schema-aware fail-fast
// ---------------------------------------------------------------------------

fn order_schema() -> Arc<StreamSchema> {
    schema(json!({
        "type": "object",
        "required": ["id", "status", "items"],
        "additionalProperties": false,
        "properties": {
            "id": {"type": "string", "pattern": "^ord_[A-Za-z0-9]{4,}$"},
            "status": {"enum": ["pending", "paid"]},
            "items": {
                "type": "array", "minItems": 1, "maxItems": 2,
                "items": {
                    "type": "object",
                    "required": ["sku", "quantity"],
                    "additionalProperties": false,
                    "properties": {
                        "sku": {"type": "string", "minLength": 3},
                        "quantity": {"type": "integer", "minimum": 1}
                    }
                }
            },
            "notes": {"type": ["string", "null"]}
        }
    }))
}

#[test]
fn a_forbidden_key_is_a_violation_the_moment_its_name_closes() {
    let mut run = Run::new(Some(order_schema()));
    run.push("{\"id\": \"ord_1234\", \"bogu");
    assert_eq!(run.violation(), None);
    let update = run.push("s\"").clone();
    let issue = update.violation.expect("reported");
    assert_eq!((issue.path.as_str(), issue.kind), ("", FailureKind::Schema));
    assert_eq!(
        issue.message,
        "Additional properties are not allowed (\"bogus\" was unexpected)"
    );
    assert_eq!(run.violation(), schema_issue("", "additionalProperties"));
    // Sticky: every later update carries it, the value keeps growing.
    let later = run.push(": 1, \"status\": \"paid\"").clone();
    assert_eq!(later.violation, Some(issue));
    assert_eq!(
        run.value(),
        Some(json!({"id": "ord_1234", "bogus": 1, "status": "paid"}))
    );
}

#[test]
fn a_type_is_settled_by_the_first_character_of_a_container() {
    let mut run = Run::new(Some(order_schema()));
    run.push("{\"items\": ");
    assert_eq!(run.violation(), None);
    run.push("{");
    assert_eq!(run.violation(), schema_issue("/items", "type"));
}

#[test]
fn a_scalar_is_judged_when_complete() {
    // A string in a container is complete at the `,` `}` `]` after it, not at its quote: local
    // repair may still join it with what follows (`"a" + "b"`) or keep the quote as content.
    for (text, path, keyword) in [
        ("{\"id\": \"ord_1\",", "/id", "pattern"),
        ("{\"status\": \"lost\"}", "/status", "enum"),
        ("{\"id\": 5,", "/id", "type"),
        (
            "{\"items\": [{\"sku\": \"AB\" ,",
            "/items/0/sku",
            "minLength",
        ),
        (
            "{\"items\": [{\"quantity\": 0}",
            "/items/0/quantity",
            "minimum",
        ),
        (
            "{\"items\": [{\"quantity\": 1.5}",
            "/items/0/quantity",
            "type",
        ),
        ("{\"notes\": true}", "/notes", "type"),
    ] {
        let run = by_char(Some(order_schema()), text);
        assert_eq!(run.violation(), schema_issue(path, keyword), "{text:?}");
        // Not one character earlier: the value was not complete yet.
        let early = by_char(Some(order_schema()), &text[..text.len() - 1]);
        assert_eq!(early.violation(), None, "{text:?} reported early");
    }
    // An integer may still be growing: 0 -> 05 is not JSON, but 1 -> 10 is fine.
    let mut run = Run::new(Some(order_schema()));
    run.push("{\"items\": [{\"quantity\": 0");
    assert_eq!(run.violation(), None, "a number is judged once complete");
    run.push("}");
    assert_eq!(
        run.violation(),
        schema_issue("/items/0/quantity", "minimum")
    );
}

#[test]
fn a_string_local_repair_may_still_change_is_not_judged_at_its_quote() {
    // Once a violation at the quote, which the final parse then accepted: `"x" + "yz"` is one
    // string (string-concatenation), `"5" tall"` one with a quote in it (unescaped-quote).
    let s = schema(json!({
        "type": "object",
        "properties": {"a": {"type": "string", "minLength": 3}, "e": {"enum": ["5\" tall"]}}
    }));
    for (head, tail, want) in [
        (r#"{"a": "x""#, r#" + "yz"}"#, json!({"a": "xyz"})),
        (r#"{"e": "5" "#, r#"tall"}"#, json!({"e": "5\" tall"})),
    ] {
        let mut run = Run::new(Some(s.clone()));
        run.push(head);
        assert_eq!(run.violation(), None, "{head}");
        run.push(tail);
        assert_eq!(run.violation(), None, "{head}{tail}");
        let Parsed::Ok { value, .. } = run.stream.finish(&ParseOptions::new()) else {
            panic!("{head}{tail}: the final parse accepts it");
        };
        assert_eq!(value, want);
    }
    // Strict text is judged at the separator after the string.
    let mut run = Run::new(Some(s));
    run.push(r#"{"a": "x""#);
    assert_eq!(run.violation(), None);
    run.push(" }");
    assert_eq!(run.violation(), schema_issue("/a", "minLength"));
}

#[test]
fn messages_say_what_is_wrong_on_one_line() {
    let run = by_char(Some(order_schema()), "{\"id\": \"ord_1\",");
    let message = run.stream.violation().map(|v| v.issue.message.clone());
    assert_eq!(
        message.as_deref(),
        Some(r#""ord_1" does not match "^ord_[A-Za-z0-9]{4,}$""#)
    );
    let long = format!("{{\"status\": \"{}\n\",", "x".repeat(500));
    let run = by_char(Some(order_schema()), &long);
    let v = run.stream.violation().unwrap();
    assert!(v.issue.message.chars().count() < 300 && !v.issue.message.contains('\n'));
    assert!(v.issue.message.starts_with("\"xxx"), "{}", v.issue.message);
}

#[test]
fn a_violation_path_is_bounded_and_on_one_line_like_every_report_issue() {
    // Before: the path quoted the model's key whole, line breaks included (304 code points
    // here), though SPEC section 4 bounds every issue's path at 200, on one line.
    let key = format!("x\ny{}", "k".repeat(300));
    let text = serde_json::to_string(&json!({ key.as_str(): "v" })).unwrap();
    let run = by_char(
        Some(schema(
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
        )),
        &text,
    );
    let v = run
        .stream
        .violation()
        .expect("a string where an integer must be");
    assert_eq!(v.issue.path.chars().count(), 200, "{}", v.issue.path);
    assert!(v.issue.path.starts_with("/x y") && v.issue.path.ends_with('…'));
    // The same reply parsed whole reports the same issue.
    let compiled = CompiledSchema::from_value(
        json!({"type": "object", "additionalProperties": {"type": "integer"}}),
    )
    .unwrap();
    let Parsed::Err { report, .. } = parse(&text, Some(&compiled), &ParseOptions::new()) else {
        panic!("the reply fails its schema")
    };
    assert_eq!(report.issues[0].path, v.issue.path);
}

#[test]
fn required_and_minimum_counts_wait_for_the_close() {
    let mut run = Run::new(Some(order_schema()));
    run.push("{\"id\": \"ord_1234\", \"items\": [");
    assert_eq!(run.violation(), None);
    run.push("]");
    assert_eq!(run.violation(), schema_issue("/items", "minItems"));
    let mut run = Run::new(Some(order_schema()));
    run.push("{\"id\": \"ord_1234\", \"items\": [{\"sku\": \"ABC\", \"quantity\": 1}]");
    assert_eq!(run.violation(), None);
    run.push("}");
    assert_eq!(run.violation(), schema_issue("", "required"));
}

#[test]
fn max_items_is_definitive_while_the_array_is_open() {
    let mut run = Run::new(Some(order_schema()));
    run.push(
        "{\"items\": [{\"sku\": \"ABC\", \"quantity\": 1}, {\"sku\": \"DEF\", \"quantity\": 2}, ",
    );
    assert_eq!(run.violation(), None);
    run.push("{");
    assert_eq!(run.violation(), schema_issue("/items", "maxItems"));
}

#[test]
fn any_of_keeps_every_branch_alive_until_none_is_left() {
    let shapes = schema(json!({
        "type": "array",
        "items": {"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}},
            {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}},
            {"type": "string"}
        ]}
    }));
    let mut run = Run::new(Some(shapes.clone()));
    run.push("[\"a\", {\"kind\": \"circle\", \"r\": 2}, {\"side\": ");
    assert_eq!(run.violation(), None);
    run.push("\"big\"");
    assert_eq!(
        run.violation(),
        None,
        "the circle branch still accepts side"
    );
    run.push(", \"r\": \"x\"");
    assert_eq!(
        run.violation(),
        None,
        "a string is complete at what follows it"
    );
    run.push(",");
    assert_eq!(run.violation(), schema_issue("/2", "anyOf"));
    let mut run = Run::new(Some(shapes));
    run.push("[1");
    assert_eq!(run.violation(), None);
    run.push("]");
    assert_eq!(run.violation(), schema_issue("/0", "anyOf"));
}

#[test]
fn refs_defs_and_draft_7_siblings() {
    let tree = schema(json!({
        "$defs": {"node": {
            "type": "object", "additionalProperties": false, "required": ["v"],
            "properties": {"v": {"type": "integer", "exclusiveMaximum": 10}, "next": {"$ref": "#/$defs/node"}}
        }},
        "$ref": "#/$defs/node"
    }));
    let run = by_char(
        Some(tree.clone()),
        r#"{"v": 1, "next": {"v": 2, "next": {"v": 9}}}"#,
    );
    assert_eq!(run.violation(), None);
    assert!(run.stream.done());
    let mut run = by_char(Some(tree), r#"{"v": 1, "next": {"v": 2, "next": {"v": 10"#);
    run.push("}");
    assert_eq!(
        run.violation(),
        schema_issue("/next/next/v", "exclusiveMaximum")
    );
    // Draft 7: a $ref makes its siblings ignored.
    let draft7 = schema(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"s": {"type": "string"}},
        "properties": {"x": {"$ref": "#/definitions/s", "type": "integer"}}
    }));
    let run = by_char(Some(draft7.clone()), r#"{"x": "s"}"#);
    assert_eq!(run.violation(), None);
    let run = by_char(Some(draft7), r#"{"x": 1}"#);
    assert_eq!(run.violation(), schema_issue("/x", "type"));
}

#[test]
fn property_names_pattern_properties_and_tuples() {
    let s = schema(json!({
        "type": "object",
        "propertyNames": {"maxLength": 4},
        "patternProperties": {"^x_": {"type": "boolean"}},
        "additionalProperties": {"type": "integer"},
        "properties": {"t": {"prefixItems": [{"type": "string"}], "items": false}}
    }));
    let cases: [(&str, Option<(&str, &str)>); 5] = [
        (r#"{"x_a": true, "b": 1, "t": ["s"]}"#, None),
        (r#"{"long_name""#, Some(("", "propertyNames"))),
        (r#"{"x_a": 1,"#, Some(("/x_a", "type"))),
        (r#"{"b": "s","#, Some(("/b", "type"))),
        (r#"{"t": ["s", 1"#, None),
    ];
    for (text, expected) in cases {
        let run = by_char(Some(s.clone()), text);
        assert_eq!(
            run.violation(),
            expected.and_then(|(p, k)| schema_issue(p, k)),
            "{text:?}"
        );
    }
    let run = by_char(Some(s), r#"{"t": ["s", 1]"#);
    assert_eq!(run.violation(), schema_issue("/t/1", "falseSchema"));
}

#[test]
fn many_members_are_counted_once_each() {
    let s = schema(json!({"type": "object", "required": ["k0", "k19"], "maxProperties": 20}));
    let members = |names: &[usize]| -> String {
        let list: Vec<String> = names.iter().map(|i| format!("\"k{i}\": {i}")).collect();
        format!("{{{}}}", list.join(", "))
    };
    let twenty: Vec<usize> = (0..20).collect();
    assert_eq!(
        by_char(Some(s.clone()), &members(&twenty)).violation(),
        None
    );
    // Repeats, past the short list too, count once.
    let repeats: Vec<usize> = (0..20).chain([3, 17, 0]).collect();
    assert_eq!(
        by_char(Some(s.clone()), &members(&repeats)).violation(),
        None
    );
    let mut run = Run::new(Some(s.clone()));
    run.push(&members(&(0..20).collect::<Vec<_>>()).replace('}', ", \"k20\""));
    assert_eq!(run.violation(), schema_issue("", "maxProperties"));
    let without_last: Vec<usize> = (0..19).chain([25]).collect();
    assert_eq!(
        by_char(Some(s), &members(&without_last)).violation(),
        schema_issue("", "required")
    );
}

// ---------------------------------------------------------------------------
// Never a false alarm
// ---------------------------------------------------------------------------

#[test]
fn no_schema_violation_after_prose() {
    // The reply may hold an example first and the answer after it.
    let mut run = by_char(
        Some(order_schema()),
        "An example: {\"bogus\": 1}. The answer: {\"id\": \"ord_1234\"}",
    );
    assert_eq!(run.violation(), None);
    assert_eq!(run.value(), Some(json!({"bogus": 1})));
    // A fence alone is not prose.
    let run = by_char(Some(order_schema()), "```json\n{\"bogus\"");
    assert_eq!(run.violation(), schema_issue("", "additionalProperties"));
}

#[test]
fn no_schema_violation_after_a_non_json_quote() {
    let mut run = by_char(Some(order_schema()), "{'id': 'ord_1234', \"bogus\": 1}");
    assert_eq!(run.violation(), None);
    assert_eq!(run.value(), Some(json!({"id": "ord_1234", "bogus": 1})));
}

#[test]
fn no_violation_for_a_top_level_scalar_or_a_maybe_array() {
    let run = by_char(Some(order_schema()), "\"just text\"");
    assert_eq!(run.violation(), None);
    let either = schema(
        json!({"type": ["object", "array"], "items": {"type": "integer"}, "required": ["a"]}),
    );
    let run = by_char(Some(either.clone()), "{\"b\": 1}");
    assert_eq!(
        run.violation(),
        None,
        "newline-delimited objects may become an array"
    );
    let run = by_char(Some(either), "[\"x\"]");
    assert_eq!(run.violation(), schema_issue("/0", "type"));
}

#[test]
fn no_violation_for_json_in_a_string_or_with_coercion() {
    let s = schema(
        json!({"type": "object", "properties": {"o": {"type": "object"}, "n": {"type": "integer"}}}),
    );
    let run = by_char(Some(s.clone()), r#"{"o": "{\"a\": 1}"}"#);
    assert_eq!(run.violation(), None);
    let coerce = StreamOptions {
        coerce: true,
        ..StreamOptions::default()
    };
    let mut run = Run::with(Some(s.clone()), coerce);
    run.push(r#"{"n": "12,111", "o": [1]}"#);
    assert_eq!(run.violation(), None);
    let run = by_char(Some(s), r#"{"n": "12,111"}"#);
    assert_eq!(run.violation(), schema_issue("/n", "type"));
}

#[test]
fn keywords_not_read_never_report() {
    let s = schema(json!({
        "type": "object",
        "properties": {
            "e": {"type": "string", "format": "email"},
            "n": {"not": {"type": "integer"}},
            "i": {"if": {"type": "string"}, "then": {"minLength": 5}}
        },
        "unevaluatedProperties": false,
        "dependentRequired": {"e": ["x"]}
    }));
    let run = by_char(Some(s), r#"{"e": "nope", "n": 1, "i": "ab", "z": 0}"#);
    assert_eq!(run.violation(), None);
}

#[test]
fn a_repeated_key_is_not_waited_for() {
    // JSON parsers let the last of two members with one name win; a stream
    // judges each member's value when it closes (documented in DESIGN.md).
    let s = schema(json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
    let run = by_char(Some(s), r#"{"a": "x", "a": 1}"#);
    assert_eq!(run.violation(), schema_issue("/a", "type"));
}

#[test]
fn anchors_draft_4_bounds_and_multiple_of() {
    let s = schema(json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "p": {"type": "number", "maximum": 5, "exclusiveMaximum": true},
            "m": {"type": "number", "multipleOf": 0.1},
            "i": {"type": "integer"}
        }
    }));
    assert_eq!(
        by_char(Some(s.clone()), r#"{"p": 4.9, "m": 0.3, "i": 2}"#).violation(),
        None
    );
    assert_eq!(
        by_char(Some(s.clone()), r#"{"p": 5,"#).violation(),
        schema_issue("/p", "exclusiveMaximum")
    );
    assert_eq!(
        by_char(Some(s.clone()), r#"{"m": 0.35,"#).violation(),
        schema_issue("/m", "multipleOf")
    );
    // 1.0 is an integer since draft 6; draft 4 says no, and only the final parse says so.
    assert_eq!(by_char(Some(s), r#"{"i": 1.0,"#).violation(), None);
    let anchored = schema(json!({
        "type": "object",
        "properties": {"c": {"$ref": "#color"}},
        "$defs": {"c": {"$anchor": "color", "enum": ["red", "green"]}}
    }));
    assert_eq!(
        by_char(Some(anchored.clone()), r#"{"c": "red"}"#).violation(),
        None
    );
    assert_eq!(
        by_char(Some(anchored), r#"{"c": "blue"}"#).violation(),
        schema_issue("/c", "enum")
    );
}

#[test]
fn numbers_are_compared_without_rounding() {
    let s = schema(json!({
        "type": "object",
        "properties": {
            "big": {"maximum": 9007199254740993u64},
            "ex": {"exclusiveMaximum": 9007199254740992.0},
            "e": {"enum": [1]}
        }
    }));
    // 2^53 + 1 is not above 2^53 + 1, though both round to 2^53 as floats.
    assert_eq!(
        by_char(Some(s.clone()), r#"{"big": 9007199254740993,"#).violation(),
        None
    );
    assert_eq!(
        by_char(Some(s.clone()), r#"{"big": 9007199254740994,"#).violation(),
        schema_issue("/big", "maximum")
    );
    // An integer that rounds to the float bound: the order is in doubt, nothing reported.
    assert_eq!(
        by_char(Some(s.clone()), r#"{"ex": 9007199254740991,"#).violation(),
        None
    );
    assert_eq!(
        by_char(Some(s), r#"{"e": 1.0,"#).violation(),
        None,
        "1.0 equals 1"
    );
}

#[test]
fn tolerant_strings_keep_what_the_scanner_keeps() {
    let text = concat!(r#"["a\u12x", "tab"#, "\t", r#"here", "C:\dir"]"#);
    let mut run = by_char(None, text);
    assert_eq!(
        run.value(),
        Some(json!(["a\\u12x", "tab\there", "C:\\dir"]))
    );
    // A lone surrogate escape is U+FFFD, as the final parse's repair makes it (before, the
    // reader stopped there and the final parse refused the reply).
    let mut run = by_char(
        None,
        r#"["ok", "\uD800x", "\uDC00", "\uD83D\u0041", "\uD83D\n", "\uD83D\u12x", "\uD83D\uDE00"]"#,
    );
    let expected = json!([
        "ok",
        "\u{FFFD}x",
        "\u{FFFD}",
        "\u{FFFD}A",
        "\u{FFFD}\n",
        "\u{FFFD}\\u12x",
        "😀"
    ]);
    assert_eq!(run.value(), Some(expected.clone()));
    assert_eq!(run.violation(), None);
    let Parsed::Ok { value, fixes, .. } = parse(run.stream.text(), None, &ParseOptions::new())
    else {
        panic!("the final parse repairs it")
    };
    assert_eq!((value, fixes), (expected, vec![Fix::InvalidEscape]));
    // Reading strict JSON only, it is a syntax error, as for the whole text.
    let strict = StreamOptions {
        local_repair: false,
        ..StreamOptions::default()
    };
    let mut run = Run::with(None, strict);
    run.push(r#"["\uD800x"]"#);
    assert_eq!(
        run.stream.violation().map(|v| v.issue.kind),
        Some(FailureKind::JsonSyntax)
    );
}

#[test]
fn a_fence_opener_split_anywhere() {
    let text = "```json\n{\"a\": [1]}\n```";
    for cut in 0..text.len() {
        let mut run = Run::new(Some(order_schema()));
        run.push(&text[..cut]);
        run.push(&text[cut..]);
        assert_eq!(run.value(), Some(json!({"a": [1]})), "cut at {cut}");
        assert_eq!(
            run.violation(),
            schema_issue("", "additionalProperties"),
            "cut at {cut}"
        );
    }
}

/// A fence line inside a string (raw newlines) is the string's content for the reader, and for
/// the final parse too: the parse cut the reply at the line and dropped "b", so a violation the
/// reader reported on "b" was one the final parse did not (an outside tester, 2026-12-02).
#[test]
fn a_fence_line_inside_a_string_is_content_for_the_reader_and_the_final_parse() {
    let ab = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]});
    for (text, b) in [
        ("{\"a\": \"x\n```\ny\", \"b\": 1}", json!(1)),
        ("{'a': 'x\n```json\ny', 'b': 1}", json!(1)),
        ("{\"a\": \"x\n```\ny\", \"b\": \"one\"}", json!("one")),
    ] {
        let mut run = by_char(Some(schema(ab.clone())), text);
        let a = if text.contains("json") {
            "x\n```json\ny"
        } else {
            "x\n```\ny"
        };
        let want = json!({"a": a, "b": b});
        assert_eq!(run.value(), Some(want.clone()), "{text}");
        let parsed = parse(
            text,
            Some(&CompiledSchema::from_value(ab.clone()).expect("a valid schema")),
            &ParseOptions::new(),
        );
        match parsed {
            Parsed::Ok { value, .. } => {
                assert_eq!(value, want, "{text}");
                assert_eq!(run.violation(), None, "{text}");
            }
            Parsed::Err { report, .. } => {
                let schema = report.issues.iter().find(|i| i.kind == FailureKind::Schema);
                assert_eq!(schema.map(|i| i.path.as_str()), Some("/b"), "{text}");
                assert_eq!(run.violation(), schema_issue("/b", "type"), "{text}");
            }
        }
    }
}

#[test]
fn strict_mode_still_checks_the_schema() {
    let strict = StreamOptions {
        local_repair: false,
        ..StreamOptions::default()
    };
    let mut run = Run::with(Some(order_schema()), strict);
    run.push(r#"{"status": "lost", "#);
    assert_eq!(run.violation(), schema_issue("/status", "enum"));
    run.push("'x': 1}");
    assert_eq!(
        run.violation(),
        schema_issue("/status", "enum"),
        "the first violation stays"
    );
}

#[test]
fn a_long_array_against_a_union_with_a_long_enum() {
    // An outside review: every element worded the enum's whole list into a message the `anyOf`
    // then dropped (14.7 s for 4 MB through wasm, 3.4 s for one 60 KB push against 1,000
    // members). A scalar's message is now worded only when reported, and an enum is looked up
    // rather than compared with each member. The same shapes at 100 KB, and their answers.
    let names: Vec<String> = (0..1000).map(|i| format!("VALUE_{i}")).collect();
    let union = schema(json!({
        "type": "array",
        "items": {"anyOf": [{"enum": names}, {"type": "number"}]}
    }));
    let ones = "1,".repeat(50_000);
    let mut run = Run::new(Some(union.clone()));
    run.push(&format!("[{ones}\"VALUE_999\", 1]"));
    assert_eq!(run.violation(), None);
    assert!(run.stream.done());
    let mut run = Run::new(Some(union));
    run.push(&format!("[{ones}\"VALUE_999\", \"nope\", 1]"));
    assert_eq!(run.violation(), schema_issue("/50001", "anyOf"));
    assert_eq!(
        run.stream.violation().unwrap().issue.message,
        r#""nope" is not valid under any of the schemas listed in the 'anyOf' keyword"#
    );
    // The enum alone: the message quotes the start of the list, as before.
    let mut run = Run::new(Some(schema(
        json!({"type": "array", "items": {"enum": names}}),
    )));
    run.push(&format!("[{}7]", "\"VALUE_3\",".repeat(20_000)));
    assert_eq!(run.violation(), schema_issue("/20000", "enum"));
    let message = &run.stream.violation().unwrap().issue.message;
    assert!(message.starts_with(r#"7 is not one of ["VALUE_0", "VALUE_1", "#));
    assert!(
        message.ends_with('…') && message.chars().count() == 137,
        "{message}"
    );
    // Numbers equal by value (1.0 is 1), and an integer no double tells from a member is in
    // doubt, never reported; one that differs is.
    let numbers = schema(json!({
        "type": "array",
        "items": {"enum": [1, 2.5, 9007199254740993u64, "1", null]}
    }));
    for (text, want) in [
        ("[1.0, 2.5, 9007199254740993, null]", None),
        ("[9007199254740993.0]", None),
        ("[9007199254740992]", schema_issue("/0", "enum")),
        ("[1, \"1.0\"]", schema_issue("/1", "enum")),
        ("[false]", schema_issue("/0", "enum")),
    ] {
        assert_eq!(
            by_char(Some(numbers.clone()), text).violation(),
            want,
            "{text}"
        );
    }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

mod properties {
    use super::*;
    use proptest::prelude::*;
    use proptest::sample::Index;

    /// Splits `text` at the given character positions.
    fn split(text: &str, cuts: &[Index]) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(chars.len() + 1)).collect();
        at.sort_unstable();
        at.dedup();
        let mut parts = Vec::new();
        let mut from = 0;
        for to in at.into_iter().chain([chars.len()]) {
            parts.push(chars[from..to].iter().collect());
            from = to;
        }
        parts
    }

    struct Outcome {
        value: Option<Value>,
        closed: Vec<String>,
        done: bool,
        violation: Option<(String, Option<&'static str>, FailureKind, String)>,
    }

    fn run(
        schema: Option<Arc<StreamSchema>>,
        options: &StreamOptions,
        parts: &[String],
    ) -> Outcome {
        let mut run = Run::with(schema, options.clone());
        for p in parts {
            run.push(p);
        }
        Outcome {
            value: run.value(),
            closed: run.closed.clone(),
            done: run.stream.done(),
            violation: run.stream.violation().map(|v| {
                (
                    v.issue.path.clone(),
                    v.keyword,
                    v.issue.kind,
                    v.issue.message.clone(),
                )
            }),
        }
    }

    /// The same text in one push and in `parts` gives the same stream.
    fn same_in_any_chunking(
        schema: Option<Arc<StreamSchema>>,
        options: &StreamOptions,
        parts: &[String],
    ) -> Result<Outcome, TestCaseError> {
        let whole = run(schema.clone(), options, &[parts.concat()]);
        let chunked = run(schema, options, parts);
        prop_assert_eq!(&whole.value, &chunked.value, "value, {:?}", parts);
        prop_assert_eq!(&whole.closed, &chunked.closed, "closed, {:?}", parts);
        prop_assert_eq!(whole.done, chunked.done);
        prop_assert_eq!(
            &whole.violation,
            &chunked.violation,
            "violation, {:?}",
            parts
        );
        Ok(chunked)
    }

    fn order(items: usize) -> Value {
        let items: Vec<Value> = (0..items)
            .map(|i| json!({"sku": format!("SKU{i}"), "quantity": i + 1}))
            .collect();
        json!({"id": "ord_12345", "status": "paid", "items": items, "notes": "leave at the door"})
    }

    /// Ways a model gets an order wrong (and a few that are still fine).
    fn mutate(doc: &mut Value, which: usize, at: usize) {
        let items = doc["items"].as_array().map_or(0, Vec::len);
        if items == 0 && ((7..=11).contains(&(which % 16)) || which % 16 == 14) {
            return;
        }
        let i = at % items.max(1);
        match which % 16 {
            0 => doc["id"] = json!(12345),
            1 => doc["id"] = json!("order-1"),
            2 => doc["status"] = json!("lost"),
            3 => {
                doc.as_object_mut().unwrap().remove("status");
            }
            4 => doc["extra"] = json!({"nested": [1, 2]}),
            5 => doc["items"] = json!([]),
            6 => doc["items"] = json!({"sku": "ABC"}),
            7 => doc["items"][i]["quantity"] = json!(0),
            8 => doc["items"][i]["quantity"] = json!(2.5),
            9 => doc["items"][i]["sku"] = json!("AB"),
            10 => {
                doc["items"][i].as_object_mut().map(|o| o.remove("sku"));
            }
            11 => doc["items"][i]["color"] = json!("red"),
            12 => doc["notes"] = json!(true),
            13 => doc["notes"] = Value::Null,
            14 => doc["items"][i]["quantity"] = json!(3.0),
            _ => {
                doc.as_object_mut().unwrap().remove("notes");
            }
        }
    }

    fn whole_text_errors(schema: &Value, doc: &Value) -> Vec<(String, String)> {
        let validator = jsonschema::validator_for(schema).unwrap();
        validator
            .iter_errors(doc)
            .map(|e| {
                (
                    e.instance_path().as_str().to_owned(),
                    e.kind().keyword().to_owned(),
                )
            })
            .collect()
    }

    fn other_schemas() -> Vec<Value> {
        vec![
            json!({
                "type": "array", "maxItems": 3,
                "items": {"anyOf": [
                    {"type": "string", "maxLength": 3},
                    {"type": "object", "required": ["k"], "properties": {"k": {"type": "integer"}}}
                ]}
            }),
            json!({
                "type": "object",
                "propertyNames": {"maxLength": 4},
                "patternProperties": {"^x_": {"type": "boolean"}},
                "additionalProperties": {"type": "integer"},
                "properties": {"t": {"prefixItems": [{"type": "string"}], "items": false}}
            }),
            json!({
                "$defs": {"node": {
                    "type": "object", "additionalProperties": false, "required": ["v"],
                    "properties": {"v": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
                                   "next": {"$ref": "#/$defs/node"}}
                }},
                "$ref": "#/$defs/node"
            }),
            json!({
                "oneOf": [
                    {"type": "object", "required": ["a"], "properties": {"a": {"const": 1}}},
                    {"type": "object", "required": ["b"], "properties": {"b": {"enum": ["x", 2, null]}}}
                ]
            }),
            // The fuzz targets' schemas (fuzz/src/lib.rs).
            json!({"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}),
            json!({"oneOf": [
                {"type": "object", "required": ["tool", "args"], "additionalProperties": false,
                 "properties": {"tool": {"type": "string"}, "args": {"type": "object"}}},
                {"type": "object", "required": ["final"], "additionalProperties": false,
                 "properties": {"final": {"type": "string"}}}
            ]}),
            json!({"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 5, "uniqueItems": true}),
            json!({"$defs": {"node": {"type": "object", "properties": {"v": {"type": "number"},
                   "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["v"]}},
                   "$ref": "#/$defs/node"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "additionalProperties": false,
                   "properties": {"n": {"type": "integer", "multipleOf": 3}, "s": {"type": "string", "minLength": 2}},
                   "dependencies": {"n": ["s"]}}),
            json!({"type": "object", "properties": {"a": {"enum": [1, "a", null, {"k": [true]}]},
                   "b": {"const": 2.5}, "k": {"type": "number", "exclusiveMinimum": 0, "maximum": 10}}}),
        ]
    }

    /// Small JSON values drawn from the words these schemas use.
    fn near_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..12).prop_map(Value::from),
            Just(json!(2.5)),
            Just(json!(1.0)),
            prop::sample::select(vec![
                "x",
                "abcd",
                "s",
                "",
                "x_y",
                "k",
                "Paris",
                "ab",
                "{\"a\": 1}"
            ])
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            let key = prop::sample::select(vec![
                "k", "v", "a", "b", "t", "next", "x_a", "long_key", "x_", "n", "s", "tool", "args",
                "final", "children", "city",
            ]);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((key, inner), 0..4).prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
            ]
        })
    }

    fn render(doc: &Value, style: usize) -> String {
        match style % 3 {
            0 => serde_json::to_string(doc).unwrap(),
            1 => serde_json::to_string_pretty(doc).unwrap(),
            _ => format!(
                "```json\n{}\n```\n",
                serde_json::to_string_pretty(doc).unwrap()
            ),
        }
    }

    /// The contract: a valid document never gets a violation; an invalid
    /// one only gets one that whole-text validation also reports.
    fn check_document(
        schema_json: &Value,
        doc: &Value,
        style: usize,
        cuts: &[Index],
    ) -> Result<(), TestCaseError> {
        let s = schema(schema_json.clone());
        let text = render(doc, style);
        let parts = split(&text, cuts);
        let outcome = same_in_any_chunking(Some(s.clone()), &StreamOptions::default(), &parts)?;
        let errors = whole_text_errors(schema_json, doc);
        match &outcome.violation {
            None => {}
            Some((path, keyword, kind, _)) => {
                prop_assert!(
                    !errors.is_empty(),
                    "violation {:?} on a valid document {}",
                    outcome.violation,
                    text
                );
                prop_assert_eq!(*kind, FailureKind::Schema);
                let found = (path.clone(), keyword.unwrap_or("").to_owned());
                prop_assert!(
                    errors.contains(&found),
                    "{:?} not among {:?} for {}",
                    found,
                    errors,
                    text
                );
            }
        }
        // A number or literal at the very end may still grow: only the final parse ends it.
        let open_scalar =
            matches!(doc, Value::Number(_) | Value::Bool(_) | Value::Null) && style % 3 != 2;
        if open_scalar {
            prop_assert!(!outcome.done && outcome.value.is_none());
        } else {
            prop_assert!(outcome.done);
            prop_assert_eq!(outcome.value.as_ref(), Some(doc));
        }
        let mut whole = PartialJson::new(Some(s.clone()), StreamOptions::default());
        let _ = whole.push(&text).unwrap();
        for options in [
            ParseOptions::new(),
            ParseOptions {
                local_repair: false,
                ..ParseOptions::new()
            },
        ] {
            prop_assert_eq!(
                whole.finish(&options),
                parse(&text, Some(s.compiled()), &options)
            );
        }
        Ok(())
    }

    /// How many values `value` holds, itself included.
    fn values_in(value: &Value) -> usize {
        let mut stack = vec![value];
        let mut n = 0;
        while let Some(v) = stack.pop() {
            n += 1;
            match v {
                Value::Array(items) => stack.extend(items),
                Value::Object(map) => stack.extend(map.values()),
                _ => {}
            }
        }
        n
    }

    /// JSON-ish fragments, so random text reaches every reader state.
    fn jsonish_text() -> impl Strategy<Value = String> {
        selfheal_hot::testing::jsonish_text(&["\\ud83d", "\\ude00", "\"k\":"], 40)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn orders_valid_or_not(items in 1usize..4, mutations in prop::collection::vec((0usize..16, 0usize..4), 0..3),
                               style in 0usize..3, cuts in prop::collection::vec(any::<Index>(), 0..24)) {
            let mut doc = order(items);
            for (which, at) in mutations {
                mutate(&mut doc, which, at);
            }
            let order_json = order_schema().compiled().value().clone();
            check_document(&order_json, &doc, style, &cuts)?;
        }

        #[test]
        fn other_schemas_valid_or_not(which in 0usize..10, doc in near_value(), style in 0usize..3,
                                      cuts in prop::collection::vec(any::<Index>(), 0..24)) {
            let schemas = other_schemas();
            check_document(&schemas[which], &doc, style, &cuts)?;
        }

        #[test]
        fn any_text_any_chunking(text in jsonish_text(), cuts in prop::collection::vec(any::<Index>(), 0..16),
                                 strict in any::<bool>(), which in 0usize..11) {
            let options = StreamOptions { local_repair: !strict, ..StreamOptions::default() };
            let schemas = other_schemas();
            let s = schemas.get(which).map(|v| schema(v.clone()));
            let parts = split(&text, &cuts);
            let outcome = same_in_any_chunking(s.clone(), &options, &parts)?;
            let strict_value = serde_json::from_str::<Value>(&text).ok();
            if let Some((_, _, FailureKind::JsonSyntax, _)) = &outcome.violation {
                prop_assert!(strict_value.is_none(), "a syntax violation on strict JSON: {:?}", text);
            }
            // A strict document that passes the schema and repeats no key gets
            // no violation, and once done shows exactly its value.
            if let Some(value) = strict_value {
                let valid = s.as_ref().is_none_or(|s| s.compiled().validate(&value).is_none());
                if valid && outcome.done && outcome.closed.len() == values_in(&value) {
                    prop_assert_eq!(&outcome.violation, &None, "{:?}", text);
                }
                if outcome.done {
                    prop_assert_eq!(outcome.value.as_ref(), Some(&value));
                }
            }
        }

        #[test]
        fn strict_json_reads_as_serde_json_does(doc in near_value(), style in 0usize..2,
                                                cuts in prop::collection::vec(any::<Index>(), 0..24)) {
            let text = render(&doc, style);
            let strict = StreamOptions { local_repair: false, ..StreamOptions::default() };
            let outcome = same_in_any_chunking(None, &strict, &split(&text, &cuts))?;
            prop_assert_eq!(outcome.violation, None);
            if matches!(doc, Value::Number(_) | Value::Bool(_) | Value::Null) {
                prop_assert!(!outcome.done && outcome.value.is_none());
            } else {
                prop_assert!(outcome.done);
                prop_assert_eq!(outcome.value, Some(doc));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Timing (ignored: run with --release --ignored --nocapture)
// ---------------------------------------------------------------------------

/// The order reply of bench/fixtures.mjs (same shape and schema): compact JSON of about
/// `bytes`, or the same order pretty-printed (larger: more, shorter chunks of blanks).
fn order_reply(bytes: usize, pretty: bool) -> String {
    const WORDS: [&str; 10] = [
        "Desk", "Lamp", "Cable", "Chair", "Mug", "Notebook", "Pen", "Monitor", "Stand", "Hub",
    ];
    const COLORS: [&str; 5] = ["black", "white", "oak", "steel", "red"];
    let item = |i: usize| {
        json!({
            "sku": format!("{}-{:04}", ["ABC", "DEF", "XYZ"][i % 3], 1000 + (i * 37) % 9000),
            "name": format!("{} {} №{i}", WORDS[i % 10], WORDS[(i * 7) % 10]),
            "quantity": 1 + i % 4,
            "unitPrice": (((i * 1931) % 20000) + 99) as f64 / 100.0,
            "tags": ["office", COLORS[i % 5]],
            "options": [{"name": "color", "value": COLORS[(i * 3) % 5]}],
        })
    };
    let order = |items: Vec<Value>| {
        json!({
            "id": "ord_7Hq2Lx9PZk", "status": "paid", "currency": "EUR",
            "createdAt": "2025-03-14T09:26:53Z",
            "customer": {"id": "cus_4f9a2c", "name": "Ada Lovelace", "email": "ada@example.org", "tier": "pro"},
            "items": items,
            "shipping": {"method": "express", "address": {"line1": "12 Analytical Row", "city": "London", "postalCode": "NW1 2DB", "country": "GB"}},
            "total": 12.5, "notes": null,
        })
    };
    // Each item adds its own text and a comma: count instead of re-serialising.
    let mut len = order(Vec::new()).to_string().len();
    let mut items = Vec::new();
    loop {
        let next = item(items.len());
        let added = next.to_string().len() + usize::from(!items.is_empty());
        if len + added > bytes {
            break;
        }
        len += added;
        items.push(next);
    }
    if pretty {
        serde_json::to_string_pretty(&order(items)).unwrap()
    } else {
        order(items).to_string()
    }
}

fn bench_order_schema() -> Value {
    json!({
        "type": "object",
        "required": ["id", "status", "currency", "customer", "items", "total"],
        "additionalProperties": false,
        "properties": {
            "id": {"type": "string", "pattern": "^ord_[A-Za-z0-9]{8,}$"},
            "status": {"enum": ["pending", "paid", "shipped", "delivered", "cancelled"]},
            "currency": {"type": "string", "enum": ["USD", "EUR", "JPY", "GBP"]},
            "createdAt": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T"},
            "customer": {
                "type": "object", "required": ["id", "name", "email"], "additionalProperties": false,
                "properties": {
                    "id": {"type": "string", "pattern": "^cus_[a-z0-9]+$"},
                    "name": {"type": "string", "minLength": 1},
                    "email": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+$"},
                    "tier": {"enum": ["free", "pro", "enterprise"]}
                }
            },
            "items": {
                "type": "array", "minItems": 1,
                "items": {
                    "type": "object", "required": ["sku", "name", "quantity", "unitPrice"], "additionalProperties": false,
                    "properties": {
                        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                        "name": {"type": "string", "minLength": 1},
                        "quantity": {"type": "integer", "minimum": 1},
                        "unitPrice": {"type": "number", "minimum": 0},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "options": {"type": "array", "items": {
                            "type": "object", "required": ["name", "value"], "additionalProperties": false,
                            "properties": {"name": {"type": "string"}, "value": {"type": "string"}}
                        }}
                    }
                }
            },
            "shipping": {
                "type": "object", "required": ["method", "address"], "additionalProperties": false,
                "properties": {
                    "method": {"enum": ["standard", "express", "pickup"]},
                    "address": {
                        "type": "object", "required": ["line1", "city", "country"], "additionalProperties": false,
                        "properties": {
                            "line1": {"type": "string"}, "line2": {"type": "string"}, "city": {"type": "string"},
                            "postalCode": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
                            "country": {"type": "string", "pattern": "^[A-Z]{2}$"}
                        }
                    }
                }
            },
            "total": {"type": "number", "minimum": 0},
            "notes": {"type": ["string", "null"]}
        }
    })
}

#[test]
#[ignore = "timing: cargo test --release --test stream -- --ignored --nocapture"]
fn timing_order_reply_in_16_char_chunks() {
    use std::time::Instant;
    let compiled = Arc::new(CompiledSchema::from_value(bench_order_schema()).unwrap());
    let warm = Arc::new(StreamSchema::new(compiled.clone()));
    let chunks = |text: &str| -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        chars.chunks(16).map(|c| c.iter().collect()).collect()
    };
    let stream_once = |schema: Option<Arc<StreamSchema>>, parts: &[String]| {
        let mut s = PartialJson::new(schema, StreamOptions::default());
        let mut edits = 0;
        for p in parts {
            edits += s.push(p).unwrap().edits.len();
        }
        assert!(s.done() && s.violation().is_none());
        edits
    };
    // Sizes and configurations interleaved, the best of 25 rounds kept: the
    // machine is shared (noise only adds) and the allocator's state after a
    // large run would otherwise bias the next one.
    let texts: Vec<(bool, String)> = [false, true]
        .into_iter()
        .flat_map(|pretty| [50_000, 200_000].map(|bytes| (pretty, order_reply(bytes, pretty))))
        .collect();
    let parts: Vec<Vec<String>> = texts.iter().map(|(_, t)| chunks(t)).collect();
    let mut best = vec![[f64::INFINITY; 3]; texts.len()];
    for _ in 0..25 {
        for (i, p) in parts.iter().enumerate() {
            for (j, slot) in best[i].iter_mut().enumerate() {
                let schema = match j {
                    0 => None,
                    1 => Some(warm.clone()),
                    _ => Some(Arc::new(StreamSchema::new(compiled.clone()))),
                };
                let t = Instant::now();
                stream_once(schema, p);
                *slot = slot.min(t.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    println!("text                   chunks  no schema   schema (shared)     schema (new each)");
    for (i, (pretty, text)) in texts.iter().enumerate() {
        let [none, shared, fresh] = best[i];
        let ratio = if i % 2 == 1 {
            format!("   200 KB / 50 KB: {:.2}x", none / best[i - 1][0])
        } else {
            String::new()
        };
        println!(
            "{:>7} B {:<7} {:>8}  {:>6.2} ms  {:>6.2} ms ({:.2}x)  {:>6.2} ms ({:.2}x){ratio}",
            text.len(),
            if *pretty { "pretty" } else { "compact" },
            parts[i].len(),
            none,
            shared,
            shared / none,
            fresh,
            fresh / none,
        );
    }
    // The quadratic way, for scale: the repair scanner on the accumulated text per chunk.
    let text = order_reply(50_000, false);
    let t = Instant::now();
    let mut acc = String::new();
    for p in chunks(&text) {
        acc.push_str(&p);
        let _ = selfheal::repair_json(&acc);
    }
    println!(
        "repair_json on the accumulated 50 KB text per chunk: {:.0} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
}

#[test]
fn values_under_a_long_key_cost_their_own_length_not_the_keys() {
    // An outside review (thirteenth session): each value's pointer was a fresh copy of its
    // parent's, so 50,000 numbers under a 100,000-character key made 5 GB of pointers and
    // trapped the wasm instance. Segments are now pushed and truncated in place, and a stream
    // made without `closed_pointers` (the loop's and the wasm layer's) keeps no copies.
    let key = "k".repeat(100_000);
    let text = format!("{{\"{key}\": [{}1]}}", "1,".repeat(50_000));
    let options = StreamOptions {
        closed_pointers: false,
        ..StreamOptions::default()
    };
    let s = schema(
        json!({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer", "maximum": 0}}}),
    );
    let mut stream = PartialJson::new(Some(s), options);
    let update = stream.push(&text).unwrap();
    assert!(update.done);
    assert!(update.closed.is_empty());
    assert_eq!(
        update.edits.len(),
        50_001 + 4,
        "two Begins, the numbers, two Ends"
    );
    // The violation's path is clipped as every issue's is.
    let issue = update.violation.unwrap();
    assert_eq!(issue.path.chars().count(), 200, "{}", issue.path);
    assert!(issue.path.starts_with("/kkk"));
    assert_eq!(stream.open_path(), "");
    // Pointers, when kept, are the same as ever, a string's included.
    let mut run = Run::new(None);
    run.push(r#"{"a/b": ["x", {"~": "y"}], "c": "#);
    assert_eq!(run.stream.open_path(), "");
    run.push(r#""z"#);
    assert_eq!(
        run.stream.open_path(),
        "",
        "inside a string: its container's"
    );
    run.push(r#""}"#);
    assert_eq!(
        run.closed,
        ["/a~1b/0", "/a~1b/1/~0", "/a~1b/1", "/a~1b", "/c", ""]
    );
}

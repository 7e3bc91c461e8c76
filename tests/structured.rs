//! SPEC section 4, parsing: empty, strict, truncated, local repair on/off, the
//! schema report, and the compile cache. The repair scanner's own rules are
//! covered by tests/repair_corpus.rs; here local repair is exercised only
//! through a fenced reply, which every version of the scanner fixes with the
//! single fix `code-fence`.
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
mod common;

use std::sync::Arc;

use common::*;
use selfheal::{
    parse, CompiledSchema, FailureKind, FailureReport, Fix, ParseOptions, Parsed, SchemaCache,
    SchemaOptions,
};
use serde_json::{json, Value};

const ORDER_SCHEMA: &str = r#"{
  "type": "object",
  "required": ["name", "items"],
  "properties": {
    "name": {"type": "string"},
    "items": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["sku", "price"],
        "properties": {
          "sku": {"type": "string"},
          "price": {"type": "number", "minimum": 0}
        }
      }
    }
  }
}"#;

fn opts() -> ParseOptions {
    ParseOptions::new()
}

fn cut_off(stop_reason: &str) -> ParseOptions {
    ParseOptions {
        stop_reason: Some(stop_reason.into()),
        ..ParseOptions::new()
    }
}

fn no_repair() -> ParseOptions {
    ParseOptions {
        local_repair: false,
        ..ParseOptions::new()
    }
}

#[track_caller]
fn accepted(p: Parsed) -> (Value, Vec<Fix>) {
    match p {
        Parsed::Ok { value, fixes, .. } => (value, fixes),
        Parsed::Err { report, .. } => panic!("expected a value, got {report:?}"),
    }
}

#[track_caller]
fn failed(p: Parsed) -> FailureReport {
    match p {
        Parsed::Err { report, .. } => report,
        Parsed::Ok { value, .. } => panic!("expected a failure, got {value}"),
    }
}

fn paths(report: &FailureReport) -> Vec<&str> {
    report.issues.iter().map(|i| i.path.as_str()).collect()
}

#[test]
fn empty_and_whitespace_only_replies_are_kind_empty() {
    let schema = compile(CITY_SCHEMA);
    for raw in ["", " ", "\n\t  \r\n"] {
        for s in [None, Some(&*schema)] {
            let r = failed(parse(raw, s, &opts()));
            assert_eq!(r.kinds, vec![FailureKind::Empty], "{raw:?}");
            assert_eq!(r.issues.len(), 1);
            assert_eq!(
                (r.issues[0].kind, r.issues[0].path.as_str()),
                (FailureKind::Empty, "")
            );
        }
    }
    // Empty wins over a cut-off stop reason too.
    assert_eq!(
        failed(parse("  ", None, &cut_off("max_tokens"))).kinds,
        vec![FailureKind::Empty]
    );
}

#[test]
fn a_lone_surrogate_escape_is_repaired_not_refused() {
    // JSON.parse takes `"\ud83d"` (a lone surrogate); serde_json refuses it, and the reply
    // used to fail whole as json-syntax. It is U+FFFD now, named a fix (the value is not what
    // JSON.parse gives), and with local repair off it stays a syntax failure.
    let schema = compile(CITY_SCHEMA);
    let reply = r#"{"city": "Paris \ud83d"}"#;
    let (value, fixes) = accepted(parse(reply, Some(&schema), &opts()));
    assert_eq!(value, json!({"city": "Paris \u{FFFD}"}));
    assert_eq!(fixes, vec![Fix::InvalidEscape]);
    assert_eq!(
        failed(parse(reply, Some(&schema), &no_repair())).kinds,
        vec![FailureKind::JsonSyntax]
    );
}

#[test]
fn strictly_valid_reply_passes_first_time_with_no_fixes() {
    let schema = compile(CITY_SCHEMA);
    let (value, fixes) = accepted(parse(CITY, Some(&schema), &opts()));
    assert_eq!(value, json!({"city": "Paris"}));
    assert!(fixes.is_empty());
    // Without a schema any JSON value passes.
    let (value, fixes) = accepted(parse("[1, 2.5, null]", None, &opts()));
    assert_eq!(value, json!([1, 2.5, null]));
    assert!(fixes.is_empty());
}

#[test]
fn schema_failures_list_every_violation_with_its_json_pointer() {
    let schema = compile(ORDER_SCHEMA);
    let raw = r#"{"items": [
        {"sku": "a", "price": 1},
        {"sku": "b", "price": "12.50"},
        {"sku": "c"},
        {"sku": 4, "price": -1}
    ]}"#;
    let r = failed(parse(raw, Some(&schema), &opts()));
    assert_eq!(r.kinds, vec![FailureKind::Schema]);
    let mut got = paths(&r);
    got.sort();
    assert_eq!(
        got,
        vec![
            "",
            "/items/1/price",
            "/items/2",
            "/items/3/price",
            "/items/3/sku"
        ]
    );
    assert!(r
        .issues
        .iter()
        .all(|i| i.kind == FailureKind::Schema && !i.message.is_empty()));
    let root = r.issues.iter().find(|i| i.path.is_empty()).unwrap();
    assert!(root.message.contains("name"), "{root:?}");
    let price = r
        .issues
        .iter()
        .find(|i| i.path == "/items/1/price")
        .unwrap();
    assert!(price.message.contains("12.50"), "{price:?}");
}

#[test]
fn schema_paths_escape_pointer_characters() {
    let schema = compile(r#"{"properties":{"a/b":{"type":"string"},"m~n":{"type":"string"}}}"#);
    let r = failed(parse(r#"{"a/b": 1, "m~n": 2}"#, Some(&schema), &opts()));
    let mut got = paths(&r);
    got.sort();
    assert_eq!(got, vec!["/a~1b", "/m~0n"]);
}

#[test]
fn validate_returns_none_when_valid_and_the_full_report_otherwise() {
    let schema = compile(ORDER_SCHEMA);
    assert_eq!(schema.validate(&json!({"name": "n", "items": []})), None);
    let r = schema.validate(&json!({"name": 1, "items": [{}]})).unwrap();
    let mut got = paths(&r);
    got.sort();
    assert_eq!(got, vec!["/items/0", "/items/0", "/name"]);
}

/// SPEC section 4 (v0.2): the cut-off values, and any value SPEC does not list.
const CUT_OFF: [&str; 14] = [
    "max_tokens",
    "length",
    "MAX_TOKENS",
    "max_output_tokens",
    "model_context_window_exceeded",
    "pause_turn",
    "incomplete",
    "aborted",
    // Not listed anywhere: treated as cut off.
    "max_tokens ",
    "Length",
    "OTHER",
    "MALFORMED_FUNCTION_CALL",
    "FINISH_REASON_UNSPECIFIED",
    "end-turn",
];
const REFUSED: [&str; 7] = [
    "refusal",
    "content_filter",
    "SAFETY",
    "RECITATION",
    "PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
];
const COMPLETE: [&str; 9] = [
    "end_turn",
    "stop_sequence",
    "stop",
    "tool_use",
    "tool_calls",
    "function_call",
    "STOP",
    "completed",
    "",
];

#[test]
fn stop_reasons_fall_into_spec_categories() {
    use selfheal::structured::{stop_category, StopCategory};
    assert_eq!(stop_category(None), StopCategory::Complete);
    for r in COMPLETE {
        assert_eq!(stop_category(Some(r)), StopCategory::Complete, "{r:?}");
    }
    for r in CUT_OFF {
        assert_eq!(stop_category(Some(r)), StopCategory::CutOff, "{r:?}");
    }
    for r in REFUSED {
        assert_eq!(stop_category(Some(r)), StopCategory::Refused, "{r:?}");
    }
}

#[test]
fn cut_off_stop_reasons_mark_the_reply_truncated_and_skip_local_repair() {
    let schema = compile(CITY_SCHEMA);
    for stop in CUT_OFF.into_iter().chain(REFUSED) {
        // A fenced reply would be repaired locally, but not when it was cut off.
        let r = failed(parse(FENCED_CITY, Some(&schema), &cut_off(stop)));
        assert_eq!(r.kinds, vec![FailureKind::Truncated], "{stop}");
        assert!(r.issues.iter().all(|i| i.kind == FailureKind::Truncated));
        // Unclosed brackets stay unclosed: issue 10's data-loss case.
        let r = failed(parse(
            r#"{"items": [{"id": 1}, {"id": 2}, {"id": 3"#,
            Some(&schema),
            &cut_off(stop),
        ));
        assert_eq!(r.kinds, vec![FailureKind::Truncated], "{stop}");
        let r = failed(parse(r#"[1, 2, "#, None, &cut_off(stop)));
        assert_eq!(r.kinds, vec![FailureKind::Truncated], "{stop}");
    }
}

#[test]
fn the_truncation_issue_says_why_the_reply_is_not_complete() {
    let schema = compile(CITY_SCHEMA);
    let message = |stop: &str| {
        failed(parse("{", Some(&schema), &cut_off(stop))).issues[0]
            .message
            .clone()
    };
    assert!(message("max_tokens").starts_with("the reply was cut off at the output limit ("));
    assert!(message("content_filter")
        .starts_with("the provider stopped the reply (content_filter): it is not an answer"));
    assert!(message("OTHER").starts_with("the reply did not finish (stop reason \"OTHER\")"));
    // The two stop reasons a streaming host gives (SPEC section 8).
    assert!(message("aborted").starts_with("the reply was cut off: the host aborted the stream ("));
    assert!(message("incomplete")
        .starts_with("the reply was cut off: the stream ended without its final event ("));
    // A stop reason is data from outside: one line, short.
    let m = message(&format!("x\n{}", "y".repeat(100)));
    assert!(!m.contains('\n') && m.chars().count() < 150, "{m}");
}

#[test]
fn complete_stop_reasons_do_not_mark_truncation() {
    let schema = compile(CITY_SCHEMA);
    for stop in COMPLETE {
        let (value, fixes) = accepted(parse(FENCED_CITY, Some(&schema), &cut_off(stop)));
        assert_eq!(value, json!({"city": "Paris"}), "{stop}");
        assert_eq!(fixes, vec![Fix::CodeFence]);
    }
}

#[test]
fn a_reply_longer_than_max_reply_chars_is_refused_unread() {
    let schema = compile(CITY_SCHEMA);
    let options = |max: usize| ParseOptions {
        max_reply_chars: max,
        ..ParseOptions::new()
    };
    assert_eq!(ParseOptions::new().max_reply_chars, 4_000_000);
    // Code points, not bytes: 19 code points, 23 bytes.
    let reply = "{\"city\": \"Zürich😀\"}";
    assert_eq!((reply.chars().count(), reply.len()), (19, 23));
    accepted(parse(reply, Some(&schema), &options(19)));
    let r = failed(parse(reply, Some(&schema), &options(18)));
    assert_eq!(r.kinds, vec![FailureKind::Truncated]);
    assert_eq!(
        r.issues[0].message,
        "the reply has 19 characters, above maxReplyChars (18); it was not read"
    );
    // Even blank text is refused before anything else.
    let r = failed(parse(&" ".repeat(30), Some(&schema), &options(18)));
    assert!(r.issues[0].message.contains("maxReplyChars"));
}

#[test]
fn a_cut_off_reply_that_is_complete_and_valid_is_accepted() {
    // Documented choice: the stop reason only matters when the text fails.
    let schema = compile(CITY_SCHEMA);
    let (value, _) = accepted(parse(CITY, Some(&schema), &cut_off("max_tokens")));
    assert_eq!(value, json!({"city": "Paris"}));
    // Complete JSON that fails the schema after a cut-off: truncated first, then the schema issues.
    let r = failed(parse(WRONG_SHAPE, Some(&schema), &cut_off("length")));
    assert_eq!(r.kinds, vec![FailureKind::Truncated, FailureKind::Schema]);
    assert_eq!(r.primary(), Some(FailureKind::Truncated));
    // But a number at the very end of a cut-off text may be the start of a longer one: "12"
    // of "125" (once accepted as 12).
    let number = compile(r#"{"type": "number"}"#);
    for stop in ["max_tokens", "aborted"] {
        for raw in ["12", " -0.5", "1e3"] {
            let r = failed(parse(raw, Some(&number), &cut_off(stop)));
            assert_eq!(r.kinds, vec![FailureKind::Truncated], "{raw} {stop}");
        }
        let r = failed(parse("12", None, &cut_off(stop)));
        assert_eq!(r.kinds, vec![FailureKind::Truncated]);
        // Text after it says the number ended; complete stop reasons change nothing.
        assert_eq!(
            accepted(parse("12\n", Some(&number), &cut_off(stop))).0,
            json!(12)
        );
    }
    assert_eq!(accepted(parse("12", Some(&number), &opts())).0, json!(12));
}

#[test]
fn local_repair_fixes_a_fenced_reply() {
    let schema = compile(CITY_SCHEMA);
    let (value, fixes) = accepted(parse(FENCED_CITY, Some(&schema), &opts()));
    assert_eq!(value, json!({"city": "Paris"}));
    assert_eq!(fixes, vec![Fix::CodeFence]);
}

#[test]
fn local_repair_off_leaves_a_syntax_failure() {
    let schema = compile(CITY_SCHEMA);
    let r = failed(parse(FENCED_CITY, Some(&schema), &no_repair()));
    assert_eq!(r.kinds, vec![FailureKind::JsonSyntax]);
    assert_eq!((r.issues.len(), r.issues[0].path.as_str()), (1, ""));
    assert!(
        r.issues[0].message.contains("invalid JSON"),
        "{:?}",
        r.issues
    );
}

#[test]
fn not_json_at_all_is_a_syntax_failure() {
    let r = failed(parse(
        "Sorry, I cannot help with that.",
        Some(&compile(CITY_SCHEMA)),
        &opts(),
    ));
    assert_eq!(r.kinds, vec![FailureKind::JsonSyntax]);
}

#[test]
fn a_locally_repaired_value_must_still_pass_the_schema() {
    let schema = compile(CITY_SCHEMA);
    let fenced_wrong = "```json\n{\"town\": \"Paris\"}\n```";
    let r = failed(parse(fenced_wrong, Some(&schema), &opts()));
    assert!(r.has(FailureKind::Schema), "{r:?}");
    assert!(
        r.has(FailureKind::JsonSyntax),
        "the raw text was not valid JSON either: {r:?}"
    );
    assert!(r
        .issues
        .iter()
        .any(|i| i.kind == FailureKind::Schema && i.message.contains("city")));
    // Without a schema the same repair is accepted.
    let (value, fixes) = accepted(parse(fenced_wrong, None, &opts()));
    assert_eq!(value, json!({"town": "Paris"}));
    assert_eq!(fixes, vec![Fix::CodeFence]);
}

#[test]
fn parsed_serialises_as_the_contract_union() {
    let schema = compile(CITY_SCHEMA);
    let ok = serde_json::to_value(parse(FENCED_CITY, Some(&schema), &opts())).unwrap();
    assert_eq!(
        ok,
        json!({"ok": true, "value": {"city": "Paris"}, "fixes": ["code-fence"]})
    );
    let err = serde_json::to_value(parse(WRONG_SHAPE, Some(&schema), &opts())).unwrap();
    assert_eq!(err["ok"], false);
    assert_eq!(err["report"]["kinds"], json!(["schema"]));
    assert_eq!(err["report"]["issues"][0]["kind"], "schema");
    assert_eq!(err["report"]["issues"][0]["path"], "");
}

// ---------- the schema cache ----------

#[test]
fn the_cache_compiles_the_same_text_once() {
    let mut cache = SchemaCache::default();
    let a = cache.get_or_compile(ORDER_SCHEMA).unwrap();
    let b = cache.get_or_compile(ORDER_SCHEMA).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn the_cache_treats_whitespace_and_key_order_as_the_same_schema() {
    let mut cache = SchemaCache::default();
    let a = cache.get_or_compile(r#"{"type":"object","required":["city"],"properties":{"city":{"type":"string","minLength":1}}}"#).unwrap();
    let spaced = cache
        .get_or_compile("{ \"type\" : \"object\",\n  \"required\": [\"city\"],\n  \"properties\": {\"city\": {\"type\": \"string\", \"minLength\": 1}} }")
        .unwrap();
    let reordered = cache
        .get_or_compile(r#"{"properties":{"city":{"minLength":1,"type":"string"}},"required":["city"],"type":"object"}"#)
        .unwrap();
    let as_value = cache
        .get_or_compile_value(json!({"required": ["city"], "properties": {"city": {"minLength": 1, "type": "string"}}, "type": "object"}))
        .unwrap();
    assert!(Arc::ptr_eq(&a, &spaced), "whitespace");
    assert!(Arc::ptr_eq(&a, &reordered), "key order, nested too");
    assert!(Arc::ptr_eq(&a, &as_value), "an already parsed value");
    // Array order is meaning, not formatting.
    let other = cache
        .get_or_compile(r#"{"type":"object","required":["city","zip"]}"#)
        .unwrap();
    let swapped = cache
        .get_or_compile(r#"{"type":"object","required":["zip","city"]}"#)
        .unwrap();
    assert!(!Arc::ptr_eq(&a, &other));
    assert!(!Arc::ptr_eq(&other, &swapped));
}

#[test]
fn invalid_schemas_say_where() {
    let mut cache = SchemaCache::default();
    let cases = [
        (r#"{"type": 5}"#, "/type"),
        (
            r#"{"properties": {"a": {"type": "strin"}}}"#,
            "/properties/a/type",
        ),
        (
            r#"{"type":"object","properties":{"items":{"type":"array","items":{"minimum":"x"}}}}"#,
            "/properties/items/items/minimum",
        ),
        ("{", ""),
        ("[1]", ""),
    ];
    for (text, path) in cases {
        let e = cache.get_or_compile(text).expect_err(text);
        assert_eq!(e.path, path, "{text}: {e}");
        assert!(!e.message.is_empty());
        assert!(e.to_string().contains("invalid schema"), "{e}");
        if !path.is_empty() {
            assert!(e.to_string().contains(path), "{e}");
        }
        // A failure is not cached as a success.
        assert!(cache.get_or_compile(text).is_err());
    }
}

// ---------- formats and resources (SPEC section 9) ----------

#[test]
fn formats_are_asserted_by_default_and_annotations_with_formats_false() {
    let schema = json!({"type": "object", "properties": {
        "email": {"type": "string", "format": "email"},
        "date": {"type": "string", "format": "date"},
        "id": {"type": "string", "format": "uuid"},
        "ip": {"type": "string", "format": "ipv4"},
        "at": {"type": "string", "format": "date-time"},
        "home": {"type": "string", "format": "uri"}
    }});
    let bad = r#"{"email": "nope", "date": "next Tuesday", "id": "x", "ip": "1.2.3", "at": "soon", "home": "not a uri"}"#;
    let good = r#"{"email": "a@b.co", "date": "2024-10-18", "id": "00000000-0000-4000-8000-000000000000",
                   "ip": "10.0.0.1", "at": "2024-10-18T18:35:22Z", "home": "https://example.com/x"}"#;
    let asserted = CompiledSchema::from_value(schema.clone()).unwrap();
    let r = failed(parse(bad, Some(&asserted), &opts()));
    let mut got = paths(&r);
    got.sort();
    assert_eq!(got, vec!["/at", "/date", "/email", "/home", "/id", "/ip"]);
    accepted(parse(good, Some(&asserted), &opts()));
    let annotation = CompiledSchema::with_options(
        schema,
        SchemaOptions {
            formats: false,
            ..SchemaOptions::default()
        },
    )
    .unwrap();
    accepted(parse(bad, Some(&annotation), &opts()));
}

#[test]
fn schema_options_as_given_are_checked() {
    let given = |v: Value| {
        serde_json::from_value::<selfheal::structured::GivenSchemaOptions>(v)
            .unwrap()
            .check()
    };
    // The defaults are `None`: such a schema is cached by its text alone.
    assert_eq!(given(json!({})), Ok(None));
    assert_eq!(given(json!({"formats": true, "resources": {}})), Ok(None));
    assert!(!given(json!({"formats": false})).unwrap().unwrap().formats);
    let doc = json!({"type": "string"});
    let options = given(json!({"resources": {"https://x/a.json": doc}}));
    assert_eq!(
        options.unwrap().unwrap().resources,
        vec![("https://x/a.json".to_string(), doc)]
    );
    let e = given(json!({"resources": {"https://x/a.json": 5}})).unwrap_err();
    assert_eq!(e.field, r#"resources["https://x/a.json"]"#);
    assert_eq!(e.message, "must be a JSON Schema (object or boolean)");
    let e = given(json!({"resources": []})).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.message.as_str(), e.is_range),
        (
            "resources",
            "must be an object of schema documents by URI, got array",
            false
        )
    );
}

#[test]
fn resources_are_registered_for_ref_and_nothing_is_fetched() {
    let schema = json!({"type": "object", "properties": {
        "home": {"$ref": "https://example.com/address.json"},
        "work": {"$ref": "https://example.com/address.json#/$defs/office"}
    }});
    // Without the document the schema cannot be built, and says which document is missing.
    let e = CompiledSchema::from_value(schema.clone()).unwrap_err();
    assert!(
        e.to_string().contains("https://example.com/address.json"),
        "{e}"
    );
    let address = json!({"type": "object", "required": ["city"],
        "properties": {"city": {"type": "string"}},
        "$defs": {"office": {"type": "object", "required": ["floor"]}}});
    let compiled = CompiledSchema::with_options(
        schema,
        SchemaOptions {
            resources: vec![("https://example.com/address.json".into(), address)],
            ..SchemaOptions::default()
        },
    )
    .unwrap();
    accepted(parse(
        r#"{"home": {"city": "Paris"}, "work": {"floor": 3}}"#,
        Some(&compiled),
        &opts(),
    ));
    let r = failed(parse(
        r#"{"home": {}, "work": {}}"#,
        Some(&compiled),
        &opts(),
    ));
    let mut got = paths(&r);
    got.sort();
    assert_eq!(got, vec!["/home", "/work"]);
    // Bare words follow $ref into a resource too.
    let bare = CompiledSchema::with_options(
        json!({"$ref": "https://example.com/city.json"}),
        SchemaOptions {
            resources: vec![(
                "https://example.com/city.json".into(),
                json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            )],
            ..SchemaOptions::default()
        },
    )
    .unwrap();
    let (value, _) = accepted(parse("{city: Paris}", Some(&bare), &opts()));
    assert_eq!(value, json!({"city": "Paris"}));
}

#[test]
fn the_cache_keeps_schemas_with_other_options_apart() {
    let mut cache = SchemaCache::default();
    let schema = json!({"type": "string", "format": "email"});
    let asserted = cache.get_or_compile_value(schema.clone()).unwrap();
    let again = cache
        .get_or_compile_with(schema.clone(), SchemaOptions::default())
        .unwrap();
    let annotation = cache
        .get_or_compile_with(
            schema,
            SchemaOptions {
                formats: false,
                ..SchemaOptions::default()
            },
        )
        .unwrap();
    assert!(Arc::ptr_eq(&asserted, &again));
    assert!(!Arc::ptr_eq(&asserted, &annotation));
    assert!(asserted.validate(&json!("nope")).is_some());
    assert_eq!(annotation.validate(&json!("nope")), None);
}

#[test]
fn formats_across_drafts_and_unknown_formats() {
    let off = SchemaOptions {
        formats: false,
        ..SchemaOptions::default()
    };
    // A format this build does not check (custom, or idn-*) is ignored, not a compile error.
    for schema in [
        json!({"type": "string", "format": "phone"}),
        json!({"type": "string", "format": "idn-email"}),
    ] {
        let compiled = CompiledSchema::from_value(schema).unwrap();
        assert_eq!(compiled.validate(&json!("anything")), None);
    }
    // Draft 7 asserts formats by its own rules; formats: false makes them annotations there too,
    // and a property named "format" is still a property.
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "required": ["format"],
        "properties": {"format": {"type": "string"}, "at": {"format": "date"}}
    });
    let asserted = CompiledSchema::from_value(draft7.clone()).unwrap();
    assert!(asserted
        .validate(&json!({"format": "x", "at": "soon"}))
        .is_some());
    let annotation = CompiledSchema::with_options(draft7, off.clone()).unwrap();
    assert_eq!(
        annotation.validate(&json!({"format": "x", "at": "soon"})),
        None
    );
    assert!(
        annotation.validate(&json!({"at": "soon"})).is_some(),
        "required still holds"
    );
    // 2019-09 asserts with the default too.
    let s2019 =
        json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "format": "email"});
    assert!(CompiledSchema::from_value(s2019.clone())
        .unwrap()
        .validate(&json!("nope"))
        .is_some());
    assert_eq!(
        CompiledSchema::with_options(s2019, off)
            .unwrap()
            .validate(&json!("nope")),
        None
    );
    // The user's schema is kept as written (prompts quote it).
    let schema = json!({"type": "string", "format": "email"});
    let compiled = CompiledSchema::from_value(schema.clone()).unwrap();
    assert_eq!(compiled.value(), &schema);
}

#[test]
fn a_broken_resource_is_named_in_the_error() {
    let e = CompiledSchema::with_options(
        json!({"$ref": "https://example.com/a.json"}),
        SchemaOptions {
            resources: vec![("https://example.com/a.json".into(), json!({"type": 5}))],
            ..SchemaOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("https://example.com/a.json"), "{e}");
    assert_eq!(e.path, "/type");
}

/// One string's pattern match is bounded (crates/selfheal-pattern, `max_subject`), and so is one
/// call's matching as a whole: 61 strings, each just under the bound of an unanchored host-name
/// pattern, took 7.3 s through wasm (an outside review, 2026-12-02). Past the call's budget a
/// match is not tried, and a value whose verdict would rest on one is reported not validated,
/// in one issue. 4 MB of ordinary host names under the same pattern is well inside the budget.
#[test]
fn one_call_matches_patterns_within_one_budget_then_reports_the_value_not_validated() {
    let pattern = r"[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*\.com";
    let schema = compile(
        &json!({"type": "array", "items": {"type": "string", "pattern": pattern}}).to_string(),
    );
    let max = selfheal_pattern::Pattern::new(pattern)
        .unwrap()
        .max_subject();
    let long = "a".repeat(max * 98 / 100);
    let reply = serde_json::to_string(&vec![long.clone(); 3_900_000 / (long.len() + 3)]).unwrap();
    let report = failed(parse(&reply, Some(&schema), &opts()));
    assert_eq!(report.issues.len(), 1, "{report:?}");
    assert!(
        report.issues[0]
            .message
            .starts_with("not validated: its strings take more pattern matching"),
        "{report:?}"
    );
    assert_eq!(
        schema.validate(&serde_json::from_str(&reply).unwrap()),
        Some(report)
    );
    // A few such strings are checked: none is a host name.
    let few = serde_json::to_string(&vec![long; 3]).unwrap();
    let report = failed(parse(&few, Some(&schema), &opts()));
    assert_eq!(paths(&report), ["/0", "/1", "/2"]);
    // Ordinary host names: 3.9 MB, all checked.
    let names: Vec<String> = (0..160_000)
        .map(|i| format!("host{i}.example.com"))
        .collect();
    let (value, _) = accepted(parse(
        &serde_json::to_string(&names).unwrap(),
        Some(&schema),
        &opts(),
    ));
    assert_eq!(value.as_array().map(Vec::len), Some(160_000));
}

//! SPEC section 9, candidates: a value nested inside a broken candidate is never offered on its
//! own (issue 11 item 1, the wrong-answer defect), the schema chooses among the values of a
//! reply (item 2), bare words only where the schema expects a string, newline-delimited
//! values, top-level scalars, JSON inside a JSON string.
// Needs the JSON Schema validator: not built in selfheal/lite (`--no-default-features`).
#![cfg(feature = "validate")]
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
mod common;

use common::compile;
use proptest::prelude::*;
use selfheal::{parse, repair_json, FailureKind, FailureReport, Fix, ParseOptions, Parsed};
use serde_json::{json, Value};

fn opts() -> ParseOptions {
    ParseOptions::new()
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

fn repaired_value(text: &str) -> Option<Value> {
    repair_json(text).map(|r| serde_json::from_str(&r.text).unwrap())
}

// ---------- item 1: never a nested value of a broken candidate ----------

#[test]
fn an_odd_quote_in_the_outer_value_is_repaired_not_skipped() {
    // Before: {"c": 1} with fixes ["surrounding-prose"].
    let r = repair_json(r#"{"a": "x"y", "b": {"c": 1}}"#).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&r.text).unwrap(),
        json!({"a": "x\"y", "b": {"c": 1}})
    );
    assert_eq!(r.fixes, vec![Fix::UnescapedQuote]);
    // Also when the outer value never closes.
    assert_eq!(
        repaired_value(r#"{"a": "x"y", "b": {"c": 1}"#),
        Some(json!({"a": "x\"y", "b": {"c": 1}}))
    );
}

#[test]
fn parse_structured_never_returns_the_inner_object_of_a_broken_reply() {
    // Before: ok, value {city: "Paris", zip: "75001"}: the wrong data reported as a success.
    let schema = compile(
        r#"{"type":"object","properties":{"name":{"type":"string"},"city":{"type":"string"}}}"#,
    );
    let raw = r#"{"name": "Ann", "note": "5" tall", "address": {"city": "Paris", "zip": "75001"}}"#;
    let (value, fixes) = accepted(parse(raw, Some(&schema), &opts()));
    assert_eq!(
        value,
        json!({"name": "Ann", "note": "5\" tall", "address": {"city": "Paris", "zip": "75001"}})
    );
    assert_eq!(fixes, vec![Fix::UnescapedQuote]);
}

#[test]
fn an_outer_value_that_cannot_be_repaired_fails_whole() {
    let schema = compile(r#"{"type":"object","required":["c"]}"#);
    for raw in [
        r#"{"a": hello, "b": {"c": 1}}"#,
        r#"{"a": hello, "b": {"c": 1}"#,
        r#"{"a": 1 ; "b": {"c": 1}}"#,
        r#"Here: {"a": @, "b": {"c": 1}"#,
    ] {
        assert_eq!(repair_json(raw), None, "{raw}");
        let report = failed(parse(raw, Some(&schema), &opts()));
        assert_eq!(report.kinds, vec![FailureKind::JsonSyntax], "{raw}");
    }
    // A broken value that does close is skipped whole: the search goes on after it.
    assert_eq!(
        repaired_value(r#"See {"a": hello, "b": {"c": 1}} and then {"d": 2}"#),
        Some(json!({"d": 2}))
    );
}

#[test]
fn a_valid_value_inside_a_broken_one_is_read_as_json() {
    // Found by the property test below at 10,000 cases. The quote rule for broken strings (a
    // `"` before a `}` or `]` the string opened is content when another quote follows) read a
    // valid string of the document wrongly: the repair of the outer value failed inside the
    // document, and the skim, going on from there (or reading `"[\\"]` the same way), ended the
    // broken value inside the document, whose next value was then offered on its own.
    let schema = compile("true");
    for (raw, want) in [
        (
            r#"{"a": "x"y", "b": [{"a":"{"},["}}"],[]]}"#,
            Some(json!({"a": "x\"y", "b": [{"a": "{"}, ["}}"], []]})),
        ),
        (r#"{"a": hello, "b": [["[\\"],[["'a}"]],{}]}"#, None),
        (
            r#"{"a": "x"y", "b": [{"a":"{],]"},[{"a":null}]]}"#,
            Some(json!({"a": "x\"y", "b": [{"a": "{],]"}, [{"a": null}]]})),
        ),
        (
            r#"{"a": 1 "b": [[null,"\"}[:a'\""],[true,false,[null,"::: }\\\\"]],[]]]"#,
            Some(
                json!({"a": 1, "b": [[null, "\"}[:a'\""], [true, false, [null, "::: }\\\\"]], []]}),
            ),
        ),
        (
            r#"{"a": [}, "b": [["}}  ["],[[",n}}p  ,"]],{"ju":",w{a ","k":" [} '::"}]}"#,
            Some(
                json!({"a": [], "b": [["}}  ["], [[",n}}p  ,"]], {"ju": ",w{a ", "k": " [} '::"}]}),
            ),
        ),
    ] {
        assert_eq!(repaired_value(raw), want, "{raw}");
        assert_eq!(parse(raw, Some(&schema), &opts()).ok_value(), want, "{raw}");
    }
}

#[test]
fn closers_too_many_are_dropped_and_what_follows_them_is_kept() {
    // An outside tester of the package: one closer too many ended the value early and the rest
    // was dropped as prose, or the nested value after it was the answer. Before, in order:
    // {"a": 1, "b": [{"c": 2}]} ("d" lost), {"name": "Alice", "langs": ["en"]} (the manager
    // lost), {"name": "Bob"} (a value nested in the broken one, alone), {"team": {…}} (the name
    // lost), each with surrounding-prose.
    use Fix::{MismatchedBracket, RedundantBracket};
    let person = compile(OBJECT);
    let any = compile("true");
    for (raw, schema, want, fixes) in [
        (
            r#"{"a": 1, "b": [{"c": 2}}], "d": 3}"#,
            &any,
            json!({"a": 1, "b": [{"c": 2}], "d": 3}),
            vec![MismatchedBracket, RedundantBracket],
        ),
        (
            r#"{"name": "Alice", "langs": ["en"]], "manager": {"name": "Bob"}}"#,
            &person,
            json!({"name": "Alice", "langs": ["en"], "manager": {"name": "Bob"}}),
            vec![RedundantBracket],
        ),
        (
            r#"{"team": {"lead": {"id": 1}}}, "name": "Alice", "manager": {"name": "Bob"}}"#,
            &person,
            json!({"team": {"lead": {"id": 1}}, "name": "Alice", "manager": {"name": "Bob"}}),
            vec![RedundantBracket],
        ),
        (
            r#"{"team": {"lead": {"id": 1}}]}, "name": "Alice"}"#,
            &person,
            json!({"team": {"lead": {"id": 1}}, "name": "Alice"}),
            vec![RedundantBracket],
        ),
    ] {
        let r = repair_json(raw).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&r.text).unwrap(),
            want,
            "{raw}"
        );
        assert_eq!(r.fixes, fixes, "{raw}");
        let (value, got) = accepted(parse(raw, Some(schema), &opts()));
        assert_eq!((value, got), (want.clone(), fixes), "{raw}");
        // The same after prose, where the reply is not read as one value but value by value.
        let raw = format!("Here it is: {raw}");
        let (value, fixes) = accepted(parse(&raw, Some(schema), &opts()));
        assert_eq!(value, want, "{raw}");
        assert!(fixes.contains(&Fix::SurroundingProse), "{raw}");
        assert_eq!(repaired_value(&raw), Some(want), "{raw}");
    }
}

#[test]
fn a_closer_of_the_wrong_kind_before_the_containers_own_is_dropped() {
    // Its `}` closed the array, the array's `]` closed "x", and "d" went up to the root: before,
    // {"x": {"b": [{"c": 2}]}, "d": 3} with mismatched-bracket and redundant-bracket.
    let any = compile("true");
    let raw = r#"{"x": {"b": [{"c": 2}}], "d": 3}}"#;
    let want = json!({"x": {"b": [{"c": 2}], "d": 3}});
    let r = repair_json(raw).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&r.text).unwrap(), want);
    assert_eq!(r.fixes, vec![Fix::RedundantBracket]);
    assert_eq!(
        accepted(parse(raw, Some(&any), &opts())),
        (want.clone(), vec![Fix::RedundantBracket])
    );
    let raw = format!("Here it is: {raw}");
    assert_eq!(repaired_value(&raw), Some(want));
    // One `}` fewer: the closers were swapped (`}]` for `]}`), and "d" is the root's, as before.
    let raw = r#"{"x": {"b": [{"c": 2}}], "d": 3}"#;
    let r = repair_json(raw).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&r.text).unwrap(),
        json!({"x": {"b": [{"c": 2}]}, "d": 3})
    );
    assert_eq!(r.fixes, vec![Fix::MismatchedBracket]);
}

#[test]
fn a_value_followed_by_more_of_its_members_is_never_offered_without_them() {
    // Before: {"name": "Bob"} with surrounding-prose for the first (a `[` missing before "en":
    // the skim ended the broken object at the `]` and the nested manager was offered alone), and
    // [1, 2] or {"name": "Bob"} for the next three (the last failed already). Where the reply
    // does not say what was meant, it fails: the loop asks again.
    let person = compile(OBJECT);
    for raw in [
        r#"{"name": "Alice", "langs": "en", "fr"], "manager": {"name": "Bob"}}"#,
        r#"Here: {"name": "Alice", "langs": "en", "fr"], "manager": {"name": "Bob"}}"#,
        r#"{"name": "Alice", "ids": [1, 2], "x"], "manager": {"name": "Bob"}}"#,
        r#"Here: [1, 2], "name": "Alice", "manager": {"name": "Bob"}}"#,
        // Inside the value a wrong closer closes the innermost container: the object in the array
        // then has members after it, and it is not known whether a `{` or a `]` was wrong.
        r#"[{"name": "Alice"], "langs": ["en"]}]"#,
    ] {
        assert_eq!(repair_json(raw), None, "{raw}");
        let report = failed(parse(raw, Some(&person), &opts()));
        assert_eq!(report.kinds, vec![FailureKind::JsonSyntax], "{raw}");
    }
    // A value after a complete one is still a value of its own, and prose after one is prose.
    let (value, _) = accepted(parse(
        r#"Either {"id": 1}, or {"name": "Bob"}"#,
        Some(&person),
        &opts(),
    ));
    assert_eq!(value, json!({"name": "Bob"}));
    assert_eq!(
        repaired_value(r#"{"name": "Bob",} Hope this helps, "really": yes"#),
        Some(json!({"name": "Bob"}))
    );
}

// ---------- item 2: the schema chooses ----------

const OBJECT: &str =
    r#"{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}"#;
const LIST: &str = r#"{"type":"array","items":{"type":"integer"}}"#;

#[test]
fn a_code_block_before_the_answer_does_not_cost_a_repair_call() {
    let raw = "Here is how:\n```python\nx = [1, 2]\n```\nAnd the answer:\n```json\n{\"name\": \"Ann\"}\n```\n";
    let (value, fixes) = accepted(parse(raw, Some(&compile(OBJECT)), &opts()));
    assert_eq!(value, json!({"name": "Ann"}));
    assert_eq!(fixes, vec![Fix::CodeFence, Fix::SurroundingProse]);
    // Without a schema the first value wins, as before.
    assert_eq!(repaired_value(raw), Some(json!([1, 2])));
}

#[test]
fn of_two_fenced_blocks_the_one_the_schema_asks_for_wins() {
    let raw = "```json\n{\"name\": \"Ann\"}\n```\n\n```json\n[3, 4]\n```";
    let (value, _) = accepted(parse(raw, Some(&compile(LIST)), &opts()));
    assert_eq!(value, json!([3, 4]));
    let (value, _) = accepted(parse(raw, Some(&compile(OBJECT)), &opts()));
    assert_eq!(value, json!({"name": "Ann"}));
}

/// A fence holds what the model marked as its answer; values in the prose around it are
/// mentions: a citation, a type name, a checkbox, an empty default (an outside review,
/// 2026-12-02: each of these won over the fenced answer).
#[test]
fn a_fenced_value_comes_before_values_mentioned_in_prose() {
    let ints = compile(LIST);
    let strings = compile(r#"{"type":"array","items":{"type":"string"}}"#);
    let optional = compile(r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#);
    for (raw, schema, want) in [
        (
            "As noted in [1], the ids are:\n```json\n[4, 5, 6]\n```",
            &ints,
            json!([4, 5, 6]),
        ),
        (
            "- [ ] todo\n```json\n[4, 5, 6]\n```",
            &ints,
            json!([4, 5, 6]),
        ),
        (
            "Access `ids[2]`:\n```json\n[4, 5, 6]\n```",
            &ints,
            json!([4, 5, 6]),
        ),
        (
            "Return a string[] such as:\n```json\n[\"red\", \"blue\"]\n```",
            &strings,
            json!(["red", "blue"]),
        ),
        (
            "Return {} when unknown. Result:\n```json\n{\"a\": 5}\n```",
            &optional,
            json!({"a": 5}),
        ),
    ] {
        let (value, fixes) = accepted(parse(raw, Some(schema), &opts()));
        assert_eq!(value, want, "{raw}");
        assert_eq!(fixes, vec![Fix::CodeFence, Fix::SurroundingProse], "{raw}");
    }
    // Without a schema too.
    let raw = "Use [] or {} as defaults; result:\n```json\n{\"a\":1}\n```";
    assert_eq!(repaired_value(raw), Some(json!({"a": 1})));
    // Prose values are still candidates when no fence gives one that passes.
    let raw = "```python\nprint('x')\n```\nThe ids: [4, 5, 6]";
    let (value, _) = accepted(parse(raw, Some(&ints), &opts()));
    assert_eq!(value, json!([4, 5, 6]));
}

/// A string with raw newlines may hold a Markdown fence line: it is the string's content, not
/// a fence that cuts the reply (an outside tester, 2026-12-02: `{"a": "x⏎```⏎y", "b": 1}`
/// gave `{"a":"x\n"}`, "b" dropped, with `ok`).
#[test]
fn a_fence_line_inside_a_string_of_the_value_is_content() {
    let ab = compile(
        r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}"#,
    );
    for (raw, a) in [
        ("{\"a\": \"x\n```\ny\", \"b\": 1}", "x\n```\ny"),
        ("{'a': 'x\n```\ny', 'b': 1}", "x\n```\ny"),
        ("{\"a\": \"x\n  ```\ny\", \"b\": 1}", "x\n  ```\ny"),
        (
            "{\"a\": \"x\n```js\ny\n```\n\", \"b\": 1}",
            "x\n```js\ny\n```\n",
        ),
    ] {
        let (value, fixes) = accepted(parse(raw, Some(&ab), &opts()));
        assert_eq!(value, json!({"a": a, "b": 1}), "{raw}");
        assert!(!fixes.contains(&Fix::UnclosedString), "{raw}: {fixes:?}");
    }
    let listed = "[{\"a\": \"x\n```\ny\", \"b\": 1}]";
    assert_eq!(
        repaired_value(listed),
        Some(json!([{"a": "x\n```\ny", "b": 1}]))
    );
    let readme = "{\"readme\": \"Install:\n```bash\nnpm i\n```\n\", \"ok\": true}";
    assert_eq!(
        repaired_value(readme),
        Some(json!({"readme": "Install:\n```bash\nnpm i\n```\n", "ok": true}))
    );
    // A fence after the value is still a fence (whose value comes first), and so is one typed
    // after the opening bracket.
    let after = "{\"a\": \"x\"}\n```json\n{\"a\": \"y\", \"b\": 2}\n```";
    let (value, _) = accepted(parse(after, Some(&ab), &opts()));
    assert_eq!(value, json!({"a": "y", "b": 2}));
    let bracketed = "{```json\n{\"a\": \"x\n```\ny\", \"b\": 1}\n```}";
    assert_eq!(
        repaired_value(bracketed),
        Some(json!({"a": "x\n```\ny", "b": 1}))
    );
}

/// Where the schema's root wants one string, lines of text are that string: a two-paragraph
/// summary gave its first sentence (an outside review, 2026-12-02).
#[test]
fn lines_of_text_are_one_string_where_one_string_is_wanted() {
    let string = compile(r#"{"type":"string"}"#);
    for (raw, want) in [
        (
            "The report covers Q3 results.\n\nRevenue grew 12% year over year.",
            "The report covers Q3 results.\n\nRevenue grew 12% year over year.",
        ),
        (
            "Roses are red,\nViolets are blue.",
            "Roses are red,\nViolets are blue.",
        ),
        ("It's fine,\nreally", "It's fine,\nreally"),
        ("```\nline one\nline two\n```", "line one\nline two"),
    ] {
        let (value, fixes) = accepted(parse(raw, Some(&string), &opts()));
        assert_eq!(value, json!(want), "{raw}");
        assert!(fixes.contains(&Fix::UnquotedString), "{raw}: {fixes:?}");
    }
    // A list of strings is still the lines.
    let (value, _) = accepted(parse(
        "red\ngreen",
        Some(&compile(r#"{"type":"array","items":{"type":"string"}}"#)),
        &opts(),
    ));
    assert_eq!(value, json!(["red", "green"]));
}

#[test]
fn strict_candidates_come_before_repaired_ones() {
    let schema = compile(r#"{"type":"object","required":["a"]}"#);
    let raw = "First {'a': 1} then {\"a\": 2}";
    let (value, fixes) = accepted(parse(raw, Some(&schema), &opts()));
    assert_eq!(value, json!({"a": 2}));
    assert_eq!(fixes, vec![Fix::SurroundingProse]);
    // A repaired candidate wins when no strict one passes.
    let raw = "First {'a': 1} then {\"b\": 2}";
    let (value, fixes) = accepted(parse(raw, Some(&schema), &opts()));
    assert_eq!(value, json!({"a": 1}));
    assert_eq!(fixes, vec![Fix::SurroundingProse, Fix::SingleQuotes]);
}

#[test]
fn when_none_passes_the_first_complete_candidate_is_reported() {
    let schema = compile(OBJECT);
    let raw = "```json\n{\"nom\": \"Ann\"}\n```\nor maybe [1]";
    let report = failed(parse(raw, Some(&schema), &opts()));
    assert_eq!(
        report.kinds,
        vec![FailureKind::JsonSyntax, FailureKind::Schema]
    );
    assert!(
        report
            .issues
            .iter()
            .any(|i| i.kind == FailureKind::Schema && i.message.contains("name")),
        "{report:?}"
    );
}

#[test]
fn newline_delimited_values_are_one_array_and_each_value() {
    let raw = "{\"name\": \"a\"}\n{\"name\": \"b\"}\n{\"name\": \"c\"}";
    let rows = r#"{"type":"array","items":{"type":"object"}}"#;
    let (value, fixes) = accepted(parse(raw, Some(&compile(rows)), &opts()));
    assert_eq!(value, json!([{"name": "a"}, {"name": "b"}, {"name": "c"}]));
    assert_eq!(fixes, vec![Fix::MissingComma, Fix::NewlineDelimited]);
    let (value, fixes) = accepted(parse(raw, Some(&compile(OBJECT)), &opts()));
    assert_eq!(value, json!({"name": "a"}));
    // Its own fixes only: the commas went between the values, not into this one (this test
    // once pinned missing-comma here too).
    assert_eq!(fixes, vec![Fix::SurroundingProse]);
    // Without a schema: all of them (before issue 11 only the first).
    assert_eq!(
        repaired_value(raw),
        Some(json!([{"name": "a"}, {"name": "b"}, {"name": "c"}]))
    );
    assert_eq!(repaired_value("1\n2,\n3,"), Some(json!([1, 2, 3])));
}

/// Newline-delimited values after a line of prose, or before one: each value alone failed a
/// list schema, where the same lines in a fence passed (an outside review, 2026-12-02).
#[test]
fn newline_delimited_values_around_a_line_of_prose() {
    let rows = compile(
        r#"{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
    );
    for raw in [
        "Here are the rows:\n{\"name\":\"A\"}\n{\"name\":\"B\"}",
        "Here are the rows:\n{\"name\":\"A\"}\n{'name':'B'}\nLet me know if you need more.",
        "{\"name\":\"A\"}\n{\"name\":\"B\"}\n\nBoth rows are above.",
    ] {
        let (value, fixes) = accepted(parse(raw, Some(&rows), &opts()));
        assert_eq!(value, json!([{"name": "A"}, {"name": "B"}]), "{raw}");
        assert!(fixes.contains(&Fix::SurroundingProse), "{raw}: {fixes:?}");
    }
    // One value after the prose is still that value.
    let object = compile(OBJECT);
    let (value, _) = accepted(parse(
        "Here:\n{\n  \"name\": \"A\"\n}",
        Some(&object),
        &opts(),
    ));
    assert_eq!(value, json!({"name": "A"}));
}

#[test]
fn a_value_of_a_sequence_carries_its_own_fixes_and_strictness() {
    let wants_a = compile(r#"{"type":"object","required":["a"]}"#);
    // The fixes of another value, discarded, are not this one's.
    for raw in ["{\"a\":1}\n{\"b\":2,}", "{\"a\":1}\n{b:'x' // c\n}"] {
        let (value, fixes) = accepted(parse(raw, Some(&wants_a), &opts()));
        assert_eq!(value, json!({"a": 1}), "{raw}");
        assert_eq!(fixes, vec![Fix::SurroundingProse], "{raw}");
    }
    // A value that needed fixes of its own still names them.
    let (value, fixes) = accepted(parse("{\"b\":2}\n{a:1,}", Some(&wants_a), &opts()));
    assert_eq!(value, json!({"a": 1}));
    assert_eq!(
        fixes,
        vec![Fix::SurroundingProse, Fix::UnquotedKey, Fix::TrailingComma]
    );
    // A strict value of a sequence is a strict candidate: it comes before a later one.
    for raw in [
        "```\n{\"a\":1}\n{\"b\":2}\n```\nor {\"a\":3}",
        "```json\n{\"a\":1}\n```\n```json\n{\"b\":2}\n```\nor {\"a\":3}",
    ] {
        let (value, _) = accepted(parse(raw, Some(&wants_a), &opts()));
        assert_eq!(value, json!({"a": 1}), "{raw}");
    }
}

/// One line of NDJSON that needed a fix made the sequence a repaired candidate, but its other
/// lines stayed strict, and strict candidates are tried first: the first line won and the rest
/// were lost, with `ok` and no repair prompt (an outside review, 2026-12-02). A value of a
/// sequence is now strict only when the sequence is.
#[test]
fn a_repaired_line_does_not_make_the_other_lines_win_over_all_of_them() {
    let raw = "{\"id\":1}\n{\"id\":2,}\n{\"id\":3}";
    let all = json!([{"id": 1}, {"id": 2}, {"id": 3}]);
    assert_eq!(repaired_value(raw), Some(all.clone()));
    for schema in [
        "true",
        "{}",
        r#"{"anyOf":[{"type":"object"},{"type":"array","items":{"type":"object"}}]}"#,
    ] {
        let (value, fixes) = accepted(parse(raw, Some(&compile(schema)), &opts()));
        assert_eq!(value, all, "{schema}");
        assert!(fixes.contains(&Fix::TrailingComma), "{schema}: {fixes:?}");
    }
    // A schema that wants one row still gets the first row.
    let one = compile(r#"{"type":"object","required":["id"]}"#);
    let (value, _) = accepted(parse(raw, Some(&one), &opts()));
    assert_eq!(value, json!({"id": 1}));
}

// ---------- bare words, scalars, JSON in a string ----------

#[test]
fn bare_words_only_where_the_schema_expects_a_string() {
    let raw = "{city: Paris, country: France}";
    let strings = compile(
        r#"{"type":"object","properties":{"city":{"type":"string"},"country":{"enum":["France","Spain"]}}}"#,
    );
    let (value, fixes) = accepted(parse(raw, Some(&strings), &opts()));
    assert_eq!(value, json!({"city": "Paris", "country": "France"}));
    assert_eq!(fixes, vec![Fix::UnquotedKey, Fix::UnquotedString]);
    // Where the schema says nothing, or something else, a bare word is not guessed at.
    for schema in [
        r#"{"type":"object","properties":{"city":{"type":"string"}}}"#,
        r#"{"type":"object","properties":{"city":{"type":"number"},"country":{"type":"string"}}}"#,
        "true",
    ] {
        let report = failed(parse(raw, Some(&compile(schema)), &opts()));
        assert_eq!(report.kinds, vec![FailureKind::JsonSyntax], "{schema}");
    }
    assert_eq!(repair_json(raw), None);
    // Through $ref, anyOf and items too.
    let refs = compile(
        r##"{"$defs":{"name":{"anyOf":[{"type":"null"},{"type":"string"}]}},
            "type":"array","items":{"$ref":"#/$defs/name"}}"##,
    );
    let (value, _) = accepted(parse("[Ann, Bob]", Some(&refs), &opts()));
    assert_eq!(value, json!(["Ann", "Bob"]));
}

#[test]
fn a_top_level_scalar_where_the_schema_asks_for_one() {
    let string = compile(r#"{"type":"string"}"#);
    for (raw, want, fix) in [
        ("Paris", "Paris", Fix::UnquotedString),
        ("'Paris'", "Paris", Fix::SingleQuotes),
        ("```\nParis\n```", "Paris", Fix::CodeFence),
        ("\"Paris", "Paris", Fix::UnclosedString),
    ] {
        let (value, fixes) = accepted(parse(raw, Some(&string), &opts()));
        assert_eq!(value, json!(want), "{raw}");
        assert!(fixes.contains(&fix), "{raw}: {fixes:?}");
    }
    let (value, _) = accepted(parse(
        "True",
        Some(&compile(r#"{"type":"boolean"}"#)),
        &opts(),
    ));
    assert_eq!(value, json!(true));
    // Prose is not a string value unless it is the whole reply.
    let report = failed(parse("It is Paris. [1]", Some(&string), &opts()));
    assert!(report.has(FailureKind::Schema), "{report:?}");
}

#[test]
fn json_inside_a_json_string_where_an_object_is_expected() {
    let schema = compile(r#"{"type":"object","required":["a"]}"#);
    let (value, fixes) = accepted(parse(r#""{\"a\": 1}""#, Some(&schema), &opts()));
    assert_eq!(value, json!({"a": 1}));
    assert_eq!(fixes, vec![Fix::StringEncodedJson]);
    let (value, fixes) = accepted(parse(r#""{'a': 1,}""#, Some(&schema), &opts()));
    assert_eq!(value, json!({"a": 1}));
    assert_eq!(
        fixes,
        vec![
            Fix::StringEncodedJson,
            Fix::SingleQuotes,
            Fix::TrailingComma
        ]
    );
    // With localRepair off, the string is decoded only when it holds strict JSON: its text is
    // never repaired (found by the parse_schema fuzz target: `"{"` became `{}`).
    let no_repair = ParseOptions {
        local_repair: false,
        ..ParseOptions::new()
    };
    let (value, fixes) = accepted(parse(r#""{\"a\": 1}""#, Some(&schema), &no_repair));
    assert_eq!(value, json!({"a": 1}));
    assert_eq!(fixes, vec![Fix::StringEncodedJson]);
    for raw in [r#""{'a': 1,}""#, r#""{\"a\": 1""#, r#""{""#] {
        let report = failed(parse(raw, Some(&schema), &no_repair));
        assert!(report.has(FailureKind::Schema), "{raw}: {report:?}");
    }
    // Valid JSON never changes without a schema that asks otherwise.
    let (value, fixes) = accepted(parse(r#""{\"a\": 1}""#, None, &opts()));
    assert_eq!(value, json!("{\"a\": 1}"));
    assert!(fixes.is_empty());
    // Backslash-escaped JSON as the whole reply.
    assert_eq!(repaired_value(r#"{\"a\": 1}"#), Some(json!({"a": 1})));
}

#[test]
fn a_cut_off_reply_is_still_never_closed_locally() {
    let schema = compile(OBJECT);
    let cut = ParseOptions {
        stop_reason: Some("max_tokens".into()),
        ..ParseOptions::new()
    };
    for raw in [
        "{\"name\": \"Ann\", \"tags\": [\"a\", \"b",
        "```json\n{\"name\": \"Ann\"}\n```\nThe name is",
        "{\"name\": \"Ann\"}\n{\"name\": \"B",
    ] {
        let report = failed(parse(raw, Some(&schema), &cut));
        assert_eq!(report.kinds, vec![FailureKind::Truncated], "{raw}");
    }
}

// ---------- the property of item 1 ----------

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z '\"{}\\[\\]:,\\\\]{0,8}".prop_map(Value::String),
    ]
}

/// A valid document: an object or array with at least one member.
fn document() -> impl Strategy<Value = Value> {
    let value = leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,4}", inner), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    prop_oneof![
        prop::collection::vec(value.clone(), 1..4).prop_map(Value::Array),
        prop::collection::vec(("[a-z]{1,4}", value), 1..4)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
    ]
}

/// Starts of an outer value that is broken before the document comes, where a value is due.
const BROKEN_OPENINGS: &[&str] = &[
    r#"{"a": "x"y", "b": "#,
    r#"{"a": hello, "b": "#,
    r#"{"note": "5" tall", "v": "#,
    r#"{"a": [}, "b": "#,
    r#"{'a': 'it's', "b": "#,
    r#"{"a": 1 "b": "#,
    r#"{"a": @, "b": "#,
    "[1, 2 ; ",
    r#"{"a": "unterminated, "b": "#,
    r#"Result: {"k": nope, "v": "#,
    r#"[{"a": 1}, {"b": x}, "#,
    "{\"a\": 1,\n  \"list\": [1 2 3 x], \"b\": ",
];
const CLOSINGS: &[&str] = &["}", "]", "", r#", "z": oops}"#, "}}", " trailing words"];

/// Every value inside `v`, `v` itself included.
fn values_within(v: &Value, out: &mut Vec<Value>) {
    out.push(v.clone());
    match v {
        Value::Array(items) => items.iter().for_each(|i| values_within(i, out)),
        Value::Object(members) => members.values().for_each(|i| values_within(i, out)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// For any valid document D placed inside broken surroundings, the result is the outer
    /// value repaired whole or a failure, never D or a value inside D.
    #[test]
    fn a_document_inside_a_broken_value_is_never_returned_on_its_own(
        doc in document(),
        opening in prop::sample::select(BROKEN_OPENINGS),
        closing in prop::sample::select(CLOSINGS),
        pretty in any::<bool>(),
    ) {
        let text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) }.unwrap();
        let raw = format!("{opening}{text}{closing}");
        let mut inside = Vec::new();
        values_within(&doc, &mut inside);
        let any = compile("true");
        let object = compile(r#"{"type":"object"}"#);
        let results = [
            repaired_value(&raw),
            parse(&raw, Some(&any), &opts()).ok_value(),
            parse(&raw, Some(&object), &opts()).ok_value(),
            parse(&raw, None, &opts()).ok_value(),
        ];
        for result in results.into_iter().flatten() {
            prop_assert!(!inside.contains(&result), "{raw:?} gave {result}");
        }
    }

    /// And in prose, D itself is found.
    #[test]
    fn a_document_in_prose_is_found_whole(
        doc in document(),
        before in "[A-Za-z ,.!?]{0,24}",
        after in "[A-Za-z ,.!?]{0,24}",
    ) {
        let raw = format!("{before} {} {after}", serde_json::to_string(&doc).unwrap());
        prop_assert_eq!(repaired_value(&raw), Some(doc.clone()), "{:?}", raw);
        prop_assert_eq!(parse(&raw, Some(&compile("true")), &opts()).ok_value(), Some(doc));
    }
}

trait OkValue {
    fn ok_value(self) -> Option<Value>;
}

impl OkValue for Parsed {
    fn ok_value(self) -> Option<Value> {
        match self {
            Parsed::Ok { value, .. } => Some(value),
            Parsed::Err { .. } => None,
        }
    }
}

#[test]
fn many_bare_words_are_refused_quickly() {
    let schema = compile(r#"{"type":"array","items":{"type":"string"}}"#);
    let (value, _) = accepted(parse("[a, b, c]", Some(&schema), &opts()));
    assert_eq!(value, json!(["a", "b", "c"]));
    // Past 10,000 bare words the reply is refused rather than checked word by word.
    let many = format!("[{}]", vec!["w"; 20_000].join(", "));
    let report = failed(parse(&many, Some(&schema), &opts()));
    assert_eq!(report.kinds, vec![FailureKind::JsonSyntax]);
    let some = format!("[{}]", vec!["w"; 9_000].join(", "));
    assert!(parse(&some, Some(&schema), &opts()).is_ok());
}

#[test]
fn a_value_closed_by_repair_hides_the_rest_of_its_region_but_a_bracketed_word_does_not() {
    let schema = compile(r#"{"type": "object", "required": ["a"]}"#);
    // `[final]` ended at its own `]`: the `:` after it is prose, and the answer after it is found
    // (it was a json-syntax failure and a paid repair call; `Note [1]: …` worked).
    for text in [
        r#"Answer [final]: {"a": 1}"#,
        "Output [JSON]:
{\"a\": 1}",
        r#"I considered [A, B], then chose {"a": 1}"#,
    ] {
        let (value, _) = accepted(parse(text, Some(&schema), &opts()));
        assert_eq!(value, json!({"a": 1}), "{text}");
        // repairJson, which has no schema to accept bare words, already found it.
        assert_eq!(repaired_value(text), Some(json!({"a": 1})), "{text}");
    }
    let (value, _) = accepted(parse(r#"Note [1]: {"a": 1}"#, Some(&schema), &opts()));
    assert_eq!(value, json!({"a": 1}));
    // The repair closed `{"a": 1` early (a value followed that cannot belong to it): what follows
    // may be inside the broken value, so `{"c": 1}` is not offered on its own.
    let schema = compile(r#"{"type": "object", "required": ["c"]}"#);
    failed(parse(
        r#"[{"a": 1 {"c": 1}], "b": {"c": 1}}"#,
        Some(&schema),
        &opts(),
    ));
}

#[test]
fn bare_words_under_a_long_key_are_read_and_checked_in_linear_time() {
    // 5,000 words in an array under a 100,000-character key (1 GB in wasm before; 300,000 and
    // 10,000 trapped the instance at 4.3 GB): the key is decoded once and looked up once.
    let key = "k".repeat(100_000);
    let n = 5_000;
    let raw = format!("{{\"{key}\": [{}a]}}", "a,".repeat(n - 1));
    let words = compile(
        r#"{"type":"object","properties":{"x":{}},
            "additionalProperties":{"type":"array","items":{"type":"string"}}}"#,
    );
    let (value, fixes) = accepted(parse(&raw, Some(&words), &opts()));
    assert_eq!(value, json!({ key.clone(): vec!["a"; n] }));
    assert_eq!(fixes, vec![Fix::UnquotedString]);
    // Where the schema expects no string, the words are not guessed at.
    let report = failed(parse(&raw, Some(&compile(r#"{"type":"object"}"#)), &opts()));
    assert_eq!(report.kinds, vec![FailureKind::JsonSyntax]);
}

#[test]
fn many_bare_words_then_many_values_are_each_checked_once() {
    // 2,000 words, then 100,000 values: each value's words were looked for among all the words
    // (10,000 and 1,000,000 took 8.6 s in wasm).
    let raw = format!("{}{}", "x\n".repeat(2_000), "[,]\n".repeat(100_000));
    let strings = compile(r#"{"type":"array","items":{"type":"string"}}"#);
    let (value, fixes) = accepted(parse(&raw, Some(&strings), &opts()));
    assert_eq!(value, json!([]));
    assert_eq!(fixes, vec![Fix::SurroundingProse, Fix::TrailingComma]);
    let report = failed(parse(&raw, Some(&compile(r#"{"type":"object"}"#)), &opts()));
    assert_eq!(
        report.kinds,
        vec![FailureKind::JsonSyntax, FailureKind::Schema]
    );
}

#[test]
fn a_reply_of_many_repaired_lines_keeps_only_what_the_answer_needs() {
    // An outside review: each repaired candidate's text and tree were kept until the search
    // ended ('{a:1}\n' repeated to 4 MB took 611 MB of wasm memory). Now a repaired candidate is
    // judged as it comes. The answers on the same shapes at about 120 KB:
    let lines = "{a:1}\n".repeat(20_000);
    let string = compile(r#"{"type":"string"}"#);
    let report = failed(parse(&lines, Some(&string), &opts()));
    assert_eq!(
        report.kinds,
        vec![FailureKind::JsonSyntax, FailureKind::Schema]
    );
    // The issues of the first complete candidate: the array of every line.
    assert_eq!(report.issues.len(), 2, "{report:?}");
    assert_eq!(report.issues[1].path, "");
    assert!(report.issues[1].message.starts_with(r#"[{"a":1},{"a":1},"#));
    assert!(report.issues[1].message.ends_with('…'), "{report:?}");
    // The array where one is asked for (or no schema), else the first line.
    let all = json!(vec![json!({"a": 1}); 20_000]);
    let rows = compile(r#"{"type":"array"}"#);
    assert_eq!(accepted(parse(&lines, Some(&rows), &opts())).0, all);
    assert_eq!(accepted(parse(&lines, None, &opts())).0, all);
    let (value, fixes) = accepted(parse(
        &lines,
        Some(&compile(r#"{"type":"object"}"#)),
        &opts(),
    ));
    assert_eq!(value, json!({"a": 1}));
    assert_eq!(fixes, vec![Fix::SurroundingProse, Fix::UnquotedKey]);
    // A strict line after them all still comes first; a failing one does not.
    let then = format!("{lines}{{\"a\": \"s\"}}");
    let text_a = compile(r#"{"type":"object","properties":{"a":{"type":"string"}}}"#);
    let (value, fixes) = accepted(parse(&then, Some(&text_a), &opts()));
    assert_eq!(value, json!({"a": "s"}));
    assert_eq!(fixes, vec![Fix::SurroundingProse]);
    let int_a = compile(r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#);
    assert_eq!(
        accepted(parse(&then, Some(&int_a), &opts())),
        (
            json!({"a": 1}),
            vec![Fix::SurroundingProse, Fix::UnquotedKey]
        )
    );

    // Lines of deep arrays with a comma to drop: 866 MB at 4 MB.
    let deep = format!("{},{}\n", "[".repeat(126), "]".repeat(126)).repeat(500);
    let nested = (0..125).fold(json!([]), |inner, _| json!([inner]));
    let report = failed(parse(&deep, Some(&string), &opts()));
    assert_eq!(
        report.kinds,
        vec![FailureKind::JsonSyntax, FailureKind::Schema]
    );
    assert_eq!(
        accepted(parse(&deep, None, &opts())).0,
        json!(vec![nested.clone(); 500])
    );
    let one = compile(r#"{"type":"array","maxItems":1}"#);
    assert_eq!(accepted(parse(&deep, Some(&one), &opts())).0, nested);
}

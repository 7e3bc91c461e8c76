//! The official JSON-Schema-Test-Suite's regex cases (tests/corpus/regex-suite/), natively: the
//! same files run through the wasm build in tests/js/patterns.test.mjs, so the two builds give the
//! same answers (patterns are matched by different engines in each: docs/DESIGN.md, "Patterns").
// Needs the JSON Schema validator: not built in selfheal/lite (`--no-default-features`).
#![cfg(feature = "validate")]
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use selfheal::CompiledSchema;
use serde_json::{json, Value};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/regex-suite");

fn groups(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn pattern_and_pattern_properties_cases_give_the_suites_answers() {
    let mut checked = 0;
    for file in [
        "pattern.json",
        "patternProperties.json",
        "optional-ecmascript-regex.json",
        "optional-non-bmp-regex.json",
    ] {
        for group in groups(file) {
            let schema = group["schema"].clone();
            // The format: regex groups of ecmascript-regex.json are covered below.
            if schema.get("format").is_some() {
                continue;
            }
            let compiled = CompiledSchema::from_value(schema.clone())
                .unwrap_or_else(|e| panic!("{file}: {}: {e}", group["description"]));
            for test in group["tests"].as_array().unwrap() {
                let valid = compiled.validate(&test["data"]).is_none();
                assert_eq!(
                    valid,
                    test["valid"].as_bool().unwrap(),
                    "{file}: {} / {}",
                    group["description"],
                    test["description"]
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "only {checked} cases found");
}

/// Valid regexes the engine refuses: each needs a backtracking engine and can backtrack for a
/// time that grows faster than the subject (`(?<=a+)b` rescans the run of `a`s behind every
/// position). The wasm build refuses the same ones (tests/js/patterns.test.mjs).
pub const REFUSED: &[&str] = &["(?<=a+)b"];

/// Every string the suite calls a valid regex compiles as a `pattern` (or is one of [`REFUSED`],
/// with a schema error that says why); every invalid one makes the schema invalid (the ECMA-262
/// syntax check still decides, whichever engine matches).
#[test]
fn format_regex_strings_compile_as_patterns_exactly_when_valid() {
    let mut checked = 0;
    for file in [
        "optional-format-regex.json",
        "optional-format-ecmascript-regex.json",
        "optional-ecmascript-regex.json",
    ] {
        for group in groups(file) {
            if group["schema"].get("format") != Some(&json!("regex")) {
                continue;
            }
            for test in group["tests"].as_array().unwrap() {
                let Some(pattern) = test["data"].as_str() else {
                    continue;
                };
                let compiled = CompiledSchema::from_value(json!({ "pattern": pattern }));
                let what = format!(
                    "{file}: {} / {}: {pattern:?}",
                    group["description"], test["description"]
                );
                match (test["valid"].as_bool().unwrap(), compiled) {
                    (true, Ok(_)) => assert!(!REFUSED.contains(&pattern), "{what} compiled"),
                    (true, Err(e)) => {
                        assert!(REFUSED.contains(&pattern), "{what}: {e}");
                        assert!(e.message.contains("backtrack"), "{what}: {e}");
                    }
                    (false, Ok(_)) => panic!("{what}: an invalid regex compiled"),
                    (false, Err(e)) => assert!(e.message.contains("regex"), "{what}: {e}"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 14, "only {checked} cases found");
}

//! proptest strategies shared by the property tests of this crate (the repair scanner) and of
//! selfheal (tests/stream.rs, tests/reliability.rs), which take this module through the
//! `testing` feature of a native dev-dependency: never part of a build.

use proptest::prelude::*;
use serde_json::Value;

/// Fragments models write, so generated text reaches deep scanner and reader states.
pub const JSONISH_TOKENS: [&str; 36] = [
    "{",
    "}",
    "[",
    "]",
    "\"",
    "'",
    "“",
    "”",
    "‘",
    "’",
    ":",
    ",",
    "//",
    "/*",
    "*/",
    "\n",
    " ",
    "\\",
    "\\u",
    "\\u00e9",
    "True",
    "None",
    "null",
    "false",
    "1",
    "-",
    "1e5",
    "0.5",
    "abc",
    "it's",
    "```json\n",
    "```",
    "é",
    "\u{0}",
    "😀",
    "key",
];

/// Text of fewer than `max` tokens drawn from [`JSONISH_TOKENS`] and a test's own `extra`.
pub fn jsonish_text(extra: &[&'static str], max: usize) -> impl Strategy<Value = String> {
    let tokens: Vec<&'static str> = JSONISH_TOKENS.iter().chain(extra).copied().collect();
    prop::collection::vec(prop::sample::select(tokens), 0..max).prop_map(|t| t.concat())
}

/// Any JSON value (up to 5 levels, 48 nodes, 6 items a container), its strings and keys drawn
/// from `string`.
pub fn json_value(
    string: impl Strategy<Value = String> + Clone + 'static,
) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e300f64..1e300).prop_map(Value::from),
        string.clone().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((string.clone(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

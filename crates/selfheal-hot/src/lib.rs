//! selfheal's hot paths, in their own crate so that they keep opt-level 3 while selfheal
//! itself is built for size (Cargo.toml, `[profile.release.package.selfheal-hot]`;
//! docs/PERFORMANCE.md, "Round 3"; docs/DESIGN.md, "Two crates, two opt-levels"): the repair
//! scanner ([`repair`]) and the fix names ([`fix`]), the parser of `Value`, [`classify`] and
//! [`text`] (the path of every error outcome), and the reading of the records
//! js/snippets/gather.js writes ([`gather`]). selfheal re-exports them under their old paths
//! (`selfheal::classify`, `selfheal::text`, `selfheal::structured::{repair, fix}`).
//!
//! Release builds do not share generic code between crates: a generic function is compiled in
//! the crate that instantiates it, at that crate's opt-level. So serde_json's parser of
//! [`Value`] is instantiated here, behind the non-generic [`parse_value`], and selfheal calls
//! that instead of `serde_json::from_str::<Value>`.

pub mod classify;
pub mod fix;
pub mod gather;
pub mod repair;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod wire_name;

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// `serde_json::from_str::<Value>`, compiled at this crate's opt-level, with every array and
/// object holding no more room than its items need ([`Tight`]).
pub fn parse_value(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Tight.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// serde_json's own `Value` visitor, except for the room of arrays and objects. serde_json
/// pushes items onto a `Vec` and entries into a `Map`, so a one-item array keeps room for four
/// `Value`s (Rust's first allocation, 192 bytes on wasm32 for 48 of value) and a one-key object
/// room for three entries: 4 MB of nested one-item arrays took 428 MB. Here an array gives back
/// the room it did not use (dlmalloc shrinks in place) and an object's entries are gathered first
/// and then built at their exact number. Same values, same order, the last of a repeated key
/// kept where the first stood, as serde_json's `Map::insert` does (the tests below).
#[derive(Clone, Copy)]
struct Tight;

impl<'de> DeserializeSeed<'de> for Tight {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tight {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value_seed(self)?));
        }
        // `FromIterator` sizes the map from the exact length.
        Ok(Value::Object(entries.into_iter().collect()))
    }
}

/// `serde_json::to_string(&Value)`, compiled at this crate's opt-level.
pub fn value_to_string(value: &Value) -> String {
    value.to_string()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::parse_value;
    use crate::testing::{json_value, jsonish_text};

    /// `parse_value` answers as `serde_json::from_str` does: the same value with its members in
    /// the same order, or the same error.
    fn same_as_serde_json(text: &str) {
        let ours = parse_value(text)
            .map(|v| v.to_string())
            .map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<Value>(text)
            .map(|v| v.to_string())
            .map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text:?}");
    }

    /// Every array of `value` holds no more room than its items.
    fn tight(value: &Value) -> bool {
        match value {
            Value::Array(items) => items.capacity() == items.len() && items.iter().all(tight),
            Value::Object(members) => members.values().all(tight),
            _ => true,
        }
    }

    #[test]
    fn answers_as_serde_json_on_edge_cases() {
        for text in [
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"b":{"x":[1,2,3]},"a":[],"b":null}"#,
            "[1e400]",
            "[-0, -0.0, 0.1, 1.5e-400, 18446744073709551615, 18446744073709551616]",
            "[-9223372036854775808, -9223372036854775809, 2.2250738585072014e-308]",
            r#""\ud83d\ude00 \u00e9 \n""#,
            r#""\ud800""#,
            "{} x",
            "[1,]",
            "",
            "  [ ]  ",
        ] {
            same_as_serde_json(text);
        }
        for depth in [127, 128, 129, 200] {
            same_as_serde_json(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            same_as_serde_json(&format!(
                "{}1{}",
                r#"{"a":"#.repeat(depth),
                "}".repeat(depth)
            ));
        }
    }

    #[test]
    fn arrays_keep_no_spare_room() {
        let text = format!("[{}1{}, [1,2,3,4,5], []]", "[".repeat(100), "]".repeat(100));
        let value = parse_value(&text);
        assert!(matches!(&value, Ok(v) if tight(v)), "{value:?}");
    }

    proptest! {
        #[test]
        fn answers_as_serde_json_on_any_text(text in jsonish_text(&[], 40)) {
            same_as_serde_json(&text);
        }

        #[test]
        fn answers_as_serde_json_on_any_value(
            value in json_value(prop::sample::select(vec!["a".to_string(), "b".into(), "é".into()])),
            repeat in prop::sample::select(vec![r#"{"a":0,"#, r#"{"b":[],"#, "{"]),
        ) {
            let text = value.to_string();
            same_as_serde_json(&text);
            // The same members again after a repeated key.
            if let Some(members) = text.strip_prefix('{').filter(|m| *m != "}") {
                same_as_serde_json(&format!("{repeat}{members}"));
            }
            prop_assert!(parse_value(&text).map(|v| tight(&v)).unwrap_or(false));
        }
    }
}

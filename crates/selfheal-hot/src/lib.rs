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

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// `serde_json::from_str::<Value>`, compiled at this crate's opt-level, with every array and
/// object holding no more room than its items need ([`Tight`]).
pub fn parse_value(text: &str) -> Result<Value, serde_json::Error> {
    let room = Room::counted(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Tight(&room).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Texts from this long have their large arrays counted before the parse ([`Room`]).
const COUNT_FROM: usize = 1 << 20;
/// An array of at least this many items is built at its counted size.
const COUNTED_ITEMS: u32 = 4096;

/// The item counts of a text's large arrays, taken by one pass over its bytes before the parse.
/// A `Vec` that doubles holds its old and its new buffer at once: 2,000,000 integers (96 MB of
/// `Value` on wasm32) peaked at 150 MB while growing, and wasm memory never shrinks. Arrays are
/// numbered by their `[` in text order, which is the order serde_json visits them in. A count
/// is only a hint: text that is not JSON gets counts that mean nothing, and the parse fails, or
/// an array grows or gives back room as it would have anyway.
struct Room {
    /// (number of the array, its items), by number.
    large: Vec<(u32, u32)>,
    /// The number of the next array the parse meets.
    next: Cell<u32>,
}

impl Room {
    fn counted(text: &str) -> Room {
        let mut large = Vec::new();
        if text.len() >= COUNT_FROM {
            count_large_arrays(text.as_bytes(), &mut large);
        }
        Room {
            large,
            next: Cell::new(0),
        }
    }

    /// The room to reserve for the next array the parse meets.
    fn next_array(&self) -> usize {
        let n = self.next.get();
        self.next.set(n.wrapping_add(1));
        match self.large.binary_search_by_key(&n, |&(number, _)| number) {
            Ok(i) => self.large.get(i).map_or(0, |&(_, items)| items as usize),
            Err(_) => 0,
        }
    }
}

/// Pushes (number, items) for each array of `text` with at least [`COUNTED_ITEMS`] items, kept
/// sorted by number. Strings are skipped with their escapes; nesting deeper than serde_json
/// parses stops the count.
fn count_large_arrays(text: &[u8], large: &mut Vec<(u32, u32)>) {
    // The open containers: for an array its number and the commas seen directly in it.
    let mut open: Vec<Option<(u32, u32)>> = Vec::new();
    let mut arrays = 0_u32;
    let mut i = 0;
    while let Some(&c) = text.get(i) {
        match c {
            b'"' => {
                i += 1;
                while let Some(&c) = text.get(i) {
                    match c {
                        b'\\' => i += 1,
                        b'"' => break,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'[' | b'{' => {
                if open.len() > 128 {
                    return;
                }
                open.push((c == b'[').then_some((arrays, 0)));
                arrays = arrays.wrapping_add(u32::from(c == b'['));
            }
            b']' | b'}' => {
                if let Some(Some((number, commas))) = open.pop() {
                    let items = commas.saturating_add(1);
                    if items >= COUNTED_ITEMS {
                        let at = large.partition_point(|&(n, _)| n < number);
                        large.insert(at, (number, items));
                    }
                }
            }
            b',' => {
                if let Some(Some((_, commas))) = open.last_mut() {
                    *commas = commas.saturating_add(1);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// serde_json's own `Value` visitor, except for the room of arrays and objects. serde_json
/// pushes items onto a `Vec` and entries into a `Map`, so a one-item array keeps room for four
/// `Value`s (Rust's first allocation, 192 bytes on wasm32 for 48 of value) and a one-key object
/// room for three entries: 4 MB of nested one-item arrays took 428 MB. Here an array gives back
/// the room it did not use (dlmalloc shrinks in place) and an object's entries are gathered first
/// and then built at their exact number. Same values, same order, the last of a repeated key
/// kept where the first stood, as serde_json's `Map::insert` does (the tests below).
#[derive(Clone, Copy)]
struct Tight<'r>(&'r Room);

impl<'de> DeserializeSeed<'de> for Tight<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tight<'_> {
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
        // The counted room is taken once the array has shown itself that large: a text of
        // commas that is not an array fails before anything is reserved for its count.
        let counted = self.0.next_array();
        while let Some(item) = seq.next_element_seed(self)? {
            if items.len() == COUNTED_ITEMS as usize && counted > items.len() {
                items.reserve_exact(counted - items.len());
            }
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

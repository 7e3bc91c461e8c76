//! The strict check: serde_json's own rules, without building a tree.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// True when `text` is strict JSON by serde_json's rules.
///
/// `serde::de::IgnoredAny` would be cheaper but is laxer than `Value`: it
/// skips the depth limit, number overflow (`1e400`) and lone surrogates
/// (`"\uD800"`), so "unchanged" output could fail to parse as a `Value`. This
/// visitor walks the same `deserialize_any` path as `Value` without
/// allocating a tree.
pub fn is_strict_json(text: &str) -> bool {
    serde_json::from_str::<StrictJson>(text).is_ok()
}

pub(super) struct StrictJson;

impl<'de> Deserialize<'de> for StrictJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = StrictJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_unit<E: de::Error>(self) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_none<E: de::Error>(self) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrictJson, A::Error> {
        while seq.next_element::<StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrictJson, A::Error> {
        while map.next_entry::<StrictJson, StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
}

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

/// Visitor methods that accept a scalar as it is: `name(argument type)`, ….
macro_rules! accept_scalars {
    ($($method:ident($($arg:ty)?)),* $(,)?) => {
        $(fn $method<E: de::Error>(self, $(_: $arg)?) -> Result<StrictJson, E> {
            Ok(StrictJson)
        })*
    };
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = StrictJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    accept_scalars! {
        visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_i128(i128), visit_u128(u128),
        visit_f64(f64), visit_str(&str), visit_unit(), visit_none(),
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

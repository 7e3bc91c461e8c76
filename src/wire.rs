//! serde helpers for the JS wire shapes of the core's types. Pure serde: the wasm layer's
//! `Deserializer` (src/wasm/de.rs) gives two of them their meaning, and any other deserializer
//! (serde_json for `fromJSON` states, native tests) reads the same fields as plain values.
//!
//! * `null` in an options object means "absent" (the field's default) unless the field carries
//!   `#[serde(alias = "\u{0}null")]` ([`NULL_IS_A_VALUE`]): then `null` is a value, as for
//!   `maxPromptChars: null` (no limit) or `defaultValue: null` (a default of `null`).
//! * A field of any JSON (`defaultValue`) is read with [`any_json`] and so crosses as
//!   `JSON.stringify` gives it (`toJSON`, boxed primitives, exact number text), as it always has.

use serde::de::{Deserialize, Deserializer, Visitor};
use serde_json::Value;

/// The alias that marks a struct field whose `null` is a value rather than "absent":
/// `#[serde(alias = "\u{0}null")]` (any alias that starts with it: two fields of one struct
/// cannot share an alias, so a second one writes `"\u{0}null 2"`). serde lists a field's
/// aliases, sorted, before its name in the field list a deserializer is given, and `\0` sorts
/// first, so the marker comes right before the field it marks. To serde_json it is one more
/// name no input uses.
pub const NULL_IS_A_VALUE: &str = "\u{0}null";

/// The newtype name that asks for a value as JSON text: `JSON.stringify` (catching) and
/// serde_json, so `toJSON`, boxed primitives and number text behave exactly as in JSON.
pub const JSON_TOKEN: &str = "$selfheal::json";

/// Any JSON value, read as JSON text where the deserializer can (see [`JSON_TOKEN`]).
pub fn any_json<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Value;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
            Value::deserialize(d)
        }
    }
    d.deserialize_newtype_struct(JSON_TOKEN, V)
}

/// [`any_json`] for a field where presence matters: `Some` whenever the field is there, `null`
/// included (mark the field [`NULL_IS_A_VALUE`] so the wasm layer hands `null` over).
pub fn present_json<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    any_json(d).map(Some)
}

/// `null` kept apart from absent: `Some(None)` for `null`, `None` when the field is not there
/// (with `#[serde(default)]`; mark the field [`NULL_IS_A_VALUE`]).
pub fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A whole number written as `JSON.stringify` writes it, in digits without `.0` (`10000000`,
/// not serde_json's `10000000.0`; `1e16` as `10000000000000000`), for JSON text selfheal hands
/// out as text (`Metrics.toJSONL`). JS turns to exponents from 1e21 on, as serde_json does. A
/// fraction is serde_json's shortest form, which JS writes alike except between 1e-6 and 1e-5
/// (`1.5e-6`, JS `0.0000015`): not a timestamp or a duration in ms.
pub fn js_number<S: serde::Serializer>(n: &f64, s: S) -> Result<S::Ok, S::Error> {
    // Every whole f64 below 1e21 is an exact i128; -0 too: JSON.stringify(-0) is "0".
    if n.fract() == 0.0 && n.abs() < 1e21 {
        s.serialize_i128(*n as i128)
    } else {
        s.serialize_f64(*n)
    }
}

/// The unit variant of `T` whose serde name is `name` (`"ja"`, `"full"`): the enum's own
/// derive decides, so a new variant is parsed with no edit here.
pub fn from_name<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    use serde::de::IntoDeserializer;
    let d: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        name.into_deserializer();
    T::deserialize(d).ok()
}

pub use selfheal_hot::wire_name::name_of;

/// The enum name that tells the wasm layer's deserializer an enum is internally tagged: the
/// prefix, then the tag's key (`"$selfheal::tagged:type"`). See [`tagged_enum!`].
pub const TAGGED: &str = "$selfheal::tagged:";

/// `a == b`, in a `const` (the check [`tagged_enum!`] makes of its two literals).
pub const fn same(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a, b) {
            ([], []) => return true,
            ([x, rest_a @ ..], [y, rest_b @ ..]) if *x == *y => (a, b) = (rest_a, rest_b),
            _ => return false,
        }
    }
}

/// An internally tagged enum (`{"type": "done", "value": …}`), written once, whose variants are
/// units or structs: `#[serde(tag = …)]` for `Serialize` everywhere and for `Deserialize`
/// natively, and in the wasm build a `Deserialize` without serde's `Content` buffering.
///
/// serde's derive for `#[serde(tag)]` reads the whole object into a `Content` tree before it
/// knows the variant, then reads the variant from that tree, so every variant type (and every
/// type inside one) was compiled a second time for `ContentDeserializer`: 94 KB raw of the lite
/// build went to that (docs/PERFORMANCE.md, "Round 6"). A JS object can be asked for its tag
/// first, so in the wasm build the enum is read by a copy of it derived as an ordinary
/// (externally tagged) enum named [`TAGGED`] + the tag's key: the JS deserializer
/// (`src/wasm/de.rs`) reads the tag, hands serde the variant, and reads the variant's fields from
/// the same object. Other deserializers keep serde's own derive (native tests read the same
/// JSON), so the two readers are held to one wire format by the browser and Node suites, which
/// restore every state through the wasm one.
///
/// ```ignore
/// tagged_enum! {
///     #[tag("mode", "$selfheal::tagged:mode")] // the key, then TAGGED + the key (checked)
///     #[derive(Debug, Clone, PartialEq)]
///     #[serde(rename_all = "lowercase", rename_all_fields = "camelCase")]
///     pub enum FallbackPlan {
///         Human { queue: String },
///         Template { template_id: String, text: String },
///     }
/// }
/// ```
macro_rules! tagged_enum {
    (
        #[tag($tag:literal, $wire:literal)]
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident $({
                    $( $(#[$fmeta:meta])* $field:ident : $fty:ty ),* $(,)?
                })?
            ),* $(,)?
        }
    ) => {
        #[derive(serde::Serialize)]
        #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Deserialize))]
        #[serde(tag = $tag)]
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* $variant $({ $( $(#[$fmeta])* $field : $fty ),* })? ),*
        }

        #[cfg(target_arch = "wasm32")]
        const _: () = {
            assert!(
                $crate::wire::same(concat!("$selfheal::tagged:", $tag), $wire),
                "tagged_enum!: the second literal must be TAGGED followed by the tag"
            );

            #[derive(serde::Deserialize)]
            #[serde(rename = $wire)]
            $(#[$meta])*
            enum Wire {
                $( $(#[$vmeta])* $variant $({ $( $(#[$fmeta])* $field : $fty ),* })? ),*
            }

            impl From<Wire> for $name {
                fn from(wire: Wire) -> $name {
                    match wire {
                        $( Wire::$variant $({ $($field),* })? => $name::$variant $({ $($field),* })? ),*
                    }
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                    <Wire as serde::Deserialize>::deserialize(d).map(<$name>::from)
                }
            }
        };
    };
}
pub(crate) use tagged_enum;

#[cfg(test)]
mod tests {
    #[test]
    fn same_compares_whole_strings() {
        // What the macro's check does, at compile time.
        const {
            assert!(super::same(
                concat!("$selfheal::tagged:", "type"),
                "$selfheal::tagged:type"
            ))
        };
        assert!(!super::same(
            "$selfheal::tagged:type",
            "$selfheal::tagged:mode"
        ));
        assert!(!super::same("type", "types") && !super::same("types", "type"));
        assert!(super::same("", ""));
    }
}

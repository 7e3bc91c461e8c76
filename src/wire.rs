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

/// The unit variant of `T` whose serde name is `name` (`"ja"`, `"full"`): the enum's own
/// derive decides, so a new variant is parsed with no edit here.
pub fn from_name<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    use serde::de::IntoDeserializer;
    let d: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        name.into_deserializer();
    T::deserialize(d).ok()
}

/// The serde name of a unit variant (`Fix::CodeFence` → `"code-fence"`): what its derive hands
/// the serializer, so `as_str` and the JSON agree with no second list of names. `None` for
/// anything but a unit variant.
pub fn name_of<T: serde::Serialize + ?Sized>(value: &T) -> Option<&'static str> {
    value.serialize(VariantName).ok()
}

/// A serializer that accepts only a unit variant and returns its name.
struct VariantName;

#[derive(Debug)]
struct NotAUnitVariant;

impl std::fmt::Display for NotAUnitVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a unit variant")
    }
}

impl std::error::Error for NotAUnitVariant {}

impl serde::ser::Error for NotAUnitVariant {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        NotAUnitVariant
    }
}

/// Serializer methods that refuse: `-> what they would return: name<T>?(argument types), …`.
macro_rules! refuse {
    ($(-> $ret:ty: $($method:ident $(<$t:ident>)? ($($arg:ty),*)),*;)*) => {
        $($(
            fn $method $(<$t: serde::Serialize + ?Sized>)? (self, $(_: $arg),*)
                -> Result<$ret, NotAUnitVariant> {
                Err(NotAUnitVariant)
            }
        )*)*
    };
}

type Refused = serde::ser::Impossible<&'static str, NotAUnitVariant>;

impl serde::Serializer for VariantName {
    type Ok = &'static str;
    type Error = NotAUnitVariant;
    type SerializeSeq = Refused;
    type SerializeTuple = Refused;
    type SerializeTupleStruct = Refused;
    type SerializeTupleVariant = Refused;
    type SerializeMap = Refused;
    type SerializeStruct = Refused;
    type SerializeStructVariant = Refused;

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<&'static str, NotAUnitVariant> {
        Ok(variant)
    }

    refuse! {
        -> &'static str: serialize_bool(bool), serialize_i8(i8), serialize_i16(i16),
            serialize_i32(i32), serialize_i64(i64), serialize_u8(u8), serialize_u16(u16),
            serialize_u32(u32), serialize_u64(u64), serialize_f32(f32), serialize_f64(f64),
            serialize_char(char), serialize_str(&str), serialize_bytes(&[u8]), serialize_none(),
            serialize_unit(), serialize_unit_struct(&'static str), serialize_some<T>(&T),
            serialize_newtype_struct<T>(&'static str, &T),
            serialize_newtype_variant<T>(&'static str, u32, &'static str, &T);
        -> Refused: serialize_seq(Option<usize>), serialize_tuple(usize),
            serialize_tuple_struct(&'static str, usize),
            serialize_tuple_variant(&'static str, u32, &'static str, usize),
            serialize_map(Option<usize>), serialize_struct(&'static str, usize),
            serialize_struct_variant(&'static str, u32, &'static str, usize);
    }
}

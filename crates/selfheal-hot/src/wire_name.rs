//! The serde name of a unit variant, for `as_str` of the wire enums here and in selfheal.

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

// ---------------------------------------------------------------- reading unit enums

/// A unit-only wire enum (`Fix`, `Cause`, `StopReason`, ...), read by its serde names.
///
/// serde's derive gives each enum its own visitors, and every one is instantiated per
/// deserializer: a chain of string and byte-string comparisons per enum and per reader (JS
/// options, serde_json text, serde's buffered `Content` for tagged enums), 35 KB of the .wasm
/// for about twenty enums. Here the names come from the enum's `Serialize` ([`name_of`], so they
/// are written once, in its serde attributes) and one visitor, generic over the deserializer
/// only, reads every enum ([`deserialize_unit`]): the same inputs accepted, the same errors
/// (`unknown variant`, `expected enum X`) as the derive's. Implemented by [`wire_enum!`].
pub trait UnitEnum: Copy + serde::Serialize + 'static {
    /// The enum's name, as the derive hands it to `deserialize_enum` (and its errors).
    const NAME: &'static str;
    /// Every variant in declaration order: a variant's index is its position.
    const ALL: &'static [Self];
    /// The serde names of [`UnitEnum::ALL`], in the same order, computed once.
    fn names() -> &'static [&'static str];
}

/// The serde names of `all` (for [`UnitEnum::names`]).
pub fn names_of<T: serde::Serialize>(all: &[T]) -> Vec<&'static str> {
    all.iter().map(|v| name_of(v).unwrap_or_default()).collect()
}

/// `T::deserialize`, as serde's derive reads a unit-only enum: `deserialize_enum`, then the
/// variant's identifier (a name, its index, or its name as bytes), then `unit_variant`.
pub fn deserialize_unit<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: UnitEnum,
{
    let names = T::names();
    let index = d.deserialize_enum(
        T::NAME,
        names,
        EnumVisitor {
            name: T::NAME,
            names,
        },
    )?;
    T::ALL
        .get(index)
        .copied()
        .ok_or_else(|| serde::de::Error::custom("variant index out of range"))
}

/// The derive's `__Visitor`, for every unit enum: the index of the variant read.
struct EnumVisitor {
    name: &'static str,
    names: &'static [&'static str],
}

impl<'de> serde::de::Visitor<'de> for EnumVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "enum {}", self.name)
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<usize, A::Error> {
        let (index, variant) = data.variant_seed(Identifier(self.names))?;
        serde::de::VariantAccess::unit_variant(variant)?;
        Ok(index)
    }
}

/// The derive's `__Field` and `__FieldVisitor`, for every unit enum.
#[derive(Clone, Copy)]
struct Identifier(&'static [&'static str]);

impl<'de> serde::de::DeserializeSeed<'de> for Identifier {
    type Value = usize;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Identifier {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<usize, E> {
        match usize::try_from(v) {
            Ok(i) if i < self.0.len() => Ok(i),
            _ => Err(E::invalid_value(
                serde::de::Unexpected::Unsigned(v),
                &VariantIndex(self.0.len()),
            )),
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|name| *name == v)
            .ok_or_else(|| E::unknown_variant(v, self.0))
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<usize, E> {
        self.0
            .iter()
            .position(|name| name.as_bytes() == v)
            .ok_or_else(|| E::unknown_variant(&String::from_utf8_lossy(v), self.0))
    }
}

/// The derive's expectation for a variant index out of range.
struct VariantIndex(usize);

impl serde::de::Expected for VariantIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "variant index 0 <= i < {}", self.0)
    }
}

/// A unit-only enum as written (its attributes, `Serialize` derive and serde renames included),
/// plus [`UnitEnum`] and a `Deserialize` by [`deserialize_unit`]: do not derive `Deserialize`
/// on it.
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),*
        }

        impl $crate::wire_name::UnitEnum for $name {
            const NAME: &'static str = stringify!($name);
            const ALL: &'static [Self] = &[$(Self::$variant),*];
            fn names() -> &'static [&'static str] {
                static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
                NAMES.get_or_init(|| {
                    $crate::wire_name::names_of(<Self as $crate::wire_name::UnitEnum>::ALL)
                })
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::wire_name::deserialize_unit(d)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    /// serde's derive, the reference.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Derived {
        CodeFence,
        HalfOpen,
        X,
    }

    crate::wire_enum! {
        /// The same enum through [`wire_enum!`].
        #[derive(Debug, Clone, Copy, PartialEq, Serialize)]
        #[serde(rename_all = "kebab-case")]
        enum Derived2 {
            /// Docs and attributes on variants pass through.
            CodeFence,
            HalfOpen,
            X,
        }
    }

    /// `Derived` as written by the derive and as read by `wire_enum!`, in the three readers
    /// selfheal uses on them (text, `Value`, serde's buffered `Content` of a tagged enum):
    /// the same variant or the same error text, for every input.
    #[derive(Debug, Deserialize)]
    #[serde(tag = "type")]
    enum Tagged<T> {
        Item { v: T },
    }

    fn read<T: for<'de> Deserialize<'de> + std::fmt::Debug>(text: &str) -> [String; 3] {
        let show =
            |r: Result<String, serde_json::Error>| r.unwrap_or_else(|e| format!("error: {e}"));
        let value = crate::parse_value(text).map_err(|e| e.to_string());
        [
            show(serde_json::from_str::<T>(text).map(|v| format!("{v:?}"))),
            match value {
                Ok(v) => show(T::deserialize(v).map(|v| format!("{v:?}"))),
                Err(e) => e,
            },
            show(
                serde_json::from_str::<Tagged<T>>(&format!(r#"{{"type": "Item", "v": {text}}}"#))
                    .map(|Tagged::Item { v }| format!("{v:?}")),
            ),
        ]
    }

    #[test]
    fn wire_enum_reads_as_the_derive() {
        let inputs = [
            r#""code-fence""#,
            r#""half-open""#,
            r#""x""#,
            r#""X""#,
            r#""CodeFence""#,
            r#""""#,
            r#""code-fence ""#,
            "0",
            "2",
            "3",
            "18446744073709551615",
            "-1",
            "1.0",
            "null",
            "true",
            "[]",
            r#"["x"]"#,
            r#"{"x": null}"#,
            r#"{"half-open": null}"#,
            r#"{"x": 1}"#,
            r#"{"nope": null}"#,
            r#"{"x": null, "y": null}"#,
            "{}",
            r#""caf\u00e9""#,
        ];
        for text in inputs {
            let want = read::<Derived>(text).map(|s| s.replace("Derived", "D"));
            let got = read::<Derived2>(text).map(|s| s.replace("Derived2", "D"));
            assert_eq!(got, want, "{text}");
        }
        assert_eq!(
            <Derived2 as super::UnitEnum>::names(),
            ["code-fence", "half-open", "x"]
        );
    }
}

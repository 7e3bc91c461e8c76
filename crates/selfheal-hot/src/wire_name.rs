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

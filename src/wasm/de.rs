//! A serde `Deserializer` over a JavaScript value: options are read by the types' own serde
//! derives, so a wire name lives in one `#[serde]` attribute and nowhere else.
//!
//! It keeps the boundary's rules (docs/DESIGN.md, "The JS boundary"):
//!
//! * **Nothing thrown crosses Rust.** Every property read is the catching `Reflect.get` of
//!   `read` (with its interned names); key lists come from `Object.keys` and lengths from
//!   `Array.isArray` + `length`, both imported with `catch`. A getter, trap or revoked `Proxy`
//!   that throws is an error naming the field (`options.backoff.maxMs could not be read: …`).
//! * **Crossings do not grow.** A struct reads exactly its declared fields, one `Reflect.get`
//!   each. Unknown fields are never read, so they are ignored as before (SPEC: unknown option
//!   fields are ignored); [`Keys::All`] reads every own key instead (and the values of unknown
//!   ones, as JSON data), for values selfheal gave out and takes back: `toJSON()` states, where
//!   `deny_unknown_fields` then refuses extras and `null` is a value, as in JSON.
//! * **`null` is absent, as options have always read it**: a struct field that is `undefined`
//!   or `null` is left to its `#[serde(default)]`, so `{ maxSteps: null }` is the default
//!   30. A field whose `null` means something else (`maxPromptChars: null` is "no limit",
//!   `defaultValue: null` is a default) says so with `#[serde(alias = "\u{0}null")]`
//!   ([`NULL_IS_A_VALUE`], src/wire.rs) and then gets the `null`. Inside arrays, maps and untyped data
//!   `null` is a value, as in JSON.
//! * **Bounded before any work.** One limit family ([`Limits`]): array lengths and object key
//!   counts are checked before the first item is read (a sparse array of length 2^32−1 fails at
//!   once), nesting is counted (a 100,000-deep or cyclic object stops at [`MAX_DEPTH`]), and
//!   so is every value read in one call ([`MAX_VALUES`]: an object that repeats itself as
//!   several children is a tree of exponential size without being deeper).
//! * **Errors say where and what.** The path is collected as the error travels up
//!   (`options` + `.budget` + `.transient`, `messages` + `[3]` + `.role`), so a successful read
//!   formats no path at all. Kinds follow SPEC section 7: a wrong type is a `TypeError`, a value
//!   of the right type out of its range (NaN, ±Infinity, a negative or fractional count, a too
//!   long array) a `RangeError`.
//! * **Out of line.** Every method serde calls here (the `Deserializer`, `MapAccess`, `SeqAccess`
//!   and enum access methods) is `#[inline(never)]`: selfheal is built at opt-level 3, which
//!   otherwise copied them into every derived visitor, once per field of every option and state
//!   type (25 KB gzip, and no row faster; docs/PERFORMANCE.md, "Round 7"). Each is one
//!   instance per visitor type, so what does not need the visitor is not generic: the access
//!   for a struct, map or array (`object_access`, `array_access`), an `Option`'s presence
//!   (`present`), the path step of an error (`at_key`, `Error::push`), and one key deserializer
//!   for declared and own keys (31 KB of the .wasm, 1.5 KB gzip; "Round 8").
//!
//! Values, by what the type asks for:
//!
//! | serde asks for | JS value accepted | refused with |
//! |---|---|---|
//! | `bool` | a boolean | TypeError |
//! | `f64`/`f32` | a finite number (any sign: `check()` decides) | TypeError; RangeError for NaN/±Infinity |
//! | `u8`..`u64`, `i8`..`i64` | a finite whole number in the type's range, at most 2^53−1 | TypeError; RangeError otherwise |
//! | `String`, `char` | a string (lone surrogates arrive as U+FFFD) | TypeError |
//! | `Option<T>` | `undefined`/`null` as `None`, else `T` | as `T` |
//! | a struct | an object, not an array or a function | TypeError |
//! | `Vec<T>`, tuples | an array (`Array.isArray`), `length` ≤ [`MAX_ITEMS`] | TypeError; RangeError for the length |
//! | a map | an object; its own enumerable string keys, at most [`MAX_KEYS`] | TypeError; RangeError for the count |
//! | a unit-variant enum | a string, one of the serde names | TypeError listing the names |
//! | an internally tagged enum (`wire::tagged_enum!`, named [`TAGGED`] + the tag's key) | an object: the tag read first, a string naming the variant, then the variant's fields from the same object | TypeError naming the tag (`options.fallback.mode`) or the member (`options.fallback.queue`) |
//! | anything (`deserialize_any`: untagged enums, `Value`) | JSON-like data read as above | TypeError for BigInt, symbols, functions |
//! | [`JSON_TOKEN`] newtype | any value, as `JSON.stringify` gives it (toJSON, exact numbers) | TypeError |

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use wasm_bindgen::prelude::*;

use super::read;

/// Items of one array.
pub const MAX_ITEMS: u32 = 1_000_000;
/// Own keys of one object read as a map or as a whole.
pub const MAX_KEYS: u32 = 10_000;
/// Containers inside containers, the root's fields at depth 1 (serde_json's default is 128 too).
pub const MAX_DEPTH: u32 = 128;
/// Values read in one call, at every level together.
pub const MAX_VALUES: u32 = 4_000_000;
/// `Number.MAX_SAFE_INTEGER`: whole numbers above it are not exact in JS.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

pub use crate::wire::{any_json, JSON_TOKEN, NULL_IS_A_VALUE, TAGGED};

/// The limits one call is read under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub items: u32,
    pub keys: u32,
    pub depth: u32,
    pub values: u32,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        items: MAX_ITEMS,
        keys: MAX_KEYS,
        depth: MAX_DEPTH,
        values: MAX_VALUES,
    };
}

/// Which keys of a struct are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// Only the declared fields: unknown fields are never read (options, the contract today).
    Declared,
    /// Every own enumerable string key, so `#[serde(deny_unknown_fields)]` can refuse extras;
    /// the values of unknown keys are read too (and dropped), so the whole value must be JSON
    /// data, as `JSON.stringify` would take it: a cyclic or too deep extra is refused. For values
    /// selfheal gave out and takes back (`toJSON()` states).
    All,
}

/// `value` as a `T`, or the `TypeError`/`RangeError` naming the field from `root` on
/// (`options.budget.transient`).
pub fn from_js<T: DeserializeOwned>(value: &JsValue, root: &str) -> Result<T, JsValue> {
    read(value, root).map_err(Into::into)
}

/// [`from_js`] with the error still in Rust, for readers that compose.
pub(crate) fn read<T: DeserializeOwned>(value: &JsValue, root: &str) -> Result<T, read::Bad> {
    read_js(value, root, Limits::DEFAULT, Keys::Declared)
}

/// [`from_js`] with other limits or key rules.
pub fn from_js_with<T: DeserializeOwned>(
    value: &JsValue,
    root: &str,
    limits: Limits,
    keys: Keys,
) -> Result<T, JsValue> {
    read_js(value, root, limits, keys).map_err(Into::into)
}

/// An argument that may be left out (`undefined`/`null`: `T::default()`), read with the default
/// limits; the common case, left out, costs one call into JS.
pub(crate) fn optional<T: DeserializeOwned + Default>(
    value: &JsValue,
    root: &str,
) -> Result<T, read::Bad> {
    if value.is_null_or_undefined() {
        return Ok(T::default());
    }
    read(value, root)
}

/// [`from_js_with`] with the error still in Rust.
pub(crate) fn read_js<T: DeserializeOwned>(
    value: &JsValue,
    root: &str,
    limits: Limits,
    keys: Keys,
) -> Result<T, read::Bad> {
    let ctx = Ctx {
        limits,
        keys,
        values: Cell::new(0),
    };
    T::deserialize(JsDe {
        value: Val::Ref(value),
        depth: 0,
        nullish: None,
        ctx: &ctx,
    })
    .map_err(|e| e.into_bad(root))
}

// ---------------------------------------------------------------- errors

/// A step of the path to the bad field, innermost first in [`Error::path`].
#[derive(Debug, Clone)]
enum Seg {
    Key(Cow<'static, str>),
    Index(u32),
}

/// Why a value could not be read, and where (collected on the way up).
#[derive(Debug)]
pub struct Error {
    message: String,
    range: bool,
    path: Vec<Seg>,
}

impl Error {
    fn type_(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            range: false,
            path: Vec::new(),
        }
    }

    fn range(message: impl Into<String>) -> Error {
        Error {
            range: true,
            ..Error::type_(message)
        }
    }

    fn at(mut self, seg: Seg) -> Error {
        self.push(seg);
        self
    }

    /// `seg` as the next step out: not generic, so the generic readers only call it.
    #[inline(never)]
    fn push(&mut self, seg: Seg) {
        self.path.push(seg);
    }

    fn into_bad(self, root: &str) -> read::Bad {
        let mut field = root.to_string();
        for seg in self.path.iter().rev() {
            match seg {
                Seg::Key(k) if field.is_empty() => field.push_str(k),
                Seg::Key(k) => {
                    field.push('.');
                    field.push_str(k);
                }
                Seg::Index(i) => field.push_str(&format!("[{i}]")),
            }
        }
        read::Bad {
            field,
            message: self.message,
            is_range: self.range,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// `"a", "b" or "c"`: the serde names as the messages have always listed them.
fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match quoted.split_last() {
        None => "nothing".into(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error::type_(msg.to_string())
    }

    fn invalid_type(unexp: de::Unexpected, exp: &dyn de::Expected) -> Error {
        // Derived visitors expect "struct Prompt" or "internally tagged enum FallbackPlan".
        let exp = exp.to_string();
        let exp = if exp.starts_with("struct ") || exp.contains("enum ") {
            "an object"
        } else {
            &exp
        };
        Error::type_(format!("must be {exp}, got {unexp}"))
    }

    fn invalid_value(unexp: de::Unexpected, exp: &dyn de::Expected) -> Error {
        Error::range(format!("must be {exp}, got {unexp}"))
    }

    fn invalid_length(len: usize, exp: &dyn de::Expected) -> Error {
        Error::range(format!("must have {exp}, got {len} items"))
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Error {
        Error::type_(format!("must be {}, got {variant:?}", one_of(expected)))
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Error {
        Error::type_(format!(
            "is not a known field (known: {})",
            one_of(expected)
        ))
        .at(Seg::Key(Cow::Owned(field.to_string())))
    }

    fn missing_field(field: &'static str) -> Error {
        Error::type_("is required").at(Seg::Key(Cow::Borrowed(field)))
    }
}

// ---------------------------------------------------------------- JS imports

#[wasm_bindgen]
extern "C" {
    /// `Object.keys(v)`: runs `ownKeys`/`getOwnPropertyDescriptor` traps, so imported with catch.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn object_keys(v: &JsValue) -> Result<js_sys::Array, JsValue>;
}

// ---------------------------------------------------------------- the deserializer

/// What every level of one call shares.
struct Ctx {
    limits: Limits,
    keys: Keys,
    /// Values read so far, against [`Limits::values`].
    values: Cell<u32>,
}

/// A value read from JS, or the caller's own (the root: no clone, which is a call into the glue).
enum Val<'c> {
    Ref(&'c JsValue),
    Own(JsValue),
}

impl std::ops::Deref for Val<'_> {
    type Target = JsValue;
    fn deref(&self) -> &JsValue {
        match self {
            Val::Ref(v) => v,
            Val::Own(v) => v,
        }
    }
}

/// One JS value at one depth.
struct JsDe<'c> {
    value: Val<'c>,
    depth: u32,
    /// Whether it is `null`/`undefined`, when already known (a struct field that was
    /// present): one call into JS fewer.
    nullish: Option<bool>,
    ctx: &'c Ctx,
}

impl<'c> JsDe<'c> {
    fn child(&self, value: JsValue, nullish: Option<bool>) -> Result<JsDe<'c>, Error> {
        let n = self.ctx.values.get().saturating_add(1);
        if n > self.ctx.limits.values {
            return Err(Error::range(format!(
                "holds more than {} values in all",
                self.ctx.limits.values
            )));
        }
        self.ctx.values.set(n);
        Ok(JsDe {
            value: Val::Own(value),
            depth: self.depth + 1,
            nullish,
            ctx: self.ctx,
        })
    }

    fn wrong_type(&self, expected: &str) -> Error {
        Error::type_(format!(
            "must be {expected}, got {}",
            read::type_name(&self.value)
        ))
    }

    /// A container may be entered: nesting within [`Limits::depth`].
    fn enter(&self) -> Result<(), Error> {
        if self.depth >= self.ctx.limits.depth {
            return Err(Error::type_(format!(
                "is nested deeper than {} levels (or is cyclic)",
                self.ctx.limits.depth
            )));
        }
        Ok(())
    }

    /// A finite number, else the error for `expected`.
    fn finite(&self, expected: &str) -> Result<f64, Error> {
        match self.value.as_f64() {
            Some(n) => finite(n),
            None => Err(self.wrong_type(expected)),
        }
    }

    /// A whole number in `min..=max` (and within 2^53−1 either way).
    fn whole(&self, min: f64, max: f64) -> Result<f64, Error> {
        let n = self.finite("a number")?;
        if n < min {
            return Err(Error::range(format!("must be >= {min}, got {n}")));
        }
        if n.fract() != 0.0 {
            return Err(Error::range(format!("must be a whole number, got {n}")));
        }
        let max = max.min(MAX_SAFE);
        if n > max {
            return Err(Error::range(format!("must be at most {max}, got {n}")));
        }
        Ok(n)
    }

    fn string(&self) -> Result<String, Error> {
        self.value
            .as_string()
            .ok_or_else(|| self.wrong_type("a string"))
    }

    /// An object that is not an array (nor a function), entered one level.
    fn object(&self) -> Result<(), Error> {
        if !self.value.is_object() || read::is_array(&self.value) {
            return Err(self.wrong_type("an object"));
        }
        self.enter()
    }

    /// An array's length, checked before any item is read.
    fn array_len(&self) -> Result<u32, Error> {
        if !read::is_array(&self.value) {
            return Err(self.wrong_type("an array"));
        }
        self.enter()?;
        let len = read::field(&self.value, "length", "")
            .map_err(|bad| Error::type_(bad.message))?
            .as_f64()
            .unwrap_or(0.0);
        let max = self.ctx.limits.items;
        if len.is_nan() || len > f64::from(max) {
            return Err(Error::range(format!(
                "must have at most {max} items, got {}",
                read::js_number(len)
            )));
        }
        Ok(len as u32)
    }

    /// The own enumerable string keys, counted before any is read.
    fn keys(&self) -> Result<js_sys::Array, Error> {
        let keys = object_keys(&self.value)
            .map_err(|e| Error::type_(format!("could not be read: {}", thrown(&e))))?;
        let max = self.ctx.limits.keys;
        if keys.length() > max {
            return Err(Error::range(format!(
                "must have at most {max} keys, got {}",
                keys.length()
            )));
        }
        Ok(keys)
    }

    fn map<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_map(self.object_access(None)?)
    }

    fn seq<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(self.array_access()?)
    }

    /// The access to an object's members: a struct's declared `fields`, or (for a map, and for
    /// a struct under [`Keys::All`]) its own keys. Not generic, as everything here that does
    /// not need the visitor: one copy, where the generic callers were one per type.
    #[inline(never)]
    fn object_access(
        self,
        fields: Option<&'static [&'static str]>,
    ) -> Result<ObjectAccess<'c>, Error> {
        self.object()?;
        let source = match fields {
            Some(fields) if self.ctx.keys != Keys::All => Source::Declared(fields.iter()),
            _ => Source::Own {
                keys: self.keys()?,
                next: 0,
            },
        };
        Ok(ObjectAccess {
            source,
            key: None,
            current: None,
            de: self,
        })
    }

    /// The access to an array's items (not generic, as [`JsDe::object_access`]).
    #[inline(never)]
    fn array_access(self) -> Result<ArrayAccess<'c>, Error> {
        let len = self.array_len()?;
        Ok(ArrayAccess {
            de: self,
            indices: 0..len,
        })
    }

    /// `self`, unless it is `undefined` or `null` (then dropped): an `Option`'s value.
    #[inline(never)]
    fn present(self) -> Option<JsDe<'c>> {
        let none = self
            .nullish
            .unwrap_or_else(|| self.value.is_null_or_undefined());
        (!none).then_some(self)
    }

    /// The value as JSON text, read by serde_json (see [`JSON_TOKEN`]).
    fn json(&self) -> Result<serde_json::Value, Error> {
        let text = read::json_text(&self.value, "").map_err(|bad| Error::type_(bad.message))?;
        selfheal_hot::parse_value(&text)
            .map_err(|e| Error::type_(format!("is not usable JSON: {e}")))
    }
}

/// `n`, unless it is NaN or ±Infinity.
fn finite(n: f64) -> Result<f64, Error> {
    match n.is_finite() {
        true => Ok(n),
        false => Err(Error::range(format!(
            "must be a finite number, got {}",
            read::js_number(n)
        ))),
    }
}

/// What a JS throw says, for an error message.
fn thrown(e: &JsValue) -> String {
    read::get(e, "message")
        .as_string()
        .unwrap_or_else(|| "it threw".into())
}

/// `obj[key]` of an object already checked to be one, catching; a throw is an error at `key`.
fn read_field(obj: &JsValue, key: &'static str) -> Result<JsValue, Error> {
    read::own_field(obj, key).map_err(|e| {
        Error::type_(format!("could not be read: {}", read::describe_thrown(&e))).at(key_seg(key))
    })
}

fn key_seg(key: &'static str) -> Seg {
    Seg::Key(Cow::Borrowed(key))
}

macro_rules! whole_number {
    ($($method:ident $visit:ident $t:ty, $min:expr;)*) => {$(
        #[inline(never)]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            let n = self.whole($min, <$t>::MAX as f64)?;
            visitor.$visit(n as $t)
        }
    )*};
}

/// Methods that read as another one does (extra arguments ignored).
macro_rules! forward {
    ($($($method:ident $(($($arg:ident: $t:ty),*))?)* => $to:ident;)*) => {$($(
        #[inline(never)]
        fn $method<V: Visitor<'de>>(self, $($($arg: $t,)*)? visitor: V) -> Result<V::Value, Error> {
            self.$to(visitor)
        }
    )*)*};
}

impl<'de> de::Deserializer<'de> for JsDe<'_> {
    type Error = Error;

    /// JSON-like data, for what serde reads without a type (tagged and untagged enums).
    #[inline(never)]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Most likely first: each probe is a call into JS.
        let v = &self.value;
        if let Some(s) = v.as_string() {
            return visitor.visit_string(s);
        }
        if let Some(n) = v.as_f64() {
            let n = finite(n)?;
            return if n.fract() == 0.0 && n.abs() <= MAX_SAFE {
                if n >= 0.0 {
                    visitor.visit_u64(n as u64)
                } else {
                    visitor.visit_i64(n as i64)
                }
            } else {
                visitor.visit_f64(n)
            };
        }
        if let Some(b) = v.as_bool() {
            return visitor.visit_bool(b);
        }
        if v.is_null_or_undefined() {
            return visitor.visit_unit();
        }
        if v.is_object() {
            return if read::is_array(v) {
                self.seq(visitor)
            } else {
                self.map(visitor)
            };
        }
        Err(self.wrong_type("JSON data"))
    }

    #[inline(never)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value.as_bool() {
            Some(b) => visitor.visit_bool(b),
            None => Err(self.wrong_type("a boolean")),
        }
    }

    whole_number! {
        deserialize_u8 visit_u8 u8, 0.0;
        deserialize_u16 visit_u16 u16, 0.0;
        deserialize_u32 visit_u32 u32, 0.0;
        deserialize_u64 visit_u64 u64, 0.0;
        deserialize_i8 visit_i8 i8, f64::from(i8::MIN);
        deserialize_i16 visit_i16 i16, f64::from(i16::MIN);
        deserialize_i32 visit_i32 i32, f64::from(i32::MIN);
        deserialize_i64 visit_i64 i64, -MAX_SAFE;
    }

    #[inline(never)]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_f32(self.finite("a number")? as f32)
    }

    #[inline(never)]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_f64(self.finite("a number")?)
    }

    #[inline(never)]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.string()?)
    }

    #[inline(never)]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.present() {
            Some(de) => visitor.visit_some(de),
            None => visitor.visit_none(),
        }
    }

    #[inline(never)]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.value.is_null_or_undefined() {
            visitor.visit_unit()
        } else {
            Err(self.wrong_type("null"))
        }
    }

    #[inline(never)]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == JSON_TOKEN {
            return visitor
                .visit_newtype_struct(self.json()?)
                .map_err(|e| Error::type_(format!("is not usable JSON: {e}")));
        }
        visitor.visit_newtype_struct(self)
    }

    #[inline(never)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_map(self.object_access(Some(fields))?)
    }

    #[inline(never)]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // An internally tagged enum (`wire::tagged_enum!`): the tag read first, then the
        // variant's fields from the same object.
        if let Some(tag) = name.strip_prefix(TAGGED) {
            self.object()?;
            let value = read_field(&self.value, tag)?;
            let variant = match value.as_string() {
                Some(variant) => variant,
                None if value.is_undefined() => return Err(de::Error::missing_field(tag)),
                None => {
                    let got = read::type_name(&value);
                    return Err(
                        Error::type_(format!("must be a string, got {got}")).at(key_seg(tag))
                    );
                }
            };
            return visitor.visit_enum(Tagged {
                variant,
                tag,
                de: self,
            });
        }
        // Unit variants only: serde's string deserializer refuses a variant that carries data.
        visitor.visit_enum(self.string()?.into_deserializer())
    }

    forward! {
        deserialize_char deserialize_str deserialize_identifier => deserialize_string;
        deserialize_unit_struct(_name: &'static str) => deserialize_unit;
        deserialize_seq deserialize_tuple(_len: usize) => seq;
        deserialize_tuple_struct(_name: &'static str, _len: usize) => seq;
        deserialize_map => map;
    }

    // Nothing selfheal reads is bytes: refused as any other value of the wrong type.
    serde::forward_to_deserialize_any! { bytes byte_buf }

    /// Ignored values are not read at all, except under [`Keys::All`], where the whole value
    /// must be JSON data: they are read as such, and dropped.
    #[inline(never)]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.ctx.keys {
            Keys::All => self.deserialize_any(visitor),
            Keys::Declared => visitor.visit_unit(),
        }
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

// ---------------------------------------------------------------- internally tagged enums

/// An internally tagged enum's object: its tag's value names the variant, its other fields are
/// the variant's.
struct Tagged<'c> {
    variant: String,
    tag: &'static str,
    de: JsDe<'c>,
}

impl<'de, 'c> de::EnumAccess<'de> for Tagged<'c> {
    type Error = Error;
    type Variant = TaggedVariant<'c>;

    #[inline(never)]
    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, TaggedVariant<'c>), Error> {
        let mut variant: Result<_, Error> = seed.deserialize(self.variant.into_deserializer());
        if let Err(e) = &mut variant {
            e.push(key_seg(self.tag));
        }
        Ok((variant?, TaggedVariant(self.de)))
    }
}

/// The variant's data: the same object, read as the variant's struct.
struct TaggedVariant<'c>(JsDe<'c>);

impl<'de> de::VariantAccess<'de> for TaggedVariant<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    #[inline(never)]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self.0)
    }

    #[inline(never)]
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Error> {
        Err(Error::type_(
            "an internally tagged variant cannot be a tuple",
        ))
    }

    #[inline(never)]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(self.0, "", fields, visitor)
    }
}

// ---------------------------------------------------------------- structs, maps, arrays

/// Where an [`ObjectAccess`] takes its keys from.
enum Source {
    /// A struct's declared fields, read one by one; `undefined` and `null` ones are left out
    /// (absent) unless marked [`NULL_IS_A_VALUE`].
    Declared(std::slice::Iter<'static, &'static str>),
    /// An object's own enumerable string keys (a map, a struct under [`Keys::All`], or data
    /// read by `deserialize_any`), from `Object.keys`; `undefined` values are left out, as
    /// `JSON.stringify` does.
    Own { keys: js_sys::Array, next: u32 },
}

/// An object read as a struct or a map: a key, then its value.
struct ObjectAccess<'c> {
    source: Source,
    /// The key just read: its path step, kept until the next key for an error in its value.
    key: Option<Seg>,
    /// The value of `key` until it is read, and whether that is known to be nullish.
    current: Option<(JsValue, Option<bool>)>,
    de: JsDe<'c>,
}

impl<'c> ObjectAccess<'c> {
    /// Moves to the next key, keeping it and its value in `current`; false at the end. Not
    /// generic: one copy for every struct and map, only the key's `seed` differs per type.
    fn advance(&mut self) -> Result<bool, Error> {
        let obj = &self.de.value;
        match &mut self.source {
            Source::Declared(fields) => {
                let mut keeps_null = false;
                for &key in fields.by_ref() {
                    if key.starts_with(NULL_IS_A_VALUE) {
                        keeps_null = true;
                        continue;
                    }
                    let value = read_field(obj, key)?;
                    let known = match (
                        value.is_null_or_undefined(),
                        std::mem::take(&mut keeps_null),
                    ) {
                        (false, _) => Some(false),
                        (true, true) if !value.is_undefined() => Some(true),
                        (true, _) => continue,
                    };
                    self.key = Some(key_seg(key));
                    self.current = Some((value, known));
                    return Ok(true);
                }
            }
            Source::Own { keys, next } => {
                while *next < keys.length() {
                    // Our own array of strings from Object.keys: reading it runs no user code.
                    // The key is used as that JS string (user keys stay out of `read`'s
                    // interned names).
                    let key_js = keys.get(*next);
                    *next += 1;
                    let key = key_js.as_string().unwrap_or_default();
                    let value = js_sys::Reflect::get(obj, &key_js).map_err(|e| {
                        Error::type_(format!("could not be read: {}", thrown(&e)))
                            .at(Seg::Key(Cow::Owned(key.clone())))
                    })?;
                    if value.is_undefined() {
                        continue;
                    }
                    self.key = Some(Seg::Key(Cow::Owned(key)));
                    self.current = Some((value, None));
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// The value of the key just handed out, as a deserializer one level down.
    fn value(&mut self) -> Result<JsDe<'c>, Error> {
        let Some((value, nullish)) = self.current.take() else {
            return Err(Error::type_("a value was read before its key"));
        };
        self.de.child(value, nullish).map_err(|mut e| {
            self.at_key(&mut e);
            e
        })
    }

    /// An error in the value of the key just handed out: that key is its path step. Not
    /// generic, and the error changed in place: every `next_value_seed` only calls it.
    #[inline(never)]
    fn at_key(&mut self, e: &mut Error) {
        if let Some(key) = self.key.take() {
            e.path.push(key);
        }
    }
}

impl<'de> MapAccess<'de> for ObjectAccess<'_> {
    type Error = Error;

    #[inline(never)]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if !self.advance()? {
            return Ok(None);
        }
        // The key `advance` kept, without a copy. One deserializer for declared names and
        // own keys alike (a `&str` one: nothing read here borrows), so the key's visitor (a
        // derived struct's field match) is inlined here once, not once per kind of key.
        let Some(Seg::Key(key)) = &self.key else {
            return Err(Error::type_("a key was read without its value"));
        };
        let key: &str = key;
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    #[inline(never)]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let mut value = seed.deserialize(self.value()?);
        if let Err(e) = &mut value {
            self.at_key(e);
        }
        value
    }

    fn size_hint(&self) -> Option<usize> {
        match &self.source {
            Source::Declared(_) => None,
            Source::Own { keys, next } => Some(keys.length().saturating_sub(*next) as usize),
        }
    }
}

/// An array's items by index, each read with the catching `Reflect.get`.
struct ArrayAccess<'c> {
    de: JsDe<'c>,
    /// The indices not read yet.
    indices: std::ops::Range<u32>,
}

impl<'c> ArrayAccess<'c> {
    /// The next item as a deserializer one level down, and its index (not generic, as
    /// [`ObjectAccess::advance`]).
    fn advance(&mut self) -> Result<Option<(JsDe<'c>, u32)>, Error> {
        let Some(i) = self.indices.next() else {
            return Ok(None);
        };
        let at = |e: Error| e.at(Seg::Index(i));
        let item = js_sys::Reflect::get_u32(&self.de.value, i)
            .map_err(|_| at(Error::type_("could not be read")))?;
        Ok(Some((self.de.child(item, None).map_err(at)?, i)))
    }
}

impl<'de> SeqAccess<'de> for ArrayAccess<'_> {
    type Error = Error;

    #[inline(never)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some((child, i)) = self.advance()? else {
            return Ok(None);
        };
        let mut item = seed.deserialize(child);
        if let Err(e) = &mut item {
            e.push(Seg::Index(i));
        }
        item.map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        // Capped: the length is the caller's claim, memory is reserved from it.
        Some(self.indices.len().min(1024))
    }
}

//! Opt-in coercion (`coerce: true`, SPEC section 9): a parsed value aligned with its schema
//! where the intent is plain, each kind named in `fixes`. It only ever runs on a value that
//! failed the schema, and only touches a place whose value does not fit what the schema says
//! there. No coercion loses information:
//!
//! * number text where a number is expected: `"42"`, `"-1.5e3"`, `"12,111"` (thousands
//!   separators in groups of three; `"3,14"` is refused: a European decimal or a list?), and
//!   fractions whose decimal is exact (`"1/4"` -> 0.25; `"1/3"` is refused). Where an integer
//!   is expected the number must be whole. Units, currency and percent signs are refused:
//!   dropping them would change the meaning. Only where the double read is the number
//!   written, since every consumer of the package reads a double: at most 15 significant
//!   digits, integers included (`"1234567890123456789"`, 1234567890123456800 as a double, is
//!   refused), read as a normal double;
//! * `"true"`/`"false"` in any case where a boolean is expected;
//! * a string that is an `enum`/`const` value in another case or with other separators
//!   (`"one"` -> `"ONE"`, `"Contract to hire"` -> `"CONTRACT_TO_HIRE"`), or one followed by
//!   trailing text that does not continue it (`"ONE: the first"` -> `"ONE"`; `"en-GB"` is not
//!   `"en"`) when no other allowed value is named in that text (`enums.rs`);
//! * a JSON object or array written as a string where one is expected;
//! * a single value wrapped in the array expected there (then aligned as its item);
//! * a value wrapped in the object expected there when that object declares exactly one
//!   property;
//! * `null` for a required property that is absent and whose schema allows `null` (the
//!   optional-as-nullable fields of OpenAI strict mode, Pydantic `Optional[...]`, Zod
//!   `.nullable()`).
//!
//! The shapes are those BAML's schema-aligned parser documents (`engine/baml-lib/jsonish`),
//! kept to the lossless ones.
//!
//! Coercion is bounded like validation (DESIGN, "Schema-aligned parsing"). A value too large to
//! be validated (the schema's work limit) is not coerced: coercion only adds values, so it
//! could not be validated either. One parse looks at no more than [`MAX_COERCION_WORK`] views
//! (each place's views, and what finding them cost), and one value gains no more than
//! [`MAX_ADDED_VALUES`] values. When either is spent, coercion stops and the value is left as
//! it was: the report is that of the reply as written.

mod enums;

use fnv::FnvHashMap;
use serde_json::{Map, Value};

use self::enums::EnumIndex;
use super::fix::{Fix, FixList};
use super::repair::PathSeg;
use super::schema::{count_values, CompiledSchema, MAX_VALIDATION_WORK};
use super::subschema::{Anchors, Views};

/// How deep coercion follows a value (serde_json's own parse limit).
const MAX_DEPTH: usize = 128;
/// The views one parse's coercion may look at, counted as validation's work is (values x
/// subschemas): 1.9 million items against 60 `anyOf` branches took 25 s without a bound.
pub(crate) const MAX_COERCION_WORK: usize = MAX_VALIDATION_WORK;
/// The values one coercion may add (`null`s, wrapping arrays and objects, the values of JSON
/// read from a string): 1.3 million `{}` with 30 absent nullable fields trapped at 4 GB.
pub(crate) const MAX_ADDED_VALUES: usize = 100_000;

/// Coercion against one schema for one parse, which may try many candidates: each `enum` or
/// `const` list met is indexed once (`enums.rs`), not read again for every value.
pub(crate) struct Coercer<'s> {
    schema: &'s CompiledSchema,
    /// The lists indexed so far, and where each is by its address in the schema document.
    enums: Vec<EnumIndex<'s>>,
    by_address: FnvHashMap<usize, usize>,
    /// What is left of [`MAX_COERCION_WORK`] for this parse.
    work_left: usize,
    anchors: Anchors<'s>,
}

/// One value's coercion: the coercions made, the values added, and whether a budget ran out.
#[derive(Default)]
struct Pass {
    fixes: FixList,
    added: usize,
    stopped: bool,
}

impl Pass {
    /// Counts `n` more values added; false (and stopped) past [`MAX_ADDED_VALUES`].
    fn add(&mut self, n: usize) -> bool {
        self.added = self.added.saturating_add(n);
        self.stopped |= self.added > MAX_ADDED_VALUES;
        !self.stopped
    }
}

impl<'s> Coercer<'s> {
    pub(crate) fn new(schema: &'s CompiledSchema) -> Coercer<'s> {
        Coercer {
            schema,
            enums: Vec::new(),
            by_address: FnvHashMap::default(),
            work_left: MAX_COERCION_WORK,
            anchors: Anchors::default(),
        }
    }

    pub(crate) fn schema(&self) -> &'s CompiledSchema {
        self.schema
    }

    /// The index of `allowed` (see `enums.rs`), built the first time the list is met.
    fn index(&mut self, allowed: &'s [Value]) -> Option<&EnumIndex<'s>> {
        // A list is its own place in the schema document (an `enum` array's items, or a `const`
        // value), so its address tells it from the others (empty lists share one, and agree).
        let address = allowed.as_ptr() as usize;
        let at = match self.by_address.get(&address) {
            Some(&at) => at,
            None => {
                self.enums.push(EnumIndex::new(allowed));
                let at = self.enums.len() - 1;
                self.by_address.insert(address, at);
                at
            }
        };
        self.enums.get(at)
    }

    /// Whether `null` is allowed where `views` apply (`type` with `"null"`, or `enum`/`const`).
    fn accepts_null(&mut self, views: &Views<'s>) -> bool {
        views.types().contains(&"null")
            || views
                .allowed_values()
                .and_then(|allowed| self.index(allowed))
                .is_some_and(|index| index.has_null)
    }

    /// The value aligned with the schema, and the coercions made; `None` when nothing changed,
    /// a budget ran out, or the value is above the validation work limit (see the module doc).
    /// The value is changed in place: a caller that needs it as written keeps a copy.
    pub(crate) fn coerce(&mut self, value: Value) -> Option<(Value, FixList)> {
        if !self.schema.within_work_limit(&value) {
            return None;
        }
        let mut pass = Pass::default();
        let views = Views::root(self.schema.doc(), &mut self.anchors);
        if !self.spend(&views, &mut pass) {
            return None;
        }
        let out = self.align(value, &views, &mut pass, 0);
        let changed = pass.fixes.iter().next().is_some();
        (changed && !pass.stopped).then_some((out, pass.fixes))
    }

    /// Charges finding `views` to this parse's work; false (and `pass` stopped) when spent.
    fn spend(&mut self, views: &Views<'s>, pass: &mut Pass) -> bool {
        match self.work_left.checked_sub(views.cost().saturating_add(1)) {
            Some(left) => self.work_left = left,
            None => {
                self.work_left = 0;
                pass.stopped = true;
            }
        }
        !pass.stopped
    }

    /// The views one step down, charged; `None` once a budget has run out.
    fn child(&mut self, views: &Views<'s>, seg: &PathSeg, pass: &mut Pass) -> Option<Views<'s>> {
        if pass.stopped {
            return None;
        }
        let child = views.child(seg, &mut self.anchors);
        self.spend(&child, pass).then_some(child)
    }

    fn align(&mut self, value: Value, views: &Views<'s>, pass: &mut Pass, depth: usize) -> Value {
        if depth > MAX_DEPTH || pass.stopped {
            return value;
        }
        let value = match (value, views.allowed_values()) {
            (Value::String(text), Some(allowed)) => {
                match self.index(allowed).and_then(|index| index.named(&text)) {
                    Some(found) => {
                        pass.fixes.add(Fix::CoerceEnum);
                        Value::String(found.to_owned())
                    }
                    None => Value::String(text),
                }
            }
            (value, _) => value,
        };
        let types = views.types();
        let value = if types.is_empty() || types.iter().any(|t| is_type(t, &value)) {
            value
        } else {
            convert(value, &types, views, pass)
        };
        match value {
            Value::Object(mut members) => {
                for (key, v) in members.iter_mut() {
                    let Some(child) = self.child(views, &PathSeg::Key(key.clone()), pass) else {
                        break;
                    };
                    *v = self.align(std::mem::take(v), &child, pass, depth + 1);
                }
                // A name repeated by several views is looked at again, unless now present.
                for name in views.required() {
                    if members.contains_key(name) {
                        continue;
                    }
                    let Some(child) = self.child(views, &PathSeg::Key(name.to_string()), pass)
                    else {
                        break;
                    };
                    if self.accepts_null(&child) && pass.add(1) {
                        members.insert(name.to_string(), Value::Null);
                        pass.fixes.add(Fix::CoerceNull);
                    }
                }
                Value::Object(members)
            }
            Value::Array(mut items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    let Some(child) = self.child(views, &PathSeg::Index(i), pass) else {
                        break;
                    };
                    *v = self.align(std::mem::take(v), &child, pass, depth + 1);
                }
                Value::Array(items)
            }
            other => other,
        }
    }
}

/// A value whose JSON type the schema does not allow here, turned into one it does.
fn convert(value: Value, types: &[&str], views: &Views<'_>, pass: &mut Pass) -> Value {
    if let Value::String(text) = &value {
        let wants = |t: &str| types.contains(&t);
        if wants("integer") || wants("number") {
            if let Some(n) = number_from_text(text, !wants("number")) {
                pass.fixes.add(Fix::CoerceNumber);
                return n;
            }
        }
        if wants("boolean") {
            let t = text.trim();
            for (word, b) in [("true", true), ("false", false)] {
                if t.eq_ignore_ascii_case(word) {
                    pass.fixes.add(Fix::CoerceBoolean);
                    return Value::Bool(b);
                }
            }
        }
        if wants("object") || wants("array") {
            if let Ok(inner) = selfheal_hot::parse_value(text.trim()) {
                if (inner.is_object() && wants("object")) || (inner.is_array() && wants("array")) {
                    // The values read, less the string they replace.
                    if !pass.add(count_values(&inner, MAX_ADDED_VALUES.saturating_add(2)) - 1) {
                        return value;
                    }
                    pass.fixes.add(Fix::StringEncodedJson);
                    return inner;
                }
            }
        }
    }
    if types.contains(&"array") && !value.is_array() && pass.add(1) {
        pass.fixes.add(Fix::CoerceArray);
        return Value::Array(vec![value]);
    }
    if types.contains(&"object") && !value.is_object() {
        if let Some(only) = views.only_property().filter(|_| pass.add(1)) {
            pass.fixes.add(Fix::CoerceObject);
            let mut one = Map::new();
            one.insert(only.to_string(), value);
            return Value::Object(one);
        }
    }
    value
}

/// Whether `value` is of the JSON Schema type `name`.
fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value
                    .as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// The number `text` writes, if it writes one exactly (see the module doc).
pub(crate) fn number_from_text(text: &str, whole_only: bool) -> Option<Value> {
    let t = text.trim();
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => ("-", t.get(1..)?),
        Some(b'+') => ("", t.get(1..)?),
        _ => ("", t),
    };
    if let Some((num, den)) = body.split_once('/') {
        return fraction(sign, num.trim(), den.trim(), whole_only);
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (body.get(..at)?, Some(body.get(at + 1..)?)),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = grouped_digits(int)?;
    if !frac.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut normal = format!("{sign}{}", digits.trim_start_matches('0'));
    if normal.len() == sign.len() {
        normal.push('0');
    }
    let frac = frac.trim_end_matches('0');
    if !frac.is_empty() {
        if whole_only {
            return None;
        }
        normal.push('.');
        normal.push_str(frac);
    }
    if let Some(exp) = exponent {
        let e = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if e.is_empty() || !e.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        normal.push('e');
        normal.push_str(exp);
    }
    exact_number(&normal, whole_only)
}

/// `1,234,567` -> `1234567`; plain digits as they are; anything else `None`.
fn grouped_digits(int: &str) -> Option<String> {
    if int.is_empty() || !int.bytes().all(|c| c.is_ascii_digit() || c == b',') {
        return None;
    }
    let groups: Vec<&str> = int.split(',').collect();
    let ok = match groups.as_slice() {
        [_] => true,
        [first, rest @ ..] => (1..=3).contains(&first.len()) && rest.iter().all(|g| g.len() == 3),
        [] => false,
    };
    ok.then(|| groups.concat())
}

/// `num/den` as an exact decimal, when its decimal expansion ends.
fn fraction(sign: &str, num: &str, den: &str, whole_only: bool) -> Option<Value> {
    let num: u64 = grouped_digits(num)?.parse().ok()?;
    let den: u64 = grouped_digits(den)?.parse().ok()?;
    if den == 0 {
        return None;
    }
    let g = gcd(num, den);
    let (num, mut den) = (u128::from(num / g), den / g);
    let (mut twos, mut fives) = (0u32, 0u32);
    while den % 2 == 0 {
        den /= 2;
        twos += 1;
    }
    while den % 5 == 0 {
        den /= 5;
        fives += 1;
    }
    if den != 1 {
        return None;
    }
    let places = twos.max(fives);
    if whole_only && places > 0 {
        return None;
    }
    // num / (2^twos 5^fives) = num * 2^(places-twos) * 5^(places-fives) / 10^places.
    let scaled = num
        .checked_mul(2u128.checked_pow(places - twos)?)?
        .checked_mul(5u128.checked_pow(places - fives)?)?;
    let digits = scaled.to_string();
    let places = places as usize;
    let text = if places == 0 {
        format!("{sign}{digits}")
    } else {
        let padded = format!("{digits:0>width$}", width = places + 1);
        let (int, frac) = padded.split_at(padded.len() - places);
        format!("{sign}{int}.{frac}")
    };
    exact_number(&text, whole_only)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// The JSON number `text` when the double it reads as (what a JS consumer of the value gets,
/// integers included) is the number written: at most 15 significant digits (those a double
/// always keeps, or a safe integer), read as a normal double, or as 0 when written 0. `"1234567890123456789"`
/// reads as 1234567890123456800, `"1.23456789012345e-320"` (subnormal) as 1.2347e-320,
/// `"1e-400"` as 0: refused.
fn exact_number(text: &str, whole_only: bool) -> Option<Value> {
    let value: Value = selfheal_hot::parse_value(text).ok()?;
    // A safe integer is a double as it is written, whatever its number of digits.
    if value.as_i64().is_some_and(|n| n.unsigned_abs() <= 1 << 53) {
        return Some(value);
    }
    let f = value.as_f64()?;
    if !f.is_finite() || (whole_only && f.fract() != 0.0) {
        return None;
    }
    let significant = text
        .split(['e', 'E'])
        .next()
        .unwrap_or(text)
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&c| c == b'0')
        .count();
    let lost = !f.is_normal() && significant > 0;
    (significant <= 15 && !lost).then_some(value)
}

#[cfg(all(test, feature = "validate"))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_above_the_validation_work_limit_is_not_coerced() {
        // Outside review, finding 3: 1.9 million items against 8 `anyOf` branches, refused by
        // the validation work limit, were still coerced (3.4 s) to fail validation again.
        let branch = json!({"type": "object", "properties": {"kind": {"const": "a"}}});
        let schema = json!({"type": "array", "items": {"anyOf": vec![branch; 8]}});
        let schema = CompiledSchema::from_value(schema).unwrap();
        let most = MAX_VALIDATION_WORK / schema.evaluations_per_value();
        let mut coercer = Coercer::new(&schema);
        let over = json!(vec![1; most]);
        assert!(!schema.within_work_limit(&over));
        assert!(coercer.coerce(over).is_none());
        assert_eq!(coercer.work_left, MAX_COERCION_WORK, "nothing looked at");
        // A smaller one is coerced (each 1 wrapped as `{"kind": 1}`).
        let within = json!(vec![1; 1000]);
        assert!(coercer.coerce(within).is_some());
        assert!(coercer.work_left < MAX_COERCION_WORK);
    }
}

//! The keywords a stream settles, each judged only where the answer is
//! certain, and the messages it reports (worded as `jsonschema` words them).
//!
//! Numbers are compared without rounding when both are integers, and
//! otherwise only where `f64` rounding cannot change the answer; an integral
//! float such as `1.0` is never reported as "not an integer" (it is one
//! since draft 6; draft 4 disagrees, and the final parse says so).

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};

use serde_json::{Number, Value};

use super::check::Names;
use super::reader::Container;
use super::subschema::{
    Node, StreamSchema, TYPE_ARRAY, TYPE_BOOLEAN, TYPE_INTEGER, TYPE_NULL, TYPE_NUMBER,
    TYPE_OBJECT, TYPE_STRING,
};

/// Values quoted in messages are cut to this many characters.
const QUOTE_CHARS: usize = 60;

/// A keyword that failed, and what to say.
pub(super) type Failed = (&'static str, String);

/// A keyword of one subschema that refused a scalar, and what its message needs: worded only
/// when the failure is reported ([`Refusal::message`]), since most are not (a member of an
/// `anyOf` that another member accepts, a branch already dead, a violation already found).
#[derive(Debug, Clone, Copy)]
pub(super) enum Refusal<'n> {
    FalseSchema,
    Type(u8),
    Enum(&'n [Value]),
    Const(&'n Value),
    MinLength(u64),
    MaxLength(u64),
    /// Index into [`StreamSchema::lazy`].
    Pattern(usize),
    Minimum(&'n Number),
    Maximum(&'n Number),
    ExclusiveMinimum(&'n Number),
    ExclusiveMaximum(&'n Number),
    /// Index into [`StreamSchema::lazy`].
    MultipleOf(usize),
}

impl Refusal<'_> {
    pub(super) fn keyword(self) -> &'static str {
        match self {
            Refusal::FalseSchema => "falseSchema",
            Refusal::Type(_) => "type",
            Refusal::Enum(_) => "enum",
            Refusal::Const(_) => "const",
            Refusal::MinLength(_) => "minLength",
            Refusal::MaxLength(_) => "maxLength",
            Refusal::Pattern(_) => "pattern",
            Refusal::Minimum(_) => "minimum",
            Refusal::Maximum(_) => "maximum",
            Refusal::ExclusiveMinimum(_) => "exclusiveMinimum",
            Refusal::ExclusiveMaximum(_) => "exclusiveMaximum",
            Refusal::MultipleOf(_) => "multipleOf",
        }
    }

    /// What to say about `value`, the scalar refused.
    pub(super) fn message(self, schema: &StreamSchema, value: &Value) -> String {
        let shown = quote_value(value);
        // A number refused by a bound, as its own `Display` writes it.
        let n = match value {
            Value::Number(n) => n.to_string(),
            _ => String::new(),
        };
        match self {
            Refusal::FalseSchema => format!("False schema does not allow {shown}"),
            Refusal::Type(types) => format!("{shown} is not of {}", types_text(types)),
            Refusal::Enum(options) => format!("{shown} is not one of {}", quote_list(options)),
            Refusal::Const(constant) => format!("{} was expected", quote_value(constant)),
            Refusal::MinLength(min) => format!("{shown} is shorter than {min} characters"),
            Refusal::MaxLength(max) => format!("{shown} is longer than {max} characters"),
            Refusal::Pattern(index) => {
                let pattern = clip(&schema.lazy_argument(index), QUOTE_CHARS);
                format!("{shown} does not match {pattern}")
            }
            Refusal::Minimum(m) => format!("{n} is less than the minimum of {m}"),
            Refusal::Maximum(m) => format!("{n} is greater than the maximum of {m}"),
            Refusal::ExclusiveMinimum(m) => {
                format!("{n} is less than or equal to the minimum of {m}")
            }
            Refusal::ExclusiveMaximum(m) => {
                format!("{n} is greater than or equal to the maximum of {m}")
            }
            Refusal::MultipleOf(index) => {
                format!("{n} is not a multiple of {}", schema.lazy_argument(index))
            }
        }
    }
}

/// The first of the node's own keywords that refuses a complete string, number, boolean or
/// null.
pub(super) fn scalar_refusal<'n>(
    schema: &StreamSchema,
    node: &'n Node,
    value: &Value,
) -> Option<Refusal<'n>> {
    if node.is_false {
        return Some(Refusal::FalseSchema);
    }
    if node.types != 0 && type_mismatch(node.types, value) {
        return Some(Refusal::Type(node.types));
    }
    if let Some(options) = &node.enumeration {
        if options.excludes(value) {
            return Some(Refusal::Enum(options.values()));
        }
    }
    if let Some(constant) = &node.constant {
        if equal(value, constant) == Some(false) {
            return Some(Refusal::Const(constant));
        }
    }
    match value {
        Value::String(s) => string_refusal(schema, node, s, value),
        Value::Number(n) => number_refusal(schema, node, n, value),
        _ => None,
    }
}

fn string_refusal<'n>(
    schema: &StreamSchema,
    node: &'n Node,
    s: &str,
    value: &Value,
) -> Option<Refusal<'n>> {
    if node.length.is_set() {
        let chars = s.chars().count() as u64;
        if let Some(min) = node.length.min.filter(|&m| chars < m) {
            return Some(Refusal::MinLength(min));
        }
        if let Some(max) = node.length.max.filter(|&m| chars > m) {
            return Some(Refusal::MaxLength(max));
        }
    }
    lazy_refuses(schema, node.pattern, value).map(Refusal::Pattern)
}

fn number_refusal<'n>(
    schema: &StreamSchema,
    node: &'n Node,
    n: &Number,
    value: &Value,
) -> Option<Refusal<'n>> {
    if let Some(m) = &node.minimum {
        if compare(n, m) == Some(Ordering::Less) {
            return Some(Refusal::Minimum(m));
        }
    }
    if let Some(m) = &node.maximum {
        if compare(n, m) == Some(Ordering::Greater) {
            return Some(Refusal::Maximum(m));
        }
    }
    if let Some(m) = &node.exclusive_minimum {
        if matches!(compare(n, m), Some(Ordering::Less | Ordering::Equal)) {
            return Some(Refusal::ExclusiveMinimum(m));
        }
    }
    if let Some(m) = &node.exclusive_maximum {
        if matches!(compare(n, m), Some(Ordering::Greater | Ordering::Equal)) {
            return Some(Refusal::ExclusiveMaximum(m));
        }
    }
    lazy_refuses(schema, node.multiple_of, value).map(Refusal::MultipleOf)
}

/// The lazily compiled keyword `index` (`pattern`, `multipleOf`) when it refuses `value`.
fn lazy_refuses(schema: &StreamSchema, index: Option<usize>, value: &Value) -> Option<usize> {
    let index = index?;
    (schema.lazy_valid(index, value) == Some(false)).then_some(index)
}

/// What a closed container's close-time checks look at: an object's
/// distinct member names (kept only when needed), an array's length.
pub(super) enum Closed<'a> {
    /// The names from an index on.
    Few(&'a Names, usize),
    Many(&'a HashSet<String>),
    Array(usize),
}

impl Closed<'_> {
    fn has(&self, key: &str) -> bool {
        match self {
            Closed::Few(names, start) => names.from(*start).any(|n| n == key),
            Closed::Many(set) => set.contains(key),
            Closed::Array(_) => false,
        }
    }

    fn members(&self) -> usize {
        match self {
            Closed::Few(names, start) => names.from(*start).count(),
            Closed::Many(set) => set.len(),
            Closed::Array(_) => 0,
        }
    }
}

/// A closed object or array against `required`, `minProperties`, `minItems`.
/// (`enum`/`const` of a container are left to the final parse: no value tree
/// is kept while streaming.)
pub(super) fn closed_container(node: &Node, closed: &Closed) -> Option<Failed> {
    match closed {
        Closed::Few(..) | Closed::Many(_) => {
            if let Some(missing) = node.required.iter().find(|k| !closed.has(k)) {
                return Some((
                    "required",
                    format!("{} is a required property", quote_str(missing)),
                ));
            }
            if let Some(min) = node
                .property_count
                .min
                .filter(|&m| (closed.members() as u64) < m)
            {
                return Some((
                    "minProperties",
                    format!("the object has less than {min} properties"),
                ));
            }
        }
        Closed::Array(len) => {
            if let Some(min) = node.item_count.min.filter(|&m| (*len as u64) < m) {
                return Some(("minItems", format!("the array has less than {min} items")));
            }
        }
    }
    None
}

/// A string whose text is itself a JSON object or array.
pub(super) fn looks_like_json(value: &Value) -> bool {
    match value {
        Value::String(s) => {
            let t = s.trim_start();
            t.starts_with('{') || t.starts_with('[')
        }
        _ => false,
    }
}

/// True when `types` certainly excludes the value.
fn type_mismatch(types: u8, value: &Value) -> bool {
    let bit = match value {
        Value::Null => TYPE_NULL,
        Value::Bool(_) => TYPE_BOOLEAN,
        Value::String(_) => TYPE_STRING,
        Value::Object(_) => TYPE_OBJECT,
        Value::Array(_) => TYPE_ARRAY,
        Value::Number(n) => {
            if types & TYPE_NUMBER != 0 {
                return false;
            }
            if types & TYPE_INTEGER == 0 {
                return true;
            }
            return n.as_f64().is_some_and(|f| f.fract() != 0.0) && !n.is_i64() && !n.is_u64();
        }
    };
    types & bit == 0
}

/// `a` against `b`: `None` when `f64` rounding leaves the order in doubt.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (whole(a), whole(b)) {
        return Some(x.cmp(&y));
    }
    let (fa, fb) = (a.as_f64()?, b.as_f64()?);
    if a.is_f64() && b.is_f64() {
        return fa.partial_cmp(&fb);
    }
    // One integer, one float: exact while the integer fits in 53 bits;
    // beyond, rounding keeps a strict order but an equality proves nothing.
    const EXACT: i128 = 1 << 53;
    let exact = whole(a)
        .or(whole(b))
        .is_some_and(|i| (-EXACT..=EXACT).contains(&i));
    match fa.partial_cmp(&fb)? {
        Ordering::Equal if !exact => None,
        order => Some(order),
    }
}

fn whole(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// An `enum` list, indexed so that a scalar is looked up instead of compared with every
/// member (an array of a million items against a long enum, in an `anyOf` branch or not): a
/// string among the string members, a number against the members of the same double only (no
/// other can be equal to it, nor leave it in doubt: see [`compare`]). In the `BTreeMap<String,
/// u64>` the metrics already use, not a new map or a sort: each adds its own code to the
/// `.wasm`, whose size has a gate.
#[derive(Debug)]
pub(super) struct Enumeration {
    values: Vec<Value>,
    strings: BTreeMap<String, u64>,
    /// The number members by [`double_key`]: the last of each double; `same_double[i]` is the
    /// one before member `i` ([`NONE`] for the first).
    doubles: BTreeMap<String, u64>,
    same_double: Vec<u64>,
    /// Every number member has a double (always so unless serde_json keeps arbitrary
    /// precision); if not, a number is compared with every member.
    keyed: bool,
    /// Which of `null`, `false` and `true` are members ([`literal_bit`]).
    literals: u8,
}

/// In `same_double`: no member before.
const NONE: u64 = u64::MAX;

/// `null`, `false` and `true` as one bit each; 0 for any other value.
fn literal_bit(value: &Value) -> u8 {
    match value {
        Value::Null => 1,
        Value::Bool(false) => 2,
        Value::Bool(true) => 4,
        _ => 0,
    }
}

/// A double as a key: its bits (`-0` read as `0`, which compares equal to it).
fn double_key(double: f64) -> String {
    format!("{:x}", (double + 0.0).to_bits())
}

impl Enumeration {
    pub(super) fn new(values: Vec<Value>) -> Enumeration {
        let mut strings = BTreeMap::new();
        let mut doubles = BTreeMap::new();
        let mut same_double = vec![NONE; values.len()];
        let mut keyed = true;
        let mut literals = 0;
        for (i, value) in values.iter().enumerate() {
            literals |= literal_bit(value);
            match value {
                Value::String(s) => {
                    strings.entry(s.clone()).or_insert(0);
                }
                Value::Number(n) => match n.as_f64() {
                    Some(double) => {
                        let last = doubles.entry(double_key(double)).or_insert(NONE);
                        if let Some(before) = same_double.get_mut(i) {
                            *before = *last;
                        }
                        *last = i as u64;
                    }
                    None => keyed = false,
                },
                _ => {}
            }
        }
        Enumeration {
            values,
            strings,
            doubles,
            same_double,
            keyed,
            literals,
        }
    }

    pub(super) fn values(&self) -> &[Value] {
        &self.values
    }

    /// Whether no member is equal to the scalar `value` ([`equal`] says `Some(false)` for each).
    fn excludes(&self, value: &Value) -> bool {
        let differs = |member: &Value| equal(value, member) == Some(false);
        match value {
            Value::Null | Value::Bool(_) => self.literals & literal_bit(value) == 0,
            Value::String(s) => !self.strings.contains_key(s.as_str()),
            Value::Number(n) => match n.as_f64() {
                Some(double) if self.keyed => {
                    let mut at = self.doubles.get(double_key(double).as_str()).copied();
                    while let Some(i) = at.and_then(|i| usize::try_from(i).ok()) {
                        if self.values.get(i).is_some_and(|m| !differs(m)) {
                            return false;
                        }
                        at = self.same_double.get(i).copied();
                    }
                    true
                }
                _ => self.values.iter().all(differs),
            },
            Value::Array(_) | Value::Object(_) => self.values.iter().all(differs),
        }
    }
}

/// JSON equality (numbers by value): `None` when it cannot be told.
fn equal(a: &Value, b: &Value) -> Option<bool> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            return compare(x, y).map(|order| order == Ordering::Equal)
        }
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {}
        // Two scalars, not both numbers: no list to walk.
        _ => return Some(a == b),
    }
    let mut stack = vec![(a, b)];
    let mut unsure = false;
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => match compare(x, y) {
                Some(Ordering::Equal) => {}
                Some(_) => return Some(false),
                None => unsure = true,
            },
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return Some(false);
                }
                stack.extend(x.iter().zip(y.iter()));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return Some(false);
                }
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return Some(false),
                    }
                }
            }
            _ => {
                if a != b {
                    return Some(false);
                }
            }
        }
    }
    if unsure {
        None
    } else {
        Some(true)
    }
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

pub(super) fn describe(kind: Container) -> &'static str {
    match kind {
        Container::Object => "an object",
        Container::Array => "an array",
    }
}

pub(super) fn types_text(types: u8) -> String {
    let names: Vec<&str> = [
        (TYPE_NULL, "null"),
        (TYPE_BOOLEAN, "boolean"),
        (TYPE_OBJECT, "object"),
        (TYPE_ARRAY, "array"),
        (TYPE_NUMBER, "number"),
        (TYPE_INTEGER, "integer"),
        (TYPE_STRING, "string"),
    ]
    .iter()
    .filter(|(bit, _)| types & bit != 0)
    .map(|(_, name)| *name)
    .collect();
    match names.as_slice() {
        [one] => format!("type \"{one}\""),
        many => format!("types \"{}\"", many.join("\", \"")),
    }
}

pub(super) fn at_path(path: &str) -> String {
    if path.is_empty() {
        "the value".to_owned()
    } else {
        format!("the value at {}", clip(path, QUOTE_CHARS))
    }
}

pub(super) fn quote_str(s: &str) -> String {
    Value::String(clip(s, QUOTE_CHARS)).to_string()
}

pub(super) fn quote_value(v: &Value) -> String {
    match v {
        Value::String(s) => quote_str(s),
        Value::Object(_) => "an object".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        _ => v.to_string(),
    }
}

fn quote_list(options: &[Value]) -> String {
    let items: Vec<String> = options.iter().map(quote_value).collect();
    clip(&format!("[{}]", items.join(", ")), QUOTE_CHARS * 2)
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((at, _)) => format!("{}…", s.get(..at).unwrap_or(s)),
    }
}

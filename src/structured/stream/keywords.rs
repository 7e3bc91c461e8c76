//! The keywords a stream settles, each judged only where the answer is
//! certain, and the messages it reports (worded as `jsonschema` words them).
//!
//! Numbers are compared without rounding when both are integers, and
//! otherwise only where `f64` rounding cannot change the answer; an integral
//! float such as `1.0` is never reported as "not an integer" (it is one
//! since draft 6; draft 4 disagrees, and the final parse says so).

use std::cmp::Ordering;
use std::collections::HashSet;

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

/// The node's own keywords against a complete string, number, boolean or null.
pub(super) fn scalar_failure(schema: &StreamSchema, node: &Node, value: &Value) -> Option<Failed> {
    let shown = || quote_value(value);
    if node.is_false {
        return Some((
            "falseSchema",
            format!("False schema does not allow {}", shown()),
        ));
    }
    if node.types != 0 && type_mismatch(node.types, value) {
        return Some((
            "type",
            format!("{} is not of {}", shown(), types_text(node.types)),
        ));
    }
    if let Some(options) = &node.enumeration {
        if options.iter().all(|o| equal(value, o) == Some(false)) {
            return Some((
                "enum",
                format!("{} is not one of {}", shown(), quote_list(options)),
            ));
        }
    }
    if let Some(constant) = &node.constant {
        if equal(value, constant) == Some(false) {
            return Some(("const", format!("{} was expected", quote_value(constant))));
        }
    }
    match value {
        Value::String(s) => string_failure(schema, node, s, value),
        Value::Number(n) => number_failure(schema, node, n, value),
        _ => None,
    }
}

fn string_failure(schema: &StreamSchema, node: &Node, s: &str, value: &Value) -> Option<Failed> {
    if node.length.is_set() {
        let chars = s.chars().count() as u64;
        if let Some(min) = node.length.min.filter(|&m| chars < m) {
            return Some((
                "minLength",
                format!("{} is shorter than {min} characters", quote_value(value)),
            ));
        }
        if let Some(max) = node.length.max.filter(|&m| chars > m) {
            return Some((
                "maxLength",
                format!("{} is longer than {max} characters", quote_value(value)),
            ));
        }
    }
    if let Some(pattern) = lazy_refusal(schema, node.pattern, value) {
        let pattern = clip(&pattern, QUOTE_CHARS);
        return Some((
            "pattern",
            format!("{} does not match {pattern}", quote_value(value)),
        ));
    }
    None
}

fn number_failure(schema: &StreamSchema, node: &Node, n: &Number, value: &Value) -> Option<Failed> {
    if let Some(m) = &node.minimum {
        if compare(n, m) == Some(Ordering::Less) {
            return Some(("minimum", format!("{n} is less than the minimum of {m}")));
        }
    }
    if let Some(m) = &node.maximum {
        if compare(n, m) == Some(Ordering::Greater) {
            return Some(("maximum", format!("{n} is greater than the maximum of {m}")));
        }
    }
    if let Some(m) = &node.exclusive_minimum {
        if matches!(compare(n, m), Some(Ordering::Less | Ordering::Equal)) {
            return Some((
                "exclusiveMinimum",
                format!("{n} is less than or equal to the minimum of {m}"),
            ));
        }
    }
    if let Some(m) = &node.exclusive_maximum {
        if matches!(compare(n, m), Some(Ordering::Greater | Ordering::Equal)) {
            return Some((
                "exclusiveMaximum",
                format!("{n} is greater than or equal to the maximum of {m}"),
            ));
        }
    }
    if let Some(multiple) = lazy_refusal(schema, node.multiple_of, value) {
        return Some(("multipleOf", format!("{n} is not a multiple of {multiple}")));
    }
    None
}

/// The argument of the lazily compiled keyword `index` (`pattern`, `multipleOf`) when it
/// refuses `value`.
fn lazy_refusal(schema: &StreamSchema, index: Option<usize>, value: &Value) -> Option<String> {
    let index = index?;
    (schema.lazy_valid(index, value) == Some(false)).then(|| schema.lazy_argument(index))
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

/// JSON equality (numbers by value): `None` when it cannot be told.
fn equal(a: &Value, b: &Value) -> Option<bool> {
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

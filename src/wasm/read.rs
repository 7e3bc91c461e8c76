//! Reading JavaScript values without ever throwing through Rust.
//!
//! Every property read goes through `Reflect.get` imported with `catch`, so a
//! getter that throws, a revoked `Proxy` or a trap that throws becomes an
//! absent field (for `classify`) or a `TypeError` naming the field (for
//! options). No borrow of a selfheal object is held while user code can run.
//! Thrown errors, read in many places at once, are gathered by a JS helper
//! (js/snippets/gather.js) in one crossing instead.

use std::cell::RefCell;
use std::collections::HashMap;

use fnv::FnvBuildHasher;
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::classify::ErrorInfo;

#[wasm_bindgen]
extern "C" {
    // `Array.isArray` throws on a revoked Proxy: imported with catch.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn array_is_array(v: &JsValue) -> Result<bool, JsValue>;
}

/// `Array.isArray(v)`, false for anything that throws (a revoked `Proxy`).
pub fn is_array(v: &JsValue) -> bool {
    v.is_object() && array_is_array(v).unwrap_or(false)
}

pub use super::error::Read;
pub use crate::error::OptionError as Bad;

pub fn type_err<T>(field: &str, message: impl Into<String>) -> Read<T> {
    Err(Bad {
        field: field.to_string(),
        message: message.into(),
        is_range: false,
    })
}

pub fn is_object(v: &JsValue) -> bool {
    v.is_object() || v.is_function()
}

pub fn is_nullish(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// How many distinct property names [`reflect_get`] keeps as JS strings.
const MAX_KEYS: usize = 512;

thread_local! {
    /// Property names as JS strings, each made once. Making one from Rust text is a call into
    /// the glue and a UTF-8 decode (`TextDecoder`) on every read: with ~25 reads per `classify`
    /// that was the largest single cost of reading an options or error object. The names are
    /// this crate's own `&'static str` (literals, serde's field lists), so the key is where the
    /// text lives and its length, hashed with FNV-1a (the `fnv` crate): no hashing or comparing
    /// of the text itself on every read. Never chosen from outside, so SipHash's flooding
    /// resistance would buy nothing. The same name at two addresses is kept twice, which is
    /// harmless.
    static KEYS: RefCell<HashMap<(usize, usize), JsValue, FnvBuildHasher>> =
        RefCell::new(HashMap::default());
}

/// `f` on `s` as a JS string from [`KEYS`] (made and kept on a miss). The shared borrow is held
/// while `f` runs (a getter, for [`reflect_get`]): a re-entrant call still gets its name (shared
/// borrows nest) and only skips caching a new one.
fn with_interned<T>(s: &'static str, f: impl FnOnce(&JsValue) -> T) -> T {
    let key = (s.as_ptr() as usize, s.len());
    KEYS.with(|cell| {
        if let Some(k) = cell
            .try_borrow()
            .ok()
            .as_ref()
            .and_then(|keys| keys.get(&key))
        {
            return f(k);
        }
        let k = JsValue::from_str(s);
        let out = f(&k);
        if let Ok(mut keys) = cell.try_borrow_mut() {
            if keys.len() < MAX_KEYS {
                keys.insert(key, k);
            }
        }
        out
    })
}

fn reflect_get(obj: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    with_interned(key, |k| Reflect::get(obj, k))
}

/// `s` as a JS string, made once per distinct `s` (the [`KEYS`] cache): for the fixed words
/// of outputs (classes, causes, signals), which would otherwise be decoded on every call.
pub fn interned(s: &'static str) -> JsValue {
    with_interned(s, JsValue::clone)
}

/// `obj[key]` of a value known to be an object (no check: one call into JS fewer per field).
pub fn own_field(obj: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    reflect_get(obj, key)
}

/// `obj[key]`, or `undefined` for anything that throws or is not an object.
pub fn get(obj: &JsValue, key: &'static str) -> JsValue {
    if !is_object(obj) {
        return JsValue::UNDEFINED;
    }
    reflect_get(obj, key).unwrap_or(JsValue::UNDEFINED)
}

/// `obj[key]` for arguments: a throwing getter is a `TypeError` naming `parent.key`, a path
/// made only for the error (most fields are absent, and formatting a path for each read of
/// `new RepairLoop` cost more than the reads).
pub fn field(obj: &JsValue, key: &'static str, parent: &str) -> Read<JsValue> {
    if !is_object(obj) {
        return Ok(JsValue::UNDEFINED);
    }
    reflect_get(obj, key).or_else(|e| {
        let path = match parent {
            "" => key.to_string(),
            _ => format!("{parent}.{key}"),
        };
        type_err(&path, format!("could not be read: {}", describe_thrown(&e)))
    })
}

pub(crate) fn describe_thrown(e: &JsValue) -> String {
    let msg = get(e, "message");
    msg.as_string()
        .unwrap_or_else(|| "the getter threw".to_string())
}

/// A JS string's length in UTF-16 code units when it is certainly longer than `max` code
/// points: a code point is one or two units, so only a string of more than `2 * max` units is
/// known to be, unread (not copied into wasm memory). Shorter ones are copied and counted exactly.
pub fn certainly_longer(v: &JsValue, max: usize) -> Option<usize> {
    let units = v.dyn_ref::<js_sys::JsString>()?.length() as usize;
    (units > max.saturating_mul(2)).then_some(units)
}

/// A number as JavaScript prints it where Rust differs (`Infinity`, not `inf`).
pub fn js_number(n: f64) -> String {
    match n.is_infinite() {
        true => if n > 0.0 { "Infinity" } else { "-Infinity" }.into(),
        false => n.to_string(),
    }
}

/// `now`: absent means `Date.now()`.
pub fn now_arg(v: &JsValue) -> Read<f64> {
    Ok(super::de::read::<Option<f64>>(v, "now")?.unwrap_or_else(js_sys::Date::now))
}

/// `typeof v`, but "null" and "array" where JavaScript says "object" (for messages).
pub fn type_name(v: &JsValue) -> String {
    match (v.is_null(), is_array(v)) {
        (true, _) => "null".into(),
        (_, true) => "array".into(),
        _ => v.js_typeof().as_string().unwrap_or_default(),
    }
}

#[wasm_bindgen(module = "/js/snippets/schema_keys.js")]
extern "C" {
    /// `JSON.stringify`, refusing at once what no reader takes (js/snippets/schema_keys.js).
    #[wasm_bindgen(catch, js_name = jsonText)]
    fn json_text_js(v: &JsValue) -> Result<JsValue, JsValue>;
}

/// `JSON.stringify(v)` for a value that must be JSON (schemas, values to validate).
pub fn json_text(v: &JsValue, p: &str) -> Read<String> {
    match json_text_js(v) {
        Ok(s) => match s.as_string() {
            Some(s) => Ok(s),
            None => not_serialisable(p, v, None),
        },
        Err(e) => not_serialisable(p, v, Some(&e)),
    }
}

/// The `TypeError` for a value `JSON.stringify` refused (`thrown`) or turned into nothing.
pub fn not_serialisable<T>(p: &str, v: &JsValue, thrown: Option<&JsValue>) -> Read<T> {
    match thrown {
        Some(e) => type_err(
            p,
            format!("is not JSON-serialisable: {}", describe_thrown(e)),
        ),
        None => type_err(p, format!("is not JSON-serialisable ({})", type_name(v))),
    }
}

// ---------- errors for classify ----------

#[wasm_bindgen(module = "/js/snippets/gather.js")]
extern "C" {
    /// Every place SPEC section 3 reads, gathered in one call (js/snippets/gather.js) as the JSON
    /// text of an [`ErrorInfo`]. Imported with `catch` although it never throws by design.
    #[wasm_bindgen(catch, js_name = gatherError)]
    fn gather_error(error: &JsValue) -> Result<String, JsValue>;
    /// How `next(outcome)` starts, as JSON text of [`OutcomeStart`]: an error outcome read
    /// whole, the kind of another, or "read the fields".
    #[wasm_bindgen(catch, js_name = startOutcome)]
    fn start_outcome(outcome: &JsValue) -> Result<String, JsValue>;
}

/// Everything SPEC section 3 reads from a thrown value. Never throws: anything unreadable is
/// absent. The reading itself happens in js/snippets/gather.js, in one boundary crossing.
pub fn error_info(error: &JsValue) -> ErrorInfo {
    match gather_error(error)
        .ok()
        .and_then(|text| selfheal_hot::gather::error_info(&text))
    {
        Some(info) => info,
        // Not reachable by design (the gatherer catches everything and only emits what this
        // reads); should it ever happen, the error is present and says nothing.
        None => ErrorInfo {
            present: !is_nullish(error),
            ..ErrorInfo::default()
        },
    }
}

pub use selfheal_hot::gather::{OutcomeKind, OutcomeStart};

/// How `next(outcome)` starts (one crossing; read by `selfheal_hot::gather`).
pub fn outcome_start(outcome: &JsValue) -> OutcomeStart {
    match start_outcome(outcome) {
        Ok(text) => selfheal_hot::gather::outcome_start(&text),
        Err(_) => OutcomeStart::Unread,
    }
}

/// `Validation` for classify: never throws; anything unreadable is absent.
pub fn validation(v: &JsValue) -> Option<crate::classify::Validation> {
    if !is_object(v) {
        return None;
    }
    let ok = get(v, "ok");
    Some(crate::classify::Validation {
        ok: ok.as_bool().unwrap_or(true),
        kind: get(v, "kind").as_string(),
        detail: get(v, "detail").as_string(),
    })
}

/// A `maxChars`-like option: a whole number >= 0 (the deserializer has refused NaN and Infinity).
pub fn whole_count(n: f64, field: &str) -> Read<usize> {
    if n.is_nan() || n < 0.0 || (n.is_finite() && n.fract() != 0.0) {
        return Err(Bad::range(
            field,
            &format!("must be a whole number >= 0, got {}", js_number(n)),
        ));
    }
    Ok(if n >= usize::MAX as f64 {
        usize::MAX
    } else {
        n as usize
    })
}

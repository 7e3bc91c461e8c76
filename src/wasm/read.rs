//! Reading JavaScript values without ever throwing through Rust.
//!
//! Every property read goes through `Reflect.get` imported with `catch`, so a
//! getter that throws, a revoked `Proxy` or a trap that throws becomes an
//! absent field (for `classify`) or a `TypeError` naming the field (for
//! options). No borrow of a selfheal object is held while user code can run.

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use crate::classify::ErrorInfo;

/// Headers and own keys are scanned up to this many entries (hostile objects can be huge).
const MAX_ENTRIES: u32 = 256;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Array, js_name = from)]
    fn array_from(v: &JsValue) -> Result<Array, JsValue>;
    // `Array.isArray` throws on a revoked Proxy: imported with catch.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn array_is_array(v: &JsValue) -> Result<bool, JsValue>;
}

/// `Array.isArray(v)`, false for anything that throws (a revoked `Proxy`).
pub fn is_array(v: &JsValue) -> bool {
    v.is_object() && array_is_array(v).unwrap_or(false)
}

/// A bad argument: becomes a `TypeError` or `RangeError` naming the field.
#[derive(Debug)]
pub struct Bad {
    pub field: String,
    pub message: String,
    pub range: bool,
}

pub type Read<T> = Result<T, Bad>;

pub fn type_err<T>(field: &str, message: impl Into<String>) -> Read<T> {
    Err(Bad {
        field: field.to_string(),
        message: message.into(),
        range: false,
    })
}

pub fn range_err<T>(field: &str, message: impl Into<String>) -> Read<T> {
    Err(Bad {
        field: field.to_string(),
        message: message.into(),
        range: true,
    })
}

impl From<Bad> for JsValue {
    fn from(b: Bad) -> JsValue {
        // Messages may quote the input; keep them readable whatever the input's size.
        const MAX: usize = 300;
        let mut message: String = b.message.chars().take(MAX).collect();
        if b.message.chars().nth(MAX).is_some() {
            message.push('…');
        }
        let msg = format!("selfheal: {} {}", b.field, message);
        if b.range {
            js_sys::RangeError::new(&msg).into()
        } else {
            js_sys::TypeError::new(&msg).into()
        }
    }
}

impl From<crate::repair_loop::OptionError> for Bad {
    fn from(e: crate::repair_loop::OptionError) -> Bad {
        Bad {
            field: e.field,
            message: e.message,
            range: e.is_range,
        }
    }
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
    /// that was the largest single cost of reading an options or error object.
    static KEYS: RefCell<HashMap<Box<str>, JsValue>> = RefCell::new(HashMap::new());
}

/// `Reflect.get(obj, key)` with the name from [`KEYS`]. The shared borrow may be held while a
/// getter runs; a re-entrant read still gets its name (shared borrows nest) and only skips
/// caching a new one.
fn reflect_get(obj: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    KEYS.with(|cell| {
        if let Ok(keys) = cell.try_borrow() {
            if let Some(k) = keys.get(key) {
                return Reflect::get(obj, k);
            }
        }
        let k = JsValue::from_str(key);
        let got = Reflect::get(obj, &k);
        if let Ok(mut keys) = cell.try_borrow_mut() {
            if keys.len() < MAX_KEYS {
                keys.insert(key.into(), k);
            }
        }
        got
    })
}

/// `obj[key]`, or `undefined` for anything that throws or is not an object.
pub fn get(obj: &JsValue, key: &str) -> JsValue {
    if !is_object(obj) {
        return JsValue::UNDEFINED;
    }
    reflect_get(obj, key).unwrap_or(JsValue::UNDEFINED)
}

/// `obj[key]` for options: a throwing getter is a `TypeError` naming the field.
pub fn field(obj: &JsValue, key: &str, path: &str) -> Read<JsValue> {
    if !is_object(obj) {
        return Ok(JsValue::UNDEFINED);
    }
    reflect_get(obj, key)
        .or_else(|e| type_err(path, format!("could not be read: {}", describe_thrown(&e))))
}

fn describe_thrown(e: &JsValue) -> String {
    let msg = get(e, "message");
    msg.as_string()
        .unwrap_or_else(|| "the getter threw".to_string())
}

pub fn path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

// ---------- typed option readers ----------

/// `obj[key]` converted by `convert`; `None` when absent or null.
fn optional<T>(
    obj: &JsValue,
    key: &str,
    parent: &str,
    convert: impl FnOnce(&JsValue, &str) -> Read<T>,
) -> Read<Option<T>> {
    let p = path(parent, key);
    let v = field(obj, key, &p)?;
    if is_nullish(&v) {
        return Ok(None);
    }
    convert(&v, &p).map(Some)
}

/// `obj[key]` converted by `convert`: `None` when absent, `Some(None)` for an explicit `null`.
fn nullable<T>(
    obj: &JsValue,
    key: &str,
    parent: &str,
    convert: impl FnOnce(&JsValue, &str) -> Read<T>,
) -> Read<Option<Option<T>>> {
    let p = path(parent, key);
    let v = field(obj, key, &p)?;
    if v.is_undefined() {
        return Ok(None);
    }
    if v.is_null() {
        return Ok(Some(None));
    }
    convert(&v, &p).map(|n| Some(Some(n)))
}

fn string_value(v: &JsValue, p: &str) -> Read<String> {
    v.as_string().map_or_else(
        || type_err(p, format!("must be a string, got {}", type_name(v))),
        Ok,
    )
}

fn bool_value(v: &JsValue, p: &str) -> Read<bool> {
    v.as_bool().map_or_else(
        || type_err(p, format!("must be a boolean, got {}", type_name(v))),
        Ok,
    )
}

pub fn opt_string(obj: &JsValue, key: &str, parent: &str) -> Read<Option<String>> {
    optional(obj, key, parent, string_value)
}

pub fn req_string(obj: &JsValue, key: &str, parent: &str) -> Read<String> {
    match opt_string(obj, key, parent)? {
        Some(s) => Ok(s),
        None => type_err(&path(parent, key), "is required and must be a string"),
    }
}

pub fn opt_bool(obj: &JsValue, key: &str, parent: &str) -> Read<Option<bool>> {
    optional(obj, key, parent, bool_value)
}

/// A number: `TypeError` unless a JS number; `RangeError` if NaN/±Infinity or negative.
pub fn number_value(v: &JsValue, p: &str) -> Read<f64> {
    let Some(n) = v.as_f64() else {
        return type_err(p, format!("must be a number, got {}", type_name(v)));
    };
    if !n.is_finite() {
        return range_err(p, format!("must be a finite number, got {}", js_number(n)));
    }
    if n < 0.0 {
        return range_err(p, format!("must be >= 0, got {n}"));
    }
    Ok(n)
}

/// A number as JavaScript prints it where Rust differs (`Infinity`, not `inf`).
pub fn js_number(n: f64) -> String {
    if n.is_infinite() {
        if n > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    } else {
        n.to_string()
    }
}

pub fn opt_number(obj: &JsValue, key: &str, parent: &str) -> Read<Option<f64>> {
    optional(obj, key, parent, number_value)
}

/// A whole count >= 0 that fits in u32.
pub fn count_value(v: &JsValue, p: &str) -> Read<u32> {
    let n = number_value(v, p)?;
    if n.fract() != 0.0 {
        return range_err(p, format!("must be a whole number, got {n}"));
    }
    if n > u32::MAX as f64 {
        return range_err(p, format!("must be at most {}, got {n}", u32::MAX));
    }
    Ok(n as u32)
}

pub fn opt_count(obj: &JsValue, key: &str, parent: &str) -> Read<Option<u32>> {
    optional(obj, key, parent, count_value)
}

pub fn nullable_number(obj: &JsValue, key: &str, parent: &str) -> Read<Option<Option<f64>>> {
    nullable(obj, key, parent, number_value)
}

pub fn nullable_count(obj: &JsValue, key: &str, parent: &str) -> Read<Option<Option<u32>>> {
    nullable(obj, key, parent, count_value)
}

/// An optional sub-object: `None` when absent or null, `TypeError` when not an object.
pub fn opt_object(obj: &JsValue, key: &str, parent: &str) -> Read<Option<JsValue>> {
    let p = path(parent, key);
    let v = field(obj, key, &p)?;
    if is_nullish(&v) {
        return Ok(None);
    }
    if !v.is_object() || is_array(&v) {
        return type_err(&p, format!("must be an object, got {}", type_name(&v)));
    }
    Ok(Some(v))
}

/// `now`: absent means `Date.now()`.
pub fn now_arg(v: &JsValue) -> Read<f64> {
    if is_nullish(v) {
        return Ok(js_sys::Date::now());
    }
    let Some(n) = v.as_f64() else {
        return type_err(
            "now",
            format!(
                "must be a number (ms since the epoch), got {}",
                type_name(v)
            ),
        );
    };
    if !n.is_finite() {
        return range_err(
            "now",
            format!("must be a finite number, got {}", js_number(n)),
        );
    }
    Ok(n)
}

pub fn type_name(v: &JsValue) -> &'static str {
    if v.is_null() {
        "null"
    } else if v.is_undefined() {
        "undefined"
    } else if v.as_bool().is_some() {
        "boolean"
    } else if v.as_f64().is_some() {
        "number"
    } else if v.is_string() {
        "string"
    } else if v.is_symbol() {
        "symbol"
    } else if v.is_bigint() {
        "bigint"
    } else if v.is_function() {
        "function"
    } else if is_array(v) {
        "array"
    } else {
        "object"
    }
}

/// `JSON.stringify(v)` for a value that must be JSON (schemas, values to validate).
pub fn json_text(v: &JsValue, p: &str) -> Read<String> {
    match js_sys::JSON::stringify(v) {
        Ok(s) => match s.as_string() {
            Some(s) => Ok(s),
            None => type_err(p, format!("is not JSON-serialisable ({})", type_name(v))),
        },
        Err(e) => type_err(
            p,
            format!("is not JSON-serialisable: {}", describe_thrown(&e)),
        ),
    }
}

// ---------- errors for classify ----------

/// Everything SPEC section 3 reads from a thrown value. Never throws.
pub fn error_info(error: &JsValue) -> ErrorInfo {
    let mut info = ErrorInfo {
        present: !is_nullish(error),
        ..ErrorInfo::default()
    };
    if !info.present {
        return info;
    }
    if let Some(msg) = error.as_string() {
        // Something threw a bare string.
        info.messages.push(msg);
        return info;
    }
    let inner = get(error, "error");
    let inner2 = get(&inner, "error");
    let response = get(error, "response");
    let cause = get(error, "cause");

    info.name = get(error, "name").as_string();
    info.class_name = get(&get(error, "constructor"), "name").as_string();
    info.status = [
        get(error, "status"),
        get(error, "statusCode"),
        get(&response, "status"),
    ]
    .iter()
    .find_map(status_of);
    for v in [
        get(&inner, "type"),
        get(&inner2, "type"),
        get(error, "type"),
    ] {
        if let Some(s) = v.as_string() {
            info.types.push(s);
        }
    }
    for v in [
        get(error, "code"),
        get(&cause, "code"),
        get(&inner, "code"),
        get(&inner2, "code"),
    ] {
        if let Some(s) = scalar_string(&v) {
            info.codes.push(s);
        }
    }
    // Deeper causes, after the places SPEC lists: undici hides the socket error two
    // levels down (SDK error -> TypeError('fetch failed') -> SocketError).
    let mut deeper = get(&cause, "cause");
    for _ in 0..3 {
        if let Some(s) = scalar_string(&get(&deeper, "code")) {
            info.codes.push(s);
        }
        deeper = get(&deeper, "cause");
    }
    for v in [
        get(error, "message"),
        get(&inner, "message"),
        get(&inner2, "message"),
    ] {
        if let Some(s) = v.as_string() {
            info.messages.push(s);
        }
    }
    let headers = get(error, "headers");
    let headers = if is_object(&headers) {
        headers
    } else {
        get(&response, "headers")
    };
    info.headers = header_pairs(&headers);
    info
}

fn status_of(v: &JsValue) -> Option<u16> {
    let n = v
        .as_f64()
        .or_else(|| v.as_string().and_then(|s| s.trim().parse::<f64>().ok()))?;
    (n.fract() == 0.0 && (100.0..=999.0).contains(&n)).then_some(n as u16)
}

fn scalar_string(v: &JsValue) -> Option<String> {
    if let Some(s) = v.as_string() {
        return Some(s);
    }
    v.as_f64().filter(|n| n.is_finite()).map(|n| n.to_string())
}

/// Header pairs from a `Headers`, a `Map` or a plain object; names lower-cased.
fn header_pairs(h: &JsValue) -> Vec<(String, String)> {
    if !is_object(h) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if h.is_instance_of::<web_sys::Headers>() || h.is_instance_of::<js_sys::Map>() {
        // Both iterate as [name, value] pairs; Array.from is imported with catch.
        if let Ok(pairs) = array_from(h) {
            for i in 0..pairs.length().min(MAX_ENTRIES) {
                let pair = Reflect::get_u32(&pairs, i).unwrap_or(JsValue::UNDEFINED);
                let k = Reflect::get_u32(&pair, 0).unwrap_or(JsValue::UNDEFINED);
                let v = Reflect::get_u32(&pair, 1).unwrap_or(JsValue::UNDEFINED);
                push_header(&mut out, &k, &v);
            }
        }
        return out;
    }
    if let Ok(keys) = Reflect::own_keys(h) {
        for i in 0..keys.length().min(MAX_ENTRIES) {
            let k = Reflect::get_u32(&keys, i).unwrap_or(JsValue::UNDEFINED);
            if k.is_string() {
                let v = Reflect::get(h, &k).unwrap_or(JsValue::UNDEFINED);
                push_header(&mut out, &k, &v);
            }
        }
    }
    out
}

fn push_header(out: &mut Vec<(String, String)>, k: &JsValue, v: &JsValue) {
    let Some(name) = k.as_string() else { return };
    let value = if is_array(v) {
        scalar_string(&Reflect::get_u32(v, 0).unwrap_or(JsValue::UNDEFINED))
    } else {
        scalar_string(v)
    };
    if let Some(value) = value {
        out.push((name.to_ascii_lowercase(), value));
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

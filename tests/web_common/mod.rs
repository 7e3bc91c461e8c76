//! JS-value helpers shared by the headless-browser suites (`tests/web*.rs`): plain JSON across
//! the boundary both ways, and the check every bad-argument test makes of what was thrown.

#![allow(dead_code)]
#![allow(clippy::expect_used, clippy::panic)]

use js_sys::{Reflect, JSON};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The clock of every test that passes `now`.
pub const NOW: f64 = 1_700_000_000_000.0;

#[wasm_bindgen(inline_js = r#"
export function withField(base, path, value) {
  const o = JSON.parse(JSON.stringify(base));
  const keys = path.split('.');
  let t = o;
  for (const k of keys.slice(0, -1)) { if (typeof t[k] !== 'object' || t[k] === null) t[k] = {}; t = t[k]; }
  t[keys[keys.length - 1]] = value;
  return o;
}
"#)]
extern "C" {
    /// A JSON copy of `base` with `value` (any JS value) set at the dotted `path`.
    #[wasm_bindgen(js_name = withField)]
    pub fn with_field(base: &JsValue, path: &str, value: &JsValue) -> JsValue;
}

/// A JSON value as a fresh JS object.
pub fn js(v: Value) -> JsValue {
    JSON::parse(&v.to_string()).expect("JSON.parse")
}

/// A JS value back as JSON (through `JSON.stringify`, so only plain data survives).
pub fn rs(v: &JsValue) -> Value {
    if v.is_undefined() {
        return Value::Null;
    }
    let text = JSON::stringify(v)
        .expect("JSON.stringify")
        .as_string()
        .expect("string");
    serde_json::from_str(&text).expect("valid JSON")
}

/// A thrown value's `message`, or its debug form.
pub fn message(e: &JsValue) -> String {
    Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Thrown {
    Type,
    Range,
}

/// Assert a thrown `TypeError`/`RangeError` (an `Error`, from selfheal) whose message names
/// `field`; returns the message.
pub fn assert_thrown<T>(r: Result<T, JsValue>, kind: Thrown, field: &str) -> String {
    let e = match r {
        Ok(_) => panic!("expected a {kind:?}Error naming {field}, got a value"),
        Err(e) => e,
    };
    let msg = message(&e);
    match kind {
        Thrown::Type => assert!(
            e.is_instance_of::<js_sys::TypeError>(),
            "not a TypeError: {msg}"
        ),
        Thrown::Range => assert!(
            e.is_instance_of::<js_sys::RangeError>(),
            "not a RangeError: {msg}"
        ),
    }
    assert!(e.is_instance_of::<js_sys::Error>(), "not an Error: {msg}");
    assert!(msg.starts_with("selfheal: "), "{msg}");
    assert!(
        msg.contains(field),
        "message {msg:?} does not name {field:?}"
    );
    msg
}

//! SPEC section 8 through the wasm boundary in headless Chromium and Firefox: `PartialJson` and
//! `RepairLoop.push` called with real JS strings (lone UTF-16 halves included), the partial value
//! built by js/snippets/instructions.js (its partial-value part) from the edits, the errors' kinds, and hostile chunks.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use js_sys::{Reflect, JSON};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use selfheal::wasm::{JsPartialJson, JsRepairLoop};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function unit(code) { return String.fromCharCode(code); }
export function concat(a, b) { return a + b; }
export function hostile(kind) {
  switch (kind) {
    case 'object': return { toString() { throw new Error('boom'); } };
    case 'proxy': return new Proxy({}, { get() { throw new Error('boom'); } });
    case 'symbol': return Symbol('s');
    case 'boxed': return new String('{"a": 1}');
    default: return undefined;
  }
}
export function isSame(a, b) { return a === b; }
export function protoIsObject(v) { return Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).includes('__proto__'); }
"#)]
extern "C" {
    fn unit(code: u32) -> JsValue;
    fn concat(a: &JsValue, b: &JsValue) -> JsValue;
    fn hostile(kind: &str) -> JsValue;
    #[wasm_bindgen(js_name = isSame)]
    fn is_same(a: &JsValue, b: &JsValue) -> bool;
    #[wasm_bindgen(js_name = protoIsObject)]
    fn proto_is_object(v: &JsValue) -> bool;
}

fn js(v: Value) -> JsValue {
    JSON::parse(&v.to_string()).expect("JSON.parse")
}

fn rs(v: &JsValue) -> Value {
    if v.is_undefined() {
        return json!("undefined");
    }
    serde_json::from_str(&JSON::stringify(v).unwrap().as_string().unwrap()).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn message(e: &JsValue) -> String {
    get(e, "message").as_string().unwrap_or_default()
}

fn stream(schema: Value, options: Value) -> JsPartialJson {
    let schema = if schema.is_null() {
        JsValue::NULL
    } else {
        js(schema)
    };
    JsPartialJson::new(schema, js(options)).unwrap()
}

/// The value (as JSON) after each push.
fn values(p: &JsPartialJson, chunks: &[JsValue]) -> Vec<Value> {
    chunks
        .iter()
        .map(|c| rs(&get(&p.push(c.clone()).unwrap(), "value")))
        .collect()
}

fn strs(chunks: &[&str]) -> Vec<JsValue> {
    chunks.iter().map(|c| JsValue::from_str(c)).collect()
}

const PERSON: &str = r#"{"type":"object","additionalProperties":false,"required":["name","age"],
  "properties":{"name":{"type":"string"},"age":{"type":"integer","maximum":200}}}"#;

fn person() -> Value {
    serde_json::from_str(PERSON).unwrap()
}

#[wasm_bindgen_test]
fn escapes_split_across_chunks() {
    let p = stream(Value::Null, json!({}));
    assert_eq!(
        values(&p, &strs(&["\"caf\\u00", "e9\\", "n\""])),
        [json!("caf"), json!("café"), json!("café\n")]
    );
    let p = stream(Value::Null, json!({}));
    assert_eq!(
        values(&p, &strs(&["[\"\\ud83d", "\\ude00\"]"])),
        [json!([""]), json!(["😀"])]
    );
}

#[wasm_bindgen_test]
fn a_surrogate_pair_split_between_two_js_strings() {
    let p = stream(Value::Null, json!({}));
    let first = concat(&JsValue::from_str("\"a"), &unit(0xD83D));
    let second = concat(&unit(0xDE00), &JsValue::from_str("b\""));
    assert_eq!(
        values(&p, &[first.clone(), second.clone()]),
        [json!("a"), json!("a😀b")]
    );
    // `text` is what was pushed, exactly.
    assert!(is_same(&p.text().unwrap(), &concat(&first, &second)));
    assert_eq!(
        rs(&p.finish(JsValue::UNDEFINED).unwrap()),
        json!({"ok": true, "value": "a😀b", "fixes": []})
    );
}

#[wasm_bindgen_test]
fn a_number_split_by_a_chunk_is_never_shown_early() {
    let p = stream(Value::Null, json!({}));
    assert_eq!(
        values(&p, &strs(&["{\"n\": 1", "2", "5, \"m\": -0.", "5}"])),
        [
            json!({}),
            json!({}),
            json!({"n": 125}),
            json!({"n": 125, "m": -0.5})
        ]
    );
}

#[wasm_bindgen_test]
fn fences_and_prose_before_the_value() {
    let p = stream(person(), json!({}));
    assert_eq!(
        values(
            &p,
            &strs(&["```json\n{\"name\"", ": \"Ada\", \"age\": 36}\n```"])
        ),
        [json!({}), json!({"name": "Ada", "age": 36})]
    );
    let p = stream(Value::Null, json!({}));
    assert_eq!(
        values(&p, &strs(&["Sure! Here it is: ", "[1, ", "2]"])),
        [json!("undefined"), json!([1]), json!([1, 2])]
    );
}

#[wasm_bindgen_test]
fn max_chars_is_a_range_error_and_nothing_is_lost() {
    let p = stream(Value::Null, json!({"maxChars": 4}));
    p.push(JsValue::from_str("\"ab")).unwrap();
    let e = p.push(JsValue::from_str("cd")).unwrap_err();
    assert!(e.is_instance_of::<js_sys::RangeError>(), "{e:?}");
    assert!(message(&e).contains("maxChars (4)"), "{}", message(&e));
    assert_eq!(p.text().unwrap().as_string().unwrap(), "\"ab");
    assert_eq!(
        rs(&get(&p.push(JsValue::from_str("c")).unwrap(), "value")),
        json!("abc")
    );
    for (options, kind) in [
        (json!({"maxChars": -1}), "RangeError"),
        (json!({"maxChars": 1.5}), "RangeError"),
        (json!({"maxChars": "4"}), "TypeError"),
        (json!({"coerce": 1}), "TypeError"),
    ] {
        let e = JsPartialJson::new(JsValue::NULL, js(options.clone()))
            .err()
            .unwrap_or_else(|| panic!("{options} accepted"));
        let name = get(&e, "name").as_string().unwrap();
        assert_eq!(name, kind, "{options}: {}", message(&e));
        assert!(message(&e).contains("options."), "{}", message(&e));
    }
}

#[wasm_bindgen_test]
fn violations_are_definitive_only_and_sticky() {
    let p = stream(person(), json!({}));
    for chunk in ["{\"name\": \"Ada\", \"age\": 2", "0", "0"] {
        let u = p.push(JsValue::from_str(chunk)).unwrap();
        assert!(get(&u, "violation").is_null(), "after {chunk}");
    }
    let u = p.push(JsValue::from_str("1}")).unwrap();
    let v = get(&u, "violation");
    assert_eq!(rs(&get(&v, "path")), json!("/age"));
    assert_eq!(rs(&get(&u, "done")), json!(true));
    assert_eq!(rs(&get(&u, "closed")), json!(["/age", ""]));
    let again = p.push(JsValue::from_str(" ")).unwrap();
    assert!(
        is_same(&get(&again, "violation"), &v),
        "sticky: the same object"
    );
}

#[wasm_bindgen_test]
fn the_value_is_one_live_object_and_dunder_proto_is_a_member() {
    let p = stream(Value::Null, json!({}));
    let a = get(
        &p.push(JsValue::from_str("{\"__proto__\": 1, ")).unwrap(),
        "value",
    );
    let b = get(&p.push(JsValue::from_str("\"x\": 2}")).unwrap(), "value");
    assert!(is_same(&a, &b));
    assert!(proto_is_object(&b));
}

#[wasm_bindgen_test]
fn hostile_chunks_are_type_errors_and_the_stream_goes_on() {
    let p = stream(Value::Null, json!({}));
    for kind in ["object", "proxy", "symbol", "boxed", "undefined"] {
        let e = p.push(hostile(kind)).unwrap_err();
        assert_eq!(get(&e, "name").as_string().unwrap(), "TypeError", "{kind}");
        assert!(message(&e).contains("chunk"), "{kind}: {}", message(&e));
    }
    assert_eq!(
        rs(&get(&p.push(JsValue::from_str("[1]")).unwrap(), "value")),
        json!([1])
    );
}

#[wasm_bindgen_test]
fn repair_loop_push_and_a_reply_without_text() {
    let options = json!({"prompt": {"system": "s", "user": "u"}, "schema": person(), "seed": 7});
    let l = JsRepairLoop::new(js(options.clone()), JsValue::UNDEFINED).unwrap();
    let mut last = JsValue::UNDEFINED;
    for chunk in ["{\"name\": ", "5, \"age\""] {
        last = l.push(JsValue::from_str(chunk)).unwrap();
    }
    assert_eq!(rs(&get(&get(&last, "violation"), "path")), json!("/name"));
    let step = rs(&l
        .next(
            js(json!({"kind": "reply", "stopReason": "aborted"})),
            JsValue::from_f64(0.0),
        )
        .unwrap());
    assert_eq!(step["type"], "send-repair-prompt");
    assert_eq!(step["classified"]["signal"], "stream");
    assert!(step["prompt"]["user"]
        .as_str()
        .unwrap()
        .contains("{\"name\": 5, \"age\""));
    // The repair call streams on its own; a done ends the loop; push is then an Error.
    l.push(JsValue::from_str("{\"name\": \"Ada\", \"age\": 36}"))
        .unwrap();
    let done = rs(&l
        .next(js(json!({"kind": "reply"})), JsValue::from_f64(1.0))
        .unwrap());
    assert_eq!(done["type"], "done");
    assert_eq!(done["value"], json!({"name": "Ada", "age": 36}));
    let e = l.push(JsValue::from_str("x")).unwrap_err();
    assert_eq!(get(&e, "name").as_string().unwrap(), "Error");
    // Without pushes, a reply still needs its text.
    let fresh = JsRepairLoop::new(js(options), JsValue::UNDEFINED).unwrap();
    let e = fresh
        .next(js(json!({"kind": "reply"})), JsValue::from_f64(0.0))
        .unwrap_err();
    assert!(message(&e).contains("outcome.text"), "{}", message(&e));
}

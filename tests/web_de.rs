//! The catching serde `Deserializer` over JS values (`src/wasm/de.rs`), in headless Chromium.
//!
//! Run: `CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome -- --test web_de`
//! (with `--release` for the timing in `de_against_the_hand_reader_timing`).
//!
//! What it checks, layer by layer:
//!
//! * **Conversion**: every serde shape the options use (strings, numbers, whole numbers, `Option`,
//!   unit enums by serde name, internally tagged enums, structs, maps, arrays, JSON values) from
//!   real JS values, with the error kind (`TypeError`/`RangeError`) and the full field path.
//! * **Agreement with `new RepairLoop`**: the core's `LoopOptions` read by the Deserializer give
//!   the same loop as the class does, and every bad option in the `[path, value, kind]` table is
//!   refused with that kind, naming that field.
//! * **Hostile values** from tests/web_hostile.rs in every field: never a trap, a typed error
//!   naming the field, and limits checked before work (a sparse array of length 2^32−1, a
//!   100,000-deep object, a cycle, an object that repeats itself as its own children).
#![cfg(target_arch = "wasm32")]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use std::collections::BTreeMap;

use js_sys::{Array, Reflect, JSON};
use serde::Deserialize;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use selfheal::wasm::de::{from_js, from_js_with, Keys, Limits};
use selfheal::wasm::JsRepairLoop;
use selfheal::{
    ChainStep, Compaction, FallbackPlan, Instruction, LadderStep, Locale, LoopOptions, Mode,
    RepairLoop, Verdict,
};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
const revoked = (target) => { const { proxy, revoke } = Proxy.revocable(target, {}); revoke(); return proxy; };

/// [name, value] pairs: the hostile values of tests/web_hostile.rs (64 KB strings).
export function hostileValues() {
  const cyclic = { kind: 'reply', text: '{}', prompt: { system: 's', user: 'u' } };
  cyclic.self = cyclic;
  const selfProxy = new Proxy({}, {
    get: (t, k, receiver) => (k === 'toJSON' || typeof k === 'symbol' ? undefined : receiver),
    ownKeys: () => ['a'],
    getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }),
  });
  const allTrapsThrow = new Proxy({}, Object.fromEntries(
    ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'set', 'defineProperty']
      .map((t) => [t, () => { throw new Error(t + ' trap boom'); }])));
  return [
    ['undefined', undefined], ['null', null], ['true', true], ['NaN', NaN], ['Infinity', Infinity],
    ['-Infinity', -Infinity], ['-0', -0], ['-1', -1], ['1.5', 1.5], ['2**53+2', 2 ** 53 + 2],
    ['MAX_VALUE', Number.MAX_VALUE], ['symbol', Symbol('hostile')], ['bigint', 10n ** 30n],
    ['emptyString', ''], ['loneSurrogates', '\uD800 \uDFFF x\uDBFF'],
    ['longString', 'x'.repeat(65536)], ['function', function hostile() {}], ['array', [1, 2, 3]],
    ['hugeSparseArray', Object.assign([], { length: 2 ** 32 - 1 })],
    ['cyclic', cyclic], ['deep', deepObject(100000)], ['selfProxy', selfProxy],
    ['throwingGetters', new Proxy({}, { get() { throw new Error('get trap boom'); } })],
    ['allTrapsThrow', allTrapsThrow], ['revoked', revoked({})], ['revokedArray', revoked([])],
    ['nullProto', Object.create(null)], ['throwingToJSON', { toJSON() { throw new Error('toJSON boom'); } }],
    ['invalidDate', new Date(NaN)], ['map', new Map([['a', 1]])],
    ['typedArray', new Uint8Array(16)], ['boxedString', new String('fix')],
  ];
}

export function deepObject(depth) {
  const root = {};
  let o = root;
  for (let i = 0; i < depth; i++) { o.a = {}; o = o.a; }
  return root;
}

/// An object whose every level holds the level below twice: 2^depth leaves, `depth` deep.
export function repeating(depth) {
  let o = {};
  for (let i = 0; i < depth; i++) o = { a: o, b: o };
  return o;
}

/// A structured clone of `base` with `path` (dotted) set to `value`.
export function withField(base, path, value) {
  const o = structuredClone(base);
  const keys = path.split('.');
  let t = o;
  for (const k of keys.slice(0, -1)) { if (typeof t[k] !== 'object' || t[k] === null) t[k] = {}; t = t[k]; }
  t[keys[keys.length - 1]] = value;
  return o;
}

export function withThrowingGetter(base, key) {
  const o = structuredClone(base);
  Object.defineProperty(o, key, { enumerable: true, get() { throw new Error(key + ' getter boom'); } });
  return o;
}

export function hugeArrayProxy() {
  return new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 32 - 1 : 'x') });
}

export function revokedProxy() { return revoked({}); }
export function nan() { return NaN; }
export function date(ms) { return new Date(ms); }
export function symbol() { return Symbol('s'); }
export function bigint() { return 10n; }
export function jsonOf(v) { return JSON.parse(JSON.stringify(v)); }
export function now() { return performance.now(); }

/// Runs `f` in a JS try: { trapped, error } so a wasm trap is caught and named.
export function guard(f) {
  try {
    f();
    return { trapped: false, error: undefined };
  } catch (e) {
    return { trapped: e instanceof WebAssembly.RuntimeError, error: e };
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = hostileValues)]
    fn hostile_values() -> Array;
    #[wasm_bindgen(js_name = deepObject)]
    fn deep_object(depth: u32) -> JsValue;
    fn repeating(depth: u32) -> JsValue;
    #[wasm_bindgen(js_name = withField)]
    fn with_field(base: &JsValue, path: &str, value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = withThrowingGetter)]
    fn with_throwing_getter(base: &JsValue, key: &str) -> JsValue;
    #[wasm_bindgen(js_name = hugeArrayProxy)]
    fn huge_array_proxy() -> JsValue;
    #[wasm_bindgen(js_name = revokedProxy)]
    fn revoked_proxy() -> JsValue;
    fn nan() -> JsValue;
    fn date(ms: f64) -> JsValue;
    fn symbol() -> JsValue;
    fn bigint() -> JsValue;
    #[wasm_bindgen(js_name = jsonOf)]
    fn json_of(v: &JsValue) -> JsValue;
    fn now() -> f64;
    fn guard(f: &Closure<dyn FnMut() -> Result<(), JsValue>>) -> JsValue;
}

// ---------------------------------------------------------------- helpers

fn js(v: Value) -> JsValue {
    JSON::parse(&v.to_string()).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Type,
    Range,
}

/// The kind of a thrown selfheal error and its message.
fn thrown(e: &JsValue) -> (Kind, String) {
    let message = get(e, "message").as_string().unwrap_or_default();
    if e.is_instance_of::<js_sys::RangeError>() {
        (Kind::Range, message)
    } else if e.is_instance_of::<js_sys::TypeError>() {
        (Kind::Type, message)
    } else {
        panic!("not a TypeError or RangeError: {e:?}")
    }
}

/// `r` failed with `kind` and a message that names `field` as the field (`selfheal: field ...`).
#[track_caller]
fn assert_refused<T: std::fmt::Debug>(r: Result<T, JsValue>, kind: Kind, field: &str) -> String {
    assert_refused_within(r, kind, &format!("{field} "))
}

/// [`assert_refused`] for a field whose path starts with `prefix` (deep and cyclic values).
#[track_caller]
fn assert_refused_within<T: std::fmt::Debug>(
    r: Result<T, JsValue>,
    kind: Kind,
    prefix: &str,
) -> String {
    let e = r.expect_err(&format!("{prefix}: expected a {kind:?}Error"));
    let (got, message) = thrown(&e);
    assert_eq!(got, kind, "{message}");
    assert!(
        message.starts_with(&format!("selfheal: {prefix}")),
        "{message:?} does not name {prefix}"
    );
    message
}

// ---------------------------------------------------------------- LoopOptions

/// `null` kept apart from absent (`selfheal::wire::nullable`).
use selfheal::wire::nullable;

/// Deserialize, then `check()`: the core path of `new RepairLoop`, without the class (no schema,
/// rules or drawn seed; seed 0 when none is given).
fn loop_by_de(options: &JsValue) -> Result<RepairLoop, JsValue> {
    let o: LoopOptions = from_js(options, "options")?;
    RepairLoop::new(o.resolve(0), None).map_err(|e| {
        let kind = if e.is_range {
            "RangeError"
        } else {
            "TypeError"
        };
        let message = format!("selfheal: options.{} {}", e.field, e.message);
        if kind == "RangeError" {
            js_sys::RangeError::new(&message).into()
        } else {
            js_sys::TypeError::new(&message).into()
        }
    })
}

/// A JS value as JSON (`JSON.stringify`), so numbers compare as JS sees them (`500` = `500.0`).
fn rs(v: &JsValue) -> Value {
    serde_json::from_str(&JSON::stringify(v).unwrap().as_string().unwrap()).unwrap()
}

/// A state without its seed: options without `seed` get a random one from `new RepairLoop`.
fn without_seed(mut state: Value) -> Value {
    state["options"]["seed"] = Value::Null;
    state["state"]["rng"] = Value::Null;
    state
}

/// The loop `new RepairLoop` makes, as its `toJSON` state.
fn loop_by_hand(options: &JsValue) -> Result<Value, JsValue> {
    let l = JsRepairLoop::new(options.clone(), JsValue::UNDEFINED)?;
    Ok(rs(&l.to_json()?))
}

/// A loop's state as `toJSON` gives it.
fn state_of(l: &RepairLoop) -> Value {
    rs(&js(serde_json::to_value(l.to_snapshot()).unwrap()))
}

fn base_options() -> Value {
    json!({
        "prompt": { "system": "Reply with JSON.", "user": "Where is the Eiffel Tower?" },
        "seed": 7,
    })
}

// ---------------------------------------------------------------- agreement with `new RepairLoop`

#[wasm_bindgen_test]
fn loop_options_read_as_new_repair_loop_reads_them() {
    let cases = [
        base_options(),
        json!({
            "prompt": { "system": "s", "user": "u" },
            "mode": "reask",
            "alternatePrompt": { "system": "s2", "user": "u2" },
            "fallback": { "mode": "template", "templateId": "t1", "text": "Sorry." },
            "budget": { "transient": 2, "repairable": 0, "semanticInvalid": 3,
                        "costCeilingUsd": 0.5, "deadlineMs": 30000, "maxPromptChars": null },
            "backoff": { "baseMs": 10, "maxMs": 20, "jitter": "equal", "jitterMs": 0, "maxRetryAfterMs": 5 },
            "localRepair": false, "locale": "ja", "maxRawChars": 0, "seed": -3,
            "unknownOption": { "ignored": true },
        }),
        json!({
            "prompt": { "system": "", "user": "" },
            "fallback": { "mode": "human", "queue": "q" },
            "budget": { "costCeilingUsd": null, "deadlineMs": null, "transient": null },
            "backoff": { "jitter": "none" }, "mode": "fix", "locale": null, "seed": 1.5,
        }),
        json!({ "prompt": { "system": "s", "user": "u" }, "mode": "reask", "budget": {}, "seed": 2 }),
    ];
    for options in cases {
        let o = js(options.clone());
        let by_de = state_of(&loop_by_de(&o).unwrap());
        assert_eq!(by_de, loop_by_hand(&o).unwrap(), "options: {options}");
    }
}

/// `[path, value, kind]`: each bad option is refused by both readers, with the same kind,
/// naming the same field.
#[wasm_bindgen_test]
fn bad_options_are_refused_alike() {
    let n = |x: f64| JsValue::from_f64(x);
    let s = |x: &str| JsValue::from_str(x);
    let table: Vec<(&str, JsValue, Kind)> = vec![
        ("prompt", s("hello"), Kind::Type),
        ("prompt.user", JsValue::UNDEFINED, Kind::Type),
        ("prompt.system", n(1.0), Kind::Type),
        ("mode", s("fast"), Kind::Type),
        ("mode", n(1.0), Kind::Type),
        ("alternatePrompt", s("x"), Kind::Type),
        ("alternatePrompt.system", JsValue::NULL, Kind::Type),
        ("fallback", s("human"), Kind::Type),
        ("fallback", js(json!({ "mode": "email" })), Kind::Type),
        ("fallback", js(json!({ "mode": "human" })), Kind::Type),
        (
            "fallback",
            js(json!({ "mode": "template", "templateId": "t" })),
            Kind::Type,
        ),
        ("budget", s("big"), Kind::Type),
        ("budget.transient", n(-1.0), Kind::Range),
        ("budget.transient", n(1.5), Kind::Range),
        ("budget.transient", nan(), Kind::Range),
        ("budget.transient", s("3"), Kind::Type),
        ("budget.transient", n(4_294_967_296.0), Kind::Range),
        ("budget.repairable", n(f64::INFINITY), Kind::Range),
        ("budget.semanticInvalid", bigint(), Kind::Type),
        ("budget.costCeilingUsd", nan(), Kind::Range),
        ("budget.costCeilingUsd", n(-0.5), Kind::Range),
        ("budget.deadlineMs", n(-5.0), Kind::Range),
        ("budget.maxPromptChars", n(0.5), Kind::Range),
        ("backoff", n(3.0), Kind::Type),
        ("backoff.baseMs", nan(), Kind::Range),
        ("backoff.maxMs", n(-1.0), Kind::Range),
        ("backoff.jitter", s("gaussian"), Kind::Type),
        ("backoff.jitter", n(1.0), Kind::Type),
        ("backoff.jitterMs", n(-1.0), Kind::Range),
        ("backoff.maxRetryAfterMs", n(f64::NEG_INFINITY), Kind::Range),
        ("localRepair", s("yes"), Kind::Type),
        ("locale", s("fr"), Kind::Type),
        ("locale", symbol(), Kind::Type),
        ("maxRawChars", n(-1.0), Kind::Range),
        ("maxReplyChars", n(-1.0), Kind::Range),
        ("maxReplyChars", s("big"), Kind::Type),
        ("coerce", s("yes"), Kind::Type),
        ("seed", nan(), Kind::Range),
        ("seed", s("1"), Kind::Type),
    ];
    let base = js(base_options());
    for (path, value, kind) in table {
        let options = with_field(&base, path, &value);
        let hand = loop_by_hand(&options).map(drop);
        let (hand_kind, hand_message) = thrown(&hand.expect_err(path));
        let hand_field = hand_message
            .strip_prefix("selfheal: ")
            .and_then(|m| m.split(' ').next())
            .unwrap()
            .to_string();
        assert_eq!(hand_kind, kind, "today's reader on {path}: {hand_message}");
        let message = assert_refused(loop_by_de(&options).map(drop), kind, &hand_field);
        assert!(
            hand_field.starts_with(&format!("options.{path}")) || path.starts_with("fallback"),
            "{path}: today's reader names {hand_field}"
        );
        assert!(!message.contains('\n'), "{message}");
    }
}

#[wasm_bindgen_test]
fn missing_and_unreadable_fields_are_named() {
    assert_refused(loop_by_de(&js(json!({}))), Kind::Type, "options.prompt");
    assert_refused(loop_by_de(&JsValue::UNDEFINED), Kind::Type, "options");
    assert_refused(loop_by_de(&js(json!([1]))), Kind::Type, "options");
    let m = assert_refused(
        loop_by_de(&with_field(
            &js(base_options()),
            "fallback",
            &js(json!({ "mode": "email" })),
        )),
        Kind::Type,
        "options.fallback.mode",
    );
    assert!(
        m.ends_with(r#"must be "human" or "template", got "email""#),
        "{m}"
    );
    assert_refused(
        loop_by_de(&with_field(
            &js(base_options()),
            "fallback",
            &js(json!({ "mode": "human" })),
        )),
        Kind::Type,
        "options.fallback.queue",
    );
    let m = assert_refused(
        loop_by_de(&with_throwing_getter(&js(base_options()), "budget")),
        Kind::Type,
        "options.budget",
    );
    assert!(m.contains("could not be read: budget getter boom"), "{m}");
    let nested = with_field(
        &js(base_options()),
        "backoff",
        &with_throwing_getter(&js(json!({})), "maxMs"),
    );
    assert_refused(loop_by_de(&nested), Kind::Type, "options.backoff.maxMs");
    assert_refused(loop_by_de(&revoked_proxy()), Kind::Type, "options.prompt");
    // `Array.isArray` throws on it (caught: not an array), then its first field cannot be read.
    let revoked_budget = with_field(&js(base_options()), "budget", &revoked_proxy());
    assert_refused(
        loop_by_de(&revoked_budget),
        Kind::Type,
        "options.budget.transient",
    );
    let m = assert_refused(
        loop_by_de(&with_field(&js(base_options()), "backoff.jitter", &s("x"))),
        Kind::Type,
        "options.backoff.jitter",
    );
    assert!(
        m.ends_with(r#"must be "additive", "full", "equal" or "none", got "x""#),
        "{m}"
    );
}

fn s(x: &str) -> JsValue {
    JsValue::from_str(x)
}

/// Unknown options are never read: a throwing getter there changes nothing.
#[wasm_bindgen_test]
fn unknown_fields_are_not_read() {
    let options = with_throwing_getter(&js(base_options()), "somethingElse");
    assert!(loop_by_de(&options).is_ok());
    assert!(loop_by_hand(&options).is_ok());
}

// ---------------------------------------------------------------- hostile values

/// Every hostile value in every option field: a loop, or a typed error naming the field.
/// Where today's reader accepts a value, the Deserializer does too, with the same loop.
#[wasm_bindgen_test]
fn hostile_values_in_every_field() {
    let paths = [
        "",
        "prompt",
        "prompt.system",
        "prompt.user",
        "mode",
        "alternatePrompt",
        "fallback",
        "fallback.queue",
        "budget",
        "budget.transient",
        "budget.costCeilingUsd",
        "budget.maxPromptChars",
        "backoff",
        "backoff.baseMs",
        "backoff.jitter",
        "localRepair",
        "locale",
        "maxRawChars",
        "seed",
    ];
    let base = js(json!({
        "prompt": { "system": "s", "user": "u" }, "seed": 7,
        "fallback": { "mode": "human", "queue": "q" },
    }));
    let mut problems = Vec::new();
    for pair in hostile_values().iter() {
        let pair: Array = pair.into();
        let (name, value) = (pair.get(0).as_string().unwrap(), pair.get(1));
        for path in paths {
            let options = if path.is_empty() {
                value.clone()
            } else {
                with_field(&base, path, &value)
            };
            let field = if path.is_empty() {
                "options".to_string()
            } else {
                format!("options.{path}")
            };
            let o = options.clone();
            let by_de = std::rc::Rc::new(std::cell::RefCell::new(None));
            let out = by_de.clone();
            let call = Closure::wrap(Box::new(move || {
                *out.borrow_mut() = Some(loop_by_de(&o).map(|l| state_of(&l)));
                Ok(())
            }) as Box<dyn FnMut() -> Result<(), JsValue>>);
            let guarded = guard(&call);
            if get(&guarded, "trapped").as_bool() == Some(true) {
                problems.push(format!("{name} at {field}: TRAPPED"));
                continue;
            }
            let result = by_de.borrow_mut().take().unwrap();
            let hand = loop_by_hand(&options);
            match (result, hand) {
                (Ok(by_de), Ok(state)) => {
                    if without_seed(by_de) != without_seed(state) {
                        problems.push(format!("{name} at {field}: another loop than today's"));
                    }
                }
                (Err(e), Err(_)) => {
                    let (_, message) = thrown(&e);
                    // The field itself or a field inside it (a revoked proxy as `prompt`
                    // fails at `prompt.system`); a member of the tagged `fallback` of the
                    // wrong type is reported at `fallback` (see src/wasm/de.rs).
                    let named = if path.starts_with("fallback") {
                        "options.fallback"
                    } else {
                        &field
                    };
                    if !message.starts_with(&format!("selfheal: {named}")) {
                        problems.push(format!("{name} at {field}: does not name it: {message}"));
                    }
                }
                (Ok(_), Err(e)) => problems.push(format!(
                    "{name} at {field}: accepted, today refused: {}",
                    thrown(&e).1
                )),
                (Err(e), Ok(_)) => problems.push(format!(
                    "{name} at {field}: refused, today accepted: {}",
                    thrown(&e).1
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

// ---------------------------------------------------------------- limits

#[derive(Debug, Deserialize)]
struct Lists {
    names: Option<Vec<String>>,
    #[serde(default, deserialize_with = "selfheal::wire::any_json")]
    json: Value,
    any: Option<Value>,
}

/// Time of `f` in ms.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = now();
    let out = f();
    (out, now() - start)
}

#[wasm_bindgen_test]
fn limits_are_checked_before_any_work() {
    let sparse = js_sys::eval("Object.assign([], { length: 2 ** 32 - 1 })").unwrap();
    let sparse = with_field(&js(json!({})), "names", &sparse);
    let (r, ms) = timed(|| from_js::<Lists>(&sparse, "options"));
    let m = assert_refused(r, Kind::Range, "options.names");
    assert!(m.contains("at most 1000000 items, got 4294967295"), "{m}");
    assert!(ms < 100.0, "{ms} ms");

    let proxy = with_field(&js(json!({})), "names", &huge_array_proxy());
    let (r, ms) = timed(|| from_js::<Lists>(&proxy, "options"));
    assert_refused(r, Kind::Range, "options.names");
    assert!(ms < 100.0, "{ms} ms");

    let deep = with_field(&js(json!({})), "any", &deep_object(100_000));
    let (r, ms) = timed(|| from_js::<Lists>(&deep, "options"));
    let m = assert_refused_within(r, Kind::Type, "options.any.a.a.a");
    assert!(m.contains("nested deeper than 128 levels"), "{m}");
    assert!(ms < 500.0, "{ms} ms");

    let cyclic =
        js_sys::eval("(() => { const o = { any: {} }; o.any.self = o.any; return o; })()").unwrap();
    assert_refused_within(
        from_js::<Lists>(&cyclic, "options"),
        Kind::Type,
        "options.any.self.self",
    );

    // 2^40 leaves, 41 levels: the count of values read stops it, not the depth.
    let dag = with_field(&js(json!({})), "any", &repeating(40));
    let small = Limits {
        values: 10_000,
        ..Limits::DEFAULT
    };
    let (r, ms) = timed(|| from_js_with::<Lists>(&dag, "options", small, Keys::Declared));
    let m = assert_refused_within(r, Kind::Range, "options.any.");
    assert!(m.contains("more than 10000 values"), "{m}");
    assert!(ms < 2000.0, "{ms} ms");

    let keys = js_sys::eval(
        "({ any: Object.fromEntries(Array.from({ length: 10001 }, (_, i) => ['k' + i, i])) })",
    )
    .unwrap();
    let m = assert_refused(
        from_js::<Lists>(&keys, "options"),
        Kind::Range,
        "options.any",
    );
    assert!(m.contains("at most 10000 keys, got 10001"), "{m}");
}

// ---------------------------------------------------------------- shapes

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Shapes {
    text: Option<String>,
    count: Option<u32>,
    big: Option<u64>,
    signed: Option<i32>,
    ratio: Option<f64>,
    flag: Option<bool>,
    pair: Option<(String, u32)>,
    list: Option<Vec<u32>>,
    rules: Option<BTreeMap<String, u32>>,
    #[serde(default, alias = "\u{0}null", deserialize_with = "nullable")]
    nullable: Option<Option<u32>>,
    #[serde(default, alias = "\u{0}null 2", deserialize_with = "selfheal::wire::present_json")]
    default_value: Option<Value>,
    /// `null` is absent here: the default.
    #[serde(default = "seven")]
    seven: u32,
}

fn seven() -> u32 {
    7
}

#[wasm_bindgen_test]
fn every_shape_from_js() {
    let o = js_sys::eval(
        r#"({ text: "héllo \uD800", count: 4294967295, big: 9007199254740991, signed: -2147483648,
              ratio: -0.25, flag: false, pair: ["a", 1], list: [], rules: { b: 2, a: 1 },
              nullable: null, defaultValue: null, seven: null, ignored: Symbol("x") })"#,
    )
    .unwrap();
    let got: Shapes = from_js(&o, "o").unwrap();
    assert_eq!(
        got,
        Shapes {
            text: Some("héllo \u{FFFD}".into()),
            count: Some(u32::MAX),
            big: Some(9_007_199_254_740_991),
            signed: Some(i32::MIN),
            ratio: Some(-0.25),
            flag: Some(false),
            pair: Some(("a".into(), 1)),
            list: Some(vec![]),
            rules: Some(BTreeMap::from([("a".into(), 1), ("b".into(), 2)])),
            nullable: Some(None),
            default_value: Some(Value::Null),
            seven: 7,
        }
    );
    let empty: Shapes = from_js(&js(json!({})), "o").unwrap();
    assert_eq!((empty.nullable, empty.default_value), (None, None));

    let n = JsValue::from_f64;
    let bad: Vec<(&str, JsValue, Kind, &str)> = vec![
        ("count", n(-1.0), Kind::Range, "o.count"),
        ("big", n(9_007_199_254_740_992.0), Kind::Range, "o.big"),
        ("signed", n(2_147_483_648.0), Kind::Range, "o.signed"),
        ("ratio", nan(), Kind::Range, "o.ratio"),
        ("ratio", s("1"), Kind::Type, "o.ratio"),
        ("flag", n(0.0), Kind::Type, "o.flag"),
        ("pair", js(json!(["a"])), Kind::Range, "o.pair"),
        ("pair", js(json!(["a", "b"])), Kind::Type, "o.pair[1]"),
        ("list", js(json!([1, 2, -3])), Kind::Range, "o.list[2]"),
        ("list", js(json!({ "0": 1 })), Kind::Type, "o.list"),
        (
            "rules",
            js(json!({ "a": 1, "b": "x" })),
            Kind::Type,
            "o.rules.b",
        ),
        ("rules", js(json!([1])), Kind::Type, "o.rules"),
        ("nullable", n(0.5), Kind::Range, "o.nullable"),
        ("text", symbol(), Kind::Type, "o.text"),
        ("defaultValue", bigint(), Kind::Type, "o.defaultValue"),
    ];
    for (key, value, kind, field) in bad {
        let o = with_field(&js(json!({})), key, &value);
        assert_refused(from_js::<Shapes>(&o, "o"), kind, field);
    }
}

/// `any_json` fields read what `JSON.stringify` gives: toJSON, NaN as null, exact numbers.
#[wasm_bindgen_test]
fn json_fields_are_what_json_stringify_gives() {
    let v = js_sys::eval(
        r#"({ at: new Date(0), n: NaN, big: 2 ** 53 + 2, neg: -0, skip: undefined, f() {},
              list: [undefined, () => 1, 1e300], nested: { s: new String("x") } })"#,
    )
    .unwrap();
    let o = with_field(&js(json!({})), "json", &v);
    let got: Lists = from_js(&o, "o").unwrap();
    let expected: Value =
        serde_json::from_str(&JSON::stringify(&json_of(&v)).unwrap().as_string().unwrap()).unwrap();
    assert_eq!(got.json, expected);
    assert_eq!(got.json["at"], "1970-01-01T00:00:00.000Z");
    let throwing =
        js_sys::eval("({ json: { toJSON() { throw new Error('toJSON boom'); } } })").unwrap();
    let m = assert_refused(from_js::<Lists>(&throwing, "o"), Kind::Type, "o.json");
    assert!(m.contains("toJSON boom"), "{m}");
}

/// Data read without a type (`deserialize_any`): tagged enums and plain values.
#[wasm_bindgen_test]
fn untyped_data_reads_as_json_would() {
    let v =
        js_sys::eval(r#"({ any: { a: [1, -2, 2.5, "s", true, null, { b: {} }], u: undefined } })"#)
            .unwrap();
    let got: Lists = from_js(&v, "o").unwrap();
    assert_eq!(got.names, None);
    assert_eq!(
        got.any,
        Some(json!({ "a": [1, -2, 2.5, "s", true, null, { "b": {} }] }))
    );
    let names: Lists = from_js(&js(json!({ "names": ["a", "b"] })), "o").unwrap();
    assert_eq!(names.names, Some(vec!["a".to_string(), "b".to_string()]));
    for bad in [
        "({ any: { a: 1n } })",
        "({ any: [Symbol()] })",
        "({ any: { n: NaN } })",
    ] {
        let v = js_sys::eval(bad).unwrap();
        let r = from_js::<Lists>(&v, "o");
        assert!(r.is_err(), "{bad}");
        let (_, message) = thrown(&r.unwrap_err());
        assert!(message.starts_with("selfheal: o.any"), "{message}");
    }
}

/// `Keys::All` lets `deny_unknown_fields` refuse extras; the default reads declared fields only.
#[wasm_bindgen_test]
fn unknown_fields_refused_only_where_the_type_says_so() {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        #[allow(dead_code)]
        a: Option<u32>,
    }
    let o = js(json!({ "a": 1, "extra": 2 }));
    let m = assert_refused(
        from_js_with::<Strict>(&o, "o", Limits::DEFAULT, Keys::All),
        Kind::Type,
        "o.extra",
    );
    assert!(m.contains("is not a known field"), "{m}");
    assert!(from_js::<Strict>(&o, "o").is_ok());
    assert!(
        from_js_with::<Strict>(&js(json!({ "a": 1 })), "o", Limits::DEFAULT, Keys::All).is_ok()
    );
}

/// Under `Keys::All` an unknown field's value is read as JSON data and dropped: a cyclic extra
/// is refused (it would be by `JSON.stringify`), a plain one is not; the default never reads it.
#[wasm_bindgen_test]
fn unknown_values_are_json_data_under_keys_all() {
    #[derive(Debug, Deserialize)]
    struct Lax {
        a: Option<u32>,
    }
    let cyclic = js_sys::eval("(() => { const o = { a: 1 }; o.self = o; return o; })()").unwrap();
    let m = assert_refused_within(
        from_js_with::<Lax>(&cyclic, "o", Limits::DEFAULT, Keys::All),
        Kind::Type,
        "o.self",
    );
    assert!(m.contains("cyclic"), "{m}");
    assert_eq!(from_js::<Lax>(&cyclic, "o").unwrap().a, Some(1));
    let extra = js(json!({ "a": 2, "extra": { "deep": [1, "x", null] } }));
    let read = from_js_with::<Lax>(&extra, "o", Limits::DEFAULT, Keys::All).unwrap();
    assert_eq!(read.a, Some(2));
}

#[wasm_bindgen_test]
fn enums_by_their_serde_names() {
    for (name, mode) in [("fix", Mode::Fix), ("reask", Mode::Reask)] {
        assert_eq!(from_js::<Mode>(&s(name), "mode").unwrap(), mode);
    }
    for (name, locale) in [("en", Locale::En), ("ja", Locale::Ja), ("zh", Locale::Zh)] {
        assert_eq!(from_js::<Locale>(&s(name), "locale").unwrap(), locale);
    }
    let m = assert_refused(from_js::<Locale>(&s("EN"), "locale"), Kind::Type, "locale");
    assert!(
        m.ends_with(r#"must be "en", "ja" or "zh", got "EN""#),
        "{m}"
    );
    assert_refused(from_js::<Mode>(&date(0.0), "mode"), Kind::Type, "mode");
    let plan: FallbackPlan = from_js(
        &js(json!({ "mode": "human", "queue": "q", "extra": [1] })),
        "f",
    )
    .unwrap();
    assert_eq!(plan, FallbackPlan::Human { queue: "q".into() });
}

/// The internally tagged enums (`wire::tagged_enum!`) are read in wasm without serde's `Content`
/// buffering: the tag first, then the variant's fields from the same object. Each shape the
/// JS API gives out reads back to the value that serialises to it, field for field, under both
/// key rules; a bad tag or member is named exactly.
#[wasm_bindgen_test]
fn internally_tagged_enums_read_back_what_they_write() {
    fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(shape: Value) {
        for keys in [Keys::Declared, Keys::All] {
            let read: T = from_js_with(&js(shape.clone()), "x", Limits::DEFAULT, keys).unwrap();
            assert_eq!(serde_json::to_value(&read).unwrap(), shape, "{keys:?}");
        }
    }
    let prompt = json!({ "system": "s", "user": "u" });
    let classified = json!({ "class": "transient", "cause": "overloaded", "reason": "HTTP 503",
        "signal": "status", "retryAfterMs": null });
    round_trip::<FallbackPlan>(json!({ "mode": "human", "queue": "q" }));
    round_trip::<FallbackPlan>(json!({ "mode": "template", "templateId": "t", "text": "x" }));
    round_trip::<Instruction>(json!({ "type": "wait-for-backoff", "delayMs": 1141.5,
        "prompt": prompt, "attempt": 2, "classified": classified }));
    round_trip::<Instruction>(json!({ "type": "send-repair-prompt", "prompt": prompt,
        "attempt": 3, "strategy": "fix", "classified": classified }));
    round_trip::<Instruction>(
        json!({ "type": "done", "value": { "a": [1, null] }, "text": "{}",
        "source": "repaired", "fixes": ["trailing-comma"], "attempts": 2, "costUsd": 0.5,
        "validated": false }),
    );
    round_trip::<Instruction>(json!({ "type": "degrade", "reason": "repair-failed",
        "detail": "d", "fallback": { "mode": "human", "queue": "q" },
        "report": { "kinds": ["schema"], "issues": [{ "kind": "schema", "path": "",
            "message": "m" }] },
        "classified": null, "attempts": 3, "costUsd": 0.0 }));
    round_trip::<Verdict>(json!({ "action": "continue" }));
    round_trip::<Verdict>(json!({ "action": "intervene", "reason": "r",
        "strategy": "break_loop" }));
    round_trip::<Verdict>(json!({ "action": "review", "prompt": prompt }));
    round_trip::<LadderStep>(
        json!({ "type": "send", "level": "minimal", "prompt": prompt,
        "useTools": false, "model": null }),
    );
    round_trip::<LadderStep>(json!({ "type": "final", "level": "minimal", "text": "hi" }));
    round_trip::<ChainStep>(json!({ "type": "call", "tool": "a", "timeoutMs": 5.0,
        "fallback": false }));
    round_trip::<ChainStep>(json!({ "type": "exhausted", "tried": ["a", "b"] }));
    round_trip::<Compaction>(json!({ "action": "none", "estimatedTokens": 12 }));

    let bad = |v: Value| from_js::<Instruction>(&js(v), "x");
    let m = assert_refused(bad(json!({ "type": "finished" })), Kind::Type, "x.type");
    assert!(m.contains(r#"got "finished""#), "{m}");
    assert_refused(bad(json!({ "attempt": 1 })), Kind::Type, "x.type");
    assert_refused(bad(json!({ "type": 7 })), Kind::Type, "x.type");
    assert_refused(bad(json!(["done"])), Kind::Type, "x");
    assert_refused(
        bad(
            json!({ "type": "send-repair-prompt", "prompt": prompt, "attempt": "3",
            "strategy": "fix", "classified": classified }),
        ),
        Kind::Type,
        "x.attempt",
    );
}

// ---------------------------------------------------------------- timing

/// `new RepairLoop(options)` against its core path (deserialize + resolve + `RepairLoop::new`)
/// on the same options: what the class adds around the Deserializer (the schema and rules
/// reads, the registry). Prints the figures (`--release` for meaningful ones; the before/after
/// comparison with the hand readers is bench/compare.mjs, docs/PERFORMANCE.md) and checks both
/// gave the same loop.
#[wasm_bindgen_test]
fn class_against_core_path_timing() {
    let options = js(json!({
        "prompt": { "system": "Reply with JSON.", "user": "Where is the Eiffel Tower?" },
        "mode": "fix",
        "budget": { "transient": 3, "costCeilingUsd": 0.5 },
        "backoff": { "baseMs": 500, "jitter": "full" },
        "fallback": { "mode": "human", "queue": "support" },
        "locale": "en",
        "seed": 7,
    }));
    let by_de = state_of(&loop_by_de(&options).unwrap());
    assert_eq!(by_de, loop_by_hand(&options).unwrap());
    // Interleaved rounds (the machine is shared): the median of the per-round ratios.
    const N: u32 = 2_000;
    const ROUNDS: usize = 15;
    let (mut hand, mut de, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let (_, h) = timed(|| {
            for _ in 0..N {
                drop(JsRepairLoop::new(options.clone(), JsValue::UNDEFINED).unwrap());
            }
        });
        let (_, d) = timed(|| {
            for _ in 0..N {
                drop(loop_by_de(&options).unwrap());
            }
        });
        hand.push(h * 1000.0 / f64::from(N));
        de.push(d * 1000.0 / f64::from(N));
        ratios.push(d / h);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    console_log!(
        "options → RepairLoop, median of {ROUNDS} interleaved rounds × {N}: class {:.2} µs, \
         core path {:.2} µs, ratio {:.3}",
        median(&mut hand),
        median(&mut de),
        median(&mut ratios)
    );
}

//! Hostile input at the wasm boundary, in real headless Chromium.
//!
//! Run: `CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome -- --test web_hostile`
//!
//! Every export (`classify`, `repairJson`, `Schema`, `parseStructured`, the agent toolkit,
//! `buildRepairPrompt`, `RepairLoop` constructor/`next`/`abort`/`fromJSON`,
//! `CircuitBreaker`) gets every hostile value in every argument and in the
//! nested option fields: cyclic objects, getters and proxy traps that throw,
//! revoked proxies, a proxy that is its own every property, symbols, BigInt,
//! NaN/±Infinity, negative and fractional numbers, 10 MB strings, lone
//! surrogates, 100,000-deep objects, `toJSON` that throws. The long strings
//! are 10 MB in the text arguments (`text`, `raw`) and 64 KB elsewhere: the
//! test runner gives a whole file 20 s, and the debug build is slow on
//! megabytes; tests/js/reliability.test.mjs sends 10 MB everywhere to the
//! release build. Each call must
//! return a result or throw a `TypeError`/`RangeError` naming the argument;
//! none may trap (a `WebAssembly.RuntimeError`), and the module must keep
//! working. Each call runs inside a JS `try` (see `guard`), so a trap is
//! reported with the call that caused it instead of aborting the run.
//!
//! This is the debug build (overflow checks on), so arithmetic that would only
//! wrap silently in the release build traps here. tests/web.rs checks the
//! individual messages; this file sweeps the whole matrix.
#![cfg(target_arch = "wasm32")]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use js_sys::{Array, Reflect, JSON};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use selfheal::wasm::classify;
use selfheal::wasm::structured_js::{build_repair_prompt, parse_structured, repair_json, JsSchema};
use selfheal::wasm::{JsCircuitBreaker, JsRepairLoop};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
function deepObject(depth) {
  const root = {};
  let o = root;
  for (let i = 0; i < depth; i++) { o.a = {}; o = o.a; }
  return root;
}

const cache = new Map();
/// [name, value] pairs, built once per size. `big`: the long strings are 10 MB
/// (the nested sweep uses 64 KB ones: every field is copied the same way, and
/// the test runner gives the whole file 20 s).
export function hostileValues(big) {
  if (!cache.has(big)) cache.set(big, build(big ? 10 * 1024 * 1024 : 64 * 1024));
  return cache.get(big);
}

function build(long) {
  const cyclic = { type: 'object', kind: 'reply', text: '{}', prompt: { system: 's', user: 'u' } };
  cyclic.self = cyclic;
  cyclic.properties = { a: cyclic };
  cyclic.error = cyclic;
  const selfProxy = new Proxy({}, {
    get: (t, k, receiver) => (k === 'toJSON' || typeof k === 'symbol' ? undefined : receiver),
    ownKeys: () => ['a'],
    getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }),
  });
  const revocable = (target) => { const { proxy, revoke } = Proxy.revocable(target, {}); revoke(); return proxy; };
  const allTrapsThrow = new Proxy({}, Object.fromEntries(
    ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'set', 'defineProperty']
      .map((t) => [t, () => { throw new Error(t + ' trap boom'); }])));
  return [
    ['undefined', undefined], ['null', null], ['true', true], ['NaN', NaN], ['Infinity', Infinity],
    ['-Infinity', -Infinity], ['-0', -0], ['-1', -1], ['1.5', 1.5], ['2**53+2', 2 ** 53 + 2],
    ['MAX_VALUE', Number.MAX_VALUE], ['symbol', Symbol('hostile')], ['bigint', 10n ** 30n],
    ['emptyString', ''], ['loneSurrogates', '\uD800 \uDFFF x\uDBFF'],
    ['longString', 'x'.repeat(long)], ['longBrackets', '['.repeat(long)],
    ['function', function hostile() {}], ['array', [1, 2, 3]],
    ['hugeSparseArray', Object.assign([], { length: 2 ** 32 - 1 })],
    ['cyclic', cyclic], ['deep', deepObject(100000)], ['selfProxy', selfProxy],
    ['throwingGetters', new Proxy({}, { get() { throw new Error('get trap boom'); } })],
    ['allTrapsThrow', allTrapsThrow], ['revoked', revocable({})], ['revokedArray', revocable([])],
    ['nullProto', Object.create(null)], ['throwingToJSON', { toJSON() { throw new Error('toJSON boom'); } }],
    ['bigintToJSON', { toJSON() { return 1n; } }], ['invalidDate', new Date(NaN)], ['map', new Map([['a', 1]])],
    ['typedArray', new Uint8Array(16)], ['boxedString', new String('{"city":"Paris"}')],
  ];
}

/// A structured clone of `base` with `path` (dotted; digits index arrays) set to `value`.
export function withField(base, path, value) {
  const o = structuredClone(base);
  const keys = path.split('.');
  let t = o;
  for (const k of keys.slice(0, -1)) { if (typeof t[k] !== 'object' || t[k] === null) t[k] = {}; t = t[k]; }
  t[keys[keys.length - 1]] = value;
  return o;
}

/// Runs `f` in a JS try: { trapped, error } so a wasm trap is caught and named.
export function guard(f) {
  try {
    f();
    return { trapped: false, error: undefined };
  } catch (e) {
    return { trapped: e instanceof WebAssembly.RuntimeError, error: e };
  }
}

export function describe(e) {
  if (e === undefined) return '';
  const name = e && e.constructor ? e.constructor.name : typeof e;
  return name + ': ' + (e && e.message !== undefined ? String(e.message).slice(0, 300) : String(e));
}

export function nest(key, n, inArray) {
  let s = {};
  for (let i = 0; i < n; i++) s = inArray ? { [key]: [s] } : { [key]: s };
  return s;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = hostileValues)]
    fn hostile_values(big: bool) -> Array;
    #[wasm_bindgen(js_name = withField)]
    fn with_field(base: &JsValue, path: &str, value: &JsValue) -> JsValue;
    fn guard(f: &Closure<dyn FnMut() -> Result<(), JsValue>>) -> JsValue;
    fn describe(e: &JsValue) -> String;
    fn nest(key: &str, n: u32, in_array: bool) -> JsValue;
}

const NOW: f64 = 1_700_000_000_000.0;

fn js(v: Value) -> JsValue {
    JSON::parse(&v.to_string()).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn city_schema() -> Value {
    json!({ "type": "object", "required": ["city"], "properties": { "city": { "type": "string" } } })
}

fn base_options() -> Value {
    json!({
        "prompt": { "system": "Reply with JSON.", "user": "Where is the Eiffel Tower?" },
        "schema": city_schema(),
        "seed": 7,
        "fallback": { "mode": "human", "queue": "q" },
    })
}

fn new_loop() -> JsRepairLoop {
    JsRepairLoop::new(js(base_options()), JsValue::UNDEFINED).unwrap()
}

fn report() -> JsValue {
    let parsed = parse_structured(
        js(city_schema()),
        "{\"town\": 1}".into(),
        JsValue::UNDEFINED,
    )
    .unwrap();
    get(&parsed, "report")
}

/// The module answers normally.
fn assert_healthy(context: &str) {
    let c = classify(
        js(json!({ "status": 503 })),
        JsValue::UNDEFINED,
        JsValue::UNDEFINED,
    );
    assert_eq!(
        get(&c, "class").as_string().as_deref(),
        Some("transient"),
        "after {context}"
    );
    let l = new_loop();
    let done = l
        .next(
            js(json!({ "kind": "reply", "text": "{\"city\":\"Paris\"}" })),
            NOW.into(),
        )
        .unwrap();
    assert_eq!(
        get(&done, "type").as_string().as_deref(),
        Some("done"),
        "after {context}"
    );
}

/// Runs `call` guarded; `None` when it returned or threw a TypeError/RangeError naming `field`.
fn probe(
    label: &str,
    field: &str,
    call: impl FnMut() -> Result<(), JsValue> + 'static,
) -> Option<String> {
    let f = Closure::wrap(Box::new(call) as Box<dyn FnMut() -> Result<(), JsValue>>);
    let outcome = guard(&f);
    let error = get(&outcome, "error");
    if get(&outcome, "trapped").as_bool() == Some(true) {
        return Some(format!("{label}: TRAPPED ({})", describe(&error)));
    }
    if error.is_undefined() {
        return None;
    }
    let typed =
        error.is_instance_of::<js_sys::TypeError>() || error.is_instance_of::<js_sys::RangeError>();
    let message = get(&error, "message").as_string().unwrap_or_default();
    if !typed {
        return Some(format!("{label}: {}", describe(&error)));
    }
    if !message.contains(field) {
        return Some(format!("{label}: does not name {field}: {message}"));
    }
    None
}

type Call = Box<dyn Fn(JsValue) -> Result<(), JsValue>>;

fn top_level_calls() -> Vec<(&'static str, &'static str, Call)> {
    vec![
        (
            "repairJson(text)",
            "text",
            Box::new(move |v| repair_json(v, JsValue::UNDEFINED).map(drop)),
        ),
        (
            "repairJson(text, options)",
            "options",
            Box::new(move |v| repair_json(JsValue::from_str("[1,]"), v).map(drop)),
        ),
        (
            "new Schema(schema)",
            "schema",
            Box::new(move |v| JsSchema::new(v).map(drop)),
        ),
        (
            "Schema.parse(raw)",
            "raw",
            Box::new(move |v| {
                JsSchema::new(js(city_schema()))?
                    .parse(v, JsValue::UNDEFINED)
                    .map(drop)
            }),
        ),
        (
            "Schema.parse(_, options)",
            "options",
            Box::new(move |v| {
                JsSchema::new(js(city_schema()))?
                    .parse("{}".into(), v)
                    .map(drop)
            }),
        ),
        (
            "Schema.validate(value)",
            "value",
            Box::new(move |v| JsSchema::new(js(city_schema()))?.validate(v).map(drop)),
        ),
        (
            "parseStructured(schema)",
            "schema",
            Box::new(move |v| parse_structured(v, "{}".into(), JsValue::UNDEFINED).map(drop)),
        ),
        (
            "parseStructured(_, raw)",
            "raw",
            Box::new(move |v| parse_structured(js(city_schema()), v, JsValue::UNDEFINED).map(drop)),
        ),
        (
            "parseStructured(_, _, options)",
            "options",
            Box::new(move |v| parse_structured(js(city_schema()), "{}".into(), v).map(drop)),
        ),
        (
            "buildRepairPrompt(report)",
            "report",
            Box::new(move |v| {
                build_repair_prompt(v, js(city_schema()), "{}".into(), JsValue::UNDEFINED).map(drop)
            }),
        ),
        (
            "buildRepairPrompt(_, schema)",
            "schema",
            Box::new(move |v| {
                build_repair_prompt(report(), v, "{}".into(), JsValue::UNDEFINED).map(drop)
            }),
        ),
        (
            "buildRepairPrompt(_, _, raw)",
            "raw",
            Box::new(move |v| {
                build_repair_prompt(report(), js(city_schema()), v, JsValue::UNDEFINED).map(drop)
            }),
        ),
        (
            "buildRepairPrompt(_, _, _, options)",
            "options",
            Box::new(move |v| {
                build_repair_prompt(report(), js(city_schema()), "{}".into(), v).map(drop)
            }),
        ),
        (
            "new RepairLoop(options)",
            "options",
            Box::new(move |v| JsRepairLoop::new(v, JsValue::UNDEFINED).map(drop)),
        ),
        (
            "new RepairLoop(_, breaker)",
            "breaker",
            Box::new(move |v| JsRepairLoop::new(js(base_options()), v).map(drop)),
        ),
        (
            "RepairLoop.next(outcome)",
            "outcome",
            Box::new(move |v| new_loop().next(v, NOW.into()).map(drop)),
        ),
        (
            "RepairLoop.next(_, now)",
            "now",
            Box::new(move |v| {
                new_loop()
                    .next(js(json!({ "kind": "reply", "text": "{}" })), v)
                    .map(drop)
            }),
        ),
        (
            "RepairLoop.next(503, now)",
            "now",
            Box::new(move |v| {
                new_loop()
                    .next(
                        js(json!({ "kind": "error", "error": { "status": 503 } })),
                        v,
                    )
                    .map(drop)
            }),
        ),
        (
            "RepairLoop.abort(reason)",
            "reason",
            Box::new(move |v| new_loop().abort(v, NOW.into()).map(drop)),
        ),
        (
            "RepairLoop.abort(_, now)",
            "now",
            Box::new(move |v| new_loop().abort("stop".into(), v).map(drop)),
        ),
        (
            "RepairLoop.fromJSON(state)",
            "state",
            Box::new(move |v| JsRepairLoop::from_json(v, JsValue::UNDEFINED).map(drop)),
        ),
        (
            "RepairLoop.fromJSON(_, breaker)",
            "breaker",
            Box::new(move |v| JsRepairLoop::from_json(new_loop().to_json()?, v).map(drop)),
        ),
        (
            "new CircuitBreaker(options)",
            "options",
            Box::new(move |v| JsCircuitBreaker::new(v).map(drop)),
        ),
        (
            "CircuitBreaker.isOpen(now)",
            "now",
            Box::new(move |v| {
                JsCircuitBreaker::new(JsValue::UNDEFINED)?
                    .is_open(v)
                    .map(drop)
            }),
        ),
        (
            "CircuitBreaker.recordFailure(now)",
            "now",
            Box::new(move |v| JsCircuitBreaker::new(JsValue::UNDEFINED)?.record_failure(v)),
        ),
        (
            "CircuitBreaker.fromJSON(state)",
            "state",
            Box::new(move |v| JsCircuitBreaker::from_json(v).map(drop)),
        ),
    ]
}

/// (argument, call, nested paths, a valid base value for that argument).
type Nested = (
    &'static str,
    Call,
    Vec<&'static str>,
    Box<dyn Fn() -> JsValue>,
);

fn nested_calls() -> Vec<Nested> {
    let loop_state = || {
        let l = new_loop();
        l.next(
            js(json!({ "kind": "error", "error": { "status": 503 } })),
            NOW.into(),
        )
        .unwrap();
        l.to_json().unwrap()
    };
    vec![
        (
            "options",
            Box::new(move |v| JsRepairLoop::new(v, JsValue::UNDEFINED).map(drop)),
            vec![
                "prompt",
                "prompt.system",
                "prompt.user",
                "schema",
                "mode",
                "alternatePrompt",
                "fallback",
                "fallback.queue",
                "budget",
                "budget.transient",
                "budget.repairable",
                "budget.semanticInvalid",
                "budget.costCeilingUsd",
                "budget.deadlineMs",
                "budget.maxPromptChars",
                "backoff",
                "backoff.baseMs",
                "backoff.maxMs",
                "backoff.jitter",
                "backoff.jitterMs",
                "backoff.maxRetryAfterMs",
                "localRepair",
                "locale",
                "maxRawChars",
                "seed",
            ],
            Box::new(|| js(base_options())),
        ),
        (
            "outcome",
            Box::new(move |v| new_loop().next(v, NOW.into()).map(drop)),
            vec![
                "kind",
                "text",
                "stopReason",
                "costUsd",
                "usage",
                "usage.inputTokens",
            ],
            Box::new(|| {
                js(
                    json!({ "kind": "reply", "text": "{\"city\":\"x\"}", "usage": { "inputTokens": 1, "outputTokens": 1 } }),
                )
            }),
        ),
        (
            "outcome",
            Box::new(move |v| new_loop().next(v, NOW.into()).map(drop)),
            vec![
                "error",
                "error.status",
                "error.headers",
                "error.headers.retry-after",
                "error.cause",
                "costUsd",
            ],
            Box::new(|| {
                js(
                    json!({ "kind": "error", "error": { "status": 503, "headers": {}, "cause": {} } }),
                )
            }),
        ),
        (
            "report",
            Box::new(move |v| {
                build_repair_prompt(v, js(city_schema()), "{}".into(), JsValue::UNDEFINED).map(drop)
            }),
            vec![
                "kinds",
                "issues",
                "issues.0",
                "issues.0.message",
                "issues.0.path",
                "issues.0.kind",
            ],
            Box::new(report),
        ),
        (
            "options",
            Box::new(move |v| {
                build_repair_prompt(report(), js(city_schema()), "{}".into(), v).map(drop)
            }),
            vec!["maxRawChars", "locale"],
            Box::new(|| js(json!({}))),
        ),
        (
            "options",
            Box::new(move |v| JsCircuitBreaker::new(v).map(drop)),
            vec!["failureThreshold", "resetTimeoutMs"],
            Box::new(|| js(json!({}))),
        ),
        (
            "state",
            Box::new(move |v| JsRepairLoop::from_json(v, JsValue::UNDEFINED).map(drop)),
            vec![
                "version",
                "options",
                "options.budget.transient",
                "options.backoff.baseMs",
                "options.seed",
                "schema",
                "state",
                "state.rng",
                "state.calls",
                "state.repairableFailures",
                "state.costUsd",
                "state.attempts",
                "state.finalInstruction",
            ],
            Box::new(loop_state),
        ),
        (
            "state",
            Box::new(move |v| JsCircuitBreaker::from_json(v).map(drop)),
            vec![
                "options",
                "options.failureThreshold",
                "state",
                "failures",
                "lastFailureAt",
            ],
            Box::new(|| {
                JsCircuitBreaker::new(JsValue::UNDEFINED)
                    .unwrap()
                    .to_json()
                    .unwrap()
            }),
        ),
    ]
}

fn values(big: bool) -> Vec<(String, JsValue)> {
    hostile_values(big)
        .iter()
        .map(|pair| {
            let pair: Array = pair.into();
            (pair.get(0).as_string().unwrap(), pair.get(1))
        })
        .collect()
}

/// Every hostile value into every call; `big(field)` says where the 10 MB strings go.
fn sweep(calls: Vec<(&'static str, &'static str, Call)>, big: impl Fn(&str) -> bool) {
    let mut problems = Vec::new();
    let mut n = 0;
    for (label, field, call) in calls {
        let call = std::rc::Rc::new(call);
        for (name, v) in values(big(field)) {
            let c = call.clone();
            if let Some(p) = probe(&format!("{label} with {name}"), field, move || c(v.clone())) {
                problems.push(p);
            }
            n += 1;
        }
        assert_healthy(label);
    }
    assert!(
        problems.is_empty(),
        "{} of {n} calls:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[wasm_bindgen_test]
fn every_export_takes_every_hostile_value_without_trapping() {
    // 10 MB strings where a text is expected; elsewhere they are refused by type at once.
    sweep(top_level_calls(), |field| matches!(field, "text" | "raw"));
}

#[wasm_bindgen_test]
fn every_nested_option_takes_every_hostile_value_without_trapping() {
    let mut problems = Vec::new();
    let mut n = 0;
    for (root, call, paths, base) in nested_calls() {
        let call = std::rc::Rc::new(call);
        for path in paths {
            let valid = base();
            for (name, v) in values(false) {
                let arg = with_field(&valid, path, &v);
                let c = call.clone();
                if let Some(p) = probe(&format!("{root}.{path} = {name}"), root, move || {
                    c(arg.clone())
                }) {
                    problems.push(p);
                }
                n += 1;
            }
            assert_healthy(path);
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {n} calls:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[wasm_bindgen_test]
fn classify_takes_every_hostile_value_in_every_place() {
    // 64 KB strings: the debug build is slow on 10 MB ones in every field at once
    // (tests/js/reliability.test.mjs sends those to the release build).
    for (name, v) in values(false) {
        let everywhere = js(json!({}));
        for key in [
            "status",
            "statusCode",
            "response",
            "headers",
            "error",
            "cause",
            "code",
            "name",
            "message",
            "type",
        ] {
            Reflect::set(&everywhere, &key.into(), &v).unwrap();
        }
        let headers = js(json!({ "status": 429, "headers": {} }));
        let h = get(&headers, "headers");
        for key in ["retry-after", "retry-after-ms", "x-should-retry"] {
            Reflect::set(&h, &key.into(), &v).unwrap();
        }
        for (place, error, validation, now) in [
            ("error", v.clone(), JsValue::UNDEFINED, JsValue::UNDEFINED),
            (
                "validation",
                js(json!({ "status": 500 })),
                v.clone(),
                JsValue::UNDEFINED,
            ),
            (
                "now",
                js(
                    json!({ "status": 429, "headers": { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } }),
                ),
                JsValue::NULL,
                v.clone(),
            ),
            (
                "error.*",
                everywhere.clone(),
                JsValue::UNDEFINED,
                JsValue::UNDEFINED,
            ),
            (
                "headers.*",
                headers.clone(),
                JsValue::UNDEFINED,
                JsValue::UNDEFINED,
            ),
        ] {
            let c = classify(error, validation, now);
            let class = get(&c, "class").as_string().unwrap_or_default();
            assert!(
                ["transient", "repairable", "semantic-invalid", "hard-fail"]
                    .contains(&class.as_str()),
                "{place} = {name}: {}",
                describe(&c)
            );
            let ms = get(&c, "retryAfterMs");
            assert!(
                ms.is_null() || ms.as_f64().is_some_and(|m| m.is_finite() && m >= 0.0),
                "{place} = {name}"
            );
            let reason = get(&c, "reason").as_string().unwrap_or_default();
            assert!(
                !reason.is_empty() && !reason.contains(['\n', '\r', '\u{2028}', '\u{2029}']),
                "{place} = {name}: {reason:?}"
            );
        }
    }
    assert_healthy("classify");
}

#[wasm_bindgen_test]
fn deep_schemas_compile_or_are_refused_by_name_in_the_debug_build() {
    // The deepest schemas serde_json accepts (127 nested containers) compile and
    // validate within the wasm stack, even with the debug build's larger frames.
    for (key, in_array, levels) in [
        ("not", false, 126),
        ("items", false, 126),
        ("additionalProperties", false, 126),
        ("allOf", true, 63),
    ] {
        let schema = nest(key, levels, in_array);
        match JsSchema::new(schema) {
            Ok(s) => {
                let r = s
                    .parse("{\"a\": [[[1]]]}".into(), JsValue::UNDEFINED)
                    .unwrap();
                assert!(get(&r, "ok").as_bool().is_some(), "{key}");
            }
            Err(e) => panic!("{key}^{levels}: {}", describe(&e)),
        }
        // 10,000 levels: V8's JSON.stringify gives up (RangeError), reported as a TypeError naming schema.
        let deep = nest(key, 10_000, in_array);
        if let Some(p) = probe(key, "schema", move || JsSchema::new(deep.clone()).map(drop)) {
            panic!("{p}");
        }
    }
    // A recursive schema against the deepest value serde_json accepts.
    let tree = JsSchema::new(js(json!({ "type": "array", "items": { "$ref": "#" } }))).unwrap();
    let deep_ok = format!("{}{}", "[".repeat(127), "]".repeat(127));
    assert_eq!(
        get(
            &tree.parse(deep_ok.into(), JsValue::UNDEFINED).unwrap(),
            "ok"
        )
        .as_bool(),
        Some(true)
    );
    let deep_bad = format!("{}1{}", "[".repeat(126), "]".repeat(126));
    assert_eq!(
        get(
            &tree.parse(deep_bad.into(), JsValue::UNDEFINED).unwrap(),
            "ok"
        )
        .as_bool(),
        Some(false)
    );
    assert_healthy("deep schemas");
}

#[wasm_bindgen_test]
fn a_tampered_snapshot_never_traps_the_debug_build() {
    // fromJSON takes state from outside: counters at u32::MAX must saturate, not overflow.
    let l = new_loop();
    let state = l.to_json().unwrap();
    let budget = get(&get(&state, "options"), "budget");
    for key in ["transient", "repairable", "semanticInvalid"] {
        Reflect::set(&budget, &key.into(), &JsValue::from_f64(4_294_967_295.0)).unwrap();
    }
    let inner = get(&state, "state");
    for key in [
        "calls",
        "repairsSent",
        "repairableFailures",
        "semanticFailures",
        "consecutiveTransient",
    ] {
        Reflect::set(&inner, &key.into(), &JsValue::from_f64(4_294_967_295.0)).unwrap();
    }
    Reflect::set(&inner, &"costUsd".into(), &JsValue::from_f64(f64::MAX)).unwrap();
    for outcome in [
        json!({ "kind": "reply", "text": "{\"town\": 1}", "costUsd": 1e308 }),
        json!({ "kind": "rejected", "reason": "no" }),
        json!({ "kind": "invalid", "reason": "wrong" }),
        json!({ "kind": "error", "error": { "status": 503 } }),
    ] {
        let state = state.clone();
        let label = format!("tampered state, then {outcome}");
        let problem = probe(&label, "state", move || {
            let resumed = JsRepairLoop::from_json(state.clone(), JsValue::UNDEFINED)?;
            let i = resumed.next(js(outcome.clone()), NOW.into())?;
            let cost = get(&i, "costUsd");
            assert!(
                cost.is_undefined() || cost.as_f64().is_some_and(f64::is_finite),
                "costUsd {cost:?}"
            );
            resumed.report()?;
            resumed.to_json()?;
            Ok(())
        });
        assert!(problem.is_none(), "{problem:?}");
    }
    assert_healthy("tampered snapshots");
}

use selfheal::wasm::{
    apply_summary, estimate_tokens, plan_compaction, JsAgentBudget, JsDegradationLadder,
    JsFallbackChain, JsMetrics, JsSupervisor,
};

fn budget() -> Result<JsAgentBudget, JsValue> {
    JsAgentBudget::new(js(json!({"maxInputTokens": 100, "maxOutputTokens": 100})))
}

fn chain() -> Result<JsFallbackChain, JsValue> {
    JsFallbackChain::new(js(
        json!({"primary": "a", "fallbacks": ["b"], "timeoutMs": 100}),
    ))
}

fn ladder() -> Result<JsDegradationLadder, JsValue> {
    JsDegradationLadder::new(js(json!({"task": "t", "failedCapabilities": ["tools"]})))
}

fn supervisor() -> Result<JsSupervisor, JsValue> {
    JsSupervisor::new(js(json!({})), NOW.into())
}

fn compaction_plan() -> Result<JsValue, JsValue> {
    let many: Vec<Value> = (0..12)
        .map(|i| json!({"role": if i % 2 == 1 { "assistant" } else { "user" }, "content": "word ".repeat(20)}))
        .collect();
    plan_compaction(
        js(json!(many)),
        js(json!({"maxTokens": 50, "keepRecent": 2})),
    )
}

/// Every argument of every agent-toolkit export (SPEC section 6).
fn toolkit_calls() -> Vec<(&'static str, &'static str, Call)> {
    vec![
        (
            "new Supervisor(options)",
            "options",
            Box::new(|v| JsSupervisor::new(v, NOW.into()).map(drop)),
        ),
        (
            "new Supervisor(_, now)",
            "now",
            Box::new(|v| JsSupervisor::new(js(json!({})), v).map(drop)),
        ),
        (
            "Supervisor.observe(step)",
            "step",
            Box::new(|v| supervisor()?.observe(v, NOW.into()).map(drop)),
        ),
        (
            "Supervisor.observe(_, now)",
            "now",
            Box::new(|v| supervisor()?.observe(js(json!({"tool": "x"})), v).map(drop)),
        ),
        (
            "Supervisor.verdict(text)",
            "text",
            Box::new(|v| supervisor()?.verdict(v).map(drop)),
        ),
        (
            "Supervisor.fromJSON(state)",
            "state",
            Box::new(|v| JsSupervisor::from_json(v).map(drop)),
        ),
        (
            "new AgentBudget(options)",
            "options",
            Box::new(|v| JsAgentBudget::new(v).map(drop)),
        ),
        (
            "AgentBudget.record(usage)",
            "usage",
            Box::new(|v| budget()?.record(v)),
        ),
        (
            "AgentBudget.maxTokensForNextCall(cap)",
            "cap",
            Box::new(|v| budget()?.max_tokens_for_next_call(v).map(drop)),
        ),
        (
            "AgentBudget.hint(locale)",
            "locale",
            Box::new(|v| budget()?.hint(v).map(drop)),
        ),
        (
            "AgentBudget.fromJSON(state)",
            "state",
            Box::new(|v| JsAgentBudget::from_json(v).map(drop)),
        ),
        (
            "new FallbackChain(options)",
            "options",
            Box::new(|v| JsFallbackChain::new(v).map(drop)),
        ),
        (
            "FallbackChain.start(now)",
            "now",
            Box::new(|v| chain()?.start(v).map(drop)),
        ),
        (
            "FallbackChain.next(result)",
            "result",
            Box::new(|v| {
                let c = chain()?;
                c.start(NOW.into())?;
                c.next(v, NOW.into()).map(drop)
            }),
        ),
        (
            "FallbackChain.fromJSON(state)",
            "state",
            Box::new(|v| JsFallbackChain::from_json(v).map(drop)),
        ),
        (
            "new DegradationLadder(options)",
            "options",
            Box::new(|v| JsDegradationLadder::new(v).map(drop)),
        ),
        (
            "DegradationLadder.next(result)",
            "result",
            Box::new(|v| {
                let l = ladder()?;
                l.start()?;
                l.next(v).map(drop)
            }),
        ),
        (
            "DegradationLadder.fromJSON(state)",
            "state",
            Box::new(|v| JsDegradationLadder::from_json(v).map(drop)),
        ),
        (
            "estimateTokens(messages)",
            "messages",
            Box::new(|v| estimate_tokens(v).map(drop)),
        ),
        (
            "planCompaction(messages)",
            "messages",
            Box::new(|v| plan_compaction(v, js(json!({"maxTokens": 10}))).map(drop)),
        ),
        (
            "planCompaction(_, options)",
            "options",
            Box::new(|v| {
                plan_compaction(js(json!([{"role": "user", "content": "hi"}])), v).map(drop)
            }),
        ),
        (
            "applySummary(plan)",
            "plan",
            Box::new(|v| apply_summary(v, "summary".into()).map(drop)),
        ),
        (
            "applySummary(_, summary)",
            "summary",
            Box::new(|v| apply_summary(compaction_plan()?, v).map(drop)),
        ),
        (
            "Metrics.record(event)",
            "event",
            Box::new(|v| JsMetrics::new().record(v)),
        ),
        (
            "Metrics.summary(windowMs)",
            "windowMs",
            Box::new(|v| JsMetrics::new().summary(v, NOW.into()).map(drop)),
        ),
        (
            "Metrics.summary(_, now)",
            "now",
            Box::new(|v| JsMetrics::new().summary(1000.0.into(), v).map(drop)),
        ),
        (
            "Metrics.alerts(now)",
            "now",
            Box::new(|v| JsMetrics::new().alerts(v).map(drop)),
        ),
        (
            "Metrics.fromJSON(state)",
            "state",
            Box::new(|v| JsMetrics::from_json(v).map(drop)),
        ),
    ]
}

#[wasm_bindgen_test]
fn every_toolkit_export_takes_every_hostile_value_without_trapping() {
    sweep(toolkit_calls(), |_| false);
}

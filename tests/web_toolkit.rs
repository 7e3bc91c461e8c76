//! The agent toolkit (SPEC section 6) through the wasm boundary in real headless Chromium.
//!
//! Run: `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
//! CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_ONLY_WEB=1 cargo test
//! --target wasm32-unknown-unknown --test web_toolkit` (or `wasm-pack test --headless --chrome`).
//!
//! Each part is driven through its `#[wasm_bindgen]` export with real JS values:
//! a scripted run with concrete figures, bad options (a `TypeError`/`RangeError`
//! naming the field), hostile values (throwing getters, revoked proxies,
//! cycles, BigInt, NaN), and a `toJSON`/`JSON.stringify`/`fromJSON` round trip.
#![cfg(target_arch = "wasm32")]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
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

use selfheal::wasm::JsCircuitBreaker;
use selfheal::wasm::{
    apply_summary, estimate_tokens, plan_compaction, JsAgentBudget, JsDegradationLadder,
    JsFallbackChain, JsMetrics, JsSupervisor,
};

wasm_bindgen_test_configure!(run_in_browser);

// ---------------------------------------------------------------- JS helpers

#[wasm_bindgen(inline_js = r#"
export function withField(base, path, value) {
  const o = JSON.parse(JSON.stringify(base));
  const keys = path.split('.');
  let t = o;
  for (const k of keys.slice(0, -1)) { if (typeof t[k] !== 'object' || t[k] === null) t[k] = {}; t = t[k]; }
  t[keys[keys.length - 1]] = value;
  return o;
}
export function special(kind) {
  switch (kind) {
    case 'nan': return NaN;
    case 'infinity': return Infinity;
    case 'bigint': return 10n;
    case 'symbol': return Symbol('odd');
    case 'function': return () => 1;
    case 'revoked': { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; }
    case 'revoked-array': { const { proxy, revoke } = Proxy.revocable([], {}); revoke(); return proxy; }
    case 'cyclic': { const o = { a: 1 }; o.self = o; return o; }
    case 'cyclic-array': { const a = [{ type: 'text' }]; a[0].self = a; return a; }
    case 'api-error': return Object.assign(new Error('Service Unavailable'), { name: 'APIError', status: 503 });
    case 'fetch-error': return new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    case 'dom-timeout': return new DOMException('signal timed out', 'TimeoutError');
    case 'multiline': return { message: 'line one\nline two' };
    default: throw new Error('unknown kind ' + kind);
  }
}
/** `base` with `field` as a getter that throws. */
export function throwingGetter(base, field) {
  const o = JSON.parse(JSON.stringify(base));
  Object.defineProperty(o, field, { get() { throw new Error('getter boom'); }, enumerable: true });
  return o;
}
/** A step whose `tool` getter calls `observe` on the same supervisor first. */
export function reentrantStep(supervisor, now) {
  return { get tool() { supervisor.observe({ tool: 'inner' }, now); return 'outer'; } };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = withField)]
    fn with_field(base: &JsValue, path: &str, value: &JsValue) -> JsValue;
    fn special(kind: &str) -> JsValue;
    #[wasm_bindgen(js_name = throwingGetter)]
    fn throwing_getter(base: &JsValue, field: &str) -> JsValue;
    #[wasm_bindgen(js_name = reentrantStep)]
    fn reentrant_step(supervisor: &JsValue, now: f64) -> JsValue;
}

// ---------------------------------------------------------------- Rust helpers

const NOW: f64 = 1_700_000_000_000.0;

fn js(v: Value) -> JsValue {
    JSON::parse(&v.to_string()).expect("JSON.parse")
}

fn rs(v: &JsValue) -> Value {
    if v.is_undefined() {
        return Value::Null;
    }
    let text = JSON::stringify(v)
        .expect("JSON.stringify")
        .as_string()
        .expect("string");
    serde_json::from_str(&text).expect("valid JSON")
}

fn ok<T>(r: Result<T, JsValue>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("threw: {}", message(&e)),
    }
}

fn okv(r: Result<JsValue, JsValue>) -> Value {
    rs(&ok(r))
}

fn now(t: f64) -> JsValue {
    JsValue::from_f64(t)
}

fn message(e: &JsValue) -> String {
    Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

#[derive(Clone, Copy, Debug)]
enum Thrown {
    Type,
    Range,
}

/// Assert a thrown `TypeError`/`RangeError` whose message names `field`.
fn assert_thrown<T>(r: Result<T, JsValue>, kind: Thrown, field: &str) -> String {
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
    assert!(msg.starts_with("selfheal: "), "{msg}");
    assert!(
        msg.contains(field),
        "message {msg:?} does not name {field:?}"
    );
    msg
}

/// `JSON.parse(JSON.stringify(x.toJSON()))`: what a host stores and loads.
fn stored(state: Result<JsValue, JsValue>) -> JsValue {
    js(okv(state))
}

// ================================================================ Supervisor

fn supervisor(options: Value) -> JsSupervisor {
    ok(JsSupervisor::new(js(options), now(NOW)))
}

fn observe(s: &JsSupervisor, step: Value, t: f64) -> Value {
    okv(s.observe(js(step), now(t)))
}

#[wasm_bindgen_test]
fn supervisor_checks_in_order() {
    let s = supervisor(json!({}));
    assert_eq!(
        observe(&s, json!({ "tool": "search", "tokens": 100 }), NOW + 1.0),
        json!({ "action": "continue" })
    );
    assert_eq!(
        observe(&s, json!({ "tool": "search" }), NOW + 2.0)["action"],
        "continue"
    );
    assert_eq!(
        observe(&s, json!({ "tool": "search" }), NOW + 3.0),
        json!({ "action": "intervene", "reason": "the tool \"search\" was called 3 times in a row", "strategy": "break_loop" })
    );
    assert_eq!((ok(s.steps()), ok(s.tokens())), (3.0, 100.0));

    let osc = supervisor(json!({}));
    for tool in ["a", "b", "a"] {
        assert_eq!(
            observe(&osc, json!({ "tool": tool }), NOW)["action"],
            "continue"
        );
    }
    assert_eq!(
        observe(&osc, json!({ "tool": "b" }), NOW)["strategy"],
        "alternative_approach"
    );

    let limits = supervisor(json!({ "maxSteps": 1, "maxDurationMs": 1000, "maxTokens": 10 }));
    assert_eq!(
        observe(&limits, json!({ "tokens": 11 }), NOW + 5000.0)["strategy"],
        "force_completion"
    );
    assert_eq!(
        observe(&limits, json!({}), NOW)["strategy"],
        "reset_with_summary"
    );
    let tokens = supervisor(json!({ "maxTokens": 10 }));
    assert_eq!(
        observe(&tokens, json!({ "tokens": 11 }), NOW)["strategy"],
        "compress_and_continue"
    );
}

#[wasm_bindgen_test]
fn supervisor_review_and_verdict() {
    let s = supervisor(json!({ "reviewAfterSteps": 1, "reviewEvery": 2 }));
    assert_eq!(
        observe(&s, json!({ "tool": "plan" }), NOW)["action"],
        "continue"
    );
    let v = observe(&s, json!({ "tool": "search", "progress": "found it" }), NOW);
    assert_eq!(v["action"], "review");
    let user = v["prompt"]["user"].as_str().unwrap();
    assert!(
        user.contains("found it") && user.contains("tool plan"),
        "{user}"
    );
    assert!(v["prompt"]["system"]
        .as_str()
        .unwrap()
        .contains("\"healthy\""));

    let verdict = |text: &str| okv(s.verdict(JsValue::from_str(text)));
    assert_eq!(
        verdict(r#"{"healthy": false, "reason": "It is stuck."}"#),
        json!({ "action": "intervene", "reason": "It is stuck.", "strategy": "guided_correction" })
    );
    assert_eq!(
        verdict("```json\n{\"healthy\": true}\n```"),
        json!({ "action": "continue" })
    );
    assert_eq!(verdict("no idea"), json!({ "action": "continue" }));
    assert_thrown(s.verdict(JsValue::from_f64(1.0)), Thrown::Type, "text");
}

#[wasm_bindgen_test]
fn supervisor_bad_options_and_arguments() {
    for (options, kind, field) in [
        (
            js(json!({ "maxSteps": 0 })),
            Thrown::Range,
            "options.maxSteps",
        ),
        (
            js(json!({ "maxSteps": 2.5 })),
            Thrown::Range,
            "options.maxSteps",
        ),
        (
            js(json!({ "maxSteps": "3" })),
            Thrown::Type,
            "options.maxSteps",
        ),
        (
            js(json!({ "reviewEvery": 0 })),
            Thrown::Range,
            "options.reviewEvery",
        ),
        (
            js(json!({ "loopWindow": -1 })),
            Thrown::Range,
            "options.loopWindow",
        ),
        (
            js(json!({ "maxTokens": 1e300 })),
            Thrown::Range,
            "options.maxTokens",
        ),
        (
            with_field(&js(json!({})), "maxDurationMs", &special("nan")),
            Thrown::Range,
            "options.maxDurationMs",
        ),
        (
            with_field(&js(json!({})), "maxTokens", &special("bigint")),
            Thrown::Type,
            "options.maxTokens",
        ),
        (
            throwing_getter(&js(json!({})), "reviewAfterSteps"),
            Thrown::Type,
            "options.reviewAfterSteps",
        ),
        (JsValue::from_str("strict"), Thrown::Type, "options"),
        (special("revoked"), Thrown::Type, "options"),
    ] {
        assert_thrown(JsSupervisor::new(options, now(NOW)), kind, field);
    }
    assert_thrown(
        JsSupervisor::new(JsValue::UNDEFINED, special("infinity")),
        Thrown::Range,
        "now",
    );
    assert_thrown(
        JsSupervisor::new(JsValue::NULL, JsValue::from_str("now")),
        Thrown::Type,
        "now",
    );

    let s = supervisor(json!({}));
    assert_thrown(s.observe(JsValue::NULL, now(NOW)), Thrown::Type, "step");
    assert_thrown(
        s.observe(js(json!({ "tool": 5 })), now(NOW)),
        Thrown::Type,
        "step.tool",
    );
    assert_thrown(
        s.observe(js(json!({ "tokens": -1 })), now(NOW)),
        Thrown::Range,
        "step.tokens",
    );
    assert_thrown(
        s.observe(throwing_getter(&js(json!({})), "progress"), now(NOW)),
        Thrown::Type,
        "step.progress",
    );
    assert_thrown(
        s.observe(js(json!({})), special("nan")),
        Thrown::Range,
        "now",
    );
    assert_eq!(
        ok(s.steps()),
        0.0,
        "nothing counted by the calls that threw"
    );

    // A getter that calls back into the same supervisor: inputs are read before
    // the state is borrowed, so both calls count.
    let s: JsValue = supervisor(json!({})).into();
    let step = reentrant_step(&s, NOW);
    let observe_fn: js_sys::Function = Reflect::get(&s, &"observe".into()).unwrap().into();
    let v = observe_fn.call2(&s, &step, &now(NOW)).expect("observe");
    assert_eq!(rs(&v), json!({ "action": "continue" }));
    assert_eq!(
        Reflect::get(&s, &"steps".into()).unwrap().as_f64(),
        Some(2.0)
    );
}

#[wasm_bindgen_test]
fn supervisor_json_round_trip() {
    let s = supervisor(json!({ "maxSteps": 10 }));
    observe(&s, json!({ "tool": "search", "tokens": 5 }), NOW);
    observe(&s, json!({ "tool": "search", "tokens": 6 }), NOW);
    let state = stored(s.to_json());
    let r = ok(JsSupervisor::from_json(state.clone()));
    assert_eq!((ok(r.steps()), ok(r.tokens())), (2.0, 11.0));
    assert_eq!(
        observe(&r, json!({ "tool": "search" }), NOW)["strategy"],
        "break_loop"
    );

    assert_thrown(
        JsSupervisor::from_json(js(json!({}))),
        Thrown::Type,
        "state",
    );
    assert_thrown(
        JsSupervisor::from_json(JsValue::from_str("{}")),
        Thrown::Type,
        "state",
    );
    assert_thrown(
        JsSupervisor::from_json(special("cyclic")),
        Thrown::Type,
        "state",
    );
    let msg = assert_thrown(
        JsSupervisor::from_json(with_field(
            &state,
            "options.reviewEvery",
            &JsValue::from_f64(0.0),
        )),
        Thrown::Type,
        "state",
    );
    assert!(msg.contains("options.reviewEvery"), "{msg}");
}

// ================================================================ AgentBudget

#[wasm_bindgen_test]
fn agent_budget_figures() {
    let b = ok(JsAgentBudget::new(js(
        json!({ "maxInputTokens": 1000, "maxOutputTokens": 500, "maxIterations": 3 }),
    )));
    ok(b.record(js(json!({ "inputTokens": 500, "outputTokens": 100 }))));
    assert_eq!(okv(b.exhausted()), json!({ "stop": false, "reason": "" }));
    assert!(!ok(b.nearly_done()));
    assert_eq!(ok(b.hint(JsValue::UNDEFINED)), "");
    assert_eq!(
        ok(b.max_tokens_for_next_call(JsValue::from_f64(4096.0))),
        400.0
    );

    ok(b.record(js(json!({ "inputTokens": 0, "outputTokens": 301 }))));
    assert!(ok(b.nearly_done()), "401 of 500 output tokens is above 80%");
    assert!(ok(b.hint(JsValue::from_str("en"))).contains("Wrap up"));
    assert!(ok(b.hint(JsValue::from_str("zh"))).contains("收尾"));
    assert_eq!(
        ok(b.max_tokens_for_next_call(JsValue::from_f64(4096.0))),
        99.0
    );
    ok(b.record(js(json!({ "inputTokens": 1, "outputTokens": 1 }))));
    assert_eq!(
        okv(b.exhausted()),
        json!({ "stop": true, "reason": "The iteration budget is spent: 3 of 3 iterations used." })
    );
    assert_eq!(
        (
            ok(b.iterations()),
            ok(b.input_tokens()),
            ok(b.output_tokens())
        ),
        (3.0, 501.0, 402.0)
    );

    let state = stored(b.to_json());
    let r = ok(JsAgentBudget::from_json(state.clone()));
    assert_eq!(okv(r.exhausted()), okv(b.exhausted()));
    assert_thrown(
        JsAgentBudget::from_json(with_field(
            &state,
            "options.maxIterations",
            &JsValue::from_f64(0.0),
        )),
        Thrown::Type,
        "state",
    );
}

#[wasm_bindgen_test]
fn agent_budget_bad_options_and_arguments() {
    let base = json!({ "maxInputTokens": 1000, "maxOutputTokens": 500 });
    for (options, kind, field) in [
        (JsValue::UNDEFINED, Thrown::Type, "options"),
        (
            js(json!({ "maxOutputTokens": 5 })),
            Thrown::Type,
            "options.maxInputTokens",
        ),
        (
            js(json!({ "maxInputTokens": 5 })),
            Thrown::Type,
            "options.maxOutputTokens",
        ),
        (
            with_field(&js(base.clone()), "maxInputTokens", &JsValue::from_f64(0.0)),
            Thrown::Range,
            "options.maxInputTokens",
        ),
        (
            with_field(
                &js(base.clone()),
                "maxOutputTokens",
                &JsValue::from_f64(-2.0),
            ),
            Thrown::Range,
            "options.maxOutputTokens",
        ),
        (
            with_field(&js(base.clone()), "maxOutputTokens", &special("infinity")),
            Thrown::Range,
            "options.maxOutputTokens",
        ),
        (
            with_field(&js(base.clone()), "maxIterations", &JsValue::from_f64(0.5)),
            Thrown::Range,
            "options.maxIterations",
        ),
        (
            with_field(&js(base.clone()), "maxIterations", &JsValue::from_str("20")),
            Thrown::Type,
            "options.maxIterations",
        ),
    ] {
        assert_thrown(JsAgentBudget::new(options), kind, field);
    }
    let b = ok(JsAgentBudget::new(js(base)));
    assert_thrown(b.record(JsValue::UNDEFINED), Thrown::Type, "usage");
    assert_thrown(
        b.record(js(json!({ "outputTokens": 1 }))),
        Thrown::Type,
        "usage.inputTokens",
    );
    assert_thrown(
        b.record(with_field(
            &js(json!({ "inputTokens": 1 })),
            "outputTokens",
            &special("nan"),
        )),
        Thrown::Range,
        "usage.outputTokens",
    );
    assert_thrown(
        b.max_tokens_for_next_call(JsValue::UNDEFINED),
        Thrown::Type,
        "cap",
    );
    assert_thrown(
        b.max_tokens_for_next_call(JsValue::from_f64(1.5)),
        Thrown::Range,
        "cap",
    );
    assert_thrown(b.hint(JsValue::from_str("de")), Thrown::Type, "locale");
    assert_eq!(ok(b.iterations()), 0.0);
}

// ================================================================ FallbackChain

fn chain_options() -> Value {
    json!({ "primary": "search", "fallbacks": ["cache"], "timeoutMs": 2000, "failureThreshold": 1, "resetTimeoutMs": 1000 })
}

fn failed(error: &JsValue) -> JsValue {
    let r = js(json!({ "ok": false }));
    Reflect::set(&r, &"error".into(), error).unwrap();
    r
}

#[wasm_bindgen_test]
fn fallback_chain_run_and_breakers() {
    let c = ok(JsFallbackChain::new(js(chain_options())));
    assert_eq!(
        okv(c.start(now(NOW))),
        json!({ "type": "call", "tool": "search", "timeoutMs": 2000, "fallback": false })
    );
    assert_eq!(
        okv(c.next(failed(&special("api-error")), now(NOW + 1.0)))["tool"],
        "cache"
    );
    assert_eq!(
        okv(c.next(failed(&special("fetch-error")), now(NOW + 2.0))),
        json!({ "type": "exhausted", "tried": ["search", "cache"] })
    );
    assert_eq!(
        okv(c.failures()),
        json!([
            { "tool": "search", "error": "APIError (status 503): Service Unavailable", "at": NOW as u64 + 1 },
            { "tool": "cache", "error": "TypeError (ECONNRESET): fetch failed", "at": NOW as u64 + 2 },
        ])
    );
    // Both breakers are open: a new run calls nothing.
    assert_eq!(
        okv(c.start(now(NOW + 10.0))),
        json!({ "type": "exhausted", "tried": [] })
    );
    // After resetTimeoutMs the primary is half-open again.
    assert_eq!(okv(c.start(now(NOW + 1001.0)))["tool"], "search");
    assert_eq!(
        okv(c.next(js(json!({ "ok": true })), now(NOW + 1002.0))),
        json!({ "type": "done", "toolUsed": "search", "usedFallback": false })
    );

    // JSON round trip keeps the breakers: cache (failed at NOW + 2) is still open at NOW + 1001.5.
    let state = stored(c.to_json());
    let r = ok(JsFallbackChain::from_json(state.clone()));
    ok(r.start(now(NOW + 1001.5)));
    assert_eq!(
        okv(r.next(
            js(json!({ "ok": false, "error": "boom" })),
            now(NOW + 1001.5)
        )),
        json!({ "type": "exhausted", "tried": ["search"] })
    );
    assert_thrown(
        JsFallbackChain::from_json(with_field(
            &state,
            "options.timeoutMs",
            &JsValue::from_f64(-1.0),
        )),
        Thrown::Type,
        "state",
    );
    assert_thrown(
        JsFallbackChain::from_json(js(json!({ "options": chain_options() }))),
        Thrown::Type,
        "state",
    );
}

#[wasm_bindgen_test]
fn fallback_chain_default_value_and_error_descriptions() {
    let mut options = chain_options();
    options["defaultValue"] = json!({ "answer": null, "big": 1152921504606846976u64 });
    let c = ok(JsFallbackChain::new(js(options)));
    ok(c.start(now(NOW)));
    ok(c.next(failed(&special("dom-timeout")), now(NOW)));
    let d = okv(c.next(failed(&special("multiline")), now(NOW)));
    // 2^60 comes back as the same JS number (JS prints it 1152921504606847000).
    assert_eq!(
        d,
        rs(&js(
            json!({ "type": "default", "value": { "answer": null, "big": 1152921504606846976u64 } })
        ))
    );
    assert_eq!(d["value"]["big"].as_f64(), Some(2f64.powi(60)));
    let errors: Vec<Value> = okv(c.failures())
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["error"].clone())
        .collect();
    assert_eq!(
        errors,
        vec![
            json!("TimeoutError: signal timed out"),
            json!("line one line two")
        ]
    );

    for (error, expected) in [
        (special("symbol"), "Symbol(odd)"),
        (special("revoked"), "object"),
        (special("bigint"), "10"),
        (special("cyclic"), "object"),
        (js(json!({ "detail": "x" })), r#"{"detail":"x"}"#),
    ] {
        let c = ok(JsFallbackChain::new(js(
            json!({ "primary": "a", "fallbacks": [], "timeoutMs": 1 }),
        )));
        ok(c.start(now(NOW)));
        ok(c.next(failed(&error), now(NOW)));
        assert_eq!(okv(c.failures())[0]["error"], expected);
    }
}

#[wasm_bindgen_test]
fn fallback_chain_bad_options_and_arguments() {
    let base = js(chain_options());
    for (options, kind, field) in [
        (JsValue::NULL, Thrown::Type, "options"),
        (
            js(json!({ "fallbacks": [], "timeoutMs": 1 })),
            Thrown::Type,
            "options.primary",
        ),
        (
            with_field(&base, "primary", &JsValue::from_str("")),
            Thrown::Range,
            "options.primary",
        ),
        (
            with_field(&base, "fallbacks", &JsValue::from_str("cache")),
            Thrown::Type,
            "options.fallbacks",
        ),
        (
            with_field(&base, "fallbacks", &js(json!(["ok", 7]))),
            Thrown::Type,
            "options.fallbacks[1]",
        ),
        (
            with_field(&base, "fallbacks", &js(json!([""]))),
            Thrown::Range,
            "options.fallbacks[0]",
        ),
        (
            with_field(&base, "fallbacks", &special("revoked-array")),
            Thrown::Type,
            "options.fallbacks",
        ),
        (
            with_field(&base, "timeoutMs", &JsValue::from_f64(0.0)),
            Thrown::Range,
            "options.timeoutMs",
        ),
        (
            with_field(&base, "timeoutMs", &special("nan")),
            Thrown::Range,
            "options.timeoutMs",
        ),
        (
            with_field(&base, "timeoutMs", &JsValue::UNDEFINED),
            Thrown::Type,
            "options.timeoutMs",
        ),
        (
            with_field(&base, "failureThreshold", &JsValue::from_f64(0.0)),
            Thrown::Range,
            "options.failureThreshold",
        ),
        (
            with_field(&base, "resetTimeoutMs", &special("infinity")),
            Thrown::Range,
            "options.resetTimeoutMs",
        ),
        (
            with_field(&base, "defaultValue", &special("function")),
            Thrown::Type,
            "options.defaultValue",
        ),
        (
            with_field(&base, "defaultValue", &special("bigint")),
            Thrown::Type,
            "options.defaultValue",
        ),
        (
            with_field(&base, "defaultValue", &special("cyclic")),
            Thrown::Type,
            "options.defaultValue",
        ),
        (
            throwing_getter(&base, "fallbacks"),
            Thrown::Type,
            "options.fallbacks",
        ),
    ] {
        assert_thrown(JsFallbackChain::new(options), kind, field);
    }
    let c = ok(JsFallbackChain::new(base));
    ok(c.start(now(NOW)));
    assert_thrown(
        c.next(JsValue::from_bool(true), now(NOW)),
        Thrown::Type,
        "result",
    );
    assert_thrown(
        c.next(js(json!({ "error": "x" })), now(NOW)),
        Thrown::Type,
        "result.ok",
    );
    assert_thrown(
        c.next(
            throwing_getter(&js(json!({ "ok": false })), "error"),
            now(NOW),
        ),
        Thrown::Type,
        "result.error",
    );
    assert_thrown(c.start(JsValue::from_str("now")), Thrown::Type, "now");
    assert_eq!(
        okv(c.next(js(json!({ "ok": true })), now(NOW)))["type"],
        "done",
        "still usable"
    );
}

// ================================================================ DegradationLadder

#[wasm_bindgen_test]
fn degradation_ladder_levels() {
    let l = ok(JsDegradationLadder::new(js(json!({
        "task": "Plan a day in Kyoto.", "failedCapabilities": ["tools"], "lightModel": "light"
    }))));
    let s = okv(l.start());
    assert_eq!(
        (
            s["type"].as_str(),
            s["level"].as_str(),
            &s["model"],
            &s["useTools"]
        ),
        (Some("send"), Some("partial"), &Value::Null, &json!(false))
    );
    assert_eq!(s["prompt"]["user"], "Plan a day in Kyoto.");
    let state = stored(l.to_json());
    let s = okv(l.next(failed(&special("api-error"))));
    assert_eq!(
        (s["level"].as_str(), s["model"].as_str()),
        (Some("minimal"), Some("light"))
    );
    let f = okv(l.next(js(json!({ "ok": false }))));
    assert_eq!(f["type"], "final");
    assert_eq!(f["level"], "unavailable");
    assert!(f["text"].as_str().unwrap().starts_with("Sorry"), "{f}");
    assert_eq!(
        okv(l.next(js(json!({ "ok": true, "text": "late" })))),
        f,
        "final steps repeat"
    );

    // Restored before the partial reply: the reply is accepted with the partial disclaimer.
    let r = ok(JsDegradationLadder::from_json(state.clone()));
    let f = okv(r.next(js(json!({ "ok": true, "text": "Temples in the morning." }))));
    assert_eq!(f["level"], "partial");
    assert!(
        f["text"]
            .as_str()
            .unwrap()
            .starts_with("Temples in the morning.\n\nNote: this answer was written without tools"),
        "{f}"
    );
    assert_thrown(
        JsDegradationLadder::from_json(with_field(
            &state,
            "options.lightModel",
            &JsValue::from_str(""),
        )),
        Thrown::Type,
        "state",
    );

    let zh = ok(JsDegradationLadder::new(js(
        json!({ "task": "t", "failedCapabilities": ["vision"], "locale": "zh" }),
    )));
    assert_eq!(okv(zh.start())["level"], "minimal");
    assert!(okv(zh.next(js(json!({ "ok": false }))))["text"]
        .as_str()
        .unwrap()
        .contains("抱歉"));
}

#[wasm_bindgen_test]
fn degradation_ladder_bad_options_and_arguments() {
    let base = js(json!({ "task": "t", "failedCapabilities": [] }));
    for (options, kind, field) in [
        (JsValue::from_f64(1.0), Thrown::Type, "options"),
        (
            js(json!({ "failedCapabilities": [] })),
            Thrown::Type,
            "options.task",
        ),
        (
            with_field(&base, "task", &JsValue::from_str("")),
            Thrown::Range,
            "options.task",
        ),
        (
            js(json!({ "task": "t" })),
            Thrown::Type,
            "options.failedCapabilities",
        ),
        (
            with_field(&base, "failedCapabilities", &js(json!([true]))),
            Thrown::Type,
            "options.failedCapabilities[0]",
        ),
        (
            with_field(&base, "lightModel", &JsValue::from_str("")),
            Thrown::Range,
            "options.lightModel",
        ),
        (
            with_field(&base, "locale", &JsValue::from_str("en-US")),
            Thrown::Type,
            "options.locale",
        ),
    ] {
        assert_thrown(JsDegradationLadder::new(options), kind, field);
    }
    let l = ok(JsDegradationLadder::new(base));
    ok(l.start());
    assert_thrown(l.next(JsValue::UNDEFINED), Thrown::Type, "result");
    assert_thrown(
        l.next(js(json!({ "ok": true, "text": 1 }))),
        Thrown::Type,
        "result.text",
    );
    assert_thrown(
        l.next(js(json!({ "ok": "false" }))),
        Thrown::Type,
        "result.ok",
    );
}

// ================================================================ compaction

fn messages() -> Value {
    let mut m: Vec<Value> = (0..8)
        .map(|i| json!({ "role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("turn {i} {}", "z".repeat(200)) }))
        .collect();
    m.push(json!({ "role": "user", "content": [
        { "type": "tool_result", "tool_use_id": "toolu_1", "content": [{ "type": "text", "text": "r".repeat(50) }] },
        { "type": "tool_use", "id": "toolu_2", "name": "lookup", "input": { "id": 1152921504606846976u64 } }
    ] }));
    Value::Array(m)
}

#[wasm_bindgen_test]
fn compaction_estimate_plan_apply() {
    assert_eq!(
        ok(estimate_tokens(js(
            json!([{ "role": "user", "content": "hello world" }])
        ))),
        3.0
    );
    assert_eq!(
        ok(estimate_tokens(js(
            json!([{ "role": "user", "content": "日本語のテキスト" }])
        ))),
        8.0
    );
    assert_eq!(ok(estimate_tokens(js(json!([])))), 0.0);

    let msgs = messages();
    let estimated = ok(estimate_tokens(js(msgs.clone())));
    assert_eq!(
        okv(plan_compaction(
            js(msgs.clone()),
            js(json!({ "maxTokens": estimated as u64 * 2 }))
        )),
        json!({ "action": "none", "estimatedTokens": estimated as u64 })
    );
    let plan = okv(plan_compaction(
        js(msgs.clone()),
        js(json!({ "maxTokens": 100, "keepRecent": 3, "maxToolResultChars": 10 })),
    ));
    assert_eq!(plan["action"], "summarize");
    assert_eq!(plan["older"], 6);
    let keep = plan["keep"].as_array().unwrap();
    assert_eq!(keep.len(), 3);
    assert_eq!(
        keep[2]["content"][0]["content"][0]["text"],
        format!("{}\n…[truncated 40 chars]", "r".repeat(10))
    );
    assert_eq!(
        keep[2]["content"][1],
        rs(&js(msgs[8]["content"][1].clone())),
        "big integers survive exactly"
    );
    assert_eq!(
        keep[2]["content"][1]["input"]["id"].as_f64(),
        Some(2f64.powi(60))
    );
    assert!(plan["summaryPrompt"]["user"]
        .as_str()
        .unwrap()
        .contains("turn 5"));

    let out = okv(apply_summary(
        js(plan.clone()),
        JsValue::from_str("We chose plan B."),
    ));
    let out = out.as_array().unwrap();
    assert_eq!(out.len(), 5);
    assert_eq!(out[0]["role"], "user");
    assert!(out[0]["content"]
        .as_str()
        .unwrap()
        .ends_with("We chose plan B."));
    assert_eq!(out[1]["role"], "assistant");
    assert_eq!(&out[2..], keep.as_slice());
}

#[wasm_bindgen_test]
fn compaction_bad_arguments() {
    assert_thrown(
        estimate_tokens(JsValue::from_str("hi")),
        Thrown::Type,
        "messages",
    );
    assert_thrown(
        estimate_tokens(special("revoked-array")),
        Thrown::Type,
        "messages",
    );
    assert_thrown(
        estimate_tokens(js(json!([{ "role": "tool", "content": "x" }]))),
        Thrown::Type,
        "messages[0].role",
    );
    assert_thrown(
        estimate_tokens(js(
            json!([{ "role": "user", "content": "a" }, { "role": "user" }]),
        )),
        Thrown::Type,
        "messages[1].content",
    );
    let cyc = js(json!([{ "role": "user", "content": null }]));
    let first = Reflect::get_u32(&cyc, 0).unwrap();
    Reflect::set(&first, &"content".into(), &special("cyclic-array")).unwrap();
    assert_thrown(estimate_tokens(cyc), Thrown::Type, "messages[0].content");
    let getter = js(json!([]));
    Reflect::set_u32(
        &getter,
        0,
        &throwing_getter(&js(json!({ "content": "x" })), "role"),
    )
    .unwrap();
    assert_thrown(estimate_tokens(getter), Thrown::Type, "messages[0].role");

    let msgs = js(messages());
    assert_thrown(
        plan_compaction(msgs.clone(), JsValue::UNDEFINED),
        Thrown::Type,
        "options",
    );
    assert_thrown(
        plan_compaction(msgs.clone(), js(json!({}))),
        Thrown::Type,
        "options.maxTokens",
    );
    assert_thrown(
        plan_compaction(msgs.clone(), js(json!({ "maxTokens": 0 }))),
        Thrown::Range,
        "options.maxTokens",
    );
    assert_thrown(
        plan_compaction(
            msgs.clone(),
            js(json!({ "maxTokens": 10, "keepRecent": 1.5 })),
        ),
        Thrown::Range,
        "options.keepRecent",
    );

    let plan = ok(plan_compaction(msgs, js(json!({ "maxTokens": 10 }))));
    assert_thrown(
        apply_summary(plan.clone(), JsValue::from_str(" ")),
        Thrown::Range,
        "summary",
    );
    assert_thrown(
        apply_summary(plan, JsValue::UNDEFINED),
        Thrown::Type,
        "summary",
    );
    assert_thrown(
        apply_summary(
            js(json!({ "action": "none", "estimatedTokens": 3 })),
            JsValue::from_str("s"),
        ),
        Thrown::Type,
        "plan",
    );
    assert_thrown(
        apply_summary(js(json!({ "action": "summarize" })), JsValue::from_str("s")),
        Thrown::Type,
        "plan",
    );
    assert_thrown(
        apply_summary(special("cyclic"), JsValue::from_str("s")),
        Thrown::Type,
        "plan",
    );
}

// ================================================================ Metrics

fn event(at: f64, category: &str, success: bool) -> Value {
    json!({ "timestamp": at, "taskId": "t1", "errorCategory": category, "severity": "low", "strategy": "retry",
            "success": success, "durationMs": 50, "tokensUsed": 7, "degraded": !success })
}

#[wasm_bindgen_test]
fn metrics_summary_alerts_jsonl() {
    let m = JsMetrics::new();
    ok(m.record(js(event(NOW - 30_000.0, "schema", false))));
    ok(m.record(js(event(NOW - 20_000.0, "schema", true))));
    ok(m.record(js(event(NOW - 10_000.0, "schema", true))));
    ok(m.record(js(event(NOW - 7_200_000.0, "network", false))));
    assert_eq!(
        okv(m.summary(JsValue::UNDEFINED, now(NOW))),
        json!({ "total": 3, "successRate": 2.0 / 3.0, "failureRate": 1.0 / 3.0, "avgDurationMs": 50,
                "totalTokensUsed": 21, "byCategory": { "schema": 3 }, "degradedCount": 1 })
    );
    assert_eq!(okv(m.summary(now(86_400_000.0), now(NOW)))["total"], 4);
    assert_eq!(
        okv(m.alerts(now(NOW))),
        json!([
            { "level": "HIGH", "message": "Failure rate 33% in the last 10 minutes (1 of 3 healing events failed), above 30%." },
            { "level": "HIGH", "message": "Cascade: 3 \"schema\" healing events within the last minute." },
        ])
    );
    let jsonl = ok(m.to_jsonl());
    let lines: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3]["type"], "healing_event");
    assert_eq!(lines[3]["errorCategory"], "network");

    let r = ok(JsMetrics::from_json(stored(m.to_json())));
    assert_eq!(ok(r.to_jsonl()), jsonl);
    assert_thrown(
        JsMetrics::from_json(js(json!({ "events": [{ "timestamp": 1 }] }))),
        Thrown::Type,
        "state",
    );
}

#[wasm_bindgen_test]
fn metrics_bad_events_and_arguments() {
    let m = JsMetrics::new();
    let good = js(event(NOW, "x", true));
    for (e, kind, field) in [
        (JsValue::NULL, Thrown::Type, "event"),
        (
            with_field(&good, "timestamp", &special("nan")),
            Thrown::Range,
            "event.timestamp",
        ),
        (
            with_field(&good, "taskId", &JsValue::from_f64(1.0)),
            Thrown::Type,
            "event.taskId",
        ),
        (
            with_field(&good, "severity", &JsValue::UNDEFINED),
            Thrown::Type,
            "event.severity",
        ),
        (
            with_field(&good, "success", &JsValue::from_f64(1.0)),
            Thrown::Type,
            "event.success",
        ),
        (
            with_field(&good, "durationMs", &JsValue::from_f64(-1.0)),
            Thrown::Range,
            "event.durationMs",
        ),
        (
            with_field(&good, "tokensUsed", &special("bigint")),
            Thrown::Type,
            "event.tokensUsed",
        ),
        (
            throwing_getter(&good, "strategy"),
            Thrown::Type,
            "event.strategy",
        ),
    ] {
        assert_thrown(m.record(e), kind, field);
    }
    assert_thrown(
        m.summary(special("nan"), now(NOW)),
        Thrown::Range,
        "windowMs",
    );
    assert_thrown(
        m.summary(JsValue::UNDEFINED, JsValue::from_str("x")),
        Thrown::Type,
        "now",
    );
    assert_thrown(m.alerts(special("infinity")), Thrown::Range, "now");
    assert_eq!(okv(m.summary(JsValue::UNDEFINED, now(NOW)))["total"], 0);
    ok(m.record(good));
    assert_eq!(
        okv(m.summary(JsValue::UNDEFINED, now(NOW)))["total"],
        1,
        "usable after errors"
    );
}

// ================================================================ CircuitBreaker checks

#[wasm_bindgen_test]
fn circuit_breaker_options_checked_after_from_json() {
    assert_thrown(
        JsCircuitBreaker::new(js(json!({ "failureThreshold": 0 }))),
        Thrown::Range,
        "options.failureThreshold",
    );
    assert_thrown(
        JsCircuitBreaker::new(js(json!([]))),
        Thrown::Type,
        "options",
    );
    let b = ok(JsCircuitBreaker::new(JsValue::UNDEFINED));
    let state = stored(b.to_json());
    assert_eq!(
        ok(JsCircuitBreaker::from_json(state.clone())).state(),
        "closed"
    );
    let msg = assert_thrown(
        JsCircuitBreaker::from_json(with_field(
            &state,
            "options.failureThreshold",
            &JsValue::from_f64(0.0),
        )),
        Thrown::Type,
        "state",
    );
    assert!(msg.contains("failureThreshold"), "{msg}");
    assert_thrown(
        JsCircuitBreaker::from_json(with_field(
            &state,
            "options.resetTimeoutMs",
            &JsValue::from_f64(-1.0),
        )),
        Thrown::Type,
        "state",
    );
}

//! SPEC section 10 and issue 10's classification in real headless Chromium: the providers'
//! documented bodies as their SDKs throw them, Chromium's own fetch failure and
//! `AbortSignal.timeout()` reason, `ClassifyRule`s and `RetryBudget` through the exports.
//! tests/classify_providers.rs cites the documentation of each body.
//!
//! Run: `CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome`
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
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use selfheal::wasm::classify_js;
use selfheal::wasm::JsRetryBudget;
use selfheal::wasm::{JsCircuitBreaker, JsRepairLoop};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
class ApiError extends Error {           // @google/genai
  constructor({ message, status }) { super(message); this.name = 'ApiError'; this.status = status; }
}
class ServiceException extends Error {   // AWS SDK for JavaScript v3
  constructor(name, message, status) {
    super(message); this.name = name; this.$fault = 'client';
    if (status !== undefined) this.$metadata = { httpStatusCode: status, attempts: 1 };
  }
}
class APIError extends Error {           // the openai SDK's shape: status, headers, body at .error, code copied
  constructor(status, body) {
    super(`${status} ${body?.error?.message ?? ''}`);
    this.status = status; this.headers = new Headers(); this.error = body?.error; this.code = body?.error?.code;
  }
}
class BadRequestError extends APIError {}
class CohereError extends Error {
  constructor({ message, statusCode, body }) { super(`${message}\nStatus code: ${statusCode}`); this.statusCode = statusCode; this.body = body; }
}
class InvalidTokenError extends CohereError { constructor(body) { super({ message: 'InvalidTokenError', statusCode: 498, body }); } }

const google = (code, status, message) => ({ error: { code, message, status } });

export function providerError(kind) {
  switch (kind) {
    case 'genai-504': return new ApiError({ message: JSON.stringify(google(504, 'DEADLINE_EXCEEDED', 'Deadline exceeded')), status: 504 });
    case 'genai-429': return new ApiError({ message: JSON.stringify(google(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).')), status: 429 });
    case 'vertex-client': { const e = new Error(`got status: 503 Service Unavailable. ${JSON.stringify(google(503, 'UNAVAILABLE', 'unavailable'))}`); e.name = 'ClientError'; return e; }
    case 'google-stream': return google(null, 'UNAVAILABLE', 'The model is overloaded.');
    case 'bedrock-not-ready': return new ServiceException('ModelNotReadyException', 'Model is not ready for inference.', 429);
    case 'bedrock-quota': return new ServiceException('ServiceQuotaExceededException', 'Your request exceeds the service quota for your account.', 400);
    case 'bedrock-stream': return new ServiceException('ModelStreamErrorException', 'An error occurred while streaming the response.');
    case 'bedrock-http': return { status: 429, headers: new Headers({ 'x-amzn-errortype': 'ModelNotReadyException:http://internal.amazon.com/coral/com.amazon.bedrock/' }) };
    case 'azure-filter': return new BadRequestError(400, { error: { message: 'The response was filtered due to the prompt triggering Azure OpenAI\'s content management policy.', type: null, param: 'prompt', code: 'content_filter', status: 400, innererror: { code: 'ResponsibleAIPolicyViolation' } } });
    case 'mistral-stream': return { object: 'error', message: 'Requests rate limit exceeded', type: 'rate_limit_error', param: null, code: '1300' };
    case 'mistral-402': return Object.assign(new Error('API error occurred'), { name: 'SDKError', statusCode: 402, body: '{"object":"error","message":"No credits","type":"invalid_request_error","param":null,"code":"3505"}' });
    case 'groq-498': return new APIError(498, { error: { message: 'Flex tier capacity exceeded.', type: 'capacity_exceeded', code: 'capacity_exceeded' } });
    case 'cohere-498': return new InvalidTokenError({ message: 'invalid api token' });
    case 'openrouter-flagged': return new APIError(403, { error: { code: 403, message: 'Your input was flagged', metadata: { reasons: ['harassment'], flagged_input: 'you are…' } } });
    case 'openrouter-200': return { error: { code: 502, message: 'Network connection lost.', metadata: { error_type: 'provider_unavailable' } } };
    case 'workers-lost': return Object.assign(new Error('Network connection lost.'), { retryable: true });
    case 'workers-overloaded': return Object.assign(new Error('Durable Object is overloaded.'), { overloaded: true });
    case 'axios-network': return Object.assign(new Error('Network Error'), { name: 'AxiosError', code: 'ERR_NETWORK' });
    case 'sdk-abort-timeout': { const e = new Error('Request was aborted.'); e.name = 'Error';
      Object.defineProperty(e, 'constructor', { value: { name: 'APIUserAbortError' } });
      Object.defineProperty(e, 'cause', { value: new DOMException('signal timed out', 'TimeoutError') }); return e; }
    case 'firefox': return new TypeError('NetworkError when attempting to fetch resource.');
    case 'safari': return new TypeError('Load failed');
    default: throw new Error('unknown kind ' + kind);
  }
}

/// What Chromium's fetch really throws when nothing listens (nothing listens on port 9).
export async function failedFetch() {
  try { await fetch('http://127.0.0.1:9/'); return null; } catch (e) { return e; }
}

/// The reason of a real AbortSignal.timeout() once it has fired.
export async function timeoutReason() {
  const signal = AbortSignal.timeout(1);
  await new Promise((resolve) => setTimeout(resolve, 30));
  return signal.reason;
}

export function errorName(e) { return e?.name; }
export function ruleWithThrowingGetter() {
  return { get status() { throw new Error('getter boom'); }, class: 'transient' };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = providerError)]
    fn provider_error(kind: &str) -> JsValue;
    #[wasm_bindgen(js_name = failedFetch)]
    fn failed_fetch() -> js_sys::Promise;
    #[wasm_bindgen(js_name = timeoutReason)]
    fn timeout_reason() -> js_sys::Promise;
    #[wasm_bindgen(js_name = errorName)]
    fn error_name(e: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = ruleWithThrowingGetter)]
    fn rule_with_throwing_getter() -> JsValue;
}

fn js(v: Value) -> JsValue {
    JSON::parse(&v.to_string()).expect("JSON.parse")
}

fn rs(v: &JsValue) -> Value {
    let text = JSON::stringify(v).unwrap().as_string().unwrap();
    serde_json::from_str(&text).unwrap()
}

fn message(e: &JsValue) -> String {
    Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_default()
}

const NOW: f64 = 1_700_000_000_000.0;

fn classified(error: &JsValue, options: JsValue) -> Value {
    match classify_js(
        error.clone(),
        JsValue::NULL,
        JsValue::from_f64(NOW),
        options,
    ) {
        Ok(c) => rs(&c),
        Err(e) => panic!("classify threw: {}", message(&e)),
    }
}

#[track_caller]
fn assert_classifies(error: &JsValue, class: &str, cause: &str, signal: &str) {
    let c = classified(error, JsValue::UNDEFINED);
    assert_eq!(
        (
            c["class"].as_str(),
            c["cause"].as_str(),
            c["signal"].as_str()
        ),
        (Some(class), Some(cause), Some(signal)),
        "{c}"
    );
    assert!(c["reason"]
        .as_str()
        .is_some_and(|r| !r.is_empty() && !r.contains('\n')));
}

#[wasm_bindgen_test]
fn provider_bodies_as_their_sdks_throw_them() {
    let table = [
        ("genai-504", "transient", "timeout", "error-type"),
        ("genai-429", "transient", "rate-limited", "status"),
        ("vertex-client", "transient", "overloaded", "status"),
        ("google-stream", "transient", "overloaded", "error-type"),
        ("bedrock-not-ready", "transient", "overloaded", "error-type"),
        (
            "bedrock-quota",
            "hard-fail",
            "quota-exhausted",
            "error-type",
        ),
        ("bedrock-stream", "transient", "server-error", "error-type"),
        ("bedrock-http", "transient", "overloaded", "error-type"),
        ("azure-filter", "hard-fail", "content-filter", "code"),
        ("mistral-stream", "transient", "rate-limited", "error-type"),
        ("mistral-402", "hard-fail", "quota-exhausted", "status"),
        ("groq-498", "transient", "overloaded", "code"),
        ("cohere-498", "hard-fail", "auth", "error-type"),
        (
            "openrouter-flagged",
            "hard-fail",
            "content-filter",
            "error-type",
        ),
        ("openrouter-200", "transient", "server-error", "status"),
        ("workers-lost", "transient", "network", "message"),
        (
            "workers-overloaded",
            "hard-fail",
            "overloaded",
            "error-type",
        ),
        ("axios-network", "transient", "network", "code"),
        ("sdk-abort-timeout", "transient", "timeout", "error-type"),
        ("firefox", "transient", "network", "message"),
        ("safari", "transient", "network", "message"),
    ];
    for (kind, class, cause, signal) in table {
        let c = classified(&provider_error(kind), JsValue::UNDEFINED);
        assert_eq!(
            (
                c["class"].as_str(),
                c["cause"].as_str(),
                c["signal"].as_str()
            ),
            (Some(class), Some(cause), Some(signal)),
            "{kind}: {c}"
        );
    }
}

#[wasm_bindgen_test]
async fn the_browsers_own_fetch_failure_is_transient_network() {
    // Each engine words its failed fetch differently (the suite runs in Chromium and Firefox):
    // both are a TypeError, and both must classify the same.
    let error = JsFuture::from(failed_fetch()).await.unwrap();
    assert!(error.is_instance_of::<js_sys::TypeError>(), "{error:?}");
    let engines = [
        "Failed to fetch",
        "NetworkError when attempting to fetch resource.",
    ];
    assert!(
        engines.contains(&message(&error).as_str()),
        "{}",
        message(&error)
    );
    assert_classifies(&error, "transient", "network", "message");
}

#[wasm_bindgen_test]
async fn a_real_abort_signal_timeout_reason_is_transient_timeout() {
    let reason = JsFuture::from(timeout_reason()).await.unwrap();
    assert_eq!(
        error_name(&reason).as_string().as_deref(),
        Some("TimeoutError")
    );
    assert_classifies(&reason, "transient", "timeout", "error-type");
}

#[wasm_bindgen_test]
fn rules_make_a_404_transient_and_a_503_hard_fail() {
    let options = js(json!({ "rules": [
        { "status": 404, "class": "transient" },
        { "status": [500, 599], "class": "hard-fail", "cause": "unsupported" }
    ] }));
    let c = classified(&js(json!({ "status": 404 })), options.clone());
    assert_eq!(
        (
            c["class"].as_str(),
            c["cause"].as_str(),
            c["signal"].as_str()
        ),
        (Some("transient"), Some("not-found"), Some("rule"))
    );
    let c = classified(&js(json!({ "status": 503 })), options);
    assert_eq!(
        (
            c["class"].as_str(),
            c["cause"].as_str(),
            c["signal"].as_str()
        ),
        (Some("hard-fail"), Some("unsupported"), Some("rule"))
    );
}

#[wasm_bindgen_test]
fn bad_rules_are_type_or_range_errors_naming_the_field() {
    let cases = [
        (
            js(
                json!({ "rules": [{ "status": 404, "class": "transient" }, { "status": 12, "class": "transient" }] }),
            ),
            "options.rules[1].status",
            true,
        ),
        (
            js(json!({ "rules": [{ "status": 404, "class": "later" }] })),
            "options.rules[0].class",
            false,
        ),
        (
            js(json!({ "rules": [{ "class": "transient" }] })),
            "options.rules[0]",
            false,
        ),
        (js(json!({ "rules": "404" })), "options.rules", false),
    ];
    for (options, field, range) in cases {
        let e = classify_js(
            js(json!({ "status": 404 })),
            JsValue::NULL,
            JsValue::from_f64(NOW),
            options,
        )
        .unwrap_err();
        assert!(message(&e).contains(field), "{} / {field}", message(&e));
        assert_eq!(
            e.is_instance_of::<js_sys::RangeError>(),
            range,
            "{}",
            message(&e)
        );
        assert!(e.is_instance_of::<js_sys::Error>());
    }
    let rules = js_sys::Array::of1(&rule_with_throwing_getter());
    let options = js_sys::Object::new();
    Reflect::set(&options, &JsValue::from_str("rules"), &rules).unwrap();
    let e = classify_js(JsValue::NULL, JsValue::NULL, JsValue::NULL, options.into()).unwrap_err();
    assert!(
        message(&e).contains("options.rules[0].status"),
        "{}",
        message(&e)
    );
    // The module is still usable after all of that.
    assert_classifies(
        &js(json!({ "status": 429 })),
        "transient",
        "rate-limited",
        "status",
    );
}

fn budget(options: Value) -> JsRetryBudget {
    JsRetryBudget::new(js(options)).unwrap_or_else(|e| panic!("{}", message(&e)))
}

#[wasm_bindgen_test]
fn a_retry_budget_shared_by_loops() {
    let b = budget(json!({ "ratio": 1, "minPerSecond": 0, "windowMs": 10000 }));
    let handle: JsValue = budget(json!({})).into();
    let _ = handle; // another live budget in the registry
    let b_js: JsValue = b.into();
    let options = js(
        json!({ "prompt": { "system": "s", "user": "u" }, "seed": 1, "backoff": { "baseMs": 10, "jitter": "none" } }),
    );
    let l1 = JsRepairLoop::create(options.clone(), JsValue::NULL, b_js.clone()).unwrap();
    let l2 = JsRepairLoop::create(options, JsValue::NULL, b_js.clone()).unwrap();
    let outage = js(json!({ "kind": "error", "error": { "status": 503 } }));
    let i1 = rs(&l1.next(outage.clone(), JsValue::from_f64(NOW)).unwrap());
    assert_eq!(i1["type"], "wait-for-backoff", "{i1}");
    // l1's resend spent what l1's first call earned; l2's first call earns one more.
    let i2 = rs(&l2.next(outage.clone(), JsValue::from_f64(NOW)).unwrap());
    assert_eq!(i2["type"], "wait-for-backoff", "{i2}");
    let i1 = rs(&l1.next(outage, JsValue::from_f64(NOW + 10.0)).unwrap());
    assert_eq!(
        (i1["type"].as_str(), i1["reason"].as_str()),
        (Some("degrade"), Some("retry-budget-exhausted")),
        "{i1}"
    );
    let available = Reflect::get(&b_js, &JsValue::from_str("available")).unwrap();
    assert_eq!(available.as_f64(), Some(0.0));
    // A breaker is not a budget.
    let breaker: JsValue = JsCircuitBreaker::new(JsValue::UNDEFINED).unwrap().into();
    let e = JsRepairLoop::create(
        js(json!({ "prompt": { "system": "s", "user": "u" } })),
        JsValue::NULL,
        breaker,
    )
    .err()
    .unwrap();
    assert!(message(&e).contains("retryBudget"), "{}", message(&e));
}

#[wasm_bindgen_test]
fn retry_budget_state_round_trips_and_bad_input_is_named() {
    let b = budget(json!({ "ratio": 0.5 }));
    b.record_request(JsValue::from_f64(NOW)).unwrap();
    b.record_request(JsValue::from_f64(NOW)).unwrap();
    let state = b.to_json().unwrap();
    let back = JsRetryBudget::from_json(state.clone()).unwrap();
    assert_eq!(rs(&back.to_json().unwrap()), rs(&state));
    assert_eq!(back.available().unwrap(), 11.0);
    let e = JsRetryBudget::new(js(json!({ "windowMs": 1 })))
        .err()
        .unwrap();
    assert!(
        e.is_instance_of::<js_sys::RangeError>() && message(&e).contains("options.windowMs"),
        "{}",
        message(&e)
    );
    let e = JsRetryBudget::from_json(js(json!({ "options": {}, "buckets": [] })))
        .err()
        .unwrap();
    assert!(
        e.is_instance_of::<js_sys::TypeError>() && message(&e).contains("state"),
        "{}",
        message(&e)
    );
    let e = b.try_retry(JsValue::from_f64(f64::NAN)).unwrap_err();
    assert!(message(&e).contains("now"));
}

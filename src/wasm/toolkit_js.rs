//! The agent toolkit for JavaScript (SPEC section 6): `Supervisor`,
//! `AgentBudget`, `FallbackChain`, `DegradationLadder`, `estimateTokens`,
//! `planCompaction`, `applySummary` and `Metrics`. (`CircuitBreaker` lives in
//! `loop_js` beside the loop that shares it.)
//!
//! Same rules as the rest of the boundary: every input is read through the
//! catching helpers in `read` before any state is borrowed, options are
//! checked by the core's `check()` and its errors are reported with the JS
//! path (`options.maxSteps`), and results cross as plain JSON objects.

use std::cell::RefCell;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::read::{self, range_err, type_err, Bad, Read};
use super::structured_js::locale_value;
use super::{to_js_json, to_js_plain};
use crate::prompt::Locale;
use crate::repair_loop::{OptionError, Usage};
use crate::toolkit::{
    apply_summary as apply_summary_core, estimate_tokens as estimate_tokens_core,
    metrics::DEFAULT_SUMMARY_WINDOW_MS, plan_compaction as plan_compaction_core, AgentBudget,
    AgentBudgetOptions, ChainResult, Compaction, CompactionOptions, DegradationLadder,
    FallbackChain, FallbackOptions, HealingEvent, LadderOptions, LadderResult, Message,
    MessageContent, Metrics, Role, Step, Supervisor, SupervisorOptions,
};

/// Arrays read element by element stop here (a `Proxy` can claim any length).
const MAX_ITEMS: u32 = 1_000_000;
/// Code points kept of an error description in a `FallbackChain` failure.
const MAX_ERROR_CHARS: usize = 500;
/// `Number.MAX_SAFE_INTEGER`: token counts above it are not exact in JS.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

#[wasm_bindgen]
extern "C" {
    /// `String(v)`, imported with catch (a `toString` or `Symbol.toPrimitive` may throw).
    #[wasm_bindgen(catch, js_name = String)]
    fn js_string(v: &JsValue) -> Result<JsValue, JsValue>;
}

// ---------- shared helpers ----------

/// A `TypeError` naming `field`, as a value to return in `Err`.
fn type_error(field: &str, message: impl Into<String>) -> JsValue {
    Bad {
        field: field.to_string(),
        message: message.into(),
        range: false,
    }
    .into()
}

fn busy() -> JsValue {
    js_sys::Error::new("selfheal: object is in use (re-entrant call)").into()
}

/// A core option error as a JS error naming `parent.field` (`options.maxSteps`).
fn option_error(parent: &str, e: OptionError) -> JsValue {
    let mut bad = Bad::from(e);
    if bad.field != "now" {
        bad.field = read::path(parent, &bad.field);
    }
    bad.into()
}

/// A state that does not deserialise, or whose options fail `check()`.
fn state_error(class: &str, detail: impl std::fmt::Display) -> JsValue {
    type_error("state", format!("is not a valid {class} state: {detail}"))
}

/// `JSON.stringify(state)` (catching) and serde: the `fromJSON` reader.
fn state_arg<T: DeserializeOwned>(state: &JsValue, class: &str) -> Result<T, JsValue> {
    if !state.is_object() || read::is_array(state) {
        return Err(type_error(
            "state",
            format!(
                "must be the object {class}.toJSON() returned, got {}",
                read::type_name(state)
            ),
        ));
    }
    let text = read::json_text(state, "state")?;
    serde_json::from_str(&text).map_err(|e| state_error(class, e))
}

/// The object options argument: `TypeError` unless a plain (non-array) object.
fn options_object(v: &JsValue, required: bool) -> Read<Option<JsValue>> {
    if read::is_nullish(v) {
        if required {
            return type_err("options", "is required and must be an object");
        }
        return Ok(None);
    }
    if !v.is_object() || read::is_array(v) {
        return type_err(
            "options",
            format!("must be an object, got {}", read::type_name(v)),
        );
    }
    Ok(Some(v.clone()))
}

/// An argument that must be an object (`step`, `usage`, `result`, `event`).
fn object_arg(v: &JsValue, p: &str) -> Read<()> {
    if !v.is_object() || read::is_array(v) {
        return type_err(p, format!("must be an object, got {}", read::type_name(v)));
    }
    Ok(())
}

/// A whole number >= 0 that JS holds exactly (token counts).
fn count64_value(v: &JsValue, p: &str) -> Read<u64> {
    let n = read::number_value(v, p)?;
    if n.fract() != 0.0 {
        return range_err(p, format!("must be a whole number, got {n}"));
    }
    if n > MAX_SAFE {
        return range_err(p, format!("must be at most {MAX_SAFE}, got {n}"));
    }
    Ok(n as u64)
}

fn opt_count64(obj: &JsValue, key: &str, parent: &str) -> Read<Option<u64>> {
    read::optional(obj, key, parent, count64_value)
}

fn req_count64(obj: &JsValue, key: &str, parent: &str) -> Read<u64> {
    match opt_count64(obj, key, parent)? {
        Some(n) => Ok(n),
        None => type_err(
            &read::path(parent, key),
            "is required and must be a whole number",
        ),
    }
}

fn req_number(obj: &JsValue, key: &str, parent: &str) -> Read<f64> {
    match read::opt_number(obj, key, parent)? {
        Some(n) => Ok(n),
        None => type_err(&read::path(parent, key), "is required and must be a number"),
    }
}

fn req_bool(obj: &JsValue, key: &str, parent: &str) -> Read<bool> {
    match read::opt_bool(obj, key, parent)? {
        Some(b) => Ok(b),
        None => type_err(
            &read::path(parent, key),
            "is required and must be a boolean",
        ),
    }
}

/// A finite number of any sign (timestamps).
fn req_finite(obj: &JsValue, key: &str, parent: &str) -> Read<f64> {
    let p = read::path(parent, key);
    let v = read::field(obj, key, &p)?;
    if read::is_nullish(&v) {
        return type_err(&p, "is required and must be a number");
    }
    let Some(n) = v.as_f64() else {
        return type_err(&p, format!("must be a number, got {}", read::type_name(&v)));
    };
    if !n.is_finite() {
        return range_err(
            &p,
            format!("must be a finite number, got {}", read::js_number(n)),
        );
    }
    Ok(n)
}

/// The length of an array (`TypeError` unless `Array.isArray`).
fn array_len(v: &JsValue, p: &str) -> Read<u32> {
    if !read::is_array(v) {
        return type_err(p, format!("must be an array, got {}", read::type_name(v)));
    }
    let len = read::field(v, "length", p)?.as_f64().unwrap_or(0.0);
    if len > f64::from(MAX_ITEMS) {
        return range_err(
            p,
            format!("must have at most {MAX_ITEMS} entries, got {len}"),
        );
    }
    Ok(len as u32)
}

fn item(v: &JsValue, i: u32, p: &str) -> Read<JsValue> {
    js_sys::Reflect::get_u32(v, i).or_else(|_| type_err(&format!("{p}[{i}]"), "could not be read"))
}

/// An array of strings.
fn string_array(v: &JsValue, p: &str) -> Read<Vec<String>> {
    let len = array_len(v, p)?;
    let mut out = Vec::with_capacity(len.min(1024) as usize);
    for i in 0..len {
        let x = item(v, i, p)?;
        match x.as_string() {
            Some(s) => out.push(s),
            None => {
                return type_err(
                    &format!("{p}[{i}]"),
                    format!("must be a string, got {}", read::type_name(&x)),
                )
            }
        }
    }
    Ok(out)
}

fn req_string_array(obj: &JsValue, key: &str, parent: &str) -> Read<Vec<String>> {
    let p = read::path(parent, key);
    let v = read::field(obj, key, &p)?;
    if read::is_nullish(&v) {
        return type_err(&p, "is required and must be an array of strings");
    }
    string_array(&v, &p)
}

/// Any JSON value, through `JSON.stringify` (catching) and serde.
fn json_value(v: &JsValue, p: &str) -> Read<Value> {
    let text = read::json_text(v, p)?;
    serde_json::from_str(&text).or_else(|e| type_err(p, format!("is not usable JSON: {e}")))
}

fn locale_arg(v: &JsValue, p: &str) -> Read<Locale> {
    if read::is_nullish(v) {
        return Ok(Locale::En);
    }
    match v.as_string() {
        Some(s) => locale_value(&s, p),
        None => type_err(p, format!("must be a string, got {}", read::type_name(v))),
    }
}

/// One line describing whatever a tool threw or returned as its error: the
/// name, status, code and message that `classify` reads, else `String(error)`.
fn describe_error(v: &JsValue) -> Option<String> {
    if read::is_nullish(v) {
        return None;
    }
    let mut out = String::new();
    if let Some(s) = v.as_string() {
        out = s;
    } else if read::is_object(v) {
        let info = read::error_info(v);
        let mut tags = Vec::new();
        if let Some(status) = info.status {
            tags.push(format!("status {status}"));
        }
        // Numeric codes (DOMException.code, errno) say less than the name beside them.
        if let Some(code) = info
            .codes
            .iter()
            .find(|c| !c.is_empty() && !c.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
        {
            tags.push(code.clone());
        }
        if let Some(name) = info.name.filter(|n| !n.is_empty()) {
            out.push_str(&name);
        }
        if !tags.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&format!("({})", tags.join(", ")));
        }
        if let Some(msg) = info.messages.iter().find(|m| !m.is_empty()) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(msg);
        }
        if out.is_empty() {
            out = js_string(v)
                .ok()
                .and_then(|s| s.as_string())
                .filter(|s| !s.starts_with("[object "))
                .or_else(|| read::json_text(v, "error").ok())
                .unwrap_or_else(|| read::type_name(v).to_string());
        }
    } else {
        out = js_string(v)
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_else(|| read::type_name(v).to_string());
    }
    Some(one_line(&out))
}

/// One line, at most [`MAX_ERROR_CHARS`] code points.
fn one_line(s: &str) -> String {
    crate::text::one_line(s, MAX_ERROR_CHARS)
}

/// State in a `RefCell`, borrowed only after every input has been read.
struct State<T>(RefCell<T>);

impl<T: Serialize> State<T> {
    fn new(v: T) -> Self {
        State(RefCell::new(v))
    }

    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Result<R, JsValue> {
        let mut v = self.0.try_borrow_mut().map_err(|_| busy())?;
        Ok(f(&mut v))
    }

    fn to_json(&self) -> Result<JsValue, JsValue> {
        let v = self.0.try_borrow().map_err(|_| busy())?;
        to_js_json(&*v)
    }
}

// ---------- Supervisor ----------

/// Watches an agent run step by step (SPEC section 6).
#[wasm_bindgen(js_name = Supervisor, skip_typescript)]
pub struct JsSupervisor {
    inner: State<Supervisor>,
}

fn supervisor_options(v: &JsValue) -> Read<SupervisorOptions> {
    let mut o = SupervisorOptions::default();
    let Some(v) = options_object(v, false)? else {
        return Ok(o);
    };
    let p = "options";
    if let Some(n) = read::opt_count(&v, "maxSteps", p)? {
        o.max_steps = n;
    }
    if let Some(n) = read::opt_number(&v, "maxDurationMs", p)? {
        o.max_duration_ms = n;
    }
    if let Some(n) = opt_count64(&v, "maxTokens", p)? {
        o.max_tokens = n;
    }
    if let Some(n) = read::opt_count(&v, "loopWindow", p)? {
        o.loop_window = n;
    }
    if let Some(n) = read::opt_count(&v, "reviewAfterSteps", p)? {
        o.review_after_steps = n;
    }
    if let Some(n) = read::opt_count(&v, "reviewEvery", p)? {
        o.review_every = n;
    }
    Ok(o)
}

fn step_arg(v: &JsValue) -> Read<Step> {
    object_arg(v, "step")?;
    Ok(Step {
        tool: read::opt_string(v, "tool", "step")?,
        tokens: opt_count64(v, "tokens", "step")?,
        progress: read::opt_string(v, "progress", "step")?,
    })
}

#[wasm_bindgen(js_class = Supervisor)]
impl JsSupervisor {
    /// `new Supervisor(options?, now?)`: `now` is the start of the run.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, now: JsValue) -> Result<JsSupervisor, JsValue> {
        let o = supervisor_options(&options)?;
        let now = read::now_arg(&now)?;
        let inner = Supervisor::new(o, now).map_err(|e| option_error("options", e))?;
        Ok(JsSupervisor {
            inner: State::new(inner),
        })
    }

    /// Count one step and check the limits.
    pub fn observe(&self, step: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let step = step_arg(&step)?;
        let now = read::now_arg(&now)?;
        let verdict = self.inner.with(|s| s.observe(step, now))?;
        to_js_plain(&verdict)
    }

    /// The reviewing model's reply text as a verdict.
    pub fn verdict(&self, text: JsValue) -> Result<JsValue, JsValue> {
        let Some(text) = text.as_string() else {
            return Err(type_error(
                "text",
                format!("must be a string, got {}", read::type_name(&text)),
            ));
        };
        let verdict = self.inner.with(|s| s.verdict(&text))?;
        to_js_plain(&verdict)
    }

    /// Steps observed so far.
    #[wasm_bindgen(getter)]
    pub fn steps(&self) -> Result<f64, JsValue> {
        self.inner.with(|s| f64::from(s.steps()))
    }

    /// Tokens added up over all steps.
    #[wasm_bindgen(getter)]
    pub fn tokens(&self) -> Result<f64, JsValue> {
        self.inner.with(|s| s.tokens() as f64)
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        self.inner.to_json()
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue) -> Result<JsSupervisor, JsValue> {
        let s: Supervisor = state_arg(&state, "Supervisor")?;
        s.options()
            .check()
            .map_err(|e| state_error("Supervisor", format_args!("options.{e}")))?;
        s.check().map_err(|e| state_error("Supervisor", e))?;
        Ok(JsSupervisor {
            inner: State::new(s),
        })
    }
}

// ---------- AgentBudget ----------

/// Iteration and token budgets with a "nearly done" signal (SPEC section 6).
#[wasm_bindgen(js_name = AgentBudget, skip_typescript)]
pub struct JsAgentBudget {
    inner: State<AgentBudget>,
}

fn usage_arg(v: &JsValue) -> Read<Usage> {
    object_arg(v, "usage")?;
    Ok(Usage {
        input_tokens: req_count64(v, "inputTokens", "usage")?,
        output_tokens: req_count64(v, "outputTokens", "usage")?,
    })
}

#[wasm_bindgen(js_class = AgentBudget)]
impl JsAgentBudget {
    /// `new AgentBudget({ maxInputTokens, maxOutputTokens, maxIterations? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsAgentBudget, JsValue> {
        let v = options_object(&options, true)?.unwrap_or(JsValue::UNDEFINED);
        let p = "options";
        let mut o = AgentBudgetOptions::new(
            req_count64(&v, "maxInputTokens", p)?,
            req_count64(&v, "maxOutputTokens", p)?,
        );
        if let Some(n) = read::opt_count(&v, "maxIterations", p)? {
            o.max_iterations = n;
        }
        let inner = AgentBudget::new(o).map_err(|e| option_error(p, e))?;
        Ok(JsAgentBudget {
            inner: State::new(inner),
        })
    }

    /// One iteration (model call) and its usage.
    pub fn record(&self, usage: JsValue) -> Result<(), JsValue> {
        let usage = usage_arg(&usage)?;
        self.inner.with(|b| b.record(usage))
    }

    /// `{ stop, reason }`: iterations, then input, then output tokens.
    pub fn exhausted(&self) -> Result<JsValue, JsValue> {
        let status = self.inner.with(|b| b.exhausted())?;
        to_js_plain(&status)
    }

    /// Either token ratio above 0.8.
    #[wasm_bindgen(js_name = nearlyDone)]
    pub fn nearly_done(&self) -> Result<bool, JsValue> {
        self.inner.with(|b| b.nearly_done())
    }

    /// `min(cap, output tokens left)`.
    #[wasm_bindgen(js_name = maxTokensForNextCall)]
    pub fn max_tokens_for_next_call(&self, cap: JsValue) -> Result<f64, JsValue> {
        if read::is_nullish(&cap) {
            return Err(type_error("cap", "is required and must be a whole number"));
        }
        let cap = count64_value(&cap, "cap")?;
        self.inner.with(|b| b.max_tokens_for_next_call(cap) as f64)
    }

    /// `""` unless nearly done; then the wrap-up sentence in `locale` (default "en").
    pub fn hint(&self, locale: JsValue) -> Result<String, JsValue> {
        let locale = locale_arg(&locale, "locale")?;
        self.inner.with(|b| b.hint(locale))
    }

    /// Iterations recorded.
    #[wasm_bindgen(getter)]
    pub fn iterations(&self) -> Result<f64, JsValue> {
        self.inner.with(|b| f64::from(b.iterations()))
    }

    /// Input tokens used in total.
    #[wasm_bindgen(getter, js_name = inputTokens)]
    pub fn input_tokens(&self) -> Result<f64, JsValue> {
        self.inner.with(|b| b.input_tokens() as f64)
    }

    /// Output tokens used in total.
    #[wasm_bindgen(getter, js_name = outputTokens)]
    pub fn output_tokens(&self) -> Result<f64, JsValue> {
        self.inner.with(|b| b.output_tokens() as f64)
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        self.inner.to_json()
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue) -> Result<JsAgentBudget, JsValue> {
        let b: AgentBudget = state_arg(&state, "AgentBudget")?;
        b.options()
            .check()
            .map_err(|e| state_error("AgentBudget", format_args!("options.{e}")))?;
        Ok(JsAgentBudget {
            inner: State::new(b),
        })
    }
}

// ---------- FallbackChain ----------

/// A primary tool, fallbacks in order, a breaker per tool (SPEC section 6).
#[wasm_bindgen(js_name = FallbackChain, skip_typescript)]
pub struct JsFallbackChain {
    inner: State<FallbackChain>,
}

fn fallback_options(options: &JsValue) -> Read<FallbackOptions> {
    let v = options_object(options, true)?.unwrap_or(JsValue::UNDEFINED);
    let p = "options";
    let primary = read::req_string(&v, "primary", p)?;
    let fallbacks = req_string_array(&v, "fallbacks", p)?;
    let default_v = read::field(&v, "defaultValue", "options.defaultValue")?;
    // Only an absent field means "no default": `defaultValue: null` is a default.
    let default_value = if default_v.is_undefined() {
        None
    } else {
        Some(json_value(&default_v, "options.defaultValue")?)
    };
    let timeout_ms = req_number(&v, "timeoutMs", p)?;
    let mut o = FallbackOptions {
        primary,
        fallbacks,
        default_value,
        timeout_ms,
        ..FallbackOptions::new("", &[], 0.0)
    };
    if let Some(n) = read::opt_count(&v, "failureThreshold", p)? {
        o.failure_threshold = n;
    }
    if let Some(n) = read::opt_number(&v, "resetTimeoutMs", p)? {
        o.reset_timeout_ms = n;
    }
    Ok(o)
}

fn chain_result(v: &JsValue) -> Read<ChainResult> {
    object_arg(v, "result")?;
    let ok = req_bool(v, "ok", "result")?;
    let error = read::field(v, "error", "result.error")?;
    Ok(ChainResult {
        ok,
        error: describe_error(&error),
    })
}

#[wasm_bindgen(js_class = FallbackChain)]
impl JsFallbackChain {
    /// `new FallbackChain({ primary, fallbacks, defaultValue?, timeoutMs, failureThreshold?, resetTimeoutMs? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsFallbackChain, JsValue> {
        let o = fallback_options(&options)?;
        let inner = FallbackChain::new(o).map_err(|e| option_error("options", e))?;
        Ok(JsFallbackChain {
            inner: State::new(inner),
        })
    }

    /// Begin a run: the first tool whose breaker is not open.
    pub fn start(&self, now: JsValue) -> Result<JsValue, JsValue> {
        let now = read::now_arg(&now)?;
        let step = self.inner.with(|c| c.start(now))?;
        to_js_json(&step)
    }

    /// Feed `{ ok, error? }` of the call the last step asked for.
    pub fn next(&self, result: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let result = chain_result(&result)?;
        let now = read::now_arg(&now)?;
        let step = self.inner.with(|c| c.next(result, now))?;
        to_js_json(&step)
    }

    /// Tools called in the current run, in call order.
    #[wasm_bindgen(getter)]
    pub fn tried(&self) -> Result<JsValue, JsValue> {
        let tried = self.inner.with(|c| c.tried().to_vec())?;
        to_js_plain(&tried)
    }

    /// Failed calls of the current run: `{ tool, error, at }`.
    #[wasm_bindgen(getter)]
    pub fn failures(&self) -> Result<JsValue, JsValue> {
        let failures = self.inner.with(|c| c.failures().to_vec())?;
        to_js_plain(&failures)
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        self.inner.to_json()
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue) -> Result<JsFallbackChain, JsValue> {
        let c: FallbackChain = state_arg(&state, "FallbackChain")?;
        c.options()
            .check()
            .map_err(|e| state_error("FallbackChain", format_args!("options.{e}")))?;
        c.check().map_err(|e| state_error("FallbackChain", e))?;
        Ok(JsFallbackChain {
            inner: State::new(c),
        })
    }
}

// ---------- DegradationLadder ----------

/// Partial → minimal → unavailable (SPEC section 6).
#[wasm_bindgen(js_name = DegradationLadder, skip_typescript)]
pub struct JsDegradationLadder {
    inner: State<DegradationLadder>,
}

fn ladder_options(options: &JsValue) -> Read<LadderOptions> {
    let v = options_object(options, true)?.unwrap_or(JsValue::UNDEFINED);
    let p = "options";
    let mut o = LadderOptions {
        task: read::req_string(&v, "task", p)?,
        failed_capabilities: req_string_array(&v, "failedCapabilities", p)?,
        ..LadderOptions::new("", &[])
    };
    o.light_model = read::opt_string(&v, "lightModel", p)?;
    if let Some(l) = read::opt_string(&v, "locale", p)? {
        o.locale = locale_value(&l, "options.locale")?;
    }
    Ok(o)
}

fn ladder_result(v: &JsValue) -> Read<LadderResult> {
    object_arg(v, "result")?;
    if req_bool(v, "ok", "result")? {
        Ok(LadderResult::ok(read::req_string(v, "text", "result")?))
    } else {
        let error = read::field(v, "error", "result.error")?;
        Ok(LadderResult {
            ok: false,
            text: String::new(),
            error: describe_error(&error),
        })
    }
}

#[wasm_bindgen(js_class = DegradationLadder)]
impl JsDegradationLadder {
    /// `new DegradationLadder({ task, failedCapabilities, lightModel?, locale? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsDegradationLadder, JsValue> {
        let o = ladder_options(&options)?;
        let inner = DegradationLadder::new(o).map_err(|e| option_error("options", e))?;
        Ok(JsDegradationLadder {
            inner: State::new(inner),
        })
    }

    /// The first step ("partial" only if tools failed); again restarts.
    pub fn start(&self) -> Result<JsValue, JsValue> {
        let step = self.inner.with(|l| l.start())?;
        to_js_plain(&step)
    }

    /// Feed `{ ok: true, text }` or `{ ok: false, error? }`.
    pub fn next(&self, result: JsValue) -> Result<JsValue, JsValue> {
        let result = ladder_result(&result)?;
        let step = self.inner.with(|l| l.next(result))?;
        to_js_plain(&step)
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        self.inner.to_json()
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue) -> Result<JsDegradationLadder, JsValue> {
        let l: DegradationLadder = state_arg(&state, "DegradationLadder")?;
        l.options()
            .check()
            .map_err(|e| state_error("DegradationLadder", format_args!("options.{e}")))?;
        Ok(JsDegradationLadder {
            inner: State::new(l),
        })
    }
}

// ---------- compaction ----------

/// `Message[]`, read element by element so an error names `messages[i].role`.
fn messages_arg(v: &JsValue, p: &str) -> Read<Vec<Message>> {
    let len = array_len(v, p)?;
    let mut out = Vec::with_capacity(len.min(1024) as usize);
    for i in 0..len {
        let mp = format!("{p}[{i}]");
        let m = item(v, i, p)?;
        object_arg(&m, &mp)?;
        let role = match read::req_string(&m, "role", &mp)?.as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            r => {
                return type_err(
                    &format!("{mp}.role"),
                    format!("must be \"user\" or \"assistant\", got {r:?}"),
                )
            }
        };
        let cp = format!("{mp}.content");
        let c = read::field(&m, "content", &cp)?;
        let content = if let Some(s) = c.as_string() {
            MessageContent::Text(s)
        } else if read::is_array(&c) {
            match json_value(&c, &cp)? {
                Value::Array(parts) => MessageContent::Parts(parts),
                _ => return type_err(&cp, "must be a string or an array of content parts"),
            }
        } else {
            return type_err(
                &cp,
                format!(
                    "must be a string or an array of content parts, got {}",
                    read::type_name(&c)
                ),
            );
        };
        out.push(Message { role, content });
    }
    Ok(out)
}

/// `estimateTokens(messages)`: script-aware, never below `ceil(0.25 · characters)`.
#[wasm_bindgen(js_name = estimateTokens, skip_typescript)]
pub fn estimate_tokens(messages: JsValue) -> Result<f64, JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    Ok(estimate_tokens_core(&messages) as f64)
}

/// `planCompaction(messages, { maxTokens, keepRecent?, maxToolResultChars? })`.
#[wasm_bindgen(js_name = planCompaction, skip_typescript)]
pub fn plan_compaction(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let messages = messages_arg(&messages, "messages")?;
    let v = options_object(&options, true)?.unwrap_or(JsValue::UNDEFINED);
    let p = "options";
    let mut o = CompactionOptions::new(req_count64(&v, "maxTokens", p)?);
    if let Some(n) = read::opt_count(&v, "keepRecent", p)? {
        o.keep_recent = n;
    }
    if let Some(n) = read::opt_count(&v, "maxToolResultChars", p)? {
        o.max_tool_result_chars = n;
    }
    let plan = plan_compaction_core(&messages, &o).map_err(|e| option_error(p, e))?;
    to_js_json(&plan)
}

/// `applySummary(plan, summary)`: `[summary message, ack message, ...plan.keep]`.
#[wasm_bindgen(js_name = applySummary, skip_typescript)]
pub fn apply_summary(plan: JsValue, summary: JsValue) -> Result<JsValue, JsValue> {
    if !plan.is_object() || read::is_array(&plan) {
        return Err(type_error(
            "plan",
            format!(
                "must be the object planCompaction() returned, got {}",
                read::type_name(&plan)
            ),
        ));
    }
    let text = read::json_text(&plan, "plan")?;
    let plan: Compaction = serde_json::from_str(&text)
        .or_else(|e| type_err("plan", format!("is not a planCompaction() result: {e}")))?;
    let Some(summary) = summary.as_string() else {
        return Err(type_error(
            "summary",
            format!("must be a string, got {}", read::type_name(&summary)),
        ));
    };
    let messages = apply_summary_core(&plan, &summary).map_err(|e| option_error("", e))?;
    to_js_json(&messages)
}

// ---------- Metrics ----------

/// Healing events, a windowed summary, alerts and JSONL (SPEC section 6).
#[wasm_bindgen(js_name = Metrics, skip_typescript)]
pub struct JsMetrics {
    inner: State<Metrics>,
}

fn event_arg(v: &JsValue) -> Read<HealingEvent> {
    let p = "event";
    object_arg(v, p)?;
    Ok(HealingEvent {
        timestamp: req_finite(v, "timestamp", p)?,
        task_id: read::req_string(v, "taskId", p)?,
        error_category: read::req_string(v, "errorCategory", p)?,
        severity: read::req_string(v, "severity", p)?,
        strategy: read::req_string(v, "strategy", p)?,
        success: req_bool(v, "success", p)?,
        duration_ms: req_number(v, "durationMs", p)?,
        tokens_used: req_count64(v, "tokensUsed", p)?,
        degraded: req_bool(v, "degraded", p)?,
    })
}

#[wasm_bindgen(js_class = Metrics)]
impl JsMetrics {
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> JsMetrics {
        JsMetrics {
            inner: State::new(Metrics::new()),
        }
    }

    /// Add one healing event.
    pub fn record(&self, event: JsValue) -> Result<(), JsValue> {
        let event = event_arg(&event)?;
        self.inner.with(|m| m.record(event))
    }

    /// Figures over the events in the last `windowMs` (default one hour) before `now`.
    pub fn summary(&self, window_ms: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let window_ms = if read::is_nullish(&window_ms) {
            DEFAULT_SUMMARY_WINDOW_MS
        } else {
            read::number_value(&window_ms, "windowMs")?
        };
        let now = read::now_arg(&now)?;
        let summary = self.inner.with(|m| m.summary(window_ms, now))?;
        to_js_plain(&summary)
    }

    /// Alerts at `now`.
    pub fn alerts(&self, now: JsValue) -> Result<JsValue, JsValue> {
        let now = read::now_arg(&now)?;
        let alerts = self.inner.with(|m| m.alerts(now))?;
        to_js_plain(&alerts)
    }

    /// One `{"type":"healing_event",...}` line per event.
    #[wasm_bindgen(js_name = toJSONL)]
    pub fn to_jsonl(&self) -> Result<String, JsValue> {
        self.inner.with(|m| m.to_jsonl())
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        self.inner.to_json()
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue) -> Result<JsMetrics, JsValue> {
        let m: Metrics = state_arg(&state, "Metrics")?;
        Ok(JsMetrics {
            inner: State::new(m),
        })
    }
}

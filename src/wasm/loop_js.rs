//! `RepairLoop` and `CircuitBreaker` for JavaScript.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::read::{self, range_err, type_err, Read};
use super::registry::{self, Registry};
use super::retry_budget_js::retry_budget_arg;
use super::structured_js::{json_parse_js, locale_value, schema_arg, with_cache};
use super::{to_js_json, to_js_plain};
use crate::backoff::{Backoff, Jitter};
use crate::prompt::Prompt;
use crate::repair_loop::{
    Budget, FallbackPlan, Instruction, LoopConfig, Mode, OptionError, Outcome, RepairLoop,
    Snapshot, Usage,
};
use crate::toolkit::{BreakerOptions, CircuitBreaker, RetryBudget};

// ---------- CircuitBreaker ----------

/// A breaker shared by any number of loops (they hold the same `Rc`).
#[wasm_bindgen(js_name = CircuitBreaker, skip_typescript)]
pub struct JsCircuitBreaker {
    inner: Rc<RefCell<CircuitBreaker>>,
    id: u32,
}

thread_local! {
    /// Live breakers by id (see `registry`): how `new RepairLoop(options, breaker)` finds the
    /// breaker behind the JS object it is given.
    static BREAKERS: RefCell<Registry<Weak<RefCell<CircuitBreaker>>>> =
        RefCell::new(Registry::default());
}

const BREAKER_ID_KEY: &str = "__selfhealBreakerId";

impl JsCircuitBreaker {
    fn register(breaker: CircuitBreaker) -> JsCircuitBreaker {
        let inner = Rc::new(RefCell::new(breaker));
        let id = registry::add(&BREAKERS, Rc::downgrade(&inner));
        JsCircuitBreaker { inner, id }
    }
}

impl Drop for JsCircuitBreaker {
    fn drop(&mut self) {
        registry::remove(&BREAKERS, self.id);
    }
}

/// The breaker passed as a constructor argument: `undefined`/`null` for none.
fn breaker_arg(v: &JsValue, field: &str) -> Read<Option<Rc<RefCell<CircuitBreaker>>>> {
    if read::is_nullish(v) {
        return Ok(None);
    }
    let id = read::get(v, BREAKER_ID_KEY).as_f64();
    match registry::find(&BREAKERS, id).and_then(|b| b.upgrade()) {
        Some(b) => Ok(Some(b)),
        None => type_err(
            field,
            "must be a CircuitBreaker (a live instance from this module)",
        ),
    }
}

#[wasm_bindgen(js_class = CircuitBreaker)]
impl JsCircuitBreaker {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsCircuitBreaker, JsValue> {
        let mut o = BreakerOptions::default();
        if !read::is_nullish(&options) {
            if !read::is_object(&options) || read::is_array(&options) {
                return type_err(
                    "options",
                    format!("must be an object, got {}", read::type_name(&options)),
                )
                .map_err(Into::into);
            }
            if let Some(n) = read::opt_count(&options, "failureThreshold", "options")? {
                o.failure_threshold = n;
            }
            if let Some(ms) = read::opt_number(&options, "resetTimeoutMs", "options")? {
                o.reset_timeout_ms = ms;
            }
        }
        let breaker = CircuitBreaker::try_new(o).map_err(|e| e.under("options"))?;
        Ok(JsCircuitBreaker::register(breaker))
    }

    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self, now: JsValue) -> Result<bool, JsValue> {
        let now = read::now_arg(&now)?;
        Ok(self.with(|b| b.is_open(now)).unwrap_or(false))
    }

    #[wasm_bindgen(js_name = recordSuccess)]
    pub fn record_success(&self) {
        self.with(|b| b.record_success());
    }

    #[wasm_bindgen(js_name = recordFailure)]
    pub fn record_failure(&self, now: JsValue) -> Result<(), JsValue> {
        let now = read::now_arg(&now)?;
        self.with(|b| b.record_failure(now));
        Ok(())
    }

    #[wasm_bindgen(getter)]
    pub fn state(&self) -> String {
        self.with(|b| b.state().as_str().to_string())
            .unwrap_or_else(|| "closed".into())
    }

    /// Lets `RepairLoop` find this breaker (see `BREAKERS`).
    #[wasm_bindgen(getter, js_name = __selfhealBreakerId)]
    pub fn breaker_id(&self) -> u32 {
        self.id
    }

    #[wasm_bindgen(getter)]
    pub fn failures(&self) -> u32 {
        self.with(|b| b.failures()).unwrap_or(0)
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        let snapshot = self
            .inner
            .try_borrow()
            .map(|b| b.clone())
            .map_err(|_| busy())?;
        to_js_json(&snapshot)
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue) -> Result<JsCircuitBreaker, JsValue> {
        let text = read::json_text(&state, "state")?;
        let breaker: CircuitBreaker = serde_json::from_str(&text)
            .or_else(|e| type_err("state", format!("is not a CircuitBreaker state: {e}")))?;
        // Options from outside: the same checks as the constructor's.
        breaker.check().or_else(|e| {
            type_err(
                "state",
                format!("is not a valid CircuitBreaker state: options.{e}"),
            )
        })?;
        Ok(JsCircuitBreaker::register(breaker))
    }
}

impl JsCircuitBreaker {
    fn with<T>(&self, f: impl FnOnce(&mut CircuitBreaker) -> T) -> Option<T> {
        self.inner.try_borrow_mut().ok().map(|mut b| f(&mut b))
    }
}

fn busy() -> JsValue {
    js_sys::Error::new("selfheal: object is in use (re-entrant call)").into()
}

// ---------- RepairLoop ----------

#[wasm_bindgen(js_name = RepairLoop, skip_typescript)]
pub struct JsRepairLoop {
    inner: RefCell<RepairLoop>,
    breaker: Option<Rc<RefCell<CircuitBreaker>>>,
    retry_budget: Option<Rc<RefCell<RetryBudget>>>,
}

#[wasm_bindgen(js_class = RepairLoop)]
impl JsRepairLoop {
    /// `new RepairLoop(options, breaker?, retryBudget?)`.
    #[wasm_bindgen(constructor)]
    pub fn create(
        options: JsValue,
        breaker: JsValue,
        retry_budget: JsValue,
    ) -> Result<JsRepairLoop, JsValue> {
        let (mut config, schema, draw_seed) = loop_options(&options)?;
        let breaker = breaker_arg(&breaker, "breaker")?;
        let retry_budget = retry_budget_arg(&retry_budget, "retryBudget")?;
        if draw_seed {
            config.seed = random_seed()?;
        }
        let inner = RepairLoop::new(config, schema)?;
        Ok(JsRepairLoop {
            inner: RefCell::new(inner),
            breaker,
            retry_budget,
        })
    }

    /// Feed an outcome; get the next instruction.
    pub fn next(&self, outcome: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        // Read everything first: getters may run user code.
        let max_reply = self
            .inner
            .try_borrow()
            .map_err(|_| busy())?
            .config()
            .max_reply_chars as usize;
        let (outcome, reply_js) = outcome_arg(&outcome, max_reply)?;
        let now = read::now_arg(&now)?;
        let (instruction, fresh) = {
            let mut inner = self.inner.try_borrow_mut().map_err(|_| busy())?;
            // A finished loop repeats its final instruction, which is not about this reply;
            // without a schema a `done` value is the reply text as a string, not its JSON.
            let fresh = !inner.is_finished() && inner.has_schema();
            let mut breaker = match &self.breaker {
                Some(b) => Some(b.try_borrow_mut().map_err(|_| busy())?),
                None => None,
            };
            let mut budget = match &self.retry_budget {
                Some(b) => Some(b.try_borrow_mut().map_err(|_| busy())?),
                None => None,
            };
            let instruction =
                inner.next_with(outcome, now, breaker.as_deref_mut(), budget.as_deref_mut());
            (instruction, fresh)
        };
        instruction_to_js(&instruction, reply_js.as_ref().filter(|_| fresh))
    }

    pub fn abort(&self, reason: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let reason = if read::is_nullish(&reason) {
            None
        } else {
            Some(
                reason
                    .as_string()
                    .map_or_else(|| type_err("reason", "must be a string"), Ok)?,
            )
        };
        let now = read::now_arg(&now)?;
        let instruction = self
            .inner
            .try_borrow_mut()
            .map_err(|_| busy())?
            .abort(reason.as_deref(), now);
        to_js_json(&instruction)
    }

    #[wasm_bindgen(getter)]
    pub fn attempts(&self) -> Result<JsValue, JsValue> {
        let inner = self.inner.try_borrow().map_err(|_| busy())?;
        to_js_plain(&inner.attempts())
    }

    pub fn report(&self) -> Result<JsValue, JsValue> {
        let inner = self.inner.try_borrow().map_err(|_| busy())?;
        to_js_plain(&inner.report())
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        let snapshot = self.inner.try_borrow().map_err(|_| busy())?.to_snapshot();
        to_js_json(&snapshot)
    }

    /// `RepairLoop.fromJSON(state, breaker?, retryBudget?)`.
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn restore(
        state: JsValue,
        breaker: JsValue,
        retry_budget: JsValue,
    ) -> Result<JsRepairLoop, JsValue> {
        let breaker = breaker_arg(&breaker, "breaker")?;
        let retry_budget = retry_budget_arg(&retry_budget, "retryBudget")?;
        let text = read::json_text(&state, "state")?;
        let snapshot: Snapshot = serde_json::from_str(&text)
            .or_else(|e| type_err("state", format!("is not a RepairLoop state: {e}")))?;
        let inner = with_cache(|cache| RepairLoop::from_snapshot(snapshot, cache)).unwrap_or_else(
            || {
                Err(OptionError::type_(
                    "state",
                    "could not be restored (re-entrant call)",
                ))
            },
        )?;
        Ok(JsRepairLoop {
            inner: RefCell::new(inner),
            breaker,
            retry_budget,
        })
    }
}

/// The two-argument forms, for Rust callers (the browser tests): no retry budget.
impl JsRepairLoop {
    pub fn new(options: JsValue, breaker: JsValue) -> Result<JsRepairLoop, JsValue> {
        JsRepairLoop::create(options, breaker, JsValue::UNDEFINED)
    }

    pub fn from_json(state: JsValue, breaker: JsValue) -> Result<JsRepairLoop, JsValue> {
        JsRepairLoop::restore(state, breaker, JsValue::UNDEFINED)
    }
}

// ---------- options ----------

fn prompt_value(v: &JsValue, p: &str) -> Read<Prompt> {
    if !read::is_object(v) {
        return type_err(
            p,
            format!(
                "must be an object {{ system, user }}, got {}",
                read::type_name(v)
            ),
        );
    }
    Ok(Prompt {
        system: read::req_string(v, "system", p)?,
        user: read::req_string(v, "user", p)?,
    })
}

/// The options, the schema, and whether the seed is still to be drawn.
fn loop_options(
    o: &JsValue,
) -> Read<(
    LoopConfig,
    Option<std::sync::Arc<crate::structured::CompiledSchema>>,
    bool,
)> {
    if !read::is_object(o) || read::is_array(o) {
        return type_err(
            "options",
            format!("must be an object, got {}", read::type_name(o)),
        );
    }
    let prompt_v = read::field(o, "prompt", "options.prompt")?;
    if read::is_nullish(&prompt_v) {
        return type_err(
            "options.prompt",
            "is required: the { system, user } prompt the host sends first",
        );
    }
    let prompt = prompt_value(&prompt_v, "options.prompt")?;

    // No seed given: the constructor draws one once every option has been read.
    let seed = match read::field(o, "seed", "options.seed")? {
        v if read::is_nullish(&v) => None,
        v => Some(seed_value(&v)?),
    };
    let mut c = LoopConfig::new(prompt, seed.unwrap_or(0));

    let schema_v = read::field(o, "schema", "options.schema")?;
    let schema = if read::is_nullish(&schema_v) {
        None
    } else {
        Some(schema_arg(&schema_v, "options.schema")?)
    };

    if let Some(m) = read::opt_string(o, "mode", "options")? {
        c.mode = match m.as_str() {
            "fix" => Mode::Fix,
            "reask" => Mode::Reask,
            _ => {
                return type_err(
                    "options.mode",
                    format!("must be \"fix\" or \"reask\", got {m:?}"),
                )
            }
        };
    }
    if let Some(v) = read::opt_object(o, "alternatePrompt", "options")? {
        c.alternate_prompt = Some(prompt_value(&v, "options.alternatePrompt")?);
    }
    if let Some(v) = read::opt_object(o, "fallback", "options")? {
        c.fallback = Some(fallback_value(&v)?);
    }
    c.budget = budget_value(o, c.mode)?;
    c.backoff = backoff_value(o)?;
    if let Some(b) = read::opt_bool(o, "localRepair", "options")? {
        c.local_repair = b;
    }
    if let Some(b) = read::opt_bool(o, "coerce", "options")? {
        c.coerce = b;
    }
    if let Some(l) = read::opt_string(o, "locale", "options")? {
        c.locale = locale_value(&l, "options.locale")?;
    }
    if let Some(n) = read::opt_count(o, "maxRawChars", "options")? {
        c.max_raw_chars = n;
    }
    if let Some(rules) = super::rules_js::opt_rules(o, "options")? {
        c.rules = rules;
    }
    if let Some(n) = read::opt_count(o, "maxReplyChars", "options")? {
        c.max_reply_chars = n;
    }
    Ok((c, schema, seed.is_none()))
}

fn fallback_value(v: &JsValue) -> Read<FallbackPlan> {
    let p = "options.fallback";
    match read::req_string(v, "mode", p)?.as_str() {
        "human" => Ok(FallbackPlan::Human {
            queue: read::req_string(v, "queue", p)?,
        }),
        "template" => Ok(FallbackPlan::Template {
            template_id: read::req_string(v, "templateId", p)?,
            text: read::req_string(v, "text", p)?,
        }),
        m => type_err(
            "options.fallback.mode",
            format!("must be \"human\" or \"template\", got {m:?}"),
        ),
    }
}

fn budget_value(o: &JsValue, mode: Mode) -> Read<Budget> {
    let mut b = Budget::default_for(mode);
    let Some(v) = read::opt_object(o, "budget", "options")? else {
        return Ok(b);
    };
    let p = "options.budget";
    if let Some(n) = read::opt_count(&v, "transient", p)? {
        b.transient = n;
    }
    if let Some(n) = read::opt_count(&v, "repairable", p)? {
        b.repairable = n;
    }
    if let Some(n) = read::opt_count(&v, "semanticInvalid", p)? {
        b.semantic_invalid = n;
    }
    if let Some(n) = read::nullable_number(&v, "costCeilingUsd", p)? {
        b.cost_ceiling_usd = n;
    }
    if let Some(n) = read::nullable_number(&v, "deadlineMs", p)? {
        b.deadline_ms = n;
    }
    if let Some(n) = read::nullable_count(&v, "maxPromptChars", p)? {
        b.max_prompt_chars = n;
    }
    Ok(b)
}

fn backoff_value(o: &JsValue) -> Read<Backoff> {
    let mut b = Backoff::default();
    let Some(v) = read::opt_object(o, "backoff", "options")? else {
        return Ok(b);
    };
    let p = "options.backoff";
    if let Some(n) = read::opt_number(&v, "baseMs", p)? {
        b.base_ms = n;
    }
    if let Some(n) = read::opt_number(&v, "maxMs", p)? {
        b.max_ms = n;
    }
    if let Some(j) = read::opt_string(&v, "jitter", p)? {
        b.jitter = Jitter::parse(&j).map_or_else(
            || {
                type_err(
                    "options.backoff.jitter",
                    format!("must be \"additive\", \"full\", \"equal\" or \"none\", got {j:?}"),
                )
            },
            Ok,
        )?;
    }
    if let Some(n) = read::opt_number(&v, "jitterMs", p)? {
        b.jitter_ms = n;
    }
    if let Some(n) = read::opt_number(&v, "maxRetryAfterMs", p)? {
        b.max_retry_after_ms = n;
    }
    Ok(b)
}

/// Any finite number seeds the PRNG: whole numbers as themselves, others by their bits.
fn seed_value(v: &JsValue) -> Read<u64> {
    let Some(n) = v.as_f64() else {
        return type_err(
            "options.seed",
            format!("must be a number, got {}", read::type_name(v)),
        );
    };
    if !n.is_finite() {
        return range_err(
            "options.seed",
            format!("must be a finite number, got {}", read::js_number(n)),
        );
    }
    Ok(if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        n as i64 as u64
    } else {
        n.to_bits()
    })
}

thread_local! {
    /// Where default seeds come from: a SplitMix64 stream seeded once per instance from the
    /// platform's random source. `crypto.getRandomValues` per loop cost ~3.5 us (Node's
    /// webcrypto), a tenth of `new RepairLoop`; jitter needs distinct, unpredictable-enough
    /// seeds, not a fresh draw from the OS each time. Never seeded from anything else: a
    /// stream seeded from a fallback (the clock is 0 at a Worker's global scope) would give
    /// every later loop of the isolate the same jitter (issue 10, defect 6).
    static SEEDS: RefCell<Option<crate::backoff::Rng>> = const { RefCell::new(None) };
}

/// The default seed: the next draw of [`SEEDS`], seeded on first use from
/// crypto.getRandomValues. Where there is no random source (a Cloudflare Worker's global
/// scope), the loop is not built: an `Error` says why, and the stream stays unseeded, so a
/// loop built later, inside a handler, draws properly.
fn random_seed() -> Result<u64, JsValue> {
    SEEDS.with(|cell| {
        let mut seeds = cell.try_borrow_mut().map_err(|_| busy())?;
        let stream = match seeds.as_mut() {
            Some(stream) => stream,
            None => {
                let mut bytes = [0u8; 8];
                if !super::random::crypto_fill(&mut bytes) {
                    return Err(no_random_source());
                }
                seeds.insert(crate::backoff::Rng::new(u64::from_le_bytes(bytes)))
            }
        };
        Ok(stream.next_u64())
    })
}

fn no_random_source() -> JsValue {
    js_sys::Error::new(
        "selfheal: RepairLoop needs a random seed for its jitter and no random source is \
         available here (Cloudflare Workers allow random values only inside a request \
         handler): create the loop inside the handler, or pass options.seed",
    )
    .into()
}

/// An instruction as JS. A `done` that holds the reply exactly as the host passed it (strict
/// JSON checked against the loop's schema, nothing repaired; `reply_js` is given only then)
/// takes its `value` from `JSON.parse` of the host's own string and
/// its `text` as that string, instead of serialising the value and copying the text out of
/// wasm memory: the same values (see `parsed_to_js` in structured_js.rs), for less time
/// (docs/PERFORMANCE.md).
fn instruction_to_js(
    instruction: &Instruction,
    reply_js: Option<&JsValue>,
) -> Result<JsValue, JsValue> {
    if let Instruction::WaitForBackoff {
        delay_ms,
        prompt,
        attempt,
        classified,
    } = instruction
    {
        return Ok(super::wait_for_backoff_to_js(
            *delay_ms, prompt, *attempt, classified,
        ));
    }
    // Every field named (the value comes from `reply_js`): a new `Done` field breaks the build.
    let (
        Instruction::Done {
            value: _,
            text,
            source,
            fixes,
            attempts,
            cost_usd,
        },
        Some(reply_js),
    ) = (instruction, reply_js)
    else {
        return to_js_json(instruction);
    };
    // `text` is the reply read from `reply_js` when nothing was repaired; U+FFFD may stand
    // for a lone surrogate of the JS string, which JSON.parse would keep.
    if !fixes.is_empty() || text.contains('\u{FFFD}') {
        return to_js_json(instruction);
    }
    let Ok(value) = json_parse_js(reply_js) else {
        return to_js_json(instruction);
    };
    Ok(super::done_to_js(
        &value, reply_js, *source, fixes, *attempts, *cost_usd,
    ))
}

// ---------- outcomes ----------

/// The outcome, and for a reply the JS string its text was read from (see `instruction_to_js`).
fn outcome_arg(v: &JsValue, max_reply: usize) -> Read<(Outcome, Option<JsValue>)> {
    match read::outcome_start(v) {
        read::OutcomeStart::Error(error, cost_usd) => {
            Ok((Outcome::Error { error, cost_usd }, None))
        }
        read::OutcomeStart::Kind(kind) => outcome_fields(v, kind, max_reply),
        read::OutcomeStart::Unread => {
            if !read::is_object(v) {
                return type_err(
                    "outcome",
                    format!("must be an object with a kind, got {}", read::type_name(v)),
                );
            }
            outcome_fields(v, read::req_string(v, "kind", "outcome")?, max_reply)
        }
    }
}

fn outcome_fields(v: &JsValue, kind: String, max_reply: usize) -> Read<(Outcome, Option<JsValue>)> {
    match kind.as_str() {
        "reply" => {
            // Read once: the string is both the text and (see `instruction_to_js`) the source
            // of the `done` value, so a getter cannot make them differ.
            let text_js = read::field(v, "text", "outcome.text")?;
            // Refused before it is copied into wasm memory (which never shrinks).
            if let Some(length) = read::certainly_longer(&text_js, max_reply) {
                let outcome = Outcome::ReplyTooLong {
                    length,
                    stop_reason: read::opt_string(v, "stopReason", "outcome")?,
                    cost_usd: read::opt_number(v, "costUsd", "outcome")?.unwrap_or(0.0),
                };
                return Ok((outcome, None));
            }
            let Some(text) = text_js.as_string() else {
                return if read::is_nullish(&text_js) {
                    type_err("outcome.text", "is required and must be a string")
                } else {
                    type_err(
                        "outcome.text",
                        format!("must be a string, got {}", read::type_name(&text_js)),
                    )
                };
            };
            let outcome = Outcome::Reply {
                text,
                stop_reason: read::opt_string(v, "stopReason", "outcome")?,
                cost_usd: read::opt_number(v, "costUsd", "outcome")?.unwrap_or(0.0),
                usage: usage_value(v)?,
            };
            Ok((outcome, Some(text_js)))
        }
        "error" => {
            let error = read::field(v, "error", "outcome.error")?;
            let outcome = Outcome::Error {
                error: read::error_info(&error),
                cost_usd: read::opt_number(v, "costUsd", "outcome")?.unwrap_or(0.0),
            };
            Ok((outcome, None))
        }
        "rejected" => Ok((
            Outcome::Rejected {
                reason: read::req_string(v, "reason", "outcome")?,
            },
            None,
        )),
        "invalid" => Ok((
            Outcome::Invalid {
                reason: read::req_string(v, "reason", "outcome")?,
            },
            None,
        )),
        k => type_err(
            "outcome.kind",
            format!("must be \"reply\", \"error\", \"rejected\" or \"invalid\", got {k:?}"),
        ),
    }
}

fn usage_value(v: &JsValue) -> Read<Option<Usage>> {
    let Some(u) = read::opt_object(v, "usage", "outcome")? else {
        return Ok(None);
    };
    let p = "outcome.usage";
    let input = read::field(&u, "inputTokens", "outcome.usage.inputTokens")?;
    let output = read::field(&u, "outputTokens", "outcome.usage.outputTokens")?;
    Ok(Some(Usage {
        input_tokens: read::count_value(&input, &format!("{p}.inputTokens"))? as u64,
        output_tokens: read::count_value(&output, &format!("{p}.outputTokens"))? as u64,
    }))
}

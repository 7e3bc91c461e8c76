//! `RepairLoop` (SPEC section 5): options in by serde, outcomes in, instructions out.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::breaker::breaker_arg;
use super::outcome::{instruction_to_js, outcome_arg};
use super::retry_budget::retry_budget_arg;
use super::State;
use crate::error::OptionError;
use crate::repair_loop::{LoopOptions, PushError, RepairLoop, Snapshot};
use crate::toolkit::{CircuitBreaker, RetryBudget};
use crate::wasm::error::Busy;
use crate::wasm::mirror::Mirror;
use crate::wasm::random::random_seed;
use crate::wasm::structured_js::{schema_arg, with_cache};
use crate::wasm::{de, read, rules_js, to_js_json};

#[wasm_bindgen(js_name = RepairLoop, skip_typescript)]
pub struct JsRepairLoop {
    inner: State<RepairLoop>,
    breaker: Option<Rc<RefCell<CircuitBreaker>>>,
    retry_budget: Option<Rc<RefCell<RetryBudget>>>,
    /// The partial value of the call in flight, kept in JS (`push`).
    mirror: State<Option<Mirror>>,
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
        let mut o: LoopOptions = de::from_js(&options, "options")?;
        // Read beside the serde fields: a schema may be a live `Schema`, rules have their reader.
        let schema = read::field(&options, "schema", "options")?;
        let schema = match read::is_nullish(&schema) {
            true => None,
            false => Some(schema_arg(&schema, "options.schema")?),
        };
        o.rules = Some(rules_js::opt_rules(&options, "options")?);
        let breaker = breaker_arg(&breaker, "breaker")?;
        let retry_budget = retry_budget_arg(&retry_budget, "retryBudget")?;
        // The seed is drawn once every option has been read.
        let seed = if o.has_seed() { 0 } else { random_seed()? };
        let inner = RepairLoop::new(o.resolve(seed), schema).map_err(|e| e.under("options"))?;
        Ok(JsRepairLoop::wrap(inner, breaker, retry_budget))
    }

    /// Feed an outcome; get the next instruction.
    pub fn next(&self, outcome: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        // Read everything first: getters may run user code.
        let (max_reply, streaming) = self
            .inner
            .with(|l| (l.config().max_reply_chars as usize, l.is_streaming()))?;
        let (outcome, reply_js) = outcome_arg(&outcome, max_reply, streaming)?;
        let now = read::now_arg(&now)?;
        let (instruction, fresh) = self.inner.with(|inner| -> Result<_, JsValue> {
            // A finished loop repeats its final instruction, which is not about this reply;
            // without a schema a `done` value is the reply text as a string, not its JSON.
            let fresh = !inner.is_finished() && inner.has_schema();
            let mut breaker = held(&self.breaker)?;
            let mut budget = held(&self.retry_budget)?;
            let instruction =
                inner.next_with(outcome, now, breaker.as_deref_mut(), budget.as_deref_mut());
            Ok((instruction, fresh))
        })??;
        instruction_to_js(&instruction, reply_js.as_ref().filter(|_| fresh))
    }

    /// One more chunk of the call in flight's reply (SPEC section 8): a `PartialUpdate`.
    /// `RangeError` (nothing added) past `maxReplyChars`; `Error` once the loop has finished.
    pub fn push(&self, chunk: JsValue) -> Result<JsValue, JsValue> {
        let fresh = !self.inner.with(|l| l.is_streaming())?;
        let (text, held) = self.mirror.with(|m| {
            let mirror = match m {
                Some(mirror) if !fresh => mirror,
                _ => m.insert(Mirror::new()),
            };
            mirror.read_chunk(&chunk)
        })??;
        match self.inner.with(|l| l.push(&text))? {
            Ok(update) => self.mirror.with(|m| match m {
                Some(mirror) => mirror.apply(&chunk, held, &update),
                None => Err(Busy.into()),
            })?,
            Err(e @ PushError::TooLong { .. }) => Err(OptionError::range(
                "chunk",
                &format!("would not fit: {e}; nothing was added"),
            )
            .into()),
            Err(e @ PushError::Finished) => {
                Err(js_sys::Error::new(&format!("selfheal: RepairLoop.push: {e}")).into())
            }
        }
    }

    /// Degrade `aborted` (or the final instruction already given).
    pub fn abort(&self, reason: JsValue, now: JsValue) -> Result<JsValue, JsValue> {
        let reason: Option<String> = de::from_js(&reason, "reason")?;
        let now = read::now_arg(&now)?;
        to_js_json(&self.inner.with(|l| l.abort(reason.as_deref(), now))?)
    }

    #[wasm_bindgen(getter)]
    pub fn attempts(&self) -> Result<JsValue, JsValue> {
        to_js_json(&self.inner.with(|l| l.attempts().to_vec())?)
    }

    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js_json(&self.inner.with(|l| l.report())?)
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        to_js_json(&self.inner.with(|l| l.to_snapshot())?)
    }

    /// `RepairLoop.fromJSON(state, breaker?, retryBudget?)`.
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn restore(state: JsValue, breaker: JsValue, budget: JsValue) -> Result<Self, JsValue> {
        let breaker = breaker_arg(&breaker, "breaker")?;
        let retry_budget = retry_budget_arg(&budget, "retryBudget")?;
        let snapshot: Snapshot =
            super::read_state(&state, "state", "RepairLoop.toJSON() returned")?;
        let (inner, update) = with_cache(|cache| RepairLoop::resume(snapshot, cache))
            .unwrap_or_else(|| {
                Err(OptionError::type_(
                    "state",
                    "could not be restored (re-entrant call)",
                ))
            })?;
        // A loop saved mid-stream: what was pushed before the save, mirrored in JS as one chunk,
        // so the next push goes on from it.
        let mirror = match (update, inner.pushed()) {
            (Some(update), Some(text)) => {
                let mut mirror = Mirror::new();
                mirror.apply(&JsValue::from_str(text), None, &update)?;
                Some(mirror)
            }
            _ => None,
        };
        let restored = JsRepairLoop::wrap(inner, breaker, retry_budget);
        restored.mirror.with(|m| *m = mirror)?;
        Ok(restored)
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

    fn wrap(
        inner: RepairLoop,
        breaker: Option<Rc<RefCell<CircuitBreaker>>>,
        retry_budget: Option<Rc<RefCell<RetryBudget>>>,
    ) -> JsRepairLoop {
        JsRepairLoop {
            inner: State::new(inner),
            breaker,
            retry_budget,
            mirror: State::new(None),
        }
    }
}

/// A shared object the loop holds, borrowed for one step ([`Busy`] if it is in a call).
fn held<T>(shared: &Option<Rc<RefCell<T>>>) -> Result<Option<std::cell::RefMut<'_, T>>, JsValue> {
    shared
        .as_ref()
        .map(|s| s.try_borrow_mut().map_err(|_| Busy.into()))
        .transpose()
}

//! `RetryBudget` for JavaScript (SPEC section 10), shared by any number of loops:
//! `new RepairLoop(options, breaker?, retryBudget?)` finds it by id (see `registry`), the way it
//! finds a `CircuitBreaker`.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::read::{self, type_err, Read};
use super::registry::{self, Registry};
use super::to_js_json;
use crate::toolkit::{RetryBudget, RetryBudgetOptions};

/// Resends allowed across loops, as a fraction of their first calls.
#[wasm_bindgen(js_name = RetryBudget, skip_typescript)]
pub struct JsRetryBudget {
    inner: Rc<RefCell<RetryBudget>>,
    id: u32,
}

thread_local! {
    /// Live budgets by id: how a loop finds the budget behind the JS object it is given.
    static RETRY_BUDGETS: RefCell<Registry<Weak<RefCell<RetryBudget>>>> =
        RefCell::new(Registry::default());
}

const RETRY_BUDGET_ID_KEY: &str = "__selfhealRetryBudgetId";

impl JsRetryBudget {
    fn register(budget: RetryBudget) -> JsRetryBudget {
        let inner = Rc::new(RefCell::new(budget));
        let id = registry::add(&RETRY_BUDGETS, Rc::downgrade(&inner));
        JsRetryBudget { inner, id }
    }

    fn with<T>(&self, f: impl FnOnce(&mut RetryBudget) -> T) -> Result<T, JsValue> {
        let mut b = self.inner.try_borrow_mut().map_err(|_| busy())?;
        Ok(f(&mut b))
    }
}

impl Drop for JsRetryBudget {
    fn drop(&mut self) {
        registry::remove(&RETRY_BUDGETS, self.id);
    }
}

fn busy() -> JsValue {
    js_sys::Error::new("selfheal: object is in use (re-entrant call)").into()
}

/// The budget passed as an argument (`field` names it): `undefined`/`null` for none.
pub(crate) fn retry_budget_arg(v: &JsValue, field: &str) -> Read<Option<Rc<RefCell<RetryBudget>>>> {
    if read::is_nullish(v) {
        return Ok(None);
    }
    let id = read::get(v, RETRY_BUDGET_ID_KEY).as_f64();
    match registry::find(&RETRY_BUDGETS, id).and_then(|b| b.upgrade()) {
        Some(b) => Ok(Some(b)),
        None => type_err(
            field,
            "must be a RetryBudget (a live instance from this module)",
        ),
    }
}

fn options_value(options: &JsValue) -> Read<RetryBudgetOptions> {
    let mut o = RetryBudgetOptions::default();
    if read::is_nullish(options) {
        return Ok(o);
    }
    if !options.is_object() || read::is_array(options) {
        return type_err(
            "options",
            format!("must be an object, got {}", read::type_name(options)),
        );
    }
    if let Some(n) = read::opt_number(options, "ratio", "options")? {
        o.ratio = n;
    }
    if let Some(n) = read::opt_number(options, "minPerSecond", "options")? {
        o.min_per_second = n;
    }
    if let Some(n) = read::opt_number(options, "windowMs", "options")? {
        o.window_ms = n;
    }
    o.check().map_err(|e| {
        let mut bad = read::Bad::from(e);
        bad.field = read::path("options", &bad.field);
        bad
    })?;
    Ok(o)
}

#[wasm_bindgen(js_class = RetryBudget)]
impl JsRetryBudget {
    /// `new RetryBudget({ ratio: 0.1, minPerSecond: 1, windowMs: 10000 })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsRetryBudget, JsValue> {
        Ok(JsRetryBudget::register(RetryBudget::new(options_value(
            &options,
        )?)))
    }

    /// A first call was made.
    #[wasm_bindgen(js_name = recordRequest)]
    pub fn record_request(&self, now: JsValue) -> Result<(), JsValue> {
        let now = read::now_arg(&now)?;
        self.with(|b| b.record_request(now))
    }

    /// A resend is wanted: true, and counted, when allowed.
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&self, now: JsValue) -> Result<bool, JsValue> {
        let now = read::now_arg(&now)?;
        self.with(|b| b.try_retry(now))
    }

    /// Resends allowed now, as of the latest time the budget was given.
    #[wasm_bindgen(getter)]
    pub fn available(&self) -> Result<f64, JsValue> {
        self.with(|b| b.available() as f64)
    }

    /// Lets `RepairLoop` find this budget.
    #[wasm_bindgen(getter, js_name = __selfhealRetryBudgetId)]
    pub fn retry_budget_id(&self) -> u32 {
        self.id
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        let snapshot = self.inner.try_borrow().map_err(|_| busy())?.clone();
        to_js_json(&snapshot)
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue) -> Result<JsRetryBudget, JsValue> {
        if !state.is_object() || read::is_array(&state) {
            type_err::<()>(
                "state",
                format!(
                    "must be the object RetryBudget.toJSON() returned, got {}",
                    read::type_name(&state)
                ),
            )?;
        }
        let text = read::json_text(&state, "state")?;
        let budget: RetryBudget = serde_json::from_str(&text)
            .or_else(|e| type_err("state", format!("is not a RetryBudget state: {e}")))?;
        budget
            .check()
            .or_else(|e| type_err("state", format!("is not a valid RetryBudget state: {e}")))?;
        Ok(JsRetryBudget::register(budget))
    }
}

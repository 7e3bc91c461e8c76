//! `RetryBudget` (SPEC section 10), shared by any number of loops: `new RepairLoop(options,
//! breaker?, retryBudget?)` finds it by id (see `registry`), the way it finds a breaker.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use crate::toolkit::{RetryBudget, RetryBudgetOptions};
use crate::wasm::error::Read;
use crate::wasm::registry::{shared_arg, Registry, Shared};
use crate::wasm::{de, read};

thread_local! {
    /// Live budgets by id: how a loop finds the budget behind the JS object it is given.
    static RETRY_BUDGETS: RefCell<Registry<Weak<RefCell<RetryBudget>>>> =
        RefCell::new(Registry::default());
}

/// The budget passed as an argument (`field`): `undefined`/`null` for none.
pub(crate) fn retry_budget_arg(v: &JsValue, field: &str) -> Read<Option<Rc<RefCell<RetryBudget>>>> {
    shared_arg(
        &RETRY_BUDGETS,
        v,
        "__selfhealRetryBudgetId",
        field,
        "RetryBudget",
    )
}

/// Resends allowed across loops, as a fraction of their first calls.
#[wasm_bindgen(js_name = RetryBudget, skip_typescript)]
pub struct JsRetryBudget {
    inner: Shared<RetryBudget>,
}

#[wasm_bindgen(js_class = RetryBudget)]
impl JsRetryBudget {
    /// `new RetryBudget({ ratio: 0.1, minPerSecond: 1, windowMs: 10000 })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsRetryBudget, JsValue> {
        let options: RetryBudgetOptions = de::optional(&options, "options")?;
        options.check().map_err(|e| e.under("options"))?;
        Ok(JsRetryBudget {
            inner: Shared::new(&RETRY_BUDGETS, RetryBudget::new(options)),
        })
    }

    /// A first call was made.
    #[wasm_bindgen(js_name = recordRequest)]
    pub fn record_request(&self, now: JsValue) -> Result<(), JsValue> {
        let now = read::now_arg(&now)?;
        self.inner.with(|b| b.record_request(now))
    }

    /// A resend is wanted: true, and counted, when allowed.
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&self, now: JsValue) -> Result<bool, JsValue> {
        let now = read::now_arg(&now)?;
        self.inner.with(|b| b.try_retry(now))
    }

    /// Resends allowed now, as of the latest time the budget was given.
    #[wasm_bindgen(getter)]
    pub fn available(&self) -> Result<f64, JsValue> {
        self.inner.with(|b| b.available() as f64)
    }

    /// Lets `RepairLoop` find this budget.
    #[wasm_bindgen(getter, js_name = __selfhealRetryBudgetId)]
    pub fn retry_budget_id(&self) -> u32 {
        self.inner.id
    }

    /// Tells this module's instances from another copy's (see `registry`).
    #[wasm_bindgen(getter, js_name = __selfhealModule)]
    pub fn module_token(&self) -> JsValue {
        crate::wasm::registry::module_token()
    }
}

super::state_json!(
    JsRetryBudget,
    "RetryBudget",
    RetryBudget,
    wrap: |b| JsRetryBudget { inner: Shared::new(&RETRY_BUDGETS, b) }
);

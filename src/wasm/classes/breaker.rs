//! `CircuitBreaker` (SPEC section 6), shared by any number of loops: `new RepairLoop(options,
//! breaker)` finds it by id (see `registry`).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use crate::toolkit::{BreakerOptions, CircuitBreaker};
use crate::wasm::error::Read;
use crate::wasm::registry::{shared_arg, Registry, Shared};
use crate::wasm::{de, read};

thread_local! {
    /// Live breakers by id: how a loop finds the breaker behind the JS object it is given.
    static BREAKERS: RefCell<Registry<Weak<RefCell<CircuitBreaker>>>> =
        RefCell::new(Registry::default());
}

/// The breaker passed as an argument (`field`): `undefined`/`null` for none.
pub(crate) fn breaker_arg(v: &JsValue, field: &str) -> Read<Option<Rc<RefCell<CircuitBreaker>>>> {
    shared_arg(&BREAKERS, v, "__selfhealBreakerId", field, "CircuitBreaker")
}

#[wasm_bindgen(js_name = CircuitBreaker, skip_typescript)]
pub struct JsCircuitBreaker {
    inner: Shared<CircuitBreaker>,
}

#[wasm_bindgen(js_class = CircuitBreaker)]
impl JsCircuitBreaker {
    /// `new CircuitBreaker({ failureThreshold: 3, resetTimeoutMs: 60000 })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsCircuitBreaker, JsValue> {
        let options: BreakerOptions = de::optional(&options, "options")?;
        let breaker = CircuitBreaker::try_new(options).map_err(|e| e.under("options"))?;
        Ok(JsCircuitBreaker {
            inner: Shared::new(&BREAKERS, breaker),
        })
    }

    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self, now: JsValue) -> Result<bool, JsValue> {
        let now = read::now_arg(&now)?;
        self.inner.with(|b| b.is_open(now))
    }

    #[wasm_bindgen(js_name = recordSuccess)]
    pub fn record_success(&self) -> Result<(), JsValue> {
        self.inner.with(|b| b.record_success())
    }

    #[wasm_bindgen(js_name = recordFailure)]
    pub fn record_failure(&self, now: JsValue) -> Result<(), JsValue> {
        let now = read::now_arg(&now)?;
        self.inner.with(|b| b.record_failure(now))
    }

    /// `"closed"`, `"open"` or `"half-open"`; throws while the breaker is in a call, like every
    /// other method of every class.
    #[wasm_bindgen(getter = state)]
    pub fn state_js(&self) -> Result<String, JsValue> {
        self.inner.with(|b| b.state().as_str().to_string())
    }

    /// Lets `RepairLoop` find this breaker (see `BREAKERS`).
    #[wasm_bindgen(getter, js_name = __selfhealBreakerId)]
    pub fn breaker_id(&self) -> u32 {
        self.inner.id
    }

    /// Tells this module's instances from another copy's (see `registry`).
    #[wasm_bindgen(getter, js_name = __selfhealModule)]
    pub fn module_token(&self) -> JsValue {
        crate::wasm::registry::module_token()
    }

    #[wasm_bindgen(getter)]
    pub fn failures(&self) -> Result<u32, JsValue> {
        self.inner.with(|b| b.failures())
    }
}

/// For Rust callers (the browser tests), where no call can be in progress.
impl JsCircuitBreaker {
    pub fn state(&self) -> String {
        self.state_js().unwrap_or_default()
    }
}

super::state_json!(
    JsCircuitBreaker,
    "CircuitBreaker",
    CircuitBreaker,
    check: |b: &CircuitBreaker| b.check().map_err(|e| e.under("options")),
    wrap: |b| JsCircuitBreaker { inner: Shared::new(&BREAKERS, b) }
);

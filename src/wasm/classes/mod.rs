//! The exported classes and functions, one file each (or one group of functions).
//!
//! Every constructor is "deserialize, then check()": the options are read by their core type's
//! serde derive through the catching `Deserializer` (`de::from_js`), then the core's `new` checks
//! what types cannot say, its errors named under `options`. Every method reads its arguments
//! first and only then borrows the state ([`State`]), so user code that runs while arguments are
//! read (getters, proxies) never finds a borrow held, and a re-entrant call gets [`Busy`].

pub mod agent_budget;
pub mod breaker;
pub mod compaction;
pub mod fallback_chain;
pub mod ladder;
pub mod metrics;
mod outcome;
pub mod partial_json;
pub mod repair_loop;
pub mod retry_budget;
pub mod supervisor;

use std::cell::RefCell;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

use super::de;
use super::error::Busy;
use super::read;
use super::to_js_json;
use crate::error::OptionError;

/// A class's Rust state, borrowed only after every input has been read.
pub(crate) struct State<T>(RefCell<T>);

impl<T> State<T> {
    pub(crate) fn new(v: T) -> Self {
        State(RefCell::new(v))
    }

    /// Run `f` on the state; [`Busy`] while another call holds it.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Result<R, JsValue> {
        let mut v = self.0.try_borrow_mut().map_err(|_| Busy)?;
        Ok(f(&mut v))
    }
}

impl<T: Serialize> State<T> {
    /// `toJSON()`: the whole state as plain JSON.
    pub(crate) fn to_json(&self) -> Result<JsValue, JsValue> {
        let v = self.0.try_borrow().map_err(|_| Busy)?;
        to_js_json(&*v)
    }
}

/// A constructor's state: `options` read by serde, then the core's `new` (errors under `options`).
pub(crate) fn construct<O: DeserializeOwned, T>(
    options: &JsValue,
    new: impl FnOnce(O) -> Result<T, OptionError>,
) -> Result<State<T>, JsValue> {
    let options: O = de::from_js(options, "options")?;
    Ok(State::new(new(options).map_err(under_options)?))
}

/// A core check's error, named under `options` (`now` is an argument of its own).
pub(crate) fn under_options(e: OptionError) -> JsValue {
    if e.field == "now" {
        e
    } else {
        e.under("options")
    }
    .into()
}

/// `toJSON()` and `X.fromJSON(state)` of a class that is its core type's state: the state
/// serialised whole, and read back by [`from_state`] (`check` on the result), then `wrap`ped.
macro_rules! state_json {
    // A class whose `inner` is a `State` of its core type, checked by the core's `check()`.
    ($js:ident, $class:literal, $core:ty) => {
        $crate::wasm::classes::state_json!($js, $class, $core, wrap: |c| $js {
            inner: State::new(c)
        });
    };
    // Without `check`: the core type's own `check()`.
    ($js:ident, $class:literal, $core:ty, wrap: $wrap:expr) => {
        $crate::wasm::classes::state_json!($js, $class, $core, check: <$core>::check, wrap: $wrap);
    };
    ($js:ident, $class:literal, $core:ty, check: $check:expr, wrap: $wrap:expr) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $js {
            #[wasm_bindgen(js_name = toJSON)]
            pub fn to_json(&self) -> Result<JsValue, JsValue> {
                self.inner.to_json()
            }

            #[wasm_bindgen(js_name = fromJSON)]
            pub fn from_json(state: JsValue) -> Result<$js, JsValue> {
                let wrap: fn($core) -> $js = $wrap;
                Ok(wrap($crate::wasm::classes::from_state(
                    &state, $class, $check,
                )?))
            }
        }
    };
}
pub(crate) use state_json;

/// `X.fromJSON(state)`: the state read by [`read_state`], then `check` on the result.
pub(crate) fn from_state<T: DeserializeOwned>(
    state: &JsValue,
    class: &str,
    check: impl FnOnce(&T) -> Result<(), OptionError>,
) -> Result<T, JsValue> {
    let what = format!("{class}.toJSON() returned");
    let v: T = read_state(state, "state", &what)?;
    check(&v)
        .map_err(|e| OptionError::type_("state", &format!("is not a valid {class} state: {e}")))?;
    Ok(v)
}

/// A value selfheal gave out whole and takes back (`toJSON()` states, `planCompaction()`'s
/// plan), read by the same catching deserializer as options, every own key seen (so the types
/// that `deny_unknown_fields` refuse extras). One reader for both directions of the boundary:
/// reading these through serde_json instead compiled every state type's `Deserialize` a second
/// time (docs/PERFORMANCE.md, "Round 6"). Any error is a `TypeError` at `field` saying what the
/// value must be (`the object RepairLoop.toJSON() returned`) and what was wrong inside it.
pub(crate) fn read_state<T: DeserializeOwned>(
    value: &JsValue,
    field: &str,
    what: &str,
) -> Result<T, JsValue> {
    if !value.is_object() || read::is_array(value) {
        return Err(OptionError::type_(
            field,
            &format!("must be the object {what}, got {}", read::type_name(value)),
        )
        .into());
    }
    de::read_js(value, field, de::Limits::DEFAULT, de::Keys::All).map_err(|bad| {
        OptionError::type_(
            field,
            &format!("is not the object {what}: {} {}", bad.field, bad.message),
        )
        .into()
    })
}

//! Errors to JavaScript, in one place.
//!
//! * A core [`OptionError`] (a bad option, argument or restored state, its field already
//!   named from the argument on: `options.backoff.baseMs`) becomes a `TypeError` or a
//!   `RangeError` whose message starts `selfheal: <field> `.
//! * [`Busy`]: a method called while the same object is in a call (a getter or proxy of the
//!   arguments calling back in) gets a plain `Error`; the object stays usable.

use wasm_bindgen::JsValue;

use crate::error::OptionError;

/// What reading an argument gives: the value, or the error naming its field.
pub type Read<T> = Result<T, OptionError>;

impl From<OptionError> for JsValue {
    fn from(e: OptionError) -> JsValue {
        // Messages may quote the input: one line, readable whatever the input's size.
        let message = crate::text::one_line(&e.message, 300);
        let text = format!("selfheal: {} {}", e.field, message);
        if e.is_range {
            js_sys::RangeError::new(&text).into()
        } else {
            js_sys::TypeError::new(&text).into()
        }
    }
}

/// The object is in a call already (re-entrant call from user code run by that call).
#[derive(Debug, Clone, Copy)]
pub struct Busy;

impl From<Busy> for JsValue {
    fn from(_: Busy) -> JsValue {
        js_sys::Error::new("selfheal: object is in use (re-entrant call)").into()
    }
}

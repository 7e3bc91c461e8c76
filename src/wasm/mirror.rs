//! The JS side of every streamed reply (`PartialJson` and `RepairLoop.push`): the chunk read as
//! Rust text, and each push's edits sent to js/snippets/instructions.js, which keeps the partial
//! value. Nothing crosses per push but the chunk and what changed: the whole value is never
//! serialised again.

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::OptionError;
use crate::structured::stream::{Edit, PartialUpdate};
use crate::wasm::error::Read;
use crate::wasm::{read, to_js_json};

#[wasm_bindgen(module = "/js/snippets/instructions.js")]
extern "C" {
    // Our own code on our own records and on the chunk (a string): no user code runs.
    #[wasm_bindgen(js_name = partialNew)]
    fn partial_new() -> JsValue;
    #[wasm_bindgen(catch, js_name = partialApply)]
    fn partial_apply(
        mirror: &JsValue,
        chunk: &JsValue,
        payload: &str,
        done: bool,
        violation: &JsValue,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = partialAppend)]
    fn partial_append(
        mirror: &JsValue,
        chunk: &JsValue,
        text: &str,
        done: bool,
        violation: &JsValue,
    ) -> Result<JsValue, JsValue>;
    // `catch` though reading our own record cannot throw: it makes wasm-bindgen call it through
    // a shim. Imported directly, as partialNew is, it was a second `import * as` of this module
    // under the same key of the web glue's import object, which every bundler warns about.
    #[wasm_bindgen(catch, js_name = partialText)]
    fn partial_text(mirror: &JsValue) -> Result<JsValue, JsValue>;
}

/// The JS side of one streamed reply: the value and text the snippet keeps, and a high
/// surrogate that ended the last chunk (a JS string may split a character in two; a Rust
/// `&str` cannot, so it waits for its other half).
pub(crate) struct Mirror {
    js: JsValue,
    pending: Option<u16>,
    /// The violation has crossed (it is sent once; the snippet keeps it).
    violation_sent: bool,
}

impl Mirror {
    pub(crate) fn new() -> Mirror {
        Mirror {
            js: partial_new(),
            pending: None,
            violation_sent: false,
        }
    }

    /// Everything pushed, as the JS strings were.
    pub(crate) fn text(&self) -> Result<JsValue, JsValue> {
        partial_text(&self.js)
    }

    /// `chunk` as Rust text, with the surrogate held back from the last chunk in front and a
    /// trailing high surrogate held back (the second value: what to keep if the push succeeds).
    pub(crate) fn read_chunk(&self, chunk: &JsValue) -> Read<(String, Option<u16>)> {
        let Some(s) = chunk.dyn_ref::<js_sys::JsString>() else {
            return Err(OptionError::type_(
                "chunk",
                &format!("must be a string, got {}", read::type_name(chunk)),
            ));
        };
        let joined;
        let s = match self.pending {
            Some(high) => {
                joined = js_sys::JsString::from_char_code1(u32::from(high)).concat(s);
                &joined
            }
            None => s,
        };
        let len = s.length();
        let tail = if len == 0 {
            f64::NAN
        } else {
            s.char_code_at(len - 1)
        };
        if (55296.0..56320.0).contains(&tail) {
            let body: String = s.slice(0, len - 1).into();
            Ok((body, Some(tail as u16)))
        } else {
            Ok((s.into(), None))
        }
    }

    /// After the core accepted a push: keep the held surrogate, apply the edits in JS, and
    /// return the `PartialUpdate`.
    pub(crate) fn apply(
        &mut self,
        chunk: &JsValue,
        held: Option<u16>,
        update: &PartialUpdate,
    ) -> Result<JsValue, JsValue> {
        self.pending = held;
        let violation = match (&update.violation, self.violation_sent) {
            (Some(issue), false) => {
                self.violation_sent = true;
                to_js_json(issue)?
            }
            _ => JsValue::UNDEFINED,
        };
        if let [Edit::Append { text }] = update.edits.as_slice() {
            // Most pushes: a string grew, nothing closed. No JSON text either way.
            return partial_append(&self.js, chunk, text, update.done, &violation);
        }
        let payload = payload(update)?;
        partial_apply(&self.js, chunk, &payload, update.done, &violation)
    }
}

/// The edits as the flat array js/snippets/instructions.js reads ("" for none). The closed
/// pointers are not sent: the snippet builds them from the edits (each Scalar and End closes one
/// value), and a key only when the open container is an object, where the core gives one.
fn payload(update: &PartialUpdate) -> Result<String, JsValue> {
    if update.edits.is_empty() {
        return Ok(String::new());
    }
    serde_json::to_string(&Payload(update)).map_err(|e| {
        js_sys::Error::new(&format!("selfheal: internal serialisation error: {e}")).into()
    })
}

struct Payload<'a>(&'a PartialUpdate);

impl Serialize for Payload<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for edit in &self.0.edits {
            match edit {
                Edit::Begin { key, kind } => {
                    seq.serialize_element(&(*kind as u8))?;
                    if let Some(key) = key {
                        seq.serialize_element(key)?;
                    }
                }
                Edit::Append { text } => {
                    seq.serialize_element(&3u8)?;
                    seq.serialize_element(text)?;
                }
                Edit::Scalar { key, value } => {
                    seq.serialize_element(&4u8)?;
                    if let Some(key) = key {
                        seq.serialize_element(key)?;
                    }
                    seq.serialize_element(value)?;
                }
                Edit::End => seq.serialize_element(&5u8)?,
                Edit::Reset => seq.serialize_element(&6u8)?,
            }
        }
        seq.end()
    }
}

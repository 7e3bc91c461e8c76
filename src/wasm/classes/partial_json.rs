//! `PartialJson` (SPEC section 8), and the JS side of every streamed reply: the chunk read as
//! Rust text, and each push's edits sent to js/snippets/instructions.js, which keeps the partial
//! value (`RepairLoop.push` uses [`Mirror`] too). Nothing crosses per push but the chunk and
//! what changed: the whole value is never serialised again.

use std::sync::Arc;

use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::State;
use crate::error::OptionError;
use crate::structured::stream::{
    Edit, PartialJson, PartialUpdate, StreamError, StreamOptions, StreamSchema, DEFAULT_MAX_CHARS,
};
use crate::structured::{CompiledSchema, ParseOptions};
use crate::wasm::error::Read;
use crate::wasm::structured_js::{parsed_to_js, schema_arg};
use crate::wasm::{de, read, to_js_json};

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
    #[wasm_bindgen(js_name = partialText)]
    fn partial_text(mirror: &JsValue) -> JsValue;
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
    pub(crate) fn text(&self) -> JsValue {
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
        if let ([Edit::Append { text }], true) = (update.edits.as_slice(), update.closed.is_empty())
        {
            // Most pushes: a string grew, nothing closed. No JSON text either way.
            return partial_append(&self.js, chunk, text, update.done, &violation);
        }
        let payload = payload(update)?;
        partial_apply(&self.js, chunk, &payload, update.done, &violation)
    }
}

/// The edits and closed pointers as the flat array js/snippets/instructions.js reads ("" for none).
fn payload(update: &PartialUpdate) -> Result<String, JsValue> {
    if update.edits.is_empty() && update.closed.is_empty() {
        return Ok(String::new());
    }
    serde_json::to_string(&Payload(update)).map_err(|e| {
        js_sys::Error::new(&format!("selfheal: internal serialisation error: {e}")).into()
    })
}

struct Payload<'a>(&'a PartialUpdate);

impl Serialize for Payload<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.0;
        let mut seq = s.serialize_seq(None)?;
        seq.serialize_element(&u.closed.len())?;
        for pointer in &u.closed {
            seq.serialize_element(pointer)?;
        }
        for edit in &u.edits {
            match edit {
                Edit::Begin { key, kind } => {
                    seq.serialize_element(&(*kind as u8))?;
                    seq.serialize_element(key)?;
                }
                Edit::Append { text } => {
                    seq.serialize_element(&3u8)?;
                    seq.serialize_element(text)?;
                }
                Edit::Scalar { key, value } => {
                    seq.serialize_element(&4u8)?;
                    seq.serialize_element(key)?;
                    seq.serialize_element(value)?;
                }
                Edit::End => seq.serialize_element(&5u8)?,
                Edit::Reset => seq.serialize_element(&6u8)?,
            }
        }
        seq.end()
    }
}

/// `new PartialJson(schema, options)`'s options (left out: the stream's defaults).
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Options {
    max_chars: Option<f64>,
    local_repair: Option<bool>,
    coerce: Option<bool>,
}

/// `finish(options)`: parseStructured's options; localRepair and coerce default to the stream's.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct FinishOptions {
    local_repair: Option<bool>,
    stop_reason: Option<String>,
    coerce: Option<bool>,
    max_reply_chars: Option<f64>,
}

struct Streaming {
    stream: PartialJson,
    compiled: Option<Arc<CompiledSchema>>,
    mirror: Mirror,
}

/// One streamed reply: push chunks, read the partial value, finish.
#[wasm_bindgen(js_name = PartialJson, skip_typescript)]
pub struct JsPartialJson {
    inner: State<Streaming>,
}

#[wasm_bindgen(js_class = PartialJson)]
impl JsPartialJson {
    /// `new PartialJson(schema?, { maxChars?, localRepair?, coerce? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(schema: JsValue, options: JsValue) -> Result<JsPartialJson, JsValue> {
        let compiled = match read::is_nullish(&schema) {
            true => None,
            false => Some(schema_arg(&schema, "schema")?),
        };
        let o: Options = de::optional(&options, "options")?;
        let max_chars = o.max_chars.unwrap_or(DEFAULT_MAX_CHARS as f64);
        let max_chars = whole_count(max_chars, "options.maxChars")?;
        let stream_schema = compiled
            .as_ref()
            .map(|c| Arc::new(StreamSchema::new(Arc::clone(c))));
        let stream = PartialJson::new(
            stream_schema,
            StreamOptions {
                max_chars,
                local_repair: o.local_repair.unwrap_or(true),
                coerce: o.coerce.unwrap_or(false),
            },
        );
        Ok(JsPartialJson {
            inner: State::new(Streaming {
                stream,
                compiled,
                mirror: Mirror::new(),
            }),
        })
    }

    /// One more chunk; `RangeError` (nothing added) past `maxChars`.
    pub fn push(&self, chunk: JsValue) -> Result<JsValue, JsValue> {
        let (text, held) = self.inner.with(|s| s.mirror.read_chunk(&chunk))??;
        self.inner.with(|s| match s.stream.push(&text) {
            Ok(update) => s.mirror.apply(&chunk, held, &update),
            Err(e) => Err(too_long(&e).into()),
        })?
    }

    /// `parseStructured(schema, text, options)` on everything pushed.
    pub fn finish(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let given: FinishOptions = de::optional(&options, "options")?;
        let max_reply_chars = match given.max_reply_chars {
            Some(n) => whole_count(n, "options.maxReplyChars")?,
            None => ParseOptions::new().max_reply_chars,
        };
        let (raw_js, parsed, text) = self.inner.with(|s| {
            let stream_options = s.stream.options();
            let parse = ParseOptions {
                local_repair: given.local_repair.unwrap_or(stream_options.local_repair),
                stop_reason: given.stop_reason.clone(),
                coerce: given.coerce.unwrap_or(stream_options.coerce),
                max_reply_chars,
            };
            let text = s.stream.text().to_string();
            let parsed = crate::structured::parse(&text, s.compiled.as_deref(), &parse);
            (s.mirror.text(), parsed, text)
        })?;
        parsed_to_js(&raw_js, &text, &parsed)
    }

    /// Everything pushed, as pushed.
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> Result<JsValue, JsValue> {
        self.inner.with(|s| s.mirror.text())
    }
}

/// A `maxChars`-like option: a whole number >= 0 (`Infinity` for no limit).
fn whole_count(n: f64, field: &str) -> Read<usize> {
    if n.is_nan() || n < 0.0 || (n.is_finite() && n.fract() != 0.0) {
        return Err(OptionError::range(
            field,
            &format!("must be a whole number >= 0, got {}", read::js_number(n)),
        ));
    }
    Ok(if n >= usize::MAX as f64 {
        usize::MAX
    } else {
        n as usize
    })
}

/// The `RangeError` of a push past `maxChars`.
fn too_long(e: &StreamError) -> OptionError {
    let StreamError::TooLong { max_chars, chars } = e;
    OptionError::range(
        "chunk",
        &format!("would make the text {chars} characters, more than maxChars ({max_chars}); nothing was added"),
    )
}

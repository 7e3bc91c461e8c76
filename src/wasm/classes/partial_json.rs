//! `PartialJson` (SPEC section 8): one streamed reply, its JS side kept by a [`Mirror`].

use std::sync::Arc;

use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::State;
use crate::error::OptionError;
use crate::structured::stream::{
    PartialJson, StreamError, StreamOptions, StreamSchema, DEFAULT_MAX_CHARS,
};
use crate::structured::{CompiledSchema, ParseOptions};
use crate::wasm::mirror::Mirror;
use crate::wasm::structured_js::{parsed_to_js, schema_arg};
use crate::wasm::{de, read};

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
        let max_chars = read::whole_count(max_chars, "options.maxChars")?;
        let stream_schema = compiled
            .as_ref()
            .map(|c| Arc::new(StreamSchema::new(Arc::clone(c))));
        let stream = PartialJson::new(
            stream_schema,
            StreamOptions {
                max_chars,
                local_repair: o.local_repair.unwrap_or(true),
                coerce: o.coerce.unwrap_or(false),
                // Built in JS from the edits (js/snippets/instructions.js).
                closed_pointers: false,
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
            Some(n) => read::whole_count(n, "options.maxReplyChars")?,
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
        parsed_to_js(&raw_js?, &text, &parsed)
    }

    /// Everything pushed, as pushed.
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> Result<JsValue, JsValue> {
        self.inner.with(|s| s.mirror.text())?
    }
}

/// The `RangeError` of a push past `maxChars`.
fn too_long(e: &StreamError) -> OptionError {
    let StreamError::TooLong { max_chars, chars } = e;
    OptionError::range(
        "chunk",
        &format!("would make the text {chars} characters, more than maxChars ({max_chars}); nothing was added"),
    )
}

//! `Schema`, `parseStructured`, `repairJson`, `buildRepairPrompt`.

use std::cell::RefCell;
use std::sync::Arc;

use wasm_bindgen::prelude::*;

use super::de;
use super::read::{self, type_err, Read};
use super::registry::{self, Registry};
use super::to_js_json;
use crate::prompt::{build_fix_prompt, Locale, DEFAULT_MAX_RAW_CHARS};
use crate::structured::{
    self, CompiledSchema, FailureReport, GivenSchemaOptions, ParseOptions, ReplyLength,
    SchemaCache, SchemaOptions,
};

thread_local! {
    /// Compiled schemas of this wasm instance, by text. A memo, not state:
    /// it changes no result, only how often a schema is compiled.
    static CACHE: RefCell<SchemaCache> = RefCell::new(SchemaCache::default());
    /// The compiled schemas js/snippets/schema_keys.js knows by slot number.
    static SLOTS: RefCell<Vec<Option<Arc<CompiledSchema>>>> = const { RefCell::new(Vec::new()) };
}

#[wasm_bindgen(module = "/js/snippets/schema_keys.js")]
extern "C" {
    /// The slot of a schema object's compiled form when its JSON text was seen, else `None`;
    /// throws what `jsonText` throws. (The protocol is written in the snippet.)
    #[wasm_bindgen(catch, js_name = schemaSlot)]
    fn schema_slot(schema: &JsValue) -> Result<Option<u32>, JsValue>;
    /// What a schema object stands for, as a tagged record ([`SchemaSource`]); throws what
    /// `jsonText` throws.
    #[wasm_bindgen(catch, js_name = schemaSource)]
    fn schema_source(schema: &JsValue) -> Result<JsValue, JsValue>;
    /// Keeps a text `schemaSource` gave under a slot; the slot.
    #[wasm_bindgen(js_name = schemaRemember)]
    fn schema_remember(text: &str) -> u32;
}

crate::wire::tagged_enum! {
    #[tag("kind", "$selfheal::tagged:kind")]
    /// What js/snippets/schema_keys.js's `schemaSource` says a schema object stands for.
    #[serde(rename_all = "kebab-case")]
    enum SchemaSource {
        /// The JSON text of the schema.
        Text { text: String },
        /// A `Schema` that has been freed.
        Freed,
        /// Nothing `JSON.stringify` can write (a function).
        NoJson,
        /// An unusable `~standard`: the rest of the sentence after the field's name.
        Invalid { message: String },
    }
}

/// The live `Schema` of this module that `v` (an object) is, found by the id its getter gives.
fn live_schema(v: &JsValue) -> Option<Arc<CompiledSchema>> {
    registry::find(&SCHEMAS, registry::own_id(v, "__selfhealSchemaId"))
}

/// The JSON text the object `v` stands for (`schemaSource`): its own, a Standard Schema's JSON
/// Schema, or the `text` of a `Schema` that is not a live one of this module.
fn source_text(v: &JsValue, field: &str) -> Read<String> {
    let record =
        schema_source(v).or_else(|thrown| read::not_serialisable(field, v, Some(&thrown)))?;
    match de::read(&record, field)? {
        SchemaSource::Text { text } => Ok(text),
        SchemaSource::Freed => type_err(field, "is a Schema that has been freed"),
        SchemaSource::NoJson => read::not_serialisable(field, v, None),
        SchemaSource::Invalid { message } => type_err(field, message),
    }
}

/// Compile (or fetch from the cache) a schema given as an object, a string or a `Schema`.
pub(crate) fn schema_arg(v: &JsValue, field: &str) -> Read<Arc<CompiledSchema>> {
    if !read::is_object(v) {
        return compile_text(&schema_text(v, field)?, field);
    }
    let slot = schema_slot(v).or_else(|thrown| read::not_serialisable(field, v, Some(&thrown)))?;
    let hit =
        slot.and_then(|n| SLOTS.with(|s| s.try_borrow().ok()?.get(n as usize).cloned().flatten()));
    // Seen before, or a live `Schema`: its compiled form, with no JSON text crossing.
    if let Some(compiled) = hit.or_else(|| live_schema(v)) {
        return Ok(compiled);
    }
    let text = source_text(v, field)?;
    let compiled = compile_text(&text, field)?;
    // The JS side learns the text only once the slot can be written here, so a slot it hands
    // out always holds that text's schema (schemaRemember runs no user code).
    SLOTS.with(|s| {
        let Ok(mut s) = s.try_borrow_mut() else {
            return;
        };
        let slot = schema_remember(&text) as usize;
        if s.len() <= slot {
            s.resize(slot + 1, None);
        }
        if let Some(entry) = s.get_mut(slot) {
            *entry = Some(compiled.clone());
        }
    });
    Ok(compiled)
}

/// Compile with the default options, through the cache when it is free.
pub(crate) fn compile_text(text: &str, field: &str) -> Read<Arc<CompiledSchema>> {
    with_cache(|c| c.get_or_compile(text))
        .unwrap_or_else(|| CompiledSchema::from_text(text).map(Arc::new))
        .or_else(|e| invalid_schema(field, e))
}

fn invalid_schema<T>(field: &str, e: impl std::fmt::Display) -> Read<T> {
    type_err(field, format!("is not a valid JSON Schema: {e}"))
}

pub(crate) fn with_cache<T>(f: impl FnOnce(&mut SchemaCache) -> T) -> Option<T> {
    CACHE.with(|c| c.try_borrow_mut().ok().map(|mut cache| f(&mut cache)))
}

/// `{ localRepair?, stopReason?, coerce?, maxReplyChars? }`, or the defaults.
fn parse_options(v: &JsValue) -> Read<ParseOptions> {
    de::optional(v, "options")
}

/// `new Schema(schema, { formats, resources })`: `None` for the defaults.
fn schema_options(v: &JsValue) -> Read<Option<SchemaOptions>> {
    de::optional::<GivenSchemaOptions>(v, "options")?
        .check()
        .map_err(|e| e.under("options"))
}

/// A schema given as an object, a boolean (`true` accepts anything, `false` nothing), JSON text
/// or a `Schema`, as JSON text.
fn schema_text(v: &JsValue, field: &str) -> Read<String> {
    match v.as_string().or_else(|| v.as_bool().map(|b| b.to_string())) {
        Some(text) => Ok(text),
        None if read::is_object(v) => match live_schema(v) {
            Some(compiled) => Ok(compiled.canonical_text().to_string()),
            None => source_text(v, field),
        },
        None => type_err(
            field,
            format!(
                "must be a JSON Schema (object, boolean or JSON text), got {}",
                read::type_name(v)
            ),
        ),
    }
}

/// Compile with non-default options (cached apart from the same schema with the defaults).
fn compile_with(text: &str, options: SchemaOptions, field: &str) -> Read<Arc<CompiledSchema>> {
    let value: serde_json::Value = selfheal_hot::parse_value(text)
        .or_else(|e| invalid_schema(field, format!("invalid schema: not valid JSON: {e}")))?;
    with_cache(|c| c.get_or_compile_with(value.clone(), options.clone()))
        .unwrap_or_else(|| CompiledSchema::with_options(value, options).map(Arc::new))
        .or_else(|e| invalid_schema(field, e))
}

/// A reply too long to copy into wasm memory at all: its failure, built from its JS length.
fn too_long_unread(raw: &JsValue, options: &ParseOptions) -> Option<Result<JsValue, JsValue>> {
    let units = read::certainly_longer(raw, options.max_reply_chars)?;
    let report =
        structured::too_long_report(ReplyLength::Utf16Units(units), options.max_reply_chars);
    Some(to_js_json(&structured::Parsed::err(report)))
}

/// A compiled JSON Schema.
#[wasm_bindgen(js_name = Schema, skip_typescript)]
pub struct JsSchema {
    compiled: Arc<CompiledSchema>,
    /// Its entry in [`SCHEMAS`].
    id: u32,
}

thread_local! {
    /// Live `Schema` instances by id (see `registry`): a `Schema` passed where a schema is
    /// expected is its own compiled form, with no JSON text crossing either way.
    static SCHEMAS: RefCell<Registry<Arc<CompiledSchema>>> = RefCell::new(Registry::default());
}

impl Drop for JsSchema {
    fn drop(&mut self) {
        registry::remove(&SCHEMAS, self.id);
    }
}

impl JsSchema {
    /// `new Schema(schema)` with the default options (what Rust-side tests call).
    pub fn new(schema: JsValue) -> Result<JsSchema, JsValue> {
        JsSchema::construct(schema, JsValue::UNDEFINED)
    }
}

#[wasm_bindgen(js_class = Schema)]
impl JsSchema {
    /// `new Schema(schema, { formats, resources })`.
    #[wasm_bindgen(constructor)]
    pub fn construct(schema: JsValue, options: JsValue) -> Result<JsSchema, JsValue> {
        let compiled = match schema_options(&options)? {
            None => schema_arg(&schema, "schema")?,
            Some(options) => compile_with(&schema_text(&schema, "schema")?, options, "schema")?,
        };
        let id = registry::add(&SCHEMAS, compiled.clone());
        Ok(JsSchema { compiled, id })
    }

    /// Lets `RepairLoop`, `parseStructured` and `buildRepairPrompt` find this schema.
    #[wasm_bindgen(getter, js_name = __selfhealSchemaId)]
    pub fn schema_id(&self) -> u32 {
        self.id
    }

    /// Tells this module's instances from another copy's (see `registry`).
    #[wasm_bindgen(getter, js_name = __selfhealModule)]
    pub fn module_token(&self) -> JsValue {
        registry::module_token()
    }

    /// The schema's canonical JSON text.
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> String {
        self.compiled.canonical_text().to_string()
    }

    pub fn parse(&self, raw: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        parse_with(&self.compiled, &raw, &options)
    }

    pub fn validate(&self, value: JsValue) -> Result<JsValue, JsValue> {
        if !self.compiled.validates() {
            // selfheal/lite: `null` would say "valid" without having looked (docs/DESIGN.md).
            return Err(js_sys::Error::new(LITE_VALIDATE).into());
        }
        let text = read::json_text(&value, "value")?;
        let value: serde_json::Value = selfheal_hot::parse_value(&text)
            .or_else(|e| type_err("value", format!("could not be read as JSON: {e}")))?;
        match self.compiled.validate(&value) {
            None => Ok(JsValue::NULL),
            Some(report) => to_js_json(&report),
        }
    }
}

/// `Schema.validate` in a build without a validator (selfheal/lite).
const LITE_VALIDATE: &str = "selfheal/lite does not validate JSON Schema: Schema.validate is \
    only in the full build (import \"selfheal\"). Check the value with your own validator (a \
    Standard Schema through heal does) and feed a refusal to the loop as { kind: \"rejected\", \
    reason }";

#[wasm_bindgen(js_name = parseStructured, skip_typescript)]
pub fn parse_structured(
    schema: JsValue,
    raw: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let compiled = schema_arg(&schema, "schema")?;
    parse_with(&compiled, &raw, &options)
}

/// `Schema.parse(raw, options)` and `parseStructured(_, raw, options)`: a reply too long to
/// copy is refused unread; anything else is parsed against `compiled`.
fn parse_with(
    compiled: &CompiledSchema,
    raw: &JsValue,
    options: &JsValue,
) -> Result<JsValue, JsValue> {
    let options = parse_options(options)?;
    if let Some(refused) = too_long_unread(raw, &options) {
        return refused;
    }
    let text: String = de::read(raw, "raw")?;
    parsed_to_js(
        raw,
        &text,
        &structured::parse(&text, Some(compiled), &options),
    )
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a JS string as it is (js_sys's takes a Rust `&str`, which means a copy
    /// out of wasm memory and a UTF-8 decode). Imported with `catch`, like every import called
    /// on user values; only ever given text that serde_json accepted.
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    pub(crate) fn json_parse_js(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// A parse result as JS. A successful one is `{ ok, value, fixes }` where `value` is
/// `JSON.parse(text)` of the text the value was parsed from: the same value `to_js_json` gives
/// (serde_json reads every number exactly - `float_roundtrip` - and prints it so that
/// `JSON.parse` reads the same double, `-0` included), without serialising the tree again. When
/// that text is the caller's own string (strict JSON, nothing repaired), the JS string itself is
/// parsed and nothing is copied out of wasm memory, unless it held U+FFFD: then it may have had
/// a lone surrogate that crossed as U+FFFD, and the Rust text is parsed as before.
pub(crate) fn parsed_to_js(
    raw_js: &JsValue,
    raw: &str,
    parsed: &structured::Parsed,
) -> Result<JsValue, JsValue> {
    let structured::Parsed::Ok {
        fixes,
        text,
        validated,
        ..
    } = parsed
    else {
        return to_js_json(parsed);
    };
    let value = if fixes.is_empty() && text == raw && !raw.contains('\u{FFFD}') {
        json_parse_js(raw_js)
    } else {
        json_parse_js(&JsValue::from_str(text))
    };
    // Should JS ever refuse what serde_json accepted, keep the old, serialising path.
    let Ok(value) = value else {
        return to_js_json(parsed);
    };
    let ok = super::parsed_ok_to_js(&value, fixes);
    // selfheal/lite: checked for syntax only (the JSON path writes the same key last).
    if validated.is_some() {
        js_sys::Reflect::set(&ok, &super::read::interned("validated"), &JsValue::FALSE)?;
    }
    Ok(ok)
}

/// `repairJson(text, options)`'s options.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct RepairJsonOptions {
    max_chars: Option<f64>,
}

/// `repairJson(text, { maxChars? })`: a text longer than `maxChars` code points (default
/// 4,000,000, a reply's `maxReplyChars`) is a `RangeError`, measured before it is copied in when
/// JS can tell; with no limit 100 million characters trapped the instance.
#[wasm_bindgen(js_name = repairJson, skip_typescript)]
pub fn repair_json(text: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let options: RepairJsonOptions = de::optional(&options, "options")?;
    let max = read::whole_count(
        options
            .max_chars
            .unwrap_or(structured::DEFAULT_MAX_REPLY_CHARS as f64),
        "options.maxChars",
    )?;
    let too_long = |length| {
        let detail = structured::too_long_detail(length, max).replace("maxReplyChars", "maxChars");
        crate::error::OptionError::range("text", &format!("is too long: {detail}"))
    };
    if let Some(units) = read::certainly_longer(&text, max) {
        return Err(too_long(ReplyLength::Utf16Units(units)).into());
    }
    let text: String = de::read(&text, "text")?;
    let chars = text.chars().count();
    if chars > max {
        return Err(too_long(ReplyLength::Chars(chars)).into());
    }
    match structured::repair_json(&text) {
        None => Ok(JsValue::NULL),
        Some(repaired) => Ok(super::repaired_to_js(&repaired)),
    }
}

#[wasm_bindgen(js_name = buildRepairPrompt, skip_typescript)]
pub fn build_repair_prompt(
    report: JsValue,
    schema: JsValue,
    raw: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let report = report_arg(&report)?;
    let compiled = schema_arg(&schema, "schema")?;
    let raw: String = de::read(&raw, "raw")?;
    let options: PromptOptions = de::optional(&options, "options")?;
    let (max_raw, locale) = (
        options
            .max_raw_chars
            .map_or(DEFAULT_MAX_RAW_CHARS, |n| n as usize),
        options.locale.unwrap_or_default(),
    );
    to_js_json(&build_fix_prompt(
        &report,
        compiled.value(),
        &raw,
        max_raw,
        locale,
    ))
}

/// `buildRepairPrompt`'s options.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptOptions {
    max_raw_chars: Option<u32>,
    locale: Option<Locale>,
}

/// A `FailureReport` given by the host (usually one selfheal produced), its lists at most
/// [`MAX_REPORT_ITEMS`] long.
fn report_arg(v: &JsValue) -> Read<FailureReport> {
    let limits = de::Limits {
        items: MAX_REPORT_ITEMS,
        ..de::Limits::DEFAULT
    };
    de::read_js(v, "report", limits, de::Keys::Declared)
}

/// Items of `report.kinds` and `report.issues` (README "Limits").
const MAX_REPORT_ITEMS: u32 = 10_000;

//! Compiled JSON Schemas and the compile cache.
//!
//! Compiling a schema with `jsonschema` validates it against its meta-schema,
//! which costs milliseconds on wasm32. A host typically builds a new
//! `RepairLoop` per request with the same schema, so compiled schemas are
//! memoised by their text: the exact text first (cheap), then the canonical
//! text (so `{"a":1,"b":2}` and `{"b":2,"a":1}` share one entry).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::{FailureIssue, FailureKind, FailureReport};

/// How a schema is compiled: `new Schema(schema, { formats, resources })` (SPEC section 9).
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaOptions {
    /// Assert `format` (email, date, date-time, uuid, uri, ipv4…), as SPEC section 9 asks; with
    /// `false` it is an annotation only, as the 2020-12 default has it. Default `true`.
    pub formats: bool,
    /// Documents `$ref` may name, by URI. Nothing is ever fetched: a `$ref` to a document that
    /// is not here fails the compile, saying which. A document without `$schema` is read in
    /// the draft of the schema that refers to it (it is embedded in it: `schema_doc.rs`).
    pub resources: Vec<(String, Value)>,
}

impl Default for SchemaOptions {
    fn default() -> Self {
        SchemaOptions {
            formats: true,
            resources: Vec::new(),
        }
    }
}

impl SchemaOptions {
    /// What the cache key adds for these options (nothing for the defaults).
    fn key_suffix(&self) -> String {
        if *self == SchemaOptions::default() {
            return String::new();
        }
        let mut out = format!("\u{0}formats={}", self.formats);
        for (uri, doc) in &self.resources {
            out.push('\u{0}');
            out.push_str(uri);
            out.push('\u{0}');
            out.push_str(&sorted_compact(doc));
        }
        out
    }
}

/// A schema that compiled, with the forms of it the prompts need.
#[derive(Debug)]
pub struct CompiledSchema {
    value: Value,
    /// Canonical compact text (sorted keys): the cache key and the form kept in `toJSON`.
    canonical: String,
    validator: jsonschema::Validator,
    /// The documents registered for `$ref` (read again by bare-word and coercion checks).
    resources: Vec<(String, Value)>,
}

/// The one call into jsonschema: `validator_for`, which is not generic, so jsonschema's
/// compiler exists once in the wasm (calling the generic `jsonschema::options()…build()` from
/// here instantiated it a second time: +880 KB raw, +290 KB gzip). Options travel inside the
/// document (`schema_doc.rs`).
fn compile(value: &Value, options: &SchemaOptions) -> Result<jsonschema::Validator, SchemaError> {
    let rewritten = super::schema_doc::document(value, options);
    let document = rewritten.as_ref().unwrap_or(value);
    jsonschema::validator_for(document).map_err(|e| {
        let path = e.instance_path().as_str().to_string();
        let message = e.to_string();
        // A problem inside an embedded resource names the resource, not where it was put.
        match resource_at(&path, options) {
            Some((uri, rest)) => SchemaError {
                path: rest,
                message: format!("resource {uri:?}: {message}"),
            },
            None => SchemaError { path, message },
        }
    })
}

/// The resource an error path points into, and the path inside it.
fn resource_at<'o>(path: &str, options: &'o SchemaOptions) -> Option<(&'o str, String)> {
    let key = super::schema_doc::RESOURCE_KEY;
    let at = path.find(key)?;
    let rest = path.get(at + key.len()..)?;
    let digits = rest.find('/').unwrap_or(rest.len());
    let index: usize = rest.get(..digits)?.parse().ok()?;
    let (uri, _) = options.resources.get(index)?;
    Some((uri.as_str(), rest.get(digits..).unwrap_or("").to_string()))
}

/// The schema itself was not valid JSON or not a valid JSON Schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON Pointer into the schema where the problem is ("" = root).
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "invalid schema: {}", self.message)
        } else {
            write!(f, "invalid schema at {}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for SchemaError {}

impl CompiledSchema {
    /// Compile from text (the cache-free path; prefer [`SchemaCache`]).
    pub fn from_text(text: &str) -> Result<CompiledSchema, SchemaError> {
        let value: Value = serde_json::from_str(text).map_err(|e| SchemaError {
            path: String::new(),
            message: format!("not valid JSON: {e}"),
        })?;
        CompiledSchema::from_value(value)
    }

    pub fn from_value(value: Value) -> Result<CompiledSchema, SchemaError> {
        CompiledSchema::with_options(value, SchemaOptions::default())
    }

    /// Compile with formats asserted or not, and documents registered for `$ref`.
    pub fn with_options(
        value: Value,
        options: SchemaOptions,
    ) -> Result<CompiledSchema, SchemaError> {
        if !(value.is_object() || value.is_boolean()) {
            return Err(SchemaError {
                path: String::new(),
                message: "a schema must be a JSON object or a boolean".into(),
            });
        }
        let validator = compile(&value, &options)?;
        let canonical = sorted_compact(&value);
        Ok(CompiledSchema {
            value,
            canonical,
            validator,
            resources: options.resources,
        })
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The schema document and its resources, for reading subschemas by path.
    pub(crate) fn doc(&self) -> super::subschema::Doc<'_> {
        super::subschema::Doc {
            root: &self.value,
            resources: &self.resources,
        }
    }

    pub fn canonical_text(&self) -> &str {
        &self.canonical
    }

    /// Whether `instance` passes, without listing why not (the cheap check candidates use).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Every violation, each with its JSON Pointer path; `None` when valid.
    pub fn validate(&self, instance: &Value) -> Option<FailureReport> {
        if self.validator.is_valid(instance) {
            return None;
        }
        let issues: Vec<FailureIssue> = self
            .validator
            .iter_errors(instance)
            .map(|e| FailureIssue {
                kind: FailureKind::Schema,
                path: e.instance_path().as_str().to_string(),
                // jsonschema quotes the whole failing value; a long reply would make one
                // issue (and the repair prompt quoting it) as long as the reply itself.
                message: clip(&e.to_string(), MAX_ISSUE_CHARS),
            })
            .collect();
        Some(FailureReport {
            kinds: vec![FailureKind::Schema],
            issues,
        })
    }
}

/// Issue messages are cut to this many code points (the reply itself is quoted separately).
pub const MAX_ISSUE_CHARS: usize = 300;

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", s.get(..at).unwrap_or(s)),
    }
}

/// A bounded memo of compiled schemas, keyed by text.
///
/// Not global: the owner decides its scope (the wasm layer keeps one per
/// instance, which is the scope of a JS module). Eviction is oldest-first.
#[derive(Debug)]
pub struct SchemaCache {
    by_text: HashMap<String, Arc<CompiledSchema>>,
    order: VecDeque<String>,
    capacity: usize,
}

impl Default for SchemaCache {
    fn default() -> Self {
        SchemaCache::new(64)
    }
}

impl SchemaCache {
    pub fn new(capacity: usize) -> SchemaCache {
        SchemaCache {
            by_text: HashMap::new(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// The compiled schema for this text, compiling it only if neither the
    /// text nor its canonical form has been seen.
    pub fn get_or_compile(&mut self, text: &str) -> Result<Arc<CompiledSchema>, SchemaError> {
        if let Some(hit) = self.by_text.get(text) {
            return Ok(hit.clone());
        }
        let value: Value = serde_json::from_str(text).map_err(|e| SchemaError {
            path: String::new(),
            message: format!("not valid JSON: {e}"),
        })?;
        let canonical = sorted_compact(&value);
        if let Some(hit) = self.by_text.get(&canonical).cloned() {
            self.insert(text.to_string(), hit.clone());
            return Ok(hit);
        }
        let compiled = Arc::new(CompiledSchema::from_value(value)?);
        self.insert(canonical, compiled.clone());
        if text != compiled.canonical_text() {
            self.insert(text.to_string(), compiled.clone());
        }
        Ok(compiled)
    }

    /// Same, from an already parsed value.
    pub fn get_or_compile_value(
        &mut self,
        value: Value,
    ) -> Result<Arc<CompiledSchema>, SchemaError> {
        self.get_or_compile_with(value, SchemaOptions::default())
    }

    /// Same, with compile options; schemas with other options are other entries.
    pub fn get_or_compile_with(
        &mut self,
        value: Value,
        options: SchemaOptions,
    ) -> Result<Arc<CompiledSchema>, SchemaError> {
        let key = sorted_compact(&value) + &options.key_suffix();
        if let Some(hit) = self.by_text.get(&key) {
            return Ok(hit.clone());
        }
        let compiled = Arc::new(CompiledSchema::with_options(value, options)?);
        self.insert(key, compiled.clone());
        Ok(compiled)
    }

    pub fn len(&self) -> usize {
        self.by_text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_text.is_empty()
    }

    fn insert(&mut self, key: String, compiled: Arc<CompiledSchema>) {
        if self.by_text.contains_key(&key) {
            return;
        }
        while self.order.len() >= self.capacity {
            match self.order.pop_front() {
                Some(old) => {
                    self.by_text.remove(&old);
                }
                None => break,
            }
        }
        self.order.push_back(key.clone());
        self.by_text.insert(key, compiled);
    }
}

/// Compact JSON with every object's keys sorted. `Value::to_string` is not
/// enough: with serde_json's `preserve_order` it keeps insertion order, so
/// the same schema written with another key order would miss the cache.
fn sorted_compact(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                out.push('{');
                for (i, (key, v)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    write(v, out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(v, out);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

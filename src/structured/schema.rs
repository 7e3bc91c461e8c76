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

use super::{FailureIssue, FailureKind, FailureReport, MAX_ISSUES};
use crate::error::OptionError;

pub(crate) mod engine;

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

/// `new Schema`'s second argument as given (`{ formats, resources }`), made [`SchemaOptions`] by
/// [`GivenSchemaOptions::check`]. `resources` is read as JSON (at the JS boundary one
/// `JSON.stringify`: no key enumeration on a user object, which a Proxy could make throw).
///
/// Also how a `RepairLoop` snapshot keeps the options of its schema (`schemaOptions`, left out
/// for the defaults), so a loop made with `new Schema(s, { formats: false })` resumes with them.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GivenSchemaOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formats: Option<bool>,
    #[serde(
        default,
        deserialize_with = "crate::wire::present_json",
        skip_serializing_if = "Option::is_none"
    )]
    pub resources: Option<Value>,
}

impl GivenSchemaOptions {
    /// The options, `None` for the defaults (a schema is then found and cached by its text
    /// alone): `resources` must be an object of JSON Schema documents (objects or booleans).
    pub fn check(self) -> Result<Option<SchemaOptions>, OptionError> {
        let resources = match self.resources {
            None => Vec::new(),
            Some(Value::Object(docs)) => docs
                .into_iter()
                .map(|(uri, doc)| match doc.is_object() || doc.is_boolean() {
                    true => Ok((uri, doc)),
                    false => Err(OptionError::type_(
                        &format!("resources[{uri:?}]"),
                        "must be a JSON Schema (object or boolean)",
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                let got = match other {
                    Value::Null => "null",
                    Value::Bool(_) => "boolean",
                    Value::Number(_) => "number",
                    Value::String(_) => "string",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                };
                return Err(OptionError::type_(
                    "resources",
                    &format!("must be an object of schema documents by URI, got {got}"),
                ));
            }
        };
        let formats = self.formats.unwrap_or(true);
        Ok((!formats || !resources.is_empty()).then_some(SchemaOptions { formats, resources }))
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
    validator: engine::Validator,
    /// The documents registered for `$ref` (read again by bare-word and coercion checks).
    resources: Vec<(String, Value)>,
    /// Whether `format` is asserted (the compile option).
    formats: bool,
    /// How many subschemas are evaluated for one value at most (see `work`).
    evaluations_per_value: usize,
    /// How many errors one value of an instance can produce at most (see `work`).
    errors_per_value: usize,
}

/// The one call into jsonschema, `engine::compile`: a non-generic entry the jsonschema patch adds
/// (calling the generic `jsonschema::options()…build()` from here instantiated jsonschema's
/// compiler a second time: +880 KB raw, +290 KB gzip), which takes the `formats` setting;
/// `resources` travel inside the document (`schema_doc.rs`). Without a validator
/// (selfheal/lite) nothing is compiled.
fn compile(value: &Value, options: &SchemaOptions) -> Result<engine::Validator, SchemaError> {
    if !engine::VALIDATES {
        return engine::compile(value, None)
            .map_err(|(path, message)| SchemaError { path, message });
    }
    let rewritten = super::schema_doc::document(value, options);
    let document = rewritten.as_ref().unwrap_or(value);
    let formats = super::schema_doc::formats(value, options);
    engine::compile(document, formats).map_err(|(path, message)| {
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
        let value: Value = selfheal_hot::parse_value(text).map_err(|e| SchemaError {
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
        // Refuse a schema whose validation of one value explodes (issue 10): jsonschema
        // cannot be stopped once it runs. Without a validator nothing runs: no limit.
        let work = if engine::VALIDATES {
            super::work::analyse(&value)?
        } else {
            super::work::Work {
                evaluations_per_value: 1,
                errors_per_value: 1,
            }
        };
        let canonical = sorted_compact(&value);
        Ok(CompiledSchema {
            value,
            canonical,
            validator,
            resources: options.resources,
            formats: options.formats,
            evaluations_per_value: usize::try_from(work.evaluations_per_value)
                .unwrap_or(usize::MAX),
            errors_per_value: usize::try_from(work.errors_per_value).unwrap_or(usize::MAX),
        })
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The options it was compiled with, as given (`None` for the defaults): what a snapshot
    /// keeps beside [`value`](Self::value) to compile it again the same way.
    pub fn given_options(&self) -> Option<GivenSchemaOptions> {
        let resources = self
            .resources
            .iter()
            .map(|(uri, doc)| (uri.clone(), doc.clone()));
        (!self.formats || !self.resources.is_empty()).then(|| GivenSchemaOptions {
            formats: (!self.formats).then_some(false),
            resources: (!self.resources.is_empty()).then(|| Value::Object(resources.collect())),
        })
    }

    /// Whether values are checked against this schema: false in a build without the
    /// `validate` feature (selfheal/lite), where every value passes [`validate`](Self::validate)
    /// and parse results and `done` instructions say `validated: false`.
    pub fn validates(&self) -> bool {
        engine::VALIDATES
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

    /// Whether `instance` passes, without listing why not (the cheap check candidates use);
    /// an instance too large for the schema's work limit does not pass.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.too_much_work(instance).is_none() && self.validator.is_valid(instance)
    }

    /// Whether `instance` is small enough to be validated (see [`MAX_VALIDATION_WORK`]).
    pub(crate) fn within_work_limit(&self, instance: &Value) -> bool {
        self.too_much_work(instance).is_none()
    }

    /// The most subschemas the schema applies to one value (see [`super::work`]), at most
    /// [`super::work::MAX_EVALUATIONS_PER_VALUE`]: a larger schema does not compile.
    pub fn evaluations_per_value(&self) -> usize {
        self.evaluations_per_value
    }

    /// Every violation, each with its JSON Pointer path; `None` when valid.
    ///
    /// The report is bounded (SPEC section 4, v0.2): at most [`MAX_ISSUES`] issues, then one
    /// saying how many more there were; each path and message on one line, clipped. Collecting
    /// issues is bounded too: `jsonschema` collects every error of the value, each with its own
    /// copy of its path, before the first can be read, so a value whose errors would take more
    /// than [`ERROR_BUDGET_BYTES`] (a 50,000-character key over 50,000 failing items is 2.5 GB)
    /// is reported by its first issue alone, and by a count of its parts.
    pub fn validate(&self, instance: &Value) -> Option<FailureReport> {
        // The check and the report are one call's pattern matching.
        engine::one_call(|| (!self.is_valid(instance)).then(|| self.report_invalid(instance)))
    }

    /// The report of a value [`Self::is_valid`] refused, without checking it again: one pass
    /// fewer over a failing reply (the candidates' check has just made it).
    pub(crate) fn report_invalid(&self, instance: &Value) -> FailureReport {
        if let Some(issue) = self.too_much_work(instance) {
            return FailureReport {
                kinds: vec![FailureKind::Schema],
                issues: vec![issue],
            };
        }
        let shape = Shape::of(instance);
        let per_error = shape.longest_path.saturating_add(ERROR_OVERHEAD_BYTES);
        let errors = shape.values.saturating_mul(self.errors_per_value);
        let issues = if errors.saturating_mul(per_error) <= ERROR_BUDGET_BYTES {
            capped_issues(self.validator.issues(instance, MAX_ISSUES))
        } else {
            self.first_issue_only(instance, &shape)
        };
        FailureReport {
            kinds: vec![FailureKind::Schema],
            issues,
        }
    }

    /// An issue when validating `instance` would take more than [`MAX_VALIDATION_WORK`]
    /// subschema evaluations (its values times the schema's evaluations per value).
    fn too_much_work(&self, instance: &Value) -> Option<FailureIssue> {
        let per_value = self.evaluations_per_value;
        // Below this, no value up to maxReplyChars can reach the limit: skip the count.
        if per_value <= 2 {
            return None;
        }
        let most = MAX_VALIDATION_WORK / per_value;
        let values = count_values(instance, most.saturating_add(1));
        (values > most).then(|| FailureIssue {
            kind: FailureKind::Schema,
            path: String::new(),
            message: format!(
                "not validated: the schema applies up to {per_value} subschemas to each value \
                 and this one holds {}{values} values, above the validation work limit of \
                 {MAX_VALIDATION_WORK} evaluations; a smaller value can be checked",
                if values > most { "more than " } else { "" },
            ),
        })
    }

    /// The report of a value too large to list every issue of: its first issue, then one issue
    /// saying what was not listed. (`validate` stops at the first error, and selfheal's
    /// validators build no branch error lists for `anyOf`/`oneOf`: jsonschema patch, item 9.)
    fn first_issue_only(&self, instance: &Value, shape: &Shape) -> Vec<FailureIssue> {
        let mut issues: Vec<FailureIssue> =
            self.validator.first_issue(instance).into_iter().collect();
        issues.push(FailureIssue {
            kind: FailureKind::Schema,
            path: String::new(),
            message: format!(
                "the value does not match the schema; {} not listed: the value is too large \
                 to list every issue ({} values, paths up to {} bytes)",
                if issues.is_empty() {
                    "its issues were"
                } else {
                    "further issues were"
                },
                shape.values,
                shape.longest_path
            ),
        });
        issues
    }
}

/// At most [`MAX_ISSUES`] issues: all of them, or the first `MAX_ISSUES - 1` and one issue
/// counting the rest (SPEC section 4: "at most 100 issues (the last one says how many more
/// there were)"), from the first `MAX_ISSUES` issues and the count of the `rest`.
fn capped_issues((mut issues, rest): (Vec<FailureIssue>, usize)) -> Vec<FailureIssue> {
    if rest > 0 {
        issues.push(more_issues(rest));
        cap_issues(&mut issues);
    }
    issues
}

/// Hold a report to [`MAX_ISSUES`] issues and one counting the rest, also after two reports
/// were merged (a syntax or cut-off issue before a capped schema report).
pub(crate) fn cap_issues(issues: &mut Vec<FailureIssue>) {
    let (listed, more) = capped(issues);
    let listed = listed.len();
    if more > 0 {
        issues.truncate(listed);
        issues.push(more_issues(more));
    }
}

/// How `issues` fit in [`MAX_ISSUES`]: all of them and 0, or the first `MAX_ISSUES - 1` and how
/// many more there are (a count already at the end, from a report capped before, stands for the
/// issues it counts). The one rule for reports and for the prompts that quote them.
pub(crate) fn capped(issues: &[FailureIssue]) -> (&[FailureIssue], usize) {
    if issues.len() <= MAX_ISSUES {
        return (issues, 0);
    }
    let (listed, rest) = issues
        .split_at_checked(MAX_ISSUES - 1)
        .unwrap_or((issues, &[]));
    (listed, count_issues(rest))
}

/// How many issues `rest` stands for: a count at its end stands for the issues it counts.
pub(crate) fn count_issues(rest: &[FailureIssue]) -> usize {
    let counted = rest
        .last()
        .and_then(more_count)
        .map_or(0, |n| n.saturating_sub(1));
    rest.len().saturating_add(counted)
}

/// The count of a [`more_issues`] issue.
fn more_count(issue: &FailureIssue) -> Option<usize> {
    if !issue.path.is_empty() {
        return None;
    }
    let m = &issue.message;
    m.strip_suffix(" more issues not listed")
        .or_else(|| m.strip_suffix(" more issue not listed"))?
        .parse()
        .ok()
}

/// The last issue of a capped report.
pub fn more_issues(more: usize) -> FailureIssue {
    FailureIssue {
        kind: FailureKind::Schema,
        path: String::new(),
        message: format!(
            "{more} more issue{} not listed",
            if more == 1 { "" } else { "s" }
        ),
    }
}

/// What collecting a value's errors could cost: how many values it holds and its longest
/// JSON Pointer (each error holds a copy of its path).
#[derive(Debug, Clone, Copy, Default)]
struct Shape {
    values: usize,
    longest_path: usize,
}

impl Shape {
    /// One pass without recursion: a stack of iterators, one per open container (at most the
    /// 128 levels serde_json reads), so a million-wide array costs no extra memory.
    fn of(value: &Value) -> Shape {
        let mut shape = Shape {
            values: 1,
            longest_path: 0,
        };
        let mut stack: Vec<(Children<'_>, usize)> = vec![(Children::of(value), 0)];
        while let Some((children, path)) = stack.last_mut() {
            let path = *path;
            let Some((segment, child)) = children.next() else {
                stack.pop();
                continue;
            };
            let child_path = path + 1 + segment;
            shape.values += 1;
            shape.longest_path = shape.longest_path.max(child_path);
            stack.push((Children::of(child), child_path));
        }
        shape
    }
}

/// The members of a value, each with the length of its JSON Pointer segment.
enum Children<'a> {
    Object(serde_json::map::Iter<'a>),
    Array(std::iter::Enumerate<std::slice::Iter<'a, Value>>),
    None,
}

impl<'a> Children<'a> {
    fn of(value: &'a Value) -> Children<'a> {
        match value {
            Value::Object(map) => Children::Object(map.iter()),
            Value::Array(items) => Children::Array(items.iter().enumerate()),
            _ => Children::None,
        }
    }
}

impl<'a> Iterator for Children<'a> {
    type Item = (usize, &'a Value);

    fn next(&mut self) -> Option<(usize, &'a Value)> {
        match self {
            // The key, where `~` and `/` take two bytes each.
            Children::Object(it) => it.next().map(|(k, child)| {
                let escapes = k.bytes().filter(|b| matches!(b, b'~' | b'/')).count();
                (k.len() + escapes, child)
            }),
            Children::Array(it) => it.next().map(|(i, child)| (decimal_len(i), child)),
            Children::None => None,
        }
    }
}

fn decimal_len(mut n: usize) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

/// The most subschema evaluations one validation may take (see [`super::work`]): about half
/// a second of `jsonschema` in wasm at its slowest per evaluation.
pub const MAX_VALIDATION_WORK: usize = 4_000_000;

/// The number of values in `value`, counting no further than `stop`.
pub(crate) fn count_values(value: &Value, stop: usize) -> usize {
    let mut count = 1usize;
    let mut stack = vec![Children::of(value)];
    while let Some(children) = stack.last_mut() {
        if count >= stop {
            break;
        }
        match children.next() {
            Some((_, child)) => {
                count += 1;
                stack.push(Children::of(child));
            }
            None => {
                stack.pop();
            }
        }
    }
    count
}

/// Issues are collected from `jsonschema` in full only below this estimate of what its
/// errors take (values x errors per value x (longest path + the error itself)).
pub const ERROR_BUDGET_BYTES: usize = 16 << 20;
/// What one `jsonschema` error takes besides its instance path (measured: ~200 bytes).
const ERROR_OVERHEAD_BYTES: usize = 256;

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
        let value: Value = selfheal_hot::parse_value(text).map_err(|e| SchemaError {
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

/// An object's members in the order of their keys. The one sort of members by key in the crate
/// (a sort is several KB of the .wasm per element type and order): the canonical text here and
/// the stream table's `properties` (src/structured/stream/subschema.rs). The keys of one object
/// are distinct, so a stable and an unstable sort give the same order.
pub(crate) fn sort_members(members: &mut [(&String, &Value)]) {
    members.sort_by(|a, b| a.0.cmp(b.0));
}

/// Compact JSON with every object's keys sorted. `Value::to_string` is not
/// enough: with serde_json's `preserve_order` it keeps insertion order, so
/// the same schema written with another key order would miss the cache.
fn sorted_compact(value: &Value) -> String {
    fn write(value: &Value, out: &mut Vec<u8>) {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                sort_members(&mut entries);
                out.push(b'{');
                for (i, (key, v)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    json(key.as_str(), out);
                    out.push(b':');
                    write(v, out);
                }
                out.push(b'}');
            }
            Value::Array(items) => {
                out.push(b'[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write(v, out);
                }
                out.push(b']');
            }
            scalar => json(scalar, out),
        }
    }
    /// serde_json's compact text of a string or a scalar, as `Value`'s `Display` writes it,
    /// straight into `out` (no `String` per key).
    fn json<T: serde::Serialize + ?Sized>(v: &T, out: &mut Vec<u8>) {
        // Writing a string or a scalar into a `Vec` cannot fail.
        let _ = serde_json::to_writer(out, v);
    }
    let mut out = Vec::new();
    write(value, &mut out);
    // serde_json writes UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The canonical text as it was first written: keys sorted, each written by `Value`'s
    /// `Display`. The direct writer must give the same text (it is the cache's key).
    fn by_display(value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                let items: Vec<String> = entries
                    .into_iter()
                    .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), by_display(v)))
                    .collect();
                format!("{{{}}}", items.join(","))
            }
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(by_display).collect();
                format!("[{}]", items.join(","))
            }
            scalar => scalar.to_string(),
        }
    }

    #[test]
    fn sorted_compact_is_the_sorted_display_text() {
        let text = r#"{"z": [1, -0.0, 1e300, 12345678901234567890, 0.1, true, null],
            "a\"b\\c\u0001\u2028é😀": {"y": "line\nbreak\ttab", "x": {}, "": []},
            "m": {"b": 1, "a": [{"d": 1, "c": 2}]}}"#;
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        assert!(value.is_object());
        assert_eq!(sorted_compact(&value), by_display(&value));
        for scalar in [Value::Null, Value::from(-1.5), Value::from("\u{7f}\u{0}")] {
            assert_eq!(sorted_compact(&scalar), by_display(&scalar));
        }
    }
}

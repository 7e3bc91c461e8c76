//! selfheal patch: a conservative check that a schema conforms to the Draft 2020-12 meta-schema.
//!
//! `compiler::validate_schema` validates every schema against its meta-schema before compiling
//! it. On wasm the meta-schema validator is built on first use (seven vocabulary documents,
//! `$dynamicRef`s, every keyword's compiler run once), which is most of the first `new Schema`
//! in a fresh process. When this check says a 2020-12 schema certainly conforms, that build and
//! that validation are skipped: the answer would have been "valid".
//!
//! It is a sufficient condition only. `true` means every keyword the meta-schema constrains holds
//! a value the meta-schema accepts; `false` means "not sure", and the caller validates against the
//! meta-schema exactly as before, so an invalid schema still gets the meta-validator's error, word
//! for word. The rules below are the 2020-12 meta-schema's `properties` (core, applicator,
//! unevaluated, validation, meta-data, format-annotation, content, and the deprecated keywords
//! of `schema.json`), read as code; formats are annotations in that dialect, so none is checked.
//! Anything unusual answers `false`: a `$schema` below the root that names another dialect (an
//! embedded resource with its own meta-schema), an integer written as a float (`1.0`), nesting
//! deeper than `MAX_DEPTH`.
//! selfheal's tests/jsonschema_patch.rs holds it to the meta-validator on generated schemas.

use serde_json::{Map, Value};

/// Deeper schemas go to the meta-validator (which has its own limits); this keeps the recursion
/// here bounded whatever the input.
const MAX_DEPTH: usize = 64;
/// Longer string arrays go to the meta-validator too (the check below is quadratic).
const MAX_SET: usize = 256;

/// `true` only when `schema` certainly conforms to the Draft 2020-12 meta-schema.
pub(crate) fn conforms_2020_12(schema: &Value) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(map) => object(map, 0, true),
        _ => false,
    }
}

fn subschema(value: &Value, depth: usize) -> bool {
    match value {
        Value::Bool(_) => true,
        Value::Object(map) => depth < MAX_DEPTH && object(map, depth + 1, false),
        _ => false,
    }
}

fn object(map: &Map<String, Value>, depth: usize, root: bool) -> bool {
    map.iter()
        .all(|(keyword, value)| keyword_conforms(keyword, value, depth, root))
}

fn keyword_conforms(keyword: &str, value: &Value, depth: usize, root: bool) -> bool {
    match keyword {
        // Core.
        "$id" => value.as_str().is_some_and(id_string),
        // Below the root, `$schema` may start an embedded resource with its own meta-schema,
        // unless it names 2020-12 itself (the compiler then checks the subschema in place, by
        // the rules here; selfheal's format-assertion dialect is such a subschema).
        "$schema" => value.as_str().is_some_and(|uri| root || names_2020_12(uri)),
        "$ref" | "$dynamicRef" | "$recursiveRef" | "$comment" => value.is_string(),
        "$anchor" | "$dynamicAnchor" | "$recursiveAnchor" => value.as_str().is_some_and(anchor),
        "$vocabulary" => value
            .as_object()
            .is_some_and(|map| map.values().all(Value::is_boolean)),
        "$defs" | "definitions" | "properties" | "patternProperties" | "dependentSchemas" => value
            .as_object()
            .is_some_and(|map| map.values().all(|v| subschema(v, depth))),
        // Applicator, unevaluated, content.
        "prefixItems" | "allOf" | "anyOf" | "oneOf" => value
            .as_array()
            .is_some_and(|items| !items.is_empty() && items.iter().all(|v| subschema(v, depth))),
        "items" | "contains" | "additionalProperties" | "propertyNames" | "if" | "then"
        | "else" | "not" | "unevaluatedItems" | "unevaluatedProperties" | "contentSchema" => {
            subschema(value, depth)
        }
        "dependencies" => value.as_object().is_some_and(|map| {
            map.values().all(|v| match v {
                Value::Array(_) => string_set(v),
                _ => subschema(v, depth),
            })
        }),
        // Validation.
        "type" => match value {
            Value::String(name) => simple_type(name),
            Value::Array(names) => {
                !names.is_empty()
                    && names.iter().all(|n| n.as_str().is_some_and(simple_type))
                    && string_set(value)
            }
            _ => false,
        },
        "enum" | "examples" => value.is_array(),
        "multipleOf" => value.as_f64().is_some_and(|n| n > 0.0),
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => value.is_number(),
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxContains" | "minContains"
        | "maxProperties" | "minProperties" => value.is_u64(),
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
        "required" => string_set(value),
        "dependentRequired" => value
            .as_object()
            .is_some_and(|map| map.values().all(string_set)),
        // Meta-data, format-annotation, content.
        "title" | "description" | "format" | "contentEncoding" | "contentMediaType"
        | "pattern" => value.is_string(),
        // `const`, `default`, and every keyword the meta-schema does not name: anything goes.
        _ => true,
    }
}

fn simple_type(name: &str) -> bool {
    matches!(
        name,
        "array" | "boolean" | "integer" | "null" | "number" | "object" | "string"
    )
}

/// An array of distinct strings (`stringArray`; also `type`'s `uniqueItems`). Pairwise, so no
/// sort is linked in; longer arrays than anyone writes go to the meta-validator.
fn string_set(value: &Value) -> bool {
    let Some(items) = value.as_array() else {
        return false;
    };
    if items.len() > MAX_SET {
        return false;
    }
    let mut seen: Vec<&str> = Vec::with_capacity(items.len());
    for item in items {
        match item.as_str() {
            Some(s) if !seen.contains(&s) => seen.push(s),
            _ => return false,
        }
    }
    true
}

/// `^[^#]*#?$`: no `#`, or one as the last character.
fn id_string(id: &str) -> bool {
    match id.find('#') {
        None => true,
        Some(at) => at + 1 == id.len(),
    }
}

/// The URIs `Draft::from_schema_uri` reads as Draft 2020-12 by name (not the version-less one).
fn names_2020_12(uri: &str) -> bool {
    matches!(
        uri.trim_end_matches('#'),
        "https://json-schema.org/draft/2020-12/schema" | "http://json-schema.org/draft/2020-12/schema"
    )
}

/// `^[A-Za-z_][-A-Za-z0-9._]*$`.
fn anchor(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
}

#[doc(hidden)]
/// For selfheal's tests only: the check itself, so that they can hold it to the meta-validator.
pub fn __selfheal_conforms_2020_12(schema: &Value) -> bool {
    conforms_2020_12(schema)
}

//! `SchemaOptions` written into the schema document itself, so that one non-generic call,
//! `jsonschema::validator_for`, compiles every schema.
//!
//! Why: `jsonschema::options()…build()` is generic; called from this crate it instantiates
//! jsonschema's whole compiler a second time (measured: +880 KB raw, +290 KB gzip of wasm),
//! beside the copy jsonschema itself instantiates for meta-schemas. So the options travel in the
//! document, by the specification's own means:
//!
//! * **formats asserted** (the default): a 2020-12 or 2019-09 schema gets a dialect — a
//!   meta-schema that declares the format-assertion vocabulary — embedded in `$defs` and named
//!   by its root `$schema`. Drafts 4, 6 and 7 assert formats already. Under that vocabulary an
//!   unknown format fails the compile, so the `format` keywords naming formats this build does
//!   not check (custom ones, `idn-*`) are removed first: they stay unchecked, as unknown formats
//!   are everywhere else.
//! * **formats: false**: 2020-12 and 2019-09 treat `format` as an annotation already; in drafts 4,
//!   6 and 7 the `format` keywords are removed from every subschema (property *names* called
//!   `format` stay).
//! * **resources**: each document is embedded under `$defs` (`definitions` before 2019-09) with
//!   `$id` set to the URI it was registered under, a bundled compound document as the
//!   specification describes it. Nothing is fetched: jsonschema is built without retrievers, so
//!   a `$ref` to a document not given fails the compile.
//!
//! The user's own schema value is kept unchanged for prompts, `text` and the subschema reader.

use serde_json::{Map, Value};

use super::schema::SchemaOptions;

/// The `$id` of the embedded dialects: URNs no user schema uses.
const DIALECT_2020: &str = "urn:selfheal:dialect:2020-12:format-assertion";
const DIALECT_2019: &str = "urn:selfheal:dialect:2019-09:format-assertion";
/// Where embedded documents go in `$defs`/`definitions`.
pub(crate) const RESOURCE_KEY: &str = "selfheal:resource:";
const DIALECT_KEY: &str = "selfheal:dialect";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Draft {
    Modern2020,
    Modern2019,
    /// Draft 4, 6 or 7 (`definitions`, formats asserted by default).
    Legacy,
    /// A custom meta-schema: its own vocabularies decide; left alone.
    Custom,
}

fn draft_of(schema: &Value) -> Draft {
    match schema.get("$schema").and_then(Value::as_str) {
        None => Draft::Modern2020,
        Some(uri) => match uri.trim_end_matches('#').trim_start_matches("https://") {
            u if u.ends_with("json-schema.org/draft/2020-12/schema")
                || u.ends_with("json-schema.org/schema") =>
            {
                Draft::Modern2020
            }
            u if u.ends_with("json-schema.org/draft/2019-09/schema") => Draft::Modern2019,
            u if u.ends_with("json-schema.org/draft-07/schema")
                || u.ends_with("json-schema.org/draft-06/schema")
                || u.ends_with("json-schema.org/draft-04/schema") =>
            {
                Draft::Legacy
            }
            _ => Draft::Custom,
        },
    }
}

/// The document to compile for `schema` with `options`; `None` when it is `schema` itself.
pub(crate) fn document(schema: &Value, options: &SchemaOptions) -> Option<Value> {
    let Value::Object(root) = schema else {
        // `true`/`false` have no formats and reach no other document.
        return None;
    };
    let draft = draft_of(schema);
    let add_dialect = options.formats && matches!(draft, Draft::Modern2020 | Draft::Modern2019);
    let strip = !options.formats && draft == Draft::Legacy;
    // Custom meta-schemas decide for themselves; resources are still embedded.
    if !add_dialect && !strip && options.resources.is_empty() {
        return None;
    }
    let mut root = root.clone();
    if strip {
        strip_formats_in(&mut root);
    }
    if add_dialect {
        strip_unknown_formats_in(&mut root);
    }
    let defs_key = if draft == Draft::Legacy {
        "definitions"
    } else {
        "$defs"
    };
    let mut defs = match root.remove(defs_key) {
        Some(Value::Object(defs)) => defs,
        Some(other) => {
            // Not an object: leave it to the meta-schema check to report.
            root.insert(defs_key.to_string(), other);
            return Some(Value::Object(root));
        }
        None => Map::new(),
    };
    for (i, (uri, doc)) in options.resources.iter().enumerate() {
        let mut resource = match doc {
            Value::Object(m) => m.clone(),
            other => {
                let mut m = Map::new();
                m.insert("allOf".into(), Value::Array(vec![other.clone()]));
                m
            }
        };
        // A document without `$schema` is read in the draft of the schema that embeds it.
        let own = if doc.get("$schema").is_some() {
            draft_of(doc)
        } else {
            draft
        };
        if !options.formats && own == Draft::Legacy {
            strip_formats_in(&mut resource);
        }
        if add_dialect {
            strip_unknown_formats_in(&mut resource);
        }
        resource.insert("$id".into(), Value::String(uri.clone()));
        defs.insert(format!("{RESOURCE_KEY}{i}"), Value::Object(resource));
    }
    if add_dialect {
        let (id, dialect) = if draft == Draft::Modern2019 {
            (DIALECT_2019, dialect_2019())
        } else {
            (DIALECT_2020, dialect_2020())
        };
        defs.insert(DIALECT_KEY.into(), dialect);
        root.insert("$schema".into(), Value::String(id.into()));
    }
    root.insert(defs_key.to_string(), Value::Object(defs));
    Some(Value::Object(root))
}

/// A 2020-12 dialect: the standard vocabularies, with format as an assertion.
fn dialect_2020() -> Value {
    let vocabularies = [
        "core",
        "applicator",
        "unevaluated",
        "validation",
        "meta-data",
        "format-assertion",
        "content",
    ];
    dialect(
        "2020-12",
        DIALECT_2020,
        &vocabularies,
        ("$dynamicAnchor", "meta".into()),
    )
}

/// A 2019-09 dialect: its Format vocabulary declared required, which makes it an assertion.
fn dialect_2019() -> Value {
    let vocabularies = [
        "core",
        "applicator",
        "validation",
        "meta-data",
        "format",
        "content",
    ];
    dialect(
        "2019-09",
        DIALECT_2019,
        &vocabularies,
        ("$recursiveAnchor", true.into()),
    )
}

/// The meta-schema `id` of draft `draft`: its standard meta-schema with `vocabularies`
/// required, and the draft's own anchor keyword.
fn dialect(draft: &str, id: &str, vocabularies: &[&str], anchor: (&str, Value)) -> Value {
    let meta = format!("https://json-schema.org/draft/{draft}/schema");
    let vocabulary: Map<String, Value> = vocabularies
        .iter()
        .map(|name| {
            let uri = format!("https://json-schema.org/draft/{draft}/vocab/{name}");
            (uri, Value::Bool(true))
        })
        .collect();
    let mut dialect = Map::new();
    dialect.insert("$schema".into(), Value::String(meta.clone()));
    dialect.insert("$id".into(), Value::String(id.into()));
    dialect.insert("$vocabulary".into(), Value::Object(vocabulary));
    dialect.insert(anchor.0.into(), anchor.1);
    dialect.insert("allOf".into(), serde_json::json!([{ "$ref": meta }]));
    Value::Object(dialect)
}

/// The formats jsonschema checks in this build (its `idna` feature is off, so not
/// `idn-email` and `idn-hostname`).
const KNOWN_FORMATS: &[&str] = &[
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "iri",
    "iri-reference",
    "json-pointer",
    "regex",
    "relative-json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
];

/// Removes every `format` keyword.
fn strip_formats_in(schema: &mut Map<String, Value>) {
    remove_formats(schema, &|_| true);
}

/// Removes the `format` keywords naming a format this build does not check: under a dialect
/// that asserts formats they would fail the compile, where an unknown format is otherwise
/// ignored (as `should_validate_formats(true)` would have it).
fn strip_unknown_formats_in(schema: &mut Map<String, Value>) {
    remove_formats(schema, &|name| !KNOWN_FORMATS.contains(&name));
}

/// Removes `format` from a schema object and every subschema in it when `remove` says so.
fn remove_formats(schema: &mut Map<String, Value>, remove: &dyn Fn(&str) -> bool) {
    let mut pending: Vec<&mut Map<String, Value>> = vec![schema];
    while let Some(object) = pending.pop() {
        if object
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(remove)
        {
            object.remove("format");
        }
        for (key, value) in object.iter_mut() {
            match key.as_str() {
                // Maps of name -> schema.
                "properties" | "patternProperties" | "definitions" | "$defs"
                | "dependentSchemas" | "dependencies" => {
                    if let Value::Object(map) = value {
                        pending.extend(map.values_mut().filter_map(Value::as_object_mut));
                    }
                }
                // One schema, or a list of schemas.
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "contains"
                | "not"
                | "if"
                | "then"
                | "else"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema"
                | "allOf"
                | "anyOf"
                | "oneOf"
                | "prefixItems" => match value {
                    Value::Object(s) => pending.push(s),
                    Value::Array(list) => {
                        pending.extend(list.iter_mut().filter_map(Value::as_object_mut))
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }
}

#[cfg(all(test, feature = "validate"))]
mod tests {
    use serde_json::json;

    use super::*;

    /// The first `new Schema` in a fresh process builds the 2020-12 meta-validator unless the
    /// patched jsonschema's prefilter passes the document compiled: with the default options
    /// that is the schema with the format-assertion dialect embedded (its `$defs` entry names
    /// 2020-12 in its own `$schema`). Both must pass, or every cold start pays the build.
    #[test]
    fn the_compiled_document_of_an_ordinary_schema_skips_meta_validation() {
        for schema in [
            json!({"type": "object"}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                   "properties": {"at": {"type": "string", "format": "date-time"}},
                   "$defs": {"x": {"type": "integer"}}}),
        ] {
            let options = SchemaOptions::default();
            let doc = document(&schema, &options).unwrap_or(Value::Null);
            assert!(
                doc.get("$defs").and_then(|d| d.get(DIALECT_KEY)).is_some(),
                "{doc}"
            );
            assert!(jsonschema::__selfheal_conforms_2020_12(&doc), "{doc}");
            // What the compiler's meta-validation checks it against: 2020-12, the dialect's own.
            let mut as_2020_12 = doc.clone();
            as_2020_12["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
            assert!(jsonschema::meta::is_valid(&as_2020_12), "{doc}");
        }
    }
}

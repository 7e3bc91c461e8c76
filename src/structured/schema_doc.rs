//! `SchemaOptions` as the one compile call takes them: `formats` as a setting of the patched
//! jsonschema's non-generic entry, `resources` written into the schema document itself.
//!
//! Why: `jsonschema::options()…build()` is generic; called from this crate it instantiates
//! jsonschema's whole compiler a second time (measured: +880 KB raw, +290 KB gzip of wasm),
//! beside the copy jsonschema itself instantiates for meta-schemas. So:
//!
//! * **formats** ([`formats`]): asserted (the default) or an annotation only, in every draft, by
//!   `should_validate_formats` inside jsonschema (`__selfheal_validator_for`, the patch's
//!   item 7). Formats this build does not check (custom ones, `idn-*`) are ignored, as unknown
//!   formats are. A schema with a custom meta-schema (`$schema` none of the drafts) decides for
//!   itself. Until round 6 this was a format-assertion dialect embedded in every 2020-12 and
//!   2019-09 document (and `format` keywords removed for the other cases): the same verdicts,
//!   but every compile crawled the dialect and the meta-schemas it names (3 ms of the first
//!   `new Schema` in a process, docs/PERFORMANCE.md "Round 6").
//! * **resources** ([`document`]): each document is embedded under `$defs` (`definitions`
//!   before 2019-09) with `$id` set to the URI it was registered under, a bundled compound
//!   document as the specification describes it. Nothing is fetched: jsonschema is built without
//!   retrievers, so a `$ref` to a document not given fails the compile.
//!
//! The user's own schema value is kept unchanged for prompts, `text` and the subschema reader.

use serde_json::{Map, Value};

use super::schema::SchemaOptions;

/// Where embedded documents go in `$defs`/`definitions`.
pub(crate) const RESOURCE_KEY: &str = "selfheal:resource:";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Draft {
    /// 2020-12 (the default) or 2019-09: `$defs`.
    Modern,
    /// Draft 4, 6 or 7: `definitions`.
    Legacy,
    /// A custom meta-schema: its own vocabularies decide; left alone.
    Custom,
}

fn draft_of(schema: &Value) -> Draft {
    match schema.get("$schema").and_then(Value::as_str) {
        None => Draft::Modern,
        Some(uri) => match uri.trim_end_matches('#').trim_start_matches("https://") {
            u if u.ends_with("json-schema.org/draft/2020-12/schema")
                || u.ends_with("json-schema.org/schema")
                || u.ends_with("json-schema.org/draft/2019-09/schema") =>
            {
                Draft::Modern
            }
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

/// The `format` setting to compile `schema` with: `options.formats`, unless the schema names a
/// meta-schema of its own (its vocabularies decide).
pub(crate) fn formats(schema: &Value, options: &SchemaOptions) -> Option<bool> {
    match draft_of(schema) {
        Draft::Custom => None,
        Draft::Modern | Draft::Legacy => Some(options.formats),
    }
}

/// The document to compile for `schema` with `options`; `None` when it is `schema` itself (no
/// resources).
pub(crate) fn document(schema: &Value, options: &SchemaOptions) -> Option<Value> {
    let Value::Object(root) = schema else {
        // `true`/`false` reach no other document.
        return None;
    };
    if options.resources.is_empty() {
        return None;
    }
    let mut root = root.clone();
    let defs_key = match draft_of(schema) {
        Draft::Legacy => "definitions",
        Draft::Modern | Draft::Custom => "$defs",
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
        resource.insert("$id".into(), Value::String(uri.clone()));
        defs.insert(format!("{RESOURCE_KEY}{i}"), Value::Object(resource));
    }
    root.insert(defs_key.to_string(), Value::Object(defs));
    Some(Value::Object(root))
}

#[cfg(all(test, feature = "validate"))]
mod tests {
    use serde_json::json;

    use super::*;

    /// The first `new Schema` in a fresh process builds the 2020-12 meta-validator unless the
    /// patched jsonschema's prefilter passes the document compiled. With the default options that
    /// is the schema itself (formats are a compile setting, not a dialect in the document), so an
    /// ordinary schema must pass it, or every cold start pays the build.
    #[test]
    fn an_ordinary_schema_is_compiled_as_itself_and_skips_meta_validation() {
        for schema in [
            json!({"type": "object"}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                   "properties": {"at": {"type": "string", "format": "date-time"}},
                   "$defs": {"x": {"type": "integer"}}}),
        ] {
            let options = SchemaOptions::default();
            assert_eq!(document(&schema, &options), None, "{schema}");
            assert_eq!(formats(&schema, &options), Some(true));
            assert!(jsonschema::__selfheal_conforms_2020_12(&schema), "{schema}");
        }
    }

    #[test]
    fn formats_follow_the_option_except_under_a_meta_schema_of_its_own() {
        let off = SchemaOptions {
            formats: false,
            ..SchemaOptions::default()
        };
        for (schema, default, without) in [
            (json!({}), Some(true), Some(false)),
            (
                json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
                Some(true),
                Some(false),
            ),
            (
                json!({"$schema": "https://json-schema.org/draft/2019-09/schema"}),
                Some(true),
                Some(false),
            ),
            (
                json!({"$schema": "https://example.com/my-meta"}),
                None,
                None,
            ),
        ] {
            assert_eq!(
                formats(&schema, &SchemaOptions::default()),
                default,
                "{schema}"
            );
            assert_eq!(formats(&schema, &off), without, "{schema}");
        }
    }
}

//! The parts of a JSON Schema that apply at a path of an instance, read from the schema
//! document itself (no compiling), for the two questions local repair asks of a schema:
//! does it expect a string here (a bare word may be quoted), and what does it expect here
//! (coercion).
//!
//! A *view* is one schema object that applies at the current place. Views are followed
//! through `$ref` (local JSON pointers, `$anchor`s, and documents registered as resources),
//! `allOf`, `anyOf` and `oneOf` (all branches: each is a possibility), and down through
//! `properties`, `additionalProperties`, `prefixItems`, `items` and `additionalItems`.
//! `patternProperties` is not matched (its regexes are jsonschema's business), so a member
//! only it describes has no view: the answers are then the cautious ones (no string expected,
//! nothing to coerce to). Everything is bounded: at most [`MAX_VIEWS`] views and [`MAX_HOPS`]
//! references followed per place, so a cyclic or huge schema costs little; and each place's
//! views say what finding them cost ([`Views::cost`]), which coercion charges to its budget.

use serde_json::Value;

use super::repair::PathSeg;

/// Views kept per place.
const MAX_VIEWS: usize = 64;
/// `$ref`s followed per place.
const MAX_HOPS: usize = 32;

/// A schema document and the documents registered for `$ref` by URI.
#[derive(Clone, Copy)]
pub(crate) struct Doc<'s> {
    pub(crate) root: &'s Value,
    pub(crate) resources: &'s [(String, Value)],
}

/// The subschemas `#name` references have led to, for one walk of an instance (one parse's
/// coercion, one candidate's bare words): each `$anchor` is searched for once, not at every
/// value (1.9 million items whose anchor sat behind a 2,000-member enum took 9.7 s).
///
/// Each is kept by the address of its name in the schema document (a `$ref` string is in one
/// document, the one its `#name` is searched in); a schema names few, so they are a list.
#[derive(Default)]
pub(crate) struct Anchors<'s>(Vec<(usize, Option<&'s Value>)>);

/// One applicable schema object and the document its `$ref`s resolve in.
#[derive(Clone, Copy)]
struct View<'s> {
    schema: &'s Value,
    /// The document (root or resource) `schema` belongs to, and its base URI.
    doc: &'s Value,
    base: &'s str,
}

/// Every view that applies at one place of the instance.
#[derive(Clone)]
pub(crate) struct Views<'s> {
    doc: Doc<'s>,
    list: Vec<View<'s>>,
    /// See [`Views::cost`].
    cost: usize,
}

impl<'s> Views<'s> {
    /// The views at the root of the instance.
    pub(crate) fn root(doc: Doc<'s>, anchors: &mut Anchors<'s>) -> Views<'s> {
        let base = doc
            .root
            .get("$id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut views = Views {
            doc,
            list: Vec::new(),
            cost: 0,
        };
        views.expand(
            View {
                schema: doc.root,
                doc: doc.root,
                base,
            },
            anchors,
        );
        views
    }

    /// The views one step down.
    pub(crate) fn child(&self, seg: &PathSeg, anchors: &mut Anchors<'s>) -> Views<'s> {
        let mut next = Views {
            doc: self.doc,
            list: Vec::new(),
            cost: self.list.len(),
        };
        for view in &self.list {
            let under = |schema: &'s Value| View { schema, ..*view };
            let found = match seg {
                PathSeg::Key(key) => member_schema(view.schema, key),
                PathSeg::Index(i) => item_schema(view.schema, *i),
            };
            if let Some(schema) = found {
                next.expand(under(schema), anchors);
            }
        }
        next
    }

    /// Adds `view` and what it brings in through `$ref`, `allOf`, `anyOf` and `oneOf`.
    fn expand(&mut self, view: View<'s>, anchors: &mut Anchors<'s>) {
        let mut pending = vec![view];
        let mut hops = 0;
        while let Some(view) = pending.pop() {
            if self.list.len() >= MAX_VIEWS {
                return;
            }
            self.cost += 1;
            if !view.schema.is_object() {
                continue;
            }
            self.list.push(view);
            if let Some(reference) = view.schema.get("$ref").and_then(Value::as_str) {
                hops += 1;
                if hops <= MAX_HOPS {
                    if let Some(target) = self.resolve(view, reference, anchors) {
                        pending.push(target);
                    }
                }
            }
            for keyword in ["allOf", "anyOf", "oneOf"] {
                if let Some(branches) = view.schema.get(keyword).and_then(Value::as_array) {
                    pending.extend(branches.iter().map(|schema| View { schema, ..view }));
                }
            }
        }
    }

    /// The schema a `$ref` names: `#/json/pointer`, `#anchor`, or a registered document
    /// (an absolute URI, or one relative to the current base), with an optional fragment.
    fn resolve(
        &mut self,
        from: View<'s>,
        reference: &'s str,
        anchors: &mut Anchors<'s>,
    ) -> Option<View<'s>> {
        let (uri, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let (doc, base) = if uri.is_empty() {
            (from.doc, from.base)
        } else {
            let absolute = join(from.base, uri);
            let trimmed = absolute.trim_end_matches('#');
            let root_id = self.doc.root.get("$id").and_then(Value::as_str);
            self.cost += self.doc.resources.len();
            if let Some((key, value)) = self
                .doc
                .resources
                .iter()
                .find(|(key, _)| key.trim_end_matches('#') == trimmed)
            {
                (value, key.as_str())
            } else if let Some(id) = root_id.filter(|id| id.trim_end_matches('#') == trimmed) {
                (self.doc.root, id)
            } else {
                return None;
            }
        };
        let schema = if fragment.is_empty() {
            doc
        } else if fragment.starts_with('/') {
            doc.pointer(&percent_decode(fragment))?
        } else {
            self.anchor(doc, fragment, anchors)?
        };
        Some(View { schema, doc, base })
    }

    /// The subschema of `doc` with `"$anchor": name`, searched for once per walk.
    fn anchor(
        &mut self,
        doc: &'s Value,
        name: &'s str,
        anchors: &mut Anchors<'s>,
    ) -> Option<&'s Value> {
        let address = name.as_ptr() as usize;
        self.cost += 1 + anchors.0.len();
        if let Some((_, found)) = anchors.0.iter().find(|(a, _)| *a == address) {
            return *found;
        }
        let found = find_anchor(doc, name, &mut self.cost);
        anchors.0.push((address, found));
        found
    }

    /// Whether some view says a string is allowed here: `type` names `"string"`, or `enum` /
    /// `const` holds a string.
    pub(crate) fn accepts_string(&self) -> bool {
        self.list.iter().any(|v| {
            let typed = match v.schema.get("type") {
                Some(Value::String(t)) => t == "string",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
                _ => false,
            };
            let listed = v
                .schema
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.iter().any(Value::is_string))
                || v.schema.get("const").is_some_and(Value::is_string);
            typed || listed
        })
    }

    /// The JSON types some view names in `type` (empty when none says).
    pub(crate) fn types(&self) -> Vec<&'s str> {
        let mut out: Vec<&'s str> = Vec::new();
        for v in &self.list {
            let names: Vec<&'s str> = match v.schema.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            for name in names {
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }

    /// The values an `enum` or `const` allows, from the first view that lists them.
    pub(crate) fn allowed_values(&self) -> Option<&'s [Value]> {
        self.list.iter().find_map(|v| {
            if let Some(values) = v.schema.get("enum").and_then(Value::as_array) {
                return Some(values.as_slice());
            }
            v.schema.get("const").map(std::slice::from_ref)
        })
    }

    /// What finding these views cost: views of the place above read, schemas expanded,
    /// nodes searched for an `$anchor`, resources compared.
    pub(crate) fn cost(&self) -> usize {
        self.cost
    }

    /// The member names each view's `required` lists, view by view (a name may repeat).
    pub(crate) fn required(&self) -> impl Iterator<Item = &'s str> + '_ {
        self.list.iter().flat_map(|v| {
            v.schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
        })
    }

    /// The member name `properties` declares, when the views declare exactly one.
    pub(crate) fn only_property(&self) -> Option<&'s str> {
        let mut names = self
            .list
            .iter()
            .filter_map(|v| v.schema.get("properties").and_then(Value::as_object))
            .flat_map(|props| props.keys());
        let first = names.next()?;
        names.all(|name| name == first).then_some(first.as_str())
    }
}

/// The subschema for member `key`: `properties[key]`, else `additionalProperties`.
fn member_schema<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    if let Some(s) = schema.get("properties").and_then(|p| p.get(key)) {
        return Some(s);
    }
    schema.get("additionalProperties").filter(|s| s.is_object())
}

/// The subschema for item `i`: `prefixItems[i]`, else `items` (or, in drafts before 2020-12,
/// `items[i]` of a tuple, else `additionalItems`).
fn item_schema(schema: &Value, i: usize) -> Option<&Value> {
    let prefix = schema.get("prefixItems").and_then(Value::as_array);
    if let Some(s) = prefix.and_then(|p| p.get(i)) {
        return Some(s);
    }
    match schema.get("items") {
        Some(Value::Array(tuple)) => tuple
            .get(i)
            .or_else(|| schema.get("additionalItems").filter(|s| s.is_object())),
        Some(items) if items.is_object() => Some(items),
        _ => None,
    }
}

/// `uri` resolved against `base`, for the simple cases: absolute URIs stay, others replace
/// the last path segment of `base`.
fn join(base: &str, uri: &str) -> String {
    if uri.contains("://") || uri.starts_with("urn:") || base.is_empty() {
        return uri.to_string();
    }
    let base = base.split('#').next().unwrap_or(base);
    match base.rfind('/') {
        Some(slash) => format!("{}{}", base.get(..=slash).unwrap_or(base), uri),
        None => uri.to_string(),
    }
}

/// `%25` -> `%` and the like, for JSON pointers written in URI fragments.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (c, hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// The subschema with `"$anchor": name` in `doc` (breadth first, bounded); `cost` counts the
/// nodes read.
fn find_anchor<'s>(doc: &'s Value, name: &str, cost: &mut usize) -> Option<&'s Value> {
    let mut queue = std::collections::VecDeque::from([doc]);
    let mut seen = 0;
    while let Some(v) = queue.pop_front() {
        seen += 1;
        *cost += 1;
        if seen > 10_000 {
            return None;
        }
        match v {
            Value::Object(map) => {
                if map.get("$anchor").and_then(Value::as_str) == Some(name) {
                    return Some(v);
                }
                queue.extend(map.values());
            }
            Value::Array(items) => queue.extend(items.iter()),
            _ => {}
        }
    }
    None
}

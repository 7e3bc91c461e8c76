//! The compiled schema's JSON read once into a table of subschemas
//! ([`StreamSchema`]), so that a stream finds the subschema of each value by
//! its path in a few lookups: `properties`, `patternProperties`,
//! `additionalProperties`, `propertyNames`, `items`/`prefixItems`/
//! `additionalItems`, `$ref` (local JSON Pointers, `$defs`/`definitions`,
//! `$anchor`, and the root's own `$id`), `allOf`, `anyOf`, `oneOf`.
//!
//! Keywords not read here (`not`, `if`/`then`/`else`, `dependent*`,
//! `unevaluated*`, `contains`, `uniqueItems`, `format`, `$dynamicRef`, remote
//! `$ref`s...) never produce a violation mid-stream: the final parse decides.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Number, Value};

use super::keywords::Enumeration;
use crate::structured::schema::engine;
use crate::structured::CompiledSchema;

pub(super) type NodeId = u32;

pub(super) const TYPE_NULL: u8 = 1;
pub(super) const TYPE_BOOLEAN: u8 = 2;
pub(super) const TYPE_OBJECT: u8 = 4;
pub(super) const TYPE_ARRAY: u8 = 8;
pub(super) const TYPE_NUMBER: u8 = 16;
pub(super) const TYPE_INTEGER: u8 = 32;
pub(super) const TYPE_STRING: u8 = 64;

/// One subschema, with the keywords a stream checks.
#[derive(Debug, Default)]
pub(super) struct Node {
    /// The `false` schema: nothing is valid.
    pub is_false: bool,
    /// `type` as a bit set; 0 = any.
    pub types: u8,
    pub enumeration: Option<Enumeration>,
    pub constant: Option<Value>,
    /// `minLength`, `maxLength`.
    pub length: Count,
    /// Index into [`StreamSchema::lazy`] of `{"pattern": ...}`.
    pub pattern: Option<usize>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    /// Index into [`StreamSchema::lazy`] of `{"multipleOf": ...}`.
    pub multiple_of: Option<usize>,
    /// `properties`, sorted by key.
    pub properties: Vec<(String, NodeId)>,
    /// `patternProperties`: (index of `{"pattern": ...}` in `lazy`, subschema).
    pub pattern_properties: Vec<(usize, NodeId)>,
    pub additional_properties: Option<NodeId>,
    pub property_names: Option<NodeId>,
    pub required: Vec<String>,
    /// `minProperties`, `maxProperties`.
    pub property_count: Count,
    /// `prefixItems` (or a draft-7 `items` array).
    pub prefix_items: Vec<NodeId>,
    /// The subschema of the elements after the prefix (`items`, or `additionalItems`).
    pub rest_items: Option<NodeId>,
    /// `rest_items` came from `additionalItems`: its `false` is reported as that keyword.
    pub rest_is_additional_items: bool,
    /// `minItems`, `maxItems`.
    pub item_count: Count,
    /// Subschemas that all apply too (`allOf` members and `$ref`).
    pub all_of: Vec<NodeId>,
    pub any_of: Vec<NodeId>,
    pub one_of: Vec<NodeId>,
}

impl Node {
    pub(super) fn property(&self, key: &str) -> Option<NodeId> {
        self.properties
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .and_then(|i| self.properties.get(i))
            .map(|(_, id)| *id)
    }
}

/// A one-keyword schema compiled by `jsonschema` on first use: `pattern`
/// (ECMA-262 regular expressions, exactly as the final validation reads
/// them) and `multipleOf` (its float rules).
#[derive(Debug)]
pub(super) struct Lazy {
    schema: Value,
    validator: OnceLock<Option<engine::Validator>>,
}

impl Lazy {
    /// The keyword's value (the pattern, the divisor), for messages.
    pub(super) fn argument(&self) -> Option<&Value> {
        self.schema.as_object().and_then(|o| o.values().next())
    }

    /// `Some(valid)`, or `None` when the keyword could not be compiled alone or its answer
    /// rests on a pattern match the call's budget did not try.
    pub(super) fn is_valid(&self, instance: &Value) -> Option<bool> {
        self.validator
            .get_or_init(|| engine::keyword(&self.schema))
            .as_ref()
            .and_then(|v| v.check(instance))
    }
}

/// A compiled schema prepared for streams. Build it once per schema and
/// share it (`Arc`) between streams: the pattern validators it compiles on
/// first use are kept.
#[derive(Debug)]
pub struct StreamSchema {
    compiled: Arc<CompiledSchema>,
    pub(super) nodes: Vec<Node>,
    pub(super) lazy: Vec<Lazy>,
}

impl StreamSchema {
    pub fn new(compiled: Arc<CompiledSchema>) -> StreamSchema {
        // Without a validator (selfheal/lite) a stream checks syntax only, as the final parse
        // does: its table is the one of the schema `true`.
        static ANY: Value = Value::Bool(true);
        let root = if compiled.validates() {
            compiled.value()
        } else {
            &ANY
        };
        let (nodes, lazy) = Table::build(root);
        StreamSchema {
            compiled,
            nodes,
            lazy,
        }
    }

    pub fn compiled(&self) -> &Arc<CompiledSchema> {
        &self.compiled
    }

    pub(super) fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id as usize)
    }

    pub(super) fn lazy_valid(&self, index: usize, instance: &Value) -> Option<bool> {
        self.lazy.get(index).and_then(|l| l.is_valid(instance))
    }

    pub(super) fn lazy_argument(&self, index: usize) -> String {
        self.lazy
            .get(index)
            .and_then(Lazy::argument)
            .map_or_else(String::new, Value::to_string)
    }

    pub(super) fn is_false(&self, id: NodeId) -> bool {
        self.node(id).is_some_and(|n| n.is_false)
    }
}

/// The root is always node 0.
pub(super) const ROOT_NODE: NodeId = 0;

/// Builds the node table: every subschema reachable from the root through
/// the keywords above, each once (by address), iteratively.
struct Table<'s> {
    root: &'s Value,
    ids: HashMap<*const Value, NodeId>,
    queue: Vec<(&'s Value, &'s Value)>,
    nodes: Vec<Node>,
    lazy: Vec<Lazy>,
    patterns: HashMap<String, usize>,
    /// Drafts 4 to 7: `$ref` makes its siblings ignored.
    legacy_ref: bool,
}

impl<'s> Table<'s> {
    fn build(root: &'s Value) -> (Vec<Node>, Vec<Lazy>) {
        let draft = root.get("$schema").and_then(Value::as_str).unwrap_or("");
        let legacy_ref = ["draft-03", "draft-04", "draft-06", "draft-07"]
            .iter()
            .any(|d| draft.contains(d));
        let mut table = Table {
            root,
            ids: HashMap::new(),
            queue: Vec::new(),
            nodes: Vec::new(),
            lazy: Vec::new(),
            patterns: HashMap::new(),
            legacy_ref,
        };
        table.id(root, root);
        let mut next = 0;
        while let Some(&(schema, base)) = table.queue.get(next) {
            let node = table.read(schema, base);
            if let Some(slot) = table.nodes.get_mut(next) {
                *slot = node;
            }
            next += 1;
        }
        (table.nodes, table.lazy)
    }

    /// The id of `schema` (whose `$ref`s resolve against `base`), queued if new.
    fn id(&mut self, schema: &'s Value, base: &'s Value) -> NodeId {
        let key: *const Value = schema;
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = NodeId::try_from(self.nodes.len()).unwrap_or(NodeId::MAX);
        self.ids.insert(key, id);
        self.queue.push((schema, base));
        self.nodes.push(Node::default());
        id
    }

    fn lazy(&mut self, keyword: &str, value: &Value) -> usize {
        let text = format!("{keyword}:{value}");
        if let Some(&i) = self.patterns.get(&text) {
            return i;
        }
        let mut schema = serde_json::Map::new();
        schema.insert(keyword.to_owned(), value.clone());
        self.lazy.push(Lazy {
            schema: Value::Object(schema),
            validator: OnceLock::new(),
        });
        let i = self.lazy.len() - 1;
        self.patterns.insert(text, i);
        i
    }

    fn read(&mut self, schema: &'s Value, base: &'s Value) -> Node {
        let mut node = Node::default();
        let obj = match schema {
            Value::Bool(b) => {
                node.is_false = !b;
                return node;
            }
            Value::Object(obj) => obj,
            _ => return node,
        };
        // A nested `$id` starts a new resource: its `#...` references are its own.
        let base = if obj.get("$id").is_some_and(Value::is_string) {
            schema
        } else {
            base
        };
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            if let Some((target, target_base)) = self.resolve(reference, base) {
                let id = self.id(target, target_base);
                node.all_of.push(id);
            }
            if self.legacy_ref {
                return node;
            }
        }
        node.types = match obj.get("type") {
            Some(Value::String(t)) => type_bit(t),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .map(type_bit)
                .fold(0, |a, b| a | b),
            _ => 0,
        };
        node.enumeration = obj
            .get("enum")
            .and_then(Value::as_array)
            .map(|values| Enumeration::new(values.clone()));
        node.constant = obj.get("const").cloned();
        node.length = Count::read(obj, "minLength", "maxLength");
        if let Some(p) = obj.get("pattern").filter(|p| p.is_string()) {
            node.pattern = Some(self.lazy("pattern", p));
        }
        read_bounds(obj, &mut node);
        if let Some(m) = obj.get("multipleOf").filter(|m| m.is_number()) {
            node.multiple_of = Some(self.lazy("multipleOf", m));
        }
        if let Some(Value::Object(props)) = obj.get("properties") {
            // Ids in schema order first; then the members by key, with the sort the canonical
            // schema text uses (`id` gives the same id again).
            for s in props.values() {
                self.id(s, base);
            }
            let mut members: Vec<(&String, &Value)> = props.iter().collect();
            crate::structured::schema::sort_members(&mut members);
            node.properties = members
                .into_iter()
                .map(|(k, s)| (k.clone(), self.id(s, base)))
                .collect();
        }
        if let Some(Value::Object(props)) = obj.get("patternProperties") {
            for (pattern, s) in props {
                let p = self.lazy("pattern", &Value::String(pattern.clone()));
                let id = self.id(s, base);
                node.pattern_properties.push((p, id));
            }
        }
        node.additional_properties = obj.get("additionalProperties").map(|s| self.id(s, base));
        node.property_names = obj.get("propertyNames").map(|s| self.id(s, base));
        node.required = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        node.property_count = Count::read(obj, "minProperties", "maxProperties");
        node.item_count = Count::read(obj, "minItems", "maxItems");
        match (obj.get("prefixItems"), obj.get("items")) {
            (_, Some(Value::Array(tuple))) => {
                node.prefix_items = tuple.iter().map(|s| self.id(s, base)).collect();
                if let Some(s) = obj.get("additionalItems") {
                    node.rest_items = Some(self.id(s, base));
                    node.rest_is_additional_items = true;
                }
            }
            (prefix, items) => {
                if let Some(Value::Array(tuple)) = prefix {
                    node.prefix_items = tuple.iter().map(|s| self.id(s, base)).collect();
                }
                node.rest_items = items.map(|s| self.id(s, base));
            }
        }
        for (keyword, list) in [("allOf", 0), ("anyOf", 1), ("oneOf", 2)] {
            let Some(Value::Array(members)) = obj.get(keyword) else {
                continue;
            };
            let ids: Vec<NodeId> = members.iter().map(|s| self.id(s, base)).collect();
            match list {
                0 => node.all_of.extend(ids),
                1 => node.any_of = ids,
                _ => node.one_of = ids,
            }
        }
        node
    }

    /// The target of a `$ref` and its own base, for references inside this
    /// document; `None` for anything else (another document, a dynamic
    /// anchor), which then checks nothing.
    fn resolve(&self, reference: &str, base: &'s Value) -> Option<(&'s Value, &'s Value)> {
        let (uri, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let base = if uri.is_empty() || id_of(base) == Some(uri) {
            base
        } else if id_of(self.root) == Some(uri) {
            self.root
        } else {
            return None;
        };
        let fragment = percent_decode(fragment)?;
        if fragment.is_empty() {
            return Some((base, base));
        }
        if let Some(pointer) = fragment.strip_prefix('/') {
            let mut target = base;
            let mut target_base = base;
            for token in pointer.split('/') {
                let token = token.replace("~1", "/").replace("~0", "~");
                target = match target {
                    Value::Object(map) => map.get(&token)?,
                    Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                    _ => return None,
                };
                if target.get("$id").is_some_and(Value::is_string) {
                    target_base = target;
                }
            }
            return Some((target, target_base));
        }
        find_anchor(base, &fragment).map(|t| (t, base))
    }
}

fn id_of(schema: &Value) -> Option<&str> {
    schema
        .get("$id")
        .and_then(Value::as_str)
        .map(|id| id.trim_end_matches('#'))
}

/// The subschema of `resource` whose `$anchor` is `name` (only when exactly one is).
fn find_anchor<'s>(resource: &'s Value, name: &str) -> Option<&'s Value> {
    let mut found = None;
    let mut stack = vec![resource];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.get("$anchor").and_then(Value::as_str) == Some(name) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some(v);
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    found
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        if c == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn type_bit(name: &str) -> u8 {
    match name {
        "null" => TYPE_NULL,
        "boolean" => TYPE_BOOLEAN,
        "object" => TYPE_OBJECT,
        "array" => TYPE_ARRAY,
        "number" => TYPE_NUMBER,
        "integer" => TYPE_INTEGER,
        "string" => TYPE_STRING,
        _ => 0,
    }
}

/// A non-negative whole count (`3` or `3.0`).
/// A `min*`/`max*` pair of counts (characters, properties, items).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Count {
    pub min: Option<u64>,
    pub max: Option<u64>,
}

impl Count {
    fn read(obj: &serde_json::Map<String, Value>, min: &str, max: &str) -> Count {
        Count {
            min: obj.get(min).and_then(count),
            max: obj.get(max).and_then(count),
        }
    }

    pub fn is_set(&self) -> bool {
        self.min.is_some() || self.max.is_some()
    }
}

fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19)
            // Checked just above: whole, non-negative, in range.
            .map(|f| f as u64)
    })
}

/// `minimum`/`maximum` and their exclusive forms; draft 4 writes the
/// exclusive ones as booleans beside the bound.
fn read_bounds(obj: &serde_json::Map<String, Value>, node: &mut Node) {
    let number = |k: &str| match obj.get(k) {
        Some(Value::Number(n)) => Some(n.clone()),
        _ => None,
    };
    let flag = |k: &str| obj.get(k) == Some(&Value::Bool(true));
    node.minimum = number("minimum");
    node.maximum = number("maximum");
    node.exclusive_minimum = number("exclusiveMinimum");
    node.exclusive_maximum = number("exclusiveMaximum");
    if flag("exclusiveMinimum") {
        node.exclusive_minimum = node.minimum.take();
    }
    if flag("exclusiveMaximum") {
        node.exclusive_maximum = node.maximum.take();
    }
}

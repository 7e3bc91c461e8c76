//! How much work validating one value takes, estimated when a schema is compiled.
//!
//! `jsonschema` evaluates every subschema that applies to a value, once per way it is
//! reached. A schema whose `$defs` each refer to the next twice (`allOf: [{$ref: next},
//! {$ref: next}]`, or `anyOf`) is a few hundred bytes and applies 2^n subschemas to the
//! single value `"1"`: 18 levels took 3 s in wasm, 25 levels two minutes and then a trap.
//! `jsonschema` offers no way to stop an evaluation, so the schema is measured here, in
//! selfheal, when it is compiled, and refused when one value would take too much.
//!
//! Theory of operation. The schema document is a graph: a node per subschema, *in-place*
//! edges for the keywords that apply another subschema to the same value (`$ref`,
//! `$dynamicRef`, `$recursiveRef`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
//! `dependentSchemas`, schema-valued `dependencies`) and *descending* edges, labelled with
//! the member they apply to, for the keywords that apply a subschema to a member of the value
//! (`properties` by key; `additionalProperties` to keys its node does not name;
//! `patternProperties`, `propertyNames`, `unevaluatedProperties` to any key; `prefixItems`
//! and array-form `items` by index; `items`, `additionalItems`, `contains`,
//! `unevaluatedItems` to any item).
//!
//! * The number of evaluations at one value is the number of in-place paths from the
//!   subschemas applied to it (a DAG count: an in-place cycle is cut, as `jsonschema` cuts a
//!   subschema re-entered for the same value).
//! * One level deeper, the subschemas applied to a member are those the descending edges of
//!   every evaluated node lead to for that member's key or index. Over the keys a value can
//!   have, the worst is taken level by level, down to the deepest value serde_json reads
//!   (128): the estimate is the count along one real path of keys, so it never exceeds what
//!   some value could cost (no false refusals from mixing keys), and it finds the growth that
//!   repeats along a path, which is how a schema makes validation exponential.
//!
//! `$ref` resolution follows the documents's own `$id`/`$anchor`s and JSON Pointers (the
//! ways a schema refers to itself). A reference this analysis cannot resolve (a resource
//! registered separately) counts as one evaluation.

use std::collections::HashMap;

use serde_json::Value;

use super::SchemaError;

/// Subschema evaluations one value may take before a schema is refused when compiled.
pub const MAX_EVALUATIONS_PER_VALUE: u64 = 10_000;
/// The deepest value serde_json reads (its recursion limit).
const MAX_DEPTH: usize = 128;

/// What the analysis found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// The most subschema evaluations found for one value (at least 1).
    pub evaluations_per_value: u64,
    /// The same, counting each keyword of each subschema: the most errors one value can give.
    pub errors_per_value: u64,
    /// No `anyOf`/`oneOf`: the first error is found without building nested error lists.
    pub first_error_is_cheap: bool,
}

/// Measure a schema; an error names where the work explodes.
pub fn analyse(schema: &Value) -> Result<Work, SchemaError> {
    let graph = Graph::build(schema);
    graph.worst_path()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Label {
    /// `properties[key]`: index into `Graph::keys`.
    Key(usize),
    /// `additionalProperties`: keys the node's own `properties` do not name.
    OtherKeys,
    /// `patternProperties`, `propertyNames`, `unevaluatedProperties`.
    AnyKey,
    /// `prefixItems[i]`, array-form `items[i]`.
    Index(usize),
    /// `items`, `additionalItems`, `contains`, `unevaluatedItems`.
    AnyItem,
}

/// What a member of a value can be, as far as descending edges tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Member {
    Key(usize),
    OtherKey,
    Index(usize),
    OtherItem,
}

struct Node<'a> {
    value: &'a Value,
    pointer: String,
    /// Keywords of this subschema (each may give one error), at least 1.
    keywords: u64,
    in_place: Vec<usize>,
    descend: Vec<(Label, usize)>,
    /// Keys named by `properties`, sorted.
    own_keys: Vec<usize>,
}

struct Graph<'a> {
    nodes: Vec<Node<'a>>,
    /// The node of each subschema, by address in the document.
    by_address: HashMap<usize, usize>,
    keys: Vec<&'a str>,
    key_ids: HashMap<&'a str, usize>,
    /// Topological position of each node in the in-place graph (back edges cut).
    topo: Vec<usize>,
    /// In-place edges without the back edges that close a cycle.
    dag: Vec<Vec<usize>>,
    /// Evaluations and keywords when a node is applied to a value: counts of in-place paths.
    closure: Vec<(u64, u64)>,
    any_of: bool,
}

/// Where refs resolve: resource bases and anchors found in the document.
#[derive(Default)]
struct Scopes<'a> {
    resources: HashMap<String, &'a Value>,
    anchors: HashMap<(String, String), &'a Value>,
    dynamic_anchors: HashMap<String, Vec<&'a Value>>,
    recursive_roots: Vec<&'a Value>,
}

const DEFAULT_BASE: &str = "json-schema:///";

fn address(v: &Value) -> usize {
    v as *const Value as usize
}

impl<'a> Graph<'a> {
    fn build(root: &'a Value) -> Graph<'a> {
        let mut g = Graph {
            nodes: Vec::new(),
            by_address: HashMap::new(),
            keys: Vec::new(),
            key_ids: HashMap::new(),
            topo: Vec::new(),
            dag: Vec::new(),
            closure: Vec::new(),
            any_of: false,
        };
        // Pass 1: every subschema position, with its base URI and resource.
        let mut scopes = Scopes::default();
        let mut bases: HashMap<usize, (String, &'a Value)> = HashMap::new();
        let mut stack: Vec<(&'a Value, String, String, &'a Value)> =
            vec![(root, String::new(), DEFAULT_BASE.to_string(), root)];
        scopes.resources.insert(DEFAULT_BASE.to_string(), root);
        while let Some((v, pointer, base, resource)) = stack.pop() {
            if g.by_address.contains_key(&address(v)) {
                continue;
            }
            let (base, resource) = scope_of(v, base, resource, &mut scopes);
            bases.insert(address(v), (base.clone(), resource));
            g.add_node(v, pointer.clone());
            for (child, child_pointer) in subschemas(v, &pointer) {
                stack.push((child, child_pointer, base.clone(), resource));
            }
        }
        // Pass 2: edges. A reference may point anywhere in the document; a position not
        // reached in pass 1 becomes a node of its own (with the referring node's scope).
        let mut i = 0;
        while let Some(node) = g.nodes.get(i) {
            let v = node.value;
            let pointer = node.pointer.clone();
            let (base, resource) = bases
                .get(&address(v))
                .cloned()
                .unwrap_or_else(|| (DEFAULT_BASE.to_string(), root));
            let mut in_place = Vec::new();
            let mut descend = Vec::new();
            let mut own_keys = Vec::new();
            if let Value::Object(map) = v {
                g.any_of |= map.contains_key("anyOf") || map.contains_key("oneOf");
                for (keyword, sub) in map {
                    let at = format!("{pointer}/{}", escape(keyword));
                    match keyword.as_str() {
                        "$ref" | "$dynamicRef" | "$recursiveRef" => {
                            if let Value::String(r) = sub {
                                for target in resolve(keyword, r, &base, resource, root, &scopes) {
                                    let n = g.node_for(target, &at, &mut bases, &base, resource);
                                    in_place.push(n);
                                }
                            }
                        }
                        "allOf" | "anyOf" | "oneOf" => {
                            for (j, s) in items(sub) {
                                in_place.push(g.node_for(
                                    s,
                                    &format!("{at}/{j}"),
                                    &mut bases,
                                    &base,
                                    resource,
                                ));
                            }
                        }
                        "not" | "if" | "then" | "else" => {
                            if is_schema(sub) {
                                in_place.push(g.node_for(sub, &at, &mut bases, &base, resource));
                            }
                        }
                        "dependentSchemas" | "dependencies" => {
                            for (k, s) in members(sub) {
                                if is_schema(s) {
                                    in_place.push(g.node_for(
                                        s,
                                        &format!("{at}/{}", escape(k)),
                                        &mut bases,
                                        &base,
                                        resource,
                                    ));
                                }
                            }
                        }
                        "properties" => {
                            for (k, s) in members(sub) {
                                let key = g.key_id(k);
                                own_keys.push(key);
                                let n = g.node_for(
                                    s,
                                    &format!("{at}/{}", escape(k)),
                                    &mut bases,
                                    &base,
                                    resource,
                                );
                                descend.push((Label::Key(key), n));
                            }
                        }
                        "patternProperties" => {
                            for (k, s) in members(sub) {
                                let n = g.node_for(
                                    s,
                                    &format!("{at}/{}", escape(k)),
                                    &mut bases,
                                    &base,
                                    resource,
                                );
                                descend.push((Label::AnyKey, n));
                            }
                        }
                        "additionalProperties" if is_schema(sub) => {
                            let n = g.node_for(sub, &at, &mut bases, &base, resource);
                            descend.push((Label::OtherKeys, n));
                        }
                        "propertyNames" | "unevaluatedProperties" if is_schema(sub) => {
                            let n = g.node_for(sub, &at, &mut bases, &base, resource);
                            descend.push((Label::AnyKey, n));
                        }
                        "prefixItems" => {
                            for (j, s) in items(sub) {
                                let n = g.node_for(
                                    s,
                                    &format!("{at}/{j}"),
                                    &mut bases,
                                    &base,
                                    resource,
                                );
                                descend.push((Label::Index(j), n));
                            }
                        }
                        "items" if sub.is_array() => {
                            for (j, s) in items(sub) {
                                let n = g.node_for(
                                    s,
                                    &format!("{at}/{j}"),
                                    &mut bases,
                                    &base,
                                    resource,
                                );
                                descend.push((Label::Index(j), n));
                            }
                        }
                        "items" | "additionalItems" | "contains" | "unevaluatedItems"
                            if is_schema(sub) =>
                        {
                            let n = g.node_for(sub, &at, &mut bases, &base, resource);
                            descend.push((Label::AnyItem, n));
                        }
                        _ => {}
                    }
                }
            }
            own_keys.sort_unstable();
            own_keys.dedup();
            if let Some(node) = g.nodes.get_mut(i) {
                node.in_place = in_place;
                node.descend = descend;
                node.own_keys = own_keys;
            }
            i += 1;
        }
        g.order_in_place();
        g.count_closures();
        g
    }

    fn add_node(&mut self, v: &'a Value, pointer: String) -> usize {
        let keywords = match v {
            Value::Object(map) => (map.len() as u64).max(1),
            _ => 1,
        };
        let n = self.nodes.len();
        self.nodes.push(Node {
            value: v,
            pointer,
            keywords,
            in_place: Vec::new(),
            descend: Vec::new(),
            own_keys: Vec::new(),
        });
        self.by_address.insert(address(v), n);
        n
    }

    fn node_for(
        &mut self,
        v: &'a Value,
        pointer: &str,
        bases: &mut HashMap<usize, (String, &'a Value)>,
        base: &str,
        resource: &'a Value,
    ) -> usize {
        if let Some(&n) = self.by_address.get(&address(v)) {
            return n;
        }
        bases
            .entry(address(v))
            .or_insert_with(|| (base.to_string(), resource));
        self.add_node(v, pointer.to_string())
    }

    fn key_id(&mut self, k: &'a str) -> usize {
        if let Some(&id) = self.key_ids.get(k) {
            return id;
        }
        let id = self.keys.len();
        self.keys.push(k);
        self.key_ids.insert(k, id);
        id
    }

    /// A topological order of the in-place graph, cutting the edges that close a cycle
    /// (iterative DFS: a schema may be deep).
    fn order_in_place(&mut self) {
        let n = self.nodes.len();
        const NEW: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; n];
        let mut dag: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut post = Vec::with_capacity(n);
        for start in 0..n {
            if state.get(start) != Some(&NEW) {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            if let Some(s) = state.get_mut(start) {
                *s = OPEN;
            }
            while let Some(&mut (u, ref mut next)) = stack.last_mut() {
                let edge = self
                    .nodes
                    .get(u)
                    .and_then(|node| node.in_place.get(*next))
                    .copied();
                *next += 1;
                match edge {
                    Some(t) => match state.get(t).copied() {
                        Some(NEW) => {
                            if let Some(d) = dag.get_mut(u) {
                                d.push(t);
                            }
                            if let Some(s) = state.get_mut(t) {
                                *s = OPEN;
                            }
                            stack.push((t, 0));
                        }
                        Some(DONE) => {
                            if let Some(d) = dag.get_mut(u) {
                                d.push(t);
                            }
                        }
                        // OPEN: a cycle; `jsonschema` does not re-enter it for the same value.
                        _ => {}
                    },
                    None => {
                        if let Some(s) = state.get_mut(u) {
                            *s = DONE;
                        }
                        post.push(u);
                        stack.pop();
                    }
                }
            }
        }
        // Reverse post-order is a topological order of the DAG.
        let mut topo = vec![0usize; n];
        for (position, &u) in post.iter().rev().enumerate() {
            if let Some(t) = topo.get_mut(u) {
                *t = position;
            }
        }
        self.topo = topo;
        self.dag = dag;
    }

    /// Evaluations and keywords of each node applied alone, children before parents.
    fn count_closures(&mut self) {
        let n = self.nodes.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&u| std::cmp::Reverse(self.topo.get(u).copied().unwrap_or(0)));
        let mut closure = vec![(1u64, 1u64); n];
        for u in order {
            let mut evals = 1u64;
            let mut keywords = self.nodes.get(u).map_or(1, |node| node.keywords);
            for &t in self.dag.get(u).map(Vec::as_slice).unwrap_or(&[]) {
                let (e, k) = closure.get(t).copied().unwrap_or((1, 1));
                evals = evals.saturating_add(e);
                keywords = keywords.saturating_add(k);
            }
            if let Some(c) = closure.get_mut(u) {
                *c = (evals, keywords);
            }
        }
        self.closure = closure;
    }

    /// The subschemas evaluated at a value to which `applied` (node -> times) applies,
    /// with their multiplicity: the in-place paths from `applied`, in topological order.
    fn expand(&self, applied: &HashMap<usize, u64>) -> Vec<(usize, u64)> {
        let mut weight: HashMap<usize, u64> = applied.clone();
        let mut seen: Vec<usize> = applied.keys().copied().collect();
        let mut stack = seen.clone();
        while let Some(u) = stack.pop() {
            for &t in self.dag.get(u).map(Vec::as_slice).unwrap_or(&[]) {
                if !weight.contains_key(&t) {
                    weight.insert(t, 0);
                    seen.push(t);
                    stack.push(t);
                }
            }
        }
        seen.sort_unstable_by_key(|&u| self.topo.get(u).copied().unwrap_or(0));
        for &u in &seen {
            let w = weight.get(&u).copied().unwrap_or(0);
            if w == 0 {
                continue;
            }
            for &t in self.dag.get(u).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(x) = weight.get_mut(&t) {
                    *x = x.saturating_add(w);
                }
            }
        }
        seen.into_iter()
            .filter_map(|u| weight.get(&u).map(|&w| (u, w)))
            .filter(|&(_, w)| w > 0)
            .collect()
    }

    /// Whether a descending edge of `node` applies to `member`.
    fn applies(node: &Node<'_>, label: Label, member: Member) -> bool {
        match (label, member) {
            (Label::Key(k), Member::Key(m)) => k == m,
            (Label::OtherKeys, Member::Key(m)) => node.own_keys.binary_search(&m).is_err(),
            (Label::OtherKeys | Label::AnyKey, Member::OtherKey) => true,
            (Label::AnyKey, Member::Key(_)) => true,
            (Label::Index(i), Member::Index(j)) => i == j,
            (Label::AnyItem, Member::Index(_) | Member::OtherItem) => true,
            _ => false,
        }
    }

    /// Follow the worst member level by level; refuse when one value takes too much.
    fn worst_path(&self) -> Result<Work, SchemaError> {
        let mut work = Work {
            evaluations_per_value: 1,
            errors_per_value: 1,
            first_error_is_cheap: !self.any_of,
        };
        let mut applied: HashMap<usize, u64> = HashMap::from([(0usize, 1u64)]);
        let mut path: Vec<String> = Vec::new();
        for _depth in 0..=MAX_DEPTH {
            if applied.is_empty() {
                break;
            }
            let (evaluations, keywords) = applied.iter().fold((0u64, 0u64), |(e, k), (&t, &w)| {
                let (ce, ck) = self.closure.get(t).copied().unwrap_or((1, 1));
                (
                    e.saturating_add(w.saturating_mul(ce)),
                    k.saturating_add(w.saturating_mul(ck)),
                )
            });
            work.evaluations_per_value = work.evaluations_per_value.max(evaluations);
            work.errors_per_value = work.errors_per_value.max(keywords);
            if evaluations > MAX_EVALUATIONS_PER_VALUE {
                return Err(self.too_much(&applied, evaluations, &path));
            }
            let evaluated = self.expand(&applied);
            // Candidate members: each key or index some evaluated node names, and the others.
            let mut members: Vec<Member> = vec![Member::OtherKey, Member::OtherItem];
            for &(u, _) in &evaluated {
                if let Some(node) = self.nodes.get(u) {
                    for &(label, _) in &node.descend {
                        match label {
                            Label::Key(k) => members.push(Member::Key(k)),
                            Label::Index(i) => members.push(Member::Index(i)),
                            _ => {}
                        }
                    }
                }
            }
            members.sort_unstable_by_key(|m| match *m {
                Member::Key(k) => (0, k),
                Member::OtherKey => (1, 0),
                Member::Index(i) => (2, i),
                Member::OtherItem => (3, 0),
            });
            members.dedup();
            let mut best: Option<(u64, Member, HashMap<usize, u64>)> = None;
            for member in members {
                let mut next: HashMap<usize, u64> = HashMap::new();
                let mut total = 0u64;
                for &(u, w) in &evaluated {
                    let Some(node) = self.nodes.get(u) else {
                        continue;
                    };
                    for &(label, t) in &node.descend {
                        if Self::applies(node, label, member) {
                            let slot = next.entry(t).or_insert(0);
                            *slot = slot.saturating_add(w);
                            let ce = self.closure.get(t).map_or(1, |c| c.0);
                            total = total.saturating_add(w.saturating_mul(ce));
                        }
                    }
                }
                if best.as_ref().is_none_or(|(b, _, _)| total > *b) {
                    best = Some((total, member, next));
                }
            }
            match best {
                Some((total, member, next)) if total > 0 => {
                    path.push(match member {
                        Member::Key(k) => escape(self.keys.get(k).copied().unwrap_or("")),
                        Member::OtherKey => "(any key)".to_string(),
                        Member::Index(i) => i.to_string(),
                        Member::OtherItem => "(any item)".to_string(),
                    });
                    applied = next;
                }
                _ => break,
            }
        }
        Ok(work)
    }

    fn too_much(
        &self,
        applied: &HashMap<usize, u64>,
        evaluations: u64,
        path: &[String],
    ) -> SchemaError {
        // Name the subschema where the most evaluations start.
        let worst = applied
            .iter()
            .max_by_key(|&(&t, &w)| {
                (
                    w.saturating_mul(self.closure.get(t).map_or(1, |c| c.0)),
                    std::cmp::Reverse(t),
                )
            })
            .map(|(&t, _)| t)
            .unwrap_or(0);
        let pointer = self
            .nodes
            .get(worst)
            .map(|n| n.pointer.clone())
            .unwrap_or_default();
        let at = if path.is_empty() {
            "a value".to_string()
        } else {
            format!("the value at /{}", path.join("/"))
        };
        let shown = if evaluations == u64::MAX {
            "more than 18446744073709551615".to_string()
        } else {
            evaluations.to_string()
        };
        SchemaError {
            path: pointer,
            message: format!(
                "validation work limit: this schema applies {shown} subschemas to {at} through \
                 $ref/allOf/anyOf/oneOf (the limit is {MAX_EVALUATIONS_PER_VALUE}); a subschema \
                 reached twice at every level doubles the work at each level"
            ),
        }
    }
}

/// The base URI and resource a subschema lives in, and what it registers.
fn scope_of<'a>(
    v: &'a Value,
    base: String,
    resource: &'a Value,
    scopes: &mut Scopes<'a>,
) -> (String, &'a Value) {
    let Value::Object(map) = v else {
        return (base, resource);
    };
    let mut base = base;
    let mut resource = resource;
    let id = map
        .get("$id")
        .or_else(|| map.get("id"))
        .and_then(Value::as_str);
    if let Some(id) = id {
        if let Some(anchor) = id.strip_prefix('#') {
            // Draft 6/7 plain-name fragment: an anchor in the current resource.
            scopes.anchors.insert((base.clone(), anchor.to_string()), v);
        } else {
            let joined = join(&base, id);
            base = split_fragment(&joined).0.to_string();
            resource = v;
            scopes.resources.insert(base.clone(), v);
        }
    }
    if let Some(anchor) = map.get("$anchor").and_then(Value::as_str) {
        scopes.anchors.insert((base.clone(), anchor.to_string()), v);
    }
    if let Some(anchor) = map.get("$dynamicAnchor").and_then(Value::as_str) {
        scopes.anchors.insert((base.clone(), anchor.to_string()), v);
        scopes
            .dynamic_anchors
            .entry(anchor.to_string())
            .or_default()
            .push(v);
    }
    if map.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
        scopes.recursive_roots.push(v);
    }
    (base, resource)
}

/// The subschemas a reference leads to: its static target, and for `$dynamicRef` /
/// `$recursiveRef` every target the dynamic scope could pick.
fn resolve<'a>(
    keyword: &str,
    reference: &str,
    base: &str,
    resource: &'a Value,
    root: &'a Value,
    scopes: &Scopes<'a>,
) -> Vec<&'a Value> {
    let mut out = Vec::new();
    let (uri, fragment) = split_fragment(reference);
    let target_resource = if uri.is_empty() {
        Some((base.to_string(), resource))
    } else {
        let joined = join(base, uri);
        let absolute = split_fragment(&joined).0.to_string();
        scopes.resources.get(&absolute).map(|&r| (absolute, r))
    };
    if let Some((resource_uri, target)) = target_resource {
        let found = if fragment.is_empty() {
            Some(target)
        } else if fragment.starts_with('/') {
            target.pointer(&percent_decode(fragment))
        } else {
            scopes
                .anchors
                .get(&(resource_uri, fragment.to_string()))
                .copied()
        };
        out.extend(found);
    }
    match keyword {
        "$dynamicRef" => {
            if let Some(all) = scopes.dynamic_anchors.get(fragment) {
                out.extend(all.iter().copied());
            }
        }
        "$recursiveRef" => {
            out.push(root);
            out.extend(scopes.recursive_roots.iter().copied());
        }
        _ => {}
    }
    out
}

/// `(uri, fragment)` without the `#`.
fn split_fragment(reference: &str) -> (&str, &str) {
    match reference.split_once('#') {
        Some((uri, fragment)) => (uri, fragment),
        None => (reference, ""),
    }
}

/// RFC 3986 reference resolution, enough for the references schemas make.
fn join(base: &str, reference: &str) -> String {
    let has_scheme = reference.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if has_scheme {
        return reference.to_string();
    }
    let (base, _) = split_fragment(base);
    let scheme_end = base.find(':').map_or(0, |i| i + 1);
    if reference.starts_with("//") {
        return format!("{}{reference}", base.get(..scheme_end).unwrap_or(""));
    }
    let authority_end = if base.get(scheme_end..).is_some_and(|r| r.starts_with("//")) {
        base.get(scheme_end + 2..)
            .and_then(|r| r.find('/'))
            .map_or(base.len(), |i| scheme_end + 2 + i)
    } else {
        scheme_end
    };
    if reference.is_empty() {
        return base.to_string();
    }
    if reference.starts_with('/') {
        return format!("{}{reference}", base.get(..authority_end).unwrap_or(""));
    }
    let dir_end = base
        .rfind('/')
        .map_or(authority_end, |i| (i + 1).max(authority_end));
    let mut segments: Vec<&str> = Vec::new();
    let joined = format!(
        "{}{reference}",
        base.get(authority_end..dir_end).unwrap_or("")
    );
    for segment in joined.split('/') {
        match segment {
            "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    format!(
        "{}{}",
        base.get(..authority_end).unwrap_or(""),
        segments.join("/")
    )
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes.get(i), hex) {
            (Some(b'%'), Some(b)) => {
                out.push(b);
                i += 3;
            }
            (Some(&b), _) => {
                out.push(b);
                i += 1;
            }
            (None, _) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn is_schema(v: &Value) -> bool {
    v.is_object() || v.is_boolean()
}

fn items(v: &Value) -> impl Iterator<Item = (usize, &Value)> {
    v.as_array()
        .map(|a| a.as_slice())
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter(|(_, s)| is_schema(s))
}

fn members(v: &Value) -> impl Iterator<Item = (&String, &Value)> {
    v.as_object().into_iter().flat_map(|m| m.iter())
}

/// Every subschema directly inside `v` (applicators and `$defs`/`definitions`), with pointers.
fn subschemas<'a>(v: &'a Value, pointer: &str) -> Vec<(&'a Value, String)> {
    let mut out = Vec::new();
    let Value::Object(map) = v else {
        return out;
    };
    for (keyword, sub) in map {
        let at = format!("{pointer}/{}", escape(keyword));
        match keyword.as_str() {
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                out.extend(items(sub).map(|(j, s)| (s, format!("{at}/{j}"))));
            }
            "items" if sub.is_array() => {
                out.extend(items(sub).map(|(j, s)| (s, format!("{at}/{j}"))));
            }
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            | "dependencies" => {
                out.extend(
                    members(sub)
                        .filter(|(_, s)| is_schema(s))
                        .map(|(k, s)| (s, format!("{at}/{}", escape(k)))),
                );
            }
            "not"
            | "if"
            | "then"
            | "else"
            | "additionalProperties"
            | "propertyNames"
            | "unevaluatedProperties"
            | "items"
            | "additionalItems"
            | "contains"
            | "unevaluatedItems" => {
                if is_schema(sub) {
                    out.push((sub, at));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Issue 10's schema: each `$defs` entry refers to the next twice.
    fn chain(levels: usize, applicator: &str) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..levels {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({applicator: [next.clone(), next]}));
        }
        defs.insert(format!("d{levels}"), json!({"type": "string"}));
        json!({"$defs": defs, "$ref": "#/$defs/d0"})
    }

    #[test]
    fn a_ref_chain_that_doubles_each_level_is_refused() {
        for applicator in ["allOf", "anyOf", "oneOf"] {
            let small = analyse(&chain(5, applicator)).unwrap();
            assert!(small.evaluations_per_value >= 32, "{small:?}");
            let e = analyse(&chain(25, applicator)).unwrap_err();
            assert!(e.message.contains("validation work limit"), "{}", e.message);
            assert!(
                e.path.starts_with("/$defs/d") || e.path.is_empty(),
                "{}",
                e.path
            );
        }
    }

    #[test]
    fn growth_along_nested_values_is_refused_too() {
        // Each level applies `next` twice to the member `x`: 2^depth at depth `depth`.
        let mut defs = serde_json::Map::new();
        for i in 0..30 {
            let next = json!({"properties": {"x": {"$ref": format!("#/$defs/d{}", i + 1)}}});
            defs.insert(format!("d{i}"), json!({"allOf": [next.clone(), next]}));
        }
        defs.insert("d30".into(), json!({}));
        let e = analyse(&json!({"$defs": defs, "$ref": "#/$defs/d0"})).unwrap_err();
        assert!(e.message.contains("/x/x/x"), "{}", e.message);
    }

    #[test]
    fn ordinary_recursive_schemas_are_one_evaluation_per_value() {
        // A tree, mutual recursion with distinct keys, and additionalProperties beside
        // properties: never more than a few subschemas per value, at any depth.
        for schema in [
            json!({"$defs": {"node": {"type": "object", "properties": {
                "v": {"type": "number"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
                "$ref": "#/$defs/node"}),
            json!({"$defs": {
                "x": {"properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#/$defs/y"}}},
                "y": {"properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#/$defs/y"}}}},
                "$ref": "#/$defs/x"}),
            json!({"properties": {"a": {"$ref": "#"}}, "additionalProperties": {"$ref": "#"}}),
            json!({"properties": {"left": {"$ref": "#"}, "right": {"$ref": "#"}}}),
            json!({"$ref": "#"}),
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        ] {
            let work = analyse(&schema).unwrap();
            assert!(work.evaluations_per_value <= 4, "{schema}: {work:?}");
        }
    }

    #[test]
    fn refs_by_id_and_anchor_are_followed() {
        let mut schema = json!({"$id": "https://example.com/root.json", "$defs": {}});
        let defs = schema["$defs"].as_object_mut().unwrap();
        for i in 0..20 {
            let next = json!({"$ref": format!("item{}.json", i + 1)});
            defs.insert(
                format!("d{i}"),
                json!({"$id": format!("item{i}.json"), "allOf": [next.clone(), next]}),
            );
        }
        defs.insert(
            "d20".into(),
            json!({"$id": "item20.json", "$anchor": "leaf"}),
        );
        schema["$ref"] = json!("item0.json");
        assert!(analyse(&schema).is_err());
        let anchored = json!({"$defs": {"a": {"$anchor": "a", "allOf": [{"$ref": "#b"}, {"$ref": "#b"}]},
            "b": {"$anchor": "b", "type": "string"}}, "$ref": "#a"});
        assert_eq!(analyse(&anchored).unwrap().evaluations_per_value, 6);
    }

    #[test]
    fn counts_evaluations_and_keywords() {
        let w = analyse(
            &json!({"type": "object", "allOf": [{"minimum": 1}, {"maximum": 2, "type": "number"}]}),
        )
        .unwrap();
        assert_eq!(w.evaluations_per_value, 3);
        assert_eq!(w.errors_per_value, 2 + 1 + 2);
        assert!(w.first_error_is_cheap);
        assert!(
            !analyse(&json!({"anyOf": [true]}))
                .unwrap()
                .first_error_is_cheap
        );
        assert_eq!(analyse(&json!(true)).unwrap().evaluations_per_value, 1);
    }

    #[test]
    fn joins_references() {
        assert_eq!(
            join("https://a.com/x/y.json", "z.json"),
            "https://a.com/x/z.json"
        );
        assert_eq!(
            join("https://a.com/x/y.json", "../z.json"),
            "https://a.com/z.json"
        );
        assert_eq!(join("https://a.com/x/y.json", "/z"), "https://a.com/z");
        assert_eq!(join("https://a.com/x/y.json", "urn:x"), "urn:x");
        assert_eq!(join("json-schema:///", "a.json"), "json-schema:///a.json");
    }
}

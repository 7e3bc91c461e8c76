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
//!   subschema re-entered for the same value). A `$dynamicRef` that may resolve to several
//!   `$dynamicAnchor`s applies exactly one of them at run time, so it counts as the costliest
//!   (a choice node), not as their sum; without the "bookend" (its static target is no
//!   `$dynamicAnchor` of that name) it is a plain `$ref`. `then` and `else` are a choice too:
//!   `if` picks one of them.
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

use fnv::FnvHashMap;

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
}

/// Measure a schema; an error names where the work explodes.
pub fn analyse(schema: &Value) -> Result<Work, SchemaError> {
    Graph::build(schema).worst_path()
}

/// Which members of a value a descending edge applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// `properties[key]`: a key id (see `Graph::ids`).
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

/// A member of a value, as far as descending edges tell members apart: `Key(id)` and
/// `Index(i)` for the keys and indices some subschema names, `usize::MAX` for any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Member {
    Key(usize),
    Index(usize),
}

const OTHER: usize = usize::MAX;

struct Node<'a> {
    value: &'a Value,
    /// Where it is, for the error message: the node it was found under and the step from it.
    parent: usize,
    step: String,
    /// Its base URI (an index into `Graph::bases`) and the node of its resource.
    base: usize,
    resource: usize,
    /// Keywords of this subschema (each may give one error), at least 1.
    keywords: u64,
    in_place: Vec<usize>,
    descend: Vec<(Label, usize)>,
    /// Key ids named by `properties`, sorted.
    own_keys: Vec<usize>,
    /// Not a subschema but the targets one `$dynamicRef` may pick at run time, or a `then` and
    /// an `else` (`in_place`): exactly one of them is applied, so it counts as the costliest,
    /// not as their sum.
    choice: bool,
}

/// The value of a [`Node::choice`] node (it stands for no place in the schema).
static NO_VALUE: Value = Value::Null;

struct Graph<'a> {
    nodes: Vec<Node<'a>>,
    /// Node by the address of its value: the keys are this process's own addresses, never chosen
    /// from outside, so FNV (the `fnv` crate) instead of SipHash (which showed in profiles of
    /// `new Schema`).
    by_address: FnvHashMap<usize, usize>,
    /// Resource URIs (`uri`), anchors (`uri#name`) and property keys (`\0key`), to node or key ids.
    ids: HashMap<String, usize>,
    bases: Vec<String>,
    dynamic_anchors: Vec<(&'a str, usize)>,
    recursive_roots: Vec<usize>,
    keys: Vec<&'a str>,
    /// Topological position of each node in the in-place graph (back edges cut), the node at
    /// each position, and that DAG.
    topo: Vec<usize>,
    by_position: Vec<usize>,
    dag: Vec<Vec<usize>>,
    /// Evaluations and keywords when a node is applied to a value: counts of in-place paths.
    closure: Vec<(u64, u64)>,
}

const DEFAULT_BASE: &str = "json-schema:///";

fn address(v: &Value) -> usize {
    v as *const Value as usize
}

impl<'a> Graph<'a> {
    fn build(root: &'a Value) -> Graph<'a> {
        let mut g = Graph {
            nodes: Vec::new(),
            by_address: FnvHashMap::default(),
            ids: HashMap::new(),
            bases: vec![DEFAULT_BASE.to_string()],
            dynamic_anchors: Vec::new(),
            recursive_roots: Vec::new(),
            keys: Vec::new(),
            topo: Vec::new(),
            by_position: Vec::new(),
            dag: Vec::new(),
            closure: Vec::new(),
        };
        g.ids.insert(DEFAULT_BASE.to_string(), 0);
        // Pass 1: every subschema position, with its base URI and resource.
        g.node(root, 0, String::new, 0, 0);
        let mut i = 0;
        while let Some(node) = g.nodes.get(i) {
            let (v, base, resource) = (node.value, node.base, node.resource);
            if let Value::Object(map) = v {
                for (keyword, sub) in map {
                    for (child, seg) in keyword_subschemas(keyword, sub) {
                        g.node(child, i, || seg.step(keyword), base, resource);
                    }
                }
            }
            i += 1;
        }
        // Pass 2: edges. A reference may point anywhere in the document; a position pass 1
        // did not reach becomes a node of its own, in the referring node's scope.
        let mut i = 0;
        while let Some(node) = g.nodes.get(i) {
            if node.choice {
                i += 1;
                continue;
            }
            let (v, base, resource) = (node.value, node.base, node.resource);
            let edges = g.edges(v, i, base, resource);
            if let Some(node) = g.nodes.get_mut(i) {
                (node.in_place, node.descend, node.own_keys) = edges;
            }
            i += 1;
        }
        let post = g.order_in_place();
        g.count_closures(&post);
        g
    }

    /// The node of a subschema, registering it (with a pointer from `parent`, its scope, and the
    /// names `$id`, `$anchor`... it defines) if it is new.
    fn node(
        &mut self,
        v: &'a Value,
        parent: usize,
        step: impl FnOnce() -> String,
        base: usize,
        resource: usize,
    ) -> usize {
        if let Some(&n) = self.by_address.get(&address(v)) {
            return n;
        }
        let n = self.nodes.len();
        let (mut base, mut resource) = (base, resource);
        let mut keywords = 1;
        if let Value::Object(map) = v {
            keywords = (map.len() as u64).max(1);
            let current = self.bases.get(base).cloned().unwrap_or_default();
            let id = map
                .get("$id")
                .or_else(|| map.get("id"))
                .and_then(Value::as_str);
            match id {
                // Draft 6/7 plain-name fragment: an anchor in the current resource.
                Some(id) if id.starts_with('#') => {
                    self.ids.insert(format!("{current}{id}"), n);
                }
                Some(id) => {
                    let joined = join(&current, id);
                    let uri = split_fragment(&joined).0.to_string();
                    self.ids.insert(uri.clone(), n);
                    base = self.bases.len();
                    self.bases.push(uri);
                    resource = n;
                }
                None => {}
            }
            let uri = self.bases.get(base).cloned().unwrap_or_default();
            for keyword in ["$anchor", "$dynamicAnchor"] {
                if let Some(name) = map.get(keyword).and_then(Value::as_str) {
                    self.ids.insert(format!("{uri}#{name}"), n);
                    if keyword == "$dynamicAnchor" {
                        self.dynamic_anchors.push((name, n));
                    }
                }
            }
            if map.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                self.recursive_roots.push(n);
            }
        }
        self.nodes.push(Node {
            value: v,
            parent,
            step: step(),
            base,
            resource,
            keywords,
            in_place: Vec::new(),
            descend: Vec::new(),
            own_keys: Vec::new(),
            choice: false,
        });
        self.by_address.insert(address(v), n);
        n
    }

    fn key_id(&mut self, key: &'a str) -> usize {
        let name = format!("\0{key}");
        if let Some(&id) = self.ids.get(&name) {
            return id;
        }
        let id = self.keys.len();
        self.keys.push(key);
        self.ids.insert(name, id);
        id
    }

    #[allow(clippy::type_complexity)]
    fn edges(
        &mut self,
        v: &'a Value,
        at: usize,
        base: usize,
        resource: usize,
    ) -> (Vec<usize>, Vec<(Label, usize)>, Vec<usize>) {
        let mut in_place = Vec::new();
        let mut descend = Vec::new();
        let mut own_keys = Vec::new();
        // `then` and `else`: `if` applies one of them.
        let mut branches = Vec::new();
        let Value::Object(map) = v else {
            return (in_place, descend, own_keys);
        };
        for (keyword, sub) in map {
            let k = keyword.as_str();
            if let ("$ref" | "$dynamicRef" | "$recursiveRef", Value::String(r)) = (k, sub) {
                let targets = self.resolve(k, r, base, resource);
                if k == "$dynamicRef" && targets.len() > 1 {
                    in_place.push(self.choice(at, targets, "$dynamicRef"));
                } else {
                    in_place.extend(targets);
                }
                continue;
            }
            for (child, seg) in keyword_subschemas(k, sub) {
                let n = self.node(child, at, || seg.step(k), base, resource);
                let label = match (k, seg) {
                    ("properties", Seg::Key(key)) => {
                        let key = self.key_id(key);
                        own_keys.push(key);
                        Some(Label::Key(key))
                    }
                    ("patternProperties" | "propertyNames" | "unevaluatedProperties", _) => {
                        Some(Label::AnyKey)
                    }
                    ("additionalProperties", _) => Some(Label::OtherKeys),
                    ("prefixItems" | "items", Seg::Index(i)) => Some(Label::Index(i)),
                    ("items" | "additionalItems" | "contains" | "unevaluatedItems", _) => {
                        Some(Label::AnyItem)
                    }
                    ("then" | "else", _) => {
                        branches.push(n);
                        continue;
                    }
                    (
                        "allOf" | "anyOf" | "oneOf" | "not" | "if" | "dependentSchemas"
                        | "dependencies",
                        _,
                    ) => None,
                    // $defs, definitions: places, not applicators.
                    _ => continue,
                };
                match label {
                    Some(label) => descend.push((label, n)),
                    None => in_place.push(n),
                }
            }
        }
        if branches.len() > 1 {
            in_place.push(self.choice(at, branches, "then/else"));
        } else {
            in_place.extend(branches);
        }
        own_keys.sort_unstable();
        own_keys.dedup();
        (in_place, descend, own_keys)
    }

    /// A [`Node::choice`] node over `targets`, under `parent`, named `step` (for messages).
    fn choice(&mut self, parent: usize, targets: Vec<usize>, step: &str) -> usize {
        let n = self.nodes.len();
        let (base, resource) = self
            .nodes
            .get(parent)
            .map_or((0, 0), |p| (p.base, p.resource));
        self.nodes.push(Node {
            value: &NO_VALUE,
            parent,
            step: step.to_string(),
            base,
            resource,
            keywords: 0,
            in_place: targets,
            descend: Vec::new(),
            own_keys: Vec::new(),
            choice: true,
        });
        n
    }

    /// The nodes a reference leads to: its static target, and for `$dynamicRef` /
    /// `$recursiveRef` every target the dynamic scope could pick. A `$dynamicRef` whose
    /// static target is not a `$dynamicAnchor` of that name is a plain `$ref` (2020-12,
    /// section 8.2.3.2: the "bookend" rule).
    fn resolve(
        &mut self,
        keyword: &str,
        reference: &str,
        base: usize,
        resource: usize,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        let current = self.bases.get(base).cloned().unwrap_or_default();
        let (uri, fragment) = split_fragment(reference);
        let (target_uri, target) = if uri.is_empty() {
            (current, Some(resource))
        } else {
            let joined = join(&current, uri);
            let absolute = split_fragment(&joined).0.to_string();
            let found = self.ids.get(&absolute).copied();
            (absolute, found)
        };
        if let Some(target) = target {
            if fragment.is_empty() {
                out.push(target);
            } else if fragment.starts_with('/') {
                let pointed = self
                    .nodes
                    .get(target)
                    .and_then(|t| t.value.pointer(&percent_decode(fragment)));
                if let Some(v) = pointed {
                    let (b, r) = self
                        .nodes
                        .get(target)
                        .map_or((0, 0), |t| (t.base, t.resource));
                    out.push(self.node(v, target, || fragment.to_string(), b, r));
                }
            } else if let Some(&n) = self.ids.get(&format!("{target_uri}#{fragment}")) {
                out.push(n);
            }
        }
        let bookended = |g: &Self, target: Option<&usize>| {
            target.is_none_or(|t| {
                g.dynamic_anchors
                    .iter()
                    .any(|(name, n)| *name == fragment && n == t)
            })
        };
        match keyword {
            "$dynamicRef" if bookended(self, out.first()) => {
                let anchors: Vec<usize> = self
                    .dynamic_anchors
                    .iter()
                    .filter(|(name, n)| *name == fragment && !out.contains(n))
                    .map(|(_, n)| *n)
                    .collect();
                out.extend(anchors);
            }
            "$recursiveRef" => {
                out.push(0);
                out.extend(self.recursive_roots.iter().copied());
            }
            _ => {}
        }
        out
    }

    /// A topological order of the in-place graph, cutting the edges that close a cycle
    /// (iterative DFS: a schema may be deep). Returns the DFS's post-order: every node once,
    /// children before parents.
    fn order_in_place(&mut self) -> Vec<usize> {
        let n = self.nodes.len();
        // 0: not seen, 1: on the DFS stack, 2: done.
        let mut state = vec![0u8; n];
        let mut dag: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut post = Vec::with_capacity(n);
        for start in 0..n {
            if state.get(start) != Some(&0) {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            set(&mut state, start, 1);
            while let Some((u, next)) = stack.last_mut() {
                let u = *u;
                let edge = self
                    .nodes
                    .get(u)
                    .and_then(|node| node.in_place.get(*next))
                    .copied();
                *next += 1;
                let Some(t) = edge else {
                    set(&mut state, u, 2);
                    post.push(u);
                    stack.pop();
                    continue;
                };
                // An edge to a node on the stack closes a cycle: `jsonschema` does not re-enter
                // a subschema for the same value, so it adds no work.
                match state.get(t).copied() {
                    Some(0) => {
                        push(&mut dag, u, t);
                        set(&mut state, t, 1);
                        stack.push((t, 0));
                    }
                    Some(2) => push(&mut dag, u, t),
                    _ => {}
                }
            }
        }
        // Reverse post-order is a topological order of the DAG.
        let mut topo = vec![0usize; n];
        let mut by_position = vec![0usize; n];
        for (position, &u) in post.iter().rev().enumerate() {
            set(&mut topo, u, position);
            set(&mut by_position, position, u);
        }
        self.topo = topo;
        self.by_position = by_position;
        self.dag = dag;
        post
    }

    /// Evaluations and keywords of each node applied alone, in `post` order: children before
    /// parents.
    fn count_closures(&mut self, post: &[usize]) {
        let mut closure = vec![(1u64, 1u64); self.nodes.len()];
        for &u in post {
            let children = self.dag.get(u).map(Vec::as_slice).unwrap_or(&[]);
            let child = |t: &usize| closure.get(*t).copied().unwrap_or((1, 1));
            let total = if self.is_choice(u) {
                // One target is applied: the costliest.
                children
                    .iter()
                    .map(child)
                    .fold((0, 0), |(e, k), (ce, ck)| (e.max(ce), k.max(ck)))
            } else {
                let own = (1u64, self.nodes.get(u).map_or(1, |node| node.keywords));
                children.iter().map(child).fold(own, |(e, k), (ce, ck)| {
                    (e.saturating_add(ce), k.saturating_add(ck))
                })
            };
            set(&mut closure, u, total);
        }
        self.closure = closure;
    }

    /// The subschemas evaluated at a value to which `applied` (node, times) applies, with
    /// their multiplicity: the in-place paths from `applied`, propagated in topological order.
    fn expand(&self, applied: &[(usize, u64)], weight: &mut [u64]) -> Vec<(usize, u64)> {
        let mut reached: Vec<usize> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        for &(u, w) in applied {
            if let Some(slot) = weight.get_mut(u) {
                if *slot == 0 {
                    reached.push(u);
                    stack.push(u);
                }
                *slot = slot.saturating_add(w);
            }
        }
        let mut seen = vec![false; weight.len()];
        for &u in &reached {
            set(&mut seen, u, true);
        }
        while let Some(u) = stack.pop() {
            for &t in self.dag.get(u).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.get(t) == Some(&false) {
                    set(&mut seen, t, true);
                    reached.push(t);
                    stack.push(t);
                }
            }
        }
        // In topological order. Positions are distinct, so sorting the positions and reading the
        // nodes back is sorting the nodes by them, with the plain `usize` sort `edges` already
        // links (a sort by key was a second instance of the sort: 9 KB of the .wasm).
        for u in &mut reached {
            *u = self.topo.get(*u).copied().unwrap_or(0);
        }
        reached.sort_unstable();
        for p in &mut reached {
            *p = self.by_position.get(*p).copied().unwrap_or(0);
        }
        for &u in &reached {
            let w = weight.get(u).copied().unwrap_or(0);
            let children = self.dag.get(u).map(Vec::as_slice).unwrap_or(&[]);
            // A choice passes its weight to the one target that costs the most.
            let costliest = self.is_choice(u).then(|| {
                children
                    .iter()
                    .copied()
                    .max_by_key(|&t| self.closure.get(t).map_or(1, |c| c.0))
            });
            for &t in children {
                if costliest.is_some_and(|c| c != Some(t)) {
                    continue;
                }
                if let Some(x) = weight.get_mut(t) {
                    *x = x.saturating_add(w);
                }
            }
        }
        // Read and reset the scratch weights for the next level.
        reached
            .into_iter()
            .filter_map(|u| {
                let w = std::mem::take(weight.get_mut(u)?);
                (w > 0).then_some((u, w))
            })
            .collect()
    }

    fn is_choice(&self, u: usize) -> bool {
        self.nodes.get(u).is_some_and(|node| node.choice)
    }

    /// Whether a descending edge of `node` applies to `member`.
    fn applies(node: &Node<'_>, label: Label, member: Member) -> bool {
        match (label, member) {
            (Label::Key(k), Member::Key(m)) => k == m,
            (Label::OtherKeys, Member::Key(m)) => {
                m == OTHER || node.own_keys.binary_search(&m).is_err()
            }
            (Label::AnyKey, Member::Key(_)) => true,
            (Label::Index(i), Member::Index(j)) => i == j,
            (Label::AnyItem, Member::Index(_)) => true,
            _ => false,
        }
    }

    /// Follow the worst member level by level; refuse when one value takes too much.
    fn worst_path(&self) -> Result<Work, SchemaError> {
        let mut work = Work {
            evaluations_per_value: 1,
            errors_per_value: 1,
        };
        let mut scratch = vec![0u64; self.nodes.len()];
        let mut applied: Vec<(usize, u64)> = vec![(0, 1)];
        let mut path: Vec<Member> = Vec::new();
        for _depth in 0..=MAX_DEPTH {
            if applied.is_empty() {
                break;
            }
            let (evaluations, keywords) = applied.iter().fold((0u64, 0u64), |(e, k), &(t, w)| {
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
            let evaluated = self.expand(&applied, &mut scratch);
            let Some(member) = self.worst_member(&evaluated) else {
                break;
            };
            let mut next: Vec<(usize, u64)> = Vec::new();
            for &(u, w) in &evaluated {
                let Some(node) = self.nodes.get(u) else {
                    continue;
                };
                for &(label, t) in &node.descend {
                    if Self::applies(node, label, member) {
                        next.push((t, w));
                    }
                }
            }
            path.push(member);
            applied = next;
        }
        Ok(work)
    }

    /// The member one level down that the most evaluations reach, if any is reached: each
    /// key or index some evaluated node names, or any other. One pass over the edges (a
    /// schema may name ten thousand keys at one level).
    fn worst_member(&self, evaluated: &[(usize, u64)]) -> Option<Member> {
        let mut by_key: Vec<u64> = vec![0; self.keys.len()];
        let mut not_other: Vec<u64> = vec![0; self.keys.len()];
        let mut by_index: Vec<u64> = Vec::new();
        let (mut any_key, mut other_keys, mut any_item) = (0u64, 0u64, 0u64);
        let add = |slot: &mut u64, c: u64| *slot = slot.saturating_add(c);
        for &(u, w) in evaluated {
            let Some(node) = self.nodes.get(u) else {
                continue;
            };
            let mut node_other = 0u64;
            for &(label, t) in &node.descend {
                let c = w.saturating_mul(self.closure.get(t).map_or(1, |c| c.0));
                match label {
                    Label::Key(k) => by_key.get_mut(k).into_iter().for_each(|s| add(s, c)),
                    Label::AnyKey => add(&mut any_key, c),
                    Label::OtherKeys => add(&mut node_other, c),
                    Label::Index(i) => {
                        if by_index.len() <= i {
                            by_index.resize(i + 1, 0);
                        }
                        by_index.get_mut(i).into_iter().for_each(|s| add(s, c));
                    }
                    Label::AnyItem => add(&mut any_item, c),
                }
            }
            // additionalProperties applies to every key but the node's own.
            add(&mut other_keys, node_other);
            for &k in &node.own_keys {
                not_other
                    .get_mut(k)
                    .into_iter()
                    .for_each(|s| add(s, node_other));
            }
        }
        let keys = (0..self.keys.len()).map(|k| {
            let own = by_key.get(k).copied().unwrap_or(0);
            let other = other_keys.saturating_sub(not_other.get(k).copied().unwrap_or(0));
            (
                own.saturating_add(any_key).saturating_add(other),
                Member::Key(k),
            )
        });
        let indices = by_index
            .iter()
            .enumerate()
            .map(|(i, &c)| (c.saturating_add(any_item), Member::Index(i)));
        let others = [
            (any_key.saturating_add(other_keys), Member::Key(OTHER)),
            (any_item, Member::Index(OTHER)),
        ];
        keys.chain(indices)
            .chain(others)
            .filter(|&(total, _)| total > 0)
            .max_by_key(|&(total, member)| (total, std::cmp::Reverse(member)))
            .map(|(_, member)| member)
    }

    /// The JSON Pointer of a node in the schema document.
    fn pointer(&self, mut n: usize) -> String {
        let mut steps = Vec::new();
        while let Some(node) = self.nodes.get(n).filter(|_| n != 0) {
            steps.push(node.step.as_str());
            n = node.parent;
        }
        steps.iter().rev().map(|s| format!("/{s}")).collect()
    }

    fn too_much(&self, applied: &[(usize, u64)], evaluations: u64, path: &[Member]) -> SchemaError {
        // Name the subschema where the most evaluations start.
        let worst = applied
            .iter()
            .max_by_key(|&&(t, w)| w.saturating_mul(self.closure.get(t).map_or(1, |c| c.0)))
            .map_or(0, |&(t, _)| t);
        let at: String = path
            .iter()
            .map(|m| match *m {
                Member::Key(OTHER) => "/(any key)".to_string(),
                Member::Index(OTHER) => "/(any item)".to_string(),
                Member::Key(k) => format!("/{}", escape(self.keys.get(k).copied().unwrap_or(""))),
                Member::Index(i) => format!("/{i}"),
            })
            .collect();
        let at = if at.is_empty() {
            "a value".to_string()
        } else {
            format!("the value at {at}")
        };
        SchemaError {
            path: self.pointer(worst),
            message: format!(
                "validation work limit: this schema applies {}{evaluations} subschemas to {at} \
                 through $ref/allOf/anyOf/oneOf (the limit is {MAX_EVALUATIONS_PER_VALUE}); a \
                 subschema reached twice at every level doubles the work at each level",
                if evaluations == u64::MAX {
                    "more than "
                } else {
                    ""
                }
            ),
        }
    }
}

fn set<T>(v: &mut [T], i: usize, x: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = x;
    }
}

fn push(v: &mut [Vec<usize>], i: usize, x: usize) {
    if let Some(list) = v.get_mut(i) {
        list.push(x);
    }
}

/// Where a subschema sits below its keyword.
#[derive(Debug, Clone, Copy)]
enum Seg<'a> {
    Here,
    Key(&'a str),
    Index(usize),
}

impl Seg<'_> {
    /// The pointer step from the node that holds `keyword`.
    fn step(self, keyword: &str) -> String {
        match self {
            Seg::Here => escape(keyword),
            Seg::Key(k) => format!("{}/{}", escape(keyword), escape(k)),
            Seg::Index(i) => format!("{}/{i}", escape(keyword)),
        }
    }
}

/// The subschemas of one keyword, each with where it sits below the keyword.
fn keyword_subschemas<'a>(keyword: &str, sub: &'a Value) -> Vec<(&'a Value, Seg<'a>)> {
    let is_schema = |v: &Value| v.is_object() || v.is_boolean();
    match (keyword, sub) {
        ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter(|(_, s)| is_schema(s))
            .map(|(j, s)| (s, Seg::Index(j)))
            .collect(),
        (
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            | "dependencies",
            Value::Object(map),
        ) => map
            .iter()
            .filter(|(_, s)| is_schema(s))
            .map(|(k, s)| (s, Seg::Key(k.as_str())))
            .collect(),
        (
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
            | "unevaluatedItems",
            s,
        ) if is_schema(s) => vec![(s, Seg::Here)],
        _ => Vec::new(),
    }
}

/// `(uri, fragment)` without the `#`.
fn split_fragment(reference: &str) -> (&str, &str) {
    reference.split_once('#').unwrap_or((reference, ""))
}

/// RFC 3986 reference resolution, enough for the references schemas make.
fn join(base: &str, reference: &str) -> String {
    let scheme = reference.split_once(':').map_or("", |(s, _)| s);
    if !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return reference.to_string();
    }
    let base = split_fragment(base).0;
    let scheme_end = base.find(':').map_or(0, |i| i + 1);
    let head = |end: usize| base.get(..end).unwrap_or("");
    if reference.starts_with("//") {
        return format!("{}{reference}", head(scheme_end));
    }
    let authority_end = match base.get(scheme_end..) {
        Some(rest) if rest.starts_with("//") => rest
            .get(2..)
            .and_then(|r| r.find('/'))
            .map_or(base.len(), |i| scheme_end + 2 + i),
        _ => scheme_end,
    };
    if reference.is_empty() {
        return base.to_string();
    }
    if reference.starts_with('/') {
        return format!("{}{reference}", head(authority_end));
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
    format!("{}{}", head(authority_end), segments.join("/"))
}

fn percent_decode(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        let hex = (b == b'%')
            .then(|| bytes.clone().take(2).collect::<Vec<u8>>())
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(&h).ok()?, 16).ok());
        match hex {
            Some(decoded) => {
                out.push(decoded);
                bytes.nth(1);
            }
            None => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
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

    /// `k` resources, each with `$dynamicAnchor: "node"` over `width` cheap subschemas; the
    /// root's `$dynamicRef` may pick any of them.
    fn dynamic(k: usize, width: usize, root_anchor: bool) -> Value {
        let cheap: Vec<Value> = (0..width).map(|_| json!({"type": "string"})).collect();
        let mut defs = serde_json::Map::new();
        for i in 0..k {
            defs.insert(
                format!("r{i}"),
                json!({"$id": format!("r{i}"), "$dynamicAnchor": "node", "allOf": cheap}),
            );
        }
        let anchor = if root_anchor {
            "$dynamicAnchor"
        } else {
            "$anchor"
        };
        json!({"$id": "https://example.com/root", anchor: "node", "$defs": defs,
               "$dynamicRef": "#node"})
    }

    #[test]
    fn a_dynamic_ref_counts_its_costliest_target_not_their_sum() {
        // At run time one target is applied: 40 targets of 300 subschemas are ~300, not 12,000.
        let w = analyse(&dynamic(40, 300, true)).unwrap();
        assert!(w.evaluations_per_value < 400, "{w:?}");
        assert!(w.evaluations_per_value > 300, "{w:?}");
        // Without the bookend (its static target is a plain $anchor) it is a plain $ref.
        let w = analyse(&dynamic(40, 300, false)).unwrap();
        assert!(w.evaluations_per_value < 10, "{w:?}");
    }

    #[test]
    fn then_and_else_count_as_the_costlier_not_their_sum() {
        // A recursive node whose two branches both recurse (an outside review, 2026-12-02): one
        // branch runs per value, so this is linear, but then + else doubled each level and the
        // schema was refused.
        let node = json!({"$defs": {
            "v1": {"properties": {"name": {"type": "string"}, "sub": {"$ref": "#/$defs/node"}}},
            "v2": {"properties": {"title": {"type": "string"}, "sub": {"$ref": "#/$defs/node"}}},
            "node": {"type": "object",
                "if": {"properties": {"version": {"const": 2}}, "required": ["version"]},
                "then": {"$ref": "#/$defs/v2"}, "else": {"$ref": "#/$defs/v1"}}},
            "$ref": "#/$defs/node"});
        let w = analyse(&node).unwrap();
        assert!(w.evaluations_per_value < 20, "{w:?}");
        // The costlier branch is the one counted: 300 subschemas under `else`.
        let cheap: Vec<Value> = (0..300).map(|_| json!({"type": "string"})).collect();
        let w = analyse(&json!({"if": {}, "then": {}, "else": {"allOf": cheap}})).unwrap();
        assert!((300..310).contains(&w.evaluations_per_value), "{w:?}");
        // Doubling through `if` itself is still found: `if` always runs.
        let e = analyse(&chain(25, "allOf").pointer("/$defs").map_or(
            json!({}),
            |defs| json!({"$defs": defs, "if": {"$ref": "#/$defs/d0"}, "then": {}, "else": {}}),
        ))
        .unwrap_err();
        assert!(e.message.contains("validation work limit"), "{}", e.message);
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

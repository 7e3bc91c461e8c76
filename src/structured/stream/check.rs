//! Schema-aware fail-fast: each value is checked against its subschemas as
//! soon as what it breaks is settled, and only then.
//!
//! # Applications and branches
//!
//! An *application* is one subschema applied to one open value. The
//! applications of a value come from its parent's (`properties[key]`,
//! `items`, ...); a `$ref` or an `allOf` member adds applications in the same
//! *branch*; an `anyOf`/`oneOf` with n members opens a *disjunction* of n new
//! branches. An application that fails kills its branch; a disjunction whose
//! branches are all dead fails as a whole (reported at its value with the
//! keyword `anyOf`/`oneOf`, as whole-text validation reports it) and kills
//! the branch it sits in; a failure in the root branch is the violation.
//! `oneOf` is treated as `anyOf`: "more than one matches" is left to the
//! final parse. Disjunctions and branches live in arenas that shrink back
//! when their value closes, so memory follows the depth, not the length.
//!
//! An application that cannot be judged (a keyword not read, a coercion
//! that may apply) is dropped without killing its branch: it can never
//! cause a violation.
//!
//! # When each keyword is settled
//!
//! * `type` of an object or array: at its first character; of a string,
//!   number or literal: when it is complete.
//! * `additionalProperties: false`, `propertyNames`, `maxProperties`: when a
//!   key closes. `maxItems`, `prefixItems`/`items: false`/`additionalItems: false`:
//!   when an element begins.
//! * `required`, `minProperties`, `minItems`, `enum`/`const` of a container:
//!   when it closes.
//! * `enum`, `const`, `minLength`, `maxLength`, `pattern`, `minimum`,
//!   `maximum`, `exclusive*`, `multipleOf` of a scalar: when it is complete.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use super::keywords::{
    at_path, closed_container, describe, looks_like_json, quote_str, quote_value, scalar_refusal,
    types_text, Closed, Refusal,
};
use super::reader::Container;
use super::subschema::{Node, NodeId, StreamSchema, ROOT_NODE, TYPE_ARRAY, TYPE_OBJECT};
use super::Violation;
use crate::structured::{FailureIssue, FailureKind, MAX_MESSAGE_CHARS, MAX_PATH_CHARS};
use crate::text::one_line;

type BranchId = u32;
const ROOT_BRANCH: BranchId = 0;

/// Applications and disjunctions created for one value at most; beyond it
/// (a `$ref` cycle through `anyOf`, an exponential schema) the value is not checked.
const EXPANSION_LIMIT: usize = 256;
/// Steps and depth of the evaluation of one scalar against one subschema.
const EVAL_STEPS: u32 = 1024;
const EVAL_DEPTH: u32 = 32;

#[derive(Debug, Clone, Copy)]
struct App {
    node: NodeId,
    branch: BranchId,
}

#[derive(Debug, Clone)]
struct Branch {
    disjunction: u32,
    alive: bool,
}

/// Paths up to this long are kept whole by a [`Disjunction`] (4 bytes for each code point its
/// issue quotes).
const KEPT_PATH_BYTES: usize = 4 * MAX_PATH_CHARS;

#[derive(Debug, Clone)]
struct Disjunction {
    /// The value's path, and the value as the message names it. The path holds the model's
    /// keys, and a copy per union per open level took gigabytes (126 levels of 31 KB keys
    /// under 24 unions each: a trap at 4 GB): a path longer than [`KEPT_PATH_BYTES`] is kept
    /// as its issue quotes it (one line, clipped), with the message's name for the value made
    /// now, which is all a report reads of it. A shorter one is copied, as cheap as that.
    path: String,
    value: Option<String>,
    keyword: &'static str,
    alive: usize,
    /// The branch the `anyOf`/`oneOf` itself sits in.
    parent: BranchId,
}

/// The arena sizes before a container's applications.
#[derive(Debug, Clone, Copy)]
struct Marks {
    apps: usize,
    branches: usize,
    disjunctions: usize,
}

/// One open container: where its applications start, and (objects whose
/// `required` or property counts need them) the distinct member names so
/// far: a few in `Checker::names` from `start`, many in a set.
#[derive(Debug, Clone)]
struct Frame {
    marks: Marks,
    members: Option<Members>,
}

#[derive(Debug, Clone)]
enum Members {
    Few { start: usize },
    Many(HashSet<String>),
}

/// Member names are compared one by one up to this many, then hashed.
const FEW_MEMBERS: usize = 16;

/// Names stacked in one buffer (no allocation per name): name `i` is
/// `text[ends[i - 1]..ends[i]]`.
#[derive(Debug, Clone, Default)]
pub(super) struct Names {
    text: String,
    ends: Vec<usize>,
}

impl Names {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
    }

    /// The names from index `start` on.
    pub(super) fn from(&self, start: usize) -> impl Iterator<Item = &str> {
        let first = start
            .checked_sub(1)
            .and_then(|i| self.ends.get(i))
            .copied()
            .unwrap_or(0);
        let ends = self.ends.get(start..).unwrap_or_default();
        ends.iter().scan(first, |from, &end| {
            let name = self.text.get(*from..end).unwrap_or_default();
            *from = end;
            Some(name)
        })
    }

    fn truncate(&mut self, start: usize) {
        let first = start
            .checked_sub(1)
            .and_then(|i| self.ends.get(i))
            .copied()
            .unwrap_or(0);
        self.ends.truncate(start);
        self.text.truncate(first);
    }
}

/// A failure: where, which keyword, and what to say. Most are never reported (a member of an
/// `anyOf` another member accepts, a branch already dead, a violation already found), so a
/// scalar's is worded only when it is ([`Message::text`]).
struct Failure<'a> {
    path: &'a str,
    keyword: &'static str,
    message: Message<'a>,
}

enum Message<'a> {
    Text(String),
    /// A scalar one of its subschema's keywords refused.
    Refused(Refusal<'a>, &'a Value),
    /// A scalar no member of an `anyOf`/`oneOf` (the keyword) accepts.
    NoMember(&'static str, &'a Value),
}

impl Message<'_> {
    fn text(self, schema: &StreamSchema) -> String {
        match self {
            Message::Text(text) => text,
            Message::Refused(refusal, scalar) => refusal.message(schema, scalar),
            Message::NoMember(keyword, scalar) => format!(
                "{} is not valid under any of the schemas listed in the '{keyword}' keyword",
                quote_value(scalar)
            ),
        }
    }
}

impl<'a> Failure<'a> {
    fn at(path: &'a str, keyword: &'static str, message: String) -> Failure<'a> {
        Failure {
            path,
            keyword,
            message: Message::Text(message),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct Checker {
    schema: Arc<StreamSchema>,
    /// With coercion on, a value of the wrong type or outside an enum may
    /// still be aligned by the final parse: those are never reported.
    coerce: bool,
    apps: Vec<App>,
    frames: Vec<Frame>,
    /// The subschemas (not yet expanded) of the value about to begin.
    pending: Vec<App>,
    /// Scratch space of `expand`, kept for its capacity.
    work: Vec<App>,
    /// Member names of the open objects that count them (see `Members::Few`).
    names: Names,
    branches: Vec<Branch>,
    disjunctions: Vec<Disjunction>,
}

impl Checker {
    pub(super) fn new(schema: Arc<StreamSchema>, coerce: bool) -> Checker {
        Checker {
            schema,
            coerce,
            apps: Vec::new(),
            frames: Vec::new(),
            pending: Vec::new(),
            work: Vec::new(),
            names: Names::default(),
            branches: vec![Branch {
                disjunction: 0,
                alive: true,
            }],
            disjunctions: Vec::new(),
        }
    }

    /// The top-level value is about to begin.
    pub(super) fn root(&mut self) {
        self.pending.clear();
        self.pending.push(App {
            node: ROOT_NODE,
            branch: ROOT_BRANCH,
        });
    }

    /// A member key closed in the object at `path`. Derives the member's subschemas.
    pub(super) fn key(&mut self, path: &str, key: &str, out: &mut Option<Violation>) {
        self.pending.clear();
        let count = self.add_member(key);
        let schema = Arc::clone(&self.schema);
        let mut key_value: Option<Value> = None;
        for i in self.frame_range() {
            let Some((app, node)) = self.live_app(&schema, i) else {
                continue;
            };
            if let Some(names) = node.property_names {
                let name = key_value.get_or_insert_with(|| Value::String(key.to_owned()));
                if let Some(f) = evaluate(&schema, names, name, path) {
                    let failure = Failure {
                        keyword: "propertyNames",
                        ..f
                    };
                    self.kill(app.branch, failure, out);
                    continue;
                }
            }
            if let (Some(max), Some(count)) = (node.property_count.max, count) {
                if count as u64 > max {
                    let message = format!("the object has more than {max} properties");
                    self.kill(app.branch, Failure::at(path, "maxProperties", message), out);
                    continue;
                }
            }
            let mut matched = false;
            let mut unsure = false;
            if let Some(child) = node.property(key) {
                self.pending.push(App {
                    node: child,
                    branch: app.branch,
                });
                matched = true;
            }
            for &(pattern, child) in &node.pattern_properties {
                let name = key_value.get_or_insert_with(|| Value::String(key.to_owned()));
                match schema.lazy_valid(pattern, name) {
                    Some(true) => {
                        self.pending.push(App {
                            node: child,
                            branch: app.branch,
                        });
                        matched = true;
                    }
                    Some(false) => {}
                    None => unsure = true,
                }
            }
            if matched || unsure {
                continue;
            }
            if let Some(additional) = node.additional_properties {
                if schema.is_false(additional) {
                    let message = format!(
                        "Additional properties are not allowed ({} was unexpected)",
                        quote_str(key)
                    );
                    self.kill(
                        app.branch,
                        Failure::at(path, "additionalProperties", message),
                        out,
                    );
                } else {
                    self.pending.push(App {
                        node: additional,
                        branch: app.branch,
                    });
                }
            }
        }
    }

    /// Element `index` of the array at `path` begins. Derives its subschemas.
    pub(super) fn element(&mut self, path: &str, index: usize, out: &mut Option<Violation>) {
        self.pending.clear();
        let schema = Arc::clone(&self.schema);
        for i in self.frame_range() {
            let Some((app, node)) = self.live_app(&schema, i) else {
                continue;
            };
            if let Some(max) = node.item_count.max {
                if index as u64 + 1 > max {
                    let message = format!("the array has more than {max} items");
                    self.kill(app.branch, Failure::at(path, "maxItems", message), out);
                    continue;
                }
            }
            let child = match node.prefix_items.get(index) {
                Some(&child) => Some(child),
                None => node.rest_items,
            };
            let Some(child) = child else {
                continue;
            };
            if node.rest_is_additional_items
                && index >= node.prefix_items.len()
                && schema.is_false(child)
            {
                let message =
                    format!("Additional items are not allowed (item {index} was unexpected)");
                self.kill(
                    app.branch,
                    Failure::at(path, "additionalItems", message),
                    out,
                );
                continue;
            }
            self.pending.push(App {
                node: child,
                branch: app.branch,
            });
        }
    }

    /// An object or array begins at `path`: its subschemas are expanded, and
    /// its type is settled.
    pub(super) fn begin_container(
        &mut self,
        kind: Container,
        path: &str,
        root: bool,
        out: &mut Option<Violation>,
    ) {
        let frame = Marks {
            apps: self.apps.len(),
            branches: self.branches.len(),
            disjunctions: self.disjunctions.len(),
        };
        self.frames.push(Frame {
            marks: frame,
            members: None,
        });
        let mut work = std::mem::take(&mut self.work);
        work.clear();
        work.extend_from_slice(&self.pending);
        self.pending.clear();
        let expanded = self.expand(&mut work, path);
        self.work = work;
        if !expanded {
            self.truncate(frame);
            return;
        }
        let schema = Arc::clone(&self.schema);
        let bit = match kind {
            Container::Object => TYPE_OBJECT,
            Container::Array => TYPE_ARRAY,
        };
        // Newline-delimited values may be read as one array: where the top
        // level may be an array, an object there proves nothing yet.
        if root && kind == Container::Object && self.may_be_array(frame) {
            self.truncate(frame);
            return;
        }
        let mut keep = frame.apps;
        for i in frame.apps..self.apps.len() {
            let Some(app) = self.apps.get(i).copied() else {
                continue;
            };
            let Some(node) = schema.node(app.node) else {
                continue;
            };
            let wrong = node.is_false || (node.types != 0 && node.types & bit == 0);
            if wrong && self.alive(app.branch) {
                if self.coerce && !node.is_false {
                    continue;
                }
                let failure = if node.is_false {
                    Failure::at(
                        path,
                        "falseSchema",
                        format!("False schema does not allow {}", describe(kind)),
                    )
                } else {
                    Failure::at(
                        path,
                        "type",
                        format!("{} is not of {}", describe(kind), types_text(node.types)),
                    )
                };
                self.kill(app.branch, failure, out);
                continue;
            }
            if let Some(slot) = self.apps.get_mut(keep) {
                *slot = app;
            }
            keep += 1;
        }
        self.apps.truncate(keep);
        let counts = self.frame_apps().iter().any(|a| {
            schema
                .node(a.node)
                .is_some_and(|n| !n.required.is_empty() || n.property_count.is_set())
        });
        if kind == Container::Object && counts {
            let start = self.names.len();
            if let Some(f) = self.frames.last_mut() {
                f.members = Some(Members::Few { start });
            }
        }
    }

    /// The container at `path` closed; `len` is its number of elements (arrays).
    pub(super) fn end_container(&mut self, path: &str, len: usize, out: &mut Option<Violation>) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let closed = match &frame.members {
            Some(Members::Few { start }) => Closed::Few(&self.names, *start),
            Some(Members::Many(set)) => Closed::Many(set),
            None => Closed::Array(len),
        };
        // Judged first, killed after: the member names are borrowed meanwhile.
        let mut failures = Vec::new();
        for app in self.apps.get(frame.marks.apps..).unwrap_or_default() {
            let Some(node) = self.schema.node(app.node) else {
                continue;
            };
            if !self.alive(app.branch) {
                continue;
            }
            if let Some((keyword, message)) = closed_container(node, &closed) {
                failures.push((app.branch, Failure::at(path, keyword, message)));
            }
        }
        for (branch, failure) in failures {
            self.kill(branch, failure, out);
        }
        if let Some(Members::Few { start }) = frame.members {
            self.names.truncate(start);
        }
        self.truncate(frame.marks);
    }

    /// Adds a member name to the innermost object (if it counts them) and
    /// returns how many distinct names it has (a repeated key replaces its member).
    fn add_member(&mut self, key: &str) -> Option<usize> {
        let frame = self.frames.last_mut()?;
        match frame.members.as_mut()? {
            Members::Many(set) => {
                if !set.contains(key) {
                    set.insert(key.to_owned());
                }
                Some(set.len())
            }
            Members::Few { start } => {
                let start = *start;
                let count = self.names.len() - start;
                if self.names.from(start).any(|n| n == key) {
                    return Some(count);
                }
                if count < FEW_MEMBERS {
                    self.names.push(key);
                    return Some(count + 1);
                }
                let mut set: HashSet<String> = self.names.from(start).map(str::to_owned).collect();
                self.names.truncate(start);
                set.insert(key.to_owned());
                let count = set.len();
                frame.members = Some(Members::Many(set));
                Some(count)
            }
        }
    }

    /// A complete string, number, boolean or null at `path`.
    pub(super) fn scalar(&mut self, path: &str, value: &Value, out: &mut Option<Violation>) {
        // A scalar at the top level may turn out to be prose; with coercion,
        // a scalar's type and enum may still be aligned; text that is itself
        // JSON may be decoded where an object or array is expected
        // (doubly-encoded replies). All left to the final parse.
        if !(self.frames.is_empty() || self.coerce || looks_like_json(value)) {
            let schema = Arc::clone(&self.schema);
            for i in 0..self.pending.len() {
                let Some(app) = self.pending.get(i).copied() else {
                    continue;
                };
                if !self.alive(app.branch) {
                    continue;
                }
                if let Some(failure) = evaluate(&schema, app.node, value, path) {
                    self.kill(app.branch, failure, out);
                }
            }
        }
        self.pending.clear();
    }

    // -----------------------------------------------------------------------
    // Branches
    // -----------------------------------------------------------------------

    /// Whether the applications of the top-level value (just expanded) could
    /// all accept some array: every application of a branch allows arrays,
    /// and each of its disjunctions has such a branch.
    fn may_be_array(&self, frame: Marks) -> bool {
        let mut ok = vec![true; self.branches.len()];
        for app in self.apps.get(frame.apps..).unwrap_or_default() {
            let allows = self
                .schema
                .node(app.node)
                .is_some_and(|n| !n.is_false && (n.types == 0 || n.types & TYPE_ARRAY != 0));
            if !allows {
                if let Some(slot) = ok.get_mut(app.branch as usize) {
                    *slot = false;
                }
            }
        }
        // A disjunction is created after the one it sits in, so going
        // backwards settles inner ones first.
        for (d, disjunction) in self.disjunctions.iter().enumerate().rev() {
            let any = self.branches.iter().enumerate().any(|(b, branch)| {
                branch.disjunction as usize == d && b != 0 && ok.get(b).copied().unwrap_or(false)
            });
            if !any {
                if let Some(slot) = ok.get_mut(disjunction.parent as usize) {
                    *slot = false;
                }
            }
        }
        ok.first().copied().unwrap_or(true)
    }

    fn frame_apps(&self) -> &[App] {
        self.apps.get(self.frame_range()).unwrap_or_default()
    }

    /// Application `i` and its node, if its branch is alive.
    fn live_app<'s>(&self, schema: &'s StreamSchema, i: usize) -> Option<(App, &'s Node)> {
        let app = self.apps.get(i).copied()?;
        let node = schema.node(app.node)?;
        self.alive(app.branch).then_some((app, node))
    }

    fn frame_range(&self) -> std::ops::Range<usize> {
        let start = self.frames.last().map_or(self.apps.len(), |f| f.marks.apps);
        start..self.apps.len()
    }

    fn truncate(&mut self, frame: Marks) {
        self.apps.truncate(frame.apps);
        self.branches.truncate(frame.branches.max(1));
        self.disjunctions.truncate(frame.disjunctions);
    }

    /// Whether a branch and every branch it sits in are alive.
    fn alive(&self, mut branch: BranchId) -> bool {
        while branch != ROOT_BRANCH {
            let Some(b) = self.branches.get(branch as usize) else {
                return false;
            };
            if !b.alive {
                return false;
            }
            branch = self
                .disjunctions
                .get(b.disjunction as usize)
                .map_or(ROOT_BRANCH, |d| d.parent);
        }
        true
    }

    /// A definitive failure in `branch`: kills it, and every disjunction left
    /// with no live branch fails in turn; in the root branch it is the violation.
    fn kill(&mut self, mut branch: BranchId, failure: Failure, out: &mut Option<Violation>) {
        // The disjunction that died of it last, whose failure it then is.
        let mut died: Option<usize> = None;
        loop {
            if branch == ROOT_BRANCH {
                if out.is_none() {
                    let (path, keyword, message) = match died.and_then(|d| self.disjunctions.get(d)) {
                        Some(d) => (
                            d.path.as_str(),
                            d.keyword,
                            format!(
                                "{} is not valid under any of the schemas listed in the '{}' keyword",
                                d.value.clone().unwrap_or_else(|| at_path(&d.path)),
                                d.keyword
                            ),
                        ),
                        None => (failure.path, failure.keyword, failure.message.text(&self.schema)),
                    };
                    *out = Some(Violation {
                        // Bounded as every report's issues are (SPEC section 4): the
                        // path quotes the model's keys.
                        issue: FailureIssue {
                            kind: FailureKind::Schema,
                            path: one_line(path, MAX_PATH_CHARS),
                            message: one_line(&message, MAX_MESSAGE_CHARS),
                        },
                        keyword: Some(keyword),
                    });
                }
                return;
            }
            let Some(b) = self.branches.get_mut(branch as usize) else {
                return;
            };
            if !b.alive {
                return;
            }
            b.alive = false;
            let Some(d) = self.disjunctions.get_mut(b.disjunction as usize) else {
                return;
            };
            d.alive = d.alive.saturating_sub(1);
            if d.alive > 0 {
                return;
            }
            died = Some(b.disjunction as usize);
            branch = d.parent;
        }
    }

    /// Adds the applications of `work` for the value at `path`, following
    /// `$ref`/`allOf` in the same branch and opening a disjunction per
    /// `anyOf`/`oneOf`. False when the expansion is too large to follow.
    fn expand(&mut self, work: &mut Vec<App>, path: &str) -> bool {
        let start = self.apps.len();
        let schema = Arc::clone(&self.schema);
        let mut steps = 0;
        while let Some(app) = work.pop() {
            steps += 1;
            if steps > EXPANSION_LIMIT {
                return false;
            }
            let seen = self
                .apps
                .get(start..)
                .unwrap_or_default()
                .iter()
                .any(|a| a.node == app.node && a.branch == app.branch);
            if seen {
                continue;
            }
            let Some(node) = schema.node(app.node) else {
                continue;
            };
            self.apps.push(app);
            for &member in &node.all_of {
                work.push(App {
                    node: member,
                    branch: app.branch,
                });
            }
            for (keyword, members) in [("anyOf", &node.any_of), ("oneOf", &node.one_of)] {
                if members.is_empty() {
                    continue;
                }
                let Ok(disjunction) = u32::try_from(self.disjunctions.len()) else {
                    return false;
                };
                let (kept, value) = if path.len() > KEPT_PATH_BYTES {
                    (one_line(path, MAX_PATH_CHARS), Some(at_path(path)))
                } else {
                    (path.to_owned(), None)
                };
                self.disjunctions.push(Disjunction {
                    path: kept,
                    value,
                    keyword,
                    alive: members.len(),
                    parent: app.branch,
                });
                for &member in members {
                    let Ok(branch) = BranchId::try_from(self.branches.len()) else {
                        return false;
                    };
                    self.branches.push(Branch {
                        disjunction,
                        alive: true,
                    });
                    work.push(App {
                        node: member,
                        branch,
                    });
                }
            }
        }
        true
    }
}

// ---------------------------------------------------------------------------
// A complete scalar against one subschema
// ---------------------------------------------------------------------------

/// The first failure of `scalar` against `node` and everything it includes (`allOf`, `$ref`;
/// an `anyOf`/`oneOf` fails when every member does). `None` when it passes or cannot be judged.
fn evaluate<'a>(
    schema: &'a StreamSchema,
    node: NodeId,
    scalar: &'a Value,
    path: &'a str,
) -> Option<Failure<'a>> {
    let mut steps = EVAL_STEPS;
    eval(schema, node, scalar, path, 0, &mut steps)
}

fn eval<'a>(
    schema: &'a StreamSchema,
    id: NodeId,
    scalar: &'a Value,
    path: &'a str,
    depth: u32,
    steps: &mut u32,
) -> Option<Failure<'a>> {
    if depth > EVAL_DEPTH || *steps == 0 {
        return None;
    }
    *steps -= 1;
    let node = schema.node(id)?;
    if let Some(refusal) = scalar_refusal(schema, node, scalar) {
        return Some(Failure {
            path,
            keyword: refusal.keyword(),
            message: Message::Refused(refusal, scalar),
        });
    }
    for &member in &node.all_of {
        if let Some(f) = eval(schema, member, scalar, path, depth + 1, steps) {
            return Some(f);
        }
    }
    for (keyword, members) in [("anyOf", &node.any_of), ("oneOf", &node.one_of)] {
        if members.is_empty() {
            continue;
        }
        let all_fail = members
            .iter()
            .all(|&m| eval(schema, m, scalar, path, depth + 1, steps).is_some());
        if all_fail {
            return Some(Failure {
                path,
                keyword,
                message: Message::NoMember(keyword, scalar),
            });
        }
    }
    None
}

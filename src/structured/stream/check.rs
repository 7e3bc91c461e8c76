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
//!
//! Numbers are compared without rounding when both are integers, and
//! otherwise only where `f64` rounding cannot change the answer.

use std::cmp::Ordering;
use std::sync::Arc;

use serde_json::{Number, Value};

use super::reader::Container;
use super::subschema::{
    NodeId, StreamSchema, ROOT_NODE, TYPE_ARRAY, TYPE_BOOLEAN, TYPE_INTEGER, TYPE_NULL,
    TYPE_NUMBER, TYPE_OBJECT, TYPE_STRING,
};
use super::Violation;
use crate::structured::{FailureIssue, FailureKind};

type BranchId = u32;
const ROOT_BRANCH: BranchId = 0;

/// Applications and disjunctions created for one value at most; beyond it
/// (a `$ref` cycle through `anyOf`, an exponential schema) the value is not checked.
const EXPANSION_LIMIT: usize = 256;
/// Steps and depth of the evaluation of one scalar against one subschema.
const EVAL_STEPS: u32 = 1024;
const EVAL_DEPTH: u32 = 32;
/// Values quoted in messages are cut to this many characters.
const QUOTE_CHARS: usize = 60;

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

#[derive(Debug, Clone)]
struct Disjunction {
    path: String,
    keyword: &'static str,
    alive: usize,
    /// The branch the `anyOf`/`oneOf` itself sits in.
    parent: BranchId,
}

/// The applications of one open container, and the arena sizes before it.
#[derive(Debug, Clone, Copy)]
struct Frame {
    apps: usize,
    branches: usize,
    disjunctions: usize,
}

/// A failure: where, which keyword, and what to say.
struct Failure {
    path: String,
    keyword: &'static str,
    message: String,
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
    branches: Vec<Branch>,
    disjunctions: Vec<Disjunction>,
}

/// A scalar as the checks see it.
#[derive(Clone, Copy)]
enum Scalar<'a> {
    Null,
    Bool(bool),
    Num(&'a Number),
    Str(&'a str),
}

impl<'a> Scalar<'a> {
    fn of(value: &'a Value) -> Option<Scalar<'a>> {
        match value {
            Value::Null => Some(Scalar::Null),
            Value::Bool(b) => Some(Scalar::Bool(*b)),
            Value::Number(n) => Some(Scalar::Num(n)),
            Value::String(s) => Some(Scalar::Str(s)),
            _ => None,
        }
    }

    fn to_value(self) -> Value {
        match self {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Num(n) => Value::Number(n.clone()),
            Scalar::Str(s) => Value::String(s.to_owned()),
        }
    }

    fn quote(self) -> String {
        match self {
            Scalar::Null => "null".into(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Num(n) => n.to_string(),
            Scalar::Str(s) => quote_str(s),
        }
    }
}

impl Checker {
    pub(super) fn new(schema: Arc<StreamSchema>, coerce: bool) -> Checker {
        Checker {
            schema,
            coerce,
            apps: Vec::new(),
            frames: Vec::new(),
            pending: Vec::new(),
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

    /// Whether `key` needs the number of distinct members (for `maxProperties`).
    pub(super) fn counts_members(&self) -> bool {
        self.frame_apps().iter().any(|a| {
            self.schema
                .node(a.node)
                .is_some_and(|n| n.max_properties.is_some())
        })
    }

    /// Whether `end_container` needs the container's value.
    pub(super) fn wants_closed_value(&self) -> bool {
        self.frame_apps().iter().any(|a| {
            self.schema
                .node(a.node)
                .is_some_and(|n| n.checks_on_close())
        })
    }

    fn frame_apps(&self) -> &[App] {
        let start = self.frames.last().map_or(self.apps.len(), |f| f.apps);
        self.apps.get(start..).unwrap_or_default()
    }

    /// A member key closed in the object at `path`; `count` is the number of
    /// distinct members with it. Derives the member's subschemas.
    pub(super) fn key(
        &mut self,
        path: &str,
        key: &str,
        count: Option<usize>,
        out: &mut Option<Violation>,
    ) {
        self.pending.clear();
        let schema = Arc::clone(&self.schema);
        let key_value = Value::String(key.to_owned());
        for i in self.frame_range() {
            let Some(app) = self.apps.get(i).copied() else {
                continue;
            };
            let Some(node) = schema.node(app.node) else {
                continue;
            };
            if !self.alive(app.branch) {
                continue;
            }
            if let Some(names) = node.property_names {
                if let Some(f) = self.evaluate(names, Scalar::Str(key), path) {
                    let failure = Failure {
                        path: path.to_owned(),
                        keyword: "propertyNames",
                        message: f.message,
                    };
                    self.kill(app.branch, failure, out);
                    continue;
                }
            }
            if let (Some(max), Some(count)) = (node.max_properties, count) {
                if count as u64 > max {
                    let failure = Failure {
                        path: path.to_owned(),
                        keyword: "maxProperties",
                        message: format!("the object has more than {max} properties"),
                    };
                    self.kill(app.branch, failure, out);
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
                match schema.lazy_valid(pattern, &key_value) {
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
                    let failure = Failure {
                        path: path.to_owned(),
                        keyword: "additionalProperties",
                        message: format!(
                            "Additional properties are not allowed ({} was unexpected)",
                            quote_str(key)
                        ),
                    };
                    self.kill(app.branch, failure, out);
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
            let Some(app) = self.apps.get(i).copied() else {
                continue;
            };
            let Some(node) = schema.node(app.node) else {
                continue;
            };
            if !self.alive(app.branch) {
                continue;
            }
            if let Some(max) = node.max_items {
                if index as u64 + 1 > max {
                    let failure = Failure {
                        path: path.to_owned(),
                        keyword: "maxItems",
                        message: format!("the array has more than {max} items"),
                    };
                    self.kill(app.branch, failure, out);
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
                let failure = Failure {
                    path: path.to_owned(),
                    keyword: "additionalItems",
                    message: format!(
                        "Additional items are not allowed (item {index} was unexpected)"
                    ),
                };
                self.kill(app.branch, failure, out);
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
        let frame = Frame {
            apps: self.apps.len(),
            branches: self.branches.len(),
            disjunctions: self.disjunctions.len(),
        };
        self.frames.push(frame);
        let pending = std::mem::take(&mut self.pending);
        if !self.expand(&pending, path) {
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
                    Failure {
                        path: path.to_owned(),
                        keyword: "falseSchema",
                        message: format!("False schema does not allow {}", describe(kind)),
                    }
                } else {
                    Failure {
                        path: path.to_owned(),
                        keyword: "type",
                        message: format!("{} is not of {}", describe(kind), types_text(node.types)),
                    }
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
    }

    /// The container at `path` closed (`value`: its content when asked for).
    pub(super) fn end_container(
        &mut self,
        path: &str,
        value: Option<&Value>,
        out: &mut Option<Violation>,
    ) {
        let Some(frame) = self.frames.last().copied() else {
            return;
        };
        let schema = Arc::clone(&self.schema);
        if let Some(value) = value {
            for i in frame.apps..self.apps.len() {
                let Some(app) = self.apps.get(i).copied() else {
                    continue;
                };
                let Some(node) = schema.node(app.node) else {
                    continue;
                };
                if !self.alive(app.branch) {
                    continue;
                }
                if let Some(failure) = closed_container(node, value, path, self.coerce) {
                    self.kill(app.branch, failure, out);
                }
            }
        }
        self.frames.pop();
        self.truncate(frame);
    }

    /// A complete string at `path`.
    pub(super) fn string(&mut self, path: &str, content: &str, out: &mut Option<Violation>) {
        // Text that is itself JSON may be decoded where an object or array is
        // expected (doubly-encoded replies): left to the final parse.
        let trimmed = content.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            self.pending.clear();
            return;
        }
        self.scalar_at(path, Scalar::Str(content), out);
    }

    /// A complete number, boolean or null at `path`.
    pub(super) fn scalar(&mut self, path: &str, value: &Value, out: &mut Option<Violation>) {
        if let Some(scalar) = Scalar::of(value) {
            self.scalar_at(path, scalar, out);
        }
    }

    fn scalar_at(&mut self, path: &str, scalar: Scalar, out: &mut Option<Violation>) {
        let pending = std::mem::take(&mut self.pending);
        // A scalar at the top level may turn out to be prose; with coercion,
        // a scalar's type, enum and format may still be aligned.
        if self.frames.is_empty() || self.coerce {
            return;
        }
        for app in pending {
            if !self.alive(app.branch) {
                continue;
            }
            if let Some(failure) = self.evaluate(app.node, scalar, path) {
                self.kill(app.branch, failure, out);
            }
        }
    }

    // -----------------------------------------------------------------------
    // Branches
    // -----------------------------------------------------------------------

    /// Whether the applications of the top-level value (just expanded) could
    /// all accept some array: every application of a branch allows arrays,
    /// and each of its disjunctions has such a branch.
    fn may_be_array(&self, frame: Frame) -> bool {
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

    fn frame_range(&self) -> std::ops::Range<usize> {
        let start = self.frames.last().map_or(self.apps.len(), |f| f.apps);
        start..self.apps.len()
    }

    fn truncate(&mut self, frame: Frame) {
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
    fn kill(&mut self, mut branch: BranchId, mut failure: Failure, out: &mut Option<Violation>) {
        loop {
            if branch == ROOT_BRANCH {
                if out.is_none() {
                    *out = Some(Violation {
                        issue: FailureIssue {
                            kind: FailureKind::Schema,
                            path: failure.path,
                            message: failure.message,
                        },
                        keyword: Some(failure.keyword),
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
            failure = Failure {
                path: d.path.clone(),
                keyword: d.keyword,
                message: format!(
                    "{} is not valid under any of the schemas listed in the '{}' keyword",
                    at_path(&d.path),
                    d.keyword
                ),
            };
            branch = d.parent;
        }
    }

    /// Adds the applications of `pending` for the value at `path`, following
    /// `$ref`/`allOf` in the same branch and opening a disjunction per
    /// `anyOf`/`oneOf`. False when the expansion is too large to follow.
    fn expand(&mut self, pending: &[App], path: &str) -> bool {
        let start = self.apps.len();
        let schema = Arc::clone(&self.schema);
        let mut work: Vec<App> = pending.to_vec();
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
                self.disjunctions.push(Disjunction {
                    path: path.to_owned(),
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

    // -----------------------------------------------------------------------
    // A complete scalar against one subschema
    // -----------------------------------------------------------------------

    /// The first failure of `scalar` against `node` and everything it
    /// includes (`allOf`, `$ref`; an `anyOf`/`oneOf` fails when every member
    /// does). `None` when it passes or cannot be judged.
    fn evaluate(&self, node: NodeId, scalar: Scalar, path: &str) -> Option<Failure> {
        let mut steps = EVAL_STEPS;
        self.eval(node, scalar, path, 0, &mut steps)
    }

    fn eval(
        &self,
        id: NodeId,
        scalar: Scalar,
        path: &str,
        depth: u32,
        steps: &mut u32,
    ) -> Option<Failure> {
        if depth > EVAL_DEPTH || *steps == 0 {
            return None;
        }
        *steps -= 1;
        let node = self.schema.node(id)?;
        if let Some((keyword, message)) = own_scalar_failure(&self.schema, node, scalar) {
            return Some(Failure {
                path: path.to_owned(),
                keyword,
                message,
            });
        }
        for &member in &node.all_of {
            if let Some(f) = self.eval(member, scalar, path, depth + 1, steps) {
                return Some(f);
            }
        }
        for (keyword, members) in [("anyOf", &node.any_of), ("oneOf", &node.one_of)] {
            if members.is_empty() {
                continue;
            }
            let all_fail = members
                .iter()
                .all(|&m| self.eval(m, scalar, path, depth + 1, steps).is_some());
            if all_fail {
                return Some(Failure {
                    path: path.to_owned(),
                    keyword,
                    message: format!(
                        "{} is not valid under any of the schemas listed in the '{keyword}' keyword",
                        scalar.quote()
                    ),
                });
            }
        }
        None
    }
}

// ---------------------------------------------------------------------------
// Keywords
// ---------------------------------------------------------------------------

/// The node's own keywords against a complete scalar.
fn own_scalar_failure(
    schema: &StreamSchema,
    node: &super::subschema::Node,
    scalar: Scalar,
) -> Option<(&'static str, String)> {
    if node.is_false {
        return Some((
            "falseSchema",
            format!("False schema does not allow {}", scalar.quote()),
        ));
    }
    if node.types != 0 && type_mismatch(node.types, scalar) {
        return Some((
            "type",
            format!("{} is not of {}", scalar.quote(), types_text(node.types)),
        ));
    }
    if let Some(options) = &node.enumeration {
        if options
            .iter()
            .all(|o| equal_scalar(scalar, o) == Some(false))
        {
            return Some((
                "enum",
                format!(
                    "{} is not one of {}",
                    scalar.quote(),
                    quote_value(&Value::Array(options.clone()))
                ),
            ));
        }
    }
    if let Some(constant) = &node.constant {
        if equal_scalar(scalar, constant) == Some(false) {
            return Some(("const", format!("{} was expected", quote_value(constant))));
        }
    }
    match scalar {
        Scalar::Str(s) => {
            if node.min_length.is_some() || node.max_length.is_some() {
                let chars = s.chars().count() as u64;
                if let Some(min) = node.min_length.filter(|&m| chars < m) {
                    return Some((
                        "minLength",
                        format!("{} is shorter than {min} characters", scalar.quote()),
                    ));
                }
                if let Some(max) = node.max_length.filter(|&m| chars > m) {
                    return Some((
                        "maxLength",
                        format!("{} is longer than {max} characters", scalar.quote()),
                    ));
                }
            }
            if let Some(pattern) = node.pattern {
                if schema.lazy_valid(pattern, &scalar.to_value()) == Some(false) {
                    return Some((
                        "pattern",
                        format!("{} does not match the pattern", scalar.quote()),
                    ));
                }
            }
        }
        Scalar::Num(n) => return number_failure(schema, node, n, scalar),
        Scalar::Null | Scalar::Bool(_) => {}
    }
    None
}

fn number_failure(
    schema: &StreamSchema,
    node: &super::subschema::Node,
    n: &Number,
    scalar: Scalar,
) -> Option<(&'static str, String)> {
    let shown = scalar.quote();
    if let Some(m) = &node.minimum {
        if compare(n, m) == Some(Ordering::Less) {
            return Some((
                "minimum",
                format!("{shown} is less than the minimum of {m}"),
            ));
        }
    }
    if let Some(m) = &node.maximum {
        if compare(n, m) == Some(Ordering::Greater) {
            return Some((
                "maximum",
                format!("{shown} is greater than the maximum of {m}"),
            ));
        }
    }
    if let Some(m) = &node.exclusive_minimum {
        if matches!(compare(n, m), Some(Ordering::Less | Ordering::Equal)) {
            return Some((
                "exclusiveMinimum",
                format!("{shown} is less than or equal to the minimum of {m}"),
            ));
        }
    }
    if let Some(m) = &node.exclusive_maximum {
        if matches!(compare(n, m), Some(Ordering::Greater | Ordering::Equal)) {
            return Some((
                "exclusiveMaximum",
                format!("{shown} is greater than or equal to the maximum of {m}"),
            ));
        }
    }
    if let Some(multiple) = node.multiple_of {
        if schema.lazy_valid(multiple, &scalar.to_value()) == Some(false) {
            return Some((
                "multipleOf",
                format!("{shown} is not a multiple of the divisor"),
            ));
        }
    }
    None
}

/// A closed container against the node's close-time keywords.
fn closed_container(
    node: &super::subschema::Node,
    value: &Value,
    path: &str,
    coerce: bool,
) -> Option<Failure> {
    let fail = |keyword: &'static str, message: String| {
        Some(Failure {
            path: path.to_owned(),
            keyword,
            message,
        })
    };
    match value {
        Value::Object(map) => {
            if let Some(missing) = node.required.iter().find(|k| !map.contains_key(k.as_str())) {
                return fail(
                    "required",
                    format!("{} is a required property", quote_str(missing)),
                );
            }
            if let Some(min) = node.min_properties.filter(|&m| (map.len() as u64) < m) {
                return fail(
                    "minProperties",
                    format!("the object has less than {min} properties"),
                );
            }
        }
        Value::Array(items) => {
            if let Some(min) = node.min_items.filter(|&m| (items.len() as u64) < m) {
                return fail("minItems", format!("the array has less than {min} items"));
            }
        }
        _ => {}
    }
    if coerce {
        return None;
    }
    if let Some(options) = &node.enumeration {
        if options.iter().all(|o| equal(value, o) == Some(false)) {
            return fail(
                "enum",
                format!(
                    "the value at {} is not one of the enum values",
                    at_path(path)
                ),
            );
        }
    }
    if let Some(constant) = &node.constant {
        if equal(value, constant) == Some(false) {
            return fail("const", format!("{} was expected", quote_value(constant)));
        }
    }
    None
}

/// True when `types` certainly excludes the scalar. An integral float such
/// as `1.0` is never reported (an integer since draft 6; draft 4 disagrees,
/// and the final parse says so).
fn type_mismatch(types: u8, scalar: Scalar) -> bool {
    let bit = match scalar {
        Scalar::Null => TYPE_NULL,
        Scalar::Bool(_) => TYPE_BOOLEAN,
        Scalar::Str(_) => TYPE_STRING,
        Scalar::Num(n) => {
            if types & TYPE_NUMBER != 0 {
                return false;
            }
            if types & TYPE_INTEGER == 0 {
                return true;
            }
            if n.is_i64() || n.is_u64() {
                return false;
            }
            return n.as_f64().is_some_and(|f| f.fract() != 0.0);
        }
    };
    types & bit == 0
}

/// `a` against `b`: `None` when `f64` rounding leaves the order in doubt.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (whole(a), whole(b)) {
        return Some(x.cmp(&y));
    }
    let (fa, fb) = (a.as_f64()?, b.as_f64()?);
    if a.is_f64() && b.is_f64() {
        return fa.partial_cmp(&fb);
    }
    // One integer, one float: exact while the integer fits in 53 bits;
    // beyond, rounding keeps a strict order but an equality proves nothing.
    const EXACT: i128 = 1 << 53;
    let exact = whole(a)
        .or(whole(b))
        .is_some_and(|i| (-EXACT..=EXACT).contains(&i));
    match fa.partial_cmp(&fb)? {
        Ordering::Equal if !exact => None,
        order => Some(order),
    }
}

fn whole(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// JSON equality (numbers by value): `None` when it cannot be told.
fn equal(a: &Value, b: &Value) -> Option<bool> {
    let mut stack = vec![(a, b)];
    let mut unsure = false;
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => match compare(x, y) {
                Some(Ordering::Equal) => {}
                Some(_) => return Some(false),
                None => unsure = true,
            },
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return Some(false);
                }
                stack.extend(x.iter().zip(y.iter()));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return Some(false);
                }
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return Some(false),
                    }
                }
            }
            _ => {
                if a != b {
                    return Some(false);
                }
            }
        }
    }
    if unsure {
        None
    } else {
        Some(true)
    }
}

fn equal_scalar(scalar: Scalar, value: &Value) -> Option<bool> {
    match (scalar, value) {
        (Scalar::Null, Value::Null) => Some(true),
        (Scalar::Bool(a), Value::Bool(b)) => Some(a == *b),
        (Scalar::Str(a), Value::String(b)) => Some(a == b),
        (Scalar::Num(a), Value::Number(b)) => compare(a, b).map(|o| o == Ordering::Equal),
        _ => Some(false),
    }
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

fn describe(kind: Container) -> &'static str {
    match kind {
        Container::Object => "an object",
        Container::Array => "an array",
    }
}

fn types_text(types: u8) -> String {
    let names: Vec<&str> = [
        (TYPE_NULL, "null"),
        (TYPE_BOOLEAN, "boolean"),
        (TYPE_OBJECT, "object"),
        (TYPE_ARRAY, "array"),
        (TYPE_NUMBER, "number"),
        (TYPE_INTEGER, "integer"),
        (TYPE_STRING, "string"),
    ]
    .iter()
    .filter(|(bit, _)| types & bit != 0)
    .map(|(_, name)| *name)
    .collect();
    match names.as_slice() {
        [one] => format!("type \"{one}\""),
        many => format!("types \"{}\"", many.join("\", \"")),
    }
}

fn at_path(path: &str) -> String {
    if path.is_empty() {
        "the value".to_owned()
    } else {
        format!("the value at {}", clip(path, QUOTE_CHARS))
    }
}

fn quote_str(s: &str) -> String {
    quote_value(&Value::String(clip(s, QUOTE_CHARS)))
}

fn quote_value(v: &Value) -> String {
    clip(&v.to_string(), QUOTE_CHARS * 2)
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((at, _)) => format!("{}…", s.get(..at).unwrap_or(s)),
    }
}

//! The partial value: a `serde_json::Value` tree grown in place, the edits
//! that describe each push's growth, the JSON Pointers of values that closed,
//! and the schema checker fed with the same events.
//!
//! The tree is reached from its root through the open path (one map lookup
//! or `last_mut` per level), so no event costs more than the depth of the
//! value. The string being read is kept aside and written into the tree when
//! it closes, or when the whole value is asked for.

use std::mem;

use serde::Serialize;
use serde_json::{Map, Value};

use super::check::Checker;
use super::reader::Container;
use super::Violation;

/// What a [`Edit::Begin`] opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Object,
    Array,
    String,
}

/// One change to the partial value, relative to a cursor that the applier
/// keeps: the innermost open container or string (none at first).
///
/// The *next slot* is the top level when no container is open, the member
/// `key` of the open object (a key seen again replaces the earlier member in
/// place, as `serde_json` and `JSON.parse` do), or the next element of the
/// open array. [`apply`] is the reference applier.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Edit {
    /// An empty object, array or string is set in the next slot and becomes the cursor.
    Begin {
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        kind: Kind,
    },
    /// Text is appended to the string at the cursor.
    Append { text: String },
    /// A complete number, boolean or null is set in the next slot.
    Scalar {
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        value: Value,
    },
    /// The value at the cursor is complete; the cursor moves to its parent.
    End,
    /// The value goes back to undefined: what was shown was a number or word
    /// at the start of prose (`3 items: [...]`), not the reply's value.
    Reset,
}

/// Applies `edits` to `value` with the cursor `path` (the keys of the open
/// containers; `None` for an array element). The wasm layer does the same in
/// JavaScript; this is its specification and the tests' oracle.
pub fn apply(value: &mut Option<Value>, path: &mut Vec<Option<String>>, edits: &[Edit]) {
    for edit in edits {
        match edit {
            Edit::Begin { key, kind } => {
                let empty = match kind {
                    Kind::Object => Value::Object(Map::new()),
                    Kind::Array => Value::Array(Vec::new()),
                    Kind::String => Value::String(String::new()),
                };
                set_next(value, path, key.as_deref(), empty);
                path.push(key.clone());
            }
            Edit::Append { text } => {
                if let Some(Value::String(s)) = at_path(value, path) {
                    s.push_str(text);
                }
            }
            Edit::Scalar { key, value: v } => set_next(value, path, key.as_deref(), v.clone()),
            Edit::End => {
                path.pop();
            }
            Edit::Reset => {
                *value = None;
                path.clear();
            }
        }
    }
}

fn set_next(root: &mut Option<Value>, path: &[Option<String>], key: Option<&str>, v: Value) {
    if path.is_empty() {
        *root = Some(v);
        return;
    }
    match (at_path(root, path), key) {
        (Some(Value::Object(map)), Some(k)) => {
            map.insert(k.to_owned(), v);
        }
        (Some(Value::Array(items)), _) => items.push(v),
        _ => {}
    }
}

/// The value at the cursor `path` (each level: the member key, or the last element).
fn at_path<'a>(root: &'a mut Option<Value>, path: &[Option<String>]) -> Option<&'a mut Value> {
    let mut cur = root.as_mut()?;
    let mut levels = path.iter();
    levels.next()?;
    for key in levels {
        cur = match (cur, key) {
            (Value::Object(map), Some(k)) => map.get_mut(k)?,
            (Value::Array(items), None) => items.last_mut()?,
            _ => return None,
        };
    }
    Some(cur)
}

/// One open container.
#[derive(Debug, Clone)]
struct Frame {
    kind: Container,
    /// Length of `Builder::pointer` before this container's own segment.
    seg_start: usize,
    /// The member being read (objects).
    key: Option<String>,
    /// Elements so far (arrays).
    len: usize,
}

/// The string being read.
#[derive(Debug, Clone)]
struct OpenString {
    content: String,
    path: String,
}

#[derive(Debug, Clone)]
pub(super) struct Builder {
    root: Option<Value>,
    frames: Vec<Frame>,
    /// JSON Pointer of the innermost open container.
    pointer: String,
    string: Option<OpenString>,
    pub(super) edits: Vec<Edit>,
    pub(super) closed: Vec<String>,
    pub(super) done: bool,
    checker: Option<Checker>,
    pub(super) violation: Option<Violation>,
}

/// Appends `/segment` to a JSON Pointer (`~` -> `~0`, `/` -> `~1`).
fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for ch in segment.chars() {
        match ch {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            _ => pointer.push(ch),
        }
    }
}

impl Builder {
    pub(super) fn new(checker: Option<Checker>) -> Builder {
        Builder {
            root: None,
            frames: Vec::new(),
            pointer: String::new(),
            string: None,
            edits: Vec::new(),
            closed: Vec::new(),
            done: false,
            checker,
            violation: None,
        }
    }

    /// The partial value, with the string being read written in.
    pub(super) fn value(&mut self) -> Option<&Value> {
        if let Some(open) = &self.string {
            let current = Value::String(open.content.clone());
            replace_slot(&mut self.root, &self.frames, current);
        }
        self.root.as_ref()
    }

    /// The JSON Pointer of the innermost open container ("" at the top level).
    pub(super) fn open_path(&self) -> &str {
        &self.pointer
    }

    // -----------------------------------------------------------------------
    // Events from the reader
    // -----------------------------------------------------------------------

    /// The top-level value begins; `lead` when nothing but a fence preceded it.
    pub(super) fn start(&mut self, lead: bool) {
        if !lead {
            self.checker = None;
        }
    }

    /// A quote that JSON does not use: where the string ends is a guess
    /// (`'it's'`), shared with the repair scanner but not certain, so no
    /// violation is reported from here on.
    pub(super) fn heuristic(&mut self) {
        self.checker = None;
    }

    pub(super) fn reset(&mut self) {
        self.root = None;
        self.frames.clear();
        self.pointer.clear();
        self.string = None;
        self.done = false;
        self.edits.push(Edit::Reset);
    }

    pub(super) fn key(&mut self, key: &str) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        frame.key = Some(key.to_owned());
        let Some(checker) = self.checker.as_mut() else {
            return;
        };
        // Distinct members once this one is in (a repeated key replaces its member).
        let count = if checker.counts_members() {
            match container(&mut self.root, &self.frames) {
                Some(Value::Object(map)) => Some(map.len() + usize::from(!map.contains_key(key))),
                _ => None,
            }
        } else {
            None
        };
        checker.key(&self.pointer, key, count, &mut self.violation);
        self.settle();
    }

    pub(super) fn begin_container(&mut self, kind: Container) {
        let (key, path) = self.next_slot();
        let (empty, edit_kind) = match kind {
            Container::Object => (Value::Object(Map::new()), Kind::Object),
            Container::Array => (Value::Array(Vec::new()), Kind::Array),
        };
        self.insert(empty);
        self.edits.push(Edit::Begin {
            key,
            kind: edit_kind,
        });
        if let Some(checker) = self.checker.as_mut() {
            checker.begin_container(kind, &path, self.frames.is_empty(), &mut self.violation);
        }
        let seg_start = self.pointer.len();
        self.pointer = path;
        self.frames.push(Frame {
            kind,
            seg_start,
            key: None,
            len: 0,
        });
        self.settle();
    }

    pub(super) fn end_container(&mut self) {
        if let Some(checker) = self.checker.as_mut() {
            let value = if checker.wants_closed_value() {
                container(&mut self.root, &self.frames).map(|v| &*v)
            } else {
                None
            };
            checker.end_container(&self.pointer, value, &mut self.violation);
        }
        let Some(frame) = self.frames.pop() else {
            return;
        };
        self.edits.push(Edit::End);
        let path = mem::take(&mut self.pointer);
        self.pointer = path.get(..frame.seg_start).unwrap_or_default().to_owned();
        self.closed.push(path);
        self.done = self.frames.is_empty();
        self.settle();
    }

    pub(super) fn begin_string(&mut self) {
        let (key, path) = self.next_slot();
        self.insert(Value::String(String::new()));
        self.edits.push(Edit::Begin {
            key,
            kind: Kind::String,
        });
        self.string = Some(OpenString {
            content: String::new(),
            path,
        });
    }

    pub(super) fn str_content(&mut self, text: &str) {
        if let Some(open) = self.string.as_mut() {
            open.content.push_str(text);
        }
        match self.edits.last_mut() {
            Some(Edit::Append { text: last }) => last.push_str(text),
            _ => self.edits.push(Edit::Append {
                text: text.to_owned(),
            }),
        }
    }

    pub(super) fn end_string(&mut self) {
        let Some(open) = self.string.take() else {
            return;
        };
        if let Some(checker) = self.checker.as_mut() {
            checker.string(&open.path, &open.content, &mut self.violation);
        }
        replace_slot(&mut self.root, &self.frames, Value::String(open.content));
        self.edits.push(Edit::End);
        self.closed.push(open.path);
        self.done = self.frames.is_empty();
        self.settle();
    }

    pub(super) fn scalar(&mut self, value: Value) {
        let (key, path) = self.next_slot();
        if let Some(checker) = self.checker.as_mut() {
            checker.scalar(&path, &value, &mut self.violation);
        }
        self.insert(value.clone());
        self.edits.push(Edit::Scalar { key, value });
        self.closed.push(path);
        self.done = self.frames.is_empty();
        self.settle();
    }

    // -----------------------------------------------------------------------

    /// Once a violation is known the checker has nothing left to do.
    fn settle(&mut self) {
        if self.violation.is_some() {
            self.checker = None;
        }
    }

    /// The key and JSON Pointer of the next slot; for an array, counts the
    /// element and tells the checker (it derives the element's subschemas).
    fn next_slot(&mut self) -> (Option<String>, String) {
        let Some(frame) = self.frames.last_mut() else {
            if let Some(checker) = self.checker.as_mut() {
                checker.root();
            }
            return (None, String::new());
        };
        let mut path = self.pointer.clone();
        match frame.kind {
            Container::Object => {
                let key = frame.key.clone().unwrap_or_default();
                push_segment(&mut path, &key);
                (Some(key), path)
            }
            Container::Array => {
                let index = frame.len;
                frame.len += 1;
                path.push('/');
                path.push_str(&index.to_string());
                if let Some(checker) = self.checker.as_mut() {
                    checker.element(&self.pointer, index, &mut self.violation);
                }
                (None, path)
            }
        }
    }

    /// Puts a new value in the next slot (the top level, the member, or a new element).
    fn insert(&mut self, value: Value) {
        if self.frames.is_empty() {
            self.root = Some(value);
            return;
        }
        let key = self.frames.last().and_then(|f| f.key.clone());
        match (container(&mut self.root, &self.frames), key) {
            (Some(Value::Object(map)), Some(k)) => {
                map.insert(k, value);
            }
            (Some(Value::Array(items)), _) => items.push(value),
            _ => {}
        }
    }
}

/// The innermost open container in the tree.
fn container<'a>(root: &'a mut Option<Value>, frames: &[Frame]) -> Option<&'a mut Value> {
    let mut cur = root.as_mut()?;
    let mut parents = frames.iter();
    let _root = parents.next()?;
    let mut parent = frames.first()?;
    for frame in parents {
        cur = match (cur, parent.kind) {
            (Value::Object(map), Container::Object) => map.get_mut(parent.key.as_deref()?)?,
            (Value::Array(items), Container::Array) => items.last_mut()?,
            _ => return None,
        };
        parent = frame;
    }
    Some(cur)
}

/// Replaces the value in the current slot (the member or last element being read).
fn replace_slot(root: &mut Option<Value>, frames: &[Frame], value: Value) {
    let Some(top) = frames.last() else {
        *root = Some(value);
        return;
    };
    match (container(root, frames), top.key.as_deref()) {
        (Some(Value::Object(map)), Some(k)) => {
            if let Some(slot) = map.get_mut(k) {
                *slot = value;
            }
        }
        (Some(Value::Array(items)), _) => {
            if let Some(slot) = items.last_mut() {
                *slot = value;
            }
        }
        _ => {}
    }
}

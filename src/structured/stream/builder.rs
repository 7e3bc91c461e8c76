//! What the reader's events become: the edits that describe each push's
//! growth of the partial value, the JSON Pointers of values that closed, and
//! the schema checker fed with the same events.
//!
//! No value tree is kept while streaming: the host mirrors the value from
//! the edits, and [`super::PartialJson::value`] rebuilds it on demand by
//! reading the text again and applying the edits with [`apply`]. Building a
//! `serde_json::Value` per push cost as much as everything else together and
//! made memory, not the text, the working set.

use std::fmt::Write;

use serde::Serialize;
use serde_json::{Map, Value};

use super::check::Checker;
use super::reader::Container;
use super::Violation;

/// What a [`Edit::Begin`] opens. The numbers are the op codes of a begin in the wasm layer's
/// edit payload (src/wasm/mirror.rs, read by js/snippets/instructions.js).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Object = 0,
    Array = 1,
    String = 2,
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
    key: String,
    /// Elements so far (arrays).
    len: usize,
}

#[derive(Debug, Clone)]
pub(super) struct Builder {
    frames: Vec<Frame>,
    /// JSON Pointer of the innermost open container, or of the string being read (then
    /// [`Builder::string`] says where the string's own segment starts). Segments are pushed and
    /// truncated in place: a slot's pointer is never a copy of its parent's, which made a value
    /// under a long key cost the key's length (an outside review: 50,000 numbers under a
    /// 100,000-character key trapped at 4 GB).
    pointer: String,
    /// Where the string being read starts its segment of [`Builder::pointer`].
    string: Option<usize>,
    /// Whether [`Builder::closed`] is filled ([`super::StreamOptions::closed_pointers`]).
    pointers: bool,
    /// Its text, when the checker needs it (the buffer is reused).
    content: String,
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
    pub(super) fn new(checker: Option<Checker>, pointers: bool) -> Builder {
        Builder {
            frames: Vec::new(),
            pointer: String::new(),
            string: None,
            pointers,
            content: String::new(),
            edits: Vec::new(),
            closed: Vec::new(),
            done: false,
            checker,
            violation: None,
        }
    }

    /// The JSON Pointer of the innermost open container ("" at the top level).
    pub(super) fn open_path(&self) -> &str {
        let end = self.string.unwrap_or(self.pointer.len());
        self.pointer.get(..end).unwrap_or_default()
    }

    /// The value at [`Builder::pointer`] closed: its pointer joins `closed`, when kept.
    fn close(&mut self) {
        if self.pointers {
            self.closed.push(self.pointer.clone());
        }
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
        frame.key.clear();
        frame.key.push_str(key);
        if let Some(checker) = self.checker.as_mut() {
            checker.key(&self.pointer, key, &mut self.violation);
            self.settle();
        }
    }

    pub(super) fn begin_container(&mut self, kind: Container) {
        let (key, seg_start) = self.next_slot();
        let edit_kind = match kind {
            Container::Object => Kind::Object,
            Container::Array => Kind::Array,
        };
        self.edits.push(Edit::Begin {
            key,
            kind: edit_kind,
        });
        if let Some(checker) = self.checker.as_mut() {
            checker.begin_container(
                kind,
                &self.pointer,
                self.frames.is_empty(),
                &mut self.violation,
            );
        }
        self.frames.push(Frame {
            kind,
            seg_start,
            key: String::new(),
            len: 0,
        });
        self.settle();
    }

    pub(super) fn end_container(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        if let Some(checker) = self.checker.as_mut() {
            checker.end_container(&self.pointer, frame.len, &mut self.violation);
        }
        self.edits.push(Edit::End);
        self.close();
        self.pointer.truncate(frame.seg_start);
        self.done = self.frames.is_empty();
        self.settle();
    }

    pub(super) fn begin_string(&mut self) {
        let (key, seg_start) = self.next_slot();
        self.edits.push(Edit::Begin {
            key,
            kind: Kind::String,
        });
        self.string = Some(seg_start);
        self.content.clear();
    }

    pub(super) fn str_content(&mut self, text: &str) {
        if self.checker.is_some() {
            self.content.push_str(text);
        }
        match self.edits.last_mut() {
            Some(Edit::Append { text: last }) => last.push_str(text),
            _ => self.edits.push(Edit::Append {
                text: text.to_owned(),
            }),
        }
    }

    pub(super) fn end_string(&mut self) {
        let Some(seg_start) = self.string.take() else {
            return;
        };
        if let Some(checker) = self.checker.as_mut() {
            let value = Value::String(std::mem::take(&mut self.content));
            checker.scalar(&self.pointer, &value, &mut self.violation);
            if let Value::String(buffer) = value {
                self.content = buffer;
            }
        }
        self.edits.push(Edit::End);
        self.close();
        self.pointer.truncate(seg_start);
        self.done = self.frames.is_empty();
        self.settle();
    }

    pub(super) fn scalar(&mut self, value: Value) {
        let (key, seg_start) = self.next_slot();
        if let Some(checker) = self.checker.as_mut() {
            checker.scalar(&self.pointer, &value, &mut self.violation);
        }
        self.edits.push(Edit::Scalar { key, value });
        self.close();
        self.pointer.truncate(seg_start);
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

    /// Moves [`Builder::pointer`] to the next slot (its segment pushed in place) and returns the
    /// slot's key and where its segment starts; for an array, counts the element and tells the
    /// checker (it derives the element's subschemas).
    fn next_slot(&mut self) -> (Option<String>, usize) {
        let seg_start = self.pointer.len();
        let Some(frame) = self.frames.last_mut() else {
            if let Some(checker) = self.checker.as_mut() {
                checker.root();
            }
            return (None, seg_start);
        };
        match frame.kind {
            Container::Object => {
                let key = frame.key.clone();
                push_segment(&mut self.pointer, &key);
                (Some(key), seg_start)
            }
            Container::Array => {
                let index = frame.len;
                frame.len += 1;
                if let Some(checker) = self.checker.as_mut() {
                    checker.element(&self.pointer, index, &mut self.violation);
                }
                // Writing to a String cannot fail.
                let _ = write!(self.pointer, "/{index}");
                (None, seg_start)
            }
        }
    }
}

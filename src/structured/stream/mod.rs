//! Streaming replies: the partial value of a reply that is still arriving,
//! and the first violation no continuation can fix (SPEC section 8).
//!
//! # Theory of operation
//!
//! [`PartialJson`] reads each chunk once, as it arrives, with a resumable
//! state machine (`reader`): no recursion, no re-reading of earlier text, so
//! a whole stream costs O(total length), and the memory beyond the text and
//! the value is the stack of open containers plus the token in progress (a
//! key, a number, a word). Chunks are `&str`, so a chunk never splits a
//! UTF-8 character; everything else may be split anywhere, and the reader
//! carries it over: an escape (`\u00` + `e9`, a surrogate pair in two
//! halves, a string ending in a backslash), a number (`12` may become `125`,
//! so a number is shown only once the byte after it has arrived), a literal,
//! a comment, a fence opener.
//!
//! Each [`PartialJson::push`] returns a [`PartialUpdate`]: the [`Edit`]s that
//! grew the value during this push (so a host mirrors the value without it
//! ever being serialised whole again), the JSON Pointers of the values that
//! closed, `done`, and the violation. The whole value is there on demand
//! ([`PartialJson::value`], which reads the text again: no value tree is
//! kept while streaming). [`PartialJson::finish`] is exactly
//! [`parse`](crate::structured::parse) of the whole text.
//!
//! ## What is shown
//!
//! Only what the final parse would read the same way: containers with what
//! has arrived, an unfinished string as its prefix, numbers and literals once
//! complete, never a guess. The lexical rules are the repair scanner's
//! (`super::repair`), so a value shown here is the value the final parse
//! gives when the reply stops there and is closed:
//!
//! * before the value: JSON whitespace; a Markdown fence opener at the very
//!   start (backticks, blanks, language tag); otherwise prose, and the value
//!   is the first `{` or `[` after it. A scalar at the very start is shown,
//!   and taken back ([`Edit::Reset`]) if text follows it (`3 items: [...]`);
//! * inside: `//` and `/* */` comments, trailing and doubled commas, missing
//!   commas before something that starts an element, unquoted keys,
//!   `True`/`False`/`None`, raw control characters in strings, a backslash
//!   that starts no escape (kept as text), and `'single'`, `“smart”`,
//!   `‘smart’` quotes with the scanner's rule for apostrophes (such a quote
//!   closes only before `,` `}` `]` `:`, a line break or a comment, a
//!   decision that may wait for the next chunk);
//! * after the value: nothing more is read.
//!
//! Anything else (a bare word, a number JSON does not allow, a lone
//! surrogate, a bracket that does not match, ...) stops the reader: the
//! value stays as it was and nothing more is reported, because the final
//! parse, with its wider repair repertoire and candidate search, decides.
//! With local repair off ([`StreamOptions::local_repair`]) only strict JSON
//! is read and the first byte strict parsing refuses is a `json-syntax`
//! violation, as it is for the whole text.
//!
//! ## What is reported
//!
//! A violation is definitive only: reported when the text so far can no
//! longer become a reply the final parse accepts. Local repair and the
//! candidate search of the final parse can change a reply a lot, so the
//! rules are conservative (docs/DESIGN.md, "Streaming", lists each case):
//!
//! * schema violations are checked only for a value at the start of the
//!   reply (after a fence at most): after prose, the reply may hold several
//!   candidates (an example, then the answer) and the first is not yet the
//!   reply's value;
//! * not after a `'` or smart quote anywhere (where such a string ends is
//!   the scanner's guess), nor for a scalar at the top level (text after it
//!   may make it prose), nor for a string whose text is itself JSON (it may
//!   be decoded where an object is expected), nor for a top-level object
//!   where the schema also allows an array (newline-delimited values may
//!   become one);
//! * a double-quoted string in a container is judged at the separator after
//!   its quote (`,` `}` `]` `:`, a line break or a comment), since local
//!   repair may still join it with what follows (`"a" + "b"`) or keep the
//!   quote as content (`"5" tall"`); anything else there stops the reader;
//! * with coercion on, no type, `enum` or `const` check, and no scalar check;
//! * the keywords read and when each is settled: see `check`; keywords not
//!   read never produce a violation.
//!
//! A model that writes a second, corrected value after a complete first one
//! is not waited for: the first value of the reply is the value. Nor is a
//! repeated key: a member's value is judged when it closes, although a later
//! member of the same name would replace it.
//!
//! # Example
//!
//! A host (the wasm layer, or a `RepairLoop` during the call in flight)
//! pushes each chunk, mirrors the value from the edits, and cuts the stream
//! at the first violation (schema checks need the `validate` feature: in selfheal/lite a stream
//! checks syntax only, as its final parse does):
//!
//! ```
//! # #[cfg(feature = "validate")] {
//! use std::sync::Arc;
//! use selfheal::structured::stream::{apply, PartialJson, StreamOptions, StreamSchema};
//! use selfheal::{CompiledSchema, ParseOptions};
//!
//! let compiled = CompiledSchema::from_text(
//!     r#"{"type":"object","additionalProperties":false,"properties":{"city":{"type":"string"}}}"#,
//! )
//! .unwrap();
//! // Once per schema, shared by every stream (it keeps compiled patterns).
//! let schema = Arc::new(StreamSchema::new(Arc::new(compiled)));
//! let mut stream = PartialJson::new(Some(schema), StreamOptions::default());
//!
//! let (mut value, mut cursor) = (None, Vec::new());
//! let mut cut = None;
//! for chunk in ["```json\n{\"city\": \"Par", "is\", \"pop", "ulation\": 2", "100000}"] {
//!     let update = stream.push(chunk).unwrap(); // Err: over maxChars (a RangeError in JS)
//!     apply(&mut value, &mut cursor, &update.edits);
//!     if let Some(issue) = update.violation {
//!         cut = Some(issue); // abort the request, send one repair prompt
//!         break;
//!     }
//! }
//! assert_eq!(value, Some(serde_json::json!({"city": "Paris"})));
//! assert_eq!(cut.map(|i| i.message).as_deref(),
//!            Some(r#"Additional properties are not allowed ("population" was unexpected)"#));
//! assert_eq!(stream.text(), "```json\n{\"city\": \"Paris\", \"population\": 2");
//! // `finish` is `parse` of the text so far: here a cut-off reply.
//! assert!(!stream.finish(&ParseOptions::new()).is_ok());
//! # }
//! ```

mod builder;
mod check;
mod keywords;
mod reader;
mod subschema;

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

pub use builder::{apply, Edit, Kind};
pub use subschema::StreamSchema;

use super::{parse, FailureIssue, FailureKind, ParseOptions, Parsed};
use builder::Builder;
use check::Checker;
use reader::Reader;

/// The default of [`StreamOptions::max_chars`] (SPEC: `maxChars`).
pub const DEFAULT_MAX_CHARS: usize = 4_000_000;

/// Options of one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamOptions {
    /// Longest text accepted, in Unicode code points.
    pub max_chars: usize,
    /// Whether the final parse will repair locally (it must match the
    /// `ParseOptions` given to [`PartialJson::finish`]); off, only strict JSON is read.
    pub local_repair: bool,
    /// Whether the final parse will coerce values to the schema (SPEC section 9).
    pub coerce: bool,
    /// Whether [`PartialUpdate::closed`] lists the pointers. A host that mirrors the value builds
    /// them from the edits instead (each Scalar and End closes one value), as the wasm layer does:
    /// a copy of each pointer is as long as its keys, so a million values under a long key make
    /// that many copies of it.
    pub closed_pointers: bool,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            max_chars: DEFAULT_MAX_CHARS,
            local_repair: true,
            coerce: false,
            closed_pointers: true,
        }
    }
}

/// The first definitive problem of a stream, and the schema keyword that
/// found it (`None` for a `json-syntax` issue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub issue: FailureIssue,
    pub keyword: Option<&'static str>,
}

/// What one push changed.
#[must_use]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartialUpdate {
    /// How the partial value grew, in order (apply with [`apply`]).
    pub edits: Vec<Edit>,
    /// JSON Pointers of the values that closed during this push, in order (none when the
    /// stream was made without [`StreamOptions::closed_pointers`]).
    pub closed: Vec<String>,
    /// The top-level value has closed.
    pub done: bool,
    /// The first issue no continuation can fix; once set, in every later update.
    pub violation: Option<FailureIssue>,
}

/// A push was refused; the stream is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// The text would exceed [`StreamOptions::max_chars`] code points.
    TooLong { max_chars: usize, chars: usize },
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::TooLong { max_chars, chars } => write!(
                f,
                "maxChars: the streamed text would be {chars} characters, more than {max_chars}"
            ),
        }
    }
}

impl std::error::Error for StreamError {}

/// One streamed reply: push chunks, read the partial value, finish.
///
/// Methods: getters ([`text`](Self::text), [`value`](Self::value),
/// [`done`](Self::done), [`violation`](Self::violation),
/// [`open_path`](Self::open_path)), the input [`push`](Self::push), and
/// [`finish`](Self::finish), which may be called at any time and changes nothing.
#[derive(Debug, Clone)]
pub struct PartialJson {
    schema: Option<Arc<StreamSchema>>,
    options: StreamOptions,
    text: String,
    chars: usize,
    reader: Reader,
    builder: Builder,
}

impl PartialJson {
    pub fn new(schema: Option<Arc<StreamSchema>>, options: StreamOptions) -> PartialJson {
        let checker = schema
            .as_ref()
            .map(|s| Checker::new(Arc::clone(s), options.coerce));
        PartialJson {
            reader: Reader::new(options.local_repair),
            builder: Builder::new(checker, options.closed_pointers),
            schema,
            options,
            text: String::new(),
            chars: 0,
        }
    }

    /// Reads one more chunk. Refused, with nothing changed, when the text
    /// would exceed `max_chars`.
    pub fn push(&mut self, chunk: &str) -> Result<PartialUpdate, StreamError> {
        let added = chunk.chars().count();
        let chars = self.chars.saturating_add(added);
        if chars > self.options.max_chars {
            return Err(StreamError::TooLong {
                max_chars: self.options.max_chars,
                chars,
            });
        }
        self.chars = chars;
        self.text.push_str(chunk);
        // One chunk's checks are one call's pattern matching (DESIGN.md, "Patterns").
        super::schema::engine::one_call(|| self.reader.feed(chunk, &mut self.builder));
        if self.builder.violation.is_none() {
            if let Some(error) = self.reader.error() {
                let (line, column) = line_column(&self.text, error.offset);
                self.builder.violation = Some(Violation {
                    issue: FailureIssue {
                        kind: FailureKind::JsonSyntax,
                        path: String::new(),
                        message: format!(
                            "invalid JSON: {} at line {line} column {column}",
                            error.what
                        ),
                    },
                    keyword: None,
                });
            }
        }
        Ok(PartialUpdate {
            edits: std::mem::take(&mut self.builder.edits),
            closed: std::mem::take(&mut self.builder.closed),
            done: self.builder.done,
            violation: self.builder.violation.as_ref().map(|v| v.issue.clone()),
        })
    }

    /// Everything pushed so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The partial value; `None` until a value starts. Built on demand by
    /// reading the text again (O(length)): a host that follows every push
    /// applies the edits instead.
    pub fn value(&self) -> Option<Value> {
        let mut replay = Builder::new(None, false);
        Reader::new(self.options.local_repair).feed(&self.text, &mut replay);
        let mut value = None;
        apply(&mut value, &mut Vec::new(), &replay.edits);
        value
    }

    /// The top-level value has closed.
    pub fn done(&self) -> bool {
        self.builder.done
    }

    /// The first definitive violation, once there is one.
    pub fn violation(&self) -> Option<&Violation> {
        self.builder.violation.as_ref()
    }

    /// The JSON Pointer of the innermost open container ("" at the top level).
    pub fn open_path(&self) -> &str {
        self.builder.open_path()
    }

    pub fn options(&self) -> &StreamOptions {
        &self.options
    }

    /// The schema, if any.
    pub fn schema(&self) -> Option<&Arc<StreamSchema>> {
        self.schema.as_ref()
    }

    /// `parse(text, schema, options)` on everything pushed: exactly what a
    /// non-streamed reply with this text gives.
    pub fn finish(&self, options: &ParseOptions) -> Parsed {
        let compiled = self.schema.as_ref().map(|s| &**s.compiled());
        parse(&self.text, compiled, options)
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = text.get(..end).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

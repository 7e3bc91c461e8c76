//! Tolerant repair of LLM-shaped broken JSON into strict JSON, naming each fix.
//!
//! # Approach
//!
//! Models wrap JSON in Markdown fences, chat around it, and write it the way
//! JavaScript or Python would print it (single quotes, unquoted keys, trailing
//! commas, comments, `True`/`None`), or get cut off mid-value. Each of those
//! is a *local* defect, so one forward pass over the bytes can fix it while
//! copying: JSON structure is pure ASCII, so the scanner works on bytes and
//! copies string content (any UTF-8) in bulk runs into one pre-sized `String`.
//!
//! [`repair_json`] works in this order:
//!
//! 1. Text that already parses strictly is returned byte-identical with no
//!    fixes: repair must never touch valid JSON, scalars included.
//! 2. A Markdown code fence (```` ```json ```` … ```` ``` ````, closing fence
//!    optional) is stripped; fenced content that is then strict JSON (even a
//!    scalar) is returned as is.
//! 3. The value starts at the first `{` or `[`; text around it is prose. When
//!    a candidate cannot be repaired, the scanner skips past it (bracket
//!    balancing) and tries the next one, at most eight starting points, so
//!    `Use {curly} braces: {"a":1}` still finds `{"a":1}` without quadratic
//!    rescans.
//! 4. The scanner is iterative: an explicit stack of open containers plus one
//!    state for the innermost one, so hostile nesting cannot overflow the
//!    call stack; containers nested [`MAX_DEPTH`] deep give `None`, exactly
//!    where serde_json itself stops.
//! 5. Every output is checked strictly (the same rules as
//!    `serde_json::from_str::<serde_json::Value>`, without building a tree);
//!    output that still fails gives `None`, so a `Some` is always usable.
//!
//! # What is repaired (see [`Fix`])
//!
//! * Commas are emitted as seen but removed again when a closer, another comma
//!   or the end follows, so `[1,2,]`, `{"a":1,}` and `[1,,2]` all come out
//!   strict; a comma missing between two elements is inserted right after the
//!   first one.
//! * `'single'`, `“smart”` and `‘smart’` quoted strings and keys become
//!   double-quoted. Because models write apostrophes inside such strings, a
//!   closing `'`, `’` or `”` only closes when the next non-blank character
//!   is `,` `}` `]` `:`, a comment, a line break or the end of input;
//!   otherwise it is kept as content (`{'a': 'it's'}` -> `{"a": "it's"}`). Inside a normal `"…"` string every character
//!   is content and is never rewritten (apostrophes, smart quotes, `//`).
//! * Bare identifiers before `:` are quoted; bare `True`/`False`/`None`
//!   become `true`/`false`/`null`. Any other bare word makes the result
//!   `None`: guessing what `{a: hello}` meant would hide a real error.
//! * `//` and `/* */` comments outside strings are dropped.
//! * Raw control characters in strings are escaped; a backslash that starts
//!   no valid escape is itself escaped.
//! * At the end of input an open string is closed, a member cut after its key
//!   or `:` gets `null`, a dangling comma is dropped, and open containers are
//!   closed innermost first.
//! * Numbers are copied as written; one that is not a JSON number makes the
//!   strict check fail, and the result is `None`.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One kind of local repair. Serialised as the kebab-case string (these
/// strings are a public contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fix {
    /// Markdown code fences (```` ``` ````, with or without a language tag such
    /// as `json`) stripped.
    CodeFence,
    /// Text before or after the one JSON value dropped.
    SurroundingProse,
    /// Comma before `}` or `]` (also doubled or leading commas) removed.
    TrailingComma,
    /// `'single-quoted'` strings or keys turned into `"double-quoted"`.
    SingleQuotes,
    /// `“curly”` or `‘curly’` quoted strings or keys turned into `"double-quoted"`.
    SmartQuotes,
    /// `{key: 1}` became `{"key": 1}`.
    UnquotedKey,
    /// `// line` and `/* block */` comments removed.
    Comment,
    /// `True`/`False`/`None` became `true`/`false`/`null`.
    PythonLiteral,
    /// Comma inserted between two elements or members.
    MissingComma,
    /// Raw control characters (U+0000..U+001F) inside strings escaped.
    ControlCharacter,
    /// A backslash that starts no valid JSON escape escaped itself (`\x` -> `\\x`).
    InvalidEscape,
    /// A string still open at end of input closed.
    UnclosedString,
    /// Containers open at end of input closed; a member cut after its key or `:` got `null`.
    UnclosedBracket,
}

impl Fix {
    /// Every fix kind, in declaration order.
    #[cfg(test)]
    const ALL: [Fix; 13] = [
        Fix::CodeFence,
        Fix::SurroundingProse,
        Fix::TrailingComma,
        Fix::SingleQuotes,
        Fix::SmartQuotes,
        Fix::UnquotedKey,
        Fix::Comment,
        Fix::PythonLiteral,
        Fix::MissingComma,
        Fix::ControlCharacter,
        Fix::InvalidEscape,
        Fix::UnclosedString,
        Fix::UnclosedBracket,
    ];

    /// The kebab-case name, identical to the serde serialisation.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Fix::CodeFence => "code-fence",
            Fix::SurroundingProse => "surrounding-prose",
            Fix::TrailingComma => "trailing-comma",
            Fix::SingleQuotes => "single-quotes",
            Fix::SmartQuotes => "smart-quotes",
            Fix::UnquotedKey => "unquoted-key",
            Fix::Comment => "comment",
            Fix::PythonLiteral => "python-literal",
            Fix::MissingComma => "missing-comma",
            Fix::ControlCharacter => "control-character",
            Fix::InvalidEscape => "invalid-escape",
            Fix::UnclosedString => "unclosed-string",
            Fix::UnclosedBracket => "unclosed-bracket",
        }
    }

    /// A distinct bit per kind, so [`FixList`] can deduplicate without searching.
    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// Strict JSON text and the kinds of fix that produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    /// Text that `serde_json::from_str::<serde_json::Value>` accepts.
    pub text: String,
    /// Each kind of fix at most once, in the order it was first applied.
    pub fixes: Vec<Fix>,
}

/// Maximum nesting depth the scanner follows (serde_json's own strict limit
/// is 128); deeper input -> None.
///
/// serde_json rejects the 128th nested container, so the scanner gives up at
/// the same level: a repair can never produce nesting the strict parser
/// refuses, and an inner candidate of a too-deep value is never offered
/// instead.
pub const MAX_DEPTH: usize = 128;

/// How many `{`/`[` starting points are tried before giving up; bounds the
/// work on prose full of brackets to a constant number of linear passes.
const MAX_CANDIDATES: usize = 8;

/// Returns None when the text holds nothing JSON-like or cannot be repaired
/// into strict JSON.
#[must_use]
pub fn repair_json(text: &str) -> Option<Repaired> {
    if is_strict_json(text) {
        return Some(Repaired {
            text: text.to_owned(),
            fixes: Vec::new(),
        });
    }
    if let Some(fence) = find_fence(text) {
        match repair_fenced(text, &fence) {
            Attempt::Found(r) => return Some(r),
            Attempt::Fatal => return None,
            // The fence may have held something else (an example, a shell
            // command); the JSON can still be elsewhere in the reply.
            Attempt::NotFound => {}
        }
    }
    match repair_region(text, &FixList::default()) {
        Attempt::Found(r) => Some(r),
        Attempt::Fatal | Attempt::NotFound => None,
    }
}

/// Outcome of looking for a value in one region of the text.
enum Attempt {
    Found(Repaired),
    /// Nothing repairable here; another region may still hold the value.
    NotFound,
    /// Input the scanner refuses outright (too deep): stop everything.
    Fatal,
}

// ---------------------------------------------------------------------------
// Strict check
// ---------------------------------------------------------------------------

/// True when `text` is strict JSON by serde_json's rules.
///
/// `serde::de::IgnoredAny` would be cheaper but is laxer than `Value`: it
/// skips the depth limit, number overflow (`1e400`) and lone surrogates
/// (`"\uD800"`), so "unchanged" output could fail to parse as a `Value`. This
/// visitor walks the same `deserialize_any` path as `Value` without
/// allocating a tree.
fn is_strict_json(text: &str) -> bool {
    serde_json::from_str::<StrictJson>(text).is_ok()
}

struct StrictJson;

impl<'de> Deserialize<'de> for StrictJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = StrictJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_unit<E: de::Error>(self) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_none<E: de::Error>(self) -> Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrictJson, A::Error> {
        while seq.next_element::<StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrictJson, A::Error> {
        while map.next_entry::<StrictJson, StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
}

// ---------------------------------------------------------------------------
// Regions: code fence, candidates, prose
// ---------------------------------------------------------------------------

/// Byte ranges of a Markdown code fence: `start..end` is the fenced content.
struct Fence {
    start: usize,
    end: usize,
    /// Non-blank text before the opening or after the closing fence.
    prose_outside: bool,
}

/// Finds a code fence that opens before the first `{`/`[` (backticks later on
/// are more likely inside a JSON string than a fence around the value).
fn find_fence(text: &str) -> Option<Fence> {
    let bytes = text.as_bytes();
    let open = text.find("```")?;
    let first_bracket = bytes
        .iter()
        .position(|&c| c == b'{' || c == b'[')
        .unwrap_or(bytes.len());
    if open > first_bracket {
        return None;
    }
    // Skip the backticks (a fence may use more than three) and the language tag.
    let mut start = open;
    while bytes.get(start) == Some(&b'`') {
        start += 1;
    }
    while matches!(bytes.get(start), Some(b' ' | b'\t')) {
        start += 1;
    }
    while bytes
        .get(start)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'.'))
    {
        start += 1;
    }
    let (end, after) = match find_closing_fence(text, start) {
        Some(close) => {
            let mut after = close;
            while bytes.get(after) == Some(&b'`') {
                after += 1;
            }
            (close, after)
        }
        None => (bytes.len(), bytes.len()),
    };
    let before_blank = text.get(..open).is_some_and(|t| t.trim().is_empty());
    let after_blank = text.get(after..).is_some_and(|t| t.trim().is_empty());
    Some(Fence {
        start,
        end,
        prose_outside: !(before_blank && after_blank),
    })
}

/// The first closing fence from `from` on: three backticks that start their
/// line or end it (a fence glued to the value's last brace). Backticks
/// elsewhere are content, e.g. inside a JSON string.
fn find_closing_fence(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut search = from;
    while let Some(rel) = text.get(search..).and_then(|t| t.find("```")) {
        let at = search + rel;
        let mut back = at;
        while back > from && matches!(bytes.get(back - 1), Some(b' ' | b'\t')) {
            back -= 1;
        }
        let starts_line = back == from || matches!(bytes.get(back - 1), Some(b'\n' | b'\r'));
        let mut fwd = at;
        while bytes.get(fwd) == Some(&b'`') {
            fwd += 1;
        }
        while matches!(bytes.get(fwd), Some(b' ' | b'\t')) {
            fwd += 1;
        }
        let ends_line = matches!(bytes.get(fwd), None | Some(b'\n' | b'\r'));
        if starts_line || ends_line {
            return Some(at);
        }
        search = fwd;
    }
    None
}

fn repair_fenced(text: &str, fence: &Fence) -> Attempt {
    let Some(inner) = text.get(fence.start..fence.end) else {
        return Attempt::NotFound;
    };
    let mut base = FixList::default();
    base.add(Fix::CodeFence);
    if fence.prose_outside {
        base.add(Fix::SurroundingProse);
    }
    // Fenced strict JSON, scalars included, needs nothing else.
    let trimmed = inner.trim_matches(is_json_ws_char);
    if is_strict_json(trimmed) {
        return Attempt::Found(Repaired {
            text: trimmed.to_owned(),
            fixes: base.into_vec(),
        });
    }
    repair_region(inner, &base)
}

/// Tries up to `MAX_CANDIDATES` `{`/`[` starting points in `region`;
/// `base` holds the fixes already made around it (fence, outer prose).
fn repair_region(region: &str, base: &FixList) -> Attempt {
    let bytes = region.as_bytes();
    let mut scanner = Scanner::new(region);
    let mut from = 0;
    for _ in 0..MAX_CANDIDATES {
        let Some(start) = find_open(bytes, from) else {
            return Attempt::NotFound;
        };
        let mut fixes = base.clone();
        if let Some(fix) = bytes.get(..start).and_then(outside_fix) {
            fixes.add(fix);
        }
        scanner.reset(start, fixes);
        match scanner.scan() {
            Ok(end) => {
                if let Some(fix) = bytes.get(end..).and_then(outside_fix) {
                    scanner.fixes.add(fix);
                }
                if is_strict_json(&scanner.out) {
                    return Attempt::Found(scanner.finish());
                }
                from = end;
            }
            Err(ScanError::TooDeep) => return Attempt::Fatal,
            Err(ScanError::Invalid(at)) => {
                // Skip the rest of the failed candidate so its inner values
                // are not offered as the answer (`{"a": x, "b": [1]}` must
                // not become `[1]`); if it never closes, go on from the
                // point of failure.
                from = skip_balanced(bytes, at, scanner.stack.len()).unwrap_or(at.max(start + 1));
            }
        }
    }
    Attempt::NotFound
}

/// What dropping `text` (outside the value) counts as: nothing for blanks,
/// [`Fix::Comment`] when it holds only blanks and comments, else prose.
fn outside_fix(text: &[u8]) -> Option<Fix> {
    let mut pos = 0;
    let mut comment = false;
    while let Some(&c) = text.get(pos) {
        if is_json_ws(c) {
            pos += 1;
            continue;
        }
        match (c, text.get(pos + 1)) {
            (b'/', Some(b'/')) => {
                while text.get(pos).is_some_and(|&c| c != b'\n') {
                    pos += 1;
                }
            }
            (b'/', Some(b'*')) => {
                pos += 2;
                while pos < text.len() && text.get(pos..pos + 2) != Some(b"*/") {
                    pos += 1;
                }
                pos += 2;
            }
            _ => return Some(Fix::SurroundingProse),
        }
        comment = true;
    }
    comment.then_some(Fix::Comment)
}

fn find_open(bytes: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&c| c == b'{' || c == b'[')
        .map(|p| p + from)
}

/// From `pos`, with `depth` containers open, the position just after they all
/// close, counting brackets outside double-quoted strings. None if they never do.
fn skip_balanced(bytes: &[u8], mut pos: usize, mut depth: usize) -> Option<usize> {
    if depth == 0 {
        return Some(pos);
    }
    let mut in_string = false;
    while let Some(&c) = bytes.get(pos) {
        pos += 1;
        if in_string {
            match c {
                b'\\' => pos += 1,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(pos);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_json_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_json_ws_char(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

// ---------------------------------------------------------------------------
// Fix bookkeeping
// ---------------------------------------------------------------------------

/// Fix kinds in first-applied order, each at most once.
#[derive(Clone, Default)]
struct FixList {
    seen: u16,
    order: Vec<Fix>,
}

impl FixList {
    fn add(&mut self, fix: Fix) {
        if self.seen & fix.bit() == 0 {
            self.seen |= fix.bit();
            self.order.push(fix);
        }
    }

    fn into_vec(self) -> Vec<Fix> {
        self.order
    }
}

// ---------------------------------------------------------------------------
// Scanner
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Container {
    Object,
    Array,
}

/// What the innermost open container expects next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Just after `[`: a value or `]`.
    ValueOrClose,
    /// Just after `{`: a key or `}`.
    KeyOrClose,
    /// After a key: `:`.
    Colon,
    /// After `:`: the member's value.
    MemberValue,
    /// After a value or member: `,` or the closer.
    CommaOrClose,
    /// After a comma (already written to the output): a value or key.
    AfterComma,
}

#[derive(Debug)]
enum ScanError {
    /// Not repairable from here; the byte offset where scanning stopped.
    Invalid(usize),
    /// Nesting beyond [`MAX_DEPTH`].
    TooDeep,
}

/// The four ways a string can be quoted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    Double,
    Single,
    /// “…” (U+201C/U+201D).
    SmartDouble,
    /// ‘…’ (U+2018/U+2019).
    SmartSingle,
}

/// U+2018..U+201D are encoded `E2 80 98`..`E2 80 9D`; the third byte tells which.
const SMART_LEFT_SINGLE: u8 = 0x98;
const SMART_RIGHT_SINGLE: u8 = 0x99;
const SMART_LEFT_DOUBLE: u8 = 0x9C;
const SMART_RIGHT_DOUBLE: u8 = 0x9D;

/// The smart quote starting at `pos`, if any, as the third byte of its encoding.
fn smart_quote_at(bytes: &[u8], pos: usize) -> Option<u8> {
    match (bytes.get(pos), bytes.get(pos + 1), bytes.get(pos + 2)) {
        (Some(0xE2), Some(0x80), Some(&c))
            if matches!(
                c,
                SMART_LEFT_SINGLE | SMART_RIGHT_SINGLE | SMART_LEFT_DOUBLE | SMART_RIGHT_DOUBLE
            ) =>
        {
            Some(c)
        }
        _ => None,
    }
}

/// Bytes inside a string that need a look: quotes, backslash, control
/// characters, and 0xE2, the lead byte of the smart quotes.
fn is_string_special(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'\'' | 0xE2 | 0x00..=0x1F)
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-')
}

struct Scanner<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: String,
    fixes: FixList,
    stack: Vec<Container>,
    state: State,
    /// Output offset just after the last complete value, where a missing
    /// comma belongs (before any whitespace that followed it).
    value_end: usize,
    /// Output offset of the last comma written, to take back a trailing one.
    comma_at: usize,
}

type Scan<T> = Result<T, ScanError>;

impl<'a> Scanner<'a> {
    fn new(src: &'a str) -> Self {
        Scanner {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            // Room for the usual growth (quotes around keys, escapes) without
            // a regrow.
            out: String::with_capacity(src.len() + src.len() / 8 + 16),
            fixes: FixList::default(),
            stack: Vec::new(),
            state: State::ValueOrClose,
            value_end: 0,
            comma_at: 0,
        }
    }

    /// Prepares a scan from `start`, keeping the buffers' capacity.
    fn reset(&mut self, start: usize, fixes: FixList) {
        self.pos = start;
        self.out.clear();
        self.fixes = fixes;
        self.stack.clear();
        self.state = State::ValueOrClose;
        self.value_end = 0;
        self.comma_at = 0;
    }

    fn finish(self) -> Repaired {
        Repaired {
            text: self.out,
            fixes: self.fixes.into_vec(),
        }
    }

    /// Scans one value starting at the `{` or `[` at `self.pos`; returns the
    /// input offset just after it (or the end of input, where it is closed).
    fn scan(&mut self) -> Scan<usize> {
        self.open_container()?;
        loop {
            self.skip_blank();
            let Some(&c) = self.bytes.get(self.pos) else {
                self.close_at_end();
                return Ok(self.pos);
            };
            match self.state {
                State::ValueOrClose => match c {
                    b']' => self.close(Container::Array)?,
                    b',' => self.drop_comma(),
                    _ => self.value()?,
                },
                State::KeyOrClose => match c {
                    b'}' => self.close(Container::Object)?,
                    b',' => self.drop_comma(),
                    _ => self.key()?,
                },
                State::Colon => {
                    if c != b':' {
                        return Err(self.invalid());
                    }
                    self.out.push(':');
                    self.pos += 1;
                    self.state = State::MemberValue;
                }
                State::MemberValue => self.value()?,
                State::CommaOrClose => match c {
                    b',' => {
                        self.comma_at = self.out.len();
                        self.out.push(',');
                        self.pos += 1;
                        self.state = State::AfterComma;
                    }
                    b'}' | b']' => self.close(Self::closer_kind(c))?,
                    _ => {
                        // Only something that can start the next element
                        // earns a comma; anything else is an error.
                        if !self.starts_element(c) {
                            return Err(self.invalid());
                        }
                        self.insert_missing_comma()?;
                        self.element()?;
                    }
                },
                State::AfterComma => match c {
                    b',' => self.drop_comma(),
                    b'}' | b']' => {
                        self.take_back_comma();
                        self.close(Self::closer_kind(c))?;
                    }
                    _ => self.element()?,
                },
            }
            if self.stack.is_empty() {
                return Ok(self.pos);
            }
        }
    }

    fn invalid(&self) -> ScanError {
        ScanError::Invalid(self.pos)
    }

    fn closer_kind(c: u8) -> Container {
        if c == b'}' {
            Container::Object
        } else {
            Container::Array
        }
    }

    /// A key in an object, a value in an array.
    fn element(&mut self) -> Scan<()> {
        match self.stack.last() {
            Some(Container::Object) => self.key(),
            _ => self.value(),
        }
    }

    /// Whether `c` can begin the next element of the innermost container.
    fn starts_element(&self, c: u8) -> bool {
        let quote_or_word = matches!(c, b'"' | b'\'') || is_ident_byte(c) || c >= 0x80;
        match self.stack.last() {
            Some(Container::Object) => quote_or_word,
            _ => quote_or_word || matches!(c, b'{' | b'['),
        }
    }

    fn insert_missing_comma(&mut self) -> Scan<()> {
        if !self.out.is_char_boundary(self.value_end) {
            return Err(self.invalid());
        }
        self.out.insert(self.value_end, ',');
        self.fixes.add(Fix::MissingComma);
        self.state = State::AfterComma;
        Ok(())
    }

    /// A comma where none may stand (leading or doubled): not written.
    fn drop_comma(&mut self) {
        self.fixes.add(Fix::TrailingComma);
        self.pos += 1;
    }

    /// Removes the comma written last; only blanks were written after it.
    /// Blanks on the comma's own line go with it (`[1, ]` -> `[1]`); a line
    /// break is kept so pretty-printed input keeps its closer on its own line.
    fn take_back_comma(&mut self) {
        let bytes = self.out.as_bytes();
        if bytes.get(self.comma_at) == Some(&b',') {
            let same_line = bytes
                .get(self.comma_at + 1..)
                .is_some_and(|rest| rest.iter().all(|&c| c == b' ' || c == b'\t'));
            if same_line {
                self.out.truncate(self.comma_at);
            } else {
                self.out.remove(self.comma_at);
            }
        }
        self.fixes.add(Fix::TrailingComma);
    }

    /// Copies JSON whitespace and drops comments, up to the next token.
    fn skip_blank(&mut self) {
        loop {
            let start = self.pos;
            let out_start = self.out.len();
            while self.bytes.get(self.pos).is_some_and(|&c| is_json_ws(c)) {
                self.pos += 1;
            }
            if let Some(blank) = self.src.get(start..self.pos) {
                self.out.push_str(blank);
            }
            if self.bytes.get(self.pos) != Some(&b'/') {
                return;
            }
            // Spaces that only led up to a comment would dangle at the end of
            // the line once it is gone.
            let kept = self.out.trim_end_matches([' ', '\t']).len().max(out_start);
            match self.bytes.get(self.pos + 1) {
                Some(b'/') => {
                    // The line break itself stays: it may separate two values.
                    while self.bytes.get(self.pos).is_some_and(|&c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                Some(b'*') => {
                    self.pos += 2;
                    loop {
                        match self.bytes.get(self.pos) {
                            None => break,
                            Some(b'*') if self.bytes.get(self.pos + 1) == Some(&b'/') => {
                                self.pos += 2;
                                break;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                }
                _ => return,
            }
            self.out.truncate(kept);
            self.fixes.add(Fix::Comment);
        }
    }

    fn open_container(&mut self) -> Scan<()> {
        // serde_json rejects the 128th level; stop at the same point.
        if self.stack.len() + 1 >= MAX_DEPTH {
            return Err(ScanError::TooDeep);
        }
        let (kind, state, ch) = match self.bytes.get(self.pos) {
            Some(b'{') => (Container::Object, State::KeyOrClose, '{'),
            Some(b'[') => (Container::Array, State::ValueOrClose, '['),
            _ => return Err(self.invalid()),
        };
        self.stack.push(kind);
        self.state = state;
        self.out.push(ch);
        self.pos += 1;
        Ok(())
    }

    /// Closes the innermost container with the closer at `self.pos`.
    fn close(&mut self, kind: Container) -> Scan<()> {
        if self.stack.last() != Some(&kind) {
            return Err(self.invalid());
        }
        self.stack.pop();
        self.out.push(match kind {
            Container::Object => '}',
            Container::Array => ']',
        });
        self.pos += 1;
        self.value_done();
        Ok(())
    }

    /// After a complete value: the parent now wants a comma or its closer.
    fn value_done(&mut self) {
        self.value_end = self.out.len();
        self.state = State::CommaOrClose;
    }

    /// End of input: finish the member in progress, drop a dangling comma,
    /// close every open container innermost first.
    fn close_at_end(&mut self) {
        let trimmed = self.out.trim_end_matches(is_json_ws_char).len();
        match self.state {
            State::Colon => {
                self.out.truncate(trimmed);
                self.out.push_str(":null");
            }
            State::MemberValue => {
                self.out.truncate(trimmed);
                self.out.push_str("null");
            }
            State::AfterComma => {
                self.out.truncate(trimmed);
                self.take_back_comma();
            }
            State::ValueOrClose | State::KeyOrClose | State::CommaOrClose => {
                self.out.truncate(trimmed);
            }
        }
        while let Some(kind) = self.stack.pop() {
            self.out.push(match kind {
                Container::Object => '}',
                Container::Array => ']',
            });
        }
        self.fixes.add(Fix::UnclosedBracket);
    }

    /// A value at `self.pos` (array element or member value).
    fn value(&mut self) -> Scan<()> {
        let Some(&c) = self.bytes.get(self.pos) else {
            return Err(self.invalid());
        };
        match c {
            b'{' | b'[' => self.open_container(),
            b'"' => self.string(Quote::Double).map(|()| self.value_done()),
            b'\'' => self.string(Quote::Single).map(|()| self.value_done()),
            b'-' | b'0'..=b'9' => {
                self.number();
                self.value_done();
                Ok(())
            }
            _ => {
                if let Some(quote) = self.smart_opener() {
                    return self.string(quote).map(|()| self.value_done());
                }
                self.literal()
            }
        }
    }

    /// A key at `self.pos`; leaves the scanner expecting `:`.
    fn key(&mut self) -> Scan<()> {
        let Some(&c) = self.bytes.get(self.pos) else {
            return Err(self.invalid());
        };
        match c {
            b'"' => self.string(Quote::Double)?,
            b'\'' => self.string(Quote::Single)?,
            _ => {
                if let Some(quote) = self.smart_opener() {
                    self.string(quote)?;
                } else {
                    let word = self.word();
                    if word.is_empty() {
                        return Err(self.invalid());
                    }
                    self.out.push('"');
                    self.out.push_str(word);
                    self.out.push('"');
                    self.fixes.add(Fix::UnquotedKey);
                }
            }
        }
        self.state = State::Colon;
        Ok(())
    }

    fn smart_opener(&self) -> Option<Quote> {
        match smart_quote_at(self.bytes, self.pos)? {
            SMART_LEFT_SINGLE | SMART_RIGHT_SINGLE => Some(Quote::SmartSingle),
            _ => Some(Quote::SmartDouble),
        }
    }

    /// An identifier-like run at `self.pos` (ASCII `[A-Za-z0-9_$-]` and
    /// non-ASCII letters or digits); empty if none starts here.
    fn word(&mut self) -> &'a str {
        let start = self.pos;
        loop {
            match self.bytes.get(self.pos) {
                Some(&c) if is_ident_byte(c) => self.pos += 1,
                Some(&c) if c >= 0x80 => {
                    let ch = self
                        .src
                        .get(self.pos..)
                        .and_then(|rest| rest.chars().next());
                    match ch {
                        Some(ch) if ch.is_alphanumeric() => self.pos += ch.len_utf8(),
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        self.src.get(start..self.pos).unwrap_or("")
    }

    /// `true`/`false`/`null`, or their Python spellings; any other bare word
    /// is an error rather than a guess.
    fn literal(&mut self) -> Scan<()> {
        let start = self.pos;
        let (json, python) = match self.word() {
            "true" => ("true", false),
            "false" => ("false", false),
            "null" => ("null", false),
            "True" => ("true", true),
            "False" => ("false", true),
            "None" => ("null", true),
            _ => return Err(ScanError::Invalid(start)),
        };
        self.out.push_str(json);
        if python {
            self.fixes.add(Fix::PythonLiteral);
        }
        self.value_done();
        Ok(())
    }

    /// Copies a number-like run verbatim; the strict check judges it.
    fn number(&mut self) {
        let start = self.pos;
        self.pos += 1;
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|&c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            self.pos += 1;
        }
        if let Some(run) = self.src.get(start..self.pos) {
            self.out.push_str(run);
        }
    }

    /// A string whose opening quote is at `self.pos`, written double-quoted.
    fn string(&mut self, quote: Quote) -> Scan<()> {
        match quote {
            Quote::Double => {}
            Quote::Single => self.fixes.add(Fix::SingleQuotes),
            Quote::SmartDouble | Quote::SmartSingle => self.fixes.add(Fix::SmartQuotes),
        }
        self.pos += if quote == Quote::Double || quote == Quote::Single {
            1
        } else {
            3
        };
        self.out.push('"');
        let mut run = self.pos;
        loop {
            // Plain content is the bulk of most strings: skip it in a tight
            // loop on locals and copy it as one run.
            let bytes = self.bytes;
            let mut pos = self.pos;
            while bytes.get(pos).is_some_and(|&c| !is_string_special(c)) {
                pos += 1;
            }
            self.pos = pos;
            let Some(&c) = self.bytes.get(self.pos) else {
                self.flush(run)?;
                self.out.push('"');
                self.fixes.add(Fix::UnclosedString);
                return Ok(());
            };
            match c {
                b'"' if quote == Quote::Double => {
                    self.flush(run)?;
                    self.out.push('"');
                    self.pos += 1;
                    return Ok(());
                }
                b'"' => {
                    self.flush(run)?;
                    self.out.push_str("\\\"");
                    self.pos += 1;
                    run = self.pos;
                }
                b'\\' => {
                    self.flush(run)?;
                    self.escape(quote);
                    run = self.pos;
                }
                0x00..=0x1F => {
                    self.flush(run)?;
                    self.control_character(c);
                    self.pos += 1;
                    run = self.pos;
                }
                b'\'' if quote == Quote::Single && self.closes_at(self.pos + 1) => {
                    self.flush(run)?;
                    self.out.push('"');
                    self.pos += 1;
                    return Ok(());
                }
                0xE2 if matches!(quote, Quote::SmartDouble | Quote::SmartSingle) => {
                    let closer = matches!(
                        (quote, smart_quote_at(self.bytes, self.pos)),
                        (
                            Quote::SmartDouble,
                            Some(SMART_LEFT_DOUBLE | SMART_RIGHT_DOUBLE)
                        ) | (
                            Quote::SmartSingle,
                            Some(SMART_LEFT_SINGLE | SMART_RIGHT_SINGLE)
                        )
                    );
                    if closer && self.closes_at(self.pos + 3) {
                        self.flush(run)?;
                        self.out.push('"');
                        self.pos += 3;
                        return Ok(());
                    }
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Writes the content run `run..self.pos` unchanged. Both ends sit on an
    /// ASCII byte, a smart quote's lead byte or the end, so on char boundaries.
    fn flush(&mut self, run: usize) -> Scan<()> {
        match self.src.get(run..self.pos) {
            Some(content) => {
                self.out.push_str(content);
                Ok(())
            }
            None => Err(self.invalid()),
        }
    }

    /// Whether a non-standard closing quote followed by `from` ends its
    /// string: it does before `,` `}` `]` `:`, a comment, a line break or the
    /// end; otherwise it is an apostrophe (`it's`, `dogs' bowls`).
    fn closes_at(&self, from: usize) -> bool {
        let mut pos = from;
        loop {
            match self.bytes.get(pos) {
                None | Some(b',' | b'}' | b']' | b':' | b'\n' | b'\r') => return true,
                Some(b' ' | b'\t') => pos += 1,
                Some(b'/') => return matches!(self.bytes.get(pos + 1), Some(b'/' | b'*')),
                Some(_) => return false,
            }
        }
    }

    /// A backslash at `self.pos` inside a string.
    fn escape(&mut self, quote: Quote) {
        let next = self.bytes.get(self.pos + 1).copied();
        match next {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.out.push('\\');
                if let Some(n) = next {
                    self.out.push(char::from(n));
                }
                self.pos += 2;
            }
            Some(b'u') if self.hex4_at(self.pos + 2) => {
                if let Some(esc) = self.src.get(self.pos..self.pos + 6) {
                    self.out.push_str(esc);
                }
                self.pos += 6;
            }
            Some(b'\'') if quote == Quote::Single => {
                self.out.push('\'');
                self.pos += 2;
            }
            _ => {
                // The character after the backslash is then read as content.
                self.out.push_str("\\\\");
                self.pos += 1;
                self.fixes.add(Fix::InvalidEscape);
            }
        }
    }

    fn hex4_at(&self, pos: usize) -> bool {
        self.bytes
            .get(pos..pos + 4)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    }

    fn control_character(&mut self, c: u8) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        match c {
            b'\n' => self.out.push_str("\\n"),
            b'\t' => self.out.push_str("\\t"),
            b'\r' => self.out.push_str("\\r"),
            0x08 => self.out.push_str("\\b"),
            0x0C => self.out.push_str("\\f"),
            _ => {
                self.out.push_str("\\u00");
                for nibble in [c >> 4, c & 0x0F] {
                    if let Some(&h) = HEX.get(usize::from(nibble)) {
                        self.out.push(char::from(h));
                    }
                }
            }
        }
        self.fixes.add(Fix::ControlCharacter);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Repairs `input` and checks the exact text and fixes.
    #[track_caller]
    fn check(input: &str, text: &str, fixes: &[Fix]) {
        let got = repair_json(input);
        assert_eq!(
            got,
            Some(Repaired {
                text: text.to_owned(),
                fixes: fixes.to_vec()
            }),
            "input: {input:?}"
        );
        assert!(serde_json::from_str::<Value>(text).is_ok(), "{text:?}");
    }

    #[track_caller]
    fn unchanged(input: &str) {
        check(input, input, &[]);
    }

    #[track_caller]
    fn none(input: &str) {
        assert_eq!(repair_json(input), None, "input: {input:?}");
    }

    use Fix::*;

    #[test]
    fn valid_json_is_returned_byte_identical() {
        for input in [
            "{}",
            "[]",
            "\"asd\"",
            "42",
            "-0.5e+3",
            "null",
            "true",
            "  {\"a\" : [1, 2.5, \"x\"]}\n\n",
            "\t[\"it's\", \"“smart”\", \"http://x//y\", \"\\u00e9\\ud83d\\ude00\"]\r\n",
            "{\"a\":{\"b\":{\"c\":[[[]]]}}}",
            " \"\" ",
        ] {
            unchanged(input);
        }
        // Deep but within serde_json's limit.
        unchanged(&format!("{}{}", "[".repeat(127), "]".repeat(127)));
    }

    #[test]
    fn code_fence() {
        check("```json\n{\"a\": 1}\n```", "{\"a\": 1}", &[CodeFence]);
        check("```\n[1, 2]\n```\n", "[1, 2]", &[CodeFence]);
        check("```JSON\n{\"a\": 1}", "{\"a\": 1}", &[CodeFence]);
        check(
            "``` json\n{\"a\": 1,}\n```",
            "{\"a\": 1}",
            &[CodeFence, TrailingComma],
        );
        check("````json\n[1]\n````", "[1]", &[CodeFence]);
        check("```json {\"a\": 1}```", "{\"a\": 1}", &[CodeFence]);
        check(
            "```json\n\"just a string\"\n```",
            "\"just a string\"",
            &[CodeFence],
        );
        check(
            "```json\n{\"a\": 1,}\n```",
            "{\"a\": 1}",
            &[CodeFence, TrailingComma],
        );
        // A fence inside a string of the value is content, not a fence.
        check(
            "{\"md\": \"```py\\nx\\n```\",}",
            "{\"md\": \"```py\\nx\\n```\"}",
            &[TrailingComma],
        );
        // A closing fence must start or end a line; ``` mid-line is content.
        check(
            "```json\n{\"md\": \"a ``` b\"}\n```",
            "{\"md\": \"a ``` b\"}",
            &[CodeFence],
        );
    }

    #[test]
    fn fence_without_json_falls_back_to_the_rest() {
        check(
            "```sh\nls -la\n```\n{\"a\": 1}",
            "{\"a\": 1}",
            &[SurroundingProse],
        );
    }

    #[test]
    fn surrounding_prose() {
        check(
            "Sure! Here it is: {\"a\": 1} Hope that helps.",
            "{\"a\": 1}",
            &[SurroundingProse],
        );
        check("Result:\n[1, 2]", "[1, 2]", &[SurroundingProse]);
        check("{\"a\": 1}\n{\"b\": 2}", "{\"a\": 1}", &[SurroundingProse]);
        check(
            "Text first.\n```json\n{\"a\": 1}\n```\nText after.",
            "{\"a\": 1}",
            &[CodeFence, SurroundingProse],
        );
    }

    #[test]
    fn later_candidates_are_tried() {
        check(
            "Use {curly} braces: {\"a\":1}",
            "{\"a\":1}",
            &[SurroundingProse],
        );
        check(
            "See [citation needed] then {\"a\": [1]}",
            "{\"a\": [1]}",
            &[SurroundingProse],
        );
        // A failed candidate's own inner values are not offered instead.
        none("{\"a\": hello, \"b\": [1]}");
        // Bounded: the ninth candidate is never looked at.
        none(&format!("{} {{\"a\": 1}}", "{x} ".repeat(MAX_CANDIDATES)));
        check(
            &format!("{} {{\"a\": 1}}", "{x} ".repeat(MAX_CANDIDATES - 1)),
            "{\"a\": 1}",
            &[SurroundingProse],
        );
    }

    #[test]
    fn trailing_comma() {
        check("[1,2,]", "[1,2]", &[TrailingComma]);
        check("{\"a\":1,}", "{\"a\":1}", &[TrailingComma]);
        check("[1,,2]", "[1,2]", &[TrailingComma]);
        check("[,1]", "[1]", &[TrailingComma]);
        check("{,\"a\":1}", "{\"a\":1}", &[TrailingComma]);
        check("{\"a\": \"it's\", }", "{\"a\": \"it's\"}", &[TrailingComma]);
        check("[\n  1,\n  2,\n]", "[\n  1,\n  2\n]", &[TrailingComma]);
        check(
            "{\"a\": [1, 2,], \"b\": {\"c\": 3,},}",
            "{\"a\": [1, 2], \"b\": {\"c\": 3}}",
            &[TrailingComma],
        );
    }

    #[test]
    fn single_quotes() {
        check("{'a': 'b'}", "{\"a\": \"b\"}", &[SingleQuotes]);
        check(
            "{'text': 'it's fine'}",
            "{\"text\": \"it's fine\"}",
            &[SingleQuotes],
        );
        check(
            "{'a': 'say \"hi\"', 'b': 'x\\'y'}",
            "{\"a\": \"say \\\"hi\\\"\", \"b\": \"x'y\"}",
            &[SingleQuotes],
        );
        check(
            "['the dogs' bowls']",
            "[\"the dogs' bowls\"]",
            &[SingleQuotes],
        );
        check("['a', 'b']", "[\"a\", \"b\"]", &[SingleQuotes]);
        check(
            "{'a': 'open",
            "{\"a\": \"open\"}",
            &[SingleQuotes, UnclosedString, UnclosedBracket],
        );
    }

    #[test]
    fn apostrophes_in_double_quoted_strings_are_content() {
        check(
            "{\"a\": \"it's\", \"b\": 'rock 'n' roll',}",
            "{\"a\": \"it's\", \"b\": \"rock 'n' roll\"}",
            &[SingleQuotes, TrailingComma],
        );
        check("[\"'\", \"''\",]", "[\"'\", \"''\"]", &[TrailingComma]);
    }

    #[test]
    fn smart_quotes() {
        check("{“a”: “b”}", "{\"a\": \"b\"}", &[SmartQuotes]);
        check("{‘a’: ‘it’s’}", "{\"a\": \"it’s\"}", &[SmartQuotes]);
        check("[“say \"x\"”]", "[\"say \\\"x\\\"\"]", &[SmartQuotes]);
        // Inside a normal string they are content.
        check(
            "{\"a\": \"“x” ‘y’\",}",
            "{\"a\": \"“x” ‘y’\"}",
            &[TrailingComma],
        );
    }

    #[test]
    fn unquoted_key() {
        check("{key: 1}", "{\"key\": 1}", &[UnquotedKey]);
        check(
            "{a_b: 1, $c: 2, d-e: 3, ключ: 4, x1: 5}",
            "{\"a_b\": 1, \"$c\": 2, \"d-e\": 3, \"ключ\": 4, \"x1\": 5}",
            &[UnquotedKey],
        );
    }

    #[test]
    fn comments() {
        check("{\"a\":1 // c\n}", "{\"a\":1\n}", &[Comment]);
        check("{/* x */\"a\":1}", "{\"a\":1}", &[Comment]);
        check(
            "{\"url\": \"http://x.com//y\", /* not // here */ \"b\": 2}",
            "{\"url\": \"http://x.com//y\", \"b\": 2}",
            &[Comment],
        );
        check(
            "[1, /* cut",
            "[1]",
            &[Comment, TrailingComma, UnclosedBracket],
        );
        // Comments around the value are comments, not prose.
        check("// result\n{\"a\": 1} /* end */", "{\"a\": 1}", &[Comment]);
        check("{\"a\": 1} /* end */ !", "{\"a\": 1}", &[SurroundingProse]);
        check("// see {x}\n[1,]", "[1]", &[Comment, TrailingComma]);
        none("[1, / 2]");
    }

    #[test]
    fn python_literals() {
        check(
            "[True, False, None, true]",
            "[true, false, null, true]",
            &[PythonLiteral],
        );
        check("{\"None\": None}", "{\"None\": null}", &[PythonLiteral]);
        none("[Truey]");
        none("[TRUE]");
    }

    #[test]
    fn missing_comma() {
        check("[1 2]", "[1, 2]", &[MissingComma]);
        check("{\"a\":1 \"b\":2}", "{\"a\":1, \"b\":2}", &[MissingComma]);
        check(
            "[{\"a\":1} {\"b\":2}]",
            "[{\"a\":1}, {\"b\":2}]",
            &[MissingComma],
        );
        check("[1\n2]", "[1,\n2]", &[MissingComma]);
        check(
            "{\n  \"a\": \"x\"\n  \"b\": [1]\n  c: true\n}",
            "{\n  \"a\": \"x\",\n  \"b\": [1],\n  \"c\": true\n}",
            &[MissingComma, UnquotedKey],
        );
        check(
            "['a'\n'b']",
            "[\"a\",\n\"b\"]",
            &[SingleQuotes, MissingComma],
        );
    }

    #[test]
    fn control_characters() {
        check(
            "[\"a\tb\nc\rd\u{8}e\u{c}f\u{0}g\u{1f}\"]",
            "[\"a\\tb\\nc\\rd\\be\\ff\\u0000g\\u001f\"]",
            &[ControlCharacter],
        );
    }

    #[test]
    fn invalid_escape() {
        check("[\"a\\xb\"]", "[\"a\\\\xb\"]", &[InvalidEscape]);
        check("[\"\\u12\"]", "[\"\\\\u12\"]", &[InvalidEscape]);
        check(
            "[\"C:\\dir\\new\"]",
            "[\"C:\\\\dir\\new\"]",
            &[InvalidEscape],
        );
        // \' is only an escape inside single quotes.
        check("[\"it\\'s\"]", "[\"it\\\\'s\"]", &[InvalidEscape]);
    }

    #[test]
    fn unclosed_string_and_brackets() {
        check(
            "{\"a\": \"abc",
            "{\"a\": \"abc\"}",
            &[UnclosedString, UnclosedBracket],
        );
        check("{\"a\":", "{\"a\":null}", &[UnclosedBracket]);
        check("{\"a\": ", "{\"a\":null}", &[UnclosedBracket]);
        check("{\"a\"", "{\"a\":null}", &[UnclosedBracket]);
        check("{\"ab", "{\"ab\":null}", &[UnclosedString, UnclosedBracket]);
        check(
            "{\"a\": [1, {\"b\": 2",
            "{\"a\": [1, {\"b\": 2}]}",
            &[UnclosedBracket],
        );
        check(
            "{\"a\": 1,\n",
            "{\"a\": 1}",
            &[TrailingComma, UnclosedBracket],
        );
        check(
            "[\"abc\\",
            "[\"abc\\\\\"]",
            &[InvalidEscape, UnclosedString, UnclosedBracket],
        );
    }

    #[test]
    fn lone_openers() {
        check("{", "{}", &[UnclosedBracket]);
        check("[", "[]", &[UnclosedBracket]);
        check("[[{", "[[{}]]", &[UnclosedBracket]);
    }

    #[test]
    fn combination() {
        let reply = "Here is the data you asked for:\n\n```json\n{\n  'name': 'Ada',\n  'langs': ['en', 'fr',],  // spoken\n  'active': True,\n}\n```\n\nLet me know!";
        check(
            reply,
            "{\n  \"name\": \"Ada\",\n  \"langs\": [\"en\", \"fr\"],\n  \"active\": true\n}",
            &[
                CodeFence,
                SurroundingProse,
                SingleQuotes,
                TrailingComma,
                Comment,
                PythonLiteral,
            ],
        );
    }

    #[test]
    fn fixes_are_listed_once_in_first_applied_order() {
        check(
            "{'a': 1, b: 2, 'c': 3,}",
            "{\"a\": 1, \"b\": 2, \"c\": 3}",
            &[SingleQuotes, UnquotedKey, TrailingComma],
        );
        check(
            "{b: 2, 'a': [1,], c: 'x'}",
            "{\"b\": 2, \"a\": [1], \"c\": \"x\"}",
            &[UnquotedKey, SingleQuotes, TrailingComma],
        );
    }

    #[test]
    fn large_adversarial_inputs_stay_linear() {
        // Each would take minutes if some step rescanned quadratically.
        let n = 200_000;
        let apostrophes = format!("['{}", "' x".repeat(n));
        assert!(repair_json(&apostrophes).is_some());
        let missing_commas = format!("[{}]", "1 ".repeat(n));
        assert!(repair_json(&missing_commas).is_some());
        let blank_after_comma = format!("[1,{}]", " ".repeat(n * 10));
        assert!(repair_json(&blank_after_comma).is_some());
        let comments = format!("[1{}]", " /**/".repeat(n));
        assert!(repair_json(&comments).is_some());
        let brackets_in_prose = format!("{}{{\"a\": 1}}", "{x} [y] ".repeat(n));
        assert_eq!(repair_json(&brackets_in_prose), None);
        let fences = format!("```json\n{}", "``` x ".repeat(n));
        assert_eq!(repair_json(&fences), None);
        let smart = format!("[“{}", "” x ".repeat(n));
        assert!(repair_json(&smart).is_some());
    }

    #[test]
    fn none_cases() {
        none("");
        none("   ");
        none("Sorry, I cannot help with that.");
        none("'just a single-quoted string'");
        none("{a: hello}");
        none("[NaN]");
        none("[01]");
        none("[1-2]");
        none("{\"a\" \"b\"}");
        none("{\"a\": }");
        none("[1}");
    }

    #[test]
    fn deep_nesting_returns_none_without_overflow() {
        none(&"[".repeat(100_000));
        none(&"{\"a\":".repeat(100_000));
        none(&format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)));
        none(&format!("x {}", "[".repeat(128)));
        check(
            &"[".repeat(127),
            &format!("{}{}", "[".repeat(127), "]".repeat(127)),
            &[UnclosedBracket],
        );
    }

    #[test]
    fn fix_names() {
        let names: Vec<&str> = Fix::ALL.iter().map(|f| f.as_str()).collect();
        assert_eq!(
            names,
            [
                "code-fence",
                "surrounding-prose",
                "trailing-comma",
                "single-quotes",
                "smart-quotes",
                "unquoted-key",
                "comment",
                "python-literal",
                "missing-comma",
                "control-character",
                "invalid-escape",
                "unclosed-string",
                "unclosed-bracket",
            ]
        );
        for fix in Fix::ALL {
            let json = serde_json::to_string(&fix).ok();
            assert_eq!(json, Some(format!("\"{}\"", fix.as_str())));
            let back: Option<Fix> = serde_json::from_str(&format!("\"{}\"", fix.as_str())).ok();
            assert_eq!(back, Some(fix));
        }
    }

    #[test]
    fn strict_check_matches_value() {
        for input in [
            "1e400",
            "[1e400]",
            "\"\\uD800\"",
            "-0",
            "1E-400",
            "[1,]",
            " 1 ",
            "\"\u{7f}\"",
            "18446744073709551616",
            "-9223372036854775809",
        ] {
            assert_eq!(
                is_strict_json(input),
                serde_json::from_str::<Value>(input).is_ok(),
                "{input:?}"
            );
        }
    }

    #[test]
    fn unicode_everywhere_never_panics() {
        for input in [
            "é{",
            "{é",
            "{\"é",
            "[“",
            "[‘",
            "{“a",
            "[’",
            "[\u{2028}]",
            "{ключ",
            "[😀]",
            "{😀: 1}",
            "[\"\\é\"]",
            "['\\😀']",
            "“",
            "\u{feff}{\"a\":1}",
            "[1,“",
            "{'a\u{e2}",
            "[\u{201c}\u{80}",
        ] {
            if let Some(r) = repair_json(input) {
                assert!(
                    serde_json::from_str::<Value>(&r.text).is_ok(),
                    "{input:?} -> {r:?}"
                );
            }
        }
    }

    // proptest is a native-only dev-dependency.
    #[cfg(not(target_arch = "wasm32"))]
    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Characters that stress the scanner inside strings.
        fn tricky_char() -> impl Strategy<Value = char> {
            prop_oneof![
                3 => any::<char>(),
                3 => prop::sample::select(vec![
                    '"', '\'', '\\', '/', '*', '\n', '\t', '\r', '\u{0}', '\u{8}', '\u{c}', '\u{1f}',
                    '\u{7f}', '“', '”', '‘', '’', '{', '}', '[', ']', ',', ':', '`', 'é', '😀', ' ',
                ]),
                2 => prop::char::range('a', 'z'),
            ]
        }

        fn json_string() -> impl Strategy<Value = String> {
            prop::collection::vec(tricky_char(), 0..12).prop_map(String::from_iter)
        }

        fn json_value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::from),
                any::<u64>().prop_map(Value::from),
                (-1e300f64..1e300).prop_map(Value::from),
                json_string().prop_map(Value::String),
            ];
            leaf.prop_recursive(5, 48, 6, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                    prop::collection::vec((json_string(), inner), 0..6)
                        .prop_map(|members| Value::Object(members.into_iter().collect())),
                ]
            })
        }

        /// JSON-ish fragments, so random text reaches deep scanner states.
        fn jsonish_text() -> impl Strategy<Value = String> {
            let token = prop::sample::select(vec![
                "{",
                "}",
                "[",
                "]",
                "\"",
                "'",
                "“",
                "”",
                "‘",
                "’",
                ":",
                ",",
                "//",
                "/*",
                "*/",
                "\n",
                " ",
                "\\",
                "\\u",
                "\\u00e9",
                "True",
                "None",
                "null",
                "false",
                "1",
                "-",
                "1e5",
                "0.5",
                "abc",
                "it's",
                "```json\n",
                "```",
                "é",
                "\u{0}",
                "😀",
                "key",
            ]);
            prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
        }

        /// Asserts the contract every output must meet.
        fn assert_sound(input: &str) -> Result<(), TestCaseError> {
            if let Some(r) = repair_json(input) {
                prop_assert!(
                    serde_json::from_str::<Value>(&r.text).is_ok(),
                    "not strict: {:?} -> {:?}",
                    input,
                    r.text
                );
                let mut seen = std::collections::HashSet::new();
                prop_assert!(r.fixes.iter().all(|f| seen.insert(*f)), "duplicate fix");
                if r.fixes.is_empty() {
                    prop_assert_eq!(&r.text, input);
                }
            }
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn serialised_values_are_unchanged(value in json_value()) {
                for text in [
                    serde_json::to_string(&value).unwrap_or_default(),
                    serde_json::to_string_pretty(&value).unwrap_or_default(),
                ] {
                    prop_assert_eq!(
                        repair_json(&text),
                        Some(Repaired { text: text.clone(), fixes: vec![] })
                    );
                }
            }

            #[test]
            fn arbitrary_strings_are_sound(input in any::<String>()) {
                assert_sound(&input)?;
            }

            #[test]
            fn jsonish_strings_are_sound(input in jsonish_text()) {
                assert_sound(&input)?;
            }

            #[test]
            fn damaged_values_are_sound(
                value in json_value(),
                cut in any::<prop::sample::Index>(),
                at in any::<prop::sample::Index>(),
                insert in tricky_char(),
            ) {
                let text = serde_json::to_string_pretty(&value).unwrap_or_default();
                let chars: Vec<char> = text.chars().collect();
                // Truncated, as a model cut off by its token limit.
                let truncated: String = chars[..cut.index(chars.len() + 1)].iter().collect();
                assert_sound(&truncated)?;
                // One character inserted or removed somewhere.
                let i = at.index(chars.len() + 1);
                let mut inserted = chars.clone();
                inserted.insert(i, insert);
                assert_sound(&inserted.iter().collect::<String>())?;
                if i < chars.len() {
                    let mut removed = chars;
                    removed.remove(i);
                    assert_sound(&removed.iter().collect::<String>())?;
                }
            }

            #[test]
            fn truncated_containers_are_repaired(value in json_value(), cut in any::<prop::sample::Index>()) {
                // A serialised container cut anywhere (as by a token limit)
                // still gives a result, unless the cut falls inside a bare
                // literal or a number's sign, fraction or exponent, which the
                // scanner does not guess the rest of.
                let text = serde_json::to_string_pretty(&value).unwrap_or_default();
                let chars: Vec<char> = text.chars().collect();
                let prefix: String = chars[..cut.index(chars.len()).max(1)].iter().collect();
                let guess_needed = prefix
                    .trim_end()
                    .ends_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '-' | '+' | '.'));
                if (text.starts_with('{') || text.starts_with('[')) && !guess_needed {
                    let repaired = repair_json(&prefix);
                    prop_assert!(repaired.is_some(), "{:?}", prefix);
                }
            }
        }
    }
}

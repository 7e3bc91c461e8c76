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

mod lexical;
mod scanner;
mod strict;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use lexical::{is_json_ws, is_json_ws_char};
use scanner::{ScanError, Scanner};
pub(crate) use strict::is_strict_json;

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

// ---------------------------------------------------------------------------
// Fix bookkeeping
// ---------------------------------------------------------------------------

/// Fix kinds in first-applied order, each at most once.
#[derive(Clone, Default)]
pub(crate) struct FixList {
    seen: u16,
    order: Vec<Fix>,
}

impl FixList {
    pub(crate) fn add(&mut self, fix: Fix) {
        if self.seen & fix.bit() == 0 {
            self.seen |= fix.bit();
            self.order.push(fix);
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Fix> {
        self.order
    }
}

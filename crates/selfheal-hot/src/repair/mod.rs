//! Tolerant repair of LLM-shaped broken JSON into strict JSON, naming each fix.
//!
//! # Approach
//!
//! Models wrap JSON in Markdown fences, chat around it, and write it the way
//! JavaScript or Python would print it (single quotes, unquoted keys, trailing
//! commas, comments, `True`/`None`, `"a" + "b"`, `ObjectId("…")`), or get cut
//! off mid-value. Each of those is a *local* defect, so one forward pass over
//! the bytes can fix it while copying: JSON structure is pure ASCII, so the
//! scanner works on bytes and copies string content (any UTF-8) in bulk runs
//! into one pre-sized `String`.
//!
//! [`repair_json`] works in this order:
//!
//! 1. Text that already parses strictly is returned byte-identical with no
//!    fixes: repair must never touch valid JSON, scalars included.
//! 2. The reply is cut into regions (`regions.rs`): the content of each
//!    Markdown code fence (```` ```json ```` … ```` ``` ````, closing fence
//!    optional), the prose between fences, or the whole reply when it has no
//!    fence.
//! 3. Every JSON value in the regions is a *candidate*, in text order
//!    (`candidates.rs`): a fence's content (or the whole reply) read as one
//!    value, or as a sequence of values separated by line breaks or commas
//!    (newline-delimited JSON becomes one array, then each value is offered on
//!    its own); failing that, every `{…}`/`[…]` value in the text. A candidate
//!    the scanner cannot repair is skipped whole — the skim finds its end with
//!    the scanner's own lexical rules — so a value nested inside a broken one
//!    is never offered on its own: `{"a": x, "b": {"c": 1}}` never becomes
//!    `{"c": 1}`.
//! 4. Strict candidates (nothing repaired inside the value) come first; the
//!    first one is the answer, else the first repaired one. With a schema,
//!    `structured::align` instead takes the first candidate that passes it.
//! 5. The scanner (`scanner.rs`, strings in `strings.rs`) is iterative: an
//!    explicit stack of open containers plus one state for the innermost one,
//!    so hostile nesting cannot overflow the call stack; containers nested
//!    [`MAX_DEPTH`] deep give `None`, exactly where serde_json itself stops.
//!    Re-reading a string (below) is charged to a budget of a few times the
//!    input length, so every pass stays linear.
//! 6. Every output is checked strictly (`strict.rs`: the same rules as
//!    `serde_json::from_str::<serde_json::Value>`, without building a tree);
//!    output that still fails gives `None`, so a `Some` is always usable.
//!
//! # What is repaired (see [`Fix`] for the names)
//!
//! * Commas are emitted as seen but removed again when a closer, another comma
//!   or the end follows, so `[1,2,]`, `{"a":1,}` and `[1,,2]` all come out
//!   strict; a comma missing between two elements is inserted right after the
//!   first one; a colon missing after a key is inserted after the key; a
//!   member with no value (`{"a": }`) gets `null`.
//! * `'single'`, `“smart”`, `‘smart’` and `` `backtick` `` quoted strings and
//!   keys become double-quoted. A closing quote ends its string only when what
//!   follows makes sense after a string (a delimiter, the end, the next
//!   token's quote; see `strings.rs`), so apostrophes (`{'a': 'it's'}`) and
//!   unescaped double quotes (`"5" tall"`) stay content. Inside a `"…"` string
//!   every other character is content and is never rewritten (apostrophes,
//!   smart quotes, `//`).
//! * A string whose closing quote is missing is closed before the comma,
//!   bracket or line break it evidently ran into (`{"a": "b,"c": 1}`,
//!   `{"time": "12:20}`), or at the end of input.
//! * Bare identifiers before `:` are quoted; bare `True`/`False`/`None`
//!   become `true`/`false`/`null`, `undefined` becomes `null`; a function call
//!   around a value (`callback({...});`, `ObjectId("…")`, `NumberLong(2)`) is
//!   dropped; `"a" + "b"` is joined; `...` standing for omitted elements is
//!   dropped. Any other bare word makes the candidate fail — unless the
//!   caller allows bare words, and then it is quoted and its path recorded, so
//!   that `structured::align` can accept it only where the schema expects a
//!   string: guessing what `{a: hello}` meant would hide a real error. The
//!   paths share their ancestors (`paths.rs`), so a long key above many words
//!   is decoded and looked up once.
//! * Numbers JSON would reject are completed when only a digit is missing
//!   (`.5`, `2.`, `2e`), kept as strings when written with leading zeros
//!   (`0789`: a code, not a number), and otherwise treated as bare words.
//! * `//` and `/* */` comments outside strings are dropped; Unicode spaces
//!   between tokens become plain spaces.
//! * Raw control characters in strings are escaped; a backslash that starts
//!   no valid escape is itself escaped (`C:\dir` keeps its backslash), except
//!   `\'` (an apostrophe) and a backslash before a line break (`\n`).
//! * A closer of the wrong kind closes the innermost container; closers after
//!   the value are dropped; an object still open where the array around it
//!   gets its next value is closed. Closers that would end the value's
//!   outermost object and are followed by an object's next member (`, "d": 3`)
//!   were too many and are dropped: only that object can take the member. A
//!   value followed by members it could not take in ended early: neither it
//!   nor anything after it in its region is a candidate.
//! * At the end of input an open string is closed, a member cut after its key
//!   or `:` gets `null`, a dangling comma is dropped, and open containers are
//!   closed innermost first. (`structured::parse` never lets a reply cut off
//!   by its stop reason reach this: closing it would hide lost data.)
//! * JSON whose quotes were backslash-escaped as a whole (`{\"a\": 1}`) is
//!   unescaped first.

mod candidates;
mod lexical;
mod paths;
mod regions;
mod scanner;
mod strict;
mod strings;
#[cfg(test)]
mod tests;

pub use crate::fix::Fix;
pub use candidates::MAX_CANDIDATES;
pub use candidates::{each_candidate, Candidate, Verdict};
pub use paths::BareWords;
pub use strict::is_strict_json;

/// Strict JSON text and the kinds of fix that produced it (`repairJson`'s result in JS).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Repaired {
    /// Text that `serde_json::from_str::<serde_json::Value>` accepts.
    pub text: String,
    /// Each kind of fix at most once, in the order it was first applied.
    pub fixes: Vec<Fix>,
}

/// One step of a JSON path: a member name or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSeg {
    Key(String),
    Index(usize),
}

/// Maximum nesting depth the scanner follows (serde_json's own strict limit
/// is 128); deeper input -> None.
///
/// serde_json rejects the 128th nested container, so the scanner gives up at
/// the same level: a repair can never produce nesting the strict parser
/// refuses, and an inner candidate of a too-deep value is never offered
/// instead.
pub const MAX_DEPTH: usize = 128;

/// Returns None when the text holds nothing JSON-like or cannot be repaired
/// into strict JSON. Without a schema there is nothing to choose by: the first
/// strict candidate wins, else the first repaired one, and bare words are never
/// quoted.
#[must_use]
pub fn repair_json(text: &str) -> Option<Repaired> {
    if is_strict_json(text) {
        return Some(Repaired {
            text: text.to_owned(),
            fixes: Vec::new(),
        });
    }
    let mut strict = None;
    let mut repaired = None;
    let search = each_candidate(text, false, &mut |candidate| {
        // Also what the scanner wrote: it copies numbers as written, and `1e400` fails here.
        if !is_strict_json(&candidate.text) {
            return Verdict::NotJson;
        }
        if candidate.strict {
            strict = Some(candidate);
            return Verdict::Stop;
        }
        repaired.get_or_insert(candidate);
        Verdict::Next
    });
    if search.is_err() {
        return None;
    }
    strict.or(repaired).map(|c| Repaired {
        text: c.text,
        fixes: c.fixes.into_vec(),
    })
}

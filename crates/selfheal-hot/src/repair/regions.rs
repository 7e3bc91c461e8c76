//! Regions of a reply: Markdown code fences and the prose between them.

use super::lexical::{is_fence_at, is_inline_ws, is_json_ws, is_json_ws_char};
use crate::fix::Fix;

/// What a region is, which decides what may be read from it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// The whole reply (it has no code fence): read as a sequence of values first.
    Whole,
    /// The content of a code fence: read as a sequence of values first.
    Fence {
        /// Where the opening fence starts and where the closing fence ends.
        open: usize,
        after: usize,
    },
    /// Text between (or around) fences: only `{…}`/`[…]` values in it are candidates.
    Prose,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Region {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: Kind,
}

/// The regions of `text`, in order. An opening fence is three or more backticks at the start
/// of a line (after blanks), with an optional language tag; the closing fence is the next
/// three backticks that start or end a line (a fence glued to the value's last brace), or the
/// end of the text. Backticks anywhere else are content, e.g. inside a JSON string, and so is a
/// fence inside a closed string of a value that opens the text ([`quoted_spans`]). A text with
/// no opening fence but a closing one at its very end (the opener was left out) is one fence.
pub(super) fn regions(text: &str) -> Vec<Region> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut prose_start = 0;
    let mut search = 0;
    let bracketed = fence_after_bracket(text);
    let closer = final_closer(text);
    let spans = quoted_spans(text);
    let mut strings = spans.as_slice();
    while let Some(open) = find_opening_fence(text, search, bracketed, &mut strings) {
        let mut start = open;
        while bytes.get(start) == Some(&b'`') {
            start += 1;
        }
        while bytes.get(start).is_some_and(|&c| is_inline_ws(c)) {
            start += 1;
        }
        while bytes
            .get(start)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'.'))
        {
            start += 1;
        }
        let (end, after) = match find_closing_fence(text, start, closer, &mut strings) {
            Some(close) => {
                let mut after = close;
                while bytes.get(after) == Some(&b'`') {
                    after += 1;
                }
                (close, after)
            }
            None => (bytes.len(), bytes.len()),
        };
        if open > prose_start {
            out.push(Region {
                start: prose_start,
                end: open,
                kind: Kind::Prose,
            });
        }
        out.push(Region {
            start,
            end,
            kind: Kind::Fence { open, after },
        });
        prose_start = after;
        search = after;
    }
    if out.is_empty() {
        return vec![whole_or_closing_fence(text)];
    }
    if prose_start < bytes.len() {
        out.push(Region {
            start: prose_start,
            end: bytes.len(),
            kind: Kind::Prose,
        });
    }
    out
}

/// The whole text, or everything before a closing fence that ends it.
fn whole_or_closing_fence(text: &str) -> Region {
    let trimmed = text.trim_end_matches(is_json_ws_char);
    if let Some(body) = trimmed.strip_suffix("```") {
        let body = body.trim_end_matches('`');
        if body.ends_with('\n') || body.trim().is_empty() {
            return Region {
                start: 0,
                end: body.len(),
                kind: Kind::Fence {
                    open: 0,
                    after: text.len(),
                },
            };
        }
    }
    Region {
        start: 0,
        end: text.len(),
        kind: Kind::Whole,
    }
}

/// Three backticks at the start of a line (blanks before them allowed), from `from` on, or at
/// `bracketed` ([`fence_after_bracket`]), and not inside one of `strings`.
fn find_opening_fence(
    text: &str,
    from: usize,
    bracketed: Option<usize>,
    strings: &mut &[(usize, usize)],
) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut search = from;
    while let Some(rel) = text.get(search..).and_then(|t| t.find("```")) {
        let at = search + rel;
        if let Some(close) = string_around(strings, at) {
            search = close;
            continue;
        }
        let back = blanks_before(bytes, at, 0);
        if back == 0 || matches!(bytes.get(back - 1), Some(b'\n' | b'\r')) || bracketed == Some(at)
        {
            return Some(at);
        }
        let mut next = at;
        while is_fence_at(bytes, next) || bytes.get(next) == Some(&b'`') {
            next += 1;
        }
        search = next;
    }
    None
}

/// Where a fence typed after a bracket that opens the text (`[```json`, `{```json`: only
/// blanks around the bracket) would start: the first non-blank after the bracket. Found once
/// per text; trimming the text before each fence instead read a long blank start again for
/// every fence (1,000 fences after 1,000,000 blanks took 1.5 s).
pub(super) fn fence_after_bracket(text: &str) -> Option<usize> {
    let after = text.trim_start().strip_prefix(['[', '{'])?;
    Some(text.len() - after.trim_start().len())
}

/// Where the quoted strings that hold three backticks, of a value that opens the text (`{` or
/// `[` after blanks), start and where their closing quote is, in text order. A raw newline in a
/// string may start a line with a fence (`{"readme": "Install:⏎```bash⏎npm i⏎```⏎", "ok": 1}`):
/// that is the string's content, not a fence. Quotes are trusted only where the value makes
/// them sure: a `"` or `'` opens a string only where a string may start (after `{`, `[`, `,` or
/// `:`), JSON's escapes apply, and the string must close with its quote followed by `,`, `:`,
/// `}`, `]` or the end of the text. The first string that does not (never closed, as in a
/// truncated reply, or a stray quote) ends the spans, and so does the end of the value: a fence
/// after either is read as before.
fn quoted_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let bytes = text.as_bytes();
    let mut pos = text.len() - text.trim_start().len();
    if !matches!(bytes.get(pos), Some(b'{' | b'[')) || !text.contains("```") {
        return spans;
    }
    let mut depth = 0usize;
    let mut prev = 0;
    while let Some(&c) = bytes.get(pos) {
        pos += 1;
        match c {
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth <= 1 => break,
            b'}' | b']' => depth -= 1,
            b'"' | b'\'' if matches!(prev, b'{' | b'[' | b',' | b':') => {
                let open = pos - 1;
                loop {
                    match bytes.get(pos) {
                        None => return spans,
                        Some(b'\\') => pos += 2,
                        Some(&q) if q == c => break,
                        Some(_) => pos += 1,
                    }
                }
                let next = bytes
                    .get(pos + 1..)
                    .and_then(|t| t.iter().find(|&&b| !is_json_ws(b)));
                if !matches!(next, None | Some(b',' | b':' | b'}' | b']')) {
                    return spans;
                }
                // Only a string that holds backticks can hide a fence: the others are not kept.
                if text.get(open..pos).is_some_and(|s| s.contains("```")) {
                    spans.push((open, pos));
                }
                pos += 1;
            }
            _ => {}
        }
        if !is_json_ws(c) {
            prev = c;
        }
    }
    spans
}

/// Where the string of `strings` that holds `at` closes, if one does; the strings before `at`
/// are dropped (fences are looked for in text order, so each string is passed once).
fn string_around(strings: &mut &[(usize, usize)], at: usize) -> Option<usize> {
    while let Some((&(_, close), rest)) = strings.split_first() {
        if close > at {
            break;
        }
        *strings = rest;
    }
    strings
        .first()
        .filter(|&&(open, _)| open < at)
        .map(|&(_, close)| close)
}

/// Where the blanks right before `at` start (not before `floor`).
fn blanks_before(bytes: &[u8], at: usize, floor: usize) -> usize {
    let mut back = at;
    while back > floor && bytes.get(back - 1).is_some_and(|&c| is_inline_ws(c)) {
        back -= 1;
    }
    back
}

/// The first closing fence from `from` on: three backticks that start their
/// line or end it, or that only blanks separate from `closer` ([`final_closer`]), and that are
/// not inside one of `strings`.
fn find_closing_fence(
    text: &str,
    from: usize,
    closer: Option<usize>,
    strings: &mut &[(usize, usize)],
) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut search = from;
    while let Some(rel) = text.get(search..).and_then(|t| t.find("```")) {
        let at = search + rel;
        if let Some(close) = string_around(strings, at) {
            search = close;
            continue;
        }
        let back = blanks_before(bytes, at, from);
        let starts_line = back == from || matches!(bytes.get(back - 1), Some(b'\n' | b'\r'));
        let mut fwd = at;
        while bytes.get(fwd) == Some(&b'`') {
            fwd += 1;
        }
        while bytes.get(fwd).is_some_and(|&c| is_inline_ws(c)) {
            fwd += 1;
        }
        // Blanks before the run that `fwd` starts belong to this fence alone: the next fence
        // is searched after them, so reading them costs each blank once.
        let ends_line = matches!(bytes.get(fwd), None | Some(b'\n' | b'\r'))
            || closer.is_some_and(|q| {
                text.get(fwd..q)
                    .is_some_and(|between| between.trim_start().is_empty())
            });
        if starts_line || ends_line {
            return Some(at);
        }
        search = fwd;
    }
    None
}

/// Where the text's last non-blank character is, when it is `]` or `}`: a fence with only blanks
/// between it and that bracket closes (`[```json … ```]`, brackets typed around the fences).
/// Found once per text; trimming what follows each fence instead read long trailing blanks
/// again for every fence (2,000 fences before 1,000,000 blanks took 1.6 s).
pub(super) fn final_closer(text: &str) -> Option<usize> {
    let tail = text.trim_end();
    tail.ends_with([']', '}']).then(|| tail.len() - 1)
}

/// What dropping `text` (outside the value) counts as: nothing for blanks,
/// [`Fix::Comment`] when it holds only blanks and comments, else prose.
pub(super) fn outside_fix(text: &[u8]) -> Option<Fix> {
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

/// Where the text's first non-blank byte is and where its last one ends: anything but blanks
/// lies before `at` when the first one does, after it when the last one does. What
/// [`outside_fix`] answers is something (a comment or prose) exactly then.
pub(super) fn non_blank_span(text: &[u8]) -> (usize, usize) {
    let first = text.iter().position(|&c| !is_json_ws(c));
    let last = text.iter().rposition(|&c| !is_json_ws(c));
    (first.unwrap_or(text.len()), last.map_or(0, |l| l + 1))
}

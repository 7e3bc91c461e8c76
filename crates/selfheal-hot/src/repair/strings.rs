//! Strings: every kind of quote, escapes, and where a string really ends.
//!
//! A closing quote ends its string only when what follows makes sense after a string (the
//! rules are jsonrepair's): the end of input, a delimiter (`,` `:` a bracket, a comment, a line
//! break, `+`), a quote that opens the next token, or a digit (`["a" 2]`). A `]`, `}` or `)`
//! counts only when the string itself has no unclosed `[`, `{` or `(` (`"the list [1, 2"] more"`).
//! Any other closing quote is content: an unescaped `"` (`"5" tall"`) or an apostrophe
//! (`'it's'`). Two exceptions read the string again, once: a quote right after a comma
//! (`{"a": "b,"c": 1}`) means the closing quote belongs before that comma, and a quote after
//! another delimiter means the closing quote is missing, so the string ends at its first
//! delimiter. A string that runs to the end of input while the text ends in a bracket
//! (`{"time": "12:20}`) is read again the same way.

use super::lexical::*;
use super::scanner::{Scan, ScanError, Scanner};
use crate::fix::Fix;

/// Where a string stops being read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stop {
    /// First reading: the closing quote decides.
    AtQuote,
    /// The closing quote is missing: close before the first `,`, bracket or line break.
    AtDelimiter,
    /// Close right before this input offset (a comma the closing quote belongs before).
    At(usize),
}

enum Pass {
    Done,
    Again(Stop),
}

/// How many `[`, `{` and `(` string content from `from` up to `to` opens more than it closes.
/// The quotes of a string are judged in order, so each count goes on from the last one: the
/// content is read once, not once per quote (`"][[a"x` × 40,000 lines took 2.6 s).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Brackets {
    from: usize,
    to: usize,
    open: [i64; 3],
}

impl Scanner<'_> {
    /// A string value, and any strings concatenated to it with `+`.
    pub(super) fn string_value(&mut self, quote: Quote) -> Scan<()> {
        self.string(quote)?;
        loop {
            let plus = self.past_blank(self.pos);
            if self.bytes.get(plus) != Some(&b'+') {
                break;
            }
            let next = self.past_blank(plus + 1);
            match quote_at(self.bytes, next) {
                Some((quote, _)) => {
                    // Drop the closing quote written so far (blanks may follow it when it was
                    // missing) and the next string's opening one.
                    if let Some(close) = self.out.rfind('"') {
                        self.out.truncate(close);
                    }
                    self.pos = next;
                    let at = self.out.len();
                    self.string(quote)?;
                    if self.out.as_bytes().get(at) == Some(&b'"') {
                        self.out.remove(at);
                    }
                }
                // A `+` with no string after it (cut off, or a stray one): dropped.
                None => self.pos = plus + 1,
            }
            self.fixes.add(Fix::StringConcatenation);
        }
        self.value_done();
        Ok(())
    }

    /// A string whose opening quote is at `self.pos`, written double-quoted.
    pub(super) fn string(&mut self, quote: Quote) -> Scan<()> {
        let (pos, out, fixes) = (self.pos, self.out.len(), self.fixes.mark());
        let stop = match self.string_pass(quote, Stop::AtQuote)? {
            Pass::Done => return Ok(()),
            Pass::Again(stop) => stop,
        };
        // Reading again costs what the first reading covered; a budget keeps that linear.
        let spent = self.pos.saturating_sub(pos);
        let left = self
            .budget
            .get()
            .checked_sub(spent)
            .ok_or(ScanError::Invalid(pos))?;
        self.budget.set(left);
        self.pos = pos;
        self.out.truncate(out);
        self.fixes.restore(fixes);
        match self.string_pass(quote, stop)? {
            Pass::Done => Ok(()),
            Pass::Again(_) => Err(ScanError::Invalid(pos)),
        }
    }

    fn string_pass(&mut self, quote: Quote, stop: Stop) -> Scan<Pass> {
        let open_len = quote_at(self.bytes, self.pos).map_or(1, |(_, len)| len);
        match quote {
            Quote::Double => {}
            Quote::Single => self.fixes.add(Fix::SingleQuotes),
            Quote::SmartDouble | Quote::SmartSingle => self.fixes.add(Fix::SmartQuotes),
            Quote::Backtick => self.fixes.add(Fix::BacktickQuotes),
        }
        self.pos += open_len;
        self.out.push('"');
        let content = self.pos;
        let limit = match stop {
            Stop::At(at) => at,
            _ => usize::MAX,
        };
        let at_delimiter = stop == Stop::AtDelimiter;
        let mut run = self.pos;
        loop {
            // Plain content is the bulk of most strings: skip it in a tight
            // loop on locals and copy it as one run.
            let bytes = self.bytes;
            let mut pos = self.pos;
            while pos < limit
                && bytes.get(pos).is_some_and(|&c| {
                    !(is_string_special(c) || at_delimiter && self.ends_open_string(pos))
                })
            {
                pos += 1;
            }
            self.pos = pos;
            let c = bytes.get(pos).copied();
            if pos >= limit || (at_delimiter && self.ends_open_string(pos)) {
                self.flush(run)?;
                self.close_missing_quote();
                return Ok(Pass::Done);
            }
            let Some(c) = c else {
                if stop == Stop::AtQuote && self.close_early && self.ends_in_bracket(content) {
                    self.closed_early = true;
                    return Ok(Pass::Again(Stop::AtDelimiter));
                }
                self.flush(run)?;
                self.close_missing_quote();
                return Ok(Pass::Done);
            };
            if let Some(len) = closer_at(bytes, pos, quote) {
                if stop != Stop::AtQuote || self.quote_ends_string(quote, content, pos, len) {
                    self.flush(run)?;
                    self.out.push('"');
                    self.pos += len;
                    return Ok(Pass::Done);
                }
                match self.before(content, pos) {
                    Some((b',', at)) => return Ok(Pass::Again(Stop::At(at))),
                    Some((prev, _)) if is_delimiter(prev) => {
                        return Ok(Pass::Again(Stop::AtDelimiter))
                    }
                    _ => {}
                }
                // Content: an unescaped `"`, or an apostrophe.
                self.flush(run)?;
                if c == b'"' {
                    self.out.push_str("\\\"");
                    if quote == Quote::Double {
                        self.fixes.add(Fix::UnescapedQuote);
                    }
                } else if let Some(ch) = self.src.get(pos..pos + len) {
                    self.out.push_str(ch);
                }
                self.pos += len;
                run = self.pos;
                continue;
            }
            match c {
                b'"' => {
                    self.flush(run)?;
                    self.out.push_str("\\\"");
                    self.pos += 1;
                    run = self.pos;
                }
                b'\\' => {
                    self.flush(run)?;
                    if self.escape(quote) {
                        self.close_missing_quote();
                        return Ok(Pass::Done);
                    }
                    run = self.pos;
                }
                0x00..=0x1F => {
                    self.flush(run)?;
                    self.control_character(c);
                    self.pos += 1;
                    run = self.pos;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Writes the content run `run..self.pos` unchanged. Both ends sit on an
    /// ASCII byte, a lead byte or the end, so on char boundaries.
    fn flush(&mut self, run: usize) -> Scan<()> {
        match self.src.get(run..self.pos) {
            Some(content) => {
                self.out.push_str(content);
                Ok(())
            }
            None => Err(self.invalid()),
        }
    }

    /// Whether a string whose closing quote is missing ends before `pos`: at a `,`, bracket or
    /// line break, a `+` (concatenation) or a comment (but not the `//` of `https://`).
    fn ends_open_string(&self, pos: usize) -> bool {
        match self.bytes.get(pos) {
            Some(&b'+') => true,
            Some(&b'/') => match self.bytes.get(pos + 1) {
                Some(b'*') => true,
                Some(b'/') => pos == 0 || self.bytes.get(pos - 1) != Some(&b':'),
                _ => false,
            },
            Some(&c) => ends_unquoted_text(c),
            None => false,
        }
    }

    /// Closes a string whose closing quote is missing, before its trailing blanks.
    fn close_missing_quote(&mut self) {
        let at = self.out.trim_end_matches([' ', '\t']).len();
        self.out.insert(at, '"');
        self.fixes.add(Fix::UnclosedString);
    }

    /// Whether the closing quote at `quote_pos` (`len` bytes) really ends the string whose
    /// content starts at `content` (see the module doc).
    fn quote_ends_string(
        &self,
        quote: Quote,
        content: usize,
        quote_pos: usize,
        len: usize,
    ) -> bool {
        // Inside a strict JSON value every closing quote is one (`Scanner::strict_end`).
        if quote_pos < self.strict_end {
            return true;
        }
        let mut p = quote_pos + len;
        while self.bytes.get(p).is_some_and(|&c| is_inline_ws(c)) {
            p += 1;
        }
        // A comment after the quote: the string has ended.
        if let (Some(b'/'), Some(b'*' | b'/')) = (self.bytes.get(p), self.bytes.get(p + 1)) {
            return true;
        }
        let Some(&c) = self.bytes.get(p) else {
            return true;
        };
        match c {
            b']' | b'}' | b')' => {
                !(self.unclosed_in(content, quote_pos, c) && self.quote_later_on_line(p + 1))
            }
            _ if is_delimiter(c) => true,
            _ if quote_at(self.bytes, p).is_some() => !self.quote_ends_here(p),
            // `["a" 2]`. Not after an apostrophe: `'the '90s'`.
            b'0'..=b'9' => quote == Quote::Double,
            _ => false,
        }
    }

    /// Whether the string content `content..end` opens more `(`/`[`/`{` than it closes of the
    /// kind `closer` ends. Counted on from the last quote of the same string ([`Brackets`]).
    fn unclosed_in(&self, content: usize, end: usize, closer: u8) -> bool {
        if content > end || end > self.bytes.len() {
            return false;
        }
        let mut counted = self.brackets.get();
        if counted.from != content || counted.to > end {
            counted = Brackets {
                from: content,
                to: content,
                open: [0; 3],
            };
        }
        for &c in self.bytes.get(counted.to..end).unwrap_or_default() {
            let (kind, step) = match c {
                b'[' => (0, 1),
                b']' => (0, -1),
                b'{' => (1, 1),
                b'}' => (1, -1),
                b'(' => (2, 1),
                b')' => (2, -1),
                _ => continue,
            };
            if let Some(open) = counted.open.get_mut(kind) {
                *open += step;
            }
        }
        counted.to = end;
        self.brackets.set(counted);
        let kind = match closer {
            b']' => 0,
            b'}' => 1,
            _ => 2,
        };
        counted.open.get(kind).is_some_and(|&open| open > 0)
    }

    /// Whether another `"` comes before the end of the line from `pos` (`"the list [1, 2"]
    /// more"`): only then can a quote before a closer be content. The look is charged to the
    /// re-reading budget, so a line of such quotes stays linear.
    fn quote_later_on_line(&self, pos: usize) -> bool {
        let rest = self.bytes.get(pos..).unwrap_or_default();
        let line = rest
            .iter()
            .position(|&c| c == b'\n' || c == b'\r')
            .unwrap_or(rest.len());
        if line > self.budget.get() {
            return false;
        }
        self.budget.set(self.budget.get() - line);
        rest.get(..line).is_some_and(|l| l.contains(&b'"'))
    }

    /// Whether the quote at `pos` would itself end a string (the end of input or a delimiter
    /// follows it), which makes the quote before it content (`"The TV is 72""`).
    fn quote_ends_here(&self, pos: usize) -> bool {
        let len = quote_at(self.bytes, pos).map_or(1, |(_, len)| len);
        let mut p = pos + len;
        while self.bytes.get(p).is_some_and(|&c| is_json_ws(c)) {
            p += 1;
        }
        self.bytes.get(p).is_none_or(|&c| is_delimiter(c))
    }

    /// The last non-blank byte of the content before `pos`, and its offset.
    fn before(&self, content: usize, pos: usize) -> Option<(u8, usize)> {
        let mut i = pos;
        while i > content && self.bytes.get(i - 1).is_some_and(|&c| is_json_ws(c)) {
            i -= 1;
        }
        (i > content)
            .then(|| self.bytes.get(i - 1).map(|&c| (c, i - 1)))
            .flatten()
    }

    /// Whether the text from `content` on ends (blanks aside) in a bracket, a comma, a colon or
    /// a `+`: a string left open there most likely lost its closing quote before it.
    fn ends_in_bracket(&self, content: usize) -> bool {
        let tail = self.bytes.get(content..).unwrap_or_default();
        tail.iter()
            .rev()
            .find(|&&c| !is_json_ws(c))
            .is_some_and(|&c| matches!(c, b',' | b':' | b'[' | b']' | b'{' | b'}' | b'+'))
    }

    /// A backslash at `self.pos` inside a string. True when it was a `\u` escape cut off by the
    /// end of input: the string ends there, without it.
    fn escape(&mut self, quote: Quote) -> bool {
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
                // A surrogate escape stands only in a high-low pair; a lone one (`"\ud83d"`,
                // which JSON.parse keeps and a Rust string cannot hold) becomes U+FFFD.
                let len = match self.hex4_value(self.pos + 2) {
                    0xD800..=0xDBFF
                        if self.bytes.get(self.pos + 6..self.pos + 8) == Some(b"\\u")
                            && matches!(self.hex4_value(self.pos + 8), 0xDC00..=0xDFFF) =>
                    {
                        12
                    }
                    0xD800..=0xDFFF => 0,
                    _ => 6,
                };
                match self.src.get(self.pos..self.pos + len) {
                    Some(esc) if len > 0 => self.out.push_str(esc),
                    _ => {
                        self.out.push_str("\\ufffd");
                        self.fixes.add(Fix::InvalidEscape);
                    }
                }
                self.pos += len.max(6);
            }
            Some(b'u')
                if self
                    .bytes
                    .get(self.pos + 2..)
                    .is_some_and(|rest| rest.iter().all(u8::is_ascii_hexdigit)) =>
            {
                self.pos = self.bytes.len();
                return true;
            }
            Some(b'\'') => {
                // `\'` is an escape in single quotes; elsewhere plainly an apostrophe.
                self.out.push('\'');
                self.pos += 2;
                if quote != Quote::Single {
                    self.fixes.add(Fix::InvalidEscape);
                }
            }
            Some(b'\n') => {
                // A backslash continuing the line, as in shell scripts.
                self.out.push_str("\\n");
                self.pos += 2;
                self.fixes.add(Fix::InvalidEscape);
            }
            _ => {
                // The character after the backslash is then read as content.
                self.out.push_str("\\\\");
                self.pos += 1;
                self.fixes.add(Fix::InvalidEscape);
            }
        }
        false
    }

    /// The four hex digits at `pos` as a number (0 where they are not hex digits).
    fn hex4_value(&self, pos: usize) -> u32 {
        self.src
            .get(pos..pos + 4)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .unwrap_or(0)
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

//! The scanner: one forward pass that repairs while it copies (see the module doc of `repair`).
//!
//! Two entry points: [`Scanner::scan_value`] reads one `{…}`/`[…]` value that starts in prose,
//! [`Scanner::scan_sequence`] reads a whole region (a fence's content, or the whole reply) as a
//! sequence of values: one value is that value, two or more separated by line breaks or commas
//! are a newline-delimited array. Strings are read by `strings.rs`.

use super::lexical::*;
use super::paths::{BareWords, Step};
use super::strings::Brackets;
use super::{PathSeg, MAX_DEPTH};
use crate::fix::{Fix, FixList};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Container {
    Object,
    Array,
    /// The implicit array around a whole region ([`Scanner::scan_sequence`]).
    Root,
    /// `name(` … `)` around one value: dropped from the output.
    Call,
}

/// One open container.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub(super) kind: Container,
    /// Object: output range of the current member's key, quotes included.
    pub(super) key: (usize, usize),
    /// Array, Root: number of complete elements (the index of the one being read).
    pub(super) index: usize,
    /// Where the container lies, kept once a bare word inside it asked (`paths.rs`): the last
    /// step of its path, `None` when it is the value (or element of a sequence) itself.
    place: Option<Option<usize>>,
}

impl Frame {
    fn new(kind: Container) -> Frame {
        Frame {
            kind,
            key: (0, 0),
            index: 0,
            place: None,
        }
    }
}

/// What the innermost open container expects next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum State {
    /// Just after `[` (or a call's `(`, or the start of a region): a value or the closer.
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

#[derive(Debug, PartialEq, Eq)]
pub(super) enum ScanError {
    /// Not repairable from here; the byte offset where scanning stopped.
    Invalid(usize),
    /// Nesting beyond [`MAX_DEPTH`].
    TooDeep,
}

pub(super) type Scan<T> = Result<T, ScanError>;

/// The result of one scan.
#[derive(Debug)]
pub(super) struct Scanned {
    /// Repaired text (still to be checked strictly by the caller).
    pub(super) text: String,
    pub(super) fixes: FixList,
    /// Input offset just after the value (the end of the region for a sequence).
    pub(super) end: usize,
    /// Paths of the bare words quoted as strings (only when bare words are allowed).
    pub(super) bare_words: BareWords,
    /// For a sequence of two or more values on separate lines: each value's own text, and the
    /// fixes made inside it (not those between the values, nor those of the others).
    pub(super) elements: Vec<(String, FixList)>,
}

pub(super) struct Scanner<'a> {
    pub(super) src: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) out: String,
    pub(super) fixes: FixList,
    pub(super) stack: Vec<Frame>,
    pub(super) state: State,
    /// Output offset just after the last complete value, where a missing
    /// comma belongs (before any whitespace that followed it).
    value_end: usize,
    /// Output offset of the last comma written, to take back a trailing one.
    comma_at: usize,
    /// Quote bare words as strings (and record where), instead of failing on them.
    allow_bare: bool,
    /// The bare words read so far: the element each is in and the last step of its path, and
    /// the steps of their paths (`paths.rs`).
    bare_words: Vec<(usize, Option<usize>)>,
    bare_steps: Vec<Step>,
    /// A line break was passed since the last value: values of a sequence need one (or a comma).
    newline: bool,
    /// Output ranges of the complete values of a sequence, and where the current one started.
    elements: Vec<(usize, usize)>,
    element_start: usize,
    /// The fixes made inside each complete value of a sequence; while one is read, the
    /// sequence's own fixes wait here (`fixes` collects the value's alone, then both merge).
    element_fixes: Vec<FixList>,
    outer_fixes: Option<FixList>,
    /// The last value of a sequence was a call (JSONP), so a `;` may follow.
    after_call: bool,
    /// Two values of the sequence were on one line (`1,2`): a list, not newline-delimited
    /// values, so they are not offered one by one (`12,111` is not 12).
    same_line: bool,
    /// Re-reading budget for strings whose closing quote was misplaced (keeps the pass linear).
    pub(super) budget: std::cell::Cell<usize>,
    /// The brackets of the string being read, counted up to its last quote that was judged
    /// (`strings.rs`, `unclosed_in`).
    pub(super) brackets: std::cell::Cell<Brackets>,
    /// Let a string that runs to the end of input be re-read to close at its first bracket
    /// (`{"time": "12:20}`). A second, conservative scan turns it off when it misled.
    /// Also lets `close` drop a closer of the wrong kind before the innermost container's own
    /// (`wrong_dropped`); `closed_early` says a guess was made that a second scan may undo.
    pub(super) close_early: bool,
    pub(super) closed_early: bool,
    wrong_dropped: bool,
    /// Input offset up to which the text is one strict JSON value, found where a `{`/`[` starts
    /// a value ([`Scanner::strict_value`]). The heuristics for broken text never bend a valid
    /// value: inside it a closing quote ends its string as in JSON, even before a `}` the string
    /// opened (`{"a": "x"y", "b": [{"c": "{"}, "d"]}`).
    pub(super) strict_end: usize,
    /// What trying for strict values may still read: a failed try reads up to the error, so
    /// trying each container of a long, deeply nested broken value is charged here and the pass
    /// stays linear. Once it runs out nothing more is tried, and the heuristics read on.
    strict_budget: usize,
}

impl<'a> Scanner<'a> {
    pub(super) fn new(src: &'a str, allow_bare: bool) -> Self {
        Scanner {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            // Room for the usual growth (quotes around keys, escapes) without a regrow.
            out: String::with_capacity(src.len() + src.len() / 8 + 16),
            fixes: FixList::default(),
            stack: Vec::new(),
            state: State::ValueOrClose,
            value_end: 0,
            comma_at: 0,
            allow_bare,
            bare_words: Vec::new(),
            bare_steps: Vec::new(),
            newline: false,
            elements: Vec::new(),
            element_start: 0,
            element_fixes: Vec::new(),
            outer_fixes: None,
            after_call: false,
            same_line: false,
            budget: std::cell::Cell::new(4 * src.len() + 4096),
            brackets: std::cell::Cell::default(),
            close_early: true,
            closed_early: false,
            wrong_dropped: false,
            strict_end: 0,
            strict_budget: 4 * src.len() + 4096,
        }
    }

    fn reset(&mut self, start: usize) {
        self.pos = start;
        self.out.clear();
        self.fixes = FixList::default();
        self.stack.clear();
        self.state = State::ValueOrClose;
        self.value_end = 0;
        self.comma_at = 0;
        self.bare_words.clear();
        self.bare_steps.clear();
        self.newline = false;
        self.elements.clear();
        self.element_fixes.clear();
        self.outer_fixes = None;
        self.after_call = false;
        self.same_line = false;
        self.closed_early = false;
        self.wrong_dropped = false;
        self.strict_end = 0;
    }

    /// One value starting at the `{` or `[` at `start`; `strict_end` is where the strict JSON
    /// value there ends, when the caller knows it is one (else 0).
    pub(super) fn scan_value(&mut self, start: usize, strict_end: usize) -> Scan<Scanned> {
        self.reset(start);
        self.strict_end = strict_end;
        self.open_container()?;
        self.run()?;
        Ok(self.scanned(self.out.clone(), Vec::new(), false))
    }

    /// The whole source as a sequence of values (see the module doc).
    pub(super) fn scan_sequence(&mut self) -> Scan<Scanned> {
        self.reset(0);
        self.stack.push(Frame::new(Container::Root));
        self.run()?;
        let ranges = std::mem::take(&mut self.elements);
        let own_fixes = std::mem::take(&mut self.element_fixes);
        // A trailing blank written after a value may have been trimmed at the end of input.
        let piece =
            |(s, e): (usize, usize)| self.out.get(s..e.min(self.out.len())).map(str::to_owned);
        match ranges.as_slice() {
            [] => Err(ScanError::Invalid(self.pos)),
            [one] => {
                let text = piece(*one).ok_or(ScanError::Invalid(self.pos))?;
                // One value: its paths are those of the value itself, not of an array element.
                Ok(self.scanned(text, Vec::new(), false))
            }
            [first, .., last] => {
                let inner = piece((first.0, last.1)).ok_or(ScanError::Invalid(self.pos))?;
                let elements = if self.same_line {
                    Vec::new()
                } else {
                    ranges
                        .iter()
                        .zip(own_fixes)
                        .filter_map(|(r, fixes)| Some((piece(*r)?, fixes)))
                        .collect()
                };
                self.fixes.add(Fix::NewlineDelimited);
                Ok(self.scanned(format!("[{inner}]"), elements, true))
            }
        }
    }

    fn scanned(
        &mut self,
        text: String,
        elements: Vec<(String, FixList)>,
        in_sequence: bool,
    ) -> Scanned {
        Scanned {
            text,
            fixes: std::mem::take(&mut self.fixes),
            end: self.pos,
            bare_words: BareWords::new(
                std::mem::take(&mut self.bare_steps),
                std::mem::take(&mut self.bare_words),
                in_sequence,
            ),
            elements,
        }
    }

    /// After a failed [`Scanner::scan_value`]: the input offset just after the containers still
    /// open, found with the same lexical rules (strings of every quote kind, comments), so the
    /// search for the next candidate resumes after the broken one and never inside it. `None`
    /// when they never close.
    pub(super) fn skim(&mut self) -> Option<usize> {
        let mut depth = self
            .stack
            .iter()
            .filter(|f| matches!(f.kind, Container::Object | Container::Array))
            .count();
        if depth == 0 {
            return Some(self.pos);
        }
        loop {
            self.pos = self.past_blank(self.pos);
            let c = *self.bytes.get(self.pos)?;
            if let Some((quote, len)) = quote_at(self.bytes, self.pos) {
                let at = self.pos;
                if self.string(quote).is_err() || self.pos <= at {
                    self.pos = at + len;
                }
                continue;
            }
            match c {
                // A strict value is stepped over whole, as the scanner reads one: the quote
                // rules for broken strings must not end the broken value inside it (they took
                // the `"` of `"[\\"]` for content, so `{"a": hello, "b": [["[\\"],[["'a}"]],{}]}`
                // ended after `a}"]]` and its `{}` was offered).
                b'{' | b'[' => match self.strict_value(self.pos) {
                    Some(end) => {
                        self.pos = end;
                        continue;
                    }
                    None => depth += 1,
                },
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(self.pos + 1);
                    }
                }
                _ => {}
            }
            self.pos += utf8_len(c);
        }
    }

    /// Where the strict JSON value that starts at the `{`/`[` at `pos` ends, if it is one; a
    /// failed try is charged to `strict_budget`.
    pub(super) fn strict_value(&mut self, pos: usize) -> Option<usize> {
        if self.strict_budget == 0 {
            return None;
        }
        match super::candidates::strict_prefix(self.src.get(pos..).unwrap_or("")) {
            Ok(len) => Some(pos + len),
            Err(read) => {
                self.strict_budget = self.strict_budget.saturating_sub(read.max(1));
                None
            }
        }
    }

    /// The state machine, until the outermost container closes or the input ends.
    fn run(&mut self) -> Scan<()> {
        loop {
            self.skip_blank();
            let Some(&c) = self.bytes.get(self.pos) else {
                return self.close_at_end();
            };
            match self.state {
                State::ValueOrClose => match c {
                    b']' | b'}' => self.close(c)?,
                    b')' => self.close_call()?,
                    b',' => self.drop_comma(),
                    _ if self.skip_ellipsis() => {}
                    _ => self.value()?,
                },
                State::KeyOrClose => match c {
                    b'}' | b']' => self.close(c)?,
                    b',' => self.drop_comma(),
                    b'{' | b'[' if self.parent_takes_values() => self.close_implicitly()?,
                    _ if self.skip_ellipsis() => {}
                    _ => self.key()?,
                },
                State::Colon => {
                    if c == b':' {
                        self.out.push(':');
                        self.pos += 1;
                        self.state = State::MemberValue;
                    } else if self.starts_value(c) {
                        self.insert_missing_colon()?;
                    } else {
                        return Err(self.invalid());
                    }
                }
                State::MemberValue => match c {
                    b',' | b'}' => self.missing_value(),
                    _ => self.value()?,
                },
                State::CommaOrClose => match c {
                    // A call wraps one value: `f(1, 2)` is not a wrapper but code.
                    b',' if self.top() == Some(Container::Call) => return Err(self.invalid()),
                    b',' => {
                        self.comma_at = self.out.len();
                        self.out.push(',');
                        self.pos += 1;
                        self.state = State::AfterComma;
                    }
                    b'}' | b']' => self.close(c)?,
                    b')' => self.close_call()?,
                    b';' if self.after_call && self.top() == Some(Container::Root) => {
                        self.pos += 1;
                    }
                    b'{' | b'['
                        if self.top() == Some(Container::Object) && self.parent_takes_values() =>
                    {
                        self.close_implicitly()?;
                    }
                    _ if self.skip_ellipsis() => {}
                    _ => {
                        // Only something that can start the next element earns a comma; values
                        // of a sequence must also be on separate lines.
                        let root = self.top() == Some(Container::Root);
                        if !self.starts_element(c) || (root && !self.newline) {
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
                        self.close(c)?;
                    }
                    b'{' | b'['
                        if self.top() == Some(Container::Object) && self.parent_takes_values() =>
                    {
                        self.take_back_comma();
                        self.close_implicitly()?;
                    }
                    _ if self.skip_ellipsis() => {}
                    _ => self.element()?,
                },
            }
            if self.stack.is_empty() {
                return Ok(());
            }
        }
    }

    pub(super) fn invalid(&self) -> ScanError {
        ScanError::Invalid(self.pos)
    }

    pub(super) fn top(&self) -> Option<Container> {
        self.stack.last().map(|f| f.kind)
    }

    /// Whether the container around the innermost one holds values (an array or a sequence), so
    /// a `{`/`[` where the innermost object wants a key means that object was left open.
    fn parent_takes_values(&self) -> bool {
        let n = self.stack.len();
        n >= 2
            && matches!(
                self.stack.get(n - 2).map(|f| f.kind),
                Some(Container::Array | Container::Root)
            )
    }

    /// A key in an object, a value anywhere else.
    fn element(&mut self) -> Scan<()> {
        match self.top() {
            Some(Container::Object) => self.key(),
            _ => self.value(),
        }
    }

    /// Whether `c` can begin the next element of the innermost container.
    fn starts_element(&self, c: u8) -> bool {
        let quote_or_word =
            quote_at(self.bytes, self.pos).is_some() || is_ident_byte(c) || c >= 0x80;
        match self.top() {
            Some(Container::Object) => quote_or_word,
            _ => quote_or_word || matches!(c, b'{' | b'[' | b'.'),
        }
    }

    /// Whether `c` can begin a member's value (after a key whose `:` is missing).
    fn starts_value(&self, c: u8) -> bool {
        quote_at(self.bytes, self.pos).is_some()
            || c.is_ascii_alphanumeric()
            || matches!(c, b'-' | b'{' | b'[' | b'_' | b'$')
    }

    fn insert_missing_comma(&mut self) -> Scan<()> {
        if !self.out.is_char_boundary(self.value_end) {
            return Err(self.invalid());
        }
        self.out.insert(self.value_end, ',');
        self.comma_at = self.value_end;
        self.fixes.add(Fix::MissingComma);
        self.state = State::AfterComma;
        Ok(())
    }

    /// `{"a" 1}`: the colon goes right after the key, before the blanks that followed it.
    fn insert_missing_colon(&mut self) -> Scan<()> {
        let at = self.stack.last().map_or(0, |f| f.key.1);
        if at == 0 || !self.out.is_char_boundary(at) {
            return Err(self.invalid());
        }
        self.out.insert(at, ':');
        self.fixes.add(Fix::MissingColon);
        self.state = State::MemberValue;
        Ok(())
    }

    /// `{"a": , …}` or `{"a":}`: the value is `null`.
    fn missing_value(&mut self) {
        self.out.push_str("null");
        self.fixes.add(Fix::MissingValue);
        self.value_done();
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

    /// `...` or `…` where an element or member could stand: dropped, with a comma after it.
    fn skip_ellipsis(&mut self) -> bool {
        let Some(len) = ellipsis_at(self.bytes, self.pos) else {
            return false;
        };
        self.pos += len;
        self.fixes.add(Fix::Ellipsis);
        let next = self.past_blank(self.pos);
        if self.bytes.get(next) == Some(&b',') {
            self.pos = next + 1;
        }
        true
    }

    /// The input offset after any blanks and comments from `pos` on (nothing is written).
    pub(super) fn past_blank(&self, mut pos: usize) -> usize {
        loop {
            while self.bytes.get(pos).is_some_and(|&c| is_json_ws(c)) {
                pos += 1;
            }
            if let Some(len) = special_space_at(self.bytes, pos) {
                pos += len;
                continue;
            }
            match (self.bytes.get(pos), self.bytes.get(pos + 1)) {
                (Some(b'/'), Some(b'/')) => {
                    while self.bytes.get(pos).is_some_and(|&c| c != b'\n') {
                        pos += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => pos = self.block_comment_end(pos + 2),
                _ => return pos,
            }
        }
    }

    fn block_comment_end(&self, mut pos: usize) -> usize {
        loop {
            match self.bytes.get(pos) {
                None => return pos,
                Some(b'*') if self.bytes.get(pos + 1) == Some(&b'/') => return pos + 2,
                Some(_) => pos += 1,
            }
        }
    }

    /// Copies JSON whitespace (Unicode spaces as ` `) and drops comments, up to the next token.
    fn skip_blank(&mut self) {
        loop {
            let start = self.pos;
            while let Some(&c) = self.bytes.get(self.pos).filter(|&&c| is_json_ws(c)) {
                self.newline |= c == b'\n';
                self.pos += 1;
            }
            let out_start = self.out.len();
            if let Some(blank) = self.src.get(start..self.pos) {
                self.out.push_str(blank);
            }
            if let Some(len) = special_space_at(self.bytes, self.pos) {
                self.out.push(' ');
                self.pos += len;
                self.fixes.add(Fix::SpecialWhitespace);
                continue;
            }
            if self.bytes.get(self.pos) != Some(&b'/') {
                return;
            }
            // Spaces that only led up to a comment would dangle at the end of
            // the line once it is gone. Only this run's are taken: the space
            // written for a Unicode space before it stays, so the trim stops at
            // `out_start` rather than reading every such space again for each
            // comment (`\u{a0}/**/` × 80,000 took 2.3 s).
            let run = self.out.get(out_start..).unwrap_or_default();
            let kept = out_start + run.trim_end_matches([' ', '\t']).len();
            match self.bytes.get(self.pos + 1) {
                // The line break itself stays: it may separate two values.
                Some(b'/') => {
                    while self.bytes.get(self.pos).is_some_and(|&c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                Some(b'*') => self.pos = self.block_comment_end(self.pos + 2),
                _ => return,
            }
            self.out.truncate(kept);
            self.fixes.add(Fix::Comment);
        }
    }

    fn open_container(&mut self) -> Scan<()> {
        // serde_json rejects the 128th level; stop at the same point.
        let depth = self
            .stack
            .iter()
            .filter(|f| matches!(f.kind, Container::Object | Container::Array))
            .count();
        if depth + 1 >= MAX_DEPTH {
            return Err(ScanError::TooDeep);
        }
        let (kind, state, ch) = match self.bytes.get(self.pos) {
            Some(b'{') => (Container::Object, State::KeyOrClose, '{'),
            Some(b'[') => (Container::Array, State::ValueOrClose, '['),
            _ => return Err(self.invalid()),
        };
        self.stack.push(Frame::new(kind));
        self.state = state;
        self.out.push(ch);
        self.pos += 1;
        Ok(())
    }

    /// The closer `c` at `self.pos`. One of the wrong kind closes the innermost container all
    /// the same (`{"a": [1}, "b": 2}` is `{"a": [1], "b": 2}`): reading it as the closer of a
    /// container further out would end the value early and cut the rest off.
    ///
    /// A closer closes nothing when it would end the value's outermost object and members of an
    /// object follow it, past any more closers (`{"a": {"b": 1}}}, "c": 2}`, `{"a": ["en"]],
    /// "b": 2}`): nothing but that object can take them, so those closers were too many. Valid
    /// JSON never has this (nothing follows the outermost value), and a closer inside the value
    /// is left alone: a container around it could take what follows as well.
    ///
    /// One of the wrong kind right before the innermost container's own closer closes nothing
    /// either (`{"x": {"b": [{"c": 2}}], "d": 3}}`: `"d"` stays in `"x"`), when the value then
    /// closes with the closers that follow: else it was a pair of closers swapped (`{"x": {"b":
    /// [1}], "d": 3}`, `[[1}]`), read as before by the second scan (`twice`). Nor when the next
    /// closer would end the outermost object before more members: the rule above reads those
    /// two, as before (`{"a": 1, "b": [{"c": 2}}], "d": 3}`).
    fn close(&mut self, c: u8) -> Scan<()> {
        let (want, own) = if c == b'}' {
            (Container::Object, b']')
        } else {
            (Container::Array, b'}')
        };
        let mut redundant = match self.top() {
            Some(Container::Root) if !self.elements.is_empty() => Some(self.pos + 1),
            _ => self.members_after_outermost(0),
        };
        if redundant.is_none()
            && self.close_early
            && matches!(self.top(), Some(k @ (Container::Object | Container::Array)) if k != want)
            && self.bytes.get(self.past_blank(self.pos + 1)) == Some(&own)
            && self.members_after_outermost(1).is_none()
        {
            self.closed_early = true;
            self.wrong_dropped = true;
            redundant = Some(self.pos + 1);
        }
        if let Some(next) = redundant {
            self.pos = next;
            self.fixes.add(Fix::RedundantBracket);
            // A trailing comma was taken back before the closer: the last value is complete.
            if self.state == State::AfterComma {
                self.state = State::CommaOrClose;
            }
            return Ok(());
        }
        match self.top() {
            Some(kind) if kind == want => {}
            Some(Container::Object | Container::Array) => self.fixes.add(Fix::MismatchedBracket),
            _ => return Err(self.invalid()),
        }
        self.pos += 1;
        self.pop_container();
        Ok(())
    }

    /// [`Scanner::members_follow`] the closer at `self.pos`, when it would end the value's
    /// outermost object once `closed` containers more are closed.
    fn members_after_outermost(&self, closed: usize) -> Option<usize> {
        let mut kinds = self.stack.iter().rev().skip(closed).map(|f| f.kind);
        let outermost = kinds.next() == Some(Container::Object)
            && !matches!(kinds.next(), Some(Container::Object | Container::Array));
        outermost
            .then(|| self.members_follow(self.pos + 1))
            .flatten()
    }

    /// Where the `,` before an object's next member lies, when blanks and closers after `from`
    /// lead to one: a key in `"` or `'` on one line, and its `:` (a word and a `:` may be prose:
    /// `, note: …`). Linear: the closers read are then skipped or the object they follow ends,
    /// so no closer is looked past twice in one scan.
    pub(super) fn members_follow(&self, from: usize) -> Option<usize> {
        let mut pos = self.past_blank(from);
        while matches!(self.bytes.get(pos), Some(b'}' | b']')) {
            pos = self.past_blank(pos + 1);
        }
        let comma = pos;
        let mut colon = false;
        if self.bytes.get(comma) == Some(&b',') {
            let key = self.past_blank(comma + 1);
            if let Some(&quote @ (b'"' | b'\'')) = self.bytes.get(key) {
                pos = key + 1;
                while self
                    .bytes
                    .get(pos)
                    .is_some_and(|&c| c != quote && c != b'\n')
                {
                    pos += 1;
                }
                colon = self.bytes.get(pos) == Some(&quote)
                    && self.bytes.get(self.past_blank(pos + 1)) == Some(&b':');
            }
        }
        colon.then_some(comma)
    }

    /// Pops the innermost object or array and writes its closer.
    fn pop_container(&mut self) {
        match self.stack.pop().map(|f| f.kind) {
            Some(Container::Object) => self.out.push('}'),
            Some(Container::Array) => self.out.push(']'),
            _ => {}
        }
        self.value_done();
    }

    /// Closes the innermost container where a value follows that cannot belong to it.
    fn close_implicitly(&mut self) -> Scan<()> {
        match self.top() {
            Some(Container::Object | Container::Array) => {
                self.fixes.add(Fix::UnclosedBracket);
                self.pop_container();
                Ok(())
            }
            _ => Err(self.invalid()),
        }
    }

    fn close_call(&mut self) -> Scan<()> {
        if self.top() != Some(Container::Call) || self.state == State::ValueOrClose {
            return Err(self.invalid());
        }
        self.stack.pop();
        self.pos += 1;
        self.value_done();
        self.after_call = true;
        Ok(())
    }

    /// After a complete value: the parent now wants a comma or its closer.
    pub(super) fn value_done(&mut self) {
        self.value_end = self.out.len();
        self.state = State::CommaOrClose;
        self.newline = false;
        self.after_call = false;
        if let Some(frame) = self.stack.last_mut() {
            match frame.kind {
                Container::Array => frame.index += 1,
                Container::Root => {
                    frame.index += 1;
                    self.elements.push((self.element_start, self.out.len()));
                    // The value's own fixes, then merged into the sequence's.
                    let own = match self.outer_fixes.take() {
                        Some(outer) => std::mem::replace(&mut self.fixes, outer),
                        None => self.fixes.clone(),
                    };
                    self.fixes.extend(own.iter());
                    self.element_fixes.push(own);
                }
                Container::Object | Container::Call => {}
            }
        }
    }

    /// End of input: finish the member in progress, drop a dangling comma,
    /// close every open container innermost first.
    fn close_at_end(&mut self) -> Scan<()> {
        // A closer dropped before the container's own left one open: it was a swapped pair.
        if self.wrong_dropped && matches!(self.top(), Some(Container::Object | Container::Array)) {
            return Err(self.invalid());
        }
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
        while let Some(kind) = self.top() {
            match kind {
                Container::Object | Container::Array => {
                    self.fixes.add(Fix::UnclosedBracket);
                    self.pop_container();
                }
                // A call cut before its value closes nothing the strict check would accept.
                Container::Call if self.state == State::ValueOrClose => return Err(self.invalid()),
                Container::Call => {
                    self.stack.pop();
                    self.value_done();
                }
                Container::Root => {
                    self.stack.pop();
                }
            }
        }
        Ok(())
    }

    /// A value at `self.pos` (array element, member value, or a value of a sequence).
    fn value(&mut self) -> Scan<()> {
        if self.top() == Some(Container::Root) {
            self.element_start = self.out.len();
            // A value read again from the same place (after a misleading guess) keeps the
            // sequence's fixes put aside the first time.
            if self.outer_fixes.is_none() {
                self.outer_fixes = Some(std::mem::take(&mut self.fixes));
            }
            self.same_line |= !self.elements.is_empty() && !self.newline;
            // An object or array of a sequence that is strict JSON is copied as it is: the
            // heuristics for broken text must never bend a valid value (`[{"a": "{"}] and
            // prose`). Not a string: `"24" screen"` is one string with an unescaped quote.
            let container = matches!(self.bytes.get(self.pos), Some(b'{' | b'['));
            let strict = container
                .then(|| super::candidates::strict_len(self.src.get(self.pos..).unwrap_or("")))
                .flatten();
            if let Some(len) = strict {
                // Unless members of an object follow it (`{"a": {"b": 1}}}, "c": 2}`): its last
                // closer was one too many, so it is read (as JSON reads it) for `close` to drop.
                match self.src.get(self.pos..self.pos + len) {
                    Some(value) if self.members_follow(self.pos + len).is_none() => {
                        self.out.push_str(value);
                        self.pos += len;
                        self.value_done();
                        return Ok(());
                    }
                    _ => self.strict_end = self.pos + len,
                }
            }
        }
        let Some(&c) = self.bytes.get(self.pos) else {
            return Err(self.invalid());
        };
        if let Some((quote, _)) = quote_at(self.bytes, self.pos) {
            return self.string_value(quote);
        }
        match c {
            b'{' | b'[' => {
                // Inside a value too, an object or array that is strict JSON is read as JSON
                // reads it (a sequence's was tried above). It is still read, not copied, so its
                // depth counts towards MAX_DEPTH.
                if self.pos >= self.strict_end && self.top() != Some(Container::Root) {
                    if let Some(end) = self.strict_value(self.pos) {
                        self.strict_end = end;
                    }
                }
                self.open_container()
            }
            b'-' | b'0'..=b'9' | b'.' => self.number(),
            b'/' => self.regex(),
            _ => self.word_value(),
        }
    }

    /// A key at `self.pos`; leaves the scanner expecting `:`.
    fn key(&mut self) -> Scan<()> {
        let start = self.out.len();
        if let Some((quote, _)) = quote_at(self.bytes, self.pos) {
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
            // `{a": 1}`: the closing quote of a key whose opening quote is missing.
            if self.bytes.get(self.pos) == Some(&b'"')
                && self.bytes.get(self.past_blank(self.pos + 1)) == Some(&b':')
            {
                self.pos += 1;
            }
        }
        if let Some(frame) = self.stack.last_mut() {
            frame.key = (start, self.out.len());
        }
        self.state = State::Colon;
        Ok(())
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

    /// A literal, a function call around a value, or a bare word.
    fn word_value(&mut self) -> Scan<()> {
        let start = self.pos;
        let word = self.word();
        let literal = match word {
            "true" | "false" | "null" => Some((word, None)),
            "True" => Some(("true", Some(Fix::PythonLiteral))),
            "False" => Some(("false", Some(Fix::PythonLiteral))),
            "None" => Some(("null", Some(Fix::PythonLiteral))),
            "undefined" => Some(("null", Some(Fix::UndefinedLiteral))),
            _ => None,
        };
        if let Some((json, fix)) = literal {
            self.out.push_str(json);
            if let Some(fix) = fix {
                self.fixes.add(fix);
            }
            self.value_done();
            return Ok(());
        }
        let after = self.past_blank(self.pos);
        let is_name = word
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'$');
        if is_name && self.bytes.get(after) == Some(&b'(') {
            if self.stack.len() >= MAX_DEPTH {
                return Err(ScanError::TooDeep);
            }
            self.pos = after + 1;
            self.stack.push(Frame::new(Container::Call));
            self.state = State::ValueOrClose;
            self.fixes.add(Fix::FunctionWrapper);
            return Ok(());
        }
        self.pos = start;
        self.bare_word()
    }

    /// An unquoted string value, when bare words are allowed: it runs to the next `,`, bracket,
    /// line break, `"` or comment, and is quoted. Where it lies is recorded, so that the caller
    /// can check the schema expects a string there.
    pub(super) fn bare_word(&mut self) -> Scan<()> {
        // Each one's path is checked against the schema later; past this many the text is not
        // a value with a few unquoted strings in it, and checking would cost seconds.
        const MAX_BARE_WORDS: usize = 10_000;
        if !self.allow_bare || self.bare_words.len() >= MAX_BARE_WORDS {
            return Err(self.invalid());
        }
        let start = self.pos;
        let in_call = self.top() == Some(Container::Call);
        let mut end = start;
        while let Some(&c) = self.bytes.get(end) {
            let stop = ends_unquoted_text(c)
                || c == b'"'
                || (c == b')' && in_call)
                || (c == b'/'
                    && (self.bytes.get(end + 1) == Some(&b'*')
                        || (self.bytes.get(end + 1) == Some(&b'/')
                            && (end == start
                                || self.bytes.get(end - 1).is_some_and(|&p| is_json_ws(p))))));
            if stop {
                break;
            }
            end += 1;
        }
        let Some(word) = self.src.get(start..end).map(|w| w.trim_end()) else {
            return Err(self.invalid());
        };
        if word.is_empty() {
            return Err(self.invalid());
        }
        self.pos = start + word.len();
        push_json_string(&mut self.out, word);
        self.fixes.add(Fix::UnquotedString);
        let place = self.place();
        self.bare_words.push(place);
        // `{"a": foo"}`: the closing quote of a string whose opening quote is missing.
        if self.bytes.get(self.pos) == Some(&b'"') {
            self.pos += 1;
        }
        self.value_done();
        Ok(())
    }

    /// Where the value being read lies: the element of the sequence (the root's index) and the
    /// last step of its path from there. Each open container keeps its own place once made, so
    /// a key is decoded once however many words lie under it (`paths.rs`).
    fn place(&mut self) -> (usize, Option<usize>) {
        let element = match self.stack.first() {
            Some(f) if f.kind == Container::Root => f.index,
            _ => 0,
        };
        // The place of frame `i` (the bottom one is at the top of the value), then of the value
        // in the innermost one, which is not kept.
        let mut at = None;
        for i in 1..=self.stack.len() {
            let Some(parent) = self.stack.get(i - 1).copied() else {
                break;
            };
            at = match self.stack.get(i).and_then(|f| f.place) {
                Some(place) => place,
                None => {
                    let place = self.step_into(at, parent);
                    if let Some(frame) = self.stack.get_mut(i) {
                        frame.place = Some(place);
                    }
                    place
                }
            };
        }
        (element, at)
    }

    /// The place of the value read now in `frame`, whose own place is `up`: one step further for
    /// a member (its key decoded from the output) or an array item; the same place inside a
    /// call, or at the top of an element of a sequence.
    fn step_into(&mut self, up: Option<usize>, frame: Frame) -> Option<usize> {
        let seg = match frame.kind {
            Container::Object => {
                let key = self.out.get(frame.key.0..frame.key.1);
                match key.and_then(|k| serde_json::from_str::<String>(k).ok()) {
                    Some(key) => PathSeg::Key(key),
                    None => return up,
                }
            }
            Container::Array => PathSeg::Index(frame.index),
            Container::Root | Container::Call => return up,
        };
        self.bare_steps.push(Step { up, seg });
        Some(self.bare_steps.len() - 1)
    }

    /// `/…/`, a JavaScript regular expression literal (comments were skipped before): its
    /// source text as a string, up to the next unescaped `/` on the same line.
    fn regex(&mut self) -> Scan<()> {
        let start = self.pos;
        let mut end = start + 1;
        loop {
            match self.bytes.get(end) {
                Some(b'\\') => end += 2,
                Some(b'/') => break,
                Some(b'\n' | b'\r') | None => return Err(self.invalid()),
                Some(_) => end += 1,
            }
        }
        let Some(source) = self.src.get(start..=end) else {
            return Err(self.invalid());
        };
        push_json_string(&mut self.out, source);
        self.fixes.add(Fix::RegexLiteral);
        self.pos = end + 1;
        self.value_done();
        Ok(())
    }

    /// A number-like token: copied when it is a JSON number, completed when it only lacks a
    /// digit, kept as a string when it has leading zeros or starts with a digit but is no
    /// number (`0.0.1`, a date, a UUID), else a bare word.
    fn number(&mut self) -> Scan<()> {
        let start = self.pos;
        let mut end = start + 1;
        while let Some(&c) = self.bytes.get(end) {
            // `12:30:45` is one token; a `:` before anything else ends it.
            let time = c == b':' && self.bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
            if !is_number_token_byte(c) && !time {
                break;
            }
            end += 1;
        }
        let token = self.src.get(start..end).unwrap_or("");
        match read_number(token) {
            Number::Valid => self.out.push_str(token),
            Number::Completed(fixed) => {
                self.out.push_str(&fixed);
                self.fixes.add(Fix::NumberFormat);
            }
            Number::LeadingZeros => {
                push_json_string(&mut self.out, token);
                self.fixes.add(Fix::LeadingZeros);
            }
            Number::Invalid if digit_led(token) => {
                push_json_string(&mut self.out, token);
                self.fixes.add(Fix::InvalidNumber);
            }
            Number::Invalid => return self.bare_word(),
        }
        self.pos = end;
        self.value_done();
        Ok(())
    }
}

/// The length of the UTF-8 sequence a lead byte starts (1 for anything else).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Whether a token starts with a digit (after an optional sign or dot): data, not a word.
fn digit_led(token: &str) -> bool {
    token
        .trim_start_matches(['-', '+', '.'])
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_digit())
}

/// Writes `text` as a JSON string literal.
pub(super) fn push_json_string(out: &mut String, text: &str) {
    match serde_json::to_string(text) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum Number {
    Valid,
    Completed(String),
    LeadingZeros,
    Invalid,
}

/// Judges a number-like token by JSON's grammar:
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
pub(super) fn read_number(token: &str) -> Number {
    let b = token.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let int_start = i;
    let int_len = digits(&mut i);
    let leading_zero = int_len > 1 && b.get(int_start) == Some(&b'0');
    let mut fixed = String::new();
    let mut completed = false;
    fixed.push_str(token.get(..int_start).unwrap_or(""));
    if int_len == 0 {
        if b.get(i) != Some(&b'.') {
            return Number::Invalid;
        }
        fixed.push('0');
        completed = true;
    } else {
        fixed.push_str(token.get(int_start..i).unwrap_or(""));
    }
    let mut frac_len = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        fixed.push('.');
        let start = i;
        frac_len = digits(&mut i);
        if frac_len == 0 {
            fixed.push('0');
            completed = true;
        }
        fixed.push_str(token.get(start..i).unwrap_or(""));
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        fixed.push_str(token.get(i..i + 1).unwrap_or("e"));
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            fixed.push_str(token.get(i..i + 1).unwrap_or(""));
            i += 1;
        }
        let start = i;
        if digits(&mut i) == 0 {
            fixed.push('0');
            completed = true;
        }
        fixed.push_str(token.get(start..i).unwrap_or(""));
    }
    if i != b.len() {
        return Number::Invalid;
    }
    if leading_zero {
        return Number::LeadingZeros;
    }
    if int_len == 0 && frac_len == 0 {
        // `.` or `-.e5`: no digit of a number is there.
        return Number::Invalid;
    }
    if completed {
        Number::Completed(fixed)
    } else {
        Number::Valid
    }
}

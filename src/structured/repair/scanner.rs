//! The scanner: one forward pass that repairs while it copies (see the module doc of `repair`).

use super::lexical::*;
use super::{Fix, FixList, Repaired, MAX_DEPTH};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Container {
    Object,
    Array,
}

/// What the innermost open container expects next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum State {
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
pub(super) enum ScanError {
    /// Not repairable from here; the byte offset where scanning stopped.
    Invalid(usize),
    /// Nesting beyond [`MAX_DEPTH`].
    TooDeep,
}

/// The four ways a string can be quoted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    Double,
    Single,
    /// “…” (U+201C/U+201D).
    SmartDouble,
    /// ‘…’ (U+2018/U+2019).
    SmartSingle,
}

pub(super) struct Scanner<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    pub(super) out: String,
    pub(super) fixes: FixList,
    pub(super) stack: Vec<Container>,
    state: State,
    /// Output offset just after the last complete value, where a missing
    /// comma belongs (before any whitespace that followed it).
    value_end: usize,
    /// Output offset of the last comma written, to take back a trailing one.
    comma_at: usize,
}

pub(super) type Scan<T> = Result<T, ScanError>;

impl<'a> Scanner<'a> {
    pub(super) fn new(src: &'a str) -> Self {
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
    pub(super) fn reset(&mut self, start: usize, fixes: FixList) {
        self.pos = start;
        self.out.clear();
        self.fixes = fixes;
        self.stack.clear();
        self.state = State::ValueOrClose;
        self.value_end = 0;
        self.comma_at = 0;
    }

    pub(super) fn finish(self) -> Repaired {
        Repaired {
            text: self.out,
            fixes: self.fixes.into_vec(),
        }
    }

    /// Scans one value starting at the `{` or `[` at `self.pos`; returns the
    /// input offset just after it (or the end of input, where it is closed).
    pub(super) fn scan(&mut self) -> Scan<usize> {
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

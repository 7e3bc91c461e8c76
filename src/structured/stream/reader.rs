//! The resumable reader: bytes of each chunk in, value events out (see the
//! module docs of [`super`] for the rules it follows and why).
//!
//! One `Phase` says where the reader is relative to the value (before it,
//! inside it, after it, or given up); inside the value an explicit stack of
//! open containers plus one structural [`State`] for the innermost one say
//! what may come next, exactly as in the repair scanner
//! (`super::super::repair`), and one [`Token`] holds whatever was cut by the
//! end of a chunk: a string with its escape in progress, a number, a word, a
//! comment, or a quote that may or may not close its string. Every byte is
//! looked at once; nothing before the current chunk is read again.

use serde_json::Value;

use super::builder::Builder;

mod strings;

/// serde_json rejects the 128th nested container and the repair scanner stops
/// at the same level (`repair::MAX_DEPTH`).
pub(super) const MAX_DEPTH: usize = 128;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Container {
    Object,
    Array,
}

/// Where the reader is relative to the value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Only JSON whitespace so far.
    Start,
    /// Backticks at the start of the reply: how many so far (a fence needs 3).
    Ticks(u8),
    /// After the three backticks of an opening fence: more backticks, then
    /// blanks, then the language tag, as the repair scanner skips them.
    FenceTicks,
    FenceBlanks,
    FenceTag,
    /// After the opening fence, before the value.
    AfterFence,
    /// Prose before the value: looking for the first `{` or `[`.
    Prose,
    /// Inside the value.
    Value,
    /// The value closed; the rest is not read (strict mode: only whitespace may follow).
    After,
    /// Given up: nothing more is read.
    Opaque,
}

/// What the innermost open container expects next (`Root`: no container open).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Root,
    ValueOrClose,
    KeyOrClose,
    Colon,
    MemberValue,
    CommaOrClose,
    AfterComma,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Quote {
    Double,
    Single,
    /// “…” (U+201C/U+201D).
    SmartDouble,
    /// ‘…’ (U+2018/U+2019).
    SmartSingle,
}

/// Progress through a backslash escape, or a closing quote not yet decided.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Esc {
    No,
    Backslash,
    /// `\u` and `n` hex digits (their text is in `Reader::pending`).
    Hex {
        n: u8,
        code: u32,
    },
    /// A complete high-surrogate escape: a `\uDC00`..`\uDFFF` must follow.
    High {
        high: u32,
    },
    HighBackslash {
        high: u32,
    },
    LowHex {
        high: u32,
        n: u8,
        code: u32,
    },
    /// A `'`, `’` or `”` that closes its string only if the next non-blank is
    /// `,` `}` `]` `:`, a line break or a comment; `Reader::pending` holds the
    /// quote and the blanks after it; `slash` when a `/` followed them.
    Closing {
        slash: bool,
    },
}

/// A token cut by the end of a chunk, or `None` between tokens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Token {
    None,
    Str {
        quote: Quote,
        key: bool,
        esc: Esc,
    },
    /// A number-like run, in `Reader::buf`.
    Number,
    /// An identifier-like run (a literal, or an unquoted key), in `Reader::buf`.
    Word {
        key: bool,
    },
    /// A `/` that must start a comment.
    Slash,
    LineComment,
    BlockComment {
        star: bool,
    },
}

/// Text that strict JSON cannot hold at some byte offset (`what` names it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct SyntaxError {
    pub offset: usize,
    pub what: &'static str,
}

/// The reader's state between chunks.
#[derive(Debug, Clone)]
pub(super) struct Reader {
    /// Local repair allowed (else only strict JSON is read, and anything else
    /// is a definitive syntax error).
    tolerant: bool,
    phase: Phase,
    stack: Vec<Container>,
    state: State,
    token: Token,
    /// The key, number or word in progress.
    buf: String,
    /// The raw text of a `\u` escape, or of a closing quote and its blanks.
    pending: String,
    /// The value started at the start of the reply (after a fence at most).
    lead: bool,
    /// The reply opened with a Markdown fence.
    fenced: bool,
    /// The value is a scalar or string at the top level: text after it means
    /// it was not the value after all (the repair scanner then looks for a bracket).
    root_scalar: bool,
    /// Bytes of the chunks before the current one.
    consumed: usize,
    /// A definitive syntax error (the reader is then opaque).
    error: Option<SyntaxError>,
}

/// U+2018..U+201D are encoded `E2 80 98`..`E2 80 9D`; the third byte tells which.
const SMART_LEFT_SINGLE: u8 = 0x98;
const SMART_RIGHT_SINGLE: u8 = 0x99;
const SMART_LEFT_DOUBLE: u8 = 0x9C;
const SMART_RIGHT_DOUBLE: u8 = 0x9D;

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

fn is_json_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-')
}

fn is_number_byte(c: u8) -> bool {
    c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')
}

fn is_fence_tag_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'.')
}

/// The character starting at byte `pos` of `chunk` (None off a boundary).
fn char_at(chunk: &str, pos: usize) -> Option<char> {
    chunk.get(pos..).and_then(|rest| rest.chars().next())
}

impl Reader {
    pub(super) fn new(tolerant: bool) -> Reader {
        Reader {
            tolerant,
            phase: Phase::Start,
            stack: Vec::new(),
            state: State::Root,
            token: Token::None,
            buf: String::new(),
            pending: String::new(),
            lead: true,
            fenced: false,
            root_scalar: false,
            consumed: 0,
            error: None,
        }
    }

    /// The definitive syntax error, once there is one.
    pub(super) fn error(&self) -> Option<SyntaxError> {
        self.error
    }

    /// Reads one chunk, reporting what it completes to `out`.
    pub(super) fn feed(&mut self, chunk: &str, out: &mut Builder) {
        let bytes = chunk.as_bytes();
        let mut pos = 0;
        while pos < bytes.len() {
            pos = match self.phase {
                Phase::Start | Phase::AfterFence => self.before_value(bytes, pos),
                Phase::Ticks(n) => self.ticks(bytes, pos, n),
                Phase::FenceTicks => {
                    skip_while(bytes, pos, &mut self.phase, Phase::FenceBlanks, |c| {
                        c == b'`'
                    })
                }
                Phase::FenceBlanks => {
                    skip_while(bytes, pos, &mut self.phase, Phase::FenceTag, |c| {
                        matches!(c, b' ' | b'\t')
                    })
                }
                Phase::FenceTag => skip_while(
                    bytes,
                    pos,
                    &mut self.phase,
                    Phase::AfterFence,
                    is_fence_tag_byte,
                ),
                Phase::Prose => self.prose(bytes, pos),
                Phase::Value => self.value(chunk, bytes, pos, out),
                Phase::After => self.after(bytes, pos, out),
                Phase::Opaque => bytes.len(),
            };
        }
        self.consumed += bytes.len();
    }

    // -----------------------------------------------------------------------
    // Before and after the value
    // -----------------------------------------------------------------------

    /// Whitespace, then (at the very start) a fence or the value; anything
    /// else is prose, which local repair skips and strict parsing refuses.
    fn before_value(&mut self, bytes: &[u8], mut pos: usize) -> usize {
        while bytes.get(pos).is_some_and(|&c| is_json_ws(c)) {
            pos += 1;
        }
        let Some(&c) = bytes.get(pos) else {
            return pos;
        };
        let starts_value = matches!(c, b'{' | b'[' | b'"' | b'-') || c.is_ascii_alphanumeric();
        if starts_value {
            self.phase = Phase::Value;
            self.state = State::Root;
            return pos;
        }
        if !self.tolerant {
            return self.fail(pos, "text before the value");
        }
        if c == b'`' && self.phase == Phase::Start {
            self.phase = Phase::Ticks(1);
            return pos + 1;
        }
        self.enter_prose();
        pos
    }

    fn ticks(&mut self, bytes: &[u8], pos: usize, n: u8) -> usize {
        if bytes.get(pos) == Some(&b'`') {
            self.fenced = n + 1 >= 3;
            self.phase = if n + 1 >= 3 {
                Phase::FenceTicks
            } else {
                Phase::Ticks(n + 1)
            };
            return pos + 1;
        }
        self.enter_prose();
        pos
    }

    fn enter_prose(&mut self) {
        self.phase = Phase::Prose;
        self.lead = false;
    }

    /// The value starts at the first `{` or `[` after prose, as in the repair scanner.
    fn prose(&mut self, bytes: &[u8], pos: usize) -> usize {
        let rest = bytes.get(pos..).unwrap_or_default();
        match rest.iter().position(|&c| c == b'{' || c == b'[') {
            Some(at) => {
                self.phase = Phase::Value;
                self.state = State::Root;
                pos + at
            }
            None => bytes.len(),
        }
    }

    /// After the value: strict JSON allows only whitespace. With local repair
    /// the rest is not read, except after a top-level scalar: then the text
    /// was prose that began like a value (`3 items: [...]`), so the scalar is
    /// taken back and the search for a bracket goes on, as in the repair
    /// scanner. A closing fence after a fenced scalar keeps it.
    fn after(&mut self, bytes: &[u8], mut pos: usize, out: &mut Builder) -> usize {
        while bytes.get(pos).is_some_and(|&c| is_json_ws(c)) {
            pos += 1;
        }
        let Some(&c) = bytes.get(pos) else {
            return pos;
        };
        if !self.tolerant {
            return self.fail(pos, "text after the value");
        }
        if !self.root_scalar || (self.fenced && self.lead && c == b'`') {
            // Settled: whatever follows is not read, in this chunk or later ones.
            self.root_scalar = false;
            return bytes.len();
        }
        self.root_scalar = false;
        out.reset();
        self.enter_prose();
        pos
    }

    /// Gives up: a definitive syntax error in strict mode; in tolerant mode the
    /// final parse (with its wider repair repertoire) decides, so nothing is reported.
    fn fail(&mut self, pos: usize, what: &'static str) -> usize {
        if !self.tolerant {
            self.error = Some(SyntaxError {
                offset: self.consumed + pos,
                what,
            });
        }
        self.phase = Phase::Opaque;
        usize::MAX
    }

    /// In strict mode, a construct only local repair accepts is a syntax error.
    fn repaired(&mut self, pos: usize, what: &'static str) -> Option<usize> {
        (!self.tolerant).then(|| self.fail(pos, what))
    }

    /// A scalar at the start of the reply that turns out not to be one (a
    /// word, an invalid number): prose, unless only strict JSON is read.
    fn root_not_a_value(&mut self, pos: usize, what: &'static str) -> usize {
        if !self.tolerant || !self.lead {
            return self.fail(pos, what);
        }
        self.token = Token::None;
        self.enter_prose();
        pos
    }

    /// After a complete value: the parent wants a comma or its closer, or the reply is done.
    fn value_done(&mut self) {
        self.token = Token::None;
        if self.stack.is_empty() {
            self.phase = Phase::After;
        } else {
            self.state = State::CommaOrClose;
        }
    }

    // -----------------------------------------------------------------------
    // Inside the value
    // -----------------------------------------------------------------------

    fn value(&mut self, chunk: &str, bytes: &[u8], pos: usize, out: &mut Builder) -> usize {
        match self.token {
            Token::None => self.structural(bytes, pos, out),
            Token::Str { quote, key, esc } => self.string(chunk, bytes, pos, quote, key, esc, out),
            Token::Number => self.number(bytes, pos, out),
            Token::Word { key } => self.word(chunk, bytes, pos, key, out),
            Token::Slash => match bytes.get(pos) {
                Some(b'/') => {
                    self.token = Token::LineComment;
                    pos + 1
                }
                Some(b'*') => {
                    self.token = Token::BlockComment { star: false };
                    pos + 1
                }
                _ => self.fail(pos, "an unexpected '/'"),
            },
            Token::LineComment => {
                let rest = bytes.get(pos..).unwrap_or_default();
                match rest.iter().position(|&c| c == b'\n') {
                    Some(at) => {
                        self.token = Token::None;
                        pos + at
                    }
                    None => bytes.len(),
                }
            }
            Token::BlockComment { mut star } => {
                let mut p = pos;
                while let Some(&c) = bytes.get(p) {
                    p += 1;
                    if star && c == b'/' {
                        self.token = Token::None;
                        return p;
                    }
                    star = c == b'*';
                }
                self.token = Token::BlockComment { star };
                p
            }
        }
    }

    /// Between tokens: whitespace, a comment, or what the state expects.
    fn structural(&mut self, bytes: &[u8], mut pos: usize, out: &mut Builder) -> usize {
        while bytes.get(pos).is_some_and(|&c| is_json_ws(c)) {
            pos += 1;
        }
        let Some(&c) = bytes.get(pos) else {
            return pos;
        };
        if c == b'/' && self.state != State::Root {
            if let Some(end) = self.repaired(pos, "a comment") {
                return end;
            }
            self.token = Token::Slash;
            return pos + 1;
        }
        match self.state {
            State::Root | State::MemberValue => self.begin_value(bytes, pos, out),
            State::ValueOrClose => match c {
                b']' => self.close(pos, Container::Array, out),
                b',' => self.drop_comma(pos),
                _ => self.begin_value(bytes, pos, out),
            },
            State::KeyOrClose => match c {
                b'}' => self.close(pos, Container::Object, out),
                b',' => self.drop_comma(pos),
                _ => self.begin_key(bytes, pos, out),
            },
            State::Colon => {
                if c != b':' {
                    return self.fail(pos, "a missing ':'");
                }
                self.state = State::MemberValue;
                pos + 1
            }
            State::CommaOrClose => match c {
                b',' => {
                    self.state = State::AfterComma;
                    pos + 1
                }
                b'}' => self.close(pos, Container::Object, out),
                b']' => self.close(pos, Container::Array, out),
                _ => {
                    // Only what can start the next element earns a comma.
                    let object = self.stack.last() == Some(&Container::Object);
                    let starts = matches!(c, b'"' | b'\'')
                        || is_ident_byte(c)
                        || c >= 0x80
                        || (!object && matches!(c, b'{' | b'['));
                    if !starts {
                        return self.fail(pos, "an unexpected character");
                    }
                    if let Some(end) = self.repaired(pos, "a missing ','") {
                        return end;
                    }
                    self.state = State::AfterComma;
                    pos
                }
            },
            State::AfterComma => match c {
                b',' => self.drop_comma(pos),
                b'}' | b']' => {
                    if let Some(end) = self.repaired(pos, "a trailing comma") {
                        return end;
                    }
                    let kind = if c == b'}' {
                        Container::Object
                    } else {
                        Container::Array
                    };
                    self.close(pos, kind, out)
                }
                _ => match self.stack.last() {
                    Some(Container::Object) => self.begin_key(bytes, pos, out),
                    _ => self.begin_value(bytes, pos, out),
                },
            },
        }
    }

    fn drop_comma(&mut self, pos: usize) -> usize {
        if let Some(end) = self.repaired(pos, "an extra comma") {
            return end;
        }
        pos + 1
    }

    fn close(&mut self, pos: usize, kind: Container, out: &mut Builder) -> usize {
        if self.stack.last() != Some(&kind) {
            return self.fail(pos, "a closing bracket that does not match");
        }
        self.stack.pop();
        out.end_container();
        self.value_done();
        pos + 1
    }

    /// A value (root, element or member value) starting at `pos`.
    fn begin_value(&mut self, bytes: &[u8], pos: usize, out: &mut Builder) -> usize {
        let Some(&c) = bytes.get(pos) else {
            return pos;
        };
        let root = self.state == State::Root;
        match c {
            b'{' | b'[' => {
                if self.stack.len() + 1 >= MAX_DEPTH {
                    if self.lead {
                        // Neither strict parsing nor the repair scanner goes deeper.
                        self.error = Some(SyntaxError {
                            offset: self.consumed + pos,
                            what: "nesting deeper than 127 levels",
                        });
                    }
                    self.phase = Phase::Opaque;
                    return usize::MAX;
                }
                let (kind, state) = if c == b'{' {
                    (Container::Object, State::KeyOrClose)
                } else {
                    (Container::Array, State::ValueOrClose)
                };
                if root {
                    out.start(self.lead);
                }
                out.begin_container(kind);
                self.stack.push(kind);
                self.state = state;
                pos + 1
            }
            b'"' => {
                if root {
                    self.root_scalar = true;
                    out.start(self.lead);
                }
                out.begin_string();
                self.token = Token::Str {
                    quote: Quote::Double,
                    key: false,
                    esc: Esc::No,
                };
                pos + 1
            }
            b'-' | b'0'..=b'9' => {
                self.root_scalar = root;
                self.buf.clear();
                self.buf.push(char::from(c));
                self.token = Token::Number;
                pos + 1
            }
            _ => {
                let quote = match (c, smart_quote_at(bytes, pos)) {
                    (b'\'', _) => Some((Quote::Single, 1)),
                    (_, Some(SMART_LEFT_SINGLE | SMART_RIGHT_SINGLE)) => {
                        Some((Quote::SmartSingle, 3))
                    }
                    (_, Some(_)) => Some((Quote::SmartDouble, 3)),
                    _ => None,
                };
                match quote {
                    Some(_) if root => self.root_not_a_value(pos, "a string in non-JSON quotes"),
                    Some((quote, len)) => {
                        if let Some(end) = self.repaired(pos, "a string in non-JSON quotes") {
                            return end;
                        }
                        out.heuristic();
                        out.begin_string();
                        self.token = Token::Str {
                            quote,
                            key: false,
                            esc: Esc::No,
                        };
                        pos + len
                    }
                    None => {
                        self.root_scalar = root;
                        self.buf.clear();
                        self.token = Token::Word { key: false };
                        pos
                    }
                }
            }
        }
    }

    /// A member key starting at `pos`.
    fn begin_key(&mut self, bytes: &[u8], pos: usize, out: &mut Builder) -> usize {
        let Some(&c) = bytes.get(pos) else {
            return pos;
        };
        self.buf.clear();
        let quote = match (c, smart_quote_at(bytes, pos)) {
            (b'"', _) => Some((Quote::Double, 1)),
            (b'\'', _) => Some((Quote::Single, 1)),
            (_, Some(SMART_LEFT_SINGLE | SMART_RIGHT_SINGLE)) => Some((Quote::SmartSingle, 3)),
            (_, Some(_)) => Some((Quote::SmartDouble, 3)),
            _ => None,
        };
        match quote {
            Some((quote, len)) => {
                if quote != Quote::Double {
                    if let Some(end) = self.repaired(pos, "a key in non-JSON quotes") {
                        return end;
                    }
                    out.heuristic();
                }
                self.token = Token::Str {
                    quote,
                    key: true,
                    esc: Esc::No,
                };
                pos + len
            }
            None => {
                if let Some(end) = self.repaired(pos, "an unquoted key") {
                    return end;
                }
                self.token = Token::Word { key: true };
                pos
            }
        }
    }

    /// A number-like run; it ends at the first other byte (never at a chunk's end).
    fn number(&mut self, bytes: &[u8], pos: usize, out: &mut Builder) -> usize {
        let rest = bytes.get(pos..).unwrap_or_default();
        let run = rest.iter().position(|&c| !is_number_byte(c));
        let end = pos + run.unwrap_or(rest.len());
        if let Some(digits) = rest.get(..end - pos) {
            // ASCII only, so always valid UTF-8.
            self.buf
                .push_str(std::str::from_utf8(digits).unwrap_or_default());
        }
        if run.is_none() {
            return end;
        }
        match selfheal_hot::parse_value(&self.buf) {
            Ok(value @ Value::Number(_)) => {
                if self.state == State::Root {
                    out.start(self.lead);
                }
                out.scalar(value);
                self.value_done();
                end
            }
            _ if self.state == State::Root => self.root_not_a_value(end, "an invalid number"),
            _ => self.fail(end, "an invalid number"),
        }
    }

    /// An identifier-like run: ASCII `[A-Za-z0-9_$-]` and non-ASCII letters or digits.
    fn word(
        &mut self,
        chunk: &str,
        bytes: &[u8],
        mut pos: usize,
        key: bool,
        out: &mut Builder,
    ) -> usize {
        loop {
            match bytes.get(pos) {
                None => return pos,
                Some(&c) if is_ident_byte(c) => {
                    self.buf.push(char::from(c));
                    pos += 1;
                }
                Some(&c) if c >= 0x80 => match char_at(chunk, pos) {
                    Some(ch) if ch.is_alphanumeric() => {
                        self.buf.push(ch);
                        pos += ch.len_utf8();
                    }
                    _ => break,
                },
                Some(_) => break,
            }
        }
        if self.buf.is_empty() {
            return if self.state == State::Root {
                self.root_not_a_value(pos, "an unexpected character")
            } else {
                self.fail(pos, "an unexpected character")
            };
        }
        if key {
            out.key(&self.buf);
            self.token = Token::None;
            self.state = State::Colon;
            return pos;
        }
        let (value, python) = match self.buf.as_str() {
            "true" => (Value::Bool(true), false),
            "false" => (Value::Bool(false), false),
            "null" => (Value::Null, false),
            "True" => (Value::Bool(true), true),
            "False" => (Value::Bool(false), true),
            "None" => (Value::Null, true),
            _ if self.state == State::Root => return self.root_not_a_value(pos, "a bare word"),
            _ => return self.fail(pos, "a bare word"),
        };
        if python {
            if self.state == State::Root {
                return self.root_not_a_value(pos, "a Python literal");
            }
            if let Some(end) = self.repaired(pos, "a Python literal") {
                return end;
            }
        }
        if self.state == State::Root {
            out.start(self.lead);
        }
        out.scalar(value);
        self.value_done();
        pos
    }
}

/// Skips bytes while `keep` holds; at the first other byte moves to `next`.
fn skip_while(
    bytes: &[u8],
    mut pos: usize,
    phase: &mut Phase,
    next: Phase,
    keep: impl Fn(u8) -> bool,
) -> usize {
    while bytes.get(pos).is_some_and(|&c| keep(c)) {
        pos += 1;
    }
    if pos < bytes.len() {
        *phase = next;
    }
    pos
}

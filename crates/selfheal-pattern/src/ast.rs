//! An ECMA-262 pattern as a tree: what the engine choice, the backtracking screen and the two
//! emitters (regex-lite syntax, JS `u`-mode source) read.
//!
//! The grammar is the one `jsonschema_regex::is_valid_ecma_regex` checks (ECMA-262
//! `Pattern[+UnicodeMode, +NamedCaptureGroups]` with ES2025 modifiers, widened with identity
//! escapes of any non-alphanumeric character). The syntax check runs first and stays the
//! authority on validity; this parser only needs to understand what passed it, and reports
//! anything it does not as `None` (the pattern is then refused as unsupported, never mis-read).

/// One node of a pattern.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// Matches the empty string.
    Empty,
    /// One code point (a lone surrogate stays a surrogate: it can only match in JS).
    Char(u32),
    /// `.`: any code point but a line terminator.
    Dot,
    /// `[...]`, `\d`, `\s`, `\w` and their negations, `\p{...}`.
    Class(Class),
    Assert(Assertion),
    /// `(...)`, `(?<name>...)` (capturing) or `(?:...)`.
    Group {
        body: Box<Node>,
        capture: Option<Option<String>>,
    },
    /// `(?ims-ims:...)`.
    Modified {
        flags: String,
        body: Box<Node>,
    },
    /// `(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`.
    Look {
        body: Box<Node>,
        behind: bool,
        negated: bool,
    },
    /// `\1` or `\k<name>`.
    Backref(Backref),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    /// `body{min,max}`; `max == None` is unbounded. Counts saturate at `u32::MAX`.
    Repeat {
        body: Box<Node>,
        min: u32,
        max: Option<u32>,
        greedy: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Assertion {
    Start,
    End,
    WordBoundary,
    NotWordBoundary,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Backref {
    Number(u32),
    Name(String),
}

/// A character class: items united, then negated if `negated`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Class {
    pub negated: bool,
    pub items: Vec<ClassItem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClassItem {
    /// Inclusive code point range (a single character is `lo == hi`).
    Range(u32, u32),
    /// `\d`, `\s`, `\w`, negated for `\D`, `\S`, `\W`.
    Perl(Perl, bool),
    /// `\p{...}` / `\P{...}`: the text between the braces, and whether negated. Only a JS
    /// engine knows what these contain.
    Property(String, bool),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Perl {
    Digit,
    Space,
    Word,
}

/// ECMA-262 `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, every Zs) and LineTerminator.
pub(crate) const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
pub(crate) const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
pub(crate) const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// What `.` does not match: the LineTerminators.
pub(crate) const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];
pub(crate) const MAX_CODE_POINT: u32 = 0x10_FFFF;

impl Perl {
    pub(crate) fn ranges(self) -> &'static [(u32, u32)] {
        match self {
            Perl::Digit => DIGIT,
            Perl::Space => SPACE,
            Perl::Word => WORD,
        }
    }
}

/// Sorted, merged, inclusive ranges over 0..=0x10FFFF (surrogates included: a JS string can
/// hold them even though a Rust one cannot).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Ranges(pub Vec<(u32, u32)>);

impl Ranges {
    pub(crate) fn from_unsorted(mut ranges: Vec<(u32, u32)>) -> Ranges {
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (lo, hi) in ranges {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        Ranges(merged)
    }

    pub(crate) fn negate(&self) -> Ranges {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut next = 0u32;
        for &(lo, hi) in &self.0 {
            if lo > next {
                out.push((next, lo - 1));
            }
            next = hi.saturating_add(1);
        }
        if next <= MAX_CODE_POINT {
            out.push((next, MAX_CODE_POINT));
        }
        Ranges(out)
    }
}

impl Ranges {
    pub(crate) fn contains(&self, c: u32) -> bool {
        self.0
            .binary_search_by(|&(lo, hi)| {
                if hi < c {
                    std::cmp::Ordering::Less
                } else if lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }

    pub(crate) fn intersects(&self, other: &Ranges) -> bool {
        let (mut i, mut j) = (0, 0);
        while let (Some(a), Some(b)) = (self.0.get(i), other.0.get(j)) {
            if a.1 < b.0 {
                i += 1;
            } else if b.1 < a.0 {
                j += 1;
            } else {
                return true;
            }
        }
        false
    }
}

impl Class {
    /// The code points this class matches, or `None` when it holds a `\p{...}`.
    pub(crate) fn ranges(&self) -> Option<Ranges> {
        let mut all = Vec::new();
        for item in &self.items {
            match item {
                ClassItem::Range(lo, hi) => all.push((*lo, *hi)),
                ClassItem::Perl(perl, false) => all.extend_from_slice(perl.ranges()),
                ClassItem::Perl(perl, true) => {
                    all.extend(Ranges(perl.ranges().to_vec()).negate().0);
                }
                ClassItem::Property(..) => return None,
            }
        }
        let set = Ranges::from_unsorted(all);
        Some(if self.negated { set.negate() } else { set })
    }
}

/// Parse a pattern that passed the ECMA-262 syntax check. `None`: a construct this parser does
/// not know (the caller refuses the pattern rather than guess).
pub(crate) fn parse(pattern: &str) -> Option<Node> {
    let mut p = Parser {
        chars: pattern.chars().collect(),
        at: 0,
        groups: 0,
    };
    let node = p.disjunction()?;
    (p.at == p.chars.len()).then_some(node)
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    groups: u32,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.at + offset).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self) -> Option<Node> {
        let mut alternatives = vec![self.alternative()?];
        while self.eat('|') {
            alternatives.push(self.alternative()?);
        }
        Some(if alternatives.len() == 1 {
            alternatives.pop()?
        } else {
            Node::Alt(alternatives)
        })
    }

    fn alternative(&mut self) -> Option<Node> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let quantifiable = !matches!(atom, Node::Assert(_) | Node::Look { .. });
            let term = match self.quantifier()? {
                Some((min, max, greedy)) if quantifiable => Node::Repeat {
                    body: Box::new(atom),
                    min,
                    max,
                    greedy,
                },
                Some(_) => return None,
                None => atom,
            };
            terms.push(term);
        }
        Some(match terms.len() {
            0 => Node::Empty,
            1 => terms.pop()?,
            _ => Node::Concat(terms),
        })
    }

    fn quantifier(&mut self) -> Option<Option<(u32, Option<u32>, bool)>> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.at += 1;
                let min = self.number()?;
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(self.number()?)
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') {
                    return None;
                }
                (min, max)
            }
            _ => return Some(None),
        };
        self.at += 1;
        let greedy = !self.eat('?');
        Some(Some((min, max, greedy)))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        let mut value: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(d);
            self.at += 1;
        }
        (self.at > start).then_some(value)
    }

    fn atom(&mut self) -> Option<Node> {
        Some(match self.bump()? {
            '^' => Node::Assert(Assertion::Start),
            '$' => Node::Assert(Assertion::End),
            '.' => Node::Dot,
            '(' => self.group()?,
            '[' => Node::Class(self.class()?),
            '\\' => self.atom_escape()?,
            '*' | '+' | '?' | '{' | '}' | ']' | ')' | '|' => return None,
            c => Node::Char(c as u32),
        })
    }

    fn group(&mut self) -> Option<Node> {
        let make = |p: &mut Parser, wrap: &dyn Fn(Box<Node>) -> Node| -> Option<Node> {
            let body = p.disjunction()?;
            if !p.eat(')') {
                return None;
            }
            Some(wrap(Box::new(body)))
        };
        if !self.eat('?') {
            self.groups = self.groups.saturating_add(1);
            return make(self, &|body| Node::Group {
                body,
                capture: Some(None),
            });
        }
        match self.bump()? {
            ':' => make(self, &|body| Node::Group {
                body,
                capture: None,
            }),
            '=' => make(self, &|body| Node::Look {
                body,
                behind: false,
                negated: false,
            }),
            '!' => make(self, &|body| Node::Look {
                body,
                behind: false,
                negated: true,
            }),
            '<' if self.eat('=') => make(self, &|body| Node::Look {
                body,
                behind: true,
                negated: false,
            }),
            '<' if self.eat('!') => make(self, &|body| Node::Look {
                body,
                behind: true,
                negated: true,
            }),
            '<' => {
                let name = self.group_name()?;
                self.groups = self.groups.saturating_add(1);
                make(self, &|body| Node::Group {
                    body,
                    capture: Some(Some(name.clone())),
                })
            }
            first => {
                let mut flags = String::from(first);
                loop {
                    match self.bump()? {
                        ':' => break,
                        c @ ('i' | 'm' | 's' | '-') => flags.push(c),
                        _ => return None,
                    }
                }
                make(self, &|body| Node::Modified {
                    flags: flags.clone(),
                    body,
                })
            }
        }
    }

    /// `name>` after `<`; `\u` escapes in names are decoded.
    fn group_name(&mut self) -> Option<String> {
        let mut name = String::new();
        loop {
            match self.bump()? {
                '>' => break,
                '\\' => {
                    if self.bump()? != 'u' {
                        return None;
                    }
                    name.push(char::from_u32(self.unicode_escape()?)?);
                }
                c => name.push(c),
            }
        }
        (!name.is_empty()).then_some(name)
    }

    fn atom_escape(&mut self) -> Option<Node> {
        let c = self.bump()?;
        Some(match c {
            'b' => Node::Assert(Assertion::WordBoundary),
            'B' => Node::Assert(Assertion::NotWordBoundary),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'p' | 'P' => Node::Class(Class {
                negated: false,
                items: vec![self.class_escape(c)?],
            }),
            'k' => {
                if !self.eat('<') {
                    return None;
                }
                Node::Backref(Backref::Name(self.group_name()?))
            }
            '1'..='9' => {
                self.at -= 1;
                Node::Backref(Backref::Number(self.number()?))
            }
            c => Node::Char(self.character_escape(c)?),
        })
    }

    /// `\d` … `\W`, `\p{…}`, `\P{…}` with the letter consumed.
    fn class_escape(&mut self, c: char) -> Option<ClassItem> {
        Some(match c {
            'd' => ClassItem::Perl(Perl::Digit, false),
            'D' => ClassItem::Perl(Perl::Digit, true),
            's' => ClassItem::Perl(Perl::Space, false),
            'S' => ClassItem::Perl(Perl::Space, true),
            'w' => ClassItem::Perl(Perl::Word, false),
            'W' => ClassItem::Perl(Perl::Word, true),
            'p' | 'P' => {
                if !self.eat('{') {
                    return None;
                }
                let mut body = String::new();
                loop {
                    match self.bump()? {
                        '}' => break,
                        c if c.is_ascii_alphanumeric() || c == '_' || c == '=' => body.push(c),
                        _ => return None,
                    }
                }
                ClassItem::Property(body, c == 'P')
            }
            _ => return None,
        })
    }

    /// `CharacterEscape` with its first character consumed: the code point it stands for.
    fn character_escape(&mut self, c: char) -> Option<u32> {
        Some(match c {
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            'c' => {
                let letter = self.bump()?;
                if !letter.is_ascii_alphabetic() {
                    return None;
                }
                letter as u32 % 32
            }
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => 0,
            'x' => {
                let hi = self.bump()?.to_digit(16)?;
                let lo = self.bump()?.to_digit(16)?;
                hi * 16 + lo
            }
            'u' => self.unicode_escape()?,
            c if !c.is_alphanumeric() => c as u32,
            _ => return None,
        })
    }

    /// After `\u`: `{H…}` or `HHHH`, a lead surrogate joined with a following `\uHHHH` trail.
    fn unicode_escape(&mut self) -> Option<u32> {
        if self.eat('{') {
            let mut value: u32 = 0;
            let mut digits = 0;
            while !self.eat('}') {
                value = value
                    .saturating_mul(16)
                    .saturating_add(self.bump()?.to_digit(16)?);
                digits += 1;
            }
            return (digits > 0 && value <= MAX_CODE_POINT).then_some(value);
        }
        let lead = self.hex4()?;
        if (0xD800..=0xDBFF).contains(&lead)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let at = self.at;
            self.at += 2;
            match self.hex4() {
                Some(trail) if (0xDC00..=0xDFFF).contains(&trail) => {
                    return Some(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00));
                }
                _ => self.at = at,
            }
        }
        Some(lead)
    }

    fn hex4(&mut self) -> Option<u32> {
        let mut value = 0;
        for _ in 0..4 {
            value = value * 16 + self.bump()?.to_digit(16)?;
        }
        Some(value)
    }

    /// After `[`.
    fn class(&mut self) -> Option<Class> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        loop {
            if self.eat(']') {
                return Some(Class { negated, items });
            }
            let start = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.at += 1;
                let end = self.class_atom()?;
                match (start, end) {
                    (ClassItem::Range(lo, _), ClassItem::Range(hi, _)) if lo <= hi => {
                        items.push(ClassItem::Range(lo, hi));
                    }
                    _ => return None,
                }
            } else {
                items.push(start);
            }
        }
    }

    fn class_atom(&mut self) -> Option<ClassItem> {
        let c = self.bump()?;
        if c != '\\' {
            return Some(ClassItem::Range(c as u32, c as u32));
        }
        let e = self.bump()?;
        Some(match e {
            'b' => ClassItem::Range(0x08, 0x08),
            '-' => ClassItem::Range('-' as u32, '-' as u32),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'p' | 'P' => self.class_escape(e)?,
            e => {
                let c = self.character_escape(e)?;
                ClassItem::Range(c, c)
            }
        })
    }
}

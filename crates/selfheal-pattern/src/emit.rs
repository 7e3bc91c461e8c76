//! A parsed pattern written out again: for regex-lite and fancy-regex (ECMA-262 meaning spelled
//! out, since their `.`, `\s` and `\w` differ) and as `u`-mode JS source (the syntax check also accepts
//! identity escapes such as `\-` outside a class, which `new RegExp(…, "u")` rejects).

use std::fmt::Write;

use crate::ast::{Assertion, Backref, Class, ClassItem, Node, Ranges, LINE_TERMINATORS};

/// Which Rust engine the pattern is written for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// regex-lite: no lookaround, backreferences, `\p{…}` or modifiers.
    Lite,
    /// fancy-regex (native builds): all of them, `\p{…}` from regex-syntax's Unicode tables.
    #[cfg_attr(all(target_arch = "wasm32", target_os = "unknown"), allow(dead_code))]
    Fancy,
}

/// Rust regex syntax with the pattern's ECMA-262 meaning, or `None` when `dialect` cannot
/// express it.
pub(crate) fn to_rust(node: &Node, dialect: Dialect) -> Option<String> {
    let mut out = String::new();
    rust(node, dialect, &mut out)?;
    Some(out)
}

/// Never matches: a position cannot be a word boundary and not one.
const NEVER: &str = r"(?:\b\B)";

fn rust(node: &Node, dialect: Dialect, out: &mut String) -> Option<()> {
    let fancy = dialect == Dialect::Fancy;
    match node {
        Node::Empty => out.push_str("(?:)"),
        Node::Char(c) => match char::from_u32(*c) {
            // A lone surrogate: no Rust string holds one.
            None => out.push_str(NEVER),
            Some(c) if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            Some(c) => {
                let _ = write!(out, r"\x{{{:x}}}", c as u32);
            }
        },
        Node::Dot => rust_ranges(&Ranges(LINE_TERMINATORS.to_vec()).negate(), out),
        Node::Class(class) => match class.ranges() {
            Some(set) => rust_ranges(&set, out),
            None if fancy => fancy_class(class, out),
            None => return None,
        },
        Node::Assert(a) => out.push_str(match a {
            Assertion::Start => "^",
            Assertion::End => "$",
            // ASCII word boundaries in ECMA-262 (u-mode, no i) and regex-lite alike.
            Assertion::WordBoundary if fancy => r"(?-u:\b)",
            Assertion::NotWordBoundary if fancy => r"(?-u:\B)",
            Assertion::WordBoundary => r"\b",
            Assertion::NotWordBoundary => r"\B",
        }),
        Node::Group { body, capture } => {
            match capture {
                Some(None) if fancy => out.push('('),
                Some(Some(name)) if fancy => {
                    let _ = write!(out, "(?<{name}>");
                }
                _ => out.push_str("(?:"),
            }
            rust(body, dialect, out)?;
            out.push(')');
        }
        Node::Modified { flags, body } if fancy => {
            let _ = write!(out, "(?{flags}:");
            rust(body, dialect, out)?;
            out.push(')');
        }
        Node::Look {
            body,
            behind,
            negated,
        } if fancy => {
            out.push_str(match (behind, negated) {
                (false, false) => "(?=",
                (false, true) => "(?!",
                (true, false) => "(?<=",
                (true, true) => "(?<!",
            });
            rust(body, dialect, out)?;
            out.push(')');
        }
        Node::Backref(Backref::Number(n)) if fancy => {
            let _ = write!(out, r"(?:\{n})");
        }
        Node::Backref(Backref::Name(name)) if fancy => {
            let _ = write!(out, r"\k<{name}>");
        }
        Node::Modified { .. } | Node::Look { .. } | Node::Backref(_) => return None,
        Node::Concat(nodes) => {
            for n in nodes {
                rust(n, dialect, out)?;
            }
        }
        Node::Alt(nodes) => {
            out.push_str("(?:");
            for (i, n) in nodes.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                rust(n, dialect, out)?;
            }
            out.push(')');
        }
        Node::Repeat {
            body,
            min,
            max,
            greedy,
        } => {
            out.push_str("(?:");
            rust(body, dialect, out)?;
            out.push(')');
            quantifier(*min, *max, *greedy, out);
        }
    }
    Some(())
}

/// A class with `\p{…}` items, for regex-syntax (which knows the Unicode tables).
fn fancy_class(class: &Class, out: &mut String) {
    out.push('[');
    if class.negated {
        out.push('^');
    }
    for item in &class.items {
        match item {
            ClassItem::Range(lo, hi) => out.push_str(&range_items(&Ranges(vec![(*lo, *hi)]))),
            ClassItem::Perl(perl, negated) => {
                let set = Ranges(perl.ranges().to_vec());
                out.push_str(&range_items(&if *negated { set.negate() } else { set }));
            }
            ClassItem::Property(name, negated) => {
                let _ = write!(out, r"\{}{{{name}}}", if *negated { 'P' } else { 'p' });
            }
        }
    }
    out.push(']');
}

/// A class as Rust regex ranges; surrogates are cut out (no Rust string holds one).
fn rust_ranges(set: &Ranges, out: &mut String) {
    let items = range_items(set);
    if items.is_empty() {
        out.push_str(NEVER);
    } else {
        out.push('[');
        out.push_str(&items);
        out.push(']');
    }
}

/// The inside of a class for `set`, without brackets.
fn range_items(set: &Ranges) -> String {
    let mut items = String::new();
    for &(lo, hi) in &set.0 {
        for (lo, hi) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
            if lo > hi {
                continue;
            }
            let _ = if lo == hi {
                write!(items, r"\x{{{lo:x}}}")
            } else {
                write!(items, r"\x{{{lo:x}}}-\x{{{hi:x}}}")
            };
        }
    }
    items
}

fn quantifier(min: u32, max: Option<u32>, greedy: bool, out: &mut String) {
    let _ = match max {
        None => write!(out, "{{{min},}}"),
        Some(max) if max == min => write!(out, "{{{min}}}"),
        Some(max) => write!(out, "{{{min},{max}}}"),
    };
    if !greedy {
        out.push('?');
    }
}

/// `u`-mode JS source (only the wasm build has a JS engine to give it to).
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) mod js_source {
    use std::fmt::Write;

    use super::quantifier;
    use crate::ast::{Assertion, Backref, Class, ClassItem, Node, Perl};

    /// `u`-mode JS source with the same meaning (only the wasm build has a JS engine to give it to).
    pub(crate) fn to_js(node: &Node) -> String {
        let mut out = String::new();
        js(node, &mut out);
        out
    }

    fn js_char(c: u32, out: &mut String) {
        match char::from_u32(c) {
            Some(c) if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            _ => {
                let _ = write!(out, r"\u{{{c:x}}}");
            }
        }
    }

    fn js(node: &Node, out: &mut String) {
        match node {
            Node::Empty => out.push_str("(?:)"),
            Node::Char(c) => js_char(*c, out),
            Node::Dot => out.push('.'),
            Node::Class(Class { negated, items }) => {
                out.push('[');
                if *negated {
                    out.push('^');
                }
                for item in items {
                    match item {
                        ClassItem::Range(lo, hi) => {
                            js_char(*lo, out);
                            if hi != lo {
                                out.push('-');
                                js_char(*hi, out);
                            }
                        }
                        ClassItem::Perl(perl, negated) => {
                            let letter = match perl {
                                Perl::Digit => 'd',
                                Perl::Space => 's',
                                Perl::Word => 'w',
                            };
                            out.push('\\');
                            out.push(if *negated {
                                letter.to_ascii_uppercase()
                            } else {
                                letter
                            });
                        }
                        ClassItem::Property(name, negated) => {
                            let _ = write!(out, r"\{}{{{name}}}", if *negated { 'P' } else { 'p' });
                        }
                    }
                }
                out.push(']');
            }
            Node::Assert(a) => out.push_str(match a {
                Assertion::Start => "^",
                Assertion::End => "$",
                Assertion::WordBoundary => r"\b",
                Assertion::NotWordBoundary => r"\B",
            }),
            Node::Group { body, capture } => {
                match capture {
                    None => out.push_str("(?:"),
                    Some(None) => out.push('('),
                    Some(Some(name)) => {
                        let _ = write!(out, "(?<{name}>");
                    }
                }
                js(body, out);
                out.push(')');
            }
            Node::Modified { flags, body } => {
                let _ = write!(out, "(?{flags}:");
                js(body, out);
                out.push(')');
            }
            Node::Look {
                body,
                behind,
                negated,
            } => {
                out.push_str(match (behind, negated) {
                    (false, false) => "(?=",
                    (false, true) => "(?!",
                    (true, false) => "(?<=",
                    (true, true) => "(?<!",
                });
                js(body, out);
                out.push(')');
            }
            // Wrapped, so that a digit written after it cannot extend the number.
            Node::Backref(Backref::Number(n)) => {
                let _ = write!(out, r"(?:\{n})");
            }
            Node::Backref(Backref::Name(name)) => {
                let _ = write!(out, r"\k<{name}>");
            }
            Node::Concat(nodes) => nodes.iter().for_each(|n| js(n, out)),
            Node::Alt(nodes) => {
                out.push_str("(?:");
                for (i, n) in nodes.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    js(n, out);
                }
                out.push(')');
            }
            Node::Repeat {
                body,
                min,
                max,
                greedy,
            } => {
                out.push_str("(?:");
                js(body, out);
                out.push(')');
                quantifier(*min, *max, *greedy, out);
            }
        }
    }
}

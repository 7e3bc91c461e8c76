//! Patterns that need no engine: `^` then single characters and classes, each repeated
//! `{m,n}` times, then maybe `$` (`^[A-Z]{3}-\d{4}$`, `^ord_[A-Za-z0-9]{8,}$`,
//! `^[^@\s]+@[^@\s]+$`), matched by one greedy pass over the subject.
//!
//! Most schema patterns look like this. Matching them here skips a call into JS (and the UTF-8
//! decode of the subject it costs) or regex-lite's PikeVM, and is what upstream jsonschema's
//! `RepeatedClass` and `Sequence` fast paths did with regex-syntax's parse.
//!
//! Greedy is exact when no repetition can give characters back to what follows it: every
//! repetition of varying count is last, followed by `$`, or followed by a required item whose
//! class shares no character with it. Then any match must end each run where greedy ends it.

use crate::ast::{Assertion, Node, Ranges};

#[derive(Debug, Clone)]
pub(crate) struct Simple {
    items: Vec<Item>,
    /// Ends with `$`: the subject must end where the last item does.
    to_end: bool,
}

#[derive(Debug, Clone)]
struct Item {
    set: Ranges,
    min: u32,
    max: Option<u32>,
}

impl Simple {
    pub(crate) fn new(node: &Node) -> Option<Simple> {
        let Node::Concat(terms) = node else {
            return None;
        };
        let (first, rest) = terms.split_first()?;
        if *first != Node::Assert(Assertion::Start) {
            return None;
        }
        let (rest, to_end) = match rest.split_last() {
            Some((Node::Assert(Assertion::End), rest)) => (rest, true),
            _ => (rest, false),
        };
        let items = rest.iter().map(item).collect::<Option<Vec<_>>>()?;
        for (i, it) in items.iter().enumerate() {
            if it.max == Some(it.min) {
                continue;
            }
            match items.get(i + 1) {
                None => {}
                Some(next) if next.min >= 1 && !next.set.intersects(&it.set) => {}
                Some(_) => return None,
            }
        }
        Some(Simple { items, to_end })
    }

    pub(crate) fn is_match(&self, subject: &str) -> bool {
        let mut chars = subject.chars().peekable();
        for item in &self.items {
            let max = item.max.unwrap_or(u32::MAX);
            let mut count = 0;
            while count < max {
                match chars.peek() {
                    Some(&c) if item.set.contains(c as u32) => {
                        chars.next();
                        count += 1;
                    }
                    _ => break,
                }
            }
            if count < item.min {
                return false;
            }
        }
        !self.to_end || chars.next().is_none()
    }
}

/// One character, class or `.`, possibly repeated; `None` for anything else.
fn item(node: &Node) -> Option<Item> {
    let (atom, min, max) = match node {
        Node::Repeat { body, min, max, .. } => (&**body, *min, *max),
        atom => (atom, 1, Some(1)),
    };
    let set = match atom {
        Node::Char(c) if char::from_u32(*c).is_some() => Ranges(vec![(*c, *c)]),
        Node::Class(class) => class.ranges()?,
        Node::Dot => Ranges(crate::ast::LINE_TERMINATORS.to_vec()).negate(),
        _ => return None,
    };
    Some(Item { set, min, max })
}

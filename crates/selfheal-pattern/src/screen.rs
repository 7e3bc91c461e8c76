//! Which patterns a backtracking engine (V8's irregexp, fancy-regex) matches in time linear in
//! the subject.
//!
//! A backtracking engine is exponential on nested or ambiguous repetition (`^(a+)+$`,
//! `(a|aa)+$`, `(.*a){20}`), and quadratic on everyday patterns too: a search retries every
//! start position, so an unanchored `\d+x` or `\s+$` costs O(n²) (measured in Node: 0.5 s for
//! 20,000 characters; a 4 MB reply would take hours). The screen is a sufficient condition, not
//! a characterisation, and is deliberately simple:
//!
//! * inside a repetition that can run more than once, nothing may vary in width or branch (no
//!   `?`, `*`, `+`, `{m,n}` with m < n, no alternation, no lookaround, no backreference): every
//!   way of splitting the subject between the iterations is then the same way;
//! * a "heavy" repetition is one whose maximum exceeds [`LIGHT`] (or is unbounded). A pattern
//!   anchored by a leading `^` runs once, so one heavy repetition costs O(n); a pattern that is
//!   not anchored runs at every position and may have none (each attempt is then bounded by
//!   the pattern alone);
//! * lookarounds right after the leading `^` run once, and may each hold one heavy repetition
//!   (the password idiom `^(?=.*\d)(?=.*[a-z]).{8,}$`); any other lookaround runs at many
//!   positions and may hold none;
//! * a backreference compares up to the length of what its group matched, so a pattern with
//!   one may have no heavy repetition at all.
//!
//! Patterns that fail the screen are matched by the linear engine (regex-lite) when it can
//! express them, and refused otherwise (see the crate docs).

use crate::ast::{Assertion, Node};

/// A repetition whose maximum is at most this is "light": it can cost at most this many steps.
pub(crate) const LIGHT: u32 = 16;

/// Whether a backtracking engine matches `node` in time linear in the subject (see the module
/// docs for the rules).
pub(crate) fn backtracking_safe(node: &Node) -> bool {
    let alternatives: &[Node] = match node {
        Node::Alt(alternatives) => alternatives,
        node => std::slice::from_ref(node),
    };
    alternatives.iter().all(alternative_safe)
}

fn alternative_safe(node: &Node) -> bool {
    let terms: &[Node] = match node {
        Node::Concat(terms) => terms,
        node => std::slice::from_ref(node),
    };
    let anchored = matches!(terms.first(), Some(Node::Assert(Assertion::Start)));
    let mut heavy = 0usize;
    let mut leading = anchored;
    for (i, term) in terms.iter().enumerate() {
        if i == 0 && anchored {
            continue;
        }
        if let Node::Look { body, .. } = term {
            if !steady(body, false)
                || !lookarounds_light(body)
                || heavy_count(body) > usize::from(leading)
            {
                return false;
            }
            continue;
        }
        leading = false;
        if !steady(term, false) || !lookarounds_light(term) {
            return false;
        }
        heavy += heavy_count(term);
    }
    if has_backref(node) && heavy > 0 {
        return false;
    }
    heavy <= usize::from(anchored)
}

/// Rule 1: inside a repetition that can run more than once, nothing varies in width or branches.
fn steady(node: &Node, in_repeat: bool) -> bool {
    match node {
        Node::Empty | Node::Char(_) | Node::Dot | Node::Class(_) | Node::Assert(_) => true,
        Node::Backref(_) | Node::Look { .. } if in_repeat => false,
        Node::Backref(_) => true,
        Node::Look { body, .. } => steady(body, false),
        Node::Group { body, .. } | Node::Modified { body, .. } => steady(body, in_repeat),
        Node::Concat(terms) => terms.iter().all(|t| steady(t, in_repeat)),
        Node::Alt(alternatives) => {
            !(in_repeat && alternatives.len() > 1)
                && alternatives.iter().all(|a| steady(a, in_repeat))
        }
        Node::Repeat { body, min, max, .. } => {
            if in_repeat && *max != Some(*min) {
                return false;
            }
            steady(body, in_repeat || max.is_none_or(|max| max > 1))
        }
    }
}

/// Heavy repetitions outside lookarounds.
fn heavy_count(node: &Node) -> usize {
    match node {
        Node::Repeat { body, max, .. } => {
            usize::from(max.is_none_or(|max| max > LIGHT)) + heavy_count(body)
        }
        Node::Group { body, .. } | Node::Modified { body, .. } => heavy_count(body),
        Node::Concat(nodes) | Node::Alt(nodes) => nodes.iter().map(heavy_count).sum(),
        _ => 0,
    }
}

/// Lookarounds nested anywhere in `node` (not leading) hold no heavy repetition.
fn lookarounds_light(node: &Node) -> bool {
    match node {
        Node::Look { body, .. } => heavy_count(body) == 0 && lookarounds_light(body),
        Node::Group { body, .. } | Node::Modified { body, .. } | Node::Repeat { body, .. } => {
            lookarounds_light(body)
        }
        Node::Concat(nodes) | Node::Alt(nodes) => nodes.iter().all(lookarounds_light),
        _ => true,
    }
}

fn has_backref(node: &Node) -> bool {
    match node {
        Node::Backref(_) => true,
        Node::Look { body, .. }
        | Node::Group { body, .. }
        | Node::Modified { body, .. }
        | Node::Repeat { body, .. } => has_backref(body),
        Node::Concat(nodes) | Node::Alt(nodes) => nodes.iter().any(has_backref),
        _ => false,
    }
}

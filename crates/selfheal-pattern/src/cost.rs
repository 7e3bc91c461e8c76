//! What one match may cost, estimated from the pattern before any subject is seen, so that a
//! match too long to finish in bounded time is refused before it starts (SPEC section 4: no
//! input makes an export run for seconds).
//!
//! Both engines that can take a pattern the [`simple`](crate::simple) pass cannot are linear in
//! the subject, with a factor that comes from the pattern alone, and the factor can be large:
//!
//! * **Backtracking** (the host's `RegExp`, fancy-regex), on a pattern the
//!   [`screen`](crate::screen) passed: at each start position (once when anchored) the engine tries every
//!   way the pattern's varying parts can split the subject: `a{1,16}a{1,16}a{1,16}b` tries
//!   16 × 16 × 16 ways at every position of `aaaa…` (55 s for 4 MB in V8). [`backtracking`]
//!   multiplies the ways along a sequence and adds them across alternatives; the one heavy
//!   repetition an anchored pattern may hold counts once, since the subject's length is the
//!   factor outside.
//! * **regex-lite's PikeVM** steps every live thread at every character: at worst every state
//!   of the pattern's automaton. [`linear`] counts them: `[a-z]{1,64}x` has about 130 (20 s
//!   for 4 MB).
//!
//! [`STEP_NS`] turns each count into time, measured through the wasm build (docs/PERFORMANCE.md,
//! "Pattern throughput"). The engine with the smaller estimate takes the pattern, and
//! [`BUDGET_NS`] bounds a match: a longer subject is an unfinished match, which jsonschema
//! decides under both outcomes and reports when they differ. A failing string is matched at most
//! three times (the yes/no check as parsed and as coerced, then for the report): 0.6 s.

use crate::ast::Node;

/// The estimated worst-case time of one match, in nanoseconds, above which it is refused.
pub(crate) const BUDGET_NS: f64 = 200e6;

/// Measured worst-case time per unit of estimate and byte of subject, in nanoseconds: one way
/// of a backtracking engine, one state of the PikeVM.
pub(crate) const STEP_NS: (f64, f64) = (5.0, 12.0);

/// The longest subject, in bytes, a match of `cost` nanoseconds per byte may take.
pub(crate) fn max_subject(cost: f64) -> usize {
    // `as` saturates: no cost (one greedy pass) allows any length.
    (BUDGET_NS / cost) as usize
}

/// Ways a backtracking engine may try at one start position (see the module docs). Counts are
/// `f64`, where products too large to matter go to infinity instead of wrapping.
pub(crate) fn backtracking(node: &Node) -> f64 {
    match node {
        Node::Group { body, .. } | Node::Modified { body, .. } | Node::Look { body, .. } => {
            backtracking(body)
        }
        Node::Concat(terms) => terms.iter().map(backtracking).product(),
        Node::Alt(alternatives) => alternatives.iter().map(backtracking).sum(),
        Node::Repeat {
            body,
            min,
            max: Some(max),
            ..
        } if *max <= crate::screen::LIGHT => f64::from(max - min + 1) * backtracking(body),
        Node::Repeat { body, .. } => backtracking(body),
        _ => 1.0,
    }
}

/// States of the automaton regex-lite builds (at most this many threads per character).
pub(crate) fn linear(node: &Node) -> f64 {
    match node {
        Node::Group { body, .. } | Node::Modified { body, .. } | Node::Look { body, .. } => {
            linear(body)
        }
        Node::Concat(terms) | Node::Alt(terms) => 1.0 + terms.iter().map(linear).sum::<f64>(),
        Node::Repeat { body, min, max, .. } => {
            f64::from(max.unwrap_or(min.saturating_add(1))) * (1.0 + linear(body))
        }
        _ => 1.0,
    }
}

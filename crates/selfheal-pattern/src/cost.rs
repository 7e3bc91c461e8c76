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
//!
//! One string's bound is not a reply's: 62 strings of 63 KB, each just under its bound, took
//! 10.3 s (`scripts/limits.mjs pattern-many-4m`, after an outside review, 2026-12-02). So the matches of one call share [`CALL_BUDGET_NS`]
//! too, within a [`scope`]. The worst-case estimate is 7-12x what ordinary strings cost (131
//! automaton states a byte against 11-18 for host names and e-mail addresses under the same
//! patterns), so regex-lite is charged the work it did (the states its PikeVM stepped:
//! patches/regex-lite) and only the host's `RegExp`, which counts nothing, its estimate. The
//! budget lets 4 MB of ordinary strings through the costliest common patterns (70 million
//! steps) and bounds any reply at about a second. Once it is spent, a match is not tried: it
//! answers `false` and is counted ([`refusals`]), so that the caller can tell the verdict was
//! not reached (selfheal reports such a value as not validated) without jsonschema's reruns for
//! unfinished matches, which ran the whole reply again up to 64 times.

use std::cell::Cell;

use crate::ast::Node;

/// The estimated worst-case time of one match, in nanoseconds, above which it is refused.
pub(crate) const BUDGET_NS: f64 = 200e6;

/// The estimated time all the matches of one call may take together (see the module docs):
/// 83 million regex-lite steps.
pub const CALL_BUDGET_NS: f64 = 1e9;

/// The budget of the outermost open [`scope`].
#[derive(Clone, Copy)]
struct Scope {
    /// Scopes open, the outermost included.
    depth: u32,
    /// Nanoseconds of matching left.
    left: f64,
    /// Matches refused since it opened.
    refused: u64,
}

thread_local! {
    static SCOPE: Cell<Scope> = const { Cell::new(Scope { depth: 0, left: 0.0, refused: 0 }) };
}

/// Runs `f` as one call: its matches share [`CALL_BUDGET_NS`]. A scope opened inside another
/// shares the outer one's budget, so each entry point can open one without knowing its callers.
/// Matches outside any scope have only their own bound.
#[inline]
pub fn scope<T>(f: impl FnOnce() -> T) -> T {
    enter();
    let out = f();
    leave();
    out
}

/// Opens a [`scope`] (not generic, so that each caller's instance of it is two calls).
#[inline(never)]
fn enter() {
    let outer = SCOPE.get();
    SCOPE.set(match outer.depth {
        0 => Scope {
            depth: 1,
            left: CALL_BUDGET_NS,
            refused: 0,
        },
        depth => Scope {
            depth: depth + 1,
            ..outer
        },
    });
}

#[inline(never)]
fn leave() {
    let mut scope = SCOPE.get();
    scope.depth = scope.depth.saturating_sub(1);
    SCOPE.set(scope);
}

/// How many matches the open scope has refused so far: a verdict reached while this grew
/// rests on matches that were not tried.
pub fn refusals() -> u64 {
    SCOPE.get().refused
}

/// Whether this call's budget allows another match, counting a refusal when not.
pub(crate) fn allowed() -> bool {
    let mut scope = SCOPE.get();
    if scope.depth == 0 || scope.left > 0.0 {
        return true;
    }
    scope.refused += 1;
    SCOPE.set(scope);
    false
}

/// Charges `ns` of matching to this call's budget.
pub(crate) fn charge(ns: f64) {
    let mut scope = SCOPE.get();
    if scope.depth > 0 {
        scope.left -= ns;
        SCOPE.set(scope);
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_call_shares_one_budget_and_counts_what_it_refuses() {
        // Outside a scope: no budget.
        charge(CALL_BUDGET_NS * 2.0);
        assert!(allowed());
        assert_eq!(refusals(), 0);
        scope(|| {
            charge(CALL_BUDGET_NS / 2.0);
            assert!(allowed());
            // A scope inside shares what is left, and what it spends stays spent.
            scope(|| {
                charge(CALL_BUDGET_NS / 2.0);
                assert!(!allowed());
            });
            assert!(!allowed());
            assert_eq!(refusals(), 2);
        });
        // The next call starts afresh.
        scope(|| {
            assert!(allowed());
            assert_eq!(refusals(), 0);
        });
        assert!(allowed());
    }
}

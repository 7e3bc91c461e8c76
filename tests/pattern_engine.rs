//! The `pattern` engine (crates/selfheal-pattern) natively: ECMA-262 meaning where Rust regex
//! syntax differs, which engine takes which pattern, and that no classic ReDoS pattern can hang a
//! call. tests/js/patterns.test.mjs checks the same through the wasm build, where the host's
//! `RegExp` takes the screened patterns.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use selfheal_pattern::{EngineKind, Error, MatchError, Pattern};

fn matches(pattern: &str, subject: &str) -> bool {
    Pattern::new(pattern)
        .unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
        .is_match(subject)
        .unwrap()
}

#[test]
fn ecma_262_meaning_where_rust_syntax_differs() {
    let cases: &[(&str, &str, bool)] = &[
        // \s is ECMA-262 WhiteSpace and LineTerminator, not ASCII whitespace.
        (r"^\s$", "\u{a0}", true),
        (r"^\s$", "\u{feff}", true),
        (r"^\s$", "\u{2028}", true),
        (r"^\S$", "\u{3000}", false),
        // . leaves out every line terminator, not only \n.
        (r"^.$", "\u{2028}", false),
        (r"^.$", "\r", false),
        (r"^.$", "🐲", true),
        (r"^[^]$", "\n", true),
        (r"[]", "anything", false),
        // \w, \d and \b are ASCII.
        (r"^\w$", "é", false),
        (r"^\d$", "৪", false),
        (r"\bfoo\b", "é foo", true),
        (r"\bfoo", "éfoo", true),
        // $ is the end of the subject, not before a final newline.
        (r"abc$", "abc\n", false),
        // Escapes: control letters, identity escapes, surrogate pairs, braces.
        (r"^\cC$", "\u{3}", true),
        (r"^a\-b$", "a-b", true),
        (r"^\uD83D\uDC32$", "🐲", true),
        (r"^\u{1F432}+$", "🐲🐲", true),
        (r"^[\u{1F400}-\u{1F4FF}]$", "🐲", true),
        (r"^\x41\0?$", "A", true),
        // Classes with escapes and negations.
        (r"^[\D\s]+$", "ab c", true),
        (r"^[^\W_]+$", "ab_c", false),
        (r"^[\b]$", "\u{8}", true),
        // Quantifiers, lazy ones included, and alternation.
        (r"^a{2,3}?$", "aaa", true),
        // One greedy pass (the Simple engine), at its edges.
        (r"^[A-Z]{3}-\d{4}$", "ABC-1234", true),
        (r"^[A-Z]{3}-\d{4}$", "ABC-12345", false),
        (r"^[A-Z]{3}-\d{4}", "ABC-12345", true),
        (r"^[A-Z]{2,3}-", "ABCD-", false),
        (r"^[^@\s]+@[^@\s]+$", "a@b", true),
        (r"^[^@\s]+@[^@\s]+$", "a@b@c", false),
        (r"^ord_[A-Za-z0-9]{8,}$", "ord_1234567", false),
        (r"^\d+\.?\d$", "123", true),
        (r"^\d+\.[0-9]{2}$", "12.50", true),
        (r"^.{2}$", "a\u{2028}", false),
        (r"^🐲*$", "🐲🐲", true),
        (r"^(?:ab|cd){2}$", "abcd", true),
        (r"^(ab|cd){2}$", "abab", true),
        // Case-sensitive, code point by code point.
        (r"\p{Letter}cole", "L'ÉCOLE", false),
        (r"\p{Letter}cole", "l'école", true),
        (r"^\p{Lu}+$", "ÉCOLE", true),
        // Lookaround and backreferences (natively fancy-regex, on wasm the host's RegExp).
        (r"^(?=.*\d)(?=.*[a-z]).{8,}$", "abc12345", true),
        (r"^(?=.*\d)(?=.*[a-z]).{8,}$", "abcdefgh", false),
        (r"^(?<y>\d{4})-\k<y>$", "2020-2020", true),
        (r"^(\w)\1$", "aa", true),
        (r"^(\w)\1$", "ab", false),
        (r"^(?!foo)\w{3}$", "foo", false),
        (r"(?<=\$)\d", "$5", true),
    ];
    for (pattern, subject, expected) in cases {
        assert_eq!(
            matches(pattern, subject),
            *expected,
            "{pattern:?} on {subject:?}"
        );
    }
}

#[test]
fn linear_engine_for_what_it_can_express_backtracking_only_for_screened_patterns() {
    for p in [r"^(a+)+$", r"(a|aa)+$", r"\s+$", r"^.*.*x$", r"^\d+\.?\d$"] {
        assert_eq!(
            Pattern::new(p).unwrap().engine_kind(),
            EngineKind::Linear,
            "{p}"
        );
    }
    for p in [
        r"^\p{L}+$",
        r"^(?=.*\d).{8,}$",
        r"^(\w)\1$",
        r"\p{Letter}cole",
    ] {
        assert_eq!(
            Pattern::new(p).unwrap().engine_kind(),
            EngineKind::Backtracking,
            "{p}"
        );
    }
}

#[test]
fn bad_syntax_and_catastrophic_backtracking_are_refused() {
    for p in ["(", "a{2,1}", r"\a", "(?i)x", "[b-a]", r"\1(a)x(", "a**"] {
        assert_eq!(Pattern::new(p).unwrap_err(), Error::Syntax, "{p}");
    }
    // Each needs a backtracking engine and could backtrack for long.
    for p in [
        r"^(\w+)+\1$",
        r"(?<=a+)b",
        r"^(\p{L}+)+$",
        r"\p{L}+x",
        r"^\p{L}+\s\p{L}+$",
        r"^(?:(?=a)\w)+$",
        r"(\w+)\1",
    ] {
        assert_eq!(Pattern::new(p).unwrap_err(), Error::Backtracking, "{p}");
    }
}

/// The classic ReDoS patterns on subjects built to make a backtracking engine explode: each is
/// matched (by the linear engine) or refused, and no match takes long.
#[test]
fn classic_redos_patterns_cannot_hang_a_call() {
    let long_a = "a".repeat(50_000);
    let cases: Vec<(&str, String)> = vec![
        (r"^(a+)+$", format!("{long_a}!")),
        (r"(a|a)*b", long_a.clone()),
        (r"(a|aa)+$", format!("{long_a}!")),
        (r"(.*a){20}", long_a.clone()),
        (r"^(\w+\s?)*$", format!("{long_a}!")),
        (r"(x+x+)+y", "x".repeat(50_000)),
        (r"\d+x", "1".repeat(50_000)),
        (r"a*b", long_a.clone()),
        (r"\s+$", format!("a{}a", " ".repeat(50_000))),
        (r"^(([a-z])+.)+[A-Z]([a-z])+$", long_a.clone()),
        (r"^(\w+)+\1$", long_a.clone()),
    ];
    for (pattern, subject) in cases {
        let start = Instant::now();
        match Pattern::new(pattern) {
            Ok(compiled) => {
                assert_ne!(
                    compiled.engine_kind(),
                    EngineKind::Backtracking,
                    "{pattern}"
                );
                compiled.is_match(&subject).unwrap();
            }
            Err(e) => assert_eq!(e, Error::Backtracking, "{pattern}"),
        }
        // Generous for an unoptimised test build on a loaded machine; a backtracking engine
        // needs hours or years for most of these.
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{pattern}: {:?}",
            start.elapsed()
        );
    }
}

/// Every engine but the greedy pass is linear in the subject with a factor from the pattern that
/// can be large (`[a-z]{1,64}x`: about 130 automaton states per character). A subject longer than
/// the pattern's engine matches within the time bound is refused before any matching, with the
/// numbers; the bound shrinks as the pattern's estimated work grows, and the greedy pass has none.
#[test]
fn a_subject_too_long_for_the_time_bound_is_refused_before_matching() {
    let heavy = Pattern::new(r"[a-z]{1,64}x").unwrap();
    let light = Pattern::new(r"\d+x").unwrap();
    assert!(heavy.max_subject() < light.max_subject());
    assert!(light.max_subject() < 4_000_000, "{}", light.max_subject());
    for pattern in [&heavy, &light] {
        let max = pattern.max_subject();
        assert!(max > 50_000, "{pattern:?}: {max}");
        assert_eq!(pattern.is_match(&"a".repeat(max)), Ok(false));
        let length = max + 1;
        assert_eq!(
            pattern.is_match(&"a".repeat(length)),
            Err(MatchError::TooLong { length, max })
        );
    }
    assert_eq!(
        MatchError::TooLong { length: 9, max: 8 }.to_string(),
        "the string is too long to match in bounded time (9 UTF-8 bytes; at most 8 for this pattern)"
    );
    let simple = Pattern::new(r"^[A-Z]{3}-\d{4}$").unwrap();
    assert_eq!(simple.engine_kind(), EngineKind::Simple);
    assert_eq!(simple.max_subject(), usize::MAX);
}

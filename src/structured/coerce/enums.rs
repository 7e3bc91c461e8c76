//! The strings of one `enum` (or `const`) list, indexed for coercion: a value equal to one, the
//! one it names in another case or with other separators (`"Contract to hire"` ->
//! `"CONTRACT_TO_HIRE"`), or the one it starts with before text that does not continue it
//! (`"ONE: the first"` -> `"ONE"`, never `"en-GB"` -> `"en"`) (see `coerce.rs`).
//!
//! Built once per list and parse ([`super::Coercer`]), so that aligning a long array against an
//! enum costs a few lookups per item, not a pass over every member, and a long string is read
//! once (with a walk as deep as the longest member at each of its positions), not once per
//! member. The answers are those of comparing with each member in turn, which the doc of
//! [`EnumIndex::find`] spells out.
//!
//! The members are put in order by the `BTreeMap<String, u64>` the metrics already use: a sort,
//! or a map of a new type, adds its own code to the `.wasm`, whose size has a gate.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

use fnv::FnvHashMap;
use serde_json::Value;

use crate::text::lowercase;

/// What [`EnumIndex::prefixes`] calls for each key found: its length, its members, its
/// place in `lowered`.
type Visit<'v> = dyn FnMut(usize, &[usize], usize) -> ControlFlow<()> + 'v;

pub(super) struct EnumIndex<'s> {
    /// The string members, in schema order.
    names: Vec<&'s str>,
    /// Each distinct key of the members (their [`key`]: the lowercase, separators alike), sorted,
    /// and the members that have it (in schema order): looked up by [`EnumIndex::lowercased`],
    /// read as a trie by [`EnumIndex::prefixes`].
    lowered: Vec<(String, Vec<usize>)>,
    /// Whether `null` is a member.
    pub(super) has_null: bool,
}

impl<'s> EnumIndex<'s> {
    pub(super) fn new(allowed: &'s [Value]) -> EnumIndex<'s> {
        let names: Vec<&'s str> = allowed.iter().filter_map(Value::as_str).collect();
        let mut words: BTreeMap<String, u64> = BTreeMap::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let next = members.len() as u64;
            let word = *words.entry(key(name)).or_insert(next);
            if word == next {
                members.push(Vec::new());
            }
            if let Some(list) = usize::try_from(word).ok().and_then(|w| members.get_mut(w)) {
                list.push(i);
            }
        }
        let lowered: Vec<(String, Vec<usize>)> = words
            .into_iter()
            .filter_map(|(word, w)| {
                let list = usize::try_from(w).ok().and_then(|w| members.get_mut(w))?;
                Some((word, std::mem::take(list)))
            })
            .collect();
        let has_null = allowed.iter().any(Value::is_null);
        EnumIndex {
            names,
            lowered,
            has_null,
        }
    }

    /// The member `text` names, when it is not one itself: the only one equal to it ignoring
    /// ASCII case and which of the separators space, `-` and `_` is written, else the only one
    /// whose key its own starts with before text that does not continue a name (the longest, the
    /// first of those; see [`continues`]), when no other member occurs as a word
    /// (`str::match_indices` of its key between non-alphanumeric characters) in the rest of the
    /// text's key. A text's key is its lowercase as [`EnumIndex::prefixes`] reads it.
    pub(super) fn named(&self, text: &str) -> Option<&'s str> {
        let t = text.trim();
        let lower = lowercase(t);
        // A member itself, or equal to one ignoring ASCII case: then its key is the same.
        let untrimmed = (t.len() != text.len()).then(|| lowercase(text));
        let whole = self.lowercased(untrimmed.as_deref().unwrap_or(&lower));
        if whole.iter().any(|&i| self.name(i) == text) {
            return None;
        }
        let mut same = self
            .lowercased(&lower)
            .iter()
            .filter(|&&i| same_but_case(self.name(i), t));
        match (same.next(), same.next()) {
            (Some(&i), None) => return Some(self.name(i)),
            (Some(_), Some(_)) => return None,
            (None, _) => {}
        }
        // The longest original member, the first in schema order among equals.
        let rank = |i: usize| (self.name(i).len(), Reverse(i));
        let mut best: Option<usize> = None;
        let _ = self.prefixes(lower.as_bytes(), &mut |len, group, _| {
            if !continues(lower.get(len..).unwrap_or("")) {
                for &i in group {
                    if best.is_none_or(|b| rank(i) > rank(b)) {
                        best = Some(i);
                    }
                }
            }
            ControlFlow::Continue(())
        });
        let found = self.name(best?);
        // The original member's length, as the comparison with each member cut it.
        let rest = lower.get(found.len()..).unwrap_or("");
        (!self.names_another(rest, found)).then_some(found)
    }

    /// The members whose key is that of `lower`, a lowercase, in schema order. (A walk, not a
    /// binary search: the text's key is never written out. Out of line: it is called twice.)
    #[inline(never)]
    fn lowercased(&self, lower: &str) -> &[usize] {
        let mut at = None;
        let _ = self.prefixes(lower.as_bytes(), &mut |len, _, id| {
            if len == lower.len() {
                at = Some(id);
            }
            ControlFlow::Continue(())
        });
        at.and_then(|at| self.lowered.get(at))
            .map_or(&[], |(_, members)| members.as_slice())
    }

    fn name(&self, i: usize) -> &'s str {
        self.names.get(i).copied().unwrap_or_default()
    }

    /// Whether a member other than `found` occurs as a word in `rest`. Each member's
    /// occurrences are those `match_indices` gives: leftmost first, none overlapping the last.
    fn names_another(&self, rest: &str, found: &str) -> bool {
        let bytes = rest.as_bytes();
        // Where each key's last occurrence ended, by its place in `lowered`.
        let mut ended: FnvHashMap<usize, usize> = FnvHashMap::default();
        let mut before: Option<char> = None;
        for (at, c) in rest.char_indices() {
            let starts_word = before.is_none_or(|b| !b.is_alphanumeric());
            let tail = bytes.get(at..).unwrap_or_default();
            let hit = self.prefixes(tail, &mut |len, group, id| {
                if ended.get(&id).is_some_and(|&end| at < end) {
                    return ControlFlow::Continue(());
                }
                ended.insert(id, at + len);
                let ends_word = rest
                    .get(at + len..)
                    .and_then(|after| after.chars().next())
                    .is_none_or(|c| !c.is_alphanumeric());
                let other = group.iter().any(|&i| self.name(i) != found);
                if starts_word && ends_word && other {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            if hit.is_break() {
                return true;
            }
            before = Some(c);
        }
        false
    }

    /// Calls `visit(len, members, id)` for each key in `lowered` that the key of `text` (a
    /// lowercase, its separators read as `_`) starts with, shortest first: `members` have it,
    /// `id` is its place. `lowered` is sorted, so the keys sharing the first `len` bytes are a
    /// range of it, narrowed one byte at a time, with the one `len` bytes long (if any) at its
    /// front. (`dyn`: one copy of the walk for its three callers.)
    fn prefixes(&self, text: &[u8], visit: &mut Visit<'_>) -> ControlFlow<()> {
        let (mut lo, mut hi) = (0, self.lowered.len());
        let mut len = 0;
        while lo < hi {
            if let Some((word, members)) = self.lowered.get(lo).filter(|(w, _)| w.len() == len) {
                // An empty member names nothing.
                if len > 0 {
                    visit(word.len(), members, lo)?;
                }
                lo += 1;
            }
            let (Some(&byte), Some(range)) = (text.get(len), self.lowered.get(lo..hi)) else {
                break;
            };
            // The text's key, read here.
            let byte = if byte == b' ' || byte == b'-' {
                b'_'
            } else {
                byte
            };
            let at = |(k, _): &(String, Vec<usize>)| k.as_bytes().get(len).copied();
            // Keys that go on alike (`value_1`, `value_2`) keep the range as it is.
            let alike =
                range.first().and_then(at) == Some(byte) && range.last().and_then(at) == Some(byte);
            if !alike {
                hi = lo + range.partition_point(|e| at(e).is_some_and(|b| b <= byte));
                lo += range.partition_point(|e| at(e).is_some_and(|b| b < byte));
            }
            len += 1;
        }
        ControlFlow::Continue(())
    }
}

/// What members are compared by: the lowercase, with the separators space and `-` written `_`
/// (`"Contract to-hire"` -> `"contract_to_hire"`). Byte for byte, so a place in a text's
/// lowercase is the same place in its key, which [`EnumIndex::prefixes`] reads as it walks.
fn key(name: &str) -> String {
    underscored(&underscored(&lowercase(name), ' '), '-')
}

/// (`split` and `join` as `grouped_digits` and `work.rs` use them: their copies in the `.wasm`.)
#[inline(never)]
fn underscored(text: &str, separator: char) -> String {
    text.split(separator).collect::<Vec<&str>>().join("_")
}

/// Whether `a` and `b` are equal ignoring ASCII case and which separator is written.
fn same_but_case(a: &str, b: &str) -> bool {
    let byte = |c: u8| match c {
        b' ' | b'-' => b'_',
        c => c.to_ascii_lowercase(),
    };
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| byte(x) == byte(y))
}

/// Whether the text after a member, `after`, continues its name rather than following it:
/// a letter, digit, `-` or `_` (`en-GB` is not `en`, `gpt-4o-mini` not `gpt-4o`), or a `.` or
/// `,` before one (`gpt-4.5`, `1,000`). `:`, whitespace, `(`, or a `.` ending a sentence do not.
fn continues(after: &str) -> bool {
    let mut chars = after.chars();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
    match chars.next() {
        Some('.' | ',') => word(chars.next()),
        c => word(c),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    fn find(members: &[&str], text: &str) -> Option<String> {
        let allowed: Vec<Value> = members.iter().map(|m| json!(m)).collect();
        EnumIndex::new(&allowed).named(text).map(str::to_owned)
    }

    #[test]
    fn a_member_itself_then_same_ascii_case_then_the_longest_prefix_the_first_among_equals() {
        let allowed = [json!("One"), json!("ONE"), json!(1), json!("Two")];
        let index = EnumIndex::new(&allowed);
        assert_eq!(index.named("One"), None, "a member already");
        assert_eq!(index.named(" two "), Some("Two"));
        assert_eq!(index.named("1"), None);
        assert_eq!(index.named("one"), None, "two members in another case");
        // The same lowercase, but only one the same ignoring ASCII case.
        assert_eq!(find(&["Ünï", "ÜNÏ"], "ÜNï").as_deref(), Some("Ünï"));
        assert_eq!(find(&["A", "A B", "a b"], "a b: c").as_deref(), Some("A B"));
        assert_eq!(find(&["A", "AB"], "ab").as_deref(), Some("AB"));
        assert_eq!(find(&["A", "AB"], "abc"), None);
    }

    #[test]
    fn separators_alike_and_a_name_that_goes_on_is_not_a_member() {
        assert_eq!(find(&["a", "a_b"], "A-B").as_deref(), Some("a_b"));
        assert_eq!(find(&["a", "a_b"], "a b: c").as_deref(), Some("a_b"));
        assert_eq!(find(&["a", "a b"], "a_b").as_deref(), Some("a b"));
        assert_eq!(find(&["a-b", "a_b"], "A B"), None, "two alike");
        assert_eq!(find(&["a", "a-b"], "a-bc"), None);
        assert_eq!(find(&["a", "b"], "a_b"), None);
        assert_eq!(find(&["a", "b"], "a.b"), None);
        assert_eq!(find(&["a", "b"], "a,2"), None);
        assert_eq!(find(&["a", "b"], "a. c").as_deref(), Some("a"));
        assert_eq!(find(&["a", "b"], "a.").as_deref(), Some("a"));
        assert_eq!(find(&["a", "b"], "a (c)").as_deref(), Some("a"));
        assert_eq!(find(&["a", "b c"], "a: not b-c"), None);
    }

    #[test]
    fn another_member_counts_as_a_word_where_match_indices_finds_it() {
        assert_eq!(find(&["x", "a-a"], "x a-a"), None);
        assert_eq!(find(&["x", "a-a"], "x xa-a"), Some("x".into()));
        // The word `a-a` at 5 overlaps the occurrence at 3 (inside `xa-a`), which
        // `match_indices` gives first and then reads past: it is not seen.
        assert_eq!(find(&["x", "a-a"], "x xa-a-a"), Some("x".into()));
    }
}

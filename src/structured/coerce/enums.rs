//! The strings of one `enum` (or `const`) list, indexed for coercion: a value equal to one, the
//! one it names in another case, or the one it starts with (see `coerce.rs`).
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

/// What [`EnumIndex::prefixes`] calls for each lowercase found: its length, its members, its
/// place in `lowered`.
type Visit<'v> = dyn FnMut(usize, &[usize], usize) -> ControlFlow<()> + 'v;

pub(super) struct EnumIndex<'s> {
    /// The string members, in schema order.
    names: Vec<&'s str>,
    /// Each distinct lowercase (Unicode) of the members, sorted, and the members that have it
    /// (in schema order): looked up by [`EnumIndex::lowercased`], read as a trie by
    /// [`EnumIndex::prefixes`].
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
            let word = *words.entry(lowercase(name)).or_insert(next);
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
    /// ASCII case, else the only one its lowercase starts with before a non-alphanumeric
    /// character (the longest, the first of those), when no other member occurs as a word
    /// (`str::match_indices` of its lowercase between non-alphanumeric characters) in the rest
    /// of the lowercased text.
    pub(super) fn named(&self, text: &str) -> Option<&'s str> {
        let t = text.trim();
        let lower = lowercase(t);
        // A member itself, or equal to one ignoring ASCII case: then its lowercase is the same.
        let untrimmed = (t.len() != text.len()).then(|| lowercase(text));
        let whole = self.lowercased(untrimmed.as_deref().unwrap_or(&lower));
        if whole.iter().any(|&i| self.name(i) == text) {
            return None;
        }
        let mut same = self
            .lowercased(&lower)
            .iter()
            .filter(|&&i| self.name(i).eq_ignore_ascii_case(t));
        match (same.next(), same.next()) {
            (Some(&i), None) => return Some(self.name(i)),
            (Some(_), Some(_)) => return None,
            (None, _) => {}
        }
        // The longest original member, the first in schema order among equals.
        let rank = |i: usize| (self.name(i).len(), Reverse(i));
        let mut best: Option<usize> = None;
        let _ = self.prefixes(lower.as_bytes(), &mut |len, group, _| {
            let boundary = lower
                .get(len..)
                .and_then(|rest| rest.chars().next())
                .is_none_or(|c| !c.is_alphanumeric());
            if boundary {
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

    /// The members whose lowercase is `word`, in schema order.
    fn lowercased(&self, word: &str) -> &[usize] {
        let at = self.lowered.binary_search_by(|(w, _)| w.as_str().cmp(word));
        at.ok()
            .and_then(|at| self.lowered.get(at))
            .map_or(&[], |(_, members)| members.as_slice())
    }

    fn name(&self, i: usize) -> &'s str {
        self.names.get(i).copied().unwrap_or_default()
    }

    /// Whether a member other than `found` occurs as a word in `rest`. Each member's
    /// occurrences are those `match_indices` gives: leftmost first, none overlapping the last.
    fn names_another(&self, rest: &str, found: &str) -> bool {
        let bytes = rest.as_bytes();
        // Where each lowercase's last occurrence ended, by its place in `lowered`.
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

    /// Calls `visit(len, members, id)` for each lowercase in `lowered` that `text` starts with,
    /// shortest first: `members` have it, `id` is its place. `lowered` is sorted, so the
    /// lowercases sharing the first `len` bytes of `text` are a range of it, narrowed one byte
    /// at a time, with the one `len` bytes long (if any) at its front. (`dyn`: one copy of the
    /// walk for its two callers.)
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
            let at = |(k, _): &(String, Vec<usize>)| k.as_bytes().get(len).copied();
            // Lowercases that go on alike (`value_1`, `value_2`) keep the range as it is.
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
    fn another_member_counts_as_a_word_where_match_indices_finds_it() {
        assert_eq!(find(&["x", "a-a"], "x a-a"), None);
        assert_eq!(find(&["x", "a-a"], "x xa-a"), Some("x".into()));
        // The word `a-a` at 5 overlaps the occurrence at 3 (inside `xa-a`), which
        // `match_indices` gives first and then reads past: it is not seen.
        assert_eq!(find(&["x", "a-a"], "x xa-a-a"), Some("x".into()));
    }
}

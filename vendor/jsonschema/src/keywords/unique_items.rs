use crate::{
    compiler,
    error::ValidationError,
    keywords::CompilationResult,
    paths::{LazyLocation, Location, RefTracker},
    validator::{Validate, ValidationContext},
    Array, Json, Node,
};
use serde_json::{Map, Value};
use std::borrow::Cow;

fn has_unique_items<F: Json>(instance: &F::Node<'_>) -> bool {
    let Some(array) = instance.as_array() else {
        return true;
    };
    // selfheal patch: past upstream's pairwise threshold, `hashed` instead of upstream's hash set.
    if array.len() <= PAIRWISE {
        return array.is_unique();
    }
    let items: Vec<Cow<'_, Value>> = array.elements().map(|item| item.to_value()).collect();
    hashed::is_unique(&items, false).0
}

/// Upstream's `ITEMS_SIZE_THRESHOLD`: up to this many items, upstream compares every pair.
const PAIRWISE: usize = 15;

/// selfheal patch: `uniqueItems` in expected linear time on any array.
///
/// Upstream (`jsonschema_value::unique::is_unique`) puts the items in a hash set whose hash gives
/// an array the concatenation of its items' hashes, with no type or length (`[]`, `[[]]` and
/// `[[], [[]]]` hash alike, so do `[1, 2]` and `[[1], [2]]`), a number the bits of its nearest
/// `f64` (every integer that rounds to one `f64` shares a bucket), and an object the XOR of its
/// members' hashes under a fixed-key hasher. Distinct items that hash alike are compared pairwise:
/// 20,000 arrays of 17 empty or one-item arrays (1.3 MB) took 14.6 s.
///
/// Here each item's hash covers its type, its length, integers exactly, and an object's members
/// whatever their order, under a random key drawn for each check (ahash's `RandomState`, as its
/// hash maps use), so that no reply can be written to make distinct items hash alike. The hashes are sorted (the `i64` sort `enum` already links);
/// only items whose hash is shared are compared, each with the earlier items of that hash: a
/// duplicate ends the check at its first comparison, and distinct items share a 64-bit hash by
/// accident only.
pub(crate) mod hashed {
    use ahash::{AHasher, RandomState};
    use serde_json::Value;
    use std::{
        borrow::Borrow,
        hash::{BuildHasher, Hash, Hasher},
    };

    /// Whether `items` are pairwise distinct, and how many pairs were compared. `hash_alike`
    /// gives every item the same hash, for tests.
    pub(crate) fn is_unique<T: Borrow<Value>>(items: &[T], hash_alike: bool) -> (bool, usize) {
        let key = RandomState::new();
        #[allow(clippy::cast_possible_wrap)] // any order will do
        let hashes: Vec<i64> = items
            .iter()
            .map(|item| {
                if hash_alike {
                    0
                } else {
                    hash(item.borrow(), &key, u32::MAX) as i64
                }
            })
            .collect();
        let mut sorted = hashes.clone();
        sorted.sort_unstable();
        let mut compared = 0;
        let mut previous = None;
        for pair in sorted.windows(2) {
            let [a, b] = pair else { continue };
            if a != b || previous == Some(a) {
                continue;
            }
            previous = Some(a);
            let mut group: Vec<&Value> = Vec::new();
            for (item, _) in items.iter().zip(&hashes).filter(|(_, hash)| *hash == a) {
                for earlier in &group {
                    compared += 1;
                    if crate::cmp::equal(earlier, item.borrow()) {
                        return (false, compared);
                    }
                }
                group.push(item.borrow());
            }
        }
        (true, compared)
    }

    /// `value`'s hash under `key`, with what is nested more than `depth` arrays or objects deep
    /// left out: values equal by `crate::cmp::equal` hash alike whatever the depth, and the walk
    /// visits only the first `depth` levels (`enum` hashes the instance at every level of a
    /// recursive schema, `uniqueItems` passes `u32::MAX`).
    pub(crate) fn hash(value: &Value, key: &RandomState, depth: u32) -> u64 {
        let mut hasher = key.build_hasher();
        feed(value, key, &mut hasher, depth);
        hasher.finish()
    }

    const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;

    /// Equal values hash alike: a whole number by its integer value however it is written (`1`,
    /// `1.0`; `-0.0` as `0`), an object by the sum of its members' hashes. Each value ends with
    /// one word of its type and its length or value, so the stream reads back one way (ahash
    /// mixes the length of a run of bytes in with them).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn feed(value: &Value, key: &RandomState, hasher: &mut AHasher, depth: u32) {
        let (tag, word) = match value {
            Value::Null => (0, 0),
            Value::Bool(b) => (1, u64::from(*b)),
            Value::Number(n) => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if let Some(u) = n.as_u64() {
                    (2, u)
                } else if let Some(i) = n.as_i64() {
                    (3, i as u64)
                } else if f.fract() == 0.0 && (0.0..TWO_TO_64).contains(&f) {
                    (2, f as u64)
                } else if f.fract() == 0.0 && (-TWO_TO_64 / 2.0..0.0).contains(&f) {
                    (3, f as i64 as u64)
                } else {
                    (4, f.to_bits())
                }
            }
            Value::String(s) => {
                hasher.write(s.as_bytes());
                (5, s.len() as u64)
            }
            Value::Array(items) => {
                for item in items.iter().take_while(|_| depth > 0) {
                    feed(item, key, hasher, depth - 1);
                }
                (6, items.len() as u64)
            }
            Value::Object(map) => {
                // Members in any order: the sum of their own hashes.
                let members = map.iter().take_while(|_| depth > 0);
                let members = members.fold(0_u64, |sum, (name, value)| {
                    let mut member = key.build_hasher();
                    member.write(name.as_bytes());
                    feed(value, key, &mut member, depth - 1);
                    sum.wrapping_add(member.finish())
                });
                (7 + map.len() as u64, members)
            }
        };
        hasher.write_u128(u128::from(tag) << 64 | u128::from(word));
    }
}

/// selfheal patch: `uniqueItems` on `items` by `hashed`, with every item hashed alike when
/// `hash_alike`: whether they are distinct, and how many pairs were compared. For selfheal's
/// tests only.
#[doc(hidden)]
pub fn __selfheal_unique_items(items: &[Value], hash_alike: bool) -> (bool, usize) {
    hashed::is_unique(items, hash_alike)
}

pub(crate) struct UniqueItemsValidator {
    location: Location,
}

impl UniqueItemsValidator {
    #[inline]
    pub(crate) fn compile<'a, F: Json>(location: Location) -> CompilationResult<'a, F> {
        Ok(Box::new(UniqueItemsValidator { location }))
    }
}

impl<F: Json> Validate<F> for UniqueItemsValidator {
    fn is_valid(&self, instance: &F::Node<'_>, _ctx: &mut ValidationContext) -> bool {
        has_unique_items::<F>(instance)
    }

    fn validate<'i>(
        &self,
        instance: &F::Node<'i>,
        location: &LazyLocation,
        tracker: Option<&RefTracker>,
        _ctx: &mut ValidationContext,
    ) -> Result<(), ValidationError<'i>> {
        if has_unique_items::<F>(instance) {
            Ok(())
        } else {
            Err(ValidationError::unique_items(
                self.location.clone(),
                crate::paths::capture_evaluation_path(tracker, &self.location),
                location.into(),
                instance.lazy_value(),
            ))
        }
    }
}

#[inline]
pub(crate) fn compile<'a, F: Json>(
    ctx: &compiler::Context<F>,
    _: &'a Map<String, Value>,
    schema: &'a Value,
) -> Option<CompilationResult<'a, F>> {
    if let Value::Bool(value) = schema {
        if *value {
            let location = ctx.location().join("uniqueItems");
            Some(UniqueItemsValidator::compile(location))
        } else {
            None
        }
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_util;
    use serde_json::json;

    #[test]
    fn location() {
        tests_util::assert_schema_location(
            &json!({"uniqueItems": true}),
            &json!([1, 1]),
            "/uniqueItems",
        );
    }
}

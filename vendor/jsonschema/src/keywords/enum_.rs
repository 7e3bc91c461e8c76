use super::unique_items::hashed;
use crate::{
    compiler,
    error::ValidationError,
    keywords::CompilationResult,
    paths::{LazyLocation, Location, RefTracker},
    types::{JsonType, JsonTypeSet},
    validator::{Validate, ValidationContext},
    Json, LazyInstance, Node,
};
use ahash::RandomState;
use serde_json::{Map, Value};
use std::{borrow::Cow, sync::Arc};

#[derive(Debug)]
pub(crate) struct EnumValidator {
    options: Arc<Value>,
    // Types that occur in items
    types: JsonTypeSet,
    items: HashedOptions,
    location: Location,
}

/// selfheal patch: the options of an `enum`, looked up by `uniqueItems`' structural hash
/// (`hashed`) instead of compared with the value one by one (1,000 string codes and `false`,
/// against a 3.9 MB reply of codes, took 3.4 s). A value is compared (`crate::cmp::equal`, `1`
/// equal to `1.0`) only with the options that hash like it: one, unless options agree down to
/// `DEPTH` levels of nesting, which the hash does not read (so that hashing the instance at every
/// level of a recursive schema stays linear in its size).
#[derive(Debug)]
pub(crate) struct HashedOptions {
    key: RandomState,
    /// Each option's hash with the bits of `mask` replaced by its index, sorted: the options that
    /// hash like a value are one run, in schema order.
    entries: Vec<i64>,
    mask: u64,
    items: Vec<Value>,
}

const DEPTH: u32 = 3;

impl HashedOptions {
    /// `hash_alike` (for tests) masks the whole hash: every value is compared with every option.
    #[allow(clippy::cast_possible_wrap)] // any order will do
    pub(crate) fn new(items: &[Value], hash_alike: bool) -> Self {
        let key = RandomState::new();
        let mask = if hash_alike {
            u64::MAX
        } else {
            items.len().next_power_of_two() as u64 - 1
        };
        let mut entries: Vec<i64> = (0..)
            .zip(items)
            .map(|(i, item)| (hashed::hash(item, &key, DEPTH) & !mask | i) as i64)
            .collect();
        entries.sort_unstable();
        HashedOptions {
            key,
            entries,
            mask,
            items: items.to_vec(),
        }
    }

    fn contains(&self, value: &Value, equal: impl FnMut(&Value, &Value) -> bool) -> bool {
        self.find(value, equal).is_some()
    }

    /// The index of the first option `equal` to `value` (schema order; also for
    /// `dependencies.rs`, item 15).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    pub(crate) fn find(
        &self,
        value: &Value,
        mut equal: impl FnMut(&Value, &Value) -> bool,
    ) -> Option<usize> {
        // A few options (upstream's threshold for its string validators) are compared faster
        // than the value is hashed.
        if self.items.len() <= 10 {
            return self.items.iter().position(|option| equal(value, option));
        }
        let run = hashed::hash(value, &self.key, DEPTH) & !self.mask;
        let (Ok(start) | Err(start)) = self.entries.binary_search(&(run as i64));
        self.entries
            .get(start..)
            .unwrap_or_default()
            .iter()
            .map(|&entry| entry as u64)
            .take_while(|entry| entry & !self.mask == run)
            .map(|entry| (entry & self.mask) as usize)
            .find(|&i| self.items.get(i).is_some_and(|option| equal(value, option)))
    }
}

/// selfheal patch: whether `value` is one of `options` by `HashedOptions` (every option hashed
/// alike when `hash_alike`), and how many options it was compared with. For selfheal's tests only.
#[doc(hidden)]
pub fn __selfheal_enum_contains(
    options: &[Value],
    value: &Value,
    hash_alike: bool,
) -> (bool, usize) {
    let mut compared = 0;
    let found = HashedOptions::new(options, hash_alike).contains(value, |value, option| {
        compared += 1;
        crate::cmp::equal(value, option)
    });
    (found, compared)
}

impl EnumValidator {
    #[inline]
    pub(crate) fn compile<'a, F: Json>(
        schema: &'a Value,
        items: &'a [Value],
        location: Location,
    ) -> CompilationResult<'a, F> {
        let mut types = JsonTypeSet::empty();
        for item in items {
            types = types.insert(JsonType::from(item));
        }
        Ok(Box::new(EnumValidator {
            options: Arc::new(schema.clone()),
            items: HashedOptions::new(items, false),
            types,
            location,
        }))
    }
}

impl<F: Json> Validate<F> for EnumValidator {
    fn validate<'i>(
        &self,
        instance: &F::Node<'i>,
        location: &LazyLocation,
        tracker: Option<&RefTracker>,
        ctx: &mut ValidationContext,
    ) -> Result<(), ValidationError<'i>> {
        if Validate::<F>::is_valid(self, instance, ctx) {
            Ok(())
        } else {
            Err(ValidationError::enumeration(
                self.location.clone(),
                crate::paths::capture_evaluation_path(tracker, &self.location),
                location.into(),
                instance.lazy_value(),
                &self.options,
            ))
        }
    }

    fn is_valid(&self, instance: &F::Node<'_>, _ctx: &mut ValidationContext) -> bool {
        // If the input value type is not in the types present among the enum options, then there
        // is no reason to compare it against all items - we know that
        // there are no items with such type at all
        if self.types.contains_value_type::<F>(instance) {
            // selfheal patch: a hash lookup (`HashedOptions`), not a comparison with each item.
            self.items.contains(&instance.to_value(), crate::cmp::equal)
        } else {
            false
        }
    }
}

#[derive(Debug)]
pub(crate) struct SingleValueEnumValidator {
    value: Value,
    options: Arc<Value>,
    location: Location,
}

impl SingleValueEnumValidator {
    #[inline]
    pub(crate) fn compile<'a, F: Json>(
        schema: &'a Value,
        value: &'a Value,
        location: Location,
    ) -> CompilationResult<'a, F> {
        Ok(Box::new(SingleValueEnumValidator {
            options: Arc::new(schema.clone()),
            value: value.clone(),
            location,
        }))
    }
}

impl<F: Json> Validate<F> for SingleValueEnumValidator {
    fn validate<'i>(
        &self,
        instance: &F::Node<'i>,
        location: &LazyLocation,
        tracker: Option<&RefTracker>,
        ctx: &mut ValidationContext,
    ) -> Result<(), ValidationError<'i>> {
        if Validate::<F>::is_valid(self, instance, ctx) {
            Ok(())
        } else {
            Err(ValidationError::enumeration(
                self.location.clone(),
                crate::paths::capture_evaluation_path(tracker, &self.location),
                location.into(),
                instance.lazy_value(),
                &self.options,
            ))
        }
    }

    fn is_valid(&self, instance: &F::Node<'_>, _ctx: &mut ValidationContext) -> bool {
        instance.equals_value(&self.value)
    }
}

#[inline]
pub(crate) fn compile<'a, F: Json>(
    ctx: &compiler::Context<F>,
    _: &'a Map<String, Value>,
    schema: &'a Value,
) -> Option<CompilationResult<'a, F>> {
    if let Value::Array(items) = schema {
        let location = ctx.location().join("enum");
        if items.len() == 1 {
            let value = items.iter().next().expect("Vec is not empty");
            Some(SingleValueEnumValidator::compile(schema, value, location))
        } else {
            // selfheal patch: every enum of several options is a `HashedOptions` lookup, where
            // upstream had validators of their own for strings, strings and null, and integers.
            Some(EnumValidator::compile(schema, items, location))
        }
    } else {
        let location = ctx.location().join("enum");
        Some(Err(ValidationError::single_type_error(
            location.clone(),
            location,
            Location::new(),
            LazyInstance::Ready(Cow::Borrowed(schema)),
            JsonType::Array,
        )))
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_util;
    use serde_json::{json, Value};
    use test_case::test_case;

    #[test_case(&json!({"enum": [1]}), &json!(2), "/enum")]
    #[test_case(&json!({"enum": [1, 3]}), &json!(2), "/enum")]
    fn location(schema: &Value, instance: &Value, expected: &str) {
        tests_util::assert_schema_location(schema, instance, expected);
    }

    // 10 entries — exercises BigStringEnumValidator
    const BIG_STRING_ENUM: &str = r#"{
        "enum": ["a","b","c","d","e","f","g","h","i","j","k"]
    }"#;

    #[test]
    fn big_string_enum_valid() {
        let schema: Value = serde_json::from_str(BIG_STRING_ENUM).unwrap();
        for s in &["a", "e", "j"] {
            tests_util::is_valid(&schema, &json!(s));
        }
    }

    #[test]
    fn big_string_enum_invalid_string() {
        let schema: Value = serde_json::from_str(BIG_STRING_ENUM).unwrap();
        tests_util::is_not_valid(&schema, &json!("z"));
    }

    #[test]
    fn big_string_enum_invalid_type() {
        let schema: Value = serde_json::from_str(BIG_STRING_ENUM).unwrap();
        tests_util::is_not_valid(&schema, &json!(1));
        tests_util::is_not_valid(&schema, &json!(null));
    }

    #[test]
    fn big_string_enum_location() {
        let schema: Value = serde_json::from_str(BIG_STRING_ENUM).unwrap();
        tests_util::assert_schema_location(&schema, &json!("z"), "/enum");
    }

    // 11 strings plus null — the big string set with `null` allowed
    const BIG_STRING_OR_NULL_ENUM: &str = r#"{
        "enum": ["a","b","c","d","e","f","g","h","i","j","k",null]
    }"#;

    #[test_case(&json!({"enum": ["a", "b", null]}), &json!(null); "small accepts null")]
    #[test_case(&json!({"enum": ["a", "b", null]}), &json!("b"); "small accepts string")]
    #[test_case(&json!({"enum": [null, "a"]}), &json!("a"); "null first accepts string")]
    #[test_case(&serde_json::from_str(BIG_STRING_OR_NULL_ENUM).unwrap(), &json!(null); "big accepts null")]
    #[test_case(&serde_json::from_str(BIG_STRING_OR_NULL_ENUM).unwrap(), &json!("k"); "big accepts string")]
    fn string_or_null_enum_valid(schema: &Value, instance: &Value) {
        tests_util::is_valid(schema, instance);
    }

    #[test_case(&json!({"enum": ["a", "b", null]}), &json!("z"); "small rejects other string")]
    #[test_case(&json!({"enum": ["a", "b", null]}), &json!(1); "small rejects number")]
    #[test_case(&json!({"enum": ["a", "b"]}), &json!(null); "small without null rejects null")]
    #[test_case(&serde_json::from_str(BIG_STRING_OR_NULL_ENUM).unwrap(), &json!("z"); "big rejects other string")]
    #[test_case(&serde_json::from_str(BIG_STRING_OR_NULL_ENUM).unwrap(), &json!(false); "big rejects boolean")]
    #[test_case(&serde_json::from_str(BIG_STRING_ENUM).unwrap(), &json!(null); "big without null rejects null")]
    fn string_or_null_enum_invalid(schema: &Value, instance: &Value) {
        tests_util::is_not_valid(schema, instance);
    }

    #[test_case(&json!({"enum": [1, 2, 3]}), &json!(2); "integer accepts member")]
    #[test_case(&json!({"enum": [1, 2, 3]}), &json!(2.0); "integer accepts integral float")]
    #[test_case(&json!({"enum": [-1, 0]}), &json!(-0.0); "integer accepts negative zero")]
    #[test_case(&json!({"enum": [null, 10, 20]}), &json!(null); "integer with null accepts null")]
    #[test_case(&json!({"enum": [null, 10, 20]}), &json!(10); "null first accepts integer")]
    #[test_case(&json!({"enum": [9_007_199_254_740_993_i64]}), &json!(9_007_199_254_740_993_i64); "integer past 2^53 exact")]
    fn integer_enum_valid(schema: &Value, instance: &Value) {
        tests_util::is_valid(schema, instance);
    }

    #[test_case(&json!({"enum": [1, 2, 3]}), &json!(4); "integer rejects other integer")]
    #[test_case(&json!({"enum": [1, 2, 3]}), &json!("2"); "integer rejects string")]
    #[test_case(&json!({"enum": [1, 2, 3]}), &json!(2.5); "integer rejects fraction")]
    #[test_case(&json!({"enum": [1, 2, 3]}), &json!(null); "integer without null rejects null")]
    #[test_case(&json!({"enum": [1, 2, 3]}), &json!(true); "integer rejects boolean")]
    #[test_case(&json!({"enum": [1]}), &json!(18_446_744_073_709_551_615_u64); "integer rejects u64 past i64")]
    #[test_case(&json!({"enum": [9_007_199_254_740_993_i64]}), &json!(9_007_199_254_740_992.0); "integer rejects float neighbour past 2^53")]
    #[test_case(&json!({"enum": [null, 10, 20]}), &json!(15); "integer with null rejects other integer")]
    fn integer_enum_invalid(schema: &Value, instance: &Value) {
        tests_util::is_not_valid(schema, instance);
    }

    // Options agreeing on length, first and last eight bytes share a head
    #[test_case("prefix0002suffix00", true)]
    #[test_case("prefix0003suffix00", false)]
    #[test_case("prefix0002suffix0", false)]
    fn colliding_string_options(instance: &str, expected: bool) {
        let schema = json!({"enum": ["prefix0001suffix00", "prefix0002suffix00"]});
        assert_eq!(crate::is_valid(&schema, &json!(instance)), expected);
    }

    #[test]
    fn big_string_enum_error_message() {
        let schema: Value = serde_json::from_str(BIG_STRING_ENUM).unwrap();
        tests_util::expect_errors(
            &schema,
            &json!("z"),
            &[r#""z" is not one of "a", "b" or 9 other candidates"#],
        );
    }

    #[test]
    fn malformed() {
        tests_util::assert_compile_error(
            &json!({"enum": 5}),
            "5 is not of type \"array\"",
            "/enum",
        );
    }
}

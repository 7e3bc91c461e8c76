//! The JSON Schema validator, the one place the build's `validate` feature decides.
//!
//! With `validate` (the default build, the package's main entry) it is `jsonschema`, called
//! through one non-generic entry the jsonschema patch adds, `__selfheal_validator_for` (see
//! `compile` in `schema.rs`). Without it
//! (selfheal/lite, `--no-default-features`) there is no validator: every schema "compiles" (the
//! caller still refuses a document that is not an object or a boolean), every value passes, and
//! [`VALIDATES`] is false, which the parse result and the loop's `done` report as
//! `validated: false` instead of pretending (docs/DESIGN.md, "selfheal/lite").

use serde_json::Value;

/// Whether this build checks values against their schemas.
pub const VALIDATES: bool = cfg!(feature = "validate");

/// Runs `f` as one call of the API: its pattern matches share one time budget
/// (`selfheal_pattern::scope`; docs/DESIGN.md, "Patterns"). Opened by each validation, and around
/// them by each entry that validates more than once (a parse, a streamed chunk), whose scope the
/// inner ones then share.
pub(crate) fn one_call<T>(f: impl FnOnce() -> T) -> T {
    #[cfg(feature = "validate")]
    let f = || selfheal_pattern::scope(f);
    f()
}

#[cfg(feature = "validate")]
mod imp {
    use serde_json::Value;

    use crate::structured::{FailureIssue, FailureKind, MAX_MESSAGE_CHARS, MAX_PATH_CHARS};
    use crate::text::{one_line, one_line_of};

    #[derive(Debug)]
    pub struct Validator(jsonschema::Validator);

    /// Compile, or the JSON Pointer into the document and the message of why not; `formats`
    /// asserted, an annotation, or (`None`) as the document's meta-schema says.
    pub fn compile(document: &Value, formats: Option<bool>) -> Result<Validator, (String, String)> {
        jsonschema::__selfheal_validator_for(document, formats)
            .map(Validator)
            .map_err(|e| (e.instance_path().as_str().to_string(), e.to_string()))
    }

    impl Validator {
        /// Whether `instance` is valid; `None` when the answer rests on a pattern match that
        /// was not tried, the call's matching budget spent (`selfheal_pattern::scope`).
        pub fn check(&self, instance: &Value) -> Option<bool> {
            reached(|| self.0.is_valid(instance))
        }

        pub fn is_valid(&self, instance: &Value) -> bool {
            self.check(instance) == Some(true)
        }

        /// The first `listed` errors of `instance` as report issues, and how many more there
        /// are: counted, not formatted (jsonschema collects every error first).
        pub fn issues(&self, instance: &Value, listed: usize) -> (Vec<FailureIssue>, usize) {
            reached(|| {
                let mut errors = self.0.iter_errors(instance);
                let issues = errors.by_ref().take(listed).map(|e| issue(&e)).collect();
                (issues, errors.count())
            })
            .unwrap_or_else(|| (vec![not_matched()], 0))
        }

        /// The first error only (cheap where the schema builds no nested error lists).
        pub fn first_issue(&self, instance: &Value) -> Option<FailureIssue> {
            reached(|| self.0.validate(instance).err().map(|e| issue(&e)))
                .unwrap_or_else(|| Some(not_matched()))
        }
    }

    /// `f`'s answer, one call's matching at most, or `None` when a match in it was not tried.
    fn reached<T>(f: impl FnOnce() -> T) -> Option<T> {
        super::one_call(|| {
            let before = selfheal_pattern::refusals();
            let out = f();
            (selfheal_pattern::refusals() == before).then_some(out)
        })
    }

    /// The issue of a value whose patterns the call's matching budget could not all check.
    fn not_matched() -> FailureIssue {
        FailureIssue {
            kind: FailureKind::Schema,
            path: String::new(),
            message: NOT_MATCHED.to_string(),
        }
    }

    /// Names the budget (`selfheal_pattern::CALL_BUDGET_NS`, checked below).
    const NOT_MATCHED: &str =
        "not validated: its strings take more pattern matching than one call may do (about 1 s)";

    /// A schema issue as the report holds it: path and message on one line, clipped.
    fn issue(e: &jsonschema::ValidationError<'_>) -> FailureIssue {
        FailureIssue {
            kind: FailureKind::Schema,
            path: one_line(e.instance_path().as_str(), MAX_PATH_CHARS),
            // jsonschema quotes the whole failing value: formatted only as far as the clip
            // reads, or every issue of a deep reply would print the reply again.
            message: one_line_of(e, MAX_MESSAGE_CHARS),
        }
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn the_not_matched_issue_names_the_budget() {
            let seconds = selfheal_pattern::CALL_BUDGET_NS / 1e9;
            assert!(super::NOT_MATCHED.contains(&format!("(about {seconds} s)")));
        }
    }
}

#[cfg(not(feature = "validate"))]
mod imp {
    use serde_json::Value;

    use crate::structured::FailureIssue;

    /// No validator in this build: every value passes (and [`super::VALIDATES`] says so).
    #[derive(Debug)]
    pub struct Validator;

    pub fn compile(
        _document: &Value,
        _formats: Option<bool>,
    ) -> Result<Validator, (String, String)> {
        Ok(Validator)
    }

    impl Validator {
        pub fn check(&self, _instance: &Value) -> Option<bool> {
            Some(true)
        }

        pub fn is_valid(&self, _instance: &Value) -> bool {
            true
        }

        pub fn issues(&self, _instance: &Value, _listed: usize) -> (Vec<FailureIssue>, usize) {
            (Vec::new(), 0)
        }

        pub fn first_issue(&self, _instance: &Value) -> Option<FailureIssue> {
            None
        }
    }
}

pub use imp::{compile, Validator};

/// A one-keyword schema for the stream's checks (`pattern`, `multipleOf`), compiled alone:
/// `None` when it does not compile, and always `None` without a validator.
pub fn keyword(schema: &Value) -> Option<Validator> {
    if VALIDATES {
        compile(schema, None).ok()
    } else {
        None
    }
}

//! The one configuration error: a bad option or restored state, named by its JS field.
//!
//! Every `check()` and constructor in the core returns it (the loop, the toolkit, classify
//! rules), so no module borrows another's error type. The wasm layer maps it to a JS
//! `TypeError` or `RangeError` in one place (`src/wasm/error.rs`), prefixing the argument's
//! name (`options.` + `backoff.baseMs`).

use crate::options::checks;
use crate::structured::SchemaError;

/// A bad option: the JS field it names, and whether it is a type or a range problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    pub field: String,
    pub message: String,
    /// `RangeError` rather than `TypeError` in JS.
    pub is_range: bool,
}

impl OptionError {
    pub fn range(field: &str, message: &str) -> OptionError {
        OptionError {
            field: field.into(),
            message: message.into(),
            is_range: true,
        }
    }

    pub fn type_(field: &str, message: &str) -> OptionError {
        OptionError {
            field: field.into(),
            message: message.into(),
            is_range: false,
        }
    }

    /// A `RangeError` at `field` unless `n` is a finite number >= 0.
    pub fn finite_non_negative(field: &str, n: f64) -> Result<(), OptionError> {
        checks::finite_non_negative(&n).map_err(|message| OptionError::range(field, message))
    }

    /// A `RangeError` at `field` unless the count `n` is at least 1.
    pub fn at_least_one(field: &str, n: impl Into<u64>) -> Result<(), OptionError> {
        checks::at_least_one(&n.into()).map_err(|message| OptionError::range(field, message))
    }

    /// The same error one level down: `under("options")` turns `maxSteps` into
    /// `options.maxSteps` (an empty field stays the parent itself).
    pub fn under(mut self, parent: &str) -> OptionError {
        self.field = match (parent.is_empty(), self.field.is_empty()) {
            (true, _) => self.field,
            (false, true) => parent.to_string(),
            (false, false) => format!("{parent}.{}", self.field),
        };
        self
    }
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field, self.message)
    }
}

impl std::error::Error for OptionError {}

impl From<SchemaError> for OptionError {
    fn from(e: SchemaError) -> OptionError {
        OptionError::type_("schema", &format!("is not usable: {e}"))
    }
}

impl From<crate::classify::RuleError> for OptionError {
    fn from(e: crate::classify::RuleError) -> Self {
        OptionError {
            field: e.field,
            message: e.message,
            is_range: e.is_range,
        }
    }
}

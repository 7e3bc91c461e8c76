//! The caller's own classification rules (SPEC section 10): "this 404 is transient for my
//! gateway", "this 503 means the deployment is gone", without forking the table.
//!
//! A rule lists conditions (`status`, `code`, `type`, `message`); it matches when every
//! condition it lists holds. Rules are tried in order after a failed validation (rule 1: the
//! host's verdict on a reply is not an error to reclassify) and before every other rule; the
//! first match decides the class, and the cause unless the rule names none (then the built-in
//! table's cause stays: a 404 made transient is still `not-found`). The signal is `rule`.

use serde::{Deserialize, Serialize};

use super::{Cause, Classified, ErrorClass, ErrorInfo, Signal};
use crate::text::lowercase;

/// At most this many rules: each classification may try every one.
pub const MAX_RULES: usize = 256;
/// A rule's `code`, `type` or `message` is at most this many characters.
pub const MAX_RULE_CHARS: usize = 1000;
/// A rule's `message` is looked for in this many leading characters of each message, so a
/// huge message cannot make every rule scan it.
pub const MESSAGE_WINDOW: usize = 4096;

/// An HTTP status, or an inclusive range `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum StatusMatch {
    One(u16),
    Range(u16, u16),
}

/// A number or a pair, by hand rather than `untagged`: a fractional or negative status is a
/// value out of range (`RangeError` in JS), a string or a pair of another length a wrong type.
impl<'de> Deserialize<'de> for StatusMatch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, IgnoredAny, SeqAccess, Unexpected, Visitor};
        fn status<E: Error>(n: f64) -> Result<u16, E> {
            if n.fract() == 0.0 && (0.0..=f64::from(u16::MAX)).contains(&n) {
                return Ok(n as u16);
            }
            let expected = &"an HTTP status (a whole number, 100 to 999)";
            Err(E::invalid_value(Unexpected::Float(n), expected))
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StatusMatch;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a status or [low, high]")
            }
            fn visit_u64<E: Error>(self, n: u64) -> Result<StatusMatch, E> {
                status(n as f64).map(StatusMatch::One)
            }
            fn visit_i64<E: Error>(self, n: i64) -> Result<StatusMatch, E> {
                status(n as f64).map(StatusMatch::One)
            }
            fn visit_f64<E: Error>(self, n: f64) -> Result<StatusMatch, E> {
                status(n).map(StatusMatch::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StatusMatch, A::Error> {
                let pair = (seq.next_element::<f64>()?, seq.next_element::<f64>()?);
                let (Some(low), Some(high), None) =
                    (pair.0, pair.1, seq.next_element::<IgnoredAny>()?)
                else {
                    return Err(A::Error::custom(
                        "must be a status or [low, high] (two numbers)",
                    ));
                };
                Ok(StatusMatch::Range(status(low)?, status(high)?))
            }
        }
        d.deserialize_any(V)
    }
}

impl StatusMatch {
    fn contains(self, status: u16) -> bool {
        match self {
            StatusMatch::One(s) => s == status,
            StatusMatch::Range(low, high) => (low..=high).contains(&status),
        }
    }
}

/// One rule (`ClassifyRule` in JS).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifyRule {
    /// The HTTP status (or the status an error body carries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<StatusMatch>,
    /// Exactly one of the error's codes (`code`, `cause.code`, `error.code`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Exactly one of the error's types, its status string, its name or its class name.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// A substring of one of the error's messages, case-insensitive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub class: ErrorClass,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
}

/// A rule that cannot be used, naming its field as JS spells it (`rules[2].status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    pub field: String,
    pub message: String,
    /// `RangeError` rather than `TypeError` in JS.
    pub is_range: bool,
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field, self.message)
    }
}

impl ClassifyRule {
    /// What the types cannot say: a status in 100..=999 (a range with `low <= high`), text
    /// that is neither empty nor over [`MAX_RULE_CHARS`], at least one condition. `index` is
    /// the rule's place in its list, for the field name.
    pub fn check(&self, index: usize) -> Result<(), RuleError> {
        let field = |name: &str| format!("rules[{index}].{name}");
        let range = |name: &str, message: String| RuleError {
            field: field(name),
            message,
            is_range: true,
        };
        let status_ok = |s: u16| (100..=999).contains(&s);
        match self.status {
            Some(StatusMatch::One(s)) if !status_ok(s) => {
                return Err(range(
                    "status",
                    format!("must be an HTTP status (100 to 999), got {s}"),
                ))
            }
            Some(StatusMatch::Range(low, high))
                if !status_ok(low) || !status_ok(high) || low > high =>
            {
                return Err(range(
                    "status",
                    format!(
                        "must be [low, high] with 100 <= low <= high <= 999, got [{low}, {high}]"
                    ),
                ))
            }
            _ => {}
        }
        for (name, text) in [
            ("code", &self.code),
            ("type", &self.type_),
            ("message", &self.message),
        ] {
            if let Some(t) = text {
                if t.is_empty() {
                    return Err(range(name, "must not be empty".into()));
                }
                let chars = t.chars().count();
                if chars > MAX_RULE_CHARS {
                    return Err(range(
                        name,
                        format!("must be at most {MAX_RULE_CHARS} characters, got {chars}"),
                    ));
                }
            }
        }
        if self.status.is_none()
            && self.code.is_none()
            && self.type_.is_none()
            && self.message.is_none()
        {
            return Err(RuleError {
                field: format!("rules[{index}]"),
                message: "needs at least one of status, code, type or message to match on".into(),
                is_range: false,
            });
        }
        Ok(())
    }

    /// Every condition the rule lists holds for `e`.
    pub fn matches(&self, e: &ErrorInfo) -> bool {
        self.matches_in(e, &Lowered::default())
    }

    /// [`matches`](Self::matches), the messages' lowered windows shared with the other rules
    /// tried on the same error (made once, when the first rule with a `message` asks).
    fn matches_in(&self, e: &ErrorInfo, lowered: &Lowered) -> bool {
        if let Some(m) = self.status {
            if !e.status.is_some_and(|s| m.contains(s)) {
                return false;
            }
        }
        if let Some(code) = &self.code {
            if !e.codes.iter().any(|c| c == code) {
                return false;
            }
        }
        if let Some(t) = &self.type_ {
            let named = e.name.as_ref() == Some(t) || e.class_name.as_ref() == Some(t);
            if !named && !e.types.iter().chain(e.status_texts.iter()).any(|x| x == t) {
                return false;
            }
        }
        if let Some(needle) = &self.message {
            let needle = lowercase(needle);
            if !lowered.windows(e).iter().any(|w| w.contains(&needle)) {
                return false;
            }
        }
        true
    }

    /// The rule's decision over the built-in one (`builtin`): its class, its cause or the
    /// built-in cause, the built-in reason prefixed with the rule that decided.
    pub fn apply(&self, index: usize, builtin: Classified) -> Classified {
        Classified::new(
            self.class,
            self.cause.unwrap_or(builtin.cause),
            Signal::Rule,
            super::one_line(&format!("rules[{index}]: {}", builtin.reason)),
        )
    }
}

/// Checks every rule and their number.
pub fn check_all(rules: &[ClassifyRule]) -> Result<(), RuleError> {
    if rules.len() > MAX_RULES {
        return Err(RuleError {
            field: "rules".into(),
            message: format!("must hold at most {MAX_RULES} rules, got {}", rules.len()),
            is_range: true,
        });
    }
    rules.iter().enumerate().try_for_each(|(i, r)| r.check(i))
}

/// The first rule that matches, with its index.
pub(super) fn first_match<'a>(
    rules: &'a [ClassifyRule],
    e: &ErrorInfo,
) -> Option<(usize, &'a ClassifyRule)> {
    if !e.present {
        return None;
    }
    let lowered = Lowered::default();
    rules
        .iter()
        .enumerate()
        .find(|(_, r)| r.matches_in(e, &lowered))
}

/// An error's messages, each cut to [`MESSAGE_WINDOW`] characters and lowered, made on first use.
#[derive(Default)]
struct Lowered(std::cell::OnceCell<Vec<String>>);

impl Lowered {
    fn windows(&self, e: &ErrorInfo) -> &[String] {
        self.0.get_or_init(|| {
            e.messages
                .iter()
                .map(|m| lowercase(&m.chars().take(MESSAGE_WINDOW).collect::<String>()))
                .collect()
        })
    }
}

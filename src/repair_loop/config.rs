//! What a loop is configured with: the options as the host gives them ([`LoopOptions`], the
//! JS `LoopOptions` read by serde: every name here is the contract's) and resolved
//! ([`LoopConfig`]: every default applied, checked, and saved in snapshots).
//!
//! To add an option: a field on [`LoopOptions`] (its serde name is the JS name), its resolved
//! form on [`LoopConfig`] with its default in [`LoopConfig::new`], a range check in
//! [`LoopConfig::check`] if the type allows values the contract does not, and the `.d.ts` line.

use serde::{Deserialize, Serialize};

use super::OptionError;
use crate::backoff::{u64_string, Backoff, Jitter};
use crate::classify::{rules::check_all, ClassifyRule};
use crate::prompt::{Locale, Prompt, DEFAULT_MAX_RAW_CHARS};
use crate::structured::DEFAULT_MAX_REPLY_CHARS;

/// How repairable failures are repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Quote the broken output and ask for a repaired value.
    #[default]
    Fix,
    /// Resend the previous prompt with the failure appended.
    Reask,
}

/// Where the host sends the work when the loop gives up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "mode",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum FallbackPlan {
    Human { queue: String },
    Template { template_id: String, text: String },
}

/// Per-class budgets and the hard limits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub transient: u32,
    pub repairable: u32,
    pub semantic_invalid: u32,
    pub cost_ceiling_usd: Option<f64>,
    pub deadline_ms: Option<f64>,
    pub max_prompt_chars: Option<u32>,
}

impl Budget {
    /// SPEC defaults; `maxPromptChars` is 6000 in fix mode and unlimited in reask mode.
    pub fn default_for(mode: Mode) -> Budget {
        Budget {
            transient: 6,
            repairable: 1,
            semantic_invalid: 1,
            cost_ceiling_usd: None,
            deadline_ms: None,
            max_prompt_chars: match mode {
                Mode::Fix => Some(6000),
                Mode::Reask => None,
            },
        }
    }
}

/// Everything the loop is configured with (the JS `LoopOptions`, resolved).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopConfig {
    pub prompt: Prompt,
    pub mode: Mode,
    pub alternate_prompt: Option<Prompt>,
    pub fallback: Option<FallbackPlan>,
    pub budget: Budget,
    pub backoff: Backoff,
    pub local_repair: bool,
    /// SPEC section 9 `coerce` (default false). Left out of snapshots while false, so state
    /// saved before it existed and state saved now read the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub coerce: bool,
    pub locale: Locale,
    pub max_raw_chars: u32,
    /// A longer reply (in code points) is refused unread: degrade `unrepairable`.
    #[serde(default = "default_max_reply_chars")]
    pub max_reply_chars: u32,
    #[serde(with = "u64_string")]
    pub seed: u64,
    /// The caller's classification rules for error outcomes (SPEC section 10).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<ClassifyRule>,
}

fn default_max_reply_chars() -> u32 {
    DEFAULT_MAX_REPLY_CHARS as u32
}

impl LoopConfig {
    /// SPEC defaults around the first prompt.
    pub fn new(prompt: Prompt, seed: u64) -> LoopConfig {
        LoopConfig {
            prompt,
            mode: Mode::Fix,
            alternate_prompt: None,
            fallback: None,
            budget: Budget::default_for(Mode::Fix),
            backoff: Backoff::default(),
            local_repair: true,
            coerce: false,
            locale: Locale::En,
            max_raw_chars: DEFAULT_MAX_RAW_CHARS as u32,
            max_reply_chars: default_max_reply_chars(),
            seed,
            rules: Vec::new(),
        }
    }

    /// Range checks the types cannot express. Field names are the JS ones.
    pub fn check(&self) -> Result<(), OptionError> {
        let b = &self.backoff;
        for (field, v) in [
            ("backoff.baseMs", b.base_ms),
            ("backoff.maxMs", b.max_ms),
            ("backoff.jitterMs", b.jitter_ms),
            ("backoff.maxRetryAfterMs", b.max_retry_after_ms),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(OptionError::range(field, "must be a finite number >= 0"));
            }
        }
        if let Some(c) = self.budget.cost_ceiling_usd {
            if !(c.is_finite() && c >= 0.0) {
                return Err(OptionError::range(
                    "budget.costCeilingUsd",
                    "must be a finite number >= 0 or null",
                ));
            }
        }
        if let Some(d) = self.budget.deadline_ms {
            if !(d.is_finite() && d >= 0.0) {
                return Err(OptionError::range(
                    "budget.deadlineMs",
                    "must be a finite number >= 0 or null",
                ));
            }
        }
        check_all(&self.rules).map_err(|e| OptionError {
            field: e.field,
            message: e.message,
            is_range: e.is_range,
        })?;
        Ok(())
    }
}

/// `LoopOptions` as the host gives them (SPEC section 2): every field but `prompt` may be left
/// out (`undefined` or `null`: the default). `schema` and `rules` are read by the wasm layer
/// beside these (a schema may be a live `Schema` instance; rules have their own reader).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopOptions {
    pub prompt: Prompt,
    pub mode: Option<Mode>,
    pub alternate_prompt: Option<Prompt>,
    pub fallback: Option<FallbackPlan>,
    pub budget: Option<BudgetOptions>,
    pub backoff: Option<BackoffOptions>,
    pub local_repair: Option<bool>,
    pub coerce: Option<bool>,
    pub locale: Option<Locale>,
    pub max_raw_chars: Option<u32>,
    pub max_reply_chars: Option<u32>,
    /// Any finite number: whole numbers seed as themselves, others by their bits.
    pub seed: Option<f64>,
}

/// `Partial<Budget>`: a left-out field takes the mode's default; `maxPromptChars: null` is
/// "no limit" (the other two nullable fields default to `null` anyway).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetOptions {
    pub transient: Option<u32>,
    pub repairable: Option<u32>,
    pub semantic_invalid: Option<u32>,
    pub cost_ceiling_usd: Option<f64>,
    pub deadline_ms: Option<f64>,
    #[serde(
        default,
        alias = "\u{0}null",
        deserialize_with = "crate::wire::nullable"
    )]
    pub max_prompt_chars: Option<Option<u32>>,
}

/// `Partial<Backoff>`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackoffOptions {
    pub base_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub jitter: Option<Jitter>,
    pub jitter_ms: Option<f64>,
    pub max_retry_after_ms: Option<f64>,
}

impl LoopOptions {
    /// Whether the host gave a seed (else the wasm layer draws one).
    pub fn has_seed(&self) -> bool {
        self.seed.is_some()
    }

    /// Every default applied; `seed` (or `default_seed` when none was given) as the PRNG seed.
    /// Not checked: [`LoopConfig::check`] (run by `RepairLoop::new`) is.
    pub fn resolve(self, default_seed: u64) -> LoopConfig {
        let seed = match self.seed {
            Some(n) if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 => n as i64 as u64,
            Some(n) => n.to_bits(),
            None => default_seed,
        };
        let mut c = LoopConfig::new(self.prompt, seed);
        c.mode = self.mode.unwrap_or_default();
        c.alternate_prompt = self.alternate_prompt;
        c.fallback = self.fallback;
        let (b, d) = (self.budget.unwrap_or_default(), Budget::default_for(c.mode));
        c.budget = Budget {
            transient: b.transient.unwrap_or(d.transient),
            repairable: b.repairable.unwrap_or(d.repairable),
            semantic_invalid: b.semantic_invalid.unwrap_or(d.semantic_invalid),
            cost_ceiling_usd: b.cost_ceiling_usd.or(d.cost_ceiling_usd),
            deadline_ms: b.deadline_ms.or(d.deadline_ms),
            max_prompt_chars: b.max_prompt_chars.unwrap_or(d.max_prompt_chars),
        };
        let (b, d) = (self.backoff.unwrap_or_default(), Backoff::default());
        c.backoff = Backoff {
            base_ms: b.base_ms.unwrap_or(d.base_ms),
            max_ms: b.max_ms.unwrap_or(d.max_ms),
            jitter: b.jitter.unwrap_or(d.jitter),
            jitter_ms: b.jitter_ms.unwrap_or(d.jitter_ms),
            max_retry_after_ms: b.max_retry_after_ms.unwrap_or(d.max_retry_after_ms),
        };
        c.local_repair = self.local_repair.unwrap_or(c.local_repair);
        c.coerce = self.coerce.unwrap_or(c.coerce);
        c.locale = self.locale.unwrap_or(c.locale);
        c.max_raw_chars = self.max_raw_chars.unwrap_or(c.max_raw_chars);
        c.max_reply_chars = self.max_reply_chars.unwrap_or(c.max_reply_chars);
        c
    }
}

//! What a loop is configured with: the options as the host gives them ([`LoopOptions`], the
//! JS `LoopOptions` read by serde: every name here is the contract's) and resolved
//! ([`LoopConfig`]: every default applied, checked, and saved in snapshots).
//!
//! To add an option: one line in the `options!` list of [`LoopConfig`] (its name, type and
//! default; its serde name is the JS name, in `LoopOptions` and in snapshots alike; `, check f`
//! on the same line if the type allows values the contract does not), and the `.d.ts` line
//! (tests/dts_contract.rs fails until it is there). See src/options.rs.

use serde::{Deserialize, Serialize};

use super::OptionError;
use crate::backoff::{u64_string, Backoff, BackoffOptions};
use crate::classify::{rules::check_all, ClassifyRule};
use crate::options::checks::finite_non_negative_or_null;
use crate::options::{options, Given};
use crate::prompt::{Locale, Prompt, DEFAULT_MAX_RAW_CHARS};
use crate::structured::DEFAULT_MAX_REPLY_CHARS;

selfheal_hot::wire_enum! {
/// How repairable failures are repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Quote the broken output and ask for a repaired value.
    #[default]
    Fix,
    /// Resend the previous prompt with the failure appended.
    Reask,
}
}

crate::wire::tagged_enum! {
    #[tag("mode", "$selfheal::tagged:mode")]
    /// Where the host sends the work when the loop gives up.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(rename_all = "lowercase", rename_all_fields = "camelCase")]
    pub enum FallbackPlan {
        Human { queue: String },
        Template { template_id: String, text: String },
    }
}

options! {
    /// Per-class budgets and the hard limits.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Budget;
    /// `Partial<Budget>`: a left-out field takes the mode's default; `maxPromptChars: null` is
    /// "no limit" (the other two nullable fields default to `null` anyway).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    given BudgetOptions(mode: Mode);
    {
        pub transient: u32 = 6,
        pub repairable: u32 = 1,
        pub semantic_invalid: u32 = 1,
        pub cost_ceiling_usd: Option<f64> = None, given Option<f64>,
            check finite_non_negative_or_null,
        pub deadline_ms: Option<f64> = None, given Option<f64>, check finite_non_negative_or_null,
        /// 6000 in fix mode, unlimited in reask mode.
        pub max_prompt_chars: Option<u32> = match mode {
            Mode::Fix => Some(6000),
            Mode::Reask => None,
        }, given #[serde(default, alias = "\u{0}null", deserialize_with = "crate::wire::nullable")]
            Option<Option<u32>>,
    }
}

impl Budget {
    /// SPEC defaults in `mode`.
    pub fn default_for(mode: Mode) -> Budget {
        BudgetOptions::default().resolve(mode)
    }
}

options! {
    /// Everything the loop is configured with (the JS `LoopOptions`, resolved): one line an
    /// option, with its default.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct LoopConfig;
    /// The JS `LoopOptions` as the host gives them (SPEC section 2): every field but `prompt`
    /// may be left out (`undefined` or `null`: the default). `schema` is read by the wasm layer
    /// beside these (it may be a live `Schema` instance).
    #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    given LoopOptions(default_seed: u64);
    {
        pub prompt: Prompt,
        pub mode: Mode = Mode::Fix,
        pub alternate_prompt: Option<Prompt> = None, given Option<Prompt>,
        pub fallback: Option<FallbackPlan> = None, given Option<FallbackPlan>,
        pub budget: Budget = Budget::default_for(mode), given Option<BudgetOptions>,
        pub backoff: Backoff = Backoff::default(), given Option<BackoffOptions>,
        pub local_repair: bool = true,
        /// SPEC section 9 `coerce` (default false). Left out of snapshots while false, so state
        /// saved before it existed and state saved now read the same.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        pub coerce: bool = false,
        pub locale: Locale = Locale::En,
        pub max_raw_chars: u32 = DEFAULT_MAX_RAW_CHARS as u32,
        /// A longer reply (in code points) is refused unread: degrade `unrepairable`.
        #[serde(default = "default_max_reply_chars")]
        pub max_reply_chars: u32 = default_max_reply_chars(),
        /// Given as any finite number ([`Seed`]); drawn by the wasm layer when left out.
        #[serde(with = "u64_string")]
        pub seed: u64 = default_seed, given Option<Seed>,
        /// The caller's classification rules for error outcomes (SPEC section 10), read by the
        /// wasm layer with their own limits.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub rules: Vec<ClassifyRule> = Vec::new(), given #[serde(skip)] Option<Vec<ClassifyRule>>,
    }
}

/// `LoopOptions.seed`: any finite number; whole numbers seed as themselves, others by their bits.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct Seed(pub f64);

impl Given<u64> for Option<Seed> {
    fn or(self, default_seed: u64) -> u64 {
        match self {
            Some(Seed(n)) if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 => {
                n as i64 as u64
            }
            Some(Seed(n)) => n.to_bits(),
            None => default_seed,
        }
    }
}

fn default_max_reply_chars() -> u32 {
    DEFAULT_MAX_REPLY_CHARS as u32
}

impl LoopConfig {
    /// SPEC defaults around the first prompt.
    pub fn new(prompt: Prompt, seed: u64) -> LoopConfig {
        LoopOptions {
            prompt,
            ..LoopOptions::default()
        }
        .resolve(seed)
    }

    /// Range checks the types cannot express. Field names are the JS ones.
    pub fn check(&self) -> Result<(), OptionError> {
        // Each field's `check` in the lists above (backoff's first, as always), then the rules.
        self.backoff
            .check_fields()
            .map_err(|e| e.under("backoff"))?;
        self.budget.check_fields().map_err(|e| e.under("budget"))?;
        self.check_fields()?;
        check_all(&self.rules).map_err(|e| OptionError {
            field: e.field,
            message: e.message,
            is_range: e.is_range,
        })?;
        Ok(())
    }
}

impl LoopOptions {
    /// Whether the host gave a seed (else the wasm layer draws one).
    pub fn has_seed(&self) -> bool {
        self.seed.is_some()
    }
}

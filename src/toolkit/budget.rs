//! `AgentBudget`: iteration and token budgets for an agent loop, with a
//! "nearly done" signal (SPEC section 6).
//!
//! The host calls [`AgentBudget::record`] once per model call (one
//! iteration) with the call's usage, asks [`AgentBudget::exhausted`] before
//! the next call, caps that call's `max_tokens` with
//! [`AgentBudget::max_tokens_for_next_call`], and appends
//! [`AgentBudget::hint`] (empty unless nearly done) to its prompt.
//!
//! A budget is spent when the amount used reaches it (`used >= max`).
//! "Nearly done" is either token ratio strictly above 0.8.

use serde::{Deserialize, Serialize};

use super::MAX_COUNT;
use crate::error::OptionError;
use crate::prompt::Locale;

/// Tokens one model call used (a loop's `reply` outcome, an `AgentBudget` iteration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Tokens of the prompt.
    pub input_tokens: u64,
    /// Tokens of the reply.
    pub output_tokens: u64,
}

/// Budget limits. `maxInputTokens` and `maxOutputTokens` are required;
/// `maxIterations` defaults to 20.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentBudgetOptions {
    /// At least 1.
    pub max_input_tokens: u64,
    /// At least 1.
    pub max_output_tokens: u64,
    /// Default 20; at least 1.
    #[serde(default = "default_max_iterations")]
    pub max_iterations: u32,
}

fn default_max_iterations() -> u32 {
    20
}

impl AgentBudgetOptions {
    /// The two token limits with `maxIterations` 20.
    pub fn new(max_input_tokens: u64, max_output_tokens: u64) -> AgentBudgetOptions {
        AgentBudgetOptions {
            max_input_tokens,
            max_output_tokens,
            max_iterations: default_max_iterations(),
        }
    }

    /// Range checks the types cannot express; errors name the JS field.
    pub fn check(&self) -> Result<(), OptionError> {
        OptionError::at_least_one("maxInputTokens", self.max_input_tokens)?;
        OptionError::at_least_one("maxOutputTokens", self.max_output_tokens)?;
        OptionError::at_least_one("maxIterations", self.max_iterations)
    }
}

/// Whether the agent must stop, and why. `reason` is `""` when `stop` is false.
#[must_use]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetStatus {
    /// True: do not make another call; finish with what you have.
    pub stop: bool,
    /// One English sentence naming the spent budget and the figures.
    pub reason: String,
}

/// The budget. Its whole state serialises with serde (`toJSON`/`fromJSON`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentBudget {
    options: AgentBudgetOptions,
    iterations: u32,
    input_tokens: u64,
    output_tokens: u64,
}

impl AgentBudget {
    /// A fresh budget, after [`AgentBudgetOptions::check`].
    pub fn new(options: AgentBudgetOptions) -> Result<AgentBudget, OptionError> {
        options.check()?;
        Ok(AgentBudget {
            options,
            iterations: 0,
            input_tokens: 0,
            output_tokens: 0,
        })
    }

    /// Checks a deserialised budget (`fromJSON`): its options (errors under `options`).
    pub fn check(&self) -> Result<(), OptionError> {
        self.options.check().map_err(|e| e.under("options"))
    }

    // ---- getters ----

    /// The options the budget was built with.
    pub fn options(&self) -> AgentBudgetOptions {
        self.options
    }

    /// Iterations recorded.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Input tokens used in total.
    pub fn input_tokens(&self) -> u64 {
        self.input_tokens
    }

    /// Output tokens used in total.
    pub fn output_tokens(&self) -> u64 {
        self.output_tokens
    }

    // ---- inputs ----

    /// One iteration (model call) and its token usage.
    pub fn record(&mut self, usage: Usage) {
        self.iterations = self.iterations.saturating_add(1);
        // Held to MAX_COUNT, at or above any budget set from JS (whole numbers up to it), so a spent
        // budget stays spent and its state reads back.
        self.input_tokens = (self.input_tokens.saturating_add(usage.input_tokens)).min(MAX_COUNT);
        self.output_tokens =
            (self.output_tokens.saturating_add(usage.output_tokens)).min(MAX_COUNT);
    }

    // ---- outputs ----

    /// Checked in order: iterations, input tokens, output tokens; the first
    /// spent budget is the reason.
    pub fn exhausted(&self) -> BudgetStatus {
        let o = &self.options;
        let reason = if self.iterations >= o.max_iterations {
            format!(
                "The iteration budget is spent: {} of {} iterations used.",
                self.iterations, o.max_iterations
            )
        } else if self.input_tokens >= o.max_input_tokens {
            format!(
                "The input token budget is spent: {} of {} input tokens used.",
                self.input_tokens, o.max_input_tokens
            )
        } else if self.output_tokens >= o.max_output_tokens {
            format!(
                "The output token budget is spent: {} of {} output tokens used.",
                self.output_tokens, o.max_output_tokens
            )
        } else {
            return BudgetStatus {
                stop: false,
                reason: String::new(),
            };
        };
        BudgetStatus { stop: true, reason }
    }

    /// True when input or output tokens used are above 80% of their budget.
    pub fn nearly_done(&self) -> bool {
        above_80_percent(self.input_tokens, self.options.max_input_tokens)
            || above_80_percent(self.output_tokens, self.options.max_output_tokens)
    }

    /// The `max_tokens` to request on the next call: `min(cap, output tokens
    /// left)`, never below 0. 0 means the output budget is spent.
    pub fn max_tokens_for_next_call(&self, cap: u64) -> u64 {
        cap.min(
            self.options
                .max_output_tokens
                .saturating_sub(self.output_tokens),
        )
    }

    /// `""` unless [`AgentBudget::nearly_done`]; then a sentence for the
    /// agent's prompt telling it to wrap up: finish with what it has, no new
    /// branches of work, no new tools.
    pub fn hint(&self, locale: Locale) -> String {
        if !self.nearly_done() {
            return String::new();
        }
        match locale {
            Locale::En => "You are close to your token budget. Wrap up now: finish the task with what you already have, do not start new branches of work or call new tools, and give your final answer.",
            Locale::Ja => "トークン予算の上限が近づいています。今すぐまとめに入ってください。すでに得ている情報でタスクを完了し、新しい作業の分岐を始めたり新しいツールを呼び出したりせず、最終的な回答を出してください。",
            Locale::Zh => "你的 token 预算即将用完。请立即收尾：用已有的信息完成任务，不要开启新的工作分支，也不要调用新的工具，直接给出最终答案。",
        }
        .to_string()
    }
}

/// `used / max > 0.8`, exactly (no floating point).
fn above_80_percent(used: u64, max: u64) -> bool {
    u128::from(used) * 5 > u128::from(max) * 4
}

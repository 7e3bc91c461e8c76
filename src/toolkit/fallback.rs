//! `FallbackChain`: call a primary tool, fall back to the next tools in
//! order, with one circuit breaker per tool (SPEC section 6).
//!
//! The host calls [`FallbackChain::start`], makes the call a `call` step
//! names, feeds the result to [`FallbackChain::next`], and repeats until a
//! final step (`done`, `default` or `exhausted`). Theory of operation:
//!
//! * The chain's tools, in order, are `primary` then `fallbacks`. Each tool
//!   name has its own [`CircuitBreaker`] (built from `failureThreshold` and
//!   `resetTimeoutMs`), kept across runs and part of the serialised state; a
//!   name listed twice shares one breaker.
//! * A call goes to the first tool at or after the current position whose
//!   breaker is not open at `now`; tools with an open breaker are skipped
//!   without a call.
//! * Success records a success on that tool's breaker → `done`. Failure
//!   records a failure (unless the request brought it on: a bad request, a
//!   prompt too large for the tool, a content filter) → the next
//!   tool, or, when none is left, `default`
//!   (if a `defaultValue` was given, `null` included) else `exhausted`.
//! * Final steps are sticky: `next()` returns them again. `start()` always
//!   begins a fresh run over the same breakers (requests one after another
//!   share a chain, so the breakers learn); a run in progress is abandoned
//!   without recording anything. One run at a time: concurrent requests each
//!   need their own chain (a result fed to a shared one would be taken for
//!   the other run's tool). `next()` before any `start()` acts as `start()` and
//!   ignores the result, since no call was asked for.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::breaker::{BreakerOptions, CircuitBreaker};
use crate::classify::Cause;
use crate::error::OptionError;

/// Chain settings. `primary`, `fallbacks` and `timeoutMs` are required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FallbackOptions {
    /// The tool to try first; a non-empty name.
    pub primary: String,
    /// The tools to try next, in order; non-empty names (may be empty).
    pub fallbacks: Vec<String>,
    /// Returned as `{type:"default", value}` when every tool failed.
    /// `Some(Value::Null)` (JS `defaultValue: null`) counts as given;
    /// only an absent field (JS `undefined`) means no default.
    #[serde(
        default,
        alias = "\u{0}null",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::present_json"
    )]
    pub default_value: Option<Value>,
    /// Carried by each `call` step for the host to enforce; finite, `> 0`.
    pub timeout_ms: f64,
    /// Default 3; at least 1.
    #[serde(default = "default_threshold")]
    pub failure_threshold: u32,
    /// Default 60000; finite, `>= 0`.
    #[serde(default = "default_reset_timeout")]
    pub reset_timeout_ms: f64,
}

fn default_threshold() -> u32 {
    BreakerOptions::default().failure_threshold
}

fn default_reset_timeout() -> f64 {
    BreakerOptions::default().reset_timeout_ms
}

impl FallbackOptions {
    /// SPEC defaults around the required fields, no default value.
    pub fn new(primary: &str, fallbacks: &[&str], timeout_ms: f64) -> FallbackOptions {
        FallbackOptions {
            primary: primary.to_string(),
            fallbacks: fallbacks.iter().map(|s| s.to_string()).collect(),
            default_value: None,
            timeout_ms,
            failure_threshold: default_threshold(),
            reset_timeout_ms: default_reset_timeout(),
        }
    }

    /// Range checks the types cannot express; errors name the JS field.
    pub fn check(&self) -> Result<(), OptionError> {
        if self.primary.is_empty() {
            return Err(OptionError::range("primary", "must be a non-empty string"));
        }
        if let Some(i) = self.fallbacks.iter().position(String::is_empty) {
            return Err(OptionError::range(
                &format!("fallbacks[{i}]"),
                "must be a non-empty string",
            ));
        }
        if !(self.timeout_ms.is_finite() && self.timeout_ms > 0.0) {
            return Err(OptionError::range(
                "timeoutMs",
                "must be a finite number > 0",
            ));
        }
        self.breaker_options().check()
    }

    fn breaker_options(&self) -> BreakerOptions {
        BreakerOptions {
            failure_threshold: self.failure_threshold,
            reset_timeout_ms: self.reset_timeout_ms,
        }
    }
}

/// The result of the call the last `call` step asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChainResult {
    /// True when the tool gave a usable result.
    pub ok: bool,
    /// What went wrong, as text for logs (kept in [`FallbackChain::failures`]).
    pub error: Option<String>,
    /// What [`classify`](crate::classify::classify) made of the error, when it was an error
    /// object. A failure the request brought on ([`the_requests_fault`]) moves the run on
    /// without counting against the tool's breaker.
    pub cause: Option<Cause>,
}

/// A failure caused by what was asked, not by the tool: another tool may take the request (a
/// larger context window, another filter), but the tool is as healthy as before. Counting these
/// let three oversized prompts open every tool's breaker for everyone. An abort counts against
/// the tool: it is how a host usually enforces the step's `timeoutMs`.
fn the_requests_fault(cause: Cause) -> bool {
    matches!(
        cause,
        Cause::BadRequest | Cause::TooLarge | Cause::ContextOverflow | Cause::ContentFilter
    )
}

impl ChainResult {
    /// The call worked.
    pub fn ok() -> ChainResult {
        ChainResult {
            ok: true,
            error: None,
            cause: None,
        }
    }

    /// The call failed with `error`.
    pub fn failed(error: impl Into<String>) -> ChainResult {
        ChainResult {
            ok: false,
            error: Some(error.into()),
            cause: None,
        }
    }
}

crate::wire::tagged_enum! {
    #[tag("type", "$selfheal::tagged:type")]
    /// What the host must do next.
    #[must_use]
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "lowercase", rename_all_fields = "camelCase")]
    pub enum ChainStep {
        /// Call `tool` with a timeout of `timeout_ms`, then feed the result to
        /// `next()`. `fallback` is true for any tool but the primary.
        Call {
            /// The tool to call.
            tool: String,
            /// Give up on the call after this long (and feed a failure).
            timeout_ms: f64,
            /// Not the primary.
            fallback: bool,
        },
        /// `tool_used` succeeded: use its result. Final.
        Done {
            /// The tool whose result to use.
            tool_used: String,
            /// It was not the primary.
            used_fallback: bool,
        },
        /// Every tool failed or was skipped: use `value` (the `defaultValue`). Final.
        Default {
            /// The `defaultValue` option.
            value: Value,
        },
        /// Every tool failed or was skipped and there is no default: report the
        /// failure. `tried` lists the tools called in this run, in call order
        /// (tools skipped for an open breaker are not in it). Final.
        Exhausted {
            /// The tools called in this run, in call order.
            tried: Vec<String>,
        },
    }
}

impl ChainStep {
    /// True for `done`, `default` and `exhausted`.
    pub fn is_final(&self) -> bool {
        !matches!(self, ChainStep::Call { .. })
    }
}

/// One failed call in the current run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainFailure {
    /// The tool that failed.
    pub tool: String,
    /// The error the host reported, if any.
    pub error: Option<String>,
    /// When the failure was fed (ms).
    pub at: f64,
}

/// The chain. Its whole state serialises with serde (`toJSON`/`fromJSON`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FallbackChain {
    options: FallbackOptions,
    /// One breaker per tool name.
    breakers: BTreeMap<String, CircuitBreaker>,
    /// Index (into primary + fallbacks) of the tool called now, while a call is out.
    position: Option<usize>,
    tried: Vec<String>,
    failures: Vec<ChainFailure>,
    /// The last step returned (`None` before the first `start()`).
    last: Option<ChainStep>,
}

impl FallbackChain {
    /// A chain with a closed breaker per tool, after [`FallbackOptions::check`].
    pub fn new(options: FallbackOptions) -> Result<FallbackChain, OptionError> {
        options.check()?;
        let mut chain = FallbackChain {
            options,
            breakers: BTreeMap::new(),
            position: None,
            tried: Vec::new(),
            failures: Vec::new(),
            last: None,
        };
        let names: Vec<String> = chain.tools().map(str::to_string).collect();
        for name in names {
            chain.breaker(&name);
        }
        Ok(chain)
    }

    /// Checks a deserialised chain (`fromJSON`): its options (errors under `options`), its
    /// breakers (under `breakers.<tool>`), and a call out only where `last` asks for the tool at
    /// `position` (an outside review restored `position: 50` on two tools: `done` with tool "",
    /// and a `null` position with a call out, which repeated the call for ever).
    pub fn check(&self) -> Result<(), OptionError> {
        self.options.check().map_err(|e| e.under("options"))?;
        for (tool, b) in &self.breakers {
            b.check()
                .map_err(|e| e.under(&format!("breakers.{tool}")))?;
        }
        let called = match &self.last {
            Some(ChainStep::Call { tool, .. }) => Some(tool.as_str()),
            _ => None,
        };
        let at_position = self.position.map(|p| self.tool_at(p));
        match (called, at_position) {
            (None, None) => Ok(()),
            (Some(tool), Some(Some(at))) if tool == at => Ok(()),
            _ => Err(OptionError::range(
                "position",
                "must be the place of the tool the last step calls (null when no call is out)",
            )),
        }
    }

    // ---- getters ----

    /// The options the chain was built with.
    pub fn options(&self) -> &FallbackOptions {
        &self.options
    }

    /// The breaker of `tool`, if it is in the chain.
    pub fn breaker_of(&self, tool: &str) -> Option<&CircuitBreaker> {
        self.breakers.get(tool)
    }

    /// Tools called in the current run, in call order.
    pub fn tried(&self) -> &[String] {
        &self.tried
    }

    /// Failed calls of the current run, with their errors.
    pub fn failures(&self) -> &[ChainFailure] {
        &self.failures
    }

    // ---- inputs ----

    /// Begin a run: call the first tool in order whose breaker is not open.
    pub fn start(&mut self, now: f64) -> ChainStep {
        self.position = None;
        self.tried.clear();
        self.failures.clear();
        let step = self.advance(0, now);
        self.last = Some(step.clone());
        step
    }

    /// Feed the result of the call the last step asked for.
    pub fn next(&mut self, result: ChainResult, now: f64) -> ChainStep {
        let Some(last) = &self.last else {
            return self.start(now);
        };
        if last.is_final() {
            return last.clone();
        }
        let Some(position) = self.position else {
            return last.clone();
        };
        let tool = self.tool_at(position).unwrap_or_default().to_string();
        let step = if result.ok {
            self.breaker(&tool).record_success();
            self.position = None;
            ChainStep::Done {
                tool_used: tool,
                used_fallback: position > 0,
            }
        } else {
            if !result.cause.is_some_and(the_requests_fault) {
                self.breaker(&tool).record_failure(now);
            }
            self.failures.push(ChainFailure {
                tool,
                error: result.error,
                at: now,
            });
            self.advance(position.saturating_add(1), now)
        };
        self.last = Some(step.clone());
        step
    }

    // ---- internals ----

    fn tools(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.options.primary.as_str())
            .chain(self.options.fallbacks.iter().map(String::as_str))
    }

    fn tool_at(&self, i: usize) -> Option<&str> {
        self.tools().nth(i)
    }

    /// The breaker of `tool`, created if missing (a state from elsewhere may lack it).
    fn breaker(&mut self, tool: &str) -> &mut CircuitBreaker {
        let options = self.options.breaker_options();
        self.breakers
            .entry(tool.to_string())
            .or_insert_with(|| CircuitBreaker::new(options))
    }

    /// The call for the first tool at or after `from` whose breaker is not
    /// open, else the final step.
    fn advance(&mut self, from: usize, now: f64) -> ChainStep {
        let names: Vec<String> = self.tools().skip(from).map(str::to_string).collect();
        for (offset, name) in names.into_iter().enumerate() {
            if self.breaker(&name).is_open(now) {
                continue;
            }
            let position = from.saturating_add(offset);
            self.position = Some(position);
            self.tried.push(name.clone());
            return ChainStep::Call {
                tool: name,
                timeout_ms: self.options.timeout_ms,
                fallback: position > 0,
            };
        }
        self.position = None;
        match &self.options.default_value {
            Some(value) => ChainStep::Default {
                value: value.clone(),
            },
            None => ChainStep::Exhausted {
                tried: self.tried.clone(),
            },
        }
    }
}

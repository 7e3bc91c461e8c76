//! Circuit breaker (SPEC section 6): closed → open after `failureThreshold`
//! failures; open → half-open once `resetTimeoutMs` has passed since the last
//! failure; a success closes it, a failure while half-open opens it again.
//!
//! The breaker never reads a clock: [`CircuitBreaker::is_open`] and
//! [`CircuitBreaker::record_failure`] take `now` (ms). "Passed" is inclusive:
//! at exactly `last failure + resetTimeoutMs` the breaker is half-open.
//! While half-open, calls are allowed (`is_open` is false) until one of them
//! succeeds (→ closed) or fails (→ open, timed from that failure). A failure
//! stamped by a clock behind the breaker's counts as of the last failure, or
//! as of the moment it half-opened ([`CircuitBreaker::record_failure`]).

use serde::{Deserialize, Serialize};

use crate::error::OptionError;
use crate::options::checks::{at_least_one, finite_non_negative};
use crate::options::{made_from_options, options};

selfheal_hot::wire_enum! {
/// Where the breaker stands. Serialises as `"closed"`, `"open"`, `"half-open"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BreakerState {
    /// Calls go through; failures are counted.
    #[default]
    Closed,
    /// Calls must not be made until the reset timeout has passed.
    Open,
    /// Trial calls are allowed: one success closes, one failure re-opens.
    HalfOpen,
}
}

impl BreakerState {
    /// The JS string of the state.
    pub fn as_str(self) -> &'static str {
        // The serde name: the derive's rename is the one place it is written.
        crate::wire::name_of(&self).unwrap_or_default()
    }
}

/// Clocks further apart than this are wrong, not skewed (see `record_failure`).
const MAX_CLOCK_SKEW_MS: f64 = 3_600_000.0;

options! {
    /// Breaker settings (`{ failureThreshold: 3, resetTimeoutMs: 60000 }` by default).
    pub struct BreakerOptions;
    {
        /// Consecutive failures (since the last success) that open the breaker; at least 1.
        pub failure_threshold: u32 = 3, check at_least_one,
        /// How long the breaker stays open after the last failure; finite, `>= 0`.
        pub reset_timeout_ms: f64 = 60000.0, check finite_non_negative,
    }
}

/// A circuit breaker. Its whole state serialises as
/// `{ options, state, failures, lastFailureAt }` (`toJSON`/`fromJSON`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CircuitBreaker {
    options: BreakerOptions,
    state: BreakerState,
    failures: u32,
    last_failure_at: Option<f64>,
}

made_from_options!(
    /// A closed breaker.
    CircuitBreaker(BreakerOptions)
);

impl CircuitBreaker {
    /// Checks a deserialised breaker (`fromJSON`): its options must pass
    /// [`BreakerOptions::check`], and the rest must be a state a breaker reaches: closed below
    /// the threshold, open or half-open after a failure, the last failure at a time a `Date`
    /// can hold (an outside review restored a closed breaker whose last failure was in the year
    /// 10^290: the first real failures then opened it for ever).
    pub fn check(&self) -> Result<(), OptionError> {
        self.options.check()?;
        let bad = |field: &str, message: &str| Err(OptionError::range(field, message));
        if let Some(t) = self.last_failure_at {
            if !(-super::MAX_DATE_MS..=super::MAX_DATE_MS).contains(&t) {
                return bad(
                    "lastFailureAt",
                    "must be a time a Date can hold (within 8.64e15 ms of 1970)",
                );
            }
        }
        match self.state {
            BreakerState::Closed if self.failures >= self.options.failure_threshold => bad(
                "failures",
                "must be below failureThreshold while the breaker is closed",
            ),
            BreakerState::Open | BreakerState::HalfOpen
                if self.failures == 0 || self.last_failure_at.is_none() =>
            {
                bad("state", "is open or half-open without a failure recorded")
            }
            _ => Ok(()),
        }
    }

    // ---- getters ----

    /// The options the breaker was built with.
    pub fn options(&self) -> BreakerOptions {
        self.options
    }

    /// The state as last computed; call [`CircuitBreaker::is_open`] first to
    /// let time move an open breaker to half-open.
    pub fn state(&self) -> BreakerState {
        self.state
    }

    /// Failures since the last success.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// When the last failure was recorded, if any.
    pub fn last_failure_at(&self) -> Option<f64> {
        self.last_failure_at
    }

    // ---- inputs ----

    /// True while open: the host must not make the call. Moves open →
    /// half-open (and returns false) once `resetTimeoutMs` has passed since
    /// the last failure. A NaN `now` leaves an open breaker open.
    pub fn is_open(&mut self, now: f64) -> bool {
        if self.state == BreakerState::Open && self.reset_passed(now) {
            self.state = BreakerState::HalfOpen;
        }
        self.state == BreakerState::Open
    }

    /// Whether the breaker will still be open at `at`, a time to come (the end of a wait),
    /// without moving it: until then it stays open for everyone who shares it, and the move to
    /// half-open is made by [`is_open`](Self::is_open) when the time comes.
    pub fn open_at(&self, at: f64) -> bool {
        self.state == BreakerState::Open && !self.reset_passed(at)
    }

    /// `resetTimeoutMs` has passed at `at` since the last failure (NaN: not passed).
    fn reset_passed(&self, at: f64) -> bool {
        self.last_failure_at.map_or(f64::INFINITY, |t| at - t) >= self.options.reset_timeout_ms
    }

    /// The call succeeded: closed, failures 0, no last failure (a failure from before it,
    /// stamped far ahead, must not hold the next ones back).
    pub fn record_success(&mut self) {
        self.state = BreakerState::Closed;
        self.failures = 0;
        self.last_failure_at = None;
    }

    /// The call failed: count it; open once failures reach the threshold,
    /// or at once when half-open.
    ///
    /// Host clocks differ and reports arrive late, so the failure is timed no
    /// earlier than the last one (a late report never shortens an open
    /// breaker's wait), and a half-open breaker's failure no earlier than the
    /// moment it half-opened (a failed trial call always re-opens it for a
    /// whole `resetTimeoutMs`), unless that is more than an hour (or
    /// `resetTimeoutMs`, if longer) ahead of `now`: clocks that far apart are
    /// wrong, and `now` counts.
    pub fn record_failure(&mut self, now: f64) {
        self.failures = self.failures.saturating_add(1);
        let earliest = match self.last_failure_at {
            Some(t) if self.state == BreakerState::HalfOpen => t + self.options.reset_timeout_ms,
            Some(t) => t,
            None => now,
        };
        // Later than this report by more than an hour (or a reset, if longer): not a clock a
        // little off but a wrong one, whose stamp would hold the breaker open for as long as it
        // is ahead.
        let skew = self.options.reset_timeout_ms.max(MAX_CLOCK_SKEW_MS);
        let earliest = match earliest - now > skew {
            true => now,
            false => earliest,
        };
        self.last_failure_at = Some(now.max(earliest));
        if self.state == BreakerState::HalfOpen || self.failures >= self.options.failure_threshold {
            self.state = BreakerState::Open;
        }
    }
}

//! Retry budget (SPEC section 10): resends allowed across any number of loops, as a fraction
//! of the first calls they made recently, in the manner of Finagle's `RetryBudget` and
//! Envoy's retry budgets (the SRE book's "retries at most 10 % of requests").
//!
//! Every loop records its first call ([`RetryBudget::record_request`]) and asks before each
//! resend ([`RetryBudget::try_retry`]). Over a sliding window of `windowMs`, a resend is
//! allowed while
//!
//! ```text
//! resends + 1 <= ratio × first calls + minPerSecond × windowMs / 1000
//! ```
//!
//! The second term is a reserve, so a quiet client can still retry. When a provider is down,
//! every loop fails and resends stop at about `ratio` of the traffic instead of multiplying it.
//!
//! Theory of operation. The window is kept as [`SLICES`] + 1 buckets of `windowMs / SLICES`
//! each, in a ring: memory is fixed whatever the traffic. Counting at time `t` (bucket `k`),
//! first calls are summed over the buckets `k - SLICES + 1 ..= k` (all inside `(t - windowMs,
//! t]`) and resends over `k - SLICES ..= k` (covering all of `(t - windowMs, t]`). Counting
//! first calls over a little less and resends over a little more than the window is
//! conservative: whenever a resend is granted at `t`, the resends in `(t - windowMs, t]` are
//! within the bound above for the first calls in that same interval, exactly.
//!
//! Time never goes back: a `now` earlier than the latest one seen counts as the latest.

use serde::{Deserialize, Serialize};

use super::MAX_COUNT;
use crate::error::OptionError;
use crate::options::checks::finite_non_negative;
use crate::options::{made_from_options, options};

/// Buckets per window.
pub const SLICES: usize = 10;
/// `now` is held to the range of a JS `Date` (±8.64e15 ms), so bucket numbers stay exact.
const MAX_TIME: f64 = super::MAX_DATE_MS;
/// Tolerance for the float sum `ratio × first calls + reserve`.
const EPSILON: f64 = 1e-9;

options! {
    /// Budget settings (`{ ratio: 0.1, minPerSecond: 1, windowMs: 10000 }` by default).
    #[serde(deny_unknown_fields)]
    pub struct RetryBudgetOptions;
    {
        /// Resends allowed per first call in the window; finite, `>= 0`.
        pub ratio: f64 = 0.1, check finite_non_negative,
        /// Resends allowed per second of window whatever the traffic; finite, `>= 0`.
        pub min_per_second: f64 = 1.0, check finite_non_negative,
        /// The sliding window; finite, at least 10 ms (one per slice).
        pub window_ms: f64 = 10_000.0, check one_ms_per_slice,
    }
}

/// `windowMs`: finite, at least one millisecond per slice.
fn one_ms_per_slice(window_ms: &f64) -> Result<(), &'static str> {
    match window_ms.is_finite() && *window_ms >= SLICES as f64 {
        true => Ok(()),
        false => Err("must be a finite number >= 10 (one millisecond per slice)"),
    }
}

impl RetryBudgetOptions {
    /// The resends allowed whatever the traffic: `minPerSecond × windowMs / 1000`.
    pub fn reserve(&self) -> f64 {
        self.min_per_second * self.window_ms / 1000.0
    }

    fn slice_ms(&self) -> f64 {
        self.window_ms / SLICES as f64
    }
}

/// One slice of the window: bucket number `slot` (`floor(t / slice)`), and what it counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Bucket {
    /// Whole number (a float, to stay exact through JSON and JS).
    slot: f64,
    requests: u64,
    retries: u64,
}

/// A retry budget shared by any number of loops. Its whole state serialises as
/// `{ options, buckets, latest }` (`toJSON` / `fromJSON`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryBudget {
    options: RetryBudgetOptions,
    /// Bucket `k` lives at `k mod (SLICES + 1)`.
    buckets: [Bucket; SLICES + 1],
    /// The latest `now` seen.
    latest: Option<f64>,
}

made_from_options!(
    /// An empty budget.
    RetryBudget(RetryBudgetOptions)
);

impl RetryBudget {
    /// Checks a deserialised budget (`fromJSON`; serde already insists on [`SLICES`] + 1
    /// buckets): its options, whole bucket numbers within range, counts within
    /// `Number.MAX_SAFE_INTEGER`, `latest` within a `Date`'s range, each bucket that counted at
    /// its own place and not after `latest`.
    pub fn check(&self) -> Result<(), OptionError> {
        self.options.check().map_err(|e| OptionError {
            field: format!("options.{}", e.field),
            ..e
        })?;
        let bad_bucket = self.buckets.iter().any(|b| {
            !(b.slot.is_finite() && b.slot.fract() == 0.0 && b.slot.abs() <= MAX_TIME)
                || b.requests > MAX_COUNT
                || b.retries > MAX_COUNT
        });
        if bad_bucket {
            return Err(OptionError::range(
                "buckets",
                "must hold whole bucket numbers and counts up to 2^53 - 1",
            ));
        }
        if self
            .latest
            .is_some_and(|t| !(-MAX_TIME..=MAX_TIME).contains(&t))
        {
            // A later one froze the window, and the state written after it read back no more.
            return Err(OptionError::range(
                "latest",
                "must be a time a Date can hold (within 8.64e15 ms of 1970) or null",
            ));
        }
        // A bucket that counted something sits at its own place in the ring and is no later
        // than the latest time: copies of one bucket in every place multiplied the allowance.
        let latest_slot = self.latest.map(|t| self.slot_of(t));
        let misplaced = self.buckets.iter().enumerate().any(|(i, b)| {
            (b.requests > 0 || b.retries > 0)
                && (Self::index(b.slot) != i || latest_slot.is_none_or(|k| b.slot > k))
        });
        if misplaced {
            return Err(OptionError::range(
                "buckets",
                "must each sit at their slot's place in the ring, none after latest",
            ));
        }
        Ok(())
    }

    // ---- getters ----

    /// The options the budget was built with.
    pub fn options(&self) -> RetryBudgetOptions {
        self.options
    }

    /// The latest time the budget was told (`None` before the first call).
    pub fn latest(&self) -> Option<f64> {
        self.latest
    }

    /// Resends [`try_retry`](RetryBudget::try_retry) would grant at `now`, one after another
    /// (whole, `>= 0`). Changes nothing.
    pub fn available_at(&self, now: f64) -> u64 {
        let (requests, retries) = self.counts(self.slot_of(self.time(now)));
        let room = self.allowance(requests) - retries as f64 + EPSILON;
        if room >= 1.0 {
            room.floor().min(MAX_COUNT as f64) as u64
        } else {
            0
        }
    }

    /// [`available_at`](RetryBudget::available_at) the latest time seen (the whole reserve
    /// before the first call): what `readonly available` shows in JS.
    pub fn available(&self) -> u64 {
        self.available_at(self.latest.unwrap_or(0.0))
    }

    /// Whether [`try_retry`](RetryBudget::try_retry) at `now` would grant a resend. Changes
    /// nothing.
    pub fn can_retry(&self, now: f64) -> bool {
        self.available_at(now) >= 1
    }

    // ---- inputs ----

    /// A first call was made at `now` (each loop records its own first call).
    pub fn record_request(&mut self, now: f64) {
        self.update(now, |b| b.requests = (b.requests + 1).min(MAX_COUNT));
    }

    /// A resend is wanted at `now`: true, and counted, when the budget allows it. A refusal
    /// changes nothing (not even the latest time), so a host that mirrors a loop's decision
    /// (`can_retry`, which the loop asks) ends with the same state as the loop.
    pub fn try_retry(&mut self, now: f64) -> bool {
        if !self.can_retry(now) {
            return false;
        }
        self.update(now, |b| b.retries = (b.retries + 1).min(MAX_COUNT));
        true
    }

    // ---- the window ----

    /// `now` as the budget counts it: within a `Date`'s range, never before the latest seen.
    fn time(&self, now: f64) -> f64 {
        let t = if now.is_nan() { f64::NEG_INFINITY } else { now };
        let t = t.clamp(-MAX_TIME, MAX_TIME);
        self.latest.map_or(t, |latest| t.max(latest))
    }

    fn slot_of(&self, t: f64) -> f64 {
        (t / self.options.slice_ms()).floor()
    }

    fn index(slot: f64) -> usize {
        (slot.rem_euclid((SLICES + 1) as f64)) as usize
    }

    /// First calls over the last [`SLICES`] buckets, resends over the last [`SLICES`] + 1
    /// (see the module docs).
    fn counts(&self, k: f64) -> (u64, u64) {
        let mut requests = 0u64;
        let mut retries = 0u64;
        for b in &self.buckets {
            let age = k - b.slot;
            if (0.0..SLICES as f64).contains(&age) {
                requests = requests.saturating_add(b.requests);
            }
            if (0.0..=SLICES as f64).contains(&age) {
                retries = retries.saturating_add(b.retries);
            }
        }
        (requests, retries)
    }

    fn allowance(&self, requests: u64) -> f64 {
        self.options.ratio * requests as f64 + self.options.reserve()
    }

    /// Applies `f` to the bucket for `now`, emptied first if it still held an older slice;
    /// moves `latest` on.
    fn update(&mut self, now: f64, f: impl FnOnce(&mut Bucket)) {
        let t = self.time(now);
        self.latest = Some(t);
        let slot = self.slot_of(t);
        if let Some(b) = self.buckets.get_mut(Self::index(slot)) {
            if b.slot != slot {
                *b = Bucket {
                    slot,
                    requests: 0,
                    retries: 0,
                };
            }
            f(b);
        }
    }
}

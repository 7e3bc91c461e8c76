//! The delay schedule and the seeded PRNG behind its jitter.
//!
//! The PRNG is SplitMix64: tiny, fast, well distributed, and its whole state
//! is one `u64`, so a loop's state round-trips through JSON exactly (as a
//! string, since JS numbers cannot hold 64 bits).

use serde::{Deserialize, Serialize};

use crate::options::checks::finite_non_negative;
use crate::options::options;

selfheal_hot::wire_enum! {
/// How jitter is added to the exponential delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Jitter {
    /// capped + U[0, jitterMs)
    #[default]
    Additive,
    /// U[0, capped]
    Full,
    /// capped/2 + U[0, capped/2]
    Equal,
    /// capped
    None,
}
}

impl Jitter {
    /// The mode of a JS name (its serde name).
    pub fn parse(s: &str) -> Option<Jitter> {
        crate::wire::from_name(s)
    }
}

options! {
    /// Backoff settings (SPEC defaults).
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Backoff;
    /// `Partial<Backoff>`, as `LoopOptions.backoff` gives it.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    given BackoffOptions();
    {
        pub base_ms: f64 = 1000.0, check finite_non_negative,
        pub max_ms: f64 = 30000.0, check finite_non_negative,
        pub jitter: Jitter = Jitter::Additive,
        pub jitter_ms: f64 = 250.0, check finite_non_negative,
        pub max_retry_after_ms: f64 = 60000.0, check finite_non_negative,
    }
}

impl Default for Backoff {
    fn default() -> Self {
        BackoffOptions::default().resolve()
    }
}

impl Backoff {
    /// `min(baseMs·2^(k-1), maxMs)` for the k-th consecutive transient failure (k ≥ 1).
    pub fn capped(&self, k: u32) -> f64 {
        let exp = k.saturating_sub(1).min(1023) as i32;
        (self.base_ms * 2f64.powi(exp)).min(self.max_ms)
    }

    /// The delay in whole milliseconds: the capped delay with jitter, drawn from `rng`.
    /// Bounds: additive `[capped, capped + jitterMs)`, full `[0, capped]`,
    /// equal `[capped/2, capped]`, none exactly `capped` (each floored to whole ms), and
    /// never above `f64::MAX`.
    pub fn delay(&self, k: u32, rng: &mut Rng) -> f64 {
        let capped = self.capped(k);
        let d = match self.jitter {
            Jitter::Additive => capped + rng.next_f64() * self.jitter_ms,
            Jitter::Full => rng.next_f64() * (capped + 1.0),
            Jitter::Equal => capped / 2.0 + rng.next_f64() * (capped / 2.0 + 1.0),
            Jitter::None => capped,
        };
        let upper = match self.jitter {
            Jitter::Additive => capped + self.jitter_ms,
            _ => capped,
        };
        // Huge (but finite) options can sum to infinity, which JSON cannot carry.
        d.floor().min(upper).min(f64::MAX)
    }
}

/// SplitMix64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn state(&self) -> u64 {
        self.state
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Serde helper: a `u64` as a decimal string (exact through JSON and JS).
pub(crate) mod u64_string {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

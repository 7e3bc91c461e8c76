//! Circuit breaker: closed → open after `failureThreshold` failures; open →
//! half-open once `resetTimeoutMs` has passed since the last failure; a
//! success closes it, a failure while half-open opens it again.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BreakerState {
    Closed,
    Open,
    HalfOpen,
}

impl BreakerState {
    pub fn as_str(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half-open",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BreakerOptions {
    pub failure_threshold: u32,
    pub reset_timeout_ms: f64,
}

impl Default for BreakerOptions {
    fn default() -> Self {
        BreakerOptions {
            failure_threshold: 3,
            reset_timeout_ms: 60000.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CircuitBreaker {
    options: BreakerOptions,
    state: BreakerState,
    failures: u32,
    last_failure_at: Option<f64>,
}

impl Default for CircuitBreaker {
    fn default() -> Self {
        CircuitBreaker::new(BreakerOptions::default())
    }
}

impl CircuitBreaker {
    pub fn new(options: BreakerOptions) -> CircuitBreaker {
        CircuitBreaker {
            options,
            state: BreakerState::Closed,
            failures: 0,
            last_failure_at: None,
        }
    }

    pub fn options(&self) -> BreakerOptions {
        self.options
    }

    pub fn state(&self) -> BreakerState {
        self.state
    }

    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// True while open; moves open → half-open once the reset timeout has passed.
    pub fn is_open(&mut self, now: f64) -> bool {
        if self.state == BreakerState::Open {
            let since = self.last_failure_at.map_or(f64::INFINITY, |t| now - t);
            if since >= self.options.reset_timeout_ms {
                self.state = BreakerState::HalfOpen;
            }
        }
        self.state == BreakerState::Open
    }

    pub fn record_success(&mut self) {
        self.state = BreakerState::Closed;
        self.failures = 0;
    }

    pub fn record_failure(&mut self, now: f64) {
        self.failures = self.failures.saturating_add(1);
        self.last_failure_at = Some(now);
        if self.state == BreakerState::HalfOpen || self.failures >= self.options.failure_threshold {
            self.state = BreakerState::Open;
        }
    }
}

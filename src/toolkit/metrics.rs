//! `Metrics`: a log of healing events with a windowed summary, alerts and a
//! JSONL export (SPEC section 6).
//!
//! Windows are half-open on the left: an event is inside the window of
//! length `w` ending at `now` when `now - w < timestamp <= now`. Events
//! stamped in the future are in no window. Memory is bounded: at most
//! [`MAX_EVENTS`] events are kept; recording one more drops the oldest
//! recorded (the count of dropped events is kept in the state).

use std::collections::{BTreeMap, VecDeque};

use crate::error::OptionError;
use serde::{Deserialize, Serialize};

/// Events kept; older ones are dropped first.
pub const MAX_EVENTS: usize = 10_000;
/// Default window of [`Metrics::summary`]: one hour.
pub const DEFAULT_SUMMARY_WINDOW_MS: f64 = 3_600_000.0;
/// Window of the failure-rate and volume alerts: ten minutes.
pub const ALERT_WINDOW_MS: f64 = 600_000.0;
/// Window of the cascade alert: one minute.
pub const CASCADE_WINDOW_MS: f64 = 60_000.0;

/// One self-healing action and how it went. Field names are the SPEC's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealingEvent {
    /// When it happened (ms).
    #[serde(serialize_with = "crate::wire::js_number")]
    pub timestamp: f64,
    /// The task the event belongs to.
    pub task_id: String,
    /// E.g. an `ErrorClass` or `Cause` string; alerts group by it.
    pub error_category: String,
    /// E.g. `"low"`, `"medium"`, `"high"`.
    pub severity: String,
    /// E.g. `"retry"`, `"repair"`, `"fallback"`.
    pub strategy: String,
    /// The healing action worked.
    pub success: bool,
    /// How long it took (ms).
    #[serde(serialize_with = "crate::wire::js_number")]
    pub duration_ms: f64,
    /// Tokens it spent.
    pub tokens_used: u64,
    /// The task finished at a lower level of service.
    pub degraded: bool,
}

impl HealingEvent {
    /// Range checks the types cannot express; errors name the JS field.
    pub fn check(&self) -> Result<(), OptionError> {
        OptionError::finite_non_negative("durationMs", self.duration_ms)?;
        if !self.timestamp.is_finite() {
            return Err(OptionError::range("timestamp", "must be a finite number"));
        }
        Ok(())
    }
}

/// `summary()`: figures over the events in the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricsSummary {
    /// Events in the window.
    pub total: u64,
    /// Successes / total; 0 when there are no events.
    pub success_rate: f64,
    /// Failures / total; 0 when there are no events.
    pub failure_rate: f64,
    /// Mean `durationMs`; 0 when there are no events.
    pub avg_duration_ms: f64,
    /// Sum of `tokensUsed`.
    pub total_tokens_used: u64,
    /// Events per `errorCategory`, keys in sorted order.
    pub by_category: BTreeMap<String, u64>,
    /// Events with `degraded: true`.
    pub degraded_count: u64,
}

selfheal_hot::wire_enum! {
/// How urgent an alert is. Serialises as `"HIGH"` / `"MEDIUM"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum AlertLevel {
    /// `"HIGH"`.
    High,
    /// `"MEDIUM"`.
    Medium,
}
}

/// One alert: page someone on `HIGH`, look soon on `MEDIUM`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alert {
    /// How urgent.
    pub level: AlertLevel,
    /// One English sentence with the figures.
    pub message: String,
}

/// The event log. Its whole state serialises with serde (`toJSON`/`fromJSON`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    events: VecDeque<HealingEvent>,
    /// Events dropped to stay within [`MAX_EVENTS`].
    #[serde(default)]
    dropped: u64,
}

impl Metrics {
    /// An empty log.
    pub fn new() -> Metrics {
        Metrics::default()
    }

    /// Checks a deserialised log (`fromJSON`): at most [`MAX_EVENTS`] events, each one that
    /// `record` would take (an outside review restored 20,000 events and a duration of -5,
    /// which `summary` then averaged).
    pub fn check(&self) -> Result<(), OptionError> {
        if self.events.len() > MAX_EVENTS {
            return Err(OptionError::range(
                "events",
                &format!("must hold at most {MAX_EVENTS} events"),
            ));
        }
        for (i, event) in self.events.iter().enumerate() {
            event
                .check()
                .map_err(|e| e.under(&format!("events[{i}]")))?;
        }
        Ok(())
    }

    // ---- getters ----

    /// The events kept, in the order recorded.
    pub fn events(&self) -> impl ExactSizeIterator<Item = &HealingEvent> {
        self.events.iter()
    }

    /// How many events were dropped to bound memory.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    // ---- inputs ----

    /// Add one event (dropping the oldest beyond [`MAX_EVENTS`]).
    pub fn record(&mut self, event: HealingEvent) {
        self.events.push_back(event);
        while self.events.len() > MAX_EVENTS {
            self.events.pop_front();
            self.dropped = self.dropped.saturating_add(1);
        }
    }

    // ---- outputs ----

    /// Figures over the events with `now - window_ms < timestamp <= now`.
    /// A NaN or negative window holds no events.
    pub fn summary(&self, window_ms: f64, now: f64) -> MetricsSummary {
        let mut s = MetricsSummary {
            total: 0,
            success_rate: 0.0,
            failure_rate: 0.0,
            avg_duration_ms: 0.0,
            total_tokens_used: 0,
            by_category: BTreeMap::new(),
            degraded_count: 0,
        };
        let mut successes = 0u64;
        let mut duration = 0.0f64;
        for e in self.window(window_ms, now) {
            s.total += 1;
            successes += u64::from(e.success);
            // Saturate: huge (finite) durations must not sum to an infinity JSON cannot carry.
            duration = (duration + e.duration_ms).clamp(-f64::MAX, f64::MAX);
            s.total_tokens_used = s.total_tokens_used.saturating_add(e.tokens_used);
            s.degraded_count += u64::from(e.degraded);
            let n = s.by_category.entry(e.error_category.clone()).or_insert(0);
            *n += 1;
        }
        if s.total > 0 {
            let total = s.total as f64;
            s.success_rate = successes as f64 / total;
            s.failure_rate = (s.total - successes) as f64 / total;
            s.avg_duration_ms = duration / total;
        }
        s
    }

    /// Alerts at `now`, in this order:
    /// * failure rate over 30% in the last 10 minutes → HIGH;
    /// * more than 10 events in the last 10 minutes → MEDIUM;
    /// * 3 or more events (failed or not) of one category in the last minute
    ///   → HIGH (cascade), one alert per category, categories in sorted order.
    pub fn alerts(&self, now: f64) -> Vec<Alert> {
        let mut alerts = Vec::new();
        let (total, failed) = self
            .window(ALERT_WINDOW_MS, now)
            .fold((0u64, 0u64), |(t, f), e| (t + 1, f + u64::from(!e.success)));
        // failed / total > 0.3, exactly.
        if failed * 10 > total * 3 {
            alerts.push(Alert {
                level: AlertLevel::High,
                message: format!(
                    "Failure rate {}% in the last 10 minutes ({failed} of {total} healing events failed), above 30%.",
                    percent(failed, total)
                ),
            });
        }
        if total > 10 {
            alerts.push(Alert {
                level: AlertLevel::Medium,
                message: format!("{total} healing events in the last 10 minutes, more than 10."),
            });
        }
        let minute = self.summary(CASCADE_WINDOW_MS, now);
        for (category, n) in &minute.by_category {
            if *n >= 3 {
                alerts.push(Alert {
                    level: AlertLevel::High,
                    message: format!(
                        "Cascade: {n} \"{category}\" healing events within the last minute."
                    ),
                });
            }
        }
        alerts
    }

    /// One `{"type":"healing_event", ...the event's fields}` line per event,
    /// in the order recorded, each ending in `\n`. Non-finite numbers become `null`.
    pub fn to_jsonl(&self) -> String {
        #[derive(Serialize)]
        struct Line<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            #[serde(flatten)]
            event: &'a HealingEvent,
        }
        let mut out = String::with_capacity(self.events.len() * 200);
        for event in &self.events {
            let line = Line {
                kind: "healing_event",
                event,
            };
            if let Ok(text) = serde_json::to_string(&line) {
                out.push_str(&text);
                out.push('\n');
            }
        }
        out
    }

    fn window(&self, window_ms: f64, now: f64) -> impl Iterator<Item = &HealingEvent> {
        let start = now - window_ms;
        self.events
            .iter()
            .filter(move |e| e.timestamp > start && e.timestamp <= now)
    }
}

/// `part / whole` as a whole percentage, rounded half up.
fn percent(part: u64, whole: u64) -> u64 {
    if whole == 0 {
        return 0;
    }
    (part.saturating_mul(200) / whole).div_ceil(2)
}

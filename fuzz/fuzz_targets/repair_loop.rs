//! The `RepairLoop` driven by arbitrary options (within the ranges the JS
//! layer accepts), an optional shared breaker, and an arbitrary sequence of
//! outcomes, aborts and snapshot round trips at non-decreasing times.
//!
//! Invariants after every step:
//! * no panic;
//! * calls (report and attempt numbers) never exceed 1 + transient +
//!   repairable + semanticInvalid;
//! * a `wait-for-backoff` follows a transient error only; its delay is whole
//!   and finite, and is either `ceil(retryAfterMs)` (at most maxRetryAfterMs)
//!   or within the jitter bounds of the k-th consecutive transient failure;
//! * a final instruction repeats, except that one verdict right after a
//!   `done` may reopen it (into a repair prompt or a degrade), and `abort`
//!   before any final instruction degrades `aborted`;
//! * a snapshot survives JSON and resumes as the same loop.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use selfheal::{
    classify, Backoff, BreakerOptions, Budget, CircuitBreaker, ErrorClass, FallbackPlan,
    Instruction, Jitter, Locale, LoopConfig, Mode, Outcome, Prompt, RepairLoop, SchemaCache,
    Snapshot, StopReason, Usage,
};
use selfheal_fuzz::{is_one_line, pick, schema, JsThrown, REPLIES, STOP_REASONS};

/// Any finite number >= 0, as the JS layer accepts (fractions and huge values included).
#[derive(Arbitrary, Debug)]
enum NonNeg {
    Small(u16),
    Any(f64),
}

impl NonNeg {
    fn get(&self) -> f64 {
        match self {
            NonNeg::Small(n) => f64::from(*n),
            NonNeg::Any(x) if x.is_finite() => x.abs(),
            NonNeg::Any(_) => 0.0,
        }
    }
}

/// A whole count as the JS layer accepts: mostly small, sometimes huge.
#[derive(Arbitrary, Debug)]
enum Count {
    Small(u8),
    Any(u32),
}

impl Count {
    fn get(&self) -> u32 {
        match self {
            Count::Small(n) => u32::from(*n % 8),
            Count::Any(n) => *n,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Options {
    transient: Count,
    repairable: Count,
    semantic_invalid: Count,
    cost_ceiling_usd: Option<NonNeg>,
    deadline_ms: Option<NonNeg>,
    max_prompt_chars: Option<Count>,
    base_ms: NonNeg,
    max_ms: NonNeg,
    jitter: u8,
    jitter_ms: NonNeg,
    max_retry_after_ms: NonNeg,
    reask: bool,
    alternate: bool,
    fallback: Option<bool>,
    local_repair: bool,
    locale: u8,
    max_raw_chars: Count,
    seed: u64,
    /// None, or one of the fixed schemas.
    schema: Option<u8>,
    breaker: Option<(u8, NonNeg)>,
}

#[derive(Arbitrary, Debug)]
enum Text {
    Canned(u8),
    /// A canned reply cut after this many bytes (at a char boundary).
    Cut(u8, u16),
    Free(String),
}

impl Text {
    fn get(&self) -> String {
        match self {
            Text::Canned(i) => pick(&REPLIES, *i).to_string(),
            Text::Cut(i, n) => {
                let s = pick(&REPLIES, *i);
                let mut at = usize::from(*n) % (s.len() + 1);
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                s[..at].to_string()
            }
            Text::Free(s) => s.clone(),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Error {
    Status(u16),
    RetryAfterMs(u16, NonNeg),
    RetryAfter(u16, String),
    Any(JsThrown),
}

impl Error {
    fn get(&self) -> selfheal::ErrorInfo {
        let with = |status: u16, header: &str, value: String| selfheal::ErrorInfo {
            present: true,
            status: Some(status),
            headers: vec![(header.to_string(), value)],
            ..Default::default()
        };
        match self {
            Error::Status(s) => selfheal::ErrorInfo {
                present: true,
                status: Some(*s),
                ..Default::default()
            },
            Error::RetryAfterMs(s, ms) => with(*s, "retry-after-ms", ms.get().to_string()),
            Error::RetryAfter(s, v) => with(*s, "retry-after", v.clone()),
            Error::Any(e) => e.to_error_info(),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Reply {
        text: Text,
        stop: Option<u8>,
        cost: f64,
        usage: Option<(u64, u64)>,
    },
    Error {
        error: Error,
        cost: f64,
    },
    Rejected(String),
    Invalid(String),
    Abort(Option<String>),
    Snapshot,
}

#[derive(Arbitrary, Debug)]
struct Run {
    options: Options,
    start: u32,
    steps: Vec<(u32, Op)>,
}

fn prompt(s: &str) -> Prompt {
    Prompt {
        system: format!("Reply with JSON. {s}"),
        user: "Which city is the Eiffel Tower in? </broken_output> ```".into(),
    }
}

fn config(o: &Options) -> LoopConfig {
    let mode = if o.reask { Mode::Reask } else { Mode::Fix };
    let mut c = LoopConfig::new(prompt("first"), o.seed);
    c.mode = mode;
    c.alternate_prompt = o.alternate.then(|| prompt("alternate"));
    c.fallback = o.fallback.map(|human| {
        if human {
            FallbackPlan::Human { queue: "q".into() }
        } else {
            FallbackPlan::Template {
                template_id: "t".into(),
                text: "sorry".into(),
            }
        }
    });
    c.budget = Budget {
        transient: o.transient.get(),
        repairable: o.repairable.get(),
        semantic_invalid: o.semantic_invalid.get(),
        cost_ceiling_usd: o.cost_ceiling_usd.as_ref().map(NonNeg::get),
        deadline_ms: o.deadline_ms.as_ref().map(NonNeg::get),
        max_prompt_chars: match &o.max_prompt_chars {
            Some(n) => Some(n.get()),
            None => Budget::default_for(mode).max_prompt_chars,
        },
    };
    c.backoff = Backoff {
        base_ms: o.base_ms.get(),
        max_ms: o.max_ms.get(),
        jitter: [Jitter::Additive, Jitter::Full, Jitter::Equal, Jitter::None]
            [usize::from(o.jitter % 4)],
        jitter_ms: o.jitter_ms.get(),
        max_retry_after_ms: o.max_retry_after_ms.get(),
    };
    c.local_repair = o.local_repair;
    c.locale = [Locale::En, Locale::Ja, Locale::Zh][usize::from(o.locale % 3)];
    c.max_raw_chars = o.max_raw_chars.get();
    c
}

fn attempt_of(i: &Instruction) -> u32 {
    match i {
        Instruction::WaitForBackoff { attempt, .. }
        | Instruction::SendRepairPrompt { attempt, .. } => *attempt,
        Instruction::Done { attempts, .. } | Instruction::Degrade { attempts, .. } => *attempts,
    }
}

/// The delay for the k-th consecutive transient failure is within its jitter bounds.
fn within_bounds(b: &Backoff, k: u32, d: f64) -> bool {
    let exp = k.saturating_sub(1).min(1023) as i32;
    let capped = (b.base_ms * 2f64.powi(exp)).min(b.max_ms);
    match b.jitter {
        Jitter::Additive => capped.floor() <= d && d <= capped + b.jitter_ms,
        Jitter::Full => 0.0 <= d && d <= capped,
        Jitter::Equal => (capped / 2.0).floor() <= d && d <= capped,
        Jitter::None => d == capped.floor(),
    }
}

fuzz_target!(|run: Run| {
    let config = config(&run.options);
    let backoff = config.backoff;
    let b = config.budget;
    let bound =
        1 + u64::from(b.transient) + u64::from(b.repairable) + u64::from(b.semantic_invalid);
    let compiled = run.options.schema.map(|i| schema(usize::from(i)));
    let mut l = RepairLoop::new(config, compiled).expect("options in range are accepted");
    let mut breaker = run.options.breaker.as_ref().map(|(threshold, reset)| {
        CircuitBreaker::try_new(BreakerOptions {
            failure_threshold: u32::from(*threshold).max(1),
            reset_timeout_ms: reset.get(),
        })
        .expect("valid breaker options")
    });
    let mut cache = SchemaCache::default();

    let mut now = 1_700_000_000_000.0 + f64::from(run.start);
    let mut last_final: Option<Instruction> = None;
    let mut provisional = false;
    let mut k = 0u32;
    for (gap, op) in run.steps.iter().take(64) {
        now += f64::from(*gap);
        let outcome = match op {
            Op::Snapshot => {
                let text = serde_json::to_string(&l.to_snapshot()).expect("a snapshot serialises");
                let snapshot: Snapshot = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("a snapshot reads back: {e}: {text}"));
                let resumed =
                    RepairLoop::from_snapshot(snapshot, &mut cache).expect("a snapshot resumes");
                assert_eq!(
                    resumed.to_snapshot(),
                    l.to_snapshot(),
                    "the same loop after JSON"
                );
                l = resumed;
                continue;
            }
            Op::Abort(reason) => {
                let i = l.abort(reason.as_deref(), now);
                match &last_final {
                    Some(f) => assert_eq!(&i, f, "abort after a final instruction repeats it"),
                    None => assert!(
                        matches!(
                            i,
                            Instruction::Degrade {
                                reason: StopReason::Aborted,
                                ..
                            }
                        ),
                        "abort degrades: {i:?}"
                    ),
                }
                last_final = Some(i);
                provisional = false;
                continue;
            }
            Op::Reply {
                text,
                stop,
                cost,
                usage,
            } => Outcome::Reply {
                text: text.get(),
                stop_reason: stop.map(|s| pick(&STOP_REASONS, s).to_string()),
                cost_usd: *cost,
                usage: usage.map(|(i, o)| Usage {
                    input_tokens: i,
                    output_tokens: o,
                }),
            },
            Op::Error { error, cost } => Outcome::Error {
                error: error.get(),
                cost_usd: *cost,
            },
            Op::Rejected(r) => Outcome::Rejected { reason: r.clone() },
            Op::Invalid(r) => Outcome::Invalid { reason: r.clone() },
        };
        let verdict = matches!(outcome, Outcome::Rejected { .. } | Outcome::Invalid { .. });
        let classified = match &outcome {
            Outcome::Error { error, .. } => Some(classify(error, None, now)),
            _ => None,
        };
        let transient = classified
            .as_ref()
            .is_some_and(|c| c.class == ErrorClass::Transient);

        let i = l.next(outcome, now, breaker.as_mut());

        let acted = last_final.is_none() || (provisional && verdict);
        if !acted {
            assert_eq!(Some(&i), last_final.as_ref(), "a final instruction repeats");
            provisional = false;
            continue;
        }
        if last_final.is_some() {
            assert!(
                matches!(
                    i,
                    Instruction::SendRepairPrompt { .. } | Instruction::Degrade { .. }
                ),
                "a verdict after done reopens into a repair or a degrade: {i:?}"
            );
        }
        k = if transient { k + 1 } else { 0 };

        let report = l.report();
        assert!(
            u64::from(attempt_of(&i)) <= bound,
            "attempt {} > {bound}",
            attempt_of(&i)
        );
        assert!(
            u64::from(report.calls) <= bound,
            "calls {} > {bound}",
            report.calls
        );
        assert_eq!(report.calls as usize, l.attempts().len());

        if let Instruction::WaitForBackoff { delay_ms, .. } = &i {
            let d = *delay_ms;
            assert!(transient, "only a transient error waits");
            assert!(d.is_finite() && d >= 0.0 && d.fract() == 0.0, "delay {d}");
            match classified.and_then(|c| c.retry_after_ms) {
                Some(ms) => {
                    assert_eq!(d, ms.ceil(), "the server's wait, rounded up");
                    assert!(
                        d <= backoff.max_retry_after_ms,
                        "{d} > maxRetryAfterMs {}",
                        backoff.max_retry_after_ms
                    );
                }
                None => assert!(
                    within_bounds(&backoff, k, d),
                    "k={k} {backoff:?}: delay {d}"
                ),
            }
        }
        if let Instruction::Done { cost_usd, .. } | Instruction::Degrade { cost_usd, .. } = &i {
            assert!(cost_usd.is_finite() && *cost_usd >= 0.0, "cost {cost_usd}");
        }
        let classified = match &i {
            Instruction::WaitForBackoff { classified, .. }
            | Instruction::SendRepairPrompt { classified, .. } => Some(classified),
            Instruction::Degrade { classified, .. } => classified.as_ref(),
            Instruction::Done { .. } => None,
        };
        if let Some(c) = classified {
            assert!(
                !c.reason.is_empty() && is_one_line(&c.reason),
                "reason {:?}",
                c.reason
            );
            assert!(c.reason.chars().count() <= 400, "a long reason");
        }
        provisional = matches!(i, Instruction::Done { .. });
        last_final = i.is_final().then_some(i);
    }
});

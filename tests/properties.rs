//! Invariants of the RepairLoop over arbitrary options, outcome sequences and
//! increasing times (SPEC section 5): calls never exceed the budgets, every
//! delay is within its jitter bounds or is the server's wait, the same seed
//! gives the same run, a snapshot resumes identically at any point, and a
//! final instruction repeats (except one verdict right after `done`).

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
mod common;

use std::sync::{Arc, OnceLock};

use common::*;
use proptest::prelude::*;
use selfheal::{
    Backoff, Budget, CompiledSchema, Instruction, Jitter, LoopConfig, Mode, Outcome, RepairLoop,
    SchemaCache, Snapshot,
};

fn city_schema() -> Arc<CompiledSchema> {
    static SCHEMA: OnceLock<Arc<CompiledSchema>> = OnceLock::new();
    SCHEMA.get_or_init(|| compile(CITY_SCHEMA)).clone()
}

/// What the host saw after a call, in the terms the loop cares about.
#[derive(Debug, Clone)]
enum Step {
    Valid,
    Fenced,
    WrongShape,
    Garbage,
    Empty,
    CutOff,
    /// 503, the computed backoff applies.
    Transient,
    /// 429 with `retry-after-ms` (fractional allowed).
    RetryAfter(f64),
    Hard,
    Rejected,
    Invalid,
}

impl Step {
    fn outcome(&self, cost: f64) -> Outcome {
        match self {
            Step::Valid => reply(CITY).cost(cost),
            Step::Fenced => reply(FENCED_CITY).cost(cost),
            Step::WrongShape => reply(WRONG_SHAPE).cost(cost),
            Step::Garbage => reply("Sorry, no JSON today.").cost(cost),
            Step::Empty => reply("  ").cost(cost),
            Step::CutOff => reply(r#"{"city": "Pa"#).stop("max_tokens").cost(cost),
            Step::Transient => http(503).cost(cost),
            Step::RetryAfter(ms) => http(429)
                .header("retry-after-ms", &ms.to_string())
                .cost(cost),
            Step::Hard => http(401).cost(cost),
            Step::Rejected => rejected("the downstream check refused it"),
            Step::Invalid => invalid("the content is wrong"),
        }
    }

    fn is_transient(&self) -> bool {
        matches!(self, Step::Transient | Step::RetryAfter(_))
    }

    fn is_verdict(&self) -> bool {
        matches!(self, Step::Rejected | Step::Invalid)
    }
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Valid),
        1 => Just(Step::Fenced),
        2 => Just(Step::WrongShape),
        1 => Just(Step::Garbage),
        1 => Just(Step::Empty),
        1 => Just(Step::CutOff),
        4 => Just(Step::Transient),
        2 => (0u32..12_000, prop::bool::ANY).prop_map(|(ms, frac)| Step::RetryAfter(ms as f64 + if frac { 0.25 } else { 0.0 })),
        1 => Just(Step::Hard),
        2 => Just(Step::Rejected),
        2 => Just(Step::Invalid),
    ]
}

fn jitter() -> impl Strategy<Value = Jitter> {
    prop_oneof![
        Just(Jitter::Additive),
        Just(Jitter::Full),
        Just(Jitter::Equal),
        Just(Jitter::None)
    ]
}

fn options() -> impl Strategy<Value = LoopConfig> {
    let budget = (
        0u32..5,
        0u32..4,
        0u32..3,
        prop::option::of(1u32..50),
        prop::option::of(0u32..300_000),
        prop::bool::ANY,
    );
    let backoff = (1u32..3000, 0u32..40_000, jitter(), 0u32..600, 0u32..10_000);
    (
        budget,
        backoff,
        any::<u64>(),
        prop::bool::ANY,
        prop::bool::ANY,
    )
        .prop_map(
            |(
                (t, r, s, cost_cents, deadline, reask),
                (base, extra, jitter, jitter_ms, max_ra),
                seed,
                alt,
                local,
            )| {
                let mode = if reask { Mode::Reask } else { Mode::Fix };
                let mut c = LoopConfig::new(prompt(), seed);
                c.mode = mode;
                c.budget = Budget {
                    transient: t,
                    repairable: r,
                    semantic_invalid: s,
                    cost_ceiling_usd: cost_cents.map(|c| c as f64 / 100.0),
                    deadline_ms: deadline.map(f64::from),
                    ..Budget::default_for(mode)
                };
                c.backoff = Backoff {
                    base_ms: base as f64,
                    max_ms: (base + extra) as f64,
                    jitter,
                    jitter_ms: jitter_ms as f64,
                    max_retry_after_ms: max_ra as f64,
                };
                c.alternate_prompt = alt.then(alternate);
                c.local_repair = local;
                c
            },
        )
}

/// Outcomes with their costs and the gaps between them (times only increase).
fn run() -> impl Strategy<Value = (LoopConfig, Vec<(Outcome, f64)>, Vec<Step>)> {
    let steps = prop::collection::vec((step(), 0u32..3, 0u32..60_000), 1..24);
    (options(), steps).prop_map(|(config, raw)| {
        let mut now = 1_700_000_000_000.0;
        let mut outcomes = Vec::with_capacity(raw.len());
        let mut kinds = Vec::with_capacity(raw.len());
        for (s, cost_mills, gap) in raw {
            now += gap as f64;
            outcomes.push((s.outcome(cost_mills as f64 / 1000.0), now));
            kinds.push(s);
        }
        (config, outcomes, kinds)
    })
}

fn fresh(config: &LoopConfig) -> RepairLoop {
    RepairLoop::new(config.clone(), Some(city_schema())).expect("generated options are valid")
}

fn through_json(l: &RepairLoop) -> RepairLoop {
    let text = serde_json::to_string(&l.to_snapshot()).unwrap();
    let snapshot: Snapshot = serde_json::from_str(&text).unwrap();
    RepairLoop::from_snapshot(snapshot, &mut SchemaCache::default()).unwrap()
}

fn attempt_of(i: &Instruction) -> u32 {
    match i {
        Instruction::WaitForBackoff { attempt, .. }
        | Instruction::SendRepairPrompt { attempt, .. } => *attempt,
        Instruction::Done { attempts, .. } | Instruction::Degrade { attempts, .. } => *attempts,
    }
}

/// Which steps the loop acted on: all of them until a final instruction, then
/// only a verdict right after a freshly produced `done`.
fn acted_on(steps: &[Step], out: &[Instruction]) -> Vec<bool> {
    let mut acted = Vec::with_capacity(steps.len());
    let mut previous: Option<&Instruction> = None;
    let mut fresh_done = false;
    for (s, i) in steps.iter().zip(out) {
        let live = match previous {
            None => true,
            Some(p) => !p.is_final() || (fresh_done && s.is_verdict()),
        };
        acted.push(live);
        fresh_done = live && matches!(i, Instruction::Done { .. });
        previous = Some(i);
    }
    acted
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn calls_never_exceed_one_plus_the_budgets((config, outcomes, _) in run()) {
        let b = config.budget;
        let bound = 1 + b.transient + b.repairable + b.semantic_invalid;
        let mut l = fresh(&config);
        for (o, now) in &outcomes {
            let i = l.next(o.clone(), *now, None);
            prop_assert!(attempt_of(&i) <= bound, "{} > {bound}", shape(&i));
            prop_assert!(l.report().calls <= bound);
            prop_assert_eq!(l.report().calls as usize, l.attempts().len());
        }
    }

    #[test]
    fn every_delay_is_within_its_jitter_bounds_or_the_servers_wait((config, outcomes, steps) in run()) {
        let mut l = fresh(&config);
        let out = drive(&mut l, &outcomes);
        let acted = acted_on(&steps, &out);
        let b = config.backoff;
        let mut k = 0u32;
        for ((s, i), live) in steps.iter().zip(&out).zip(acted) {
            if !live {
                continue;
            }
            k = if s.is_transient() { k + 1 } else { 0 };
            let Instruction::WaitForBackoff { delay_ms, .. } = i else { continue };
            let d = *delay_ms;
            prop_assert!(s.is_transient(), "only a transient error waits");
            prop_assert_eq!(d.fract(), 0.0, "whole milliseconds");
            if let Step::RetryAfter(ms) = s {
                prop_assert_eq!(d, ms.ceil());
                prop_assert!(*ms <= b.max_retry_after_ms);
                continue;
            }
            let capped = (b.base_ms * 2f64.powi(k as i32 - 1)).min(b.max_ms);
            // Integer base and max, so `capped` is whole except capped/2 for "equal".
            let within = match b.jitter {
                Jitter::Additive if b.jitter_ms == 0.0 => d == capped,
                Jitter::Additive => capped <= d && d < capped + b.jitter_ms,
                Jitter::Full => 0.0 <= d && d <= capped,
                Jitter::Equal => (capped / 2.0).floor() <= d && d <= capped,
                Jitter::None => d == capped,
            };
            prop_assert!(within, "k={} {:?}: delay {} for capped {} (jitterMs {})", k, b.jitter, d, capped, b.jitter_ms);
        }
    }

    #[test]
    fn the_same_seed_and_inputs_give_identical_instructions((config, outcomes, _) in run()) {
        let a = drive(&mut fresh(&config), &outcomes);
        let b = drive(&mut fresh(&config), &outcomes);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn a_snapshot_at_any_point_resumes_identically((config, outcomes, _) in run(), split in any::<prop::sample::Index>()) {
        let split = split.index(outcomes.len() + 1);
        let mut whole = fresh(&config);
        let expected = drive(&mut whole, &outcomes);
        let mut first = fresh(&config);
        let mut got = drive(&mut first, &outcomes[..split]);
        let mut resumed = through_json(&first);
        got.extend(drive(&mut resumed, &outcomes[split..]));
        prop_assert_eq!(got, expected);
        prop_assert_eq!(resumed.to_snapshot(), whole.to_snapshot());
    }

    #[test]
    fn a_final_instruction_repeats_except_one_verdict_right_after_done((config, outcomes, steps) in run()) {
        let mut l = fresh(&config);
        let out = drive(&mut l, &outcomes);
        let acted = acted_on(&steps, &out);
        for n in 1..out.len() {
            if !acted[n] {
                prop_assert_eq!(&out[n], &out[n - 1], "step {} after a final instruction", n);
            } else if out[n - 1].is_final() {
                // The one documented exception reopens the done: it asks for a
                // reask or alternate prompt, or gives up; it never waits or accepts.
                prop_assert!(
                    matches!(out[n], Instruction::SendRepairPrompt { .. } | Instruction::Degrade { .. }),
                    "a verdict after done gave {}", shape(&out[n])
                );
            }
        }
        // Once degraded, nothing reopens: a second run of verdicts changes nothing.
        if let Some(fin @ Instruction::Degrade { .. }) = out.last() {
            prop_assert_eq!(&l.next(rejected("again"), 9e15, None), fin);
            prop_assert_eq!(&l.next(invalid("again"), 9e15, None), fin);
            prop_assert_eq!(&l.abort(None, 9e15), fin);
        }
    }
}

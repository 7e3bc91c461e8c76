//! Issue 15 item 3: a retry storm, simulated. 1,000 loops run against a provider that answers
//! 503 to every call made in the first 30 s, then recovers. Each loop waits out its backoff and
//! resends, as a host would; the clock is simulated and every loop is seeded, so a run is the
//! same every time. Two arrival patterns: all 1,000 loops within the first second (a burst),
//! and one loop every 60 ms for a minute (steady traffic through the outage and the recovery).
//!
//! With one shared `RetryBudget` (SPEC defaults: ratio 0.1, 1 per second, 10 s window), every
//! resend is granted only while the resends in the last 10 s stay within `0.1 × first calls in
//! the last 10 s + 1/s × 10 s`, and every loop ends with a named reason. Without it, the same
//! loops resend several times as often as they made first calls.

#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]
mod common;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use common::*;
use selfheal::{Instruction, RepairLoop, RetryBudget, RetryBudgetOptions};

const LOOPS: usize = 1_000;
/// The provider fails every call made before this time (ms since the start).
const OUTAGE_MS: u64 = 30_000;
/// From sending a call to its outcome.
const LATENCY_MS: u64 = 200;

#[derive(Default)]
struct Run {
    /// When each loop's first call was recorded (its first outcome arrived).
    first_calls: Vec<u64>,
    /// When each resend was granted (the loop asked for a call).
    resends: Vec<u64>,
    /// How each loop ended: "done" or the degrade reason.
    endings: BTreeMap<String, usize>,
    /// Loops that never gave a final instruction.
    unfinished: usize,
    /// Loops that started before the provider recovered and ended `done`.
    saved: usize,
}

/// Runs the storm, loop `i` starting at `i × every_ms`; with `budget`, every loop consults it.
fn storm(every_ms: u64, mut budget: Option<RetryBudget>) -> Run {
    let mut loops: Vec<RepairLoop> = (0..LOOPS)
        .map(|i| {
            let mut c = config();
            c.seed = i as u64; // each loop its own jitter
            city_loop(c)
        })
        .collect();
    // (time an outcome arrives, loop, when its call was sent)
    let mut queue: BinaryHeap<Reverse<(u64, usize, u64)>> = BinaryHeap::new();
    for i in 0..LOOPS {
        let sent = i as u64 * every_ms;
        queue.push(Reverse((sent + LATENCY_MS, i, sent)));
    }
    let mut run = Run::default();
    let mut finished = vec![false; LOOPS];
    while let Some(Reverse((now, i, sent))) = queue.pop() {
        let outcome = if sent < OUTAGE_MS {
            http(503)
        } else {
            reply(CITY)
        };
        let first = loops[i].report().calls == 0;
        let instruction = loops[i].next_with(outcome, now as f64, None, budget.as_mut());
        if first {
            run.first_calls.push(now);
        }
        match instruction {
            Instruction::WaitForBackoff { delay_ms, .. } => {
                run.resends.push(now);
                let send_at = now + delay_ms as u64;
                queue.push(Reverse((send_at + LATENCY_MS, i, send_at)));
            }
            Instruction::SendRepairPrompt { .. } => panic!("no reply here needs repair"),
            Instruction::Done { .. } => {
                finished[i] = true;
                if (i as u64) * every_ms < OUTAGE_MS {
                    run.saved += 1;
                }
                *run.endings.entry("done".into()).or_default() += 1;
            }
            Instruction::Degrade { reason, .. } => {
                finished[i] = true;
                *run.endings.entry(name_of(&reason)).or_default() += 1;
            }
        }
    }
    run.unfinished = finished.iter().filter(|f| !**f).count();
    run
}

/// Events in `(t - window, t]`.
fn within(events: &[u64], t: u64, window: u64) -> usize {
    events.iter().filter(|&&x| x + window > t && x <= t).count()
}

/// The bound, checked at every moment a resend is made (the number of resends in the window
/// only grows at such a moment), and every loop ended with a reason from `allowed`.
fn assert_within_budget(run: &Run, options: RetryBudgetOptions, allowed: &[&str]) {
    let window = options.window_ms as u64;
    assert_eq!(run.first_calls.len(), LOOPS);
    for &t in &run.resends {
        let resends = within(&run.resends, t, window) as f64;
        let first_calls = within(&run.first_calls, t, window) as f64;
        assert!(
            resends <= options.ratio * first_calls + options.reserve() + 1e-9,
            "at {t} ms: {resends} resends for {first_calls} first calls"
        );
    }
    assert_eq!(run.unfinished, 0, "every loop ends");
    assert_eq!(run.endings.values().sum::<usize>(), LOOPS);
    for reason in run.endings.keys() {
        assert!(
            allowed.contains(&reason.as_str()),
            "unexpected ending {reason}: {:?}",
            run.endings
        );
    }
}

#[test]
fn a_shared_retry_budget_holds_a_burst_of_1000_loops_to_its_bound() {
    let options = RetryBudgetOptions::default();
    let run = storm(1, Some(RetryBudget::try_new(options).unwrap()));
    eprintln!(
        "burst with the budget: {} resends; {:?}",
        run.resends.len(),
        run.endings
    );
    assert_within_budget(&run, options, &["retry-budget-exhausted", "done"]);
    // A tenth of the first calls and the reserve; everyone else gives up at once rather than
    // hammer a provider that is down.
    assert_eq!(run.resends.len(), 110);
    assert_eq!(run.endings.get("retry-budget-exhausted"), Some(&LOOPS));
}

#[test]
fn through_an_outage_and_the_recovery_the_budget_holds_and_traffic_resumes() {
    let options = RetryBudgetOptions::default();
    let run = storm(60, Some(RetryBudget::try_new(options).unwrap()));
    eprintln!(
        "steady with the budget: {} resends, {} saved; {:?}",
        run.resends.len(),
        run.saved,
        run.endings
    );
    assert_within_budget(
        &run,
        options,
        &["retry-budget-exhausted", "transient-exhausted", "done"],
    );
    // Loops that started after the recovery succeed at once; some that started during the
    // outage waited long enough to succeed too.
    let after = (0..LOOPS as u64).filter(|i| i * 60 >= OUTAGE_MS).count();
    assert!(run.endings["done"] >= after, "{:?}", run.endings);
    assert!(run.saved > 0, "no loop of the outage recovered");
    assert!(run.endings["retry-budget-exhausted"] > 0);
}

#[test]
fn without_the_budget_the_same_storm_multiplies_the_load() {
    let options = RetryBudgetOptions::default();
    let window = options.window_ms as u64;
    for every_ms in [1, 60] {
        let run = storm(every_ms, None);
        eprintln!(
            "without ({every_ms} ms): {} resends; {:?}",
            run.resends.len(),
            run.endings
        );
        // More resends than first calls: at least twice the load on a provider that is down.
        assert!(
            run.resends.len() > run.first_calls.len(),
            "{}",
            run.resends.len()
        );
        let worst = run
            .resends
            .iter()
            .map(|&t| {
                within(&run.resends, t, window) as f64
                    - options.ratio * within(&run.first_calls, t, window) as f64
            })
            .fold(f64::MIN, f64::max);
        assert!(worst > 3.0 * options.reserve(), "worst excess {worst}");
        assert_eq!(run.unfinished, 0);
    }
}

#[test]
fn the_storm_is_deterministic() {
    let a = storm(60, Some(RetryBudget::default()));
    let b = storm(60, Some(RetryBudget::default()));
    assert_eq!(a.resends, b.resends);
    assert_eq!(a.endings, b.endings);
}

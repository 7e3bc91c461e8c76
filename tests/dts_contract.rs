//! The TypeScript contract against the code: every string union the `.d.ts` declares
//! (`js/package/contract.d.ts`, embedded by `src/wasm/dts.rs`) holds exactly the serde names of
//! the Rust enum behind it, so a variant added in Rust and forgotten in the `.d.ts` (or the
//! other way round) fails here, natively, without a build of the package.
//!
//! The serde names are read from the derives themselves, not from a list kept by hand: serde's
//! error for an unknown variant names every variant it expects.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use serde::de::DeserializeOwned;

use selfheal::{
    AlertLevel, BreakerState, Cause, ErrorClass, FailureKind, Fix, InterventionStrategy, Jitter,
    Level, Locale, Mode, Role, Signal, Source, StopReason, Strategy,
};

/// The `.d.ts` text as the package ships it (the `typescript_custom_section` of dts.rs).
const DTS: &str = include_str!("../js/package/contract.d.ts");

/// Every serde name of the unit-variant enum `T`, in declaration order.
fn serde_names<T: DeserializeOwned + std::fmt::Debug>() -> Vec<String> {
    let err = serde_json::from_str::<T>(r#""\u0000 not a variant""#)
        .expect_err("no variant has this name")
        .to_string();
    let expected = err
        .split_once(", expected ")
        .unwrap_or_else(|| panic!("not an unknown-variant error: {err}"))
        .1;
    backticked(expected)
}

fn backticked(s: &str) -> Vec<String> {
    s.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The string literals of a union that starts right after `anchor` and ends at its `;`.
fn union_after(text: &str, anchor: &str) -> Vec<String> {
    let start = text
        .find(anchor)
        .unwrap_or_else(|| panic!("the .d.ts has no {anchor:?}"))
        + anchor.len();
    let rest = &text[start..];
    let end = rest.find(';').expect("a union ends with ;");
    // A union written over several lines starts with `|`.
    let union = rest[..end].trim_start().trim_start_matches('|');
    assert!(
        union.split('|').all(|part| {
            let part = part.trim();
            part.len() >= 2 && part.starts_with('"') && part.ends_with('"')
        }),
        "{anchor:?} is not a union of string literals: {union}"
    );
    union
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// `export type Name = "a" | "b";`
fn type_alias(name: &str) -> Vec<String> {
    union_after(DTS, &format!("export type {name} ="))
}

/// `field: "a" | "b";` (or `field?:`) inside the declaration that starts with `within`.
fn field_union(within: &str, field: &str) -> Vec<String> {
    let start = DTS
        .find(within)
        .unwrap_or_else(|| panic!("the .d.ts has no {within:?}"));
    let block = &DTS[start..];
    let anchor = [format!("{field}: "), format!("{field}?: ")]
        .into_iter()
        .find(|a| block.contains(a.as_str()))
        .unwrap_or_else(|| panic!("{within:?} has no field {field:?}"));
    union_after(block, &anchor)
}

#[track_caller]
fn assert_same<T: DeserializeOwned + std::fmt::Debug>(declared: Vec<String>) {
    let names = serde_names::<T>();
    assert!(!names.is_empty());
    assert_eq!(
        declared,
        names,
        "the .d.ts and the serde names of {} differ",
        std::any::type_name::<T>()
    );
}

#[test]
fn the_serde_names_are_read_from_the_derives() {
    assert_eq!(serde_names::<Mode>(), ["fix", "reask"]);
    assert_eq!(backticked("one of `a`, `b`, `c`"), ["a", "b", "c"]);
}

#[test]
fn type_aliases_equal_the_serde_names() {
    assert_same::<ErrorClass>(type_alias("ErrorClass"));
    assert_same::<Cause>(type_alias("Cause"));
    assert_same::<StopReason>(type_alias("StopReason"));
    assert_same::<Fix>(type_alias("Fix"));
    assert_same::<Locale>(type_alias("Locale"));
    assert_same::<FailureKind>(type_alias("FailureKind"));
    assert_same::<BreakerState>(type_alias("BreakerState"));
    assert_same::<InterventionStrategy>(type_alias("InterventionStrategy"));
    assert_same::<Level>(type_alias("Level"));
}

#[test]
fn inline_unions_equal_the_serde_names() {
    assert_same::<Mode>(field_union("export interface LoopOptions", "mode"));
    assert_same::<Jitter>(field_union("export interface Backoff", "jitter"));
    assert_same::<Signal>(field_union("export interface Classified", "signal"));
    assert_same::<Strategy>(field_union(r#"{ type: "send-repair-prompt""#, "strategy"));
    assert_same::<Source>(field_union(r#"{ type: "done""#, "source"));
    assert_same::<Role>(field_union("export interface Message", "role"));
    assert_same::<AlertLevel>(field_union("export interface Alert", "level"));
}

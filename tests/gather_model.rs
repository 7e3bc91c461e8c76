//! js/snippets/gather.js against its model. The fuzz targets give `classify` what
//! `JsThrown::to_error_info` (fuzz/src/js_error.rs) says the gatherer reads; issue 12 asked for
//! the two to be checked one from the other. Here every model value is built as a real JS object
//! in Node (`JsThrown::layout`, tests/js/gather_model_driver.mjs), gathered by the shipped
//! snippet, and the `ErrorInfo` the snippet sends must equal the model's, field for field: a
//! place added to one and not the other fails here.

#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(clippy::expect_used, clippy::panic)]

#[allow(dead_code)] // the fuzz targets' validation stand-in and word lists are not all used here
#[path = "../fuzz/src/js_error.rs"]
mod js_error;

use std::io::Write;
use std::process::{Command, Stdio};

use arbitrary::{Arbitrary, Unstructured};
use js_error::{JsErrorObject, JsThrown, Scalar, Word};
use selfheal::ErrorInfo;
use serde_json::Value;

/// SplitMix64: fixed seeds, so every run checks the same values.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

/// Values random bytes seldom make: numbers at the edges of their printing, statuses from the
/// fallbacks.
fn edges() -> Vec<JsThrown> {
    let num = |n: f64| Some(Scalar::Number(n));
    let text = |s: &str| Some(Scalar::Text(Word::Free(s.into())));
    let object = |o: JsErrorObject| JsThrown::Object(Box::new(o));
    let mut out: Vec<JsThrown> = [-0.0, 1e21, -1e-7, 5e-324, f64::MAX, 0.1 + 0.2, 429.0]
        .into_iter()
        .map(|n| {
            object(JsErrorObject {
                code: num(n),
                headers: vec![(Word::Free("Retry-After".into()), Scalar::Number(n))],
                ..JsErrorObject::default()
            })
        })
        .collect();
    out.extend([
        object(JsErrorObject {
            status: text(" 503 "),
            ..JsErrorObject::default()
        }),
        object(JsErrorObject {
            status: text("RESOURCE_EXHAUSTED"),
            error_code: num(429.0),
            ..JsErrorObject::default()
        }),
        object(JsErrorObject {
            body_code: Some(529.0),
            cause_code: num(503.0),
            ..JsErrorObject::default()
        }),
        object(JsErrorObject {
            headers: vec![
                (Word::Free("x-a".into()), Scalar::Number(1.0)),
                (Word::Free("X-B".into()), Scalar::Other),
                (Word::Free("x-a".into()), Scalar::Number(2.0)),
            ],
            ..JsErrorObject::default()
        }),
    ]);
    out
}

/// [`edges`], the committed seeds of the `classify` fuzz target (its input starts with a
/// `JsThrown`), then values from fixed pseudo-random bytes of many lengths.
fn cases() -> Vec<JsThrown> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/classify");
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .expect("the classify seeds")
        .map(|e| std::fs::read(e.expect("a seed").path()).expect("a seed's bytes"))
        .collect();
    inputs.sort();
    inputs.extend((0..4000u64).map(|i| bytes(i, 8 + (i as usize * 7) % 900)));
    let mut cases = edges();
    cases.extend(
        inputs
            .iter()
            .filter_map(|b| JsThrown::arbitrary(&mut Unstructured::new(b)).ok()),
    );
    cases
}

/// Two texts of one value: equal, or numbers that are the same f64, bit for bit (JS and Rust
/// print a number with the same shortest digits, except where two 17-digit texts are equally
/// near it).
fn same_text(a: &str, b: &str) -> bool {
    let number = |s: &str| {
        s.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(f64::to_bits)
    };
    a == b || (number(a).is_some() && number(a) == number(b))
}

/// The gatherer's record is the model's, numbers written as texts compared as numbers.
fn same_info(got: &ErrorInfo, want: &ErrorInfo) -> bool {
    let texts = |a: &[String], b: &[String]| {
        a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_text(a, b))
    };
    let headers = |a: &[(String, String)], b: &[(String, String)]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|((n, v), (m, w))| n == m && same_text(v, w))
    };
    let ErrorInfo {
        codes, headers: h, ..
    } = got;
    texts(codes, &want.codes)
        && headers(h, &want.headers)
        && ErrorInfo {
            codes: Vec::new(),
            headers: Vec::new(),
            ..got.clone()
        } == ErrorInfo {
            codes: Vec::new(),
            headers: Vec::new(),
            ..want.clone()
        }
}

/// `gatherError` on each layout, in one Node process.
fn gather(layouts: &[Value]) -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut node = Command::new("node")
        .arg(format!("{root}/tests/js/gather_model_driver.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node (scripts/setup.sh installs it) runs the gatherer");
    let input = serde_json::to_vec(layouts).expect("layouts are JSON");
    node.stdin
        .take()
        .expect("node's stdin")
        .write_all(&input)
        .expect("layouts written to node");
    let out = node.wait_with_output().expect("node's output");
    assert!(out.status.success(), "the driver failed: {:?}", out.status);
    serde_json::from_slice(&out.stdout).expect("a JSON array of gathered texts")
}

#[test]
fn the_gatherer_reads_what_its_fuzz_model_says() {
    let cases = cases();
    assert!(cases.len() > 3000, "{} cases", cases.len());
    let layouts: Vec<Value> = cases.iter().map(JsThrown::layout).collect();
    let gathered = gather(&layouts);
    assert_eq!(gathered.len(), cases.len());
    let mut differ = Vec::new();
    for ((case, layout), text) in cases.iter().zip(&layouts).zip(&gathered) {
        let got: ErrorInfo = serde_json::from_str(text).expect("the gatherer's record");
        let want = case.to_error_info();
        if !same_info(&got, &want) {
            differ.push(format!(
                "thrown: {layout}\n  gatherer: {got:?}\n  model:    {want:?}"
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} values gathered otherwise than the model says; the first:\n{}",
        differ.len(),
        cases.len(),
        differ
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The check reaches every place: each field of `ErrorInfo` is set by some case.
    let infos: Vec<ErrorInfo> = cases.iter().map(JsThrown::to_error_info).collect();
    let set = |f: &dyn Fn(&ErrorInfo) -> bool| infos.iter().filter(|i| f(i)).count();
    for (field, n) in [
        ("name", set(&|i| i.name.is_some())),
        ("className", set(&|i| i.class_name.is_some())),
        ("status", set(&|i| i.status.is_some())),
        ("headers", set(&|i| !i.headers.is_empty())),
        ("types", set(&|i| i.types.len() == 3)),
        ("codes", set(&|i| i.codes.len() > 4)),
        ("messages", set(&|i| i.messages.len() == 3)),
        ("statusTexts", set(&|i| i.status_texts.len() == 3)),
        ("causeNames", set(&|i| i.cause_names.len() == 3)),
        ("retryable", set(&|i| i.retryable)),
        ("overloaded", set(&|i| i.overloaded)),
        ("flagged", set(&|i| i.flagged)),
    ] {
        assert!(n >= 10, "only {n} cases set {field}");
    }
}

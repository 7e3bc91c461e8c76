//! Runs `repair_json` over every file of JSONTestSuite's `test_parsing`
//! folder (vendored under `tests/corpus/`, MIT):
//!
//! * `y_` files (valid JSON) come back byte-identical with no fixes;
//! * no file of any kind (`y_`, `n_`, `i_`) makes it panic, and every `Some`
//!   it returns parses strictly;
//! * serde_json's own strict verdict agrees with the suite: it accepts every
//!   `y_` file and rejects every `n_` file.

// Reads the corpus from disk and catches panics: native only.
#![cfg(not(target_arch = "wasm32"))]
// Test code may panic: the [lints.clippy] denials in Cargo.toml guard the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use selfheal::structured::repair::{repair_json, Repaired};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/JSONTestSuite/test_parsing")
}

#[test]
fn json_test_suite_corpus() {
    let dir = corpus_dir();
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("JSONTestSuite corpus missing at {}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no .json files in {}", dir.display());

    let (mut files, mut not_utf8, mut repaired, mut unrepairable) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for path in &paths {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        files += 1;

        let strict = serde_json::from_slice::<Value>(&bytes).is_ok();
        if name.starts_with("y_") && !strict {
            failures.push(format!("{name}: serde_json rejects a y_ file"));
        }
        if name.starts_with("n_") && strict {
            failures.push(format!("{name}: serde_json accepts an n_ file"));
        }

        let Ok(text) = std::str::from_utf8(&bytes) else {
            not_utf8 += 1;
            continue;
        };
        let result = std::panic::catch_unwind(|| repair_json(text));
        let Ok(result) = result else {
            failures.push(format!("{name}: repair_json panicked"));
            continue;
        };
        if name.starts_with("y_") {
            let expected = Some(Repaired {
                text: text.to_owned(),
                fixes: vec![],
            });
            if result != expected {
                failures.push(format!(
                    "{name}: valid JSON not returned unchanged: {result:?}"
                ));
            }
        }
        match result {
            Some(r) => {
                if !r.fixes.is_empty() {
                    repaired += 1;
                }
                if serde_json::from_str::<Value>(&r.text).is_err() {
                    failures.push(format!("{name}: output is not strict JSON: {:?}", r.text));
                }
            }
            None => unrepairable += 1,
        }
    }
    println!(
        "JSONTestSuite: {files} files, {not_utf8} not UTF-8 (repair skipped), \
         {repaired} repaired, {unrepairable} returned None"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

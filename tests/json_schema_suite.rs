//! The official JSON-Schema-Test-Suite (vendored under `tests/corpus/JSON-Schema-Test-Suite`,
//! MIT, its COMMIT beside it) run through `CompiledSchema`, the way `new Schema(schema, {
//! formats, resources })` compiles:
//!
//! * drafts 2020-12 and 7 in full (the required tests), and their `optional/` tests, with
//!   `formats: false` (the specification's default, which those tests check);
//! * `optional/format/` (and `optional/format-assertion.json`) with formats asserted
//!   (selfheal's default);
//! * remote references resolved from the suite's `remotes/` registered as `resources` under
//!   `http://localhost:1234/` (nothing is fetched: a missing document fails the compile).
//!
//! A draft-7 schema without `$schema` gets draft 7's, as a draft-7 harness would say. Every
//! case that does not behave as the suite says is listed in [`KNOWN`] with its reason (the
//! formats jsonschema cannot check without its `idna` feature, the optional tests of behaviour
//! jsonschema chose otherwise); an unlisted failure fails this test, and so does a listed case
//! that starts passing.
// Needs the JSON Schema validator: not built in selfheal/lite (`--no-default-features`).
#![cfg(feature = "validate")]
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unreachable
)]

use std::path::{Path, PathBuf};

use selfheal::{CompiledSchema, SchemaOptions};
use serde_json::Value;

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/JSON-Schema-Test-Suite")
}

const IDN: &str = "idn-email and idn-hostname are not checked: jsonschema checks them only \
    with its `idna` feature (Unicode IDNA tables), left out of the wasm build; such a format \
    is an annotation";

/// Cases that fail by a documented limit: (file under tests/, group, test), reason. `*` stands
/// for every group or test of the file.
const KNOWN: &[(&str, &str, &str, &str)] = &[
    ("draft2020-12/optional/format/idn-email.json", "*", "*", IDN),
    (
        "draft2020-12/optional/format/idn-hostname.json",
        "*",
        "*",
        IDN,
    ),
    ("draft7/optional/format/idn-email.json", "*", "*", IDN),
    ("draft7/optional/format/idn-hostname.json", "*", "*", IDN),
];

fn known(file: &str, group: &str, test: &str) -> bool {
    KNOWN
        .iter()
        .any(|(f, g, t, _)| *f == file && (*g == "*" || *g == group) && (*t == "*" || *t == test))
}

/// The remote documents a draft's tests may reach, by their `http://localhost:1234/` URI: all
/// but those in another draft's folder, which count only when they say their own `$schema`
/// (the cross-draft tests); without it they are written for that other draft.
fn remotes(draft: &str) -> Vec<(String, Value)> {
    let root = suite().join("remotes");
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let doc: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let folder = rel.split('/').next().unwrap_or("");
                let other_draft = folder.starts_with("draft") && folder != draft;
                if other_draft && doc.get("$schema").is_none() {
                    continue;
                }
                out.push((format!("http://localhost:1234/{rel}"), doc));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The suite's files for one draft: the required ones, then optional/, then optional/format/;
/// with each, whether formats are asserted (only in optional/format/: elsewhere the suite
/// tests the specification's default, which `formats: false` gives).
fn files(draft: &str) -> Vec<(PathBuf, bool)> {
    let base = suite().join("tests").join(draft);
    let mut out = Vec::new();
    for (dir, formats) in [
        (base.clone(), false),
        (base.join("optional"), false),
        (base.join("optional/format"), true),
    ] {
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        here.sort();
        // optional/format-assertion.json is about asserting formats too.
        out.extend(here.into_iter().map(|p| {
            let asserts = formats || p.ends_with("format-assertion.json");
            (p, asserts)
        }));
    }
    out
}

struct Outcome {
    cases: usize,
    failures: Vec<(String, String, String, String)>,
}

fn run(draft: &str, dialect: Option<&str>) -> Outcome {
    let remotes = remotes(draft);
    let mut outcome = Outcome {
        cases: 0,
        failures: Vec::new(),
    };
    let root = suite().join("tests");
    for (file, formats) in files(draft) {
        let name = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let groups: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for group in groups {
            let description = group["description"].as_str().unwrap().to_string();
            let mut schema = group["schema"].clone();
            if let (Some(dialect), Some(map)) = (dialect, schema.as_object_mut()) {
                map.entry("$schema")
                    .or_insert_with(|| Value::String(dialect.to_string()));
            }
            // The remotes only where the schema can reach them: registering 79 documents for
            // every one of the suite's schemas would only make the run slower.
            let text = schema.to_string();
            let resources = if text.contains("localhost:1234") || text.contains("\"$ref\":\"http") {
                remotes.clone()
            } else {
                Vec::new()
            };
            let options = SchemaOptions { formats, resources };
            let compiled = CompiledSchema::with_options(schema, options);
            for test in group["tests"].as_array().unwrap() {
                outcome.cases += 1;
                let test_name = test["description"].as_str().unwrap().to_string();
                let want = test["valid"].as_bool().unwrap();
                let got = match &compiled {
                    Ok(schema) => Ok(schema.validate(&test["data"]).is_none()),
                    Err(e) => Err(e.to_string()),
                };
                let problem = match got {
                    Ok(valid) if valid == want => continue,
                    Ok(valid) => format!("valid: {valid}, the suite says {want}"),
                    Err(e) => format!("schema did not compile: {e}"),
                };
                outcome
                    .failures
                    .push((name.clone(), description.clone(), test_name, problem));
            }
        }
    }
    outcome
}

fn check(draft: &str, dialect: Option<&str>, min_cases: usize) {
    let outcome = run(draft, dialect);
    assert!(
        outcome.cases >= min_cases,
        "{draft}: only {} cases",
        outcome.cases
    );
    let unexpected: Vec<String> = outcome
        .failures
        .iter()
        .filter(|f| !known(&f.0, &f.1, &f.2))
        .map(|(file, group, test, problem)| format!("(\"{file}\", {group:?}, {test:?}) {problem}"))
        .collect();
    let now_passing: Vec<String> = KNOWN
        .iter()
        .filter(|(file, ..)| file.starts_with(&format!("{draft}/")))
        .filter(|k| {
            !outcome
                .failures
                .iter()
                .any(|f| f.0 == k.0 && (k.1 == "*" || f.1 == k.1) && (k.2 == "*" || f.2 == k.2))
        })
        .map(|k| format!("{k:?}"))
        .collect();
    println!(
        "JSON-Schema-Test-Suite {draft}: {} cases, {} known failures",
        outcome.cases,
        outcome.failures.len() - unexpected.len()
    );
    assert!(
        unexpected.is_empty(),
        "{draft}: {} unexpected failures:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(
        now_passing.is_empty(),
        "{draft}: listed as failing but passing now:\n{}",
        now_passing.join("\n")
    );
}

#[test]
fn draft2020_12_with_optional_and_formats_asserted() {
    check("draft2020-12", None, 1500);
}

#[test]
fn draft7_with_optional_and_formats_asserted() {
    check(
        "draft7",
        Some("http://json-schema.org/draft-07/schema#"),
        900,
    );
}

//! What building a failure report, and streaming a reply against a schema, allocate, counted by
//! a global allocator (each test holds [`MEASURING`] throughout, so nothing else allocates while
//! it counts): a report quotes parts of the failing value in at most 100 messages of 300 code
//! points, so it must not cost the value's size once per error, nor a stream its path once per
//! `anyOf`.
// Needs the JSON Schema validator: not built in selfheal/lite (`--no-default-features`).
#![cfg(feature = "validate")]
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use selfheal::structured::stream::{PartialJson, StreamOptions, StreamSchema};
use selfheal::{CompiledSchema, ParseOptions};
use serde_json::json;

/// Held by a test while it counts what one call allocates.
static MEASURING: Mutex<()> = Mutex::new(());

/// Every byte allocated (a `realloc` counts its new size), never decreased.
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: each method forwards to `System` unchanged; the counter only adds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Relaxed);
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Relaxed);
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

#[test]
fn a_report_on_a_deep_value_allocates_about_its_messages_not_the_value_per_error() {
    let _measuring = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // The finding: a recursive node whose keywords quote the value they fail (minProperties,
    // not, enum, and type at the bottom), 125 levels of {"p": 1, "c": …} around a 200 KB
    // string: 750 errors, most quoting a subtree of about the whole value. Before, each
    // message was formatted whole and then clipped (0.8 s with a 3.8 MB string), and the
    // errors past the first 100 were formatted only to be counted.
    let schema = json!({"$defs": {"n": {
        "type": "object",
        "properties": {"p": {"type": "string"}, "c": {"$ref": "#/$defs/n"}},
        "required": ["q"], "minProperties": 3, "not": {"required": ["p"]},
        "enum": [1], "const": 2
    }}, "$ref": "#/$defs/n"});
    let mut value = json!("é".repeat(100_000));
    for _ in 0..125 {
        value = json!({"p": 1, "c": value});
    }
    let text_size = serde_json::to_string(&value).unwrap().len();
    let compiled = CompiledSchema::from_value(schema).unwrap();

    let before = ALLOCATED.load(Relaxed);
    let report = compiled.validate(&value).unwrap();
    let allocated = ALLOCATED.load(Relaxed) - before;

    assert_eq!(report.issues.len(), 100);
    assert_eq!(report.issues[99].path, "");
    let more: usize = report.issues[99]
        .message
        .strip_suffix(" more issues not listed")
        .unwrap()
        .parse()
        .unwrap();
    assert!(more > 500, "{}", report.issues[99].message);
    let quoting: Vec<&str> = report
        .issues
        .iter()
        .map(|i| i.message.as_str())
        .filter(|m| m.starts_with(r#"{"c":{"c":"#) || m.starts_with(r#"{"p":1,"c":"#))
        .collect();
    assert!(quoting.len() > 30, "{:?}", report.issues);
    assert!(quoting
        .iter()
        .all(|m| m.chars().count() == 300 && m.ends_with('…')));
    // jsonschema's 750 errors with their paths, and the messages: 1.1 MB. Before, every
    // quoting error printed its subtree, about the value's size each time: 230 MB.
    assert!(
        allocated < 4_000_000,
        "{allocated} bytes allocated for a report on a {text_size}-byte value"
    );
}

#[test]
fn a_stream_under_unions_keeps_what_a_report_reads_of_a_path_not_the_path_per_union() {
    let _measuring = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // An outside review: every `anyOf`/`oneOf` reached for a container copied the value's whole
    // JSON Pointer, which holds the model's keys, and kept it while the container was open.
    // 126 levels of 31 KB keys under 24 unions per level trapped at 4 GB of wasm memory; a
    // recursive nullable record (`z.lazy(() => z.record(Node).nullable())`) took 272 MB.
    let mut any = vec![json!({"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}})];
    for i in 1..24 {
        any.push(json!({"anyOf": [{"type": "object", "minProperties": i % 2}]}));
    }
    let schema = json!({"$defs": {"v": {"anyOf": any}}, "$ref": "#/$defs/v"});
    let schema = Arc::new(StreamSchema::new(Arc::new(
        CompiledSchema::from_value(schema).unwrap(),
    )));
    let key = "k".repeat(3_000);
    let mut reply = String::new();
    for _ in 0..60 {
        reply.push_str(&format!("{{\"{key}\":"));
    }
    reply.push_str("{}");
    reply.push_str(&"}".repeat(60));

    let mut stream = PartialJson::new(Some(schema), StreamOptions::default());
    let before = ALLOCATED.load(Relaxed);
    for chunk in reply.as_bytes().chunks(4096) {
        let _update = stream.push(std::str::from_utf8(chunk).unwrap()).unwrap();
    }
    let allocated = ALLOCATED.load(Relaxed) - before;
    assert!(stream.finish(&ParseOptions::new()).is_ok());
    // The paths alone: 60 levels x 24 unions x up to 180 KB each is 130 MB; what the issues
    // read of them is 60 x 24 x about 300 bytes.
    assert!(
        allocated < 20_000_000,
        "{allocated} bytes allocated streaming a {}-byte reply",
        reply.len()
    );
}

/// What reporting `value` against `schema` allocates (compiled first, outside the count), and
/// the report.
fn report_cost(
    schema: serde_json::Value,
    value: &serde_json::Value,
) -> (usize, selfheal::FailureReport) {
    let compiled = CompiledSchema::from_value(schema).unwrap();
    let before = ALLOCATED.load(Relaxed);
    let report = compiled.validate(value).unwrap();
    (ALLOCATED.load(Relaxed) - before, report)
}

#[test]
fn a_not_error_shares_its_subschema_instead_of_copying_it() {
    let _measuring = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // An outside hunt: each `not` error held a deep copy of the `not` subschema. A blocklist of
    // 4,000 words and a reply of 20,000 listed words trapped at 4 GB of wasm memory.
    let words: Vec<String> = (0..1000).map(|i| format!("reserved{i}")).collect();
    let schema = json!({"type": "array", "items": {"type": "string", "not": {"enum": words}}});
    let value = json!((0..2000)
        .map(|i| words[i % 1000].clone())
        .collect::<Vec<_>>());
    let (allocated, report) = report_cost(schema, &value);
    assert_eq!(report.issues.len(), 100);
    assert!(report.issues[0]
        .message
        .starts_with(r#"{"enum":["reserved0","reserved1","#));
    // 2,000 errors and 100 messages: 0.9 MB. Before, 2,000 copies of a 1,000-string enum:
    // 167 MB.
    assert!(allocated < 4_000_000, "{allocated} bytes allocated");
}

#[test]
fn a_pattern_error_shares_its_pattern_instead_of_copying_it() {
    let _measuring = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // The same hunt: each `pattern` error held a copy of the pattern; a 51 KB alternation over
    // 20,000 failing strings took 1.1 GB.
    let words: Vec<String> = (0..4000).map(|i| format!("reserved{i}")).collect();
    let pattern = format!("^(?:{})$", words.join("|"));
    let schema = json!({"type": "array", "items": {"type": "string", "pattern": pattern}});
    let value = json!((0..2000).map(|i| format!("x{i}")).collect::<Vec<_>>());
    let (allocated, report) = report_cost(schema, &value);
    assert_eq!(report.issues.len(), 100);
    assert!(report.issues[0]
        .message
        .starts_with(r#""x0" does not match "^(?:reserved0|reserved1|"#));
    // 3.2 MB, the 2,000 matches included. Before, 2,000 copies of a 51 KB pattern: 105 MB.
    assert!(allocated < 4_000_000, "{allocated} bytes allocated");
}

#[test]
fn an_unevaluated_items_error_names_its_items_by_index_not_as_text() {
    let _measuring = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // The same hunt: `unevaluatedItems` serialised every unevaluated item into its error. Over a
    // recursive "closed extension" that fails at its leaf, each level's error held its whole
    // subtree as text: 126 levels around 30,000-character strings (3.8 MB) took 325 MB.
    let schema = json!({"$defs": {
        "base": {"type": ["array", "string"], "items": {"$ref": "#/$defs/node"}},
        "node": {"allOf": [{"$ref": "#/$defs/base"}], "unevaluatedItems": false}
    }, "$ref": "#/$defs/node"});
    let mut value = json!(1);
    for _ in 0..100 {
        value = json!(["x".repeat(10_000), value]);
    }
    let (allocated, report) = report_cost(schema, &value);
    let unevaluated: Vec<&str> = report
        .issues
        .iter()
        .map(|i| i.message.as_str())
        .filter(|m| m.starts_with("Unevaluated items are not allowed ('\"xxx"))
        .collect();
    assert!(unevaluated.len() > 30, "{:?}", report.issues);
    assert!(unevaluated
        .iter()
        .all(|m| m.chars().count() == 300 && m.ends_with('…')));
    // 0.9 MB. Before, each of 100 levels held its subtree as text: 150 MB.
    assert!(allocated < 4_000_000, "{allocated} bytes allocated");
}

/// A large array is built at its counted size: a `Vec` that doubled held its old and new buffers
/// at once and allocated about twice the array (2,000,000 integers: 96 MB of `Value` on wasm32
/// peaked at 150 MB), and wasm memory never shrinks. Here the parse allocates the array once.
#[test]
fn a_large_array_is_allocated_once_at_its_size() {
    let _measuring = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let items = 600_000;
    // Strings with brackets, commas and escaped quotes first: not counted as items or arrays.
    let text = format!(
        "[\"[,\\\"],[\", [{}], {}0]",
        "1,".repeat(5_000) + "1",
        "0,".repeat(items - 3)
    );
    assert!(text.len() > 1 << 20);
    let before = ALLOCATED.load(Relaxed);
    let value = selfheal_hot::parse_value(&text).unwrap();
    let allocated = ALLOCATED.load(Relaxed) - before;
    let array = value.as_array().unwrap();
    assert_eq!(array.len(), items);
    assert_eq!(array[1].as_array().map(Vec::len), Some(5_001));
    let size = std::mem::size_of::<serde_json::Value>();
    // The outer array once, and the first 4,096 items of each array before its count is taken
    // (a doubling `Vec` allocates about twice the array in all).
    assert!(
        allocated < items * size * 21 / 20,
        "{allocated} bytes allocated for {} of array",
        items * size
    );
}

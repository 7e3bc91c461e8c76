//! `PartialJson` (streamed replies) on any text cut into random chunks.
//!
//! Input: byte 0 picks the schema (or none), byte 1 the options (local
//! repair, coercion, a small `maxChars`) and byte 2 seeds the chunk sizes;
//! the rest is the reply (lossy UTF-8).
//! Invariants: no panic; the chunking changes nothing (edits replayed, value,
//! closed pointers, `done`, violation); replayed edits equal `value()`; a
//! refused push changes nothing; `finish` is `parse` of the text; a strict
//! document that passes the schema (and repeats no key: a member's value is
//! judged when it closes, a later member of the same name is not waited
//! for) gets no violation and, once done, shows exactly its value; a
//! `json-syntax` violation in strict mode is on text strict parsing refuses.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use selfheal::structured::stream::{apply, PartialJson, StreamOptions, StreamSchema};
use selfheal::{parse, FailureKind, ParseOptions};
use selfheal_fuzz::{schema, strict, SCHEMAS};
use serde_json::Value;

struct Seen {
    mirror: Option<Value>,
    closed: Vec<String>,
    done: bool,
    violation: Option<(String, String, Option<&'static str>)>,
    text: String,
}

fn run(stream: &mut PartialJson, chunks: &[&str]) -> Seen {
    let mut mirror = None;
    let mut cursor = Vec::new();
    let mut closed = Vec::new();
    let mut done = false;
    for chunk in chunks {
        let before = (stream.text().to_owned(), stream.value());
        match stream.push(chunk) {
            Ok(update) => {
                apply(&mut mirror, &mut cursor, &update.edits);
                closed.extend(update.closed);
                done = update.done;
                assert_eq!(
                    update.violation.as_ref(),
                    stream.violation().map(|v| &v.issue)
                );
            }
            Err(_) => {
                assert_eq!(
                    (stream.text().to_owned(), stream.value()),
                    before,
                    "a refused push changes nothing"
                );
            }
        }
    }
    assert_eq!(mirror, stream.value(), "edits replayed = value()");
    Seen {
        mirror,
        closed,
        done,
        violation: stream
            .violation()
            .map(|v| (v.issue.path.clone(), v.issue.message.clone(), v.keyword)),
        text: stream.text().to_owned(),
    }
}

fuzz_target!(|data: &[u8]| {
    let [which, flags, seed, rest @ ..] = data else {
        return;
    };
    let raw = String::from_utf8_lossy(rest).into_owned();
    let compiled = (usize::from(*which) % (SCHEMAS.len() + 1) < SCHEMAS.len())
        .then(|| schema(usize::from(*which)));
    let stream_schema = compiled
        .as_ref()
        .map(|c| Arc::new(StreamSchema::new(c.clone())));
    let options = StreamOptions {
        local_repair: flags & 1 == 0,
        coerce: flags & 2 != 0,
        max_chars: if flags & 4 != 0 {
            usize::from(flags >> 3) * 3
        } else {
            4_000_000
        },
        closed_pointers: true,
    };

    // Chunks of 1..=16 characters, sizes from a tiny LCG seeded by byte 2.
    let mut chunks = Vec::new();
    let mut state = u32::from(*seed) | 1;
    let mut start = 0;
    let bounds: Vec<usize> = raw
        .char_indices()
        .map(|(i, _)| i)
        .chain([raw.len()])
        .collect();
    let mut k = 0;
    while k + 1 < bounds.len() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let take = 1 + (state >> 16) as usize % 16;
        let end_k = (k + take).min(bounds.len() - 1);
        let end = bounds[end_k];
        chunks.push(&raw[start..end]);
        start = end;
        k = end_k;
    }

    let mut whole_stream = PartialJson::new(stream_schema.clone(), options.clone());
    let whole = run(&mut whole_stream, &[raw.as_str()]);
    let mut chunked_stream = PartialJson::new(stream_schema.clone(), options.clone());
    let chunked = run(&mut chunked_stream, &chunks);
    if whole.text == chunked.text {
        assert_eq!(whole.mirror, chunked.mirror, "value depends on chunking");
        assert_eq!(whole.closed, chunked.closed, "closed depends on chunking");
        assert_eq!(whole.done, chunked.done);
        assert_eq!(
            whole.violation, chunked.violation,
            "violation depends on chunking"
        );
    }

    let text = &chunked.text;
    let parse_options = ParseOptions {
        local_repair: options.local_repair,
        coerce: options.coerce,
        ..ParseOptions::new()
    };
    assert_eq!(
        chunked_stream.finish(&parse_options),
        parse(text, compiled.as_deref(), &parse_options)
    );
    if let Some(value) = strict(text) {
        let valid = compiled
            .as_ref()
            .is_none_or(|c| c.validate(&value).is_none());
        let no_repeated_key = chunked.closed.len() == values_in(&value);
        if valid && !options.coerce && chunked.done && no_repeated_key {
            assert_eq!(chunked.violation, None, "a violation on a valid document");
        }
        if chunked.done {
            assert_eq!(
                chunked.mirror.as_ref(),
                Some(&value),
                "done shows the value"
            );
        }
    }
    if let Some(v) = chunked_stream.violation() {
        if v.issue.kind == FailureKind::JsonSyntax && !options.local_repair {
            assert!(strict(text).is_none(), "a syntax violation on strict JSON");
        }
    }
});

/// How many values `value` holds, itself included.
fn values_in(value: &Value) -> usize {
    let mut stack = vec![value];
    let mut n = 0;
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    n
}

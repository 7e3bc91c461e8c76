//! Any text as a JSON Schema (what `new Schema(text)` compiles), then a reply
//! checked against it.
//!
//! Input: the schema text, optionally followed by a 0xFF byte and a reply.
//! Invariants: compiling never panics (an error names where, or it compiles);
//! the cache gives the same compiled schema for the same text; validating and
//! parsing with it never panic; an accepted value validates; a fix prompt
//! built with this schema keeps its structure (the schema's own text cannot
//! close the code fence or the quote).
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfheal::{build_fix_prompt, parse, Locale, ParseOptions, Parsed, SchemaCache};
use selfheal_fuzz::{assert_fix_prompt_structure, strict, REPLIES};

fuzz_target!(|data: &[u8]| {
    let (schema_bytes, reply) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], Some(String::from_utf8_lossy(&data[i + 1..]))),
        None => (data, None),
    };
    let text = String::from_utf8_lossy(schema_bytes);
    let mut cache = SchemaCache::new(4);
    let Ok(compiled) = cache.get_or_compile(&text) else {
        return;
    };
    let again = cache
        .get_or_compile(&text)
        .expect("compiled once, compiles again");
    assert_eq!(compiled.canonical_text(), again.canonical_text());
    let by_value = cache
        .get_or_compile_value(compiled.value().clone())
        .expect("the same schema as a value");
    assert_eq!(compiled.canonical_text(), by_value.canonical_text());

    let replies: Vec<&str> = match &reply {
        Some(r) => vec![r.as_ref()],
        None => REPLIES.to_vec(),
    };
    for raw in replies {
        if let Some(v) = strict(raw) {
            let _ = compiled.validate(&v);
        }
        match parse(raw, Some(&compiled), &ParseOptions::new()) {
            Parsed::Ok { value, .. } => assert!(compiled.validate(&value).is_none()),
            Parsed::Err { report, .. } => {
                let p = build_fix_prompt(&report, compiled.value(), raw, 200, Locale::En);
                assert_fix_prompt_structure(&p.user);
                // The schema sits in a fence longer than any backtick run inside it.
                let fence_line = p
                    .user
                    .lines()
                    .find(|l| l.starts_with("```"))
                    .expect("a fence");
                let fence = fence_line.trim_end_matches("json");
                let body_start = p.user.find(fence_line).expect("fence") + fence_line.len();
                let body_end = body_start
                    + p.user[body_start..]
                        .find(&format!("\n{fence}\n"))
                        .expect("the closing fence");
                assert!(
                    !p.user[body_start..body_end].contains(fence),
                    "the schema closes its fence early"
                );
            }
        }
    }
});

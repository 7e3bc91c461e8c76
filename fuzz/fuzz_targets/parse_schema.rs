//! Strict parsing, local repair and schema validation (`selfheal::parse`)
//! against a fixed set of compiled schemas, and the fix prompt built from
//! each failure.
//!
//! Input: byte 0 picks the schema, byte 1 the options (local repair, stop
//! reason, locale, maxRawChars), the rest is the reply (lossy UTF-8).
//! Invariants: no panic; an `Ok` value validates, is what its text parses to,
//! and needed no fixes when the reply was cut off, or strict (but a JSON string
//! holding the JSON the schema wants: decoded), and no repair with local repair
//! off; an `Err` report has kinds, each issue's kind among them; a valid
//! strict reply that was not cut off is accepted as is; the fix prompt quotes
//! the reply between exactly one real pair of tags, with no tag-like text
//! inside.
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfheal::structured::is_cut_off;
use selfheal::{build_fix_prompt, parse, Fix, Locale, ParseOptions, Parsed};
use selfheal_fuzz::{assert_fix_prompt_structure, pick, schema, strict, STOP_REASONS};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let [which, flags, rest @ ..] = data else {
        return;
    };
    let raw = String::from_utf8_lossy(rest);
    let schema = schema(usize::from(*which));
    let options = ParseOptions {
        local_repair: flags & 1 == 0,
        stop_reason: (flags & 2 != 0).then(|| pick(&STOP_REASONS, flags >> 2).to_string()),
        ..ParseOptions::new()
    };
    let cut_off = is_cut_off(options.stop_reason.as_deref());
    let strict_value = strict(&raw);
    let parsed = parse(&raw, Some(&schema), &options);
    match &parsed {
        Parsed::Ok {
            value, fixes, text, ..
        } => {
            assert!(
                schema.validate(value).is_none(),
                "an accepted value validates"
            );
            assert_eq!(
                strict(text).as_ref(),
                Some(value),
                "the accepted text parses to the value"
            );
            // A strict reply changes only where the schema refused it and it is a JSON string
            // holding JSON (decoded; its text repaired only with local repair on).
            let decoded = fixes.first() == Some(&Fix::StringEncodedJson)
                && matches!(strict_value, Some(Value::String(_)));
            if cut_off || (strict_value.is_some() && !decoded) {
                assert!(fixes.is_empty(), "no local repair here: {fixes:?}");
            }
            if !options.local_repair {
                assert!(
                    fixes.iter().all(|f| *f == Fix::StringEncodedJson),
                    "no local repair with it off: {fixes:?}"
                );
            }
            if fixes.is_empty() {
                assert_eq!(strict_value.as_ref(), Some(value));
                assert_eq!(text.as_str(), &*raw);
            }
        }
        Parsed::Err { report, .. } => {
            assert!(
                !report.kinds.is_empty() && !report.issues.is_empty(),
                "{report:?}"
            );
            assert!(report.primary().is_some());
            for (i, k) in report.kinds.iter().enumerate() {
                assert!(
                    !report.kinds[..i].contains(k),
                    "kind listed twice: {report:?}"
                );
            }
            for issue in &report.issues {
                assert!(report.kinds.contains(&issue.kind), "{report:?}");
                assert!(!issue.message.is_empty());
            }
            if let Some(v) = &strict_value {
                if !cut_off && !raw.trim().is_empty() {
                    assert!(
                        schema.validate(v).is_some(),
                        "a valid strict reply was refused: {report:?}"
                    );
                }
            }
            let locale = [Locale::En, Locale::Ja, Locale::Zh][usize::from(flags >> 6) % 3];
            let max_raw = usize::from(flags >> 3) * 17;
            let prompt = build_fix_prompt(report, schema.value(), &raw, max_raw, locale);
            assert_fix_prompt_structure(&prompt.user);
            assert!(serde_json::to_string(&parsed).is_ok());
        }
    }
});

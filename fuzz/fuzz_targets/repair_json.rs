//! `repair_json` on any text: never panics; returns strict JSON or None;
//! strict JSON comes back byte-identical with no fixes; each fix is named once;
//! a result with no fixes is the input itself; repairing a result changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfheal::repair_json;
use selfheal_fuzz::strict;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let repaired = repair_json(&text);
    if strict(&text).is_some() {
        let r = repaired.as_ref().expect("strict JSON is returned");
        assert_eq!(r.text, text, "strict JSON is returned unchanged");
        assert!(
            r.fixes.is_empty(),
            "strict JSON needs no fixes: {:?}",
            r.fixes
        );
    }
    let Some(r) = repaired else { return };
    assert!(
        strict(&r.text).is_some(),
        "not strict JSON: {text:?} -> {:?}",
        r.text
    );
    let mut seen = std::collections::HashSet::new();
    assert!(
        r.fixes.iter().all(|f| seen.insert(*f)),
        "a fix listed twice: {:?}",
        r.fixes
    );
    if r.fixes.is_empty() {
        assert_eq!(r.text, text, "no fixes but the text changed");
    }
    let again = repair_json(&r.text).expect("a repaired text is strict");
    assert_eq!(
        (again.text, again.fixes.len()),
        (r.text, 0),
        "repair is idempotent"
    );
});

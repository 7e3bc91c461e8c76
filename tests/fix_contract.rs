//! The `fixes` names are a public contract written once, in the `Fix` enum's serde names: the
//! TypeScript union in `js/package/contract.d.ts` must list exactly those, in the same order.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use selfheal::Fix;

#[test]
fn the_typescript_fix_union_is_the_fix_enum() {
    let dts = include_str!("../js/package/contract.d.ts");
    let start = dts.find("export type Fix =").expect("the Fix union");
    let end = start + dts[start..].find(';').expect("its end");
    let declared: Vec<&str> = dts[start..end].split('"').skip(1).step_by(2).collect();
    let names: Vec<String> = Fix::ALL
        .iter()
        .map(|f| {
            serde_json::to_value(f)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(declared, names);
    // Kebab-case, each once.
    for name in &names {
        assert!(
            name.bytes().all(|c| c.is_ascii_lowercase() || c == b'-'),
            "{name}"
        );
        assert_eq!(names.iter().filter(|n| *n == name).count(), 1, "{name}");
    }
}

/// `Fix::is_coercion` names exactly the opt-in coercions, the `coerce-*` fixes: `parse` takes a
/// strict candidate that needed one only when none passes as written.
#[test]
fn the_coercions_are_the_coerce_fixes() {
    for fix in Fix::ALL {
        assert_eq!(
            fix.is_coercion(),
            fix.as_str().starts_with("coerce-"),
            "{fix:?}"
        );
    }
}

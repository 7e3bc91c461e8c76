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
    AlertLevel, Backoff, BreakerOptions, BreakerState, Budget, Cause, ErrorClass, FailureKind,
    FallbackPlan, Fix, InterventionStrategy, Jitter, Level, Locale, LoopConfig, LoopOptions, Mode,
    Prompt, RetryBudgetOptions, Role, Signal, Source, StopReason, Strategy, SupervisorOptions,
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

/// The serde names of the fields of the struct `T`, in declaration order: what its derive hands
/// to `deserialize_struct`, read by a deserializer that stops there.
fn serde_fields<T: DeserializeOwned>() -> Vec<&'static str> {
    use serde::de::{self, Visitor};
    #[derive(Debug)]
    struct Fields(Vec<&'static str>);
    impl std::fmt::Display for Fields {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{:?}", self.0)
        }
    }
    impl std::error::Error for Fields {}
    impl de::Error for Fields {
        fn custom<M: std::fmt::Display>(_: M) -> Fields {
            Fields(Vec::new())
        }
    }
    struct Reader;
    impl<'de> de::Deserializer<'de> for Reader {
        type Error = Fields;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fields> {
            Err(Fields(Vec::new()))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Fields> {
            Err(Fields(fields.to_vec()))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let fields = T::deserialize(Reader)
        .err()
        .map(|f| f.0)
        .unwrap_or_default();
    // Aliases (`"\u{0}null"`, src/wire.rs) are listed beside the names; they are not fields.
    fields
        .into_iter()
        .filter(|f| !f.starts_with('\0'))
        .collect()
}

/// The field names declared in the `.d.ts` block that starts with `within` (up to its `}`).
fn declared_fields(within: &str) -> Vec<String> {
    let start = DTS
        .find(within)
        .unwrap_or_else(|| panic!("the .d.ts has no {within:?}"));
    let block = &DTS[start + within.len()..];
    let block = &block[..block
        .find("\n}")
        .expect("a block ends with } on its own line")];
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("/*") && !l.starts_with('*'))
        .filter_map(|l| l.split_once(':'))
        .map(|(name, _)| name.trim_end_matches('?').to_string())
        .filter(|name| !name.is_empty() && !name.contains(' '))
        .collect()
}

/// The one-edit rule for options (docs/ARCHITECTURE.md, "Where to add things"): a field added
/// to the `options!` list of `LoopConfig` is read from JS `LoopOptions` by its camelCase name
/// (the same serde name), and this fails until the `.d.ts` declares it. `schema` is the one JS
/// option that is no `LoopConfig` field (a live `Schema` or a schema, compiled by the wasm
/// layer); `rules` is a field read by the wasm layer beside the others, with its own limits.
#[test]
fn every_loop_option_is_read_by_its_serde_name_and_declared() {
    let config = serde_fields::<LoopConfig>();
    assert!(config.contains(&"maxReplyChars") && config.contains(&"rules"));
    let mut given = serde_fields::<LoopOptions>();
    // `rules` is `#[serde(skip)]` in LoopOptions: the wasm layer reads it by the same name.
    given.push("rules");
    assert_eq!(
        given, config,
        "LoopOptions reads every LoopConfig field by its name"
    );
    let mut declared = declared_fields("export interface LoopOptions {");
    declared.retain(|f| f != "schema");
    assert_eq!(
        declared, config,
        "the .d.ts LoopOptions and LoopConfig differ"
    );
    // `Partial<Budget>` and `Partial<Backoff>`: their partial forms read the same names.
    for (resolved, given, interface) in [
        (
            serde_fields::<Budget>(),
            serde_fields::<selfheal::repair_loop::BudgetOptions>(),
            "export interface Budget {",
        ),
        (
            serde_fields::<Backoff>(),
            serde_fields::<selfheal::repair_loop::BackoffOptions>(),
            "export interface Backoff {",
        ),
    ] {
        assert_eq!(resolved, declared_fields(interface), "{interface}");
        assert_eq!(resolved, given, "{interface}");
    }
    // The toolkit's options, read whole.
    let breaker = DTS
        .lines()
        .find(|l| l.contains("constructor(options?: { failureThreshold"))
        .expect("CircuitBreaker's constructor");
    let (_, inline) = breaker.split_once('{').expect("an inline object type");
    let inline: Vec<_> = inline
        .split(';')
        .filter_map(|p| p.split_once("?:"))
        .collect();
    let inline: Vec<_> = inline.iter().map(|(name, _)| name.trim()).collect();
    assert_eq!(serde_fields::<BreakerOptions>(), inline);
    assert_eq!(
        serde_fields::<RetryBudgetOptions>(),
        declared_fields("export interface RetryBudgetOptions {")
    );
    assert_eq!(
        serde_fields::<SupervisorOptions>(),
        declared_fields("export interface SupervisorOptions {")
    );
}

/// A config written with every field away from its default reads back, through `LoopOptions`
/// and its resolution, as the same config: each option is read by the name it is written with.
#[test]
fn loop_options_resolve_what_the_config_writes() {
    let mut config = LoopConfig::new(
        Prompt {
            system: "s".into(),
            user: "u".into(),
        },
        7,
    );
    config.mode = Mode::Reask;
    config.alternate_prompt = Some(Prompt {
        system: "a".into(),
        user: "b".into(),
    });
    config.fallback = Some(FallbackPlan::Human { queue: "q".into() });
    config.budget = Budget {
        transient: 2,
        repairable: 3,
        semantic_invalid: 4,
        cost_ceiling_usd: Some(0.5),
        deadline_ms: Some(9000.0),
        max_prompt_chars: Some(100),
    };
    config.backoff = Backoff {
        base_ms: 10.0,
        max_ms: 20.0,
        jitter: Jitter::Full,
        jitter_ms: 5.0,
        max_retry_after_ms: 30.0,
    };
    config.local_repair = false;
    config.coerce = true;
    config.locale = Locale::Ja;
    config.max_raw_chars = 11;
    config.max_reply_chars = 12;
    let mut written = serde_json::to_value(&config).unwrap();
    // A snapshot writes the 64-bit seed as a string; options give a JS number.
    written["seed"] = serde_json::json!(7);
    let options: LoopOptions = serde_json::from_value(written).unwrap();
    assert_eq!(options.resolve(0), config);
}

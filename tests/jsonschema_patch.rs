//! What the jsonschema patch (patches/jsonschema/README.md) replaced, held to the answers of what
//! it replaced: `contentEncoding` (drafts 6 and 7 assert it) decoded by the patch's RFC 4648
//! decoder against the `data-encoding` crate that upstream uses; `multipleOf` with a fractional
//! divisor against upstream's `jsonschema_value::numeric::is_multiple_of_float`, whose last
//! resort (`fraction`'s big rationals) the patch computes without big integers; and the
//! meta-validation prefilter (a 2020-12 schema it says certainly conforms skips the
//! meta-validator) against the meta-validator itself; `anyOf`/`oneOf` errors through selfheal's
//! entry against upstream's (the same message and path, no branch errors); `uniqueItems` against
//! upstream's `jsonschema_value::unique::is_unique`, with the pairs it compares counted; `enum`
//! against comparing with each option, with the comparisons counted; `properties` (unpatched:
//! it already walks an object's members) against a model of its errors in member order; and the
//! bounds of the jsonschema-regex patch (patches/jsonschema-regex/README.md) on `format: regex`.
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

use selfheal::CompiledSchema;
use serde_json::{json, Value};

/// A small deterministic generator (SplitMix64), so a failure names a reproducible input.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const ENCODINGS: [&str; 5] = ["base64", "base64url", "base32", "base32hex", "base16"];

fn upstream(encoding: &str, text: &str) -> Option<Vec<u8>> {
    use data_encoding::{BASE32, BASE32HEX, BASE64, BASE64URL, HEXUPPER};
    match encoding {
        "base64" => BASE64.decode(text.as_bytes()).ok(),
        "base64url" => BASE64URL.decode(text.as_bytes()).ok(),
        "base32" => BASE32.decode(text.as_bytes()).ok(),
        "base32hex" => BASE32HEX.decode(text.as_bytes()).ok(),
        // Upstream's base16 is case-insensitive: HEXUPPER, then HEXUPPER of the upper-cased text.
        "base16" => HEXUPPER
            .decode(text.as_bytes())
            .or_else(|_| HEXUPPER.decode(text.to_uppercase().as_bytes()))
            .ok(),
        _ => unreachable!(),
    }
}

fn encode(encoding: &str, bytes: &[u8]) -> String {
    use data_encoding::{BASE32, BASE32HEX, BASE64, BASE64URL, HEXUPPER};
    match encoding {
        "base64" => BASE64.encode(bytes),
        "base64url" => BASE64URL.encode(bytes),
        "base32" => BASE32.encode(bytes),
        "base32hex" => BASE32HEX.encode(bytes),
        "base16" => HEXUPPER.encode(bytes),
        _ => unreachable!(),
    }
}

struct Checker {
    encoding: &'static str,
    /// `contentEncoding` alone: the text decodes.
    decodes: CompiledSchema,
    /// With `contentMediaType: application/json`: the decoded bytes are UTF-8 JSON.
    json: CompiledSchema,
    checked: usize,
    valid: usize,
}

impl Checker {
    fn new(encoding: &'static str) -> Checker {
        let draft7 = "http://json-schema.org/draft-07/schema#";
        let decodes = json!({"$schema": draft7, "contentEncoding": encoding});
        let json = json!({"$schema": draft7, "contentEncoding": encoding,
                          "contentMediaType": "application/json"});
        Checker {
            encoding,
            decodes: CompiledSchema::from_value(decodes).unwrap(),
            json: CompiledSchema::from_value(json).unwrap(),
            checked: 0,
            valid: 0,
        }
    }

    fn check(&mut self, text: &str) {
        let expected = upstream(self.encoding, text);
        let instance = Value::String(text.to_string());
        assert_eq!(
            self.decodes.validate(&instance).is_none(),
            expected.is_some(),
            "contentEncoding {} of {text:?}",
            self.encoding
        );
        let is_json = expected.as_ref().is_some_and(|bytes| {
            std::str::from_utf8(bytes).is_ok_and(|s| serde_json::from_str::<Value>(s).is_ok())
        });
        assert_eq!(
            self.json.validate(&instance).is_none(),
            is_json,
            "contentEncoding {} + application/json of {text:?}",
            self.encoding
        );
        self.checked += 1;
        self.valid += usize::from(expected.is_some());
    }
}

/// Characters around every alphabet's edges, padding, and what no alphabet has.
const PIECES: &[&str] = &[
    "A", "B", "Q", "Z", "a", "g", "z", "0", "1", "2", "7", "8", "9", "F", "V", "W", "+", "/", "-",
    "_", "=", "!", " ", "\n", "é",
];

#[test]
fn content_encodings_decode_as_data_encoding_does() {
    let mut gen = Gen(16);
    for encoding in ENCODINGS {
        let mut c = Checker::new(encoding);
        // Every string of up to three pieces.
        let mut texts = vec![String::new()];
        for _ in 0..3 {
            let mut next = Vec::new();
            for t in &texts {
                for p in PIECES {
                    next.push(format!("{t}{p}"));
                }
            }
            for t in &next {
                c.check(t);
            }
            texts = next;
        }
        // Every string of four pieces from a smaller set (one whole base64 block).
        let small = ["A", "Q", "g", "2", "=", "/", "_", "f"];
        for a in small {
            for b in small {
                for d in small {
                    for e in small {
                        c.check(&format!("{a}{b}{d}{e}"));
                    }
                }
            }
        }
        // Real encodings of random bytes, alone, concatenated (a padded block may end a group),
        // and with one character replaced, dropped or added.
        for _ in 0..4000 {
            let bytes: Vec<u8> = (0..gen.below(24)).map(|_| gen.next() as u8).collect();
            let mut text = encode(encoding, &bytes);
            if gen.below(4) == 0 {
                let more: Vec<u8> = (0..gen.below(8)).map(|_| gen.next() as u8).collect();
                text.push_str(&encode(encoding, &more));
            }
            if encoding == "base16" && gen.below(3) == 0 {
                text = text.to_lowercase();
            }
            c.check(&text);
            let chars: Vec<char> = text.chars().collect();
            if !chars.is_empty() {
                let at = gen.below(chars.len());
                let piece = PIECES[gen.below(PIECES.len())];
                let mut replaced: String = chars[..at].iter().collect();
                replaced.push_str(piece);
                replaced.extend(&chars[at + 1..]);
                c.check(&replaced);
                let dropped: String = chars[..at].iter().chain(&chars[at + 1..]).collect();
                c.check(&dropped);
                let mut added: String = chars[..at].iter().collect();
                added.push_str(piece);
                added.extend(&chars[at..]);
                c.check(&added);
            }
        }
        // Valid JSON behind the encoding too, so the media-type branch sees both answers.
        for doc in [
            r#"{"a": [1, 2.5, "x"]}"#,
            "[]",
            "true",
            "\"é\"",
            "{",
            "\u{0}",
        ] {
            c.check(&encode(encoding, doc.as_bytes()));
        }
        assert!(c.valid > 1000, "{encoding}: only {} valid inputs", c.valid);
        assert!(
            c.checked - c.valid > 1000,
            "{encoding}: too few invalid inputs"
        );
    }
}

/// A value of the generated corpus: right-shaped for some keyword, wrong-shaped, or in between.
const ODD_VALUES: &str = r###"[
  -1, 0, 1, 2, 1.5, 1.0, 0.0, -0.0, 1e300, 1e-300, 18446744073709551615, -9223372036854775808,
  "", "string", "#", "a#", "a#b", "##", "http://example.com/s#", "http://example.com/s#x",
  "a\n", "a\n#", "_a", "a-b.c_d", "1a", "-a", ".a", "a b", "é", "A", "object", "array", "integer",
  "null", "number", "boolean", "Object", "float",
  true, false, null,
  [], [1], ["a"], ["a", "a"], ["a", "b"], ["a", 1], ["string", "null"], ["string", "string"],
  ["object"], ["objet"], [true], [{}], [[]], [null],
  {}, {"a": 1}, {"a": true}, {"a": {}}, {"a": []}, {"a": ["x"]}, {"a": ["x", "x"]},
  {"a": "x"}, {"a": null}, {"https://json-schema.org/draft/2020-12/vocab/core": true}
]"###;

const KEYWORDS: &[&str] = &[
    "$id",
    "$schema",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$vocabulary",
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "prefixItems",
    "allOf",
    "anyOf",
    "oneOf",
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "dependencies",
    "type",
    "enum",
    "examples",
    "const",
    "default",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "uniqueItems",
    "deprecated",
    "readOnly",
    "writeOnly",
    "required",
    "dependentRequired",
    "title",
    "description",
    "format",
    "contentEncoding",
    "contentMediaType",
    "pattern",
    "x-unknown",
    "nullable",
    "$unknown",
];

/// Keywords whose value is a schema, a map of schemas, or an array of schemas.
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
const MAP_KEYWORDS: &[&str] = &[
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
];
const ARRAY_KEYWORDS: &[&str] = &["prefixItems", "allOf", "anyOf", "oneOf"];

fn generated_schema(gen: &mut Gen, odd: &[Value], depth: usize) -> Value {
    if depth > 3 || gen.below(6) == 0 {
        return if gen.below(2) == 0 {
            json!(true)
        } else {
            json!({})
        };
    }
    let mut map = serde_json::Map::new();
    if depth == 0 && gen.below(4) == 0 {
        map.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
    }
    for _ in 0..1 + gen.below(4) {
        let keyword = KEYWORDS[gen.below(KEYWORDS.len())];
        let value = if gen.below(3) == 0 {
            odd[gen.below(odd.len())].clone()
        } else if SCHEMA_KEYWORDS.contains(&keyword) {
            generated_schema(gen, odd, depth + 1)
        } else if MAP_KEYWORDS.contains(&keyword) {
            let mut members = serde_json::Map::new();
            for name in ["a", "b", "c"].iter().take(gen.below(4)) {
                let member = if gen.below(5) == 0 {
                    odd[gen.below(odd.len())].clone()
                } else {
                    generated_schema(gen, odd, depth + 1)
                };
                members.insert((*name).into(), member);
            }
            Value::Object(members)
        } else if ARRAY_KEYWORDS.contains(&keyword) {
            Value::Array(
                (0..gen.below(4))
                    .map(|_| generated_schema(gen, odd, depth + 1))
                    .collect(),
            )
        } else {
            odd[gen.below(odd.len())].clone()
        };
        map.insert(keyword.into(), value);
    }
    Value::Object(map)
}

/// Schemas people write: the prefilter must take them all, or the first compile in a fresh
/// process builds the meta-validator after all.
fn ordinary_schemas() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://example.com/order.json",
            "type": "object",
            "required": ["id", "items"],
            "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "pattern": "^ord_[A-Za-z0-9]{8,}$"},
                "status": {"enum": ["pending", "paid"]},
                "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
                "total": {"type": "number", "minimum": 0, "multipleOf": 0.01},
                "note": {"type": ["string", "null"], "maxLength": 200, "description": "free text"},
                "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
                "meta": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"},
                         "additionalProperties": {"type": "string"}, "maxProperties": 10}
            },
            "$defs": {
                "item": {
                    "$anchor": "item",
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
                    "required": ["sku", "qty"],
                    "dependentRequired": {"sku": ["qty"]},
                    "oneOf": [{"required": ["sku"]}, {"required": ["qty"]}],
                    "unevaluatedProperties": false
                }
            },
            "if": {"properties": {"status": {"const": "paid"}}},
            "then": {"required": ["total"]},
            "else": true,
            "examples": [{"id": "ord_12345678", "items": []}],
            "title": "Order", "deprecated": false, "readOnly": false,
            "contentMediaType": "application/json", "x-extension": {"anything": [1, 2]}
        }),
        json!({"anyOf": [{"type": "string"}, {"type": "integer", "exclusiveMinimum": 0}],
               "not": {"const": 3}, "default": null, "format": "email"}),
        json!({"prefixItems": [{"type": "string"}, true], "items": false, "contains": {"type": "number"},
               "minContains": 1, "maxContains": 3, "unevaluatedItems": false}),
        json!({"$defs": {"node": {"$dynamicAnchor": "node", "type": "object",
                                   "properties": {"next": {"$dynamicRef": "#node"}}}},
               "$ref": "#/$defs/node", "$comment": "a list"}),
        json!({"definitions": {"a": {"type": "string"}}, "dependencies": {"a": ["b"], "b": {"required": ["c"]}},
               "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true}}),
        // A subschema naming 2020-12 itself is checked in place (selfheal's embedded dialect).
        json!({"type": "object", "$defs": {"d": {
            "$schema": "https://json-schema.org/draft/2020-12/schema#", "$id": "urn:example:d",
            "$dynamicAnchor": "meta", "allOf": [{"$ref": "https://json-schema.org/draft/2020-12/schema"}]}}}),
    ]
}

#[test]
fn the_2020_12_prefilter_only_passes_schemas_the_meta_schema_accepts() {
    let odd: Vec<Value> = serde_json::from_str(ODD_VALUES).unwrap();
    let mut candidates: Vec<Value> = odd.clone();
    candidates.extend(ordinary_schemas());
    for file in [
        "pattern.json",
        "patternProperties.json",
        "optional-ecmascript-regex.json",
    ] {
        let path = format!(
            "{}/tests/corpus/regex-suite/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let groups: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for group in groups {
            candidates.push(group["schema"].clone());
            for case in group["tests"].as_array().unwrap() {
                candidates.push(case["data"].clone());
            }
        }
    }
    let mut gen = Gen(202_012);
    for _ in 0..60_000 {
        candidates.push(generated_schema(&mut gen, &odd, 0));
    }
    let (mut passed, mut conforming) = (0, 0);
    for schema in &candidates {
        // The draft the compiler would pick: the prefilter is only asked about 2020-12 schemas.
        let is_2020_12 = match schema.get("$schema") {
            None => true,
            Some(uri) => uri == "https://json-schema.org/draft/2020-12/schema",
        };
        if !is_2020_12 || !(schema.is_object() || schema.is_boolean()) {
            continue;
        }
        let conforms = jsonschema::meta::is_valid(schema);
        let prefilter = jsonschema::__selfheal_conforms_2020_12(schema);
        assert!(
            conforms || !prefilter,
            "the prefilter passed a schema the meta-schema rejects: {schema}\n{:?}",
            jsonschema::meta::validate(schema)
                .err()
                .map(|e| e.to_string())
        );
        conforming += usize::from(conforms);
        passed += usize::from(prefilter);
    }
    // Enough of both kinds to mean something, and most conforming schemas taken.
    eprintln!(
        "{} candidates, {conforming} conforming, {passed} passed",
        candidates.len()
    );
    assert!(
        conforming > 12_000 && candidates.len() - conforming > 12_000,
        "{conforming} conforming"
    );
    assert!(
        passed * 10 > conforming * 8,
        "the prefilter passed {passed} of {conforming}"
    );
    for schema in ordinary_schemas() {
        assert!(
            jsonschema::__selfheal_conforms_2020_12(&schema),
            "not passed: {schema}"
        );
    }
}

#[test]
fn an_invalid_2020_12_schema_still_gets_the_meta_validators_error() {
    for schema in [
        json!({"type": "object", "properties": {"a": {"minLength": -1}}}),
        json!({"type": "strin"}),
        json!({"$id": "http://example.com/a#b"}),
        json!({"required": ["a", "a"]}),
        json!({"properties": {"a": {"$anchor": "1a"}}}),
        json!({"allOf": []}),
    ] {
        let upstream = jsonschema::meta::validate(&schema).unwrap_err();
        let ours = CompiledSchema::from_value(schema.clone()).unwrap_err();
        assert_eq!(ours.path, upstream.instance_path().as_str(), "{schema}");
        assert_eq!(ours.message, upstream.to_string(), "{schema}");
    }
}

#[test]
fn an_embedded_resource_with_its_own_dialect_is_still_checked_against_that_dialect() {
    // The 2020-12 meta-schema accepts this document; draft 4's, which governs `$defs/a`, does not
    // (`exclusiveMinimum` is a boolean there). A `$schema` below the root sends the prefilter's
    // "not sure", and the compiler checks each embedded resource against its own meta-schema.
    let schema = json!({"$defs": {"a": {
        "$id": "http://example.com/a",
        "$schema": "http://json-schema.org/draft-04/schema#",
        "exclusiveMinimum": 5
    }}});
    assert!(jsonschema::meta::is_valid(&schema));
    assert!(!jsonschema::__selfheal_conforms_2020_12(&schema));
    let error = CompiledSchema::from_value(schema).unwrap_err();
    assert_eq!(error.path, "/$defs/a/exclusiveMinimum");
    assert_eq!(error.message, "5 is not of type \"boolean\"");
}

#[test]
fn multiple_of_a_fraction_answers_as_upstream_does() {
    use serde_json::Number;
    let mut gen = Gen(0x6d75_6c74);
    let random_f64 = |gen: &mut Gen| -> f64 {
        match gen.below(6) {
            // Any bit pattern: every magnitude, subnormals included.
            0 => f64::from_bits(gen.next() & !(0x7ff << 52) | ((gen.below(2047) as u64) << 52)),
            // Short decimals, as schemas and replies write them.
            1 => (gen.below(20_000) as f64 - 10_000.0) / 10f64.powi(gen.below(6) as i32),
            // Decimals at extreme scales, where upstream falls back to `fraction`.
            2 => (1 + gen.below(999)) as f64 * 10f64.powi(gen.below(640) as i32 - 330),
            3 => -((1 + gen.below(99)) as f64) * 10f64.powi(-(gen.below(330) as i32)),
            4 => (gen.next() >> 11) as f64 * 2f64.powi(gen.below(200) as i32 - 100),
            _ => [
                0.0,
                -0.0,
                5e-324,
                1e-300,
                1e300,
                0.1,
                0.3,
                1.5,
                1e22,
                1e23,
                2f64.powi(53),
            ][gen.below(11)],
        }
    };
    let mut divisors: Vec<f64> = vec![
        0.01,
        0.1,
        0.3,
        0.5,
        2.5,
        1e-10,
        1e-300,
        5e-324,
        1e-22,
        1e-23,
        0.0001,
        1.5e-200,
        7.3,
        1.0 / 3.0,
        123.456,
        4.9e-324,
    ];
    while divisors.len() < 160 {
        let m = random_f64(&mut gen).abs();
        if m > 0.0 && m.is_finite() && m.fract() != 0.0 {
            divisors.push(m);
        }
    }
    let (mut checked, mut whole, mut far_apart, mut far_whole) = (0, 0, 0, 0);
    for m in divisors {
        assert!(m.fract() != 0.0, "{m} would take the integer validator");
        let schema = CompiledSchema::from_value(json!({ "multipleOf": m })).unwrap();
        let mut instances: Vec<Number> = (0..400)
            .filter_map(|_| Number::from_f64(random_f64(&mut gen)))
            .collect();
        // Multiples, near-multiples and integers too, so that both answers come up often.
        for k in [
            1.0, 2.0, 3.0, 7.0, 10.0, 1e10, 1e20, 1e40, 1e100, 1e300, 12345.0, 0.5, 1.0001,
        ] {
            instances.extend(Number::from_f64(m * k));
        }
        instances.extend([Number::from(0u64), Number::from(7u64), Number::from(-40i64)]);
        instances.push(Number::from(u64::MAX));
        for number in instances {
            let expected = jsonschema_value::numeric::is_multiple_of_float(&number, m);
            let ours = schema.validate(&Value::Number(number.clone())).is_none();
            assert_eq!(ours, expected, "{number} multipleOf {m}");
            let v = number.as_f64().unwrap();
            checked += 1;
            whole += usize::from(expected);
            if v != 0.0 && (v / m).abs().log10().abs() > 40.0 {
                far_apart += 1;
                far_whole += usize::from(expected);
            }
        }
    }
    assert!(
        checked > 60_000 && whole > 2_000 && checked - whole > 2_000,
        "{checked} {whole}"
    );
    // Pairs 40 orders of magnitude apart are where upstream's last resort answers.
    assert!(
        far_apart > 5_000 && far_whole > 200 && far_apart - far_whole > 200,
        "{far_apart} far apart, {far_whole} whole"
    );
}

#[test]
fn additional_properties_false_without_properties_names_the_keys() {
    // Item 8: upstream said "False schema does not allow 1" for the first member's value.
    for schema in [
        json!({"type": "object", "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false}),
    ] {
        let compiled = CompiledSchema::from_value(schema.clone()).unwrap();
        let report = compiled
            .validate(&json!({"secret": 1, "other": 2}))
            .unwrap();
        let messages: Vec<&str> = report.issues.iter().map(|i| i.message.as_str()).collect();
        assert_eq!(report.issues.len(), 1, "{schema}: {messages:?}");
        assert!(
            messages[0].contains("'secret'") && messages[0].contains("'other'"),
            "{schema}: {messages:?}"
        );
        assert!(compiled.validate(&json!({})).is_none());
        assert_eq!(
            compiled.validate(&json!({"a": 1})).is_none(),
            schema.get("properties").is_some()
        );
    }
}

/// The branches' errors of an `anyOf`/`oneOf` error, one list per branch (`None` for another
/// error).
fn branch_errors(error: &jsonschema::ValidationError<'_>) -> Option<Vec<usize>> {
    use jsonschema::error::ValidationErrorKind as K;
    match error.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } | K::OneOfMultipleValid { context } => {
            Some(context.iter().map(Vec::len).collect())
        }
        _ => None,
    }
}

#[test]
fn any_of_and_one_of_errors_list_no_branches_through_selfheals_entry() {
    // Item 9: each error in a branch list owned a copy of its instance, so a recursive union
    // over a deep failing reply cost depth x branches x the reply's size (4 GB: a trap).
    let cases = [
        (
            json!({"anyOf": [{"type": "string"}, {"minimum": 2}]}),
            json!(1),
            "anyOf",
        ),
        (json!({"anyOf": [{"type": "string"}]}), json!(1), "anyOf"),
        (
            json!({"oneOf": [{"type": "string"}, {"minimum": 2}]}),
            json!(1),
            "oneOf",
        ),
        (json!({"oneOf": [{"type": "string"}]}), json!(1), "oneOf"),
        (
            json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]}),
            json!(1),
            "oneOf",
        ),
    ];
    for (schema, instance, keyword) in cases {
        let ours = jsonschema::__selfheal_validator_for(&schema, None).unwrap();
        let upstream = jsonschema::validator_for(&schema).unwrap();
        let branches = schema[keyword].as_array().unwrap().len();
        // Upstream's entry keeps every branch's list; selfheal's builds none, and says the same.
        let theirs = upstream.validate(&instance).unwrap_err();
        assert_eq!(
            branch_errors(&theirs).map(|b| b.len()),
            Some(branches),
            "{schema}"
        );
        for error in [ours.validate(&instance).unwrap_err()]
            .into_iter()
            .chain(ours.iter_errors(&instance))
        {
            assert_eq!(branch_errors(&error), Some(vec![]), "{schema}");
            assert_eq!(error.to_string(), theirs.to_string());
            assert_eq!(error.instance_path(), theirs.instance_path());
        }
        assert!(!ours.is_valid(&instance));
    }
}

#[test]
fn a_recursive_union_over_a_deep_failing_value_is_reported_by_its_first_level() {
    // The finding's shape, small: 120 levels of {"child": …} around a string, five branches.
    let schema = json!({"$defs": {"node": {"anyOf": [
        {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}, "required": ["child"]},
        {"type": "string", "maxLength": 100}, {"type": "null"}, {"type": "number"}, {"type": "boolean"}
    ]}}, "$ref": "#/$defs/node"});
    let mut value = json!("é".repeat(1000));
    for _ in 0..120 {
        value = json!({ "child": value });
    }
    let compiled = CompiledSchema::from_value(schema).unwrap();
    let report = compiled.validate(&value).unwrap();
    assert_eq!(report.issues.len(), 1, "{:?}", report.issues);
    assert_eq!(report.issues[0].path, "");
    assert!(report.issues[0]
        .message
        .starts_with("{\"child\":{\"child\":"));
}

/// Finding 4's reply: arrays of 17 empty or one-item arrays, all distinct, which upstream's hash
/// puts in one bucket (an array hashes as its items' hashes run together, and `[]` adds nothing).
fn nested_alike(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let bits = (0..17).rev().map(|bit| {
                if i >> bit & 1 == 1 {
                    json!([[]])
                } else {
                    json!([])
                }
            });
            Value::Array(bits.collect())
        })
        .collect()
}

#[test]
fn unique_items_compares_only_items_that_hash_alike() {
    // Item 9: upstream compared every pair of these (20,000 items: 2e8 comparisons, 14.6 s).
    let n = 20_000;
    let nested = nested_alike(n);
    // Integers 2^63 + i, one `f64` apart: upstream hashed them by that `f64`.
    let big: Vec<Value> = (0..n as u64).map(|i| json!((1u64 << 63) + i)).collect();
    // The same members in two orders, and `1` written as `1.0`: equal, so hashed alike.
    let objects: Vec<Value> = (0..n)
        .map(|i| match i % 2 {
            0 => json!({"id": i, "tags": [i % 7, "a"]}),
            _ => json!({"tags": [i % 7, "a"], "id": i}),
        })
        .collect();
    let schema = CompiledSchema::from_value(json!({"type": "array", "uniqueItems": true})).unwrap();
    for items in [nested, big, objects] {
        assert_eq!(
            jsonschema::__selfheal_unique_items(&items, false),
            (true, 0)
        );
        assert!(schema.validate(&Value::Array(items.clone())).is_none());
        // A repeated item is compared with its first copy and nothing else.
        let mut repeated = items.clone();
        repeated.push(match &items[n / 3] {
            Value::Object(map) => Value::Object(map.clone().into_iter().rev().collect()),
            other => other.clone(),
        });
        assert_eq!(
            jsonschema::__selfheal_unique_items(&repeated, false),
            (false, 1)
        );
        assert!(schema.validate(&Value::Array(repeated)).is_some());
    }
    // Whatever shares a hash is compared in full: every pair when all hash alike.
    let few = nested_alike(300);
    assert_eq!(
        jsonschema::__selfheal_unique_items(&few, true),
        (true, 300 * 299 / 2)
    );
}

/// Numbers, strings and empty containers around the edges of equality (`1` and `1.0`, `-0.0`,
/// integers around 2^63 and 2^64, a string that reads as a number).
fn leaves() -> Vec<Value> {
    [
        "null",
        "true",
        "false",
        "0",
        "-0.0",
        "0.0",
        "1",
        "1.0",
        "-1",
        "-1.0",
        "0.5",
        "-0.5",
        "1e300",
        "-1e300",
        "9223372036854775807",
        "9223372036854775808",
        "9223372036854775808.0",
        "9223372036854775809",
        "-9223372036854775808",
        "-9223372036854775808.0",
        "18446744073709551615",
        "18446744073709551616.0",
        "18446744073709551615.0",
        "4503599627370496.5",
        "\"\"",
        "\"a\"",
        "\"1\"",
        "[]",
        "{}",
    ]
    .iter()
    .map(|text| serde_json::from_str(text).unwrap())
    .collect()
}

/// A value up to three levels deep, often equal to another one written differently.
fn value(gen: &mut Gen, leaves: &[Value], depth: usize) -> Value {
    match if depth > 2 { 0 } else { gen.below(4) } {
        0 => leaves[gen.below(leaves.len())].clone(),
        // Small numbers, whole ones written either way: `3` and `3.0` are equal.
        1 => match gen.below(3) {
            0 => json!(gen.below(1000)),
            1 => json!(gen.below(1000) as f64),
            _ => json!(gen.below(1000) as f64 / 4.0 - 125.0),
        },
        2 => Value::Array(
            (0..gen.below(4))
                .map(|_| value(gen, leaves, depth + 1))
                .collect(),
        ),
        _ => {
            // Keys in any order, so that equal objects are often written differently.
            let mut keys = vec!["a", "b", "c"];
            for i in (1..keys.len()).rev() {
                keys.swap(i, gen.below(i + 1));
            }
            keys.truncate(gen.below(4));
            let members = keys
                .into_iter()
                .map(|key| (key.to_owned(), value(gen, leaves, depth + 1)));
            Value::Object(members.collect())
        }
    }
}

#[test]
fn unique_items_answers_as_upstream_does() {
    let leaves = leaves();
    let mut gen = Gen(0x756e_6971);
    let schema = CompiledSchema::from_value(json!({"uniqueItems": true})).unwrap();
    let (mut unique, mut repeated) = (0, 0);
    for round in 0..4_000 {
        let len = 16 + gen.below(if round % 4 == 0 { 40 } else { 2 });
        let items: Vec<Value> = (0..len).map(|_| value(&mut gen, &leaves, 0)).collect();
        let expected = jsonschema_value::unique::is_unique(&items);
        let array = Value::Array(items.clone());
        assert_eq!(
            jsonschema::__selfheal_unique_items(&items, false).0,
            expected,
            "{array}"
        );
        assert_eq!(
            jsonschema::__selfheal_unique_items(&items, true).0,
            expected,
            "{array}"
        );
        assert_eq!(schema.validate(&array).is_none(), expected, "{array}");
        if expected {
            unique += 1;
        } else {
            repeated += 1;
        }
    }
    assert!(
        unique > 800 && repeated > 800,
        "{unique} unique, {repeated} repeated"
    );
}

/// `value` written another way, and equal to it: members in reverse order, whole numbers below
/// 2^53 as floats (`3` as `3.0`).
fn respell(value: &Value) -> Value {
    match value {
        Value::Object(map) => map
            .iter()
            .rev()
            .map(|(k, v)| (k.clone(), respell(v)))
            .collect(),
        Value::Array(items) => items.iter().map(respell).collect(),
        Value::Number(n) => match n.as_u64() {
            Some(n) if n < 1 << 53 => json!(n as f64),
            _ => value.clone(),
        },
        other => other.clone(),
    }
}

#[test]
fn enum_compares_only_options_that_hash_alike() {
    // The finding's enums, against a 3.9 MB reply of their last option: 3.4 s, 3.7 s and 1.6 s
    // through wasm when every item was compared with every option in turn.
    let codes = (0..1_000).map(|i| json!(format!("C{i:03}")));
    let coded: Vec<Value> = codes.chain([json!(false)]).collect();
    let objects: Vec<Value> = (0..1_000)
        .map(|i| json!({"code": format!("C{i:03}"), "n": i}))
        .collect();
    let floats: Vec<Value> = (0..250).map(|i| json!(f64::from(i) + 0.5)).collect();
    for options in [coded, objects, floats] {
        for (i, option) in options.iter().enumerate() {
            let respelled = respell(option);
            let contains =
                |hash_alike| jsonschema::__selfheal_enum_contains(&options, &respelled, hash_alike);
            assert_eq!(contains(false), (true, 1), "{option}");
            // Hashed alike, the options are compared in schema order.
            assert_eq!(contains(true), (true, i + 1), "{option}");
        }
        let other = json!("C1000");
        let contains =
            |hash_alike| jsonschema::__selfheal_enum_contains(&options, &other, hash_alike);
        assert_eq!(contains(false), (false, 0));
        assert_eq!(contains(true), (false, options.len()));
        let last = options.last().unwrap().clone();
        let schema = json!({"type": "array", "items": {"enum": options}});
        let schema = CompiledSchema::from_value(schema).unwrap();
        assert!(schema.validate(&Value::Array(vec![last; 10_000])).is_none());
    }
    // Options alike down to the three levels the hash reads are all compared.
    let deep: Vec<Value> = (0..12).map(|i| json!([[[[i]]]])).collect();
    let contains = |value| jsonschema::__selfheal_enum_contains(&deep, &value, false);
    assert_eq!(contains(json!([[[[11.0]]]])), (true, 12));
    assert_eq!(contains(json!([[[[12]]]])), (false, 12));
    assert_eq!(contains(json!([[[[]]]])), (false, 0));
    // Up to ten options are compared in turn, without a hash.
    let few: Vec<Value> = (0..10).map(|i| json!({"n": i})).collect();
    let contains = |value| jsonschema::__selfheal_enum_contains(&few, &value, false);
    assert_eq!(contains(json!({"n": 3})), (true, 4));
    assert_eq!(contains(json!({"n": 10})), (false, 10));
    // The error is the one of comparing each option, word for word.
    let schema =
        CompiledSchema::from_value(json!({"enum": ["a", 1, {"b": [null]}, false]})).unwrap();
    let report = schema.validate(&json!([{"b": [null]}])).unwrap();
    assert_eq!(
        report.issues[0].message,
        r#"[{"b":[null]}] is not one of "a", 1 or 2 other candidates"#
    );
}

#[test]
fn enum_answers_as_comparing_each_option_does() {
    let leaves = leaves();
    let mut gen = Gen(0x656e_756d);
    // Nested past the three levels the hash reads, at times.
    let deepen = |gen: &mut Gen, value: Value| match gen.below(4) {
        0 => json!([[value]]),
        1 => json!({"a": [value]}),
        _ => value,
    };
    let (mut found, mut missing) = (0, 0);
    for _ in 0..1_000 {
        let options: Vec<Value> = (0..2 + gen.below(30))
            .map(|_| {
                let value = value(&mut gen, &leaves, 0);
                deepen(&mut gen, value)
            })
            .collect();
        let schema = CompiledSchema::from_value(json!({"enum": options})).unwrap();
        for _ in 0..10 {
            let instance = match gen.below(2) {
                0 => respell(&options[gen.below(options.len())]),
                _ => {
                    let value = value(&mut gen, &leaves, 0);
                    deepen(&mut gen, value)
                }
            };
            let expected = options
                .iter()
                .any(|option| jsonschema_value::cmp::equal(option, &instance));
            let contains = |hash_alike| {
                jsonschema::__selfheal_enum_contains(&options, &instance, hash_alike).0
            };
            assert_eq!(contains(false), expected, "{instance} in {options:?}");
            assert_eq!(contains(true), expected, "{instance} in {options:?}");
            assert_eq!(schema.validate(&instance).is_none(), expected, "{instance}");
            if expected {
                found += 1;
            } else {
                missing += 1;
            }
        }
    }
    assert!(
        found > 3_000 && missing > 3_000,
        "{found} found, {missing} missing"
    );
}

#[test]
fn a_regex_holds_at_most_a_thousand_nested_groups_and_named_groups() {
    // The jsonschema-regex patch: 3.9 million `(` took 120 MB in upstream's check, and 60,000
    // named groups 6.4 s (each name searched for among all before it).
    let schema = CompiledSchema::from_value(json!({"format": "regex"})).unwrap();
    let valid = |pattern: String| schema.validate(&json!(pattern)).is_none();
    let nested = |depth: usize| format!("{}x{}", "(?:(".repeat(depth / 2), "))".repeat(depth / 2));
    assert!(valid(nested(1_000)));
    assert!(!valid(nested(1_002)));
    let named = |n: usize, sep: &str, references: usize| {
        let groups: Vec<String> = (0..n).map(|i| format!("(?<g{i}>)")).collect();
        let refs: String = (0..references)
            .map(|i| format!("\\k<g{}>", i % n))
            .collect();
        format!("{}{refs}", groups.join(sep))
    };
    for sep in ["", "|"] {
        assert!(valid(named(1_000, sep, 10_000)));
        assert!(!valid(named(1_001, sep, 0)));
        assert!(!valid(named(1_000, sep, 10_001)));
    }
    // Below the bounds, names are checked as before.
    assert!(!valid("(?<a>x)(?<a>y)".to_owned()));
    assert!(valid("(?<a>x)|(?<a>y)".to_owned()));
    assert!(!valid("\\k<b>(?<a>x)".to_owned()));
}

#[test]
fn not_pattern_and_unevaluated_items_errors_share_or_index_their_payload_with_upstreams_text() {
    // Item 11: each `not` error held a deep copy of its subschema, each `pattern` error a copy
    // of its pattern, each `unevaluatedItems` error every unexpected item as JSON text. The
    // messages are upstream's, word for word (as in its own tests).
    use jsonschema::error::ValidationErrorKind as K;
    use std::sync::Arc;
    let schema =
        json!({"type": "array", "items": {"not": {"enum": ["a", "b"]}, "pattern": "^[a-z]$"}});
    let validator = jsonschema::__selfheal_validator_for(&schema, None).unwrap();
    let instance = json!(["a", "b", "Zz"]);
    let errors: Vec<_> = validator.iter_errors(&instance).collect();
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            r#"{"enum":["a","b"]} is not allowed for "a""#,
            r#"{"enum":["a","b"]} is not allowed for "b""#,
            r#""Zz" does not match "^[a-z]$""#,
        ]
    );
    let (K::Not { schema: first }, K::Not { schema: second }) =
        (errors[0].kind(), errors[1].kind())
    else {
        panic!("{messages:?}");
    };
    assert!(Arc::ptr_eq(first, second), "one subschema for every error");
    let K::Pattern { pattern } = errors[2].kind() else {
        panic!("{messages:?}");
    };
    assert_eq!(&**pattern, "^[a-z]$");

    let schema = json!({"prefixItems": [{}], "unevaluatedItems": false});
    let validator = jsonschema::__selfheal_validator_for(&schema, None).unwrap();
    let instance = json!([1, {"a": [2, "x\"y"]}, "s", null]);
    let error = validator.validate(&instance).unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"Unevaluated items are not allowed ('{"a":[2,"x\"y"]}', '"s"', 'null' were unexpected)"#
    );
    assert!(matches!(error.kind(), K::UnevaluatedItems { unexpected } if unexpected == &[1, 2, 3]));
    let one = json!([1, 2]);
    let error = validator.validate(&one).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Unevaluated items are not allowed ('2' was unexpected)"
    );
    assert_eq!(
        error.masked().to_string(),
        "Unevaluated items are not allowed (1 item)"
    );
}

/// Patch item 13: one `const` validator for every type, with the verdicts and message of
/// upstream's six (JSON Schema equality: `1` equals `1.0`, keys in any order, `false` is not `0`).
#[test]
fn one_const_validator_answers_for_every_type() {
    let cases = [
        (json!(1), json!(1.0), true),
        (json!(1), json!(true), false),
        (json!(false), json!(0), false),
        (json!(null), json!(null), true),
        (json!(null), json!(false), false),
        (json!("a"), json!("a"), true),
        (json!("a"), json!(["a"]), false),
        (json!([1, {"a": 2}]), json!([1.0, {"a": 2.0}]), true),
        (json!([1]), json!([1, 1]), false),
        (json!({"a": 1, "b": [2]}), json!({"b": [2], "a": 1}), true),
        (json!({}), json!([]), false),
        (
            json!(18446744073709551615u64),
            json!(18446744073709551615u64),
            true,
        ),
        (json!(-0.0), json!(0), true),
    ];
    for (constant, instance, valid) in cases {
        let validator = jsonschema::validator_for(&json!({"const": constant})).unwrap();
        assert_eq!(
            validator.is_valid(&instance),
            valid,
            "{constant} / {instance}"
        );
        let error = validator.validate(&instance).err().map(|e| e.to_string());
        assert_eq!(
            error,
            (!valid).then(|| format!("{constant} was expected")),
            "{constant}"
        );
    }
}

/// Patch item 15: an object with fewer members than `dependentRequired`/`dependentSchemas`/
/// `dependencies` has entries is checked by looking its members up among the entries; the
/// verdicts and the errors, in schema order, are upstream's.
#[test]
fn dependencies_found_from_the_members_keep_schema_order() {
    let mut required = serde_json::Map::new();
    let mut schemas = serde_json::Map::new();
    for name in [
        "b", "k1", "a", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11",
    ] {
        required.insert(name.into(), json!([format!("{name}-needs")]));
        schemas.insert(name.into(), json!({"required": [format!("{name}-wants")]}));
    }
    for (keyword, entries) in [
        ("dependentRequired", &required),
        ("dependentSchemas", &schemas),
        ("dependencies", &required),
        ("dependencies", &schemas),
    ] {
        let validator = jsonschema::validator_for(&json!({ keyword: entries })).unwrap();
        let instance = json!({"a": 1, "z": 2, "b": 3});
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        let want = if keyword == "dependentSchemas" || entries == &schemas {
            [
                "\"b-wants\" is a required property",
                "\"a-wants\" is a required property",
            ]
        } else {
            [
                "\"b-needs\" is a required property",
                "\"a-needs\" is a required property",
            ]
        };
        assert_eq!(errors, want, "{keyword}");
        assert!(!validator.is_valid(&instance), "{keyword}");
        assert_eq!(
            validator.validate(&instance).unwrap_err().to_string(),
            want[0]
        );
        // Members none of the entries name, and none at all: valid.
        assert!(validator.is_valid(&json!({"z": 1})), "{keyword}");
        assert!(validator.is_valid(&json!({})), "{keyword}");
        assert!(
            validator.is_valid(&json!({"a": 1, "a-needs": 0, "a-wants": 0})),
            "{keyword}"
        );
    }
}

/// What sits beside `properties` in `properties_errors_follow_the_objects_member_order`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Beside {
    Nothing,
    /// `additionalProperties: false`: one validator takes both keywords.
    Closed,
    /// `additionalProperties: {type: string}`: likewise.
    Additional,
    /// `patternProperties: {"^q": {type: boolean}}`: a validator of its own.
    Patterns,
    /// `patternProperties` and `additionalProperties: false`: one validator (patch item 14's).
    PatternsClosed,
}

/// `(instance path, message)` of the errors upstream reports for `instance` against `properties`
/// `p0`..`p{count-1}` (each `{type: integer}`) with `beside`, written out from what each keyword
/// says of one member.
fn properties_model(
    count: usize,
    beside: Beside,
    instance: &serde_json::Map<String, Value>,
) -> Vec<(String, String)> {
    let index = |name: &str| {
        name.strip_prefix('p')
            .and_then(|digits| digits.parse::<usize>().ok())
            .filter(|&i| i < count && name == format!("p{i}"))
    };
    let not_of = |name: &str, value: &Value, kind: &str, ok: bool| {
        (!ok).then(|| {
            (
                format!("/{name}"),
                format!("{value} is not of type \"{kind}\""),
            )
        })
    };
    let patterns = matches!(beside, Beside::Patterns | Beside::PatternsClosed);
    let mut properties = Vec::new();
    let mut others = Vec::new();
    let mut unexpected = Vec::new();
    for (name, value) in instance {
        if let Some(i) = index(name) {
            properties.extend(not_of(name, value, "integer", value.is_i64()).map(|e| (i, e)));
        } else if patterns && name.starts_with('q') {
            others.extend(not_of(name, value, "boolean", value.is_boolean()));
        } else if beside == Beside::Additional {
            properties.extend(not_of(name, value, "string", value.is_string()).map(|e| (0, e)));
        } else if matches!(beside, Beside::Closed | Beside::PatternsClosed) {
            unexpected.push(format!("'{name}'"));
        }
    }
    // `properties` without `additionalProperties`, over fewer than 15 names and an object more
    // than four times as wide, looks each name up in the object: schema order. Everything else
    // walks the members.
    if matches!(beside, Beside::Nothing | Beside::Patterns)
        && count < 15
        && instance.len() > 4 * count
    {
        properties.sort_by_key(|(i, _)| *i);
    }
    let mut errors: Vec<(String, String)> = properties.into_iter().map(|(_, e)| e).collect();
    if beside == Beside::PatternsClosed {
        // One pass over the members: property and pattern errors as they come.
        errors = instance
            .iter()
            .filter_map(|(name, value)| match index(name) {
                Some(_) => not_of(name, value, "integer", value.is_i64()),
                None if name.starts_with('q') => not_of(name, value, "boolean", value.is_boolean()),
                None => None,
            })
            .collect();
    } else {
        errors.extend(others);
    }
    if !unexpected.is_empty() {
        let verb = if unexpected.len() == 1 { "was" } else { "were" };
        errors.push((
            String::new(),
            format!(
                "Additional properties are not allowed ({} {verb} unexpected)",
                unexpected.join(", ")
            ),
        ));
    }
    errors
}

/// `properties` already walks an object's members and looks each up among its names (bucketed
/// past 14, as `additionalProperties` beside it does), so an object with fewer members than the
/// schema has properties costs its members, not the schema's names
/// (`scripts/limits.mjs properties-300-4m`). Held here: the errors and their order (the object's
/// member order, not the schema's), `is_valid` and `validate` for objects with fewer, as many and
/// more members than properties, members outside `properties`, and the keywords that share the
/// property maps beside it.
#[test]
fn properties_errors_follow_the_objects_member_order() {
    let mut gen = Gen(0x7072_6f70_6572_7479);
    for count in [3, 14, 15, 300] {
        let properties: serde_json::Map<String, Value> = (0..count)
            .map(|i| (format!("p{i}"), json!({"type": "integer"})))
            .collect();
        for beside in [
            Beside::Nothing,
            Beside::Closed,
            Beside::Additional,
            Beside::Patterns,
            Beside::PatternsClosed,
        ] {
            let mut schema = json!({"properties": properties});
            if matches!(beside, Beside::Patterns | Beside::PatternsClosed) {
                schema["patternProperties"] = json!({"^q": {"type": "boolean"}});
            }
            match beside {
                Beside::Closed | Beside::PatternsClosed => {
                    schema["additionalProperties"] = json!(false);
                }
                Beside::Additional => schema["additionalProperties"] = json!({"type": "string"}),
                _ => {}
            }
            let validator = jsonschema::validator_for(&schema).unwrap();
            for round in 0..60 {
                // Fewer, as many, and more members than properties (past four times as many).
                let members = match round % 4 {
                    0 => gen.below(3),
                    1 => gen.below(count + 1),
                    2 => count,
                    _ => 4 * count + 1 + gen.below(4),
                };
                let mut instance = serde_json::Map::new();
                while instance.len() < members {
                    let name = match gen.below(6) {
                        0 => format!("z{}", gen.below(1000)),
                        1 => format!("q{}", gen.below(1000)),
                        _ => format!("p{}", gen.below(count + 2)),
                    };
                    let value = match gen.below(4) {
                        0 => json!("x"),
                        1 => json!(true),
                        _ => json!(gen.below(10)),
                    };
                    instance.insert(name, value);
                }
                let want = properties_model(count, beside, &instance);
                let instance = Value::Object(instance);
                let got: Vec<(String, String)> = validator
                    .iter_errors(&instance)
                    .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()))
                    .collect();
                assert_eq!(got, want, "{count} properties, {beside:?}: {instance}");
                assert_eq!(validator.is_valid(&instance), want.is_empty(), "{instance}");
                let first = validator.validate(&instance).err().map(|e| e.to_string());
                assert_eq!(first.is_none(), want.is_empty(), "{instance}");
                if matches!(beside, Beside::Nothing | Beside::Additional) {
                    assert_eq!(first.as_ref(), want.first().map(|(_, m)| m), "{instance}");
                }
            }
        }
    }
}

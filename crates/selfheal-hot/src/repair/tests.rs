//! Unit tests of the repair scanner: one test per repair kind, the none cases, and properties.

use super::*;
use serde_json::Value;

/// Repairs `input` and checks the exact text and fixes.
#[track_caller]
fn check(input: &str, text: &str, fixes: &[Fix]) {
    let got = repair_json(input);
    assert_eq!(
        got,
        Some(Repaired {
            text: text.to_owned(),
            fixes: fixes.to_vec()
        }),
        "input: {input:?}"
    );
    assert!(serde_json::from_str::<Value>(text).is_ok(), "{text:?}");
}

#[track_caller]
fn unchanged(input: &str) {
    check(input, input, &[]);
}

#[track_caller]
fn none(input: &str) {
    assert_eq!(repair_json(input), None, "input: {input:?}");
}

use Fix::*;

#[test]
fn valid_json_is_returned_byte_identical() {
    for input in [
        "{}",
        "[]",
        "\"asd\"",
        "42",
        "-0.5e+3",
        "null",
        "true",
        "  {\"a\" : [1, 2.5, \"x\"]}\n\n",
        "\t[\"it's\", \"“smart”\", \"http://x//y\", \"\\u00e9\\ud83d\\ude00\"]\r\n",
        "{\"a\":{\"b\":{\"c\":[[[]]]}}}",
        " \"\" ",
    ] {
        unchanged(input);
    }
    // Deep but within serde_json's limit.
    unchanged(&format!("{}{}", "[".repeat(127), "]".repeat(127)));
}

#[test]
fn code_fence() {
    check("```json\n{\"a\": 1}\n```", "{\"a\": 1}", &[CodeFence]);
    check("```\n[1, 2]\n```\n", "[1, 2]", &[CodeFence]);
    check("```JSON\n{\"a\": 1}", "{\"a\": 1}", &[CodeFence]);
    check(
        "``` json\n{\"a\": 1,}\n```",
        "{\"a\": 1}",
        &[CodeFence, TrailingComma],
    );
    check("````json\n[1]\n````", "[1]", &[CodeFence]);
    check("```json {\"a\": 1}```", "{\"a\": 1}", &[CodeFence]);
    check(
        "```json\n\"just a string\"\n```",
        "\"just a string\"",
        &[CodeFence],
    );
    check(
        "```json\n{\"a\": 1,}\n```",
        "{\"a\": 1}",
        &[CodeFence, TrailingComma],
    );
    // A fence inside a string of the value is content, not a fence.
    check(
        "{\"md\": \"```py\\nx\\n```\",}",
        "{\"md\": \"```py\\nx\\n```\"}",
        &[TrailingComma],
    );
    // So is a fence line in a string with raw newlines (it cut the value there), while a fence
    // after the value, or after a string that never closes, is still one.
    check(
        "{\"md\": \"x\n```js\ny\n```\n\", \"b\": 1}",
        "{\"md\": \"x\\n```js\\ny\\n```\\n\", \"b\": 1}",
        &[ControlCharacter],
    );
    check(
        "{\"a\": 1}\n```json\n{\"b\": 2}\n```",
        "{\"b\": 2}",
        &[CodeFence, SurroundingProse],
    );
    // A closing fence must start or end a line; ``` mid-line is content.
    check(
        "```json\n{\"md\": \"a ``` b\"}\n```",
        "{\"md\": \"a ``` b\"}",
        &[CodeFence],
    );
}

#[test]
fn fence_without_json_falls_back_to_the_rest() {
    check(
        "```sh\nls -la\n```\n{\"a\": 1}",
        "{\"a\": 1}",
        &[SurroundingProse],
    );
}

#[test]
fn surrounding_prose() {
    check(
        "Sure! Here it is: {\"a\": 1} Hope that helps.",
        "{\"a\": 1}",
        &[SurroundingProse],
    );
    check("Result:\n[1, 2]", "[1, 2]", &[SurroundingProse]);
    // Values on separate lines are newline-delimited JSON (issue 11: taking only the first
    // dropped the rest silently); `structured::parse` still offers each value on its own.
    check(
        "{\"a\": 1}\n{\"b\": 2}",
        "[{\"a\": 1},\n{\"b\": 2}]",
        &[MissingComma, NewlineDelimited],
    );
    check(
        "Text first.\n```json\n{\"a\": 1}\n```\nText after.",
        "{\"a\": 1}",
        &[CodeFence, SurroundingProse],
    );
}

#[test]
fn later_candidates_are_tried() {
    check(
        "Use {curly} braces: {\"a\":1}",
        "{\"a\":1}",
        &[SurroundingProse],
    );
    check(
        "See [citation needed] then {\"a\": [1]}",
        "{\"a\": [1]}",
        &[SurroundingProse],
    );
    // A failed candidate's own inner values are not offered instead.
    none("{\"a\": hello, \"b\": [1]}");
    // Bounded: the ninth candidate is never looked at.
    none(&format!("{} {{\"a\": 1}}", "{x} ".repeat(MAX_CANDIDATES)));
    check(
        &format!("{} {{\"a\": 1}}", "{x} ".repeat(MAX_CANDIDATES - 1)),
        "{\"a\": 1}",
        &[SurroundingProse],
    );
}

#[test]
fn trailing_comma() {
    check("[1,2,]", "[1,2]", &[TrailingComma]);
    check("{\"a\":1,}", "{\"a\":1}", &[TrailingComma]);
    check("[1,,2]", "[1,2]", &[TrailingComma]);
    check("[,1]", "[1]", &[TrailingComma]);
    check("{,\"a\":1}", "{\"a\":1}", &[TrailingComma]);
    check("{\"a\": \"it's\", }", "{\"a\": \"it's\"}", &[TrailingComma]);
    check("[\n  1,\n  2,\n]", "[\n  1,\n  2\n]", &[TrailingComma]);
    check(
        "{\"a\": [1, 2,], \"b\": {\"c\": 3,},}",
        "{\"a\": [1, 2], \"b\": {\"c\": 3}}",
        &[TrailingComma],
    );
}

#[test]
fn single_quotes() {
    check("{'a': 'b'}", "{\"a\": \"b\"}", &[SingleQuotes]);
    check(
        "{'text': 'it's fine'}",
        "{\"text\": \"it's fine\"}",
        &[SingleQuotes],
    );
    check(
        "{'a': 'say \"hi\"', 'b': 'x\\'y'}",
        "{\"a\": \"say \\\"hi\\\"\", \"b\": \"x'y\"}",
        &[SingleQuotes],
    );
    check(
        "['the dogs' bowls']",
        "[\"the dogs' bowls\"]",
        &[SingleQuotes],
    );
    check("['a', 'b']", "[\"a\", \"b\"]", &[SingleQuotes]);
    check(
        "{'a': 'open",
        "{\"a\": \"open\"}",
        &[SingleQuotes, UnclosedString, UnclosedBracket],
    );
}

#[test]
fn apostrophes_in_double_quoted_strings_are_content() {
    check(
        "{\"a\": \"it's\", \"b\": 'rock 'n' roll',}",
        "{\"a\": \"it's\", \"b\": \"rock 'n' roll\"}",
        &[SingleQuotes, TrailingComma],
    );
    check("[\"'\", \"''\",]", "[\"'\", \"''\"]", &[TrailingComma]);
}

#[test]
fn smart_quotes() {
    check("{“a”: “b”}", "{\"a\": \"b\"}", &[SmartQuotes]);
    check("{‘a’: ‘it’s’}", "{\"a\": \"it’s\"}", &[SmartQuotes]);
    check("[“say \"x\"”]", "[\"say \\\"x\\\"\"]", &[SmartQuotes]);
    // Inside a normal string they are content.
    check(
        "{\"a\": \"“x” ‘y’\",}",
        "{\"a\": \"“x” ‘y’\"}",
        &[TrailingComma],
    );
}

#[test]
fn unquoted_key() {
    check("{key: 1}", "{\"key\": 1}", &[UnquotedKey]);
    check(
        "{a_b: 1, $c: 2, d-e: 3, ключ: 4, x1: 5}",
        "{\"a_b\": 1, \"$c\": 2, \"d-e\": 3, \"ключ\": 4, \"x1\": 5}",
        &[UnquotedKey],
    );
}

#[test]
fn comments() {
    check("{\"a\":1 // c\n}", "{\"a\":1\n}", &[Comment]);
    check("{/* x */\"a\":1}", "{\"a\":1}", &[Comment]);
    check(
        "{\"url\": \"http://x.com//y\", /* not // here */ \"b\": 2}",
        "{\"url\": \"http://x.com//y\", \"b\": 2}",
        &[Comment],
    );
    check(
        "[1, /* cut",
        "[1]",
        &[Comment, TrailingComma, UnclosedBracket],
    );
    // Comments around the value are comments, not prose.
    check("// result\n{\"a\": 1} /* end */", "{\"a\": 1}", &[Comment]);
    check("{\"a\": 1} /* end */ !", "{\"a\": 1}", &[SurroundingProse]);
    check("// see {x}\n[1,]", "[1]", &[Comment, TrailingComma]);
    none("[1, / 2]");
}

#[test]
fn python_literals() {
    check(
        "[True, False, None, true]",
        "[true, false, null, true]",
        &[PythonLiteral],
    );
    check("{\"None\": None}", "{\"None\": null}", &[PythonLiteral]);
    none("[Truey]");
    none("[TRUE]");
}

#[test]
fn missing_comma() {
    check("[1 2]", "[1, 2]", &[MissingComma]);
    check("{\"a\":1 \"b\":2}", "{\"a\":1, \"b\":2}", &[MissingComma]);
    check(
        "[{\"a\":1} {\"b\":2}]",
        "[{\"a\":1}, {\"b\":2}]",
        &[MissingComma],
    );
    check("[1\n2]", "[1,\n2]", &[MissingComma]);
    check(
        "{\n  \"a\": \"x\"\n  \"b\": [1]\n  c: true\n}",
        "{\n  \"a\": \"x\",\n  \"b\": [1],\n  \"c\": true\n}",
        &[MissingComma, UnquotedKey],
    );
    check(
        "['a'\n'b']",
        "[\"a\",\n\"b\"]",
        &[SingleQuotes, MissingComma],
    );
}

#[test]
fn control_characters() {
    check(
        "[\"a\tb\nc\rd\u{8}e\u{c}f\u{0}g\u{1f}\"]",
        "[\"a\\tb\\nc\\rd\\be\\ff\\u0000g\\u001f\"]",
        &[ControlCharacter],
    );
}

#[test]
fn a_lone_surrogate_escape_becomes_the_replacement_character() {
    // Before: JSON.parse takes `"\ud83d"`, serde_json does not, and the scanner copied the
    // escape as it was, so the whole reply was refused (repairJson: null).
    check(
        "{\"a\":\"x\\ud83d y\"}",
        "{\"a\":\"x\\ufffd y\"}",
        &[InvalidEscape],
    );
    check("[\"\\udc00\"]", "[\"\\ufffd\"]", &[InvalidEscape]);
    check(
        "[\"\\uD83D\\u0041\"]",
        "[\"\\ufffd\\u0041\"]",
        &[InvalidEscape],
    );
    check(
        "[\"\\ude00\\ud83d\"]",
        "[\"\\ufffd\\ufffd\"]",
        &[InvalidEscape],
    );
    // A pair is kept as it is, in a text repaired for something else.
    check(
        "[\"\\ud83d\\ude00\",]",
        "[\"\\ud83d\\ude00\"]",
        &[TrailingComma],
    );
    check(
        "['\\ud83d\\ude00x\\ud83d']",
        "[\"\\ud83d\\ude00x\\ufffd\"]",
        &[SingleQuotes, InvalidEscape],
    );
}

#[test]
fn invalid_escape() {
    check("[\"a\\xb\"]", "[\"a\\\\xb\"]", &[InvalidEscape]);
    check("[\"\\u12\"]", "[\"\\\\u12\"]", &[InvalidEscape]);
    check(
        "[\"C:\\dir\\new\"]",
        "[\"C:\\\\dir\\new\"]",
        &[InvalidEscape],
    );
    // \' is only an escape inside single quotes; elsewhere it is read as the apostrophe it
    // plainly is (issue 11, jsonrepair's rule), and named as a repaired escape.
    check("[\"it\\'s\"]", "[\"it's\"]", &[InvalidEscape]);
}

#[test]
fn unclosed_string_and_brackets() {
    check(
        "{\"a\": \"abc",
        "{\"a\": \"abc\"}",
        &[UnclosedString, UnclosedBracket],
    );
    check("{\"a\":", "{\"a\":null}", &[UnclosedBracket]);
    check("{\"a\": ", "{\"a\":null}", &[UnclosedBracket]);
    check("{\"a\"", "{\"a\":null}", &[UnclosedBracket]);
    check("{\"ab", "{\"ab\":null}", &[UnclosedString, UnclosedBracket]);
    check(
        "{\"a\": [1, {\"b\": 2",
        "{\"a\": [1, {\"b\": 2}]}",
        &[UnclosedBracket],
    );
    check(
        "{\"a\": 1,\n",
        "{\"a\": 1}",
        &[TrailingComma, UnclosedBracket],
    );
    check(
        "[\"abc\\",
        "[\"abc\\\\\"]",
        &[InvalidEscape, UnclosedString, UnclosedBracket],
    );
}

#[test]
fn lone_openers() {
    check("{", "{}", &[UnclosedBracket]);
    check("[", "[]", &[UnclosedBracket]);
    check("[[{", "[[{}]]", &[UnclosedBracket]);
}

#[test]
fn combination() {
    let reply = "Here is the data you asked for:\n\n```json\n{\n  'name': 'Ada',\n  'langs': ['en', 'fr',],  // spoken\n  'active': True,\n}\n```\n\nLet me know!";
    check(
        reply,
        "{\n  \"name\": \"Ada\",\n  \"langs\": [\"en\", \"fr\"],\n  \"active\": true\n}",
        &[
            CodeFence,
            SurroundingProse,
            SingleQuotes,
            TrailingComma,
            Comment,
            PythonLiteral,
        ],
    );
}

#[test]
fn fixes_are_listed_once_in_first_applied_order() {
    check(
        "{'a': 1, b: 2, 'c': 3,}",
        "{\"a\": 1, \"b\": 2, \"c\": 3}",
        &[SingleQuotes, UnquotedKey, TrailingComma],
    );
    check(
        "{b: 2, 'a': [1,], c: 'x'}",
        "{\"b\": 2, \"a\": [1], \"c\": \"x\"}",
        &[UnquotedKey, SingleQuotes, TrailingComma],
    );
}

#[test]
fn large_adversarial_inputs_stay_linear() {
    // Each would take minutes if some step rescanned quadratically.
    let n = 200_000;
    let apostrophes = format!("['{}", "' x".repeat(n));
    assert!(repair_json(&apostrophes).is_some());
    let missing_commas = format!("[{}]", "1 ".repeat(n));
    assert!(repair_json(&missing_commas).is_some());
    let blank_after_comma = format!("[1,{}]", " ".repeat(n * 10));
    assert!(repair_json(&blank_after_comma).is_some());
    let comments = format!("[1{}]", " /**/".repeat(n));
    assert!(repair_json(&comments).is_some());
    let brackets_in_prose = format!("{}{{\"a\": 1}}", "{x} [y] ".repeat(n));
    assert_eq!(repair_json(&brackets_in_prose), None);
    let fences = format!("```json\n{}", "``` x ".repeat(n));
    assert_eq!(repair_json(&fences), None);
    let smart = format!("[“{}", "” x ".repeat(n));
    assert!(repair_json(&smart).is_some());
}

#[test]
fn none_cases() {
    none("");
    none("   ");
    none("Sorry, I cannot help with that.");
    none("{a: hello}");
    none("[NaN]");
    none("{\"a\" }");
    none("{\"a\", \"b\": 1}");
    none("[1 ; 2]");
    none("Sure: {\"a\": x}");
}

#[test]
fn formerly_refused_now_repaired() {
    // Before issue 11 these gave None; SPEC section 9 asks for jsonrepair's repertoire.
    check(
        "'just a single-quoted string'",
        "\"just a single-quoted string\"",
        &[SingleQuotes],
    );
    check("[01]", "[\"01\"]", &[LeadingZeros]);
    check("[1-2]", "[\"1-2\"]", &[InvalidNumber]);
    check("{\"a\" \"b\"}", "{\"a\": \"b\"}", &[MissingColon]);
    check("{\"a\": }", "{\"a\": null}", &[MissingValue]);
    check("[1}", "[1]", &[MismatchedBracket]);
}

#[test]
fn deep_nesting_returns_none_without_overflow() {
    none(&"[".repeat(100_000));
    none(&"{\"a\":".repeat(100_000));
    none(&format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)));
    none(&format!("x {}", "[".repeat(128)));
    check(
        &"[".repeat(127),
        &format!("{}{}", "[".repeat(127), "]".repeat(127)),
        &[UnclosedBracket],
    );
}

#[test]
fn fix_names() {
    let names: Vec<&str> = Fix::ALL.iter().map(|f| f.as_str()).collect();
    assert_eq!(
        names,
        [
            "code-fence",
            "surrounding-prose",
            "trailing-comma",
            "single-quotes",
            "smart-quotes",
            "unquoted-key",
            "comment",
            "python-literal",
            "missing-comma",
            "control-character",
            "invalid-escape",
            "unclosed-string",
            "unclosed-bracket",
            "missing-colon",
            "missing-value",
            "unescaped-quote",
            "ellipsis",
            "string-concatenation",
            "function-wrapper",
            "undefined-literal",
            "special-whitespace",
            "backtick-quotes",
            "leading-zeros",
            "number-format",
            "invalid-number",
            "regex-literal",
            "newline-delimited",
            "mismatched-bracket",
            "redundant-bracket",
            "escaped-json",
            "string-encoded-json",
            "unquoted-string",
            "coerce-number",
            "coerce-boolean",
            "coerce-enum",
            "coerce-array",
            "coerce-object",
            "coerce-null",
        ]
    );
    for &fix in Fix::ALL {
        let json = serde_json::to_string(&fix).ok();
        assert_eq!(json, Some(format!("\"{}\"", fix.as_str())));
        let back: Option<Fix> = serde_json::from_str(&format!("\"{}\"", fix.as_str())).ok();
        assert_eq!(back, Some(fix));
    }
}

#[test]
fn strict_check_matches_value() {
    for input in [
        "1e400",
        "[1e400]",
        "\"\\uD800\"",
        "-0",
        "1E-400",
        "[1,]",
        " 1 ",
        "\"\u{7f}\"",
        "18446744073709551616",
        "-9223372036854775809",
    ] {
        assert_eq!(
            is_strict_json(input),
            serde_json::from_str::<Value>(input).is_ok(),
            "{input:?}"
        );
    }
}

#[test]
fn unicode_everywhere_never_panics() {
    for input in [
        "é{",
        "{é",
        "{\"é",
        "[“",
        "[‘",
        "{“a",
        "[’",
        "[\u{2028}]",
        "{ключ",
        "[😀]",
        "{😀: 1}",
        "[\"\\é\"]",
        "['\\😀']",
        "“",
        "\u{feff}{\"a\":1}",
        "[1,“",
        "{'a\u{e2}",
        "[\u{201c}\u{80}",
    ] {
        if let Some(r) = repair_json(input) {
            assert!(
                serde_json::from_str::<Value>(&r.text).is_ok(),
                "{input:?} -> {r:?}"
            );
        }
    }
}

// proptest is a native-only dev-dependency.
#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Characters that stress the scanner inside strings.
    fn tricky_char() -> impl Strategy<Value = char> + Clone {
        prop_oneof![
            3 => any::<char>(),
            3 => prop::sample::select(vec![
                '"', '\'', '\\', '/', '*', '\n', '\t', '\r', '\u{0}', '\u{8}', '\u{c}', '\u{1f}',
                '\u{7f}', '“', '”', '‘', '’', '{', '}', '[', ']', ',', ':', '`', 'é', '😀', ' ',
            ]),
            2 => prop::char::range('a', 'z'),
        ]
    }

    fn json_string() -> impl Strategy<Value = String> + Clone {
        prop::collection::vec(tricky_char(), 0..12).prop_map(String::from_iter)
    }

    fn json_value() -> impl Strategy<Value = Value> {
        crate::testing::json_value(json_string())
    }

    /// JSON-ish fragments, so random text reaches deep scanner states.
    fn jsonish_text() -> impl Strategy<Value = String> {
        crate::testing::jsonish_text(&[], 40)
    }

    /// Asserts the contract every output must meet.
    fn assert_sound(input: &str) -> Result<(), TestCaseError> {
        if let Some(r) = repair_json(input) {
            prop_assert!(
                serde_json::from_str::<Value>(&r.text).is_ok(),
                "not strict: {:?} -> {:?}",
                input,
                r.text
            );
            let mut seen = std::collections::HashSet::new();
            prop_assert!(r.fixes.iter().all(|f| seen.insert(*f)), "duplicate fix");
            if r.fixes.is_empty() {
                prop_assert_eq!(&r.text, input);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn serialised_values_are_unchanged(value in json_value()) {
            for text in [
                serde_json::to_string(&value).unwrap_or_default(),
                serde_json::to_string_pretty(&value).unwrap_or_default(),
            ] {
                prop_assert_eq!(
                    repair_json(&text),
                    Some(Repaired { text: text.clone(), fixes: vec![] })
                );
            }
        }

        #[test]
        fn arbitrary_strings_are_sound(input in any::<String>()) {
            assert_sound(&input)?;
        }

        #[test]
        fn jsonish_strings_are_sound(input in jsonish_text()) {
            assert_sound(&input)?;
        }

        #[test]
        fn damaged_values_are_sound(
            value in json_value(),
            cut in any::<prop::sample::Index>(),
            at in any::<prop::sample::Index>(),
            insert in tricky_char(),
        ) {
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            let chars: Vec<char> = text.chars().collect();
            // Truncated, as a model cut off by its token limit.
            let truncated: String = chars[..cut.index(chars.len() + 1)].iter().collect();
            assert_sound(&truncated)?;
            // One character inserted or removed somewhere.
            let i = at.index(chars.len() + 1);
            let mut inserted = chars.clone();
            inserted.insert(i, insert);
            assert_sound(&inserted.iter().collect::<String>())?;
            if i < chars.len() {
                let mut removed = chars;
                removed.remove(i);
                assert_sound(&removed.iter().collect::<String>())?;
            }
        }

        #[test]
        fn truncated_containers_are_repaired(value in json_value(), cut in any::<prop::sample::Index>()) {
            // A serialised container cut anywhere (as by a token limit)
            // still gives a result, unless the cut falls inside a bare
            // literal or a number's sign, fraction or exponent, which the
            // scanner does not guess the rest of.
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            let chars: Vec<char> = text.chars().collect();
            let prefix: String = chars[..cut.index(chars.len()).max(1)].iter().collect();
            let guess_needed = prefix
                .trim_end()
                .ends_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '-' | '+' | '.'));
            if (text.starts_with('{') || text.starts_with('[')) && !guess_needed {
                let repaired = repair_json(&prefix);
                prop_assert!(repaired.is_some(), "{:?}", prefix);
            }
        }
    }
}

// ---------- the repertoire of issue 11 (SPEC section 9), one test per kind ----------

#[test]
fn missing_colon_and_value() {
    check("{\"a\" 1}", "{\"a\": 1}", &[MissingColon]);
    check("{'a' 'b'}", "{\"a\": \"b\"}", &[SingleQuotes, MissingColon]);
    check("{\"a\":,\"b\":2}", "{\"a\":null,\"b\":2}", &[MissingValue]);
    check("{\"a\": }", "{\"a\": null}", &[MissingValue]);
    none("{\"a\", \"b\": 1}");
}

#[test]
fn unescaped_quotes_stay_content() {
    check(
        "{\"a\": \"5\" tall\", \"b\": 1}",
        "{\"a\": \"5\\\" tall\", \"b\": 1}",
        &[UnescapedQuote],
    );
    check(
        "[\"He is (72\") tall\"]",
        "[\"He is (72\\\") tall\"]",
        &[UnescapedQuote],
    );
    // A quote before a closer ends the string unless the string opened that bracket and
    // another quote follows on the line.
    check("[\"a\" 2]", "[\"a\", 2]", &[MissingComma]);
}

#[test]
fn strings_closed_where_their_quote_was_left_out() {
    check(
        "{\"time\":\"12:20}",
        "{\"time\":\"12:20\"}",
        &[UnclosedString],
    );
    check(
        "{\"a\":\"b,\"c\":\"d\"}",
        "{\"a\":\"b\",\"c\":\"d\"}",
        &[UnclosedString],
    );
    check(
        "[\n\"abc,\n\"def\"\n]",
        "[\n\"abc\",\n\"def\"\n]",
        &[UnclosedString],
    );
}

#[test]
fn ellipsis() {
    check("[1, 2, ...]", "[1, 2]", &[Ellipsis, TrailingComma]);
    check("[1,...,9]", "[1,9]", &[Ellipsis]);
    check("{\"a\": 1, …}", "{\"a\": 1}", &[Ellipsis, TrailingComma]);
}

#[test]
fn string_concatenation() {
    check("[\"a\" + \"b\"]", "[\"ab\"]", &[StringConcatenation]);
    check(
        "{\"g\": 'hello' +\n 'world'}",
        "{\"g\": \"helloworld\"}",
        &[SingleQuotes, StringConcatenation],
    );
}

#[test]
fn function_wrappers() {
    check("callback_1({\"a\": 1});", "{\"a\": 1}", &[FunctionWrapper]);
    check(
        "{\"_id\": ObjectId(\"6f\"), \"n\": NumberLong(2)}",
        "{\"_id\": \"6f\", \"n\": 2}",
        &[FunctionWrapper],
    );
    check(
        "{\"d\": Decimal('1.5')}",
        "{\"d\": \"1.5\"}",
        &[FunctionWrapper, SingleQuotes],
    );
    none("[f(1, 2)]");
}

#[test]
fn undefined_and_special_whitespace() {
    check("[undefined]", "[null]", &[UndefinedLiteral]);
    check(
        "{\"a\":\u{a0}1,\u{3000}\"b\":2}",
        "{\"a\": 1, \"b\":2}",
        &[SpecialWhitespace],
    );
}

#[test]
fn backtick_quotes() {
    check("{`a`: `b`}", "{\"a\": \"b\"}", &[BacktickQuotes]);
}

#[test]
fn numbers() {
    check("[0789]", "[\"0789\"]", &[LeadingZeros]);
    check("[.5, 2., 3e]", "[0.5, 2.0, 3e0]", &[NumberFormat]);
    check("[0.0.1]", "[\"0.0.1\"]", &[InvalidNumber]);
    check(
        "{\"at\": 2024-10-18T18:35:22Z}",
        "{\"at\": \"2024-10-18T18:35:22Z\"}",
        &[InvalidNumber],
    );
    none("[-]");
    none("[.]");
}

#[test]
fn regex_literal() {
    check("{\"r\": /a+b/}", "{\"r\": \"/a+b/\"}", &[RegexLiteral]);
}

#[test]
fn brackets() {
    check("{\"a\": 2]", "{\"a\": 2}", &[MismatchedBracket]);
    check(
        "{\"a\": [1}, \"b\": 2}",
        "{\"a\": [1], \"b\": 2}",
        &[MismatchedBracket],
    );
    check("{\"a\": 1}}", "{\"a\": 1}", &[RedundantBracket]);
    check(
        "[{\"i\":1{\"i\":2}]",
        "[{\"i\":1},{\"i\":2}]",
        &[UnclosedBracket, MissingComma],
    );
}

#[test]
fn closers_before_more_members_of_the_outermost_object_close_nothing() {
    // They ended the value, and the members after them were dropped as prose.
    check(
        r#"{"a": 1, "b": [{"c": 2}}], "d": 3}"#,
        r#"{"a": 1, "b": [{"c": 2}], "d": 3}"#,
        &[MismatchedBracket, RedundantBracket],
    );
    check(
        r#"{"a": ["en"]], "b": 2}"#,
        r#"{"a": ["en"], "b": 2}"#,
        &[RedundantBracket],
    );
    check(
        r#"{"a": {"b": 1}}}, "c": 2}"#,
        r#"{"a": {"b": 1}, "c": 2}"#,
        &[RedundantBracket],
    );
    check(
        r#"{"a": {"b": 1}}}}, 'c': 2}"#,
        r#"{"a": {"b": 1}, "c": 2}"#,
        &[RedundantBracket, SingleQuotes],
    );
    check(
        r#"{"a": 1,}, "b": 2}"#,
        r#"{"a": 1, "b": 2}"#,
        &[TrailingComma, RedundantBracket],
    );
    // Inside the value a closer closes the innermost container, as before: the container around
    // it could take what follows as well.
    check("[[1}]", "[[1]]", &[MismatchedBracket]);
    check(
        r#"{"x": {"a": 1], "b": 2}"#,
        r#"{"x": {"a": 1}, "b": 2}"#,
        &[MismatchedBracket],
    );
    // Members after an array, or after an object in an array (a `{` missing, or a `}` too many):
    // not repaired.
    none(r#"[1, 2], "b": 3}"#);
    none(r#"[{"a": 1}, "b": 2}]"#);
    // A word and a colon after the value are prose.
    check(
        r#"{"a": 1}, note: see above"#,
        r#"{"a": 1}"#,
        &[SurroundingProse],
    );
    // A closer dropped after a trailing comma leaves the last value complete, so the next one
    // gets its comma; between the values of a sequence too (the second value was lost).
    check(
        "{\"a\":1},}\n{\"b\":2}",
        "[{\"a\":1},\n{\"b\":2}]",
        &[
            TrailingComma,
            RedundantBracket,
            MissingComma,
            NewlineDelimited,
        ],
    );
}

#[test]
fn a_closer_of_the_wrong_kind_before_the_containers_own_closes_nothing() {
    // It closed the array, the array's `]` closed "x", and "d" went one level up (before:
    // {"x": {"b": [{"c": 2}]}, "d": 3}, mismatched-bracket and redundant-bracket).
    check(
        r#"{"x": {"b": [{"c": 2}}], "d": 3}}"#,
        r#"{"x": {"b": [{"c": 2}], "d": 3}}"#,
        &[RedundantBracket],
    );
    check(
        "{\"x\": {\"y\": {\"a\": 1]\n}, \"b\": 2}}",
        "{\"x\": {\"y\": {\"a\": 1\n}, \"b\": 2}}",
        &[RedundantBracket],
    );
    check("[{\"c\": 2}}]", "[{\"c\": 2}]", &[RedundantBracket]);
    check("[[1}], 2]", "[[1], 2]", &[RedundantBracket]);
    // When the closers after it leave a container open, the two were swapped: read as before.
    check(
        r#"{"x": {"b": [{"c": 2}}], "d": 3}"#,
        r#"{"x": {"b": [{"c": 2}]}, "d": 3}"#,
        &[MismatchedBracket],
    );
    check("{\"a\": [1}]", "{\"a\": [1]}", &[MismatchedBracket]);
    check(
        r#"{"x": [[1}], "y": 2}"#,
        r#"{"x": [[1]], "y": 2}"#,
        &[MismatchedBracket],
    );
    // Dropped in many values of a sequence, it nested each in the one before past MAX_DEPTH.
    let many = "[[1}]\n".repeat(200);
    let got = repair_json(&many).map(|r| r.fixes);
    assert_eq!(
        got,
        Some(vec![MismatchedBracket, MissingComma, NewlineDelimited])
    );
}

#[test]
fn newline_delimited() {
    check("1\n2", "[1,\n2]", &[MissingComma, NewlineDelimited]);
    check(
        "{}\n{},\n{}",
        "[{},\n{},\n{}]",
        &[MissingComma, NewlineDelimited],
    );
    // On one line, values need a comma: `{"a":1} {"b":2}` is prose around the first.
    check("{\"a\":1} {\"b\":2}", "{\"a\":1}", &[SurroundingProse]);
}

#[test]
fn escaped_json() {
    check("{\\\"a\\\": 1}", "{\"a\": 1}", &[EscapedJson]);
    check("\\\"text\\\"", "\"text\"", &[EscapedJson]);
}

/// Every candidate of `text` with bare words allowed: its text and the paths of its words.
fn candidates_with_words(text: &str) -> Vec<(String, Vec<Vec<PathSeg>>)> {
    let mut all = Vec::new();
    let search = each_candidate(text, true, &mut |c| {
        all.push((c.text, c.bare_words.paths()));
        Verdict::Next
    });
    assert_eq!(search, Ok(()));
    all
}

#[test]
fn bare_word_paths_share_their_ancestors() {
    // 5,000 words under a 100,000-character key: each path was a decoded copy of the key (1 GB
    // in wasm; three times that trapped the instance), and each check hashed it again.
    let key = "k".repeat(100_000);
    let n = 5_000;
    let text = format!("{{\"{key}\": [{}a]}}", "a,".repeat(n - 1));
    let mut first = None;
    let search = each_candidate(&text, true, &mut |c| {
        first.get_or_insert(c);
        Verdict::Stop
    });
    assert_eq!(search, Ok(()));
    let first = first.unwrap();
    assert_eq!(
        first.text,
        format!("{{\"{key}\": [{}\"a\"]}}", "\"a\",".repeat(n - 1))
    );
    assert_eq!(first.fixes.into_vec(), vec![UnquotedString]);
    let words = &first.bare_words;
    assert_eq!(words.len(), n);
    // The key once, then an index per word.
    assert_eq!(words.steps(), n + 1);
    let paths = words.paths();
    let at = |i| vec![PathSeg::Key(key.clone()), PathSeg::Index(i)];
    assert_eq!(paths.first(), Some(&at(0)));
    assert_eq!(paths.last(), Some(&at(n - 1)));
    // The check takes each step once: the key, then each index.
    let mut taken = 0;
    let fit = words.all_fit(
        0,
        |depth, _| {
            taken += 1;
            depth + 1
        },
        |&depth| depth == 2,
    );
    assert!(fit);
    assert_eq!(taken, n + 1);
}

#[test]
fn each_element_of_a_sequence_gets_its_own_bare_words() {
    let key = |k: &str| PathSeg::Key(k.to_owned());
    let found = candidates_with_words("x\n[1]\n{a: [y, z]}\nw");
    let paths = |i: usize| found.get(i).map(|(_, p)| p.clone()).unwrap();
    // The sequence, each of its four values, then (as it needed bare words) the values in it.
    assert_eq!(found.len(), 7);
    assert_eq!(
        paths(0),
        vec![
            vec![PathSeg::Index(0)],
            vec![PathSeg::Index(2), key("a"), PathSeg::Index(0)],
            vec![PathSeg::Index(2), key("a"), PathSeg::Index(1)],
            vec![PathSeg::Index(3)],
        ]
    );
    assert_eq!(paths(1), vec![Vec::<PathSeg>::new()]);
    assert_eq!(paths(2), Vec::<Vec<PathSeg>>::new());
    assert_eq!(
        paths(3),
        vec![
            vec![key("a"), PathSeg::Index(0)],
            vec![key("a"), PathSeg::Index(1)]
        ]
    );
    assert_eq!(paths(4), vec![Vec::<PathSeg>::new()]);
    assert_eq!(paths(6), paths(3));
    // Many words, then many values without any: each value's words are found without looking
    // through all the words again (10,000 x 1,000,000 looks took seconds).
    let (words, values) = (2_000, 200_000);
    let text = format!("{}{}", "x\n".repeat(words), "[,]\n".repeat(values));
    let found = candidates_with_words(&text);
    // The sequence, its values, then the first of its `[,]` on their own.
    assert_eq!(found.len(), 1 + words + values + MAX_CANDIDATES);
    let (all, rest) = found.split_first().unwrap();
    assert_eq!(all.1.len(), words);
    assert_eq!(all.1.last(), Some(&vec![PathSeg::Index(words - 1)]));
    assert!(rest
        .iter()
        .take(words)
        .all(|(t, p)| t == "\"x\"" && p.len() == 1));
    assert!(rest
        .iter()
        .skip(words)
        .all(|(t, p)| t == "[]" && p.is_empty()));
}

/// Texts whose cuts exercise every corner of the outside rules: comments of both kinds, cut
/// anywhere, a lone slash, blanks, fences, brackets before a fence.
const OUTSIDE: [&str; 10] = [
    "  /* a */ // b\n  x",
    "/",
    "//",
    "/*/ */ */",
    " /* ``` */ \n```\n```/*\n```\n*/ ",
    "\t[ \n ```json\n[1]\n```",
    "{```json",
    " [ x ```",
    "/**/```\n// c\n```\n",
    "\u{a0}[\u{2003}```",
];

#[test]
fn what_lies_around_a_region_is_read_once_with_the_same_answers() {
    for text in OUTSIDE {
        let bytes = text.as_bytes();
        // Dropping the text before or after a cut counts as a fix exactly when it holds
        // something but blanks: the first and last non-blank tell.
        let (first, last) = regions::non_blank_span(bytes);
        for at in 0..=bytes.len() {
            let before = bytes.get(..at).and_then(regions::outside_fix);
            let after = bytes.get(at..).and_then(regions::outside_fix);
            assert_eq!(before.is_some(), first < at, "{text:?} before {at}");
            assert_eq!(after.is_some(), at < last, "{text:?} after {at}");
        }
        // A fence typed after the bracket that opens the text, as trimming found it.
        for (at, _) in text.match_indices("```") {
            let trimmed = text.get(..at).map(str::trim);
            assert_eq!(
                regions::fence_after_bracket(text) == Some(at),
                matches!(trimmed, Some("[" | "{")),
                "{text:?} at {at}"
            );
        }
    }
    // 1,000 fences after 100,000 blanks: each fence trimmed the blanks again, each region read
    // them again (1,000 after 1,000,000 took 1.5 s in wasm).
    let blanks = " ".repeat(100_000);
    assert_eq!(
        repair_json(&format!("{blanks}{}", "```\n".repeat(1_000))),
        None
    );
    let fences = repair_json(&format!("{blanks}{}", "```\n[1,]\n```\n".repeat(1_000)));
    assert_eq!(
        fences,
        Some(Repaired {
            text: "[1]".to_owned(),
            fixes: vec![CodeFence, SurroundingProse, TrailingComma]
        })
    );
    // Comments before or after each region, running over the fences (20,000 of the first took
    // 2.5 s).
    let commented = "/* ```\n```/* */ ".repeat(20_000);
    assert_eq!(repair_json(&commented), None);
    let commented = format!("{}*/", "```\n```/*\n".repeat(20_000));
    assert_eq!(repair_json(&commented), None);
    let bracketed = repair_json(&format!("{blanks}[{blanks}```json\n[1]"));
    assert_eq!(
        bracketed,
        Some(Repaired {
            text: "[1]".to_owned(),
            fixes: vec![CodeFence, SurroundingProse]
        })
    );
}

#[test]
fn what_follows_a_fence_is_read_once_with_the_same_answers() {
    // A fence closes before a final bracket with only blanks between, as trimming found it.
    for text in OUTSIDE.iter().chain(&[
        "```json\n{\"a\": 1}```  }  \n",
        "x ```\u{2003}]\u{a0}",
        "``` ] ```]",
        "```}",
        "]```",
    ]) {
        let closer = regions::final_closer(text);
        for (at, _) in text.match_indices("```") {
            let fwd = at + text[at..].len() - text[at..].trim_start_matches('`').len();
            let rest = text[fwd..].trim_start_matches([' ', '\t']);
            let fwd = text.len() - rest.len();
            let between = closer.and_then(|q| text.get(fwd..q));
            assert_eq!(
                between.is_some_and(|b| b.trim_start().is_empty()),
                matches!(rest.trim(), "]" | "}"),
                "{text:?} at {at}"
            );
        }
    }
    // 2,000 fences the blanks at the end follow: each fence trimmed them again (1,000,000
    // blanks took 1.6 s in wasm).
    let blanks = " ".repeat(100_000);
    assert_eq!(
        repair_json(&format!("```\n{}{blanks}", "a```".repeat(2_000))),
        None
    );
    let glued = repair_json(&format!(
        "```\n{}[1,]```{blanks}]{blanks}",
        "a```".repeat(2_000)
    ));
    assert_eq!(
        glued,
        Some(Repaired {
            text: "[1]".to_owned(),
            fixes: vec![CodeFence, SurroundingProse, TrailingComma]
        })
    );
}

#[test]
fn fences_inside_strings_are_passed_once() {
    // 20,000 strings, each holding fence lines, in one value: each string is passed once.
    let member = "\"k\": \"a\n```\n```\n```\nb\"";
    let text = format!("{{{}}}", [member; 20_000].join(", "));
    let repaired = repair_json(&text).map(|r| r.fixes);
    assert_eq!(repaired, Some(vec![ControlCharacter]));
}

#[test]
fn a_comment_takes_back_only_the_blanks_before_it() {
    check("[1\u{a0} /**/ ]", "[1  ]", &[SpecialWhitespace, Comment]);
    check(
        "[1 \u{a0}\t/**/\u{a0}// c\n]",
        "[1   \n]",
        &[SpecialWhitespace, Comment],
    );
    // The spaces written for no-break spaces stay, and each comment read them all again
    // (80,000 took 2.3 s in wasm).
    let n = 50_000;
    let repaired = repair_json(&format!("[1{}]", "\u{a0}/**/".repeat(n)));
    assert_eq!(
        repaired,
        Some(Repaired {
            text: format!("[1{}]", " ".repeat(n)),
            fixes: vec![SpecialWhitespace, Comment]
        })
    );
}

#[test]
fn the_brackets_of_a_string_are_counted_once_for_all_its_quotes() {
    // A quote before a closer is content while the string opened that bracket and another quote
    // follows on the line; each such quote counted the string's brackets from its start again
    // (40,000 lines took 2.6 s in wasm).
    let n = 20_000;
    for (open, close) in [('[', ']'), ('{', '}'), ('(', ')')] {
        let line = format!("\"{close}{open}{open}a\"x\n");
        let input = format!("{{a:\"{open}a{}\"}}", line.repeat(n));
        let line = format!("\\\"{close}{open}{open}a\\\"x\\n");
        let text = format!("{{\"a\":\"{open}a{}\"}}", line.repeat(n));
        assert_eq!(
            repair_json(&input),
            Some(Repaired {
                text,
                fixes: vec![UnquotedKey, UnescapedQuote, ControlCharacter]
            }),
            "{open}{close}"
        );
    }
    // The count of one string is not another's: `"b"` opened no bracket, so its quote ends it.
    check(
        "[\"a [\", \"b\"] c\"]",
        "[\"a [\", \"b\"]",
        &[SurroundingProse],
    );
}

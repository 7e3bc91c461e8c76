//! What the jsonschema patch (patches/jsonschema/README.md) replaced, held to the answers of what
//! it replaced: `contentEncoding` (drafts 6 and 7 assert it) decoded by the patch's RFC 4648
//! decoder against the `data-encoding` crate that upstream uses.

#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
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
        for doc in [r#"{"a": [1, 2.5, "x"]}"#, "[]", "true", "\"é\"", "{", "\u{0}"] {
            c.check(&encode(encoding, doc.as_bytes()));
        }
        assert!(c.valid > 1000, "{encoding}: only {} valid inputs", c.valid);
        assert!(c.checked - c.valid > 1000, "{encoding}: too few invalid inputs");
    }
}

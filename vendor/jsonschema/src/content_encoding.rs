// `pub` only for the `__private` re-export consumed by generated code.
#![allow(clippy::must_use_candidate, clippy::missing_errors_doc)]

use crate::error::ValidationError;
use ahash::AHashMap;
use rfc4648::{BASE32, BASE32HEX, BASE64, BASE64URL, HEXUPPER};
use std::sync::LazyLock;

pub(crate) type ContentEncodingCheckType = fn(&str) -> bool;
pub(crate) type ContentEncodingConverterType =
    fn(&str) -> Result<Option<String>, ValidationError<'static>>;

// RFC 4648 §4: Base 64 Encoding
// https://datatracker.ietf.org/doc/html/rfc4648#section-4
pub fn is_base64(instance_string: &str) -> bool {
    BASE64.decode(instance_string.as_bytes()).is_ok()
}

pub fn from_base64(instance_string: &str) -> Result<Option<String>, ValidationError<'static>> {
    match BASE64.decode(instance_string.as_bytes()) {
        Ok(value) => Ok(Some(String::from_utf8(value)?)),
        Err(_) => Ok(None),
    }
}

// RFC 4648 §5: Base 64 Encoding with URL and Filename Safe Alphabet
// https://datatracker.ietf.org/doc/html/rfc4648#section-5
pub fn is_base64url(instance_string: &str) -> bool {
    BASE64URL.decode(instance_string.as_bytes()).is_ok()
}

pub fn from_base64url(instance_string: &str) -> Result<Option<String>, ValidationError<'static>> {
    match BASE64URL.decode(instance_string.as_bytes()) {
        Ok(value) => Ok(Some(String::from_utf8(value)?)),
        Err(_) => Ok(None),
    }
}

// RFC 4648 §6: Base 32 Encoding
// https://datatracker.ietf.org/doc/html/rfc4648#section-6
pub fn is_base32(instance_string: &str) -> bool {
    BASE32.decode(instance_string.as_bytes()).is_ok()
}

pub fn from_base32(instance_string: &str) -> Result<Option<String>, ValidationError<'static>> {
    match BASE32.decode(instance_string.as_bytes()) {
        Ok(value) => Ok(Some(String::from_utf8(value)?)),
        Err(_) => Ok(None),
    }
}

// RFC 4648 §7: Base 32 Encoding with Extended Hex Alphabet
// https://datatracker.ietf.org/doc/html/rfc4648#section-7
pub fn is_base32hex(instance_string: &str) -> bool {
    BASE32HEX.decode(instance_string.as_bytes()).is_ok()
}

pub fn from_base32hex(instance_string: &str) -> Result<Option<String>, ValidationError<'static>> {
    match BASE32HEX.decode(instance_string.as_bytes()) {
        Ok(value) => Ok(Some(String::from_utf8(value)?)),
        Err(_) => Ok(None),
    }
}

// RFC 4648 §8: Base 16 Encoding
// https://datatracker.ietf.org/doc/html/rfc4648#section-8
pub fn is_base16(instance_string: &str) -> bool {
    HEXUPPER.decode(instance_string.as_bytes()).is_ok()
        || HEXUPPER
            .decode(instance_string.to_uppercase().as_bytes())
            .is_ok()
}

pub fn from_base16(instance_string: &str) -> Result<Option<String>, ValidationError<'static>> {
    // Base16 is case-insensitive per RFC 4648
    let result = HEXUPPER
        .decode(instance_string.as_bytes())
        .or_else(|_| HEXUPPER.decode(instance_string.to_uppercase().as_bytes()));
    match result {
        Ok(value) => Ok(Some(String::from_utf8(value)?)),
        Err(_) => Ok(None),
    }
}

/// selfheal patch: RFC 4648 decoding exactly as `data-encoding`'s `BASE64`, `BASE64URL`, `BASE32`,
/// `BASE32HEX` and `HEXUPPER` constants decode (strict: padding required where the encoding has
/// it, a padded block may end any group of blocks, non-zero trailing bits rejected, nothing
/// ignored). `data-encoding`'s generic decoder was 32 KB of the selfheal `.wasm`; this is a few
/// hundred bytes. selfheal's tests/jsonschema_patch.rs holds the two to the same answers.
mod rfc4648 {
    #[derive(Clone, Copy)]
    enum Alphabet {
        Base64,
        Base64Url,
        Base32,
        Base32Hex,
        HexUpper,
    }

    pub(crate) struct Encoding(Alphabet);

    pub(crate) const BASE64: Encoding = Encoding(Alphabet::Base64);
    pub(crate) const BASE64URL: Encoding = Encoding(Alphabet::Base64Url);
    pub(crate) const BASE32: Encoding = Encoding(Alphabet::Base32);
    pub(crate) const BASE32HEX: Encoding = Encoding(Alphabet::Base32Hex);
    pub(crate) const HEXUPPER: Encoding = Encoding(Alphabet::HexUpper);

    /// The input is not in the encoding.
    #[derive(Debug)]
    pub(crate) struct Invalid;

    impl Encoding {
        /// Bits per symbol, and symbols per padded block (`None`: no padding).
        fn shape(&self) -> (usize, Option<usize>) {
            match self.0 {
                Alphabet::Base64 | Alphabet::Base64Url => (6, Some(4)),
                Alphabet::Base32 | Alphabet::Base32Hex => (5, Some(8)),
                Alphabet::HexUpper => (4, None),
            }
        }

        fn value(&self, c: u8) -> Option<u32> {
            let v = match (self.0, c) {
                (Alphabet::Base64 | Alphabet::Base64Url, b'A'..=b'Z') => c - b'A',
                (Alphabet::Base64 | Alphabet::Base64Url, b'a'..=b'z') => c - b'a' + 26,
                (Alphabet::Base64 | Alphabet::Base64Url, b'0'..=b'9') => c - b'0' + 52,
                (Alphabet::Base64, b'+') | (Alphabet::Base64Url, b'-') => 62,
                (Alphabet::Base64, b'/') | (Alphabet::Base64Url, b'_') => 63,
                (Alphabet::Base32, b'A'..=b'Z') => c - b'A',
                (Alphabet::Base32, b'2'..=b'7') => c - b'2' + 26,
                (Alphabet::Base32Hex | Alphabet::HexUpper, b'0'..=b'9') => c - b'0',
                (Alphabet::Base32Hex, b'A'..=b'V') | (Alphabet::HexUpper, b'A'..=b'F') => {
                    c - b'A' + 10
                }
                _ => return None,
            };
            Some(u32::from(v))
        }

        /// Whether `len` symbols end on a whole byte, give or take fewer bits than one symbol.
        fn whole(bits: usize, len: usize) -> bool {
            bits * len % 8 < bits
        }

        /// Append the bytes of `symbols` (no padding) to `out`; the bits left over must be zero.
        fn symbols(&self, bits: usize, symbols: &[u8], out: &mut Vec<u8>) -> Result<(), Invalid> {
            let mut acc: u32 = 0;
            let mut held = 0;
            for &c in symbols {
                acc = (acc << bits) | self.value(c).ok_or(Invalid)?;
                held += bits;
                if held >= 8 {
                    held -= 8;
                    out.push((acc >> held) as u8);
                    acc &= (1 << held) - 1;
                }
            }
            if acc == 0 {
                Ok(())
            } else {
                Err(Invalid)
            }
        }

        pub(crate) fn decode(&self, input: &[u8]) -> Result<Vec<u8>, Invalid> {
            let (bits, block) = self.shape();
            let mut out = Vec::with_capacity(input.len() * bits / 8);
            match block {
                None => {
                    if !Self::whole(bits, input.len()) {
                        return Err(Invalid);
                    }
                    self.symbols(bits, input, &mut out)?;
                }
                Some(block) => {
                    if input.len() % block != 0 {
                        return Err(Invalid);
                    }
                    for chunk in input.chunks(block) {
                        let pads = chunk.iter().rev().take_while(|&&c| c == b'=').count();
                        let len = block - pads;
                        if len == 0 || !Self::whole(bits, len) {
                            return Err(Invalid);
                        }
                        self.symbols(bits, chunk.get(..len).ok_or(Invalid)?, &mut out)?;
                    }
                }
            }
            Ok(out)
        }
    }
}

// Supported in JSON Schema Draft 6, 7, 2019-09, and 2020-12
// Per JSON Schema Validation spec §8.3, encoding values are defined in:
// - RFC 4648 (base16, base32, base32hex, base64, base64url)
// - RFC 2045 §6.7-6.8 (quoted-printable, 7bit, 8bit, binary)
// We implement the RFC 4648 encodings as they are transformation encodings.
pub(crate) static DEFAULT_CONTENT_ENCODING_CHECKS_AND_CONVERTERS: LazyLock<
    AHashMap<&'static str, (ContentEncodingCheckType, ContentEncodingConverterType)>,
> = LazyLock::new(|| {
    let mut map: AHashMap<&'static str, (ContentEncodingCheckType, ContentEncodingConverterType)> =
        AHashMap::with_capacity(5);
    map.insert("base64", (is_base64, from_base64));
    map.insert("base64url", (is_base64url, from_base64url));
    map.insert("base32", (is_base32, from_base32));
    map.insert("base32hex", (is_base32hex, from_base32hex));
    map.insert("base16", (is_base16, from_base16));
    map
});

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    // Test string: "foobar"
    const TEST_STRING: &str = "foobar";
    const TEST_BASE64: &str = "Zm9vYmFy";
    const TEST_BASE64URL: &str = "Zm9vYmFy"; // same as base64 for "foobar" (no +/)
    const TEST_BASE32: &str = "MZXW6YTBOI======";
    const TEST_BASE32HEX: &str = "CPNMUOJ1E8======";
    const TEST_BASE16_UPPER: &str = "666F6F626172";
    const TEST_BASE16_LOWER: &str = "666f6f626172";
    const TEST_BASE16_MIXED: &str = "666F6f626172";

    #[test_case(TEST_BASE64, true ; "valid base64")]
    #[test_case("not valid base64!!!", false ; "invalid base64 with special chars")]
    #[test_case("Zm9v====", false ; "invalid base64 padding")]
    fn test_is_base64(input: &str, expected: bool) {
        assert_eq!(is_base64(input), expected);
    }

    #[test_case(TEST_BASE64, Some(TEST_STRING) ; "decode valid base64")]
    #[test_case("invalid!", None ; "decode invalid base64")]
    fn test_from_base64(input: &str, expected: Option<&str>) {
        assert_eq!(
            from_base64(input).unwrap(),
            expected.map(std::string::ToString::to_string)
        );
    }

    #[test_case(TEST_BASE64URL, true ; "valid base64url")]
    #[test_case("PDw_Pz4-", true ; "base64url with url safe chars")]
    #[test_case("Zm9v+YmFy", false ; "base64 plus char invalid in base64url")]
    #[test_case("Zm9v/YmFy", false ; "base64 slash char invalid in base64url")]
    fn test_is_base64url(input: &str, expected: bool) {
        assert_eq!(is_base64url(input), expected);
    }

    #[test_case(TEST_BASE64URL, Some(TEST_STRING) ; "decode valid base64url")]
    #[test_case("invalid!", None ; "decode invalid base64url")]
    fn test_from_base64url(input: &str, expected: Option<&str>) {
        assert_eq!(
            from_base64url(input).unwrap(),
            expected.map(std::string::ToString::to_string)
        );
    }

    #[test_case(TEST_BASE32, true ; "valid base32")]
    #[test_case("not valid", false ; "invalid base32 text")]
    #[test_case("189", false ; "base32 invalid chars 1,8,9")]
    fn test_is_base32(input: &str, expected: bool) {
        assert_eq!(is_base32(input), expected);
    }

    #[test_case(TEST_BASE32, Some(TEST_STRING) ; "decode valid base32")]
    #[test_case("189!!!", None ; "decode invalid base32")]
    fn test_from_base32(input: &str, expected: Option<&str>) {
        assert_eq!(
            from_base32(input).unwrap(),
            expected.map(std::string::ToString::to_string)
        );
    }

    #[test_case(TEST_BASE32HEX, true ; "valid base32hex")]
    #[test_case("not valid", false ; "invalid base32hex text")]
    #[test_case("XYZ", false ; "base32hex invalid chars X,Y,Z")]
    fn test_is_base32hex(input: &str, expected: bool) {
        assert_eq!(is_base32hex(input), expected);
    }

    #[test_case(TEST_BASE32HEX, Some(TEST_STRING) ; "decode valid base32hex")]
    #[test_case("XYZ!!!", None ; "decode invalid base32hex")]
    fn test_from_base32hex(input: &str, expected: Option<&str>) {
        assert_eq!(
            from_base32hex(input).unwrap(),
            expected.map(std::string::ToString::to_string)
        );
    }

    #[test_case(TEST_BASE16_UPPER, true ; "valid base16 uppercase")]
    #[test_case(TEST_BASE16_LOWER, true ; "valid base16 lowercase")]
    #[test_case(TEST_BASE16_MIXED, true ; "valid base16 mixed case")]
    #[test_case("not valid", false ; "invalid base16 text")]
    #[test_case("GHIJ", false ; "base16 invalid chars G-J")]
    fn test_is_base16(input: &str, expected: bool) {
        assert_eq!(is_base16(input), expected);
    }

    #[test_case(TEST_BASE16_UPPER, Some(TEST_STRING) ; "decode base16 uppercase")]
    #[test_case(TEST_BASE16_LOWER, Some(TEST_STRING) ; "decode base16 lowercase")]
    #[test_case(TEST_BASE16_MIXED, Some(TEST_STRING) ; "decode base16 mixed")]
    #[test_case("GHIJ", None ; "decode invalid base16")]
    fn test_from_base16(input: &str, expected: Option<&str>) {
        assert_eq!(
            from_base16(input).unwrap(),
            expected.map(std::string::ToString::to_string)
        );
    }
}

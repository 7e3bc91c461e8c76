//! Lexical rules shared by the scanner and the region finder: what counts as blank, a quote,
//! a word. Each rule is a small named function so other readers (the stream reader) can share it.

pub(crate) fn is_json_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

pub(crate) fn is_json_ws_char(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// U+2018..U+201D are encoded `E2 80 98`..`E2 80 9D`; the third byte tells which.
pub(crate) const SMART_LEFT_SINGLE: u8 = 0x98;
pub(crate) const SMART_RIGHT_SINGLE: u8 = 0x99;
pub(crate) const SMART_LEFT_DOUBLE: u8 = 0x9C;
pub(crate) const SMART_RIGHT_DOUBLE: u8 = 0x9D;

/// The smart quote starting at `pos`, if any, as the third byte of its encoding.
pub(crate) fn smart_quote_at(bytes: &[u8], pos: usize) -> Option<u8> {
    match (bytes.get(pos), bytes.get(pos + 1), bytes.get(pos + 2)) {
        (Some(0xE2), Some(0x80), Some(&c))
            if matches!(
                c,
                SMART_LEFT_SINGLE | SMART_RIGHT_SINGLE | SMART_LEFT_DOUBLE | SMART_RIGHT_DOUBLE
            ) =>
        {
            Some(c)
        }
        _ => None,
    }
}

/// Bytes inside a string that need a look: quotes, backslash, control
/// characters, and 0xE2, the lead byte of the smart quotes.
pub(crate) fn is_string_special(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'\'' | 0xE2 | 0x00..=0x1F)
}

pub(crate) fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-')
}

//! Lexical rules of the tolerant reader: what counts as blank, a quote, a word, a delimiter.
//!
//! Each rule is a small named function over bytes, so the scanner, the region finder and the
//! stream reader (`structured::stream`) can share one definition. JSON structure is pure ASCII;
//! the non-ASCII rules (smart quotes, Unicode spaces) match whole UTF-8 sequences and report
//! their length, so a caller never lands inside a character.

/// JSON's own whitespace.
pub(crate) fn is_json_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

pub(crate) fn is_json_ws_char(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Blanks that do not end a line.
pub(crate) fn is_inline_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t')
}

/// The length of a Unicode space at `pos` that models put between tokens (no-break space,
/// Mongolian vowel separator, U+2000..U+200B, narrow no-break space, medium mathematical space,
/// ideographic space, byte order mark), or `None`.
pub(crate) fn special_space_at(bytes: &[u8], pos: usize) -> Option<usize> {
    match (bytes.get(pos)?, bytes.get(pos + 1), bytes.get(pos + 2)) {
        (0xC2, Some(0xA0), _) => Some(2),
        (0xE1, Some(0xA0), Some(0x8E)) => Some(3),
        (0xE2, Some(0x80), Some(0x80..=0x8B | 0xAF)) => Some(3),
        (0xE2, Some(0x81), Some(0x9F)) => Some(3),
        (0xE3, Some(0x80), Some(0x80)) => Some(3),
        (0xEF, Some(0xBB), Some(0xBF)) => Some(3),
        _ => None,
    }
}

/// How a string was opened; decides which characters may close it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Quote {
    /// `"`: the JSON quote; closed by `"` only.
    Double,
    /// `'`: closed by `'` only.
    Single,
    /// `“` or `”` (U+201C/U+201D): closed by either, or by `"`.
    SmartDouble,
    /// `‘` or `’` (U+2018/U+2019): closed by `‘`, `’`, `'`, `` ` `` or `´`.
    SmartSingle,
    /// `` ` `` or `´` (U+00B4): closed like [`Quote::SmartSingle`].
    Backtick,
}

/// The quote character at `pos`, as an opener, and its length in bytes.
pub(crate) fn quote_at(bytes: &[u8], pos: usize) -> Option<(Quote, usize)> {
    match (bytes.get(pos)?, bytes.get(pos + 1), bytes.get(pos + 2)) {
        (b'"', _, _) => Some((Quote::Double, 1)),
        (b'\'', _, _) => Some((Quote::Single, 1)),
        (b'`', _, _) => Some((Quote::Backtick, 1)),
        (0xC2, Some(0xB4), _) => Some((Quote::Backtick, 2)),
        (0xE2, Some(0x80), Some(0x9C | 0x9D)) => Some((Quote::SmartDouble, 3)),
        (0xE2, Some(0x80), Some(0x98 | 0x99)) => Some((Quote::SmartSingle, 3)),
        _ => None,
    }
}

/// Whether the quote character at `pos` can close a string opened with `open`; its length.
pub(crate) fn closer_at(bytes: &[u8], pos: usize, open: Quote) -> Option<usize> {
    let (found, len) = quote_at(bytes, pos)?;
    let closes = match open {
        Quote::Double => found == Quote::Double,
        Quote::Single => found == Quote::Single,
        Quote::SmartDouble => matches!(found, Quote::SmartDouble | Quote::Double),
        Quote::SmartSingle | Quote::Backtick => {
            matches!(found, Quote::SmartSingle | Quote::Single | Quote::Backtick)
        }
    };
    closes.then_some(len)
}

/// Bytes inside a string that need a look: quotes (`"`, `'`, `` ` ``, and the lead bytes of
/// `´` and the smart quotes), backslash and control characters. Everything else is content
/// copied in bulk.
pub(crate) fn is_string_special(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'\'' | b'`' | 0xC2 | 0xE2 | 0x00..=0x1F)
}

/// Characters after which a closing quote really closes its string (jsonrepair's delimiters):
/// structure, a comment or regex slash, a parenthesis, a line break, `+` of a concatenation.
pub(crate) fn is_delimiter(c: u8) -> bool {
    matches!(
        c,
        b',' | b':' | b'[' | b']' | b'{' | b'}' | b'(' | b')' | b'/' | b'\n' | b'\r' | b'+'
    )
}

/// Where a bare word ends, and a string whose closing quote is missing is closed: before
/// structure or a line break.
pub(crate) fn ends_unquoted_text(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}' | b'\n' | b'\r')
}

/// ASCII bytes of an identifier-like word (unquoted keys, literals, function names).
pub(crate) fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-')
}

/// Bytes of a number-like token: digits, signs, dots, exponents, and letters so that `0x1F`,
/// `2024-10-18T18:35:22Z` or a UUID are read whole (and then judged) rather than split.
pub(crate) fn is_number_token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-' | b'_')
}

/// `...` or `…` (U+2026) at `pos`, and its length.
pub(crate) fn ellipsis_at(bytes: &[u8], pos: usize) -> Option<usize> {
    match (bytes.get(pos)?, bytes.get(pos + 1), bytes.get(pos + 2)) {
        (b'.', Some(b'.'), Some(b'.')) => Some(3),
        (0xE2, Some(0x80), Some(0xA6)) => Some(3),
        _ => None,
    }
}

/// A Markdown code fence (three or more backticks) at `pos`.
pub(crate) fn is_fence_at(bytes: &[u8], pos: usize) -> bool {
    bytes.get(pos..pos + 3) == Some(b"```")
}

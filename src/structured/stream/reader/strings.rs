//! Strings and keys: content copied in runs, escapes decoded across chunk
//! boundaries, and the repair scanner's rule for non-JSON closing quotes.

use super::super::builder::Builder;
use super::{smart_quote_at, Esc, Phase, Quote, Reader, State, Token};
use super::{SMART_LEFT_DOUBLE, SMART_LEFT_SINGLE, SMART_RIGHT_DOUBLE, SMART_RIGHT_SINGLE};

fn hex_value(c: u8) -> Option<u32> {
    char::from(c).to_digit(16)
}

impl Reader {
    /// String content from `pos`: plain runs are copied whole; quotes,
    /// backslashes and (in strict mode) control characters are looked at.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn string(
        &mut self,
        chunk: &str,
        bytes: &[u8],
        mut pos: usize,
        quote: Quote,
        key: bool,
        mut esc: Esc,
        out: &mut Builder,
    ) -> usize {
        let strict = !self.tolerant;
        let mut run = pos;
        while pos < bytes.len() {
            if esc != Esc::No {
                self.emit(chunk, run, pos, key, out);
                let (next_pos, next_esc, closed) = self.escape(bytes, pos, quote, key, esc, out);
                if self.phase == Phase::Opaque {
                    return usize::MAX;
                }
                pos = next_pos;
                esc = next_esc;
                run = pos;
                if closed {
                    return pos;
                }
                continue;
            }
            let Some(&c) = bytes.get(pos) else {
                break;
            };
            match c {
                b'"' if quote == Quote::Double => {
                    self.emit(chunk, run, pos, key, out);
                    if !self.tolerant || key || self.stack.is_empty() {
                        self.end_string(key, out);
                        return pos + 1;
                    }
                    // A value in a container: local repair may still join it with what
                    // follows (`"a" + "b"`) or keep the quote as content (`"5" tall"`), so it
                    // closes (and is checked) only at the next `,` `}` `]` `:`, line break or
                    // comment; anything else stops the reader and the final parse decides.
                    self.pending.clear();
                    self.pending.push('"');
                    esc = Esc::Closing { slash: false };
                    pos += 1;
                    run = pos;
                }
                b'\\' => {
                    self.emit(chunk, run, pos, key, out);
                    esc = Esc::Backslash;
                    pos += 1;
                    run = pos;
                }
                0x00..=0x1F if strict => {
                    self.emit(chunk, run, pos, key, out);
                    return self.fail(pos, "a control character in a string");
                }
                b'\'' if quote == Quote::Single => {
                    self.emit(chunk, run, pos, key, out);
                    self.pending.clear();
                    self.pending.push('\'');
                    esc = Esc::Closing { slash: false };
                    pos += 1;
                    run = pos;
                }
                0xE2 if matches!(quote, Quote::SmartDouble | Quote::SmartSingle) => {
                    let closer = matches!(
                        (quote, smart_quote_at(bytes, pos)),
                        (
                            Quote::SmartDouble,
                            Some(SMART_LEFT_DOUBLE | SMART_RIGHT_DOUBLE)
                        ) | (
                            Quote::SmartSingle,
                            Some(SMART_LEFT_SINGLE | SMART_RIGHT_SINGLE)
                        )
                    );
                    if closer {
                        self.emit(chunk, run, pos, key, out);
                        self.pending.clear();
                        self.pending
                            .push_str(chunk.get(pos..pos + 3).unwrap_or_default());
                        esc = Esc::Closing { slash: false };
                        pos += 3;
                        run = pos;
                    } else {
                        pos += 1;
                    }
                }
                _ => pos += 1,
            }
        }
        self.emit(chunk, run, pos, key, out);
        self.token = Token::Str { quote, key, esc };
        pos
    }

    /// Copies the content `run..end` of the current chunk to the key or the value.
    fn emit(&mut self, chunk: &str, run: usize, end: usize, key: bool, out: &mut Builder) {
        if run >= end {
            return;
        }
        // Both ends sit on an ASCII byte, a smart quote's lead byte or the end.
        let Some(text) = chunk.get(run..end) else {
            return;
        };
        self.content(text, key, out);
    }

    fn content(&mut self, text: &str, key: bool, out: &mut Builder) {
        if key {
            self.buf.push_str(text);
        } else {
            out.str_content(text);
        }
    }

    fn content_char(&mut self, ch: char, key: bool, out: &mut Builder) {
        let mut tmp = [0u8; 4];
        self.content(ch.encode_utf8(&mut tmp), key, out);
    }

    fn end_string(&mut self, key: bool, out: &mut Builder) {
        if key {
            out.key(&self.buf);
            self.token = Token::None;
            self.state = State::Colon;
        } else {
            out.end_string();
            self.value_done();
        }
    }

    /// One byte of an escape or of a closing-quote decision. Returns the new
    /// position, the new escape state, and whether the string closed.
    /// A `\uXXXX` escape whose four digits make `code` (the last digit at `pos`).
    fn hex_escape(
        &mut self,
        code: u32,
        pos: usize,
        key: bool,
        out: &mut Builder,
    ) -> (usize, Esc, bool) {
        match code {
            0xD800..=0xDBFF => (pos + 1, Esc::High { high: code }, false),
            0xDC00..=0xDFFF => self.lone_surrogate(pos + 1, Esc::No, key, out),
            _ => {
                if let Some(ch) = char::from_u32(code) {
                    self.content_char(ch, key, out);
                }
                (pos + 1, Esc::No, false)
            }
        }
    }

    /// `\u` without four hex digits (they are in `pending`): kept as text, as the repair
    /// scanner does; the byte at `pos` is read again.
    fn short_hex(&mut self, pos: usize, key: bool, out: &mut Builder) -> (usize, Esc, bool) {
        if self.repaired(pos, "an invalid escape").is_some() {
            return (usize::MAX, Esc::No, false);
        }
        let raw = std::mem::take(&mut self.pending);
        self.content("\\", key, out);
        self.content(&raw, key, out);
        self.pending = raw;
        (pos, Esc::No, false)
    }

    /// A lone surrogate escape before `pos`: U+FFFD, then reading goes on at `pos` in `then`.
    fn lone_surrogate(
        &mut self,
        pos: usize,
        then: Esc,
        key: bool,
        out: &mut Builder,
    ) -> (usize, Esc, bool) {
        if self.repaired(pos, "a lone surrogate").is_some() {
            return (usize::MAX, Esc::No, false);
        }
        self.content_char('\u{FFFD}', key, out);
        (pos, then, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn escape(
        &mut self,
        bytes: &[u8],
        pos: usize,
        quote: Quote,
        key: bool,
        esc: Esc,
        out: &mut Builder,
    ) -> (usize, Esc, bool) {
        let Some(&c) = bytes.get(pos) else {
            return (pos, esc, false);
        };
        match esc {
            Esc::No => (pos, Esc::No, false),
            Esc::Backslash => {
                let decoded = match c {
                    b'"' => Some('"'),
                    b'\\' => Some('\\'),
                    b'/' => Some('/'),
                    b'b' => Some('\u{8}'),
                    b'f' => Some('\u{c}'),
                    b'n' => Some('\n'),
                    b'r' => Some('\r'),
                    b't' => Some('\t'),
                    b'\'' if quote == Quote::Single => Some('\''),
                    _ => None,
                };
                if let Some(ch) = decoded {
                    self.content_char(ch, key, out);
                    return (pos + 1, Esc::No, false);
                }
                if c == b'u' {
                    self.pending.clear();
                    self.pending.push('u');
                    return (pos + 1, Esc::Hex { n: 0, code: 0 }, false);
                }
                // Not an escape: the backslash is content, the byte is read again.
                if self.repaired(pos, "an invalid escape").is_some() {
                    return (usize::MAX, Esc::No, false);
                }
                self.content("\\", key, out);
                (pos, Esc::No, false)
            }
            Esc::Hex { n, code } => match hex_value(c) {
                Some(d) => {
                    let code = code * 16 + d;
                    if n + 1 < 4 {
                        self.pending.push(char::from(c));
                        return (pos + 1, Esc::Hex { n: n + 1, code }, false);
                    }
                    self.hex_escape(code, pos, key, out)
                }
                None => self.short_hex(pos, key, out),
            },
            // A surrogate escape stands only in a high-low pair. A lone one is U+FFFD, as the
            // repair scanner makes it (and a syntax error when only strict JSON is read); what
            // follows it is read again on its own.
            Esc::High { high } => {
                if c == b'\\' {
                    (pos + 1, Esc::HighBackslash { high }, false)
                } else {
                    self.lone_surrogate(pos, Esc::No, key, out)
                }
            }
            Esc::HighBackslash { high } => {
                if c == b'u' {
                    self.pending.clear();
                    self.pending.push('u');
                    (
                        pos + 1,
                        Esc::LowHex {
                            high,
                            n: 0,
                            code: 0,
                        },
                        false,
                    )
                } else {
                    self.lone_surrogate(pos, Esc::Backslash, key, out)
                }
            }
            Esc::LowHex { high, n, code } => match hex_value(c) {
                Some(d) => {
                    let code = code * 16 + d;
                    if n + 1 < 4 {
                        self.pending.push(char::from(c));
                        return (
                            pos + 1,
                            Esc::LowHex {
                                high,
                                n: n + 1,
                                code,
                            },
                            false,
                        );
                    }
                    if !(0xDC00..=0xDFFF).contains(&code) {
                        // The high one is lone; this escape is read on its own.
                        let (next, _, _) = self.lone_surrogate(pos, Esc::No, key, out);
                        if next == usize::MAX {
                            return (next, Esc::No, false);
                        }
                        return self.hex_escape(code, pos, key, out);
                    }
                    let scalar = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
                    if let Some(ch) = char::from_u32(scalar) {
                        self.content_char(ch, key, out);
                    }
                    (pos + 1, Esc::No, false)
                }
                None => {
                    let (next, _, _) = self.lone_surrogate(pos, Esc::No, key, out);
                    if next == usize::MAX {
                        return (next, Esc::No, false);
                    }
                    self.short_hex(pos, key, out)
                }
            },
            Esc::Closing { slash } => {
                if slash {
                    if matches!(c, b'/' | b'*') {
                        self.end_string(key, out);
                        self.token = if c == b'/' {
                            Token::LineComment
                        } else {
                            Token::BlockComment { star: false }
                        };
                        return (pos + 1, Esc::No, true);
                    }
                    return self.not_closing(pos, quote, key, out);
                }
                match c {
                    b' ' | b'\t' => {
                        self.pending.push(char::from(c));
                        (pos + 1, esc, false)
                    }
                    b',' | b'}' | b']' | b':' | b'\n' | b'\r' => {
                        self.end_string(key, out);
                        (pos, Esc::No, true)
                    }
                    b'/' => {
                        self.pending.push('/');
                        (pos + 1, Esc::Closing { slash: true }, false)
                    }
                    _ => self.not_closing(pos, quote, key, out),
                }
            }
        }
    }

    /// The quote was an apostrophe: it and the blanks after it are content. After a double
    /// quote, what follows is for local repair to read (a concatenation, an unescaped quote):
    /// the reader stops.
    fn not_closing(
        &mut self,
        pos: usize,
        quote: Quote,
        key: bool,
        out: &mut Builder,
    ) -> (usize, Esc, bool) {
        if quote == Quote::Double {
            return (self.fail(pos, "text after a closing quote"), Esc::No, false);
        }
        let raw = std::mem::take(&mut self.pending);
        self.content(&raw, key, out);
        self.pending = raw;
        (pos, Esc::No, false)
    }
}

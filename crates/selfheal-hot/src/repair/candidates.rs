//! Candidates: every JSON value in a reply, the fences' before the prose's, each in text order
//! (SPEC section 9).
//!
//! Each region (see `regions.rs`) gives its candidates in turn. A fence's content, or the
//! whole reply when it has no fence, is first read as one value or a sequence of values
//! (strictly if it can be, else with the scanner); failing that, and in the prose between
//! fences, every `{…}`/`[…]` value is a candidate. The search then goes on after the
//! candidate's end. A candidate the scanner cannot repair is skipped *whole*: the skim finds
//! where it ends with the scanner's own lexical rules, and nothing nested inside it is ever
//! offered on its own. When it never ends, the rest of the region belongs to it. A value
//! followed by an object's next member (`, "d": 3`) that the scanner could not take into it
//! ended early somewhere the text does not tell: neither it nor anything after it in the region
//! is offered, so the reply fails rather than lose that member or answer with a piece.

use std::ops::ControlFlow;

use super::paths::BareWords;
use super::regions::{non_blank_span, outside_fix, regions, Kind, Region};
use super::scanner::{Scan, ScanError, Scanned, Scanner};
use super::strict::StrictJson;
use crate::fix::{Fix, FixList};

/// How many `{`/`[` starting points in prose are tried per reply: bounds the work on text
/// full of brackets to a constant number of linear passes.
pub const MAX_CANDIDATES: usize = 64;

/// One candidate value.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its text: strict JSON for a strict candidate, the scanner's output otherwise (which the
    /// consumer still checks strictly).
    pub text: String,
    /// Every fix that produced it, fences and prose around it included.
    pub fixes: FixList,
    /// Read with nothing repaired inside the value itself.
    pub strict: bool,
    /// Paths of the bare words quoted as strings, which the schema must expect to be strings.
    pub bare_words: BareWords,
    /// One value of a sequence (NDJSON, or values separated by commas) offered on its own after
    /// the array of them all: never the whole list, so never wrapped into one.
    pub one_of_many: bool,
}

/// What the consumer made of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The answer: stop the search.
    Stop,
    /// Go on with the next candidate.
    Next,
    /// The text is not strict JSON after all (a fence's content is offered as it is and only
    /// the consumer's own parse tells): read that region with the scanner instead.
    NotJson,
}

/// Input the scanner refuses outright (nested deeper than serde_json allows): no candidate of
/// the reply may be used, not even one before it.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep;

/// Calls `visit` with each candidate of `text` in text order, until it breaks. The caller has
/// already found that `text` as a whole is not strict JSON.
pub fn each_candidate(
    text: &str,
    allow_bare: bool,
    visit: &mut dyn FnMut(Candidate) -> Verdict,
) -> Result<(), TooDeep> {
    if let Some(decoded) = escaped_json(text) {
        let mut base = FixList::default();
        base.add(Fix::EscapedJson);
        return Reader::new(&decoded, allow_bare, base).read(visit);
    }
    Reader::new(text, allow_bare, FixList::default()).read(visit)
}

struct Reader<'t> {
    text: &'t str,
    allow_bare: bool,
    base: FixList,
    attempts: usize,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, allow_bare: bool, base: FixList) -> Self {
        Reader {
            text,
            allow_bare,
            base,
            attempts: 0,
        }
    }

    fn read(&mut self, visit: &mut dyn FnMut(Candidate) -> Verdict) -> Result<(), TooDeep> {
        let span = non_blank_span(self.text.as_bytes());
        // Fences first, then the prose around them, each in text order: a fence holds what the
        // model marked as code, prose mentions values in passing (`As noted in [1], the ids
        // are: ```json [4, 5, 6]```` gave [1], an outside review, 2026-12-02).
        let all = regions(self.text);
        for prose in [false, true] {
            for &region in &all {
                if (region.kind == Kind::Prose) == prose
                    && self.region(region, span, visit)?.is_break()
                {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    fn region(
        &mut self,
        region: Region,
        (first, last): (usize, usize),
        visit: &mut dyn FnMut(Candidate) -> Verdict,
    ) -> Result<ControlFlow<()>, TooDeep> {
        let body = self.text.get(region.start..region.end).unwrap_or("");
        let mut base = self.base.clone();
        let (outside_start, outside_end) = match region.kind {
            Kind::Fence { open, after } => {
                base.add(Fix::CodeFence);
                (open, after)
            }
            Kind::Whole | Kind::Prose => (region.start, region.end),
        };
        // Anything outside the fence or prose region (other fences, comments too) was left out:
        // anything but blanks, which the text's first and last non-blank tell without reading
        // the text before and after each region again.
        if first < outside_start || outside_end < last {
            base.add(Fix::SurroundingProse);
        }
        let mut lines = None;
        if region.kind != Kind::Prose {
            // A fence's content as it is: the consumer's own parse (one pass) says whether it is
            // strict JSON. A whole reply is never strict here: the callers take that path first.
            let trimmed = body.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
            let fence = matches!(region.kind, Kind::Fence { .. });
            if fence && !trimmed.is_empty() {
                let verdict = visit(Candidate {
                    text: trimmed.to_owned(),
                    fixes: base.clone(),
                    strict: true,
                    bare_words: BareWords::default(),
                    one_of_many: false,
                });
                match verdict {
                    Verdict::Stop => return Ok(ControlFlow::Break(())),
                    Verdict::Next => return Ok(ControlFlow::Continue(())),
                    Verdict::NotJson => {}
                }
            }
            let mut scanner = Scanner::new(body, self.allow_bare);
            match twice(&mut scanner, &mut |s| s.scan_sequence()) {
                Ok(scanned) => {
                    // A reading that needed bare words is the schema's to accept; if it does
                    // not, the values in the region are still candidates (`[1], and so on`).
                    let bare = !scanned.bare_words.is_empty();
                    let flow = sequence(scanned, trimmed, &base, visit);
                    if flow.is_break() || !bare {
                        return Ok(flow);
                    }
                }
                Err(ScanError::TooDeep) => return Err(TooDeep),
                Err(ScanError::Invalid(_)) => {}
            }
            // Lines of values after a line of prose or before one, read on their own below.
            lines = value_lines(trimmed);
        }
        let flow = self.walk(body, &base, visit)?;
        // Lines of values after a line of prose (`Here are the rows:` and NDJSON) or before one,
        // as a sequence of their own, after the values found in the region: each value alone
        // failed a list schema (an outside review, 2026-12-02).
        if let Some(lines) = lines.filter(|_| flow.is_continue()) {
            let mut scanner = Scanner::new(lines, self.allow_bare);
            match twice(&mut scanner, &mut |s| s.scan_sequence()) {
                Ok(scanned) if scanned.elements.len() > 1 && scanned.bare_words.is_empty() => {
                    let mut around = base.clone();
                    around.add(Fix::SurroundingProse);
                    return Ok(sequence(scanned, lines, &around, visit));
                }
                Err(ScanError::TooDeep) => return Err(TooDeep),
                _ => {}
            }
        }
        Ok(flow)
    }

    /// Every `{…}`/`[…]` value in `body`, strict ones as they are, others repaired.
    fn walk(
        &mut self,
        body: &str,
        base: &FixList,
        visit: &mut dyn FnMut(Candidate) -> Verdict,
    ) -> Result<ControlFlow<()>, TooDeep> {
        let bytes = body.as_bytes();
        let mut scanner = Scanner::new(body, self.allow_bare);
        let mut from = 0;
        while let Some(start) = find_open(bytes, from) {
            // Nothing was read before this value in the region: it cannot be a piece of an
            // earlier broken value.
            let first = from == 0;
            self.attempts += 1;
            if self.attempts > MAX_CANDIDATES {
                break;
            }
            let mut fixes = base.clone();
            if let Some(fix) = bytes.get(..start).and_then(outside_fix) {
                fixes.add(fix);
            }
            // The first value of the region, and it needed no repair but words read as strings
            // (`[final]`).
            let mut bracketed_words = false;
            // A strict value that members of an object follow had a closer too many: it is read
            // with the scanner, whose `close` drops it.
            let strict = strict_len(body.get(start..).unwrap_or(""));
            let strict_end = strict.map_or(0, |len| start + len);
            let members = strict.and_then(|len| scanner.members_follow(start + len));
            let (text, strict, bare_words, end) = match strict.filter(|_| members.is_none()) {
                Some(len) => (
                    body.get(start..start + len).unwrap_or("").to_owned(),
                    true,
                    BareWords::default(),
                    start + len,
                ),
                None => match twice(&mut scanner, &mut |s| s.scan_value(start, strict_end)) {
                    Ok(scanned) => {
                        bracketed_words = first
                            && !scanned.bare_words.is_empty()
                            && scanned
                                .fixes
                                .iter()
                                .all(|f| matches!(f, Fix::UnquotedString | Fix::Comment));
                        fixes.extend(scanned.fixes.iter());
                        (scanned.text, false, scanned.bare_words, scanned.end)
                    }
                    Err(ScanError::TooDeep) => return Err(TooDeep),
                    // Members of an object after it: it ended early (`"langs": "en", "fr"],
                    // "manager": {…}}`, a `[` missing), so it goes on, and where is not known.
                    Err(ScanError::Invalid(_)) => match scanner.skim() {
                        Some(end) if scanner.members_follow(end).is_none() => {
                            from = end.max(start + 1);
                            continue;
                        }
                        _ => break,
                    },
                },
            };
            // Members of an object after a value the scanner did not take them into (an array's,
            // `[1, 2], "b": 3}`): it is part of something broken, and neither it nor anything
            // after it is offered.
            if scanner.members_follow(end).is_some() {
                break;
            }
            if let Some(fix) = bytes.get(end..).and_then(outside_fix) {
                fixes.add(fix);
            }
            // A repaired value followed by `,` `:` or a closer was probably closed too early:
            // what follows may belong to it, so nothing after it in this region is offered. Not
            // so the region's first value when its only repair was reading words as strings: its
            // brackets are its own (`Answer [final]: {"a": 1}`, a bracketed word in prose).
            let continues = !strict
                && !bracketed_words
                && matches!(
                    bytes.get(scanner.past_blank(end)),
                    Some(b',' | b':' | b']' | b'}')
                );
            let candidate = Candidate {
                text,
                fixes,
                strict,
                bare_words,
                one_of_many: false,
            };
            if visit(candidate) == Verdict::Stop {
                return Ok(ControlFlow::Break(()));
            }
            if continues {
                break;
            }
            from = end.max(start + 1);
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// A scan, and when it failed after closing a string early (`{"a": "x, [1]`) or dropping a closer
/// of the wrong kind (`[[1}]`, see `Scanner::close`; its values then nest, maybe too deep), the
/// same scan again without those guesses.
fn twice(
    scanner: &mut Scanner<'_>,
    scan: &mut dyn FnMut(&mut Scanner<'_>) -> Scan<Scanned>,
) -> Scan<Scanned> {
    let first = scan(scanner);
    if first.is_ok() || !scanner.closed_early {
        return first;
    }
    scanner.close_early = false;
    let second = scan(scanner);
    scanner.close_early = true;
    second
}

/// The candidates of a region read as a sequence: the value, or the array of the values and
/// then each value on its own. Lines that are each bare words are text: the region's `whole`
/// text as one string comes before the lines on their own.
fn sequence(
    scanned: Scanned,
    whole: &str,
    base: &FixList,
    visit: &mut dyn FnMut(Candidate) -> Verdict,
) -> ControlFlow<()> {
    // Only separators, blanks and comments around strict values: as good as strict. A value is
    // strict when it needed no fix of its own but comments; when each value on its own line is,
    // what was fixed was only between them (the commas a list of lines lacks, one after the
    // last), so the list of them is as good as strict too.
    let strict_value = |own: &FixList| own.iter().all(|f| f == Fix::Comment);
    let separated =
        !scanned.elements.is_empty() && scanned.elements.iter().all(|(_, own)| strict_value(own));
    let strict = separated
        || scanned
            .fixes
            .iter()
            .all(|f| matches!(f, Fix::NewlineDelimited | Fix::Comment));
    let mut fixes = base.clone();
    fixes.extend(scanned.fixes.iter());
    let all = Candidate {
        text: scanned.text,
        fixes,
        strict,
        bare_words: scanned.bare_words.clone(),
        one_of_many: false,
    };
    if visit(all) == Verdict::Stop {
        return ControlFlow::Break(());
    }
    // Where one string is wanted, lines of text are that string, not its first line (a
    // two-paragraph summary gave its first sentence, an outside review, 2026-12-02).
    let lines = scanned.elements.len();
    if lines > 1 && (0..lines).all(|i| scanned.bare_words.is_word(i)) {
        let mut fixes = base.clone();
        fixes.add(Fix::UnquotedString);
        let text = Candidate {
            text: serde_json::Value::from(whole).to_string(),
            fixes,
            strict: false,
            bare_words: BareWords::whole(),
            one_of_many: false,
        };
        if visit(text) == Verdict::Stop {
            return ControlFlow::Break(());
        }
    }
    // Each value on its own: prose around it, and its own fixes (not those of the others or
    // between them), strict when it needed none and neither did the sequence. A value that
    // needed no fix inside a sequence that did is not preferred to the sequence: the strict
    // first line of NDJSON whose second line needed a fix won over all the lines, and the
    // others were lost (an outside review, 2026-12-02).
    for (i, (text, own)) in scanned.elements.into_iter().enumerate() {
        let mut one = base.clone();
        one.add(Fix::SurroundingProse);
        one.extend(own.iter());
        let each = Candidate {
            text,
            fixes: one,
            strict: strict && strict_value(&own),
            bare_words: scanned.bare_words.element(i),
            one_of_many: true,
        };
        if visit(each) == Verdict::Stop {
            return ControlFlow::Break(());
        }
    }
    ControlFlow::Continue(())
}

/// The part of `text` from the first line that starts a value (`{` or `[` after blanks) to the
/// last line that ends one, when there is text before or after it: a line or two of prose
/// each side, without brackets, so that lines inside a broken value are never read on their own.
fn value_lines(text: &str) -> Option<&str> {
    let mut start = None;
    let (mut end, mut at) = (0, 0);
    // The lines of prose before the first value line and after the last, and whether any of
    // them holds a bracket.
    let (mut before, mut after, mut bracket, mut bracket_after) = (0, 0, false, false);
    for line in text.as_bytes().split(|&c| c == b'\n') {
        let content = line.trim_ascii();
        let has_bracket = content
            .iter()
            .any(|c| matches!(c, b'{' | b'[' | b']' | b'}'));
        if start.is_none() && matches!(content.first(), Some(b'{' | b'[')) {
            start = Some(at);
        }
        if start.is_none() {
            before += usize::from(!content.is_empty());
            bracket |= has_bracket;
        } else if matches!(content.last(), Some(b'}' | b']')) {
            end = at + line.trim_ascii_end().len();
            (after, bracket_after) = (0, false);
        } else {
            after += usize::from(!content.is_empty());
            bracket_after |= has_bracket;
        }
        at += line.len() + 1;
    }
    let start = start?;
    let prose = before + after > 0 && before <= 2 && after <= 2 && !bracket && !bracket_after;
    text.get(start..end).filter(|_| end > start && prose)
}

fn find_open(bytes: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&c| c == b'{' || c == b'[')
        .map(|p| p + from)
}

/// The length of the strict JSON value at the start of `text`, if there is one.
pub(super) fn strict_len(text: &str) -> Option<usize> {
    strict_prefix(text).ok()
}

/// The length of the strict JSON value at the start of `text`, or, when there is none, how far
/// the strict parse read before it failed (what trying cost).
pub(super) fn strict_prefix(text: &str) -> Result<usize, usize> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<StrictJson>();
    match stream.next() {
        Some(Ok(_)) => Ok(stream.byte_offset()),
        // serde_json reports a line (from 1) and the bytes before the error on that line.
        Some(Err(e)) if e.line() > 0 => {
            let line_start = match e.line() {
                1 => 0,
                n => text
                    .bytes()
                    .enumerate()
                    .filter(|&(_, c)| c == b'\n')
                    .nth(n - 2)
                    .map_or(text.len(), |(i, _)| i + 1),
            };
            Err((line_start + e.column()).min(text.len()))
        }
        _ => Err(text.len()),
    }
}

/// A reply whose JSON had its quotes backslash-escaped (`{\"a\": 1}`, `\"text\"`), unescaped
/// one level: `\"` -> `"`, `\\` -> `\`, `\n`, `\r`, `\t`, `\/` -> the character.
fn escaped_json(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    let rest = trimmed.trim_start_matches(['{', '[']).trim_start();
    if !rest.starts_with("\\\"") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('/') => out.push('/'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => {}
        }
    }
    Some(out)
}

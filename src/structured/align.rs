//! Schema-guided choice among the candidates of a reply (SPEC section 9).
//!
//! The rule, in the README's words: every JSON value in the text is a candidate (each fenced
//! block, each value in prose, newline-delimited values and their array); strict candidates
//! (nothing repaired inside the value) come first, then repaired ones, each group in text
//! order; the first that passes the schema wins (after coercion, with `coerce: true`). If none
//! passes, the failure reports the schema issues of the first candidate that parsed. A
//! candidate holding a bare word quoted as a string counts only when the schema expects a
//! string at that place. With no schema the first candidate wins.
//!
//! Each candidate costs one strict parse into a tree (the scanner's pass for a repaired one
//! comes on top) and one validation; nothing is parsed twice. Candidates are judged as they
//! come, repaired ones too (a strict one found later still wins), and what is kept is what the
//! answer can need: the first repaired candidate that passed, and the issues of the first strict
//! and the first repaired one that failed. So memory holds one candidate's tree at a time besides
//! those, whatever the number of candidates; a repaired one after the first that passed is not
//! parsed at all.

use serde_json::Value;

use super::coerce::Coercer;
use super::fix::{Fix, FixList};
use super::repair::{each_candidate, BareWords, Candidate, Verdict};
use super::subschema::{Anchors, Views};
use super::{CompiledSchema, FailureKind, FailureReport, ParseOptions, Parsed};

/// The first candidate of `raw` (which is not strict JSON as a whole) that passes `schema`.
/// `syntax` is the strict parse's failure, reported with the schema issues of the first
/// candidate that parsed when none passes.
pub(crate) fn choose(
    raw: &str,
    schema: Option<&CompiledSchema>,
    coerce: bool,
    syntax: FailureReport,
) -> Parsed {
    // The first strict candidate that passes as written is the answer; failing that, the first
    // strict one that passes once coerced, then the first repaired one that passes. A strict
    // candidate coerced into shape does not end the search: the example object of "rows look
    // like {…}; here they are: [...]" was wrapped into a one-row array and the rows that followed
    // were lost (an outside review, 2026-12-02). Repaired ones are tried as they come, so that
    // only that one is kept (a reply of a million repaired lines held every line's text and tree
    // until the end).
    let mut found = None;
    let mut found_coerced = None;
    let mut found_repaired = None;
    // A value wrapped into the array the schema wants stands for the whole list only when it is
    // the reply's one such value: `{a} and {b}` gave `[a]` and lost b (an outside review,
    // 2026-12-02). The first is kept aside and the others are counted.
    let mut wrapped = None;
    let mut wraps = 0_usize;
    // The schema issues of the first strict and of the first repaired candidate that failed.
    let mut first_strict = None;
    let mut first_repaired = None;
    let mut coercer = schema.filter(|_| coerce).map(Coercer::new);
    // A value of a sequence is never taken for the list (below): where the schema's root says
    // `"type": "array"`, one that is not an array is not tried (666,000 NDJSON lines: 1.3 s).
    let lists_only =
        schema.is_some_and(|s| s.value().get("type").and_then(Value::as_str) == Some("array"));
    let search = each_candidate(raw, schema.is_some(), &mut |candidate| {
        if !candidate.strict && (found_coerced.is_some() || found_repaired.is_some())
            || candidate.one_of_many && lists_only && !candidate.text.starts_with('[')
        {
            // Only a strict candidate can still come first; a value of a sequence that is not an
            // array cannot be the list.
            return Verdict::Next;
        }
        let Ok(value) = selfheal_hot::parse_value(&candidate.text) else {
            return Verdict::NotJson;
        };
        if !bare_words_fit(schema, &candidate.bare_words) {
            return Verdict::Next;
        }
        // Listing issues costs more than the yes/no: only while the report may still need them
        // (a strict candidate's come first).
        let wanted = first_strict.is_none() && (candidate.strict || first_repaired.is_none());
        let first = if candidate.strict {
            &mut first_strict
        } else {
            &mut first_repaired
        };
        let Candidate {
            text,
            fixes,
            strict,
            one_of_many,
            ..
        } = candidate;
        let was_array = value.is_array();
        match accept(value, text, &fixes, schema, coercer.as_mut(), wanted) {
            // One line of NDJSON wrapped into the array the schema wants is not the list: the
            // array of all the lines was the candidate for that (with a coercion budget spent,
            // 666,000 lines gave one row, ok).
            Ok(Parsed::Ok {
                value: Value::Array(_),
                ..
            }) if one_of_many && !was_array => {}
            Ok(
                parsed @ Parsed::Ok {
                    value: Value::Array(_),
                    ..
                },
            ) if !was_array => {
                wraps += 1;
                wrapped.get_or_insert(parsed);
            }
            Ok(parsed) if strict && !coerced(&parsed) => {
                found = Some(parsed);
                return Verdict::Stop;
            }
            Ok(parsed) if strict => {
                found_coerced.get_or_insert(parsed);
            }
            Ok(parsed) => found_repaired = Some(parsed),
            Err(report) => {
                if let Some(report) = report {
                    first.get_or_insert(report);
                }
            }
        }
        Verdict::Next
    });
    if search.is_err() {
        return Parsed::err(syntax);
    }
    if let Some(parsed) = found.or(found_coerced).or(found_repaired) {
        return parsed;
    }
    if wraps > 1 {
        let message = "the reply holds separate values where one array is expected: write them \
                       all as one JSON array";
        return Parsed::err(syntax.merge(FailureReport::single(FailureKind::Schema, message)));
    }
    if let Some(parsed) = wrapped {
        return parsed;
    }
    if let Some(parsed) = coercer.as_mut().and_then(|c| whole_reply_as_scalar(raw, c)) {
        return parsed;
    }
    match first_strict.or(first_repaired) {
        Some(report) => Parsed::err(syntax.merge(report)),
        None => Parsed::err(syntax),
    }
}

/// Whether coercion changed the value of `parsed`.
fn coerced(parsed: &Parsed) -> bool {
    matches!(parsed, Parsed::Ok { fixes, .. } if fixes.iter().any(|fix| fix.is_coercion()))
}

/// A reply that is strict JSON but fails the schema: with `coerce`, the value aligned with
/// the schema; a JSON string holding an object or array, that value (`"{\"a\": 1}"`), its text
/// repaired only with `localRepair` on.
pub(crate) fn strict_failed(
    value: Value,
    text: &str,
    schema: &CompiledSchema,
    options: &ParseOptions,
    report: FailureReport,
) -> Parsed {
    let coerce = options.coerce;
    let mut coercer = coerce.then(|| Coercer::new(schema));
    let inner = match &value {
        Value::String(s) if s.trim_start().starts_with(['{', '[']) => Some(s.clone()),
        _ => None,
    };
    if let Ok(parsed) = accept(
        value,
        text.to_owned(),
        &FixList::default(),
        Some(schema),
        coercer.as_mut(),
        false,
    ) {
        return parsed;
    }
    if let Some(inner) = inner {
        let mut base = FixList::default();
        base.add(Fix::StringEncodedJson);
        let parsed = match selfheal_hot::parse_value(&inner) {
            Ok(v) => accept(
                v,
                inner.clone(),
                &base,
                Some(schema),
                coercer.as_mut(),
                false,
            )
            .ok(),
            Err(_) if !options.local_repair => None,
            Err(e) => {
                let syntax =
                    FailureReport::single(FailureKind::JsonSyntax, super::syntax_message(&e));
                Some(choose(&inner, Some(schema), coerce, syntax))
                    .filter(Parsed::is_ok)
                    .map(|p| prefix_fix(p, Fix::StringEncodedJson))
            }
        };
        if let Some(parsed) = parsed {
            return parsed;
        }
    }
    Parsed::err(report)
}

/// With `coerce`, where the schema wants a number or a boolean at the root: the whole reply
/// as that text (`12,111` -> 12111, which read as JSON is the list `12, 111`).
fn whole_reply_as_scalar(raw: &str, coercer: &mut Coercer<'_>) -> Option<Parsed> {
    let schema = coercer.schema();
    let types = Views::root(schema.doc(), &mut Anchors::default()).types();
    if !types
        .iter()
        .any(|t| matches!(*t, "number" | "integer" | "boolean"))
    {
        return None;
    }
    let text = raw.trim();
    let value = Value::String(text.to_string());
    let (aligned, fixes) = coercer.coerce(value)?;
    if !schema.is_valid(&aligned) {
        return None;
    }
    let text = serde_json::to_string(&aligned).ok()?;
    Some(Parsed::ok(aligned, fixes.into_vec(), text))
}

fn prefix_fix(parsed: Parsed, fix: Fix) -> Parsed {
    match parsed {
        Parsed::Ok {
            value, fixes, text, ..
        } => {
            let mut list = FixList::default();
            list.add(fix);
            list.extend(fixes);
            Parsed::ok(value, list.into_vec(), text)
        }
        err => err,
    }
}

/// The candidate as the answer when it passes the schema (after coercion, given a coercer);
/// else, when `report` asks for it, the issues of the value as it was (listing them costs more
/// than the yes/no, and only the first failing candidate's are reported).
fn accept(
    value: Value,
    text: String,
    fixes: &FixList,
    schema: Option<&CompiledSchema>,
    coercer: Option<&mut Coercer<'_>>,
    report: bool,
) -> Result<Parsed, Option<FailureReport>> {
    let Some(schema) = schema else {
        return Ok(Parsed::ok(value, fixes.clone().into_vec(), text));
    };
    if schema.is_valid(&value) {
        return Ok(Parsed::ok(value, fixes.clone().into_vec(), text));
    }
    // A value too large to validate is not coerced (`Coercer::coerce`): no copy of it either.
    let Some(coercer) = coercer.filter(|_| schema.within_work_limit(&value)) else {
        return Err(report.then(|| schema.report_invalid(&value)));
    };
    // Coercion changes the value in place. The value as written is read again from its text for
    // a report, once the coerced one is gone: a copy kept while coercing doubled the peak (4 MB
    // of NDJSON: 405 MB).
    if let Some((aligned, more)) = coercer.coerce(value) {
        if schema.is_valid(&aligned) {
            let mut all = fixes.clone();
            all.extend(more.iter());
            let text = serde_json::to_string(&aligned).unwrap_or(text);
            return Ok(Parsed::ok(aligned, all.into_vec(), text));
        }
    }
    Err(report
        .then(|| selfheal_hot::parse_value(&text).ok())
        .flatten()
        .map(|value| schema.report_invalid(&value)))
}

/// Whether the schema expects a string at every place a bare word was quoted.
fn bare_words_fit(schema: Option<&CompiledSchema>, words: &BareWords) -> bool {
    if words.is_empty() {
        return true;
    }
    let Some(schema) = schema else {
        return false;
    };
    let mut anchors = Anchors::default();
    words.all_fit(
        Views::root(schema.doc(), &mut anchors),
        |views, seg| views.child(seg, &mut anchors),
        Views::accepts_string,
    )
}

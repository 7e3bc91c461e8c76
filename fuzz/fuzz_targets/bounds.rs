//! Issue 10's bounds: any schema shape issue 10 found hard (long-key maps of arrays, `$ref`
//! chains that double at every level, growth along nested members, recursion) with any reply
//! (long keys, wide arrays, deep nesting, line breaks and tags, cut short), through `parse`,
//! both prompt builders and the loop.
//!
//! Input: an `arbitrary` description of the schema and the reply (`Case`), so a few bytes can
//! ask for a 40-level chain or a 50,000-character key over 50,000 items.
//! Invariants: compiling either refuses the schema with a reason or admits at most
//! `MAX_EVALUATIONS_PER_VALUE` subschemas per value; a report holds at most 101 issues, each
//! path and message clipped and on one line; validation work stays under
//! `MAX_VALIDATION_WORK` or the value is "not validated"; the fix prompt keeps its structure and
//! its size bound, the reask correction its size bound, every issue line inside its block; the
//! loop returns no prompt above its limit. Time: `scripts/fuzz.sh` runs with `-timeout=10`, and
//! docs/PERFORMANCE.md records the worst cases measured in the release build.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use selfheal::prompt::{Correction, DATA_TAGS};
use selfheal::structured::schema::MAX_VALIDATION_WORK;
use selfheal::structured::work::MAX_EVALUATIONS_PER_VALUE;
use selfheal::{
    build_fix_prompt, build_reask_prompt, parse, Budget, Instruction, Locale, LoopConfig, Mode,
    Outcome, ParseOptions, Parsed, Prompt, RepairLoop, SchemaCache,
};
use selfheal_fuzz::{assert_fix_prompt_structure, is_one_line};
use serde_json::{json, Value};

#[derive(Arbitrary, Debug)]
enum SchemaShape {
    ArraysOfStrings,
    Strict,
    Tree,
    /// Each `$defs` entry applies the next `fan` times (allOf/anyOf/oneOf), maybe through `x`.
    Chain {
        levels: u8,
        applicator: u8,
        fan: u8,
        nested: bool,
    },
    /// Any text as the schema.
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum ReplyShape {
    /// `{"k"*key: [0; width]}` (issue 10 defect 1 at key = width = 50,000).
    LongKey {
        key: u16,
        width: u16,
    },
    Wide {
        width: u16,
    },
    Deep {
        depth: u8,
    },
    Cut {
        width: u16,
    },
    Text(String),
}

#[derive(Arbitrary, Debug)]
struct Case {
    schema: SchemaShape,
    reply: ReplyShape,
    stop: Option<u8>,
    reask: bool,
}

fn schema_text(shape: &SchemaShape) -> String {
    match shape {
        SchemaShape::ArraysOfStrings => {
            r#"{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}"#
                .to_string()
        }
        SchemaShape::Strict => {
            r#"{"type":"object","properties":{"a":{}},"additionalProperties":false}"#.to_string()
        }
        SchemaShape::Tree => r##"{"$defs":{"n":{"type":"object","properties":{"c":{"type":"array","items":{"$ref":"#/$defs/n"}}}}},"$ref":"#/$defs/n"}"##.to_string(),
        SchemaShape::Chain { levels, applicator, fan, nested } => {
            let applicator = ["allOf", "anyOf", "oneOf"][usize::from(*applicator) % 3];
            let levels = usize::from(*levels % 64);
            let fan = usize::from(*fan % 4) + 1;
            let mut defs = serde_json::Map::new();
            for i in 0..levels {
                let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
                let next = if *nested { json!({"properties": {"x": next}}) } else { next };
                defs.insert(format!("d{i}"), json!({applicator: vec![next; fan]}));
            }
            defs.insert(format!("d{levels}"), json!({"type": "string"}));
            json!({"$defs": defs, "$ref": "#/$defs/d0"}).to_string()
        }
        SchemaShape::Text(t) => t.clone(),
    }
}

fn reply_text(shape: &ReplyShape) -> String {
    match shape {
        ReplyShape::LongKey { key, width } => {
            let (key, width) = (usize::from(*key).max(1), usize::from(*width));
            format!("{{\"{}\": [{}0]}}", "k".repeat(key), "0,".repeat(width))
        }
        ReplyShape::Wide { width } => format!("[{}\"x\"]", "\"x\",".repeat(usize::from(*width))),
        ReplyShape::Deep { depth } => {
            let d = usize::from(*depth);
            format!("{}1{}", "{\"x\":".repeat(d), "}".repeat(d))
        }
        ReplyShape::Cut { width } => format!("[{}", "{\"a\": [1, ".repeat(usize::from(*width))),
        ReplyShape::Text(t) => t.clone(),
    }
}

fn count(v: &Value) -> usize {
    let mut n = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    n
}

/// The lines between a block's last pair of real tag lines.
fn block<'a>(user: &'a str, name: &str) -> Vec<&'a str> {
    let (open, close) = (format!("\n<{name}>\n"), format!("\n</{name}>\n"));
    let Some(start) = user.rfind(&open) else {
        return Vec::new();
    };
    let body = &user[start + open.len()..];
    body[..body.find(&close).map_or(body.len(), |e| e + 1)]
        .lines()
        .collect()
}

fn prompt() -> Prompt {
    Prompt {
        system: "Reply with JSON.".into(),
        user: "Give the value.".into(),
    }
}

fuzz_target!(|case: Case| {
    let Ok(compiled) = SchemaCache::new(2).get_or_compile(&schema_text(&case.schema)) else {
        return;
    };
    assert!(compiled.evaluations_per_value() as u64 <= MAX_EVALUATIONS_PER_VALUE);
    let raw = reply_text(&case.reply);
    let stop = case.stop.map(|s| {
        ["max_tokens", "end_turn", "content_filter", "weird"][usize::from(s) % 4].to_string()
    });
    let options = ParseOptions {
        stop_reason: stop.clone(),
        ..ParseOptions::new()
    };
    if let Parsed::Err { report, .. } = parse(&raw, Some(&compiled), &options) {
        assert!(report.issues.len() <= 101);
        for issue in &report.issues {
            assert!(issue.path.chars().count() <= 201 && is_one_line(&issue.path));
            assert!(issue.message.chars().count() <= 301 && is_one_line(&issue.message));
        }
        if let Ok(v) = serde_json::from_str::<Value>(&raw) {
            let refused = report
                .issues
                .iter()
                .any(|i| i.message.starts_with("not validated:"));
            let per_value = compiled.evaluations_per_value();
            assert!(
                refused
                    || per_value <= 2
                    || count(&v).saturating_mul(per_value) <= MAX_VALIDATION_WORK
            );
        }
        let fix = build_fix_prompt(&report, compiled.value(), &raw, 2000, Locale::En);
        assert_fix_prompt_structure(&fix.user);
        let schema_chars =
            serde_json::to_string_pretty(compiled.value()).map_or(0, |s| s.chars().count());
        assert!(fix.chars() <= schema_chars + 2000 + 101 * 520 + 2000);
        let reask = build_reask_prompt(&prompt(), Correction::Report(&report), Locale::En);
        assert!(reask.chars() <= prompt().chars() + 101 * 520 + 1000);
        for user in [&fix.user, &reask.user] {
            let lines = block(user, "validation_issues");
            assert!(!lines.is_empty() && lines.len() <= 101);
            for line in lines {
                assert!(line.starts_with("- ") && is_one_line(line));
                let lower = line.to_ascii_lowercase();
                assert!(
                    DATA_TAGS.iter().all(|t| !lower.contains(&format!("<{t}"))),
                    "{line}"
                );
            }
        }
    }
    let mode = if case.reask { Mode::Reask } else { Mode::Fix };
    let mut config = LoopConfig::new(prompt(), 1);
    config.mode = mode;
    config.budget = Budget::default_for(mode);
    let Ok(mut l) = RepairLoop::new(config, Some(compiled)) else {
        return;
    };
    let outcome = Outcome::Reply {
        text: raw,
        stop_reason: stop,
        cost_usd: 0.0,
        usage: None,
    };
    if let Instruction::SendRepairPrompt { prompt: p, .. } = l.next(outcome, 0.0, None) {
        let limit = if case.reask {
            prompt().chars() + 101 * 520 + 1000
        } else {
            6000
        };
        assert!(p.chars() <= limit);
    }
});

//! Reading `ClassifyRule[]` (SPEC section 10) from JavaScript: `classify(…, { rules })` and
//! `LoopOptions.rules`. Every field is read through the catching readers of `read`; a bad rule
//! is a `TypeError` or `RangeError` naming its index and field (`options.rules[2].status`).

use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

use super::read::{self, range_err, type_err, Read};
use crate::classify::rules::{ClassifyRule, StatusMatch, MAX_RULES};
use crate::classify::ErrorClass;

/// `options.rules` (`p` names it): `None` when absent or null.
pub fn opt_rules(options: &JsValue, parent: &str) -> Read<Option<Vec<ClassifyRule>>> {
    read::optional(options, "rules", parent, rules_value)
}

/// An array of rules at `p`.
pub fn rules_value(v: &JsValue, p: &str) -> Read<Vec<ClassifyRule>> {
    if !read::is_array(v) {
        return type_err(
            p,
            format!("must be an array of rules, got {}", read::type_name(v)),
        );
    }
    let len = read::field(v, "length", p)?.as_f64().unwrap_or(0.0);
    if len > MAX_RULES as f64 {
        return range_err(p, format!("must hold at most {MAX_RULES} rules, got {len}"));
    }
    let mut rules = Vec::with_capacity(len as usize);
    for i in 0..len as u32 {
        let item_path = format!("{p}[{i}]");
        let item = js_sys::Reflect::get_u32(v, i)
            .or_else(|_| type_err(&item_path, "could not be read"))?;
        let rule = rule_value(&item, &item_path)?;
        // Field names from `check` are `rules[i].x`: put them under `p`'s parent.
        rule.check(i as usize).or_else(|e| {
            let field = match p.strip_suffix("rules") {
                Some(parent) => format!("{parent}{}", e.field),
                None => e.field,
            };
            if e.is_range {
                range_err(&field, e.message)
            } else {
                type_err(&field, e.message)
            }
        })?;
        rules.push(rule);
    }
    Ok(rules)
}

fn rule_value(v: &JsValue, p: &str) -> Read<ClassifyRule> {
    if !v.is_object() || read::is_array(v) {
        return type_err(
            p,
            format!("must be a rule object, got {}", read::type_name(v)),
        );
    }
    let status = read::optional(v, "status", p, status_value)?;
    let code = read::opt_string(v, "code", p)?;
    let type_ = read::opt_string(v, "type", p)?;
    let message = read::opt_string(v, "message", p)?;
    let classes = ErrorClass::ALL
        .map(|c| format!("{:?}", c.as_str()))
        .join(", ");
    let class = match read::opt_string(v, "class", p)? {
        Some(s) => word(&s, &read::path(p, "class"), &classes)?,
        None => {
            return type_err(
                &read::path(p, "class"),
                format!("is required: one of {classes}"),
            )
        }
    };
    let cause = match read::opt_string(v, "cause", p)? {
        Some(s) => Some(word(
            &s,
            &read::path(p, "cause"),
            "a Cause (\"rate-limited\", \"not-found\", …)",
        )?),
        None => None,
    };
    Ok(ClassifyRule {
        status,
        code,
        type_,
        message,
        class,
        cause,
    })
}

/// A contract word (`"hard-fail"`) as its serde enum: the names live in the serde attributes.
fn word<T: DeserializeOwned>(s: &str, p: &str, expected: &str) -> Read<T> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .or_else(|_| type_err(p, format!("must be one of {expected}, got {s:?}")))
}

/// A status: a whole number, or `[low, high]`.
fn status_value(v: &JsValue, p: &str) -> Read<StatusMatch> {
    if read::is_array(v) {
        let len = read::field(v, "length", p)?.as_f64().unwrap_or(0.0);
        if len != 2.0 {
            return type_err(
                p,
                format!("must be a status or [low, high], got an array of {len}"),
            );
        }
        let bound = |i: u32| -> Read<u16> {
            let x = js_sys::Reflect::get_u32(v, i)
                .or_else(|_| type_err(&format!("{p}[{i}]"), "could not be read"))?;
            status_number(&x, &format!("{p}[{i}]"))
        };
        return Ok(StatusMatch::Range(bound(0)?, bound(1)?));
    }
    if v.as_f64().is_none() {
        return type_err(
            p,
            format!(
                "must be a number or [low, high], got {}",
                read::type_name(v)
            ),
        );
    }
    Ok(StatusMatch::One(status_number(v, p)?))
}

fn status_number(v: &JsValue, p: &str) -> Read<u16> {
    let Some(n) = v.as_f64() else {
        return type_err(p, format!("must be a number, got {}", read::type_name(v)));
    };
    if !(n.fract() == 0.0 && (100.0..=999.0).contains(&n)) {
        return range_err(
            p,
            format!(
                "must be an HTTP status (a whole number, 100 to 999), got {}",
                read::js_number(n)
            ),
        );
    }
    Ok(n as u16)
}

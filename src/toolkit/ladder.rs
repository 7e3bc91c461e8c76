//! `DegradationLadder`: answer a task at a lower level of service when a
//! capability failed (SPEC section 6).
//!
//! Levels, best first: `full` (the normal path, which already failed),
//! `partial` (no tools: answer from the model's own knowledge, with a
//! disclaimer), `minimal` (a brief answer, on the light model if one is
//! given), `unavailable` (a fixed apology, no call).
//!
//! The host calls [`DegradationLadder::start`], sends each `send` step's
//! prompt (without tools, on `model` if it is not `None`), feeds the result to
//! [`DegradationLadder::next`], and shows the `final` step's text. `partial`
//! is tried first only when `failedCapabilities` includes `"tools"`;
//! otherwise the ladder starts at `minimal`. A failure steps down one level;
//! a failure at `minimal` ends at `unavailable`. A reply whose text is empty
//! or only whitespace counts as a failure. Final steps are sticky, and
//! `next()` before `start()` acts as `start()` (ignoring the result).

use serde::{Deserialize, Serialize};

use crate::error::OptionError;
use crate::prompt::{Locale, Prompt};

selfheal_hot::wire_enum! {
/// A level of service. Serialises lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The normal path, with every capability (never produced by the ladder).
    Full,
    /// No tools: an answer from the model's own knowledge.
    Partial,
    /// A brief answer, on the light model if one is given.
    Minimal,
    /// No answer: a fixed apology.
    Unavailable,
}
}

/// Ladder settings. `task` and `failedCapabilities` are required.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LadderOptions {
    /// The user's task, sent as the user text of each prompt; non-empty.
    pub task: String,
    /// What failed on the full path, e.g. `["tools"]`.
    pub failed_capabilities: Vec<String>,
    /// The model for the `minimal` level; non-empty when given.
    #[serde(default)]
    pub light_model: Option<String>,
    /// Language of the built-in texts; default `en`.
    #[serde(default)]
    pub locale: Locale,
}

impl LadderOptions {
    /// The required fields, no light model, locale `en`.
    pub fn new(task: &str, failed_capabilities: &[&str]) -> LadderOptions {
        LadderOptions {
            task: task.to_string(),
            failed_capabilities: failed_capabilities.iter().map(|s| s.to_string()).collect(),
            light_model: None,
            locale: Locale::En,
        }
    }

    /// Range checks the types cannot express; errors name the JS field.
    pub fn check(&self) -> Result<(), OptionError> {
        if self.task.trim().is_empty() {
            return Err(OptionError::range("task", "must be a non-empty string"));
        }
        if self.light_model.as_deref().is_some_and(str::is_empty) {
            return Err(OptionError::range(
                "lightModel",
                "must be a non-empty string when given",
            ));
        }
        Ok(())
    }
}

/// The result of the call the last `send` step asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LadderResult {
    /// True when the model replied.
    pub ok: bool,
    /// The reply text (used when `ok`).
    pub text: String,
    /// What went wrong, for logs (ignored by the ladder).
    pub error: Option<String>,
}

impl LadderResult {
    /// The model replied with `text`.
    pub fn ok(text: impl Into<String>) -> LadderResult {
        LadderResult {
            ok: true,
            text: text.into(),
            error: None,
        }
    }

    /// The call failed with `error`.
    pub fn failed(error: impl Into<String>) -> LadderResult {
        LadderResult {
            ok: false,
            text: String::new(),
            error: Some(error.into()),
        }
    }
}

crate::wire::tagged_enum! {
    #[tag("type", "$selfheal::tagged:type")]
    /// What the host must do next.
    #[must_use]
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[serde(rename_all = "lowercase", rename_all_fields = "camelCase")]
    pub enum LadderStep {
        /// Send `prompt` without tools (`use_tools` is always false), on `model`
        /// when it is `Some` (else the usual model), and feed the result to `next()`.
        Send {
            /// `partial` or `minimal`.
            level: Level,
            /// What to send; `user` is the task.
            prompt: Prompt,
            /// Always false: send no tool definitions.
            use_tools: bool,
            /// The model to use (`lightModel` at `minimal`), or `None` for the usual one.
            model: Option<String>,
        },
        /// Show `text` to the user: the reply with the level's disclaimer
        /// appended, or the apology at `unavailable`. Final.
        Final {
            /// The level that answered, or `unavailable`.
            level: Level,
            /// What to show the user.
            text: String,
        },
    }
}

/// The ladder. Its whole state serialises with serde (`toJSON`/`fromJSON`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DegradationLadder {
    options: LadderOptions,
    /// The last step returned (`None` before `start()`).
    last: Option<LadderStep>,
}

impl DegradationLadder {
    /// A ladder not yet started, after [`LadderOptions::check`].
    pub fn new(options: LadderOptions) -> Result<DegradationLadder, OptionError> {
        options.check()?;
        Ok(DegradationLadder {
            options,
            last: None,
        })
    }

    /// Checks a deserialised ladder (`fromJSON`).
    pub fn check(&self) -> Result<(), OptionError> {
        self.options.check().map_err(|e| e.under("options"))
    }

    /// The options the ladder was built with.
    pub fn options(&self) -> &LadderOptions {
        &self.options
    }

    /// The first step: `partial` if tools failed, else `minimal`. Calling it
    /// again restarts the ladder.
    pub fn start(&mut self) -> LadderStep {
        let level = if self
            .options
            .failed_capabilities
            .iter()
            .any(|c| c == "tools")
        {
            Level::Partial
        } else {
            Level::Minimal
        };
        self.remember(self.send(level))
    }

    /// Feed the result of the last `send`.
    pub fn next(&mut self, result: LadderResult) -> LadderStep {
        let level = match &self.last {
            None => return self.start(),
            Some(LadderStep::Final { .. }) => return self.sticky(),
            Some(LadderStep::Send { level, .. }) => *level,
        };
        let t = texts(self.options.locale);
        let step = if result.ok && !result.text.trim().is_empty() {
            let disclaimer = match level {
                Level::Partial => t.partial_disclaimer,
                _ => t.minimal_disclaimer,
            };
            LadderStep::Final {
                level,
                text: format!("{}\n\n{}", result.text, disclaimer),
            }
        } else if level == Level::Partial {
            self.send(Level::Minimal)
        } else {
            LadderStep::Final {
                level: Level::Unavailable,
                text: t.apology.to_string(),
            }
        };
        self.remember(step)
    }

    fn sticky(&self) -> LadderStep {
        self.last.clone().unwrap_or_else(|| LadderStep::Final {
            level: Level::Unavailable,
            text: texts(self.options.locale).apology.to_string(),
        })
    }

    fn remember(&mut self, step: LadderStep) -> LadderStep {
        self.last = Some(step.clone());
        step
    }

    fn send(&self, level: Level) -> LadderStep {
        let t = texts(self.options.locale);
        let (system, model) = match level {
            Level::Partial => {
                let failed = self.options.failed_capabilities.join(", ");
                (
                    format!("{} {failed}\n\n{}", t.partial_intro, t.partial_system),
                    None,
                )
            }
            _ => (
                t.minimal_system.to_string(),
                self.options.light_model.clone(),
            ),
        };
        LadderStep::Send {
            level,
            prompt: Prompt {
                system,
                user: self.options.task.clone(),
            },
            use_tools: false,
            model,
        }
    }
}

/// Every built-in sentence, per locale.
struct Texts {
    partial_intro: &'static str,
    partial_system: &'static str,
    minimal_system: &'static str,
    partial_disclaimer: &'static str,
    minimal_disclaimer: &'static str,
    apology: &'static str,
}

fn texts(locale: Locale) -> &'static Texts {
    locale.pick(&EN, &JA, &ZH)
}

const EN: Texts = Texts {
    partial_intro: "These capabilities are unavailable right now:",
    partial_system: "Tools are unavailable: you cannot search, browse, run code or call any tool. Answer the user's request from your own knowledge as well as you can. Say clearly which parts you could not verify or may be out of date, and do not pretend to have used a tool.",
    minimal_system: "Give a brief, direct answer to the user's request in a few sentences. Do not use tools. If you are not sure, say so in one sentence.",
    partial_disclaimer: "Note: this answer was written without tools (such as search or live data), from the model's own knowledge. It may be incomplete or out of date; please verify important details.",
    minimal_disclaimer: "Note: the service is degraded, so this is a brief answer only. It may be incomplete; please verify important details.",
    apology: "Sorry, this request cannot be completed right now because the service is unavailable. Please try again later.",
};

const JA: Texts = Texts {
    partial_intro: "現在、次の機能が利用できません:",
    partial_system: "ツールは利用できません。検索、閲覧、コードの実行、その他のツール呼び出しはできません。ユーザーの依頼に、あなた自身の知識だけでできる限り答えてください。確認できなかった部分や古い可能性がある部分ははっきり示し、ツールを使ったふりをしないでください。",
    minimal_system: "ユーザーの依頼に、数文で簡潔かつ直接的に答えてください。ツールは使わないでください。確信がない場合は、そのことを一文で述べてください。",
    partial_disclaimer: "注意: この回答はツール（検索や最新データなど）を使わず、モデル自身の知識のみで作成されました。不完全または古い可能性があります。重要な点はご確認ください。",
    minimal_disclaimer: "注意: サービスが縮退運転中のため、簡潔な回答のみをお届けしています。不完全な可能性があります。重要な点はご確認ください。",
    apology: "申し訳ありません。現在サービスが利用できないため、このリクエストを完了できません。しばらくしてから再度お試しください。",
};

const ZH: Texts = Texts {
    partial_intro: "以下功能当前不可用：",
    partial_system: "工具不可用：你无法搜索、浏览网页、运行代码或调用任何工具。请仅凭你自己的知识尽力回答用户的请求。清楚说明哪些部分无法核实或可能已过时，不要假装使用过工具。",
    minimal_system: "请用几句话简短、直接地回答用户的请求。不要使用工具。如果不确定，请用一句话说明。",
    partial_disclaimer: "注意：此回答未使用工具（如搜索或实时数据），仅基于模型自身的知识生成，可能不完整或已过时，请核实重要信息。",
    minimal_disclaimer: "注意：服务当前处于降级状态，因此这里只提供简短回答，可能不完整，请核实重要信息。",
    apology: "抱歉，由于服务当前不可用，此请求暂时无法完成。请稍后再试。",
};

/// The disclaimer appended at `level` (`""` for `full` and `unavailable`).
pub fn disclaimer(level: Level, locale: Locale) -> &'static str {
    let t = texts(locale);
    match level {
        Level::Partial => t.partial_disclaimer,
        Level::Minimal => t.minimal_disclaimer,
        Level::Full | Level::Unavailable => "",
    }
}

/// The fixed apology of the `unavailable` level.
pub fn apology(locale: Locale) -> &'static str {
    texts(locale).apology
}

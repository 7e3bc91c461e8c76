//! `RepairLoop::push`: the streamed reply of the call in flight (SPEC section 8).
//!
//! The first push of a call starts its [`InFlight`] reply; the next outcome fed to the loop ends
//! it. With a schema the reply is read as JSON and checked as it arrives ([`PartialJson`], with
//! the loop's `localRepair`, `coerce` and `maxReplyChars`); without one the value is the text
//! itself, as a `done` value is then. What `next` does with it is in [`super::RepairLoop::next`]:
//! the pushed text is the reply when the outcome carries none, a violation seen while streaming
//! makes the reply `repairable` with that issue (signal `stream`) when it was cut off or fails
//! whole too, and a push refused for length makes it a reply too long to read.

use std::fmt;
use std::sync::Arc;

use crate::structured::stream::{
    Edit, Kind, PartialJson, PartialUpdate, StreamError, StreamOptions, StreamSchema,
};
use crate::structured::FailureIssue;

/// Why [`super::RepairLoop::push`] refused a chunk; nothing was added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushError {
    /// The reply would exceed `maxReplyChars` code points. The loop remembers it: a reply outcome
    /// without text then degrades as a reply too long to read.
    TooLong { max_chars: usize, chars: usize },
    /// The loop has given its final instruction: no call is in flight.
    Finished,
}

impl fmt::Display for PushError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PushError::TooLong { max_chars, chars } => write!(
                f,
                "the streamed reply would be {chars} characters, more than maxReplyChars ({max_chars})"
            ),
            PushError::Finished => f.write_str(
                "the loop has given its final instruction: there is no call in flight to push to",
            ),
        }
    }
}

impl std::error::Error for PushError {}

/// The reply of the call in flight, as pushed so far.
#[derive(Debug, Clone)]
pub(super) struct InFlight {
    body: Body,
    /// A push was refused for length: the length the reply would have had.
    pub(super) too_long: Option<usize>,
}

#[derive(Debug, Clone)]
enum Body {
    /// With a schema: read as JSON and checked as it arrives.
    Json(Box<PartialJson>),
    /// Without a schema the value is the text itself.
    Text {
        text: String,
        chars: usize,
        max_chars: usize,
    },
}

impl InFlight {
    pub(super) fn new(schema: Option<Arc<StreamSchema>>, options: StreamOptions) -> InFlight {
        let body = match schema {
            Some(schema) => Body::Json(Box::new(PartialJson::new(Some(schema), options))),
            None => Body::Text {
                text: String::new(),
                chars: 0,
                max_chars: options.max_chars,
            },
        };
        InFlight {
            body,
            too_long: None,
        }
    }

    pub(super) fn push(&mut self, chunk: &str) -> Result<PartialUpdate, PushError> {
        let pushed = match &mut self.body {
            Body::Json(stream) => stream.push(chunk).map_err(|e| match e {
                StreamError::TooLong { max_chars, chars } => {
                    PushError::TooLong { max_chars, chars }
                }
            }),
            Body::Text {
                text,
                chars,
                max_chars,
            } => push_text(text, chars, *max_chars, chunk),
        };
        if let Err(PushError::TooLong { chars, .. }) = &pushed {
            self.too_long = Some(*chars);
        }
        pushed
    }

    /// Everything pushed.
    pub(super) fn text(&self) -> &str {
        match &self.body {
            Body::Json(stream) => stream.text(),
            Body::Text { text, .. } => text,
        }
    }

    pub(super) fn into_text(self) -> String {
        match self.body {
            Body::Json(stream) => stream.text().to_string(),
            Body::Text { text, .. } => text,
        }
    }

    /// The first definitive violation, once there is one.
    pub(super) fn violation(&self) -> Option<&FailureIssue> {
        match &self.body {
            Body::Json(stream) => stream.violation().map(|v| &v.issue),
            Body::Text { .. } => None,
        }
    }
}

/// A schema-less reply: its value is its text, a string that grows.
fn push_text(
    text: &mut String,
    chars: &mut usize,
    max_chars: usize,
    chunk: &str,
) -> Result<PartialUpdate, PushError> {
    let total = chars.saturating_add(chunk.chars().count());
    if total > max_chars {
        return Err(PushError::TooLong {
            max_chars,
            chars: total,
        });
    }
    let mut edits = Vec::new();
    if !chunk.is_empty() {
        if text.is_empty() {
            edits.push(Edit::Begin {
                key: None,
                kind: Kind::String,
            });
        }
        edits.push(Edit::Append {
            text: chunk.to_string(),
        });
    }
    *chars = total;
    text.push_str(chunk);
    Ok(PartialUpdate {
        edits,
        closed: Vec::new(),
        done: false,
        violation: None,
    })
}

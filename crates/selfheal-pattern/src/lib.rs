//! JSON Schema `pattern` matching for selfheal: ECMA-262 meaning, linear time on any subject,
//! and no regex engine with Unicode tables in the wasm build.
//!
//! The patched `jsonschema` (vendor/jsonschema, patches/jsonschema/README.md) compiles every
//! `pattern` and `patternProperties` key with [`Pattern::new`]. Each pattern is
//!
//! 1. checked for ECMA-262 syntax (`jsonschema_regex::is_valid_ecma_regex`, as upstream does for
//!    `format: "regex"`): a bad pattern is still an invalid schema;
//! 2. parsed ([`ast`]), then matched by the first engine that can take it:
//!    * no engine at all for `^` + characters and classes with counts + `$`, where one greedy
//!      pass is exact (`simple.rs`: most schema patterns, `^[A-Z]{3}-\d{4}$`);
//!    * on wasm32-unknown-unknown, the host's `RegExp` (`u` flag: the engine JSON Schema names)
//!      when the [`screen`] shows it cannot backtrack for long, and [`cost`] estimates it no
//!      slower than regex-lite (or regex-lite cannot express the pattern);
//!    * regex-lite (linear time: O(pattern × subject) on every input), when it can express the
//!      pattern: everything but lookaround, backreferences, `\p{…}` and modifiers. The pattern is
//!      rewritten with its ECMA-262 meaning (`.`, `\s` and friends spelled out);
//!    * elsewhere than wasm (native tests, which have no JS), fancy-regex with its backtrack
//!      limit, for the screened patterns regex-lite cannot express;
//! 3. refused ([`Error::Backtracking`]) when none of these is safe: a pattern that needs a
//!    backtracking engine and could backtrack catastrophically (`^(\w+)+\1$`). `new Schema` then
//!    throws, naming the pattern, instead of a later call hanging on some reply;
//! 4. bounded in time: a subject longer than the chosen engine matches within [`cost`]'s budget
//!    at worst is not matched ([`MatchError::TooLong`], [`Pattern::max_subject`]), and the
//!    matches of one call ([`scope`]) share a budget, past which they are not tried
//!    ([`refusals`]).
//!
//! Native and wasm builds make the same choice up to step 2's first engine, so they accept and
//! refuse the same patterns (the time bound follows the engine, so it can differ); tests/pattern_suite.rs and tests/js/patterns.test.mjs run the
//! official suite's pattern cases through both.

#[cfg(all(target_arch = "wasm32", target_os = "unknown", target_feature = "atomics"))]
compile_error!(
    "selfheal-pattern keeps JS RegExp handles in Send + Sync engines: single-threaded wasm only"
);

mod ast;
mod cost;
pub use cost::{refusals, scope, CALL_BUDGET_NS};
mod emit;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod js;
mod screen;
mod simple;

/// Why a pattern was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Not an ECMA-262 regular expression.
    Syntax,
    /// It needs a backtracking engine (lookaround, backreferences, `\p{…}`, modifiers) and could
    /// backtrack catastrophically on some subject.
    Backtracking,
    /// Valid, but no engine here takes it (too large for the linear engine and not safe for a
    /// backtracking one, or a construct the host's `RegExp` does not support).
    Unsupported,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Error::Syntax => "not a valid ECMA-262 regular expression",
            Error::Backtracking => "needs a backtracking regex engine (lookaround, backreference, \\p{…} or modifier) and could backtrack catastrophically: nest no repetition, and keep at most one unbounded repetition, after a leading ^",
            Error::Unsupported => "is not supported by the regex engines available here",
        })
    }
}

impl std::error::Error for Error {}

/// The engine a pattern was given to (for tests and diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    /// One greedy pass, no engine (`^[A-Z]{3}-\d{4}$` and the like: see `simple.rs`).
    Simple,
    /// The host's `RegExp`.
    Host,
    /// regex-lite.
    Linear,
    /// fancy-regex (native builds only).
    Backtracking,
}

#[derive(Clone)]
enum Engine {
    Simple(simple::Simple),
    Linear(regex_lite::Regex),
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    Host(js::HostRegex),
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    Backtracking(fancy_regex::Regex),
}

/// A compiled pattern.
#[derive(Clone)]
pub struct Pattern {
    source: Box<str>,
    engine: Engine,
    /// The longest subject its engine matches within [`cost::BUDGET_NS`] at worst.
    max_subject: usize,
    /// The estimated worst-case time of its engine per byte of subject, in nanoseconds.
    cost: f64,
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pattern")
            .field("source", &self.source)
            .field("engine", &self.engine_kind())
            .finish()
    }
}

/// Why a match was not finished. jsonschema reports it as a `pattern` issue, unless every
/// outcome of the match gives the same result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchError {
    /// The subject is longer than the pattern's engine matches within [`cost::BUDGET_NS`] at
    /// worst ([`Pattern::max_subject`]); nothing was tried.
    TooLong { length: usize, max: usize },
    /// The host engine threw, or fancy-regex hit its backtrack limit.
    Failed,
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::TooLong { length, max } => write!(
                f,
                "the string is too long to match in bounded time ({length} UTF-8 bytes; at most {max} for this pattern)"
            ),
            MatchError::Failed => f.write_str("the regex engine could not finish"),
        }
    }
}

/// fancy-regex's budget for the screened patterns it runs natively.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
const BACKTRACK_LIMIT: usize = 1_000_000;

impl Pattern {
    /// Compile an ECMA-262 pattern (see the crate docs for which engine takes it).
    pub fn new(source: &str) -> Result<Pattern, Error> {
        if !jsonschema_regex::is_valid_ecma_regex(source) {
            return Err(Error::Syntax);
        }
        let node = ast::parse(source).ok_or(Error::Unsupported)?;
        let (engine, cost) = match simple::Simple::new(&node) {
            Some(simple) => (Engine::Simple(simple), 0.0),
            None => Self::choose(&node, screen::backtracking_safe(&node))?,
        };
        Ok(Pattern {
            source: source.into(),
            engine,
            max_subject: cost::max_subject(cost),
            cost,
        })
    }

    /// The host's `RegExp` when the screen passed the pattern and it is estimated no slower than
    /// regex-lite ([`cost`]), regex-lite when it can express the pattern, else the host's `RegExp`.
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    fn choose(node: &ast::Node, safe: bool) -> Result<(Engine, f64), Error> {
        let linear = cost::linear(node) * cost::STEP_NS.1;
        let host = cost::backtracking(node) * cost::STEP_NS.0;
        let host_first = safe && host <= linear;
        let host_engine = || {
            let regex = js::HostRegex::new(&emit::js_source::to_js(node))?;
            Some((Engine::Host(regex), host))
        };
        if let Some(chosen) = host_first.then(host_engine).flatten() {
            return Ok(chosen);
        }
        if let Some(regex) = Self::linear(node) {
            return Ok((Engine::Linear(regex), linear));
        }
        match safe {
            true if !host_first => host_engine().ok_or(Error::Unsupported),
            true => Err(Error::Unsupported),
            false => Err(Error::Backtracking),
        }
    }

    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    fn choose(node: &ast::Node, safe: bool) -> Result<(Engine, f64), Error> {
        if let Some(linear) = Self::linear(node) {
            return Ok((Engine::Linear(linear), cost::linear(node) * cost::STEP_NS.1));
        }
        if !safe {
            return Err(Error::Backtracking);
        }
        let translated = emit::to_rust(node, emit::Dialect::Fancy).ok_or(Error::Unsupported)?;
        fancy_regex::RegexBuilder::new(&translated)
            .backtrack_limit(BACKTRACK_LIMIT)
            .build()
            .map(|regex| {
                (
                    Engine::Backtracking(regex),
                    cost::backtracking(node) * cost::STEP_NS.0,
                )
            })
            .map_err(|_| Error::Unsupported)
    }

    fn linear(node: &ast::Node) -> Option<regex_lite::Regex> {
        regex_lite::Regex::new(&emit::to_rust(node, emit::Dialect::Lite)?).ok()
    }

    /// The pattern as written in the schema.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    pub fn engine_kind(&self) -> EngineKind {
        match self.engine {
            Engine::Simple(_) => EngineKind::Simple,
            Engine::Linear(_) => EngineKind::Linear,
            #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
            Engine::Host(_) => EngineKind::Host,
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            Engine::Backtracking(_) => EngineKind::Backtracking,
        }
    }

    /// The longest subject, in UTF-8 bytes, that this pattern matches within its time bound
    /// (`usize::MAX` when its engine is one greedy pass).
    pub fn max_subject(&self) -> usize {
        self.max_subject
    }

    /// Whether the pattern matches somewhere in `subject` (ECMA-262 `RegExp.prototype.test`);
    /// [`MatchError`] without trying when `subject` is longer than [`Self::max_subject`].
    pub fn is_match(&self, subject: &str) -> Result<bool, MatchError> {
        if subject.len() > self.max_subject {
            return Err(MatchError::TooLong {
                length: subject.len(),
                max: self.max_subject,
            });
        }
        match &self.engine {
            Engine::Simple(simple) => Ok(simple.is_match(subject)),
            // Past the call's budget: not tried, and counted (see `cost`).
            _ if !cost::allowed() => Ok(false),
            Engine::Linear(re) => {
                let before = regex_lite::__selfheal_steps();
                let matched = re.is_match(subject);
                let steps = regex_lite::__selfheal_steps().wrapping_sub(before);
                cost::charge(steps as f64 * cost::STEP_NS.1);
                Ok(matched)
            }
            #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
            Engine::Host(re) => {
                cost::charge(subject.len() as f64 * self.cost);
                re.test(subject).ok_or(MatchError::Failed)
            }
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            Engine::Backtracking(re) => {
                cost::charge(subject.len() as f64 * self.cost);
                re.is_match(subject).map_err(|_| MatchError::Failed)
            }
        }
    }
}

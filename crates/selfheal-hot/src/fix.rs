//! The names of local repairs and schema coercions, as reported in `fixes`.
//!
//! Each variant's kebab-case serde name is the public contract (SPEC section 9: "each named in
//! `fixes`"); it is written here once. `fixes` lists each kind at most once, in the order it was
//! first applied ([`FixList`]).

use serde::Serialize;

crate::wire_enum! {
/// One kind of local repair or coercion. Serialised as the kebab-case string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fix {
    // ---- where the value is ----
    /// Markdown code fences (```` ``` ````, with or without a language tag such
    /// as `json`) stripped.
    CodeFence,
    /// Text before or after the chosen JSON value dropped (prose, other values, other fences).
    SurroundingProse,
    // ---- punctuation ----
    /// Comma before `}` or `]` (also doubled or leading commas) removed.
    TrailingComma,
    /// `'single-quoted'` strings or keys turned into `"double-quoted"`.
    SingleQuotes,
    /// `“curly”` or `‘curly’` quoted strings or keys turned into `"double-quoted"`.
    SmartQuotes,
    /// `{key: 1}` became `{"key": 1}`.
    UnquotedKey,
    /// `// line` and `/* block */` comments removed.
    Comment,
    /// `True`/`False`/`None` became `true`/`false`/`null`.
    PythonLiteral,
    /// Comma inserted between two elements or members.
    MissingComma,
    /// Raw control characters (U+0000..U+001F) inside strings escaped.
    ControlCharacter,
    /// A backslash that starts no valid JSON escape escaped itself (`\x` -> `\\x`); `\'` read
    /// as `'`, a backslash before a line break as `\n`.
    InvalidEscape,
    /// A string still open at the end of input, or at a line break or bracket where its closing
    /// quote was evidently left out (`{"time": "12:20}`), closed there.
    UnclosedString,
    /// Containers left open closed: at the end of input (a member cut after its key or `:` gets
    /// `null`), or where a value follows that cannot belong to them (`[{"a": 1 {"a": 2}]`).
    UnclosedBracket,
    /// `{"a" 1}` became `{"a": 1}`.
    MissingColon,
    /// `{"a": , "b": 1}` became `{"a": null, "b": 1}`.
    MissingValue,
    /// A `"` inside a string that cannot end it (`"5" tall"`) escaped as content.
    UnescapedQuote,
    /// `...` (or `…`) standing for omitted elements or members removed.
    Ellipsis,
    /// `"a" + "b"` became `"ab"`.
    StringConcatenation,
    /// A function call around a value dropped: JSONP `callback({...});`, MongoDB
    /// `ObjectId("…")`, `NumberLong(2)`, `ISODate("…")`, Python `Decimal('1.5')`.
    FunctionWrapper,
    /// JavaScript `undefined` became `null`.
    UndefinedLiteral,
    /// Unicode spaces outside strings (no-break space, U+2000..U+200B, U+3000, BOM…) became ` `.
    SpecialWhitespace,
    /// `` `backtick` `` or `´acute´` quoted strings turned into `"double-quoted"`.
    BacktickQuotes,
    /// A number written with leading zeros (`0789`) kept as the string `"0789"`.
    LeadingZeros,
    /// A number missing a digit JSON requires completed: `.5` -> `0.5`, `2.` -> `2.0`, `2e` -> `2e0`.
    NumberFormat,
    /// A token that starts like a number but is not one (`0.0.1`, `2024-10-18T18:35:22Z`, a
    /// UUID) kept as a string, character for character.
    InvalidNumber,
    /// A JavaScript regular expression literal (`/ab+c/`) kept as its source text, a string.
    RegexLiteral,
    /// Two or more values separated by line breaks or commas read as one array (NDJSON).
    NewlineDelimited,
    /// A closing bracket of the wrong kind (`{"a": 2]`) read as the right one.
    MismatchedBracket,
    /// Closing brackets that close nothing dropped: after the value (`{"a": 1}}`), or before
    /// more members of the outermost object (`{"a": {"b": 1}}}, "c": 2}`).
    RedundantBracket,
    /// JSON whose quotes are backslash-escaped (`{\"a\": 1}`) unescaped.
    EscapedJson,
    /// A JSON string holding JSON (`"{\"a\": 1}"`) decoded where the schema expects an object or
    /// an array.
    StringEncodedJson,
    /// A bare word quoted as a string where the schema expects a string there (`{city: Paris}`).
    UnquotedString,
    // ---- coercions (opt-in: `coerce: true`) ----
    /// Number text read as the number the schema expects (`"12,111"` -> 12111, `"1/2"` -> 0.5).
    CoerceNumber,
    /// `"true"`/`"false"` (any case) read as the boolean the schema expects.
    CoerceBoolean,
    /// An enum value matched by case or followed by trailing text (`"one"`, `"ONE: …"` -> `"ONE"`).
    CoerceEnum,
    /// A single value wrapped in the array the schema expects.
    CoerceArray,
    /// A value wrapped in the one-property object the schema expects.
    CoerceObject,
    /// `null` for a required property that is absent and whose schema allows `null`.
    CoerceNull,
}
}

impl Fix {
    /// Every kind, in declaration order (the list [`crate::wire_enum!`] writes).
    pub const ALL: &'static [Fix] = <Fix as crate::wire_name::UnitEnum>::ALL;

    /// Whether this is one of the opt-in coercions (`coerce: true`) declared last above.
    pub fn is_coercion(self) -> bool {
        matches!(
            self,
            Fix::CoerceNumber
                | Fix::CoerceBoolean
                | Fix::CoerceEnum
                | Fix::CoerceArray
                | Fix::CoerceObject
                | Fix::CoerceNull
        )
    }

    /// The kebab-case name, identical to the serde serialisation.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        // The serde name: the derive's rename is the one place it is written.
        crate::wire_name::name_of(&self).unwrap_or_default()
    }

    /// A distinct bit per kind, so [`FixList`] can deduplicate without searching.
    fn bit(self) -> u64 {
        1 << (self as u64)
    }
}

/// Fix kinds in first-applied order, each at most once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixList {
    seen: u64,
    order: Vec<Fix>,
}

impl FixList {
    pub fn add(&mut self, fix: Fix) {
        if self.seen & fix.bit() == 0 {
            self.seen |= fix.bit();
            self.order.push(fix);
        }
    }

    pub fn extend(&mut self, fixes: impl IntoIterator<Item = Fix>) {
        for fix in fixes {
            self.add(fix);
        }
    }

    /// A point to go back to with [`FixList::restore`] (a string read again).
    pub fn mark(&self) -> (u64, usize) {
        (self.seen, self.order.len())
    }

    pub fn restore(&mut self, (seen, len): (u64, usize)) {
        self.seen = seen;
        self.order.truncate(len);
    }

    pub fn iter(&self) -> impl Iterator<Item = Fix> + '_ {
        self.order.iter().copied()
    }

    pub fn into_vec(self) -> Vec<Fix> {
        self.order
    }
}

//! Options declared once: each field with its type, its default and, where the host may leave
//! it out, how it is given, on one line of one `options!` list.
//!
//! ```text
//! options! {
//!     /// SPEC defaults.                           (attributes of the resolved struct)
//!     #[derive(Debug, Clone, Serialize, Deserialize)]
//!     #[serde(rename_all = "camelCase")]
//!     pub struct Backoff;
//!     /// `Partial<Backoff>`.                      (attributes of the struct the host gives)
//!     #[derive(Debug, Clone, Default, Deserialize)]
//!     #[serde(rename_all = "camelCase")]
//!     given BackoffOptions();                      (the arguments defaults may read)
//!     {
//!         pub base_ms: f64 = 1000.0,               (given as `Option<f64>`)
//!         pub jitter: Jitter = Jitter::Additive,
//!         pub prompt: Prompt,                      (no default: required, given as `Prompt`)
//!         pub seed: u64 = default_seed, given Option<f64>,   (given in another type)
//!     }
//! }
//! ```
//!
//! writes both structs (the given one with the same field names, so with the same serde names),
//! [`Given`] for `Option<BackoffOptions>` (a nested partial struct fills in over its defaults)
//! and two methods on the given struct:
//!
//! * `resolve(self, args…)`: every default applied, in declaration order; a default may read
//!   the arguments and every field declared above it (`Budget::default_for(mode)`);
//! * `fill(self, defaults)`: every field left out taken from `defaults`.
//!
//! Without the `given` part it writes the struct (deriving `Debug`, `Clone`, `Copy`,
//! `PartialEq` and serde, camelCase, `#[serde(default)]`), its `Default` and its `check()`: the
//! toolkit's options, read whole.
//!
//! A field may end with `check f`: `f(&value)` is its range check (`Err(message)`: a
//! `RangeError` at the field, [`checks`]); the struct's `check_fields()` (without `given`:
//! `check()`) runs them in declaration order.
//!
//! A field's attributes (docs, `#[serde]`) go on the resolved struct; attributes after `given`
//! go on the given field. Adding an option is one line here (its check included), plus its `.d.ts`
//! line (docs/ARCHITECTURE.md, "Where to add things").

use crate::error::OptionError;

/// How a value the host gave, or left out, becomes the resolved one.
pub trait Given<T> {
    /// The resolved value: what was given, else `default`.
    fn or(self, default: T) -> T;
}

impl<T> Given<T> for Option<T> {
    fn or(self, default: T) -> T {
        self.unwrap_or(default)
    }
}

/// A field that is an `Option` itself may be given as that `Option` (`given Option<f64>`):
/// `None` is "left out", as `null` is for options.
impl<T> Given<Option<T>> for Option<T> {
    fn or(self, default: Option<T>) -> Option<T> {
        self.or(default)
    }
}

/// A field's check as the error it makes: a `RangeError` naming the field by its JS name (the
/// camelCase of its Rust name, as `rename_all = "camelCase"` spells it).
pub fn field_check(field: &str, checked: Result<(), &'static str>) -> Result<(), OptionError> {
    checked.map_err(|message| OptionError::range(&camel_case(field), message))
}

/// `max_retry_after_ms` → `maxRetryAfterMs`.
pub fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        match c {
            '_' => upper = true,
            // Field names are ASCII (and `to_uppercase` would link Unicode's case tables).
            c if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// The range checks a field may declare (`check finite_non_negative`): `Err` is the message.
pub mod checks {
    /// A finite number `>= 0`.
    pub fn finite_non_negative(n: &f64) -> Result<(), &'static str> {
        match n.is_finite() && *n >= 0.0 {
            true => Ok(()),
            false => Err("must be a finite number >= 0"),
        }
    }

    /// A finite number `>= 0`, or `null`.
    pub fn finite_non_negative_or_null(n: &Option<f64>) -> Result<(), &'static str> {
        match n.map_or(Ok(()), |n| finite_non_negative(&n)) {
            Ok(()) => Ok(()),
            Err(_) => Err("must be a finite number >= 0 or null"),
        }
    }

    /// A count of at least 1.
    pub fn at_least_one<N: Copy + Into<u64>>(n: &N) -> Result<(), &'static str> {
        match (*n).into() >= 1 {
            true => Ok(()),
            false => Err("must be at least 1"),
        }
    }
}

/// See the [module docs](self).
macro_rules! options {
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        $(#[$given_meta:meta])*
        given $given:ident($($arg:ident: $arg_ty:ty),*);
        {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident: $ty:ty $(= $default:expr)?
                    $(, given $(#[$given_field_meta:meta])* $given_ty:ty)?
                    $(, check $check:path)?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        $(#[$given_meta])*
        pub struct $given {
            $(
                $($(#[$given_field_meta])*)?
                pub $field: $crate::options::options!(@given [$ty] [$($given_ty)?] [$($default)?]),
            )*
        }

        impl $given {
            /// Every default applied, in declaration order.
            pub fn resolve(self, $($arg: $arg_ty),*) -> $name {
                $(
                    let $field: $ty =
                        $crate::options::options!(@or [self.$field] [$($default)?]);
                )*
                $name { $($field),* }
            }

            /// Every field left out taken from `defaults`.
            pub fn fill(self, defaults: $name) -> $name {
                $name {
                    $(
                        $field: $crate::options::options!(
                            @fill [self.$field] [defaults.$field] [$($default)?]
                        ),
                    )*
                }
            }
        }

        impl $name {
            /// The range checks of the fields that declare one, in declaration order.
            pub fn check_fields(&self) -> Result<(), $crate::error::OptionError> {
                $($( $crate::options::field_check(stringify!($field), $check(&self.$field))?; )?)*
                Ok(())
            }
        }

        impl $crate::options::Given<$name> for Option<$given> {
            fn or(self, defaults: $name) -> $name {
                match self {
                    Some(given) => given.fill(defaults),
                    None => defaults,
                }
            }
        }
    };
    // Without `given`: options read whole, a left-out field taking its default: the struct
    // (`Copy`, camelCase, `#[serde(default)]`), its `Default` and its `check`.
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident: $ty:ty = $default:expr $(, check $check:path)?
            ),* $(,)?
        }
    ) => {
        #[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "camelCase", default)]
        $(#[$meta])*
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default),* }
            }
        }

        impl $name {
            /// Range checks the types cannot express (each field's `check`, in declaration
            /// order); errors name the JS field.
            pub fn check(&self) -> Result<(), $crate::error::OptionError> {
                $($( $crate::options::field_check(stringify!($field), $check(&self.$field))?; )?)*
                Ok(())
            }
        }
    };
    (@given [$ty:ty] [$given_ty:ty] [$($default:expr)?]) => { $given_ty };
    (@given [$ty:ty] [] []) => { $ty };
    (@given [$ty:ty] [] [$default:expr]) => { Option<$ty> };
    (@or [$value:expr] []) => { $value };
    (@or [$value:expr] [$default:expr]) => { $crate::options::Given::or($value, $default) };
    (@fill [$value:expr] [$defaults:expr] []) => { $value };
    (@fill [$value:expr] [$defaults:expr] [$default:expr]) => {
        $crate::options::Given::or($value, $defaults)
    };
}

pub(crate) use options;

/// `new(options)` and `try_new(options)` of a type that is its options plus state starting at
/// its `Default` (`CircuitBreaker`, `RetryBudget`): `new` takes options built in Rust as they
/// are, `try_new` runs their `check()` first, for options that came from outside.
macro_rules! made_from_options {
    ($(#[$doc:meta])* $ty:ident($options:ty)) => {
        impl $ty {
            $(#[$doc])*
            ///
            /// Does not check the options: use `try_new` for options that came from outside.
            pub fn new(options: $options) -> $ty {
                $ty {
                    options,
                    ..$ty::default()
                }
            }

            /// [`new`](Self::new), after the options' `check()`.
            pub fn try_new(options: $options) -> Result<$ty, $crate::error::OptionError> {
                options.check()?;
                Ok($ty::new(options))
            }
        }
    };
}

pub(crate) use made_from_options;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_is_serde_camel_case() {
        assert_eq!(camel_case("max_retry_after_ms"), "maxRetryAfterMs");
        assert_eq!(camel_case("seed"), "seed");
        assert_eq!(camel_case("cost_ceiling_usd"), "costCeilingUsd");
    }

    #[test]
    fn a_field_check_names_the_js_field() {
        let e = field_check("max_ms", checks::finite_non_negative(&f64::NAN)).unwrap_err();
        assert!(e.is_range);
        assert_eq!(
            e.under("backoff").to_string(),
            "backoff.maxMs must be a finite number >= 0"
        );
        assert_eq!(checks::at_least_one(&0u32), Err("must be at least 1"));
        assert_eq!(checks::finite_non_negative_or_null(&None), Ok(()));
    }
}
